//! Recording a window of a run for Perfetto: what ran on each CPU, idle periods with
//! their C-state, wakeups (waker, wakee, the decision path) with a flow arrow to where
//! the wakee ran, and migrations. Exported as Chrome trace-event JSON, which
//! ui.perfetto.dev opens directly: it shows per-CPU tracks, slices, instant events
//! with arguments and flows, needs no schema compiler, and round-trips through any
//! JSON parser, so tests can validate it. (Perfetto's protobuf format would add
//! scheduler-specific tracks, but needs the proto definitions and a protobuf encoder.)

use super::{Sim, Time};
use crate::trace::WakeupTrace;
use serde_json::{json, Value};

/// Most trace events kept; later ones are counted as dropped.
pub const RECORD_EVENTS_MAX: usize = 2_000_000;

pub(crate) enum Rec {
    Run { cpu: u32, task: u32, start: Time, end: Time, flow: Option<u64> },
    Idle { cpu: u32, state: u8, start: Time, end: Time },
    Migrate { time: Time, task: u32, from: u32, to: u32, by: &'static str },
}

pub(crate) struct Recorder {
    pub from: Time,
    pub to: Time,
    pub recs: Vec<Rec>,
    pub dropped: u64,
    open_run: Vec<Option<(Time, u32)>>,
    open_idle: Vec<Option<(Time, u8)>>,
    /// Per task: the flow id of a wakeup whose run has not started yet.
    pending_flow: Vec<Option<u64>>,
}

impl Recorder {
    pub(crate) fn new(from: Time, to: Time, cpus: usize, tasks: usize) -> Recorder {
        Recorder {
            from,
            to,
            recs: Vec::new(),
            dropped: 0,
            open_run: vec![None; cpus],
            open_idle: vec![None; cpus],
            pending_flow: vec![None; tasks],
        }
    }

    fn push(&mut self, r: Rec) {
        if self.recs.len() < RECORD_EVENTS_MAX {
            self.recs.push(r);
        } else {
            self.dropped += 1;
        }
    }

    fn active(&self, now: Time) -> bool {
        now >= self.from && now <= self.to
    }
}

impl Sim {
    #[inline]
    pub(crate) fn rec_run_begin(&mut self, c: u32, t: u32) {
        if let Some(r) = &mut self.rec {
            r.open_run[c as usize] = Some((self.now, t));
        }
    }

