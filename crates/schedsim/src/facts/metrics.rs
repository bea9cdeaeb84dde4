//! What a run counts, and the statistics the reports print.

use crate::facts::topology::Distance;
use serde::{Deserialize, Serialize};

/// Who moved a task: its own wakeup (`select_task_rq()`), or a balancer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MigratedBy {
    Wakeup,
    Balancer,
}

/// A log-linear latency histogram: 128 sub-buckets per power of two (0.8% resolution,
/// so that a patch's few-percent effect on a tail percentile is not lost in one
/// bucket), fixed memory (64 KiB) whatever the run length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
}

const SUB: u64 = 128;
const SUB_BITS: u32 = 7;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; (64 * SUB) as usize], total: 0 }
    }
}

impl Histogram {
    #[inline]
    fn bucket(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let exp = 63 - v.leading_zeros(); // >= SUB_BITS
        let shift = exp - SUB_BITS;
        let sub = (v >> shift) - SUB; // 0..SUB
        ((exp - SUB_BITS + 1) as u64 * SUB + sub) as usize
    }

    /// Smallest value that falls in bucket `b` (inverse of `bucket`).
    fn lower(b: usize) -> u64 {
        let b = b as u64;
        if b < SUB {
            return b;
        }
        let exp = b / SUB - 1 + SUB_BITS as u64;
        let sub = b % SUB;
        (SUB + sub) << (exp - SUB_BITS as u64)
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[Self::bucket(v)] += 1;
        self.total += 1;
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// The value at percentile `pct` (0–100), as the lower edge of its bucket; 0 when
    /// empty.
    pub fn percentile(&self, pct: u32) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = (self.total * pct as u64).div_ceil(100).max(1);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::lower(b);
            }
        }
        Self::lower(self.counts.len() - 1)
    }

    pub fn merge(&mut self, o: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.total += o.total;
    }

    /// The non-empty buckets as (bucket, count): a run's histogram in a few hundred
    /// pairs rather than 64 KiB.
    pub fn to_sparse(&self) -> Vec<(u32, u64)> {
        self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(b, &c)| (b as u32, c)).collect()
    }

    /// Adds buckets given as [`Histogram::to_sparse`] writes them; refuses a bucket
    /// out of range or a count that overflows (leaving the histogram unchanged).
    pub fn merge_sparse(&mut self, buckets: &[(u32, u64)]) -> Result<(), String> {
        let mut total = self.total;
        for &(b, c) in buckets {
            if b as usize >= self.counts.len() {
                return Err(format!("bucket {b} is out of range 0 to {}", self.counts.len() - 1));
            }
            // Every bucket is at most the total, so no bucket overflows if it does not.
            total = total.checked_add(c).ok_or("the total count overflows")?;
        }
        for &(b, c) in buckets {
            self.counts[b as usize] += c;
        }
        self.total = total;
        Ok(())
    }
}

/// p50/p90/p95/p99 in nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Percentiles {
    pub count: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p95_ns: u64,
    pub p99_ns: u64,
}

impl From<&Histogram> for Percentiles {
    fn from(h: &Histogram) -> Self {
        Percentiles {
            count: h.count(),
            p50_ns: h.percentile(50),
            p90_ns: h.percentile(90),
            p95_ns: h.percentile(95),
            p99_ns: h.percentile(99),
        }
    }
}

