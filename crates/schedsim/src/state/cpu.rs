//! A CPU's state: its [`Phase`] (idle, waking, user, kernel segment), time
//! accounting by [`Mode`], its runqueue (`curr`, the queue, `nr_running`), the idle
//! governor's history, the wake list, its lock and PELT signals.

use super::pelt::Signal;
use super::task::WakeeFlips;
use super::{Lock, Time, MIGRATION_COST_NS};
use crate::facts::workload::IrqToken;

/// The idle governor's horizon with the tick stopped and no timer known: 4 ms, one tick.
pub(crate) const IDLE_HORIZON_NS: u64 = 4_000_000;

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
    /// Context switch to `next` ([`NO_TASK`](super::NO_TASK): the idle task).
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
    /// v6.12: tasks asleep but still on the fair runqueue (`sched_delayed`). They count
    /// in EEVDF's sums, `cfs_rq->nr_running` and the pick only; the model leaves them
    /// out of `nr_running`, the load and the balancers (the kernel counts them in
    /// `rq->nr_running` too).
    pub delayed: Vec<u32>,
    pub min_vruntime: u64,
    pub phase: Phase,
    pub seg_start: Time,
    pub seg_end: Time,
    /// User work left in the current User segment at `seg_start`, at full speed.
    pub work_left_ns: u64,
    pub slow_pct: u64,
    pub need_resched: bool,
    /// `need_resched` is TIF_NEED_RESCHED_LAZY (the `lazy` model's fair-class
    /// reschedule): honoured at the return to user mode, promoted at the next tick.
    pub resched_lazy: bool,
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

impl Cpu {
    /// The fair class's `resched_curr_lazy()` (v6.13): TIF_NEED_RESCHED_LAZY under the
    /// `lazy` model, unless a full reschedule is pending already (it stays full);
    /// TIF_NEED_RESCHED under every other model.
    #[inline(always)]
    pub(crate) fn resched_curr_lazy(&mut self, lazy: bool) {
        self.resched_lazy = lazy && (self.resched_lazy || !self.need_resched);
        self.need_resched = true;
    }

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
    pub(crate) fn new() -> Cpu {
        Cpu {
            idle_ema: IDLE_HORIZON_NS,
            avg_idle: 2 * MIGRATION_COST_NS,
            max_idle_balance_cost: MIGRATION_COST_NS,
            wake_avg_idle: MIGRATION_COST_NS,
            ..Cpu::default()
        }
    }
}

/// An interrupt: a device's, carrying the workload's token, or a task's sleep timer
/// expiring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Irq {
    Device(IrqToken),
    Timer { task: u32 },
}
