//! Load balancing: `newidle_balance()` (each version's entry gates, from v3.8's
//! `idle_balance()` to v6.5; seed 002's pending-wakeup skip; Nayak's RFC patch 2
//! placement of the SHARED_RUNQ pop, which lives in `shared_runq.rs`), `load_balance()` (v5.10+ and older forms, active
//! balancing), periodic `rebalance_domains()`, the nohz idle-balance kick, and the
//! SIS_UTIL producer (`update_idle_cpu_scan`, v6.0).

use crate::domains::{SD_SHARE_CPUCAPACITY, SD_SHARE_PKG_RESOURCES};
use crate::kernel::{KernelVersion as V, Switch};
use crate::shared_runq::Pop;
use crate::sim::pelt::{NICE_0_LOAD, SCHED_CAPACITY_SCALE};
use crate::sim::{Cont, Sim, TState, MIGRATION_COST_NS};

/// `sd->max_newidle_lb_cost` decays by 253/256, "~1% per second", once a second:
/// `rebalance_domains()` from f48627e686a6 (v3.13) to v5.15, `update_newidle_cost()`
/// from e60b56e46b38 (v5.16).
const NEWIDLE_COST_DECAY: (u64, u64) = (253, 256);

/// `sd->cache_nice_tries` (`sd_init`): 0 for SMT, 1 for MC and PKG, 2 for NUMA.
fn cache_nice_tries(sd: &crate::domains::SchedDomain) -> u32 {
    match sd.level {
        crate::domains::Level::Smt => 0,
        crate::domains::Level::Mc | crate::domains::Level::Pkg => 1,
        crate::domains::Level::Numa(_) => 2,
    }
}

/// Cache lines of a CPU's runqueue that `update_sg_lb_stats()` reads and the owner
/// rewrites at every enqueue, dequeue or context switch, so each read is a transfer.
/// v4.15 to v6.5: the first line of `struct rq` (`nr_running`, beside the lock; in
/// v4.15 also `cpu_load[]`), the first line of `struct cfs_rq` (`h_nr_running`) and
/// `rq->cfs.avg` (load, runnable and util averages: a cache-aligned `struct
/// sched_avg` of its own); v3.8 reads `nr_running`, `cpu_load[]` and `rq->load` from
/// the first two lines of `struct rq`. A CPU with nothing running adds `idle_cpu()`'s
/// `rq->curr`. Lines the owner rarely writes (`cpu_capacity`) stay cached and are not
/// counted. The third line comes with `weighted_cpuload()` reading the PELT average
/// of `rq->cfs` (Alex Shi's series, b92486cbf2aa, v3.11).
fn lb_lines_per_cpu(v: V, running: bool) -> u64 {
    let base = if v.since(3, 11) { 3 } else { 2 };
    base + u64::from(!running)
}

/// `enum group_type` (v5.10+), the cases the model distinguishes, in the kernel's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum GroupType {
    #[default]
    HasSpare,
    FullyBusy,
    Overloaded,
}

/// `struct sg_lb_stats`, the fields the model keeps (capacity is SCHED_CAPACITY_SCALE
/// per CPU).
#[derive(Clone, Copy, Debug, Default)]
struct GroupStats {
    weight: u64,
    nr: u64,
    idle: u64,
    util: u64,
    runnable: u64,
    avg_load: u64,
    ty: GroupType,
}

/// `struct sd_lb_stats`, the fields the model keeps.
struct SdStats {
    stats: Vec<GroupStats>,
    /// Index of the group holding the balancing CPU.
    local: usize,
    busiest: Option<usize>,
    /// `sds->avg_load`: the domain's runnable load per SCHED_CAPACITY_SCALE of capacity.
    avg_load: u64,
}

/// `enum migration_type` without misfit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Migration {
    Task,
    Util,
    Load,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LbKind {
    NewlyIdle,
    Idle,
    Busy,
}

impl Sim {
    /// `newidle_balance()` (v3.8: `idle_balance()`): `curr` of `c` blocked and nothing
    /// is queued. `extra` is kernel time already spent in `schedule()`.
    pub(crate) fn newidle_balance(&mut self, c: u32, extra: u64) {
        self.newidle_balance_pass(c, extra, false)
    }

