//! The page's own Yew hooks: DOM event listeners that are removed when their component
//! goes, the page-wide keyboard, and the theme.

mod events;
mod theme;

pub use events::{typing, use_event_listener, use_keydown, ListenOn};
pub use theme::{is_dark, use_theme};
