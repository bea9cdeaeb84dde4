//! Live mode: one kernel stepped a wakeup at a time, the other kernels of the experiment
//! advanced to the same simulated time, and time series of work and migrations for the
//! live charts.
//!
//! The session runs in a simulation worker (the script worker when a kernel has a policy
//! script), never on the page's main thread: the page sends it [`LiveOp`]s and draws the
//! [`LiveFrame`]s it answers with. A frame carries what the view shows ([`LiveShown`])
//! and the timeline's changes since the last frame as the very operations the session
//! made ([`TimelineOp`]), so the page's copy of the timeline ([`TimelineMirror`]) is the
//! session's own, operation for operation.

use crate::model::fmt::thousands;
use crate::model::timeline::{Timeline, LIVE_KEEP_NS, LIVE_TRACES_MAX};
use schedsim::live::{CpuView, Live, Step};
use schedsim::recording::Recording;
use schedsim::trace::WakeupTrace;
use schedsim::Experiment;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// Most points kept per series; older ones are thinned to every other point.
pub const SERIES_POINTS_MAX: usize = 600;
/// Recent wakeups listed beside the trace.
pub const RECENT_MAX: usize = 12;

/// Events one step of the session may run, all kernels together: the library's bound
/// for a live step (about 50 ms of one core), so the page's main thread is never held
/// much longer than that by one step.
pub use schedsim::live::LIVE_STEP_EVENTS_MAX;

/// What one bounded step of the session came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// The stepped kernel decided its next wakeup.
    Wakeup,
    /// The budget ran out first; [`LiveSession::stall`] says how long there has been none.
    NoWakeup,
    /// The run is over.
    Ended,
}

/// How long the stepped kernel has gone without a wakeup, over the bounded steps since
/// its last one (a machine where nothing sleeps may go the whole run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stall {
    pub events: u64,
    pub sim_ns: u64,
}

impl Stall {
    /// "No wakeup within 200,000 events (3.125 ms simulated)".
    pub fn describe(&self) -> String {
        format!("No wakeup within {} events ({:.3} ms simulated)", thousands(self.events), self.sim_ns as f64 / 1e6)
    }
}

/// One sample of one kernel's run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LivePoint {
    pub t_ns: u64,
    pub bytes: u64,
    pub ops: u64,
    pub wakeups: u64,
    pub migrations: u64,
}

/// Which kernel, clients and iteration a session runs: when this changes, reset.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveKey {
    pub experiment: Experiment,
    pub kernel: u32,
    pub clients: u32,
    /// Which iteration's random stream (the sweep's iteration i replays exactly).
    pub iteration: u32,
}

/// What the page asks of a session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LiveOp {
    /// The next wakeup, within [`LIVE_STEP_EVENTS_MAX`] events (Step, space).
    Step,
    /// One frame of playing: up to `due` wakeups (`u32::MAX`: as many as the frame's
    /// time allows; a JavaScript number carries a `u32` exactly, which is how ops cross
    /// to the worker), or, with `restore_to`, up to that many stepped in all (a link's
    /// count), within the frame's time budget.
    Frame { due: u32, restore_to: Option<u64> },
    /// One frame of a jump to `to_ns` of simulated time (a wasted-core moment).
    Jump { to_ns: u64 },
    /// Stop looking for the next wakeup (the no-wakeup notice's Stop).
    DismissStall,
}

/// Everything the live view shows of a session at one moment, but the timeline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveShown {
    pub steps: u64,
    pub now_ns: u64,
    pub ended: bool,
    /// Last wakeups of the stepped kernel, newest last.
    pub recent: Vec<WakeupTrace>,
    pub stall: Option<Stall>,
    pub counters: schedsim::metrics::Counters,
    pub cpus: Vec<CpuView>,
    pub wasted_now: Option<schedsim::WastedMoment>,
    pub wasted_moments: Vec<schedsim::WastedMoment>,
    /// One series per kernel of the experiment.
    pub series: Vec<Vec<LivePoint>>,
    /// The first kernel whose run failed (a policy script's error): "kernel B (name):
    /// the run's line". Its run is over; the others go on.
    pub error: Option<String>,
}

