//! The converter: a trace's events, in time order, to one program per traced task (the
//! replay workload's [`Op`]s) and the observed wakeups ([`WakeRecord`]s), as the
//! replay's module doc describes.
//!
//! A task is numbered when an event first names it (the line's current task, then the
//! tasks in its arguments); pid 0 is each CPU's idle task and is no task. Between a
//! switch-in and a switch-out a task runs: `Run`. A switch-out with `prev_state` `R` or
//! `R+` (preempted) leaves it runnable; any other state leaves it asleep, and the
//! wakeup that ends the sleep becomes, when the waking line's current task is a traced
//! task, a `Wake` in the waker's program at the point it had run to (its `Run` is split
//! there) and a `Block` in the wakee's; when it is the idle task (an interrupt on an
//! idle CPU) or unknown, an `Irq` in the wakee's program at the traced delay after the
//! sleep began, on the waking CPU. A task that ran at the trace's start (its first
//! event is a switch-out, or it is current on a line) runs from the start; a task
//! first seen woken has slept since the start. When a program ends, the replay counts
//! the task as finished (`Replay::step` gives `exit_one` past the last step), exactly
//! as for `Exit`: the trace's end is each task's end.

use super::parse::Left;
use super::summary::ImportSummary;
use super::{Ev, Kind, TaskRef, TraceError, TraceTask, WakeEv, NO_PID, TRACE_TASKS_MAX};
use crate::facts::recording::{WakeRecord, WakerKind};
use crate::facts::workload::replay::Op;
use std::collections::{HashMap, VecDeque};

/// A wakeup is synchronous (WF_SYNC) when the waker goes to sleep after at most this
/// much more CPU time: a pipe or socket write followed by the read that waits for the
/// answer takes a few microseconds of kernel time (tbench's and hackbench's loops
/// measure 2-20 us), so 50 us holds those and leaves out a waker that goes on
/// computing. CPU time, not wall time: the wakee often preempts its waker at once (the
/// waker switches out `R+`) and the waker sleeps when it next runs.
pub const SYNC_WINDOW_NS: u64 = 50_000;

/// A `sched_waking` of a task still on its CPU that switches out asleep at most this
/// long after wakes that sleep. `__schedule()` dequeues the task before it picks the
/// next one and traces `sched_switch` after, so a waker on another CPU can see it
/// asleep (`on_rq` 0) and trace its waking first; `pick_next_task()` with a newidle
/// balance can take tens of microseconds in between.
pub const EARLY_WAKE_NS: u64 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Named by an event, state not known yet.
    Fresh,
    Running {
        cpu: u32,
        since: u64,
    },
    Runnable,
    Sleeping {
        since: u64,
    },
    /// Woken, not yet switched in.
    Woken,
    Dead,
}

#[derive(Clone, Copy)]
struct Pending {
    time_ns: u64,
    waker: Option<u32>,
    kind: WakerKind,
    waker_cpu: u32,
    last_cpu: Option<u32>,
}

struct St {
    phase: Phase,
    last_cpu: Option<u32>,
    first_cpu: Option<u32>,
    exiting: bool,
    prio_known: bool,
    pending: Option<Pending>,
    /// Wakes in this task's program that become sync if it sleeps soon: (op index, its
    /// CPU time then), oldest first. Expired ones leave from the front as the task's CPU
    /// time passes them (amortised O(1) a wake: a waker whose CPU time stands still
    /// wakes any number of tasks without rescanning them); the switch-out checks each
    /// one's window anyway, so one left behind out of order changes nothing.
    sync: VecDeque<(usize, u64)>,
    /// CPU time so far, ns.
    cpu_ns: u64,
    /// A waking seen while the task was still on its CPU (see [`EARLY_WAKE_NS`]).
    early: Option<Pending>,
    /// Preempted by the task it had just woken (see [`Conv::preempted_by_wakee`]):
    /// that task, whose next switch-out wakes this one, and the index of the `Block`
    /// that waits for it in this task's program.
    awaits: Option<(u32, usize)>,
    /// Tasks this one preempted as their wakee, to wake at its next switch-out.
    owes: Vec<u32>,
}

