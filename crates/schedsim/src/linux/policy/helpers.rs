//! What a policy script calls: the kernel's and sched_ext's helpers over the running
//! simulation, and `kernel::NAME`, the modelled kernel's own functions. Each reads the
//! wakeup being placed from [`Ctx`], the one call in progress; each read of another
//! CPU's state is charged as the kernel's own probe of it (README, "Policy scripts").

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rhai::{Array, Dynamic, EvalAltResult};

use crate::facts::policy::{HOOK_SELECT_IDLE_SIBLING, WF_SYNC};
use crate::linux::wakeup::{Current, Wakeup};
use crate::state::pelt::SCHED_CAPACITY_SCALE;
use crate::state::{CpuId, Sim};

type R<T> = Result<T, Box<EvalAltResult>>;

/// Most helper reads one step of the trace lists.
const READS_MAX: usize = 48;

/// A task as a script sees it (`task_struct`): its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskRef(pub u32);

/// The script call in progress.
pub(crate) struct Ctx {
    /// The simulation the call runs in; see [`with`].
    pub sim: *mut Sim,
    pub w: Wakeup,
    /// Which function the script is answering (`HOOK_*`).
    pub hook: u8,
    /// `current` of the wakeup and its `wakee_flips` after `record_wakee()`, for
    /// `kernel::wake_wide`.
    pub current: Current,
    pub flips: u32,
    /// The waker's cost so far, ns, helpers' probes added.
    pub cost: u64,
    /// The run's operations left (`Policy::ops_left`, which both the engine's progress
    /// callback and the compiled call read at every operation): a helper's charge comes
    /// off it at once, so a call past the run's budget ends at its next operation.
    pub budget: Rc<Cell<u64>>,
    /// Operations helpers charged in this call beyond Rhai's one per call (see [`charge`]).
    pub charged: u64,
    pub tracing: bool,
    pub reads: Vec<String>,
    pub why: String,
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Runs `f` as the call `ctx`, then hands `ctx` back.
pub(crate) fn enter<T>(ctx: Ctx, f: impl FnOnce() -> T) -> (T, Ctx) {
    CTX.with(|c| *c.borrow_mut() = Some(ctx));
    let r = f();
    let ctx = CTX.with(|c| c.borrow_mut().take()).expect("the call's context");
    (r, ctx)
}

/// Gives a helper the simulation and the call.
fn with<T>(f: impl FnOnce(&mut Sim, &mut Ctx) -> Result<T, String>) -> R<T> {
    CTX.with(|c| {
        let mut g = c.borrow_mut();
        let Some(ctx) = g.as_mut() else { return Err("a helper was called outside a wakeup".into()) };
        // SAFETY: `ctx.sim` was made from the `&mut Sim` of `Sim::policy_call`, which
        // does not touch the simulation until the script's call returns and the context
        // is taken back; helpers do not nest (the kernel code `kernel::NAME` runs does
        // not call the script: `Sim::hooks` is 0 meanwhile), so this is the only
        // reference to the simulation while it lives.
        let sim = unsafe { &mut *ctx.sim };
        f(sim, ctx).map_err(Into::into)
    })
}

/// Charges a helper's work: one operation per CPU it reads or lists beyond the first
/// (Rhai counts the call as one), so that a script's operation budget bounds its time.
/// A helper over a 1,024-CPU LLC took about 3 µs for one operation, so a run within its
/// budget could take minutes (issue 42).
fn charge(ctx: &mut Ctx, cpus: usize) {
    let n = (cpus as u64).saturating_sub(1);
    ctx.charged = ctx.charged.saturating_add(n);
    ctx.budget.set(ctx.budget.get().saturating_sub(n));
}

/// The CPUs of `c`'s LLC: what a kernel scan from `c` may read.
fn llc_size(sim: &Sim, c: u32) -> usize {
    sim.map.llc_cpus[sim.map.places[c as usize].llc as usize].len()
}

fn note(ctx: &mut Ctx, f: impl FnOnce() -> String) {
    if ctx.tracing {
        if ctx.reads.len() < READS_MAX {
            ctx.reads.push(f());
        } else if ctx.reads.len() == READS_MAX {
            ctx.reads.push("…".into());
        }
    }
}

/// A CPU number argument: on the machine, or an error naming the helper (`what` is
/// formatted only for the error).
fn cpu(sim: &Sim, c: i64, what: impl std::fmt::Display) -> Result<u32, String> {
    let n = sim.map.nr_cpus() as i64;
    if (0..n).contains(&c) {
        Ok(c as u32)
    } else {
        Err(format!("{what}: CPU {c} is not on the machine (CPUs 0 to {})", n - 1))
    }
}

fn task(sim: &Sim, t: TaskRef) -> Result<u32, String> {
    if (t.0 as usize) < sim.tasks.len() {
        Ok(t.0)
    } else {
        Err(format!("task {} does not exist", t.0))
    }
}

/// `idle_cpu()` / `available_idle_cpu()`: charged as one probe of the kernel's idle
/// scans (`idle_probe_base_ns` + a line transfer by distance), listed as probed.
pub(crate) fn idle_cpu(c: i64, name: &str) -> R<bool> {
    with(|sim, ctx| {
        let c = cpu(sim, c, name)?;
        ctx.cost += sim.probe(ctx.w.this.0, c);
        let r = sim.idle_cpu(c);
        note(ctx, || format!("{name}({c})={}", r as u8));
        Ok(r)
    })
}

/// `cpus_share_cache()`: per-CPU `sd_llc_id`, free.
pub(crate) fn cpus_share_cache(a: i64, b: i64) -> R<bool> {
    with(|sim, ctx| {
        let (a, b) = (cpu(sim, a, "cpus_share_cache")?, cpu(sim, b, "cpus_share_cache")?);
        let r = sim.map.share_cache(a, b);
        note(ctx, || format!("cpus_share_cache({a},{b})={}", r as u8));
        Ok(r)
    })
}

pub(crate) fn this_cpu() -> i64 {
    with(|_, ctx| Ok(ctx.w.this.0 as i64)).unwrap_or(0)
}

pub(crate) fn nr_cpus() -> i64 {
    with(|sim, _| Ok(sim.map.nr_cpus() as i64)).unwrap_or(0)
}

pub(crate) enum RqField {
    NrRunning,
    Util,
    Capacity,
}

/// A field of another CPU's runqueue: one line transfer by distance (nothing for the
/// waker's own CPU), as the kernel's own reads of `nr_running` are charged.
pub(crate) fn rq_read(c: i64, f: RqField) -> R<i64> {
    with(|sim, ctx| {
        let name = match f {
            RqField::NrRunning => "nr_running",
            RqField::Util => "cpu_util",
            RqField::Capacity => "capacity_of",
        };
        let c = cpu(sim, c, name)?;
        ctx.cost += sim.cost.line_transfer_ns(sim.map.distance(ctx.w.this.0, c));
        let r = match f {
            RqField::NrRunning => sim.cpus[c as usize].nr_running as i64,
            RqField::Util => {
                let cp = &sim.cpus[c as usize];
                cp.util.peek(sim.now, SCHED_CAPACITY_SCALE * cp.curr.is_some() as u64).min(SCHED_CAPACITY_SCALE) as i64
            }
            // A symmetric machine: every CPU has the full capacity.
            RqField::Capacity => SCHED_CAPACITY_SCALE as i64,
        };
        note(ctx, || format!("{name}({c})={r}"));
        Ok(r)
    })
}

pub(crate) enum Field {
    Cpu,
    RecentUsedCpu,
    WakeeFlips,
    NrCpusAllowed,
}

/// A field of a task's own `task_struct`: free.
pub(crate) fn task_field(t: TaskRef, f: Field) -> i64 {
    with(|sim, _| {
        let t = &sim.tasks[task(sim, t)? as usize];
        Ok(match f {
            Field::Cpu => t.cpu as i64,
            Field::RecentUsedCpu => t.recent_used_cpu as i64,
            Field::WakeeFlips => t.wakee.flips as i64,
            Field::NrCpusAllowed => {
                if t.pinned.is_some() {
                    1
                } else {
                    sim.map.nr_cpus() as i64
                }
            }
        })
    })
    .unwrap_or(-1)
}

pub(crate) fn task_comm(t: TaskRef) -> String {
    with(|sim, _| Ok(sim.tasks[task(sim, t)? as usize].name.clone())).unwrap_or_default()
}

/// `p->recent_used_cpu = c`, as v4.17+'s `select_idle_sibling()` writes it.
pub(crate) fn set_recent_used_cpu(t: TaskRef, c: i64) -> R<()> {
    with(|sim, ctx| {
        let c = cpu(sim, c, "p.recent_used_cpu")?;
        let i = task(sim, t)?;
        sim.tasks[i as usize].recent_used_cpu = c;
        note(ctx, || format!("p->recent_used_cpu={c}"));
        Ok(())
    })
}

pub(crate) fn cpus_allowed(t: TaskRef) -> Array {
    with(|sim, ctx| {
        let i = task(sim, t)?;
        let v: Array = match sim.tasks[i as usize].pinned {
            Some(c) => vec![Dynamic::from(c as i64)],
            None => (0..sim.map.nr_cpus() as i64).map(Dynamic::from).collect(),
        };
        charge(ctx, v.len());
        Ok(v)
    })
    .unwrap_or_default()
}

pub(crate) fn is_cpu_allowed(t: TaskRef, c: i64) -> R<bool> {
    with(|sim, _| {
        let c = cpu(sim, c, "is_cpu_allowed")?;
        Ok(sim.allowed(task(sim, t)?, c))
    })
}

pub(crate) enum Span {
    Llc,
    Core,
    Node,
}

/// The CPUs of `c`'s LLC, core (`cpu_smt_mask`) or node, ascending: the topology, free.
pub(crate) fn span(c: i64, s: Span) -> R<Array> {
    with(|sim, ctx| {
        let c = cpu(sim, c, "llc_cpus/core_cpus/node_cpus")?;
        let p = &sim.map.places[c as usize];
        let v = match s {
            Span::Llc => &sim.map.llc_cpus[p.llc as usize],
            Span::Core => &sim.map.core_cpus[p.core as usize],
            Span::Node => &sim.map.node_cpus[p.node as usize],
        };
        charge(ctx, v.len());
        Ok(v.iter().map(|&c| Dynamic::from(c as i64)).collect())
    })
}

/// `for_each_lower_domain(per_cpu(sd_llc, c))`: per level, from the LLC's down, its
/// groups (each an array of CPUs) from `c`'s own; empty without an LLC domain.
pub(crate) fn sched_groups(c: i64) -> R<Array> {
    with(|sim, ctx| {
        let c = cpu(sim, c, "sched_groups")?;
        let Some(llc) = sim.doms.llc_depth[c as usize] else { return Ok(Array::new()) };
        let mut levels = Array::new();
        for depth in (0..=llc as usize).rev() {
            let d = &sim.doms.domains[sim.doms.chain[c as usize][depth] as usize];
            let (n, start) = (d.groups.len(), d.group_of(c));
            charge(ctx, d.groups.iter().map(|g| g.len()).sum::<usize>() + 1);
            let groups: Array = (0..n)
                .map(|k| {
                    let g: Array = d.groups[(start + k) % n].iter().map(|&c| Dynamic::from(c as i64)).collect();
                    Dynamic::from_array(g)
                })
                .collect();
            levels.push(Dynamic::from_array(groups));
        }
        Ok(levels)
    })
}

pub(crate) fn sd_llc(c: i64) -> R<bool> {
    with(|sim, _| Ok(sim.doms.llc_depth[cpu(sim, c, "sd_llc")? as usize].is_some()))
}

pub(crate) fn sched_smt_active() -> bool {
    with(|sim, _| Ok(sim.map.smt)).unwrap_or(false)
}

/// `test_idle_cores(c)`: the LLC's `has_idle_cores` hint (`sd_llc_shared`), free as
/// the kernel model's own read of it is.
pub(crate) fn test_idle_cores(c: i64) -> R<bool> {
    with(|sim, ctx| {
        let c = cpu(sim, c, "test_idle_cores")?;
        let r = sim.map.smt && sim.llcs[sim.map.places[c as usize].llc as usize].has_idle_cores;
        note(ctx, || format!("test_idle_cores({c})={}", r as u8));
        Ok(r)
    })
}

/// The waker (`current`), or `()` for a wakeup from an interrupt.
pub(crate) fn current() -> Dynamic {
    with(|_, ctx| Ok(ctx.w.waker.map_or(Dynamic::UNIT, |t| Dynamic::from(TaskRef(t.0))))).unwrap_or(Dynamic::UNIT)
}

pub(crate) fn is_per_cpu_kthread(t: TaskRef) -> bool {
    with(|sim, _| Ok(sim.tasks[task(sim, t)? as usize].percpu_kthread)).unwrap_or(false)
}

/// `trace("…")`: at most 200 characters a call to the step's why, within the call's
/// and the run's bounds (`TRACE_TEXT_CALL_MAX`, `TRACE_TEXT_RUN_MAX`); past them the why
/// says it was cut, once, and further text is dropped at no cost.
pub(crate) fn trace(s: &str) {
    use crate::facts::policy::{TRACE_TEXT_CALL_MAX, TRACE_TEXT_CUT};
    let _ = with(|sim, ctx| {
        if !ctx.tracing || ctx.why.ends_with(TRACE_TEXT_CUT) {
            return Ok(());
        }
        let sep = if ctx.why.is_empty() { "" } else { "; " };
        let text = match s.char_indices().nth(200) {
            Some((i, _)) => &s[..i],
            None => s,
        };
        let need = sep.len() + text.len();
        let run_left = sim.policy.as_ref().map_or(0, |p| p.trace_bytes_left);
        let room = TRACE_TEXT_CALL_MAX.saturating_sub(ctx.why.len()).min(run_left);
        ctx.why.push_str(sep);
        if need <= room {
            ctx.why.push_str(text);
            if let Some(p) = sim.policy.as_mut() {
                p.trace_bytes_left -= need;
            }
        } else {
            ctx.why.push_str(TRACE_TEXT_CUT);
        }
        Ok(())
    });
}

/// A 32-bit draw of the run's policy stream (from the experiment's seed).
pub(crate) fn prandom_u32() -> i64 {
    with(|sim, _| Ok(sim.policy.as_mut().map_or(0, |p| p.rng.next_u64() >> 32) as i64)).unwrap_or(0)
}

/// `schedstat_inc()` of one of the SIS statistics (Gorman's schedstat patches), so
/// that a script counts its searches as the kernel's code does.
pub(crate) fn schedstat_inc(name: &str) -> R<()> {
    with(|sim, _| {
        let m = &mut sim.m;
        let c = match name {
            "sis_probed" => &mut m.sis_probed,
            "sis_target_hits" => &mut m.sis_target_hits,
            "sis_prev_attempts" => &mut m.sis_prev_attempts,
            "sis_prev_hits" => &mut m.sis_prev_hits,
            "sis_recent_attempts" => &mut m.sis_recent_attempts,
            "sis_recent_hits" => &mut m.sis_recent_hits,
            "sis_idle_core_hits" => &mut m.sis_idle_core_hits,
            "sis_scan_hits" => &mut m.sis_scan_hits,
            "sis_scan_fails" => &mut m.sis_scan_fails,
            _ => {
                return Err(format!(
                    "schedstat_inc: no statistic {:?} (sis_probed, sis_target_hits, sis_prev_attempts, \
                     sis_prev_hits, sis_recent_attempts, sis_recent_hits, sis_idle_core_hits, sis_scan_hits, \
                     sis_scan_fails)",
                    name.chars().take(40).collect::<String>()
                ))
            }
        };
        *c += 1;
        Ok(())
    })
}

/// `scx_select_cpu_dfl()` (`kernel/sched/ext.c`, v6.12), sched_ext's default
/// `ops.select_cpu()`: a sync wakeup to the waker's CPU when its local queue is empty
/// and some CPU is idle; then prev's core when wholly idle, the first wholly idle core,
/// prev when idle, the first idle CPU; else prev. The idle-mask scans start after prev
/// (the kernel's `cpumask_any_and_distribute()` starts after the CPU it returned last,
/// a rotor the model does not keep); each CPU tested is charged an idle probe.
pub(crate) fn default_select_cpu(t: TaskRef, prev: i64, flags: i64) -> R<i64> {
    with(|sim, ctx| {
        let p = task(sim, t)?;
        let prev = cpu(sim, prev, "default_select_cpu")?;
        let this = ctx.w.this.0;
        let n = sim.map.nr_cpus();
        let probe = |sim: &mut Sim, ctx: &mut Ctx, c: u32| {
            ctx.cost += sim.probe(this, c);
            sim.idle_cpu(c)
        };
        let order: Vec<u32> = (1..=n).map(|k| (prev + k) % n).collect();
        charge(ctx, n as usize);
        let (r, why) = 'found: {
            if flags & WF_SYNC != 0 && sim.allowed(p, this) && sim.cpus[this as usize].nr_running <= 1 {
                for &c in &order {
                    if probe(sim, ctx, c) {
                        break 'found (this, "sync wakeup, the waker's queue is empty and a CPU is idle");
                    }
                }
            }
            if sim.tasks[p as usize].pinned.is_some() {
                break 'found (prev, "a pinned task stays on its CPU");
            }
            if sim.map.smt {
                let sibs: Vec<u32> = sim.map.siblings(prev).to_vec();
                if sibs.iter().all(|&s| probe(sim, ctx, s)) {
                    break 'found (prev, "prev's core is wholly idle");
                }
                for &c in &order {
                    let sibs: Vec<u32> = sim.map.siblings(c).to_vec();
                    if sim.allowed(p, c) && sibs.iter().all(|&s| probe(sim, ctx, s)) {
                        break 'found (c, "a wholly idle core");
                    }
                }
            }
            if probe(sim, ctx, prev) {
                break 'found (prev, "prev is idle");
            }
            for &c in &order {
                if sim.allowed(p, c) && probe(sim, ctx, c) {
                    break 'found (c, "an idle CPU");
                }
            }
            (prev, "no idle CPU: prev")
        };
        note(ctx, || format!("default_select_cpu({prev})={r} ({why})"));
        Ok(r as i64)
    })
}

