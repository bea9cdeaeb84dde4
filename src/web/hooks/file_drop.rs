//! A drop zone with a file input beside it: the first file picked or dropped goes to
//! one callback, and (where the zone takes text) dropped text with no file to another.

use web_sys::{DragEvent, File, HtmlInputElement};
use yew::prelude::*;

/// The zone's state and the handlers to put on it and on its `<input type="file">`.
pub struct FileDrop {
    /// A drag is over the zone (style it).
    pub over: bool,
    pub on_pick: Callback<Event>,
    pub on_drag_over: Callback<DragEvent>,
    pub on_drag_leave: Callback<DragEvent>,
    pub on_drop: Callback<DragEvent>,
}

#[hook]
pub fn use_file_drop(on_file: Callback<File>, on_text: Option<Callback<String>>) -> FileDrop {
    let over = use_state(|| false);
    let on_pick = {
        let on_file = on_file.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                on_file.emit(f);
            }
            // The same file picked again is a new change.
            input.set_value("");
        })
    };
    let on_drag_over = {
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(true);
        })
    };
    let on_drag_leave = {
        let over = over.clone();
        Callback::from(move |_: DragEvent| over.set(false))
    };
    let on_drop = {
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(false);
            let Some(dt) = e.data_transfer() else { return };
            if let Some(f) = dt.files().and_then(|l| l.get(0)) {
                on_file.emit(f);
            } else if let (Some(on_text), Ok(t)) = (&on_text, dt.get_data("text/plain")) {
                on_text.emit(t);
            }
        })
    };
    FileDrop { over: *over, on_pick, on_drag_over, on_drag_leave, on_drop }
}
