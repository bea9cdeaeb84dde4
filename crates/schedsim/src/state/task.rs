//! A task's scheduler state: `task_struct`'s fields the model reads (its CPU,
//! `on_cpu`, vruntime and EEVDF's deadline and lag, affinity, `wakee_flips`, `recent_used_cpu`, PELT load) and the
//! bookkeeping of its cache footprint and wakeup latency.

use super::pelt::Signal;
use super::{Time, NO_CPU, NO_TASK};
use crate::facts::workload::TaskInit;

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
    /// EEVDF (v6.6+): `se->deadline`, the virtual deadline of the current request.
    pub deadline: u64,
    /// EEVDF (v6.6+): `se->vlag`, the lag kept from the last dequeue for the next
    /// `place_entity()`; while the task runs, the deadline it was picked with
    /// (`set_next_entity()`'s stash for RUN_TO_PARITY), as in the kernel.
    pub vlag: i64,
    pub pinned: Option<u32>,
    pub percpu_kthread: bool,
    /// A kernel thread, per-CPU or not (`jbd2`, an unbound `kworker`): the wake log's
    /// waker kind.
    pub kthread: bool,
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
    /// v6.12 `se->sched_delayed`: asleep but still on `cpu`'s fair runqueue (in its
    /// `Cpu::delayed`), until picked or woken.
    pub delayed: bool,
    /// Just requeued by `ttwu_runnable()`: the wakeup-preemption check that follows
    /// charges `curr` with the wakee counted.
    pub requeued: bool,
    /// In the kernel on its own behalf (a system call's work after a wakeup, or
    /// back from `schedule()`): its next step that is not more of that work is a
    /// return to user mode, where `exit_to_user_mode_loop()` honours a pending
    /// reschedule. Kernel threads never return to user mode.
    pub in_sys: bool,
    /// The step a task preempted at its return to user mode had been given and not
    /// begun, taken up when it runs again.
    pub stash: Option<crate::facts::workload::Action>,
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
        WakeeFlips { flips: 0, decay_ts: 0, last: NO_TASK }
    }
}

impl Task {
    /// A task as the workload describes it, not yet created (sleeping, on no runqueue).
    pub(crate) fn new(ti: TaskInit) -> Task {
        Task {
            name: ti.name,
            pinned: ti.pinned,
            wake_data: (NO_CPU, 0),
            last_ran_cpu: NO_CPU,
            last_rq: NO_CPU,
            percpu_kthread: ti.percpu_kthread,
            kthread: ti.kthread,
            ws_bytes: ti.ws_bytes,
            sys_pct: ti.sys_pct,
            ..Task::default()
        }
    }
}