/// What the converter gives.
pub(super) struct Converted {
    pub tasks: Vec<TraceTask>,
    pub comms: Vec<u32>,
    pub programs: Vec<Vec<Op>>,
    pub wakes: Vec<WakeRecord>,
    pub busy_ns: u64,
    /// Switch-outs of traced tasks: voluntary (asleep or dead) and involuntary (still
    /// runnable, `R` or `R+`), as `/proc/PID/status` counts them.
    pub switches: (u64, u64),
}

struct Conv<'a> {
    names: &'a [Box<[u8]>],
    start_ns: u64,
    pid_task: HashMap<u32, u32>,
    tasks: Vec<TraceTask>,
    comms: Vec<u32>,
    st: Vec<St>,
    progs: Vec<Vec<Op>>,
    cpu_cur: Vec<u32>,
    /// Per CPU: the time of its last switch (a task found running there without a
    /// switch-in has run since then).
    cpu_switch_ns: Vec<u64>,
    wakes: Vec<WakeRecord>,
    busy_ns: u64,
    /// Switch-outs of traced tasks: (asleep or dead, still runnable).
    switches: (u64, u64),
    sum: &'a mut ImportSummary,
}

const NONE: u32 = u32::MAX;

/// Kernel threads by name. Per-CPU ones (`name/N`, `kworker/N:M...`) are pinned to CPU
/// N: `kthread_create_on_cpu()` threads (ksoftirqd, migration, cpuhp, rcuc, idle_inject,
/// watchdog, PREEMPT_RT's ktimers/ktimersoftd/irq_work, posixcputmr) and the per-CPU
/// workqueue pools' workers (`kworker/%d:%d%s`, `kernel/workqueue.c`
/// `create_worker()`). Unbound ones: the unbound pools' and rescuers' workers
/// (`kworker/u...`, `kworker/R-...`), and the kernel threads common on a server or
/// desktop (journalling, reclaim, RCU grace periods and callback offload, hugepages,
/// compaction, threaded IRQs, DRM's per-CRTC vblank workers `cardN-crtcM`, audit,
/// hung-task and OOM reaper, printk's console threads, filesystem daemons). A name not
/// listed is a user task; a task forked by kthreadd (pid 2) is a kernel thread too.
pub fn kthread_of(comm: &[u8]) -> (bool, Option<u32>) {
    const PERCPU: [&[u8]; 11] = [
        b"ksoftirqd/",
        b"migration/",
        b"cpuhp/",
        b"rcuc/",
        b"idle_inject/",
        b"watchdog/",
        b"ktimersoftd/",
        b"ktimers/",
        b"irq_work/",
        b"posixcputmr/",
        b"kworker/",
    ];
    const UNBOUND: [&[u8]; 26] = [
        b"kworker/",
        b"jbd2/",
        b"kswapd",
        b"rcu_",
        b"rcuop/",
        b"rcuog/",
        b"rcuos/",
        b"rcub/",
        b"kthreadd",
        b"khugepaged",
        b"kcompactd",
        b"irq/",
        b"ksmd",
        b"kauditd",
        b"khungtaskd",
        b"oom_reaper",
        b"kdevtmpfs",
        b"watchdogd",
        b"xfsaild/",
        b"btrfs-",
        b"scsi_eh_",
        b"napi/",
        b"kcryptd",
        b"pr/",
        b"psimon",
        b"kintegrityd",
    ];
    for p in PERCPU {
        if let Some(rest) = comm.strip_prefix(p) {
            let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            let tail_ok = if p == b"kworker/" { rest.get(n) == Some(&b':') } else { n == rest.len() };
            if n > 0 && tail_ok {
                if let Some(cpu) = super::parse::num_u32(&rest[..n]) {
                    return (true, Some(cpu));
                }
            }
        }
    }
    let drm_crtc = comm.starts_with(b"card") && comm.windows(5).any(|w| w == b"-crtc");
    (drm_crtc || UNBOUND.iter().any(|p| comm.starts_with(p)), None)
}

