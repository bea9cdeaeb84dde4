//! The Perfetto export of a recorded window: what ran on each CPU, idle periods with
//! their C-state, wakeups (waker, wakee, the decision path) with a flow arrow to where
//! the wakee ran, and migrations. Exported as Chrome trace-event JSON, which
//! ui.perfetto.dev opens directly: it shows per-CPU tracks, slices, instant events
//! with arguments and flows, needs no schema compiler, and round-trips through any
//! JSON parser, so tests can validate it. (Perfetto's protobuf format would add
//! scheduler-specific tracks, but needs the proto definitions and a protobuf encoder.)
//!
//! The text is streamed: the header (whose `otherData` is known once the window is
//! recorded) goes first, then each event as it is made, straight to the caller's
//! writer. A window of [`RECORD_EVENTS_MAX`] events is about 100 MB of JSON; held whole,
//! and then copied into the document around it, it cost twice that on top of the
//! recording. The library opens nothing: it writes to what the caller hands it.

use crate::driver::record::close_open;
use crate::facts::recording::RECORD_EVENTS_MAX;
use crate::facts::trace::WakeupTrace;
use crate::state::recorder::Rec;
use crate::state::{Sim, Time};
use serde_json::{json, Value};
use std::io::{self, Write};

/// Writes events one by one, comma-separated, counting them.
struct Events<'w> {
    w: &'w mut dyn Write,
    n: usize,
}

impl Events<'_> {
    fn emit(&mut self, v: Value) -> io::Result<()> {
        if self.n > 0 {
            self.w.write_all(b",")?;
        }
        // `Value`'s `Display` is the compact form `to_string` gives.
        write!(self.w, "{v}")?;
        self.n += 1;
        Ok(())
    }
}

impl Sim {
    /// Closes open slices at the end of the window and writes Chrome trace JSON to `w`;
    /// returns the number of events written. Only `w`'s errors are errors.
    pub(crate) fn write_perfetto_json(&mut self, traces: &[WakeupTrace], w: &mut dyn Write) -> io::Result<usize> {
        let now = self.now;
        let Some(mut r) = self.rec.take() else {
            w.write_all(b"{}")?;
            return Ok(0);
        };
        close_open(&mut r, now);
        let us = |t: Time| t as f64 / 1000.0;
        let head = json!({"generator": format!("schedsim {}", env!("CARGO_PKG_VERSION")),
            "window_ns": [r.from, r.to], "clipped_at_ns": r.clipped_at, "events_max": RECORD_EVENTS_MAX});
        write!(w, "{{\"displayTimeUnit\":\"ns\",\"otherData\":{head},\"traceEvents\":[")?;
        let mut ev = Events { w, n: 0 };
        ev.emit(json!({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "CPUs"}}))?;
        for (c, p) in self.map.places.iter().enumerate() {
            ev.emit(json!({"ph": "M", "pid": 1, "tid": c, "name": "thread_name",
                "args": {"name": format!("CPU {c} (node {}, LLC {}, core {}, thread {})", p.node, p.llc, p.core, p.thread)}}))?;
            ev.emit(json!({"ph": "M", "pid": 1, "tid": c, "name": "thread_sort_index", "args": {"sort_index": c}}))?;
        }
        for rec in &r.recs {
            match *rec {
                Rec::Run { cpu, task, start, end, flow } => {
                    let name = &self.tasks[task as usize].name;
                    ev.emit(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(start), "dur": us(end - start),
                        "name": name, "cat": "task", "args": {"task": task}}))?;
                    if let Some(id) = flow {
                        ev.emit(json!({"ph": "f", "bp": "e", "pid": 1, "tid": cpu, "ts": us(start),
                            "id": id, "name": "wakeup", "cat": "wakeup"}))?;
                    }
                }
                Rec::Idle { cpu, state, start, end } => {
                    let name = format!("idle {}", self.cost.cstates[state as usize].name);
                    ev.emit(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(start), "dur": us(end - start),
                        "name": name, "cat": "idle"}))?;
                }
                Rec::Migrate { time, task, from, to, by } => {
                    let d = self.map.distance(from, to);
                    ev.emit(json!({"ph": "i", "s": "t", "pid": 1, "tid": to, "ts": us(time),
                        "name": format!("migrate {}", self.tasks[task as usize].name), "cat": "migration",
                        "args": {"task": task, "from_cpu": from, "to_cpu": to, "distance": d, "by": by}}))?;
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
            ev.emit(json!({"ph": "i", "s": "t", "pid": 1, "tid": t.waker_cpu, "ts": us(t.time_ns),
                "name": format!("wakeup {}", t.wakee), "cat": "wakeup",
                "args": {"wakee": t.wakee, "waker": t.waker, "waker_cpu": t.waker_cpu, "prev_cpu": t.prev_cpu,
                    "sync": t.sync, "chosen_cpu": o.map(|o| o.chosen_cpu), "migration": o.map(|o| o.migration),
                    "queued": o.map(|o| o.queued), "ipi": o.map(|o| o.ipi), "idle_exit": o.and_then(|o| o.idle_exit.clone()),
                    "cost_ns": o.map(|o| o.cost_ns), "probed": t.probed, "path": steps}}))?;
            ev.emit(json!({"ph": "s", "pid": 1, "tid": t.waker_cpu, "ts": us(t.time_ns), "id": t.index,
                "name": "wakeup", "cat": "wakeup"}))?;
        }
        let n = ev.n;
        w.write_all(b"]}")?;
        Ok(n)
    }
}