impl LiveShown {
    /// The stepped kernel's last wakeup.
    pub fn last(&self) -> Option<&WakeupTrace> {
        self.recent.last()
    }
}

/// One change the session made to its timeline, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TimelineOp {
    Trace(WakeupTrace),
    Extend(Recording),
    /// `Timeline::trim(from_ns, LIVE_TRACES_MAX)`.
    Trim(u64),
}

/// What a timeline starts from: `Timeline::new`'s arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineStart {
    pub nr_cpus: u32,
    pub from_ns: u64,
    pub cstates: Vec<String>,
    pub tasks: Vec<String>,
}

/// A session's answer to a [`LiveOp`] (or to its start): what to show, the timeline's
/// changes since the last frame, and whether the op is finished (a frame of playing
/// that reached the end of the run or a link's count, a jump that arrived).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveFrame {
    pub shown: LiveShown,
    /// Only in the first frame of a session.
    pub start: Option<TimelineStart>,
    pub timeline: Vec<TimelineOp>,
    pub done: bool,
}

/// The page's copy of a session's timeline, made by replaying its [`TimelineOp`]s.
#[derive(Clone, Debug, Default)]
pub struct TimelineMirror {
    pub timeline: Rc<RefCell<Timeline>>,
    /// Counts the frames that changed it, for the timeline view's redraw.
    pub version: u64,
}

impl TimelineMirror {
    /// Applies a frame: a new timeline at a session's first frame, then its changes.
    pub fn apply(&mut self, start: Option<&TimelineStart>, ops: Vec<TimelineOp>) {
        if let Some(s) = start {
            self.timeline =
                Rc::new(RefCell::new(Timeline::new(s.nr_cpus, s.from_ns, s.cstates.clone(), s.tasks.clone())));
        }
        if ops.is_empty() && start.is_none() {
            return;
        }
        let mut tl = self.timeline.borrow_mut();
        for op in ops {
            match op {
                TimelineOp::Trace(t) => tl.push_trace(t),
                TimelineOp::Extend(r) => tl.extend(r),
                TimelineOp::Trim(from_ns) => tl.trim(from_ns, LIVE_TRACES_MAX),
            }
        }
        self.version += 1;
    }
}

/// A running live session.
pub struct LiveSession {
    pub key: LiveKey,
    lives: Vec<Live>,
    /// Last wakeups of the stepped kernel, newest last.
    pub recent: VecDeque<WakeupTrace>,
    /// One series per kernel of the experiment.
    pub series: Vec<Vec<LivePoint>>,
    /// Wakeups stepped so far.
    pub steps: u64,
    sample_every_ns: u64,
    /// Set while the last bounded steps found no wakeup; cleared by one, or by
    /// [`LiveSession::dismiss_stall`].
    pub stall: Option<Stall>,
    /// The stepped kernel's timeline (its recent past per CPU, the last
    /// [`LIVE_KEEP_NS`]) is the page's: its changes since the last
    /// [`LiveSession::frame`], as operations for the page's [`TimelineMirror`].
    timeline_ops: Vec<TimelineOp>,
    /// What the page's timeline starts from, until the first frame has said it.
    start: Option<TimelineStart>,
}

impl LiveSession {
    /// Starts a session; `clients` of 0 means the experiment's first client count.
    pub fn new(key: LiveKey) -> Result<LiveSession, String> {
        let exp = &key.experiment;
        let clients = if key.clients == 0 { exp.clients.first().copied().unwrap_or(1) } else { key.clients };
        if key.kernel as usize >= exp.kernels.len() {
            return Err(format!("kernel {} does not exist; the experiment has {}", key.kernel, exp.kernels.len()));
        }
        if let Some(why) = crate::model::policy_editor::live_refusal(exp) {
            return Err(why);
        }
        let mut lives = Vec::new();
        for k in 0..exp.kernels.len() {
            lives.push(Live::with_iteration(exp, k, clients, key.iteration).map_err(|e| e.to_string())?);
        }
        let sample_every_ns = (exp.duration_ms * 1_000_000 / 400).max(1_000);
        let series = vec![vec![LivePoint::default()]; lives.len()];
        let stepped = &mut lives[key.kernel as usize];
        stepped.record();
        let first = stepped.take_recording();
        let start = TimelineStart {
            nr_cpus: first.nr_cpus,
            from_ns: first.from_ns,
            cstates: first.cstates.clone(),
            tasks: stepped.task_names(),
        };
        Ok(LiveSession {
            key,
            lives,
            recent: VecDeque::new(),
            series,
            steps: 0,
            sample_every_ns,
            stall: None,
            timeline_ops: vec![TimelineOp::Extend(first)],
            start: Some(start),
        })
    }