    /// One `newidle_balance()` call; `retried` when it is the second, from
    /// `balance_fair()` after a RETRY_TASK.
    fn newidle_balance_pass(&mut self, c: u32, extra: u64, retried: bool) {
        let skip = self.cfg.on(Switch::NewidleSkipPending);
        self.m.newidle_calls += 1;
        if skip && self.cpus[c as usize].ttwu_pending {
            // Seed 002: a wakeup is queued for this CPU; it runs when we switch to idle.
            self.m.newidle_skipped_pending += 1;
            return self.switch_to_idle(c, extra);
        }
        self.cpus[c as usize].idle_stamp = self.now.max(1);
        let cost = extra;
        let avg_idle = self.cpus[c as usize].avg_idle;
        // `sd = this_rq->sd`, the lowest domain (none on a 1-CPU machine).
        let lowest_cost = (!self.doms.chain[c as usize].is_empty()).then(|| self.dom(c, 0).max_newidle_lb_cost);
        if self.cfg.on(Switch::SharedRunq) {
            // Nayak's RFC patch 2 ("sched/fair: Improve integration of SHARED_RUNQ
            // feature within newidle_balance", on Vernet's v3): rd->overload first but no
            // avg_idle gate; pop from the shared runqueue, its time charged to sd_llc's
            // max_newidle_lb_cost and to curr_cost; a popped task returns at once (1
            // pulled, -1 not pullable: RETRY_TASK, and balance_fair() calls
            // newidle_balance() once more); return on a pending wakeup; then the usual
            // walk from the lowest domain, whose budget test runs before the domains
            // within the LLC are skipped.
            if !self.rd_overload {
                return self.switch_to_idle(c, cost);
            }
            let (pc, pop) = self.shared_runq_pop(c, self.now + cost);
            if let Some(d) = self.doms.llc_depth[c as usize] {
                let ds = self.dom(c, d as usize);
                ds.max_newidle_lb_cost = ds.max_newidle_lb_cost.max(pc);
            }
            match pop {
                Pop::Pulled => return self.newidle_finish(c, pc, cost + pc),
                Pop::Failed if !retried => {
                    self.m.shared_runq_retries += 1;
                    let cpu = &mut self.cpus[c as usize];
                    cpu.max_idle_balance_cost = cpu.max_idle_balance_cost.max(pc);
                    cpu.idle_stamp = 0;
                    return self.newidle_balance_pass(c, cost + pc, true);
                }
                Pop::Failed => return self.newidle_finish(c, pc, cost + pc),
                Pop::Empty => {}
            }
            if self.cpus[c as usize].ttwu_pending {
                return self.switch_to_idle(c, cost + pc);
            }
            return self.newidle_domain(c, 0, pc, cost + pc);
        }
        // v5.16 (Vincent Guittot's series, merged together: "Skip update_blocked_averages
        // if we are defering load balance", "Remove sysctl_sched_migration_cost
        // condition") moved the lowest domain's max_newidle_lb_cost test up into the
        // entry gate and dropped the 500 us; before, the same test is the first
        // domain's break in the loop below.
        // v3.8's idle_balance() has only the 500 us test: rd->overload came with Tim
        // Chen's "Implement fast idling of CPUs when the system is partially loaded"
        // (v3.16).
        let migration_gate = !self.cfg.since(5, 16) && avg_idle < MIGRATION_COST_NS;
        let overload_gate = self.cfg.since(3, 16) && !self.rd_overload;
        let lb_gate = self.cfg.since(5, 16) && lowest_cost.is_some_and(|m| avg_idle < m);
        if migration_gate || overload_gate || lb_gate {
            // In the kernel's order: avg_idle (before v5.16), rd->overload, cost.
            if migration_gate {
                self.m.newidle_gate_avg_idle += 1;
            } else if overload_gate {
                self.m.newidle_gate_overload += 1;
            } else {
                self.m.newidle_gate_cost += 1;
            }
            return self.switch_to_idle(c, cost);
        }
        self.newidle_domain(c, 0, 0, cost);
    }

    /// Balances at domain `depth` as one kernel segment, if the time budget allows.
    fn newidle_domain(&mut self, c: u32, depth: usize, curr_cost: u64, extra: u64) {
        let chain_len = self.doms.chain[c as usize].len();
        let mut depth = depth;
        loop {
            if depth >= chain_len {
                return self.newidle_finish(c, curr_cost, extra);
            }
            // The budget test came with Jason Low's "Consider the time spent on idle
            // balancing" (v3.13); v3.8 walks every domain until it pulls.
            let max_cost = self.dom(c, depth).max_newidle_lb_cost;
            if self.cfg.since(3, 13) && self.cpus[c as usize].avg_idle < curr_cost + max_cost {
                if depth == 0 {
                    self.m.newidle_gate_cost += 1;
                }
                return self.newidle_finish(c, curr_cost, extra);
            }
            // SHARED_RUNQ (Nayak's patch 2): domains within the LLC are skipped after
            // their budget test, the shared runqueue having stood for them.
            let did = self.doms.chain[c as usize][depth] as usize;
            if self.cfg.on(Switch::SharedRunq) && self.doms.domains[did].has(SD_SHARE_PKG_RESOURCES) {
                depth += 1;
                continue;
            }
            break;
        }
        let did = self.doms.chain[c as usize][depth] as usize;
        match self.doms.domains[did].level {
            crate::domains::Level::Smt => self.m.newidle_lb_smt += 1,
            crate::domains::Level::Mc => self.m.newidle_lb_mc += 1,
            crate::domains::Level::Pkg => self.m.newidle_lb_pkg += 1,
            crate::domains::Level::Numa(_) => self.m.newidle_lb_numa += 1,
        }
        let (cost, _pulled) = self.load_balance(c, depth, LbKind::NewlyIdle, self.now + extra);
        let ds = self.dom(c, depth);
        ds.max_newidle_lb_cost = ds.max_newidle_lb_cost.max(cost);
        self.kernel(c, extra + cost, Cont::Newidle { depth: depth as u8, curr_cost: curr_cost + cost });
    }

