//! The workloads at run time: what a program asks of the simulator (`Action`), how a
//! task is created (`TaskInit`), the per-task state every program shares (`Shared`:
//! program counters, undelivered messages, the tallies), and `WorkloadState`, which
//! hands each step, interrupt and metric to the workload's own module and runs the
//! per-CPU housekeeping kworkers itself.

use super::{dbench, hackbench, memcache, pipe, replay, rtapp, schbench, tbench, Housekeeping, Workload};
use crate::facts::metrics::Histogram;
use crate::facts::rng::Pcg64;

/// What a task asks the simulator to do next. `repr(u8)`: an explicit tag (see
/// [`Program`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Action {
    /// Run in user mode for this long at full speed with a warm cache.
    Run(u64),
    /// Run this long in the kernel, the rest of the system call whose wakeup came
    /// before (a replayed waker's time between its wakeup and its switch-out): no
    /// return to user mode before it, so no preemption point for `none`, `voluntary`
    /// and `lazy`.
    Sys(u64),
    /// Wake another task, handing it `bytes` of data written by this one.
    Wake { task: u32, sync: bool, bytes: u64 },
    /// Sleep until woken.
    Block,
    /// Sleep until a timer fires after this long.
    Sleep(u64),
    /// Submit I/O and sleep; after `ns` the device interrupts `irq_cpu` with `token`,
    /// and the request completes where `rq_affinity` says (see `Workload::Dbench`).
    Io { ns: u64, irq_cpu: u32, token: IrqToken, rq_affinity: u8 },
    /// Finish.
    Exit,
}

/// What an interrupt is about, as the workload that raised it knows it (a dbench
/// request names the task that submitted it; a memcache arrival names none). The
/// simulator only carries it from the raise to the handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IrqToken(pub u32);

/// An interrupt the workload raises by itself: at `at_ns`, on `cpu`.
pub(crate) struct RaisedIrq {
    pub at_ns: u64,
    pub cpu: u32,
    pub token: IrqToken,
}

/// How a task is created.
#[derive(Clone, Debug)]
pub(crate) struct TaskInit {
    pub name: String,
    pub pinned: Option<u32>,
    pub percpu_kthread: bool,
    /// A kernel thread (per-CPU or not): what the wake log calls a kernel-thread waker.
    pub kthread: bool,
    pub ws_bytes: u64,
    /// Share of its work spent in the kernel, percent (kernel threads: 100).
    pub sys_pct: u8,
}

impl TaskInit {
    /// A benchmark task free to run anywhere.
    pub(super) fn app(name: String, ws_bytes: u64, sys_pct: u8) -> TaskInit {
        TaskInit { name, pinned: None, percpu_kthread: false, kthread: false, ws_bytes, sys_pct }
    }

    /// A per-CPU kernel thread pinned to `cpu`.
    pub(super) fn kthread(name: String, cpu: u32, ws_bytes: u64) -> TaskInit {
        TaskInit { name, pinned: Some(cpu), percpu_kthread: true, kthread: true, ws_bytes, sys_pct: 100 }
    }

    /// A kernel thread free to run anywhere (`jbd2`, a worker of an unbound workqueue).
    pub(super) fn unbound_kthread(name: String, ws_bytes: u64) -> TaskInit {
        TaskInit { name, pinned: None, percpu_kthread: false, kthread: true, ws_bytes, sys_pct: 100 }
    }
}

/// What an interrupt handler did: the tasks it wakes.
#[derive(Debug, Default)]
pub(crate) struct IrqOut {
    pub wakes: Vec<u32>,
}

/// The state every workload program shares: per task a program counter and a count
/// of undelivered messages, and the tallies a metric reads.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(super) pc: Vec<u32>,
    pub(super) inbox: Vec<u32>,
    /// Bytes done (throughput workloads) and operations done, after `measure_from`.
    pub bytes: u64,
    pub ops: u64,
    /// Tasks that exited (hackbench, pipe); the time when the last one needed did.
    pub(super) exited: u32,
    pub finished_at: Option<u64>,
    /// The benchmark's own tasks; housekeeping kworkers come after them.
    pub(super) nr_tasks: u32,
    /// Work done before this time (the warm-up) is not counted.
    pub measure_from: u64,
}

impl Shared {
    /// Delivers a message to `task`.
    pub(super) fn post(&mut self, task: u32) {
        self.inbox[task as usize] += 1;
    }