    fn timeline_op(&mut self, op: TimelineOp) {
        self.timeline_ops.push(op);
    }

    /// Brings the timeline up to the present and drops what is older than its horizon.
    pub fn sync_timeline(&mut self) {
        let k = self.kernel();
        let rec = self.lives[k].take_recording();
        self.timeline_op(TimelineOp::Extend(rec));
        let now = self.lives[k].now_ns();
        self.timeline_op(TimelineOp::Trim(now.saturating_sub(LIVE_KEEP_NS)));
    }

    /// What the view shows now.
    pub fn shown(&self) -> LiveShown {
        let k = self.kernel();
        LiveShown {
            steps: self.steps,
            now_ns: self.now_ns(),
            ended: self.ended(),
            recent: self.recent.iter().cloned().collect(),
            stall: self.stall,
            counters: self.counters(),
            cpus: self.cpus(),
            wasted_now: self.lives[k].wasted_now(),
            wasted_moments: self.wasted_moments(),
            series: self.series.clone(),
            error: self.error(),
        }
    }

    /// The first kernel whose run failed, with why.
    pub fn error(&self) -> Option<String> {
        let exp = &self.key.experiment;
        self.lives.iter().enumerate().find_map(|(i, l)| {
            l.error().map(|e| {
                let name = exp.kernels.get(i).map_or("", |k| k.name.as_str());
                format!("kernel {} ({name}): {e}", crate::model::kernels::letter(i))
            })
        })
    }

    /// The frame for the page after an op: what to show, and the timeline's changes
    /// since the last frame (the whole start in a session's first).
    pub fn frame(&mut self, done: bool) -> LiveFrame {
        let timeline = std::mem::take(&mut self.timeline_ops);
        LiveFrame { shown: self.shown(), start: self.start.take(), timeline, done }
    }

    /// Does `op`, running at most `budget_ms` of wall time (`now_ms` is the clock) for a
    /// frame of playing or of a jump, and brings the timeline up to date. True when the
    /// op is finished: the end of the run, a link's count or the jump's time reached.
    pub fn apply(&mut self, op: &LiveOp, budget_ms: f64, now_ms: &dyn Fn() -> f64) -> bool {
        match *op {
            LiveOp::Step => {
                self.step_within(LIVE_STEP_EVENTS_MAX);
                self.sync_timeline();
                self.ended()
            }
            LiveOp::Frame { due, restore_to } => {
                let due = if due == u32::MAX { u64::MAX } else { due as u64 };
                self.play_frame(due, restore_to, budget_ms, now_ms)
            }
            LiveOp::Jump { to_ns } => {
                let t0 = now_ms();
                loop {
                    if self.jump_within(to_ns, LIVE_STEP_EVENTS_MAX) {
                        return true;
                    }
                    if now_ms() - t0 >= budget_ms {
                        return false;
                    }
                }
            }
            LiveOp::DismissStall => {
                self.dismiss_stall();
                false
            }
        }
    }

