//! A sweep's results: the headline chart beside the mmtests-style table (copyable as
//! text), the other charts, and the exports. Everything exported is the library's own rendering. While the sweep runs,
//! the charts and the wasted-core table show the runs landed so far; the table and the
//! exports come with the last run.

use crate::charts::{ChartTheme, REPORT_CHARTS};
use crate::model::fmt::fmt_ns;
use crate::model::perfetto::{default_window, PerfettoAsk};
use crate::model::wasted::{self, JumpPlan};
use crate::state::PerfettoStatus;
use crate::state::SweepResult;
use crate::web::components::chart::{ChartCard, ChartSpec};
use crate::web::components::cluster::ClusterPanel;
use crate::web::components::perfetto::PerfettoExport;
use crate::web::components::timeline::RecordTimeline;
use crate::web::components::wide::Wide;
use crate::web::dom;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    pub result: Rc<SweepResult>,
    /// The experiment has changed since this sweep.
    pub stale: bool,
    /// A partial result whose sweep was cancelled or failed: no more points will come.
    pub stopped: bool,
    pub theme: ChartTheme,
    pub latency_point: u32,
    pub on_latency_point: Callback<u32>,
    /// Live mode at a wasted-core moment.
    pub on_jump: Callback<JumpPlan>,
    pub on_perfetto: Callback<PerfettoAsk>,
    pub perfetto: Option<PerfettoStatus>,
}

