//! DOM event listeners as hooks: added when the component mounts, removed when it goes.

use crate::web::dom;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{EventTarget, KeyboardEvent};
use yew::prelude::*;

/// What a listener listens on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListenOn {
    Window,
    Document,
    /// A media query (`window.matchMedia`), for its `change` event.
    Media(&'static str),
}

impl ListenOn {
    fn target(self) -> Option<EventTarget> {
        match self {
            ListenOn::Window => dom::window().map(Into::into),
            ListenOn::Document => dom::document().map(Into::into),
            ListenOn::Media(q) => dom::window().and_then(|w| w.match_media(q).ok().flatten()).map(Into::into),
        }
    }
}

/// Calls `handler` with each `event` on `on`, for the component's life. The listener is
/// added once; a handler given at a later render replaces the earlier one, so it always
/// sees the props and state of the last render.
#[hook]
pub fn use_event_listener<E>(on: ListenOn, event: &'static str, handler: Callback<E>)
where
    E: JsCast + 'static,
{
    let latest = use_mut_ref(|| handler.clone());
    *latest.borrow_mut() = handler;
    use_effect_with((on, event), move |&(on, event)| {
        let target = on.target();
        let cb = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let handler = latest.borrow().clone();
            handler.emit(e.unchecked_into::<E>());
        });
        if let Some(t) = &target {
            let _ = t.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
        }
        move || {
            if let Some(t) = target {
                let _ = t.remove_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
            }
        }
    });
}

/// Page-wide keys: `handler` sees each key pressed on the document without Ctrl, Meta or
/// Alt, outside a text field, select or editable element, and not taken by the focused
/// control ([`taken_by_focus`]).
#[hook]
pub fn use_keydown(handler: Callback<KeyboardEvent>) {
    let filtered = Callback::from(move |e: KeyboardEvent| {
        if !(e.ctrl_key() || e.meta_key() || e.alt_key() || typing(&e) || taken_by_focus(&e)) {
            handler.emit(e);
        }
    });
    use_event_listener(ListenOn::Document, "keydown", filtered);
}

/// Whether the key belongs to the control it went to: Space and Enter press a focused
/// button, link or summary, and arrow keys move inside a widget that takes them (marked
/// `data-arrows`, like the machine drawing's editor). A view's tab is the exception: it
/// is in front once focused, so Space there steps live mode as it always did.
pub fn taken_by_focus(e: &KeyboardEvent) -> bool {
    let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    match e.key().as_str() {
        " " | "Enter" => {
            matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
                && el.get_attribute("role").as_deref() != Some("tab")
        }
        "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown" | "Home" | "End" => {
            el.closest("[data-arrows]").ok().flatten().is_some()
        }
        _ => false,
    }
}

/// Whether the key went to something the user types into.
pub fn typing(e: &KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|el| {
            matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || el.has_attribute("contenteditable")
        })
        .unwrap_or(false)
}
