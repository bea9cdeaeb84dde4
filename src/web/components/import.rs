//! Topology import: paste `lscpu -p`, `lscpu -e` or sysfs text, or drop (or pick) a
//! file of it. The text is read by `schedsim::import` and never shown as HTML; an
//! error names the line and changes nothing.

use crate::model::import::{import, IMPORT_LEN_MAX};
use crate::web::dom::js_err;
use crate::web::hooks::{use_file_drop, use_reveal};
use schedsim::MachineSpec;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlTextAreaElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ImportProps {
    pub machine: MachineSpec,
    /// The imported machine, to replace the experiment's.
    pub on_machine: Callback<MachineSpec>,
}

#[derive(Clone, PartialEq)]
enum Outcome {
    Done { from: String, summary: String, notes: Vec<String> },
    Failed { from: String, message: String },
}

#[function_component(ImportBox)]
pub fn import_box(p: &ImportProps) -> Html {
    let text = use_state(String::new);
    let outcome = use_state(|| None::<Outcome>);
    // Reads `t` against the current machine; on success replaces it.
    let run = {
        let machine = p.machine.clone();
        let on_machine = p.on_machine.clone();
        let outcome = outcome.clone();
        Callback::from(move |(from, t): (String, String)| match import(&machine, &t) {
            Ok(done) => {
                on_machine.emit(done.machine);
                outcome.set(Some(Outcome::Done { from, summary: done.summary, notes: done.notes }));
            }
            Err(message) => outcome.set(Some(Outcome::Failed { from, message })),
        })
    };
    let read_file = {
        let run = run.clone();
        let outcome = outcome.clone();
        Callback::from(move |f: File| {
            let name = f.name();
            if f.size() > IMPORT_LEN_MAX as f64 {
                outcome.set(Some(Outcome::Failed {
                    from: name,
                    message: format!(
                        "the file is {:.1} MB; at most {} MB is read",
                        f.size() / 1048576.0,
                        IMPORT_LEN_MAX / 1048576
                    ),
                }));
                return;
            }
            let run = run.clone();
            let outcome = outcome.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match JsFuture::from(f.text()).await {
                    Ok(v) => run.emit((name, v.as_string().unwrap_or_default())),
                    Err(e) => outcome.set(Some(Outcome::Failed {
                        from: name,
                        message: format!("cannot read the file: {}", js_err(e)),
                    })),
                }
            });
        })
    };
    let on_input = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| text.set(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let on_import = {
        let run = run.clone();
        let text = text.clone();
        Callback::from(move |_| run.emit(("the pasted text".into(), (*text).clone())))
    };
    let drop = use_file_drop(read_file.clone(), Some(run.reform(|t: String| ("the dropped text".into(), t))));
    // The machine drawn above may have grown with the import: its outcome comes into view.
    use_reveal((*outcome).clone(), "#import-result, #import-error");
    let chosen = match &*outcome {
        Some(Outcome::Done { from, .. } | Outcome::Failed { from, .. }) => format!(" last: {from}"),
        None => " no file chosen yet".to_string(),
    };
    let result = match &*outcome {
        None => html! {},
        Some(Outcome::Done { from, summary, notes }) => html! {
            <div class="import-result status" id="import-result" role="status">
                <span>{ format!("Imported {from}. {summary}") }</span>
                if !notes.is_empty() {
                    <ul id="import-notes">{ for notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                }
            </div>
        },
        Some(Outcome::Failed { from, message }) => html! {
            <p class="import-result refusal" id="import-error" role="alert">{ format!("Could not import {from}: {message}. The machine is unchanged.") }</p>
        },
    };
    html! {
        <div class="import" aria-label="import a topology">
            <label class="field wide">
                <span class="field-label">{ "Paste lscpu / sysfs" }</span>
                <textarea id="import-text" value={(*text).clone()} oninput={on_input} spellcheck="false"
                    placeholder="output of lscpu -p, lscpu -e, or grep . /sys/devices/system/cpu/cpu*/topology/* …; numactl --hardware may follow" />
                <button type="button" id="import-paste" onclick={on_import} disabled={text.trim().is_empty()}>{ "Import" }</button>
            </label>
            <div class={classes!("dropzone", drop.over.then_some("over"))} id="import-drop"
                ondragover={drop.on_drag_over.clone()} ondragenter={drop.on_drag_over} ondragleave={drop.on_drag_leave} ondrop={drop.on_drop}>
                <p>{ "Drop a file of lscpu or sysfs output here, or " }</p>
                // The browser's input says "No file chosen" again once the page has read
                // the file (its value is cleared so that the same file can be chosen
                // twice): it is hidden behind a button, and the page names the file.
                <input type="file" id="import-file" class="file-hidden" tabindex="-1" accept=".txt,.csv,text/plain" onchange={drop.on_pick} aria-label="choose a file to import" />
                <button type="button" id="import-pick" onclick={Callback::from(|_| crate::web::dom::click("import-file"))}>{ "Choose a file…" }</button>
                <span class="file-name" id="import-file-name">{ chosen }</span>
                <p class="muted">{ "Replaces the machine's topology; the preset's costs stay. At most 2 MB." }</p>
            </div>
            { result }
        </div>
    }
}
