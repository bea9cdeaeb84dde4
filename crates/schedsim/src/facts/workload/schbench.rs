//! schbench: message threads that each wake their `workers` workers (futex, not sync)
//! every `sleep_ns`; each worker burns `cpu_ns`. Metric: the p99 wakeup latency.

use super::run::{Action, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use serde::{Deserialize, Serialize};

/// schbench's parameters: `clients` message threads each wake `workers` workers
/// (futex, not sync) every `sleep_ns`; each worker burns `cpu_ns`. The result is the
/// p99 wakeup latency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchbenchParams {
    /// `-t`, default 16.
    #[serde(default = "d_workers")]
    pub workers: u32,
    /// `-s` sleeptime, default 10,000 µs.
    #[serde(default = "d_sleep")]
    pub sleep_ns: u64,
    /// `-c` cputime, default 10,000 µs.
    #[serde(default = "d_cpu")]
    pub cpu_ns: u64,
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
}

fn d_workers() -> u32 {
    16
}
fn d_sleep() -> u64 {
    10_000_000
}
fn d_cpu() -> u64 {
    10_000_000
}
fn d_ws() -> u64 {
    256 << 10
}

impl SchbenchParams {
    /// Checks the parameters; names the bad one.
    pub(super) fn validate(&self) -> Result<(), String> {
        let pos = |name, v, max| check_range("schbench", name, v, max);
        pos("workers", self.workers as u64, 10_000)?;
        pos("sleep_ns", self.sleep_ns, 100 * SEC)?;
        pos("cpu_ns", self.cpu_ns, 100 * SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)
    }
}

/// CPU time a worker spends taking a message before its work (estimate).
pub(crate) const WAKE_HANDLING_NS: u64 = 2_000;
/// Share of a message thread's work done in the kernel (estimate: it only sleeps and
/// wakes); the workers' burn loop is all user time.
const SYS_PCT_MESSAGE: u8 = 50;

#[derive(Clone)]
pub(super) struct Schbench {
    workers: u32,
    sleep_ns: u64,
    cpu_ns: u64,
}

impl Schbench {
    /// Message thread m, then its workers, for each m.
    pub(super) fn new(p: &SchbenchParams, clients: u32, tasks: &mut Vec<TaskInit>) -> Self {
        let SchbenchParams { workers, sleep_ns, cpu_ns, ws_bytes } = *p;
        for m in 0..clients {
            tasks.push(TaskInit::app(format!("message/{m}"), 32 << 10, SYS_PCT_MESSAGE));
            for w in 0..workers {
                tasks.push(TaskInit::app(format!("worker/{m}.{w}"), ws_bytes, 0));
            }
        }
        Schbench { workers, sleep_ns, cpu_ns }
    }

    pub(super) fn step(&self, s: &mut Shared, task: u32, now: u64) -> Action {
        let i = task as usize;
        let pc = s.pc[i];
        let per = 1 + self.workers as usize;
        if i.is_multiple_of(per) {
            // Message thread: sleep, then wake every worker.
            if pc == 0 {
                s.pc[i] = 1;
                return Action::Sleep(self.sleep_ns);
            }
            let w = pc as usize; // 1..=workers
            s.pc[i] = if w == self.workers as usize { 0 } else { pc + 1 };
            let t = (i + w) as u32;
            s.post(t);
            Action::Wake { task: t, sync: false, bytes: 64 }
        } else if pc == 1 {
            s.pc[i] = 0;
            if s.measuring(now) {
                s.ops += 1;
            }
            Action::Run(self.cpu_ns)
        } else if s.take(task) {
            // Collapse a backlog: schbench workers handle one message at a time.
            s.inbox[i] = 0;
            s.pc[i] = 1;
            Action::Run(WAKE_HANDLING_NS)
        } else {
            Action::Block
        }
    }
}

/// The 99th percentile of the window's wakeup latencies, µs.
pub(super) fn sample(m: &Measured) -> Sample {
    Sample { value: m.wake_latency.percentile(99) as f64 / 1e3, finished: true }
}
