//! Keeping what the viewer looks at in view while the layout changes under it (presenter
//! mode on or off: type grows, charts go one per row, the form folds). Browsers keep the
//! scroll offset, so an element 270 px down ends up 1,100 px down; the page instead
//! notes the element in view before the change and scrolls it back after.
//!
//! Pure: boxes are viewport coordinates in CSS pixels, as `getBoundingClientRect`
//! gives them; `web::dom` measures them.

/// One element that could be the one in view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub top: f64,
    pub bottom: f64,
    pub left: f64,
    pub right: f64,
    /// It has the keyboard focus (or holds what has).
    pub focused: bool,
}

impl Candidate {
    fn visible(&self, view: (f64, f64)) -> f64 {
        (self.bottom.min(view.1) - self.top.max(view.0)).max(0.0)
    }

    fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.left && x <= self.right && y >= self.top && y <= self.bottom
    }

    fn area(&self) -> f64 {
        (self.bottom - self.top).max(0.0) * (self.right - self.left).max(0.0)
    }
}

/// The element the viewer is looking at, of `cands`, with the view from `view.0` to
/// `view.1` (under a sticky header, above a sticky bar): the smallest one under the
/// pointer, if the pointer is over one in view; else the focused one in view; else the
/// one with the most of its height in view (the first of equals).
pub fn pick(cands: &[Candidate], view: (f64, f64), pointer: Option<(f64, f64)>) -> Option<usize> {
    let in_view = |c: &Candidate| c.visible(view) > 0.0;
    let smallest = |it: &mut dyn Iterator<Item = (usize, &Candidate)>| {
        it.min_by(|a, b| a.1.area().total_cmp(&b.1.area())).map(|(i, _)| i)
    };
    if let Some(p) = pointer {
        if let Some(i) = smallest(&mut cands.iter().enumerate().filter(|(_, c)| in_view(c) && c.contains(p))) {
            return Some(i);
        }
    }
    if let Some(i) = smallest(&mut cands.iter().enumerate().filter(|(_, c)| in_view(c) && c.focused)) {
        return Some(i);
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in cands.iter().enumerate() {
        let v = c.visible(view);
        if v > 0.0 && best.is_none_or(|(_, b)| v > b) {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

/// How far to scroll (down, positive) so that an element that was at `was_top` and is
/// now at `now_top`, `height` tall, is back where it was, as far as that keeps it whole
/// in the view from `view.0` to `view.1`; one taller than the view goes to its top.
pub fn scroll_by(was_top: f64, now_top: f64, height: f64, view: (f64, f64)) -> f64 {
    let want = if height <= view.1 - view.0 { was_top.clamp(view.0, view.1 - height) } else { view.0 };
    now_top - want
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(top: f64, bottom: f64, left: f64, right: f64) -> Candidate {
        Candidate { top, bottom, left, right, focused: false }
    }

    #[test]
    fn the_element_under_the_pointer_wins_then_the_focused_then_the_most_visible() {
        // Two charts side by side (a grid row), a form panel above, mostly out of view.
        let form = c(-900.0, 120.0, 0.0, 1400.0);
        let throughput = c(200.0, 760.0, 0.0, 690.0);
        let migrations = c(200.0, 590.0, 710.0, 1400.0);
        let cands = [form, throughput, migrations];
        let view = (60.0, 1080.0);
        assert_eq!(pick(&cands, view, Some((900.0, 400.0))), Some(2), "under the pointer");
        assert_eq!(pick(&cands, view, Some((700.0, 400.0))), Some(1), "in the gap: no pointer's element");
        let mut focused = cands;
        focused[0].focused = true;
        assert_eq!(pick(&focused, view, None), Some(0), "the focused one");
        assert_eq!(pick(&cands, view, None), Some(1), "the most visible");
        assert_eq!(pick(&cands, (2000.0, 3000.0), None), None, "nothing in view");
        // Nested: the smaller of two under the pointer (a chart inside a panel).
        let panel = c(0.0, 1000.0, 0.0, 1400.0);
        assert_eq!(pick(&[panel, migrations], view, Some((900.0, 400.0))), Some(1));
    }

    #[test]
    fn the_element_goes_back_where_it_was_and_stays_whole_in_view() {
        let view = (60.0, 1080.0);
        // The chart moved from 270 to 1146 and grew to 810 tall: back up, but whole.
        assert_eq!(scroll_by(270.0, 1146.0, 810.0, view), 1146.0 - 270.0);
        assert_eq!(scroll_by(400.0, 1146.0, 810.0, view), 1146.0 - 270.0, "whole: its bottom at the view's");
        // Under a taller header: not under it.
        assert_eq!(scroll_by(30.0, 500.0, 100.0, view), 500.0 - 60.0);
        // Taller than the view: its top at the view's top.
        assert_eq!(scroll_by(270.0, 1146.0, 5000.0, view), 1146.0 - 60.0);
        // Nothing moved: nothing to do.
        assert_eq!(scroll_by(300.0, 300.0, 200.0, view), 0.0);
    }
}
