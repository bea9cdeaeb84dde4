//! `select_idle_sibling()` and its scans (`kernel/sched/fair.c`), in three forms:
//! v3.8's group walk (seed 001 changes it), v4.15's core/cpu/smt scans with SIS_PROP,
//! and v5.13+'s ordered fast checks with `recent_used_cpu` (seed 003 changes it) and
//! the merged idle core/cpu scan (SIS_PROP from v5.14 on aged `wake_avg_idle`,
//! SIS_UTIL in v6.5). Every CPU whose state is read costs a probe, charged to the
//! waker's CPU.

use crate::facts::kernel::Switch;
use crate::linux::wakeup::{st, Wakeup};
use crate::state::{CpuId, Sim};

/// Whether `select_idle_cpu()` folds the scan's time into `avg_scan_cost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScanCost {
    Account,
    Ignore,
}

impl ScanCost {
    fn when(account: bool) -> ScanCost {
        if account {
            ScanCost::Account
        } else {
            ScanCost::Ignore
        }
    }
}

impl Sim {
    /// `select_idle_sibling(p, prev, target)`: an idle CPU near `target` (`this` or
    /// `prev`, as `wake_affine` chose), else `target`. Counts the search, notes the
    /// target in the trace, and takes the version's form: v3.8's walk over the LLC's
    /// groups for the first wholly idle one ([`Sim::sis_38`]), or from Peter Zijlstra's
    /// rewrite (10e2f1acd010, v4.9) the fast checks of target, prev and
    /// `recent_used_cpu` followed by the idle core/CPU scans ([`Sim::sis_scans`]).
    /// `P`: a policy script may replace it ([`Sim::select_task_rq`]).
    #[inline(always)]
    pub(crate) fn select_idle_sibling<const P: bool>(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        self.m.sis_searches += 1;
        if let Some(tb) = &mut self.trace {
            tb.target_cpu = Some(target.0);
        }
        #[cfg(feature = "policy")]
        if P && self.hooks & crate::facts::policy::HOOK_SELECT_IDLE_SIBLING != 0 {
            return self.policy_select_idle_sibling(w, target, cost);
        }
        self.sis_forms(w, target, cost)
    }

    /// The version's form of `select_idle_sibling`, once the search is counted.
    #[inline(always)]
    pub(crate) fn sis_forms(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        // The group walk until Peter Zijlstra's rewrite into core/cpu/smt scans
        // (10e2f1acd010, v4.9); the merged scan from 9fe1f127b913 (v5.12).
        if !self.cfg.since(4, 9) {
            self.sis_38(w, target, cost)
        } else {
            self.sis_scans(w, target, cost)
        }
    }

    /// Checks `c` for idleness, charging a probe.
    #[inline(always)]
    fn check_idle(&mut self, this: u32, c: u32, cost: &mut u64) -> bool {
        *cost += self.probe(this, c);
        self.idle_cpu(c)
    }

    fn hit_target(&mut self, target: u32, version: &str) -> u32 {
        self.m.sis_target_hits += 1;
        self.step(|_| {
            st(
                &format!("select_idle_sibling ({version})"),
                vec![format!("idle_cpu({target})=1")],
                format!("CPU {target}"),
                "the target is idle",
            )
        });
        target
    }

