//! The header's Copy link button: writes the page's permalink to the address bar and the
//! clipboard, and says for a few seconds beside the button whether that worked.

use crate::web::dom;
use crate::wire::permalink::{self, Shared};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CopyLinkProps {
    /// What the link is to reopen.
    pub shared: Shared,
    /// The link was made: (url, what the link banner is to say).
    pub on_link: Callback<(String, String)>,
    /// The link could not be made.
    pub on_error: Callback<String>,
}

#[function_component(CopyLink)]
pub fn copy_link(p: &CopyLinkProps) -> Html {
    // "Link copied." beside the button, for a few seconds; the sequence number lets an
    // older timer leave a newer message alone.
    let flash = use_state(|| None::<(u32, String, bool)>);
    let link_seq = use_mut_ref(|| 0u32);
    let onclick = {
        let shared = p.shared.clone();
        let on_link = p.on_link.clone();
        let on_error = p.on_error.clone();
        let flash = flash.clone();
        Callback::from(move |_| {
            let frag = permalink::encode(&shared);
            let seq = {
                let mut s = link_seq.borrow_mut();
                *s += 1;
                *s
            };
            let link_seq = link_seq.clone();
            match dom::replace_hash(&frag) {
                Ok(url) => {
                    let on_link = on_link.clone();
                    let flash = flash.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let ok = dom::copy_text(url.clone()).await;
                        let status = if ok { "Link copied." } else { "Copy the link below." };
                        on_link.emit((url, status.into()));
                        let msg = if ok {
                            "Link copied".to_string()
                        } else {
                            "Could not copy: the link is in the box at the top of the page".to_string()
                        };
                        flash.set(Some((seq, msg, ok)));
                        let clear = flash.clone();
                        dom::after_ms(4000, move || {
                            if *link_seq.borrow() == seq {
                                clear.set(None);
                            }
                        });
                    });
                }
                Err(e) => {
                    flash.set(Some((seq, format!("Could not make the link: {e}"), false)));
                    on_error.emit(format!("cannot make the link: {e}"));
                }
            }
        })
    };
    html! {
        <span class="copy-link-wrap">
            <button type="button" id="copy-link" class="primary" {onclick}>{ "Copy link" }</button>
            if let Some((_, msg, ok)) = &*flash {
                <span id="copy-link-status" class={classes!("link-flash", (!ok).then_some("failed"))} role="status">{ msg.clone() }</span>
            }
        </span>
    }
}
