//! The wakeup path: `try_to_wake_up` (`kernel/sched/core.c`) and
//! `select_task_rq_fair`, `wake_wide`, `wake_affine*` (`kernel/sched/fair.c`), each in
//! the form of the modelled kernel version; the seed patches switch between the
//! before and after forms of the lines they change. `select_idle_sibling` is in
//! [`crate::linux::sis`].

use crate::facts::domains::SD_WAKE_AFFINE;
use crate::facts::kernel::Switch;
use crate::facts::metrics::MigratedBy;
#[cfg(feature = "policy")]
use crate::facts::policy;
use crate::facts::trace::{Outcome, Step};
use crate::linux::idle::WakeSignal;
use crate::state::pelt::NICE_0_LOAD;
use crate::state::{CpuId, Sim, TState, TaskId, WakeeFlips};

/// Who runs `try_to_wake_up()`: `current` on the waking CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Current {
    Task(u32),
    /// The idle task of this CPU.
    Idle(u32),
}

/// What `try_to_wake_up()` knows of one wakeup, as the CPU selection functions share
/// it: the wakee `p`, `prev_cpu` (`task_cpu(p)` when the wakeup began), the waking CPU
/// (`smp_processor_id()`), the waker (`current`; `None` from interrupt context) and
/// WF_SYNC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wakeup {
    pub p: TaskId,
    pub prev: CpuId,
    pub this: CpuId,
    pub waker: Option<TaskId>,
    pub sync: bool,
}

pub(crate) fn st(function: &str, read: Vec<String>, result: String, why: &str) -> Step {
    Step { function: function.into(), read, result, why: why.into() }
}

/// How a wakee reaches the CPU chosen for it, as the trace's outcome tells it.
#[derive(Clone, Copy, Debug)]
enum Delivery {
    /// On the CPU's wake list (TTWU_QUEUE), with an IPI or not.
    WakeList { ipi: bool },
    /// Enqueued under the CPU's runqueue lock, with an IPI to an idle CPU or not.
    Enqueue { ipi: bool },
    /// After its previous CPU switches away from it (the waker spun on `p->on_cpu`).
    AfterSwitch,
}

