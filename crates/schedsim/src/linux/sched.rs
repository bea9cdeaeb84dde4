//! The per-CPU scheduler: running task programs, `schedule()`, context switches and
//! the CFS pick. Kernel v5.x (`kernel/sched/core.c`, `fair.c`) unless a comment says
//! otherwise; enqueue and wakeup preemption are in `enqueue.rs`, interrupts and IPIs in
//! `irq.rs`, the tick in `tick.rs`, idle in `idle.rs`.

use super::wakeup::Wakeup;
use crate::facts::wide::saturating_mul;
use crate::facts::workload::Action;
use crate::state::pelt::NICE_0_LOAD;
use crate::state::*;

/// Most zero-time actions a task may issue in a row (a workload bug guard).
const ACTIONS_IN_A_ROW_MAX: u32 = 10_000;

/// The CPU the model's fork parents run on: every task is created from there.
pub(crate) const FORK_PARENT_CPU: u32 = 0;

impl Sim {
    /// Creates every task at time 0 as `wake_up_new_task` would: placed by the fork
    /// slow path (`find_idlest_cpu`), in the workload's fork order so each placement
    /// sees the ones before it. A replayed task the trace shows asleep at its start
    /// starts asleep on the CPU it was on.
    pub(crate) fn start_tasks(&mut self) {
        for t in self.wl.fork_order(self.tasks.len() as u32) {
            if let Some(cpu) = self.wl.asleep_at_start(t) {
                // Asleep when the trace began, last on `cpu`: woken like any sleeper.
                let task = &mut self.tasks[t as usize];
                task.cpu = cpu;
                task.recent_used_cpu = cpu;
                task.last_rq = cpu;
                task.vruntime = self.cpus[cpu as usize].min_vruntime;
                continue;
            }
            let cpu = match self.tasks[t as usize].pinned {
                Some(c) => c,
                None => self.find_idlest_cpu(t),
            };
            let task = &mut self.tasks[t as usize];
            task.cpu = cpu;
            // wake_up_new_task() (32e839dda3ba, v4.17) sets p->recent_used_cpu to
            // task_cpu(p), still the parent's CPU, before fork balancing moves it.
            task.recent_used_cpu = FORK_PARENT_CPU;
            task.state = TState::Waking;
            task.vruntime = self.cpus[cpu as usize].min_vruntime;
            task.last_rq = cpu;
            self.shared_runq_enqueue(cpu, t, 0, cpu);
            self.activate_as(cpu, t, Enqueue::Fork);
            self.check_preempt(cpu, t, cpu);
        }
    }

    /// The fork slow path of `select_task_rq_fair()` (`find_idlest_group()` then
    /// `find_idlest_cpu()`, v5.x `fair.c`, compactly), for a parent on
    /// [`FORK_PARENT_CPU`]: from the highest domain with SD_BALANCE_FORK down (a far NUMA level lacks it, so forks stay on the parent's
    /// node), the group with the fewest runnable tasks per CPU, then an idle CPU in the
    /// shallowest C-state, else the least loaded one. Ties go to the lowest CPU number.
    pub(crate) fn find_idlest_cpu(&self, t: u32) -> u32 {
        let n = self.cpus.len() as u32;
        let top = self.doms.chain[FORK_PARENT_CPU as usize]
            .iter()
            .rev()
            .map(|&d| &self.doms.domains[d as usize])
            .find(|d| d.has(crate::facts::domains::SD_BALANCE_FORK));
        let mut span: Vec<u32> = match top {
            Some(d) => d.span.clone(),
            None => (0..n).collect(),
        };
        // Descend through the domain chain of the first CPU of the current span.
        let mut cpu = FORK_PARENT_CPU;
        loop {
            let dom = self.doms.chain[cpu as usize]
                .iter()
                .rev()
                .map(|&d| &self.doms.domains[d as usize])
                .find(|d| d.span.len() <= span.len() && d.span.len() > 1 && span.contains(&d.span[0]));
            let Some(d) = dom else { break };
            let mut best: Option<(u64, usize)> = None;
            for (gi, g) in d.groups.iter().enumerate() {
                if !g.iter().any(|&c| self.allowed(t, c)) {
                    continue;
                }
                let load: u64 = g.iter().map(|&c| self.cpus[c as usize].nr_running as u64).sum::<u64>() * NICE_0_LOAD
                    / g.len() as u64;
                if best.is_none_or(|(b, _)| load < b) {
                    best = Some((load, gi));
                }
            }
            let Some((_, gi)) = best else { break };
            let g = d.groups[gi].clone();
            if g.len() >= span.len() {
                break;
            }
            span = g;
            cpu = span[0];
            if span.len() == 1 {
                break;
            }
        }
        let mut best = (u64::MAX, u64::MAX, cpu);
        for &c in &span {
            if !self.allowed(t, c) {
                continue;
            }
            let key = if self.idle_cpu(c) {
                (0, self.cost.cstates[self.cpus[c as usize].cstate as usize].exit_latency_ns)
            } else {
                (1 + self.cpus[c as usize].nr_running as u64, 0)
            };
            if (key.0, key.1) < (best.0, best.1) {
                best = (key.0, key.1, c);
            }
        }
        best.2
    }

