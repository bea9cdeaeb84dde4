//! The workload and the sweep: benchmark and its parameters (read generically from the
//! library's serde form, so a new parameter shows up without a change here), client
//! counts, iterations, duration, warm-up and seed.

use crate::model::form::{parse_clients, parse_count};
use crate::state::ExpEdit;
use crate::web::components::fields::Field;
use schedsim::experiment::{DURATION_MS_MAX, ITERATIONS_MAX};
use schedsim::workload::WORKLOAD_NAMES;
use schedsim::{Experiment, Workload};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkloadProps {
    pub exp: Experiment,
    pub nr_cpus: u64,
    /// A new workload (benchmark or one of its parameters).
    pub on_workload: Callback<Workload>,
    /// One other field. Fields commit on every keystroke that parses, so no edit may
    /// change another field (typing "1000" passes through "1"): cross-field rules such
    /// as warm-up < duration are reported by the experiment's validation beside Run
    /// instead.
    pub on_edit: Callback<ExpEdit>,
}

#[function_component(WorkloadForm)]
pub fn workload_form(p: &WorkloadProps) -> Html {
    let e = &p.exp;
    let d = p.on_edit.clone();
    let on_kind = {
        let ow = p.on_workload.clone();
        Callback::from(move |ev: Event| {
            let v = ev.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(w) = Workload::by_name(&v) {
                ow.emit(w);
            }
        })
    };
    // Parameters: every field of the workload's serde object except its tag.
    let wv = serde_json::to_value(&e.workload).unwrap_or_default();
    let params = wv
        .as_object()
        .map(|o| {
            o.iter()
                // A replay's trace fields (name, SHA-256, CPUs, span, programs) come from
                // its trace file, not from typing: only numbers and switches are fields.
                .filter(|(k, v)| {
                    *k != "kind" && (v.is_number() || v.is_boolean()) && !matches!(k.as_str(), "trace_cpus" | "span_ns")
                })
                .map(|(k, v)| {
                    let key = k.clone();
                    let w = e.workload.clone();
                    let ow = p.on_workload.clone();
                    let nr_cpus = p.nr_cpus as u32;
                    let is_bool = v.is_boolean();
                    let on_commit = Callback::from(move |s: String| {
                        let mut obj = serde_json::to_value(&w).unwrap_or_default();
                        let nv = if is_bool {
                            match s.trim() {
                                "true" | "yes" | "1" => serde_json::Value::Bool(true),
                                "false" | "no" | "0" => serde_json::Value::Bool(false),
                                _ => return Some("true or false".to_string()),
                            }
                        } else {
                            match s.trim().replace('_', "").parse::<u64>() {
                                Ok(n) => n.into(),
                                Err(_) => return Some("a whole number".to_string()),
                            }
                        };
                        obj[&key] = nv;
                        match serde_json::from_value::<Workload>(obj) {
                            Ok(nw) => match nw.validate(nr_cpus) {
                                Ok(()) => {
                                    ow.emit(nw);
                                    None
                                }
                                Err(m) => Some(m),
                            },
                            Err(err) => Some(err.to_string()),
                        }
                    });
                    let value = match v {
                        serde_json::Value::Number(n) => n.to_string(),
                        serde_json::Value::Bool(b) => b.to_string(),
                        other => other.to_string(),
                    };
                    html! { <Field label={k.clone()} value={value} {on_commit} id={format!("wl-{k}")} /> }
                })
                .collect::<Html>()
        })
        .unwrap_or_default();

    let clients_text = e.clients.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
    // What the last typed text was normalised to, for the clients it gave.
    let clients_note = use_state(|| None::<(Vec<u32>, String)>);
    let on_clients = {
        let d = d.clone();
        let note = clients_note.clone();
        Callback::from(move |s: String| match parse_clients(&s) {
            Ok(c) => {
                note.set(c.note.map(|n| (c.counts.clone(), n)));
                d.emit(ExpEdit::Clients(c.counts));
                None
            }
            Err(m) => Some(m),
        })
    };
    let clients_hint = match &*clients_note {
        Some((for_counts, n)) if *for_counts == e.clients => n.clone(),
        _ => format!("{} — separated by spaces", e.workload.clients_meaning()),
    };
    // A run over the event cap is the duration's and the client counts' fault: both are
    // marked, as a field whose text is refused is.
    let size_refusal = crate::model::form::run_size_refusal(e);
    let num = |label: &'static str, id: &'static str, value: u64, max: u64, edit: fn(u64) -> ExpEdit| {
        let d = d.clone();
        let on_commit = Callback::from(move |s: String| match parse_count(&s, max) {
            Ok(v) => {
                d.emit(edit(v));
                None
            }
            Err(m) => Some(m),
        });
        let refused =
            size_refusal.as_ref().filter(|(ids, _)| ids.contains(&id)).map(|(_, why)| why.clone()).unwrap_or_default();
        html! { <Field {label} value={value.to_string()} {on_commit} id={id} {refused} /> }
    };
    let duration = e.duration_ms;
    let on_warmup = {
        let d = d.clone();
        Callback::from(move |s: String| match s.trim().parse::<u64>() {
            Ok(v) if v < duration => {
                d.emit(ExpEdit::WarmupMs(v));
                None
            }
            Ok(_) => Some(format!("must be shorter than the duration ({duration} ms)")),
            Err(_) => Some("a whole number".to_string()),
        })
    };
    let on_seed = {
        let d = d.clone();
        Callback::from(move |s: String| match s.trim().parse::<u64>() {
            Ok(v) => {
                d.emit(ExpEdit::Seed(v));
                None
            }
            Err(_) => Some(format!("a whole number from 0 to {}", u64::MAX)),
        })
    };
    let on_random = {
        let d = d.clone();
        Callback::from(move |_| {
            let s = crate::web::dom::random_seed();
            d.emit(ExpEdit::Seed(s));
        })
    };
    let on_name = {
        let d = d.clone();
        Callback::from(move |s: String| {
            if s.chars().count() > 80 {
                return Some("at most 80 characters".to_string());
            }
            d.emit(ExpEdit::Name(s));
            None
        })
    };
    let on_threshold = {
        let d = d.clone();
        Callback::from(move |s: String| match crate::model::wasted::parse_threshold_us(&s) {
            Ok(ns) => {
                d.emit(ExpEdit::WastedCoreThresholdNs(ns));
                None
            }
            Err(m) => Some(m),
        })
    };
    // A whole number from 0 to `max` (the cgroup fields, where 0 means none).
    let whole = |max: u32, edit: fn(u32) -> ExpEdit| {
        let d = d.clone();
        Callback::from(move |s: String| match crate::model::form::parse_whole(&s, 0, max as u64) {
            Ok(v) => {
                d.emit(edit(v as u32));
                None
            }
            Err(m) => Some(m),
        })
    };
    let on_cgroups = whole(schedsim::experiment::CGROUP_DEPTH_MAX, ExpEdit::CgroupDepth);
    let on_other_cgroups = whole(schedsim::experiment::OTHER_CGROUPS_MAX, ExpEdit::OtherCgroups);
    let shared_runq = e.kernels.iter().any(|k| k.resolve().on(schedsim::Switch::SharedRunq));
    let metric = e.workload.metric();
    html! {
        <div class="workload">
            <div class="row">
                <label class="field">
                    <span class="field-label">{ "benchmark" }</span>
                    <select id="workload-kind" onchange={on_kind}>
                        { for WORKLOAD_NAMES.iter().map(|n| html! { <option value={*n} selected={*n == e.workload.name()}>{ *n }</option> }) }
                        // A replay comes from a trace (Replay a trace, below), and an rt-app
                        // workload from its file (below), not from this list.
                        if !WORKLOAD_NAMES.contains(&e.workload.name()) {
                            <option value={e.workload.name()} selected=true disabled=true>{ e.workload.name() }</option>
                        }
                    </select>
                </label>
                <p class="metric-note">{ format!("reports {} in {}, {}; clients are {}", metric.name, metric.unit,
                    if metric.higher_is_better { "higher is better" } else { "lower is better" }, e.workload.clients_meaning()) }</p>
            </div>
            <div class="row params">{ params }</div>
            <crate::web::components::rtapp::RtappControl exp={e.clone()} on_workload={p.on_workload.clone()} />
            <div class="row">
                <Field label="client counts" value={clients_text} on_commit={on_clients} id="clients" wide=true
                    hint={clients_hint} refused={size_refusal.as_ref().map(|(_, why)| why.clone()).unwrap_or_default()} />
                { num("iterations", "iterations", e.iterations as u64, ITERATIONS_MAX as u64, |v| ExpEdit::Iterations(v as u32)) }
                { num("duration_ms", "duration", e.duration_ms, DURATION_MS_MAX, ExpEdit::DurationMs) }
                <Field label="warmup_ms" value={e.warmup_ms.to_string()} on_commit={on_warmup} id="warmup" />
                <Field label="seed" value={e.seed.to_string()} on_commit={on_seed} id="seed" />
                <button type="button" class="tool" onclick={on_random} title="A new seed from the browser's random source">{ "random seed" }</button>
                if shared_runq {
                    { num("shard_size", "shard", e.shard_size as u64, 1024, |v| ExpEdit::ShardSize(v as u32)) }
                }
            </div>
            <div class="row">
                <Field label="wasted-core threshold (µs)" value={(e.wasted_core_threshold_ns / 1_000).to_string()} on_commit={on_threshold} id="wasted-threshold"
                    hint="alarm when a CPU idles this long while a task it could run waits; 0 = off" />
                <Field label="cgroup levels" value={e.cgroup_depth.to_string()} on_commit={on_cgroups} id="cgroup-depth"
                    hint="task-group levels the benchmark runs in (0: root group); update_blocked_averages() walks one cfs_rq per level" />
                <Field label="other cgroups" value={e.other_cgroups.to_string()} on_commit={on_other_cgroups} id="other-cgroups"
                    hint="other task groups (services) with blocked load on every CPU; each one more cfs_rq for update_blocked_averages() to walk" />
                <Field label="experiment name" value={e.name.clone()} on_commit={on_name} id="exp-name" wide=true />
            </div>
        </div>
    }
}