    /// Takes one message of `task`'s; false if there is none.
    pub(super) fn take(&mut self, task: u32) -> bool {
        let b = &mut self.inbox[task as usize];
        if *b > 0 {
            *b -= 1;
            true
        } else {
            false
        }
    }

    /// Whether work done at `now` counts.
    pub(super) fn measuring(&self, now: u64) -> bool {
        now >= self.measure_from
    }

    /// A task exits; the workload is finished when `needed` have.
    pub(super) fn exit_one(&mut self, now: u64, needed: u32) -> Action {
        self.exited += 1;
        if self.exited == needed {
            self.finished_at = Some(now);
        }
        Action::Exit
    }

    /// Bytes done per second of the window, in MB (10^6), as dbench prints it.
    pub(super) fn throughput(&self, m: &Measured) -> Sample {
        let secs = m.window_ns as f64 / 1e9;
        Sample { value: self.bytes as f64 / 1e6 / secs, finished: true }
    }
}

/// What the simulator measured that a workload's metric may read.
pub(crate) struct Measured<'a> {
    /// Simulated time at the end of the run, ns.
    pub end_ns: u64,
    /// Length of the measured window (after the warm-up), ns, at least 1.
    pub window_ns: u64,
    /// Wakeup latencies of the window.
    pub wake_latency: &'a Histogram,
}

/// One run's headline number in the workload's unit, and whether the workload got to
/// the end of its work (a fixed-work benchmark that ran out of time did not).
pub(crate) struct Sample {
    pub value: f64,
    pub finished: bool,
}

/// Each workload's own run-time state. `repr(u8)`: an explicit tag, so that the
/// dispatch at every step of a task is one load and a jump; without it the tag hid in
/// a niche of one variant's fields, which took a few instructions to decode.
#[derive(Clone)]
#[repr(u8)]
enum Program {
    Tbench(tbench::Tbench),
    Dbench(dbench::Dbench),
    Hackbench(hackbench::Hackbench),
    Pipe(pipe::Pipe),
    Schbench(schbench::Schbench),
    Memcache(memcache::Memcache),
    Replay(replay::Replay),
    Rtapp(rtapp::RtappRun),
}

/// Runtime state of a workload.
#[derive(Clone)]
pub(crate) struct WorkloadState {
    program: Program,
    pub shared: Shared,
    hk: Housekeeping,
}

impl WorkloadState {
    /// Builds the tasks for `clients`.
    pub(crate) fn new(
        spec: &Workload,
        clients: u32,
        nr_cpus: u32,
        hk: &Housekeeping,
    ) -> (WorkloadState, Vec<TaskInit>) {
        let mut tasks = Vec::new();
        let program = match spec {
            Workload::Tbench(p) => Program::Tbench(tbench::Tbench::new(p, clients, &mut tasks)),
            Workload::Dbench(p) => Program::Dbench(dbench::Dbench::new(p.clone(), clients, nr_cpus, &mut tasks)),
            Workload::Hackbench(p) => Program::Hackbench(hackbench::Hackbench::new(p, clients, &mut tasks)),
            Workload::Pipe(p) => Program::Pipe(pipe::Pipe::new(p, clients, &mut tasks)),
            Workload::Schbench(p) => Program::Schbench(schbench::Schbench::new(p, clients, &mut tasks)),
            Workload::Memcache(p) => Program::Memcache(memcache::Memcache::new(p, clients, nr_cpus, &mut tasks)),
            Workload::Replay(p) => Program::Replay(replay::Replay::new(p, clients, nr_cpus, &mut tasks)),
            Workload::Rtapp(p) => Program::Rtapp(rtapp::RtappRun::new(p, clients, &mut tasks)),
        };
        let app_tasks = tasks.len() as u32;
        // A trace holds the machine's own kworkers: a replay adds none.
        let hk = if matches!(program, Program::Replay(_)) {
            Housekeeping { enabled: false, ..hk.clone() }
        } else {
            hk.clone()
        };
        if hk.enabled {
            for c in 0..nr_cpus {
                tasks.push(TaskInit::kthread(format!("kworker/{c}:hk"), c, 16 << 10));
            }
        }
        let n = tasks.len();
        let shared = Shared {
            pc: vec![0; n],
            inbox: vec![0; n],
            bytes: 0,
            ops: 0,
            exited: 0,
            finished_at: None,
            nr_tasks: app_tasks,
            measure_from: 0,
        };
        (WorkloadState { program, shared, hk }, tasks)
    }

