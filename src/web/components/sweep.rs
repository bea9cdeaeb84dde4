//! The Sweep view: the built-in experiment, the machine (preset, topology spec, editor,
//! importer), the kernels, the workload, the run bar (run, cancel, workers, progress,
//! fields to fix) and the results.

use crate::charts::ChartTheme;
use crate::model::fmt::fmt_secs;
use crate::model::form::MachineChoice;
use crate::model::perfetto::PerfettoAsk;
use crate::model::topology::{Refusal, TopoEdit};
use crate::model::wasted::JumpPlan;
use crate::state::{ExpEdit, PerfettoStatus, Sweep, SweepResult};
use crate::web::components::fields::{Field, FieldErrors};
use crate::web::components::import::ImportBox;
use crate::web::components::kernels::KernelPanel;
use crate::web::components::replay::{ReplayControl, ReplayTableView};
use crate::web::components::results::Results;
use crate::web::components::topology::TopologyView;
use crate::web::components::workload::WorkloadForm;
use crate::web::dom;
use crate::web::hooks::Replay;
use schedsim::experiment::MachineSpec;
use schedsim::topology::Topology;
use schedsim::{Experiment, KernelSpec, Workload};
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SweepProps {
    pub exp: Experiment,
    /// Why the last topology edit was refused, shown at its spot.
    pub refusal: Option<Refusal>,
    /// Size of the pool of simulation workers.
    pub workers: u32,
    pub sweep: Sweep,
    /// The last result, kept while a new sweep of the same experiment runs.
    pub result: Option<Rc<SweepResult>>,
    pub theme: ChartTheme,
    /// Presenter mode: the form is folded away under one line (Run and the results stay).
    #[prop_or_default]
    pub presenter: bool,
    pub latency_point: u32,
    pub perfetto: Option<PerfettoStatus>,
    /// Fields whose text is refused: listed beside Run, which they block.
    pub field_errors: FieldErrors,
    pub on_run: Callback<MouseEvent>,
    pub on_cancel: Callback<MouseEvent>,
    /// Runs the failed runs of a sweep again.
    pub on_rerun: Callback<MouseEvent>,
    /// A built-in experiment chosen by name.
    pub on_preset: Callback<String>,
    /// A machine preset chosen by name.
    pub on_machine_preset: Callback<String>,
    /// An imported machine.
    pub on_machine: Callback<MachineSpec>,
    /// A topology typed as a spec.
    pub on_topology: Callback<Topology>,
    pub on_topology_edit: Callback<TopoEdit>,
    /// Kernel `i` changed.
    pub on_kernel: Callback<(usize, KernelSpec)>,
    pub on_remove_kernel: Callback<usize>,
    pub on_add_kernel: Callback<()>,
    pub on_workload: Callback<Workload>,
    pub on_edit: Callback<ExpEdit>,
    pub on_workers: Callback<u32>,
    pub on_latency_point: Callback<u32>,
    /// Live mode at a wasted-core moment.
    pub on_jump: Callback<JumpPlan>,
    pub on_perfetto: Callback<PerfettoAsk>,
    /// The trace replay's import, table and callbacks.
    pub replay: Replay,
}

/// Above this many CPUs the machine's drawing is folded under its summary.
pub const TOPOLOGY_FOLD_CPUS: u64 = 512;