/// Event counters of one run (one iteration, or summed over iterations).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Wakeups of sleeping tasks (try_to_wake_up that found the task asleep).
    pub wakeups: u64,
    pub wakeups_sync: u64,
    pub wakeups_from_irq: u64,
    /// Migrations at wakeup or by a balancer, by distance.
    pub migrations: u64,
    pub migrations_smt: u64,
    pub migrations_llc: u64,
    pub migrations_cross_llc: u64,
    pub migrations_cross_node: u64,
    /// Of those, by the load balancers (newidle, periodic, nohz, shared runqueue).
    pub migrations_balance: u64,
    /// `wake_affine` calls and how often it moved the target to this CPU or prev.
    pub affine_attempts: u64,
    pub affine_moves: u64,
    pub wake_wide: u64,
    /// select_idle_sibling: calls, CPUs probed, and what it returned.
    pub sis_searches: u64,
    pub sis_probed: u64,
    pub sis_target_hits: u64,
    pub sis_prev_attempts: u64,
    pub sis_prev_hits: u64,
    /// `recent_used_cpu` candidates neither prev nor the target, and those taken: Gorman's
    /// `sis_recent_miss + sis_recent_hit` and `sis_recent_hit` as he counted them for
    /// seed 003 (26 Jul 2021 posting; a candidate in another LLC is a miss).
    pub sis_recent_attempts: u64,
    pub sis_recent_hits: u64,
    pub sis_idle_core_hits: u64,
    pub sis_scan_hits: u64,
    pub sis_scan_fails: u64,
    /// Wakeups queued on a remote wake list (TTWU_QUEUE) and IPIs sent.
    pub ttwu_queued: u64,
    pub ipis: u64,
    pub idle_exits: Vec<u64>,
    pub newidle_calls: u64,
    pub newidle_skipped_pending: u64,
    pub newidle_bailed_pending: u64,
    pub newidle_pulled: u64,
    /// `load_balance()` passes run by newidle balancing, by domain level (the
    /// schedstat "load_balance count on cpu newly idle" of each domain; all NUMA
    /// levels together), to compare with `/proc/schedstat` or sched-scoreboard.
    #[serde(default)]
    pub newidle_lb_smt: u64,
    #[serde(default)]
    pub newidle_lb_mc: u64,
    #[serde(default)]
    pub newidle_lb_pkg: u64,
    #[serde(default)]
    pub newidle_lb_numa: u64,
    /// Newidle entries that balanced nothing because of the entry gate, by the first
    /// clause that stopped them: `rd->overload` clear, `avg_idle` below
    /// `sysctl_sched_migration_cost` (before v5.16), `avg_idle` below the lowest
    /// domain's `max_newidle_lb_cost` (the v5.16+ entry gate, or the first domain's
    /// break before). Seed 002's skips and the SHARED_RUNQ path are counted elsewhere.
    #[serde(default)]
    pub newidle_gate_overload: u64,
    #[serde(default)]
    pub newidle_gate_avg_idle: u64,
    #[serde(default)]
    pub newidle_gate_cost: u64,
    /// Running tasks pushed by the stopper (`active_load_balance_cpu_stop`, schedstat
    /// `alb_pushed`).
    #[serde(default)]
    pub active_balance_pushes: u64,
    pub shared_runq_pops: u64,
    pub shared_runq_pulled: u64,
    /// Pops whose task was not pullable under its runqueue's lock: newidle_balance()
    /// returned -1 and was called again after RETRY_TASK.
    #[serde(default)]
    pub shared_runq_retries: u64,
    pub lock_spin_ns: u64,
    /// Switches away from a task (to another task or to idle), as the kernel's
    /// `nvcsw + nivcsw` count them (`__schedule()`, `kernel/sched/core.c`), and of
    /// those the involuntary ones (`nivcsw`): the task was still runnable, a
    /// preemption. `/proc/PID/status` calls them voluntary_ctxt_switches and
    /// nonvoluntary_ctxt_switches; a trace's `sched_switch` with `prev_state` R or R+.
    #[serde(default)]
    pub context_switches: u64,
    #[serde(default)]
    pub preemptions: u64,
    pub user_ns: u64,
    pub system_ns: u64,
    pub idle_ns: u64,
    /// Time a runnable task waited for a CPU after becoming runnable (schedstats
    /// run_delay, for wakeups).
    pub run_delay_ns: u64,
    /// Simulator events processed (the whole run, warm-up included).
    #[serde(default)]
    pub events: u64,
    /// Time in which some CPU idled past the wasted-core threshold while a task it
    /// could run waited elsewhere, and how many separate episodes.
    #[serde(default)]
    pub wasted_core_ns: u64,
    #[serde(default)]
    pub wasted_core_episodes: u64,
    /// How often each seed patch's own branch ran, by `Switch as usize` (the lines the
    /// patch adds or changes, reached with the switch on: a switch that is on and never
    /// reached changes nothing in that run). Not part of a report (reports are as they
    /// were before it was counted): a run's result carries it, `RunResult::patched`.
    #[serde(skip)]
    pub patched: [u64; crate::facts::kernel::Switch::ALL.len()],
}

impl Counters {
    /// A task switches out: voluntarily unless it is still runnable.
    #[inline(always)]
    pub(crate) fn count_switch_out(&mut self, runnable: bool) {
        self.context_switches += 1;
        self.preemptions += runnable as u64;
    }

    pub fn count_migration(&mut self, d: Distance, by: MigratedBy) {
        match d {
            Distance::SameCpu => return,
            Distance::SmtSibling => self.migrations_smt += 1,
            Distance::SameLlc => self.migrations_llc += 1,
            Distance::CrossLlc => self.migrations_cross_llc += 1,
            Distance::CrossNode => self.migrations_cross_node += 1,
        }
        self.migrations += 1;
        if by == MigratedBy::Balancer {
            self.migrations_balance += 1;
        }
    }

