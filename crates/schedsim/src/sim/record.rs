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

/// Most trace events a recording holds (about 100 MB of JSON). When a window would
/// hold more, the recording is clipped: it ends at the moment the bound is reached and
/// [`Recorder::clipped_at`] says when.
pub const RECORD_EVENTS_MAX: usize = 500_000;

#[derive(Clone)]
pub(crate) enum Rec {
    Run { cpu: u32, task: u32, start: Time, end: Time, flow: Option<u64> },
    Idle { cpu: u32, state: u8, start: Time, end: Time },
    Migrate { time: Time, task: u32, from: u32, to: u32, by: &'static str },
}

#[derive(Clone)]
pub(crate) struct Recorder {
    pub from: Time,
    pub to: Time,
    pub recs: Vec<Rec>,
    /// Trace events the recording will render so far (wakeups count two: the instant
    /// and the flow start).
    pub events: usize,
    /// Where the window was cut short because it reached [`RECORD_EVENTS_MAX`].
    pub clipped_at: Option<Time>,
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
            events: 0,
            clipped_at: None,
            open_run: vec![None; cpus],
            open_idle: vec![None; cpus],
            pending_flow: vec![None; tasks],
        }
    }

    /// Counts `n` more events at `now`; past the bound the window ends here.
    fn count(&mut self, n: usize, now: Time) {
        self.events += n;
        if self.events >= RECORD_EVENTS_MAX && self.clipped_at.is_none() {
            self.clipped_at = Some(now);
            self.to = self.to.min(now);
        }
    }

    fn push(&mut self, r: Rec) {
        let n = match r {
            Rec::Run { flow: Some(_), .. } => 2,
            _ => 1,
        };
        self.events += n;
        self.recs.push(r);
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
                    r.count(0, now);
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
                    r.count(0, now);
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
                r.count(0, now);
            }
        }
    }

    /// Whether wakeups should be traced for the recorder now.
    #[inline]
    pub(crate) fn rec_wants_trace(&self) -> bool {
        self.rec.as_ref().is_some_and(|r| r.active(self.now) && r.clipped_at.is_none())
    }

    /// Remembers that the wakeup traced as `index` leads to the wakee's next run.
    pub(crate) fn rec_wakeup(&mut self, wakee: u32, index: u64) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            r.pending_flow[wakee as usize] = Some(index);
            r.count(2, now);
        }
    }

    /// The recording has passed its window's end (or was clipped): the run can stop.
    #[inline]
    pub(crate) fn rec_done(&self) -> bool {
        self.rec.as_ref().is_some_and(|r| self.now > r.to)
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
        // Each event is written as it is made, so memory holds the text, not a tree.
        let mut out = String::with_capacity(64 * (r.recs.len() + 2 * traces.len()) + 256);
        let mut n = 0usize;
        let mut emit = |v: Value| {
            out.push_str(if n == 0 { "" } else { "," });
            out.push_str(&v.to_string());
            n += 1;
        };
        emit(json!({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "CPUs"}}));
        for (c, p) in self.map.places.iter().enumerate() {
            emit(json!({"ph": "M", "pid": 1, "tid": c, "name": "thread_name",
                "args": {"name": format!("CPU {c} (node {}, LLC {}, core {}, thread {})", p.node, p.llc, p.core, p.thread)}}));
            emit(json!({"ph": "M", "pid": 1, "tid": c, "name": "thread_sort_index", "args": {"sort_index": c}}));
        }
        for rec in &r.recs {
            match *rec {
                Rec::Run { cpu, task, start, end, flow } => {
                    let name = &self.tasks[task as usize].name;
                    emit(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(start), "dur": us(end - start),
                        "name": name, "cat": "task", "args": {"task": task}}));
                    if let Some(id) = flow {
                        emit(json!({"ph": "f", "bp": "e", "pid": 1, "tid": cpu, "ts": us(start),
                            "id": id, "name": "wakeup", "cat": "wakeup"}));
                    }
                }
                Rec::Idle { cpu, state, start, end } => {
                    let name = format!("idle {}", self.cost.cstates[state as usize].name);
                    emit(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(start), "dur": us(end - start),
                        "name": name, "cat": "idle"}));
                }
                Rec::Migrate { time, task, from, to, by } => {
                    let d = self.map.distance(from, to);
                    emit(json!({"ph": "i", "s": "t", "pid": 1, "tid": to, "ts": us(time),
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
            emit(json!({"ph": "i", "s": "t", "pid": 1, "tid": t.waker_cpu, "ts": us(t.time_ns),
                "name": format!("wakeup {}", t.wakee), "cat": "wakeup",
                "args": {"wakee": t.wakee, "waker": t.waker, "waker_cpu": t.waker_cpu, "prev_cpu": t.prev_cpu,
                    "sync": t.sync, "chosen_cpu": o.map(|o| o.chosen_cpu), "migration": o.map(|o| o.migration),
                    "queued": o.map(|o| o.queued), "ipi": o.map(|o| o.ipi), "idle_exit": o.and_then(|o| o.idle_exit.clone()),
                    "cost_ns": o.map(|o| o.cost_ns), "probed": t.probed, "path": steps}}));
            emit(json!({"ph": "s", "pid": 1, "tid": t.waker_cpu, "ts": us(t.time_ns), "id": t.index,
                "name": "wakeup", "cat": "wakeup"}));
        }
        let head = json!({"generator": format!("schedsim {}", env!("CARGO_PKG_VERSION")),
            "window_ns": [r.from, r.to], "clipped_at_ns": r.clipped_at, "events_max": RECORD_EVENTS_MAX});
        let doc = format!("{{\"displayTimeUnit\":\"ns\",\"otherData\":{head},\"traceEvents\":[{out}]}}");
        (doc, n)
    }
}
