//! A kernel card's "policy script": a monospace editor with line numbers, the
//! library's templates to start from, and a compile check in the script worker
//! (debounced, `Request::CheckPolicy`). While the script does not compile (or is being
//! checked) the field is marked invalid and listed beside Run, which it blocks, as any
//! refused field; the error is shown at its line with the compiler's message. The pure
//! part is `model::policy_editor`.

use crate::model::policy_editor::{self, CHECK_DEBOUNCE_MS, STARTER};
use crate::web::components::fields::{FieldErrorSink, FieldErrorsAction};
use crate::web::dom;
use crate::web::pool::SweepRunner;
use crate::wire::proto::{Request, Response};
use std::cell::Cell;
use std::rc::Rc;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PolicyEditorProps {
    /// The kernel's index (element ids, the field's name beside Run).
    pub index: usize,
    /// The kernel's script, if it has one.
    pub policy: Option<String>,
    /// A new script (debounced while typing), or `None` to drop it.
    pub on_change: Callback<Option<String>>,
}

/// What the compile check said of the text shown.
#[derive(Clone, Debug, PartialEq)]
enum Check {
    Pending,
    Compiles,
    Fails(String),
}

#[function_component(PolicyEditor)]
pub fn policy_editor(p: &PolicyEditorProps) -> Html {
    let text = use_state(|| p.policy.clone().unwrap_or_default());
    let check = use_state(|| Check::Pending);
    // The newest check asked: older answers and timers are ignored.
    let seq = use_memo((), |_| Rc::new(Cell::new(0u32)));
    let runner = {
        let check = check.clone();
        let seq = seq.clone();
        use_memo((), move |_| {
            Rc::new(SweepRunner::new(move |r| match r {
                Response::PolicyChecked { id, error } if id == seq.get() => {
                    check.set(error.map_or(Check::Compiles, Check::Fails));
                }
                Response::Failed { id, message } if id == seq.get() => check.set(Check::Fails(message)),
                _ => {}
            }))
        })
    };
    let ask = {
        let (runner, seq, check) = (runner.clone(), seq.clone(), check.clone());
        Rc::new(move |source: String| {
            let id = seq.get() + 1;
            seq.set(id);
            check.set(Check::Pending);
            if let Err(e) = runner.request(id, Request::CheckPolicy { id, source }) {
                check.set(Check::Fails(e));
            }
        })
    };
    {
        // A script from outside (a link, a template, the card's button) is shown and
        // checked; the text being typed is the same script, so it is left alone.
        let (text, ask) = (text.clone(), ask.clone());
        use_effect_with(p.policy.clone(), move |policy| {
            if let Some(src) = policy {
                if *src != *text {
                    text.set(src.clone());
                }
                ask(src.clone());
            }
        });
    }
    let id = format!("k{}-policy", p.index);
    {
        let sink = use_context::<FieldErrorSink>();
        let what = format!("Kernel {}, policy script", crate::model::kernels::letter(p.index));
        let refusal = match (&p.policy, &*check) {
            (None, _) | (_, Check::Compiles) => None,
            (Some(_), Check::Pending) => Some("being compiled".to_string()),
            (Some(_), Check::Fails(e)) => Some(e.clone()),
        };
        use_effect_with((refusal, id.clone()), move |(refusal, id)| {
            let id = id.clone();
            if let (Some(s), Some(e)) = (&sink, refusal) {
                s.0.emit(FieldErrorsAction::Set { id: id.clone(), what, error: e.clone() });
            }
            move || {
                if let Some(s) = sink {
                    s.0.emit(FieldErrorsAction::Clear { id });
                }
            }
        });
    }
    let Some(policy) = &p.policy else {
        let on_change = p.on_change.clone();
        return html! {
            <div class="policy" id={id.clone()}>
                <h4>{ "policy script" }</h4>
                <button type="button" class="tool" id={format!("{id}-add")}
                    onclick={Callback::from(move |_| on_change.emit(Some(STARTER.to_string())))}>
                    { "write this kernel's wakeup placement as a script" }
                </button>
            </div>
        };
    };
    let oninput = {
        let (text, seq, check, on_change) = (text.clone(), seq.clone(), check.clone(), p.on_change.clone());
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            text.set(v.clone());
            // The text shown is not checked yet (an answer for older text is ignored);
            // it is committed, and so compiled, when typing pauses.
            let at = seq.get() + 1;
            seq.set(at);
            check.set(Check::Pending);
            let (seq, on_change) = (seq.clone(), on_change.clone());
            dom::after_ms(CHECK_DEBOUNCE_MS, move || {
                if seq.get() == at {
                    on_change.emit(Some(v));
                }
            });
        })
    };
    let on_template = {
        let on_change = p.on_change.clone();
        Callback::from(move |e: Event| {
            let sel = e.target_unchecked_into::<HtmlSelectElement>();
            if let Some((_, _, src)) = policy_editor::templates().find(|t| t.0 == sel.value()) {
                on_change.emit(Some(src.to_string()));
            }
            sel.set_value("");
        })
    };
    let remove = {
        let on_change = p.on_change.clone();
        Callback::from(move |_| on_change.emit(None))
    };
    let shown = &*text;
    let error = match &*check {
        Check::Fails(e) => Some(e.clone()),
        _ => None,
    };
    // The line the error names is marked in the gutter; the message (which starts with
    // the line and column) is shown below the editor.
    let at = error.as_deref().and_then(policy_editor::error_position);
    let err_id = format!("{id}-err");
    html! {
        <div class={classes!("policy", error.is_some().then_some("invalid"))} id={id.clone()}>
            <h4>{ "policy script" }</h4>
            <div class="policy-tools">
                <label>
                    <span class="field-label">{ "start from a template" }</span>
                    <select id={format!("{id}-template")} onchange={on_template}
                        aria-label={format!("Kernel {} policy template", crate::model::kernels::letter(p.index))}>
                        <option value="" selected=true>{ "—" }</option>
                        { for policy_editor::templates().map(|(v, label, _)| html! { <option value={v}>{ label }</option> }) }
                    </select>
                </label>
                <button type="button" class="tool" id={format!("{id}-remove")} onclick={remove}>{ "remove the script" }</button>
            </div>
            <div class="policy-editor">
                <ol class="policy-gutter" aria-hidden="true">
                    { for (1..=policy_editor::line_count(shown)).map(|l| html! {
                        <li class={classes!(at.is_some_and(|(el, _)| el == l).then_some("error-line"))}>{ l }</li>
                    }) }
                </ol>
                <textarea id={format!("{id}-text")} class="mono" spellcheck="false" wrap="off"
                    rows={policy_editor::editor_rows(shown).to_string()} value={shown.clone()} {oninput}
                    aria-label={format!("Kernel {} policy script", crate::model::kernels::letter(p.index))}
                    aria-invalid={error.is_some().then_some("true")}
                    aria-describedby={err_id.clone()} />
            </div>
            <p class="policy-status" id={err_id} role="status">
                { match &*check {
                    Check::Pending => "compiling in the script worker…".to_string(),
                    Check::Compiles => "compiles".to_string(),
                    Check::Fails(e) => e.clone(),
                } }
            </p>
            <p class="hint">{ crate::wire::permalink::link_note(policy) }</p>
        </div>
    }
}