    /// After one domain: stop when something is runnable here (or, with seed 002, a
    /// wakeup is pending), else go on up.
    pub(crate) fn newidle_step_done(&mut self, c: u32, depth: u8, curr_cost: u64) {
        let pending = self.cfg.on(Switch::NewidleSkipPending) && self.cpus[c as usize].ttwu_pending;
        if self.cpus[c as usize].nr_running > 0 || pending {
            if pending && self.cpus[c as usize].nr_running == 0 {
                self.m.newidle_bailed_pending += 1;
            }
            return self.newidle_finish(c, curr_cost, 0);
        }
        self.newidle_domain(c, depth as usize + 1, curr_cost, 0);
    }

    fn newidle_finish(&mut self, c: u32, curr_cost: u64, extra: u64) {
        // Balancing ran without this runqueue's lock (raw_spin_rq_unlock() before the
        // pop or the domain walk); `raw_spin_rq_lock(this_rq)` takes it back.
        let extra = extra + self.lock_rq(c, self.now + extra, c, 0);
        let skip = self.cfg.on(Switch::NewidleSkipPending);
        let cpu = &mut self.cpus[c as usize];
        cpu.max_idle_balance_cost = cpu.max_idle_balance_cost.max(curr_cost);
        if cpu.nr_running > 0 || (skip && cpu.ttwu_pending) {
            cpu.idle_stamp = 0;
        }
        match self.pick_next(c) {
            Some(next) => self.start_switch(c, next, extra),
            None => self.switch_to_idle(c, extra),
        }
    }

    /// `load_balance()` at `depth` of `c`: the v5.10+ form (Vincent Guittot's rework)
    /// for v5.13 and later, the compact pre-v5.10 form before. Both read every runqueue
    /// of the span in `update_sg_lb_stats()`, each a few cache lines its owner keeps
    /// writing (see `lb_lines_per_cpu`). Returns (cost in ns, pulled).
    fn load_balance(&mut self, c: u32, depth: usize, kind: LbKind, at: u64) -> (u64, bool) {
        let did = self.doms.chain[c as usize][depth] as usize;
        let span_len = self.doms.domains[did].span.len();
        let mut cost = self.cost.lb_domain_base_ns;
        for i in 0..span_len {
            let o = self.doms.domains[did].span[i];
            let lines = lb_lines_per_cpu(self.cfg.version, self.cpus[o as usize].nr_running > 0);
            cost += lines * self.cost.line_transfer_ns(self.map.distance(c, o));
        }
        // Vincent Guittot's rework (0b0695f2b34a, v5.5) with groups classified by
        // runnable_avg too (070f5e860ee2, v5.7).
        if self.cfg.since(5, 7) {
            return self.load_balance_v510(c, depth, kind, at, cost);
        }
        self.load_balance_legacy(c, depth, kind, at, cost)
    }

    /// Pre-v5.10 `load_balance()`, compactly: the busiest group other than ours that has
    /// a runqueue with two tasks, by tasks per CPU; pull one queued, not cache-hot task
    /// from its busiest runqueue if the imbalance is worth it (an idle puller always,
    /// a busy one past `imbalance_pct`).
    fn load_balance_legacy(&mut self, c: u32, depth: usize, kind: LbKind, at: u64, cost: u64) -> (u64, bool) {
        let mut cost = cost;
        let did = self.doms.chain[c as usize][depth] as usize;
        let span_len = self.doms.domains[did].span.len();
        let local = self.doms.domains[did].group_of(c);
        let ngroups = self.doms.domains[did].groups.len();
        let group_load = |s: &Sim, g: usize| -> u64 {
            let grp = &s.doms.domains[did].groups[g];
            grp.iter().map(|&x| s.cpus[x as usize].nr_running as u64).sum::<u64>() * NICE_0_LOAD / grp.len() as u64
        };
        let local_load = group_load(self, local);
        let mut busiest: Option<(u64, usize)> = None;
        let mut any_overloaded = false;
        for g in 0..ngroups {
            let grp_over = self.doms.domains[did].groups[g].iter().any(|&x| self.cpus[x as usize].nr_running >= 2);
            any_overloaded |= grp_over;
            if g == local || !grp_over {
                continue;
            }
            let l = group_load(self, g);
            if busiest.is_none_or(|(b, _)| l > b) {
                busiest = Some((l, g));
            }
        }
        if span_len == self.cpus.len() {
            // update_sd_lb_stats() at the root domain refreshes rd->overload.
            self.rd_overload = any_overloaded;
        }
        let Some((bload, bg)) = busiest else {
            self.lb_outcome(c, depth, kind, false);
            return (cost, false);
        };
        let pct = self.doms.domains[did].imbalance_pct as u64;
        let worth = match kind {
            LbKind::NewlyIdle | LbKind::Idle => self.cpus[c as usize].nr_running == 0,
            LbKind::Busy => bload * 100 > local_load * pct && bload > local_load + NICE_0_LOAD / 2,
        };
        if !worth {
            self.lb_outcome(c, depth, kind, false);
            return (cost, false);
        }
        self.lb_outcome(c, depth, kind, true);
        let src = {
            let grp = &self.doms.domains[did].groups[bg];
            let mut best = grp[0];
            for &x in grp {
                if self.cpus[x as usize].nr_running > self.cpus[best as usize].nr_running {
                    best = x;
                }
            }
            best
        };
        let cand = self.cpus[src as usize].queue.iter().copied().find(|&t| self.can_migrate_task(t, c, depth));
        let Some(t) = cand else {
            if kind != LbKind::NewlyIdle {
                self.dom(c, depth).nr_balance_failed += 1;
            }
            return (cost, false);
        };
        self.dom(c, depth).nr_balance_failed = 0;
        cost += self.lock_rq(src, at + cost, c, self.cost.lb_move_task_ns);
        cost += self.pull_task(src, t, c, kind, at + cost);
        (cost, true)
    }

