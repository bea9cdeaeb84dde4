//! The fair class's pick and preemption on one CPU: [`run_cfs`].

use super::build::new_sim;
use super::spec::{num, Spec};
use super::NOW;

use crate::facts::kernel::KernelSpec;
use crate::facts::topology::Topology;
use crate::facts::workload::TaskInit;
use crate::state::{Phase, Sim, TState};
use std::fmt::Write;

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
    /// Where curr is when the wakee arrives: `syscall` (its own system call, as a
    /// waker whose wakeup this is) or `kthread` (a kernel thread); by default user mode
    /// interrupted. With either, the scenario also says whether the reschedule takes
    /// effect there and then, or waits (the preemption model's point), and after a
    /// `then_tick` whether the tick changed that.
    curr_in: Option<&'static str>,
    then_tick: bool,
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
                s.curr =
                    Some((get("vruntime")?, get("deadline")?, get("ran")?, flags.iter().any(|f| f == "protected")));
                if flags.iter().any(|f| f == "syscall") {
                    s.curr_in = Some("syscall");
                } else if flags.iter().any(|f| f == "kthread") {
                    s.curr_in = Some("kthread");
                }
            }
            "then_tick" => s.then_tick = true,
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
    let curr_kthread = s.curr_in == Some("kthread");
    let map = Topology::parse_spec("1x1x1x1").map_err(|e| e.0)?.build().map_err(|e| e.0)?;
    let task = |name: &str| TaskInit {
        name: name.into(),
        pinned: None,
        percpu_kthread: false,
        kthread: false,
        ws_bytes: 16 << 10,
        sys_pct: 50,
    };
    let mut inits = vec![TaskInit { kthread: curr_kthread, ..task("curr") }];
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
        t.in_sys = s.curr_in == Some("syscall");
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
            let _ = writeln!(
                out,
                "check_preempt_curr: need_resched={}{}",
                sim.cpus[0].need_resched as u8,
                if sim.cpus[0].resched_lazy { " (lazy)" } else { "" }
            );
            if let Some(place) = s.curr_in {
                let mut say = |sim: &Sim, when: &str| {
                    let now = sim.cpus[0].need_resched
                        && crate::linux::preempt::preempts_here(&sim.tasks[0], &sim.cpus[0], sim.cfg.preempt);
                    let _ = writeln!(
                        out,
                        "{when} ({} model, curr in {place}): {}",
                        sim.cfg.preempt.name(),
                        if !sim.cpus[0].need_resched {
                            "nothing pending"
                        } else if now {
                            "curr is preempted there"
                        } else {
                            "curr runs on; the reschedule waits for its block or its return to user mode"
                        }
                    );
                };
                say(&sim, "after the wakeup");
                if s.then_tick {
                    sim.cpus[0].phase = Phase::TaskSys;
                    sim.tick(0);
                    say(&sim, "after the next tick");
                }
            }
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
