//! dbench: clients replaying filesystem operations. An fsync waits for the jbd2
//! journal thread to commit and write; a page-cache miss waits for a read. Metric:
//! MB/sec.
//!
//! Where the I/O goes is the `device`:
//! - `disk` (the default; what seed 000 ran on, a real disk of Gorman's test box): I/O
//!   completes as an interrupt on `irq_cpu`, then where the block queue's
//!   `rq_affinity` puts it: a read's completion wakes the reader from interrupt
//!   context, a journal write's is finished by that CPU's kworker, which wakes jbd2.
//! - `loop` (ext4 on a loop-mounted image file, as `traces/dbench.perf.txt.gz` was
//!   recorded): no device interrupt at all. `loop_queue_rq()` → `loop_queue_work()`
//!   (v6.x `drivers/block/loop.c`) queues the request on the device's unbound
//!   workqueue and wakes its worker (a `kworker/u` thread, running where the scheduler
//!   puts it), whose `loop_workfn()` → `loop_process_work()` does the request as a
//!   read or write of the backing file (CPU time, not device time: the backing
//!   file's page cache) and completes it with `blk_mq_complete_request()`. A loop
//!   device has one hardware queue, so `blk_mq_complete_request_remote()` takes
//!   `blk_mq_raise_softirq()`: `raise_softirq()` from process context wakes the
//!   worker's CPU's `ksoftirqd`, whose `blk_done_softirq()` ends the request and wakes
//!   the waiter (the reader, or jbd2). Every wakeup of the path is from a kernel
//!   thread, none from an interrupt, as in the trace (66% of its wakeups from
//!   kernel threads, none from idle). Left out: the plug flushed at `schedule()`
//!   handing dispatch to `kblockd` (the trace's `kworker/N:1H`), and the backing
//!   file's and the image's writeback.

use super::run::{Action, IrqOut, IrqToken, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Share of a client's work done in the kernel, percent (estimate: dbench spends
/// nearly all its time in filesystem syscalls, as the seeds' User and System rows show).
const SYS_PCT: u8 = 85;
/// CPU time of a journal commit: a fixed part and a part per waiting handle (estimate).
pub(crate) const COMMIT_BASE_NS: u64 = 10_000;
const COMMIT_PER_WAITER_NS: u64 = 1_000;
/// CPU time of a kworker finishing a completion (estimate).
pub(crate) const KWORKER_NS: u64 = 3_000;
/// CPU time of the loop device's worker per request: the mean on-CPU slice of
/// `kworker/u8:3+loop0` in `traces/dbench.perf.txt.gz` (935 slices, 20.4 ms).
pub(crate) const LOOP_WORKER_NS: u64 = 22_000;
/// CPU time of `ksoftirqd` ending a request in `blk_done_softirq()`: the mean slice
/// of `ksoftirqd/1` in the same trace (591 slices, 5.9 ms).
pub(crate) const KSOFTIRQD_NS: u64 = 10_000;

/// Where dbench's filesystem sits: a disk taking interrupts, or a loop device on an
/// image file (see the module's comment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    #[default]
    Disk,
    Loop,
}

impl Device {
    fn is_default(&self) -> bool {
        *self == Device::Disk
    }
}

/// dbench's parameters: `clients` processes replaying filesystem ops; fsync goes
/// through the jbd2 journal thread, and completions arrive as interrupts on `irq_cpu`
/// and wake waiters directly or through that CPU's kworker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbenchParams {
    /// CPU time of one filesystem op. Default 5 µs (estimate).
    #[serde(default = "d_work")]
    pub work_ns: u64,
    /// Bytes accounted per op. Default 5,428: dbench counts the bytes of ReadX and
    /// WriteX, and its loadfile (`client.txt` of dbench 4.0, Debian's
    /// `/usr/share/dbench/client.txt`, which mmtests' dbench4 and tbench replay) has
    /// 2,488,062,937 of them in 458,344 operations.
    #[serde(default = "d_bytes")]
    pub op_bytes: u64,
    /// One op in this many is an fsync waiting on a journal commit. Default 82: the
    /// loadfile's 5,553 Flush lines (`fio_flush()` is an `fsync()`) of 458,344.
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
    /// `disk` (default) or `loop`: see [`Device`]. On a loop device `io_ns`,
    /// `irq_cpu` and `rq_affinity` do not apply.
    #[serde(default, skip_serializing_if = "Device::is_default")]
    pub device: Device,
    /// Loop device: how long `vfs_fsync()` of the backing file waits for the device
    /// under the image (`irq_cpu` takes its interrupt). Default 4.1 ms: the mean of the
    /// 2,000 `fsync()` calls of `scripts/probes/fsync-latency.c` on the `kvm-2` box's
    /// root filesystem, where the traced image sat (`traces/box/fsync-latency.txt`; the
    /// runs' means range from 1.8 to 6.5 ms with the box's other I/O).
    #[serde(default = "d_flush", skip_serializing_if = "is_d_flush")]
    pub flush_ns: u64,
}

