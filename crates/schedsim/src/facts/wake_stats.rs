//! The statistics a replay puts beside its trace: what the machine did and what the
//! model does, each computed from a list of [`WakeRecord`]s by the one definition here,
//! so that a difference between the two columns is a difference of behaviour, not of
//! counting.
//!
//! - a **wakeup** is a waking of a task that then ran (a record);
//! - by **waker kind**: who ran on the waking CPU ([`WakerKind`]);
//! - a **migration** is a wakeup whose task ran next on another CPU than the one it
//!   last ran on, by the distance between the two;
//! - the **run delay** is the time from the waking to the switch-in, its percentiles
//!   from the simulator's log-linear `Histogram` on both sides (buckets within 1%);
//! - **placement agreement** pairs the k-th wakeup of each task on both sides and
//!   counts where the model chose the machine's CPU, over the pairs whose decision had
//!   the same inputs (the same CPU last run on, the same waking CPU), and up to the
//!   first pair whose inputs differ (where the replay's state first diverges).

use crate::facts::metrics::Histogram;
use crate::facts::recording::{WakeRecord, WakerKind};
use crate::facts::topology::Distance;
use serde::Serialize;

/// Run delays at the three percentiles, µs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DelayUs {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

/// Wakeups by who ran on the waking CPU.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByWaker {
    pub task: u64,
    pub kernel_thread: u64,
    pub idle: u64,
}

/// Migrations by distance (`Distance`'s order without the same CPU).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByDistance {
    pub smt: u64,
    pub same_llc: u64,
    pub cross_llc: u64,
    pub cross_node: u64,
}

/// One column of the table: a trace's or a simulated run's wakeups.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WakeStats {
    pub wakeups: u64,
    pub by_waker: ByWaker,
    pub migrations: u64,
    pub migrations_per_1000_wakeups: f64,
    pub migrations_by_distance: ByDistance,
    pub run_delay_us: DelayUs,
    /// Share of CPU time not in the idle task, over the CPUs of the window.
    pub cpu_busy_share: f64,
}

impl WakeStats {
    /// The statistics of `records`; `distance` places two CPUs of the machine (the
    /// records' CPU numbers are the machine's); `busy_share` is measured apart (a
    /// trace's switches, a run's accounting).
    pub fn of(records: &[WakeRecord], distance: impl Fn(u32, u32) -> Distance, busy_share: f64) -> WakeStats {
        let mut s = WakeStats { wakeups: records.len() as u64, cpu_busy_share: busy_share, ..WakeStats::default() };
        let mut delay = Histogram::default();
        for r in records {
            match r.kind {
                WakerKind::Task => s.by_waker.task += 1,
                WakerKind::KernelThread => s.by_waker.kernel_thread += 1,
                WakerKind::Idle => s.by_waker.idle += 1,
            }
            delay.record(r.run_delay_ns);
            let Some(last) = r.last_cpu else { continue };
            let d = distance(last, r.ran_cpu);
            let m = &mut s.migrations_by_distance;
            match d {
                Distance::SameCpu => continue,
                Distance::SmtSibling => m.smt += 1,
                Distance::SameLlc => m.same_llc += 1,
                Distance::CrossLlc => m.cross_llc += 1,
                Distance::CrossNode => m.cross_node += 1,
            }
            s.migrations += 1;
        }
        if s.wakeups > 0 {
            s.migrations_per_1000_wakeups = s.migrations as f64 * 1000.0 / s.wakeups as f64;
        }
        let us = |p| delay.percentile(p) as f64 / 1000.0;
        s.run_delay_us = DelayUs { p50: us(50), p95: us(95), p99: us(99) };
        s
    }
}

/// How often the model chose the machine's CPU, wakeup for wakeup.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Agreement {
    /// Pairs (the k-th wakeup of a task on both sides) compared.
    pub paired: u64,
    /// Of those, with the same decision inputs (CPU last run on, waking CPU).
    pub same_inputs: u64,
    /// Of those, where the model ran the task on the machine's CPU.
    pub same_cpu: u64,
    /// Pairs before the first whose inputs differ, and how many of them agreed.
    pub before_divergence: u64,
    pub same_cpu_before_divergence: u64,
}

