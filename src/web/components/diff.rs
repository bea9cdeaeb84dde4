//! The Diff view: kernel A runs, and at every wakeup kernel B's decision code is asked
//! in the same state (`Experiment::diff`, in a web worker so the page stays
//! responsive). Lists where they differ, steps from one difference to the next (buttons
//! or ← →), shows both decision traces side by side and both choices on one drawing
//! of the machine (★ A chose, ◆ B would choose), with the counts by distance.

use crate::model::diff::{self, COUNTS, COUNT_DEFAULT};
use crate::model::kernels::letter;
use crate::model::replay::{self, short_sha};
use crate::web::components::replay::ReplayControl;
use crate::web::components::topology::{LiveFrame, TopologyView};
use crate::web::components::wakeup::{probed, wakeup_facts, TraceSteps};
use crate::web::hooks::{use_keydown, Replay};
use crate::web::pool::SweepRunner;
use crate::wire::proto::{Request, Response};
use schedsim::diff::{distance_words, reason, DiffAsk, DiffReport, WakeupDiff};
use schedsim::trace::WakeupTrace;
use schedsim::Experiment;
use std::rc::Rc;
use web_sys::{HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Running(u32),
    Done(Rc<DiffReport>),
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct DiffProps {
    pub exp: Experiment,
    /// The trace import: a link's replay by reference is diffed once its file is in.
    pub replay: Replay,
}

/// Runs `ask` in a worker whenever it (or the experiment) changes, the tab opening
/// included; an answer to an older question is dropped. The status, and the position
/// in the differences (back to the first with each answer).
#[hook]
fn use_diff_run(ask: Option<DiffAsk>, exp: Experiment) -> (UseStateHandle<Status>, UseStateHandle<usize>) {
    let status = use_state(|| Status::Idle);
    let at = use_state(|| 0usize);
    let seq = use_mut_ref(|| 0u32);
    let runner = {
        let status = status.clone();
        let at = at.clone();
        let seq = seq.clone();
        use_memo((), move |_| {
            SweepRunner::new(move |r| {
                let current = *seq.borrow();
                match r {
                    Response::Diff { id, report_json } if id == current => {
                        match serde_json::from_str::<DiffReport>(&report_json) {
                            Ok(rep) => {
                                at.set(0);
                                status.set(Status::Done(Rc::new(rep)));
                            }
                            Err(e) => status.set(Status::Failed(format!("cannot read the diff: {e}"))),
                        }
                    }
                    Response::Failed { id, message } if id == current => status.set(Status::Failed(message)),
                    _ => {}
                }
            })
        })
    };
    {
        let status = status.clone();
        use_effect_with((ask, exp), move |(ask, exp)| {
            if let Some(ask) = ask.clone() {
                let id = {
                    let mut s = seq.borrow_mut();
                    *s += 1;
                    *s
                };
                runner.cancel();
                status.set(Status::Running(id));
                if let Err(e) = runner.request(id, Request::Diff { id, experiment_json: exp.to_json(), ask }) {
                    status.set(Status::Failed(e));
                }
            }
            let runner = runner.clone();
            move || runner.cancel()
        });
    }
    (status, at)
}

#[function_component(DiffView)]
pub fn diff_view(p: &DiffProps) -> Html {
    let a = use_state(|| 0u32);
    let b = use_state(|| 1u32);
    let clients = use_state(|| p.exp.clients.first().copied().unwrap_or(1));
    let count = use_state(|| COUNT_DEFAULT);
    // A link's replay by reference has no tasks until its trace file is loaded: no
    // diff is asked of it (the library would refuse it), the file is asked for.
    let wanted = replay::reference_of(&p.exp);
    let ask = diff::ask(&p.exp, *a, *b, *clients, *count).filter(|_| wanted.is_none());
    let (status, at) = use_diff_run(ask.clone(), p.exp.clone());
    let len = match &*status {
        Status::Done(r) => r.details.len(),
        _ => 0,
    };
    {
        // ← and → step, when not typing.
        let at = at.clone();
        use_keydown(Callback::from(move |e: KeyboardEvent| {
            let delta = match e.key().as_str() {
                "ArrowLeft" => -1,
                "ArrowRight" => 1,
                _ => return,
            };
            e.prevent_default();
            at.set(diff::step(*at, delta, len));
        }));
    }
    let exp = &p.exp;
    if let Some(rf) = wanted {
        return html! {
            <section class="diff-view" aria-labelledby="diff-h">
                <h2 id="diff-h">{ "Diff: where kernel B would place a wakeup differently" }</h2>
                <p class="refusal" id="diff-needs-trace" role="status">{ format!(
                    "No diff yet: this experiment replays the trace {} (sha256 {}), whose tasks a link does not carry. \
                     Load that file here and the diff runs.", rf.trace_name, short_sha(&rf.trace_sha256)) }</p>
                <ReplayControl exp={exp.clone()} replay={p.replay.clone()} />
            </section>
        };
    }
    let Some(ask) = ask else {
        return html! {
            <section class="diff-view" aria-labelledby="diff-h">
                <h2 id="diff-h">{ "Diff: where kernel B would place a wakeup differently" }</h2>
                <p class="refusal" id="diff-one-kernel" role="status">{
                    "The experiment has one kernel. Add a second one under Sweep → Kernels to compare their decisions wakeup by wakeup."
                }</p>
            </section>
        };
    };
    let names = (exp.kernels[ask.a as usize].name.clone(), exp.kernels[ask.b as usize].name.clone());
    let running = matches!(*status, Status::Running(_));
    let body = match &*status {
        Status::Idle | Status::Running(_) => html! {},
        Status::Failed(m) => {
            html! { <p class="refusal" role="alert" id="diff-error">{ format!("The diff failed: {m}") }</p> }
        }
        Status::Done(r) => diff_result(exp, r, &at, &names),
    };
    html! {
        <section class="diff-view" aria-labelledby="diff-h">
            <h2 id="diff-h">{ "Diff: where kernel B would place a wakeup differently" }</h2>
            <p class="lead">{ "Kernel A runs. At every wakeup, kernel B's decision code is asked what it would choose in exactly the same state, on a copy of the simulation: its answer changes nothing. B reads A's state as it is, also state only B's kernel would keep up." }</p>
            { diff_controls(exp, &ask, [&a, &b, &clients, &count], running, &names) }
            { body }
        </section>
    }
}

/// The question: A, B, the client count and how many wakeups, and what is running.
fn diff_controls(
    exp: &Experiment,
    ask: &DiffAsk,
    [a, b, clients, count]: [&UseStateHandle<u32>; 4],
    running: bool,
    (name_a, name_b): &(String, String),
) -> Html {
    let select_u32 = |h: &UseStateHandle<u32>| {
        let h = h.clone();
        Callback::from(move |e: Event| {
            if let Ok(v) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<u32>() {
                h.set(v);
            }
        })
    };
    let kernel_options = |chosen: u32, not: Option<u32>| {
        exp.kernels
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i as u32) != not)
            .map(|(i, k)| {
                html! {
                    <option value={i.to_string()} selected={i as u32 == chosen}>{ format!("{}: {}", letter(i), k.name_with_label()) }</option>
                }
            })
            .collect::<Html>()
    };
    html! {
        <div class="live-controls" role="toolbar" aria-label="diff controls">
            <label class="inline">{ "A runs " }
                <select id="diff-a" onchange={select_u32(a)}>{ kernel_options(ask.a, None) }</select>
            </label>
            <label class="inline">{ "B is asked " }
                <select id="diff-b" onchange={select_u32(b)}>{ kernel_options(ask.b, Some(ask.a)) }</select>
            </label>
            <label class="inline">{ format!("{} ", exp.workload.clients_meaning()) }
                <select id="diff-clients" onchange={select_u32(clients)}>
                    { for exp.clients.iter().map(|&n| html! { <option value={n.to_string()} selected={n == ask.clients}>{ n }</option> }) }
                </select>
            </label>
            <label class="inline">{ "wakeups " }
                <select id="diff-count" onchange={select_u32(count)}>
                    { for COUNTS.iter().map(|&n| html! { <option value={n.to_string()} selected={n == ask.count}>{ n }</option> }) }
                </select>
            </label>
            <span class="status muted" id="diff-status" role="status">{
                if running {
                    format!("Running {} with {} asked at each of the first {} wakeups, in a worker…", name_a, name_b, ask.count)
                } else {
                    format!("wakeups 0 to {} from the start of the run ({} ms of warm-up), iteration 0", ask.count - 1, exp.effective_warmup_ms())
                }
            }</span>
        </div>
    }
}