    // ---- segments -------------------------------------------------------------------

    /// Runs `work` ns of user code of `curr` on `c`, slowed while an SMT sibling is busy.
    #[inline(always)]
    pub(crate) fn user(&mut self, c: u32, work: u64) {
        debug_assert!(self.cpus[c as usize].phase != Phase::Waking, "a waking CPU's wake-up end replaced");
        let slow = self.smt_slow_pct(c);
        let now = self.now;
        let cpu = &mut self.cpus[c as usize];
        let sys_pct = cpu.curr.map_or(0, |t| self.tasks[t as usize].sys_pct);
        cpu.set_mode(now, Mode::Task(sys_pct));
        cpu.phase = Phase::User;
        cpu.seg_start = now;
        cpu.work_left_ns = work;
        cpu.slow_pct = slow;
        cpu.seg_end = now.saturating_add(saturating_mul(work, 100 + slow) / 100);
        let end = cpu.seg_end;
        self.set_seg(c, end);
    }

    #[inline]
    fn smt_slow_pct(&self, c: u32) -> u64 {
        let core = self.map.places[c as usize].core as usize;
        let threads = self.map.core_cpus[core].len() as u64;
        if threads < 2 {
            return 0;
        }
        let others = (self.core_busy[core] as u64).saturating_sub(self.busy(c) as u64);
        smt_share(self.cost.smt_slowdown_pct, others, threads)
    }

    /// Work done so far in the User segment of `c`.
    fn user_progress(&self, c: u32) -> u64 {
        let cpu = &self.cpus[c as usize];
        let done = (self.now - cpu.seg_start) * 100 / (100 + cpu.slow_pct);
        done.min(cpu.work_left_ns)
    }

    /// Re-times user segments of `c`'s siblings after `c` changed busy state.
    #[inline(always)]
    pub(crate) fn siblings_changed(&mut self, c: u32) {
        if !self.map.smt {
            return;
        }
        let core = self.map.places[c as usize].core as usize;
        let siblings = &self.map.core_cpus[core];
        let threads = siblings.len();
        if threads < 2 {
            return;
        }
        // smt_slow_pct() of a sibling running user code (itself busy): the same for each.
        let others = (self.core_busy[core] as u64).saturating_sub(1);
        let slow = smt_share(self.cost.smt_slowdown_pct, others, threads as u64);
        debug_assert!(siblings
            .iter()
            .all(|&s| s == c || !matches!(self.cpus[s as usize].phase, Phase::User) || slow == self.smt_slow_pct(s)));
        let now = self.now;
        // Fields, not methods: the siblings stay borrowed from the map meanwhile.
        for &s in siblings {
            let cpu = &mut self.cpus[s as usize];
            if s == c || !matches!(cpu.phase, Phase::User) || slow == cpu.slow_pct {
                continue;
            }
            // user_progress(s), then the rest of the work at the new speed.
            let done = ((now - cpu.seg_start) * 100 / (100 + cpu.slow_pct)).min(cpu.work_left_ns);
            cpu.work_left_ns -= done;
            cpu.seg_start = now;
            cpu.slow_pct = slow;
            cpu.seg_end = now.saturating_add(saturating_mul(cpu.work_left_ns, 100 + slow) / 100);
            // set_seg(s, seg_end).
            self.seq += 1;
            self.segs.set(s, (cpu.seg_end, self.seq));
        }
    }

