//! The discrete-event core: integer-nanosecond time, events ordered by (time, seq),
//! per-CPU state machines and per-task state.
//!
//! A CPU is always in one [`Phase`]: idle in a C-state, waking from one, running user
//! code of its current task, or running kernel code (a "segment" with a continuation).
//! Kernel functions on the wakeup path run at one instant, read the state at that
//! instant, and charge their cost as a kernel segment on the CPU that runs them; their
//! effects on other CPUs land as events after that cost (and any IPI latency).

mod check;
mod evq;
mod idle;
pub(crate) use idle::WakeSignal;
mod lock;
pub(crate) use lock::Lock;
pub(crate) mod pelt;
pub(crate) mod record;
mod sched;
mod segq;
pub mod wasted;

use crate::cost::CostModel;
use crate::domains::Domains;
use crate::kernel::KernelConfig;
use crate::metrics::{Counters, Histogram};
use crate::rng::Pcg64;
use crate::topology::CpuMap;
use crate::trace::{TraceWindow, WakeupTrace};
use crate::workload::{IrqToken, Measured, Sample, TaskInit, WorkloadState};
use evq::{Event, EventQueue};
use pelt::Signal;

pub type Time = u64;
pub(crate) const NONE: u32 = u32::MAX;

/// `sysctl_sched_migration_cost`: 500 µs.
pub(crate) const MIGRATION_COST_NS: u64 = 500_000;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum TState {
    Running,
    Runnable,
    /// Also a task not yet created: [`Sim::start`] wakes every task.
    #[default]
    Sleeping,
    /// Between try_to_wake_up's decision and the enqueue (or wake-list drain).
    Waking,
    Exited,
}

#[derive(Clone, Default)]
pub(crate) struct Task {
    pub name: String,
    pub state: TState,
    /// `task_cpu(p)`.
    pub cpu: u32,
    /// The CPU that still has this task as `curr` while switching away (`p->on_cpu`).
    pub on_cpu: Option<u32>,
    pub vruntime: u64,
    pub pinned: Option<u32>,
    pub percpu_kthread: bool,
    pub ws_bytes: u64,
    /// Share of the task's work that runs in the kernel (syscalls, kthreads), percent.
    pub sys_pct: u8,
    /// `record_wakee()`'s state of this task as a waker.
    pub wakee: WakeeFlips,
    pub recent_used_cpu: u32,
    /// Runnable load (`se.avg.load_avg`, 0..1024).
    pub load: Signal,
    /// User work left from a preempted `Run`, at full speed.
    pub pending_run_ns: u64,
    /// Cache refill and data transfer to pay at the next run, ns.
    pub penalty_ns: u64,
    /// Data handed over by the waker: (waker CPU, bytes).
    pub wake_data: (u32, u64),
    /// When the last wakeup began (for wakeup latency), if not yet running.
    pub woken_at: Option<Time>,
    /// Cache bookkeeping: where it last ran and the CPU's fill counters then.
    pub last_ran_cpu: u32,
    pub core_mark: u64,
    pub llc_mark: u64,
    pub exec_start: Time,
    pub slice_start: Time,
    /// In a SHARED_RUNQ shard list: (LLC, shard).
    pub in_shard: Option<(u32, u32)>,
    /// A wakeup waiting for this task to leave its CPU: (waker CPU, waker, sync).
    pub deferred_wake: Option<(u32, Option<u32>, bool)>,
    /// Being pushed by the stopper: attach to this CPU once switched out.
    pub push_to: Option<u32>,
    /// The runqueue whose min_vruntime `vruntime` is relative to.
    pub last_rq: u32,
    /// When it last joined a runqueue's waiting list.
    pub queued_at: Time,
}

