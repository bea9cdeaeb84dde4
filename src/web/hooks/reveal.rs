//! Bringing what the user waited for into view: an import's summary appears where the
//! import was asked, but the machine drawn above it may have grown by then, and a file
//! dropped from a classroom card was asked from another tab.

use crate::web::dom;
use yew::prelude::*;

/// Scrolls the first element matching `selector` to the top of the view each time `key`
/// becomes a new `Some` — not when the component mounts with one (a tab opened again
/// opens at its top).
#[hook]
pub fn use_reveal<K: PartialEq + Clone + 'static>(key: Option<K>, selector: &'static str) {
    let seen = use_mut_ref(|| key.clone());
    use_effect_with(key, move |k| {
        if k.is_some() && *seen.borrow() != *k {
            dom::scroll_to(selector);
        }
        *seen.borrow_mut() = k.clone();
    });
}
