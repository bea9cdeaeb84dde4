//! Where a pending reschedule takes effect under each preemption model
//! (`PREEMPT_NONE`, `_VOLUNTARY`, `PREEMPT`, `_LAZY`; `preempt=` with
//! `CONFIG_PREEMPT_DYNAMIC`): inside the kernel (`preempt_enable()`,
//! `preempt_schedule_irq()`) or only at the return to user mode
//! (`exit_to_user_mode_loop()`), and the latter point itself for a task program.

use crate::facts::kernel::PreemptModel;
use crate::facts::workload::Action;
use crate::state::*;

impl Sim {
    /// Before step `a` of `t`, which is not more of the system call it is in: the
    /// return to user mode (`exit_to_user_mode_loop()`, v5.11+ `kernel/entry/common.c`;
    /// `prepare_exit_to_usermode()` before), where a reschedule that the kernel did not
    /// take (`none`, `voluntary`, `lazy`) is honoured. The step waits in `stash` (a
    /// `Block` is asked again: the workload answers it anew when the task runs).
    /// Returns whether `t` was preempted. Kernel threads never get here, and with
    /// `full` a pending reschedule has preempted already.
    #[inline(always)]
    pub(super) fn return_to_user(&mut self, c: u32, t: u32, a: Action) -> bool {
        let task = &mut self.tasks[t as usize];
        if !task.in_sys || matches!(a, Action::Sys(_)) {
            return false;
        }
        task.in_sys = false;
        let cpu = &self.cpus[c as usize];
        if task.kthread || self.cfg.preempt == PreemptModel::Full || !cpu.need_resched || cpu.nr_running <= 1 {
            return false;
        }
        match a {
            Action::Block => {}
            Action::Run(ns) => task.pending_run_ns = ns,
            _ => task.stash = Some(a),
        }
        self.preempt(c);
        true
    }
}

/// Whether `cpu`'s pending reschedule preempts `task` (its `curr`) where it stands now,
/// under `model`. In the kernel (a system call's work, a kernel thread) only a
/// preemptible kernel preempts: `full`, or `lazy` once the reschedule is not lazy. A
/// task interrupted in user mode returns there through `exit_to_user_mode_loop()`.
#[inline(always)]
pub(crate) fn preempts_here(task: &Task, cpu: &Cpu, model: PreemptModel) -> bool {
    let in_kernel = task.in_sys || task.kthread;
    !in_kernel || kernel_preempts(model, cpu.resched_lazy)
}

/// Whether a pending reschedule preempts a task running in the kernel under `model`:
/// `full` always (`preempt_enable()`, `preempt_schedule_irq()`), `lazy` once the
/// reschedule is a full one (another class's, or promoted by the tick), `none` and
/// `voluntary` never (they wait for a block, the return to user mode, or a
/// `cond_resched()` / `might_resched()` point, which no modelled system call has
/// after its wakeup).
#[inline(always)]
fn kernel_preempts(model: PreemptModel, lazy: bool) -> bool {
    match model {
        PreemptModel::Full => true,
        PreemptModel::Lazy => !lazy,
        PreemptModel::None | PreemptModel::Voluntary => false,
    }
}