/// The answer: the summary, the counts by distance, the difference at `at` (stepping,
/// its sentence, both choices on the machine, both traces) and the list of all.
fn diff_result(
    exp: &Experiment,
    r: &DiffReport,
    at: &UseStateHandle<usize>,
    (name_a, name_b): &(String, String),
) -> Html {
    let i = (**at).min(r.details.len().saturating_sub(1));
    let go = |delta: i64| {
        let at = at.clone();
        let len = r.details.len();
        Callback::from(move |_: MouseEvent| at.set(diff::step(*at, delta, len)))
    };
    html! {
        <>
            <p class="diff-summary" id="diff-summary" role="status">{ diff::summary(r) }</p>
            { diff_counts(r) }
            if let Some(d) = r.details.get(i) {
                <div class="diff-nav" role="toolbar" aria-label="step through the differences">
                    <button type="button" id="diff-prev" onclick={go(-1)} disabled={i == 0} title="Previous difference (←)">{ "← Prev" }</button>
                    <span id="diff-pos" class="status">{ diff::position(r, i) }</span>
                    <button type="button" id="diff-next" class="primary" onclick={go(1)} disabled={i + 1 >= r.details.len()} title="Next difference (→)">{ "Next →" }</button>
                </div>
                <p class="diff-sentence" id="diff-sentence">{ sentence(d, name_a, name_b) }</p>
                { diff_detail(exp, d, name_a, name_b) }
            } else {
                <p class="muted" id="diff-none">{ "No difference in these wakeups: B would have chosen the same CPU every time." }</p>
            }
            { diff_list(r, i, at) }
        </>
    }
}

