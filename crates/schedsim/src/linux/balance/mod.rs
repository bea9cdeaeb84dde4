//! Load balancing: `newidle_balance()` (each version's entry gates, from v3.8's
//! `idle_balance()` to v6.5; seed 002's pending-wakeup skip; Nayak's RFC patch 2
//! placement of the SHARED_RUNQ pop, which lives in `shared_runq.rs`), `load_balance()` (v5.10+ and older forms, active
//! balancing: `load_balance.rs`), periodic `rebalance_domains()`, the nohz idle-balance kick, and the
//! SIS_UTIL producer (`update_idle_cpu_scan`, v6.0).

use crate::facts::domains::SD_SHARE_PKG_RESOURCES;
use crate::facts::kernel::Switch;
use crate::linux::shared_runq::Pop;
use crate::state::pelt::SCHED_CAPACITY_SCALE;
use crate::state::{Phase, Sim, MIGRATION_COST_NS};

/// `sd->max_newidle_lb_cost` decays by 253/256, "~1% per second", once a second:
/// `rebalance_domains()` from f48627e686a6 (v3.13) to v5.15, `update_newidle_cost()`
/// from e60b56e46b38 (v5.16).
const NEWIDLE_COST_DECAY: (u64, u64) = (253, 256);

mod load_balance;
use crate::linux::idle::WakeSignal;
use load_balance::LbKind;

/// Which `newidle_balance()` call this is: the first, or the second that
/// `balance_fair()` makes after a RETRY_TASK.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pass {
    First,
    AfterRetryTask,
}

/// What a `load_balance()` pass found: balanced (or nothing to do), or an imbalance
/// worth acting on (it resets `sd->balance_interval` to its minimum).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum LbResult {
    Balanced,
    Imbalanced,
}

impl Sim {
    /// `newidle_balance()` (v3.8: `idle_balance()`): `curr` of `c` blocked and nothing
    /// is queued. `extra` is kernel time already spent in `schedule()`.
    #[inline(always)]
    pub(crate) fn newidle_balance(&mut self, c: u32, extra: u64) {
        self.newidle_balance_pass(c, extra, Pass::First)
    }

    /// One `newidle_balance()` call; [`Pass::AfterRetryTask`] when it is the second, from
    /// `balance_fair()` after a RETRY_TASK. Inlined into `schedule()`: most calls end
    /// at an entry gate; the SHARED_RUNQ pop and the domain walk are out of line.
    #[inline(always)]
    fn newidle_balance_pass(&mut self, c: u32, extra: u64, pass: Pass) {
        let skip = self.cfg.on(Switch::NewidleSkipPending);
        self.m.newidle_calls += 1;
        if skip && self.cpus[c as usize].ttwu_pending {
            // Seed 002: a wakeup is queued for this CPU; it runs when we switch to idle.
            self.m.newidle_skipped_pending += 1;
            self.m.patched[Switch::NewidleSkipPending as usize] += 1;
            return self.switch_to_idle(c, extra);
        }
        let now = self.now;
        let cpu = &mut self.cpus[c as usize];
        cpu.idle_stamp = now.max(1);
        let avg_idle = cpu.avg_idle;
        let cost = extra;
        if self.cfg.on(Switch::SharedRunq) {
            return self.newidle_shared_runq(c, cost, pass);
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
        // `sd = this_rq->sd`, the lowest domain (none on a 1-CPU machine).
        let lb_gate = self.cfg.since(5, 16)
            && !self.doms.chain[c as usize].is_empty()
            && avg_idle < self.dom(c, 0).max_newidle_lb_cost;
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
        self.newidle_walk(c, cost);
    }

    /// [`Sim::newidle_balance`] past its entry gates: `update_blocked_averages()`, then
    /// the domains from the lowest.
    #[inline(never)]
    fn newidle_walk(&mut self, c: u32, cost: u64) {
        let uba = self.update_blocked_averages(c, self.now + cost);
        // Vincent Guittot's 9d783c8dd112 (v5.16) takes t0 before
        // update_blocked_averages(), so its time is part of the first balanced domain's
        // cost (and so of the entry gate's max_newidle_lb_cost); before, each domain's
        // t0 is taken in the loop and the update counts for none.
        let first = if self.cfg.since(5, 16) { uba } else { 0 };
        self.newidle_domain(c, 0, 0, cost + uba, first);
    }

    /// [`Sim::newidle_balance`] with SHARED_RUNQ, after the pending-wakeup skip:
    /// its own order of gates, the pop, then the walk.
    #[inline(never)]
    fn newidle_shared_runq(&mut self, c: u32, cost: u64, pass: Pass) {
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
            Pop::Failed if pass == Pass::First => {
                self.m.shared_runq_retries += 1;
                let cpu = &mut self.cpus[c as usize];
                cpu.max_idle_balance_cost = cpu.max_idle_balance_cost.max(pc);
                cpu.idle_stamp = 0;
                return self.newidle_balance_pass(c, cost + pc, Pass::AfterRetryTask);
            }
            Pop::Failed => return self.newidle_finish(c, pc, cost + pc),
            Pop::Empty => {}
        }
        if self.cpus[c as usize].ttwu_pending {
            return self.switch_to_idle(c, cost + pc);
        }
        // The walk begins as in v6.5: t0, update_blocked_averages(), then the
        // domains; the LLC domains skipped, its time goes to the first that balances.
        let uba = self.update_blocked_averages(c, self.now + cost + pc);
        self.newidle_domain(c, 0, pc, cost + pc + uba, uba)
    }

