//! The page's own Yew hooks: DOM event listeners that are removed when their component
//! goes, the page-wide keyboard, the theme, and the page's state in its URL.

mod events;
mod theme;
mod url;

pub use events::{typing, use_event_listener, use_keydown, ListenOn};
pub use theme::{is_dark, use_theme};
pub use url::{use_url_state, URL_DEBOUNCE_MS};