impl Sim {
    /// `try_to_wake_up()` (v5.14 `core.c`; v3.8/v4.15 differ only in the wake-list
    /// rules, noted inline). `this` runs the waker: the task `waker`, or an interrupt
    /// when `None`. Returns the CPU time the waker spends, ns.
    pub(crate) fn try_to_wake_up(&mut self, this: u32, waker: Option<u32>, p: u32, sync: bool, bytes: u64) -> u64 {
        let now = self.now;
        if self.tasks[p as usize].state != TState::Sleeping {
            // ttwu_runnable() or a task already waking: only the state check.
            return self.cost.ttwu_base_ns / 2;
        }
        if self.tasks[p as usize].delayed {
            return self.ttwu_runnable_delayed(this, waker, p, sync);
        }
        if self.opts.trace.is_some() || self.rec.is_some() {
            self.rec_waking(p, this, waker);
            self.trace_begin(p, waker, this, sync);
        }
        // Every wakeup of the run, warm-up included, has its own index: trace windows,
        // recordings and Perfetto flow ids count from the start of the run.
        self.wake_index += 1;
        self.m.wakeups += 1;
        self.m.wakeups_sync += sync as u64;
        self.m.wakeups_from_irq += waker.is_none() as u64;
        let t = &mut self.tasks[p as usize];
        let prev = t.cpu;
        t.state = TState::Waking;
        t.wake_data = (this, bytes);
        t.woken_at = Some(now);
        let on_cpu = t.on_cpu;
        let mut cost = self.cost.ttwu_base_ns;

        // The wakee has not finished switching out on its CPU.
        if let Some(oc) = on_cpu {
            // v5.8 (c6e7bd7afaeb): queue it to that CPU when ttwu_queue_cond() allows,
            // without selecting a CPU; before, spin until it is off.
            let on_cpu_rule = self.cfg.since(5, 8) && self.ttwu_queue_cond(this, oc, true);
            self.step(|s| {
                let why = if !on_cpu_rule {
                    "wait for the wakee to leave its CPU (smp_cond_load_acquire on p->on_cpu)"
                } else if !s.map.share_cache(this, oc) {
                    "the wakee's CPU does not share this cache: queue it there rather than spin"
                } else if s.cfg.since(6, 0) {
                    "the wakee is still on its CPU and nothing else runs there: let it finish there"
                } else {
                    "the wakee is still on its CPU and that CPU has at most one task: let it finish there"
                };
                st(
                    if s.cfg.since(5, 8) { "ttwu_queue_cond (p->on_cpu)" } else { "try_to_wake_up (p->on_cpu)" },
                    vec![format!("p->on_cpu=CPU {oc}"), format!("nr_running({oc})={}", s.cpus[oc as usize].nr_running)],
                    if on_cpu_rule { format!("queue to CPU {oc}") } else { "spin".into() },
                    why,
                )
            });
            if on_cpu_rule {
                cost += self.queue_wakelist(oc, p, cost);
                let ipi = self.cpus[oc as usize].ipi_inflight;
                self.finish_trace(oc, prev, Delivery::WakeList { ipi }, cost);
                return cost;
            }
            // Spin until the wakee is off its CPU: charge the rest of that CPU's
            // current segment, and finish the wakeup when the switch completes.
            let wait = self.cpus[oc as usize].seg_end.saturating_sub(now + cost);
            self.m.lock_spin_ns += wait;
            cost += wait;
            self.tasks[p as usize].deferred_wake = Some((this, waker, sync));
            self.finish_trace(oc, prev, Delivery::AfterSwitch, cost);
            return cost;
        }
        let w = Wakeup { p: TaskId(p), prev: CpuId(prev), this: CpuId(this), waker: waker.map(TaskId), sync };
        self.ttwu_place(w, cost)
    }

    /// `try_to_wake_up()` of a delayed task (v6.12): `p->on_rq` is still set, so
    /// `ttwu_runnable()` takes its runqueue's lock (on whichever CPU that is), requeues
    /// it there (`enqueue_task(ENQUEUE_DELAYED)` -> `requeue_delayed_entity()`) and, if
    /// it is not still on that CPU switching out, asks for wakeup preemption. No CPU is
    /// selected, nothing is queued on a wake list, the task never migrates. It is a
    /// wakeup as the trace counts them (`sched_waking`, `sched_wakeup`).
    #[cold]
    #[inline(never)]
    fn ttwu_runnable_delayed(&mut self, this: u32, waker: Option<u32>, p: u32, sync: bool) -> u64 {
        let now = self.now;
        if self.rec.is_some() {
            self.rec_waking(p, this, waker);
        }
        self.wake_index += 1;
        self.m.wakeups += 1;
        self.m.wakeups_sync += sync as u64;
        self.m.wakeups_from_irq += waker.is_none() as u64;
        let c = self.tasks[p as usize].cpu;
        let mut cost = self.cost.ttwu_base_ns;
        cost += self.lock_rq(c, now + cost, this, self.cost.enqueue_hold_ns);
        self.rq(c).requeue_delayed(p);
        let t = &mut self.tasks[p as usize];
        t.state = TState::Waking;
        t.wake_data = (this, 0);
        t.woken_at = Some(now);
        let on_cpu = t.on_cpu.is_some();
        self.activate_requeued(c, p);
        if on_cpu {
            self.tasks[p as usize].requeued = false;
        } else {
            self.check_preempt(c, p, this);
        }
        cost
    }

