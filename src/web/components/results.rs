//! A finished sweep: the charts, the mmtests-style table (copyable as text) and the
//! exports. Everything exported is the library's own rendering, made in the worker.

use crate::charts::{ChartTheme, REPORT_CHARTS};
use crate::web::components::chart::{sanitize, ChartCard, ChartSpec};
use crate::web::dom;
use crate::web::state::SweepResult;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    pub result: Rc<SweepResult>,
    /// The experiment has changed since this sweep.
    pub stale: bool,
    pub theme: ChartTheme,
    pub latency_point: u32,
    pub on_latency_point: Callback<u32>,
}

#[function_component(Results)]
pub fn results(p: &ResultsProps) -> Html {
    let r = &p.result;
    let rep = &r.report;
    let copied = use_state(|| None::<String>);
    let stem = if rep.experiment.name.is_empty() { "schedsim".to_string() } else { format!("schedsim-{}", sanitize(&rep.experiment.name)) };
    let export = |suffix: &'static str, mime: &'static str, text: String| {
        let name = format!("{stem}-{suffix}");
        let copied = copied.clone();
        Callback::from(move |_| {
            if let Err(e) = dom::download_text(&name, mime, &text) {
                copied.set(Some(format!("export failed: {e}")));
            }
        })
    };
    let on_copy = {
        let text = r.done.table.clone();
        let copied = copied.clone();
        Callback::from(move |_| {
            let text = text.clone();
            let copied = copied.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let ok = dom::copy_text(text).await;
                copied.set(Some(if ok { "Table copied as text." } else { "Copy failed: select the table and copy it by hand." }.into()));
            });
        })
    };
    let npts = rep.configs.first().map(|c| c.points.len()).unwrap_or(0);
    let point = (p.latency_point as usize).min(npts.saturating_sub(1));
    let on_point = {
        let cb = p.on_latency_point.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<u32>() {
                cb.emit(i);
            }
        })
    };
    let charts = REPORT_CHARTS.iter().map(|name| {
        let spec = ChartSpec::Report { name, result: r.clone(), point };
        html! { <ChartCard {spec} theme={p.theme.clone()} id={*name} exports=true /> }
    }).collect::<Html>();
    html! {
        <section class="results" data-wall-ms={format!("{:.1}", r.done.wall_ms)} aria-labelledby="results-h">
            <h2 id="results-h">{ "Results" }</h2>
            <p class="result-meta">
                { format!("{} on {} ({} CPUs): {} runs in {:.2} s in the worker.",
                    rep.experiment.workload.name(), rep.machine, rep.nr_cpus,
                    rep.configs.len() as u32 * npts as u32 * rep.experiment.iterations, r.done.wall_ms / 1e3) }
            </p>
            if p.stale {
                <p class="stale" role="status">{ "The experiment has changed since this sweep: run it again to update the results." }</p>
            }
            <div class="exports">
                <button type="button" id="export-json" onclick={export("report.json", "application/json", r.done.report_json.clone())}>{ "Report JSON" }</button>
                <button type="button" id="export-samples" onclick={export("samples.csv", "text/csv", r.done.samples_csv.clone())}>{ "Samples CSV" }</button>
                <button type="button" id="export-counters" onclick={export("counters.csv", "text/csv", r.done.counters_csv.clone())}>{ "Counters CSV" }</button>
                <button type="button" id="export-table" onclick={export("table.txt", "text/plain", r.done.table.clone())}>{ "Table TXT" }</button>
            </div>
            <div class="charts">{ charts }</div>
            if npts > 1 {
                <label class="inline">{ "latency chart at " }
                    <select onchange={on_point} aria-label="client count of the latency chart">
                        { for rep.configs[0].points.iter().enumerate().map(|(i, pt)| html! {
                            <option value={i.to_string()} selected={i == point}>{ format!("{} {}", pt.clients, rep.experiment.workload.clients_meaning()) }</option>
                        }) }
                    </select>
                </label>
            }
            <div class="table-head">
                <h3>{ "Comparison (mmtests compare-kernels layout)" }</h3>
                <button type="button" id="copy-table" onclick={on_copy}>{ "Copy table" }</button>
                if let Some(m) = &*copied {
                    <span class="status" role="status">{ m.clone() }</span>
                }
            </div>
            <pre id="mmtests" class="table" tabindex="0">{ r.done.table.clone() }</pre>
        </section>
    }
}
