//! Benchmark models. Each is a set of tasks running small programs of CPU work,
//! wakeups and blocking, with the real tool's parameters and defaults where the tool has
//! them, and model parameters (CPU work per operation, working-set size) where it does
//! not; those defaults are estimates, named as such, and are the same for every kernel.

use crate::rng::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which benchmark, with its parameters. `clients` comes from the experiment's sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Workload {
    /// tbench: `clients` client/server pairs over loopback TCP, strictly alternating
    /// request and reply with sync wakeups (sock_def_readable).
    Tbench {
        /// Request + reply payload per round trip. Default 4096 (model estimate for an
        /// average NBENCH op).
        #[serde(default = "d_tbench_msg")]
        msg_bytes: u64,
        /// CPU work per half round trip incl. the TCP stack. Default 6 µs (estimate).
        #[serde(default = "d_tbench_work")]
        work_ns: u64,
        /// Working set per process. Default 128 KiB (estimate).
        #[serde(default = "d_ws_128k")]
        ws_bytes: u64,
    },
    /// dbench: `clients` processes replaying filesystem ops; fsync goes through the
    /// jbd2 journal thread, and completions arrive as interrupts on `irq_cpu` and wake
    /// waiters directly or through that CPU's kworker.
    Dbench {
        /// CPU time of one filesystem op. Default 5 µs (estimate).
        #[serde(default = "d_dbench_work")]
        work_ns: u64,
        /// Bytes accounted per op. Default 4096.
        #[serde(default = "d_dbench_bytes")]
        op_bytes: u64,
        /// One op in this many is an fsync waiting on a journal commit. Default 40.
        #[serde(default = "d_dbench_fsync")]
        fsync_every: u64,
        /// One op in this many misses the page cache and waits for a read. Default 20.
        #[serde(default = "d_dbench_read")]
        read_miss_every: u64,
        /// Device latency of a read or a journal write+flush. Default 100 µs (SSD).
        #[serde(default = "d_dbench_io")]
        io_ns: u64,
        /// CPU that takes the storage interrupt. Default 0 (one IRQ line, as a SATA or
        /// SAS controller has).
        #[serde(default)]
        irq_cpu: u32,
        #[serde(default = "d_ws_256k")]
        ws_bytes: u64,
    },
    /// hackbench: `clients` groups of `fds` senders and `fds` receivers; each sender
    /// writes `loops` messages of `datasize` bytes to every receiver of its group.
    /// The result is the time until all messages are read.
    Hackbench {
        /// `-f`, default 20.
        #[serde(default = "d_hb_fds")]
        fds: u32,
        /// `-l`, default 100 (perf bench sched messaging's default).
        #[serde(default = "d_hb_loops")]
        loops: u32,
        /// `-s`, default 100 bytes.
        #[serde(default = "d_hb_datasize")]
        datasize: u64,
        /// `-p`: pipes instead of AF_UNIX sockets. Default false.
        #[serde(default)]
        pipe: bool,
        /// CPU cost of one write or one read syscall. Default 1.5 µs (estimate).
        #[serde(default = "d_hb_work")]
        work_ns: u64,
        #[serde(default = "d_ws_64k")]
        ws_bytes: u64,
    },
    /// perf bench sched pipe: `clients` independent pairs ping-ponging over two pipes.
    /// Result in µs per round trip, per pair, as perf prints usecs/op.
    Pipe {
        /// `-l`, default 1,000,000; the run stops at the experiment duration first.
        #[serde(default = "d_pipe_loops")]
        loops: u64,
        /// CPU cost of one write + read pair. Default 1 µs (estimate).
        #[serde(default = "d_pipe_work")]
        work_ns: u64,
        #[serde(default = "d_ws_16k")]
        ws_bytes: u64,
    },
    /// schbench: `clients` message threads each wake `workers` workers (futex, not
    /// sync) every `sleep_ns`; each worker burns `cpu_ns`. The result is the p99
    /// wakeup latency.
    Schbench {
        /// `-t`, default 16.
        #[serde(default = "d_sch_workers")]
        workers: u32,
        /// `-s` sleeptime, default 10,000 µs.
        #[serde(default = "d_sch_sleep")]
        sleep_ns: u64,
        /// `-c` cputime, default 10,000 µs.
        #[serde(default = "d_sch_cpu")]
        cpu_ns: u64,
        #[serde(default = "d_ws_256k")]
        ws_bytes: u64,
    },
    /// A memcache-like service: requests arrive as NIC interrupts spread over all CPUs
    /// (RSS) at `rps_per_worker` x `clients` per second (Poisson); softirq wakes the most
    /// recently idle of `clients` workers (epoll exclusive wakeups are LIFO). The result
    /// is the p99 response time.
    Memcache {
        #[serde(default = "d_mc_rps")]
        rps_per_worker: u64,
        /// CPU time per request. Default 20 µs (Rik van Riel's test: tens of µs).
        #[serde(default = "d_mc_service")]
        service_ns: u64,
        #[serde(default = "d_ws_128k")]
        ws_bytes: u64,
        /// Other threads sharing the host (agents, logging, batch): each runs
        /// `background_run_ns`, then sleeps `background_sleep_ns` (timer). Default 0.
        #[serde(default)]
        background_threads: u32,
        #[serde(default = "d_bg_run")]
        background_run_ns: u64,
        #[serde(default = "d_bg_sleep")]
        background_sleep_ns: u64,
        /// Confine the background threads to the last N CPUs (a cpuset, as a
        /// co-located batch job has), round-robin; 0 leaves them free. Default 0.
        #[serde(default)]
        background_cpus: u32,
    },
}