    /// v3.6–v3.8 group walk; with `sis-prev-idle` (e0a79f529d5b, v3.9) an idle
    /// cache-affine prev is taken first and the target's own group is skipped. Out of
    /// line: inlined into `ttwu_place`, it costs the later versions' path spills.
    #[inline(never)]
    fn sis_38(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        let (p, prev, this, target) = (w.p.0, w.prev.0, w.this.0, target.0);
        let patched = self.cfg.on(Switch::SisPrevIdle);
        if patched {
            if self.check_idle(this, target, cost) {
                return self.hit_target(target, "v3.8");
            }
            if let Some(c) = self.sis_prev(w, CpuId(target), cost) {
                return c;
            }
        } else {
            if target == this && self.check_idle(this, this, cost) {
                return self.hit_target(target, "v3.8");
            }
            if target == prev && self.check_idle(this, prev, cost) {
                return self.hit_target(target, "v3.8");
            }
        }
        let Some(llc_depth) = self.doms.llc_depth[target as usize] else { return target };
        for depth in (0..=llc_depth as usize).rev() {
            let did = self.doms.chain[target as usize][depth] as usize;
            let ngroups = self.doms.domains[did].groups.len();
            let start = self.doms.domains[did].group_of(target);
            for k in 0..ngroups {
                let gi = (start + k) % ngroups;
                let glen = self.doms.domains[did].groups[gi].len();
                let mut ok = (0..glen).any(|j| self.allowed(p, self.doms.domains[did].groups[gi][j]));
                for j in 0..glen {
                    if !ok {
                        break;
                    }
                    let c = self.doms.domains[did].groups[gi][j];
                    self.m.sis_probed += 1;
                    if (patched && c == target) || !self.check_idle(this, c, cost) {
                        ok = false;
                    }
                }
                if ok {
                    let c = self.doms.domains[did].groups[gi]
                        .iter()
                        .copied()
                        .find(|&c| self.allowed(p, c))
                        .unwrap_or(target);
                    self.m.sis_scan_hits += 1;
                    let lvl = self.doms.domains[did].level.name();
                    self.step(|_| {
                        st(
                            "select_idle_sibling (v3.8 group walk)",
                            vec![format!("level={lvl}"), format!("group={gi}")],
                            format!("CPU {c}"),
                            "first group with every CPU idle, in list order from the target's group",
                        )
                    });
                    return c;
                }
            }
        }
        self.m.sis_scan_fails += 1;
        self.step(|_| {
            st(
                "select_idle_sibling (v3.8 group walk)",
                vec![],
                format!("CPU {target}"),
                "no fully idle group: stay on the target",
            )
        });
        target
    }