    /// Stops a User segment early; the rest goes back to the task.
    pub(crate) fn pause_user(&mut self, c: u32) {
        let done = self.user_progress(c);
        self.clear_seg(c);
        let cpu = &self.cpus[c as usize];
        let left = cpu.work_left_ns - done;
        if let Some(t) = cpu.curr {
            self.tasks[t as usize].pending_run_ns = left;
        }
    }

    pub(crate) fn seg_end(&mut self, c: u32) {
        match self.cpus[c as usize].phase {
            Phase::User => self.continue_task_from(c, After::UserSegment),
            Phase::TaskSys => self.continue_task(c),
            Phase::Irq => self.after_irq(c),
            Phase::Switch(next) => self.switch_done(c, next),
            Phase::Newidle { depth, curr_cost } => self.newidle_step_done(c, depth, curr_cost),
            Phase::Waking => {
                if self.cpus[c as usize].ready_at == self.now {
                    self.idle_exit_done(c);
                }
            }
            Phase::Idle => {}
        }
    }

    // ---- task programs --------------------------------------------------------------

    /// `curr` of `c` continues: preempt if asked, else finish its work, else ask the
    /// workload what next.
    #[inline(always)]
    pub(crate) fn continue_task(&mut self, c: u32) {
        self.continue_task_from(c, After::Kernel)
    }

    /// [`Sim::continue_task`] after `what`: a User segment of `curr` that ran to its end
    /// leaves none of its work.
    #[inline(always)]
    fn continue_task_from(&mut self, c: u32, what: After) {
        let cpu = &mut self.cpus[c as usize];
        let Some(t) = cpu.curr else {
            return self.schedule(c);
        };
        let task = &mut self.tasks[t as usize];
        if what == After::UserSegment {
            task.pending_run_ns = 0;
        }
        if task.state != TState::Running {
            return self.schedule(c);
        }
        if cpu.need_resched && cpu.nr_running > 1 {
            if super::preempt::preempts_here(task, cpu, self.cfg.preempt) {
                return self.preempt(c);
            }
        } else {
            cpu.need_resched = false;
            cpu.resched_lazy = false;
        }
        if task.pending_run_ns > 0 {
            let w = task.pending_run_ns + std::mem::take(&mut task.penalty_ns);
            task.pending_run_ns = 0;
            return self.user(c, w);
        }
        if let Some(a) = task.stash.take() {
            return self.act(c, t, a);
        }
        self.run_program(c, t);
    }

    fn run_program(&mut self, c: u32, t: u32) {
        for _ in 0..ACTIONS_IN_A_ROW_MAX {
            let a = self.wl.step(t, c, self.now, &mut self.rng);
            if self.return_to_user(c, t, a) {
                return;
            }
            if self.act_once(c, t, a) {
                return;
            }
        }
        let name = self.tasks[t as usize].name.clone();
        self.fail(format!("workload task {name} issued {ACTIONS_IN_A_ROW_MAX} actions without running"));
    }

    /// Step `a` of `t`, taken from its `stash` when it runs again.
    fn act(&mut self, c: u32, t: u32, a: Action) {
        if self.act_once(c, t, a) {
            return;
        }
        self.run_program(c, t);
    }