    /// One frame of playing (or of stepping to a link's count): up to `due` wakeups
    /// within `budget_ms`. A step that found no wakeup within its budget of events has
    /// used the frame: the next frame goes on. True when there is no more to play.
    fn play_frame(&mut self, due: u64, restore_to: Option<u64>, budget_ms: f64, now_ms: &dyn Fn() -> f64) -> bool {
        let t0 = now_ms();
        let due = match restore_to {
            Some(to) => to.saturating_sub(self.steps),
            None => due,
        };
        let (mut done, mut ended, mut stalled) = (0u64, false, false);
        while done < due && now_ms() - t0 < budget_ms {
            match self.step_within(LIVE_STEP_EVENTS_MAX) {
                Stepped::Wakeup => done += 1,
                Stepped::NoWakeup => {
                    stalled = true;
                    break;
                }
                Stepped::Ended => {
                    ended = true;
                    break;
                }
            }
        }
        if done > 0 || ended || stalled {
            self.sync_timeline();
        }
        ended || restore_to.is_some_and(|to| self.steps >= to)
    }

    pub fn kernel(&self) -> usize {
        self.key.kernel as usize
    }

    /// The stepped kernel's last wakeup.
    pub fn last(&self) -> Option<&WakeupTrace> {
        self.recent.back()
    }

    pub fn ended(&self) -> bool {
        self.lives[self.kernel()].ended()
    }

    pub fn now_ns(&self) -> u64 {
        self.lives[self.kernel()].now_ns()
    }

    pub fn cpus(&self) -> Vec<CpuView> {
        self.lives[self.kernel()].cpus()
    }

    /// Counters of the stepped kernel so far.
    pub fn counters(&self) -> schedsim::metrics::Counters {
        self.lives[self.kernel()].counters()
    }

    /// One wakeup of the stepped kernel; the others catch up to the same time. False at
    /// the end of the run. Unbounded: tests and native tools only, the page uses
    /// [`LiveSession::step_within`].
    pub fn step(&mut self) -> bool {
        loop {
            match self.step_within(u64::MAX) {
                Stepped::Wakeup => return true,
                Stepped::Ended => return false,
                Stepped::NoWakeup => {}
            }
        }
    }

    /// Runs to the stepped kernel's next wakeup, or until `max_events` events (all
    /// kernels together) have gone by without one, and lets the others catch up. A
    /// [`Stepped::NoWakeup`] leaves the session where it got to: stepping on continues
    /// the same run, and the wakeup found is the one an unbounded step finds.
    pub fn step_within(&mut self, max_events: u64) -> Stepped {
        let k = self.kernel();
        // Each kernel's share, so that catching up is bounded too.
        let share = (max_events / self.lives.len() as u64).max(1);
        let got = self.lives[k].step_within(share);
        let out = match got {
            Step::Wakeup(tr) => {
                self.stall = None;
                self.steps += 1;
                self.timeline_op(TimelineOp::Trace((*tr).clone()));
                self.recent.push_back(*tr);
                self.trim_recent();
                Stepped::Wakeup
            }
            Step::NoWakeup { events, sim_ns } => {
                let s = self.stall.get_or_insert_with(Stall::default);
                s.events = s.events.saturating_add(events);
                s.sim_ns = s.sim_ns.saturating_add(sim_ns);
                Stepped::NoWakeup
            }
            Step::Ended => {
                self.stall = None;
                Stepped::Ended
            }
        };
        self.catch_up(share);
        self.sample(out == Stepped::Ended);
        out
    }

    /// Forgets the no-wakeup notice (the user said Stop): the run stays where it is.
    pub fn dismiss_stall(&mut self) {
        self.stall = None;
    }

    fn trim_recent(&mut self) {
        while self.recent.len() > RECENT_MAX {
            self.recent.pop_front();
        }
    }

    /// Advances the other kernels towards the stepped kernel's simulated time, at most
    /// `max_events` events each: one that lags behind catches up over the next steps.
    fn catch_up(&mut self, max_events: u64) {
        let k = self.kernel();
        let now = self.lives[k].now_ns();
        for (i, l) in self.lives.iter_mut().enumerate() {
            if i != k && l.now_ns() < now {
                l.advance_within(now - l.now_ns(), 0, max_events);
            }
        }
    }

    /// Runs the stepped kernel (and the others) to `ns` of simulated time, keeping the
    /// last wakeups for the trace: how live mode jumps to a wasted-core moment.
    /// Unbounded: the page uses [`LiveSession::jump_within`].
    pub fn jump(&mut self, ns: u64) {
        while !self.jump_within(ns, u64::MAX) {}
    }