    /// The second half of `try_to_wake_up()`: choose the CPU and enqueue there, or
    /// queue on its wake list. Returns the waker's total cost.
    pub(crate) fn ttwu_place(&mut self, w: Wakeup, cost: u64) -> u64 {
        if self.diff.is_some() && self.tracing() {
            // The A/B diff: kernel B's choice in this very state, on a copy.
            self.diff_counterfactual(w, cost);
        }
        let (p, prev, this) = (w.p.0, w.prev.0, w.this.0);
        let now = self.now;
        let mut cost = cost;
        let cpu = self.select_task_rq(&w, &mut cost);
        if cpu != prev {
            let d = self.map.distance(prev, cpu);
            self.m.count_migration(d, MigratedBy::Wakeup);
            self.rec_migrate(p, prev, cpu, "wakeup");
        }
        self.tasks[p as usize].cpu = cpu;

        if self.ttwu_queue_cond(this, cpu, false) {
            cost += self.queue_wakelist(cpu, p, cost);
            let ipi = self.cpus[cpu as usize].ipi_inflight;
            self.finish_trace(cpu, prev, Delivery::WakeList { ipi }, cost);
            return cost;
        }
        // ttwu_queue() direct: take the target's rq lock, enqueue, check preemption.
        cost += self.lock_rq(cpu, now + cost, this, self.cost.enqueue_hold_ns);
        cost += self.shared_runq_enqueue(cpu, p, now + cost, this);
        let ipi = cpu != this && self.idle_cpu(cpu) && self.needs_ipi(cpu);
        if ipi {
            cost += self.cost.ipi_send_ns;
        }
        self.push(now + cost, crate::state::Ev::Enqueue { cpu, task: p });
        self.finish_trace(cpu, prev, Delivery::Enqueue { ipi }, cost);
        cost
    }

    #[inline(always)]
    fn finish_trace(&mut self, cpu: u32, prev: u32, delivery: Delivery, cost: u64) {
        if self.tracing() {
            self.finish_traced(cpu, prev, delivery, cost);
        }
    }

    /// [`Sim::finish_trace`] of a traced wakeup: its outcome.
    #[cold]
    fn finish_traced(&mut self, cpu: u32, prev: u32, delivery: Delivery, cost: u64) {
        let (queued, ipi) = match delivery {
            Delivery::WakeList { ipi } => (true, ipi),
            Delivery::Enqueue { ipi } => (false, ipi),
            Delivery::AfterSwitch => (false, false),
        };
        let c = &self.cpus[cpu as usize];
        let idle_exit =
            (c.phase == crate::state::Phase::Idle).then(|| self.cost.cstates[c.cstate as usize].name.clone());
        let migration = self.map.distance(prev, cpu);
        self.trace_end(Outcome { chosen_cpu: cpu, migration, queued, ipi, idle_exit, cost_ns: cost });
    }

    /// `ttwu_queue_cond()` under TTWU_QUEUE: queue on the target's wake list instead
    /// of locking its runqueue. Always across LLCs (v3.0 on), never to the waker's own
    /// CPU. v5.8–v5.19 (c6e7bd7afaeb): also a wakee still on its CPU (`on_cpu`, the
    /// WF_ON_CPU flag) when that CPU runs at most one task. From v6.0 (Tianchen Ding,
    /// f3dd3f674555) WF_ON_CPU is gone: any wakeup to a CPU of the LLC with nothing
    /// running is queued (the wakee was already dequeued, so an `on_cpu` wakee's CPU
    /// counts only the others).
    fn ttwu_queue_cond(&self, this: u32, cpu: u32, on_cpu: bool) -> bool {
        if !self.cfg.on(Switch::TtwuQueue) || cpu == this {
            return false;
        }
        if !self.map.share_cache(this, cpu) {
            return true;
        }
        if self.cfg.since(6, 0) {
            self.cpus[cpu as usize].nr_running == 0
        } else {
            on_cpu && self.cfg.since(5, 8) && self.cpus[cpu as usize].nr_running <= 1
        }
    }

