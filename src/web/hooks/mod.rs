//! The page's own Yew hooks: DOM event listeners that are removed when their component
//! goes, the page-wide keyboard, one Tab stop for a group of controls, the timeline's zoom and pan, the theme, the page's state in its URL, the sweep's
//! worker pool, an awaited result brought into view and the Perfetto export's worker.

mod events;
mod file_drop;
mod gestures;
mod perfetto;
mod replay;
mod reveal;
mod roving;
mod sweep;
mod theme;
mod url;

pub use events::{typing, use_event_listener, use_keydown, ListenOn};
pub use file_drop::{use_file_drop, FileDrop};
pub use gestures::{use_timeline_gestures, use_width, Gestures, ViewOps};
pub use perfetto::use_perfetto_export;
pub use replay::{use_replay, ImportStatus, Replay, TableStatus, VsStatus};
pub use reveal::use_reveal;
pub use roving::use_roving_focus;
pub use sweep::use_sweep_runner;
pub use theme::{is_dark, use_theme};
pub use url::{use_url_state, URL_DEBOUNCE_MS};
