//! EEVDF, the fair class's pick, placement and preemption from v6.6
//! (`kernel/sched/fair.c`; Zijlstra's series merged for v6.6: af4cf40470c2 "sched/fair:
//! Add cfs_rq::avg_vruntime", 86bfbb7ce4f6 "sched/fair: Add lag based placement",
//! 147f3efaa241 "sched/fair: Implement an EEVDF-like scheduling policy", e8f331bcc270
//! "sched/smp: Use lag to simplify cross-runqueue placement", 5e963f2bd465 "sched/fair:
//! Commit to EEVDF", 63304558ba5d "sched/eevdf: Curb wakeup-preemption").
//!
//! Every task is nice 0, so each weight is `scale_load_down(NICE_0_LOAD)` = 1024 and
//! `calc_delta_fair()` is the identity; the weights are still written out so that the
//! arithmetic (and its rounding) is the kernel's. The kernel keeps `cfs_rq->avg_vruntime`
//! (the sum of `load`-weighted keys `vruntime - min_vruntime` of the queued entities)
//! and `avg_load` up to date on every enqueue, dequeue and `min_vruntime` move; the
//! model adds the same integers up from the runqueue when it needs them (a runqueue
//! here is a short list that the pick walks anyway), which gives the same values and
//! leaves the older kernels' paths without the bookkeeping.
//!
//! Times in the EEVDF paths are compared as the kernel compares them, by the sign of
//! the wrapping difference: a task placed with positive lag may start below
//! `min_vruntime`, and below zero.

use crate::facts::kernel::{PreemptModel, Switch};
use crate::state::pelt::NICE_0_LOAD;
use crate::state::*;

/// `scale_load_down(se->load.weight)` of a nice-0 task.
const WEIGHT: i64 = NICE_0_LOAD as i64;

/// `(s64)(a - b)`: the signed distance from `b` to `a` on the wrapping u64 clock.
#[inline(always)]
fn delta(a: u64, b: u64) -> i64 {
    a.wrapping_sub(b) as i64
}

/// `cfs_rq->avg_vruntime` and `cfs_rq->avg_load` with `curr` added as `avg_vruntime()`
/// and `entity_eligible()` add it: the weighted sum of keys relative to `min_vruntime`
/// and the total weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AvgSums {
    pub min_vruntime: u64,
    pub avg: i64,
    pub load: i64,
}

impl AvgSums {
    /// The sums of entities with these vruntimes (each of weight 1024).
    pub(crate) fn of(min_vruntime: u64, vruntimes: impl IntoIterator<Item = u64>) -> AvgSums {
        let mut s = AvgSums { min_vruntime, avg: 0, load: 0 };
        for v in vruntimes {
            s.avg = s.avg.wrapping_add(delta(v, min_vruntime).wrapping_mul(WEIGHT));
            s.load += WEIGHT;
        }
        s
    }

    /// `avg_vruntime()` (v6.6, with 650cad561cce "sched/eevdf: Fix avg_vruntime()"): the
    /// weighted average vruntime V, rounded down also when the sum is negative ("sign
    /// flips effective floor / ceil"); `min_vruntime` on an empty runqueue.
    pub(crate) fn avg_vruntime(self) -> u64 {
        let mut avg = self.avg;
        if self.load > 0 {
            if avg < 0 {
                avg -= self.load - 1;
            }
            avg /= self.load;
        }
        self.min_vruntime.wrapping_add(avg as u64)
    }

    /// `entity_eligible()` (v6.6): lag >= 0, that is `V >= vruntime`, tested without the
    /// division as `avg >= key * load`.
    pub(crate) fn eligible(self, vruntime: u64) -> bool {
        self.avg >= delta(vruntime, self.min_vruntime).wrapping_mul(self.load)
    }
}

