//! dbench: clients replaying filesystem operations. An fsync waits for the jbd2
//! journal thread to commit and write; a page-cache miss waits for a read. I/O
//! completes as an interrupt on `irq_cpu`, then where the block queue's `rq_affinity`
//! puts it: a read's completion wakes the reader from interrupt context, a journal
//! write's is finished by that CPU's kworker, which wakes jbd2. Metric: MB/sec.

use super::run::{Action, IrqOut, IrqToken, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Share of a client's work done in the kernel, percent (estimate: dbench spends
/// nearly all its time in filesystem syscalls, as the seeds' User and System rows show).
const SYS_PCT: u8 = 85;
/// CPU time of a journal commit: a fixed part and a part per waiting handle (estimate).
const COMMIT_BASE_NS: u64 = 10_000;
const COMMIT_PER_WAITER_NS: u64 = 1_000;
/// CPU time of a kworker finishing a completion (estimate).
const KWORKER_NS: u64 = 3_000;

/// dbench's parameters: `clients` processes replaying filesystem ops; fsync goes
/// through the jbd2 journal thread, and completions arrive as interrupts on `irq_cpu`
/// and wake waiters directly or through that CPU's kworker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbenchParams {
    /// CPU time of one filesystem op. Default 5 µs (estimate).
    #[serde(default = "d_work")]
    pub work_ns: u64,
    /// Bytes accounted per op. Default 4096.
    #[serde(default = "d_bytes")]
    pub op_bytes: u64,
    /// One op in this many is an fsync waiting on a journal commit. Default 40.
    #[serde(default = "d_fsync")]
    pub fsync_every: u64,
    /// One op in this many misses the page cache and waits for a read. Default 20.
    #[serde(default = "d_read")]
    pub read_miss_every: u64,
    /// Device latency of a read or a journal write+flush. Default 100 µs (SSD).
    #[serde(default = "d_io")]
    pub io_ns: u64,
    /// CPU that takes the storage interrupt. Default 0 (one IRQ line, as a SATA or
    /// SAS controller has).
    #[serde(default)]
    pub irq_cpu: u32,
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
    /// The block queue's `rq_affinity` (sysfs `queue/rq_affinity`): 0 completes a
    /// request on the CPU that took the interrupt; 1, the default of every modelled
    /// kernel, on the submitting CPU when the interrupt CPU does not share its
    /// cache (v4.15 `__blk_complete_request()`, QUEUE_FLAG_SAME_COMP; an IPI raises
    /// the completion there); 2 always on the submitting CPU (QUEUE_FLAG_SAME_FORCE,
    /// 5757a6d76cdf, v3.1).
    #[serde(default = "d_rq_affinity")]
    pub rq_affinity: u8,
}

fn d_work() -> u64 {
    5_000
}
fn d_bytes() -> u64 {
    4096
}
fn d_fsync() -> u64 {
    40
}
fn d_read() -> u64 {
    20
}
fn d_io() -> u64 {
    100_000
}
fn d_ws() -> u64 {
    256 << 10
}
fn d_rq_affinity() -> u8 {
    1
}

impl DbenchParams {
    /// Checks the parameters against a machine of `nr_cpus` CPUs; names the bad one.
    pub(super) fn validate(&self, nr_cpus: u32) -> Result<(), String> {
        let pos = |name, v, max| check_range("dbench", name, v, max);
        if self.rq_affinity > 2 {
            return Err(format!("workload dbench: rq_affinity = {}, expected 0, 1 or 2", self.rq_affinity));
        }
        pos("work_ns", self.work_ns, SEC)?;
        pos("op_bytes", self.op_bytes, 1 << 30)?;
        pos("fsync_every", self.fsync_every, 1 << 30)?;
        pos("read_miss_every", self.read_miss_every, 1 << 30)?;
        pos("io_ns", self.io_ns, SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)?;
        if self.irq_cpu >= nr_cpus {
            return Err(format!(
                "workload dbench: irq_cpu = {}, the machine has CPUs 0 to {}",
                self.irq_cpu,
                nr_cpus - 1
            ));
        }
        Ok(())
    }
}

#[derive(Clone)]
pub(super) struct Dbench {
    p: DbenchParams,
    /// Tasks below this id are the clients; then jbd2, then one kworker per CPU.
    clients: u32,
    /// Clients waiting for the next journal commit.
    jbd2_waiters: Vec<u32>,
    /// Clients whose commit is being written.
    jbd2_committing: Vec<u32>,
    /// Per CPU, the tasks whose completion its kworker is to finish.
    kworker_queue: Vec<VecDeque<u32>>,
}