fn d_tbench_msg() -> u64 { 4096 }
fn d_tbench_work() -> u64 { 6_000 }
fn d_ws_16k() -> u64 { 16 << 10 }
fn d_ws_64k() -> u64 { 64 << 10 }
fn d_ws_128k() -> u64 { 128 << 10 }
fn d_ws_256k() -> u64 { 256 << 10 }
fn d_dbench_work() -> u64 { 5_000 }
fn d_dbench_bytes() -> u64 { 4096 }
fn d_dbench_fsync() -> u64 { 40 }
fn d_dbench_read() -> u64 { 20 }
fn d_dbench_io() -> u64 { 100_000 }
fn d_hb_fds() -> u32 { 20 }
fn d_hb_loops() -> u32 { 100 }
fn d_hb_datasize() -> u64 { 100 }
fn d_hb_work() -> u64 { 1_500 }
fn d_pipe_loops() -> u64 { 1_000_000 }
fn d_pipe_work() -> u64 { 1_000 }
fn d_sch_workers() -> u32 { 16 }
fn d_sch_sleep() -> u64 { 10_000_000 }
fn d_sch_cpu() -> u64 { 10_000_000 }
fn d_mc_rps() -> u64 { 10_000 }
fn d_mc_service() -> u64 { 20_000 }
fn d_bg_run() -> u64 { 200_000 }
fn d_bg_sleep() -> u64 { 2_000_000 }

/// Per-CPU kernel housekeeping that every Linux machine runs besides the benchmark:
/// a pinned kworker per CPU woken by a timer every `period_ns` (jittered ±50%) that
/// runs `run_ns` (vmstat, RCU callbacks, writeback, timers). It is what makes a
/// wakee's previous CPU busy now and then, and runqueues briefly overloaded.
/// Defaults: every 10 ms for 20 µs (estimate: a few hundred per-CPU kthread wakeups a
/// second on a busy server, as `perf sched` shows; the same for every experiment).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Housekeeping {
    #[serde(default = "d_true")]
    pub enabled: bool,
    #[serde(default = "d_hk_period")]
    pub period_ns: u64,
    #[serde(default = "d_hk_run")]
    pub run_ns: u64,
}

impl Default for Housekeeping {
    fn default() -> Self {
        Housekeeping { enabled: true, period_ns: d_hk_period(), run_ns: d_hk_run() }
    }
}

impl Housekeeping {
    pub fn validate(&self) -> Result<(), String> {
        if self.enabled && (self.period_ns < 10_000 || self.period_ns > 100_000_000_000) {
            return Err(format!("housekeeping.period_ns = {}, expected 10000 to 1e11", self.period_ns));
        }
        if self.enabled && (self.run_ns == 0 || self.run_ns >= self.period_ns) {
            return Err(format!("housekeeping.run_ns = {}, expected 1 to period_ns - 1", self.run_ns));
        }
        Ok(())
    }
}

fn d_true() -> bool { true }
fn d_hk_period() -> u64 { 10_000_000 }
fn d_hk_run() -> u64 { 20_000 }

