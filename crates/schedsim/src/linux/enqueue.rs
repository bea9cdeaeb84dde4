//! A task joining a runqueue and what that may preempt: `ttwu_do_activate()`,
//! `activate_task()`/`enqueue_task_fair()` and `check_preempt_wakeup()` (v5.x
//! `kernel/sched/core.c`, `fair.c`; EEVDF's in `eevdf.rs`), with `avg_idle`'s sample
//! at a wakeup. Moved out of `sched.rs`, which calls them.
use super::idle::WakeSignal;
use super::sched::Enqueue;
use crate::facts::kernel::PreemptModel;
use crate::state::pelt::{Signal, NICE_0_LOAD, SCHED_CAPACITY_SCALE};
use crate::state::*;

impl Sim {
    /// The delayed half of a direct remote wakeup: the task lands on `c`'s runqueue.
    pub(crate) fn enqueue_wakee(&mut self, c: u32, t: u32) {
        if self.tasks[t as usize].state != TState::Waking {
            return;
        }
        let from = self.tasks[t as usize].wake_data.0;
        self.ttwu_activate(c, t);
        self.check_preempt(c, t, from);
    }

    /// `activate_task()`: `t` joins `c`'s runqueue.
    #[inline(always)]
    pub(crate) fn activate(&mut self, c: u32, t: u32) {
        self.activate_as(c, t, Enqueue::Activate);
    }

    /// [`Sim::activate`], and for [`Enqueue::Wakeup`] [`Sim::ttwu_activate`]'s
    /// `avg_idle` sample, on one lookup of the CPU.
    #[inline(always)]
    pub(crate) fn activate_as(&mut self, c: u32, t: u32, how: Enqueue) {
        if self.cfg.eevdf() {
            // v6.6: place_entity() with the lag kept at dequeue, on any runqueue
            // (e8f331bcc270: a migrating task carries its lag, not its vruntime
            // relative to the old min_vruntime); ENQUEUE_INITIAL for a fork.
            super::eevdf::place_entity(self.rq(c), t, how == Enqueue::Fork);
            self.enqueue(c, t, how, false);
        } else {
            self.enqueue(c, t, how, true);
        }
    }

    /// `enqueue_entity()` and the accounting around it; `cfs`: with the vruntime
    /// placement before v6.6 (a constant at both callers, so each gets its own code).
    #[inline(always)]
    fn enqueue(&mut self, c: u32, t: u32, how: Enqueue, cfs: bool) {
        let now = self.now;
        let lat = self.sched_latency_ns;
        let last = self.tasks[t as usize].last_rq;
        // migrate_task_rq_fair() + enqueue_entity(): vruntime moves relative to the
        // old runqueue's min_vruntime onto the new one.
        let old_min =
            if cfs && last != c && last != NO_CPU { Some(self.cpus[last as usize].min_vruntime) } else { None };
        let (v313, tick_ns) = (self.cfg.since(3, 13), self.cost.tick_ns);
        let cpu = &mut self.cpus[c as usize];
        // update_load(c), before the task counts.
        cpu.update_load(now);
        let task = &mut self.tasks[t as usize];
        debug_assert_eq!(task.state, TState::Waking);
        if let Some(old_min) = old_min {
            task.vruntime = task.vruntime.saturating_sub(old_min) + cpu.min_vruntime;
        }
        task.last_rq = c;
        task.cpu = c;
        task.state = TState::Runnable;
        task.load.update(now, 0);
        // place_entity() before v6.6: a sleeper gets at most half a latency period of
        // credit.
        if cfs {
            task.vruntime = task.vruntime.max(cpu.min_vruntime.saturating_sub(lat / 2));
        }
        task.queued_at = now;
        cpu.queue.push(t);
        cpu.nr_running += 1;
        if how == Enqueue::Wakeup {
            cpu.avg_idle_sample(now, v313, tick_ns);
        }
        if cpu.nr_running == 2 {
            self.rd_overload = true;
            let llc = self.map.places[c as usize].llc;
            let shard = self.shard_of(c);
            self.llcs[llc as usize].shards[shard as usize].overload = true;
        }
    }

    /// The enqueue of a delayed task that `ttwu_runnable()` woke (v6.12): back on the
    /// runqueue as it was placed, with no `place_entity()` (`requeue_delayed_entity()`
    /// has done what placement there is) and no `avg_idle` sample.
    pub(crate) fn activate_requeued(&mut self, c: u32, t: u32) {
        self.enqueue(c, t, Enqueue::Activate, false);
    }