/// One CPU's fair runqueue as the EEVDF functions see it: the CPU, every task (a
/// slice, so that a call from the older kernels' paths cannot change the length the
/// caller has checked its indices against), the time and the tunables.
pub(crate) struct Rq<'a> {
    pub cpu: &'a mut Cpu,
    pub tasks: &'a mut [Task],
    pub now: Time,
    /// `sysctl_sched_base_slice`, ns.
    pub slice_ns: u64,
    /// `TICK_NSEC`.
    pub tick_ns: u64,
    /// From v6.8 (2227a957e1d5): a deadline tie goes to the queued entity.
    pub ties_to_queued: bool,
    /// DELAY_DEQUEUE (on from v6.12).
    pub delay: bool,
    /// DELAY_ZERO (on from v6.12).
    pub delay_zero: bool,
    /// The `lazy` preemption model: the fair class reschedules lazily.
    pub lazy: bool,
    /// RUN_TO_PARITY, PLACE_LAG and PLACE_DEADLINE_INITIAL (on from v6.6).
    pub run_to_parity: bool,
    pub place_lag: bool,
    pub place_deadline_initial: bool,
}

/// The read-only part of [`Rq`]: what `avg_vruntime()`, `entity_eligible()` and
/// `pick_eevdf()` read.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub cpu: &'a Cpu,
    pub tasks: &'a [Task],
    pub now: Time,
    pub ties_to_queued: bool,
    /// RUN_TO_PARITY (on from v6.6).
    pub run_to_parity: bool,
}

impl View<'_> {
    /// `curr` if it is on the runqueue (`curr->on_rq`): running, or put back and
    /// about to be picked again. A task that blocked stays `curr` until the switch away
    /// finishes but is no longer queued.
    #[inline(always)]
    fn curr_on_rq(&self) -> Option<u32> {
        self.cpu.curr.filter(|&t| matches!(self.tasks[t as usize].state, TState::Running | TState::Runnable))
    }

    /// `curr`'s vruntime as `update_curr()` would leave it now: `enqueue_entity()` calls
    /// `update_curr()` before `place_entity()`; the model folds that call into this read
    /// and the `update_curr()` of the wakeup-preemption check that follows every enqueue.
    fn vruntime_now(&self, t: u32) -> u64 {
        let task = &self.tasks[t as usize];
        if task.state == TState::Running {
            task.vruntime.wrapping_add(self.now.saturating_sub(task.exec_start))
        } else {
            task.vruntime
        }
    }

    /// The runqueue's [`AvgSums`]: the queued tasks (delayed ones too: v6.12's
    /// `sched_delayed` entities stay in the tree) and `curr` if it is running.
    pub(crate) fn avg_sums(&self) -> AvgSums {
        let running = self.curr_on_rq().filter(|&t| self.tasks[t as usize].state == TState::Running);
        let queued = self.cpu.queue.iter().chain(&self.cpu.delayed).map(|&q| self.tasks[q as usize].vruntime);
        AvgSums::of(self.cpu.min_vruntime, queued.chain(running.map(|t| self.vruntime_now(t))))
    }

    /// `pick_eevdf()` (v6.6 with 63304558ba5d's RUN_TO_PARITY, on by default): the
    /// eligible entity with the earliest virtual deadline; `curr` keeps the CPU while it
    /// is eligible and has not been given a new request since it was picked. v6.6's
    /// `__pick_eevdf()` as b01db23d5923 ("sched/eevdf: Fix pick_eevdf()", v6.6-rc6)
    /// left it starts from `best = curr` and a queued entity replaces it only with a
    /// strictly earlier deadline (`deadline_gt(deadline, best, se)`): on a tie `curr`
    /// stays. Among the queued tasks, equal deadlines go to the smaller vruntime, then
    /// to the one queued first (the leftmost of the tree). The kernel's fallback to the
    /// leftmost entity when nothing is eligible cannot happen: some entity is always at
    /// or below V. NEXT_BUDDY (off by default) is not modelled.
    ///
    /// From v6.8 (2227a957e1d5 "sched/eevdf: Sort the rbtree by virtual deadline",
    /// ee4373dc902c "O(1) fastpath for task selection") the tree is sorted by deadline,
    /// the leftmost entity is taken when it is eligible and `curr` replaces the best
    /// queued one only when `entity_before(curr, best)`, a strictly earlier deadline: on
    /// a tie the queued entity wins. From v6.12 the candidates include the delayed
    /// entities; picking one makes `pick_next_entity()` finish its dequeue
    /// ([`Rq::finish_delayed_dequeue`]).
    pub(crate) fn pick_eevdf(&self) -> Option<u32> {
        let sums = self.avg_sums();
        let curr = self.curr_on_rq().filter(|&t| sums.eligible(self.vruntime_now(t)));
        if let Some(t) = curr.filter(|_| self.run_to_parity) {
            let task = &self.tasks[t as usize];
            if task.vlag == task.deadline as i64 {
                return Some(t);
            }
        }
        let mut best: Option<u32> = None;
        for &q in self.cpu.queue.iter().chain(&self.cpu.delayed) {
            // A runnable curr put back on the queue is judged as curr above; a delayed
            // curr (v6.12: asleep, still on_rq) competes as the entity it still is.
            if Some(q) == self.cpu.curr && !self.tasks[q as usize].delayed {
                continue;
            }
            let tq = &self.tasks[q as usize];
            if !sums.eligible(tq.vruntime) {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    let tb = &self.tasks[b as usize];
                    let d = delta(tq.deadline, tb.deadline);
                    d < 0 || (d == 0 && delta(tq.vruntime, tb.vruntime) < 0)
                }
            };
            if better {
                best = Some(q);
            }
        }
        match (best, curr) {
            (None, curr) => curr,
            (Some(b), Some(t))
                if delta(self.tasks[b as usize].deadline, self.tasks[t as usize].deadline)
                    >= self.ties_to_queued as i64 =>
            {
                Some(t)
            }
            (Some(b), _) => Some(b),
        }
    }
}