    /// One piece of a jump to `ns`: at most a millisecond of simulated time and
    /// `max_events` events (all kernels together). True once the stepped kernel is at
    /// `ns` (or the run is over); the page calls it again, a frame at a time, until then.
    pub fn jump_within(&mut self, ns: u64, max_events: u64) -> bool {
        let k = self.kernel();
        let share = (max_events / self.lives.len() as u64).max(1);
        if self.lives[k].now_ns() < ns && !self.lives[k].ended() {
            self.stall = None;
            // In pieces of a millisecond, so the timeline keeps its horizon's wakeups and
            // never holds more than a piece's slices beyond it.
            let piece = (ns - self.lives[k].now_ns()).min(1_000_000);
            let traces = self.lives[k].advance_within(piece, LIVE_TRACES_MAX, share);
            for t in &traces {
                self.timeline_op(TimelineOp::Trace(t.clone()));
            }
            self.recent.extend(traces);
            self.trim_recent();
            self.sync_timeline();
            // Every wakeup on the way counts as stepped (only the last few are kept).
            self.steps = self.lives[k].counters().wakeups;
        }
        self.catch_up(share);
        let arrived = self.lives[k].now_ns() >= ns || self.lives[k].ended();
        self.sample(arrived);
        arrived
    }

    /// The wasted-core invariant broken right now by the stepped kernel, if it is.
    pub fn wasted_now(&self) -> Option<schedsim::WastedMoment> {
        self.lives[self.kernel()].wasted_now()
    }

    /// The moments the stepped kernel broke the invariant so far.
    pub fn wasted_moments(&self) -> Vec<schedsim::WastedMoment> {
        self.lives[self.kernel()].wasted_moments().to_vec()
    }

