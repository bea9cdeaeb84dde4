//! The wasted-core alarm: the invariant "A Decade of Wasted Cores" (Lozi et al.,
//! EuroSys 2016) checked — no CPU stays idle longer than a threshold while a task that
//! is allowed to run on it has been waiting on another CPU's runqueue for as long.
//! Requiring both to last filters out the normal sub-microsecond moment in which a
//! sync wakee waits for its waker to sleep. Sampled every tenth of the threshold;
//! each sample in violation adds its interval to the wasted time.

use crate::facts::recording::{WastedMoment, WASTED_MOMENTS_MAX};
use crate::state::{Ev, Phase, Sim};

impl Sim {
    /// Schedules the first sample.
    pub(crate) fn wasted_start(&mut self) {
        if self.opts.wasted_threshold_ns > 0 {
            let at = self.wasted_period();
            self.push(at, Ev::Sample);
        }
    }

    fn wasted_period(&self) -> u64 {
        (self.opts.wasted_threshold_ns / 10).max(1_000)
    }

    /// One sample of the invariant.
    pub(crate) fn wasted_sample(&mut self) {
        let period = self.wasted_period();
        let next = self.now + period;
        self.push(next, Ev::Sample);
        let found = self.wasted_find();
        if self.rec.is_some() {
            self.rec_wasted(found.as_ref());
        }
        let Some(m) = found else {
            self.wasted_episode = false;
            return;
        };
        self.m.wasted_core_ns += period;
        if !self.wasted_episode {
            self.wasted_episode = true;
            self.m.wasted_core_episodes += 1;
            if self.wasted_moments.len() < WASTED_MOMENTS_MAX {
                self.wasted_moments.push(m);
            }
        }
    }

    /// A violation now, if any: the longest-idle CPU that some waiting task could use.
    pub(crate) fn wasted_find(&self) -> Option<WastedMoment> {
        let threshold = self.opts.wasted_threshold_ns;
        let waiting: u32 = self.cpus.iter().map(|c| c.queue.len() as u32).sum();
        if waiting == 0 || threshold == 0 {
            return None;
        }
        let mut best: Option<(u64, u32)> = None;
        for (i, c) in self.cpus.iter().enumerate() {
            if c.phase == Phase::Idle && self.now - c.idle_enter >= threshold {
                let idle = self.now - c.idle_enter;
                if best.is_none_or(|(b, _)| idle > b) && self.waiting_task_for(i as u32).is_some() {
                    best = Some((idle, i as u32));
                }
            }
        }
        let (idle_for_ns, idle_cpu) = best?;
        let (busy_cpu, t) = self.waiting_task_for(idle_cpu)?;
        Some(WastedMoment {
            time_ns: self.now,
            iteration: 0,
            idle_cpu,
            idle_for_ns,
            busy_cpu,
            waiting_task: self.tasks[t as usize].name.clone(),
            waiting,
        })
    }

    /// A task (and its CPU) waiting for at least the threshold, allowed on `c`.
    fn waiting_task_for(&self, c: u32) -> Option<(u32, u32)> {
        let threshold = self.opts.wasted_threshold_ns;
        for (i, cpu) in self.cpus.iter().enumerate() {
            let long = cpu.queue.iter().find(|&&t| {
                self.allowed(t, c) && self.now.saturating_sub(self.tasks[t as usize].queued_at) >= threshold
            });
            if let Some(&t) = long {
                return Some((i as u32, t));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::experiment::Experiment;
    use crate::state::TState;

    fn sim() -> Sim {
        let e = Experiment::from_json(
            r#"{"version":1,"machine":{"topology":"1x1x2x1"},"workload":{"kind":"tbench"},
            "clients":[1],"iterations":1,"duration_ms":10,"seed":1,"kernels":[{"name":"k","preset":"v5.15"}],
            "housekeeping":{"enabled":false}}"#,
        )
        .unwrap();
        let r = e.validate().unwrap();
        e.make_sim(&r, 0, 1, 0, None, crate::api::experiment::Checks::Off)
    }

    /// Both tasks queued on CPU 0 for 5 ms while CPU 1 idles: a violation; the same
    /// with the tasks pinned to CPU 0, or waiting only briefly, is not.
    #[test]
    fn detects_only_sustained_usable_idleness() {
        let mut s = sim();
        s.now = 5_000_000;
        for t in 0..2u32 {
            s.tasks[t as usize].state = TState::Runnable;
            s.tasks[t as usize].cpu = 0;
            s.tasks[t as usize].queued_at = 0;
            s.cpus[0].queue.push(t);
        }
        s.cpus[0].phase = Phase::User;
        s.cpus[1].phase = Phase::Idle;
        s.cpus[1].idle_enter = 1_000_000;
        let m = s.wasted_find().expect("violation");
        assert_eq!((m.idle_cpu, m.busy_cpu, m.idle_for_ns, m.waiting), (1, 0, 4_000_000, 2));
        s.tasks[0].queued_at = 4_500_000;
        s.tasks[1].queued_at = 4_500_000;
        assert!(s.wasted_find().is_none(), "waiting only 0.5 ms");
        s.tasks[0].queued_at = 0;
        s.tasks[0].pinned = Some(0);
        s.tasks[1].pinned = Some(0);
        assert!(s.wasted_find().is_none(), "pinned tasks cannot use CPU 1");
        s.tasks[1].pinned = None;
        s.cpus[1].idle_enter = 4_500_000;
        assert!(s.wasted_find().is_none(), "idle only 0.5 ms");
    }
}
