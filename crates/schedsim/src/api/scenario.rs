//! Scenario harness for the wakeup path tests (`tests/scenarios.rs`): builds a
//! simulator in a state written as a few lines of text, then runs ONE wakeup through
//! the real `try_to_wake_up` → `select_task_rq` → `wake_wide` / `wake_affine*` →
//! `select_idle_sibling` code with the decision trace on (the text `schedsim trace`
//! prints), or lets ONE CPU go newly idle through `schedule()` → `newidle_balance()`
//! and renders the counters and what the CPU switches to. Not a stable API.
//!
//! ```text
//! machine 1x1x4x2           # NODESxLLCSxCORESxTHREADS (Linux x86 CPU numbering)
//! numa 40                   # optional: SLIT distance between any two nodes (default 21)
//! kernel v5.15+SIS_PROP     # a KernelSpec label: PRESET[+SWITCH|-SWITCH]...
//! cpu 0 busy queued=1       # CPU 0 runs task cpu0 (or `waker`), one more queued (cpu0.q1);
//!                           # queued tasks on a CPU that is not busy: only on the prev CPU
//!                           # of an `on_cpu` wakee (still switching away from it)
//! cpu 1-3,5 idle=C6         # idle in that C-state (default: every CPU idle in C1)
//! cpu 2 avg_idle=300000 wake_avg_idle=1000 wake_stamp_ago=2 ttwu_pending
//! cpu 2 max_newidle_lb_cost=5000        # every domain, or 1000,90000 bottom up
//! cpu 0 load=2048 task_load=1024   # rq PELT load (default task_load x nr_running)
//! llc 0 has_idle_cores=0 avg_scan_cost=100 nr_idle_scan=2 overload=1,0   # per shard
//! rd_overload 1             # override rd->overload (queued tasks set it)
//! shard_size 2              # SHARED_RUNQ_SHARD_SZ (default 6)
//! cgroup_depth 3             # task-group levels update_blocked_averages() walks (default 0)
//! other_cgroups 20           # other task groups with blocked load on every CPU (default 0)
//! wakee prev=3 recent=5 flips=2 load=512 pinned=3 on_cpu
//! waker task cpu=0 flips=4 load=1024 recent=2 new_partner kthread
//! waker irq cpu=0 flips=3 recent=2 new_partner  # the interrupted task's fields
//! sync
//! newidle cpu=2             # instead of a wakeup: curr of CPU 2 blocks
//! newidle cpu=2 wakeup_during   # ... and a wakeup is queued to it while it balances
//! ```
//!
//! Time is 1 s; every PELT signal is exactly the stated value at that time. The
//! waker's `flips` is its count before `record_wakee()`, which adds one only with
//! `new_partner` (by default the waker last woke this same wakee).

use crate::facts::cost::CostModel;
use crate::facts::kernel::KernelConfig;
use crate::facts::kernel::KernelSpec;
use crate::facts::topology::CpuMap;
use crate::facts::topology::Topology;
use crate::facts::trace::TraceWindow;
use crate::facts::workload::{Housekeeping, PipeParams, TaskInit, Workload, WorkloadState};
use crate::state::pelt::{Signal, NICE_0_LOAD, SCHED_CAPACITY_SCALE};
use crate::state::{Phase, Sim, SimOptions, TState, NO_TASK};
use std::fmt::Write;

const NOW: u64 = 1_000_000_000;

#[derive(Clone, Default)]
struct CpuSpec {
    busy: bool,
    queued: u32,
    cstate: Option<String>,
    load: Option<u64>,
    task_load: Option<u64>,
    avg_idle: Option<u64>,
    wake_avg_idle: Option<u64>,
    max_newidle_lb_cost: Option<Vec<u64>>,
    wake_stamp_ago: u64,
    ttwu_pending: bool,
}

#[derive(Default)]
struct WakeeSpec {
    prev: u32,
    recent: Option<u32>,
    flips: u32,
    load: u64,
    pinned: Option<u32>,
    on_cpu: bool,
}

#[derive(Default)]
struct WakerSpec {
    task: bool,
    cpu: u32,
    flips: u32,
    load: u64,
    new_partner: bool,
    kthread: bool,
    recent: Option<u32>,
}

#[derive(Default)]
struct Spec {
    machine: String,
    numa: Option<u32>,
    kernel: String,
    cpus: Vec<(Vec<u32>, Vec<String>)>,
    llcs: Vec<(u32, Vec<String>)>,
    rd_overload: Option<bool>,
    shard_size: u32,
    cgroup_depth: u32,
    other_cgroups: u32,
    wakee: Option<WakeeSpec>,
    waker: Option<WakerSpec>,
    sync: bool,
    newidle: Option<u32>,
    /// A wakeup queued on the newidle CPU's wake list while it balances.
    wakeup_during: bool,
}

fn num(line: &str, key: &str, v: &str) -> Result<u64, String> {
    v.parse::<u64>().map_err(|_| format!("line {line:?}: {key}={v:?} is not a whole number"))
}

/// `0-3,5` → [0, 1, 2, 3, 5].
fn cpu_list(line: &str, s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let a = num(line, "cpu", a)? as u32;
        let b = num(line, "cpu", b)? as u32;
        if b < a {
            return Err(format!("line {line:?}: empty CPU range {part:?}"));
        }
        out.extend(a..=b);
    }
    Ok(out)
}