    /// `can_migrate_task()` for a balance of domain `depth` of `c`: allowed on `c`,
    /// not on a CPU (`task_running()`), and not cache hot (run within
    /// `sysctl_sched_migration_cost`; never at SMT level) unless the domain has failed
    /// more than `cache_nice_tries` times.
    fn can_migrate_task(&self, t: u32, c: u32, depth: usize) -> bool {
        let did = self.doms.chain[c as usize][depth] as usize;
        let sd = &self.doms.domains[did];
        let failed = self.dom_state[c as usize * self.depth_max + depth].nr_balance_failed;
        let task = &self.tasks[t as usize];
        let hot = !sd.has(SD_SHARE_CPUCAPACITY) && self.now.saturating_sub(task.exec_start) < MIGRATION_COST_NS;
        self.allowed(t, c) && task.on_cpu.is_none() && (!hot || failed > cache_nice_tries(sd))
    }

    /// Moves queued task `t` from `src` to `c` (detach, attach); the caller holds the
    /// source runqueue lock. Returns the time spent.
    fn pull_task(&mut self, src: u32, t: u32, c: u32, kind: LbKind, at: u64) -> u64 {
        let mut cost = self.detach(src, t, at, c);
        cost += self.attach(c, t, src, at + cost);
        if kind == LbKind::NewlyIdle {
            self.m.newidle_pulled += 1;
        }
        cost
    }

    /// `load_balance()` v5.10+ (`kernel/sched/fair.c`, v5.13 to v6.5), as the kernel
    /// splits it: [`Sim::update_sd_lb_stats`] (per group `update_sg_lb_stats()`, then
    /// `update_sd_pick_busiest()`), [`Sim::find_busiest_group`] (whether it is worth
    /// balancing, with [`Sim::calculate_imbalance`] for how much),
    /// [`Sim::find_busiest_queue`] and [`Sim::detach_tasks`]; after
    /// `cache_nice_tries + 2` failures the stopper pushes the busiest CPU's running
    /// task (`active_balance`). Not modelled: misfit and asymmetric packing, NUMA
    /// preferences (fbq_type). All tasks are nice 0, so load equals runnable.
    fn load_balance_v510(&mut self, c: u32, depth: usize, kind: LbKind, at: u64, cost: u64) -> (u64, bool) {
        let mut cost = cost;
        let did = self.doms.chain[c as usize][depth] as usize;
        let sds = self.update_sd_lb_stats(c, depth);
        let Some((bi, mig, imbalance)) = self.find_busiest_group(c, depth, kind, &sds) else {
            self.lb_outcome(c, depth, kind, false);
            return (cost, false);
        };
        let Some(src) = self.find_busiest_queue(did, bi, mig) else {
            self.lb_outcome(c, depth, kind, false);
            return (cost, false);
        };
        self.lb_outcome(c, depth, kind, true);
        let tries = cache_nice_tries(&self.doms.domains[did]);
        let (spent, moved) = self.detach_tasks(c, depth, kind, src, mig, imbalance, at + cost);
        cost += spent;
        if moved == 0 {
            if kind != LbKind::NewlyIdle {
                self.dom(c, depth).nr_balance_failed += 1;
            }
            // need_active_balance(): after cache_nice_tries + 2 failures, the stopper of
            // the busiest CPU pushes its running task here.
            let cur = self.cpus[src as usize].curr;
            let movable = cur.is_some_and(|t| self.tasks[t as usize].state == TState::Running && self.allowed(t, c));
            if movable
                && src != c
                && !self.cpus[src as usize].active_balance
                && self.dom(c, depth).nr_balance_failed > tries + 2
            {
                self.cpus[src as usize].active_balance = true;
                let at = at + cost + self.cost.ipi_send_ns + self.cost.ipi_delivery_ns;
                self.push(at, crate::sim::Ev::ActiveBalance { src, dst: c });
                cost += self.cost.ipi_send_ns;
                self.dom(c, depth).nr_balance_failed = tries + 1;
            }
            return (cost, false);
        }
        self.dom(c, depth).nr_balance_failed = 0;
        (cost, true)
    }