    /// Adds `o` field by field.
    pub fn add(&mut self, o: &Counters) {
        macro_rules! sum {
            ($($f:ident),*) => { $( self.$f += o.$f; )* };
        }
        sum!(
            wakeups,
            wakeups_sync,
            wakeups_from_irq,
            migrations,
            migrations_smt,
            migrations_llc,
            migrations_cross_llc,
            migrations_cross_node,
            migrations_balance,
            affine_attempts,
            affine_moves,
            wake_wide,
            sis_searches,
            sis_probed,
            sis_target_hits,
            sis_prev_attempts,
            sis_prev_hits,
            sis_recent_attempts,
            sis_recent_hits,
            sis_idle_core_hits,
            sis_scan_hits,
            sis_scan_fails,
            ttwu_queued,
            ipis,
            newidle_calls,
            newidle_skipped_pending,
            newidle_bailed_pending,
            newidle_pulled,
            newidle_lb_smt,
            newidle_lb_mc,
            newidle_lb_pkg,
            newidle_lb_numa,
            newidle_gate_overload,
            newidle_gate_avg_idle,
            newidle_gate_cost,
            active_balance_pushes,
            shared_runq_pops,
            shared_runq_pulled,
            shared_runq_retries,
            lock_spin_ns,
            context_switches,
            preemptions,
            user_ns,
            system_ns,
            idle_ns,
            run_delay_ns,
            events,
            wasted_core_ns,
            wasted_core_episodes
        );
        for (a, b) in self.patched.iter_mut().zip(&o.patched) {
            *a += b;
        }
        if self.idle_exits.len() < o.idle_exits.len() {
            self.idle_exits.resize(o.idle_exits.len(), 0);
        }
        for (a, b) in self.idle_exits.iter_mut().zip(&o.idle_exits) {
            *a += b;
        }
    }

    /// `recent_used_cpu` hit rate in percent of attempts, as Gorman's SIS statistics
    /// patches report it.
    pub fn recent_hit_pct(&self) -> f64 {
        pct(self.sis_recent_hits, self.sis_recent_attempts)
    }
}

pub fn pct(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 * 100.0 / den as f64
    }
}

/// Harmonic mean; 0 if any sample is 0 or there are none (as mmtests prints).
pub fn hmean(v: &[f64]) -> f64 {
    if v.is_empty() || v.iter().any(|&x| x <= 0.0) {
        return 0.0;
    }
    v.len() as f64 / v.iter().map(|x| 1.0 / x).sum::<f64>()
}

pub fn amean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// Sample standard deviation (n - 1), 0 for fewer than two samples.
pub fn stddev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = amean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_round_trip_and_percentiles() {
        for v in [0u64, 1, 31, 32, 33, 63, 64, 127, 128, 129, 255, 256, 1000, 123_456, u64::MAX / 2] {
            let b = Histogram::bucket(v);
            assert!(Histogram::lower(b) <= v, "{v}");
            assert!(Histogram::lower(b + 1) > v, "{v}");
        }
        let mut h = Histogram::default();
        for v in 1..=1000 {
            h.record(v * 1000);
        }
        // 990,000 is the 99th percentile; its bucket starts at most 0.8% below it.
        let p99 = h.percentile(99);
        assert!((982_000..=990_000).contains(&p99), "{p99}");
        assert_eq!(Histogram::default().percentile(50), 0);
    }

    #[test]
    fn sparse_histogram_round_trips_and_refuses_bad_buckets() {
        let mut h = Histogram::default();
        for v in [0u64, 5, 5, 900, 1_000_000, 1_000_001, u64::MAX] {
            h.record(v);
        }
        let sparse = h.to_sparse();
        assert!(sparse.len() < 8 && sparse.iter().all(|&(_, c)| c > 0), "{sparse:?}");
        let mut back = Histogram::default();
        back.merge_sparse(&sparse).unwrap();
        assert_eq!(back, h);
        let mut twice = h.clone();
        twice.merge(&h);
        back.merge_sparse(&sparse).unwrap();
        assert_eq!(back, twice);
        let before = back.clone();
        assert!(back.merge_sparse(&[(1, 1), (64 * 128, 1)]).unwrap_err().contains("bucket 8192"));
        assert!(back.merge_sparse(&[(1, u64::MAX)]).unwrap_err().contains("overflows"));
        assert_eq!(back, before, "a refused merge changes nothing");
    }

    #[test]
    fn stats() {
        assert_eq!(hmean(&[1.0, 4.0, 4.0]), 2.0);
        assert_eq!(hmean(&[1.0, 0.0]), 0.0);
        assert!((stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) - 2.138).abs() < 0.001);
    }
}