fn parse(text: &str) -> Result<Spec, String> {
    let mut s = Spec { shard_size: crate::api::experiment::DEFAULT_SHARD_SIZE, ..Spec::default() };
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let kv = |w: &str| -> (String, String) {
            match w.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (w.to_string(), String::new()),
            }
        };
        match words[0] {
            "machine" => s.machine = words.get(1).ok_or("machine: missing spec")?.to_string(),
            "numa" => s.numa = Some(num(line, "numa", words.get(1).ok_or("numa: missing distance")?)? as u32),
            "kernel" => s.kernel = words.get(1).ok_or("kernel: missing spec")?.to_string(),
            "sync" => s.sync = true,
            "shard_size" => s.shard_size = num(line, "shard_size", words.get(1).ok_or("shard_size: missing")?)? as u32,
            "cgroup_depth" => {
                s.cgroup_depth = num(line, "cgroup_depth", words.get(1).ok_or("cgroup_depth: missing")?)?.min(16) as u32
            }
            "other_cgroups" => {
                s.other_cgroups =
                    num(line, "other_cgroups", words.get(1).ok_or("other_cgroups: missing")?)?.min(4096) as u32
            }
            "rd_overload" => s.rd_overload = Some(words.get(1) == Some(&"1")),
            "cpu" => {
                let list = cpu_list(line, words.get(1).ok_or("cpu: missing CPU list")?)?;
                s.cpus.push((list, words[2..].iter().map(|w| w.to_string()).collect()));
            }
            "llc" => {
                let l = num(line, "llc", words.get(1).ok_or("llc: missing index")?)? as u32;
                s.llcs.push((l, words[2..].iter().map(|w| w.to_string()).collect()));
            }
            "wakee" => {
                let mut w = WakeeSpec { load: 512, ..WakeeSpec::default() };
                let mut has_prev = false;
                for word in &words[1..] {
                    let (k, v) = kv(word);
                    match k.as_str() {
                        "prev" => {
                            w.prev = num(line, &k, &v)? as u32;
                            has_prev = true;
                        }
                        "recent" => w.recent = Some(num(line, &k, &v)? as u32),
                        "flips" => w.flips = num(line, &k, &v)? as u32,
                        "load" => w.load = num(line, &k, &v)?,
                        "pinned" => w.pinned = Some(num(line, &k, &v)? as u32),
                        "on_cpu" => w.on_cpu = true,
                        _ => return Err(format!("line {line:?}: unknown wakee field {k:?}")),
                    }
                }
                if !has_prev {
                    return Err(format!("line {line:?}: wakee needs prev="));
                }
                s.wakee = Some(w);
            }
            "waker" => {
                let mut w = WakerSpec { load: NICE_0_LOAD, ..WakerSpec::default() };
                match words.get(1) {
                    Some(&"task") => w.task = true,
                    Some(&"irq") => w.task = false,
                    _ => return Err(format!("line {line:?}: waker task|irq cpu=N ...")),
                }
                for word in &words[2..] {
                    let (k, v) = kv(word);
                    match k.as_str() {
                        "cpu" => w.cpu = num(line, &k, &v)? as u32,
                        "flips" => w.flips = num(line, &k, &v)? as u32,
                        "load" => w.load = num(line, &k, &v)?,
                        "new_partner" => w.new_partner = true,
                        "kthread" => w.kthread = true,
                        "recent" => w.recent = Some(num(line, &k, &v)? as u32),
                        _ => return Err(format!("line {line:?}: unknown waker field {k:?}")),
                    }
                }
                s.waker = Some(w);
            }
            "newidle" => {
                let (k, v) = kv(words.get(1).ok_or("newidle: missing cpu=N")?);
                if k != "cpu" {
                    return Err(format!("line {line:?}: newidle cpu=N [wakeup_during]"));
                }
                s.newidle = Some(num(line, &k, &v)? as u32);
                match words.get(2) {
                    None => {}
                    Some(&"wakeup_during") => s.wakeup_during = true,
                    Some(w) => return Err(format!("line {line:?}: unknown newidle option {w:?}")),
                }
            }
            w => return Err(format!("line {line:?}: unknown directive {w:?}")),
        }
    }
    if s.machine.is_empty() || s.kernel.is_empty() {
        return Err("a scenario needs `machine` and `kernel`".into());
    }
    match (&s.wakee, &s.waker, s.newidle) {
        (Some(_), Some(_), None) | (None, None, Some(_)) => Ok(s),
        _ => Err("a scenario is either `wakee` + `waker` or `newidle`".into()),
    }
}

/// Queues `tasks` on `c` through the real enqueue (SHARED_RUNQ shard, `activate`).
fn enqueue(sim: &mut Sim, c: u32, tasks: &[u32]) {
    for &q in tasks {
        sim.tasks[q as usize].state = TState::Waking;
        sim.tasks[q as usize].last_rq = c;
        sim.tasks[q as usize].last_ran_cpu = c;
        sim.shared_runq_enqueue(c, q, NOW, c);
        sim.activate(c, q);
    }
}

/// `sd->max_newidle_lb_cost` of each domain of `c`, bottom up.
fn lb_costs(sim: &Sim, c: u32) -> Vec<u64> {
    (0..sim.doms.chain[c as usize].len())
        .map(|d| sim.dom_state[c as usize * sim.depth_max + d].max_newidle_lb_cost)
        .collect()
}

/// The kernel spec a scenario text names (for the switch-coverage test).
pub fn kernel_of(text: &str) -> Result<KernelSpec, String> {
    let s = parse(text)?;
    KernelSpec::parse(&format!("scenario={}", s.kernel)).map_err(|e| e.0)
}

/// The tasks a scenario creates, by role.
struct Tasks {
    /// Per CPU: the task it runs (busy CPUs), those queued behind it, and one on its
    /// wake list (`ttwu_pending`).
    running: Vec<Option<u32>>,
    queued: Vec<Vec<u32>>,
    pending: Vec<Option<u32>>,
    wakee: Option<u32>,
    /// The task whose wakeup is queued during a newidle balance (`wakeup_during`).
    late: Option<u32>,
}

/// A scenario's simulation in the state its text describes.
struct Built {
    sim: Sim,
    cfg: KernelConfig,
    tasks: Tasks,
    /// The waking task (`None`: an interrupt).
    waker: Option<u32>,
}

/// Builds the scenario and runs it; returns the rendered result.
pub fn run(text: &str) -> Result<String, String> {
    let s = parse(text)?;
    let mut b = build(&s)?;
    match (&s.waker, b.tasks.wakee) {
        (Some(w), Some(p)) => run_wakeup(&s, w, p, &mut b),
        _ => run_newidle(&s, &mut b),
    }
}