/// The wakeup `kernel::NAME` is asked about: this one, with the script's prev and
/// target; the task must be the wakee.
fn asked(sim: &Sim, ctx: &Ctx, t: TaskRef, prev: i64, name: &str) -> Result<Wakeup, String> {
    if t.0 != ctx.w.p.0 {
        return Err(format!("kernel::{name}: p must be the waking task"));
    }
    Ok(Wakeup { prev: CpuId(cpu(sim, prev, format_args!("kernel::{name}"))?), ..ctx.w })
}

fn kernel_answer(ctx: &mut Ctx, name: &str, r: i64) -> i64 {
    note(ctx, || format!("kernel::{name}={r}"));
    r
}

pub(crate) fn kernel_select_task_rq(t: TaskRef, prev: i64, _flags: i64) -> R<i64> {
    with(|sim, ctx| {
        let w = asked(sim, ctx, t, prev, "select_task_rq_fair")?;
        // Charged as a scan of the waker's and prev's LLCs, the most its code reads.
        charge(ctx, llc_size(sim, w.this.0) + llc_size(sim, w.prev.0));
        let c = sim.select_task_rq_in::<false>(&w, &mut ctx.cost);
        Ok(kernel_answer(ctx, "select_task_rq_fair", c as i64))
    })
}

pub(crate) fn kernel_wake_wide(t: TaskRef) -> R<bool> {
    with(|sim, ctx| {
        let w = asked(sim, ctx, t, ctx.w.prev.0 as i64, "wake_wide")?;
        let r = sim.wake_wide(&w, ctx.current, ctx.flips);
        kernel_answer(ctx, "wake_wide", r as i64);
        Ok(r)
    })
}

