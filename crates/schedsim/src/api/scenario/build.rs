//! The simulation in the state a scenario's [`Spec`] describes: the machine, the
//! kernel, every CPU's tasks, PELT signals and idle state, the LLCs, the wakee and the
//! waker, checked by the invariant checker.

use super::spec::{num, CpuSpec, Spec};
use super::NOW;

use crate::facts::cost::CostModel;
use crate::facts::kernel::KernelConfig;
use crate::facts::kernel::KernelSpec;
use crate::facts::topology::CpuMap;
use crate::facts::topology::Topology;
use crate::facts::trace::TraceWindow;
use crate::facts::workload::{Housekeeping, PipeParams, TaskInit, Workload, WorkloadState};
use crate::state::pelt::{Signal, NICE_0_LOAD, SCHED_CAPACITY_SCALE};
use crate::state::{Phase, Sim, SimOptions, TState, NO_TASK};

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

/// The tasks a scenario creates, by role.
pub(super) struct Tasks {
    /// Per CPU: the task it runs (busy CPUs), those queued behind it, and one on its
    /// wake list (`ttwu_pending`).
    pub(super) running: Vec<Option<u32>>,
    pub(super) queued: Vec<Vec<u32>>,
    pub(super) pending: Vec<Option<u32>>,
    pub(super) wakee: Option<u32>,
    /// The task whose wakeup is queued during a newidle balance (`wakeup_during`).
    pub(super) late: Option<u32>,
}

/// A scenario's simulation in the state its text describes.
pub(super) struct Built {
    pub(super) sim: Sim,
    pub(super) cfg: KernelConfig,
    pub(super) tasks: Tasks,
    /// The waking task (`None`: an interrupt).
    pub(super) waker: Option<u32>,
}

/// The machine, the kernel, every CPU and task in the state the text gives, checked
/// by the invariant checker.
pub(super) fn build(s: &Spec) -> Result<Built, String> {
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
pub(super) fn new_sim(s: &Spec, map: CpuMap, cfg: KernelConfig, inits: Vec<TaskInit>, n: u32) -> Sim {
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
