//! Floor 2, the simulation's state: the [`Sim`] struct and its parts, integer-nanosecond
//! time, events ordered by (time, seq), per-CPU state machines and per-task state. The
//! kernel model (floor 3) reads and changes it; the driver (floor 4) advances it.
//!
//! A CPU is always in one [`Phase`]: idle in a C-state, waking from one, running user
//! code of its current task, or running kernel code (a "segment" with a continuation).
//! Kernel functions on the wakeup path run at one instant, read the state at that
//! instant, and charge their cost as a kernel segment on the CPU that runs them; their
//! effects on other CPUs land as events after that cost (and any IPI latency).

mod cpu;
pub(crate) mod evq;
mod lock;
pub(crate) mod pelt;
#[cfg(feature = "policy")]
pub(crate) mod policy;
#[cfg(feature = "policy")]
pub(crate) mod policy_code;
pub(crate) mod recorder;
pub(crate) mod segq;
mod task;
mod tracing;
mod views;

pub(crate) use cpu::{Cpu, Irq, Mode, Phase, IDLE_HORIZON_NS};
pub(crate) use evq::Ev;
pub(crate) use lock::Lock;
pub(crate) use task::{TState, Task, WakeeFlips};

use crate::facts::cost::CostModel;
use crate::facts::counterfactual::Counterfactual;
use crate::facts::domains::Domains;
use crate::facts::kernel::KernelConfig;
use crate::facts::metrics::{Counters, Histogram};
use crate::facts::recording::WastedMoment;
use crate::facts::rng::Pcg64;
use crate::facts::topology::CpuMap;
use crate::facts::trace::{TraceWindow, WakeupTrace};
use crate::facts::workload::{TaskInit, WorkloadState};
use evq::{Event, EventQueue};
use recorder::Recorder;

pub type Time = u64;

/// No CPU: in a task's `last_ran_cpu` and `last_rq` before it first runs or queues,
/// and as the waker's CPU in `wake_data` before its first wakeup. A sentinel rather
/// than `Option<u32>`, which widens `Task` on the hot path: the task fields,
/// `Phase::Switch` and `check_preempt`'s waker CPU as `Option`s measured 3,628
/// instructions per simulated wakeup against 3,594 as sentinels
/// (`scripts/instr-per-wakeup.sh`).
pub(crate) const NO_CPU: u32 = u32::MAX;
/// No task: the idle task as the task a context switch goes to (`Phase::Switch`), and
/// no last wakee yet (`WakeeFlips::last`). A sentinel for the reason of [`NO_CPU`].
pub(crate) const NO_TASK: u32 = u32::MAX;

/// A CPU number (an index into `Sim::cpus`), where a signature also takes tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct CpuId(pub u32);

/// A task (an index into `Sim::tasks`), where a signature also takes CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct TaskId(pub u32);

/// `sysctl_sched_migration_cost`: 500 µs.
pub(crate) const MIGRATION_COST_NS: u64 = 500_000;

/// Per-LLC shared state: `sd_llc_shared` and the SHARED_RUNQ shards.
#[derive(Clone)]
pub(crate) struct Llc {
    pub has_idle_cores: bool,
    pub avg_scan_cost: u64,
    pub nr_idle_scan: u32,
    pub nr_idle_scan_jiffy: u64,
    pub shards: Vec<Shard>,
}

#[derive(Clone)]
pub(crate) struct Shard {
    pub list: std::collections::VecDeque<u32>,
    pub lock: Lock,
    pub overload: bool,
}

/// Per CPU and domain depth: `sd->max_newidle_lb_cost`, `sd->last_balance`,
/// `sd->balance_interval`.
#[derive(Clone, Copy, Default)]
pub(crate) struct DomState {
    pub max_newidle_lb_cost: u64,
    pub last_balance: Time,
    /// `sd->balance_interval` in ms (`sd_init()` sets 1; 0 here means 1).
    pub balance_interval_ms: u64,
    pub next_decay: Time,
    /// `sd->nr_balance_failed`.
    pub nr_balance_failed: u32,
}

/// Options of one simulation run.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub seed: u64,
    /// Run until this time (ns) or until the workload finishes.
    pub end_ns: Time,
    /// Metrics count from here on.
    pub warmup_ns: Time,
    pub trace: Option<TraceWindow>,
    /// Run the invariant checker after every event (tests).
    pub check_invariants: bool,
    /// SHARED_RUNQ shard size (`SHARED_RUNQ_SHARD_SZ`, 6 in v3).
    pub shard_size: u32,
    /// Task-group levels the benchmark runs in (`Experiment::cgroup_depth`).
    pub cgroup_depth: u32,
    /// Other task groups with blocked load on every CPU (`Experiment::other_cgroups`).
    pub other_cgroups: u32,
    /// Hard cap on events processed, against runaway runs.
    pub max_events: u64,
    /// Wasted-core alarm threshold, ns (0: off).
    pub wasted_threshold_ns: u64,
}