pub(crate) fn kernel_wake_affine(t: TaskRef, this: i64, prev: i64, sync: bool) -> R<i64> {
    with(|sim, ctx| {
        let mut w = asked(sim, ctx, t, prev, "wake_affine")?;
        w.this = CpuId(cpu(sim, this, "kernel::wake_affine")?);
        w.sync = sync;
        // Without a wake-affine domain spanning both, the kernel does not ask.
        let c = match sim.affine_domain(w.this.0, w.prev.0) {
            Some(depth) => sim.wake_affine(depth, &w),
            None => w.prev.0,
        };
        Ok(kernel_answer(ctx, "wake_affine", c as i64))
    })
}

pub(crate) fn kernel_sis(t: TaskRef, prev: i64, target: i64) -> R<i64> {
    with(|sim, ctx| {
        let w = asked(sim, ctx, t, prev, "select_idle_sibling")?;
        let target = CpuId(cpu(sim, target, "kernel::select_idle_sibling")?);
        charge(ctx, llc_size(sim, target.0));
        // Inside the script's own select_idle_sibling the search is counted already.
        let c = if ctx.hook == HOOK_SELECT_IDLE_SIBLING {
            sim.sis_forms(&w, target, &mut ctx.cost)
        } else {
            sim.select_idle_sibling::<false>(&w, target, &mut ctx.cost)
        };
        Ok(kernel_answer(ctx, "select_idle_sibling", c as i64))
    })
}

