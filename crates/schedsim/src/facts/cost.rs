//! The one cost model: hardware facts, each with a unit in its name, a default and a
//! source. Machine presets ([`crate::facts::machine`]) override the facts that differ between
//! machines; nothing here is tuned per experiment. `docs/costs.md` lists the outside
//! figures the defaults rest on.
//!
//! Costs of kernel operations are built from these facts where the kernel's own work is
//! a handful of cache misses (a probe of a remote runqueue reads about two of its cache
//! lines; a lock handoff moves one line), so that a bigger or farther machine is slower
//! for the same reason real ones are.

use crate::facts::topology::Distance;
use serde::{Deserialize, Serialize};

/// One idle state (C-state) as `drivers/idle/intel_idle.c` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CState {
    pub name: String,
    /// The exit latency the idle driver declares (the `intel_idle` table, or ACPI
    /// `_CST` through `acpi_idle`): what the kernel compares (PM QoS, the idlest-CPU
    /// search). Also the time from the wakeup signal until the CPU executes again,
    /// unless `wake_ns` says otherwise.
    pub exit_latency_ns: u64,
    /// The hardware's own wake time when it differs from the declared worst case:
    /// firmware declares the deepest state the request may reach (a package state),
    /// while a core whose package stays awake only leaves its core state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_ns: Option<u64>,
    /// The governor picks this state only if it expects to stay idle this long.
    pub target_residency_ns: u64,
    /// A polling state watches need_resched: a remote wakeup needs no IPI.
    pub polling: bool,
}