    #[inline]
    pub(crate) fn rec_run_end(&mut self, c: u32, t: u32) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            if let Some((start, task)) = r.open_run[c as usize].take() {
                if task == t && now >= r.from && start <= r.to {
                    let flow = r.pending_flow[t as usize].take();
                    r.push(Rec::Run { cpu: c, task: t, start: start.max(r.from), end: now.min(r.to), flow });
                }
            }
        }
    }

    #[inline]
    pub(crate) fn rec_idle_begin(&mut self, c: u32, state: u8) {
        if let Some(r) = &mut self.rec {
            r.open_idle[c as usize] = Some((self.now, state));
        }
    }

    #[inline]
    pub(crate) fn rec_idle_end(&mut self, c: u32) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            if let Some((start, state)) = r.open_idle[c as usize].take() {
                if now >= r.from && start <= r.to {
                    r.push(Rec::Idle { cpu: c, state, start: start.max(r.from), end: now.min(r.to) });
                }
            }
        }
    }

    #[inline]
    pub(crate) fn rec_migrate(&mut self, t: u32, from: u32, to: u32, by: &'static str) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            if r.active(now) {
                r.push(Rec::Migrate { time: now, task: t, from, to, by });
            }
        }
    }

    /// Whether wakeups should be traced for the recorder now.
    #[inline]
    pub(crate) fn rec_wants_trace(&self) -> bool {
        self.rec.as_ref().is_some_and(|r| r.active(self.now)) && self.traces.len() < RECORD_EVENTS_MAX / 4
    }

    /// Remembers that the wakeup traced as `index` leads to the wakee's next run.
    pub(crate) fn rec_wakeup(&mut self, wakee: u32, index: u64) {
        if let Some(r) = &mut self.rec {
            r.pending_flow[wakee as usize] = Some(index);
        }
    }

    /// Closes open slices at the end of the window and renders Chrome trace JSON.
    pub(crate) fn perfetto_json(&mut self, traces: &[WakeupTrace]) -> (String, usize) {
        let now = self.now;
        let Some(mut r) = self.rec.take() else { return ("{}".into(), 0) };
        for c in 0..self.cpus.len() {
            if let Some((start, task)) = r.open_run[c].take() {
                if start <= r.to {
                    let flow = r.pending_flow[task as usize].take();
                    r.push(Rec::Run { cpu: c as u32, task, start: start.max(r.from), end: now.min(r.to), flow });
                }
            }
            if let Some((start, state)) = r.open_idle[c].take() {
                if start <= r.to {
                    r.push(Rec::Idle { cpu: c as u32, state, start: start.max(r.from), end: now.min(r.to) });
                }
            }
        }
        let us = |t: Time| t as f64 / 1000.0;
        let mut ev: Vec<Value> = Vec::new();
        ev.push(json!({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "CPUs"}}));
        for (c, p) in self.map.places.iter().enumerate() {
            ev.push(json!({"ph": "M", "pid": 1, "tid": c, "name": "thread_name",
                "args": {"name": format!("CPU {c} (node {}, LLC {}, core {}, thread {})", p.node, p.llc, p.core, p.thread)}}));
            ev.push(json!({"ph": "M", "pid": 1, "tid": c, "name": "thread_sort_index", "args": {"sort_index": c}}));
        }
        for rec in &r.recs {
            match *rec {
                Rec::Run { cpu, task, start, end, flow } => {
                    let name = &self.tasks[task as usize].name;
                    ev.push(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(start), "dur": us(end - start),
                        "name": name, "cat": "task", "args": {"task": task}}));
                    if let Some(id) = flow {
                        ev.push(json!({"ph": "f", "bp": "e", "pid": 1, "tid": cpu, "ts": us(start),
                            "id": id, "name": "wakeup", "cat": "wakeup"}));
                    }
                }
                Rec::Idle { cpu, state, start, end } => {
                    let name = format!("idle {}", self.cost.cstates[state as usize].name);
                    ev.push(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(start), "dur": us(end - start),
                        "name": name, "cat": "idle"}));
                }
                Rec::Migrate { time, task, from, to, by } => {
                    let d = self.map.distance(from, to);
                    ev.push(json!({"ph": "i", "s": "t", "pid": 1, "tid": to, "ts": us(time),
                        "name": format!("migrate {}", self.tasks[task as usize].name), "cat": "migration",
                        "args": {"task": task, "from_cpu": from, "to_cpu": to, "distance": d, "by": by}}));
                }
            }
        }
        for t in traces {
            let o = t.outcome.as_ref();
            let steps: Vec<String> = t
                .steps
                .iter()
                .map(|s| {
                    let read = if s.read.is_empty() { String::new() } else { format!(" [{}]", s.read.join(", ")) };
                    format!("{} -> {}{} — {}", s.function, s.result, read, s.why)
                })
                .collect();
            ev.push(json!({"ph": "i", "s": "t", "pid": 1, "tid": t.waker_cpu, "ts": us(t.time_ns),
                "name": format!("wakeup {}", t.wakee), "cat": "wakeup",
                "args": {"wakee": t.wakee, "waker": t.waker, "waker_cpu": t.waker_cpu, "prev_cpu": t.prev_cpu,
                    "sync": t.sync, "chosen_cpu": o.map(|o| o.chosen_cpu), "migration": o.map(|o| o.migration),
                    "queued": o.map(|o| o.queued), "ipi": o.map(|o| o.ipi), "idle_exit": o.and_then(|o| o.idle_exit.clone()),
                    "cost_ns": o.map(|o| o.cost_ns), "probed": t.probed, "path": steps}}));
            ev.push(json!({"ph": "s", "pid": 1, "tid": t.waker_cpu, "ts": us(t.time_ns), "id": t.index,
                "name": "wakeup", "cat": "wakeup"}));
        }
        let n = ev.len();
        let doc = json!({
            "displayTimeUnit": "ns",
            "otherData": {"generator": format!("schedsim {}", env!("CARGO_PKG_VERSION")), "dropped_events": r.dropped,
                "window_ns": [r.from, r.to]},
            "traceEvents": ev,
        });
        (serde_json::to_string(&doc).unwrap_or_default(), n)
    }
}
