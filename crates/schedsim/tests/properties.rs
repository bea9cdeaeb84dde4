//! Swarm tests: random topologies, workloads and switch sets, with the invariant
//! checker run after every event (each runnable task on exactly one runqueue, busy +
//! idle time = elapsed time per CPU, counts consistent; time never goes backwards is a
//! debug assertion in the event loop). A failure prints the experiment JSON to replay.

use proptest::prelude::*;
use schedsim::experiment::{Experiment, MachineSpec, TopologyInput, EXPERIMENT_VERSION};
use schedsim::kernel::{KernelSpec, KernelVersion, Switch};
use schedsim::topology::{CoreDesc, LlcDesc, NodeDesc, Topology};
use schedsim::workload::{Workload, WORKLOAD_NAMES};

fn topology() -> impl Strategy<Value = Topology> {
    // Non-uniform: each core its own SMT width, LLCs of different sizes.
    let core = (1u32..=2).prop_map(|threads| CoreDesc { threads });
    let llc = prop::collection::vec(core, 1..=4).prop_map(|cores| LlcDesc { cores });
    let node = prop::collection::vec(llc, 1..=3).prop_map(|llcs| NodeDesc { llcs });
    prop::collection::vec(node, 1..=3).prop_map(|nodes| Topology { nodes, numa_distance: None })
}

fn kernel() -> impl Strategy<Value = KernelSpec> {
    (0usize..KernelVersion::ALL.len(), prop::collection::vec((0usize..Switch::ALL.len(), any::<bool>()), 0..5))
        .prop_map(|(v, ov)| {
            let mut k = KernelSpec::new("k", KernelVersion::ALL[v]);
            for (s, on) in ov {
                k.overrides.insert(Switch::ALL[s], on);
            }
            k
        })
}

fn experiment() -> impl Strategy<Value = Experiment> {
    (topology(), 0usize..WORKLOAD_NAMES.len(), 1u32..=5, kernel(), any::<u64>(), 1u32..=16).prop_map(
        |(t, w, clients, k, seed, shard)| {
            let mut workload = Workload::by_name(WORKLOAD_NAMES[w]).unwrap();
            // Keep the slow-moving workloads moving inside a few milliseconds.
            match &mut workload {
                Workload::Schbench { sleep_ns, cpu_ns, .. } => {
                    *sleep_ns = 200_000;
                    *cpu_ns = 100_000;
                }
                Workload::Hackbench { loops, .. } => *loops = 5,
                Workload::Memcache { rps_per_worker, background_threads, .. } => {
                    *rps_per_worker = 50_000;
                    *background_threads = 2;
                }
                _ => {}
            }
            Experiment {
                version: EXPERIMENT_VERSION,
                name: "swarm".into(),
                machine: MachineSpec { preset: None, topology: Some(TopologyInput::Full(t)), costs: None },
                workload,
                clients: vec![clients],
                iterations: 1,
                duration_ms: 12,
                warmup_ms: 1,
                seed,
                kernels: vec![k],
                shard_size: shard,
                housekeeping: Default::default(),
                wasted_core_threshold_ns: 1_000_000,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_after_every_event(exp in experiment()) {
        let r = exp.run_with(&mut |_| true, true);
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
        for lb in [c.newidle_lb_smt, c.newidle_lb_mc, c.newidle_lb_pkg, c.newidle_lb_numa] {
            prop_assert!(lb <= c.newidle_calls + slack, "{c:?}");
        }
        // Each newidle entry is stopped by at most one gate, or skipped; v3.8's
        // idle_balance() has neither rd->overload nor a cost budget; the 500 us test
        // is gone from v5.16 on.
        let gated = c.newidle_gate_overload + c.newidle_gate_avg_idle + c.newidle_gate_cost;
        prop_assert!(gated + c.newidle_skipped_pending <= c.newidle_calls, "{c:?}");
        match exp.kernels[0].preset {
            KernelVersion::V3_8 => prop_assert_eq!(c.newidle_gate_overload + c.newidle_gate_cost, 0),
            KernelVersion::V6_5 => prop_assert_eq!(c.newidle_gate_avg_idle, 0),
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