    /// `update_sd_lb_stats()` for domain `depth` of `c`: `update_sg_lb_stats()` for
    /// each group (tasks, idle CPUs, PELT util and runnable, `group_classify()`: spare
    /// capacity, fully busy or overloaded), `rd->overload` refreshed at the root
    /// domain, and `update_sd_pick_busiest()`: a higher group type wins; among
    /// overloaded or fully busy groups the higher avg_load, among groups with spare
    /// capacity the fewer idle CPUs, then the more tasks. A group with no task is never
    /// busiest.
    fn update_sd_lb_stats(&mut self, c: u32, depth: usize) -> SdStats {
        let now = self.now;
        let did = self.doms.chain[c as usize][depth] as usize;
        let dom = &self.doms.domains[did];
        let pct = dom.imbalance_pct as u64;
        let root = dom.span.len() == self.cpus.len();
        let local = dom.group_of(c);
        let mut stats: Vec<GroupStats> = Vec::with_capacity(dom.groups.len());
        let (mut total_load, mut total_cap) = (0u64, 0u64);
        let mut rq_overloaded = false;
        for grp in &dom.groups {
            let mut g = GroupStats { weight: grp.len() as u64, ..GroupStats::default() };
            for &x in grp {
                let cpu = &self.cpus[x as usize];
                g.nr += cpu.nr_running as u64;
                if cpu.nr_running == 0 && self.idle_cpu(x) {
                    g.idle += 1;
                }
                g.util +=
                    cpu.util.peek(now, SCHED_CAPACITY_SCALE * cpu.curr.is_some() as u64).min(SCHED_CAPACITY_SCALE);
                g.runnable += cpu.load.peek(now, NICE_0_LOAD * cpu.nr_running as u64);
                rq_overloaded |= cpu.nr_running >= 2;
            }
            let cap = g.weight * SCHED_CAPACITY_SCALE;
            // group_classify(): group_is_overloaded(), then !group_has_capacity().
            g.ty = if g.nr > g.weight && (cap * 100 < g.util * pct || cap * pct < g.runnable * 100) {
                GroupType::Overloaded
            } else if g.nr < g.weight {
                GroupType::HasSpare
            } else if cap * pct < g.runnable * 100 {
                GroupType::FullyBusy
            } else if cap * 100 > g.util * pct {
                GroupType::HasSpare
            } else {
                GroupType::FullyBusy
            };
            g.avg_load = g.runnable * SCHED_CAPACITY_SCALE / cap;
            total_load += g.runnable;
            total_cap += cap;
            stats.push(g);
        }
        if root {
            self.rd_overload = rq_overloaded;
        }
        let mut busiest: Option<usize> = None;
        for (i, g) in stats.iter().enumerate() {
            if i == local || g.nr == 0 {
                continue;
            }
            let better = match busiest.map(|b| stats[b]) {
                None => true,
                Some(b) if g.ty != b.ty => g.ty > b.ty,
                Some(b) => match g.ty {
                    GroupType::Overloaded | GroupType::FullyBusy => g.avg_load > b.avg_load,
                    GroupType::HasSpare => g.idle < b.idle || (g.idle == b.idle && g.nr > b.nr),
                },
            };
            if better {
                busiest = Some(i);
            }
        }
        SdStats { stats, local, busiest, avg_load: total_load * SCHED_CAPACITY_SCALE / total_cap.max(1) }
    }

    /// `find_busiest_group()`: the busiest group, how to migrate and how much, or
    /// `None` when the domain is balanced.
    fn find_busiest_group(&self, c: u32, depth: usize, kind: LbKind, sds: &SdStats) -> Option<(usize, Migration, i64)> {
        let did = self.doms.chain[c as usize][depth] as usize;
        let pct = self.doms.domains[did].imbalance_pct as u64;
        // sds->prefer_sibling: the child domain has SD_PREFER_SIBLING, which sd_init()
        // sets on every level but NUMA ones.
        let prefer_sibling = depth > 0 && {
            let child = self.doms.chain[c as usize][depth - 1] as usize;
            !self.doms.domains[child].has(crate::domains::SD_NUMA)
        };
        let bi = sds.busiest?;
        let (l, b) = (sds.stats[sds.local], sds.stats[bi]);
        if l.ty > b.ty {
            return None;
        }
        if l.ty == GroupType::Overloaded
            && (l.avg_load >= b.avg_load || l.avg_load >= sds.avg_load || 100 * b.avg_load <= pct * l.avg_load)
        {
            return None;
        }
        let force = prefer_sibling && l.ty == GroupType::HasSpare && b.nr > l.nr + 1;
        if !force && b.ty != GroupType::Overloaded {
            // Busy CPUs leave spreading to idle ones; an idle-CPU difference of one or
            // a busiest group with one task is no imbalance.
            if kind == LbKind::Busy || (b.weight > 1 && l.idle <= b.idle + 1) || b.nr == 1 {
                return None;
            }
        }
        let (mig, imbalance) = self.calculate_imbalance(c, depth, kind, prefer_sibling, l, b, sds.avg_load)?;
        (imbalance > 0).then_some((bi, mig, imbalance))
    }