/// Where B's CPU is, seen from A's, by distance.
fn diff_counts(r: &DiffReport) -> Html {
    html! {
        <table class="diff-counts" id="diff-counts">
            <caption>{ format!("Where B's CPU is, seen from A's, over the {} compared wakeups", r.compared) }</caption>
            <tr><th scope="col">{ "B's CPU" }</th><th scope="col">{ "wakeups" }</th><th scope="col">{ "share" }</th></tr>
            { for diff::relation_rows(r).into_iter().map(|(w, n, pct)| html! {
                <tr class={classes!((n == 0).then_some("zero"))}><th scope="row">{ w }</th><td>{ n }</td><td>{ format!("{pct:.1}%") }</td></tr>
            }) }
        </table>
    }
}

/// One difference: both choices on one drawing of the machine, its facts, both traces.
fn diff_detail(exp: &Experiment, d: &WakeupDiff, name_a: &str, name_b: &str) -> Html {
    let topo = exp.machine.effective_topology().ok();
    let cstates =
        exp.machine.resolve().map(|r| r.costs.cstates.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
    let frame = Rc::new(LiveFrame {
        cpus: d.cpus.clone(),
        trace: Some(d.a.clone()),
        cstates,
        wasted: None,
        counterfactual: Some(d.b_cpu()),
    });
    html! {
        <div class="live-grid diff-grid">
            <div class="live-topo">
                if let Some(t) = topo {
                    <TopologyView topo={Rc::new(t)} live={Some(frame)} />
                }
                { facts(d) }
            </div>
            <div class="diff-traces">
                { trace_column("a", &format!("A: {name_a}"), "what happened", &d.a) }
                { trace_column("b", &format!("B: {name_b}"), "asked in the same state; changes nothing", &d.b) }
            </div>
        </div>
    }
}

/// Every difference; those with details are buttons that go to them.
fn diff_list(r: &DiffReport, i: usize, at: &UseStateHandle<usize>) -> Html {
    if r.list.is_empty() {
        return html! {};
    }
    let pick = |k: usize| {
        let at = at.clone();
        Callback::from(move |_: MouseEvent| at.set(k))
    };
    html! {
        <>
            <h3 class="diff-list-h">{ format!("All {} differences", r.list.len()) }</h3>
            <ol class="diff-list" id="diff-list">
                { for r.list.iter().enumerate().map(|(k, x)| {
                    let full = k < r.details.len();
                    let text = format!("#{} {:.3} ms {}: prev {} → A {} / B {} ({})",
                        x.index, x.time_ns as f64 / 1e6, x.wakee, x.prev_cpu, x.a_cpu, x.b_cpu, distance_words(x.relation));
                    html! {
                        <li class={classes!((full && k == i).then_some("current"))}>
                            if full {
                                <button type="button" class="tool linkish" onclick={pick(k)}>{ text }</button>
                            } else {
                                <span>{ text }</span>
                            }
                        </li>
                    }
                }) }
            </ol>
        </>
    }
}

fn sentence(d: &WakeupDiff, a: &str, b: &str) -> Html {
    html! {
        <>
            { format!("{} woken by {} on CPU {} (prev CPU {}): ", d.a.wakee, d.a.waker, d.a.waker_cpu, d.a.prev_cpu) }
            <span class="who-a">{ format!("A ({a}) chose CPU {}", d.a_cpu()) }</span>
            { format!(" because {}; ", reason(&d.a)) }
            <span class="who-b">{ format!("B ({b}) would choose CPU {}", d.b_cpu()) }</span>
            { format!(" because {}. B's CPU is {}.", reason(&d.b), schedsim::diff::relation_words(d.relation)) }
        </>
    }
}

fn facts(d: &WakeupDiff) -> Html {
    let delivery = |t: &WakeupTrace| {
        t.outcome
            .as_ref()
            .map(|o| {
                format!(
                    "CPU {}{}{}{}, waker cost {} ns",
                    o.chosen_cpu,
                    if o.queued { ", wake list" } else { "" },
                    if o.ipi { ", IPI" } else { "" },
                    o.idle_exit.as_ref().map(|x| format!(", leaves {x}")).unwrap_or_default(),
                    o.cost_ns
                )
            })
            .unwrap_or_default()
    };
    html! {
        <dl class="wakeup-summary" id="diff-facts">
            { wakeup_facts(&d.a) }
            <dt class="who-a">{ "★ A" }</dt><dd>{ delivery(&d.a) }</dd>
            <dt class="who-b">{ "◆ B" }</dt><dd>{ delivery(&d.b) }</dd>
        </dl>
    }
}

fn trace_column(which: &'static str, title: &str, note: &'static str, t: &WakeupTrace) -> Html {
    let probed = probed(t);
    html! {
        <aside class={classes!("trace", format!("trace-{which}"))} id={format!("diff-trace-{which}")}>
            <h3>{ title.to_string() }</h3>
            <p class="muted small">{ note }</p>
            <TraceSteps steps={t.steps.clone()} />
            <p class="probed small">{ format!("CPUs probed: {probed}") }</p>
        </aside>
    }
}
