//! What a run will cost, estimated before it starts, so that a run the event cap
//! would stop is refused while validating instead of after minutes of work.
//!
//! The bound is per simulated second: each task does at most one operation per
//! (its CPU work per operation + a context switch), and each operation costs at most
//! [`EVENTS_PER_OP`] events (wakeup, enqueue, IPI, idle exit, segment ends, balancing;
//! [`EVENTS_PER_REQUEST`] for a memcache request, which also has its interrupt);
//! each CPU adds its ticks, its housekeeping kworker and the wasted-core sampler. The
//! constants are measured upper bounds with a margin: at most 0.45 of the estimate in
//! any preset run (`tests/estimate.rs` checks every preset against the bound).

use crate::api::experiment::Experiment;
use crate::facts::cost::CostModel;
use crate::facts::workload::{
    DbenchParams, HackbenchParams, MemcacheParams, PipeParams, SchbenchParams, TbenchParams, Workload,
};

/// Most events one run may process (`SimOptions::max_events`).
pub const RUN_EVENTS_MAX: u64 = 2_000_000_000;
/// Events per task operation, an upper bound with a margin.
pub const EVENTS_PER_OP: u64 = 8;
/// Events per memcache request, an upper bound with a margin (a NIC interrupt, its
/// softirq, the wakeup and its IPI, the service and the worker going idle again).
pub const EVENTS_PER_REQUEST: u64 = 16;
/// Events per periodic per-CPU activity (a tick with its balancing, a kworker wakeup).
pub const EVENTS_PER_PERIODIC: u64 = 8;

const SEC: u128 = 1_000_000_000;

/// Operations per second of one task doing `op_ns` of work, plus a context switch.
fn ops_per_sec(op_ns: u64, costs: &CostModel) -> u128 {
    SEC / (op_ns as u128 + costs.context_switch_ns as u128).max(1)
}

/// An upper estimate of the events of one run with `clients` on `nr_cpus` CPUs.
pub fn run_events(exp: &Experiment, clients: u32, nr_cpus: u32, costs: &CostModel) -> u64 {
    let c = clients as u128;
    let mut per_op = EVENTS_PER_OP as u128;
    let ops: u128 = match &exp.workload {
        Workload::Tbench(TbenchParams { work_ns, .. }) | Workload::Pipe(PipeParams { work_ns, .. }) => {
            2 * c * ops_per_sec(*work_ns, costs)
        }
        Workload::Dbench(DbenchParams { work_ns, .. }) => (c + 1) * ops_per_sec(*work_ns, costs),
        Workload::Hackbench(HackbenchParams { fds, work_ns, .. }) => {
            c * 2 * *fds as u128 * ops_per_sec(*work_ns, costs)
        }
        Workload::Schbench(SchbenchParams { workers, sleep_ns, cpu_ns, .. }) => {
            c * ops_per_sec(*sleep_ns, costs) + c * *workers as u128 * ops_per_sec(*cpu_ns, costs)
        }
        Workload::Memcache(MemcacheParams {
            rps_per_worker,
            service_ns,
            background_threads,
            background_run_ns,
            ..
        }) => {
            per_op = EVENTS_PER_REQUEST as u128;
            c * (*rps_per_worker as u128).min(ops_per_sec(*service_ns, costs))
                + *background_threads as u128 * ops_per_sec(*background_run_ns, costs)
        }
        // A replay's work is its programs' steps, each at most a request's events
        // (an interrupt wakeup is the dearest); bounded below by the whole program.
        Workload::Replay(_) => 0,
    };
    let mut periodic = SEC / costs.tick_ns.max(1) as u128;
    if exp.housekeeping.enabled {
        periodic += SEC / exp.housekeeping.period_ns.max(1) as u128;
    }
    let cpus = nr_cpus as u128 * periodic * EVENTS_PER_PERIODIC as u128;
    let sampler = match exp.wasted_core_threshold_ns {
        0 => 0,
        t => SEC / (t / 10).max(1_000) as u128,
    };
    // hackbench and pipe do a fixed amount of work and stop: their operations over
    // the whole run are bounded by it too.
    let secs_ms = exp.duration_ms as u128;
    let mut op_events = ops * per_op * secs_ms / 1000;
    match &exp.workload {
        Workload::Hackbench(HackbenchParams { fds, loops, .. }) => {
            let total = c * (*fds as u128).pow(2) * *loops as u128 * 2;
            op_events = op_events.min(total * per_op);
        }
        Workload::Pipe(PipeParams { loops, .. }) => op_events = op_events.min(c * 2 * *loops as u128 * per_op),
        Workload::Replay(p) => {
            let steps: u128 = p.tasks.iter().map(|t| t.program.len() as u128).sum();
            op_events = c * steps * EVENTS_PER_REQUEST as u128;
        }
        _ => {}
    }
    let events = op_events + (cpus + sampler) * secs_ms / 1000;
    events.min(u64::MAX as u128) as u64
}
