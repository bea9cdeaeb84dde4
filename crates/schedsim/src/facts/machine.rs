//! Named machines: a topology plus the hardware facts that differ from the defaults.

use crate::facts::cost::{CState, CostModel};
use crate::facts::kernel::PreemptModel;
use crate::facts::topology::Topology;

/// A named machine preset.
#[derive(Clone, Debug)]
pub struct Machine {
    pub name: &'static str,
    pub description: &'static str,
    pub topology: Topology,
    pub costs: CostModel,
    /// The preemption model of the kernel build this machine ran, and where that
    /// comes from.
    pub preempt: PreemptModel,
    pub preempt_source: &'static str,
}

fn cs(name: &str, exit_latency_ns: u64, target_residency_ns: u64) -> CState {
    CState { name: name.into(), exit_latency_ns, wake_ns: None, target_residency_ns, polling: false }
}

fn poll() -> CState {
    CState { name: "POLL".into(), exit_latency_ns: 0, wake_ns: None, target_residency_ns: 0, polling: true }
}

/// `nehalem_cstates` in `drivers/idle/intel_idle.c` (Nehalem and Westmere):
/// C1 3/6 µs, C1E 10/20 µs, C3 20/80 µs, C6 200/800 µs (exit latency / residency).
fn nehalem_cstates() -> Vec<CState> {
    vec![
        poll(),
        cs("C1", 3_000, 6_000),
        cs("C1E", 10_000, 20_000),
        cs("C3", 20_000, 80_000),
        cs("C6", 200_000, 800_000),
    ]
}

/// AMD Zen 2/3 through `acpi_idle`: C1 (MWAIT) 1 µs, C2 (I/O port) 400 µs as _CST
/// reports them on Rome and Milan; residency = 2 x latency (`latency_factor`).
///
/// C2 is a read of I/O port 0x414 that puts the core in CC6. The 400 µs is the
/// server firmware's declared worst case, which the governor uses; the core's own CC6
/// exit, with the rest of the package awake, is declared as 18 µs for the same port
/// by Zen client firmware (`C2: ACPI IOPORT 0x414 18 uS`, next to a deeper 350 µs
/// C3 at 0x415, in xen_acpi_processor output from a 16-core Zen desktop quoted on
/// xen-devel, "Re: Xen C-state Issues", June 2024). That is the wake time here: taking
/// the declared 400 µs as the wake time stalled every first wakeup of a benchmark by
/// 400 µs, long enough to make waiting tasks cache-cold and let newidle balancing
/// move them across LLCs.
fn zen_cstates() -> Vec<CState> {
    let mut c2 = cs("C2", 400_000, 800_000);
    c2.wake_ns = Some(18_000);
    vec![poll(), cs("C1", 1_000, 2_000), c2]
}

/// The `haltpoll` cpuidle driver of a KVM guest (`drivers/cpuidle/cpuidle-haltpoll.c`,
/// v5.4+): a polling state and one "haltpoll idle" state, HLT, declared 1 µs / 1 µs.
/// HLT in a guest exits to the host, which deschedules the vCPU; a wakeup IPI then
/// needs the host to run the vCPU again, so the state's own wake time is far above its
/// declared latency. Measured on the recording box of `traces/` with nothing else
/// running (`traces/measured.md`, `scripts/record-traces.sh bench probe`, load 0.3-1.0
/// from the benchmark itself): `perf bench sched pipe` with both ends on CPU 0 takes
/// 2.16 µs per round trip, with the ends on CPUs 0 and 1 73.0 µs (68.0-74.2): 35.4 µs
/// more per wakeup, of which the model's IPI send (0.45 µs) and delivery (1.5 µs) are
/// the default's, leaving 33.5 µs for the vCPU's return from HLT. (Under SCHED_FIFO the
/// same probe gave 2.65 and 82.4 µs, 65.7-84.0: 38 µs, noisier. On the loaded box of
/// the first recordings the other vCPU rarely halted, and the FIFO probe gave 12 µs.)
fn haltpoll_cstates() -> Vec<CState> {
    let mut halt = cs("haltpoll idle", 1_000, 1_000);
    halt.wake_ns = Some(33_500);
    vec![poll(), halt]
}

