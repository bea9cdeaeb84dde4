//! The page's state in its URL: the address bar always holds a permalink of what is on
//! the page, so a reload keeps the experiment and Back and Forward move between tabs.

use super::events::{use_event_listener, ListenOn};
use crate::web::dom;
use crate::wire::permalink::{self, Shared};
use yew::prelude::*;

/// How long an edit waits before it is written to the address bar: typing a number
/// rewrites it once, not at every keystroke.
pub const URL_DEBOUNCE_MS: i32 = 300;

#[derive(Default)]
struct UrlSync {
    /// What the address bar holds (the current history entry).
    written: Option<Shared>,
    /// An edit waiting for its debounce.
    pending: Option<Shared>,
    /// Bumped at each change: a timer whose number is not the last does nothing.
    seq: u32,
}

impl UrlSync {
    fn flush_pending(&mut self) {
        if let Some(p) = self.pending.take() {
            if dom::replace_hash(&permalink::encode(&p)).is_ok() {
                self.written = Some(p);
            }
        }
    }
}

/// Keeps the address bar on `shared`: a change of tab is a new history entry
/// (`pushState`), any other change replaces the current one (`replaceState`, after
/// [`URL_DEBOUNCE_MS`]). When the user goes Back or Forward, or opens another link in
/// the same tab, `on_load` gets that entry's state, or `on_bad` the reason it cannot be
/// read. `initial` is what the address bar held when the page opened, if it was a link.
#[hook]
pub fn use_url_state(shared: Shared, initial: Option<Shared>, on_load: Callback<Shared>, on_bad: Callback<String>) {
    let sync = use_mut_ref(|| UrlSync { written: initial, ..UrlSync::default() });
    {
        let sync = sync.clone();
        use_effect_with(shared, move |shared| {
            let mut u = sync.borrow_mut();
            u.seq = u.seq.wrapping_add(1);
            if u.written.as_ref() == Some(shared) {
                u.pending = None;
                return;
            }
            let tab_changed = u.written.as_ref().is_some_and(|w| w.view.tab != shared.view.tab);
            if tab_changed {
                // Edits not yet written belong to the entry being left.
                u.flush_pending();
                if dom::push_hash(&permalink::encode(shared)).is_ok() {
                    u.written = Some(shared.clone());
                }
                return;
            }
            u.pending = Some(shared.clone());
            let seq = u.seq;
            let sync = sync.clone();
            dom::after_ms(URL_DEBOUNCE_MS, move || {
                let mut u = sync.borrow_mut();
                if u.seq == seq {
                    u.flush_pending();
                }
            });
        });
    }
    // Back, Forward (popstate) and a link pasted into the address bar (hashchange; the
    // browser may send both for one navigation: the second finds nothing new).
    let on_nav = {
        let sync = sync.clone();
        Callback::from(move |_: web_sys::Event| match permalink::decode(&dom::location_hash()) {
            Ok(Some(s)) => {
                let mut u = sync.borrow_mut();
                if u.written.as_ref() != Some(&s) {
                    u.seq = u.seq.wrapping_add(1);
                    u.pending = None;
                    u.written = Some(s.clone());
                    drop(u);
                    on_load.emit(s);
                }
            }
            Ok(None) => {}
            Err(e) => on_bad.emit(format!("{e} The experiment on the page is unchanged.")),
        })
    };
    use_event_listener(ListenOn::Window, "popstate", on_nav.clone());
    use_event_listener(ListenOn::Window, "hashchange", on_nav);
}