/// Hardware and kernel-path costs. All times in nanoseconds, sizes in bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostModel {
    /// Voluntary context switch, switch-out plus switch-in, on one CPU.
    /// Default 1,500 ns: 1.1 µs (threads) to 2.4 µs (processes) measured for pipe
    /// ping-pong on Linux 6.6 (docs/costs.md).
    pub context_switch_ns: u64,
    /// The waker's part of try_to_wake_up outside CPU selection: pi_lock, state
    /// change, stats. Default 300 ns: about 1,000 cycles at 3 GHz, the same order as an
    /// uncontended wakeup of a local task (estimate, part of the context-switch total;
    /// docs/costs.md).
    pub ttwu_base_ns: u64,
    /// Enqueue of a task on a runqueue while holding its lock (enqueue_task_fair,
    /// check_preempt). Default 250 ns (estimate: a few hundred cycles of rbtree and
    /// PELT update).
    pub enqueue_hold_ns: u64,
    /// Hold time of a CPU's runqueue lock in `__schedule()` while it puts the previous
    /// task back and picks the next (`put_prev_task`, `pick_next_task_fair`). Default
    /// 100 ns (estimate: a short rbtree walk). Optional in JSON for files written
    /// before the field existed.
    #[serde(default = "d_schedule_hold_ns")]
    pub schedule_hold_ns: u64,
    /// Sending a function-call or reschedule IPI, sender side. Default 450 ns:
    /// 1,200–1,600 cycles on Westmere (Pallipadi, LKML 2012) at ~3 GHz.
    pub ipi_send_ns: u64,
    /// From IPI send until the target runs its handler. Default 1,500 ns: the 1–3 µs
    /// rule of thumb (uncertain, third-party figure; docs/costs.md).
    pub ipi_delivery_ns: u64,
    /// The target's interrupt entry/exit around the handler. Default 300 ns (estimate).
    pub irq_entry_exit_ns: u64,
    /// Idle states, shallowest first. Default: Skylake-SP `skx_cstates`
    /// (POLL; C1 2 µs/2 µs; C1E 10 µs/20 µs; C6 133 µs/600 µs).
    pub cstates: Vec<CState>,
    /// Cache line size.
    pub cache_line_bytes: u64,
    /// Private L2 per core. Default 1 MiB (Skylake-SP / Cascade Lake).
    pub l2_bytes: u64,
    /// Shared last-level cache per LLC. Default 27.5 MiB (20-core Cascade Lake,
    /// 1.375 MiB per core).
    pub llc_bytes: u64,
    /// Load-to-use latency of an L3 hit. Default 20 ns (L3 ~34–46 cycles plus mesh;
    /// AnandTech, chipsandcheese; docs/costs.md).
    pub llc_hit_ns: u64,
    /// Local DRAM latency. Default 90 ns (AnandTech; 80–110 ns on server parts).
    pub dram_ns: u64,
    /// A line that lives in another LLC of the same node (remote L3 or its DRAM).
    /// Default 90 ns: on a monolithic-LLC node this is DRAM. Zen 3: ~80–110 ns
    /// cross-CCD (chipsandcheese core-to-core).
    pub cross_llc_ns: u64,
    /// Remote-node DRAM or cache. Default 140 ns (2-socket Intel UPI, ~1.5x local).
    pub remote_node_ns: u64,
    /// Core-to-core line transfer between SMT siblings (shared L1/L2). Default 7 ns.
    pub smt_transfer_ns: u64,
    /// Memory-level parallelism when refilling a working set: how many misses overlap.
    /// Default 6 (a modelling assumption: 4–8 overlapping misses; docs/costs.md).
    pub refill_mlp: u64,
    /// Extra run time of a thread while its SMT sibling is busy, in percent. Default
    /// 60: SMT adds ~25% throughput to a core, so each of two busy threads runs at
    /// 1.25/2 = 62.5% speed (Intel HT yield 15–30%).
    pub smt_slowdown_pct: u64,
    /// Fixed part of probing one CPU in an idle scan (the loop, cpumask test); the
    /// remote runqueue read adds one line transfer by distance. Default 10 ns.
    pub idle_probe_base_ns: u64,
    /// Fixed part of one `load_balance()` at one domain (group walk, stats). The
    /// per-CPU part is a line transfer for each runqueue cache line read, per CPU in
    /// the span (`lb_lines_per_cpu` in balance/load_balance.rs: two to four lines, by version and
    /// whether the CPU runs anything). Default 600 ns (estimate).
    pub lb_domain_base_ns: u64,
    /// Detach and attach of one task by the balancer, under both runqueue locks.
    /// Default 800 ns (estimate).
    pub lb_move_task_ns: u64,
    /// One PELT average brought up to date (`___update_load_sum()` and
    /// `___update_load_avg()`: the decay arithmetic and three 64-bit divisions by the
    /// divider). Default 80 ns: about 250 cycles at ~3 GHz, of which the divisions are
    /// 35–88 cycles each on Skylake-SP (estimate from instruction latencies). Paid by
    /// `update_blocked_averages()` per average it updates. Optional in JSON for files
    /// written before the field existed.
    #[serde(default = "d_pelt_update_ns")]
    pub pelt_update_ns: u64,
    /// Hold time of a SHARED_RUNQ shard lock for one list operation. Default 100 ns:
    /// the v3 cover letter's 0.32–0.50 µs average hold was on Milan capped at 700 MHz;
    /// scaled to ~3 GHz that is ~75–115 ns.
    pub shard_lock_hold_ns: u64,
    /// Scheduler tick period. Default 4,000,000 ns (CONFIG_HZ=250).
    pub tick_ns: u64,
    /// Timer or device interrupt handling on the CPU that takes it (hard + soft IRQ
    /// entry, before the wakeup itself). Default 1,000 ns (estimate).
    pub irq_handler_ns: u64,
    /// Not a cost but a platform fact the kernel's arch code sets: `sd_init()` strips
    /// SD_WAKE_AFFINE and fork/exec balancing from NUMA levels farther than this SLIT
    /// distance. Default 30 (`RECLAIM_DISTANCE`); AMD Zen sets 32 in `init_amd_zn()`
    /// (`arch/x86/kernel/cpu/amd.c`, Matt Fleming, v5.4) so that EPYC's cross-socket
    /// distance of 32 keeps them. Kernels before v5.4 always use 30.
    #[serde(default = "default_node_reclaim_distance")]
    pub node_reclaim_distance: u32,
}

fn default_node_reclaim_distance() -> u32 {
    crate::facts::topology::RECLAIM_DISTANCE
}

fn d_schedule_hold_ns() -> u64 {
    100
}

fn d_pelt_update_ns() -> u64 {
    80
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            context_switch_ns: 1_500,
            ttwu_base_ns: 300,
            enqueue_hold_ns: 250,
            schedule_hold_ns: d_schedule_hold_ns(),
            ipi_send_ns: 450,
            ipi_delivery_ns: 1_500,
            irq_entry_exit_ns: 300,
            cstates: skylake_sp_cstates(),
            cache_line_bytes: 64,
            l2_bytes: 1 << 20,
            llc_bytes: 28_835_840, // 27.5 MiB
            llc_hit_ns: 20,
            dram_ns: 90,
            cross_llc_ns: 90,
            remote_node_ns: 140,
            smt_transfer_ns: 7,
            refill_mlp: 6,
            smt_slowdown_pct: 60,
            idle_probe_base_ns: 10,
            lb_domain_base_ns: 600,
            lb_move_task_ns: 800,
            pelt_update_ns: d_pelt_update_ns(),
            shard_lock_hold_ns: 100,
            tick_ns: 4_000_000,
            irq_handler_ns: 1_000,
            node_reclaim_distance: crate::facts::topology::RECLAIM_DISTANCE,
        }
    }
}