#[function_component(Results)]
pub fn results(p: &ResultsProps) -> Html {
    let r = &p.result;
    let rep = &r.report;
    let copied = use_state(|| None::<String>);
    let stem = crate::model::fmt::export_stem(&rep.experiment);
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
                copied.set(Some(
                    if ok { "Table copied as text." } else { "Copy failed: select the table and copy it by hand." }
                        .into(),
                ));
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
    // The headline chart (throughput, with its "% vs A" panel) sits beside the table;
    // the others follow.
    let chart = |name: &'static str| {
        let spec = ChartSpec::Report { name, result: r.clone(), point };
        html! { <ChartCard {spec} theme={p.theme.clone()} id={name} exports=true /> }
    };
    let headline = chart(REPORT_CHARTS[0]);
    let charts = REPORT_CHARTS[1..].iter().map(|name| chart(name)).collect::<Html>();
    // What must be read before the numbers: windows that measured nothing, identical
    // kernels, differences within noise.
    let mut notes = crate::model::compare::notes(rep);
    let (never, patch_counts) = crate::model::compare::patch_notes(rep, &r.done.patched);
    notes.extend(never);
    let empty = !crate::model::compare::empty_points(rep).is_empty();
    let notes = if notes.is_empty() {
        html! {}
    } else {
        html! {
            <ul id="result-notes" class={classes!("result-notes", empty.then_some("has-empty"))} role="note" aria-label="Read before the numbers">
                { for notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }
            </ul>
        }
    };
    html! {
        <section class="results" data-points-done={r.points.0.to_string()} data-points-total={r.points.1.to_string()}
            data-wall-ms={r.complete.then(|| format!("{:.1}", r.done.wall_ms))} aria-labelledby="results-h">
            <h2 id="results-h">{ "Results" }</h2>
            <p class="result-meta">
                if r.complete {
                    { format!("{} on {} ({} CPUs): {} runs in {:.2} s in the workers.",
                        rep.experiment.workload.name(), rep.machine, rep.nr_cpus,
                        rep.configs.len() as u32 * npts as u32 * rep.experiment.iterations, r.done.wall_ms / 1e3) }
                } else if p.stopped {
                    { format!("{} on {} ({} CPUs): the sweep stopped with {} of {} points begun, each over the iterations that had landed (up to {} per point); a partial sweep has no table or exports.",
                        rep.experiment.workload.name(), rep.machine, rep.nr_cpus, r.points.0, r.points.1, rep.experiment.iterations) }
                } else {
                    { format!("{} on {} ({} CPUs): {} of {} points so far, each over the iterations landed ({} per point when done); the table and exports come when the sweep ends.",
                        rep.experiment.workload.name(), rep.machine, rep.nr_cpus, r.points.0, r.points.1, rep.experiment.iterations) }
                }
            </p>
            if p.stale {
                <p class="stale" role="status">{ "The experiment has changed since this sweep: run it again to update the results." }</p>
            }
            { notes.clone() }
            if let Some(c) = patch_counts {
                <p class="muted" id="patch-counts">{ c }</p>
            }
            <div class="headline">
                { headline }
                if r.complete {
                <div class="headline-table">
                    <div class="table-head">
                        <h3>{ "Comparison (mmtests compare-kernels layout)" }</h3>
                        <button type="button" id="copy-table" onclick={on_copy}>{ "Copy table" }</button>
                        if let Some(m) = &*copied {
                            <span class="status" role="status">{ m.clone() }</span>
                        }
                    </div>
                    if empty {
                        <ul id="table-notes" class="result-notes has-empty" role="note">
                            { for crate::model::compare::notes(rep).into_iter().take(crate::model::compare::empty_points(rep).len()).map(|n| html! { <li>{ n }</li> }) }
                        </ul>
                    }
                    <Wide what="The table" scroller={Some(AttrValue::from("mmtests"))}>
                        <pre id="mmtests" class="table" tabindex="0">{ r.done.table.clone() }</pre>
                    </Wide>
                    { table_key(rep) }
                </div>
                }
            </div>
            <div class="charts">{ charts }</div>
            if npts > 1 {
                <label class="inline">{ "latency chart at " }
                    <select onchange={on_point} aria-label="client count of the latency chart">
                        { for rep.configs[0].points.iter().enumerate().map(|(i, pt)| html! {
                            <option value={i.to_string()} selected={i == point}>{ crate::model::fmt::count_of(pt.clients as u64, rep.experiment.workload.clients_meaning()) }</option>
                        }) }
                    </select>
                </label>
            }
            if r.complete {
            <div class="exports">
                <button type="button" id="export-json" onclick={export("report.json", "application/json", r.done.report_json.clone())}>{ "Report JSON" }</button>
                <button type="button" id="export-samples" onclick={export("samples.csv", "text/csv", r.done.samples_csv.clone())}>{ "Samples CSV" }</button>
                <button type="button" id="export-counters" onclick={export("counters.csv", "text/csv", r.done.counters_csv.clone())}>{ "Counters CSV" }</button>
                <button type="button" id="export-table" onclick={export("table.txt", "text/plain", r.done.table.clone())}>{ "Table TXT" }</button>
            </div>
            <PerfettoExport exp={rep.experiment.clone()} kernel={0} clients={rep.experiment.clients.first().copied().unwrap_or(1)}
                window={default_window(None, rep.experiment.warmup_ms, rep.experiment.duration_ms)}
                on_export={p.on_perfetto.clone()} status={p.perfetto.clone()} id="results-perfetto" />
            }
            { wasted_section(r, &p.on_jump) }
            if r.complete {
                <RecordTimeline exp={rep.experiment.clone()} />
                <ClusterPanel exp={rep.experiment.clone()} />
            }
        </section>
    }
}

/// The full names of the kernels the mmtests layout cuts in its column heads.
fn table_key(rep: &schedsim::Report) -> Html {
    let names: Vec<String> = rep.configs.iter().map(|c| c.name.clone()).collect();
    let cut = crate::model::kernels::cut_in_table(
        &names,
        &[schedsim::report::TABLE_NAME_CHARS, schedsim::report::COUNTERS_NAME_CHARS],
    );
    if cut.is_empty() {
        return html! {};
    }
    html! {
        <ul id="table-key" class="muted table-key" aria-label="Kernel names the table cuts">
            { for cut.into_iter().map(|(short, full)| html! { <li><code>{ short }</code>{ " in the tables is " }<code>{ full }</code></li> }) }
        </ul>
    }
}