/// The machine, the kernel, every CPU and task in the state the text gives, checked
/// by the invariant checker.
fn build(s: &Spec) -> Result<Built, String> {
    let mut topo = Topology::parse_spec(&s.machine).map_err(|e| e.0)?;
    if let Some(d) = s.numa {
        let n = topo.nodes.len();
        topo.numa_distance = Some((0..n).map(|i| (0..n).map(|j| if i == j { 10 } else { d }).collect()).collect());
    }
    let map = topo.build().map_err(|e| e.0)?;
    let n = map.nr_cpus();
    let cfg = KernelSpec::parse(&format!("scenario={}", s.kernel)).map_err(|e| e.0)?.resolve();
    let cpus = cpu_specs(s, n)?;
    let (tasks, inits) = task_table(s, &cpus, n);
    let mut sim = new_sim(s, map, cfg, inits, n);
    check_roles(s, &cpus, n)?;
    place_tasks(&mut sim, &cpus, &tasks)?;
    set_signals(&mut sim, &cpus, &tasks);
    set_llcs(&mut sim, s)?;
    set_wakee(&mut sim, s, &tasks);
    let waker = set_waker(&mut sim, s, &tasks)?;
    sim.check().map_err(|e| format!("the scenario's state is inconsistent: {e}"))?;
    Ok(Built { sim, cfg, tasks, waker })
}

/// Per-CPU specs, later lines overriding earlier ones.
fn cpu_specs(s: &Spec, n: u32) -> Result<Vec<CpuSpec>, String> {
    let mut cpus = vec![CpuSpec::default(); n as usize];
    for (list, words) in &s.cpus {
        for &c in list {
            if c >= n {
                return Err(format!("cpu {c}: the machine has {n} CPUs"));
            }
            let cs = &mut cpus[c as usize];
            for w in words {
                let (k, v) = w.split_once('=').unwrap_or((w.as_str(), ""));
                let line = format!("cpu {c} {w}");
                match k {
                    "busy" => cs.busy = true,
                    "idle" => {
                        cs.busy = false;
                        cs.cstate = (!v.is_empty()).then(|| v.to_string());
                    }
                    "queued" => cs.queued = num(&line, k, v)? as u32,
                    "load" => cs.load = Some(num(&line, k, v)?),
                    "task_load" => cs.task_load = Some(num(&line, k, v)?),
                    "avg_idle" => cs.avg_idle = Some(num(&line, k, v)?),
                    "wake_avg_idle" => cs.wake_avg_idle = Some(num(&line, k, v)?),
                    "max_newidle_lb_cost" => {
                        let mut costs = Vec::new();
                        for x in v.split(',') {
                            costs.push(num(&line, k, x)?);
                        }
                        cs.max_newidle_lb_cost = Some(costs);
                    }
                    "wake_stamp_ago" => cs.wake_stamp_ago = num(&line, k, v)?,
                    "ttwu_pending" => cs.ttwu_pending = true,
                    _ => return Err(format!("line {line:?}: unknown cpu field {k:?}")),
                }
            }
        }
    }
    // Queued tasks need a CPU that runs a task, or one still switching away from the
    // blocked wakee (`wakee on_cpu`).
    let on_cpu_prev = s.wakee.as_ref().filter(|w| w.on_cpu).map(|w| w.prev);
    for (c, cs) in cpus.iter().enumerate() {
        if cs.queued > 0 && !cs.busy && on_cpu_prev != Some(c as u32) {
            return Err(format!("cpu {c}: queued tasks need a busy CPU"));
        }
    }

    Ok(cpus)
}

/// Tasks: per busy CPU its curr and queued tasks, then the wakee, the pending
/// wakeups and the late one.
fn task_table(s: &Spec, cpus: &[CpuSpec], n: u32) -> (Tasks, Vec<TaskInit>) {
    let waker_cpu = s.waker.as_ref().filter(|w| w.task).map(|w| w.cpu);
    let mut inits = Vec::new();
    let mut running: Vec<Option<u32>> = vec![None; n as usize];
    let mut queued: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    let task = |name: String| TaskInit {
        name,
        pinned: None,
        percpu_kthread: false,
        kthread: false,
        ws_bytes: 16 << 10,
        sys_pct: 50,
    };
    for (c, cs) in cpus.iter().enumerate() {
        if cs.busy {
            running[c] = Some(inits.len() as u32);
            let name = if waker_cpu == Some(c as u32) { "waker".to_string() } else { format!("cpu{c}") };
            inits.push(task(name));
        }
        for q in 0..cs.queued {
            queued[c].push(inits.len() as u32);
            inits.push(task(format!("cpu{c}.q{}", q + 1)));
        }
    }
    let wakee = s.wakee.as_ref().map(|_| {
        inits.push(task("wakee".into()));
        inits.len() as u32 - 1
    });
    // A pending wakeup is a task on the CPU's wake list, as __ttwu_queue_wakelist()
    // leaves it.
    let mut pending: Vec<Option<u32>> = vec![None; n as usize];
    for (c, cs) in cpus.iter().enumerate() {
        if cs.ttwu_pending {
            pending[c] = Some(inits.len() as u32);
            inits.push(task(format!("pending{c}")));
        }
    }
    let late = s.wakeup_during.then(|| {
        inits.push(task("late".into()));
        inits.len() as u32 - 1
    });
    (Tasks { running, queued, pending, wakee, late }, inits)
}