impl Rq<'_> {
    #[inline(always)]
    fn view(&self) -> View<'_> {
        View {
            cpu: self.cpu,
            tasks: self.tasks,
            now: self.now,
            ties_to_queued: self.ties_to_queued,
            run_to_parity: self.run_to_parity,
        }
    }

    /// `cfs_rq->nr_running`: the runnable tasks and, from v6.12, the delayed ones.
    #[inline(always)]
    fn nr_queued(&self) -> u32 {
        self.cpu.nr_running + self.cpu.delayed.len() as u32
    }

    /// `update_entity_lag()` (v6.6), from `dequeue_entity()` on every dequeue (a sleep, a
    /// migration): `vlag = V - vruntime`, clamped to `calc_delta_fair(max(2 * slice,
    /// TICK_NSEC))`. Called while `t` still counts on the runqueue.
    pub(crate) fn update_entity_lag(&mut self, t: u32) {
        let v = self.view().avg_sums().avg_vruntime();
        let limit = (2 * self.slice_ns).max(self.tick_ns) as i64;
        let task = &mut self.tasks[t as usize];
        task.vlag = delta(v, task.vruntime).clamp(-limit, limit);
    }

    /// `place_entity()` (v6.6: 86bfbb7ce4f6, 147f3efaa241, with PLACE_LAG and
    /// PLACE_DEADLINE_INITIAL on by default), for `t` about to join the runqueue:
    /// `vruntime = V - lag`, the lag kept at dequeue scaled by `(load + w) / load` so
    /// that adding the task does not shrink it (only when the runqueue has entities);
    /// `deadline = vruntime + slice`, half a slice for a new task (`ENQUEUE_INITIAL`).
    /// The same for a wakeup and a migration: from e8f331bcc270 a migrating task
    /// carries its lag, not its vruntime relative to the old `min_vruntime`.
    pub(crate) fn place_entity(&mut self, t: u32, initial: bool) {
        let sums = self.view().avg_sums();
        let v = sums.avg_vruntime();
        let mut lag = 0i64;
        // PLACE_LAG off: every task is placed at V.
        if self.place_lag && self.nr_queued() > 0 {
            lag = self.tasks[t as usize].vlag;
            // The kernel's load: avg_load plus a running curr, as in the sums; never 0
            // with nr_running > 0 (the kernel warns and takes 1).
            let load = sums.load.max(1);
            lag = lag.wrapping_mul(load + WEIGHT) / load;
        }
        let mut vslice = self.slice_ns;
        if initial && self.place_deadline_initial {
            vslice /= 2;
        }
        let task = &mut self.tasks[t as usize];
        task.vruntime = v.wrapping_sub(lag as u64);
        task.deadline = task.vruntime.wrapping_add(vslice);
    }

    /// `update_curr()` from v6.6: the runtime goes to `curr`'s vruntime, then
    /// `update_deadline()`: once `curr` has used its request (vruntime at or past its
    /// deadline) it gets a new one a slice later, and the CPU reschedules when anything
    /// else is runnable; then `update_min_vruntime()`, which never moves back: the
    /// smaller of `curr`'s and the leftmost queued vruntime, if that is ahead.
    pub(crate) fn update_curr(&mut self) {
        self.update_curr_among(self.nr_queued());
    }

    /// [`Rq::update_curr`] with `nr` as `cfs_rq->nr_running` for the reschedule test:
    /// `enqueue_entity()` calls `update_curr()` before the wakee counts.
    fn update_curr_among(&mut self, nr: u32) {
        let Some(t) = self.cpu.curr else { return };
        let task = &mut self.tasks[t as usize];
        if task.state != TState::Running {
            return;
        }
        task.vruntime = task.vruntime.wrapping_add(self.now.saturating_sub(task.exec_start));
        task.exec_start = self.now;
        if delta(task.vruntime, task.deadline) >= 0 {
            task.deadline = task.vruntime.wrapping_add(self.slice_ns);
            if nr > 1 {
                self.cpu.resched_curr_lazy(self.lazy);
            }
        }
        let mut v = task.vruntime;
        for &q in self.cpu.queue.iter().chain(&self.cpu.delayed) {
            let vq = self.tasks[q as usize].vruntime;
            if delta(vq, v) < 0 {
                v = vq;
            }
        }
        if delta(v, self.cpu.min_vruntime) > 0 {
            self.cpu.min_vruntime = v;
        }
    }

    /// `enqueue_entity()`'s `update_curr()` and `check_preempt_wakeup()` (v6.6;
    /// `check_preempt_wakeup_fair()` from v6.8) for a busy CPU that `t` was just queued
    /// on. `enqueue_entity()` calls `update_curr()` before `account_entity_enqueue()`,
    /// so its `update_deadline()` reschedules for a used slice only if something besides
    /// the wakee waits (a `curr` that ran alone gets its new request quietly); the
    /// `update_curr()` of `check_preempt_wakeup()` finds no time to charge
    /// (`delta_exec <= 0` returns). (The model places the wakee first and charges
    /// `curr` here: `place_entity()` reads `curr`'s vruntime as charged, see
    /// [`View::vruntime_now`], and not its deadline.) Then nothing if a reschedule is
    /// pending, else a preemption exactly when `pick_eevdf()` would now pick the
    /// wakee. There is no wakeup granularity any more.
    ///
    /// A delayed task woken by `ttwu_runnable()` (v6.12) is requeued without
    /// `enqueue_entity()`: it has counted all along, and the only `update_curr()` is
    /// `check_preempt_wakeup_fair()`'s, which then reschedules for a used slice.
    pub(crate) fn wakeup_preempt(&mut self, t: u32) -> bool {
        let requeued = std::mem::take(&mut self.tasks[t as usize].requeued);
        if self.cpu.need_resched {
            return false;
        }
        self.update_curr_among(self.nr_queued() - !requeued as u32);
        self.cpu.need_resched || self.view().pick_eevdf() == Some(t)
    }

    /// `dequeue_entity()` of a task going to sleep, from v6.12 with DELAY_DEQUEUE
    /// (152e11f6df29): a task that is not eligible (`!entity_eligible()`, lag below
    /// zero) stays on the runqueue as `sched_delayed`, its vruntime in the sums, to burn
    /// off its negative lag; otherwise, and before v6.12, `update_entity_lag()`.
    /// Returns whether it was delayed. `may_delay`: a sleep (an exit is not delayed).
    pub(crate) fn dequeue_sleep(&mut self, t: u32, may_delay: bool) -> bool {
        self.update_curr();
        if self.delay && may_delay {
            let v = self.view().vruntime_now(t);
            if !self.view().avg_sums().eligible(v) {
                self.tasks[t as usize].delayed = true;
                self.cpu.delayed.push(t);
                return true;
            }
        }
        self.update_entity_lag(t);
        false
    }

    /// The end of a delayed entity's dequeue (v6.12 `dequeue_entity()` with
    /// DEQUEUE_DELAYED, from `pick_next_entity()` when the pick is delayed):
    /// `update_entity_lag()` while it still counts, then out of the tree, and
    /// `finish_delayed_dequeue_entity()`: DELAY_ZERO (54a58a787791) clips a positive lag
    /// to 0.
    pub(crate) fn finish_delayed_dequeue(&mut self, t: u32) {
        self.update_entity_lag(t);
        self.unlink_delayed(t);
        if self.delay_zero {
            let task = &mut self.tasks[t as usize];
            task.vlag = task.vlag.min(0);
        }
    }

    /// `requeue_delayed_entity()` (v6.12), for `ttwu_runnable()` waking a delayed task:
    /// with DELAY_ZERO, `update_entity_lag()`, and a task that has burnt off its
    /// negative lag (now positive) is placed again at V with lag 0 (its vruntime and
    /// deadline anew, `place_entity()` without it in the sums); one still behind keeps
    /// its vruntime and deadline. The caller puts it back on the runqueue.
    pub(crate) fn requeue_delayed(&mut self, t: u32) {
        if !self.delay_zero {
            // Without DELAY_ZERO requeue_delayed_entity() only clears the delay.
            self.unlink_delayed(t);
            self.tasks[t as usize].requeued = true;
            return;
        }
        self.update_entity_lag(t);
        self.unlink_delayed(t);
        if self.tasks[t as usize].vlag > 0 {
            self.tasks[t as usize].vlag = 0;
            self.place_entity(t, false);
        }
        self.tasks[t as usize].requeued = true;
    }

    fn unlink_delayed(&mut self, t: u32) {
        if let Some(i) = self.cpu.delayed.iter().position(|&d| d == t) {
            self.cpu.delayed.swap_remove(i);
        }
        self.tasks[t as usize].delayed = false;
    }
}