    /// `calculate_imbalance()`: spread tasks evenly (SD_PREFER_SIBLING children), even
    /// out idle CPUs, fill spare utilisation, or move load. `None` when the local
    /// group is already as loaded as the busiest or the domain average.
    #[allow(clippy::too_many_arguments)]
    fn calculate_imbalance(
        &self,
        c: u32,
        depth: usize,
        kind: LbKind,
        prefer_sibling: bool,
        l: GroupStats,
        b: GroupStats,
        sds_avg: u64,
    ) -> Option<(Migration, i64)> {
        let did = self.doms.chain[c as usize][depth] as usize;
        let dom = &self.doms.domains[did];
        if l.ty == GroupType::HasSpare {
            if b.ty > GroupType::FullyBusy && !dom.has(SD_SHARE_PKG_RESOURCES) {
                let lcap = l.weight * SCHED_CAPACITY_SCALE;
                let imb = lcap.max(l.util) - l.util;
                return Some(if imb == 0 && kind != LbKind::Busy {
                    (Migration::Task, 1)
                } else {
                    (Migration::Util, imb as i64)
                });
            }
            let mut imb =
                if b.weight == 1 || prefer_sibling { b.nr.saturating_sub(l.nr) } else { l.idle.saturating_sub(b.idle) };
            if dom.has(crate::domains::SD_NUMA) && self.numa_imbalance_allowed(c, depth, l, imb) {
                imb = 0;
            }
            return Some((Migration::Task, (imb >> 1) as i64));
        }
        if l.ty < GroupType::Overloaded && (l.avg_load >= b.avg_load || l.avg_load >= sds_avg) {
            return None;
        }
        let imb = ((b.avg_load.saturating_sub(sds_avg)) * b.weight * SCHED_CAPACITY_SCALE)
            .min(sds_avg.saturating_sub(l.avg_load) * l.weight * SCHED_CAPACITY_SCALE)
            / SCHED_CAPACITY_SCALE;
        Some((Migration::Load, imb as i64))
    }

    /// `find_busiest_queue()`: in group `bi` of domain `did`, the runqueue with the
    /// most tasks (migrate_task), else the most utilisation or load among runqueues
    /// with a task waiting.
    fn find_busiest_queue(&self, did: usize, bi: usize, mig: Migration) -> Option<u32> {
        let now = self.now;
        let mut src: Option<(u64, u32)> = None;
        for &x in &self.doms.domains[did].groups[bi] {
            let cpu = &self.cpus[x as usize];
            let key = match mig {
                Migration::Task => cpu.nr_running as u64,
                _ if cpu.nr_running <= 1 => continue,
                Migration::Util => cpu.util.peek(now, SCHED_CAPACITY_SCALE * cpu.curr.is_some() as u64),
                Migration::Load => cpu.load.peek(now, NICE_0_LOAD * cpu.nr_running as u64),
            };
            if src.is_none_or(|(k, _)| key > k) {
                src = Some((key, x));
            }
        }
        src.map(|(_, x)| x)
    }

    /// `detach_tasks()` and `attach_tasks()`: queued, not cache-hot tasks of `src`,
    /// while it keeps one (for an idle puller), up to the imbalance. Returns the time
    /// spent and how many moved.
    #[allow(clippy::too_many_arguments)]
    fn detach_tasks(
        &mut self,
        c: u32,
        depth: usize,
        kind: LbKind,
        src: u32,
        mig: Migration,
        imbalance: i64,
        at: u64,
    ) -> (u64, u32) {
        let now = self.now;
        let did = self.doms.chain[c as usize][depth] as usize;
        let failed = self.dom(c, depth).nr_balance_failed;
        let tries = cache_nice_tries(&self.doms.domains[did]);
        let mut imbalance = imbalance;
        let mut cost = 0;
        let mut moved = 0u32;
        if self.cpus[src as usize].nr_running <= 1 || src == c {
            return (cost, moved);
        }
        let queue = self.cpus[src as usize].queue.clone();
        for t in queue {
            if kind != LbKind::Busy && self.cpus[src as usize].nr_running <= 1 {
                break;
            }
            if !self.can_migrate_task(t, c, depth) {
                continue;
            }
            let load = self.tasks[t as usize].load.peek(now, NICE_0_LOAD).max(1);
            if mig == Migration::Load && load / 2 > imbalance as u64 && failed <= tries {
                continue;
            }
            if moved == 0 {
                cost += self.lock_rq(src, at + cost, c, self.cost.lb_move_task_ns);
            } else {
                // detach_tasks() detaches every task under one hold of the busiest
                // runqueue's lock: each further task keeps it held longer.
                self.extend_rq_hold(src, c, self.cost.lb_move_task_ns);
                cost += self.cost.lb_move_task_ns;
            }
            cost += self.pull_task(src, t, c, kind, at + cost);
            moved += 1;
            imbalance -= match mig {
                Migration::Task => 1,
                Migration::Util | Migration::Load => load as i64,
            };
            if imbalance <= 0 {
                break;
            }
        }
        (cost, moved)
    }

    /// `active_load_balance_cpu_stop()` on `src`: the stopper preempts the running
    /// task and, once it is switched out, attaches it to `dst` (cache-hot or not). Only
    /// a task running user code is taken; otherwise the stopper finds nothing to move.
    pub(crate) fn active_balance(&mut self, src: u32, dst: u32) {
        self.cpus[src as usize].active_balance = false;
        let Some(t) = self.cpus[src as usize].curr else { return };
        if self.cpus[src as usize].phase != crate::sim::Phase::User
            || self.tasks[t as usize].state != TState::Running
            || !self.allowed(t, dst)
        {
            return;
        }
        self.pause_user(src);
        self.update_curr(src);
        self.update_load(src);
        // Off the runqueue now, attached to dst when the switch away completes.
        self.cpus[src as usize].nr_running -= 1;
        self.tasks[t as usize].state = TState::Waking;
        self.tasks[t as usize].push_to = Some(dst);
        self.cpus[src as usize].carry_ns += self.cost.lb_move_task_ns;
        self.schedule(src);
    }