/// Names of the workloads, for help texts.
pub const WORKLOAD_NAMES: [&str; 6] = ["tbench", "dbench", "hackbench", "pipe", "schbench", "memcache"];

/// How a workload's headline number reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricInfo {
    pub name: String,
    pub unit: String,
    pub higher_is_better: bool,
}

impl Workload {
    /// The workload with every parameter at its default.
    pub fn by_name(name: &str) -> Option<Workload> {
        let json = format!("{{\"kind\":\"{name}\"}}");
        serde_json::from_str(&json).ok()
    }

    pub fn name(&self) -> &'static str {
        match self {
            Workload::Tbench { .. } => "tbench",
            Workload::Dbench { .. } => "dbench",
            Workload::Hackbench { .. } => "hackbench",
            Workload::Pipe { .. } => "pipe",
            Workload::Schbench { .. } => "schbench",
            Workload::Memcache { .. } => "memcache",
        }
    }

    pub fn metric(&self) -> MetricInfo {
        let (name, unit, hib) = match self {
            Workload::Tbench { .. } => ("throughput", "MB/sec", true),
            Workload::Dbench { .. } => ("throughput", "MB/sec", true),
            Workload::Hackbench { .. } => ("time", "seconds", false),
            Workload::Pipe { .. } => ("latency", "usecs/op", false),
            Workload::Schbench { .. } => ("p99 wakeup latency", "usec", false),
            Workload::Memcache { .. } => ("p99 response time", "usec", false),
        };
        MetricInfo { name: name.into(), unit: unit.into(), higher_is_better: hib }
    }

    /// What one unit of `clients` means.
    pub fn clients_meaning(&self) -> &'static str {
        match self {
            Workload::Tbench { .. } => "client/server pairs",
            Workload::Dbench { .. } => "clients",
            Workload::Hackbench { .. } => "groups",
            Workload::Pipe { .. } => "pipe pairs",
            Workload::Schbench { .. } => "message threads",
            Workload::Memcache { .. } => "worker threads",
        }
    }

    /// Number of tasks for `clients` on `nr_cpus` CPUs (for limits).
    pub fn task_count(&self, clients: u32, nr_cpus: u32) -> u64 {
        let c = clients as u64;
        match self {
            Workload::Tbench { .. } | Workload::Pipe { .. } => 2 * c,
            Workload::Dbench { .. } => c + 1 + nr_cpus as u64,
            Workload::Hackbench { fds, .. } => c * 2 * *fds as u64,
            Workload::Schbench { workers, .. } => c * (1 + *workers as u64),
            Workload::Memcache { background_threads, .. } => c + *background_threads as u64,
        }
    }

    /// Checks parameters; names the bad one.
    pub fn validate(&self, nr_cpus: u32) -> Result<(), String> {
        let pos = |name: &str, v: u64, max: u64| -> Result<(), String> {
            if v == 0 || v > max {
                Err(format!("workload {}: {name} = {v}, expected 1 to {max}", self.name()))
            } else {
                Ok(())
            }
        };
        const SEC: u64 = 1_000_000_000;
        match self {
            Workload::Tbench { msg_bytes, work_ns, ws_bytes } => {
                pos("msg_bytes", *msg_bytes, 1 << 30)?;
                pos("work_ns", *work_ns, SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)
            }
            Workload::Dbench { work_ns, op_bytes, fsync_every, read_miss_every, io_ns, irq_cpu, ws_bytes } => {
                pos("work_ns", *work_ns, SEC)?;
                pos("op_bytes", *op_bytes, 1 << 30)?;
                pos("fsync_every", *fsync_every, 1 << 30)?;
                pos("read_miss_every", *read_miss_every, 1 << 30)?;
                pos("io_ns", *io_ns, SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)?;
                if *irq_cpu >= nr_cpus {
                    return Err(format!("workload dbench: irq_cpu = {irq_cpu}, the machine has CPUs 0 to {}", nr_cpus - 1));
                }
                Ok(())
            }
            Workload::Hackbench { fds, loops, datasize, work_ns, ws_bytes, .. } => {
                pos("fds", *fds as u64, 1000)?;
                pos("loops", *loops as u64, 1 << 30)?;
                pos("datasize", *datasize, 1 << 20)?;
                pos("work_ns", *work_ns, SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)
            }
            Workload::Pipe { loops, work_ns, ws_bytes } => {
                pos("loops", *loops, 1 << 40)?;
                pos("work_ns", *work_ns, SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)
            }
            Workload::Schbench { workers, sleep_ns, cpu_ns, ws_bytes } => {
                pos("workers", *workers as u64, 10_000)?;
                pos("sleep_ns", *sleep_ns, 100 * SEC)?;
                pos("cpu_ns", *cpu_ns, 100 * SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)
            }
            Workload::Memcache {
                rps_per_worker,
                service_ns,
                ws_bytes,
                background_threads,
                background_run_ns,
                background_sleep_ns,
                background_cpus,
            } => {
                if *background_cpus > nr_cpus {
                    return Err(format!(
                        "workload memcache: background_cpus = {background_cpus}, the machine has {nr_cpus} CPUs"
                    ));
                }
                pos("rps_per_worker", *rps_per_worker, 10_000_000)?;
                pos("service_ns", *service_ns, SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)?;
                if *background_threads > 10_000 {
                    return Err(format!("workload memcache: background_threads = {background_threads}, at most 10000"));
                }
                pos("background_run_ns", *background_run_ns, SEC)?;
                pos("background_sleep_ns", *background_sleep_ns, 100 * SEC)
            }
        }
    }
}

