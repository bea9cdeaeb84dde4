//! tbench (dbench-4.0 `tbench.c`/`tbench_srv.c`): client/server pairs over loopback
//! TCP, strictly alternating request and reply with sync wakeups
//! (`sock_def_readable`). Metric: MB/sec of the clients' round trips.

use super::run::{Action, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};

/// tbench's parameters: `clients` client/server pairs over loopback TCP, strictly
/// alternating request and reply with sync wakeups (sock_def_readable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TbenchParams {
    /// Request + reply payload per round trip, the bytes tbench counts. Default 5,428:
    /// the ReadX and WriteX bytes per operation of its loadfile (`client.txt` of
    /// dbench 4.0: 2,488,062,937 in 458,344 operations; a read's data is in the reply,
    /// a write's in the request).
    #[serde(default = "d_msg")]
    pub msg_bytes: u64,
    /// CPU work per half round trip incl. the TCP stack. Default 6 µs (estimate).
    #[serde(default = "d_work")]
    pub work_ns: u64,
    /// Working set per process. Default 128 KiB (estimate).
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
}

fn d_msg() -> u64 {
    5_428
}
fn d_work() -> u64 {
    6_000
}
fn d_ws() -> u64 {
    128 << 10
}

impl TbenchParams {
    /// Checks the parameters; names the bad one.
    pub(super) fn validate(&self) -> Result<(), String> {
        let pos = |name, v, max| check_range("tbench", name, v, max);
        pos("msg_bytes", self.msg_bytes, 1 << 30)?;
        pos("work_ns", self.work_ns, SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)
    }
}

/// Share of a task's work done in the kernel, percent (estimate: tbench's work is
/// mostly the loopback TCP stack).
const SYS_PCT: u8 = 80;

#[derive(Clone)]
pub(super) struct Tbench {
    msg_bytes: u64,
    work_ns: u64,
}

impl Tbench {
    /// Task 2i is client i, task 2i + 1 its server.
    pub(super) fn new(p: &TbenchParams, clients: u32, tasks: &mut Vec<TaskInit>) -> Self {
        let TbenchParams { msg_bytes, work_ns, ws_bytes } = *p;
        for i in 0..clients {
            tasks.push(TaskInit::app(format!("tbench/{i}"), ws_bytes, SYS_PCT));
            tasks.push(TaskInit::app(format!("tbench_srv/{i}"), ws_bytes, SYS_PCT));
        }
        Tbench { msg_bytes, work_ns }
    }

    /// Client: work, send, wait for the reply. Server: wait, work, reply.
    pub(super) fn step(&self, s: &mut Shared, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let client = task.is_multiple_of(2);
        let partner = task ^ 1;
        match (client, s.pc[i]) {
            (true, 0) | (false, 1) => {
                s.pc[i] = 2;
                Action::Run(rng.jitter(self.work_ns, 20))
            }
            (_, 2) => {
                s.pc[i] = 3;
                s.post(partner);
                Action::Wake { task: partner, sync: true, bytes: self.msg_bytes / 2 }
            }
            (_, _) => {
                // Waiting for the partner.
                if s.take(task) {
                    if client && s.measuring(now) {
                        s.bytes += self.msg_bytes;
                        s.ops += 1;
                    }
                    s.pc[i] = if client { 0 } else { 1 };
                    self.step(s, task, now, rng)
                } else {
                    Action::Block
                }
            }
        }
    }
}

/// The order in which the `app` tasks are forked: the `tbench` parent forks all its
/// clients in a loop, and `tbench_srv` forks one server child per accepted
/// connection, so the servers come after the clients, not interleaved with them.
/// Interleaving would let the fork balancer alternate nodes and put every client on
/// one node and every server on the other.
pub(super) fn fork_order(app: u32) -> impl Iterator<Item = u32> {
    (0..app).step_by(2).chain((1..app).step_by(2))
}

/// MB/sec over the measured window.
pub(super) fn sample(s: &Shared, m: &Measured) -> Sample {
    s.throughput(m)
}