    /// Performs step `a` of `t`: true when the CPU has moved on (a segment started, the
    /// task slept), false when the program goes on at once.
    #[inline(always)]
    fn act_once(&mut self, c: u32, t: u32, a: Action) -> bool {
        match a {
            Action::Run(ns) | Action::Sys(ns) => {
                let task = &mut self.tasks[t as usize];
                let w = ns + std::mem::take(&mut task.penalty_ns);
                // More of a system call keeps its task in the kernel.
                task.in_sys |= matches!(a, Action::Sys(_));
                self.user(c, w.max(1));
            }
            Action::Wake { task, sync, bytes } => {
                self.tasks[t as usize].in_sys = true;
                let cost = self.try_to_wake_up(c, Some(t), task, sync, bytes);
                if cost == 0 {
                    return false;
                }
                self.kernel(c, cost, Phase::TaskSys);
            }
            Action::Block => {
                self.block(c, t, TState::Sleeping);
                self.schedule(c);
            }
            Action::Sleep(ns) => {
                self.block(c, t, TState::Sleeping);
                let at = self.now + ns;
                self.push(at, Ev::Timer { task: t });
                self.schedule(c);
            }
            Action::Io { ns, irq_cpu, token, rq_affinity } => {
                self.block(c, t, TState::Sleeping);
                // The block layer completes the request on the submitting CPU when
                // rq_affinity asks for it; the interrupt CPU then only sends it an
                // IPI (its few hundred ns of hard-IRQ work are not charged).
                let remote = match rq_affinity {
                    0 => false,
                    1 => !self.map.share_cache(irq_cpu, c),
                    _ => irq_cpu != c,
                };
                let (cpu, at) =
                    if remote { (c, self.now + ns + self.cost.ipi_delivery_ns) } else { (irq_cpu, self.now + ns) };
                self.push(at, Ev::Irq { cpu, token });
                self.schedule(c);
            }
            Action::Exit => {
                self.block(c, t, TState::Exited);
                self.schedule(c);
            }
        }
        true
    }

    /// `update_curr()`: charge runtime to `curr`'s vruntime (all tasks are nice 0). From
    /// v6.6 the EEVDF form, [`eevdf::Rq::update_curr`](super::eevdf::Rq::update_curr).
    #[inline(always)]
    pub(crate) fn update_curr(&mut self, c: u32) {
        if self.cfg.eevdf() {
            return super::eevdf::update_curr(self.rq(c));
        }
        self.update_curr_cfs(c);
    }

    /// [`Sim::update_curr`] before v6.6.
    #[inline(always)]
    fn update_curr_cfs(&mut self, c: u32) {
        let now = self.now;
        let cpu = &mut self.cpus[c as usize];
        if let Some(t) = cpu.curr {
            let task = &mut self.tasks[t as usize];
            if task.state == TState::Running {
                task.vruntime += now.saturating_sub(task.exec_start);
                task.exec_start = now;
                let v = task.vruntime;
                let tasks = &self.tasks;
                let leftmost = cpu.queue.iter().map(|&q| tasks[q as usize].vruntime).min();
                let m = leftmost.map_or(v, |l| l.min(v));
                cpu.min_vruntime = cpu.min_vruntime.max(m);
            }
        }
    }

    /// `dequeue_task` for a task that blocks or exits on `c`: it stays `curr` (and
    /// `on_cpu`) until the switch away finishes.
    #[inline(always)]
    pub(crate) fn block(&mut self, c: u32, t: u32, state: TState) {
        if self.cfg.eevdf() {
            // v6.6 dequeue_entity(): update_curr(), then the lag is kept; from v6.12 a
            // sleeper that is not eligible stays queued instead (DELAY_DEQUEUE).
            super::eevdf::dequeue_sleep(self.rq(c), t, state == TState::Sleeping);
        } else {
            self.update_curr_cfs(c);
        }
        self.block_tail(c, t, state);
    }

    /// What every form of [`Sim::block`] does after `update_curr()`.
    #[inline(always)]
    fn block_tail(&mut self, c: u32, t: u32, state: TState) {
        let now = self.now;
        // update_load(c), then the task no longer counts: one lookup of the CPU.
        let cpu = &mut self.cpus[c as usize];
        cpu.update_load(now);
        cpu.nr_running -= 1;
        let task = &mut self.tasks[t as usize];
        task.state = state;
        task.load.update(now, NICE_0_LOAD);
    }

