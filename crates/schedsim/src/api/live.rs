//! Live mode: one simulation advanced a wakeup at a time, with every wakeup's
//! decision trace and a view of each CPU, for the playground's step/play controls.

use crate::api::experiment::{Error, Experiment};
use crate::facts::metrics::Counters;
use crate::facts::trace::{TraceWindow, WakeupTrace};
pub use crate::facts::views::{CpuView, TaskView};
use crate::state::{Sim, TState};

/// Events a live step may take before it gives the page back control (about 50 ms of
/// one core on the development machine; a step with a wakeup takes a few hundred).
pub const LIVE_STEP_EVENTS_MAX: u64 = 200_000;

/// What [`Live::step_within`] came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The next wakeup, decided.
    Wakeup(Box<WakeupTrace>),
    /// No wakeup within the events allowed: `events` ran, `sim_ns` of simulated time.
    NoWakeup { events: u64, sim_ns: u64 },
    /// The run is over.
    Ended,
}

/// A live simulation of one kernel configuration at one client count.
pub struct Live {
    sim: Sim,
    ended: bool,
}

impl Live {
    /// Starts iteration 0 of `clients` under kernel `kernel` of `exp`, with no warm-up.
    pub fn new(exp: &Experiment, kernel: usize, clients: u32) -> Result<Live, Error> {
        Live::with_iteration(exp, kernel, clients, 0)
    }

    /// The same for any iteration: its random stream is the sweep's, so its wakeups and
    /// wasted-core moments happen at the same times as in the sweep (the warm-up only
    /// decides what is counted, not what happens).
    pub fn with_iteration(exp: &Experiment, kernel: usize, clients: u32, iteration: u32) -> Result<Live, Error> {
        let mut e = exp.clone();
        e.warmup_ms = 0;
        if kernel >= e.kernels.len() {
            return Err(Error(format!("kernel index {kernel}: the experiment has {}", e.kernels.len())));
        }
        let r = e.validate()?;
        let window = TraceWindow { from: 0, count: u32::MAX };
        let mut sim = e.make_sim(&r, kernel, clients, iteration, Some(window), crate::api::experiment::Checks::Off);
        sim.start();
        Ok(Live { sim, ended: false })
    }

    /// Runs until the next wakeup has been decided and returns its trace; `None` at
    /// the end of the run. Without a bound on the events: see [`Live::step_within`].
    pub fn step(&mut self) -> Option<WakeupTrace> {
        match self.step_within(u64::MAX) {
            Step::Wakeup(t) => Some(*t),
            Step::NoWakeup { .. } | Step::Ended => None,
        }
    }

    /// Runs until the next wakeup has been decided, or `max_events` events have gone by
    /// without one (a machine where nothing sleeps can run the whole duration without
    /// a wakeup: the page's main thread must not wait for that).
    pub fn step_within(&mut self, max_events: u64) -> Step {
        let (t0, mut events) = (self.sim.now, 0u64);
        while !self.ended {
            if !self.sim.step_event() {
                self.ended = true;
                self.sim.finish();
            }
            if !self.sim.traces.is_empty() {
                return Step::Wakeup(Box::new(self.sim.traces.remove(0)));
            }
            events += 1;
            if events >= max_events && !self.ended {
                return Step::NoWakeup { events, sim_ns: self.sim.now - t0 };
            }
        }
        Step::Ended
    }

    /// Runs for `ns` of simulated time; returns the traces of the wakeups in it (the
    /// last `keep` of them).
    pub fn advance(&mut self, ns: u64, keep: usize) -> Vec<WakeupTrace> {
        self.advance_within(ns, keep, u64::MAX)
    }

    /// [`Live::advance`], stopping after `max_events` events even if `ns` has not gone by.
    pub fn advance_within(&mut self, ns: u64, keep: usize, max_events: u64) -> Vec<WakeupTrace> {
        let until = self.sim.now.saturating_add(ns);
        let mut out = Vec::new();
        let mut events = 0u64;
        while !self.ended && self.sim.now < until && events < max_events {
            events += 1;
            if !self.sim.step_event() {
                self.ended = true;
                self.sim.finish();
            }
            out.append(&mut self.sim.traces);
            if out.len() > 2 * keep.max(1) {
                out.drain(..out.len() - keep);
            }
        }
        if out.len() > keep {
            out.drain(..out.len() - keep);
        }
        out
    }

    /// Starts recording, from now on, what runs on each CPU, idle periods, migrations
    /// and wasted-core spans, for a timeline. It changes nothing in the simulation.
    pub fn record(&mut self) {
        if self.sim.rec.is_none() {
            self.sim.rec_start_now(u64::MAX);
        }
    }

    /// What was recorded since the last call (nothing before [`Live::record`]): slices
    /// finished since then, and those still open, up to now, marked `open` (given again,
    /// longer or finished, next time). Wakeups are not in it: [`Live::step`] gives them.
    pub fn take_recording(&mut self) -> crate::facts::recording::Recording {
        self.sim.rec_take()
    }

