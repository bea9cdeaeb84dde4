//! Swarm tests: random topologies (up to 4 threads per core and 288 CPUs, random SLITs),
//! random costs within their bounds, every workload, every kernel version with random
//! switch sets, with the invariant checker run after every event (each runnable task
//! on exactly one runqueue, pinned tasks only on their CPU, shards and wake lists
//! consistent, no lost wakeup, per-core busy counts, a bounded event queue, a liveness
//! watchdog, busy + idle time = elapsed time per CPU; time never goes backwards is a
//! debug assertion in the event loop). A failure prints the experiment JSON to replay.

use proptest::prelude::*;
use schedsim::cost::CostModel;
use schedsim::experiment::{Checks, Experiment, MachineSpec, EXPERIMENT_VERSION};
use schedsim::kernel::{KernelSpec, KernelVersion, Switch};
use schedsim::topology::TopologyInput;
use schedsim::topology::{CoreDesc, LlcDesc, NodeDesc, Topology};
use schedsim::workload::{Workload, WORKLOAD_NAMES};

// For its fixed-seed proptest configuration only.
#[allow(dead_code)]
mod campaign;

fn topology() -> impl Strategy<Value = Topology> {
    // Non-uniform: each core its own SMT width (up to 4), LLCs of different sizes.
    let core = prop_oneof![4 => Just(1u32), 4 => Just(2u32), 1 => 3u32..=4].prop_map(|threads| CoreDesc { threads });
    let llc = prop::collection::vec(core, 1..=8).prop_map(|cores| LlcDesc { cores });
    let node = prop::collection::vec(llc, 1..=3).prop_map(|llcs| NodeDesc { llcs });
    let slit = prop::collection::vec(prop::sample::select(vec![12u32, 16, 20, 21, 30, 32, 40]), 9);
    (prop::collection::vec(node, 1..=3), prop::option::of(slit)).prop_map(|(nodes, slit)| {
        let n = nodes.len();
        // A symmetric SLIT from the sampled distances (upper triangle, row by row).
        #[allow(clippy::needless_range_loop)] // d[i][j] and d[j][i] side by side
        let numa_distance = slit.filter(|_| n > 1).map(|v| {
            let mut d = vec![vec![10u32; n]; n];
            let mut k = 0;
            for i in 0..n {
                for j in i + 1..n {
                    d[i][j] = v[k % v.len()];
                    d[j][i] = d[i][j];
                    k += 1;
                }
            }
            d
        });
        Topology { nodes, numa_distance }
    })
}

/// A cost: usually small, sometimes large, at most the 1 s bound.
fn time_ns() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 0u64..=5_000, 2 => 5_000u64..=200_000, 1 => Just(1_000_000_000u64)]
}

fn costs() -> impl Strategy<Value = CostModel> {
    (prop::collection::vec(time_ns(), 17), 100_000u64..=10_000_000, 1u64..=64, 0u64..=1000, 11u32..=254, 3u64..=12)
        .prop_map(|(t, tick, mlp, smt, reclaim, line_shift)| CostModel {
            context_switch_ns: t[0],
            ttwu_base_ns: t[1],
            enqueue_hold_ns: t[2],
            ipi_send_ns: t[3],
            ipi_delivery_ns: t[4],
            irq_entry_exit_ns: t[5],
            llc_hit_ns: t[6],
            dram_ns: t[7],
            cross_llc_ns: t[8],
            remote_node_ns: t[9],
            smt_transfer_ns: t[10],
            idle_probe_base_ns: t[11],
            lb_domain_base_ns: t[12],
            lb_move_task_ns: t[13],
            shard_lock_hold_ns: t[14],
            irq_handler_ns: t[15],
            pelt_update_ns: t[16],
            tick_ns: tick,
            refill_mlp: mlp,
            smt_slowdown_pct: smt,
            node_reclaim_distance: reclaim,
            cache_line_bytes: 1 << line_shift,
            ..CostModel::default()
        })
}

fn kernel() -> impl Strategy<Value = KernelSpec> {
    (0usize..KernelVersion::ALL.len(), prop::collection::vec((0usize..Switch::ALL.len(), any::<bool>()), 0..5))
        .prop_map(|(v, ov)| {
            let mut k = KernelSpec::new("k", KernelVersion::ALL[v]);
            for (s, on) in ov {
                let sw = Switch::ALL[s];
                if sw.is_preempt_model() {
                    // One preemption model, chosen by setting it (KernelSpec::check).
                    if on {
                        k.overrides.retain(|o, _| !o.is_preempt_model());
                        k.overrides.insert(sw, true);
                    }
                    continue;
                }
                k.overrides.insert(sw, on);
            }
            k
        })
}

