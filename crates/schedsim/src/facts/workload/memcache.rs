//! A memcache-like service: requests arrive as NIC interrupts spread over all CPUs
//! (RSS) at `rps_per_worker` x workers per second (Poisson); the softirq wakes the most
//! recently idle worker (epoll exclusive wakeups are LIFO), which serves the oldest
//! queued request. Optional background threads share the host. Metric: the p99
//! response time, from the interrupt's arrival to the end of the service.

use super::run::{Action, IrqOut, IrqToken, RaisedIrq, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::metrics::Histogram;
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The token of a request arrival interrupt.
const ARRIVAL: IrqToken = IrqToken(u32::MAX);
/// Share of a worker's work done in the kernel, percent (estimate: a worker parses
/// and hashes in user space and sends in the kernel).
const SYS_PCT: u8 = 40;
/// Shortest service time, ns (the exponential draw is cut here).
const SERVICE_MIN_NS: u64 = 1_000;

/// The memcache-like service's parameters: requests arrive as NIC interrupts spread
/// over all CPUs (RSS) at `rps_per_worker` x `clients` per second (Poisson); softirq
/// wakes the most recently idle of `clients` workers (epoll exclusive wakeups are
/// LIFO). The result is the p99 response time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemcacheParams {
    #[serde(default = "d_rps")]
    pub rps_per_worker: u64,
    /// CPU time per request. Default 20 µs (Rik van Riel's test: tens of µs).
    #[serde(default = "d_service")]
    pub service_ns: u64,
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
    /// Other threads sharing the host (agents, logging, batch): each runs
    /// `background_run_ns`, then sleeps `background_sleep_ns` (timer). Default 0.
    #[serde(default)]
    pub background_threads: u32,
    #[serde(default = "d_bg_run")]
    pub background_run_ns: u64,
    #[serde(default = "d_bg_sleep")]
    pub background_sleep_ns: u64,
    /// Confine the background threads to the last N CPUs (a cpuset, as a
    /// co-located batch job has), round-robin; 0 leaves them free. Default 0.
    #[serde(default)]
    pub background_cpus: u32,
}

fn d_rps() -> u64 {
    10_000
}
fn d_service() -> u64 {
    20_000
}
fn d_ws() -> u64 {
    128 << 10
}
fn d_bg_run() -> u64 {
    200_000
}
fn d_bg_sleep() -> u64 {
    2_000_000
}

impl MemcacheParams {
    /// Checks the parameters against a machine of `nr_cpus` CPUs; names the bad one.
    pub(super) fn validate(&self, nr_cpus: u32) -> Result<(), String> {
        let pos = |name, v, max| check_range("memcache", name, v, max);
        if self.background_cpus > nr_cpus {
            return Err(format!(
                "workload memcache: background_cpus = {}, the machine has {nr_cpus} CPUs",
                self.background_cpus
            ));
        }
        pos("rps_per_worker", self.rps_per_worker, 10_000_000)?;
        pos("service_ns", self.service_ns, SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)?;
        if self.background_threads > 10_000 {
            return Err(format!("workload memcache: background_threads = {}, at most 10000", self.background_threads));
        }
        pos("background_run_ns", self.background_run_ns, SEC)?;
        pos("background_sleep_ns", self.background_sleep_ns, 100 * SEC)
    }
}

/// The most requests the model holds waiting (8 bytes each): a bound on the simulator's
/// memory, not a model of a socket buffer. Only an offered load far past what the
/// workers serve reaches it (seed002's rps_per_worker = 10,000,000 on 120 workers had
/// queued 4 GB when its allocation failed); the run then fails, saying so, rather than
/// exhausting memory in the CLI or the page.
const BACKLOG_MAX: usize = 1 << 20;

#[derive(Clone)]
pub(super) struct Memcache {
    /// Requests per second, all workers together.
    rate: u64,
    service_ns: u64,
    background_run_ns: u64,
    background_sleep_ns: u64,
    /// Tasks below this id are the workers; the background threads follow.
    workers: u32,
    nr_cpus: u32,
    /// Arrival times of the queued requests.
    requests: VecDeque<u64>,
    /// Arrival times of raised but not yet handled request interrupts.
    arrived: VecDeque<u64>,
    /// Idle workers, the most recent last (LIFO).
    idle_workers: Vec<u32>,
    /// Per worker, the arrival time of the request it serves.
    serving: Vec<u64>,
    /// Response times of the measured window.
    pub(super) req_latency: Histogram,
}