    /// Every task's name by task number (kworkers included), as recordings number them.
    pub fn task_names(&self) -> Vec<String> {
        self.sim.tasks.iter().map(|t| t.name.clone()).collect()
    }

    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Why the run stopped early, if it failed (a policy script's error, an invariant
    /// broken): the line `Experiment::run` would give. The run is then over.
    pub fn error(&self) -> Option<&str> {
        self.sim.error.as_deref()
    }

    pub fn now_ns(&self) -> u64 {
        self.sim.now
    }

    /// Counters so far (CPU times up to the last event).
    pub fn counters(&self) -> Counters {
        let mut m = self.sim.m.clone();
        for c in &self.sim.cpus {
            m.user_ns += c.user_ns;
            m.system_ns += c.sys_ns;
            m.idle_ns += c.idle_ns;
        }
        m
    }

    /// The wasted-core invariant right now: an idle CPU past the threshold while a
    /// task it could run has waited as long elsewhere.
    pub fn wasted_now(&self) -> Option<crate::facts::recording::WastedMoment> {
        self.sim.wasted_find()
    }

    /// The first moments the wasted-core invariant broke so far (at most 16).
    pub fn wasted_moments(&self) -> &[crate::facts::recording::WastedMoment] {
        &self.sim.wasted_moments
    }

    /// Work done so far: bytes (tbench, dbench) and operations.
    pub fn work_done(&self) -> (u64, u64) {
        (self.sim.wl.shared.bytes, self.sim.wl.shared.ops)
    }

    /// Every benchmark task (housekeeping kworkers left out), in creation order.
    pub fn tasks(&self) -> Vec<TaskView> {
        let s = &self.sim;
        (0..s.wl.app_tasks() as usize)
            .map(|t| {
                let task = &s.tasks[t];
                let p = s.map.places[task.cpu as usize];
                let state = match task.state {
                    TState::Running => "running",
                    TState::Runnable => "runnable",
                    TState::Waking => "waking",
                    TState::Sleeping => "sleeping",
                    TState::Exited => "exited",
                };
                TaskView { name: task.name.clone(), cpu: task.cpu, llc: p.llc, node: p.node, state: state.into() }
            })
            .collect()
    }

    /// Every CPU's state now.
    pub fn cpus(&self) -> Vec<CpuView> {
        self.sim.cpu_views()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A machine where nothing sleeps: a bounded step comes back without a wakeup,
    /// saying how far it went, and stepping on is the same run as stepping unbounded.
    #[test]
    fn a_bounded_step_comes_back_without_a_wakeup() {
        let e = crate::api::experiment::Experiment::from_json(
            r#"{"version":1,"machine":{"topology":"1x1x2x1"},"workload":{"kind":"memcache","rps_per_worker":1},
            "clients":[1],"iterations":1,"duration_ms":200,"seed":1,"kernels":[{"name":"k","preset":"v5.15"}],
            "housekeeping":{"enabled":false}}"#,
        )
        .unwrap();
        let mut a = Live::new(&e, 0, 1).unwrap();
        let mut b = Live::new(&e, 0, 1).unwrap();
        let mut gaps = 0;
        for _ in 0..20 {
            let want = b.step();
            let got = loop {
                match a.step_within(50) {
                    Step::Wakeup(t) => break Some(*t),
                    Step::Ended => break None,
                    Step::NoWakeup { events, sim_ns } => {
                        assert_eq!(events, 50);
                        assert!(sim_ns > 0);
                        gaps += 1;
                    }
                }
            };
            assert_eq!(got, want);
        }
        assert!(gaps > 0, "the load sleeps too often for the bound to show");
    }

    /// A live run of iteration i is the sweep's iteration i: same work done by the end
    /// (and iterations differ, so the check can fail).
    #[test]
    fn live_iteration_is_the_sweep_iteration() {
        let mut e = crate::api::presets::experiment("demo").unwrap();
        e.duration_ms = 20;
        e.warmup_ms = 0;
        e.clients = vec![2];
        e.iterations = 3;
        let r = e.run(&mut |_| true).unwrap();
        // v4.15: its iterations differ at 2 pairs (v5.15's pairs settle on the same
        // CPUs whatever the seed, so iterations 1 and 3 give the same number).
        let samples = &r.configs[0].points[0].samples;
        let mut live = Live::with_iteration(&e, 0, 2, 2).unwrap();
        live.advance(u64::MAX / 2, 1);
        assert!(live.ended());
        let secs = live.now_ns() as f64 / 1e9;
        let mbps = live.work_done().0 as f64 / 1e6 / secs;
        assert_eq!(mbps, samples[2]);
        assert_ne!(samples[0], samples[2]);
    }

    /// The task view lists the benchmark's tasks where the CPU view has them.
    #[test]
    fn task_view_agrees_with_cpu_view() {
        let e = crate::api::presets::experiment("demo").unwrap();
        let mut live = Live::new(&e, 0, 2).unwrap();
        live.advance(3_000_000, 0);
        let tasks = live.tasks();
        assert_eq!(tasks.len(), 4, "two tbench pairs, no kworkers: {tasks:?}");
        let cpus = live.cpus();
        for t in &tasks {
            let c = &cpus[t.cpu as usize];
            assert_eq!((t.llc, t.node), (c.llc, c.node));
            match t.state.as_str() {
                "running" => assert_eq!(c.running.as_deref(), Some(t.name.as_str())),
                "runnable" => assert!(c.queued.contains(&t.name), "{t:?} {c:?}"),
                _ => {}
            }
        }
        assert!(tasks.iter().any(|t| t.state == "running" || t.state == "sleeping"));
    }
}
