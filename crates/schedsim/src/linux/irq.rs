//! Interrupts and IPIs on a CPU: a device or timer interrupt raised and handled, the
//! wakeup IPI that drains a CPU's wake list (`sched_ttwu_pending()`, v5.x
//! `kernel/sched/core.c`), and the reschedule IPI (`scheduler_ipi()`). Moved out of
//! `sched.rs`, which calls them.
use super::idle::WakeSignal;
use crate::state::*;

impl Sim {
    /// A device or timer interrupt on `c`.
    pub(crate) fn raise_irq(&mut self, c: u32, irq: Irq) {
        if let Irq::Device(token) = irq {
            match self.wl.on_raise(token, self.now, &mut self.rng) {
                Ok(Some(next)) => self.push(next.at_ns.max(self.now + 1), Ev::Irq { cpu: next.cpu, token: next.token }),
                Ok(None) => {}
                Err(e) => return self.fail(e),
            }
        }
        match self.cpus[c as usize].phase {
            Phase::Idle => {
                self.cpus[c as usize].pending_irqs.push(irq);
                self.kick(c, self.now, WakeSignal::NoIpi);
            }
            Phase::Waking => self.cpus[c as usize].pending_irqs.push(irq),
            Phase::User => {
                self.pause_user(c);
                self.kernel(c, 0, Phase::Irq);
                let cost = self.cost.irq_entry_exit_ns + self.handle_irq(c, irq);
                self.extend_kernel(c, cost);
            }
            Phase::TaskSys | Phase::Irq | Phase::Switch(_) | Phase::Newidle { .. } => {
                let cost = self.cost.irq_entry_exit_ns + self.handle_irq(c, irq);
                self.extend_kernel(c, cost);
            }
        }
    }

    /// Runs the handler: the workload's reaction and the wakeups it issues from
    /// interrupt context. Returns the CPU time spent.
    pub(crate) fn handle_irq(&mut self, c: u32, irq: Irq) -> u64 {
        let mut cost = self.cost.irq_handler_ns;
        let token = match irq {
            Irq::Timer { task } => {
                cost += self.try_to_wake_up(c, None, task, false, 0);
                return cost;
            }
            Irq::Device(token) => token,
        };
        let out = self.wl.irq(token, c, self.now);
        for w in out.wakes {
            cost += self.try_to_wake_up(c, None, w, false, 0);
        }
        cost
    }

    /// The function-call IPI for queued wakeups arrives on `c`.
    pub(crate) fn wake_ipi(&mut self, c: u32) {
        self.cpus[c as usize].ipi_inflight = false;
        match self.cpus[c as usize].phase {
            Phase::Idle => self.kick(c, self.now, WakeSignal::NoIpi),
            Phase::Waking => {}
            Phase::User => {
                if !self.cpus[c as usize].ttwu_pending {
                    return;
                }
                self.pause_user(c);
                self.kernel(c, 0, Phase::Irq);
                let cost = self.cost.irq_entry_exit_ns + self.drain_cost(c);
                self.extend_kernel(c, cost);
            }
            // Interrupts are off in the scheduler; the list is drained on the way to
            // idle or when the next task runs with interrupts on.
            Phase::TaskSys | Phase::Irq => {
                if self.cpus[c as usize].ttwu_pending {
                    let cost = self.drain_cost(c);
                    self.extend_kernel(c, cost);
                }
            }
            Phase::Switch(_) | Phase::Newidle { .. } => {}
        }
    }

    /// `sched_ttwu_pending()`: enqueue everything on the wake list now; returns cost.
    pub(crate) fn drain_cost(&mut self, c: u32) -> u64 {
        let list = std::mem::take(&mut self.cpus[c as usize].wake_list);
        self.cpus[c as usize].ttwu_pending = false;
        let mut cost = 0;
        for t in list {
            cost += self.lock_rq(c, self.now + cost, c, self.cost.enqueue_hold_ns);
            cost += self.shared_runq_enqueue(c, t, self.now + cost, c);
            self.ttwu_activate(c, t);
            self.check_preempt(c, t, c);
        }
        cost
    }

    /// Drains the wake list as a kernel segment, then schedules.
    pub(crate) fn drain_wake_list(&mut self, c: u32) {
        let cost = self.drain_cost(c);
        self.kernel(c, cost, Phase::Irq);
    }

    /// A reschedule IPI arrives: preempt if still wanted.
    pub(crate) fn resched_ipi(&mut self, c: u32) {
        if matches!(self.cpus[c as usize].phase, Phase::User) && self.cpus[c as usize].need_resched {
            self.pause_user(c);
            let cost = self.cost.irq_entry_exit_ns;
            self.kernel(c, cost, Phase::Irq);
        }
    }
}