    /// Preempts `curr` of `c`: it goes back to the queue and `schedule()` picks.
    pub(super) fn preempt(&mut self, c: u32) {
        let Some(t) = self.cpus[c as usize].curr else { return };
        self.update_curr(c);
        self.tasks[t as usize].state = TState::Runnable;
        self.tasks[t as usize].queued_at = self.now;
        self.cpus[c as usize].queue.push(t);
        // put_prev_entity() -> __enqueue_entity(): back into the tree and the shard.
        let cost = self.shared_runq_enqueue(c, t, self.now, c);
        self.cpus[c as usize].carry_ns += cost;
        self.schedule(c);
    }

    // ---- schedule() -----------------------------------------------------------------

    /// `__schedule()`: `curr` has blocked or been put back. Picks the next task, or
    /// balances (newidle) and then goes idle.
    #[inline(always)]
    pub(crate) fn schedule(&mut self, c: u32) {
        let cpu = &mut self.cpus[c as usize];
        cpu.need_resched = false;
        let carry = std::mem::take(&mut cpu.carry_ns);
        let lock = self.lock_rq(c, self.now + carry, c, self.cost.schedule_hold_ns) + carry;
        if self.cfg.delay_dequeue() {
            self.pick_past_delayed(c);
        }
        if let Some(next) = self.pick_next(c) {
            let same = self.cpus[c as usize].curr == Some(next);
            if same {
                // Picked the task that was just put back: no switch.
                let i = self.cpus[c as usize].queue.iter().position(|&q| q == next);
                let i = i.expect("pick_next() picks a queued task");
                self.cpus[c as usize].queue.swap_remove(i);
                self.tasks[next as usize].state = TState::Running;
                self.tasks[next as usize].slice_start = self.tasks[next as usize].vruntime;
                // set_next_entity() -> __dequeue_entity(): out of the tree and the shard.
                let lock = lock + self.shared_runq_dequeue(next, self.now + lock, c);
                return self.kernel(c, lock, Phase::TaskSys);
            }
            return self.start_switch(c, next, lock);
        }
        // pick_next_task_fair() balances whenever the CFS runqueue is empty, also when
        // the idle task itself was asked to reschedule (its wakee was taken away).
        self.newidle_balance(c, lock)
    }

    /// `pick_next_entity()`, the task `schedule()` switches to: [`Sim::pick_cfs`] before
    /// v6.6, [`Sim::pick_eevdf`] from v6.6.
    #[inline(always)]
    pub(crate) fn pick_next(&self, c: u32) -> Option<u32> {
        if self.cfg.eevdf() {
            self.pick_eevdf(c)
        } else {
            self.pick_cfs(c)
        }
    }

    /// `pick_next_entity()` before v6.6: smallest vruntime; ties to the earliest queued.
    pub(crate) fn pick_cfs(&self, c: u32) -> Option<u32> {
        let cpu = &self.cpus[c as usize];
        let mut best: Option<u32> = None;
        for &t in &cpu.queue {
            if best.is_none_or(|b| self.tasks[t as usize].vruntime < self.tasks[b as usize].vruntime) {
                best = Some(t);
            }
        }
        best
    }

    /// Starts the context switch to `next` (out of the queue now, running at the end).
    /// Half of the context-switch cost is switching away from a task, half switching
    /// to one; the idle task costs nothing to enter or leave beyond that.
    #[inline(always)]
    pub(crate) fn start_switch(&mut self, c: u32, next: u32, extra: u64) {
        let cpu = &mut self.cpus[c as usize];
        let i = cpu.queue.iter().position(|&q| q == next).expect("the task switched to is queued on this CPU");
        cpu.queue.swap_remove(i);
        let from_task = cpu.curr.is_some();
        if let Some(p) = cpu.curr {
            self.m.count_switch_out(self.tasks[p as usize].state == TState::Runnable);
        }
        // set_next_entity() -> __dequeue_entity(): out of the tree and the shard.
        let extra = extra + self.shared_runq_dequeue(next, self.now + extra, c);
        self.tasks[next as usize].on_cpu = Some(c);
        let half = self.cost.context_switch_ns / 2;
        let out = if from_task { half } else { 0 };
        let (now, cost) = (self.now, out + half + extra);
        // The runqueue lock held through the switch, and its kernel segment (Sim::kernel),
        // on one lookup of the CPU.
        let cpu = &mut self.cpus[c as usize];
        cpu.lock.hold_own(c, now, now + cost);
        let end = cpu.start_kernel(now, cost, Phase::Switch(next));
        self.set_seg(c, end);
    }

