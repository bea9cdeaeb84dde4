//! Replay: a real machine's scheduler trace as a workload. Each traced task is a
//! program of the model's own actions, made from what the trace shows it did
//! (`facts::sched_trace::program` builds it): run for the CPU time it ran, wake the
//! task it woke, block until woken, sleep until an interrupt, exit. Wakeups between
//! traced tasks are closed loop (the wakee wakes when its waker reaches that point of
//! its program in the simulation, so the modelled kernel sets the timing); a wakeup
//! from interrupt context (the waking CPU ran its idle task) replays at the traced
//! delay after the sleep began, as an interrupt on the CPU the trace shows.
//!
//! `clients` is the number of independent copies replayed at once: copy `k`'s pinned
//! tasks and interrupts go to trace CPU `c` + `k` x (the trace's CPUs), modulo the
//! machine's. The metric is the replay's throughput: the traced CPU work completed per
//! simulated second, relative to the recording (1.00: as fast as the traced machine).

use super::run::{Action, IrqOut, IrqToken, Measured, RaisedIrq, Sample, Shared, TaskInit};
use super::{SEC, WS_MAX};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::sync::Arc;

/// The longest trace a replay takes: an hour.
pub const REPLAY_SPAN_NS_MAX: u64 = 3_600 * SEC;

/// Most tasks one copy of a replay may hold (the simulator's task bound is per
/// experiment; this one keeps a program's own tables small).
pub const REPLAY_TASKS_MAX: usize = 50_000;
/// Most operations in one copy's programs, all tasks together.
pub const REPLAY_OPS_MAX: usize = 20_000_000;
/// Most CPUs a traced machine may have had.
pub const REPLAY_TRACE_CPUS_MAX: u32 = 1024;

/// One step of a replayed task's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Run this long (ns of CPU time, as traced between switch-in and switch-out).
    Run(u64),
    /// Run this long in the kernel: the rest of a system call after its wakeup, up to
    /// the preemption it ended in (no return to user mode before it).
    Sys(u64),
    /// Wake task `task` of the same copy; `sync` when the waker went to sleep right
    /// after (WF_SYNC, as `pipe_write()` and `sock_def_readable()` wake).
    Wake { task: u32, sync: bool },
    /// Sleep until a task of the trace wakes this one.
    Block,
    /// Sleep until an interrupt on trace CPU `cpu`, `after_ns` after the sleep began.
    Irq { after_ns: u64, cpu: u32 },
    /// Exit.
    Exit,
}

/// A traced task: its name, whether it is a per-CPU kernel thread or a real-time task
/// (both pinned to the trace CPU they ran on), its priority as traced, and its program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayTask {
    /// `comm/pid` as traced.
    pub name: String,
    /// The trace CPU it is pinned to (per-CPU kernel threads, real-time tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<u32>,
    /// A kernel thread: its time is system time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kthread: bool,
    /// The trace CPU it was on when the trace began, as far as the trace shows (the CPU
    /// it first ran on): a task whose program starts asleep (`b`, `i..`) starts asleep
    /// there, as it was on the machine, rather than being forked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_cpu: Option<u32>,
    /// `prio` as traced (100..139: nice -20..19; below 100: real time). The model runs
    /// every task at nice 0 (`Sim` has no task weights); the import summary says so.
    #[serde(default = "d_prio")]
    pub prio: i32,
    /// The program, one word per step: `r<ns>` run, `k<ns>` run in the kernel (the rest
    /// of a system call), `w<task>` wake (`W<task>`: sync), `b` block, `i<ns>@<cpu>`
    /// interrupt wakeup, `x` exit.
    #[serde(serialize_with = "ser_ops", deserialize_with = "de_ops")]
    pub program: Vec<Op>,
}

fn d_prio() -> i32 {
    120
}