    /// The prev check added by seed 001 (switchable on every version).
    #[inline(always)]
    fn sis_prev(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> Option<u32> {
        let (prev, this, target) = (w.prev.0, w.this.0, target.0);
        if !self.cfg.on(Switch::SisPrevIdle) || prev == target || !self.map.share_cache(prev, target) {
            return None;
        }
        self.m.sis_prev_attempts += 1;
        self.m.patched[Switch::SisPrevIdle as usize] += 1;
        if self.check_idle(this, prev, cost) {
            self.m.sis_prev_hits += 1;
            self.step(|_| {
                st(
                    "select_idle_sibling",
                    vec![format!("idle_cpu(prev={prev})=1"), format!("cpus_share_cache({prev},{target})=1")],
                    format!("CPU {prev}"),
                    "prev is idle and shares the target's cache",
                )
            });
            return Some(prev);
        }
        None
    }

    /// From v4.9's rewrite on: the target, prev (seed 001), a per-CPU kthread's own
    /// CPU (v5.6), `recent_used_cpu` (v4.17), then the scans: v4.15's separate
    /// `select_idle_core` / `select_idle_cpu` / `select_idle_smt(target)`, or from
    /// v5.12 `select_idle_smt(prev)` (v5.13) and the merged idle core/cpu scan.
    /// Inlined by force: the path has two instances ([`Sim::select_task_rq`]), and
    /// called from both it would stay out of line, costing the common path a call.
    #[inline(always)]
    fn sis_scans(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        let (prev, this) = (w.prev.0, w.this.0);
        if self.check_idle(this, target.0, cost) {
            return self.hit_target(target.0, self.cfg.version.name());
        }
        if let Some(c) = self.sis_prev(w, target, cost) {
            return c;
        }
        // Per-CPU kthread stacking (52262ee567ad, v5.6): an I/O kworker waking a task
        // that last ran on this CPU lets it stay.
        if let Some(k) = w.waker.filter(|_| self.cfg.since(5, 6)) {
            if self.tasks[k.0 as usize].percpu_kthread && prev == this && self.cpus[this as usize].nr_running <= 1 {
                self.step(|_| {
                    st(
                        "select_idle_sibling",
                        vec!["current is a per-CPU kthread".into(), format!("prev == this == {this}")],
                        format!("CPU {prev}"),
                        "a kworker woke a task of its own CPU: stack it there",
                    )
                });
                return prev;
            }
        }
        self.sis_recent_and_scans(w, target, cost)
    }

    /// The rest of [`Sim::sis_scans`] once the target, prev and the kthread rule gave
    /// nothing: `recent_used_cpu` (v4.17), then the scans of v4.15 or v5.12+. Kept out
    /// of line: the wakeup path mostly ends before it, and inlined into `ttwu_place` it
    /// costs that path spills.
    #[inline(never)]
    fn sis_recent_and_scans(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        // recent_used_cpu came with 32e839dda3ba (v4.17).
        if self.cfg.since(4, 17) {
            if let Some(c) = self.sis_recent(w, target, cost) {
                return c;
            }
        }
        let target = target.0;
        if self.doms.llc_depth[target as usize].is_none() {
            return target;
        }
        if !self.cfg.since(5, 12) {
            return self.sis_scans_415(w, CpuId(target), cost);
        }
        self.sis_merged_scans(w, CpuId(target), cost)
    }

    /// `recent_used_cpu` (32e839dda3ba, v4.17): the CPU the task last woke to, if it
    /// is idle, shares the target's cache and is neither prev nor the target. Seed 003
    /// (`recent-used-prev`) keeps prev in it instead of the CPU chosen.
    #[inline(always)]
    fn sis_recent(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> Option<u32> {
        let (p, prev, this, target) = (w.p.0, w.prev.0, w.this.0, target.0);
        let recent = self.tasks[p as usize].recent_used_cpu;
        let patched = self.cfg.on(Switch::RecentUsedPrev);
        if patched {
            self.m.patched[Switch::RecentUsedPrev as usize] += 1;
            self.tasks[p as usize].recent_used_cpu = prev;
        }
        if recent != prev && recent != target {
            let share = self.map.share_cache(recent, target);
            // Gorman's SIS statistics as he carried them when he measured seed 003
            // ("[PATCH 2/9] sched/fair: Track efficiency of task recent_used_cpu",
            // 26 Jul 2021, on v5.14-rc): every candidate that is neither prev nor the
            // target is an attempt, and one that does not share the target's cache is
            // a miss. (The Mar and Dec 2020 postings counted only cache-affine ones.)
            self.m.sis_recent_attempts += 1;
            let ok = share && self.allowed(p, recent) && self.check_idle(this, recent, cost);
            self.step(|s| {
                st(
                    "select_idle_sibling: recent_used_cpu",
                    vec![
                        format!("p->recent_used_cpu={recent}"),
                        format!("cpus_share_cache({recent},{target})={}", share as u8),
                        format!("idle_cpu({recent})={}", s.idle_cpu(recent) as u8),
                    ],
                    if ok { format!("CPU {recent}") } else { "no".into() },
                    if ok {
                        "the CPU this task used recently is idle and cache-affine"
                    } else {
                        "recently used CPU not usable"
                    },
                )
            });
            if ok {
                self.m.sis_recent_hits += 1;
                if !patched {
                    // v4.17–v5.14: "Replace recent_used_cpu with prev as it is a
                    // potential candidate for the next wake".
                    self.tasks[p as usize].recent_used_cpu = prev;
                }
                return Some(recent);
            }
        }
        None
    }

    /// v5.12+'s scans (9fe1f127b913): `select_idle_smt(prev)` (v5.13) when the LLC has
    /// no idle core, then the merged idle core/CPU scan, limited by SIS_PROP or skipped
    /// by SIS_UTIL on a busy LLC.
    #[inline(always)]
    fn sis_merged_scans(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        let prev = w.prev.0;
        let llc = self.map.places[target.0 as usize].llc as usize;
        let has_idle_core = self.map.smt && self.llcs[llc].has_idle_cores;
        if self.map.smt && !has_idle_core && self.map.share_cache(prev, target.0) {
            if let Some(c) = self.select_idle_smt_prev(w, cost) {
                return c;
            }
        }
        if let Some(c) = self.select_idle_cpu_merged(w, target, has_idle_core, cost) {
            return c;
        }
        self.m.sis_scan_fails += 1;
        target.0
    }

    /// `select_idle_smt(p, prev)`, reintroduced in v5.13 (Rik van Riel): an idle SMT
    /// sibling of prev.
    #[inline(always)]
    pub(crate) fn select_idle_smt_prev(&mut self, w: &Wakeup, cost: &mut u64) -> Option<u32> {
        let (p, prev, this) = (w.p.0, w.prev.0, w.this.0);
        for i in 0..self.map.siblings(prev).len() {
            let c = self.map.siblings(prev)[i];
            if self.allowed(p, c) && self.check_idle(this, c, cost) {
                self.m.sis_scan_hits += 1;
                self.step(|_| st("select_idle_smt(prev)", vec![], format!("CPU {c}"), "an idle SMT sibling of prev"));
                return Some(c);
            }
        }
        None
    }

    /// v5.12+'s `select_idle_cpu(p, sd, has_idle_core, target)`: the merged idle
    /// core/CPU scan, limited by SIS_PROP or skipped by SIS_UTIL on a busy LLC; `None`
    /// when it found nothing (the caller counts the failure).
    #[inline(always)]
    pub(crate) fn select_idle_cpu_merged(
        &mut self,
        w: &Wakeup,
        target: CpuId,
        has_idle_core: bool,
        cost: &mut u64,
    ) -> Option<u32> {
        let target = target.0;
        let llc = self.map.places[target as usize].llc as usize;
        // SIS_PROP limits only a scan for an idle CPU, not for an idle core; SIS_UTIL
        // (70fb5ccf2ebb, v6.0) gives up on a busy LLC either way.
        let nr = if has_idle_core && !self.cfg.on(Switch::SisUtil) {
            usize::MAX
        } else {
            self.sis_prop_nr(w.this, CpuId(target), true)
        };
        if nr == 0 {
            self.step(|s| {
                st(
                    "select_idle_cpu (SIS_UTIL)",
                    vec![format!("nr_idle_scan={}", s.llcs[llc].nr_idle_scan)],
                    "none".into(),
                    "the LLC is busy: no scan",
                )
            });
            return None;
        }
        if has_idle_core {
            let mut idle_cpu = None;
            if let Some(c) = self.scan_idle_core(w, CpuId(target), cost, Some(&mut idle_cpu)) {
                return Some(c);
            }
            self.llcs[llc].has_idle_cores = false;
            // The merged scan returns the first idle CPU it passed on the way.
            if let Some(idle_cpu) = idle_cpu {
                self.m.sis_scan_hits += 1;
                self.step(|_| {
                    st(
                        "select_idle_cpu",
                        vec![format!("idle_cpu={idle_cpu}")],
                        format!("CPU {idle_cpu}"),
                        "no whole idle core: the first idle CPU the core scan passed",
                    )
                });
                return Some(idle_cpu);
            }
            None
        } else {
            self.scan_idle_cpu(w, CpuId(target), nr, cost, ScanCost::when(self.cfg.on(Switch::SisProp)))
        }
    }

    /// v4.15's scans (10e2f1acd010, v4.9): `select_idle_core` while the LLC has idle
    /// cores, `select_idle_cpu` (SIS_PROP on `this_rq()->avg_idle / 512`), then
    /// `select_idle_smt(target)`.
    fn sis_scans_415(&mut self, w: &Wakeup, target: CpuId, cost: &mut u64) -> u32 {
        let (p, this, target) = (w.p.0, w.this.0, target.0);
        let llc = self.map.places[target as usize].llc as usize;
        if self.map.smt && self.llcs[llc].has_idle_cores {
            if let Some(c) = self.scan_idle_core(w, CpuId(target), cost, None) {
                return c;
            }
            self.llcs[llc].has_idle_cores = false;
        }
        let nr = self.sis_prop_nr(w.this, CpuId(target), false);
        // v4.15 select_idle_cpu() times every scan that does not give up early and
        // folds it into this_sd->avg_scan_cost.
        if let Some(c) = self.scan_idle_cpu(w, CpuId(target), nr, cost, ScanCost::Account) {
            return c;
        }
        for i in 0..self.map.siblings(target).len() {
            let c = self.map.siblings(target)[i];
            if c != target && self.allowed(p, c) && self.check_idle(this, c, cost) {
                self.step(|_| st("select_idle_smt", vec![], format!("CPU {c}"), "an idle SMT sibling of the target"));
                return c;
            }
        }
        self.m.sis_scan_fails += 1;
        target
    }

    /// SIS_PROP / SIS_UTIL scan depth `nr` (the loop stops when `--nr` reaches 0, so at
    /// most `nr - 1` CPUs are probed). `usize::MAX` = no limit; 0 = skip the scan.
    fn sis_prop_nr(&mut self, this: CpuId, target: CpuId, v514_form: bool) -> usize {
        let (this, target) = (this.0, target.0);
        let llc_this = self.map.places[this as usize].llc as usize;
        if self.cfg.on(Switch::SisUtil) && self.cfg.since(5, 12) {
            // SIS_UTIL reads `per_cpu(sd_llc_shared, target)`: the target's LLC.
            let n = self.llcs[self.map.places[target as usize].llc as usize].nr_idle_scan as usize;
            return if n == 0 { 0 } else { n + 1 };
        }
        if !self.cfg.on(Switch::SisProp) {
            return usize::MAX;
        }
        let span = self.map.llc_span(this).len() as u64;
        let avg_idle = if v514_form && self.cfg.since(5, 14) {
            // 94aafc3ee31d: halve wake_avg_idle for every jiffy since the last wakeup.
            let jiffy = self.now / self.cost.tick_ns;
            let cpu = &mut self.cpus[this as usize];
            while cpu.wake_stamp < jiffy && cpu.wake_avg_idle > 0 {
                cpu.wake_stamp += 1;
                cpu.wake_avg_idle >>= 1;
            }
            cpu.wake_avg_idle
        } else {
            self.cpus[this as usize].avg_idle / 512
        };
        let avg_cost = self.llcs[llc_this].avg_scan_cost + 1;
        let span_avg = span * avg_idle;
        let nr = if span_avg > 4 * avg_cost { span_avg / avg_cost } else { 4 };
        self.step(|_| {
            st(
                "select_idle_cpu: SIS_PROP",
                vec![
                    format!("avg_idle={avg_idle}"),
                    format!("avg_scan_cost={}", avg_cost - 1),
                    format!("llc_weight={span}"),
                ],
                format!("nr={nr}"),
                "scan depth proportional to expected idle time over scan cost",
            )
        });
        nr.min(usize::MAX as u64) as usize
    }

    /// `select_idle_core()`: the first core, wrapping from the target, whose threads
    /// are all idle. v4.9–v5.11 (`idle_cpu` is None): a scan of its own that reads
    /// every thread of each core. v5.12+ (9fe1f127b913, the merged scan, from target +
    /// 1 since 56498cfb045d, v5.15): one core at a time inside `select_idle_cpu()`'s
    /// loop; a core stops at its first busy thread once an idle CPU has been seen, and
    /// the first idle CPU seen is left in `idle_cpu` for when no core is idle.
    fn scan_idle_core(
        &mut self,
        w: &Wakeup,
        target: CpuId,
        cost: &mut u64,
        mut idle_cpu: Option<&mut Option<u32>>,
    ) -> Option<u32> {
        let (p, this, target) = (w.p.0, w.this.0, target.0);
        let span_len = self.map.llc_span(target).len();
        let mut start = self.map.llc_span(target).iter().position(|&c| c == target).unwrap_or(0);
        if idle_cpu.is_some() && self.cfg.since(5, 15) {
            start += 1;
        }
        let mut seen_cores: Vec<u32> = Vec::new();
        for k in 0..span_len {
            let c = self.map.llc_span(target)[(start + k) % span_len];
            let core = self.map.places[c as usize].core;
            if seen_cores.contains(&core) {
                continue;
            }
            seen_cores.push(core);
            let mut all = true;
            for i in 0..self.map.siblings(c).len() {
                let s = self.map.siblings(c)[i];
                self.m.sis_probed += 1;
                let idle = self.check_idle(this, s, cost);
                match idle_cpu.as_deref_mut() {
                    None => all &= idle,
                    Some(first) => {
                        if !idle {
                            all = false;
                            if first.is_some() {
                                break;
                            }
                        } else if first.is_none() && self.allowed(p, s) {
                            *first = Some(s);
                        }
                    }
                }
            }
            if all && self.allowed(p, c) {
                self.m.sis_idle_core_hits += 1;
                self.step(|_| {
                    st("select_idle_core", vec![format!("has_idle_cores=1")], format!("CPU {c}"), "a whole idle core")
                });
                return Some(c);
            }
        }
        self.step(|_| st("select_idle_core", vec![], "none".into(), "no idle core: clear has_idle_cores"));
        None
    }

    /// `select_idle_cpu()`: first idle CPU of the LLC wrapping from the target (v5.15+:
    /// from target + 1), at most `nr - 1` probes. When `account` (v4.15: every scan
    /// that was not cut short; v5.12+: only under SIS_PROP, outside an idle-core scan)
    /// the scan's time goes into `avg_scan_cost` and, v5.14+, out of `wake_avg_idle`.
    fn scan_idle_cpu(
        &mut self,
        w: &Wakeup,
        target: CpuId,
        nr: usize,
        cost: &mut u64,
        account: ScanCost,
    ) -> Option<u32> {
        let (p, this, target) = (w.p.0, w.this.0, target.0);
        let span_len = self.map.llc_span(target).len();
        let mut start = self.map.llc_span(target).iter().position(|&c| c == target).unwrap_or(0);
        // Gorman, 56498cfb045d (v5.15): start after the target, already checked.
        if self.cfg.since(5, 15) {
            start += 1;
        }
        let before = *cost;
        let mut left = nr;
        let mut found = None;
        for k in 0..span_len {
            let c = self.map.llc_span(target)[(start + k) % span_len];
            left = left.saturating_sub(1);
            if left == 0 {
                // The early exit skips the cost accounting, as the kernel does.
                self.m.sis_scan_fails += 1;
                self.step(|_| st("select_idle_cpu", vec![format!("nr={nr}")], "none".into(), "scan depth exhausted"));
                return None;
            }
            if !self.allowed(p, c) {
                continue;
            }
            self.m.sis_probed += 1;
            if self.check_idle(this, c, cost) {
                found = Some(c);
                break;
            }
        }
        if account == ScanCost::Account {
            let elapsed = *cost - before;
            let llc_this = self.map.places[this as usize].llc as usize;
            let a = &mut self.llcs[llc_this].avg_scan_cost;
            *a = (*a as i64 + (elapsed as i64 - *a as i64) / 8) as u64;
            if self.cfg.since(5, 14) {
                let w = &mut self.cpus[this as usize].wake_avg_idle;
                *w -= (*w).min(elapsed);
            }
        }
        if let Some(c) = found {
            self.m.sis_scan_hits += 1;
            self.step(|_| {
                st(
                    "select_idle_cpu",
                    vec![format!("nr={}", if nr == usize::MAX { "unlimited".to_string() } else { nr.to_string() })],
                    format!("CPU {c}"),
                    "first idle CPU found scanning the LLC",
                )
            });
        } else {
            self.step(|_| st("select_idle_cpu", vec![], "none".into(), "no idle CPU in the LLC"));
        }
        found
    }
}
