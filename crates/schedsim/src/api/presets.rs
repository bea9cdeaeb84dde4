//! Built-in experiments: one per seed patch, reproducing its setting, and a small demo.

use crate::api::experiment::{Experiment, MachineSpec};
use crate::facts::kernel::{KernelSpec, KernelVersion as V, Switch};
use crate::facts::workload::Workload;

/// A built-in experiment and what it shows.
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub experiment: Experiment,
}

fn exp(
    name: &str,
    machine: &str,
    workload: &str,
    clients: &[u32],
    iterations: u32,
    duration_ms: u64,
    kernels: Vec<KernelSpec>,
) -> Experiment {
    let machine = MachineSpec { preset: Some(machine.into()), topology: None, costs: None, preempt: None };
    let workload = Workload::by_name(workload).expect("built-in workload name");
    let mut e = Experiment::new(name, machine, workload, clients, kernels).with_duration_ms(duration_ms);
    e.iterations = iterations;
    e
}

pub fn presets() -> Vec<Preset> {
    let k = KernelSpec::new;
    let mut v = vec![
        Preset {
            name: "demo",
            description: "tbench on the 8-CPU teaching box, v5.15 against v4.15",
            experiment: exp("demo", "teaching", "tbench", &[1, 2, 4, 8], 2, 100, vec![k("v4.15", V::V4_15), k("v5.15", V::V5_15)]),
        },
        Preset {
            name: "seed001",
            description: "Galbraith 2013: one tbench pair on a 10-core SMT package, sis-prev-idle off/on",
            experiment: exp("seed001", "westmere-1s", "tbench", &[1], 3, 400, vec![k("v3.8", V::V3_8), k("prev-idle", V::V3_8).with(Switch::SisPrevIdle, true)]),
        },
        Preset {
            name: "seed000",
            // The seed's own kernels: "noirq" is 4.15-rc3 with RFC 1/4 (7332dec055f2),
            // "wakeprev" adds RFC 2/4 as posted (see Switch::WakeAffinePrevRfc).
            description: "Gorman 2017: dbench 1-128 clients on 2-socket Cascade Lake, the RFC as measured: noirq vs wakeprev",
            // Dec 2017: openSUSE's and SLE's config was still PREEMPT_NONE (the machine's
            // voluntary is that of 2019 on, when seed 003 ran).
            experiment: {
                let mut e = exp("seed000", "cascadelake-2s", "dbench", &[1, 2, 4, 8, 16, 32, 64, 128], 3, 300, vec![
                    k("noirq", V::V4_15).with(Switch::WakeAffineNoirq, true),
                    k("wakeprev", V::V4_15).with(Switch::WakeAffineNoirq, true).with(Switch::WakeAffinePrevRfc, true),
                ]);
                e.machine.preempt = Some(crate::facts::kernel::PreemptModel::None);
                e
            },
        },
        Preset {
            name: "seed002",
            // 1.5 to 2.5 workers per CPU (45-98% busy): the patch acts when a worker is
            // woken again while still going to sleep, which a lightly loaded service
            // (20-60 workers, 7% busy) never does.
            description: "van Riel 2021: busy memcache-like service (120-200 workers) on 2-socket Cascade Lake, newidle-skip-pending off/on",
            experiment: exp("seed002", "cascadelake-2s", "memcache", &[120, 160, 200], 3, 300, vec![k("v5.13", V::V5_13), k("skip-pending", V::V5_13).with(Switch::NewidleSkipPending, true)]),
        },
        Preset {
            name: "seed003-pipe",
            description: "Gorman 2021: perf bench sched pipe on 2-socket Cascade Lake, recent-used-prev off/on",
            experiment: exp("seed003-pipe", "cascadelake-2s", "pipe", &[1], 3, 200, vec![k("v5.14", V::V5_14), k("recent-prev", V::V5_14).with(Switch::RecentUsedPrev, true)]),
        },
        Preset {
            name: "seed003-hackbench",
            description: "Gorman 2021: hackbench on 2-socket Cascade Lake, recent-used-prev off/on",
            experiment: exp("seed003-hackbench", "cascadelake-2s", "hackbench", &[1, 4, 8], 3, 500, vec![k("v5.14", V::V5_14), k("recent-prev", V::V5_14).with(Switch::RecentUsedPrev, true)]),
        },
        Preset {
            name: "seed003-tbench",
            description: "Gorman 2021: tbench 1-320 pairs (mmtests' series for 80 CPUs) on 2-socket Cascade Lake, recent-used-prev off/on",
            // mmtests' config-network-tbench of August 2021: TBENCH_MAX_CLIENTS =
            // NUMCPUS*4, clients in powers of two from 1, then the maximum
            // (threads_powertwo_begin). The seed's hit rate is the counters' total over
            // the whole series, so the series decides it.
            experiment: exp("seed003-tbench", "cascadelake-2s", "tbench", &[1, 2, 4, 8, 16, 32, 64, 128, 256, 320], 3, 200, vec![k("v5.14", V::V5_14), k("recent-prev", V::V5_14).with(Switch::RecentUsedPrev, true)]),
        },
        Preset {
            name: "seed004",
            description: "Nayak 2023: tbench 128 on 2-socket EPYC Milan, 16-CPU shards: tip, SHARED_RUNQ with patches 1-2, full series",
            experiment: {
                let mut e = exp(
                    "seed004",
                    "milan-2s",
                    "tbench",
                    &[128],
                    3,
                    100,
                    vec![
                        k("tip", V::V6_5),
                        k("shared_runq", V::V6_5).with(Switch::SharedRunq, true),
                        k("overload", V::V6_5).with(Switch::SharedRunq, true).with(Switch::SharedRunqOverload, true),
                    ],
                );
                e.shard_size = 16;
                e
            },
        },
    ];
    for p in &mut v {
        p.experiment.warmup_ms = p.experiment.duration_ms / 10;
    }
    #[cfg(feature = "bundled-traces")]
    v.extend(replays());
    v
}