    /// `__ttwu_queue_wakelist()`: push on the list, set `ttwu_pending`, and send the
    /// IPI if the list was empty (none when the target polls in idle).
    fn queue_wakelist(&mut self, cpu: u32, p: u32, cost_so_far: u64) -> u64 {
        let first = self.cpus[cpu as usize].wake_list.is_empty();
        self.cpus[cpu as usize].wake_list.push(p);
        self.cpus[cpu as usize].ttwu_pending = true;
        self.m.ttwu_queued += 1;
        if !first || self.cpus[cpu as usize].ipi_inflight {
            return 0;
        }
        let at = self.now + cost_so_far;
        if !self.needs_ipi(cpu) {
            // Polling idle: setting need_resched is enough.
            self.kick(cpu, at, WakeSignal::NoIpi);
            return 0;
        }
        self.cpus[cpu as usize].ipi_inflight = true;
        self.m.ipis += 1;
        let send = self.cost.ipi_send_ns;
        self.push(at + send + self.cost.ipi_delivery_ns, crate::state::Ev::WakeIpi { cpu });
        send
    }

    /// `current` on the waking CPU `this`: the waker, or for a wakeup from interrupt
    /// context the task the interrupt found running there (during a context switch,
    /// the one switching out), else the CPU's idle task.
    fn current_on(&self, this: u32, waker: Option<u32>) -> Current {
        match waker.or_else(|| self.cpus[this as usize].curr) {
            Some(t) => Current::Task(t),
            None => Current::Idle(this),
        }
    }

    fn wakee_flips_of(&mut self, c: Current) -> &mut WakeeFlips {
        match c {
            Current::Task(t) => &mut self.tasks[t as usize].wakee,
            Current::Idle(cpu) => &mut self.cpus[cpu as usize].idle_wakee,
        }
    }

    /// `record_wakee()` (62470419e993, v3.12): count how often `current` switches
    /// partners, halving the count once a second. From interrupt context `current` is
    /// whatever the interrupt found running, often the idle task. Returns
    /// `current->wakee_flips` after the update, for [`Sim::wake_wide`].
    fn record_wakee(&mut self, current: Current, p: u32) -> u32 {
        let now = self.now;
        let w = self.wakee_flips_of(current);
        if now > w.decay_ts + 1_000_000_000 {
            w.flips >>= 1;
            w.decay_ts = now;
        }
        if w.last != p {
            w.last = p;
            w.flips += 1;
        }
        w.flips
    }

    /// `wake_wide()` (Galbraith's form, 63b0e9edceec, v4.3, unchanged to v6.5): a waker
    /// with many partners relative to the LLC size does not pull its wakees. `a` is
    /// `current->wakee_flips`, as [`Sim::record_wakee`] just left it.
    #[inline(always)]
    pub(crate) fn wake_wide(&mut self, w: &Wakeup, current: Current, a: u32) -> bool {
        let (p, this) = (w.p.0, w.this.0);
        let b = self.tasks[p as usize].wakee.flips;
        let (master, slave) = (a.max(b), a.min(b));
        let factor = self.map.llc_span(this).len() as u32;
        let wide = !(slave < factor || master < slave * factor);
        if wide {
            self.m.wake_wide += 1;
        }
        self.step(|s| {
            let who = match current {
                Current::Task(t) => s.tasks[t as usize].name.clone(),
                Current::Idle(c) => format!("swapper/{c}"),
            };
            st(
                "wake_wide",
                vec![format!("current ({who}) flips={a}"), format!("wakee flips={b}"), format!("llc_size={factor}")],
                if wide { "1 (wide)".into() } else { "0".into() },
                if wide {
                    "the waker wakes many different tasks: spread them, no affine pull"
                } else {
                    "few partners: an affine wakeup may pull the wakee to the waker"
                },
            )
        });
        wide
    }

    /// `select_task_rq_fair()` for a wakeup. v3.8: affine domain, `wake_affine`, then
    /// `select_idle_sibling(target)`. v4.15+: `wake_wide`, then the same with
    /// `select_idle_sibling(prev, target)`. No domain has SD_BALANCE_WAKE on a
    /// symmetric machine, so the slow path is never taken for wakeups. A kernel column
    /// with a policy script takes the path's second instance (`P`), which asks the
    /// script where it defines a function: the one test the path pays without one.
    #[inline(always)]
    pub(crate) fn select_task_rq(&mut self, w: &Wakeup, cost: &mut u64) -> u32 {
        #[cfg(feature = "policy")]
        if self.hooks != 0 {
            return self.select_task_rq_scripted(w, cost);
        }
        self.select_task_rq_in::<false>(w, cost)
    }