impl Memcache {
    /// The workers, then the background threads (confined round-robin to the last
    /// `background_cpus` CPUs if that is set).
    pub(super) fn new(p: &MemcacheParams, clients: u32, nr_cpus: u32, tasks: &mut Vec<TaskInit>) -> Self {
        for w in 0..clients {
            tasks.push(TaskInit::app(format!("worker/{w}"), p.ws_bytes, SYS_PCT));
        }
        for b in 0..p.background_threads {
            let mut bt = TaskInit::app(format!("background/{b}"), 256 << 10, 0);
            if p.background_cpus > 0 {
                bt.pinned = Some(nr_cpus - 1 - b % p.background_cpus);
            }
            tasks.push(bt);
        }
        Memcache {
            rate: p.rps_per_worker * clients as u64,
            service_ns: p.service_ns,
            background_run_ns: p.background_run_ns,
            background_sleep_ns: p.background_sleep_ns,
            workers: clients,
            nr_cpus,
            requests: VecDeque::new(),
            arrived: VecDeque::new(),
            idle_workers: Vec::new(),
            serving: vec![0; clients as usize],
            req_latency: Histogram::default(),
        }
    }

    /// Time to the next arrival, ns (Poisson).
    fn arrival_gap(&self, rng: &mut Pcg64) -> u64 {
        rng.exp(1_000_000_000 / self.rate.max(1)).max(1)
    }

    /// The first arrival interrupt, on a random CPU.
    pub(super) fn first_arrival(&self, rng: &mut Pcg64) -> RaisedIrq {
        let gap = self.arrival_gap(rng);
        RaisedIrq { at_ns: gap, cpu: rng.below(self.nr_cpus as u64) as u32, token: ARRIVAL }
    }

    /// An arrival is raised: it is stamped now, and the next one is scheduled. Fails
    /// when the requests not yet taken by a worker (queued, or raised and not yet
    /// handled) pass [`BACKLOG_MAX`].
    pub(super) fn on_raise(&mut self, token: IrqToken, now: u64, rng: &mut Pcg64) -> Result<Option<RaisedIrq>, String> {
        if token != ARRIVAL {
            return Ok(None);
        }
        let gap = self.arrival_gap(rng);
        self.arrived.push_back(now);
        if self.requests.len() + self.arrived.len() > BACKLOG_MAX {
            return Err(format!(
                "workload memcache: more than {BACKLOG_MAX} requests wait for a worker at {:.3} ms: the offered \
                 load (rps_per_worker x clients) is far past what the workers serve; lower rps_per_worker",
                now as f64 / 1e6
            ));
        }
        Ok(Some(RaisedIrq { at_ns: now + gap, cpu: rng.below(self.nr_cpus as u64) as u32, token: ARRIVAL }))
    }

    /// The softirq queues the request and wakes the most recently idle worker.
    pub(super) fn irq(&mut self, now: u64, out: &mut IrqOut) {
        self.requests.push_back(self.arrived.pop_front().unwrap_or(now));
        if let Some(w) = self.idle_workers.pop() {
            out.wakes.push(w);
        }
    }

    pub(super) fn step(&mut self, s: &mut Shared, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let pc = s.pc[i];
        if task >= self.workers {
            s.pc[i] ^= 1;
            return if pc == 0 {
                Action::Run(rng.jitter(self.background_run_ns, 50))
            } else {
                Action::Sleep(rng.jitter(self.background_sleep_ns, 50))
            };
        }
        if pc == 1 {
            // Response sent.
            s.pc[i] = 0;
            if self.serving[i] >= s.measure_from {
                self.req_latency.record(now - self.serving[i]);
                s.ops += 1;
            }
        }
        match self.requests.pop_front() {
            Some(arrived) => {
                self.serving[i] = arrived;
                s.pc[i] = 1;
                Action::Run(rng.exp(self.service_ns).max(SERVICE_MIN_NS))
            }
            None => {
                self.idle_workers.push(task);
                Action::Block
            }
        }
    }

    /// The 99th percentile of the window's response times, µs.
    pub(super) fn sample(&self) -> Sample {
        Sample { value: self.req_latency.percentile(99) as f64 / 1e3, finished: true }
    }
}