fn push_run(prog: &mut Vec<Op>, ns: u64) {
    if ns == 0 {
        return;
    }
    match prog.last_mut() {
        Some(Op::Run(r)) => *r += ns,
        _ => prog.push(Op::Run(ns)),
    }
}

impl Conv<'_> {
    /// The task of `t`, numbered on first sight; `None` for pid 0 (idle).
    fn task(&mut self, t: TaskRef, ev: &Ev) -> Result<Option<u32>, TraceError> {
        self.task_named(t, ev, true)
    }

    /// The line's current task: its comm (perf's thread table, `kworker/u8:3+lo`) names
    /// a task only until an event's own `comm=` (the kernel's) does.
    fn current(&mut self, t: TaskRef, ev: &Ev) -> Result<Option<u32>, TraceError> {
        self.task_named(t, ev, false)
    }

    fn task_named(&mut self, t: TaskRef, ev: &Ev, rename: bool) -> Result<Option<u32>, TraceError> {
        if t.pid == 0 || t.pid == NO_PID {
            return Ok(None);
        }
        if let Some(&k) = self.pid_task.get(&t.pid) {
            if self.st[k as usize].phase != Phase::Dead {
                if rename && t.comm != NONE {
                    self.comms[k as usize] = t.comm;
                }
                if !self.st[k as usize].prio_known && t.prio != super::NO_PRIO {
                    self.st[k as usize].prio_known = true;
                    self.tasks[k as usize].prio = t.prio as i32;
                }
                return Ok(Some(k));
            }
            self.sum.pid_reuses += 1;
        }
        if self.tasks.len() >= TRACE_TASKS_MAX {
            return Err(TraceError::at(
                ev.line,
                format!(
                    "more than {TRACE_TASKS_MAX} tasks (TRACE_TASKS_MAX, the replay's bound per copy): cut the \
                     trace shorter or to fewer processes"
                ),
            ));
        }
        let k = self.tasks.len() as u32;
        let comm: &[u8] = self.names.get(t.comm as usize).map_or(&[], |b| b);
        let (kthread, percpu) = kthread_of(comm);
        let prio_known = t.prio != super::NO_PRIO;
        self.tasks.push(TraceTask {
            name: String::new(),
            pid: t.pid,
            kthread,
            percpu,
            prio: if prio_known { t.prio as i32 } else { 120 },
            first_cpu: None,
        });
        self.comms.push(t.comm);
        self.st.push(St {
            phase: Phase::Fresh,
            last_cpu: None,
            first_cpu: None,
            exiting: false,
            prio_known,
            pending: None,
            sync: VecDeque::new(),
            cpu_ns: 0,
            early: None,
            awaits: None,
            owes: Vec::new(),
        });
        self.progs.push(Vec::new());
        self.pid_task.insert(t.pid, k);
        Ok(Some(k))
    }

    /// Ends task `k`'s current run at `t`.
    fn flush(&mut self, k: u32, t: u64) {
        let i = k as usize;
        if let Phase::Running { cpu, since } = self.st[i].phase {
            let ns = t.saturating_sub(since);
            push_run(&mut self.progs[i], ns);
            self.busy_ns += ns;
            self.st[i].cpu_ns += ns;
            self.st[i].phase = Phase::Running { cpu, since: t };
        }
    }

    /// A task seen on a CPU without a switch-in: running since the trace began (or
    /// since the CPU's last switch, when the trace shows one).
    fn ensure_running(&mut self, k: u32, cpu: u32) {
        let since = self.cpu_switch_ns.get(cpu as usize).copied().unwrap_or(self.start_ns);
        let s = &mut self.st[k as usize];
        if s.phase == Phase::Fresh {
            s.phase = Phase::Running { cpu, since };
            s.first_cpu.get_or_insert(cpu);
            s.last_cpu = Some(cpu);
            self.sum.running_at_start += 1;
            if let Some(c) = self.cpu_cur.get_mut(cpu as usize) {
                *c = k;
            }
        }
    }

    /// Task `k` is on `cpu` now: the CPU a wakeup of it moves it from, when no switch-in
    /// said so (a trace can lack one: a forked task's first, on an idle CPU).
    fn seen_on(&mut self, k: u32, cpu: u32) {
        self.st[k as usize].last_cpu = Some(cpu);
    }

    fn event(&mut self, ev: &Ev, use_waking: bool) -> Result<(), TraceError> {
        let cur = self.current(ev.cur, ev)?;
        let cpu = ev.cpu as u32;
        if let Some(k) = cur {
            self.ensure_running(k, cpu);
            self.seen_on(k, cpu);
            // Current on a line while waiting for its preempting wakee: it ran again.
            self.drop_await(k);
        }
        match ev.kind {
            Kind::Switch { prev, left, next } => {
                let p = self.task(prev, ev)?;
                let n = self.task(next, ev)?;
                self.switch(ev, p, left, n)
            }
            Kind::Wake { which, task } => {
                let used = match which {
                    WakeEv::Waking | WakeEv::WakeupNew => true,
                    WakeEv::Wakeup => !use_waking,
                };
                let w = self.task(task, ev)?;
                if let (true, Some(w)) = (used, w) {
                    self.wake(ev, cur, w);
                }
            }
            Kind::Fork { parent, child } => {
                let par = self.task(parent, ev)?;
                if let Some(c) = self.task(child, ev)? {
                    let s = &mut self.st[c as usize];
                    if s.phase == Phase::Fresh {
                        s.phase = Phase::Sleeping { since: ev.time_ns };
                    }
                    if par.is_some() && parent.pid == 2 {
                        self.tasks[c as usize].kthread = true;
                    }
                }
            }
            Kind::Exit { task } => {
                if let Some(k) = self.task(task, ev)? {
                    self.st[k as usize].exiting = true;
                }
            }
            Kind::Migrate { task, orig_cpu } => {
                // Where it was, if nothing else said: a wakeup's migration (traced after
                // its waking) moves it from there.
                if let (Some(k), Some(orig)) = (self.task(task, ev)?, orig_cpu) {
                    let s = &mut self.st[k as usize];
                    s.last_cpu.get_or_insert(orig);
                    if let Some(p) = s.pending.as_mut() {
                        p.last_cpu.get_or_insert(orig);
                    }
                }
            }
            Kind::Runtime { task } => {
                if let Some(k) = self.task(task, ev)? {
                    self.seen_on(k, cpu);
                }
            }
        }
        Ok(())
    }

    fn switch(&mut self, ev: &Ev, p: Option<u32>, left: Left, n: Option<u32>) {
        let (t, cpu) = (ev.time_ns, ev.cpu as u32);
        // The CPU's current task by our account should be `prev`; if lost events hid a
        // switch, the task we had there stops at this moment (runnable).
        let had = self.cpu_cur.get(cpu as usize).copied().unwrap_or(NONE);
        if had != NONE && Some(had) != p {
            if let Phase::Running { cpu: c, .. } = self.st[had as usize].phase {
                if c == cpu {
                    self.flush(had, t);
                    self.st[had as usize].phase = Phase::Runnable;
                    self.sum.inconsistent_switches += 1;
                }
            }
        }
        if let Some(k) = p {
            let i = k as usize;
            match self.st[i].phase {
                Phase::Fresh => self.ensure_running(k, cpu),
                Phase::Running { .. } => {}
                _ => self.sum.inconsistent_switches += 1,
            }
            self.seen_on(k, cpu);
            self.flush(k, t);
            if left == Left::Runnable {
                self.switches.1 += 1;
            } else {
                self.switches.0 += 1;
            }
            self.pay_owed(k, left == Left::Sleeping);
            // `sched_process_exit` comes before the last switch-out (`do_exit()` then
            // `do_task_dead()`), and an exiting task can be preempted in between: it
            // exits at its switch-out as dead (`X`, `Z`).
            let dead = left == Left::Dead;
            let sleeping = left == Left::Sleeping;
            let mut woken = false;
            if let Some(e) = self.st[i].early.take() {
                if sleeping && t.saturating_sub(e.time_ns) <= EARLY_WAKE_NS {
                    self.wake_early(k, e, t);
                    woken = true;
                } else {
                    self.sum.wakeups_not_sleeping += 1;
                }
            }
            if sleeping || dead {
                let (cands, cpu_ns) = (std::mem::take(&mut self.st[i].sync), self.st[i].cpu_ns);
                for (op, at) in cands {
                    if cpu_ns.saturating_sub(at) <= SYNC_WINDOW_NS {
                        if let Some(Op::Wake { sync, .. }) = self.progs[i].get_mut(op) {
                            *sync = true;
                            self.sum.sync_wakes += 1;
                        }
                    }
                }
            }
            self.st[i].phase = if dead {
                self.progs[i].push(Op::Exit);
                Phase::Dead
            } else if woken {
                Phase::Woken
            } else if sleeping {
                Phase::Sleeping { since: t }
            } else {
                if let Some(n) = n {
                    self.preempted_by_wakee(k, n);
                }
                Phase::Runnable
            };
        }
        if let Some(ts) = self.cpu_switch_ns.get_mut(cpu as usize) {
            *ts = t;
        }
        if let Some(c) = self.cpu_cur.get_mut(cpu as usize) {
            *c = n.unwrap_or(NONE);
        }
        let Some(k) = n else { return };
        let i = k as usize;
        // Back on a CPU before the task that preempted it switched out (a balancer
        // moved it): nothing of that task's run was waited for.
        self.drop_await(k);
        match self.st[i].phase {
            Phase::Woken => {
                if let Some(w) = self.st[i].pending.take() {
                    self.wakes.push(WakeRecord {
                        time_ns: w.time_ns,
                        wakee: k,
                        waker: w.waker,
                        kind: w.kind,
                        waker_cpu: w.waker_cpu,
                        last_cpu: w.last_cpu,
                        ran_cpu: cpu,
                        run_delay_ns: t.saturating_sub(w.time_ns),
                    });
                }
            }
            Phase::Sleeping { since } => {
                // Switched in with no wakeup seen (lost events): an interrupt wakes it.
                self.progs[i].push(Op::Irq { after_ns: t.saturating_sub(since), cpu });
                self.sum.switch_ins_unwoken += 1;
            }
            Phase::Running { .. } => self.sum.inconsistent_switches += 1,
            Phase::Fresh | Phase::Runnable | Phase::Dead => {}
        }
        let s = &mut self.st[i];
        s.phase = Phase::Running { cpu, since: t };
        s.first_cpu.get_or_insert(cpu);
        s.last_cpu = Some(cpu);
    }

    /// `p` switches out runnable, preempted by `n`, the task it had just woken (`n`'s
    /// pending wakeup is `p`'s and `p`'s program ends with that wakeup, or with it and
    /// the run after it). On a box whose model defers that preemption to the return to
    /// user mode (`none`, `voluntary`, `lazy`), this is how a pipe or socket exchange
    /// looks: `p` returns from its write and is preempted before its read, the wakee
    /// answers while `p` is runnable (no wakeup is traced), and `p`'s read finds the
    /// answer when it runs again. The trace shows no dependency, so a replay would let
    /// `p` run on without the answer under another placement or model. The dependency
    /// becomes a message: `p` waits (`Block`) at this point for a `Wake` that `n` gives
    /// at its next switch-out (a real wakeup if `p` sleeps by then, as it would if it
    /// had not been preempted; none if it is still runnable, as traced). The run
    /// between the wakeup and the switch-out, the rest of `p`'s system call, becomes
    /// `Sys`: no return to user mode comes before it.
    fn preempted_by_wakee(&mut self, p: u32, n: u32) {
        let (pi, ni) = (p as usize, n as usize);
        let woke_it = self.st[ni].phase == Phase::Woken
            && self.st[ni].pending.is_some_and(|w| w.waker == Some(p))
            && self.st[pi].awaits.is_none();
        if !woke_it {
            return;
        }
        let prog = &mut self.progs[pi];
        let len = prog.len();
        match prog[..] {
            [.., Op::Wake { task, .. }] if task == n => {}
            [.., Op::Wake { task, .. }, Op::Run(ns)] if task == n => prog[len - 1] = Op::Sys(ns),
            _ => return,
        }
        prog.push(Op::Block);
        self.st[pi].awaits = Some((n, prog.len() - 1));
        self.st[ni].owes.push(p);
        self.sum.causal_wakes += 1;
    }

    /// `k` runs again (switched in, or current on a line) before the task it waits
    /// for switched out: the wait is dropped, its `Block` taken out of the program
    /// wherever it stands now, the sync candidates after it renumbered.
    fn drop_await(&mut self, k: u32) {
        let ki = k as usize;
        let Some((n, at)) = self.st[ki].awaits.take() else { return };
        if self.progs[ki].get(at) == Some(&Op::Block) {
            self.progs[ki].remove(at);
            for (op, _) in &mut self.st[ki].sync {
                if *op > at {
                    *op -= 1;
                }
            }
        }
        self.st[n as usize].owes.retain(|&q| q != k);
        self.sum.causal_wakes_dropped += 1;
    }

    /// `n` switches out: it wakes the tasks it preempted as their wakee (see
    /// [`Conv::preempted_by_wakee`]) that still wait for it; sync when `n` sleeps.
    fn pay_owed(&mut self, n: u32, sleeping: bool) {
        let owed = std::mem::take(&mut self.st[n as usize].owes);
        for q in owed {
            if self.st[q as usize].awaits.is_some_and(|(m, _)| m == n) {
                self.st[q as usize].awaits = None;
                self.progs[n as usize].push(Op::Wake { task: q, sync: sleeping });
            }
        }
    }

    /// A waking seen just before its wakee's switch-out asleep (`EARLY_WAKE_NS`): the
    /// wakee sleeps and is woken at once; the waker's `Wake` goes where its program
    /// stands now (its run split here if it still runs, or before the step that a
    /// wakeup of its own added since).
    fn wake_early(&mut self, w: u32, e: Pending, t: u64) {
        let wi = w as usize;
        *self.sum.wakeups_by_kind.entry(kind_name(e.kind).to_string()).or_insert(0) += 1;
        self.sum.early_wakes += 1;
        match e.waker.filter(|&k| k != w) {
            Some(k) => {
                let ki = k as usize;
                let op = Op::Wake { task: w, sync: false };
                let at = match self.st[ki].phase {
                    Phase::Running { .. } => {
                        self.flush(k, t);
                        self.progs[ki].push(op);
                        self.progs[ki].len() - 1
                    }
                    Phase::Woken | Phase::Dead if !self.progs[ki].is_empty() => {
                        let at = self.progs[ki].len() - 1;
                        self.progs[ki].insert(at, op);
                        at
                    }
                    _ => {
                        self.progs[ki].push(op);
                        self.progs[ki].len() - 1
                    }
                };
                match self.st[ki].phase {
                    // Its CPU time at the waking: now's, less the wall time since (it ran).
                    Phase::Running { .. } => {
                        let cpu_ns = self.st[ki].cpu_ns.saturating_sub(t.saturating_sub(e.time_ns));
                        self.st[ki].sync.push_back((at, cpu_ns));
                    }
                    Phase::Sleeping { since } if since.saturating_sub(e.time_ns) <= SYNC_WINDOW_NS => {
                        self.progs[ki][at] = Op::Wake { task: w, sync: true };
                        self.sum.sync_wakes += 1;
                    }
                    _ => {}
                }
                self.progs[wi].push(Op::Block);
            }
            None => {
                self.progs[wi].push(Op::Irq { after_ns: 0, cpu: e.waker_cpu });
                self.sum.irq_wakes += 1;
            }
        }
        self.st[wi].pending = Some(e);
    }

    fn wake(&mut self, ev: &Ev, waker: Option<u32>, w: u32) {
        let (t, cpu) = (ev.time_ns, ev.cpu as u32);
        let wi = w as usize;
        let kind = match (ev.cur.pid, waker) {
            (0, _) => WakerKind::Idle,
            (_, Some(k)) if self.tasks[k as usize].kthread => WakerKind::KernelThread,
            _ => WakerKind::Task,
        };
        let since = match self.st[wi].phase {
            Phase::Sleeping { since } => since,
            Phase::Fresh => self.start_ns,
            Phase::Running { cpu: on, .. } if self.st[wi].early.is_none() => {
                let last_cpu = Some(on);
                self.st[wi].early = Some(Pending { time_ns: t, waker, kind, waker_cpu: cpu, last_cpu });
                return;
            }
            _ => {
                self.sum.wakeups_not_sleeping += 1;
                return;
            }
        };
        *self.sum.wakeups_by_kind.entry(kind_name(kind).to_string()).or_insert(0) += 1;
        match waker.filter(|&k| k != w) {
            Some(k) => {
                self.flush(k, t);
                let ki = k as usize;
                self.progs[ki].push(Op::Wake { task: w, sync: false });
                let at = self.progs[ki].len() - 1;
                let cpu_ns = self.st[ki].cpu_ns;
                // Only wakes still within the window can become sync (and the list stays short).
                let sync = &mut self.st[ki].sync;
                while sync.front().is_some_and(|&(_, at)| cpu_ns.saturating_sub(at) > SYNC_WINDOW_NS) {
                    sync.pop_front();
                }
                sync.push_back((at, cpu_ns));
                self.progs[wi].push(Op::Block);
            }
            None => {
                self.progs[wi].push(Op::Irq { after_ns: t.saturating_sub(since), cpu });
                self.sum.irq_wakes += 1;
            }
        }
        let last_cpu = self.st[wi].last_cpu;
        self.st[wi].phase = Phase::Woken;
        self.st[wi].pending = Some(Pending { time_ns: t, waker, kind, waker_cpu: cpu, last_cpu });
    }
}