    /// [`Sim::select_task_rq`]; `P`: a policy script may replace its functions.
    #[inline(always)]
    pub(crate) fn select_task_rq_in<const P: bool>(&mut self, w: &Wakeup, cost: &mut u64) -> u32 {
        let (p, this) = (w.p.0, w.this.0);
        if let Some(c) = self.tasks[p as usize].pinned {
            self.step(|_| st("select_task_rq", vec![format!("nr_cpus_allowed=1")], format!("CPU {c}"), "pinned task"));
            return c;
        }
        #[cfg(feature = "policy")]
        if P && self.hooks & policy::HOOK_SELECT_TASK_RQ != 0 {
            return self.policy_select_task_rq(w, cost);
        }
        // Only a task allowed on several CPUs gets here (select_task_rq() in core.c), so
        // a pinned wakee is not recorded. wake_wide() came with record_wakee() (v3.12).
        let current = self.current_on(this, w.waker.map(|t| t.0));
        let want_affine = if self.cfg.since(3, 12) {
            let flips = self.record_wakee(current, p);
            #[cfg(feature = "policy")]
            if P && self.hooks & policy::HOOK_WAKE_WIDE != 0 {
                let wide = self.policy_wake_wide(w, current, flips, cost);
                return self.select_task_rq_from::<P>(w, cost, current, !wide);
            }
            !self.wake_wide(w, current, flips)
        } else {
            true
        };
        self.select_task_rq_from::<P>(w, cost, current, want_affine)
    }

    /// The wake-affine domain of `this` that spans `prev`: its depth in `this`'s chain.
    #[inline(always)]
    pub(crate) fn affine_domain(&self, this: u32, prev: u32) -> Option<usize> {
        self.doms.chain[this as usize].iter().position(|&d| {
            let sd = &self.doms.domains[d as usize];
            sd.has(SD_WAKE_AFFINE) && sd.contains(prev)
        })
    }

    /// The rest of [`Sim::select_task_rq`] once `wake_wide` has answered.
    #[inline(always)]
    fn select_task_rq_from<const P: bool>(
        &mut self,
        w: &Wakeup,
        cost: &mut u64,
        current: Current,
        want_affine: bool,
    ) -> u32 {
        let (prev, this) = (w.prev.0, w.this.0);
        let mut new = prev;
        let affine_depth = if want_affine { self.affine_domain(this, prev) } else { None };
        if let Some(depth) = affine_depth {
            if this != prev {
                #[cfg(feature = "policy")]
                if P && self.hooks & policy::HOOK_WAKE_AFFINE != 0 {
                    new = self.policy_wake_affine(depth, w, cost);
                } else {
                    new = self.wake_affine(depth, w);
                }
                #[cfg(not(feature = "policy"))]
                {
                    new = self.wake_affine(depth, w);
                }
            }
        } else if this != prev || !want_affine {
            self.step(|_| {
                st(
                    "select_task_rq_fair",
                    vec![format!("want_affine={}", want_affine as u8)],
                    format!("target=prev CPU {prev}"),
                    "no wake-affine domain spans both CPUs (or wake_wide): start from prev",
                )
            });
        }
        // Before v4.3 select_idle_sibling() ran only under an affine domain: without one,
        // `while (sd)` finds no SD_BALANCE_WAKE domain and new_cpu = prev_cpu is returned
        // as it is. "sched/fair: Beef up wake_wide()" (63b0e9edceec, v4.3) made the fast
        // path run select_idle_sibling() whenever no domain asks for the slow path.
        if affine_depth.is_none() && !self.cfg.since(4, 3) {
            self.step(|_| {
                st(
                    "select_task_rq_fair",
                    vec!["affine_sd=NULL".into()],
                    format!("CPU {prev}"),
                    "no SD_BALANCE_WAKE domain either: prev_cpu as it is, no select_idle_sibling",
                )
            });
            return prev;
        }
        let cpu = self.select_idle_sibling::<P>(w, CpuId(new), cost);
        // v4.17–v5.14: `current->recent_used_cpu = cpu` (reverted by seed 003); from an
        // interrupt that is the interrupted task (the idle task's is never read).
        if self.cfg.since(4, 17) && !self.cfg.on(Switch::RecentUsedPrev) && want_affine {
            if let Current::Task(t) = current {
                self.tasks[t as usize].recent_used_cpu = this;
            }
        }
        cpu
    }

