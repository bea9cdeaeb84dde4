//! A run's wakeups as data, for the replay's table of what the machine did beside what
//! the model does: one run with the recorder's wake log on, its [`WakeRecord`]s, its
//! CPU busy share and its headline number.

use crate::api::experiment::{Checks, Error, Experiment};
use crate::facts::metrics::Counters;
use crate::facts::recording::WakeRecord;
use crate::facts::workload::Workload;
use crate::state::recorder::Recorder;

/// What one run's wake log holds.
#[derive(Clone, Debug)]
pub struct RunWakes {
    /// Every wakeup that led to its task running, in the order the tasks ran.
    pub records: Vec<WakeRecord>,
    /// Wakeups past the log's bound, counted only.
    pub dropped: u64,
    /// Share of CPU time not idle, over every CPU and the whole run.
    pub busy_share: f64,
    pub counters: Counters,
    /// The workload's headline number for this run, and whether it finished its work.
    pub value: f64,
    pub finished: bool,
    pub elapsed_ns: u64,
    /// Task names by task number.
    pub tasks: Vec<String>,
}

impl Experiment {
    /// Runs (kernel, clients, iteration) to its end with the wake log on. A replay's
    /// kernel threads are those its trace shows; in the benchmarks, the per-CPU ones.
    pub fn wake_log(&self, kernel: usize, clients: u32, iteration: u32) -> Result<RunWakes, Error> {
        let mut e = self.clone();
        e.clients = vec![clients];
        let r = e.validate()?;
        if kernel >= self.kernels.len() {
            return Err(Error(format!("kernel index {kernel}: the experiment has {}", self.kernels.len())));
        }
        let mut sim = e.make_sim(&r, kernel, clients, iteration, None, Checks::Off);
        let kthread: Vec<bool> = match &self.workload {
            Workload::Replay(p) => {
                let per_copy = p.tasks.iter().map(|t| t.kthread);
                let mut v: Vec<bool> = (0..clients).flat_map(|_| per_copy.clone()).collect();
                v.resize(sim.tasks.len(), false);
                v
            }
            _ => sim.tasks.iter().map(|t| t.percpu_kthread).collect(),
        };
        sim.rec = Some(Recorder::wake_log_only(sim.cpus.len(), kthread));
        sim.run(&mut |_| true).map_err(Error)?;
        let out = sim.outcome();
        let c = &out.counters;
        let all = (c.user_ns + c.system_ns + c.idle_ns).max(1);
        let log = sim.rec.take().and_then(|r| r.wake_log);
        let (records, dropped) = log.map_or((Vec::new(), 0), |l| (l.records, l.dropped));
        Ok(RunWakes {
            records,
            dropped,
            busy_share: (c.user_ns + c.system_ns) as f64 / all as f64,
            counters: out.counters,
            value: out.sample.value,
            finished: out.sample.finished,
            elapsed_ns: out.elapsed_ns,
            tasks: sim.tasks.iter().map(|t| t.name.clone()).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::api::presets::experiment;

    /// The wake log watches and changes nothing: the run's counters are the sweep's,
    /// and it holds every wakeup that led to a run.
    #[test]
    fn the_wake_log_changes_nothing_and_misses_no_wakeup() {
        for name in ["demo", "seed001"] {
            let mut e = experiment(name).unwrap();
            e.iterations = 1;
            e.clients.truncate(1);
            let report = e.run(&mut |_| true).unwrap();
            let w = e.wake_log(1, e.clients[0], 0).unwrap();
            let point = &report.configs[1].points[0];
            assert_eq!(w.counters, point.counters, "{name}");
            assert_eq!(w.value, point.samples[0], "{name}");
            let n = w.records.len() as u64;
            // Wakeups counted in the warm-up, and those still waiting at the end, are
            // not in the measured counters or not in the log.
            assert!(
                n > 0 && n + 10 >= point.counters.wakeups,
                "{name}: {n} records, {} wakeups",
                point.counters.wakeups
            );
            assert!(w.records.iter().all(|r| r.run_delay_ns < 1_000_000_000), "{name}");
            assert!(w.busy_share > 0.0 && w.busy_share <= 1.0);
        }
    }
}