// The entry points from the model's shared paths: never inlined, marked cold so that
// the older kernels' code around the one flag test stays as it was, and given the
// runqueue view rather than the whole `Sim`.

/// [`Rq::update_curr`].
#[inline(never)]
#[cold]
pub(crate) fn update_curr(rq: Rq) {
    let mut rq = rq;
    rq.update_curr();
}

/// `dequeue_entity()` for a task that sleeps: `update_curr()`, then
/// `update_entity_lag()` while the task still counts, or from v6.12 the delay
/// ([`Rq::dequeue_sleep`]).
#[inline(never)]
#[cold]
pub(crate) fn dequeue_sleep(rq: Rq, t: u32, may_delay: bool) -> bool {
    let mut rq = rq;
    rq.dequeue_sleep(t, may_delay)
}

/// [`Rq::place_entity`].
#[inline(never)]
#[cold]
pub(crate) fn place_entity(rq: Rq, t: u32, initial: bool) {
    let mut rq = rq;
    rq.place_entity(t, initial);
}

/// [`Rq::wakeup_preempt`].
#[inline(never)]
#[cold]
pub(crate) fn wakeup_preempt(rq: Rq, t: u32) -> bool {
    let mut rq = rq;
    rq.wakeup_preempt(t)
}

impl Sim {
    /// `sysctl_sched_base_slice`: v6.6 renamed `sysctl_sched_min_granularity`
    /// (e4ec3318a17f) and kept its 0.75 ms and its `update_sysctl()` scaling by
    /// `1 + ilog2(min(ncpus, 8))`, so it is the older kernels' minimum granularity.
    #[inline(always)]
    pub(crate) fn base_slice_ns(&self) -> u64 {
        self.min_gran_ns
    }