/// What a CPU is doing. A kernel segment's phase says what happens when it ends, one
/// discriminant for every phase (`seg_end` dispatches on it at every segment end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Phase {
    #[default]
    Idle,
    Waking,
    User,
    /// Kernel work on behalf of `curr` (a wakeup it issued); then continue its program.
    TaskSys,
    /// Interrupt handling; then resume what was interrupted.
    Irq,
    /// Context switch to `next` (`NONE`: the idle task).
    Switch(u32),
    /// One domain of newidle balance done.
    Newidle {
        depth: u8,
        curr_cost: u64,
    },
}

impl Phase {
    /// Executing instructions: not idle, not waking up.
    #[inline(always)]
    pub(crate) fn busy(self) -> bool {
        !matches!(self, Phase::Idle | Phase::Waking)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A task's own work: this percentage of it is kernel (system) time, the rest user.
    Task(u8),
    Sys,
    #[default]
    Idle,
}

/// `p->wakee_flips`, `p->wakee_flip_decay_ts` and `p->last_wakee` of a task (or of a
/// CPU's idle task, `current` when an interrupt wakes a task on an idle CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WakeeFlips {
    pub flips: u32,
    pub decay_ts: Time,
    pub last: u32,
}

impl Default for WakeeFlips {
    fn default() -> Self {
        WakeeFlips { flips: 0, decay_ts: 0, last: NONE }
    }
}

#[derive(Clone, Default)]
pub(crate) struct Cpu {
    pub curr: Option<u32>,
    /// `record_wakee()`'s state of this CPU's idle task (`swapper/N`), which is
    /// `current` when an interrupt on an idle CPU wakes a task.
    pub idle_wakee: WakeeFlips,
    /// Runnable tasks waiting for this CPU (not `curr`).
    pub queue: Vec<u32>,
    /// `rq->nr_running`: `queue` plus `curr` if it is runnable.
    pub nr_running: u32,
    pub min_vruntime: u64,
    pub phase: Phase,
    pub seg_start: Time,
    pub seg_end: Time,
    /// User work left in the current User segment at `seg_start`, at full speed.
    pub work_left_ns: u64,
    pub slow_pct: u64,
    pub need_resched: bool,
    pub mode: Mode,
    pub mode_since: Time,
    pub user_ns: u64,
    pub sys_ns: u64,
    pub idle_ns: u64,
    pub cstate: u8,
    pub idle_enter: Time,
    /// The last idle intervals (up to eight), a ring whose oldest entry is at
    /// `idle_hist_head` once full, and the same values sorted.
    pub idle_hist: [u64; 8],
    pub idle_hist_head: u8,
    pub idle_sorted: [u64; 8],
    pub idle_hist_len: u8,
    /// The sum and the sum of squares of the intervals in `idle_hist`, kept as they
    /// enter and leave it, for the governor's typical interval.
    pub idle_sum: u64,
    pub idle_sq: u128,
    /// menu's correction-factor average of measured idle intervals, ns.
    pub idle_ema: u64,
    pub ready_at: Time,
    pub wake_signal_at: Time,
    /// Work waiting for the CPU to come out of idle: interrupts to handle.
    pub pending_irqs: Vec<Irq>,
    pub avg_idle: u64,
    pub idle_stamp: Time,
    pub max_idle_balance_cost: u64,
    pub wake_avg_idle: u64,
    pub wake_stamp: u64,
    pub ttwu_pending: bool,
    pub wake_list: Vec<u32>,
    pub ipi_inflight: bool,
    pub lock: Lock,
    pub load: Signal,
    pub util: Signal,
    pub tick_armed: bool,
    /// Asked by a busy CPU to balance for the idle ones (nohz idle balance).
    pub nohz_kick: bool,
    /// `rq->active_balance`: a stopper push from this CPU is pending.
    pub active_balance: bool,
    /// Kernel time spent outside a segment (a dequeue hook), added to the next one.
    pub carry_ns: u64,
}

impl Task {
    /// A task as the workload describes it, not yet created (sleeping, on no runqueue).
    fn new(ti: TaskInit) -> Task {
        Task {
            name: ti.name,
            pinned: ti.pinned,
            percpu_kthread: ti.percpu_kthread,
            ws_bytes: ti.ws_bytes,
            sys_pct: ti.sys_pct,
            wake_data: (NONE, 0),
            last_ran_cpu: NONE,
            last_rq: NONE,
            ..Task::default()
        }
    }
}