/// What a task asks the simulator to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Run in user mode for this long at full speed with a warm cache.
    Run(u64),
    /// Wake another task, handing it `bytes` of data written by this one.
    Wake { task: u32, sync: bool, bytes: u64 },
    /// Sleep until woken.
    Block,
    /// Sleep until a timer fires after this long.
    Sleep(u64),
    /// Submit I/O and sleep; after `ns` the device interrupts `irq_cpu` with `token`.
    Io { ns: u64, irq_cpu: u32, token: u32 },
    /// Finish.
    Exit,
}

/// How a task is created.
#[derive(Clone, Debug)]
pub(crate) struct TaskInit {
    pub name: String,
    pub pinned: Option<u32>,
    pub percpu_kthread: bool,
    pub ws_bytes: u64,
    /// Share of its work spent in the kernel, percent (kernel threads: 100).
    pub sys_pct: u8,
}

/// What an interrupt handler did: the tasks it wakes.
#[derive(Debug, Default)]
pub(crate) struct IrqOut {
    pub wakes: Vec<u32>,
}

const TOKEN_ARRIVAL: u32 = u32::MAX;

// Share of each benchmark's work done in the kernel, percent (estimates: dbench and
// the IPC benchmarks spend nearly all their time in syscalls, as the seeds' User and
// System rows show; tbench's work is mostly the loopback TCP stack; a memcache worker
// parses and hashes in user space and sends in the kernel).
const SYS_FS: u8 = 85;
const SYS_IPC: u8 = 90;
const SYS_NET: u8 = 80;
const SYS_MEMCACHE: u8 = 40;

/// Runtime state of a workload.
pub(crate) struct WorkloadState {
    pub spec: Workload,
    /// Per task: a program counter and a count of undelivered messages.
    pc: Vec<u32>,
    inbox: Vec<u32>,
    /// Bytes done (throughput workloads) and ops done.
    pub bytes: u64,
    pub ops: u64,
    /// Request latencies (memcache).
    pub req_latency: crate::metrics::Histogram,
    /// Tasks that exited (hackbench); time when the last finished.
    pub exited: u32,
    pub finished_at: Option<u64>,
    /// The benchmark's own tasks; housekeeping kworkers come after them.
    nr_tasks: u32,
    nr_cpus: u32,
    hk: Housekeeping,
    /// Tasks below this id are the workload's clients (memcache workers).
    workers: u32,
    // hackbench: per receiver, senders blocked on its full buffer; per task, messages left.
    blocked_senders: Vec<Vec<u32>>,
    left: Vec<u64>,
    // dbench: journal waiters, tasks whose I/O is pending per kworker, jbd2 id.
    jbd2_waiters: Vec<u32>,
    jbd2_committing: Vec<u32>,
    kworker_queue: Vec<VecDeque<u32>>,
    // memcache: queued request arrival times, idle workers (LIFO), current request.
    requests: VecDeque<u64>,
    /// Arrival times of raised but not yet handled request interrupts.
    arrived: VecDeque<u64>,
    idle_workers: Vec<u32>,
    serving: Vec<u64>,
    // schbench: worker rounds left per worker
    pub measure_from: u64,
}

