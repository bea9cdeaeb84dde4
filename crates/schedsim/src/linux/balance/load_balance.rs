//! `load_balance()`: the form since Vincent Guittot's rework (v5.5, complete with
//! v5.7's runnable_avg classification) split as the kernel splits it
//! (`update_sd_lb_stats()`, `find_busiest_group()`, `calculate_imbalance()`,
//! `find_busiest_queue()`, `detach_tasks()`), the compact older form for v3.8 and
//! v4.15, active balancing by the stopper, and the detach and attach of a migrated task.
//! Its callers (newidle, periodic and nohz balancing) are in `balance/mod.rs`.

use super::LbResult;
use crate::facts::domains::{SD_SHARE_CPUCAPACITY, SD_SHARE_PKG_RESOURCES};
use crate::facts::kernel::KernelVersion as V;
use crate::facts::metrics::MigratedBy;
use crate::state::pelt::{NICE_0_LOAD, SCHED_CAPACITY_SCALE};
use crate::state::{Sim, TState, MIGRATION_COST_NS};

/// `sd->cache_nice_tries` (`sd_init`): 0 for SMT, 1 for MC and PKG, 2 for NUMA.
fn cache_nice_tries(sd: &crate::facts::domains::SchedDomain) -> u32 {
    match sd.level {
        crate::facts::domains::Level::Smt => 0,
        crate::facts::domains::Level::Mc | crate::facts::domains::Level::Pkg => 1,
        crate::facts::domains::Level::Numa(_) => 2,
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
pub(super) enum LbKind {
    NewlyIdle,
    Idle,
    Busy,
}

impl Sim {
    /// `load_balance()` at `depth` of `c`: from v5.7 the form of Vincent Guittot's
    /// rework (0b0695f2b34a, v5.5, with groups classified by runnable_avg too from
    /// 070f5e860ee2, v5.7), the compact older form before. Both read every runqueue
    /// of the span in `update_sg_lb_stats()`, each a few cache lines its owner keeps
    /// writing (see `lb_lines_per_cpu`). Returns (cost in ns, pulled).
    pub(super) fn load_balance(&mut self, c: u32, depth: usize, kind: LbKind, at: u64) -> (u64, bool) {
        let did = self.doms.chain[c as usize][depth] as usize;
        let span_len = self.doms.domains[did].span.len();
        let mut cost = self.cost.lb_domain_base_ns;
        for i in 0..span_len {
            let o = self.doms.domains[did].span[i];
            let lines = lb_lines_per_cpu(self.cfg.version, self.cpus[o as usize].nr_running > 0);
            cost += lines * self.cost.line_transfer_ns(self.map.distance(c, o));
        }
        if self.cfg.since(5, 7) {
            return self.load_balance_v57(c, depth, kind, at, cost);
        }
        self.load_balance_legacy(c, depth, kind, at, cost)
    }

    /// `load_balance()` before v5.7 (v3.8 to v5.6, in the model v3.8 and v4.15), compactly: the busiest group other than ours that has
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
            self.lb_outcome(c, depth, kind, LbResult::Balanced);
            return (cost, false);
        };
        let pct = self.doms.domains[did].imbalance_pct as u64;
        let worth = match kind {
            LbKind::NewlyIdle | LbKind::Idle => self.cpus[c as usize].nr_running == 0,
            LbKind::Busy => bload * 100 > local_load * pct && bload > local_load + NICE_0_LOAD / 2,
        };
        if !worth {
            self.lb_outcome(c, depth, kind, LbResult::Balanced);
            return (cost, false);
        }
        self.lb_outcome(c, depth, kind, LbResult::Imbalanced);
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

    /// `load_balance()` from v5.7 (`kernel/sched/fair.c` as of v5.13 to v6.5, the
    /// modelled versions that take it), as the kernel splits it: [`Sim::update_sd_lb_stats`] (per group `update_sg_lb_stats()`, then
    /// `update_sd_pick_busiest()`), [`Sim::find_busiest_group`] (whether it is worth
    /// balancing, with [`Sim::calculate_imbalance`] for how much),
    /// [`Sim::find_busiest_queue`] and [`Sim::detach_tasks`]; after
    /// `cache_nice_tries + 2` failures the stopper pushes the busiest CPU's running
    /// task (`active_balance`). Not modelled: misfit and asymmetric packing, NUMA
    /// preferences (fbq_type). All tasks are nice 0, so load equals runnable.
    fn load_balance_v57(&mut self, c: u32, depth: usize, kind: LbKind, at: u64, cost: u64) -> (u64, bool) {
        let mut cost = cost;
        let did = self.doms.chain[c as usize][depth] as usize;
        let sds = self.update_sd_lb_stats(c, depth);
        let Some((bi, mig, imbalance)) = self.find_busiest_group(c, depth, kind, &sds) else {
            self.lb_outcome(c, depth, kind, LbResult::Balanced);
            return (cost, false);
        };
        let Some(src) = self.find_busiest_queue(did, bi, mig) else {
            self.lb_outcome(c, depth, kind, LbResult::Balanced);
            return (cost, false);
        };
        self.lb_outcome(c, depth, kind, LbResult::Imbalanced);
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
                self.push(at, crate::state::Ev::ActiveBalance { src, dst: c });
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
            !self.doms.domains[child].has(crate::facts::domains::SD_NUMA)
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
            if dom.has(crate::facts::domains::SD_NUMA) && self.numa_imbalance_allowed(c, depth, l, imb) {
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
        if self.cpus[src as usize].phase != crate::state::Phase::User
            || self.tasks[t as usize].state != TState::Running
            || !self.allowed(t, dst)
        {
            return;
        }
        self.pause_user(src);
        self.update_curr(src);
        if self.cfg.eevdf() {
            self.update_entity_lag(src, t);
        }
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
        if self.cfg.eevdf() {
            // dequeue_entity() -> update_entity_lag() (v6.6): the lag travels.
            self.update_entity_lag(src, t);
        }
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
        self.m.count_migration(self.map.distance(src, c), MigratedBy::Balancer);
        self.rec_migrate(t, src, c, "balance");
        let cost = self.shared_runq_enqueue(c, t, at, c);
        self.activate(c, t);
        self.check_preempt(c, t, c);
        cost
    }
}