fn d_work() -> u64 {
    5_000
}
fn d_bytes() -> u64 {
    5_428
}
fn d_fsync() -> u64 {
    82
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
fn d_flush() -> u64 {
    4_100_000
}
fn is_d_flush(v: &u64) -> bool {
    *v == d_flush()
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
        pos("flush_ns", self.flush_ns, SEC)?;
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
    /// Tasks below this id are the clients; then jbd2, then one kworker (disk) or
    /// `ksoftirqd` (loop) per CPU, then the loop device's worker (loop).
    clients: u32,
    nr_cpus: u32,
    /// Clients waiting for the next journal commit.
    jbd2_waiters: Vec<u32>,
    /// Clients whose commit is being written.
    jbd2_committing: Vec<u32>,
    /// Per CPU, the tasks whose completion its kworker (disk) or `ksoftirqd` (loop)
    /// is to finish.
    kworker_queue: Vec<VecDeque<u32>>,
    /// Loop device: per worker (the clients', jbd2's) the requests queued for it,
    /// and the one it is doing.
    loop_queue: [VecDeque<Request>; 2],
    loop_current: [Option<Request>; 2],
}

/// A request queued on a loop device: who waits for it, and whether it is a commit
/// record (REQ_PREFLUSH | REQ_FUA).
#[derive(Clone, Copy)]
struct Request {
    submitter: u32,
    flush: bool,
}

impl Dbench {
    /// The clients, jbd2, a kworker (disk) or `ksoftirqd` (loop) pinned to each CPU,
    /// and the loop device's worker.
    pub(super) fn new(p: DbenchParams, clients: u32, nr_cpus: u32, tasks: &mut Vec<TaskInit>) -> Self {
        for i in 0..clients {
            tasks.push(TaskInit::app(format!("dbench/{i}"), p.ws_bytes, SYS_PCT));
        }
        tasks.push(TaskInit::unbound_kthread("jbd2".into(), 32 << 10));
        for c in 0..nr_cpus {
            let name = if p.device == Device::Loop { format!("ksoftirqd/{c}") } else { format!("kworker/{c}") };
            tasks.push(TaskInit::kthread(name, c, 8 << 10));
        }
        if p.device == Device::Loop {
            for w in ["kworker/u:loop0", "kworker/u:loop0-root"] {
                tasks.push(TaskInit::unbound_kthread(w.into(), 16 << 10));
            }
        }
        Dbench {
            p,
            clients,
            nr_cpus,
            jbd2_waiters: Vec::new(),
            jbd2_committing: Vec::new(),
            kworker_queue: vec![VecDeque::new(); nr_cpus as usize],
            loop_queue: [VecDeque::new(), VecDeque::new()],
            loop_current: [None; 2],
        }
    }

    /// The loop device's worker for `submitter`'s cgroup: since v5.10 (c74d40e8b5e2,
    /// "loop: charge i/o to mem and blk cg") `loop_queue_work()` queues a request on
    /// a worker of its blkcg, so the clients' requests (their session's cgroup) and
    /// jbd2's (the root cgroup) are done by two workers.
    fn loop_worker(&self, submitter: u32) -> u32 {
        self.clients + 1 + self.nr_cpus + (submitter == self.jbd2()) as u32
    }

    fn jbd2(&self) -> u32 {
        self.clients
    }

    /// The I/O a client or jbd2 submits, after which it waits for its completion
    /// message: on a disk the interrupt's token names the submitter; on a loop device
    /// the request is queued for the worker, which `queue_work()` wakes (a no-op when
    /// it is already running; the submitter then finds no message and blocks).
    fn io(&mut self, task: u32, rng: &mut Pcg64) -> Action {
        match self.p.device {
            Device::Disk => Action::Io {
                ns: rng.jitter(self.p.io_ns, 20),
                irq_cpu: self.p.irq_cpu,
                token: IrqToken(task),
                rq_affinity: self.p.rq_affinity,
            },
            Device::Loop => {
                let w = self.loop_worker(task);
                self.loop_queue[(w - self.loop_worker(0)) as usize]
                    .push_back(Request { submitter: task, flush: false });
                Action::Wake { task: w, sync: false, bytes: 0 }
            }
        }
    }

    pub(super) fn step(&mut self, s: &mut Shared, task: u32, cpu: u32, now: u64, rng: &mut Pcg64) -> Action {
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
                        // jbd2_log_start_commit() wakes j_wait_commit, where kjournald2
                        // sleeps only between commits; during one it finds the waiter
                        // when it returns there.
                        if s.pc[self.jbd2() as usize] != 0 {
                            return self.step(s, task, cpu, now, rng);
                        }
                        Action::Wake { task: self.jbd2(), sync: false, bytes: 0 }
                    } else if rng.chance(1, self.p.read_miss_every) {
                        s.pc[i] = 2;
                        self.io(task, rng)
                    } else {
                        s.pc[i] = 0;
                        self.step(s, task, cpu, now, rng)
                    }
                }
                _ => {
                    if s.take(task) {
                        s.pc[i] = 0;
                        self.step(s, task, cpu, now, rng)
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
                    // On a loop device, the log blocks are written and waited for
                    // first; the commit record follows as REQ_PREFLUSH | REQ_FUA
                    // (jbd2_journal_commit_transaction(): journal_submit_commit_record()
                    // after the wait_on_buffer() of the log blocks, without the
                    // async_commit feature, ext4's default). On a disk the model writes
                    // the commit as one I/O.
                    s.pc[i] = if self.p.device == Device::Loop { 3 } else { 5 };
                    self.step(s, task, cpu, now, rng)
                }
                3 => {
                    s.pc[i] = 4;
                    let w = self.loop_worker(task);
                    self.loop_queue[1].push_back(Request { submitter: task, flush: true });
                    Action::Wake { task: w, sync: false, bytes: 0 }
                }
                4 => {
                    if !s.take(task) {
                        return Action::Block;
                    }
                    s.pc[i] = 5;
                    self.step(s, task, cpu, now, rng)
                }
                _ => match self.jbd2_committing.pop() {
                    Some(w) => {
                        s.post(w);
                        Action::Wake { task: w, sync: false, bytes: 0 }
                    }
                    None => {
                        s.pc[i] = 0;
                        self.step(s, task, cpu, now, rng)
                    }
                },
            }
        } else if task >= self.loop_worker(0) {
            self.loop_worker_step(s, task, cpu, rng)
        } else if self.p.device == Device::Loop {
            self.ksoftirqd_step(s, task)
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

    /// A loop device's worker: `loop_process_work()` takes the queued requests one
    /// by one and does each on the backing file (`lo_rw_simple()`: CPU time). A
    /// commit record's REQ_PREFLUSH | REQ_FUA becomes a flush, the write and a flush
    /// (the loop queue has a write cache and no FUA: `blk_insert_flush()`'s
    /// PREFLUSH, DATA, POSTFLUSH), and each flush is `lo_req_flush()` → `vfs_fsync()`
    /// of the backing file: the worker sleeps until the device under the image
    /// interrupts (`flush_ns`). It completes the request: the completion list of the
    /// CPU it runs on was empty, so `raise_softirq()` wakes that CPU's `ksoftirqd`.
    fn loop_worker_step(&mut self, s: &mut Shared, task: u32, cpu: u32, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let w = (task - self.loop_worker(0)) as usize;
        let pc = s.pc[i];
        if (pc == 11 || pc == 13) && !s.take(task) {
            return Action::Block;
        }
        match pc {
            // A commit record: the write after the pre-flush, the post-flush after it.
            11 => {
                s.pc[i] = 12;
                return Action::Run(LOOP_WORKER_NS);
            }
            12 => {
                s.pc[i] = 13;
                return self.flush(task, rng);
            }
            1 | 13 => {
                s.pc[i] = 0;
                if let Some(r) = self.loop_current[w].take() {
                    let done = &mut self.kworker_queue[cpu as usize];
                    done.push_back(r.submitter);
                    if done.len() == 1 {
                        return Action::Wake { task: self.clients + 1 + cpu, sync: false, bytes: 0 };
                    }
                }
            }
            _ => {}
        }
        match self.loop_queue[w].pop_front() {
            Some(r) => {
                self.loop_current[w] = Some(r);
                if r.flush {
                    s.pc[i] = 11;
                    self.flush(task, rng)
                } else {
                    s.pc[i] = 1;
                    Action::Run(LOOP_WORKER_NS)
                }
            }
            None => Action::Block,
        }
    }

    /// `vfs_fsync()` of the backing file: a wait for the device under the image, whose
    /// interrupt names the worker.
    fn flush(&self, worker: u32, rng: &mut Pcg64) -> Action {
        Action::Io {
            ns: rng.jitter(self.p.flush_ns, 20),
            irq_cpu: self.p.irq_cpu,
            token: IrqToken(worker),
            rq_affinity: self.p.rq_affinity,
        }
    }

    /// `ksoftirqd/N` on a loop device: `blk_done_softirq()` ends each request of its
    /// CPU's completion list and wakes its waiter.
    fn ksoftirqd_step(&mut self, s: &mut Shared, task: u32) -> Action {
        let i = task as usize;
        let cpu = (task - self.clients - 1) as usize;
        if s.pc[i] == 1 {
            s.pc[i] = 0;
            if let Some(t) = self.kworker_queue[cpu].pop_front() {
                s.post(t);
                return Action::Wake { task: t, sync: false, bytes: 0 };
            }
        }
        if self.kworker_queue[cpu].is_empty() {
            return Action::Block;
        }
        s.pc[i] = 1;
        Action::Run(KSOFTIRQD_NS)
    }

    /// A completion is handled on `cpu`.
    pub(super) fn irq(&mut self, s: &mut Shared, token: IrqToken, cpu: u32, out: &mut IrqOut) {
        let submitter = token.0;
        if submitter < self.clients || (self.p.device == Device::Loop && submitter >= self.loop_worker(0)) {
            // A page-cache read completes: end_page_read wakes the reader from
            // interrupt context (and a loop worker's fsync of the backing file is
            // woken by its device's completion).
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