#[function_component(SweepView)]
pub fn sweep_view(p: &SweepProps) -> Html {
    let exp = &p.exp;
    let topo = exp.machine.effective_topology().map_err(|e| e.0);
    let resolved = exp.machine.resolve();
    let nr_cpus = topo.as_ref().map(|t| t.cpu_count()).unwrap_or(0);
    // Over a topology the user typed, a machine preset asks before replacing it.
    let machine_ask = use_state(|| None::<(MachineSpec, MachineSpec, String)>);
    let on_machine = {
        let on = p.on_machine_preset.clone();
        let ask = machine_ask.clone();
        let current = exp.machine.clone();
        Callback::from(move |e: Event| {
            let select = e.target_unchecked_into::<HtmlSelectElement>();
            let name = select.value();
            match crate::model::form::machine_choice(&current, &name) {
                MachineChoice::Replace => on.emit(name),
                MachineChoice::Ask { replace, keep, question } => {
                    // The select shows the machine in use until the question is answered.
                    select.set_value(current.preset.as_deref().unwrap_or_default());
                    ask.set(Some((*replace, *keep, question)));
                }
            }
        })
    };
    let machine_question = match &*machine_ask {
        Some((replace, keep, question)) => {
            let answer = |m: Option<MachineSpec>| {
                let (ask, on) = (machine_ask.clone(), p.on_machine.clone());
                Callback::from(move |_| {
                    if let Some(m) = m.clone() {
                        on.emit(m);
                    }
                    ask.set(None);
                })
            };
            html! {
                <div class="machine-question notice" role="alertdialog" id="machine-question" aria-label="Replace your topology?">
                    <span>{ question.clone() }</span>
                    <button type="button" id="machine-use-preset" onclick={answer(Some(replace.clone()))}>{ "Use its topology" }</button>
                    <button type="button" id="machine-keep-mine" onclick={answer(Some(keep.clone()))}>{ "Keep mine with its costs" }</button>
                    <button type="button" class="tool" id="machine-cancel" onclick={answer(None)}>{ "Cancel" }</button>
                </div>
            }
        }
        None => html! {},
    };
    let clash = crate::model::form::costs_clash(&exp.machine);
    let on_spec = {
        let on = p.on_topology.clone();
        Callback::from(move |s: String| match Topology::parse_spec(&s) {
            Ok(t) => {
                on.emit(t);
                None
            }
            Err(e) => Some(e.0.trim_start_matches("topology spec ").to_string()),
        })
    };
    let on_edit = p.on_topology_edit.clone();
    let spec_text = topo.as_ref().ok().and_then(|t| t.spec()).unwrap_or_default();
    let preset = exp.machine.preset.clone().unwrap_or_default();
    let machines = schedsim::machine::machines();
    let kernels = exp
        .kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let others: Vec<String> =
                exp.kernels.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, o)| o.name.clone()).collect();
            let (on_kernel, on_remove_kernel) = (p.on_kernel.clone(), p.on_remove_kernel.clone());
            html! {
                <KernelPanel index={i} spec={k.clone()} {others} can_remove={exp.kernels.len() > 1}
                    warnings={crate::model::kernels::warnings(&exp.kernels, i)}
                    duplicate={crate::model::kernels::duplicate_name(&exp.kernels, i)}
                    on_change={Callback::from(move |k| on_kernel.emit((i, k)))}
                    on_remove={Callback::from(move |_| on_remove_kernel.emit(i))} />
            }
        })
        .collect::<Html>();
    let validation = exp.validate().err().map(|e| crate::model::form::in_card_words(exp, &e.to_string()));
    let on_workers = {
        let on = p.on_workers.clone();
        Callback::from(move |e: Event| {
            if let Ok(n) = e.target_unchecked_into::<web_sys::HtmlInputElement>().value().trim().parse::<u32>() {
                on.emit(n);
            }
        })
    };
    let running = matches!(p.sweep, Sweep::Running { .. });
    let progress = match &p.sweep {
        Sweep::Running { progress, started_ms, .. } => {
            let elapsed = (dom::now_ms() - started_ms) / 1e3;
            let value = progress.map(|p| p.fraction()).unwrap_or(0.0);
            let text = match progress {
                Some(p) => {
                    let left = match p.left_s {
                        Some(l) => format!(" · about {} left", fmt_secs(l)),
                        None => String::new(),
                    };
                    format!(
                        "{} of {} runs done · {} running · {:.0}% · {:.1} s{left}",
                        p.runs_done,
                        p.runs_total,
                        p.running,
                        value * 100.0,
                        elapsed
                    )
                }
                None => format!("starting {} worker{}…", p.workers, if p.workers == 1 { "" } else { "s" }),
            };
            html! {
                <div class="progress" role="status" id="sweep-progress">
                    <progress max="1" value={format!("{value:.4}")} aria-label="sweep progress"></progress>
                    <span>{ text }</span>
                </div>
            }
        }
        Sweep::Failed(m) => {
            html! { <p class="refusal" role="alert" id="sweep-error">{ format!("The sweep failed: {m}") }</p> }
        }
        Sweep::RunsFailed { failed, .. } => {
            let (done, total) = p.result.as_ref().map_or((0, 0), |r| r.points);
            html! {
                <div class="refusal" role="alert" id="sweep-runs-failed">
                    <p>{ format!("{} run{} failed; the runs that finished are shown ({done} of {total} points begun):",
                        failed.len(), if failed.len() == 1 { "" } else { "s" }) }</p>
                    <ul>{ for failed.iter().take(8).map(|f| html! { <li>{ f.clone() }</li> }) }</ul>
                    if failed.len() > 8 {
                        <p>{ format!("and {} more.", failed.len() - 8) }</p>
                    }
                    <button type="button" class="primary" id="rerun-failed" onclick={p.on_rerun.clone()}>{ "Rerun the failed runs" }</button>
                </div>
            }
        }
        Sweep::Cancelled => html! { <p class="status" role="status" id="sweep-cancelled">{ "Sweep cancelled." }</p> },
        _ => html! {},
    };
    let results = match &p.result {
        Some(r) => {
            let stale = r.report.experiment != *exp;
            // A partial result whose sweep no longer runs was cancelled or failed.
            let stopped = !r.complete && !running;
            html! { <Results result={r.clone()} {stale} {stopped} theme={p.theme.clone()} latency_point={p.latency_point}
            on_latency_point={p.on_latency_point.clone()} on_jump={p.on_jump.clone()}
            on_perfetto={p.on_perfetto.clone()} perfetto={p.perfetto.clone()} /> }
        }
        None => html! {},
    };
    // A finished sweep's results may be out of view: a button in the bar goes there.
    let results_ready = match (&p.sweep, &p.result) {
        (Sweep::Done(_), Some(r)) if r.report.experiment == *exp => html! {
            <button type="button" id="results-ready"
                onclick={Callback::from(|_| dom::scroll_to("section.results"))}>{ "↑ Go to the results" }</button>
        },
        _ => html! {},
    };
    let presets_list = schedsim::presets::presets();
    let on_preset = {
        let on = p.on_preset.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if !v.is_empty() {
                on.emit(v);
            }
        })
    };
    let form = html! {
        <>
            <section class="panel machine" aria-labelledby="machine-h">
                <h2 id="machine-h">{ "Machine" }</h2>
                <div class="row">
                    <label class="field">
                        <span class="field-label">{ "machine preset (costs, C-states)" }</span>
                        <select id="machine-preset" onchange={on_machine}>
                            { for machines.iter().map(|m| html! { <option value={m.name} selected={m.name == preset}>{ format!("{} — {}", m.name, m.description) }</option> }) }
                        </select>
                    </label>
                    <Field label="topology spec" value={spec_text} on_commit={on_spec} id="topo-spec"
                        hint={if clash.is_some() { "typed: the machine's costs stay those of the preset (see below)" } else { "NODESxLLCSxCORESxTHREADS, e.g. 2x1x20x2" }} />
                    <p class="machine-desc" id="machine-desc">{
                        match &resolved {
                            Ok(r) => format!("{} · {} CPUs", r.description, r.map.nr_cpus()),
                            Err(e) => e.to_string(),
                        }
                    }</p>
                </div>
                { machine_question }
                if let Some(c) = &clash {
                    <p class="costs-clash notice" role="status" id="costs-clash">{ c.clone() }</p>
                }
                {
                    match &topo {
                        // A machine of more than TOPOLOGY_FOLD_CPUS CPUs is folded: drawn
                        // open, 1,024 CPUs push the kernels 10,000 px down the page.
                        Ok(t) if t.cpu_count() > TOPOLOGY_FOLD_CPUS => html! {
                            <details class="topo-fold" id="topo-fold">
                                <summary>{ format!("The machine's {} CPUs, folded (open to see or edit them)", t.cpu_count()) }</summary>
                                <TopologyView topo={Rc::new(t.clone())} editable=true refusal={p.refusal.clone()} {on_edit} />
                            </details>
                        },
                        Ok(t) => html! { <TopologyView topo={Rc::new(t.clone())} editable=true refusal={p.refusal.clone()} {on_edit} /> },
                        Err(e) => html! { <p class="refusal" role="alert">{ e.clone() }</p> },
                    }
                }
                <ImportBox machine={exp.machine.clone()} on_machine={p.on_machine.clone()} />
            </section>
            <section class="panel" aria-labelledby="kernels-h">
                <div class="section-head">
                    <h2 id="kernels-h">{ "Kernels" }</h2>
                    if exp.kernels.len() < schedsim::experiment::KERNELS_MAX {
                        <button type="button" class="tool" onclick={p.on_add_kernel.reform(|_| ())}>{ "+ kernel" }</button>
                    }
                </div>
                <div class="kernels">{ kernels }</div>
            </section>
            <section class="panel" aria-labelledby="workload-h">
                <h2 id="workload-h">{ "Workload and sweep" }</h2>
                <WorkloadForm exp={exp.clone()} nr_cpus={nr_cpus}
                    on_workload={p.on_workload.clone()} on_edit={p.on_edit.clone()} />
                <ReplayControl exp={exp.clone()} replay={p.replay.clone()} />
            </section>
        </>
    };
    // In presenter mode the room sees the results: the form folds under a line that
    // says what is being run.
    let form = if p.presenter {
        html! {
            <details class="panel inputs-fold" id="inputs-fold">
                <summary>{ format!("The experiment: {} — machine, {} kernel{}, workload (folded in presenter mode)",
                    if exp.name.is_empty() { "custom" } else { exp.name.as_str() }, exp.kernels.len(),
                    if exp.kernels.len() == 1 { "" } else { "s" }) }</summary>
                { form }
            </details>
        }
    } else {
        form
    };
    // In presenter mode the form is folded under the results: each kernel's version
    // stays at hand in the bar above them, so the room's A/B is set without leaving it.
    let kernel_strip = if p.presenter {
        let selects = exp.kernels.iter().enumerate().map(|(i, k)| {
            let (spec, on) = (k.clone(), p.on_kernel.clone());
            let onchange = Callback::from(move |e: Event| {
                let v = e.target_unchecked_into::<HtmlSelectElement>().value();
                if let Some(ver) = schedsim::KernelVersion::parse(&v) {
                    on.emit((i, crate::model::kernels::follow(&spec, KernelSpec { preset: ver, ..spec.clone() })));
                }
            });
            let letter = crate::model::kernels::letter(i);
            html! {
                <label class="inline">{ format!("Kernel {letter} ") }
                    <select id={format!("strip-k{i}")} {onchange} aria-label={format!("Kernel {letter} version, above the results")}>
                        { for schedsim::KernelVersion::ALL.iter().map(|v| html! {
                            <option value={v.name()} selected={*v == k.preset}>{ v.name() }</option>
                        }) }
                    </select>
                    <span class="muted">{ format!(" {}", k.name) }</span>
                </label>
            }
        });
        html! { <div class="kernel-strip" id="kernel-strip">{ for selects }</div> }
    } else {
        html! {}
    };
    html! {
        <>
            <section class="panel experiment-bar">
                <label class="inline">{ "built-in experiment " }
                    <select id="preset" onchange={on_preset}>
                        <option value="" selected={!presets_list.iter().any(|p| p.experiment == *exp)}>{ "custom (edited)" }</option>
                        { for presets_list.iter().map(|p| html! {
                            <option value={p.name} selected={p.experiment == *exp}>{ format!("{} — {}", p.name, p.description) }</option>
                        }) }
                    </select>
                </label>
                // The trace import is far down the form: one click reaches it from
                // the top, opening the file chooser (and the folded form, if folded).
                <button type="button" class="tool" id="replay-jump" onclick={Callback::from(|_| {
                    dom::open_details("inputs-fold");
                    dom::scroll_to(".replay");
                    dom::click("replay-file");
                })}>{ "Replay a trace…" }</button>
                { kernel_strip }
            </section>
            // One column: the results above the inputs (the Run bar stays at the
            // screen's foot); from 1600 px, the inputs and the results side by side.
            <div class="sweep-layout">
            <div class="sweep-inputs">
            { form }
            </div>
            <div class="sweep-outputs">
                { results }
                <ReplayTableView exp={exp.clone()} replay={p.replay.clone()}
                    on_machine_preset={p.on_machine_preset.clone()} on_topology={p.on_topology.clone()}
                    result_id={p.result.as_ref().filter(|r| r.complete && r.report.experiment == *exp).map(|r| r.done.id)} />
            </div>
            </div>
            <section class="panel runbar" aria-label="run">
                <button type="button" id="run" class="primary big" onclick={p.on_run.clone()}
                    disabled={validation.is_some() || !p.field_errors.0.is_empty()}>{ if running { "Restart sweep" } else { "Run sweep" } }</button>
                if running {
                    <button type="button" id="cancel" onclick={p.on_cancel.clone()}>{ "Cancel" }</button>
                }
                <label class="inline workers" title="Simulation workers: each runs one (kernel, client count, iteration) at a time; one per CPU is the fastest. A sweep starts with as many running as this device has CPUs and takes more while the page stays responsive (a browser cannot run workers at a lower priority than the page)">
                    { "workers " }
                    <input type="number" id="workers" min="1" max={crate::model::sweep::WORKERS_MAX.to_string()} step="1"
                        value={p.workers.to_string()} onchange={on_workers} aria-label="number of simulation workers" />
                </label>
                if !p.field_errors.0.is_empty() {
                    <div class="field-errors" role="alert" id="field-errors">
                        <span>{ if p.field_errors.0.len() == 1 { "Fix this field to run:" } else { "Fix these fields to run:" } }</span>
                        <ul>
                            { for p.field_errors.0.iter().map(|(id, (what, why))| {
                                let id2 = id.clone();
                                html! { <li><button type="button" class="tool linkish" onclick={Callback::from(move |_| dom::focus(&id2))}>{ what.clone() }</button>{ format!(": {why}") }</li> }
                            }) }
                        </ul>
                    </div>
                } else if let Some(v) = validation {
                    <p class="refusal" role="alert" id="exp-invalid">{ v }</p>
                }
                { progress }
                { results_ready }
            </section>
        </>
    }
}
