//! Room for a chart's text, from its type size and the width it is drawn at: how wide
//! the y axis' labels are, how tall the x axis' are, how many ticks a narrow axis can
//! label, and where a caption wraps. Plotters sets these areas in fixed pixels; at
//! presenter size (18 px type) fixed areas put the "% vs A" title on its tick labels,
//! and on a phone a caption runs off the chart.
//!
//! Widths are estimated from the character count: a sans-serif character averages about
//! half an em, and [`CHAR_EM`] is a little over that so an estimate errs wide.

/// Estimated width of one character, in ems, of the sans-serif chart type.
pub const CHAR_EM: f64 = 0.6;
/// Height of one line of text, in ems (the type and its leading).
pub const LINE_EM: f64 = 1.3;

/// Chart text metrics at one type size and device scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextRoom {
    /// Type size in CSS pixels (the theme's `font_px`).
    pub font_px: f64,
    /// Device pixels per CSS pixel.
    pub scale: f64,
}

impl TextRoom {
    fn px(&self, css: f64) -> f64 {
        css * self.scale
    }

    /// Height of a line of text at `rel` of the type size, device pixels.
    pub fn line(&self, rel: f64) -> u32 {
        self.px(self.font_px * rel * LINE_EM).ceil() as u32
    }

    /// Estimated width of `chars` characters at `rel` of the type size, device pixels.
    pub fn width(&self, chars: usize, rel: f64) -> u32 {
        self.px(self.font_px * rel * CHAR_EM * chars as f64).ceil() as u32
    }

    /// The room under an x axis: tick marks, a line of tick labels (at 0.9 of the type
    /// size, as every chart styles them) and, with `title`, the axis title under them.
    pub fn x_label_area(&self, title: bool) -> u32 {
        let ticks = self.px(8.0) as u32 + self.line(0.9);
        if title {
            ticks + self.line(1.0) + self.px(4.0) as u32
        } else {
            ticks
        }
    }

    /// The room left of a y axis whose longest tick label is `chars` characters: the
    /// labels, the rotated axis title beside them, and a gap each side.
    pub fn y_label_area(&self, chars: usize) -> u32 {
        self.px(10.0) as u32 + self.width(chars, 0.9) + self.line(1.0) + self.px(6.0) as u32
    }

    /// How many tick labels of up to `chars` characters an axis `axis_px` long can hold
    /// with a label's width of space between neighbours (at least 2, at most `most`).
    pub fn x_labels(&self, axis_px: u32, chars: usize, most: usize) -> usize {
        let each = (self.width(chars.max(1), 0.9) * 2).max(1);
        ((axis_px / each) as usize).clamp(2, most.max(2))
    }

    /// Characters of text at `rel` of the type size that fit in `px` device pixels.
    pub fn chars_in(&self, px: u32, rel: f64) -> usize {
        let one = self.px(self.font_px * rel * CHAR_EM).max(0.1);
        (px as f64 / one).floor() as usize
    }
}

/// The longest label of a linear axis from `lo` to `hi`, in characters, as Plotters
/// writes them (one decimal, two on a narrow axis) plus one for a sign or digit more.
pub fn linear_label_chars(lo: f64, hi: f64) -> usize {
    let d = if (hi - lo).abs() < 1.0 { 2 } else { 1 };
    [lo, hi].iter().map(|v| format!("{v:.d$}").chars().count()).max().unwrap_or(1) + 1
}

/// `text` in lines of at most `width` characters, broken at spaces (a word longer than
/// a line stands alone on its line, whole).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let fits = line.is_empty() || line.chars().count() + 1 + word.chars().count() <= width;
        if !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: TextRoom = TextRoom { font_px: 13.0, scale: 1.0 };
    const PRESENTER: TextRoom = TextRoom { font_px: 18.0, scale: 1.0 };

    #[test]
    fn label_areas_grow_with_the_type() {
        // At the screen's 13 px the areas are what the charts had in fixed pixels.
        assert_eq!(SCREEN.x_label_area(true), 45);
        assert_eq!(SCREEN.x_label_area(false), 24);
        assert_eq!(SCREEN.y_label_area(6), 76);
        // At presenter size a "+1000%" label and the title beside it need more.
        assert!(PRESENTER.y_label_area(6) > SCREEN.y_label_area(6) + 20);
        assert!(PRESENTER.x_label_area(true) > SCREEN.x_label_area(true) + 10);
        // The label, the title and the gaps all fit: no overlap by construction.
        let room = PRESENTER.y_label_area(6);
        assert!(room >= PRESENTER.width(6, 0.9) + PRESENTER.line(1.0) + 10);
        // A device pixel ratio scales every part.
        let hi_dpi = TextRoom { scale: 3.0, ..SCREEN };
        assert!((hi_dpi.y_label_area(6) as i64 - 3 * SCREEN.y_label_area(6) as i64).abs() <= 3);
    }

    #[test]
    fn narrow_axes_label_fewer_ticks() {
        assert_eq!(SCREEN.x_labels(640, 4, 10), 10);
        assert_eq!(SCREEN.x_labels(280, 4, 10), 4);
        assert_eq!(SCREEN.x_labels(10, 4, 10), 2, "never fewer than two");
        assert_eq!(linear_label_chars(0.0, 1200.0), 7);
        assert_eq!(linear_label_chars(0.0, 0.2), 5);
        assert_eq!(linear_label_chars(-12.5, 12.5), 6);
    }

    #[test]
    fn captions_wrap_at_spaces_and_keep_every_word() {
        let c = "Hmean throughput (MB/sec), higher is better; bars ±1 stddev of 3 iterations";
        assert_eq!(wrap(c, 200), [c]);
        let lines = wrap(c, 40);
        assert_eq!(lines, ["Hmean throughput (MB/sec), higher is", "better; bars ±1 stddev of 3 iterations"]);
        assert!(lines.iter().all(|l| l.chars().count() <= 40));
        assert_eq!(lines.join(" "), c);
        assert_eq!(wrap("a-very-long-word x", 4), ["a-very-long-word", "x"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(SCREEN.chars_in(360, 1.1), 41);
    }
}