/// `skx_cstates` from `drivers/idle/intel_idle.c`, plus the polling state.
pub fn skylake_sp_cstates() -> Vec<CState> {
    let c = |name: &str, exit_latency_ns, target_residency_ns, polling| CState {
        name: name.into(),
        exit_latency_ns,
        wake_ns: None,
        target_residency_ns,
        polling,
    };
    vec![
        c("POLL", 0, 0, true),
        c("C1", 2_000, 2_000, false),
        c("C1E", 10_000, 20_000, false),
        c("C6", 133_000, 600_000, false),
    ]
}

impl CostModel {
    /// Latency of moving one cache line between CPUs at this distance.
    #[inline]
    pub fn line_transfer_ns(&self, d: Distance) -> u64 {
        match d {
            Distance::SameCpu => 0,
            Distance::SmtSibling => self.smt_transfer_ns,
            Distance::SameLlc => self.llc_hit_ns,
            Distance::CrossLlc => self.cross_llc_ns,
            Distance::CrossNode => self.remote_node_ns,
        }
    }

    /// Time to pull `bytes` of data from a cache at distance `d`, with overlap. Nothing
    /// to pull costs nothing, without the two divisions: the refill of a task back on a
    /// core whose L2 kept its working set asks for 0 bytes.
    #[inline]
    pub fn transfer_ns(&self, bytes: u64, d: Distance) -> u64 {
        if bytes == 0 {
            return 0;
        }
        let lines = bytes.div_ceil(self.cache_line_bytes.max(1));
        crate::facts::wide::saturating_mul(lines, self.line_transfer_ns(d)) / self.refill_mlp.max(1)
    }

    /// Checks that the model is usable; names the field that is not. Every field has a
    /// bound, so that no sum of costs the simulator forms can overflow 64 bits.
    pub fn validate(&self) -> Result<(), String> {
        if self.cstates.is_empty() {
            return Err("cost model: cstates must list at least one idle state".into());
        }
        if self.cstates.len() > CSTATES_MAX {
            return Err(format!("cost model: at most {CSTATES_MAX} idle states"));
        }
        for (i, c) in self.cstates.iter().enumerate() {
            if c.name.is_empty() || c.name.chars().count() > 40 {
                return Err(format!("cost model: cstates[{i}].name must be 1 to 40 characters"));
            }
            for (what, v) in [
                ("exit_latency_ns", Some(c.exit_latency_ns)),
                ("wake_ns", c.wake_ns),
                ("target_residency_ns", Some(c.target_residency_ns)),
            ] {
                if let Some(v) = v.filter(|&v| v > TIME_NS_MAX) {
                    return Err(format!(
                        "cost model: idle state {}: {what} = {v} ns, at most {TIME_NS_MAX} ns (1 s); \
                         exit latency and wake time are at most 1 s",
                        c.name
                    ));
                }
            }
        }
        for w in self.cstates.windows(2) {
            if w[1].target_residency_ns < w[0].target_residency_ns {
                return Err(format!(
                    "cost model: idle state {} has a smaller target residency than {}",
                    w[1].name, w[0].name
                ));
            }
        }
        for (name, v) in self.times() {
            if v > TIME_NS_MAX {
                return Err(format!("cost model: {name} = {v} ns, at most {TIME_NS_MAX} ns (1 s)"));
            }
        }
        if !(100_000..=TIME_NS_MAX).contains(&self.tick_ns) {
            return Err(format!(
                "cost model: tick_ns = {} ns, expected 100000 ns (HZ = 10000) to {TIME_NS_MAX} ns (1 s)",
                self.tick_ns
            ));
        }
        if !(8..=4096).contains(&self.cache_line_bytes) {
            return Err(format!("cost model: cache_line_bytes = {}, expected 8 to 4096 bytes", self.cache_line_bytes));
        }
        for (name, v) in [("l2_bytes", self.l2_bytes), ("llc_bytes", self.llc_bytes)] {
            if v == 0 || v > CACHE_BYTES_MAX {
                return Err(format!("cost model: {name} = {v}, expected 1 to {CACHE_BYTES_MAX} bytes (1 TiB)"));
            }
        }
        if !(1..=64).contains(&self.refill_mlp) {
            return Err(format!("cost model: refill_mlp = {}, expected 1 to 64 overlapping misses", self.refill_mlp));
        }
        if self.smt_slowdown_pct > 1000 {
            return Err(format!("cost model: smt_slowdown_pct = {}, at most 1000 percent", self.smt_slowdown_pct));
        }
        if !(11..=254).contains(&self.node_reclaim_distance) {
            return Err(format!(
                "cost model: node_reclaim_distance = {}, must be a SLIT distance, 11 to 254",
                self.node_reclaim_distance
            ));
        }
        Ok(())
    }