/// A simulation of the machine at [`NOW`] with the scenario's tasks, none placed yet.
fn new_sim(s: &Spec, map: CpuMap, cfg: KernelConfig, inits: Vec<TaskInit>, n: u32) -> Sim {
    let workload = Workload::Pipe(PipeParams { loops: 1, work_ns: 1_000, ws_bytes: 16 << 10 });
    let hk = Housekeeping { enabled: false, ..Housekeeping::default() };
    let (wl, _) = WorkloadState::new(&workload, (inits.len() as u32).div_ceil(2).max(1), n, &hk);
    let opts = SimOptions {
        seed: crate::api::experiment::DEFAULT_SEED,
        end_ns: NOW + 1_000_000_000,
        warmup_ns: 0,
        trace: Some(TraceWindow { from: 0, count: 1 }),
        check_invariants: false,
        shard_size: s.shard_size,
        cgroup_depth: s.cgroup_depth,
        other_cgroups: s.other_cgroups,
        max_events: 100_000,
        wasted_threshold_ns: 0,
    };
    let cost = CostModel::default();
    let doms = std::sync::Arc::new(crate::facts::domains::Domains::build(
        &map,
        crate::facts::domains::DomainParams::of(&cfg, &cost),
    ));
    let mut sim = Sim::new(map, cost, cfg, wl, inits, opts, doms);
    sim.now = NOW;
    sim
}

/// The waker, wakee and newidle CPU the text names exist and can play their part.
fn check_roles(s: &Spec, cpus: &[CpuSpec], n: u32) -> Result<(), String> {
    if let Some(w) = &s.waker {
        if w.cpu >= n || (w.task && !cpus[w.cpu as usize].busy) {
            return Err(format!("waker cpu={}: a waking task needs a busy CPU of the machine", w.cpu));
        }
    }
    if let Some(w) = &s.wakee {
        for c in [Some(w.prev), w.recent, w.pinned].into_iter().flatten() {
            if c >= n {
                return Err(format!("wakee: CPU {c} is not on the machine"));
            }
        }
        if w.on_cpu && cpus[w.prev as usize].busy {
            return Err("wakee on_cpu: its prev CPU is switching away from it, it cannot be busy".into());
        }
    }
    if let Some(c) = s.newidle {
        if c >= n || !cpus[c as usize].busy {
            return Err(format!("newidle cpu={c}: needs a busy CPU whose task blocks"));
        }
    }

    Ok(())
}

/// Idle CPUs in their C-state; busy ones run their task (enqueued for real, then made
/// curr as `finish_task_switch()` would); queued tasks behind them.
fn place_tasks(sim: &mut Sim, cpus: &[CpuSpec], tasks: &Tasks) -> Result<(), String> {
    let cost = CostModel::default();
    let cstate_of = |name: &Option<String>| -> Result<u8, String> {
        let name = name.as_deref().unwrap_or("C1");
        cost.cstates
            .iter()
            .position(|c| c.name == name)
            .map(|i| i as u8)
            .ok_or_else(|| format!("unknown C-state {name:?}"))
    };
    let (running, queued) = (&tasks.running, &tasks.queued);
    let n = sim.cpus.len() as u32;
    let idle_states: Vec<Result<u8, String>> = cpus.iter().map(|cs| cstate_of(&cs.cstate)).collect();
    for c in 0..n {
        let cs = &cpus[c as usize];
        if !cs.busy {
            let st = idle_states[c as usize].clone()?;
            let cpu = &mut sim.cpus[c as usize];
            cpu.phase = Phase::Idle;
            cpu.cstate = st;
            cpu.idle_enter = NOW / 2;
            enqueue(sim, c, &queued[c as usize]);
            continue;
        }
        let t = running[c as usize].ok_or_else(|| format!("cpu {c}: a busy CPU without its task"))?;
        // The real enqueue, then made curr as finish_task_switch() would.
        sim.tasks[t as usize].state = TState::Waking;
        sim.tasks[t as usize].last_rq = c;
        sim.activate(c, t);
        sim.cpus[c as usize].queue.retain(|&x| x != t);
        {
            let task = &mut sim.tasks[t as usize];
            task.state = TState::Running;
            task.exec_start = NOW;
            task.last_ran_cpu = c;
            task.recent_used_cpu = c;
        }
        sim.cpus[c as usize].curr = Some(t);
        sim.core_busy[sim.map.places[c as usize].core as usize] += 1;
        sim.user(c, 1_000_000_000);
        enqueue(sim, c, &queued[c as usize]);
    }
    Ok(())
}

/// PELT: every signal exactly as stated, now; `avg_idle`, the wake list and the
/// balance costs as given.
fn set_signals(sim: &mut Sim, cpus: &[CpuSpec], tasks: &Tasks) {
    let n = sim.cpus.len();
    let (running, queued, pending) = (&tasks.running, &tasks.queued, &tasks.pending);
    for c in 0..n {
        let cs = &cpus[c];
        let tl = cs.task_load.unwrap_or(NICE_0_LOAD);
        let nr = sim.cpus[c].nr_running as u64;
        for &t in queued[c].iter().chain(running[c].iter()) {
            sim.tasks[t as usize].load = Signal::at(tl, NOW);
        }
        sim.cpus[c].load = Signal::at(cs.load.unwrap_or(tl * nr), NOW);
        sim.cpus[c].util = Signal::at(if cs.busy { SCHED_CAPACITY_SCALE } else { 0 }, NOW);
        if let Some(v) = cs.avg_idle {
            sim.cpus[c].avg_idle = v;
        }
        if let Some(v) = cs.wake_avg_idle {
            sim.cpus[c].wake_avg_idle = v;
        }
        sim.cpus[c].wake_stamp = (NOW / sim.cost.tick_ns).saturating_sub(cs.wake_stamp_ago);
        if let Some(t) = pending[c] {
            let task = &mut sim.tasks[t as usize];
            task.state = TState::Waking;
            task.cpu = c as u32;
            sim.cpus[c].wake_list.push(t);
            sim.cpus[c].ttwu_pending = true;
        }
        if let Some(v) = &cs.max_newidle_lb_cost {
            // One value for every domain, or one per domain from the bottom up.
            for d in 0..sim.doms.chain[c].len() {
                let x = if v.len() == 1 { v[0] } else { v.get(d).copied().unwrap_or(0) };
                sim.dom(c as u32, d).max_newidle_lb_cost = x;
            }
        }
    }
}

