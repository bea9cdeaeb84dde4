//! tbench (dbench-4.0 `tbench.c`/`tbench_srv.c`): client/server pairs over loopback
//! TCP, strictly alternating request and reply with sync wakeups
//! (`sock_def_readable`). Metric: MB/sec of the clients' round trips.

use super::run::{Action, Measured, Sample, Shared, TaskInit};
use crate::rng::Pcg64;

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
    pub(super) fn new(msg_bytes: u64, work_ns: u64, ws_bytes: u64, clients: u32, tasks: &mut Vec<TaskInit>) -> Self {
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