    /// `wake_affine()` at domain `depth` of `this`: returns the target for
    /// `select_idle_sibling` (`this`, `prev`, or with seed 000's RFC CPU 1). v3.8: the
    /// `effective_load` form; from v4.14 (Peter Zijlstra's rewrite, d153b153446f and
    /// f2cdd9cc6c97): `wake_affine_idle` under WA_IDLE, then `wake_affine_weight`
    /// under WA_WEIGHT when it had no opinion.
    #[inline(always)]
    pub(crate) fn wake_affine(&mut self, depth: usize, w: &Wakeup) -> u32 {
        let (this, prev) = (w.this.0, w.prev.0);
        self.m.affine_attempts += 1;
        let target = if !self.cfg.since(4, 14) {
            self.wake_affine_38(depth, w)
        } else {
            let mut t = None;
            if self.cfg.on(Switch::WaIdle) {
                t = self.wake_affine_idle(w);
            }
            if t.is_none() && self.cfg.on(Switch::WaWeight) && self.wake_affine_weight(depth, w) {
                t = Some(this);
            }
            t
        };
        let Some(target) = target else {
            self.step(|_| {
                st("wake_affine", vec![], format!("prev CPU {prev}"), "no rule moved the wakeup: stay at prev")
            });
            return prev;
        };
        self.m.affine_moves += 1;
        self.step(|_| st("wake_affine", vec![], format!("CPU {target}"), "target for select_idle_sibling"));
        target
    }