impl Cpu {
    /// Closes the accounting interval up to `now`.
    #[inline]
    pub(crate) fn account(&mut self, now: Time) {
        let d = now.saturating_sub(self.mode_since);
        match self.mode {
            Mode::Task(sys_pct) => {
                let sys = d * sys_pct as u64 / 100;
                self.sys_ns += sys;
                self.user_ns += d - sys;
            }
            Mode::Sys => self.sys_ns += d,
            Mode::Idle => self.idle_ns += d,
        }
        self.mode_since = now;
    }

    /// Switches the accounting mode at `now`, closing the interval of the old one.
    #[inline(always)]
    pub(crate) fn set_mode(&mut self, now: Time, m: Mode) {
        if self.mode != m {
            self.account(now);
            self.mode = m;
        }
    }

    /// Starts a kernel segment of `ns` at `now` in `phase` (what its end does); returns
    /// its end, for the segment queue ([`Sim::kernel`] without the queue).
    #[inline(always)]
    pub(crate) fn start_kernel(&mut self, now: Time, ns: u64, phase: Phase) -> Time {
        debug_assert!(self.phase != Phase::Waking, "a waking CPU's wake-up end replaced");
        debug_assert!(phase.busy() && phase != Phase::User, "a kernel segment in {phase:?}");
        self.set_mode(now, Mode::Sys);
        self.phase = phase;
        self.seg_start = now;
        // Saturating: each cost is at most 1 s (CostModel::validate), but a segment can
        // gather many of them.
        let end = now.saturating_add(ns);
        self.seg_end = end;
        end
    }

