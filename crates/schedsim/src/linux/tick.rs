//! The scheduler tick (`scheduler_tick()`, v5.x `kernel/sched/core.c`; `sched_tick()`
//! from v6.13): slice expiry, PELT, periodic balancing. Moved out of `sched.rs`.
use crate::state::*;

impl Sim {
    #[inline(always)]
    pub(crate) fn arm_tick(&mut self, c: u32) {
        let cpu = &mut self.cpus[c as usize];
        if cpu.tick_armed {
            return;
        }
        cpu.tick_armed = true;
        let tick = self.cost.tick_ns;
        let at = (self.now / tick + 1) * tick;
        self.push(at, Ev::Tick { cpu: c });
    }

    /// `scheduler_tick()`: slice expiry (`check_preempt_tick`), PELT, periodic and
    /// nohz balancing. Idle CPUs do not tick (NO_HZ_IDLE).
    pub(crate) fn tick(&mut self, c: u32) {
        self.cpus[c as usize].tick_armed = false;
        if matches!(self.cpus[c as usize].phase, Phase::Idle | Phase::Waking) {
            return;
        }
        // sched_tick() (v6.13): `if (dynamic_preempt_lazy() && tif_test_bit(
        // TIF_NEED_RESCHED_LAZY)) resched_curr(rq);` before the class's task_tick(): a
        // lazy reschedule a tick old becomes a full one, taken at this interrupt's exit.
        // (A task in the kernel then preempts where its current kernel segment ends,
        // as preempt_schedule_irq() would at this interrupt's return.)
        self.cpus[c as usize].resched_lazy = false;
        self.update_load(c);
        self.update_curr(c);
        if self.cfg.eevdf() {
            // v6.6 has no check_preempt_tick(): update_curr() above gave curr a new
            // request if it used its slice, and asked for the reschedule
            // (update_deadline()), which the return from the tick takes.
            if self.cpus[c as usize].need_resched && matches!(self.cpus[c as usize].phase, Phase::User) {
                self.pause_user(c);
                self.kernel(c, 0, Phase::TaskSys);
            }
        } else if let Some(t) = self.cpus[c as usize].curr {
            let nr = self.cpus[c as usize].nr_running as u64;
            if nr > 1 && self.tasks[t as usize].state == TState::Running {
                let slice = (self.sched_latency_ns / nr).max(self.min_gran_ns);
                let ran = self.tasks[t as usize].vruntime - self.tasks[t as usize].slice_start;
                if ran >= slice {
                    self.cpus[c as usize].need_resched = true;
                    if matches!(self.cpus[c as usize].phase, Phase::User) {
                        self.pause_user(c);
                        self.kernel(c, 0, Phase::TaskSys);
                    }
                }
            }
        }
        let cost = self.periodic_balance(c);
        if cost > 0 {
            match self.cpus[c as usize].phase {
                Phase::User => {
                    self.pause_user(c);
                    self.kernel(c, cost, Phase::TaskSys);
                }
                Phase::TaskSys | Phase::Irq | Phase::Switch(_) | Phase::Newidle { .. } => self.extend_kernel(c, cost),
                _ => {}
            }
        }
        self.arm_tick(c);
    }
}
