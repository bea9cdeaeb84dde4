//! rt-app files in the page: an rt-app 1.0 task set picked or dropped becomes the
//! workload (`Workload::Rtapp`, carried by links as its text), with what the model takes
//! differently said; and any workload that has an rt-app form downloads as one, to run
//! on a real machine with `rt-app FILE` (the CLI's `show --as rtapp`).

use crate::web::dom;
use crate::web::hooks::use_file_drop;
use schedsim::workload::rtapp::{rtapp_preset, to_rtapp, RTAPP_BYTES_MAX, RTAPP_PRESETS};
use schedsim::workload::RtappParams;
use schedsim::{Experiment, Workload};
use wasm_bindgen_futures::JsFuture;
use web_sys::File;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RtappProps {
    pub exp: Experiment,
    pub on_workload: Callback<Workload>,
}

#[function_component(RtappControl)]
pub fn rtapp_control(p: &RtappProps) -> Html {
    let error = use_state(|| None::<String>);
    let on_file = {
        let (error, ow) = (error.clone(), p.on_workload.clone());
        Callback::from(move |f: File| {
            let name = f.name();
            if f.size() > RTAPP_BYTES_MAX as f64 {
                error.set(Some(format!(
                    "{name}: {} bytes; an rt-app file may be at most {} KiB",
                    f.size(),
                    RTAPP_BYTES_MAX >> 10
                )));
                return;
            }
            let (error, ow) = (error.clone(), ow.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let text = match JsFuture::from(f.text()).await {
                    Ok(v) => v.as_string().unwrap_or_default(),
                    Err(e) => return error.set(Some(format!("{name}: cannot read the file: {e:?}"))),
                };
                match RtappParams::new(&name, &text) {
                    Ok(r) => {
                        error.set(None);
                        ow.emit(Workload::Rtapp(r));
                    }
                    Err(m) => error.set(Some(m)),
                }
            });
        })
    };
    let drop = use_file_drop(on_file, None);
    let on_example = {
        let (error, ow) = (error.clone(), p.on_workload.clone());
        Callback::from(move |e: Event| {
            let Some(sel) = e.target_dyn_into::<web_sys::HtmlSelectElement>() else { return };
            let Some((file, text)) = rtapp_preset(&sel.value()) else { return };
            match RtappParams::new(&file, text) {
                Ok(r) => {
                    error.set(None);
                    ow.emit(Workload::Rtapp(r));
                }
                Err(m) => error.set(Some(m)),
            }
        })
    };
    // The example the workload is, if it is one (its file name and text).
    let example = match &p.exp.workload {
        Workload::Rtapp(r) => {
            RTAPP_PRESETS.iter().find(|(n, _, t)| r.json == *t && r.file == format!("{n}.json")).map(|x| x.0)
        }
        _ => None,
    };
    let e = &p.exp;
    let clients = e.clients.first().copied().unwrap_or(1);
    // Written again only when what it is written from changes, not at every render of
    // the form (a replay's file is up to 1 MiB).
    let out =
        use_memo((e.workload.clone(), clients, e.duration_ms.div_ceil(1000)), |(w, c, secs)| to_rtapp(w, *c, *secs));
    let on_download = {
        let (out, stem) = (out.clone(), crate::model::fmt::export_stem(e));
        let error = error.clone();
        Callback::from(move |_| {
            if let Ok((t, _)) = &*out {
                if let Err(m) = dom::download_text(&format!("{stem}.rtapp.json"), "application/json", t) {
                    error.set(Some(m));
                }
            }
        })
    };
    let chosen = match &e.workload {
        Workload::Rtapp(r) => format!(" running: {}", r.file),
        _ => " no file chosen yet".to_string(),
    };
    let current = match &e.workload {
        Workload::Rtapp(r) => html! {
            <div class="rtapp-current status" id="rtapp-current" role="status">
                <span>{ format!("rt-app file {}: {} threads a copy, {} events", r.file, r.threads(), r.events()) }</span>
                if !r.notes().is_empty() {
                    <ul id="rtapp-notes">{ for r.notes().iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                }
            </div>
        },
        _ => html! {},
    };
    let (download_title, loses) = match &*out {
        Ok((_, notes)) => (
            "The workload at the first client count as an rt-app 1.0 file: run it with rt-app FILE".to_string(),
            notes.clone(),
        ),
        Err(m) => (m.clone(), Vec::new()),
    };
    html! {
        <div class="rtapp" aria-label="rt-app task sets">
            <div class={classes!("dropzone", drop.over.then_some("over"))} id="rtapp-drop"
                ondragover={drop.on_drag_over.clone()} ondragenter={drop.on_drag_over} ondragleave={drop.on_drag_leave} ondrop={drop.on_drop}>
                <p>{ "An rt-app task set (rt-app 1.0 JSON) as the workload: drop it here, or " }</p>
                // Hidden behind a button, the page naming the file (see import.rs).
                <input type="file" id="rtapp-file" class="file-hidden" tabindex="-1" accept=".json,application/json" onchange={drop.on_pick} aria-label="choose an rt-app file" />
                <button type="button" id="rtapp-pick" onclick={Callback::from(|_| dom::click("rtapp-file"))}>{ "Choose an rt-app file…" }</button>
                <span class="file-name" id="rtapp-file-name">{ chosen }</span>
                <p>
                    <label for="rtapp-example">{ "or one of our examples: " }</label>
                    <select id="rtapp-example" onchange={on_example}>
                        <option value="" selected={example.is_none()}>{ "choose…" }</option>
                        { for RTAPP_PRESETS.iter().map(|(name, what, _)| html! {
                            <option value={*name} title={*what} selected={example == Some(*name)}>{ format!("{name}: {what}") }</option>
                        }) }
                    </select>
                </p>
            </div>
            { current }
            if let Some(m) = &*error {
                <p class="refusal" id="rtapp-error" role="alert">{ format!("Could not use the rt-app file: {m}. The workload is unchanged.") }</p>
            }
            <p>
                <button type="button" class="tool" id="rtapp-download" onclick={on_download} disabled={out.is_err()} title={download_title}>
                    { "Download as rt-app JSON" }
                </button>
                if !loses.is_empty() {
                    <span class="muted" id="rtapp-loses">{ format!(" (run this workload on your machine; {})", loses.join("; ")) }</span>
                }
            </p>
        </div>
    }
}
