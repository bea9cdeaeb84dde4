//! Benchmark models. Each is a set of tasks running small programs of CPU work,
//! wakeups and blocking, with the real tool's parameters and defaults where the tool has
//! them, and model parameters (CPU work per operation, working-set size) where it does
//! not; those defaults are estimates, named as such, and are the same for every kernel.

use serde::{Deserialize, Serialize};

mod dbench;
mod hackbench;
mod memcache;
mod pipe;
mod run;
mod schbench;
mod tbench;
pub(crate) use run::{Action, IrqToken, Measured, Sample, TaskInit, WorkloadState};

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
        /// The block queue's `rq_affinity` (sysfs `queue/rq_affinity`): 0 completes a
        /// request on the CPU that took the interrupt; 1, the default of every modelled
        /// kernel, on the submitting CPU when the interrupt CPU does not share its
        /// cache (v4.15 `__blk_complete_request()`, QUEUE_FLAG_SAME_COMP; an IPI raises
        /// the completion there); 2 always on the submitting CPU (QUEUE_FLAG_SAME_FORCE,
        /// 5757a6d76cdf, v3.1).
        #[serde(default = "d_rq_affinity")]
        rq_affinity: u8,
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

fn d_tbench_msg() -> u64 {
    4096
}
fn d_tbench_work() -> u64 {
    6_000
}
fn d_ws_16k() -> u64 {
    16 << 10
}
fn d_ws_64k() -> u64 {
    64 << 10
}
fn d_ws_128k() -> u64 {
    128 << 10
}
fn d_ws_256k() -> u64 {
    256 << 10
}
fn d_rq_affinity() -> u8 {
    1
}
fn d_dbench_work() -> u64 {
    5_000
}
fn d_dbench_bytes() -> u64 {
    4096
}
fn d_dbench_fsync() -> u64 {
    40
}
fn d_dbench_read() -> u64 {
    20
}
fn d_dbench_io() -> u64 {
    100_000
}
fn d_hb_fds() -> u32 {
    20
}
fn d_hb_loops() -> u32 {
    100
}
fn d_hb_datasize() -> u64 {
    100
}
fn d_hb_work() -> u64 {
    1_500
}
fn d_pipe_loops() -> u64 {
    1_000_000
}
fn d_pipe_work() -> u64 {
    1_000
}
fn d_sch_workers() -> u32 {
    16
}
fn d_sch_sleep() -> u64 {
    10_000_000
}
fn d_sch_cpu() -> u64 {
    10_000_000
}
fn d_mc_rps() -> u64 {
    10_000
}
fn d_mc_service() -> u64 {
    20_000
}
fn d_bg_run() -> u64 {
    200_000
}
fn d_bg_sleep() -> u64 {
    2_000_000
}

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

fn d_true() -> bool {
    true
}
fn d_hk_period() -> u64 {
    10_000_000
}
fn d_hk_run() -> u64 {
    20_000
}

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
            Workload::Dbench {
                work_ns,
                op_bytes,
                fsync_every,
                read_miss_every,
                io_ns,
                irq_cpu,
                ws_bytes,
                rq_affinity,
            } => {
                if *rq_affinity > 2 {
                    return Err(format!("workload dbench: rq_affinity = {rq_affinity}, expected 0, 1 or 2"));
                }
                pos("work_ns", *work_ns, SEC)?;
                pos("op_bytes", *op_bytes, 1 << 30)?;
                pos("fsync_every", *fsync_every, 1 << 30)?;
                pos("read_miss_every", *read_miss_every, 1 << 30)?;
                pos("io_ns", *io_ns, SEC)?;
                pos("ws_bytes", *ws_bytes, 1 << 34)?;
                if *irq_cpu >= nr_cpus {
                    return Err(format!(
                        "workload dbench: irq_cpu = {irq_cpu}, the machine has CPUs 0 to {}",
                        nr_cpus - 1
                    ));
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