/// A replay's parameters: the traced tasks' programs, where they came from, and the
/// model's estimates for what a trace does not show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayParams {
    /// The trace file's name, as given.
    pub trace_name: String,
    /// SHA-256 of the trace file's bytes: a replay is never run against another trace
    /// without saying so.
    pub trace_sha256: String,
    /// CPUs of the traced machine (Linux CPU numbers are below it).
    pub trace_cpus: u32,
    /// Length of the traced window, ns: the recording's own pace.
    pub span_ns: u64,
    /// Linux CPU number → the machine's CPU number for copy 0 (empty: the same
    /// numbers, as on a preset, which numbers CPUs as Linux does on x86).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_map: Vec<u32>,
    /// Working set of each task, bytes (a trace does not show it). Default 128 KiB
    /// (estimate, tbench's).
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
    /// Share of a user task's CPU time that is system time, percent (a scheduler trace
    /// does not split them). Default 50 (estimate); kernel threads are 100.
    #[serde(default = "d_sys_pct")]
    pub sys_pct: u8,
    /// Shared: a sweep's runs (each with its own [`Replay`]) and the experiment's copies
    /// all read one set of programs, so a sweep's memory does not grow with its jobs.
    pub tasks: Arc<Vec<ReplayTask>>,
}

fn d_ws() -> u64 {
    128 << 10
}
fn d_sys_pct() -> u8 {
    50
}

