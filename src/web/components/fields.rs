//! A text field that commits only valid input and shows the reason at the field, and the
//! page's list of fields whose text is refused (Run is blocked while it is not empty).

use std::collections::BTreeMap;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Fields whose current text is refused, by element id: (what the field is, why).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldErrors(pub BTreeMap<String, (String, String)>);

pub enum FieldErrorsAction {
    Set { id: String, what: String, error: String },
    Clear { id: String },
}

impl Reducible for FieldErrors {
    type Action = FieldErrorsAction;

    fn reduce(self: Rc<Self>, action: FieldErrorsAction) -> Rc<Self> {
        let mut m = self.0.clone();
        match action {
            FieldErrorsAction::Set { id, what, error } => {
                if m.get(&id) == Some(&(what.clone(), error.clone())) {
                    return self;
                }
                m.insert(id, (what, error));
            }
            FieldErrorsAction::Clear { id } => {
                if m.remove(&id).is_none() {
                    return self;
                }
            }
        }
        Rc::new(FieldErrors(m))
    }
}

/// What a [`Field`] reports its refusals to (given by the app as a context).
#[derive(Clone, PartialEq)]
pub struct FieldErrorSink(pub Callback<FieldErrorsAction>);

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
    /// What the field is in the list of refused fields beside Run ("kernel A name"); the
    /// label if empty.
    #[prop_or_default]
    pub what: AttrValue,
    /// Why the experiment as a whole is refused on this field's account (a run over the
    /// event cap: `form::run_size_refusal`), shown like the field's own refusal; the
    /// list beside Run already has the experiment's reason, so it is not listed again.
    #[prop_or_default]
    pub refused: AttrValue,
}

/// Commits on every keystroke that parses; while the text does not parse, the field
/// keeps it, marks itself invalid, says why, and is listed beside Run, which it blocks:
/// the experiment still holds the last valid value, and running that would be running
/// something other than what the field shows. On leaving the field, valid text is
/// replaced by the value as committed (trimmed, sorted...), so what runs is what shows.
#[function_component(Field)]
pub fn field(p: &FieldProps) -> Html {
    let text = use_state(|| p.value.to_string());
    let error = use_state(|| None::<String>);
    let input = use_node_ref();
    let sink = use_context::<FieldErrorSink>();
    let id = if p.id.is_empty() { format!("f-{}", p.label.replace(' ', "-")) } else { p.id.to_string() };
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
    {
        let what = if p.what.is_empty() { p.label.to_string() } else { p.what.to_string() };
        use_effect_with(((*error).clone(), id.clone(), what), move |(error, id, what)| {
            let id = id.clone();
            if let (Some(s), Some(e)) = (&sink, error) {
                s.0.emit(FieldErrorsAction::Set { id: id.clone(), what: what.clone(), error: e.clone() });
            }
            move || {
                if let Some(s) = sink {
                    s.0.emit(FieldErrorsAction::Clear { id });
                }
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
    let onblur = {
        let text = text.clone();
        let value = p.value.to_string();
        let valid = error.is_none();
        Callback::from(move |_: FocusEvent| {
            if valid && *text != value {
                text.set(value.clone());
            }
        })
    };
    let err_id = format!("{id}-err");
    let shown = (*error).clone().or_else(|| (!p.refused.is_empty()).then(|| p.refused.to_string()));
    html! {
        <label class={classes!("field", p.wide.then_some("wide"), shown.is_some().then_some("invalid"))}>
            <span class="field-label">{ p.label.clone() }</span>
            <input ref={input} id={id.clone()} type={p.kind.clone()} value={(*text).clone()} {oninput} {onblur}
                aria-invalid={shown.is_some().then_some("true")}
                aria-describedby={shown.is_some().then_some(err_id.clone())} spellcheck="false" />
            if let Some(e) = &shown {
                <span class="field-error" id={err_id} role="alert">{ e.clone() }</span>
            } else if !p.hint.is_empty() {
                <span class="field-hint">{ p.hint.clone() }</span>
            }
        </label>
    }
}