/// `sd_llc_shared` and the shards as the text gives them.
fn set_llcs(sim: &mut Sim, s: &Spec) -> Result<(), String> {
    // sd_llc_shared->has_idle_cores as __update_idle_core() leaves it.
    for l in 0..sim.llcs.len() {
        let idle_core = sim.map.llc_cpus[l].iter().any(|&c| sim.map.siblings(c).iter().all(|&x| sim.idle_cpu(x)));
        sim.llcs[l].has_idle_cores = idle_core;
    }
    for (l, words) in &s.llcs {
        if *l as usize >= sim.llcs.len() {
            return Err(format!("llc {l}: the machine has {} LLCs", sim.llcs.len()));
        }
        for w in words {
            let (k, v) = w.split_once('=').unwrap_or((w.as_str(), ""));
            let line = format!("llc {l} {w}");
            let llc = &mut sim.llcs[*l as usize];
            match k {
                "has_idle_cores" => llc.has_idle_cores = num(&line, k, v)? != 0,
                "avg_scan_cost" => llc.avg_scan_cost = num(&line, k, v)?,
                "nr_idle_scan" => llc.nr_idle_scan = num(&line, k, v)? as u32,
                "overload" => {
                    let flags: Vec<&str> = v.split(',').collect();
                    if flags.len() != llc.shards.len() {
                        return Err(format!("line {line:?}: the LLC has {} shards", llc.shards.len()));
                    }
                    for (sh, f) in llc.shards.iter_mut().zip(flags) {
                        sh.overload = f == "1";
                    }
                }
                _ => return Err(format!("line {line:?}: unknown llc field {k:?}")),
            }
        }
    }
    if let Some(o) = s.rd_overload {
        sim.rd_overload = o;
    }

    Ok(())
}

/// The wakee: asleep on prev, or still switching away from it (`on_cpu`).
fn set_wakee(sim: &mut Sim, s: &Spec, tasks: &Tasks) {
    let Some(p) = tasks.wakee else { return };
    let Some(ws) = &s.wakee else { return };
    let prev = ws.prev;
    {
        let t = &mut sim.tasks[p as usize];
        t.state = TState::Sleeping;
        t.cpu = prev;
        t.last_rq = prev;
        t.last_ran_cpu = prev;
        t.recent_used_cpu = ws.recent.unwrap_or(prev);
        t.wakee.flips = ws.flips;
        t.wakee.decay_ts = NOW;
        t.load = Signal::at(ws.load, NOW);
        t.pinned = ws.pinned;
    }
    if ws.on_cpu {
        // Blocked, still curr of prev while switching away (p->on_cpu).
        sim.tasks[p as usize].on_cpu = Some(prev);
        sim.cpus[prev as usize].curr = Some(p);
        sim.core_busy[sim.map.places[prev as usize].core as usize] += 1;
        sim.kernel(prev, 2_000, Phase::Switch(NO_TASK));
    }
}

/// `current` on the waking CPU: the waking task with its flips and load, or the task
/// an interrupt interrupts (or the idle task, out of its C-state). Returns the waker.
fn set_waker(sim: &mut Sim, s: &Spec, tasks: &Tasks) -> Result<Option<u32>, String> {
    let (running, wakee) = (&tasks.running, tasks.wakee);
    Ok(match &s.waker {
        Some(w) if w.task => {
            let t = running[w.cpu as usize].ok_or_else(|| format!("waker on cpu {}: that CPU is not busy", w.cpu))?;
            let task = &mut sim.tasks[t as usize];
            task.wakee.flips = w.flips;
            task.wakee.decay_ts = NOW;
            task.wakee.last = if w.new_partner { NO_TASK } else { wakee.unwrap_or(NO_TASK) };
            task.load = Signal::at(w.load, NOW);
            if let Some(r) = w.recent {
                task.recent_used_cpu = r;
            }
            if w.kthread {
                task.percpu_kthread = true;
                task.pinned = Some(w.cpu);
            }
            Some(t)
        }
        Some(w) => {
            // An interrupt: it interrupts the CPU's task (whose flips are `flips`) or,
            // on an idle CPU, runs in the idle task, out of its C-state.
            if let Some(t) = sim.cpus[w.cpu as usize].curr {
                let task = &mut sim.tasks[t as usize];
                task.wakee.flips = w.flips;
                task.wakee.decay_ts = NOW;
                task.wakee.last = if w.new_partner { NO_TASK } else { wakee.unwrap_or(NO_TASK) };
                if let Some(r) = w.recent {
                    task.recent_used_cpu = r;
                }
            }
            if sim.cpus[w.cpu as usize].phase == Phase::Idle {
                sim.core_busy[sim.map.places[w.cpu as usize].core as usize] += 1;
                sim.kernel(w.cpu, 1_000, Phase::Irq);
            }
            None
        }
        None => None,
    })
}