impl Agreement {
    /// Pairs the wakeups of `observed` and `simulated` by task and order; `task_of`
    /// maps a simulated task number to the observed one (`None`: not of the trace,
    /// such as another copy's).
    pub fn of(observed: &[WakeRecord], simulated: &[WakeRecord], task_of: impl Fn(u32) -> Option<u32>) -> Agreement {
        // Per observed task, its wakeups in order.
        let tasks = observed.iter().map(|r| r.wakee as usize + 1).max().unwrap_or(0);
        let mut by_task: Vec<Vec<&WakeRecord>> = vec![Vec::new(); tasks];
        for r in observed {
            by_task[r.wakee as usize].push(r);
        }
        let mut next = vec![0usize; tasks];
        let mut a = Agreement::default();
        let mut diverged = false;
        // In the simulation's order: the first wakeup whose inputs differ is where the
        // replay's state first diverged from the trace.
        for s in simulated {
            let Some(t) = task_of(s.wakee).map(|t| t as usize).filter(|&t| t < tasks) else { continue };
            let Some(o) = by_task[t].get(next[t]) else { continue };
            next[t] += 1;
            a.paired += 1;
            let same_inputs = o.last_cpu == s.last_cpu && o.waker_cpu == s.waker_cpu;
            let same_cpu = o.ran_cpu == s.ran_cpu;
            diverged |= !same_inputs;
            if same_inputs {
                a.same_inputs += 1;
                a.same_cpu += same_cpu as u64;
            }
            if !diverged {
                a.before_divergence += 1;
                a.same_cpu_before_divergence += same_cpu as u64;
            }
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(wakee: u32, kind: WakerKind, waker_cpu: u32, last: Option<u32>, ran: u32, delay: u64) -> WakeRecord {
        WakeRecord {
            time_ns: 0,
            wakee,
            waker: None,
            kind,
            waker_cpu,
            last_cpu: last,
            ran_cpu: ran,
            run_delay_ns: delay,
        }
    }

    /// CPUs 0-1 share a core, 0-3 an LLC, 4-7 the other LLC of the node.
    fn dist(a: u32, b: u32) -> Distance {
        if a == b {
            Distance::SameCpu
        } else if a / 2 == b / 2 {
            Distance::SmtSibling
        } else if a / 4 == b / 4 {
            Distance::SameLlc
        } else {
            Distance::CrossLlc
        }
    }

    #[test]
    fn counts_and_percentiles_follow_the_definitions() {
        let r = vec![
            rec(0, WakerKind::Task, 0, Some(0), 0, 1_000),
            rec(1, WakerKind::Idle, 1, Some(1), 0, 2_000),
            rec(0, WakerKind::KernelThread, 3, Some(0), 3, 3_000),
            rec(1, WakerKind::Task, 0, Some(0), 5, 100_000),
            rec(2, WakerKind::Task, 0, None, 6, 4_000),
        ];
        let s = WakeStats::of(&r, dist, 0.5);
        assert_eq!(s.wakeups, 5);
        assert_eq!(s.by_waker, ByWaker { task: 3, kernel_thread: 1, idle: 1 });
        assert_eq!(s.migrations, 3, "a task that never ran has no previous CPU");
        assert_eq!(s.migrations_by_distance, ByDistance { smt: 1, same_llc: 1, cross_llc: 1, cross_node: 0 });
        assert_eq!(s.migrations_per_1000_wakeups, 600.0);
        // The histogram's buckets are within 1% (128 per power of two).
        assert!((s.run_delay_us.p50 - 3.0).abs() <= 0.03, "{:?}", s.run_delay_us);
        assert!((s.run_delay_us.p99 - 100.0).abs() <= 1.0, "{:?}", s.run_delay_us);
    }

    #[test]
    fn agreement_stops_counting_at_the_first_divergence() {
        let o = vec![
            rec(0, WakerKind::Task, 1, Some(0), 0, 1),
            rec(1, WakerKind::Task, 0, Some(1), 1, 1),
            rec(0, WakerKind::Task, 1, Some(0), 2, 1),
            rec(1, WakerKind::Task, 0, Some(1), 1, 1),
        ];
        let mut s = o.clone();
        s[2].ran_cpu = 0; // the model chose differently
        s[3].last_cpu = Some(0); // and then the state differs
        let a = Agreement::of(&o, &s, Some);
        assert_eq!((a.paired, a.same_inputs, a.same_cpu), (4, 3, 2));
        assert_eq!((a.before_divergence, a.same_cpu_before_divergence), (3, 2));
        assert_eq!(Agreement::of(&o, &s, |_| None).paired, 0, "tasks not of the trace are not paired");
    }
}