    /// Switches from the blocked `curr` to the idle task.
    #[inline(always)]
    pub(crate) fn switch_to_idle(&mut self, c: u32, extra: u64) {
        // Staying in the idle task (nothing was switched out) costs no switch.
        let now = self.now;
        let half = self.cost.context_switch_ns / 2;
        let cpu = &mut self.cpus[c as usize];
        let out = if cpu.curr.is_some() { half } else { 0 };
        if let Some(p) = cpu.curr {
            self.m.count_switch_out(self.tasks[p as usize].state == TState::Runnable);
        }
        let cost = out + extra;
        // The runqueue lock held through the switch, and its kernel segment (Sim::kernel),
        // on one lookup of the CPU.
        cpu.lock.hold_own(c, now, now + cost);
        let end = cpu.start_kernel(now, cost, Phase::Switch(NO_TASK));
        self.set_seg(c, end);
    }

    /// `finish_task_switch()`: the previous task is off the CPU; `next` runs.
    fn switch_done(&mut self, c: u32, next: u32) {
        self.release_prev(c);
        if next == NO_TASK {
            return self.go_idle(c);
        }
        let now = self.now;
        self.cpus[c as usize].curr = Some(next);
        self.rec_run_begin(c, next);
        let penalty = self.refill_penalty(c, next);
        let task = &mut self.tasks[next as usize];
        // Back from `schedule()` in the system call it slept in; a task preempted keeps
        // where it was (user mode, or more of a system call's work).
        if task.pending_run_ns == 0 && task.stash.is_none() {
            task.in_sys = true;
        }
        task.wake_data = (NO_CPU, 0);
        task.penalty_ns += penalty;
        task.state = TState::Running;
        task.exec_start = now;
        task.slice_start = task.vruntime;
        // set_next_entity() (v6.6, 63304558ba5d): "stash a copy of deadline at the point
        // of pick in vlag" for RUN_TO_PARITY; older kernels never read either field. A
        // task picked again without a switch keeps its old stash, as with
        // CONFIG_FAIR_GROUP_SCHED, where pick_next_task_fair() skips set_next_entity()
        // for prev == p.
        task.vlag = task.deadline as i64;
        if let Some(w) = task.woken_at.take() {
            self.wake_latency.record(now - w);
            self.m.run_delay_ns += now - w;
        }
        self.arm_tick(c);
        // A wake-list IPI that arrived while interrupts were off is taken now.
        if self.cpus[c as usize].ttwu_pending && !self.cpus[c as usize].ipi_inflight {
            self.kernel(c, 0, Phase::Irq);
            let cost = self.cost.irq_entry_exit_ns + self.drain_cost(c);
            return self.extend_kernel(c, cost);
        }
        self.continue_task(c);
    }

    /// Clears `on_cpu` of the outgoing task and remembers its cache marks.
    fn release_prev(&mut self, c: u32) {
        if let Some(p) = self.cpus[c as usize].curr.take() {
            self.rec_run_end(c, p);
            let place = self.map.places[c as usize];
            let (cf, lf) = (self.core_fill[place.core as usize], self.llc_fill[place.llc as usize]);
            let task = &mut self.tasks[p as usize];
            if task.on_cpu == Some(c) {
                task.on_cpu = None;
            }
            task.last_ran_cpu = c;
            task.core_mark = cf;
            task.llc_mark = lf;
            if let Some(dst) = task.push_to.take() {
                // active_load_balance_cpu_stop(): the task is off this CPU now.
                self.push_attach(p, c, dst);
                return;
            }
            if let Some((this, waker, sync)) = task.deferred_wake.take() {
                // The spinning waker sees on_cpu clear and completes the wakeup.
                let prev = task.cpu;
                let w = Wakeup { p: TaskId(p), prev: CpuId(prev), this: CpuId(this), waker: waker.map(TaskId), sync };
                self.ttwu_place(w, 0);
            }
        }
    }