/// The simulator. A clone is an independent copy of the whole state: the A/B diff
/// (`linux::counterfactual`) asks another kernel's decision code on one, so that nothing it
/// changes reaches the run it copies.
#[derive(Clone)]
pub struct Sim {
    pub(crate) now: Time,
    pub(crate) seq: u64,
    pub(crate) events: EventQueue,
    pub(crate) map: CpuMap,
    pub(crate) doms: std::sync::Arc<Domains>,
    pub(crate) cost: CostModel,
    pub(crate) cfg: KernelConfig,
    pub(crate) cpus: Vec<Cpu>,
    pub(crate) tasks: Vec<Task>,
    pub(crate) rng: Pcg64,
    pub(crate) wl: WorkloadState,
    pub(crate) m: Counters,
    pub(crate) wake_latency: Histogram,
    pub(crate) llcs: Vec<Llc>,
    pub(crate) dom_state: Vec<DomState>,
    pub(crate) depth_max: usize,
    pub(crate) core_fill: Vec<u64>,
    /// Per core, how many of its CPUs are executing (for the SMT slowdown).
    pub(crate) core_busy: Vec<u8>,
    pub(crate) llc_fill: Vec<u64>,
    pub(crate) rd_overload: bool,
    /// Per task group on the leaf lists (the benchmark's levels below the root, then
    /// the other groups), the CPU that last wrote its `tg->load_avg` line (`None`:
    /// nobody yet).
    pub(crate) tg_load_writer: Vec<Option<u32>>,
    pub(crate) nohz_next: Time,
    pub(crate) opts: SimOptions,
    pub(crate) measuring: bool,
    /// The earliest event time at which the loop must look at the run's end or the
    /// warm-up's end: below it, neither can have come.
    pub(crate) boundary: Time,
    pub(crate) wake_index: u64,
    /// The wakeup being traced right now.
    pub(crate) trace: Option<WakeupTrace>,
    pub(crate) traces: Vec<WakeupTrace>,
    /// Why the run stopped, if it failed. Boxed: the loop tests it after every event,
    /// and a test for a null pointer is shorter than one for the niche of a `String`.
    pub(crate) error: Option<Box<str>>,
    pub(crate) events_done: u64,
    pub(crate) wakeup_gran_ns: u64,
    pub(crate) sched_latency_ns: u64,
    pub(crate) min_gran_ns: u64,
    pub(crate) measure_start: Time,
    pub(crate) stop_after_trace: bool,
    pub(crate) segs: segq::SegQueue,
    pub(crate) wasted_episode: bool,
    pub(crate) wasted_moments: Vec<WastedMoment>,
    pub(crate) rec: Option<Recorder>,
    /// The A/B diff: kernel B's decision is asked at every traced wakeup.
    pub(crate) diff: Option<Box<Counterfactual>>,
    /// The `facts::policy::HOOK_*` bits of the wakeup-path functions a policy script
    /// replaces; 0 without a script and while a script runs (the kernel functions it
    /// calls are the kernel's own). The one test the wakeup path pays per function.
    #[cfg(feature = "policy")]
    pub(crate) hooks: u8,
    #[cfg(feature = "policy")]
    pub(crate) policy: Option<Box<policy::PolicyRun>>,
    /// The A/B diff's kernel B's script, between the wakeups it is asked on: its random
    /// stream and budget go on from one to the next, as in B's own run.
    #[cfg(feature = "policy")]
    pub(crate) diff_policy: Option<Box<policy::PolicyRun>>,
}

