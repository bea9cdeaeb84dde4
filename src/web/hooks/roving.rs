//! One Tab stop for a group of controls, arrow keys inside ([`crate::model::roving`]): the
//! "roving tabindex" of the WAI-ARIA practices.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// The buttons and menus of the group, in document order (its text fields keep their
/// own Tab stops: arrow keys move their caret).
fn controls(group: &NodeRef) -> Vec<HtmlElement> {
    let Some(g) = group.cast::<Element>() else { return Vec::new() };
    let Ok(list) = g.query_selector_all("button, select") else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into::<HtmlElement>().ok()).collect()
}

fn settle(all: &[HtmlElement], current: usize) {
    for (i, c) in all.iter().enumerate() {
        c.set_tab_index(if i == current.min(all.len().saturating_sub(1)) { 0 } else { -1 });
    }
}

/// Makes the controls inside `group` one Tab stop: after each render every control but
/// the current one gets `tabindex=-1`. Returns the group's keydown and focusin handlers.
#[hook]
pub fn use_roving_focus(group: NodeRef) -> (Callback<KeyboardEvent>, Callback<FocusEvent>) {
    let current = use_mut_ref(|| 0usize);
    {
        let (group, current) = (group.clone(), current.clone());
        use_effect(move || settle(&controls(&group), *current.borrow()));
    }
    let on_key = {
        let (group, current) = (group.clone(), current.clone());
        Callback::from(move |e: KeyboardEvent| {
            let all = controls(&group);
            let target = e.target().and_then(|t| t.dyn_into::<HtmlElement>().ok());
            let Some(i) = target.and_then(|t| all.iter().position(|c| *c == t)) else { return };
            let on_select = all[i].tag_name() == "SELECT";
            if let Some(j) = crate::model::roving::roving_step(&e.key(), i, all.len(), on_select) {
                e.prevent_default();
                *current.borrow_mut() = j;
                settle(&all, j);
                let _ = all[j].focus();
            }
        })
    };
    let on_focus = Callback::from(move |e: FocusEvent| {
        let all = controls(&group);
        let target = e.target().and_then(|t| t.dyn_into::<HtmlElement>().ok());
        if let Some(i) = target.and_then(|t| all.iter().position(|c| *c == t)) {
            *current.borrow_mut() = i;
            settle(&all, i);
        }
    });
    (on_key, on_focus)
}
