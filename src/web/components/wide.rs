//! A box whose content may be wider than the screen (the mmtests table, a replay's
//! table): it scrolls sideways inside itself rather than widening the page, and says so
//! when it does, since a cut line does not show that there is more.

use crate::web::dom;
use crate::web::hooks::{use_event_listener, ListenOn};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WideProps {
    /// The element that scrolls: the box itself, or (given) the child with this id.
    #[prop_or_default]
    pub scroller: Option<AttrValue>,
    /// What is in the box, for the hint ("The table").
    pub what: AttrValue,
    #[prop_or_default]
    pub class: Classes,
    pub children: Html,
}

#[function_component(Wide)]
pub fn wide(p: &WideProps) -> Html {
    let node = use_node_ref();
    let cut = use_state(|| false);
    let measure = {
        let (node, cut, scroller) = (node.clone(), cut.clone(), p.scroller.clone());
        Rc::new(move || {
            let el = match &scroller {
                Some(id) => dom::document().and_then(|d| d.get_element_by_id(id)),
                None => node.cast::<web_sys::Element>(),
            };
            if let Some(el) = el {
                let now = el.scroll_width() > el.client_width() + 1;
                if now != *cut {
                    cut.set(now);
                }
            }
        })
    };
    {
        let measure = measure.clone();
        use_effect(move || measure());
    }
    use_event_listener(ListenOn::Window, "resize", Callback::from(move |_: web_sys::Event| measure()));
    let own = p.scroller.is_none().then_some("wide-scroll");
    html! {
        <div class={classes!("wide", p.class.clone())}>
            if *cut {
                <p class="wide-hint muted" role="note">{ format!("{} is wider than this box: scroll it sideways →", p.what) }</p>
            }
            <div ref={node} class={classes!(own)}>{ p.children.clone() }</div>
        </div>
    }
}