impl WorkloadState {
    /// Builds the tasks for `clients`.
    pub(crate) fn new(spec: &Workload, clients: u32, nr_cpus: u32, hk: &Housekeeping) -> (WorkloadState, Vec<TaskInit>) {
        let mut tasks = Vec::new();
        let t = |name: String, ws, sys_pct| TaskInit { name, pinned: None, percpu_kthread: false, ws_bytes: ws, sys_pct };
        match spec {
            Workload::Tbench { ws_bytes, .. } => {
                for i in 0..clients {
                    tasks.push(t(format!("tbench/{i}"), *ws_bytes, SYS_NET));
                    tasks.push(t(format!("tbench_srv/{i}"), *ws_bytes, SYS_NET));
                }
            }
            Workload::Pipe { ws_bytes, .. } => {
                for i in 0..clients {
                    tasks.push(t(format!("pipe-a/{i}"), *ws_bytes, SYS_IPC));
                    tasks.push(t(format!("pipe-b/{i}"), *ws_bytes, SYS_IPC));
                }
            }
            Workload::Dbench { ws_bytes, .. } => {
                for i in 0..clients {
                    tasks.push(t(format!("dbench/{i}"), *ws_bytes, SYS_FS));
                }
                tasks.push(t("jbd2".into(), 32 << 10, 100));
                for c in 0..nr_cpus {
                    tasks.push(TaskInit {
                        name: format!("kworker/{c}"),
                        pinned: Some(c),
                        percpu_kthread: true,
                        ws_bytes: 8 << 10,
                        sys_pct: 100,
                    });
                }
            }
            Workload::Hackbench { fds, ws_bytes, .. } => {
                for g in 0..clients {
                    for s in 0..*fds {
                        tasks.push(t(format!("sender/{g}.{s}"), *ws_bytes, SYS_IPC));
                    }
                    for r in 0..*fds {
                        tasks.push(t(format!("receiver/{g}.{r}"), *ws_bytes, SYS_IPC));
                    }
                }
            }
            Workload::Schbench { workers, ws_bytes, .. } => {
                for m in 0..clients {
                    tasks.push(t(format!("message/{m}"), 32 << 10, 50));
                    for w in 0..*workers {
                        tasks.push(t(format!("worker/{m}.{w}"), *ws_bytes, 0));
                    }
                }
            }
            Workload::Memcache { ws_bytes, background_threads, background_cpus, .. } => {
                for w in 0..clients {
                    tasks.push(t(format!("worker/{w}"), *ws_bytes, SYS_MEMCACHE));
                }
                for b in 0..*background_threads {
                    let mut bt = t(format!("background/{b}"), 256 << 10, 0);
                    if *background_cpus > 0 {
                        bt.pinned = Some(nr_cpus - 1 - b % background_cpus);
                    }
                    tasks.push(bt);
                }
            }
        }
        let app_tasks = tasks.len() as u32;
        if hk.enabled {
            for c in 0..nr_cpus {
                tasks.push(TaskInit {
                    name: format!("kworker/{c}:hk"),
                    pinned: Some(c),
                    percpu_kthread: true,
                    ws_bytes: 16 << 10,
                    sys_pct: 100,
                });
            }
        }
        let n = tasks.len();
        let mut left = vec![0u64; n];
        if let Workload::Hackbench { fds, loops, .. } = spec {
            let f = *fds as usize;
            for (i, l) in left.iter_mut().enumerate() {
                // Senders send loops x fds messages; receivers read as many.
                *l = *loops as u64 * f as u64;
                let _ = i;
            }
        }
        let st = WorkloadState {
            spec: spec.clone(),
            pc: vec![0; n],
            inbox: vec![0; n],
            bytes: 0,
            ops: 0,
            req_latency: Default::default(),
            exited: 0,
            finished_at: None,
            nr_tasks: app_tasks,
            nr_cpus,
            hk: hk.clone(),
            workers: clients,
            blocked_senders: vec![Vec::new(); n],
            left,
            jbd2_waiters: Vec::new(),
            jbd2_committing: Vec::new(),
            kworker_queue: vec![VecDeque::new(); nr_cpus as usize],
            requests: VecDeque::new(),
            arrived: VecDeque::new(),
            idle_workers: Vec::new(),
            serving: vec![0; n],
            measure_from: 0,
        };
        (st, tasks)
    }