    /// CPU `c`'s runqueue view.
    #[inline(always)]
    pub(crate) fn rq(&mut self, c: u32) -> Rq<'_> {
        let slice_ns = self.base_slice_ns();
        Rq {
            cpu: &mut self.cpus[c as usize],
            tasks: &mut self.tasks,
            now: self.now,
            slice_ns,
            tick_ns: self.cost.tick_ns,
            ties_to_queued: self.cfg.since(6, 8),
            delay: self.cfg.delay_dequeue(),
            delay_zero: self.cfg.on(Switch::DelayZero),
            lazy: self.cfg.preempt == PreemptModel::Lazy,
            run_to_parity: self.cfg.on(Switch::RunToParity),
            place_lag: self.cfg.on(Switch::PlaceLag),
            place_deadline_initial: self.cfg.on(Switch::PlaceDeadlineInitial),
        }
    }

    /// CPU `c`'s read-only runqueue view.
    #[inline(always)]
    pub(crate) fn view(&self, c: u32) -> View<'_> {
        View {
            cpu: &self.cpus[c as usize],
            tasks: &self.tasks,
            now: self.now,
            ties_to_queued: self.cfg.since(6, 8),
            run_to_parity: self.cfg.on(Switch::RunToParity),
        }
    }

    /// v6.12 `pick_next_entity()`: while the pick is a delayed entity, finish its
    /// dequeue and pick again (`pick_next_task_fair()`'s `goto again`), so that what
    /// [`Sim::pick_next`] then picks is runnable. The delayed entities' dequeues are
    /// not charged as CPU time.
    #[inline(never)]
    #[cold]
    pub(crate) fn pick_past_delayed(&mut self, c: u32) {
        while let Some(p) = self.pick_eevdf(c) {
            if !self.tasks[p as usize].delayed {
                return;
            }
            self.rq(c).finish_delayed_dequeue(p);
        }
    }

    /// [`View::avg_sums`] of `c`.
    pub(crate) fn avg_sums(&self, c: u32) -> AvgSums {
        self.view(c).avg_sums()
    }

    /// [`View::pick_eevdf`] of `c`.
    #[inline(never)]
    #[cold]
    pub(crate) fn pick_eevdf(&self, c: u32) -> Option<u32> {
        self.view(c).pick_eevdf()
    }

    /// [`Rq::update_entity_lag`] of `t` on `c`.
    pub(crate) fn update_entity_lag(&mut self, c: u32, t: u32) {
        self.rq(c).update_entity_lag(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avg_vruntime_is_the_weighted_mean_of_the_keys() {
        // Keys 0, 300, 600 from min_vruntime 1000: V = 1300.
        let s = AvgSums::of(1000, [1000, 1300, 1600]);
        assert_eq!((s.avg, s.load), (900 * 1024, 3 * 1024));
        assert_eq!(s.avg_vruntime(), 1300);
        // An empty runqueue: min_vruntime.
        assert_eq!(AvgSums::of(77, []).avg_vruntime(), 77);
    }

    #[test]
    fn avg_vruntime_rounds_down_on_both_sides_of_min_vruntime() {
        // Keys 0 and 1: 0.5 rounds down to 0.
        assert_eq!(AvgSums::of(1000, [1000, 1001]).avg_vruntime(), 1000);
        // Keys -1 and 0: -0.5 rounds down to -1 (div_s64 alone would give 0).
        assert_eq!(AvgSums::of(1000, [999, 1000]).avg_vruntime(), 999);
        // Keys -3, 0, 0: -1 exactly.
        assert_eq!(AvgSums::of(1000, [997, 1000, 1000]).avg_vruntime(), 999);
        // Across zero on the wrapping clock.
        assert_eq!(AvgSums::of(0, [u64::MAX - 9, 0]).avg_vruntime(), u64::MAX - 4);
    }

    #[test]
    fn eligible_is_lag_at_least_zero() {
        let s = AvgSums::of(1000, [1000, 1300, 1600]);
        assert!(s.eligible(1000) && s.eligible(1300));
        assert!(!s.eligible(1301) && !s.eligible(1600));
        // V = 1000.5: 1000 is eligible, 1001 is not, though avg_vruntime() says 1000.
        let s = AvgSums::of(1000, [1000, 1001]);
        assert!(s.eligible(1000) && !s.eligible(1001));
        // A single entity is always eligible.
        assert!(AvgSums::of(5, [123_456]).eligible(123_456));
    }
}