impl Sim {
    pub(crate) fn new(
        map: CpuMap,
        cost: CostModel,
        cfg: KernelConfig,
        wl: WorkloadState,
        inits: Vec<TaskInit>,
        opts: SimOptions,
        doms: std::sync::Arc<Domains>,
    ) -> Sim {
        let n = map.nr_cpus() as usize;
        let depth_max = doms.max_depth().max(1);
        let cpus = (0..n).map(|_| Cpu::new()).collect();
        let shard_size = opts.shard_size.max(1);
        let llcs = map
            .llc_cpus
            .iter()
            .map(|span| {
                let shards = (span.len() as u32).div_ceil(shard_size).max(1);
                Llc {
                    has_idle_cores: true,
                    avg_scan_cost: 0,
                    nr_idle_scan: span.len() as u32,
                    nr_idle_scan_jiffy: 0,
                    shards: (0..shards)
                        .map(|_| Shard { list: Default::default(), lock: Lock::default(), overload: false })
                        .collect(),
                }
            })
            .collect();
        let tasks = inits.into_iter().map(Task::new).collect();
        // sysctl_sched_{latency,min_granularity,wakeup_granularity} scale with
        // 1 + ilog2(min(ncpus, 8)) (SCHED_TUNABLESCALING_LOG).
        let factor = 1 + (n.clamp(1, 8) as u64).ilog2() as u64;
        let rng = Pcg64::new(opts.seed, 0x5eed);
        let cores = map.core_cpus.len();
        let nllc = map.llc_cpus.len();
        Sim {
            now: 0,
            seq: 0,
            events: EventQueue::default(),
            doms,
            cost,
            cfg,
            cpus,
            tasks,
            rng,
            wl,
            m: Counters::default(),
            wake_latency: Histogram::default(),
            llcs,
            dom_state: vec![DomState::default(); n * depth_max],
            depth_max,
            core_fill: vec![0; cores],
            core_busy: vec![0; cores],
            llc_fill: vec![0; nllc],
            rd_overload: false,
            tg_load_writer: vec![None; (opts.cgroup_depth + opts.other_cgroups) as usize],
            nohz_next: 0,
            measuring: opts.warmup_ns == 0,
            // The driver sets it at the first event (any time is past 0).
            boundary: 0,
            opts,
            wake_index: 0,
            trace: None,
            traces: Vec::new(),
            error: None,
            events_done: 0,
            wakeup_gran_ns: 1_000_000 * factor,
            sched_latency_ns: 6_000_000 * factor,
            // v6.15 (2ae891b82695): sysctl_sched_base_slice, which EEVDF reads where
            // CFS read the minimum granularity, is 0.70 ms.
            min_gran_ns: if cfg.since(6, 15) { 700_000 } else { 750_000 } * factor,
            measure_start: 0,
            stop_after_trace: false,
            segs: segq::SegQueue::new(n),
            wasted_episode: false,
            wasted_moments: Vec::new(),
            rec: None,
            diff: None,
            #[cfg(feature = "policy")]
            hooks: 0,
            #[cfg(feature = "policy")]
            policy: None,
            #[cfg(feature = "policy")]
            diff_policy: None,
            map,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, time: Time, ev: Ev) {
        self.seq += 1;
        self.events.push(Event { key: ((time as u128) << 64) | self.seq as u128, ev });
    }

    /// Schedules the end of `c`'s current segment.
    #[inline]
    pub(crate) fn set_seg(&mut self, c: u32, end: Time) {
        self.seq += 1;
        self.segs.set(c, (end, self.seq));
    }

    /// Cancels the end of `c`'s current segment.
    #[inline]
    pub(crate) fn clear_seg(&mut self, c: u32) {
        debug_assert!(self.cpus[c as usize].phase != Phase::Waking, "a waking CPU's wake-up end cancelled");
        self.segs.remove(c);
    }

    #[inline]
    pub(crate) fn dom(&mut self, cpu: u32, depth: usize) -> &mut DomState {
        &mut self.dom_state[cpu as usize * self.depth_max + depth]
    }

    /// Closes the accounting interval of `c` up to now.
    #[inline]
    pub(crate) fn account(&mut self, c: u32) {
        let now = self.now;
        self.cpus[c as usize].account(now);
    }

    #[inline]
    pub(crate) fn set_mode(&mut self, c: u32, m: Mode) {
        let now = self.now;
        self.cpus[c as usize].set_mode(now, m);
    }

    /// Starts a kernel segment of `ns` on `c`.
    #[inline]
    pub(crate) fn kernel(&mut self, c: u32, ns: u64, phase: Phase) {
        let now = self.now;
        let end = self.cpus[c as usize].start_kernel(now, ns, phase);
        self.set_seg(c, end);
    }

    /// Lengthens the running kernel segment of `c` by `ns` (an interrupt inside it).
    pub(crate) fn extend_kernel(&mut self, c: u32, ns: u64) {
        let cpu = &mut self.cpus[c as usize];
        cpu.seg_end = cpu.seg_end.saturating_add(ns);
        let end = cpu.seg_end;
        self.set_seg(c, end);
    }

    /// `idle_cpu()` (v5.8+ form, the same for earlier wake_list checks): running the idle
    /// task, nothing runnable, no queued wakeup.
    #[inline]
    pub(crate) fn idle_cpu(&self, c: u32) -> bool {
        let cpu = &self.cpus[c as usize];
        cpu.curr.is_none() && cpu.nr_running == 0 && !cpu.ttwu_pending
    }

    /// Executing instructions (not idle, not waking up).
    #[inline]
    pub(crate) fn busy(&self, c: u32) -> bool {
        self.cpus[c as usize].phase.busy()
    }

    #[inline]
    pub(crate) fn allowed(&self, t: u32, c: u32) -> bool {
        self.tasks[t as usize].pinned.is_none_or(|p| p == c)
    }

    pub(crate) fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg.into());
        }
    }
}
