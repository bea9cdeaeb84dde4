//! Recording a window of a run for Perfetto: what ran on each CPU, idle periods with
//! their C-state, wakeups (waker, wakee, the decision path) with a flow arrow to where
//! the wakee ran, and migrations. Exported as Chrome trace-event JSON, which
//! ui.perfetto.dev opens directly: it shows per-CPU tracks, slices, instant events
//! with arguments and flows, needs no schema compiler, and round-trips through any
//! JSON parser, so tests can validate it. (Perfetto's protobuf format would add
//! scheduler-specific tracks, but needs the proto definitions and a protobuf encoder.)

use super::{Phase, Sim, Time};
use crate::trace::WakeupTrace;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Most trace events a recording holds (about 100 MB of JSON). When a window would
/// hold more, the recording is clipped: it ends at the moment the bound is reached and
/// [`Recorder::clipped_at`] says when.
pub const RECORD_EVENTS_MAX: usize = 500_000;

/// Most wasted-core spans a recording keeps (they are not trace events: Perfetto's
/// export leaves them out).
pub const WASTED_SPANS_MAX: usize = 10_000;

#[derive(Clone)]
pub(crate) enum Rec {
    Run { cpu: u32, task: u32, start: Time, end: Time, flow: Option<u64> },
    Idle { cpu: u32, state: u8, start: Time, end: Time },
    Migrate { time: Time, task: u32, from: u32, to: u32, by: &'static str },
}

/// A task's stay on a CPU: from `finish_task_switch()` to the switch away.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSlice {
    pub cpu: u32,
    /// Index into [`Recording::tasks`].
    pub task: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Still running when the recording was taken (it ends there for now).
    pub open: bool,
}

/// An idle period, from idle entry to the end of the exit from its C-state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleSlice {
    pub cpu: u32,
    /// Index into [`Recording::cstates`].
    pub cstate: u8,
    pub start_ns: u64,
    pub end_ns: u64,
    pub open: bool,
}

/// A task moved to another CPU (`wakeup` or `balance`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigrationMark {
    pub time_ns: u64,
    pub task: u32,
    pub from_cpu: u32,
    pub to_cpu: u32,
    pub by: String,
}

/// Consecutive wasted-core samples (see `sim/wasted.rs`) with the same idle CPU: the
/// invariant was broken at every sample from `from_ns` to `to_ns` (equal for one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WastedSpan {
    pub from_ns: u64,
    pub to_ns: u64,
    pub idle_cpu: u32,
    pub busy_cpu: u32,
    pub waiting_task: String,
    /// Still going on when the recording was taken.
    pub open: bool,
}

