//! "Replay a trace": a `perf script` or `trace-cmd report` file (text or gzip) picked
//! or dropped, imported in the worker, and the experiment made to replay it; and under
//! a replay's results, what the traced machine did beside what each modelled kernel
//! does with the same tasks.

use crate::model::replay::{self, short_sha};
use crate::web::components::wide::Wide;
use crate::web::hooks::{use_file_drop, use_reveal, ImportStatus, Replay, TableStatus, VsStatus};
use schedsim::topology::Topology;
use schedsim::Experiment;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ReplayControlProps {
    pub exp: Experiment,
    pub replay: Replay,
}

#[function_component(ReplayControl)]
pub fn replay_control(p: &ReplayControlProps) -> Html {
    let r = &p.replay;
    let drop = use_file_drop(r.on_file.clone(), None);
    let on_cancel = r.on_cancel.reform(|_: MouseEvent| ());
    // The import's outcome is what the user waits for: brought into view when it comes.
    use_reveal(
        matches!(r.import, ImportStatus::Done { .. } | ImportStatus::Failed { .. }).then(|| r.import.clone()),
        "#replay-summary, #replay-error",
    );
    // A link's replay by reference: say which file it needs, with the button that
    // picks it (the file input is below, out of view on a phone).
    let wanted = replay::reference_of(&p.exp).map(|rf| {
        html! {
            <p class="refusal" role="alert" id="replay-wanted">{ format!(
                "This link replays the trace {} (sha256 {}), too large for a link to carry. Load that file to run it; \
                 a file with another SHA-256 is refused. ", rf.trace_name, short_sha(&rf.trace_sha256)) }
                <button type="button" class="primary" id="replay-wanted-pick" disabled={r.import.busy()}
                    onclick={Callback::from(|_| crate::web::dom::click("replay-file"))}>{ format!("Choose {}…", rf.trace_name) }</button>
            </p>
        }
    });
    let chosen = match (r.import.file_name(), replay::replay_of(&p.exp)) {
        (Some(name), _) => format!(" chosen: {name}"),
        (None, Some(rp)) if !rp.is_reference() => format!(" replaying: {}", rp.trace_name),
        (None, _) => " no file chosen yet".to_string(),
    };
    let status = match &r.import {
        ImportStatus::Idle => html! {},
        ImportStatus::Reading { name } => reading("replay-progress", name),
        ImportStatus::Importing { name, read_bytes } => {
            importing(["replay-progress", "replay-cancel"], "trace import", name, *read_bytes, on_cancel)
        }
        ImportStatus::Done { name, sha256, summary, notes } => html! {
            <div class="import-result status" role="status" id="replay-summary">
                <p>{ format!("Imported {name} (sha256 {}).", short_sha(sha256)) }</p>
                <ul class="replay-notes">{ for notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                <pre class="table replay-summary-lines">{ summary.join("\n") }</pre>
            </div>
        },
        ImportStatus::Failed { name, message } => html! {
            <p class="refusal" role="alert" id="replay-error">{ format!("Could not replay {name}: {}. The experiment is unchanged.", message.trim_end_matches('.')) }</p>
        },
        ImportStatus::Cancelled { name } => html! {
            <p class="status" role="status" id="replay-cancelled">{ format!("Import of {name} cancelled; the experiment is unchanged.") }</p>
        },
    };
    let link_note = match replay::replay_of(&p.exp) {
        Some(rp) if !rp.is_reference() => {
            let kib = replay::replay_json_len(&p.exp) as f64 / 1024.0;
            let max = replay::LINK_REPLAY_JSON_MAX / 1024;
            html! { <p class="muted hint" id="replay-link-note">{
                if replay::link_carries_programs(&p.exp) {
                    format!("Links carry this replay whole ({kib:.0} KiB of programs, at most {max} KiB).")
                } else {
                    format!("This replay's programs are {kib:.0} KiB, more than a link carries ({max} KiB): a link names the trace and its SHA-256, and whoever opens it is asked for the file.")
                }
            }</p> }
        }
        _ => html! {},
    };
    html! {
        <div class="replay" aria-label="replay a trace">
            <h3 id="replay-h">{ "Replay a trace" }</h3>
            { for wanted }
            <div class={classes!("dropzone", drop.over.then_some("over"))} id="replay-drop"
                ondragover={drop.on_drag_over.clone()} ondragenter={drop.on_drag_over} ondragleave={drop.on_drag_leave} ondrop={drop.on_drop}>
                <p>{ "Drop a scheduler trace here (perf script or trace-cmd report text of the sched events, plain or .gz), or " }</p>
                // The browser's own file input says "No file chosen" again once the
                // page has read the file (its value is cleared so that the same file
                // can be chosen twice): it is hidden behind a button, and the page
                // names the file itself.
                <input type="file" id="replay-file" class="file-hidden" tabindex="-1" accept=".txt,.gz,text/plain,application/gzip"
                    onchange={drop.on_pick} disabled={r.import.busy()} aria-label="choose a trace file to replay" />
                <button type="button" id="replay-pick" disabled={r.import.busy()}
                    onclick={Callback::from(|_| crate::web::dom::click("replay-file"))}>{ "Choose a trace file…" }</button>
                <span class="file-name" id="replay-file-name">{ chosen }</span>
                <p class="muted">{ format!("Read in the page's worker a piece at a time; nothing is uploaded. At most {} GB of text (a gzip file at most 1 GB).", replay::TRACE_FILE_BYTES_MAX >> 30) }</p>
            </div>
            { status }
            { link_note }
            if let Some((a_name, _)) = &r.held {
                <TraceVsView replay={r.clone()} a_name={a_name.clone()} />
            }
        </div>
    }
}

/// A bundled trace being fetched.
fn reading(id: &'static str, name: &str) -> Html {
    html! { <p class="status" role="status" {id}>{ format!("Reading {name}…") }</p> }
}

/// A trace being imported in the worker, with its Cancel; `ids` are the status's and the
/// button's.
fn importing(
    ids: [&'static str; 2],
    label: &'static str,
    name: &str,
    read_bytes: f64,
    on_cancel: Callback<MouseEvent>,
) -> Html {
    html! {
        <div class="progress" role="status" id={ids[0]}>
            <progress aria-label={label}></progress>
            <span>{ format!("Importing {name} in the worker: {:.1} MB of text read…", read_bytes / 1e6) }</span>
            <button type="button" id={ids[1]} onclick={on_cancel}>{ "Cancel" }</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct TraceVsProps {
    replay: Replay,
    a_name: String,
}

/// A second real trace beside the imported one: the two traces' statistics side by side,
/// overall and per task name (`schedsim replay A --vs B` prints the same text).
#[function_component(TraceVsView)]
fn trace_vs_view(p: &TraceVsProps) -> Html {
    let r = &p.replay;
    let drop = use_file_drop(r.on_vs_file.clone(), None);
    let busy = r.vs.as_ref().is_some_and(|v| v.busy()) || r.import.busy();
    use_reveal(
        matches!(r.vs, Some(VsStatus::Done { .. } | VsStatus::Failed { .. })).then(|| r.vs.clone()),
        "#vs-table, #vs-error",
    );
    let on_cancel = r.on_cancel.reform(|_: MouseEvent| ());
    let status = match &r.vs {
        None => html! {},
        Some(VsStatus::Comparing { name, read_bytes }) => {
            importing(["vs-progress", "vs-cancel"], "second trace import", name, *read_bytes, on_cancel)
        }
        Some(VsStatus::Failed { name, message }) => html! {
            <p class="refusal" role="alert" id="vs-error">{ format!("Could not compare with {name}: {}.", message.trim_end_matches('.')) }</p>
        },
        Some(VsStatus::Cancelled { name }) => html! {
            <p class="status" role="status" id="vs-cancelled">{ format!("Comparison with {name} cancelled.") }</p>
        },
        Some(VsStatus::Done { table: t, .. }) => html! {
            <div id="vs-table">
                <ul class="vs-heads">{ for t.heads.iter().map(|h| html! { <li>{ h.clone() }</li> }) }</ul>
                if let Some(m) = &t.machines_differ { <p class="notice" role="note" id="vs-machines">{ format!("Note: {m}.") }</p> }
                <Wide what="The comparison">
                <table class="replay-table vs-overall" id="vs-overall">
                    <caption>{ "Both traces, overall (B against A)" }</caption>
                    <thead><tr><th scope="col">{ "" }</th><th scope="col">{ "A" }</th><th scope="col">{ "B" }</th><th scope="col">{ "B vs A" }</th></tr></thead>
                    <tbody>{ for t.rows.iter().map(|(n, a, b, c)| html! {
                        <tr class={classes!(n.starts_with("  ").then_some("sub"))}>
                            <th scope="row">{ n.trim_start().to_string() }</th><td>{ a.clone() }</td><td>{ b.clone() }</td><td>{ c.clone() }</td>
                        </tr>
                    }) }</tbody>
                </table>
                </Wide>
                if !t.names.is_empty() {
                    <Wide what="The per-name table">
                    <table class="replay-table vs-names" id="vs-names">
                        <caption>{ "Per task name (the busiest first; a name in one trace only has a dash in the other)" }</caption>
                        <thead><tr>{ for ["task name", "wakeups/s A", "wakeups/s B", "B vs A", "run delay p50 A (us)", "run delay p50 B (us)"]
                            .iter().map(|h| html! { <th scope="col">{ *h }</th> }) }</tr></thead>
                        <tbody>{ for t.names.iter().map(|row| html! {
                            <tr><th scope="row" class="task-name" title={row[0].clone()}>{ row[0].clone() }</th>
                                { for row[1..].iter().map(|c| html! { <td>{ c.clone() }</td> }) }</tr>
                        }) }</tbody>
                    </table>
                    </Wide>
                    if t.names_left_out > 0 { <p class="muted">{ format!("{} more task names, with fewer wakeups.", t.names_left_out) }</p> }
                }
                <details><summary>{ "as text (the CLI's schedsim replay A --vs B prints the same)" }</summary>
                    <pre class="table" id="vs-text">{ t.text.clone() }</pre></details>
            </div>
        },
    };
    html! {
        <div class="trace-vs" aria-labelledby="vs-h">
            <h4 id="vs-h">{ "Compare with a second trace" }</h4>
            <div class={classes!("dropzone", drop.over.then_some("over"))} id="vs-drop"
                ondragover={drop.on_drag_over.clone()} ondragenter={drop.on_drag_over} ondragleave={drop.on_drag_leave} ondrop={drop.on_drop}>
                <p>{ format!("A is {}. Drop trace B here (another run, machine or kernel), or ", p.a_name) }</p>
                <input type="file" id="vs-file" class="file-hidden" tabindex="-1" accept=".txt,.gz,text/plain,application/gzip"
                    onchange={drop.on_pick} disabled={busy} aria-label="choose a second trace to compare" />
                <button type="button" id="vs-pick" disabled={busy}
                    onclick={Callback::from(|_| crate::web::dom::click("vs-file"))}>{ "Choose trace B…" }</button>
                <p class="muted">{ "Each trace is read on its own CPU count as one LLC; counts are also given per second, as the windows may differ." }</p>
            </div>
            { status }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ReplayTableProps {
    pub exp: Experiment,
    /// The id of the sweep result on the page, if it is this experiment's.
    pub result_id: Option<u32>,
    pub replay: Replay,
    /// A machine preset chosen by name (the trace's shape, in one click).
    pub on_machine_preset: Callback<String>,
    /// A topology to replay on (the trace's CPU count in one LLC).
    pub on_topology: Callback<Topology>,
}

/// The observed/simulated table under a replay's results.
#[function_component(ReplayTableView)]
pub fn replay_table_view(p: &ReplayTableProps) -> Html {
    let Some(rp) = replay::replay_of(&p.exp) else { return html! {} };
    if rp.is_reference() {
        return html! {};
    }
    let Some(rid) = p.result_id else { return html! {} };
    let nr_cpus = p.exp.machine.effective_topology().map(|t| t.cpu_count() as u32).unwrap_or(0);
    let held = p.replay.held.as_ref().map(|h| h.1 == rp.trace_sha256).unwrap_or(false);
    let body = match &p.replay.table {
        _ if !held => html! {
            <p class="muted" id="replay-table-wanted">{ format!(
                "Load {} (sha256 {}) under Replay a trace to see the traced machine's statistics beside these runs.",
                rp.trace_name, short_sha(&rp.trace_sha256)) }</p>
        },
        Some(TableStatus::Running { result_id }) if *result_id == rid => html! {
            <div class="progress" role="status" id="replay-table-progress">
                <progress aria-label="replay table"></progress>
                <span>{ "Replaying the trace once per kernel with the wake log on…" }</span>
                <button type="button" onclick={p.replay.on_cancel.reform(|_: MouseEvent| ())}>{ "Cancel" }</button>
            </div>
        },
        Some(TableStatus::Failed { result_id, message }) if *result_id == rid => html! {
            <p class="refusal" role="alert" id="replay-table-error">{ format!("The table could not be made: {message}") }</p>
        },
        Some(TableStatus::Done { result_id, table }) if *result_id == rid => html! {
            <>
                { other_machine(&p.exp, table.trace_cpus, &p.on_machine_preset, &p.on_topology) }
                <Wide what="The table">
                <table class="replay-table" id="replay-table">
                    <caption>{ table.title.clone() }</caption>
                    <thead><tr><th scope="col">{ "" }</th>{ for table.head.iter().map(|h| html! { <th scope="col">{ h.clone() }</th> }) }</tr></thead>
                    <tbody>
                        { for table.rows_on(nr_cpus).into_iter().map(|(name, cells)| {
                            let sub = name.starts_with("  ");
                            html! { <tr class={classes!(sub.then_some("sub"))}>
                                <th scope="row">{ name.trim_start().to_string() }</th>
                                { for cells.into_iter().map(|c| html! { <td>{ c }</td> }) }
                            </tr> }
                        }) }
                    </tbody>
                </table>
                </Wide>
                <details><summary>{ "as text (the CLI's schedsim replay prints the same)" }</summary>
                    <pre class="table" id="replay-table-text">{ table.text.clone() }</pre></details>
            </>
        },
        _ => html! {},
    };
    html! {
        <section class="panel replay-compare" aria-labelledby="replay-compare-h">
            <h2 id="replay-compare-h">{ "The trace beside the model" }</h2>
            <p class="muted">{ "Observed: what the traced machine did in the trace's window, read from its sched events — one \
                real run, on a machine that may have been running other work too (those tasks are in the trace only as far \
                as they woke or were switched). Simulated: one copy of the trace replayed under each kernel on this page's \
                machine (the first client count's copy 0, iteration 0), where each task runs the CPU time and wakes the tasks \
                it did in the trace, and the modelled kernel decides where and when. Where the machine's topology differs \
                from the traced one, so do the distances." }</p>
            { body }
        </section>
    }
}

/// At the table of a replay on another CPU count than the trace's: that it is, and the
/// trace's shape in one click (each machine preset of its CPU count, or one LLC of them
/// with this machine's costs).
fn other_machine(
    exp: &Experiment,
    trace_cpus: u32,
    on_preset: &Callback<String>,
    on_topology: &Callback<Topology>,
) -> Html {
    let Some(o) = replay::other_machine(exp, trace_cpus) else { return html! {} };
    let spec_button = Topology::parse_spec(&o.spec).ok().map(|t| {
        let on = on_topology.clone();
        html! { <button type="button" id="replay-use-shape" onclick={Callback::from(move |_| on.emit(t.clone()))}>
        { format!("Use {} CPUs in one LLC ({}), this machine's costs", trace_cpus, o.spec) }</button> }
    });
    html! {
        <div class="notice other-machine" role="note" id="replay-other-machine">
            <p>{ o.note.clone() }</p>
            <div class="row">
                { for o.presets.iter().map(|name| {
                    let (on, name) = (on_preset.clone(), name.to_string());
                    let label = format!("Use machine preset {name} ({trace_cpus} CPUs)");
                    html! { <button type="button" class="primary" onclick={Callback::from(move |_| on.emit(name.clone()))}>{ label }</button> }
                }) }
                { for spec_button }
            </div>
        </div>
    }
}
