//! A memcache-like service: requests arrive as NIC interrupts spread over all CPUs
//! (RSS) at `rps_per_worker` x workers per second (Poisson); the softirq wakes the most
//! recently idle worker (epoll exclusive wakeups are LIFO), which serves the oldest
//! queued request. Optional background threads share the host. Metric: the p99
//! response time, from the interrupt's arrival to the end of the service.

use super::run::{Action, IrqOut, IrqToken, RaisedIrq, Sample, Shared, TaskInit};
use crate::metrics::Histogram;
use crate::rng::Pcg64;
use std::collections::VecDeque;

/// The token of a request arrival interrupt.
const ARRIVAL: IrqToken = IrqToken(u32::MAX);
/// Share of a worker's work done in the kernel, percent (estimate: a worker parses
/// and hashes in user space and sends in the kernel).
const SYS_PCT: u8 = 40;
/// Shortest service time, ns (the exponential draw is cut here).
const SERVICE_MIN_NS: u64 = 1_000;

/// `Workload::Memcache`'s parameters.
#[derive(Clone)]
pub(super) struct Params {
    pub rps_per_worker: u64,
    pub service_ns: u64,
    pub ws_bytes: u64,
    pub background_threads: u32,
    pub background_run_ns: u64,
    pub background_sleep_ns: u64,
    pub background_cpus: u32,
}

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
    pub(super) fn new(p: Params, clients: u32, nr_cpus: u32, tasks: &mut Vec<TaskInit>) -> Self {
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

    /// An arrival is raised: it is stamped now, and the next one is scheduled.
    pub(super) fn on_raise(&mut self, token: IrqToken, now: u64, rng: &mut Pcg64) -> Option<RaisedIrq> {
        if token != ARRIVAL {
            return None;
        }
        let gap = self.arrival_gap(rng);
        self.arrived.push_back(now);
        Some(RaisedIrq { at_ns: now + gap, cpu: rng.below(self.nr_cpus as u64) as u32, token: ARRIVAL })
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
