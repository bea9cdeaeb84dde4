//! The theme and presenter mode: attributes on `<html>`, so the whole page's CSS follows.

use super::events::{use_event_listener, ListenOn};
use crate::state::{theme_name, PRESENTER_KEY, THEME_KEY};
use crate::web::dom;
use crate::wire::permalink::Theme;
use yew::prelude::*;

/// Whether `t` shows dark now ("auto" follows the system's preference).
pub fn is_dark(t: Theme) -> bool {
    match t {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::Auto => dom::prefers_dark(),
    }
}

/// Keeps `<html data-theme data-presenter>` on the view's theme and presenter mode;
/// "auto" follows the system's preference, also when it changes while the page is open.
/// A change the viewer makes is stored for their next visit. Returns whether the page is
/// dark.
#[hook]
pub fn use_theme(theme: Theme, presenter: bool) -> bool {
    let system_dark = use_state(dom::prefers_dark);
    {
        let system_dark = system_dark.clone();
        use_event_listener(
            ListenOn::Media("(prefers-color-scheme: dark)"),
            "change",
            Callback::from(move |_: web_sys::Event| system_dark.set(dom::prefers_dark())),
        );
    }
    use_effect_with((theme, presenter, *system_dark), |(theme, presenter, _)| {
        dom::set_root_attr("data-theme", Some(if is_dark(*theme) { "dark" } else { "light" }));
        dom::set_root_attr("data-presenter", presenter.then_some("on"));
    });
    // Not the values the page opened with (a link's): only what the viewer changes.
    let opened = use_mut_ref(|| true);
    use_effect_with((theme, presenter), move |(theme, presenter)| {
        if !std::mem::replace(&mut *opened.borrow_mut(), false) {
            dom::store(THEME_KEY, theme_name(*theme));
            dom::store(PRESENTER_KEY, if *presenter { "on" } else { "off" });
        }
    });
    is_dark(theme)
}