    /// The second half of an active balance: `t`, switched out of `src`, lands on `dst`.
    pub(crate) fn push_attach(&mut self, t: u32, src: u32, dst: u32) {
        let now = self.now;
        self.m.active_balance_pushes += 1;
        // The stopper's time was charged on src when it ran (lb_move_task_ns); the lock
        // is still taken so that others contend with it.
        let _ = self.lock_rq(dst, now, src, self.cost.enqueue_hold_ns);
        let _ = self.attach(dst, t, src, now);
    }

    /// `adjust_numa_imbalance()`: a NUMA imbalance of at most two tasks is allowed
    /// while the destination stays lightly loaded — in v6.5 up to `imb_numa_nr`
    /// tasks (the number of LLCs below the first NUMA level, or an eighth of a
    /// single-LLC node), before v5.18 below a quarter of the destination group.
    fn numa_imbalance_allowed(&self, c: u32, depth: usize, local: GroupStats, imbalance: u64) -> bool {
        if imbalance > 2 {
            return false;
        }
        let dst_running = local.nr + 1;
        // e496132ebedd (v5.18): imb_numa_nr.
        if self.cfg.since(5, 18) {
            let child = self.doms.chain[c as usize][depth.saturating_sub(1)] as usize;
            let child = &self.doms.domains[child];
            let llc = self.doms.llc_depth[c as usize].map_or(1, |d| {
                let d = self.doms.chain[c as usize][d as usize] as usize;
                self.doms.domains[d].span.len().max(1)
            });
            let nr_llcs = (child.span.len() / llc).max(1);
            let imb_numa_nr = if nr_llcs == 1 { (child.span.len() as u64 >> 3).max(1) } else { nr_llcs as u64 };
            dst_running <= imb_numa_nr
        } else {
            dst_running < local.weight / 4
        }
    }

    /// Takes queued task `t` off `src` for balancer `by` at time `at`; returns the time
    /// spent leaving its SHARED_RUNQ shard (`__dequeue_entity`).
    pub(crate) fn detach(&mut self, src: u32, t: u32, at: u64, by: u32) -> u64 {
        self.update_load(src);
        let q = &mut self.cpus[src as usize].queue;
        if let Some(i) = q.iter().position(|&x| x == t) {
            q.swap_remove(i);
        }
        self.cpus[src as usize].nr_running -= 1;
        self.tasks[t as usize].state = TState::Waking;
        self.shared_runq_dequeue(t, at, by)
    }

    /// Puts a detached task on `c` (a migration by a balancer) at time `at`; returns
    /// the time spent joining `c`'s SHARED_RUNQ shard (`__enqueue_entity`).
    pub(crate) fn attach(&mut self, c: u32, t: u32, src: u32, at: u64) -> u64 {
        self.m.count_migration(self.map.distance(src, c), true);
        self.rec_migrate(t, src, c, "balance");
        let cost = self.shared_runq_enqueue(c, t, at, c);
        self.activate(c, t);
        self.check_preempt(c, t, c);
        cost
    }

    /// One domain of `rebalance_domains()` for `c` (busy or idle): if it is due, mark
    /// it balanced now and, when `should_we_balance()` picks `c`, run `load_balance()`.
    /// Returns its (cost, pulled), or None when nothing was due.
    fn rebalance_domain(&mut self, c: u32, depth: usize, busy: bool, at: u64) -> Option<(u64, bool)> {
        if !self.balance_due(c, depth, busy) {
            return None;
        }
        self.dom(c, depth).last_balance = self.now;
        let kind = if busy { LbKind::Busy } else { LbKind::Idle };
        if !self.should_we_balance(c, depth) {
            // load_balance() goes to out_balanced without looking.
            self.lb_outcome(c, depth, kind, false);
            return Some((0, false));
        }
        Some(self.load_balance(c, depth, kind, at))
    }

    /// `rebalance_domains()`'s test: `sd->last_balance` plus `get_sd_balance_interval()`
    /// (`sd->balance_interval` ms, times `busy_factor` on a busy CPU, at least a jiffy)
    /// has passed. The busy factor applies to the CPU's state now, as in the kernel.
    fn balance_due(&mut self, c: u32, depth: usize, busy: bool) -> bool {
        // 6e7499135db7 (v5.10) halved the busy factor.
        let busy_factor: u64 = if self.cfg.since(5, 10) { 16 } else { 32 };
        let ds = *self.dom(c, depth);
        let ms = ds.balance_interval_ms.max(1) * if busy { busy_factor } else { 1 };
        let interval = (ms * 1_000_000).max(self.cost.tick_ns);
        self.now >= ds.last_balance.saturating_add(interval) || ds.last_balance == 0
    }