    /// Cache refill cost of running `t` on `c`: lines evicted from the core's L2 since
    /// it left come from the LLC (or DRAM when the LLC evicted them too); lines on
    /// another core, LLC or node come from there. Plus the waker's data. Returns the
    /// penalty, which the caller adds to the task's and then clears its `wake_data`.
    fn refill_penalty(&mut self, c: u32, t: u32) -> u64 {
        let place = self.map.places[c as usize];
        let cost = &self.cost;
        let task = &self.tasks[t as usize];
        let ws = task.ws_bytes;
        // Shares of a cache evicted, in 1/ONE.
        const ONE: u64 = 1024;
        let frac = |filled: u64, size: u64| -> u64 { (filled * ONE / size.max(1)).min(ONE) };
        let mut pen = 0;
        if task.last_ran_cpu != NO_CPU {
            let d = self.map.distance(task.last_ran_cpu, c);
            // Fill counters only compare within one LLC (or core); other arms ignore them.
            let llc_evicted = frac(self.llc_fill[place.llc as usize].saturating_sub(task.llc_mark), cost.llc_bytes);
            pen = match d {
                crate::facts::topology::Distance::SameCpu | crate::facts::topology::Distance::SmtSibling => {
                    let l2_evicted =
                        frac(self.core_fill[place.core as usize].saturating_sub(task.core_mark), cost.l2_bytes);
                    let from_llc = ws * l2_evicted / ONE;
                    cost.transfer_ns(from_llc * (ONE - llc_evicted) / ONE, crate::facts::topology::Distance::SameLlc)
                        + dram(cost, from_llc * llc_evicted / ONE)
                }
                crate::facts::topology::Distance::SameLlc => {
                    cost.transfer_ns(ws * (ONE - llc_evicted) / ONE, d) + dram(cost, ws * llc_evicted / ONE)
                }
                _ => cost.transfer_ns(ws, d),
            };
        }
        let (from, bytes) = task.wake_data;
        if from != NO_CPU && bytes > 0 {
            pen += cost.transfer_ns(bytes, self.map.distance(from, c));
        }
        self.core_fill[place.core as usize] += ws;
        self.llc_fill[place.llc as usize] += ws;
        pen
    }
}

/// What a CPU's `curr` continues after.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    /// A User segment that ran to its end.
    UserSegment,
    /// Anything else: kernel work on its behalf, an interrupt, a switch to it.
    Kernel,
}

/// How a task joins a runqueue.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Enqueue {
    /// `activate_task()`: a migration.
    Activate,
    /// `wake_up_new_task()`'s `activate_task()`: a fork (`ENQUEUE_INITIAL` from v6.6).
    Fork,
    /// `ttwu_do_activate()`: a wakeup, which samples `avg_idle`.
    Wakeup,
}

/// `pct * others / (threads - 1)`: the slowdown of a thread whose core has `others` of its
/// `threads - 1` siblings busy. With two threads per core, the usual case, there is
/// nothing to divide.
#[inline(always)]
fn smt_share(pct: u64, others: u64, threads: u64) -> u64 {
    if threads == 2 {
        pct * others
    } else {
        pct * others / (threads - 1)
    }
}

/// Time to fetch `bytes` from DRAM, with the refill's overlap. Nothing to fetch (the
/// LLC kept the lines) costs nothing, without the two divisions.
fn dram(cost: &crate::facts::cost::CostModel, bytes: u64) -> u64 {
    if bytes == 0 {
        return 0;
    }
    bytes.div_ceil(cost.cache_line_bytes) * cost.dram_ns / cost.refill_mlp
}