    /// Balances at domain `depth` as one kernel segment, if the time budget allows.
    /// `since_t0` is time already spent that the next balanced domain's measured cost
    /// includes (the kernel's `t0` was taken before it).
    fn newidle_domain(&mut self, c: u32, depth: usize, curr_cost: u64, extra: u64, since_t0: u64) {
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
            crate::facts::domains::Level::Smt => self.m.newidle_lb_smt += 1,
            crate::facts::domains::Level::Mc => self.m.newidle_lb_mc += 1,
            crate::facts::domains::Level::Pkg => self.m.newidle_lb_pkg += 1,
            crate::facts::domains::Level::Numa(_) => self.m.newidle_lb_numa += 1,
        }
        let (cost, _pulled) = self.load_balance(c, depth, LbKind::NewlyIdle, self.now + extra);
        let domain_cost = since_t0 + cost;
        let ds = self.dom(c, depth);
        ds.max_newidle_lb_cost = ds.max_newidle_lb_cost.max(domain_cost);
        self.kernel(c, extra + cost, Phase::Newidle { depth: depth as u8, curr_cost: curr_cost + domain_cost });
    }

    /// After one domain: stop when something is runnable here (or, with seed 002, a
    /// wakeup is pending), else go on up.
    pub(crate) fn newidle_step_done(&mut self, c: u32, depth: u8, curr_cost: u64) {
        let pending = self.cfg.on(Switch::NewidleSkipPending) && self.cpus[c as usize].ttwu_pending;
        if self.cpus[c as usize].nr_running > 0 || pending {
            if pending && self.cpus[c as usize].nr_running == 0 {
                self.m.newidle_bailed_pending += 1;
                self.m.patched[Switch::NewidleSkipPending as usize] += 1;
            }
            return self.newidle_finish(c, curr_cost, 0);
        }
        self.newidle_domain(c, depth as usize + 1, curr_cost, 0, 0);
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
            self.lb_outcome(c, depth, kind, LbResult::Balanced);
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
    fn lb_outcome(&mut self, c: u32, depth: usize, kind: LbKind, result: LbResult) {
        let did = self.doms.chain[c as usize][depth] as usize;
        let min = self.doms.domains[did].min_interval_ms as u64;
        let d = self.dom(c, depth);
        if result == LbResult::Balanced {
            d.nr_balance_failed = 0;
        }
        if kind == LbKind::NewlyIdle {
            return;
        }
        d.balance_interval_ms =
            if result == LbResult::Imbalanced { min } else { (d.balance_interval_ms.max(1) * 2).min(2 * min) };
    }

    /// `update_blocked_averages()` of `c` at `at`, in every modelled version (the fair
    /// part from Paul Turner's per-entity load tracking, v3.8): under `c`'s runqueue
    /// lock (`rq_lock_irqsave()`), bring the PELT averages of what is not running up to
    /// date: rt and dl (`__update_blocked_others()`, 371bf4273269 and 3727e0e16340,
    /// v4.19; irq time, when configured, is not counted), then each `cfs_rq` on the
    /// leaf list (`__update_blocked_fair()`): the root's, one per task-group level
    /// (`Experiment::cgroup_depth`) and one per other group with blocked load
    /// (`Experiment::other_cgroups`), each of whose change goes into `tg->load_avg`
    /// (`update_tg_load_avg()`: an atomic add on a line the last writer, any CPU,
    /// holds) and into the group entity on the level above (`update_load_avg()`).
    /// Every level is taken to have changed enough to be written (more than 1/64), as
    /// it does on a CPU the benchmark keeps using. Returns its time on `c`, ns.
    pub(crate) fn update_blocked_averages(&mut self, c: u32, at: u64) -> u64 {
        let hold = self.blocked_averages_work(c);
        self.lock_rq(c, at, c, hold)
    }

    /// The work of [`Sim::update_blocked_averages`] done by CPU `by`, without the lock.
    fn blocked_averages_work(&mut self, by: u32) -> u64 {
        let others: u64 = if self.cfg.since(4, 19) { 2 } else { 0 };
        let levels = self.tg_load_writer.len();
        let mut ns = (1 + others + 2 * levels as u64) * self.cost.pelt_update_ns;
        for l in 0..levels {
            if let Some(w) = self.tg_load_writer[l] {
                ns += self.cost.line_transfer_ns(self.map.distance(w, by));
            }
            self.tg_load_writer[l] = Some(by);
        }
        ns
    }

    /// `rebalance_domains()` from the tick of busy CPU `c`, the nohz kick, the SIS_UTIL
    /// producer and the `max_newidle_lb_cost` decay. Returns softirq time spent.
    pub(crate) fn periodic_balance(&mut self, c: u32) -> u64 {
        let now = self.now;
        let jiffy = now / self.cost.tick_ns;
        let mut cost = 0;
        let depth_n = self.doms.chain[c as usize].len();
        // SCHED_SOFTIRQ is raised when a domain is due (rq->next_balance), and
        // run_rebalance_domains() (rebalance_domains() itself in older kernels) first
        // brings the blocked averages up to date.
        let busy = self.cpus[c as usize].curr.is_some();
        if (0..depth_n).any(|d| self.balance_due(c, d, busy)) {
            cost += self.update_blocked_averages(c, now);
        }
        for depth in 0..depth_n {
            let ds = *self.dom(c, depth);
            if now >= ds.next_decay {
                let d = self.dom(c, depth);
                d.max_newidle_lb_cost = d.max_newidle_lb_cost * NEWIDLE_COST_DECAY.0 / NEWIDLE_COST_DECAY.1;
                d.next_decay = now + 1_000_000_000;
            }
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
                self.kick(ilb, now, WakeSignal::Ipi);
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
            // Each idle CPU balanced on its behalf gets its blocked averages updated
            // first (rebalance_domains(); update_nohz_stats() in later kernels, which
            // also updates CPUs with no domain due: not modelled). Its runqueue lock is
            // not taken here: this loop charges its time ahead of the events of the
            // CPUs it visits, and a lock reserved that far ahead would stall their
            // wakeups for the whole walk, where in the kernel each is held ~1 µs.
            let depth_n = self.doms.chain[i as usize].len();
            if (0..depth_n).any(|d| self.balance_due(i, d, false)) {
                cost += self.blocked_averages_work(c);
            }
            for depth in 0..depth_n {
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