    /// `should_we_balance()` for periodic and idle balancing: only the first idle CPU
    /// of our group, else the group's first CPU, balances this domain.
    fn should_we_balance(&self, c: u32, depth: usize) -> bool {
        let did = self.doms.chain[c as usize][depth] as usize;
        let g = self.doms.domains[did].group_of(c);
        let grp = &self.doms.domains[did].groups[g];
        grp.iter().copied().find(|&x| self.idle_cpu(x)).unwrap_or(grp[0]) == c
    }

    /// The end of a periodic or idle `load_balance()`: an imbalance found resets
    /// `sd->balance_interval` to `min_interval`; a balanced domain doubles it, up to
    /// `max_interval` (twice the span weight, ms). Newidle balancing leaves it alone.
    /// A balanced domain also clears `sd->nr_balance_failed` (`out_balanced`).
    fn lb_outcome(&mut self, c: u32, depth: usize, kind: LbKind, unbalanced: bool) {
        let did = self.doms.chain[c as usize][depth] as usize;
        let min = self.doms.domains[did].min_interval_ms as u64;
        let d = self.dom(c, depth);
        if !unbalanced {
            d.nr_balance_failed = 0;
        }
        if kind == LbKind::NewlyIdle {
            return;
        }
        d.balance_interval_ms = if unbalanced { min } else { (d.balance_interval_ms.max(1) * 2).min(2 * min) };
    }

    /// `rebalance_domains()` from the tick of busy CPU `c`, the nohz kick, the SIS_UTIL
    /// producer and the `max_newidle_lb_cost` decay. Returns softirq time spent.
    pub(crate) fn periodic_balance(&mut self, c: u32) -> u64 {
        let now = self.now;
        let jiffy = now / self.cost.tick_ns;
        let mut cost = 0;
        let depth_n = self.doms.chain[c as usize].len();
        for depth in 0..depth_n {
            let ds = *self.dom(c, depth);
            if now >= ds.next_decay {
                let d = self.dom(c, depth);
                d.max_newidle_lb_cost = d.max_newidle_lb_cost * NEWIDLE_COST_DECAY.0 / NEWIDLE_COST_DECAY.1;
                d.next_decay = now + 1_000_000_000;
            }
            let busy = self.cpus[c as usize].curr.is_some();
            if let Some((lc, _)) = self.rebalance_domain(c, depth, busy, now + cost) {
                cost += lc;
            }
        }
        // SIS_UTIL: refresh the LLC's scan depth from its utilisation, once a jiffy.
        if self.cfg.on(Switch::SisUtil) {
            let llc = self.map.places[c as usize].llc as usize;
            if self.llcs[llc].nr_idle_scan_jiffy != jiffy + 1 {
                self.llcs[llc].nr_idle_scan_jiffy = jiffy + 1;
                let span = self.map.llc_cpus[llc].clone();
                let w = span.len() as u64;
                let util: u64 = span
                    .iter()
                    .map(|&x| {
                        let cpu = &self.cpus[x as usize];
                        cpu.util.peek(now, SCHED_CAPACITY_SCALE * cpu.curr.is_some() as u64)
                    })
                    .sum();
                const SCALE: u64 = SCHED_CAPACITY_SCALE;
                let x = (util / w).min(SCALE);
                // `env->sd->imbalance_pct` of the domain spanning the LLC: sd_llc.
                let pct = self.doms.sd_llc(c).map_or(0, |sd| sd.imbalance_pct as u64);
                let y = SCALE - (x * x * pct * pct / (10_000 * SCALE)).min(SCALE);
                self.llcs[llc].nr_idle_scan = (y * w / SCALE) as u32;
            }
        }
        // nohz_balancer_kick(): a CPU with two runnable tasks, or in an LLC with more
        // than one busy CPU, kicks the first idle CPU to balance for all idle ones,
        // at most once a jiffy.
        let llc_busy = || self.map.llc_span(c).iter().filter(|&&x| !self.idle_cpu(x)).count();
        if now >= self.nohz_next && (self.cpus[c as usize].nr_running >= 2 || llc_busy() > 1) {
            self.nohz_next = now + self.cost.tick_ns;
            if let Some(ilb) = (0..self.cpus.len() as u32).find(|&x| self.idle_cpu(x)) {
                self.cpus[ilb as usize].nohz_kick = true;
                cost += self.cost.ipi_send_ns;
                self.m.ipis += 1;
                self.kick(ilb, now, true);
            }
        }
        cost
    }

    /// `_nohz_idle_balance()`: the kicked CPU runs `rebalance_domains()` for every
    /// idle CPU whose domains are due (no busy factor), pulling tasks to those CPUs;
    /// the time is spent on the kicked CPU.
    pub(crate) fn nohz_balance(&mut self, c: u32) -> u64 {
        self.cpus[c as usize].nohz_kick = false;
        let now = self.now;
        let mut cost = 0;
        for i in 0..self.cpus.len() as u32 {
            if i != c && !self.idle_cpu(i) {
                continue;
            }
            for depth in 0..self.doms.chain[i as usize].len() {
                if let Some((lc, pulled)) = self.rebalance_domain(i, depth, false, now + cost) {
                    cost += lc;
                    if pulled {
                        break;
                    }
                }
            }
        }
        cost
    }
}
