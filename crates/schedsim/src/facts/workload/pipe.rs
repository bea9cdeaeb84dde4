//! perf bench sched pipe: independent pairs ping-ponging over two pipes, each side
//! writing 8 bytes and waking the other (sync). Metric: µs per round trip per pair,
//! as perf prints usecs/op.

use super::run::{Action, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};

/// perf bench sched pipe's parameters: `clients` independent pairs ping-ponging over
/// two pipes. Result in µs per round trip, per pair, as perf prints usecs/op.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipeParams {
    /// `-l`, default 1,000,000; the run stops at the experiment duration first.
    #[serde(default = "d_loops")]
    pub loops: u64,
    /// CPU cost of one write + read pair. Default 1 µs (estimate).
    #[serde(default = "d_work")]
    pub work_ns: u64,
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
}

fn d_loops() -> u64 {
    1_000_000
}
fn d_work() -> u64 {
    1_000
}
fn d_ws() -> u64 {
    16 << 10
}

impl PipeParams {
    /// Checks the parameters; names the bad one.
    pub(super) fn validate(&self) -> Result<(), String> {
        let pos = |name, v, max| check_range("pipe", name, v, max);
        pos("loops", self.loops, 1 << 40)?;
        pos("work_ns", self.work_ns, SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)
    }
}

/// Share of a task's work done in the kernel, percent (estimate: the IPC benchmarks
/// spend nearly all their time in syscalls, as the seeds' User and System rows show).
pub(super) const SYS_PCT_IPC: u8 = 90;

#[derive(Clone)]
pub(super) struct Pipe {
    loops: u64,
    work_ns: u64,
    /// Per first task of a pair, round trips done.
    loops_done: Vec<u64>,
}

impl Pipe {
    /// Task 2i is pair i's first side, 2i + 1 its second.
    pub(super) fn new(p: &PipeParams, clients: u32, tasks: &mut Vec<TaskInit>) -> Self {
        let PipeParams { loops, work_ns, ws_bytes } = *p;
        for i in 0..clients {
            tasks.push(TaskInit::app(format!("pipe-a/{i}"), ws_bytes, SYS_PCT_IPC));
            tasks.push(TaskInit::app(format!("pipe-b/{i}"), ws_bytes, SYS_PCT_IPC));
        }
        Pipe { loops, work_ns, loops_done: vec![0; 2 * clients as usize] }
    }

    pub(super) fn step(&mut self, s: &mut Shared, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let a = task.is_multiple_of(2);
        let partner = task ^ 1;
        match (a, s.pc[i]) {
            (true, 0) | (false, 1) => {
                s.pc[i] = 2;
                Action::Run(rng.jitter(self.work_ns, 10))
            }
            (_, 2) => {
                s.pc[i] = 3;
                s.post(partner);
                Action::Wake { task: partner, sync: true, bytes: 8 }
            }
            _ => {
                if s.take(task) {
                    if a {
                        if s.measuring(now) {
                            s.ops += 1;
                        }
                        self.loops_done[i] += 1;
                        if self.loops_done[i] >= self.loops {
                            // The pairs finish when every first task has done its loops.
                            return s.exit_one(now, s.nr_tasks / 2);
                        }
                    }
                    s.pc[i] = if a { 0 } else { 1 };
                    self.step(s, task, now, rng)
                } else {
                    Action::Block
                }
            }
        }
    }
}

/// µs per round trip per pair over the measured window (0 if none completed).
pub(super) fn sample(s: &Shared, m: &Measured) -> Sample {
    let pairs = (s.nr_tasks / 2).max(1) as f64;
    let per_pair = s.ops as f64 / pairs;
    let value = if per_pair > 0.0 { m.window_ns as f64 / 1e3 / per_pair } else { 0.0 };
    Sample { value, finished: true }
}
