//! Keyboard paths through the page that are pure logic: the arrow keys of a widget that
//! is one Tab stop (the machine drawing's editor, whose three controls per core made a
//! 64-CPU machine 186 Tab presses long). Inside it, ← → move to the previous and next
//! control, ↑ ↓ too except on a select (where they change the value), Home and End to
//! the first and last; the one control that Tab reaches is the last one used.

/// The control to move to from control `i` of `n` on `key`; `on_select`: the focused
/// control is a select. `None`: the key is not the widget's (it does what it did).
pub fn roving_step(key: &str, i: usize, n: usize, on_select: bool) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let i = i.min(n - 1);
    match key {
        "ArrowRight" => Some((i + 1).min(n - 1)),
        "ArrowLeft" => Some(i.saturating_sub(1)),
        "ArrowDown" if !on_select => Some((i + 1).min(n - 1)),
        "ArrowUp" if !on_select => Some(i.saturating_sub(1)),
        "Home" => Some(0),
        "End" => Some(n - 1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::roving_step;

    #[test]
    fn arrows_move_inside_and_stop_at_the_ends() {
        assert_eq!(roving_step("ArrowRight", 0, 3, false), Some(1));
        assert_eq!(roving_step("ArrowRight", 2, 3, false), Some(2), "stays at the last");
        assert_eq!(roving_step("ArrowLeft", 0, 3, false), Some(0));
        assert_eq!(roving_step("ArrowDown", 1, 3, false), Some(2));
        assert_eq!(roving_step("ArrowUp", 1, 3, false), Some(0));
        assert_eq!(roving_step("Home", 2, 3, true), Some(0));
        assert_eq!(roving_step("End", 0, 3, true), Some(2));
        // A select keeps ↑ ↓ for its value; ← → still move on.
        assert_eq!(roving_step("ArrowDown", 1, 3, true), None);
        assert_eq!(roving_step("ArrowRight", 1, 3, true), Some(2));
        assert_eq!(roving_step("Tab", 1, 3, false), None, "Tab leaves the widget");
        assert_eq!(roving_step("ArrowRight", 0, 0, false), None);
        assert_eq!(roving_step("ArrowLeft", 9, 3, false), Some(1), "a stale index is clamped first");
    }
}