impl Dbench {
    /// The clients, jbd2, and a kworker pinned to each CPU.
    pub(super) fn new(p: DbenchParams, clients: u32, nr_cpus: u32, tasks: &mut Vec<TaskInit>) -> Self {
        for i in 0..clients {
            tasks.push(TaskInit::app(format!("dbench/{i}"), p.ws_bytes, SYS_PCT));
        }
        tasks.push(TaskInit::app("jbd2".into(), 32 << 10, 100));
        for c in 0..nr_cpus {
            tasks.push(TaskInit::kthread(format!("kworker/{c}"), c, 8 << 10));
        }
        Dbench {
            p,
            clients,
            jbd2_waiters: Vec::new(),
            jbd2_committing: Vec::new(),
            kworker_queue: vec![VecDeque::new(); nr_cpus as usize],
        }
    }

    fn jbd2(&self) -> u32 {
        self.clients
    }

    /// The I/O a client or jbd2 submits; the interrupt's token names the submitter.
    fn io(&self, task: u32, rng: &mut Pcg64) -> Action {
        Action::Io {
            ns: rng.jitter(self.p.io_ns, 20),
            irq_cpu: self.p.irq_cpu,
            token: IrqToken(task),
            rq_affinity: self.p.rq_affinity,
        }
    }

    pub(super) fn step(&mut self, s: &mut Shared, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let pc = s.pc[i];
        if task < self.clients {
            match pc {
                0 => {
                    s.pc[i] = 1;
                    Action::Run(rng.jitter(self.p.work_ns, 30))
                }
                1 => {
                    if s.measuring(now) {
                        s.bytes += self.p.op_bytes;
                        s.ops += 1;
                    }
                    if rng.chance(1, self.p.fsync_every) {
                        self.jbd2_waiters.push(task);
                        s.pc[i] = 2;
                        Action::Wake { task: self.jbd2(), sync: false, bytes: 0 }
                    } else if rng.chance(1, self.p.read_miss_every) {
                        s.pc[i] = 2;
                        self.io(task, rng)
                    } else {
                        s.pc[i] = 0;
                        self.step(s, task, now, rng)
                    }
                }
                _ => {
                    if s.take(task) {
                        s.pc[i] = 0;
                        self.step(s, task, now, rng)
                    } else {
                        Action::Block
                    }
                }
            }
        } else if task == self.jbd2() {
            // jbd2: commit everything waiting, write it, then wake the waiters.
            match pc {
                0 => {
                    if self.jbd2_waiters.is_empty() {
                        return Action::Block;
                    }
                    self.jbd2_committing = std::mem::take(&mut self.jbd2_waiters);
                    s.pc[i] = 1;
                    Action::Run(COMMIT_BASE_NS + COMMIT_PER_WAITER_NS * self.jbd2_committing.len() as u64)
                }
                1 => {
                    s.pc[i] = 2;
                    self.io(task, rng)
                }
                2 => {
                    if !s.take(task) {
                        return Action::Block;
                    }
                    s.pc[i] = 3;
                    self.step(s, task, now, rng)
                }
                _ => match self.jbd2_committing.pop() {
                    Some(w) => {
                        s.post(w);
                        Action::Wake { task: w, sync: false, bytes: 0 }
                    }
                    None => {
                        s.pc[i] = 0;
                        self.step(s, task, now, rng)
                    }
                },
            }
        } else {
            // kworker: wake whoever the completion was for.
            let cpu = (task - self.clients - 1) as usize;
            if pc == 1 {
                s.pc[i] = 0;
                if let Some(t) = self.kworker_queue[cpu].pop_front() {
                    s.post(t);
                    return Action::Wake { task: t, sync: false, bytes: 0 };
                }
            }
            if s.take(task) {
                s.pc[i] = 1;
                Action::Run(KWORKER_NS)
            } else {
                Action::Block
            }
        }
    }

    /// A completion is handled on `cpu`.
    pub(super) fn irq(&mut self, s: &mut Shared, token: IrqToken, cpu: u32, out: &mut IrqOut) {
        let submitter = token.0;
        if submitter < self.clients {
            // A page-cache read completes: end_page_read wakes the reader from
            // interrupt context.
            s.post(submitter);
            out.wakes.push(submitter);
        } else {
            // A journal write completes: the work is finished in this CPU's kworker,
            // which wakes jbd2.
            let kw = self.clients + 1 + cpu;
            self.kworker_queue[cpu as usize].push_back(submitter);
            s.post(kw);
            out.wakes.push(kw);
        }
    }
}

/// MB/sec over the measured window.
pub(super) fn sample(s: &Shared, m: &Measured) -> Sample {
    s.throughput(m)
}