impl ReplayParams {
    /// Checks the programs against a machine of `nr_cpus` CPUs; names the task and the
    /// step of the first problem.
    pub(super) fn validate(&self, nr_cpus: u32) -> Result<(), String> {
        let n = self.tasks.len();
        if self.is_reference() {
            return Err(format!(
                "this experiment replays trace {} (sha256 {}…): load that trace file",
                crate::facts::input::clip(&self.trace_name),
                self.trace_sha256.get(..12).unwrap_or(&self.trace_sha256)
            ));
        }
        if n == 0 {
            return Err("workload replay: tasks is empty: the trace gave no task to replay".into());
        }
        if n > REPLAY_TASKS_MAX {
            return Err(format!("workload replay: {n} tasks, at most {REPLAY_TASKS_MAX}"));
        }
        if self.trace_cpus == 0 || self.trace_cpus > REPLAY_TRACE_CPUS_MAX {
            return Err(format!(
                "workload replay: trace_cpus = {}, expected 1 to {REPLAY_TRACE_CPUS_MAX}",
                self.trace_cpus
            ));
        }
        if self.trace_cpus > nr_cpus {
            return Err(format!(
                "workload replay: the trace comes from a machine of {} CPUs, this one has {nr_cpus}: pick a machine \
                 with at least as many",
                self.trace_cpus
            ));
        }
        if self.span_ns == 0 || self.span_ns > REPLAY_SPAN_NS_MAX {
            return Err(format!("workload replay: span_ns = {}, expected 1 to 3.6e12", self.span_ns));
        }
        if !self.cpu_map.is_empty() {
            if self.cpu_map.len() != self.trace_cpus as usize {
                return Err(format!(
                    "workload replay: cpu_map has {} entries, the trace has {} CPUs",
                    self.cpu_map.len(),
                    self.trace_cpus
                ));
            }
            if let Some(c) = self.cpu_map.iter().find(|&&c| c >= nr_cpus) {
                return Err(format!("workload replay: cpu_map names CPU {c}, the machine has {nr_cpus}"));
            }
        }
        if self.ws_bytes == 0 || self.ws_bytes > WS_MAX {
            return Err(format!("workload replay: ws_bytes = {}, expected 1 to {WS_MAX}", self.ws_bytes));
        }
        if self.sys_pct > 100 {
            return Err(format!("workload replay: sys_pct = {}, expected 0 to 100", self.sys_pct));
        }
        let ops: usize = self.tasks.iter().map(|t| t.program.len()).sum();
        if ops > REPLAY_OPS_MAX {
            return Err(format!("workload replay: {ops} steps in all, at most {REPLAY_OPS_MAX}"));
        }
        let cpu_ok = |c: u32| c < self.trace_cpus;
        for (i, t) in self.tasks.iter().enumerate() {
            let at = |k: usize| format!("workload replay: task {i} ({}), step {k}", t.name);
            if let Some(c) = t.pinned.filter(|&c| !cpu_ok(c)) {
                return Err(format!(
                    "workload replay: task {i} ({}) is pinned to CPU {c}, the trace has {} CPUs",
                    t.name, self.trace_cpus
                ));
            }
            for (k, op) in t.program.iter().enumerate() {
                match *op {
                    Op::Run(ns) | Op::Sys(ns) if ns == 0 || ns > 3_600 * SEC => {
                        return Err(format!("{}: run of {ns} ns", at(k)))
                    }
                    Op::Wake { task, .. } if task as usize >= n || task as usize == i => {
                        return Err(format!("{}: wakes task {task}, not another task of the trace", at(k)))
                    }
                    Op::Irq { after_ns, cpu } if !cpu_ok(cpu) || after_ns > 3_600 * SEC => {
                        return Err(format!("{}: interrupt on CPU {cpu} after {after_ns} ns", at(k)))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The reference form: which trace (name and SHA-256) and how it is replayed, with
    /// no programs. A link too long to carry the programs carries this; it does not
    /// validate ("load that trace file") until the trace with that SHA-256 fills the
    /// programs in again.
    pub fn reference(&self) -> ReplayParams {
        ReplayParams { tasks: Arc::default(), ..self.clone() }
    }

    /// Whether these are the reference form: no programs, and the trace's SHA-256.
    pub fn is_reference(&self) -> bool {
        self.tasks.is_empty() && !self.trace_sha256.is_empty()
    }

    /// The traced CPU work of one copy, ns: every `Run` of every program.
    pub fn work_ns(&self) -> u64 {
        self.tasks
            .iter()
            .flat_map(|t| &t.program)
            .map(|op| if let Op::Run(ns) | Op::Sys(ns) = op { *ns } else { 0 })
            .sum()
    }

    /// The machine CPU that copy `copy` uses for trace CPU `c`.
    fn cpu_of(&self, c: u32, copy: u32, nr_cpus: u32) -> u32 {
        let base = if self.cpu_map.is_empty() { c } else { self.cpu_map[c as usize] };
        ((base as u64 + copy as u64 * self.trace_cpus as u64) % nr_cpus.max(1) as u64) as u32
    }
}

/// `r<ns>` `w<task>` `W<task>` `b` `i<ns>@<cpu>` `x`, separated by spaces.
fn ser_ops<S: serde::Serializer>(ops: &[Op], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&ops_text(ops))
}

/// A program as its text form.
pub fn ops_text(ops: &[Op]) -> String {
    let mut out = String::with_capacity(ops.len() * 6);
    for (k, op) in ops.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        let _ = match *op {
            Op::Run(ns) => write!(out, "r{ns}"),
            Op::Sys(ns) => write!(out, "k{ns}"),
            Op::Wake { task, sync: false } => write!(out, "w{task}"),
            Op::Wake { task, sync: true } => write!(out, "W{task}"),
            Op::Block => write!(out, "b"),
            Op::Irq { after_ns, cpu } => write!(out, "i{after_ns}@{cpu}"),
            Op::Exit => write!(out, "x"),
        };
    }
    out
}

/// Reads a program's text form; the error names the word.
pub fn parse_ops(text: &str) -> Result<Vec<Op>, String> {
    let mut ops = Vec::new();
    for (k, w) in text.split_ascii_whitespace().enumerate() {
        let bad = || {
            format!(
                "step {k}: {:?} is not r<ns>, k<ns>, w<task>, W<task>, b, i<ns>@<cpu> or x",
                crate::facts::input::clip(w)
            )
        };
        let (head, rest) = w.split_at(w.char_indices().nth(1).map_or(w.len(), |(i, _)| i));
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
        let op = match head {
            "r" => Op::Run(num(rest)?),
            "k" => Op::Sys(num(rest)?),
            "w" | "W" => Op::Wake { task: u32::try_from(num(rest)?).map_err(|_| bad())?, sync: head == "W" },
            "b" if rest.is_empty() => Op::Block,
            "x" if rest.is_empty() => Op::Exit,
            "i" => {
                let (ns, cpu) = rest.split_once('@').ok_or_else(bad)?;
                Op::Irq { after_ns: num(ns)?, cpu: u32::try_from(num(cpu)?).map_err(|_| bad())? }
            }
            _ => return Err(bad()),
        };
        ops.push(op);
    }
    Ok(ops)
}

fn de_ops<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Op>, D::Error> {
    let text = String::deserialize(d)?;
    parse_ops(&text).map_err(serde::de::Error::custom)
}

/// A replay at run time: the programs, shared by every copy and every run.
#[derive(Clone)]
pub(super) struct Replay {
    p: Arc<ReplayParams>,
    /// Tasks per copy.
    n: u32,
    nr_cpus: u32,
    /// Per task: the length of the `Run` it was last given, counted as done when it
    /// asks for its next step.
    running: Vec<u64>,
    /// Per task: asleep at the start, on this machine CPU (its program starts with a
    /// block or an interrupt wakeup).
    asleep: Vec<Option<u32>>,
    /// Traced work completed, ns, and tasks at the end of their programs.
    done_ns: u64,
    ended: u32,
    copies: u32,
}

impl Replay {
    /// Task `k * n + i` is task `i` of copy `k`.
    pub(super) fn new(p: &ReplayParams, copies: u32, nr_cpus: u32, tasks: &mut Vec<TaskInit>) -> Self {
        let n = p.tasks.len() as u32;
        let mut asleep = Vec::with_capacity((n * copies) as usize);
        for k in 0..copies {
            for t in p.tasks.iter() {
                let name = if copies > 1 { format!("{}#{k}", t.name) } else { t.name.clone() };
                let sys_pct = if t.kthread { 100 } else { p.sys_pct };
                let pinned = t.pinned.map(|c| p.cpu_of(c, k, nr_cpus));
                let sleeps_first = matches!(t.program.first(), Some(Op::Block | Op::Irq { .. }));
                let start = pinned.or(t.start_cpu.map(|c| p.cpu_of(c, k, nr_cpus))).unwrap_or(p.cpu_of(0, k, nr_cpus));
                asleep.push(sleeps_first.then_some(start));
                tasks.push(TaskInit {
                    name,
                    pinned,
                    percpu_kthread: t.kthread && pinned.is_some(),
                    kthread: t.kthread,
                    ws_bytes: p.ws_bytes,
                    sys_pct,
                });
            }
        }
        Replay {
            // The parameters but the programs, which are shared (`ReplayParams::tasks`).
            p: Arc::new(p.clone()),
            n,
            nr_cpus,
            running: vec![0; (n * copies) as usize],
            asleep,
            done_ns: 0,
            ended: 0,
            copies,
        }
    }

    /// The next action of `task`: the next step of its program.
    pub(super) fn step(&mut self, s: &mut Shared, task: u32, now: u64) -> Action {
        let i = task as usize;
        let done = std::mem::take(&mut self.running[i]);
        if s.measuring(now) {
            self.done_ns += done;
        }
        let (copy, me) = (task / self.n, (task % self.n) as usize);
        let program = &self.p.tasks[me].program;
        loop {
            let Some(&op) = program.get(s.pc[i] as usize) else {
                return self.end(s, now);
            };
            match op {
                Op::Run(ns) => {
                    s.pc[i] += 1;
                    self.running[i] = ns;
                    return Action::Run(ns);
                }
                Op::Sys(ns) => {
                    s.pc[i] += 1;
                    self.running[i] = ns;
                    return Action::Sys(ns);
                }
                Op::Wake { task: j, sync } => {
                    s.pc[i] += 1;
                    let target = copy * self.n + j;
                    s.post(target);
                    return Action::Wake { task: target, sync, bytes: 0 };
                }
                Op::Block => {
                    if !s.take(task) {
                        return Action::Block;
                    }
                    s.pc[i] += 1;
                }
                Op::Irq { after_ns, cpu } => {
                    s.pc[i] += 1;
                    let irq_cpu = self.p.cpu_of(cpu, copy, self.nr_cpus);
                    return Action::Io { ns: after_ns.max(1), irq_cpu, token: IrqToken(task), rq_affinity: 0 };
                }
                Op::Exit => return self.end(s, now),
            }
        }
    }

    /// The machine CPU a task starts asleep on, if its program starts asleep.
    pub(super) fn asleep_at_start(&self, task: u32) -> Option<u32> {
        self.asleep.get(task as usize).copied().flatten()
    }

    /// The interrupts that wake the tasks whose programs start with one, each at its
    /// traced delay from the start; those tasks' programs go on past that step.
    pub(super) fn initial_irqs(&self, pc: &mut [u32]) -> Vec<RaisedIrq> {
        let mut out = Vec::new();
        for task in 0..self.n * self.copies {
            let (copy, me) = (task / self.n, (task % self.n) as usize);
            if let Some(&Op::Irq { after_ns, cpu }) = self.p.tasks[me].program.first() {
                pc[task as usize] = 1;
                out.push(RaisedIrq {
                    at_ns: after_ns.max(1),
                    cpu: self.p.cpu_of(cpu, copy, self.nr_cpus),
                    token: IrqToken(task),
                });
            }
        }
        out
    }

    fn end(&mut self, s: &mut Shared, now: u64) -> Action {
        self.ended += 1;
        s.exit_one(now, self.n * self.copies)
    }

    /// The interrupt a sleeping task waits for: it wakes that task.
    pub(super) fn irq(&self, token: IrqToken, out: &mut IrqOut) {
        out.wakes.push(token.0);
    }

    /// Traced work completed per simulated second, over the recording's own pace.
    pub(super) fn sample(&self, m: &Measured) -> Sample {
        let traced_rate = (self.p.work_ns().max(1) as f64 * self.copies as f64) / self.p.span_ns.max(1) as f64;
        let rate = self.done_ns as f64 / m.window_ns as f64;
        Sample { value: rate / traced_rate, finished: self.ended == self.n * self.copies }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_form_names_its_trace_and_does_not_validate() {
        let json = r#"{"trace_name":"make.perf.txt.gz","trace_sha256":"14764b05dde7aabbccdd","trace_cpus":2,
            "span_ns":5,"tasks":[{"name":"a/1","program":"r10 x"}]}"#;
        let full: ReplayParams = serde_json::from_str(json).unwrap();
        assert!(!full.is_reference());
        assert_eq!(full.validate(2), Ok(()));
        let r = full.reference();
        assert!(r.is_reference() && r.tasks.is_empty());
        assert_eq!((r.trace_name.as_str(), r.trace_cpus, r.span_ns), ("make.perf.txt.gz", 2, 5));
        assert_eq!(
            r.validate(2).unwrap_err(),
            "this experiment replays trace make.perf.txt.gz (sha256 14764b05dde7…): load that trace file"
        );
        // No SHA-256: not a reference, just an empty replay.
        let empty = ReplayParams { trace_sha256: String::new(), ..r };
        assert!(!empty.is_reference());
        assert!(empty.validate(2).unwrap_err().contains("tasks is empty"), "{:?}", empty.validate(2));
    }

    #[test]
    fn runs_of_one_replay_share_its_programs() {
        let json = r#"{"trace_name":"t","trace_sha256":"","trace_cpus":2,"span_ns":5,
            "tasks":[{"name":"a/1","program":"r10 w1 b r10 x"},{"name":"b/2","program":"b r5 x"}]}"#;
        let p: ReplayParams = serde_json::from_str(json).unwrap();
        let runs: Vec<Replay> = (0..3).map(|_| Replay::new(&p, 2, 4, &mut Vec::new())).collect();
        for r in &runs {
            assert!(std::ptr::eq(r.p.tasks.as_ptr(), p.tasks.as_ptr()), "a run copied the programs");
        }
    }

    #[test]
    fn program_text_round_trips_and_errors_name_the_step() {
        let ops = vec![
            Op::Run(1500),
            Op::Wake { task: 3, sync: true },
            Op::Wake { task: 0, sync: false },
            Op::Block,
            Op::Irq { after_ns: 80_000, cpu: 1 },
            Op::Exit,
        ];
        let text = ops_text(&ops);
        assert_eq!(text, "r1500 W3 w0 b i80000@1 x");
        assert_eq!(parse_ops(&text).unwrap(), ops);
        assert_eq!(parse_ops("  ").unwrap(), vec![]);
        for (bad, step) in [("r12 q", 1), ("r", 0), ("b3", 0), ("i5", 0), ("w-1", 0), ("r1 r99999999999999999999", 1)] {
            let e = parse_ops(bad).unwrap_err();
            assert!(e.starts_with(&format!("step {step}:")), "{bad}: {e}");
        }
    }
}