fn experiment() -> impl Strategy<Value = Experiment> {
    (
        topology(),
        0usize..WORKLOAD_NAMES.len(),
        1u32..=5,
        kernel(),
        any::<u64>(),
        1u32..=16,
        prop::option::weighted(0.5, costs()),
    )
        .prop_map(|(t, w, clients, k, seed, shard, costs)| {
            let mut workload = Workload::by_name(WORKLOAD_NAMES[w]).unwrap();
            // Keep the slow-moving workloads moving inside a few milliseconds.
            match &mut workload {
                Workload::Schbench(p) => {
                    p.sleep_ns = 200_000;
                    p.cpu_ns = 100_000;
                }
                Workload::Hackbench(p) => p.loops = 5,
                Workload::Memcache(p) => {
                    p.rps_per_worker = 50_000;
                    p.background_threads = 2;
                }
                _ => {}
            }
            Experiment {
                version: EXPERIMENT_VERSION,
                name: "swarm".into(),
                machine: MachineSpec { preset: None, topology: Some(TopologyInput::Full(t)), costs, preempt: None },
                workload,
                clients: vec![clients],
                iterations: 1,
                duration_ms: 12,
                warmup_ms: 1,
                seed,
                kernels: vec![k],
                shard_size: shard,
                // Zero to three task-group levels, varied with the seed.
                cgroup_depth: (seed % 4) as u32,
                other_cgroups: (seed % 3) as u32 * 5,
                housekeeping: Default::default(),
                wasted_core_threshold_ns: 1_000_000,
            }
        })
}

proptest! {
    #![proptest_config(campaign::config(500))]

    #[test]
    fn invariants_hold_after_every_event(exp in experiment()) {
        let r = exp.run_with(&mut |_| true, Checks::Invariants);
        prop_assert!(r.is_ok(), "{}\nreplay: {}", r.unwrap_err(), exp.to_json());
        let r = r.unwrap();
        let p = &r.configs[0].points[0];
        let c = &p.counters;
        // Per-CPU accounting closes: busy + idle = CPUs x measured time.
        let total = c.user_ns + c.system_ns + c.idle_ns;
        prop_assert_eq!(total, p.elapsed_ns * r.nr_cpus as u64, "replay: {}", exp.to_json());
        prop_assert!(c.migrations == c.migrations_smt + c.migrations_llc + c.migrations_cross_llc + c.migrations_cross_node);
        prop_assert!(c.sis_recent_hits <= c.sis_recent_attempts && c.sis_prev_hits <= c.sis_prev_attempts);
        prop_assert!(c.affine_moves <= c.affine_attempts);
        // Newidle passes per level: at most one per level per call (calls that began in
        // the warm-up may finish their passes after it), none at a level that is absent.
        let slack = r.nr_cpus as u64;
        for lb in [c.newidle_lb_smt, c.newidle_lb_mc, c.newidle_lb_pkg] {
            prop_assert!(lb <= c.newidle_calls + slack, "{c:?}");
        }
        // One NUMA level per distinct remote distance, all counted together.
        let map = exp.machine.resolve().unwrap().map;
        let numa_levels = schedsim::domains::numa_distances(&map).len().max(1) as u64;
        prop_assert!(c.newidle_lb_numa <= (c.newidle_calls + slack) * numa_levels, "{c:?}");
        // Each newidle entry is stopped by at most one gate, or skipped; v3.8's
        // idle_balance() has neither rd->overload nor a cost budget; the 500 us test
        // is gone from v5.16 on.
        let gated = c.newidle_gate_overload + c.newidle_gate_avg_idle + c.newidle_gate_cost;
        prop_assert!(gated + c.newidle_skipped_pending <= c.newidle_calls, "{c:?}");
        match exp.kernels[0].preset {
            KernelVersion::V3_8 => prop_assert_eq!(c.newidle_gate_overload + c.newidle_gate_cost, 0),
            KernelVersion::V6_5 | KernelVersion::V6_6 | KernelVersion::V6_12 | KernelVersion::V6_18 => prop_assert_eq!(c.newidle_gate_avg_idle, 0),
            _ => {}
        }
        let t = match &exp.machine.topology { Some(TopologyInput::Full(t)) => t, _ => unreachable!() };
        if t.nodes.iter().all(|n| n.llcs.iter().all(|l| l.cores.iter().all(|c| c.threads == 1))) {
            prop_assert_eq!(c.newidle_lb_smt, 0);
        }
        if t.nodes.len() == 1 {
            prop_assert_eq!(c.newidle_lb_numa, 0);
        }
    }
}
