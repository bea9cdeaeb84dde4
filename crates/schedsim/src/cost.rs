//! The one cost model: hardware facts, each with a unit in its name, a default and a
//! source. Machine presets ([`crate::machine`]) override the facts that differ between
//! machines; nothing here is tuned per experiment.
//!
//! Costs of kernel operations are built from these facts where the kernel's own work is
//! a handful of cache misses (a probe of a remote runqueue reads about two of its cache
//! lines; a lock handoff moves one line), so that a bigger or farther machine is slower
//! for the same reason real ones are.

use crate::topology::Distance;
use serde::{Deserialize, Serialize};

/// One idle state (C-state) as `drivers/idle/intel_idle.c` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// ping-pong on Linux 6.6 (wakeup-path.md §13).
    pub context_switch_ns: u64,
    /// The waker's part of try_to_wake_up outside CPU selection: pi_lock, state
    /// change, stats. Default 300 ns: about 1,000 cycles at 3 GHz, the same order as an
    /// uncontended wakeup of a local task (estimate; wakeup-path.md §13 gives the
    /// context-switch total this is part of).
    pub ttwu_base_ns: u64,
    /// Enqueue of a task on a runqueue while holding its lock (enqueue_task_fair,
    /// check_preempt). Default 250 ns (estimate: a few hundred cycles of rbtree and
    /// PELT update).
    pub enqueue_hold_ns: u64,
    /// Sending a function-call or reschedule IPI, sender side. Default 450 ns:
    /// 1,200–1,600 cycles on Westmere (Pallipadi, LKML 2012) at ~3 GHz.
    pub ipi_send_ns: u64,
    /// From IPI send until the target runs its handler. Default 1,500 ns: the 1–3 µs
    /// rule of thumb in wakeup-path.md §13 (uncertain, third-party figure).
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
    /// AnandTech, chipsandcheese, wakeup-path.md §13).
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
    /// Default 6 (wakeup-path.md §13 suggests 4–8).
    pub refill_mlp: u64,
    /// Extra run time of a thread while its SMT sibling is busy, in percent. Default
    /// 60: SMT adds ~25% throughput to a core, so each of two busy threads runs at
    /// 1.25/2 = 62.5% speed (Intel HT yield 15–30%).
    pub smt_slowdown_pct: u64,
    /// Fixed part of probing one CPU in an idle scan (the loop, cpumask test); the
    /// remote runqueue read adds one line transfer by distance. Default 10 ns.
    pub idle_probe_base_ns: u64,
    /// Fixed part of one `load_balance()` at one domain (group walk, stats). The
    /// per-CPU part is two line transfers per CPU in the span. Default 600 ns (estimate).
    pub lb_domain_base_ns: u64,
    /// Detach and attach of one task by the balancer, under both runqueue locks.
    /// Default 800 ns (estimate).
    pub lb_move_task_ns: u64,
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
    crate::topology::RECLAIM_DISTANCE
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            context_switch_ns: 1_500,
            ttwu_base_ns: 300,
            enqueue_hold_ns: 250,
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
            shard_lock_hold_ns: 100,
            tick_ns: 4_000_000,
            irq_handler_ns: 1_000,
            node_reclaim_distance: crate::topology::RECLAIM_DISTANCE,
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

    /// Time to pull `bytes` of data from a cache at distance `d`, with overlap.
    #[inline]
    pub fn transfer_ns(&self, bytes: u64, d: Distance) -> u64 {
        let lines = bytes.div_ceil(self.cache_line_bytes.max(1));
        lines * self.line_transfer_ns(d) / self.refill_mlp.max(1)
    }

    /// Checks that the model is usable; names the field that is not.
    pub fn validate(&self) -> Result<(), String> {
        if self.cstates.is_empty() {
            return Err("cost model: cstates must list at least one idle state".into());
        }
        if self.cstates.len() > 16 {
            return Err("cost model: at most 16 idle states".into());
        }
        if let Some(c) = self
            .cstates
            .iter()
            .find(|c| c.exit_latency_ns > 1_000_000_000 || c.wake_ns.is_some_and(|w| w > 1_000_000_000))
        {
            return Err(format!("cost model: idle state {}: exit latency and wake time are at most 1 s", c.name));
        }
        for w in self.cstates.windows(2) {
            if w[1].target_residency_ns < w[0].target_residency_ns {
                return Err(format!(
                    "cost model: idle state {} has a smaller target residency than {}",
                    w[1].name, w[0].name
                ));
            }
        }
        if self.cache_line_bytes == 0 || self.refill_mlp == 0 {
            return Err("cost model: cache_line_bytes and refill_mlp must be positive".into());
        }
        if self.tick_ns < 100_000 {
            return Err("cost model: tick_ns must be at least 100000 (HZ <= 10000)".into());
        }
        if !(11..=254).contains(&self.node_reclaim_distance) {
            return Err("cost model: node_reclaim_distance must be a SLIT distance, 11 to 254".into());
        }
        if self.l2_bytes == 0 || self.llc_bytes == 0 {
            return Err("cost model: cache sizes must be positive".into());
        }
        let big = 1_000_000_000u64;
        for (name, v) in [
            ("context_switch_ns", self.context_switch_ns),
            ("ipi_delivery_ns", self.ipi_delivery_ns),
            ("dram_ns", self.dram_ns),
            ("remote_node_ns", self.remote_node_ns),
            ("smt_slowdown_pct", self.smt_slowdown_pct),
            ("irq_handler_ns", self.irq_handler_ns),
        ] {
            if v > big {
                return Err(format!("cost model: {name} = {v} is implausibly large"));
            }
        }
        Ok(())
    }
}

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
}