/// The replay presets: two traces recorded on the `kvm-2` box (`traces/README.md` has
/// the recipes), each replayed whole under two kernels. Imported once per process.
#[cfg(feature = "bundled-traces")]
fn replays() -> Vec<Preset> {
    use crate::facts::sched_trace;
    use std::sync::OnceLock;
    static TRACES: OnceLock<Vec<Option<sched_trace::Trace>>> = OnceLock::new();
    let traces = TRACES.get_or_init(|| {
        [
            ("dbench.perf.txt.gz", &include_bytes!("../../../../traces/dbench.perf.txt.gz")[..]),
            ("make.perf.txt.gz", &include_bytes!("../../../../traces/make.perf.txt.gz")[..]),
        ]
        .iter()
        .map(|(name, bytes)| sched_trace::import(bytes, name).ok())
        .collect()
    });
    let machine = || MachineSpec { preset: Some("kvm-2".into()), topology: None, costs: None, preempt: None };
    let k = KernelSpec::new;
    let mut out = Vec::new();
    let specs: [(&'static str, &'static str, Vec<KernelSpec>); 2] = [
        (
            "replay-dbench",
            "replay of a real dbench on ext4 (2 clients, 0.5 s traced on a 2-vCPU KVM guest): jbd2, kworker and ksoftirqd wake the clients",
            vec![k("v4.15", V::V4_15), k("v6.5", V::V6_5)],
        ),
        (
            "replay-make",
            "replay of a real make -j2 (0.5 s traced on a 2-vCPU KVM guest): forks, exits and short-lived compilers",
            vec![k("v4.15", V::V4_15), k("v6.5", V::V6_5)],
        ),
    ];
    for ((name, description, kernels), trace) in specs.into_iter().zip(traces) {
        // A bundled trace that does not import is a build defect the tests catch.
        let Some(t) = trace else { continue };
        let mut e = Experiment::replay_of(t, machine(), kernels);
        e.name = name.into();
        e.clients = vec![1, 2];
        e.iterations = 2;
        out.push(Preset { name, description, experiment: e });
    }
    out
}

/// Looks an experiment up by name.
pub fn experiment(name: &str) -> Option<Experiment> {
    presets().into_iter().find(|p| p.name == name).map(|p| p.experiment)
}