    /// The benchmark's own tasks (housekeeping kworkers excluded).
    pub(crate) fn app_tasks(&self) -> u32 {
        self.nr_tasks
    }

    /// Interrupts the workload generates by itself at the start.
    pub(crate) fn initial_irqs(&self, rng: &mut Pcg64) -> Vec<(u64, u32, u32)> {
        match &self.spec {
            Workload::Memcache { rps_per_worker, .. } => {
                let gap = self.arrival_gap(*rps_per_worker, rng);
                vec![(gap, rng.below(self.nr_cpus as u64) as u32, TOKEN_ARRIVAL)]
            }
            _ => Vec::new(),
        }
    }

    fn arrival_gap(&self, rps_per_worker: u64, rng: &mut Pcg64) -> u64 {
        let rate = rps_per_worker * self.workers as u64; // per second
        rng.exp(1_000_000_000 / rate.max(1)).max(1)
    }

    /// Delivers a message to `task`; returns true if it was waiting for one.
    fn post(&mut self, task: u32) {
        self.inbox[task as usize] += 1;
    }

    fn take(&mut self, task: u32) -> bool {
        let b = &mut self.inbox[task as usize];
        if *b > 0 {
            *b -= 1;
            true
        } else {
            false
        }
    }

    /// The next action of `task` at `now`.
    pub(crate) fn step(&mut self, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let pc = self.pc[i];
        if task >= self.nr_tasks {
            // Housekeeping kworker: sleep on a timer, then run a work item.
            self.pc[i] ^= 1;
            return if pc == 0 {
                Action::Sleep(rng.jitter(self.hk.period_ns, 50))
            } else {
                Action::Run(rng.jitter(self.hk.run_ns, 50))
            };
        }
        match self.spec.clone() {
            Workload::Tbench { msg_bytes, work_ns, .. } => {
                let client = task.is_multiple_of(2);
                let partner = task ^ 1;
                // Client: work, send, wait for reply. Server: wait, work, reply.
                match (client, pc) {
                    (true, 0) | (false, 1) => {
                        self.pc[i] = 2;
                        Action::Run(rng.jitter(work_ns, 20))
                    }
                    (_, 2) => {
                        self.pc[i] = 3;
                        self.post(partner);
                        Action::Wake { task: partner, sync: true, bytes: msg_bytes / 2 }
                    }
                    (_, _) => {
                        // Waiting for the partner.
                        if self.take(task) {
                            if client && now >= self.measure_from {
                                self.bytes += msg_bytes;
                                self.ops += 1;
                            }
                            self.pc[i] = if client { 0 } else { 1 };
                            self.step(task, now, rng)
                        } else {
                            Action::Block
                        }
                    }
                }
            }
            Workload::Pipe { loops, work_ns, .. } => {
                let a = task.is_multiple_of(2);
                let partner = task ^ 1;
                match (a, pc) {
                    (true, 0) | (false, 1) => {
                        self.pc[i] = 2;
                        Action::Run(rng.jitter(work_ns, 10))
                    }
                    (_, 2) => {
                        self.pc[i] = 3;
                        self.post(partner);
                        Action::Wake { task: partner, sync: true, bytes: 8 }
                    }
                    _ => {
                        if self.take(task) {
                            if a {
                                if now >= self.measure_from {
                                    self.ops += 1;
                                }
                                self.left[i] += 1;
                                if self.left[i] >= loops {
                                    return self.exit_one(now);
                                }
                            }
                            self.pc[i] = if a { 0 } else { 1 };
                            self.step(task, now, rng)
                        } else {
                            Action::Block
                        }
                    }
                }
            }
            Workload::Hackbench { fds, datasize, work_ns, pipe, .. } => {
                let f = fds as usize;
                let group = i / (2 * f);
                let sender = i % (2 * f) < f;
                // Socket buffer: net.core.wmem_default 212992 / (datasize + ~576 bytes of
                // skb truesize); a pipe holds 16 pages.
                let cap = if pipe { (65536 / datasize.max(1)).max(1) } else { 212_992 / (datasize + 576) } as u32;
                if sender {
                    if self.left[i] == 0 {
                        return self.exit_one(now);
                    }
                    // pc = index of the next receiver, high bit = "write done, wake next".
                    let r_idx = (pc & 0xFFFF) as usize;
                    let receiver = (group * 2 * f + f + r_idx) as u32;
                    if pc & 0x1_0000 == 0 {
                        if self.inbox[receiver as usize] >= cap {
                            if !self.blocked_senders[receiver as usize].contains(&task) {
                                self.blocked_senders[receiver as usize].push(task);
                            }
                            return Action::Block;
                        }
                        self.pc[i] = pc | 0x1_0000;
                        return Action::Run(rng.jitter(work_ns, 10));
                    }
                    self.post(receiver);
                    self.left[i] -= 1;
                    self.pc[i] = ((r_idx + 1) % f) as u32;
                    Action::Wake { task: receiver, sync: true, bytes: datasize }
                } else {
                    if pc == 1 {
                        // Read done: wake a sender blocked on our full buffer.
                        self.pc[i] = 0;
                        if let Some(s) = self.blocked_senders[i].pop() {
                            return Action::Wake { task: s, sync: true, bytes: 0 };
                        }
                    }
                    if self.left[i] == 0 {
                        return self.exit_one(now);
                    }
                    if self.take(task) {
                        self.left[i] -= 1;
                        self.pc[i] = 1;
                        if now >= self.measure_from {
                            self.ops += 1;
                        }
                        Action::Run(rng.jitter(work_ns, 10))
                    } else {
                        Action::Block
                    }
                }
            }
            Workload::Schbench { workers, sleep_ns, cpu_ns, .. } => {
                let per = 1 + workers as usize;
                if i.is_multiple_of(per) {
                    // Message thread: sleep, then wake every worker.
                    if pc == 0 {
                        self.pc[i] = 1;
                        return Action::Sleep(sleep_ns);
                    }
                    let w = pc as usize; // 1..=workers
                    self.pc[i] = if w == workers as usize { 0 } else { pc + 1 };
                    let t = (i + w) as u32;
                    self.post(t);
                    Action::Wake { task: t, sync: false, bytes: 64 }
                } else if pc == 1 {
                    self.pc[i] = 0;
                    if now >= self.measure_from {
                        self.ops += 1;
                    }
                    Action::Run(cpu_ns)
                } else if self.take(task) {
                    // Collapse a backlog: schbench workers handle one message at a time.
                    self.inbox[i] = 0;
                    self.pc[i] = 1;
                    Action::Run(2_000)
                } else {
                    Action::Block
                }
            }
            Workload::Memcache { service_ns, background_run_ns, background_sleep_ns, .. } => {
                if task >= self.workers {
                    self.pc[i] ^= 1;
                    return if pc == 0 {
                        Action::Run(rng.jitter(background_run_ns, 50))
                    } else {
                        Action::Sleep(rng.jitter(background_sleep_ns, 50))
                    };
                }
                if pc == 1 {
                    // Response sent.
                    self.pc[i] = 0;
                    if self.serving[i] >= self.measure_from {
                        self.req_latency.record(now - self.serving[i]);
                        self.ops += 1;
                    }
                }
                match self.requests.pop_front() {
                    Some(arrived) => {
                        self.serving[i] = arrived;
                        self.pc[i] = 1;
                        Action::Run(rng.exp(service_ns).max(1_000))
                    }
                    None => {
                        self.idle_workers.push(task);
                        Action::Block
                    }
                }
            }
            Workload::Dbench { work_ns, op_bytes, fsync_every, read_miss_every, io_ns, irq_cpu, .. } => {
                let clients = self.nr_tasks - 1 - self.nr_cpus;
                if task < clients {
                    match pc {
                        0 => {
                            self.pc[i] = 1;
                            Action::Run(rng.jitter(work_ns, 30))
                        }
                        1 => {
                            if now >= self.measure_from {
                                self.bytes += op_bytes;
                                self.ops += 1;
                            }
                            if rng.chance(1, fsync_every) {
                                self.jbd2_waiters.push(task);
                                self.pc[i] = 2;
                                Action::Wake { task: clients, sync: false, bytes: 0 }
                            } else if rng.chance(1, read_miss_every) {
                                self.pc[i] = 2;
                                Action::Io { ns: rng.jitter(io_ns, 20), irq_cpu, token: task }
                            } else {
                                self.pc[i] = 0;
                                self.step(task, now, rng)
                            }
                        }
                        _ => {
                            if self.take(task) {
                                self.pc[i] = 0;
                                self.step(task, now, rng)
                            } else {
                                Action::Block
                            }
                        }
                    }
                } else if task == clients {
                    // jbd2: commit everything waiting, write it, then wake the waiters.
                    match pc {
                        0 => {
                            if self.jbd2_waiters.is_empty() {
                                return Action::Block;
                            }
                            self.jbd2_committing = std::mem::take(&mut self.jbd2_waiters);
                            self.pc[i] = 1;
                            Action::Run(10_000 + 1_000 * self.jbd2_committing.len() as u64)
                        }
                        1 => {
                            self.pc[i] = 2;
                            Action::Io { ns: rng.jitter(io_ns, 20), irq_cpu, token: task }
                        }
                        2 => {
                            if !self.take(task) {
                                return Action::Block;
                            }
                            self.pc[i] = 3;
                            self.step(task, now, rng)
                        }
                        _ => match self.jbd2_committing.pop() {
                            Some(w) => {
                                self.post(w);
                                Action::Wake { task: w, sync: false, bytes: 0 }
                            }
                            None => {
                                self.pc[i] = 0;
                                self.step(task, now, rng)
                            }
                        },
                    }
                } else {
                    // kworker: wake whoever the completion was for.
                    let cpu = (task - clients - 1) as usize;
                    if pc == 1 {
                        self.pc[i] = 0;
                        if let Some(t) = self.kworker_queue[cpu].pop_front() {
                            self.post(t);
                            return Action::Wake { task: t, sync: false, bytes: 0 };
                        }
                    }
                    if self.take(task) {
                        self.pc[i] = 1;
                        Action::Run(3_000)
                    } else {
                        Action::Block
                    }
                }
            }
        }
    }