/// One wakeup from the waker's CPU, traced, and what it changed.
fn run_wakeup(s: &Spec, w: &WakerSpec, p: u32, b: &mut Built) -> Result<String, String> {
    let (sim, waker, running) = (&mut b.sim, b.waker, &b.tasks.running);
    let mut out = String::new();
    let this = w.cpu as usize;
    let llc_this = sim.map.places[this].llc as usize;
    let snap = |sim: &Sim| {
        (
            sim.llcs[llc_this].avg_scan_cost,
            sim.cpus[this].wake_avg_idle,
            sim.llcs.iter().map(|l| l.has_idle_cores as u8).collect::<Vec<_>>(),
            (sim.m.sis_recent_hits, sim.m.sis_recent_attempts),
        )
    };
    let before = snap(sim);
    sim.try_to_wake_up(w.cpu, waker, p, s.sync, 0);
    let tr = sim.traces.pop().ok_or("the wakeup was not traced")?;
    out.push_str(&tr.render());
    let after = snap(sim);
    if sim.tasks[p as usize].deferred_wake.is_some() {
        // The waker spun on p->on_cpu: the rest of try_to_wake_up() runs when the
        // switch away completes, outside the traced wakeup. Run to that point.
        for _ in 0..1_000 {
            if sim.tasks[p as usize].deferred_wake.is_none() || !sim.step_event() {
                break;
            }
        }
        let t = &sim.tasks[p as usize];
        let _ = writeln!(
            out,
            "  after the spin (untraced): select_task_rq put the wakee on CPU {} at +{} ns",
            t.cpu,
            sim.now - NOW
        );
    }
    if before.0 != after.0 {
        let _ = writeln!(out, "  after: this_sd->avg_scan_cost {} -> {}", before.0, after.0);
    }
    if before.1 != after.1 {
        let _ = writeln!(out, "  after: wake_avg_idle({this}) {} -> {}", before.1, after.1);
    }
    if before.2 != after.2 {
        let _ = writeln!(out, "  after: has_idle_cores per LLC {:?} -> {:?}", before.2, after.2);
    }
    if before.3 != after.3 {
        // Gorman's SIS statistics (July 2021 form): a hit, or a miss for every other
        // candidate that is neither prev nor the target.
        let (hits, tries) = (after.3 .0 - before.3 .0, after.3 .1 - before.3 .1);
        let _ = writeln!(out, "  after: sis_recent_hit +{hits}, sis_recent_miss +{}", tries - hits);
    }
    let _ = write!(out, "  after: p->recent_used_cpu={}", sim.tasks[p as usize].recent_used_cpu);
    if let Some(wt) = waker {
        let t = &sim.tasks[wt as usize];
        let _ = write!(out, ", waker->recent_used_cpu={}, waker->wakee_flips={}", t.recent_used_cpu, t.wakee.flips);
    } else if let Some(curr) = running[this] {
        // The task the interrupt interrupted (`current` in the kernel).
        let t = &sim.tasks[curr as usize];
        let _ = write!(
            out,
            ", interrupted {}->recent_used_cpu={}, ->wakee_flips={}",
            t.name, t.recent_used_cpu, t.wakee.flips
        );
    }
    out.push('\n');
    Ok(out)
}

/// The CPU's task blocks and the CPU goes newly idle; the balance runs to its end.
fn run_newidle(s: &Spec, b: &mut Built) -> Result<String, String> {
    let (sim, cfg, running, late) = (&mut b.sim, &b.cfg, &b.tasks.running, b.tasks.late);
    let mut out = String::new();
    let c = s.newidle.unwrap_or(0);
    let cu = c as usize;
    let _ = writeln!(
        out,
        "newidle on CPU {c} ({}): avg_idle={} rd->overload={} ttwu_pending={} max_newidle_lb_cost={:?}",
        s.kernel,
        sim.cpus[cu].avg_idle,
        sim.rd_overload as u8,
        sim.cpus[cu].ttwu_pending as u8,
        lb_costs(sim, c)
    );
    let shards = |sim: &Sim| -> String {
        let mut s = String::new();
        for (l, llc) in sim.llcs.iter().enumerate() {
            for (k, sh) in llc.shards.iter().enumerate() {
                let names: Vec<&str> = sh.list.iter().map(|&t| sim.tasks[t as usize].name.as_str()).collect();
                let _ = write!(s, " {l}.{k}{}[{}]", if sh.overload { "!" } else { "" }, names.join(" "));
            }
        }
        s
    };
    if cfg.on(crate::facts::kernel::Switch::SharedRunq) {
        let _ = writeln!(out, "  shards before (! = overload):{}", shards(sim));
    }
    let t = running[cu].ok_or_else(|| format!("cpu {c}: the CPU going idle runs no task"))?;
    sim.block(c, t, TState::Sleeping);
    sim.schedule(c);
    if let Some(l) = late {
        // What __ttwu_queue_wakelist() leaves behind for a wakeup queued to c from
        // another LLC while c balances (the IPI waits: interrupts are off).
        if matches!(sim.cpus[cu].phase, Phase::Newidle { .. }) {
            let task = &mut sim.tasks[l as usize];
            task.state = TState::Waking;
            task.cpu = c;
            sim.cpus[cu].wake_list.push(l);
            sim.cpus[cu].ttwu_pending = true;
            let _ = writeln!(out, "  (a wakeup of `late` is queued on CPU {c}'s wake list during the balance)");
        }
    }
    for _ in 0..1_000 {
        if !matches!(sim.cpus[cu].phase, Phase::Newidle { .. }) {
            break;
        }
        if !sim.step_event() {
            break;
        }
    }
    let m = serde_json::to_value(&sim.m).map_err(|e| e.to_string())?;
    let mut counters = Vec::new();
    if let Some(obj) = m.as_object() {
        for (k, v) in obj {
            if let Some(x) = v.as_u64().filter(|&x| x > 0) {
                counters.push(format!("{k}={x}"));
            }
        }
    }
    let _ = writeln!(out, "  counters: {}", counters.join(" "));
    match sim.cpus[cu].phase {
        Phase::Switch(next) if next != NO_TASK => {
            let t = &sim.tasks[next as usize];
            let _ = writeln!(out, "  => switches to {} at +{} ns", t.name, sim.cpus[cu].seg_end - NOW);
        }
        Phase::Switch(_) => {
            let _ = writeln!(out, "  => switches to idle at +{} ns", sim.cpus[cu].seg_end - NOW);
        }
        ph => {
            let _ = writeln!(out, "  => still {ph:?}");
        }
    }
    let _ = writeln!(
        out,
        "  after: idle_stamp={} max_newidle_lb_cost={:?} nr_running={:?}",
        sim.cpus[cu].idle_stamp,
        lb_costs(sim, c),
        sim.cpus.iter().map(|x| x.nr_running).collect::<Vec<_>>()
    );
    if cfg.on(crate::facts::kernel::Switch::SharedRunq) {
        let _ = writeln!(out, "  shards after:{}", shards(sim));
    }
    Ok(out)
}

