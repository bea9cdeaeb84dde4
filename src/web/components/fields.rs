//! A text field that commits only valid input and shows the reason at the field.

use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FieldProps {
    pub label: AttrValue,
    /// The current committed value, as text.
    pub value: AttrValue,
    /// Called with the new text; returns an error message to refuse it.
    pub on_commit: Callback<String, Option<String>>,
    #[prop_or_default]
    pub hint: AttrValue,
    #[prop_or_default]
    pub id: AttrValue,
    #[prop_or(AttrValue::Static("text"))]
    pub kind: AttrValue,
    #[prop_or_default]
    pub wide: bool,
}

/// Commits on every keystroke that parses; while the text does not parse, the field
/// keeps it, marks itself invalid and says why, and the experiment keeps its last value.
#[function_component(Field)]
pub fn field(p: &FieldProps) -> Html {
    let text = use_state(|| p.value.to_string());
    let error = use_state(|| None::<String>);
    let input = use_node_ref();
    {
        // A new value from outside (a preset, a link) replaces the text — but not while
        // the user types here: their own commit would rewrite "1 2 " to "1 2" mid-word.
        let text = text.clone();
        let error = error.clone();
        let input = input.clone();
        use_effect_with(p.value.clone(), move |v| {
            let focused = match (input.get(), crate::web::dom::document().and_then(|d| d.active_element())) {
                (Some(i), Some(a)) => i == *a.as_ref(),
                _ => false,
            };
            if !focused {
                text.set(v.to_string());
                error.set(None);
            }
        });
    }
    let oninput = {
        let text = text.clone();
        let error = error.clone();
        let commit = p.on_commit.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            error.set(commit.emit(v.clone()));
            text.set(v);
        })
    };
    let id = if p.id.is_empty() { format!("f-{}", p.label.replace(' ', "-")) } else { p.id.to_string() };
    let err_id = format!("{id}-err");
    html! {
        <label class={classes!("field", p.wide.then_some("wide"), error.is_some().then_some("invalid"))}>
            <span class="field-label">{ p.label.clone() }</span>
            <input ref={input} id={id.clone()} type={p.kind.clone()} value={(*text).clone()} {oninput}
                aria-invalid={error.is_some().then_some("true")}
                aria-describedby={error.is_some().then_some(err_id.clone())} spellcheck="false" />
            if let Some(e) = &*error {
                <span class="field-error" id={err_id} role="alert">{ e.clone() }</span>
            } else if !p.hint.is_empty() {
                <span class="field-hint">{ p.hint.clone() }</span>
            }
        </label>
    }
}