    fn exit_one(&mut self, now: u64) -> Action {
        self.exited += 1;
        // Pipe pairs finish when every first task has done its loops.
        let all = if matches!(self.spec, Workload::Pipe { .. }) { self.nr_tasks / 2 } else { self.nr_tasks };
        if self.exited == all {
            self.finished_at = Some(now);
        }
        Action::Exit
    }

    /// An interrupt is raised (before any idle-exit delay): open-loop arrivals schedule
    /// the next one from here, so the rate does not depend on how fast the CPU wakes.
    pub(crate) fn on_raise(&mut self, token: u32, now: u64, rng: &mut Pcg64) -> Option<(u64, u32, u32)> {
        match &self.spec {
            Workload::Memcache { rps_per_worker, .. } if token == TOKEN_ARRIVAL => {
                let gap = self.arrival_gap(*rps_per_worker, rng);
                self.arrived.push_back(now);
                Some((now + gap, rng.below(self.nr_cpus as u64) as u32, TOKEN_ARRIVAL))
            }
            _ => None,
        }
    }

    /// An interrupt with `token` on `cpu` is handled.
    pub(crate) fn irq(&mut self, token: u32, cpu: u32, now: u64, _rng: &mut Pcg64) -> IrqOut {
        let mut out = IrqOut::default();
        match &self.spec {
            Workload::Memcache { rps_per_worker, .. } => {
                let _ = rps_per_worker;
                self.requests.push_back(self.arrived.pop_front().unwrap_or(now));
                if let Some(w) = self.idle_workers.pop() {
                    out.wakes.push(w);
                }
            }
            Workload::Dbench { .. } => {
                let clients = self.nr_tasks - 1 - self.nr_cpus;
                if token < clients {
                    // A page-cache read completes: end_page_read wakes the reader from
                    // interrupt context.
                    self.post(token);
                    out.wakes.push(token);
                } else {
                    // A journal write completes: the work is finished in this CPU's
                    // kworker, which wakes jbd2.
                    let kw = clients + 1 + cpu;
                    self.kworker_queue[cpu as usize].push_back(token);
                    self.post(kw);
                    out.wakes.push(kw);
                }
            }
            _ => {}
        }
        out
    }

    /// Whether the workload has finished by itself (hackbench, pipe loops).
    pub(crate) fn done(&self) -> bool {
        self.finished_at.is_some()
    }
}