fn merged_scan(sim: &Sim, name: &str) -> Result<(), String> {
    if sim.cfg.since(5, 12) {
        Ok(())
    } else {
        Err(format!("kernel::{name} is v5.12's merged scan; this kernel is {}", sim.cfg.version.name()))
    }
}

/// `select_idle_smt(p, prev)` (v5.13): an idle SMT sibling of prev, or -1.
pub(crate) fn kernel_select_idle_smt(t: TaskRef, prev: i64) -> R<i64> {
    with(|sim, ctx| {
        merged_scan(sim, "select_idle_smt")?;
        let w = asked(sim, ctx, t, prev, "select_idle_smt")?;
        let c = sim.select_idle_smt_prev(&w, &mut ctx.cost).map_or(-1, |c| c as i64);
        Ok(kernel_answer(ctx, "select_idle_smt", c))
    })
}

/// `select_idle_cpu(p, sd_llc, has_idle_core, target)` (v5.12+ merged scan, SIS_PROP
/// or SIS_UTIL as the kernel has them), or -1.
pub(crate) fn kernel_select_idle_cpu(t: TaskRef, has_idle_core: bool, target: i64) -> R<i64> {
    with(|sim, ctx| {
        merged_scan(sim, "select_idle_cpu")?;
        let w = asked(sim, ctx, t, ctx.w.prev.0 as i64, "select_idle_cpu")?;
        let target = CpuId(cpu(sim, target, "kernel::select_idle_cpu")?);
        charge(ctx, llc_size(sim, target.0));
        if sim.doms.llc_depth[target.0 as usize].is_none() {
            return Ok(kernel_answer(ctx, "select_idle_cpu", -1));
        }
        let c = sim.select_idle_cpu_merged(&w, target, has_idle_core, &mut ctx.cost).map_or(-1, |c| c as i64);
        Ok(kernel_answer(ctx, "select_idle_cpu", c))
    })
}

/// The task argument of a hook: the wakee.
pub(crate) fn task_arg(w: &Wakeup) -> Dynamic {
    Dynamic::from(TaskRef(w.p.0))
}