    /// `wake_affine_idle()` (WA_IDLE) in every form; `None` is "no opinion"
    /// (`nr_cpumask_bits`, or `false` in the boolean form):
    /// - v4.14 (d153b153446f, a bool): an idle waking CPU (an interrupt) or a sync
    ///   waker alone on its CPU pulls the wakee to this CPU;
    /// - `wake-affine-noirq` (7332dec055f2, v4.16): the interrupt pull only when this
    ///   CPU shares prev's cache;
    /// - `wake-affine-prev` (806486c377e3, v4.16, an int): that pull keeps prev when
    ///   prev is idle;
    /// - v5.10 (d8fcb81f1acf): an idle prev is kept whatever the waker;
    /// - `wake-affine-prev-rfc`, seed 000 as posted (Gorman, RFC 2/4, Dec 2017): the
    ///   function returns an int but keeps `return true` for the noirq case, which is
    ///   CPU 1; an interrupt on an idle CPU that does not share prev's cache pulls to
    ///   this CPU again; a normal (not sync) wakeup keeps an idle prev; the sync rule
    ///   moves to `wake_affine_sync()`.
    ///
    /// Inlined by force, as `sis_scans` is.
    #[inline(always)]
    fn wake_affine_idle(&mut self, w: &Wakeup) -> Option<u32> {
        let (this, prev, sync) = (w.this.0, w.prev.0, w.sync);
        // Each test reads its CPU state only when the rule before it did not decide:
        // a sync wakeup whose waker is alone (every tbench wakeup) reads neither
        // prev's cache nor prev's idleness.
        let this_idle = self.idle_cpu(this);
        let noirq = self.cfg.on(Switch::WakeAffineNoirq);
        let rfc = self.cfg.on(Switch::WakeAffinePrevRfc);
        let merged = self.cfg.on(Switch::WakeAffinePrev) && !rfc;
        if this_idle && noirq {
            // 7332dec055f2's cpus_share_cache() test.
            self.m.patched[Switch::WakeAffineNoirq as usize] += 1;
        }
        let (r, why) = if this_idle && (!noirq || self.map.share_cache(this, prev)) {
            if merged {
                // 806486c377e3's idle_cpu(prev) test.
                self.m.patched[Switch::WakeAffinePrev as usize] += 1;
            }
            if rfc {
                self.m.patched[Switch::WakeAffinePrevRfc as usize] += 1;
                // `return true` in a function that now returns a CPU number.
                (Some(1), "RFC as posted: an interrupt wakeup sharing prev's cache returns `true`, which is CPU 1")
            } else if merged && self.idle_cpu(prev) {
                (Some(prev), "this CPU is idle (interrupt) and shares cache with prev, which is idle too: stay on prev")
            } else if noirq {
                (Some(this), "this CPU is idle (interrupt) and shares cache with prev: move here")
            } else {
                (Some(this), "this CPU is idle (an interrupt woke the task): pull it here, whatever the cache")
            }
        } else if rfc && this_idle {
            self.m.patched[Switch::WakeAffinePrevRfc as usize] += 1;
            (Some(this), "RFC: prefer migration for an interrupt: the data is cache hot on the CPU taking it")
        } else if rfc && this != prev && !sync && self.idle_cpu(prev) {
            self.m.patched[Switch::WakeAffinePrevRfc as usize] += 1;
            (
                Some(prev),
                "RFC: a normal wakeup keeps prev when it is idle (and cache-affine: this is the affine domain)",
            )
        } else if sync && self.cpus[this as usize].nr_running == 1 {
            (Some(this), "sync wakeup and the waker is alone on this CPU: take its place")
        } else if self.cfg.since(5, 10) && self.idle_cpu(prev) {
            (Some(prev), "prev is idle: use it (d8fcb81f1acf)")
        } else if this_idle {
            (None, "this CPU is idle but does not share cache with prev: an interrupt does not pull across LLCs")
        } else {
            (None, "no opinion")
        };
        self.step(|s| {
            let boolean = !merged && !rfc;
            st(
                if rfc && r == Some(this) && !this_idle { "wake_affine_sync (RFC)" } else { "wake_affine_idle" },
                vec![
                    format!("idle_cpu(this={this})={}", this_idle as u8),
                    format!("cpus_share_cache({this},{prev})={}", s.map.share_cache(this, prev) as u8),
                    format!("idle_cpu(prev={prev})={}", s.idle_cpu(prev) as u8),
                    format!("sync={}", sync as u8),
                    format!("nr_running({this})={}", s.cpus[this as usize].nr_running),
                ],
                match (boolean, r) {
                    (true, None) => "false".into(),
                    (true, Some(_)) => "true".into(),
                    (false, None) => "nr_cpumask_bits".into(),
                    (false, Some(r)) => format!("CPU {r}"),
                },
                why,
            )
        });
        r
    }

    /// Runnable load of a CPU as `wake_affine_weight` reads it: v4.15
    /// `cfs_rq_runnable_load_avg` (queued tasks only); v5.x `cpu_load()` (PELT of the
    /// runqueue, blocked load included).
    fn wa_load(&self, c: u32) -> i64 {
        let cpu = &self.cpus[c as usize];
        if !self.cfg.since(5, 7) {
            let mut s: u64 = cpu.queue.iter().map(|&t| self.tasks[t as usize].load.peek(self.now, NICE_0_LOAD)).sum();
            if let Some(t) = cpu.curr {
                if self.tasks[t as usize].state == TState::Running {
                    s += self.tasks[t as usize].load.peek(self.now, NICE_0_LOAD);
                }
            }
            s as i64
        } else {
            cpu.load.peek(self.now, NICE_0_LOAD * cpu.nr_running as u64) as i64
        }
    }