    fn sample(&mut self, force: bool) {
        let now = self.now_ns();
        let last_t = self.series[0].last().map(|p| p.t_ns).unwrap_or(0);
        if !force && now < last_t + self.sample_every_ns {
            return;
        }
        for (i, l) in self.lives.iter().enumerate() {
            let c = l.counters();
            let (bytes, ops) = l.work_done();
            self.series[i].push(LivePoint { t_ns: now, bytes, ops, wakeups: c.wakeups, migrations: c.migrations });
            if self.series[i].len() > SERIES_POINTS_MAX {
                // Thin the whole series to every other point: keeps the shape and the ends.
                let last = *self.series[i].last().expect("non-empty");
                let mut thinned: Vec<LivePoint> = self.series[i].iter().step_by(2).copied().collect();
                if thinned.last() != Some(&last) {
                    thinned.push(last);
                }
                self.series[i] = thinned;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_deterministic_and_others_keep_up() {
        let exp = schedsim::presets::experiment("demo").unwrap();
        let key = LiveKey { experiment: exp, kernel: 1, clients: 2, iteration: 0 };
        let mut a = LiveSession::new(key.clone()).unwrap();
        let mut b = LiveSession::new(key).unwrap();
        for _ in 0..300 {
            assert!(a.step());
            b.step();
        }
        assert_eq!(a.last(), b.last());
        assert_eq!(a.cpus(), b.cpus());
        assert_eq!(a.cpus().len(), 8);
        assert!(a.series[0].len() > 1);
        assert_eq!(a.series[0].last().unwrap().t_ns, a.series[1].last().unwrap().t_ns);
        // The timeline follows the stepped kernel, up to now, with its wakeups.
        a.sync_timeline();
        let mut mirror = TimelineMirror::default();
        let f = a.frame(false);
        mirror.apply(f.start.as_ref(), f.timeline);
        let tl = mirror.timeline.borrow();
        assert_eq!((tl.to_ns, tl.nr_cpus()), (a.now_ns(), 8));
        assert_eq!(tl.traces.len(), 300);
        assert_eq!(tl.traces.last().map(|t| t.index), a.last().map(|t| t.index));
        drop(tl);
        assert!(LiveSession::new(LiveKey {
            experiment: schedsim::presets::experiment("demo").unwrap(),
            kernel: 5,
            clients: 0,
            iteration: 0
        })
        .is_err());
    }

    /// A machine where little sleeps (memcache workers, a hundred requests a second each,
    /// on two CPUs): a bounded step comes back without a wakeup, says how long there has
    /// been none, and stepping on finds the wakeup an unbounded step finds.
    fn cpu_bound() -> Experiment {
        Experiment::from_json(
            r#"{"version":1,"machine":{"topology":"1x1x2x1"},"workload":{"kind":"memcache","rps_per_worker":100},
            "clients":[1],"iterations":1,"duration_ms":200,"seed":1,
            "kernels":[{"name":"a","preset":"v5.15"},{"name":"b","preset":"v6.5"}],
            "housekeeping":{"enabled":false}}"#,
        )
        .unwrap()
    }

    #[test]
    fn a_bounded_step_says_there_was_no_wakeup_and_continues_the_same_run() {
        let key = LiveKey { experiment: cpu_bound(), kernel: 0, clients: 1, iteration: 0 };
        let mut bounded = LiveSession::new(key.clone()).unwrap();
        let mut free = LiveSession::new(key).unwrap();
        let mut stalls = 0;
        loop {
            let more = free.step();
            let mut seen = Stall::default();
            let got = loop {
                match bounded.step_within(100) {
                    Stepped::Wakeup => break true,
                    Stepped::Ended => break false,
                    Stepped::NoWakeup => {
                        // 100 events for two kernels: 50 each, added up since the last wakeup.
                        let s = bounded.stall.unwrap();
                        assert_eq!(s.events, seen.events + 50);
                        assert!(s.sim_ns >= seen.sim_ns);
                        seen = s;
                        stalls += 1;
                    }
                }
            };
            assert_eq!(got, more);
            assert_eq!(bounded.stall, None, "a wakeup or the end clears the notice");
            assert_eq!(bounded.last(), free.last());
            assert_eq!(bounded.steps, free.steps);
            if !more {
                break;
            }
        }
        assert!(bounded.steps > 0);
        assert!(stalls > 0, "the load sleeps too often for the bound to show");
        // The other kernel caught up over the bounded steps.
        assert_eq!(bounded.cpus(), free.cpus());
        assert_eq!(bounded.series[1].last().map(|p| p.t_ns), Some(bounded.now_ns()));
    }

    #[test]
    fn stop_dismisses_the_notice_where_the_run_is() {
        let key = LiveKey { experiment: cpu_bound(), kernel: 1, clients: 1, iteration: 0 };
        let mut s = LiveSession::new(key).unwrap();
        while s.step_within(100) != Stepped::NoWakeup {}
        let (now, steps) = (s.now_ns(), s.steps);
        assert!(s.stall.is_some());
        s.dismiss_stall();
        assert_eq!((s.stall, s.now_ns(), s.steps), (None, now, steps));
        // A budget of nothing still makes progress (one event per kernel), never a loop in place.
        assert!(matches!(s.step_within(0), Stepped::NoWakeup | Stepped::Wakeup));
        assert!(s.now_ns() >= now);
    }

    /// The page's timeline, made from a session's frames, does not depend on how the
    /// session's ops were cut into frames (one frame after each op, or one at the end),
    /// through steps, frames of playing, a link's count, a jump and the JSON the worker
    /// sends; and each frame shows what the session shows.
    #[test]
    fn the_timeline_of_a_sessions_frames_is_the_same_however_they_are_cut() {
        let exp = schedsim::presets::experiment("demo").unwrap();
        let key = LiveKey { experiment: exp, kernel: 1, clients: 2, iteration: 0 };
        let mut local = LiveSession::new(key.clone()).unwrap();
        local.sync_timeline();
        let mut remote = LiveSession::new(key).unwrap();
        remote.sync_timeline();
        let mut mirror = TimelineMirror::default();
        let send = |s: &mut LiveSession, mirror: &mut TimelineMirror, done: bool| {
            let json = serde_json::to_string(&s.frame(done)).unwrap();
            let f: LiveFrame = serde_json::from_str(&json).unwrap();
            mirror.apply(f.start.as_ref(), f.timeline);
            (f.shown, f.done)
        };
        // What crosses is the report's JSON of the counters, which leaves out how often
        // each patch's branch ran (`Counters::patched`: live mode does not show it).
        let shown_of = |s: &LiveSession| {
            let mut v = s.shown();
            v.counters.patched = Default::default();
            v
        };
        let (shown, _) = send(&mut remote, &mut mirror, false);
        assert_eq!(shown, shown_of(&local));
        // A clock that moves 1 ms per reading: frames are cut by it, the same in both.
        let clock = || {
            let t = std::cell::Cell::new(0.0);
            move || {
                t.set(t.get() + 1.0);
                t.get()
            }
        };
        let ops = [
            LiveOp::Step,
            LiveOp::Step,
            LiveOp::Frame { due: 5, restore_to: None },
            LiveOp::Frame { due: u32::MAX, restore_to: Some(40) },
            LiveOp::Frame { due: u32::MAX, restore_to: Some(40) },
            LiveOp::Jump { to_ns: 30_000_000 },
            LiveOp::DismissStall,
            LiveOp::Step,
        ];
        for op in &ops {
            let a = local.apply(op, 6.0, &clock());
            let b = remote.apply(op, 6.0, &clock());
            assert_eq!(a, b, "{op:?}");
            let (shown, done) = send(&mut remote, &mut mirror, b);
            assert_eq!((shown, done), (shown_of(&local), a), "{op:?}");
        }
        // `local` sends its ops in one frame at the end.
        let mut whole = TimelineMirror::default();
        send(&mut local, &mut whole, false);
        assert_eq!(*mirror.timeline.borrow(), *whole.timeline.borrow());
        assert!(mirror.timeline.borrow().traces.len() >= 40);
        assert!(local.steps >= 40, "{}", local.steps);
        // A jump goes on frame by frame until it arrives.
        let mut frames = 1;
        while !remote.apply(&LiveOp::Jump { to_ns: 30_000_000 }, 6.0, &clock()) {
            frames += 1;
            assert!(frames < 1000);
        }
        assert!(frames > 1 && remote.now_ns() >= 30_000_000, "{frames} {}", remote.now_ns());
        // The restore frames stop at the link's count.
        let mut s = LiveSession::new(LiveKey { kernel: 0, ..local.key.clone() }).unwrap();
        let mut rounds = 0;
        while !s.apply(&LiveOp::Frame { due: u32::MAX, restore_to: Some(25) }, 3.0, &clock()) {
            rounds += 1;
            assert!(rounds < 1000);
        }
        assert_eq!(s.steps, 25);
    }

    #[test]
    fn the_notice_in_words() {
        let s = Stall { events: 200_000, sim_ns: 3_125_000 };
        assert_eq!(s.describe(), "No wakeup within 200,000 events (3.125 ms simulated)");
        assert_eq!(Stall { events: 999, sim_ns: 0 }.describe(), "No wakeup within 999 events (0.000 ms simulated)");
    }

    /// A jump in bounded pieces arrives where an unbounded one does, with the same
    /// wakeups kept for the trace.
    #[test]
    fn a_jump_in_pieces_is_the_same_jump() {
        let key = LiveKey { experiment: cpu_bound(), kernel: 0, clients: 1, iteration: 0 };
        let mut whole = LiveSession::new(key.clone()).unwrap();
        let mut pieces = LiveSession::new(key).unwrap();
        whole.jump(50_000_000);
        let mut calls = 0;
        while !pieces.jump_within(50_000_000, 2) {
            calls += 1;
            assert!(calls < 1_000_000, "the jump makes no progress");
        }
        assert!(calls > 50, "the bound should have cut the jump into many pieces ({calls})");
        assert_eq!(pieces.now_ns(), whole.now_ns());
        assert_eq!(pieces.steps, whole.steps);
        assert_eq!(pieces.recent, whole.recent);
        assert_eq!(pieces.cpus(), whole.cpus());
        assert!(whole.now_ns() >= 50_000_000);
    }
}