// ---- the fair class's pick and preemption on one CPU ------------------------------

/// One CPU's fair runqueue for [`run_cfs`]: what runs, what waits, who wakes.
#[derive(Default)]
struct CfsSpec {
    kernel: String,
    min_vruntime: u64,
    /// curr: (vruntime, deadline, ns run since `exec_start` not yet charged, its
    /// RUN_TO_PARITY stash still holds).
    curr: Option<(u64, u64, u64, bool)>,
    /// Queued: (name, vruntime, deadline, delayed: asleep but still queued, v6.12).
    queued: Vec<(String, u64, u64, bool)>,
    /// The wakee: (vruntime at sleep, vlag at sleep, a new task).
    wakee: Option<(u64, i64, bool)>,
    tick: bool,
    /// Instead of a wakee or a tick: curr goes to sleep and the CPU picks (`block`),
    /// or the delayed task of this name is woken (`wake NAME`).
    block: bool,
    wake: Option<String>,
}

fn parse_cfs(text: &str) -> Result<CfsSpec, String> {
    let mut s = CfsSpec::default();
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut fields = std::collections::BTreeMap::new();
        let mut flags = Vec::new();
        for w in &words[1..] {
            match w.split_once('=') {
                Some((k, v)) => {
                    fields.insert(k.to_string(), v.to_string());
                }
                None => flags.push(w.to_string()),
            }
        }
        let get = |k: &str| -> Result<u64, String> { fields.get(k).map_or(Ok(0), |v| num(line, k, v)) };
        match words[0] {
            "kernel" => s.kernel = words.get(1).ok_or("kernel: missing spec")?.to_string(),
            "min_vruntime" => s.min_vruntime = num(line, "min_vruntime", words.get(1).ok_or("min_vruntime: missing")?)?,
            "curr" => {
                s.curr = Some((get("vruntime")?, get("deadline")?, get("ran")?, flags.iter().any(|f| f == "protected")))
            }
            "queued" => {
                let name = flags.first().cloned().unwrap_or_else(|| format!("q{}", s.queued.len() + 1));
                let delayed = flags.iter().any(|f| f == "delayed");
                let name = if delayed && flags.len() == 1 { format!("q{}", s.queued.len() + 1) } else { name };
                s.queued.push((name, get("vruntime")?, get("deadline")?, delayed));
            }
            "wakee" => {
                let vlag = match fields.get("vlag") {
                    Some(v) => v.parse::<i64>().map_err(|_| format!("line {line:?}: vlag={v:?} is not a number"))?,
                    None => 0,
                };
                s.wakee = Some((get("vruntime")?, vlag, flags.iter().any(|f| f == "new")));
            }
            "tick" => s.tick = true,
            "block" => s.block = true,
            "wake" => s.wake = Some(words.get(1).ok_or("wake: missing the delayed task's name")?.to_string()),
            w => return Err(format!("line {line:?}: unknown directive {w:?}")),
        }
    }
    if s.kernel.is_empty() || s.curr.is_none() {
        return Err("a CFS scenario needs `kernel` and `curr`".into());
    }
    if [s.wakee.is_some(), s.tick, s.block, s.wake.is_some()].iter().filter(|&&b| b).count() != 1 {
        return Err("a CFS scenario is one of `wakee`, `tick`, `block` or `wake NAME`".into());
    }
    if let Some(w) = &s.wake {
        if !s.queued.iter().any(|q| &q.0 == w && q.3) {
            return Err(format!("wake {w}: no delayed task of that name"));
        }
    }
    Ok(s)
}