    /// `ttwu_do_activate()`: a woken task lands on `c`'s runqueue, and
    /// `ttwu_do_wakeup()` feeds the CPU's idle time since `newidle_balance()` into
    /// `avg_idle`. Only a wakeup does: a task pulled by a balancer clears `idle_stamp`
    /// without a sample, and a fork has none.
    #[inline(always)]
    pub(crate) fn ttwu_activate(&mut self, c: u32, t: u32) {
        self.activate_as(c, t, Enqueue::Wakeup);
    }

    /// `check_preempt_curr` / `resched_curr`: wake an idle CPU, or preempt its task
    /// when the wakee is far enough behind in vruntime (`wakeup_preempt_entity`); from
    /// v6.6 when EEVDF would pick the wakee ([`eevdf::Rq::wakeup_preempt`](super::eevdf::Rq::wakeup_preempt)).
    #[inline(always)]
    pub(crate) fn check_preempt(&mut self, c: u32, t: u32, from: u32) {
        match self.cpus[c as usize].phase {
            Phase::Idle => {
                let ipi = from != c && self.needs_ipi(c);
                if ipi {
                    self.m.ipis += 1;
                }
                self.kick(c, self.now, if ipi { WakeSignal::Ipi } else { WakeSignal::NoIpi });
            }
            Phase::Waking => {}
            _ => {
                // An idle CPU handling an interrupt, or one switching away from a task
                // that blocked, schedules anyway when it is done.
                let Some(curr) = self.cpus[c as usize].curr else { return };
                if self.tasks[curr as usize].state != TState::Running {
                    return;
                }
                let preempt = if !self.cfg.on(crate::facts::kernel::Switch::WakeupPreemption) {
                    // check_preempt_wakeup(): `if (!sched_feat(WAKEUP_PREEMPTION))
                    // return;` after the idle and class tests (EEVDF too).
                    false
                } else if self.cfg.eevdf() {
                    super::eevdf::wakeup_preempt(self.rq(c), t)
                } else {
                    self.update_curr(c);
                    let (cv, wv) = (self.tasks[curr as usize].vruntime, self.tasks[t as usize].vruntime);
                    wv + self.wakeup_gran_ns < cv
                };
                if preempt {
                    let cpu = &mut self.cpus[c as usize];
                    cpu.resched_curr_lazy(self.cfg.preempt == PreemptModel::Lazy);
                    // No IPI to another CPU for a lazy reschedule (`__resched_curr()`
                    // sends one only for TIF_NEED_RESCHED).
                    if cpu.resched_lazy && from != c {
                        return;
                    }
                    if from != c && matches!(self.cpus[c as usize].phase, Phase::User) {
                        self.m.ipis += 1;
                        let at = self.now + self.cost.ipi_delivery_ns;
                        self.push(at, Ev::Resched { cpu: c });
                    } else if matches!(self.cpus[c as usize].phase, Phase::User) {
                        self.pause_user(c);
                        self.kernel(c, 0, Phase::TaskSys);
                    }
                }
            }
        }
    }

    /// Updates the runqueue's PELT signals (load: runnable tasks; util: running).
    pub(crate) fn update_load(&mut self, c: u32) {
        let now = self.now;
        self.cpus[c as usize].update_load(now);
    }
}

impl Cpu {
    /// [`Sim::ttwu_activate`]'s `ttwu_do_wakeup()` part at `now`: the idle time since
    /// `newidle_balance()` (`idle_stamp`) into `avg_idle`, in the v3.13 form when `v313`.
    #[inline(always)]
    fn avg_idle_sample(&mut self, now: Time, v313: bool, tick_ns: u64) {
        if self.idle_stamp != 0 {
            let delta = now - self.idle_stamp;
            let update_avg = |avg: u64| (avg as i64 + (delta as i64 - avg as i64) / 8) as u64;
            if v313 {
                // Jason Low's 9bd721c55c8a (v3.13): average, then clamp to twice the
                // largest newidle balance cost.
                self.avg_idle = update_avg(self.avg_idle).min(2 * self.max_idle_balance_cost);
            } else {
                // v3.8: a sample over twice sysctl_sched_migration_cost replaces the
                // average with that maximum; shorter ones are averaged.
                let max = 2 * MIGRATION_COST_NS;
                self.avg_idle = if delta > max { max } else { update_avg(self.avg_idle) };
            }
            // 94aafc3ee31d (v5.14) ages this for SIS_PROP; earlier kernels never read it.
            self.wake_stamp = now / tick_ns;
            self.wake_avg_idle = self.avg_idle / 2;
            self.idle_stamp = 0;
        }
    }

    /// [`Sim::update_load`] of this CPU at `now`.
    #[inline(always)]
    pub(crate) fn update_load(&mut self, now: Time) {
        let running = self.curr.is_some() as u64;
        Signal::update_pair(
            &mut self.load,
            NICE_0_LOAD * self.nr_running as u64,
            &mut self.util,
            SCHED_CAPACITY_SCALE * running,
            now,
        );
    }
}