    /// An idle CPU at boot: `sched_init()`'s `avg_idle` and `max_idle_balance_cost`, and
    /// the idle governor's prediction at its horizon; everything else zero or empty.
    fn new() -> Cpu {
        Cpu {
            idle_ema: sched::IDLE_HORIZON_NS,
            avg_idle: 2 * MIGRATION_COST_NS,
            max_idle_balance_cost: MIGRATION_COST_NS,
            wake_avg_idle: MIGRATION_COST_NS,
            ..Cpu::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    Enqueue {
        cpu: u32,
        task: u32,
    },
    WakeIpi {
        cpu: u32,
    },
    Resched {
        cpu: u32,
    },
    /// Workload interrupt on a CPU.
    Irq {
        cpu: u32,
        token: IrqToken,
    },
    Timer {
        task: u32,
    },
    /// The scheduler tick; at most one is pending per CPU (`tick_armed`).
    Tick {
        cpu: u32,
    },
    /// A sample of the wasted-core invariant.
    Sample,
    /// The stopper of `src` runs `active_load_balance_cpu_stop()` towards `dst`.
    ActiveBalance {
        src: u32,
        dst: u32,
    },
}

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

/// What one simulation run produced.
pub(crate) struct RunOutcome {
    pub sample: Sample,
    pub counters: Counters,
    pub wake_latency: Histogram,
    pub request_latency: Histogram,
    pub elapsed_ns: u64,
    pub wasted_moments: Vec<wasted::WastedMoment>,
}

/// An interrupt: a device's, carrying the workload's token, or a task's sleep timer
/// expiring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Irq {
    Device(IrqToken),
    Timer { task: u32 },
}

/// The simulator. A clone is an independent copy of the whole state: the A/B diff
/// ([`crate::diff`]) asks another kernel's decision code on one, so that nothing it
/// changes reaches the run it copies.
#[derive(Clone)]
pub struct Sim {
    pub(crate) now: Time,
    seq: u64,
    events: EventQueue,
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
    /// the other groups), the CPU that last wrote its `tg->load_avg` line (`NONE`:
    /// nobody yet).
    pub(crate) tg_load_writer: Vec<u32>,
    pub(crate) nohz_next: Time,
    pub(crate) opts: SimOptions,
    pub(crate) measuring: bool,
    /// The earliest event time at which the loop must look at the run's end or the
    /// warm-up's end: below it, neither can have come.
    boundary: Time,
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
    segs: segq::SegQueue,
    pub(crate) wasted_episode: bool,
    pub(crate) wasted_moments: Vec<wasted::WastedMoment>,
    pub(crate) rec: Option<record::Recorder>,
    /// The A/B diff: kernel B's decision is asked at every traced wakeup.
    pub(crate) diff: Option<Box<crate::diff::Counterfactual>>,
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
            tg_load_writer: vec![NONE; (opts.cgroup_depth + opts.other_cgroups) as usize],
            nohz_next: 0,
            measuring: opts.warmup_ns == 0,
            boundary: Sim::boundary_of(opts.warmup_ns == 0, &opts),
            opts,
            wake_index: 0,
            trace: None,
            traces: Vec::new(),
            error: None,
            events_done: 0,
            wakeup_gran_ns: 1_000_000 * factor,
            sched_latency_ns: 6_000_000 * factor,
            min_gran_ns: 750_000 * factor,
            measure_start: 0,
            stop_after_trace: false,
            segs: segq::SegQueue::new(n),
            wasted_episode: false,
            wasted_moments: Vec::new(),
            rec: None,
            diff: None,
            map,
        }
    }

    /// What this kernel's `build_sched_domains()` reads besides the topology: the
    /// distance past which NUMA levels lose SD_WAKE_AFFINE (`node_reclaim_distance` is
    /// a v5.4 variable; before it, RECLAIM_DISTANCE) and its `sd_init()` form.
    pub(crate) fn domain_params(cfg: &KernelConfig, cost: &CostModel) -> crate::domains::DomainParams {
        use crate::domains::SdInit;
        let reclaim_distance =
            if cfg.since(5, 4) { cost.node_reclaim_distance } else { crate::topology::RECLAIM_DISTANCE };
        let sd_init = if cfg.since(5, 10) {
            SdInit::V5_10
        } else if cfg.since(3, 16) {
            SdInit::V3_16
        } else {
            SdInit::Macros
        };
        crate::domains::DomainParams { reclaim_distance, sd_init }
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

    /// Places every task (fork balancing) and schedules the workload's first events.
    pub(crate) fn start(&mut self) {
        self.start_tasks();
        self.wasted_start();
        for irq in self.wl.initial_irqs(&mut self.rng) {
            self.push(irq.at_ns, Ev::Irq { cpu: irq.cpu, token: irq.token });
        }
    }

    /// Processes the next event. Returns false when the run is over (end time, the
    /// workload finished, or an error, which is then in `self.error`).
    pub(crate) fn step_event(&mut self) -> bool {
        self.step_event_inline()
    }

    /// [`Sim::step_event`], inlined into [`Sim::run`]'s loop: the whole event handling
    /// is inlined into it, and as its own function it saved and restored its registers
    /// and frame once per event.
    #[inline(always)]
    fn step_event_inline(&mut self) -> bool {
        // The next event is the earlier of the main queue and the segment queue.
        let seg = self.segs.peek();
        let ev = self.events.peek();
        let (time, from_seg) = match (seg, ev) {
            (None, None) => return false,
            (Some((t, _, _)), None) => (t, true),
            (None, Some(k)) => ((k >> 64) as Time, false),
            (Some((t, s, _)), Some(k)) => {
                if (((t as u128) << 64) | s as u128) < k {
                    (t, true)
                } else {
                    ((k >> 64) as Time, false)
                }
            }
        };
        if time >= self.boundary {
            if time > self.opts.end_ns {
                return false;
            }
            if !self.measuring && time >= self.opts.warmup_ns {
                self.begin_measuring(time);
            }
            self.boundary = Sim::boundary_of(self.measuring, &self.opts);
        }
        debug_assert!(time >= self.now, "time went backwards");
        self.now = time;
        let what = if from_seg {
            // Let seg_end move this CPU's entry (one sift) rather than pop and push;
            // drop it if no new segment was set.
            let (t, s, c) = seg.unwrap_or((0, 0, 0));
            self.seg_end(c);
            if self.segs.key_of(c) == Some((t, s)) {
                self.segs.remove(c);
            }
            None
        } else {
            let Some(e) = self.events.pop().map(|e| e.ev) else { return false };
            self.dispatch(e);
            Some(e)
        };
        self.events_done += 1;
        if self.error.is_some() {
            return false;
        }
        if self.opts.check_invariants {
            if let Err(err) = self.check() {
                let after = what.map_or_else(|| "a segment end".to_string(), |e| format!("{e:?}"));
                self.error = Some(format!("invariant broken at {} ns after {after}: {err}", self.now).into());
                return false;
            }
        }
        !self.wl.done()
    }

    /// See [`Sim::boundary`]: past the run's end, or at the warm-up's end while it
    /// has not come.
    fn boundary_of(measuring: bool, opts: &SimOptions) -> Time {
        let past_end = opts.end_ns.saturating_add(1);
        if measuring {
            past_end
        } else {
            opts.warmup_ns.min(past_end)
        }
    }

    /// Runs to the end.
    pub(crate) fn run(&mut self, progress: &mut dyn FnMut(Time) -> bool) -> Result<(), String> {
        self.start();
        let mut next_progress = 0;
        // A recording or a trace window can end the run early; neither comes or goes
        // while it runs, so plain runs skip both tests.
        let may_stop_early = self.rec.is_some() || self.stop_after_trace;
        while self.step_event_inline() {
            if self.events_done >= next_progress {
                next_progress = self.events_done + 65_536;
                if !progress(self.now) {
                    return Err("cancelled".into());
                }
                if self.events_done > self.opts.max_events {
                    return Err(format!(
                        "the run needs more than {} events; shorten the duration or lower the client count",
                        self.opts.max_events
                    ));
                }
            }
            if !may_stop_early {
                continue;
            }
            if self.rec_done() {
                break;
            }
            if self.stop_after_trace {
                if let Some(w) = self.opts.trace {
                    if self.wake_index >= w.from.saturating_add(w.count as u64) && self.trace.is_none() {
                        break;
                    }
                }
            }
        }
        if let Some(err) = self.error.take() {
            return Err(err.into());
        }
        self.finish();
        Ok(())
    }

    /// Closes the time accounting at the end of the run. A run that ended inside the
    /// warm-up (the workload finished, or a recording's window closed) measured
    /// nothing: its counters are zero, its CPU times those of the whole run.
    pub(crate) fn finish(&mut self) {
        let end = if self.wl.done() { self.now } else { self.opts.end_ns.max(self.now) };
        self.now = end;
        for c in 0..self.cpus.len() {
            self.account(c as u32);
        }
        if !self.measuring {
            self.reset_counters();
        }
    }

    /// The run's counters and latencies; the workload's metric is read from them
    /// with [`WorkloadState::sample`].
    pub(crate) fn outcome(&mut self) -> RunOutcome {
        let mut m = self.m.clone();
        m.events = self.events_done;
        for cpu in &self.cpus {
            m.user_ns += cpu.user_ns;
            m.system_ns += cpu.sys_ns;
            m.idle_ns += cpu.idle_ns;
        }
        let measured = self.now.saturating_sub(self.measure_start).max(1);
        RunOutcome {
            sample: self.wl.sample(&Measured {
                end_ns: self.now,
                window_ns: measured,
                wake_latency: &self.wake_latency,
            }),
            counters: m,
            wake_latency: self.wake_latency.clone(),
            request_latency: self.wl.request_latency(),
            elapsed_ns: measured,
            wasted_moments: std::mem::take(&mut self.wasted_moments),
        }
    }

    fn begin_measuring(&mut self, at: Time) {
        self.measuring = true;
        self.measure_start = at;
        for c in 0..self.cpus.len() {
            let saved = self.now;
            self.now = at;
            self.account(c as u32);
            self.now = saved;
            let cpu = &mut self.cpus[c];
            cpu.user_ns = 0;
            cpu.sys_ns = 0;
            cpu.idle_ns = 0;
        }
        self.reset_counters();
    }

    /// Forgets every count made so far: the counters count all along, and what they
    /// counted in the warm-up is dropped when measuring begins (or, for a run that ends
    /// inside the warm-up, when it ends).
    fn reset_counters(&mut self) {
        self.m = Counters::default();
        self.wake_latency = Histogram::default();
        self.wasted_moments.clear();
        self.wasted_episode = false;
    }

    #[inline(always)]
    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Enqueue { cpu, task } => self.enqueue_wakee(cpu, task),
            Ev::WakeIpi { cpu } => self.wake_ipi(cpu),
            Ev::Resched { cpu } => self.resched_ipi(cpu),
            Ev::Irq { cpu, token } => self.raise_irq(cpu, Irq::Device(token)),
            Ev::Timer { task } => {
                let cpu = self.tasks[task as usize].cpu;
                self.raise_irq(cpu, Irq::Timer { task });
            }
            Ev::Tick { cpu } => self.tick(cpu),
            Ev::Sample => self.wasted_sample(),
            Ev::ActiveBalance { src, dst } => self.active_balance(src, dst),
        }
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

    #[inline]
    pub(crate) fn allowed(&self, t: u32, c: u32) -> bool {
        self.tasks[t as usize].pinned.is_none_or(|p| p == c)
    }

    /// Starts tracing the current wakeup if it is in the window.
    pub(crate) fn trace_begin(&mut self, wakee: u32, waker: String, this: u32, sync: bool) {
        let in_window = self
            .opts
            .trace
            .is_some_and(|w| self.wake_index >= w.from && self.wake_index < w.from.saturating_add(w.count as u64));
        if !in_window && !self.rec_wants_trace() {
            return;
        }
        let t = &self.tasks[wakee as usize];
        self.trace = Some(WakeupTrace {
            index: self.wake_index,
            time_ns: self.now,
            wakee: t.name.clone(),
            wakee_id: wakee,
            waker,
            waker_cpu: this,
            prev_cpu: t.cpu,
            target_cpu: None,
            sync,
            probed: Vec::new(),
            steps: Vec::new(),
            outcome: None,
        });
    }

    #[inline]
    pub(crate) fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Records a step; `f` runs only while tracing.
    #[inline(always)]
    pub(crate) fn step(&mut self, f: impl FnOnce(&Sim) -> crate::trace::Step) {
        if self.trace.is_some() {
            self.step_traced(f);
        }
    }

    /// [`Sim::step`] while tracing.
    #[cold]
    fn step_traced(&mut self, f: impl FnOnce(&Sim) -> crate::trace::Step) {
        let s = f(self);
        if let Some(tb) = &mut self.trace {
            if tb.steps.len() < crate::trace::TRACE_STEPS_MAX {
                tb.steps.push(s);
            }
        }
    }

    #[inline]
    pub(crate) fn probe(&mut self, this: u32, c: u32) -> u64 {
        if let Some(tb) = &mut self.trace {
            if tb.probed.len() < crate::trace::PROBED_MAX {
                tb.probed.push(c);
            }
        }
        self.cost.idle_probe_base_ns + self.cost.line_transfer_ns(self.map.distance(this, c))
    }

    pub(crate) fn trace_end(&mut self, outcome: crate::trace::Outcome) {
        if let Some(mut tb) = self.trace.take() {
            self.rec_wakeup(tb.wakee_id, tb.index);
            tb.outcome = Some(outcome);
            self.traces.push(tb);
        }
    }

    pub(crate) fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg.into());
        }
    }
}