    /// The order in which the tasks are forked at the start (task ids): the
    /// workload's order for its own tasks, then the housekeeping kworkers.
    pub(crate) fn fork_order(&self, nr_tasks: u32) -> Vec<u32> {
        let app = self.shared.nr_tasks;
        match &self.program {
            Program::Tbench(_) => tbench::fork_order(app).chain(app..nr_tasks).collect(),
            _ => (0..nr_tasks).collect(),
        }
    }

    /// The benchmark's own tasks (housekeeping kworkers excluded).
    pub(crate) fn app_tasks(&self) -> u32 {
        self.shared.nr_tasks
    }

    /// Interrupts the workload generates by itself at the start.
    pub(crate) fn initial_irqs(&mut self, rng: &mut Pcg64) -> Vec<RaisedIrq> {
        match &self.program {
            Program::Memcache(m) => vec![m.first_arrival(rng)],
            Program::Replay(r) => r.initial_irqs(&mut self.shared.pc),
            _ => Vec::new(),
        }
    }

    /// The CPU a task starts asleep on instead of being forked (a replayed task the
    /// trace shows asleep at its start); `None`: forked at time 0.
    pub(crate) fn asleep_at_start(&self, task: u32) -> Option<u32> {
        match &self.program {
            Program::Replay(r) => r.asleep_at_start(task),
            _ => None,
        }
    }

    /// The next action of `task`, running on `cpu`, at `now`.
    pub(crate) fn step(&mut self, task: u32, cpu: u32, now: u64, rng: &mut Pcg64) -> Action {
        let s = &mut self.shared;
        if task >= s.nr_tasks {
            // Housekeeping kworker: sleep on a timer, then run a work item.
            let i = task as usize;
            let pc = s.pc[i];
            s.pc[i] ^= 1;
            return if pc == 0 {
                Action::Sleep(rng.jitter(self.hk.period_ns, 50))
            } else {
                Action::Run(rng.jitter(self.hk.run_ns, 50))
            };
        }
        match &mut self.program {
            Program::Tbench(w) => w.step(s, task, now, rng),
            Program::Dbench(w) => w.step(s, task, cpu, now, rng),
            Program::Hackbench(w) => w.step(s, task, now, rng),
            Program::Pipe(w) => w.step(s, task, now, rng),
            Program::Schbench(w) => w.step(s, task, now),
            Program::Memcache(w) => w.step(s, task, now, rng),
            Program::Replay(w) => w.step(s, task, now),
            Program::Rtapp(w) => w.step(s, task, now),
        }
    }

    /// An interrupt is raised (before any idle-exit delay): open-loop arrivals schedule
    /// the next one from here, so the rate does not depend on how fast the CPU wakes.
    /// An error ends the run (memcache's request backlog past its bound).
    pub(crate) fn on_raise(&mut self, token: IrqToken, now: u64, rng: &mut Pcg64) -> Result<Option<RaisedIrq>, String> {
        match &mut self.program {
            Program::Memcache(m) => m.on_raise(token, now, rng),
            _ => Ok(None),
        }
    }

    /// An interrupt with `token` on `cpu` is handled.
    pub(crate) fn irq(&mut self, token: IrqToken, cpu: u32, now: u64) -> IrqOut {
        let mut out = IrqOut::default();
        match &mut self.program {
            Program::Memcache(m) => m.irq(now, &mut out),
            Program::Dbench(d) => d.irq(&mut self.shared, token, cpu, &mut out),
            Program::Replay(r) => r.irq(token, &mut out),
            _ => {}
        }
        out
    }

    /// Whether the workload has finished by itself (hackbench, pipe loops).
    pub(crate) fn done(&self) -> bool {
        self.shared.finished_at.is_some()
    }

    /// Request latencies (memcache; empty for the others).
    pub(crate) fn request_latency(&self) -> Histogram {
        match &self.program {
            Program::Memcache(m) => m.req_latency.clone(),
            _ => Histogram::default(),
        }
    }

    /// The run's headline number, in the unit of [`Workload::metric`].
    pub(crate) fn sample(&self, m: &Measured) -> Sample {
        let s = &self.shared;
        match &self.program {
            Program::Tbench(_) => tbench::sample(s, m),
            Program::Dbench(_) => dbench::sample(s, m),
            Program::Hackbench(_) => hackbench::sample(s, m),
            Program::Pipe(_) => pipe::sample(s, m),
            Program::Schbench(_) => schbench::sample(m),
            Program::Memcache(w) => w.sample(),
            Program::Replay(w) => w.sample(m),
            Program::Rtapp(w) => w.sample(m),
        }
    }
}