/// A one-CPU scenario of the fair class's own decisions, for `tests/scenarios.rs`:
/// `curr` runs (kernel code: the wakeup's interrupt or the tick), tasks wait behind it,
/// then ONE wakee is enqueued and `check_preempt_curr()` asked, or ONE tick runs.
/// Renders every task's vruntime and deadline with EEVDF's eligibility before and
/// after, the wakee's placement, the pick and whether the CPU reschedules. Not a
/// stable API.
///
/// ```text
/// kernel v6.6
/// min_vruntime 1000000
/// curr vruntime=1000000 deadline=3250000 ran=500000 protected   # protected: picked
///                           # with this deadline (RUN_TO_PARITY's stash holds)
/// queued b vruntime=1400000 deadline=3000000
/// queued d vruntime=1500000 deadline=2250000 delayed  # asleep, still queued (v6.12)
/// wakee vruntime=900000 vlag=200000 new   # its vruntime and lag when it slept;
///                           # `new`: a fork (ENQUEUE_INITIAL)
/// tick                      # instead of a wakee: the tick after `ran`
/// block                     # instead: curr sleeps, the CPU picks
/// wake d                    # instead: the delayed task d is woken (ttwu_runnable)
/// ```
pub fn run_cfs(text: &str) -> Result<String, String> {
    let s = parse_cfs(text)?;
    let cfg = KernelSpec::parse(&format!("scenario={}", s.kernel)).map_err(|e| e.0)?.resolve();
    let map = Topology::parse_spec("1x1x1x1").map_err(|e| e.0)?.build().map_err(|e| e.0)?;
    let task = |name: &str| TaskInit {
        name: name.into(),
        pinned: None,
        percpu_kthread: false,
        kthread: false,
        ws_bytes: 16 << 10,
        sys_pct: 50,
    };
    let mut inits = vec![task("curr")];
    inits.extend(s.queued.iter().map(|(n, _, _, _)| task(n)));
    if s.wakee.is_some() {
        inits.push(task("wakee"));
    }
    let spec = Spec { shard_size: crate::api::experiment::DEFAULT_SHARD_SIZE, ..Spec::default() };
    let mut sim = new_sim(&spec, map, cfg, inits, 1);
    let (cv, cd, ran, protected) = s.curr.unwrap_or_default();
    sim.cpus[0].min_vruntime = s.min_vruntime;
    {
        let t = &mut sim.tasks[0];
        t.state = TState::Running;
        t.vruntime = cv;
        t.deadline = cd;
        t.vlag = if protected { cd as i64 } else { cd as i64 ^ 1 };
        t.exec_start = NOW - ran.min(NOW);
        // Picked at this vruntime: check_preempt_tick()'s slice (before v6.6) starts here.
        t.slice_start = cv;
        t.last_rq = 0;
        t.last_ran_cpu = 0;
    }
    let cpu = &mut sim.cpus[0];
    cpu.curr = Some(0);
    cpu.nr_running = 1;
    cpu.phase = Phase::Irq;
    for (i, (_, v, d, delayed)) in s.queued.iter().enumerate() {
        let q = i as u32 + 1;
        let t = &mut sim.tasks[q as usize];
        t.vruntime = *v;
        t.deadline = *d;
        t.last_rq = 0;
        if *delayed {
            t.state = TState::Sleeping;
            t.delayed = true;
            sim.cpus[0].delayed.push(q);
        } else {
            t.state = TState::Runnable;
            sim.cpus[0].queue.push(q);
            sim.cpus[0].nr_running += 1;
        }
    }
    let eevdf = sim.cfg.since(6, 6);
    let mut out = String::new();
    let _ = writeln!(out, "{} on one CPU, curr ran {ran} ns not yet charged", cfg.version.name());
    render_cfs(&mut sim, &mut out, "before", eevdf);
    match s.wakee {
        Some((v, vlag, new)) => {
            let w = sim.tasks.len() as u32 - 1;
            {
                let t = &mut sim.tasks[w as usize];
                t.vruntime = v;
                t.vlag = vlag;
                t.last_rq = 0;
                t.state = TState::Waking;
            }
            if new {
                sim.activate_as(0, w, crate::linux::sched::Enqueue::Fork);
            } else {
                sim.ttwu_activate(0, w);
            }
            let t = &sim.tasks[w as usize];
            if eevdf {
                let _ = writeln!(
                    out,
                    "enqueue wakee (vlag {vlag}{}): vruntime={} deadline={}",
                    if new { ", new" } else { "" },
                    t.vruntime,
                    t.deadline
                );
            } else {
                let _ = writeln!(out, "enqueue wakee: vruntime={}", t.vruntime);
            }
            sim.check_preempt(0, w, 0);
            let _ = writeln!(out, "check_preempt_curr: need_resched={}", sim.cpus[0].need_resched as u8);
        }
        None if s.tick => {
            sim.tick(0);
            let _ = writeln!(out, "tick: need_resched={}", sim.cpus[0].need_resched as u8);
        }
        None if s.block => {
            sim.block(0, 0, TState::Sleeping);
            let t = &sim.tasks[0];
            if t.delayed {
                let _ = writeln!(out, "curr sleeps: delayed (not eligible), stays queued");
            } else {
                let _ = writeln!(out, "curr sleeps: dequeued, vlag={}", t.vlag);
            }
            if sim.cfg.delay_dequeue() {
                let before = sim.cpus[0].delayed.clone();
                sim.pick_past_delayed(0);
                for d in before.into_iter().filter(|&d| !sim.tasks[d as usize].delayed) {
                    let t = &sim.tasks[d as usize];
                    let _ = writeln!(out, "picked delayed {}: dequeued, vlag={}", t.name, t.vlag);
                }
            }
            let next = sim.pick_next(0).map_or("none".to_string(), |t| sim.tasks[t as usize].name.clone());
            let _ = writeln!(out, "pick_next_entity: {next}");
        }
        None => {
            let name = s.wake.clone().unwrap_or_default();
            let w = sim.tasks.iter().position(|t| t.name == name).unwrap_or(0) as u32;
            sim.try_to_wake_up(0, Some(0), w, false, 0);
            let t = &sim.tasks[w as usize];
            let _ = writeln!(
                out,
                "ttwu_runnable {name} (vlag {}): vruntime={} deadline={}",
                t.vlag, t.vruntime, t.deadline
            );
            let _ = writeln!(out, "check_preempt_curr: need_resched={}", sim.cpus[0].need_resched as u8);
        }
    }
    render_cfs(&mut sim, &mut out, "after", eevdf);
    Ok(out)
}

/// The runqueue: V and each task's vruntime, deadline and eligibility (EEVDF), or its
/// vruntime alone.
fn render_cfs(sim: &mut Sim, out: &mut String, when: &str, eevdf: bool) {
    let cpu = &sim.cpus[0];
    let mut tasks: Vec<u32> = cpu.curr.into_iter().chain(cpu.queue.iter().copied()).collect();
    tasks.dedup();
    for &d in &cpu.delayed {
        if !tasks.contains(&d) {
            tasks.push(d);
        }
    }
    if !eevdf {
        let _ = writeln!(out, "{when}: min_vruntime={}", cpu.min_vruntime);
        for t in tasks {
            let task = &sim.tasks[t as usize];
            let _ = writeln!(out, "  {:<6} vruntime={}", task.name, task.vruntime);
        }
        return;
    }
    let sums = sim.avg_sums(0);
    let _ = writeln!(
        out,
        "{when}: min_vruntime={} V={} (avg_vruntime={} avg_load={})",
        cpu.min_vruntime,
        sums.avg_vruntime(),
        sums.avg,
        sums.load
    );
    for t in tasks {
        let task = &sim.tasks[t as usize];
        let running = task.state == TState::Running;
        let v =
            if running { task.vruntime.wrapping_add(sim.now.saturating_sub(task.exec_start)) } else { task.vruntime };
        let _ = writeln!(
            out,
            "  {:<6} vruntime={} deadline={}{}{}",
            task.name,
            v,
            task.deadline,
            if sums.eligible(v) { " eligible" } else { " not eligible" },
            if task.delayed { " delayed" } else { "" }
        );
    }
    let pick = sim.pick_eevdf(0).map_or("none".to_string(), |t| sim.tasks[t as usize].name.clone());
    let _ = writeln!(out, "  pick_eevdf: {pick}");
}