    /// `wake_affine_weight()` (v4.15; from v4.17 sync adds 1 to prev and the test is
    /// strict, 082f764a2f3f). Capacities cancel on a symmetric machine. Out of line,
    /// as are the other forms not taken by a sync wakeup: inlined into `ttwu_place`
    /// they cost the common path spills.
    #[inline(never)]
    fn wake_affine_weight(&mut self, depth: usize, w: &Wakeup) -> bool {
        let (p, this, prev, sync) = (w.p.0, w.this.0, w.prev.0, w.sync);
        let pct = self.doms.domains[self.doms.chain[this as usize][depth] as usize].imbalance_pct as i64;
        let mut this_eff = self.wa_load(this);
        let tl = self.tasks[p as usize].load.peek(self.now, 0) as i64;
        if sync {
            let cl = w.waker.map_or(0, |k| self.tasks[k.0 as usize].load.peek(self.now, NICE_0_LOAD) as i64);
            if cl > this_eff {
                self.step(|_| {
                    st(
                        "wake_affine_weight",
                        vec![format!("current_load={cl}"), format!("this_load={this_eff}")],
                        "this".into(),
                        "sync: the waker is all of this CPU's load",
                    )
                });
                return true;
            }
            this_eff -= cl;
        }
        let this_load = this_eff;
        let prev_load = self.wa_load(prev);
        this_eff += tl;
        let mut prev_eff = prev_load - tl;
        if self.cfg.on(Switch::WaBias) {
            this_eff *= 100;
            prev_eff *= 100 + (pct - 100) / 2;
        }
        let strict = self.cfg.since(4, 17);
        if strict && sync {
            prev_eff += 1;
        }
        let r = if strict { this_eff < prev_eff } else { this_eff <= prev_eff };
        self.step(|_| {
            st(
                "wake_affine_weight",
                vec![
                    format!("this_load={this_load}"),
                    format!("prev_load={prev_load}"),
                    format!("task_load={tl}"),
                    format!("imbalance_pct={pct}"),
                    format!("this_eff={this_eff}"),
                    format!("prev_eff={prev_eff}"),
                ],
                if r { "this".into() } else { "no opinion".into() },
                if r { "this CPU would be no busier than prev after the move" } else { "prev is less loaded" },
            )
        });
        r
    }

    /// v3.8 `wake_affine()`: instantaneous weights (`wake_idx` 0), `effective_load`
    /// without cgroups is just the task weight. Returns `this` or `None`. Out of line, as
    /// [`Sim::wake_affine_weight`].
    #[inline(never)]
    fn wake_affine_38(&mut self, depth: usize, w: &Wakeup) -> Option<u32> {
        let (this, prev, sync, from_task) = (w.this.0, w.prev.0, w.sync, w.waker.is_some());
        let pct = self.doms.domains[self.doms.chain[this as usize][depth] as usize].imbalance_pct as i64;
        let w = NICE_0_LOAD as i64;
        let nr_this = self.cpus[this as usize].nr_running as i64;
        let mut this_load = w * nr_this;
        let load = w * self.cpus[prev as usize].nr_running as i64;
        if sync && from_task {
            this_load -= w;
        }
        let balanced = this_load <= 0 || 100 * (this_load + w) <= (100 + (pct - 100) / 2) * load;
        let tl_per_task = if nr_this > 0 { w } else { 0 };
        // v3.8 returns early for `sync && balanced`; both end in "affine".
        let affine = balanced || (this_load <= load && this_load + load <= tl_per_task);
        self.step(|_| {
            st(
                "wake_affine (v3.8)",
                vec![
                    format!("this_load={this_load}"),
                    format!("prev_load={load}"),
                    format!("sync={}", sync as u8),
                    format!("balanced={}", balanced as u8),
                ],
                if affine { "1".into() } else { "0".into() },
                if affine {
                    "this CPU is no busier than prev with the wakee added: wake affine"
                } else {
                    "prev is less loaded"
                },
            )
        });
        affine.then_some(this)
    }
}