/// The wasted-core alarm: time and episodes per kernel and client count, and the moments,
/// each with a button that replays it in live mode.
fn wasted_section(r: &SweepResult, on_jump: &Callback<JumpPlan>) -> Html {
    let rep = &r.report;
    let th = rep.experiment.wasted_core_threshold_ns;
    let rows = wasted::rows(rep);
    let clients: Vec<u32> =
        rep.configs.first().map(|c| c.points.iter().map(|p| p.clients).collect()).unwrap_or_default();
    let meaning = rep.experiment.workload.clients_meaning();
    let body = if th == 0 {
        html! { <p class="muted">{ "The alarm is off (threshold 0) for this sweep." }</p> }
    } else {
        let table_rows = rep.configs.iter().enumerate().map(|(k, c)| {
            let cells = rows.iter().filter(|w| w.kernel == k).map(|w| html! {
                <td class={classes!((w.wasted_ns > 0).then_some("bad"))} title={format!("{} episodes", w.episodes)}>
                    { if w.wasted_ns == 0 { "0".to_string() } else { format!("{} ({}×)", fmt_ns(w.wasted_ns), w.episodes) } }
                </td>
            }).collect::<Html>();
            html! { <tr><th scope="row">{ schedsim::kernel::name_with_label(&c.name, &c.label) }</th>{ cells }</tr> }
        }).collect::<Html>();
        let with_moments: Vec<_> = rows.iter().filter(|w| !w.moments.is_empty()).collect();
        let moments = if with_moments.is_empty() {
            html! { <p class="muted" id="wasted-none">{ "No CPU stayed idle past the threshold while a task it could run waited: no moments." }</p> }
        } else {
            with_moments.iter().map(|w| {
                let items = w.moments.iter().enumerate().map(|(i, m)| {
                    let plan = wasted::jump_plan(w.kernel, w.clients, m);
                    let id = format!("jump-{}-{}-{}", w.kernel, w.clients, i);
                    let button = match plan {
                        Ok(plan) => {
                            let cb = on_jump.clone();
                            html! { <button type="button" class="tool jump" id={id} onclick={Callback::from(move |_| cb.emit(plan.clone()))}
                                title="Open live mode just before this moment">{ "jump to the moment" }</button> }
                        }
                        Err(why) => html! { <button type="button" class="tool jump" id={id} disabled=true title={why}>{ "jump to the moment" }</button> },
                    };
                    html! { <li>{ wasted::describe(m) }{ " " }{ button }</li> }
                }).collect::<Html>();
                html! {
                    <details class="moments-of" open={w.kernel == with_moments[0].kernel && w.clients == with_moments[0].clients}>
                        <summary>{ format!("{} at {} {}: {} moment{} (first {} kept)", w.kernel_name, w.clients, meaning, w.episodes,
                            if w.episodes == 1 { "" } else { "s" }, w.moments.len()) }</summary>
                        <ol class="moments">{ items }</ol>
                    </details>
                }
            }).collect::<Html>()
        };
        html! {
            <>
                <table class="wasted-table" id="wasted-table">
                    <caption class="muted">{ format!("Wasted time (episodes) per {meaning}") }</caption>
                    <tr><th></th>{ for clients.iter().map(|c| html! { <th scope="col">{ *c }</th> }) }</tr>
                    { table_rows }
                </table>
                { moments }
            </>
        }
    };
    html! {
        <section class="wasted" id="wasted" aria-labelledby="wasted-h">
            <h3 id="wasted-h">{ "Wasted cores" }</h3>
            <p class="muted">{ format!(
                "The \"Decade of Wasted Cores\" invariant: no CPU idle for more than {} while a task it could run waits as long on another CPU's runqueue.",
                if th == 0 { "the threshold".to_string() } else { fmt_ns(th) }) }</p>
            { body }
        </section>
    }
}
