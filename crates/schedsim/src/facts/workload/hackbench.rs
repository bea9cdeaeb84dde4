//! hackbench (perf bench sched messaging): groups of `fds` senders and `fds`
//! receivers over AF_UNIX sockets or pipes; each sender writes `loops` messages of
//! `datasize` bytes to every receiver of its group, blocking while a receiver's buffer
//! is full. Metric: seconds until every message is read.

use super::pipe::SYS_PCT_IPC;
use super::run::{Action, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};

/// hackbench's parameters: `clients` groups of `fds` senders and `fds` receivers; each
/// sender writes `loops` messages of `datasize` bytes to every receiver of its group.
/// The result is the time until all messages are read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HackbenchParams {
    /// `-f`, default 20.
    #[serde(default = "d_fds")]
    pub fds: u32,
    /// `-l`, default 100 (perf bench sched messaging's default).
    #[serde(default = "d_loops")]
    pub loops: u32,
    /// `-s`, default 100 bytes.
    #[serde(default = "d_datasize")]
    pub datasize: u64,
    /// `-p`: pipes instead of AF_UNIX sockets. Default false.
    #[serde(default)]
    pub pipe: bool,
    /// CPU cost of one write or one read syscall. Default 1.5 µs (estimate).
    #[serde(default = "d_work")]
    pub work_ns: u64,
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
}

fn d_fds() -> u32 {
    20
}
fn d_loops() -> u32 {
    100
}
fn d_datasize() -> u64 {
    100
}
fn d_work() -> u64 {
    1_500
}
fn d_ws() -> u64 {
    64 << 10
}

impl HackbenchParams {
    /// Checks the parameters; names the bad one.
    pub(super) fn validate(&self) -> Result<(), String> {
        let pos = |name, v, max| check_range("hackbench", name, v, max);
        pos("fds", self.fds as u64, 1000)?;
        pos("loops", self.loops as u64, 1 << 30)?;
        pos("datasize", self.datasize, 1 << 20)?;
        pos("work_ns", self.work_ns, SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)
    }
}

/// The default socket send buffer, `net.core.wmem_default`, bytes.
const WMEM_DEFAULT: u64 = 212_992;
/// Bytes of `skb` truesize a message costs besides its data (estimate).
const SKB_OVERHEAD: u64 = 576;
/// A pipe's buffer: 16 pages (`PIPE_DEF_BUFFERS`).
const PIPE_BUF_BYTES: u64 = 65_536;
/// Sender program counter: set when a write is done and its receiver is to be woken;
/// the low bits are the index of the next receiver.
const WRITE_DONE: u32 = 0x1_0000;

#[derive(Clone)]
pub(super) struct Hackbench {
    fds: u32,
    datasize: u64,
    work_ns: u64,
    /// Messages a receiver's buffer holds.
    capacity: u32,
    /// Per receiver, the senders blocked on its full buffer.
    blocked_senders: Vec<Vec<u32>>,
    /// Per task, messages left to write or read.
    left: Vec<u64>,
}

impl Hackbench {
    /// Group g's senders, then its receivers, group after group.
    pub(super) fn new(p: &HackbenchParams, clients: u32, tasks: &mut Vec<TaskInit>) -> Self {
        let HackbenchParams { fds, loops, datasize, pipe, work_ns, ws_bytes } = *p;
        for g in 0..clients {
            for s in 0..fds {
                tasks.push(TaskInit::app(format!("sender/{g}.{s}"), ws_bytes, SYS_PCT_IPC));
            }
            for r in 0..fds {
                tasks.push(TaskInit::app(format!("receiver/{g}.{r}"), ws_bytes, SYS_PCT_IPC));
            }
        }
        let n = tasks.len();
        let capacity =
            if pipe { (PIPE_BUF_BYTES / datasize.max(1)).max(1) } else { WMEM_DEFAULT / (datasize + SKB_OVERHEAD) }
                as u32;
        Hackbench {
            fds,
            datasize,
            work_ns,
            capacity,
            blocked_senders: vec![Vec::new(); n],
            // Senders send loops x fds messages; receivers read as many.
            left: vec![loops as u64 * fds as u64; n],
        }
    }

    pub(super) fn step(&mut self, s: &mut Shared, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let pc = s.pc[i];
        let f = self.fds as usize;
        let group = i / (2 * f);
        let sender = i % (2 * f) < f;
        if sender {
            if self.left[i] == 0 {
                return s.exit_one(now, s.nr_tasks);
            }
            let r_idx = (pc & 0xFFFF) as usize;
            let receiver = (group * 2 * f + f + r_idx) as u32;
            if pc & WRITE_DONE == 0 {
                if s.inbox[receiver as usize] >= self.capacity {
                    if !self.blocked_senders[receiver as usize].contains(&task) {
                        self.blocked_senders[receiver as usize].push(task);
                    }
                    return Action::Block;
                }
                s.pc[i] = pc | WRITE_DONE;
                return Action::Run(rng.jitter(self.work_ns, 10));
            }
            s.post(receiver);
            self.left[i] -= 1;
            s.pc[i] = ((r_idx + 1) % f) as u32;
            Action::Wake { task: receiver, sync: true, bytes: self.datasize }
        } else {
            if pc == 1 {
                // Read done: wake a sender blocked on our full buffer.
                s.pc[i] = 0;
                if let Some(w) = self.blocked_senders[i].pop() {
                    return Action::Wake { task: w, sync: true, bytes: 0 };
                }
            }
            if self.left[i] == 0 {
                return s.exit_one(now, s.nr_tasks);
            }
            if s.take(task) {
                self.left[i] -= 1;
                s.pc[i] = 1;
                if s.measuring(now) {
                    s.ops += 1;
                }
                Action::Run(rng.jitter(self.work_ns, 10))
            } else {
                Action::Block
            }
        }
    }
}

/// Seconds from the start to the end of the run; finished only if every task exited.
pub(super) fn sample(s: &Shared, m: &Measured) -> Sample {
    Sample { value: m.end_ns as f64 / 1e9, finished: s.finished_at.is_some() }
}