/// A window of one run as data, for a timeline: what ran on each CPU, idle periods
/// with their C-state, migrations, wasted-core spans and (from
/// `Experiment::record`) every wakeup's decision trace. Slices of one CPU do not
/// overlap; the time between them is the scheduler's own (context switches).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recording {
    pub from_ns: u64,
    /// The end of the window (or the simulated time now, for `Live::take_recording`).
    pub to_ns: u64,
    /// Where the recording was cut short at [`RECORD_EVENTS_MAX`] events.
    pub clipped_at_ns: Option<u64>,
    pub nr_cpus: u32,
    /// C-state names, shallowest first.
    pub cstates: Vec<String>,
    /// Task names by task number (empty from `Live::take_recording`: see `Live::task_names`).
    pub tasks: Vec<String>,
    pub runs: Vec<RunSlice>,
    pub idles: Vec<IdleSlice>,
    pub migrations: Vec<MigrationMark>,
    pub wasted: Vec<WastedSpan>,
    /// The wakeups in the window, in order (empty from `Live::take_recording`: `Live::step`
    /// gives them).
    pub wakeups: Vec<WakeupTrace>,
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
    /// Wasted-core spans, closed and open (start, last sample, idle CPU, busy CPU, task).
    wasted: Vec<WastedSpan>,
    open_wasted: Option<WastedSpan>,
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
            wasted: Vec::new(),
            open_wasted: None,
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
    #[inline(always)]
    pub(crate) fn rec_run_begin(&mut self, c: u32, t: u32) {
        if self.rec.is_some() {
            self.rec_run_begin_on(c, t);
        }
    }

    #[cold]
    fn rec_run_begin_on(&mut self, c: u32, t: u32) {
        if let Some(r) = &mut self.rec {
            r.open_run[c as usize] = Some((self.now, t));
        }
    }

    #[inline(always)]
    pub(crate) fn rec_run_end(&mut self, c: u32, t: u32) {
        if self.rec.is_some() {
            self.rec_run_end_on(c, t);
        }
    }

    #[cold]
    fn rec_run_end_on(&mut self, c: u32, t: u32) {
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

    #[inline(always)]
    pub(crate) fn rec_idle_begin(&mut self, c: u32, state: u8) {
        if self.rec.is_some() {
            self.rec_idle_begin_on(c, state);
        }
    }

    #[cold]
    fn rec_idle_begin_on(&mut self, c: u32, state: u8) {
        if let Some(r) = &mut self.rec {
            r.open_idle[c as usize] = Some((self.now, state));
        }
    }

    #[inline(always)]
    pub(crate) fn rec_idle_end(&mut self, c: u32) {
        if self.rec.is_some() {
            self.rec_idle_end_on(c);
        }
    }

    #[cold]
    fn rec_idle_end_on(&mut self, c: u32) {
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

    #[inline(always)]
    pub(crate) fn rec_migrate(&mut self, t: u32, from: u32, to: u32, by: &'static str) {
        if self.rec.is_some() {
            self.rec_migrate_on(t, from, to, by);
        }
    }

    #[cold]
    fn rec_migrate_on(&mut self, t: u32, from: u32, to: u32, by: &'static str) {
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

    /// A wasted-core sample: extends the open span while the same CPU stays wasted.
    pub(crate) fn rec_wasted(&mut self, found: Option<&super::wasted::WastedMoment>) {
        let now = self.now;
        let Some(r) = &mut self.rec else { return };
        if !r.active(now) {
            return;
        }
        match (found, &mut r.open_wasted) {
            (Some(m), Some(w)) if w.idle_cpu == m.idle_cpu => w.to_ns = now,
            (found, open) => {
                if let Some(w) = open.take() {
                    if r.wasted.len() < WASTED_SPANS_MAX {
                        r.wasted.push(w);
                    }
                }
                r.open_wasted = found.map(|m| WastedSpan {
                    from_ns: now,
                    to_ns: now,
                    idle_cpu: m.idle_cpu,
                    busy_cpu: m.busy_cpu,
                    waiting_task: m.waiting_task.clone(),
                    open: false,
                });
            }
        }
    }

    /// Starts recording from now to `to`, with the slices of what each CPU is doing
    /// now opened at this moment (for a recording that starts mid-run).
    pub(crate) fn rec_start_now(&mut self, to: Time) {
        let mut r = Recorder::new(self.now, to, self.cpus.len(), self.tasks.len());
        for (c, cpu) in self.cpus.iter().enumerate() {
            if let Some(t) = cpu.curr {
                r.open_run[c] = Some((self.now, t));
            } else if matches!(cpu.phase, Phase::Idle | Phase::Waking) {
                r.open_idle[c] = Some((self.now, cpu.cstate));
            }
        }
        self.rec = Some(r);
    }

    /// The slices finished since the last call and those still open (up to now, marked
    /// `open`, and given again next time), without wakeup traces or task names. The
    /// event count restarts, so a long live run is never clipped.
    pub(crate) fn rec_take(&mut self) -> Recording {
        let now = self.now;
        let nr_cpus = self.cpus.len() as u32;
        let cstates = self.cost.cstates.iter().map(|c| c.name.clone()).collect();
        let Some(r) = &mut self.rec else {
            return Recording { from_ns: now, to_ns: now, nr_cpus, cstates, ..Default::default() };
        };
        let mut out = Recording { from_ns: r.from, to_ns: now, nr_cpus, cstates, ..Default::default() };
        render_recs(std::mem::take(&mut r.recs), &mut out);
        for c in 0..r.open_run.len() {
            if let Some((start, task)) = r.open_run[c] {
                out.runs.push(RunSlice { cpu: c as u32, task, start_ns: start.max(r.from), end_ns: now, open: true });
            }
            if let Some((start, state)) = r.open_idle[c] {
                out.idles.push(IdleSlice {
                    cpu: c as u32,
                    cstate: state,
                    start_ns: start.max(r.from),
                    end_ns: now,
                    open: true,
                });
            }
        }
        out.wasted = std::mem::take(&mut r.wasted);
        out.wasted.extend(r.open_wasted.iter().map(|w| WastedSpan { open: true, ..w.clone() }));
        r.events = 0;
        out
    }

    /// Closes the open slices at the window's end and gives the whole window as data,
    /// with the wakeups' traces.
    pub(crate) fn rec_finish(&mut self, traces: Vec<WakeupTrace>) -> Recording {
        let now = self.now;
        let nr_cpus = self.cpus.len() as u32;
        let cstates = self.cost.cstates.iter().map(|c| c.name.clone()).collect();
        let tasks = self.tasks.iter().map(|t| t.name.clone()).collect();
        let Some(mut r) = self.rec.take() else {
            return Recording { nr_cpus, cstates, tasks, wakeups: traces, ..Default::default() };
        };
        close_open(&mut r, now);
        let mut out = Recording {
            from_ns: r.from,
            to_ns: r.to.min(now.max(r.from)),
            clipped_at_ns: r.clipped_at,
            nr_cpus,
            cstates,
            tasks,
            wakeups: traces,
            ..Default::default()
        };
        render_recs(std::mem::take(&mut r.recs), &mut out);
        out.wasted = std::mem::take(&mut r.wasted);
        out.wasted.extend(r.open_wasted.take());
        out
    }

    /// Closes open slices at the end of the window and renders Chrome trace JSON.
    pub(crate) fn perfetto_json(&mut self, traces: &[WakeupTrace]) -> (String, usize) {
        let now = self.now;
        let Some(mut r) = self.rec.take() else { return ("{}".into(), 0) };
        close_open(&mut r, now);
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

/// Closes the slices still open at `now`, the end of the recording.
fn close_open(r: &mut Recorder, now: Time) {
    for c in 0..r.open_run.len() {
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
}

/// The recorded slices and marks as public data.
fn render_recs(recs: Vec<Rec>, out: &mut Recording) {
    for rec in recs {
        match rec {
            Rec::Run { cpu, task, start, end, .. } => {
                out.runs.push(RunSlice { cpu, task, start_ns: start, end_ns: end, open: false })
            }
            Rec::Idle { cpu, state, start, end } => {
                out.idles.push(IdleSlice { cpu, cstate: state, start_ns: start, end_ns: end, open: false })
            }
            Rec::Migrate { time, task, from, to, by } => {
                out.migrations.push(MigrationMark { time_ns: time, task, from_cpu: from, to_cpu: to, by: by.into() })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::Live;

    /// Per CPU, run and idle slices lie in the window and do not overlap; every wakeup
    /// of the window is there with its trace.
    #[test]
    fn a_recording_tiles_each_cpu_without_overlap() {
        for name in ["demo", "seed001", "seed003-pipe"] {
            let e = crate::presets::experiment(name).unwrap();
            let from = e.warmup_ms * 1_000_000;
            let to = from + 2_000_000;
            let r = e.record(0, e.clients[0], 0, from, to).unwrap();
            assert_eq!((r.from_ns, r.to_ns), (from, to), "{name}");
            assert!(!r.runs.is_empty() && !r.idles.is_empty() && !r.wakeups.is_empty(), "{name}");
            for c in 0..r.nr_cpus {
                let mut s: Vec<(u64, u64)> =
                    r.runs.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)).collect();
                s.extend(r.idles.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)));
                s.sort();
                for w in s.windows(2) {
                    assert!(w[0].1 <= w[1].0, "{name} CPU {c}: {:?} overlaps {:?}", w[0], w[1]);
                }
                for &(a, b) in &s {
                    assert!(from <= a && a <= b && b <= to, "{name} CPU {c}: ({a}, {b})");
                }
            }
            assert!(r.wakeups.iter().all(|w| (from..=to).contains(&w.time_ns)), "{name}");
            assert!(r.wakeups.windows(2).all(|w| w[0].index < w[1].index), "{name}: indices increase");
            assert!(r.runs.iter().all(|x| !x.open) && r.idles.iter().all(|x| !x.open));
        }
    }

    /// The wakeups recorded are the ones `Experiment::trace` gives, trace for trace.
    #[test]
    fn recorded_traces_are_the_trace_commands() {
        let e = crate::presets::experiment("demo").unwrap();
        let from = e.warmup_ms * 1_000_000;
        let r = e.record(1, 2, 0, from, from + 1_000_000).unwrap();
        let first = &r.wakeups[3];
        let t = e.trace(1, 2, 0, crate::trace::TraceWindow { from: first.index, count: 1 }).unwrap();
        assert_eq!(t[0].render(), first.render());
    }

    /// Wakeups inside the warm-up have their own indices too (counted from the start
    /// of the run): a recording of the warm-up numbers them apart, so its Perfetto
    /// flow ids never collide, and `Experiment::trace` reaches each one by its index.
    #[test]
    fn warm_up_wakeups_have_unique_indices() {
        let e = crate::presets::experiment("demo").unwrap();
        assert!(e.warmup_ms >= 2);
        let r = e.record(1, 2, 0, 0, 1_000_000).unwrap();
        assert!(r.wakeups.len() > 3, "{}", r.wakeups.len());
        assert!(r.wakeups.windows(2).all(|w| w[0].index < w[1].index), "indices increase inside the warm-up");
        let w = &r.wakeups[3];
        let t = e.trace(1, 2, 0, crate::trace::TraceWindow { from: w.index, count: 1 }).unwrap();
        assert_eq!(t[0].render(), w.render());
    }

    /// Recording a live run changes nothing in it, and the pieces taken add up to
    /// non-overlapping slices per CPU; wasted-core spans appear where the alarm rings.
    #[test]
    fn live_recording_is_neutral_and_consistent() {
        let mut e = crate::presets::experiment("demo").unwrap();
        e.wasted_core_threshold_ns = 100_000;
        let mut plain = Live::new(&e, 0, 2).unwrap();
        let mut rec = Live::new(&e, 0, 2).unwrap();
        rec.record();
        let mut runs: Vec<RunSlice> = Vec::new();
        let mut idles: Vec<IdleSlice> = Vec::new();
        let mut wasted = 0;
        for i in 0..3000 {
            assert_eq!(plain.step(), rec.step());
            if i % 97 == 0 {
                let r = rec.take_recording();
                assert_eq!(r.to_ns, rec.now_ns());
                runs.retain(|x| !x.open);
                idles.retain(|x| !x.open);
                runs.extend(r.runs);
                idles.extend(r.idles);
                wasted += r.wasted.len();
            }
        }
        assert_eq!(plain.cpus(), rec.cpus());
        assert!(runs.len() > 100);
        for c in 0..8 {
            let mut s: Vec<(u64, u64)> = runs.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)).collect();
            s.extend(idles.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)));
            s.sort();
            assert!(s.windows(2).all(|w| w[0].1 <= w[1].0), "CPU {c}");
        }
        eprintln!("{wasted} wasted spans");
        let names = rec.task_names();
        assert!(rec.tasks().iter().all(|t| names.contains(&t.name)));
        assert!(runs.iter().all(|x| (x.task as usize) < names.len()));
    }
}
