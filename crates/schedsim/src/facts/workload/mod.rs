//! Benchmark models. Each is a set of tasks running small programs of CPU work,
//! wakeups and blocking, with the real tool's parameters and defaults where the tool has
//! them, and model parameters (CPU work per operation, working-set size) where it does
//! not; those defaults are estimates, named as such, and are the same for every kernel.

use serde::{Deserialize, Serialize};

mod dbench;
mod hackbench;
mod memcache;
mod pipe;
pub mod replay;
pub mod rtapp;
mod run;
mod schbench;
mod tbench;
pub use dbench::{DbenchParams, Device as DbenchDevice};
pub(crate) use dbench::{COMMIT_BASE_NS, KSOFTIRQD_NS, KWORKER_NS, LOOP_WORKER_NS};
pub use hackbench::HackbenchParams;
pub use memcache::MemcacheParams;
pub use pipe::PipeParams;
pub use replay::{ReplayParams, ReplayTask};
pub use rtapp::RtappParams;
pub(crate) use run::{Action, IrqToken, Measured, Sample, TaskInit, WorkloadState};
pub use schbench::SchbenchParams;
pub(crate) use schbench::WAKE_HANDLING_NS;
pub use tbench::TbenchParams;

/// Which benchmark, with its parameters (each benchmark's module holds its parameters,
/// their defaults and their validation). `clients` comes from the experiment's sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Workload {
    /// tbench: client/server pairs over loopback TCP.
    Tbench(TbenchParams),
    /// dbench: processes replaying filesystem ops, fsync through jbd2, completions as
    /// interrupts.
    Dbench(DbenchParams),
    /// hackbench: groups of senders and receivers; the time until all messages are read.
    Hackbench(HackbenchParams),
    /// perf bench sched pipe: independent pairs ping-ponging over two pipes.
    Pipe(PipeParams),
    /// schbench: message threads waking workers; the p99 wakeup latency.
    Schbench(SchbenchParams),
    /// A memcache-like service fed by NIC interrupts; the p99 response time.
    Memcache(MemcacheParams),
    /// A real machine's scheduler trace, each traced task a program; `clients` copies.
    Replay(ReplayParams),
    /// An rt-app task set (rt-app 1.0's JSON); `clients` copies.
    Rtapp(RtappParams),
}

/// Upper limits the parameters' checks share.
const SEC: u64 = 1_000_000_000;
const WS_MAX: u64 = 1 << 34;

/// `name = v` must be 1 to `max`: the error names the workload and the parameter.
fn check_range(workload: &str, name: &str, v: u64, max: u64) -> Result<(), String> {
    if v == 0 || v > max {
        Err(format!("workload {workload}: {name} = {v}, expected 1 to {max}"))
    } else {
        Ok(())
    }
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
            Workload::Tbench(_) => "tbench",
            Workload::Dbench(_) => "dbench",
            Workload::Hackbench(_) => "hackbench",
            Workload::Pipe(_) => "pipe",
            Workload::Schbench(_) => "schbench",
            Workload::Memcache(_) => "memcache",
            Workload::Replay(_) => "replay",
            Workload::Rtapp(_) => "rtapp",
        }
    }

    pub fn metric(&self) -> MetricInfo {
        let (name, unit, hib) = match self {
            Workload::Tbench(_) => ("throughput", "MB/sec", true),
            Workload::Dbench(_) => ("throughput", "MB/sec", true),
            Workload::Hackbench(_) => ("time", "seconds", false),
            Workload::Pipe(_) => ("latency", "usecs/op", false),
            Workload::Schbench(_) => ("p99 wakeup latency", "usec", false),
            Workload::Memcache(_) => ("p99 response time", "usec", false),
            Workload::Replay(_) => ("replay throughput", "x recorded", true),
            Workload::Rtapp(_) => ("rt-app work", "CPUs busy", true),
        };
        MetricInfo { name: name.into(), unit: unit.into(), higher_is_better: hib }
    }

    /// What one unit of `clients` means.
    pub fn clients_meaning(&self) -> &'static str {
        match self {
            Workload::Tbench(_) => "client/server pairs",
            Workload::Dbench(_) => "clients",
            Workload::Hackbench(_) => "groups",
            Workload::Pipe(_) => "pipe pairs",
            Workload::Schbench(_) => "message threads",
            Workload::Memcache(_) => "worker threads",
            Workload::Replay(_) => "copies of the trace",
            Workload::Rtapp(_) => "copies of the task set",
        }
    }

    /// `n` of what the client count counts, singular for one: "1 client/server pair",
    /// "1 copy of the trace", "8 clients" (the page and the CLI say it alike).
    pub fn clients_of(&self, n: u64) -> String {
        count_of(n, self.clients_meaning())
    }

    /// Number of tasks for `clients` on `nr_cpus` CPUs (for limits).
    pub fn task_count(&self, clients: u32, nr_cpus: u32) -> u64 {
        let c = clients as u64;
        match self {
            Workload::Tbench(_) | Workload::Pipe(_) => 2 * c,
            Workload::Dbench(p) => c + 1 + nr_cpus as u64 + 2 * (p.device == dbench::Device::Loop) as u64,
            Workload::Hackbench(p) => c * 2 * p.fds as u64,
            Workload::Schbench(p) => c * (1 + p.workers as u64),
            Workload::Memcache(p) => c + p.background_threads as u64,
            Workload::Replay(p) => c * p.tasks.len() as u64,
            Workload::Rtapp(p) => c * p.threads() as u64,
        }
    }

    /// Checks parameters; names the bad one.
    pub fn validate(&self, nr_cpus: u32) -> Result<(), String> {
        match self {
            Workload::Tbench(p) => p.validate(),
            Workload::Dbench(p) => p.validate(nr_cpus),
            Workload::Hackbench(p) => p.validate(),
            Workload::Pipe(p) => p.validate(),
            Workload::Schbench(p) => p.validate(),
            Workload::Memcache(p) => p.validate(nr_cpus),
            Workload::Replay(p) => p.validate(nr_cpus),
            Workload::Rtapp(p) => p.validate(nr_cpus),
        }
    }
}

/// `n` of a plural `meaning` (`Workload::clients_meaning`), singular for one:
/// "1 client/server pair", "1 copy of the trace", "2 groups".
pub fn count_of(n: u64, meaning: &str) -> String {
    if n != 1 {
        return format!("{n} {meaning}");
    }
    let one = match meaning {
        "copies of the trace" => "copy of the trace",
        "copies of the task set" => "copy of the task set",
        // "client/server pairs", "pipe pairs", "message threads": the last word is
        // the plural one.
        m => m.strip_suffix('s').unwrap_or(m),
    };
    format!("1 {one}")
}