    /// Every time field (ns) but the idle states', by name.
    fn times(&self) -> [(&'static str, u64); 18] {
        [
            ("context_switch_ns", self.context_switch_ns),
            ("ttwu_base_ns", self.ttwu_base_ns),
            ("enqueue_hold_ns", self.enqueue_hold_ns),
            ("schedule_hold_ns", self.schedule_hold_ns),
            ("ipi_send_ns", self.ipi_send_ns),
            ("ipi_delivery_ns", self.ipi_delivery_ns),
            ("irq_entry_exit_ns", self.irq_entry_exit_ns),
            ("llc_hit_ns", self.llc_hit_ns),
            ("dram_ns", self.dram_ns),
            ("cross_llc_ns", self.cross_llc_ns),
            ("remote_node_ns", self.remote_node_ns),
            ("smt_transfer_ns", self.smt_transfer_ns),
            ("idle_probe_base_ns", self.idle_probe_base_ns),
            ("lb_domain_base_ns", self.lb_domain_base_ns),
            ("lb_move_task_ns", self.lb_move_task_ns),
            ("pelt_update_ns", self.pelt_update_ns),
            ("shard_lock_hold_ns", self.shard_lock_hold_ns),
            ("irq_handler_ns", self.irq_handler_ns),
        ]
    }
}

/// Longest any one cost (a time field or an idle state's latency) may be: 1 s.
pub const TIME_NS_MAX: u64 = 1_000_000_000;
/// Largest cache size: 1 TiB.
pub const CACHE_BYTES_MAX: u64 = 1 << 40;
/// Most idle states.
pub const CSTATES_MAX: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_grows_with_distance() {
        let c = CostModel::default();
        let v: Vec<u64> = Distance::ALL.iter().map(|&d| c.transfer_ns(64 * 1024, d)).collect();
        assert_eq!(v[0], 0);
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
        assert!(c.validate().is_ok());
    }

    #[test]
    fn an_idle_state_longer_than_a_second_is_named() {
        let mut c = CostModel::default();
        c.cstates[3].wake_ns = Some(2_000_000_000);
        let e = c.validate().unwrap_err();
        assert!(e.contains("C6") && e.contains("at most 1 s"), "{e}");
        c.cstates[3].wake_ns = Some(90_000);
        assert!(c.validate().is_ok());
        c.cstates[3].exit_latency_ns = u64::MAX;
        assert!(c.validate().is_err());
    }

    /// Every field has a bound with a unit, named in the error (2^62 used to wrap).
    #[test]
    fn every_field_is_bounded() {
        let huge = 1u64 << 62;
        let d = CostModel::default();
        let names = d.times().map(|(n, _)| n);
        for name in names {
            let mut v = serde_json::to_value(&d).unwrap();
            v[name] = huge.into();
            let c: CostModel = serde_json::from_value(v).unwrap();
            let e = c.validate().unwrap_err();
            assert!(e.contains(name) && e.contains("at most 1000000000 ns (1 s)"), "{e}");
        }
        for (name, bad) in [
            ("tick_ns", huge),
            ("cache_line_bytes", huge),
            ("l2_bytes", huge),
            ("llc_bytes", 0),
            ("refill_mlp", huge),
            ("smt_slowdown_pct", huge),
        ] {
            let mut v = serde_json::to_value(&d).unwrap();
            v[name] = bad.into();
            let c: CostModel = serde_json::from_value(v).unwrap();
            let e = c.validate().unwrap_err();
            assert!(e.contains(name), "{name}: {e}");
        }
        let mut c = d.clone();
        c.cstates[1].target_residency_ns = huge;
        c.cstates[2].target_residency_ns = huge;
        c.cstates[3].target_residency_ns = huge;
        assert!(c.validate().unwrap_err().contains("target_residency_ns"));
    }
}