/// The summary's name of a waker kind.
pub fn kind_name(k: WakerKind) -> &'static str {
    match k {
        WakerKind::Task => "task",
        WakerKind::KernelThread => "kernel_thread",
        WakerKind::Idle => "idle",
    }
}

/// Runs the converter over events in time order.
pub(super) fn convert(
    events: &[Ev],
    names: &[Box<[u8]>],
    cpus: u32,
    start_ns: u64,
    end_ns: u64,
    use_waking: bool,
    sum: &mut ImportSummary,
) -> Result<Converted, TraceError> {
    let mut c = Conv {
        names,
        start_ns,
        pid_task: HashMap::new(),
        tasks: Vec::new(),
        comms: Vec::new(),
        st: Vec::new(),
        progs: Vec::new(),
        cpu_cur: vec![NONE; cpus as usize],
        cpu_switch_ns: vec![start_ns; cpus as usize],
        wakes: Vec::new(),
        busy_ns: 0,
        switches: (0, 0),
        sum,
    };
    for ev in events {
        c.event(ev, use_waking)?;
    }
    for k in 0..c.tasks.len() as u32 {
        c.flush(k, end_ns);
        let s = &c.st[k as usize];
        if s.early.is_some() {
            c.sum.wakeups_not_sleeping += 1;
        }
        // The trace ends before the task it waits for switched out.
        c.drop_await(k);
        let s = &c.st[k as usize];
        if s.exiting && s.phase != Phase::Dead {
            c.progs[k as usize].push(Op::Exit);
        }
    }
    // Each task is named by its last payload comm; a per-CPU thread keeps its CPU when
    // the trace has that CPU (the pinning itself, and RT tasks', is `replay_params`').
    for (i, t) in c.tasks.iter_mut().enumerate() {
        t.name = String::from_utf8_lossy(names.get(c.comms[i] as usize).map_or(&[], |b| b)).into_owned();
        if t.percpu.is_some_and(|p| p >= cpus) {
            t.percpu = None;
        }
        t.first_cpu = c.st[i].first_cpu;
    }
    let Conv { tasks, comms, progs, wakes, busy_ns, switches, .. } = c;
    Ok(Converted { tasks, comms, programs: progs, wakes, busy_ns, switches })
}