/// All presets, in the order `schedsim presets` lists them.
pub fn machines() -> Vec<Machine> {
    let d = CostModel::default();
    vec![
        Machine {
            name: "westmere-1s",
            description: "1 socket, 10 cores + SMT (Westmere-EX E7, Galbraith's 2013 box)",
            topology: Topology::uniform(1, 1, 10, 2),
            costs: CostModel {
                cstates: nehalem_cstates(),
                l2_bytes: 256 << 10,
                llc_bytes: 30 << 20,
                llc_hit_ns: 25,
                dram_ns: 100,
                ..d.clone()
            },
            // kernel-source config/x86_64/default (openSUSE, 2011-2018): CONFIG_PREEMPT_NONE=y.
            preempt: PreemptModel::None,
            preempt_source: "openSUSE/SLE's x86_64 default config of the time (CONFIG_PREEMPT_NONE=y; openSUSE kept it until early 2019)",
        },
        Machine {
            name: "cascadelake-2s",
            description: "2 sockets x 20 cores + SMT (Xeon Gold 6248-like, Gorman's test box)",
            topology: Topology::uniform(2, 1, 20, 2),
            costs: d.clone(),
            // openSUSE's default flavour switched from PREEMPT_NONE to PREEMPT_VOLUNTARY early in
            // 2019 (Matt Fleming, SUSE, codeblueprint.co.uk 2019-12-23); Gorman's 2021 runs.
            preempt: PreemptModel::Voluntary,
            preempt_source: "openSUSE/SLE's default config from 2019 (CONFIG_PREEMPT_VOLUNTARY=y; M. Fleming, 'Linux preemption, latency and throughput', 2019); seed000's 2017 runs set none",
        },
        Machine {
            name: "milan-2s",
            description: "2 sockets x 8 CCX x 8 cores + SMT (EPYC 7763-like, LLC = 8 cores)",
            // NPS1: the two sockets are 32 apart, the distance Linux reads from
            // EPYC's SLIT (Matt Fleming's v5.4 commit quotes 32 for two hops).
            topology: Topology {
                numa_distance: Some(vec![vec![10, 32], vec![32, 10]]),
                ..Topology::uniform(2, 8, 8, 2)
            },
            costs: CostModel {
                node_reclaim_distance: 32,
                cstates: zen_cstates(),
                l2_bytes: 512 << 10,
                llc_bytes: 32 << 20,
                llc_hit_ns: 15,
                dram_ns: 95,
                cross_llc_ns: 100,
                remote_node_ns: 150,
                ..d.clone()
            },
            // The seed's mail names no config; 2023's distribution kernels default to voluntary.
            preempt: PreemptModel::Voluntary,
            preempt_source: "a distribution config of 2023 (Ubuntu, Fedora, openSUSE: PREEMPT_VOLUNTARY or PREEMPT_DYNAMIC booting voluntary); the seed does not say",
        },
        Machine {
            name: "ryzen-7950x",
            description: "1 socket, 2 CCD x 8 cores + SMT (Ryzen 9 7950X)",
            topology: Topology::uniform(1, 2, 8, 2),
            costs: CostModel {
                node_reclaim_distance: 32,
                cstates: zen_cstates(),
                l2_bytes: 1 << 20,
                llc_bytes: 32 << 20,
                llc_hit_ns: 12,
                dram_ns: 75,
                cross_llc_ns: 75,
                ..d.clone()
            },
            preempt: PreemptModel::Voluntary,
            preempt_source: "a desktop distribution config of 2023 (PREEMPT_DYNAMIC booting voluntary)",
        },
        Machine {
            name: "westmere-4s",
            description: "4 sockets x 10 cores + SMT (Westmere-EX E7-4870)",
            topology: Topology::uniform(4, 1, 10, 2),
            costs: CostModel {
                cstates: nehalem_cstates(),
                l2_bytes: 256 << 10,
                llc_bytes: 30 << 20,
                llc_hit_ns: 25,
                dram_ns: 100,
                cross_llc_ns: 100,
                remote_node_ns: 170,
                ..d.clone()
            },
            preempt: PreemptModel::None,
            preempt_source: "openSUSE/SLE's x86_64 default config of the time (CONFIG_PREEMPT_NONE=y), as westmere-1s",
        },
        Machine {
            name: "kvm-2",
            description: "the KVM guest the bundled traces were recorded on: 2 vCPUs, one LLC, haltpoll idle",
            // traces/box/lscpu-p.txt: CPUs 0 and 1 on cores 0 and 1 of socket 0, L1
            // and L2 private, one L3; traces/box/lscpu.txt: "AMD EPYC", L2 2 MiB (2
            // instances), L3 32 MiB (1 instance).
            topology: Topology::uniform(1, 1, 2, 1),
            costs: CostModel { cstates: haltpoll_cstates(), l2_bytes: 1 << 20, llc_bytes: 32 << 20, ..d.clone() },
            // traces/quiet/*.facts: the boot log's "Dynamic Preempt: none", and
            // /proc/config.gz CONFIG_PREEMPT_NONE=y with CONFIG_PREEMPT_DYNAMIC=y and no
            // preempt= on the command line (traces/quiet/config-preempt-hz-sched.txt).
            preempt: PreemptModel::None,
            preempt_source: "the box's boot log (Dynamic Preempt: none) and /proc/config.gz (CONFIG_PREEMPT_NONE=y, PREEMPT_DYNAMIC)",
        },
        Machine {
            name: "teaching",
            description: "1 socket, 2 LLCs x 2 cores + SMT: 8 CPUs, small enough to watch",
            topology: Topology::uniform(1, 2, 2, 2),
            costs: d,
            preempt: PreemptModel::Full,
            preempt_source: "not a real machine: full, the model's behaviour before it had preemption models",
        },
    ]
}

/// Looks a machine up by name.
pub fn machine(name: &str) -> Option<Machine> {
    machines().into_iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn presets_are_valid() {
        for m in super::machines() {
            m.topology.validate().unwrap();
            m.costs.validate().unwrap();
        }
        assert_eq!(super::machine("milan-2s").unwrap().topology.cpu_count(), 256);
    }
}
