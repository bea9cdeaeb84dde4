//! What a run will cost, estimated before it starts: a central estimate of its events
//! for people ([`run_events`], `schedsim run --dry-run` and the page's question before a
//! big sweep), and a bound on them for validation ([`run_events_max`]), so that a run
//! the event cap would stop is refused while validating instead of after minutes of
//! work.
//!
//! The central estimate follows each workload's model (`facts/workload/*.rs`) per
//! simulated second: the operations a task chain does with CPUs to spare (its work,
//! its device waits, its wakeups' latency onto idle CPUs), or, with more runnable tasks
//! than CPUs, what the CPUs run (SMT siblings sharing cores, each switch-in refilling a
//! working set the other tasks evicted), each operation charged the events of its path
//! ([`EVENTS_PER_SEGMENT`], [`EVENTS_PER_IDLE_WAKEUP`] or [`EVENTS_PER_QUEUED_WAKEUP`],
//! [`EVENTS_PER_INTERRUPT`]), plus the CPUs' periodic activity. It is per run, at the
//! run's kernel: where the kernel's `select_idle_sibling()` passes over a wakee's warm
//! previous CPU (v3.8 without sis-prev-idle, or any version with it switched off), a
//! pair's tasks go round the LLC's idle cores and each wakeup pays the exit of the
//! deepest idle state the round leaves them time to reach (`Machine::walked_wake_ns`).
//! `tests/estimate.rs` prints it against what every preset's runs process, from one
//! client to well past each machine: within 2.0 times either way (seed001's single
//! pair under v3.8, 7.1 times over while the estimate did not know the kernel, is now
//! 0.79 times).
//!
//! A kernel column with a policy script is charged its script on top
//! ([`script_ops_max`], [`SCRIPT_NS_PER_OP`]): its operation budgets bound what the script
//! may do, and a script over a large LLC can spend them where the events alone say a
//! tenth of a second (issue 42).
//!
//! The bound counts the same operations at their best case and dearest: each
//! operation's shortest work and no wakeup latency, no refill but the least the caches
//! force, and the most events any operation was measured to take, with a margin
//! ([`EVENTS_PER_OP`]); the tests check it against the same runs.

use crate::api::experiment::Experiment;
use crate::facts::cost::CostModel;
use crate::facts::kernel::{KernelSpec, Switch};
use crate::facts::policy::{run_ops_max, CALL_OPS_MAX, HOOKS};
use crate::facts::topology::CpuMap;
use crate::facts::workload::replay::Op as ReplayOp;
use crate::facts::workload::{
    DbenchDevice, DbenchParams, HackbenchParams, MemcacheParams, PipeParams, SchbenchParams, TbenchParams, Workload,
    COMMIT_BASE_NS, KSOFTIRQD_NS, KWORKER_NS, LOOP_WORKER_NS, WAKE_HANDLING_NS,
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

/// The CPUs' side of the bound: how many operations `map`'s CPUs can run per second
/// when `runnable` tasks compete for them, each operation taking at least `min_op_ns`
/// of work, a context switch (half out, half in: `start_switch`) and, once there are
/// more runnable tasks than CPUs, the refill of its working set (`ws_bytes`) that the
/// tasks run in between evicted: from the LLC when the L2 was overrun, from DRAM when
/// the LLC was too (`refill_penalty`, at its best case: every other task's set in the
/// way once). However many tasks there are, they share the CPUs.
fn cpu_ops_per_sec(map: &CpuMap, costs: &CostModel, runnable: u128, min_op_ns: u64, ws_bytes: u64) -> u128 {
    let n = map.nr_cpus().max(1) as u128;
    let mut op_ns = min_op_ns as u128 + costs.context_switch_ns as u128;
    if runnable > n {
        let ws = ws_bytes as u128;
        let share = |others: u128, size: u64| -> u128 { (others * 1024 / (size as u128).max(1)).min(1024) };
        let l2 = share((runnable / n - 1) * ws, costs.l2_bytes);
        let llcs = map.llc_cpus.len().max(1) as u128;
        let llc = share((runnable / llcs).saturating_sub(1) * ws, costs.llc_bytes);
        let evicted = ws * l2 / 1024;
        let from_dram = evicted * llc / 1024;
        let lines = |b: u128| b.div_ceil(costs.cache_line_bytes.max(1) as u128);
        let mlp = costs.refill_mlp.max(1) as u128;
        op_ns += lines(evicted - from_dram) * costs.llc_hit_ns as u128 / mlp
            + lines(from_dram) * costs.dram_ns as u128 / mlp;
    }
    n * SEC / op_ns.max(1)
}

/// The shortest a `jitter(mean, spread_pct)` draw can be (`Pcg64::jitter`).
fn jitter_min(mean: u64, spread_pct: u64) -> u64 {
    mean - mean * spread_pct / 100
}

// ---- The central estimate --------------------------------------------------------
//
// What a run does per simulated second, term by term, in the simulator's own units:
// a stretch of CPU work that ends is one event, a wakeup adds the events of its path
// (which depend on whether the wakee's CPU is idle), a device interrupt its own, and
// every CPU its periodic activity. The operation rates come from the workload's own
// model (`facts/workload/*.rs`): how long one operation keeps a task on a CPU and off
// it, and, once more tasks want a CPU than there are CPUs, what the CPUs can run,
// each switch-in paying the refill of a working set the other tasks evicted
// (`Sim::refill_penalty`). Figures per operation are in millionths (ppm) so that the
// arithmetic stays in integers.

/// Millionths: fractions of an operation (a read miss in 20 operations is 50,000).
const PPM: u128 = 1_000_000;

/// Events of a stretch of CPU work that ends (a `Run` step's end, or a waker's stretch
/// of kernel time in `try_to_wake_up()` on a task already awake), events.
pub const EVENTS_PER_SEGMENT: u64 = 1;
/// Events of a wakeup whose wakee's CPU is idle, besides the wakee's work: the enqueue,
/// the reschedule IPI, the idle exit, the switch in, and the waker's switch out.
/// Measured: tbench and pipe below their CPUs process 6.0–6.4 events per wakeup, work
/// included (`tests/estimate.rs` prints events per wakeup).
pub const EVENTS_PER_IDLE_WAKEUP: u64 = 5;
/// Events of a wakeup whose wakee queues behind a running task (no IPI, no idle
/// exit): the enqueue, the switch out and the switch in. Measured: tbench past its
/// CPUs processes 4.0–4.1 events per wakeup, work included.
pub const EVENTS_PER_QUEUED_WAKEUP: u64 = 3;
/// Events of a device interrupt: its arrival and the end of its handler (memcache far
/// past its workers processes 2.2 events per request, nearly all arrivals).
pub const EVENTS_PER_INTERRUPT: u64 = 2;
/// Events of a scheduler tick on a busy CPU (with its rare balancing pass).
pub const EVENTS_PER_TICK: u64 = 1;

/// The machine as the estimate sees it.
struct Machine<'a> {
    costs: &'a CostModel,
    cpus: u128,
    cores: u128,
    llcs: u128,
    /// CPU-ns the CPUs deliver per second with every CPU busy: an SMT thread runs
    /// `smt_slowdown_pct` slower while its sibling works (`Sim`'s SMT share), so two
    /// busy threads deliver 200 / (100 + pct) cores of work.
    capacity_ns: u128,
    /// From a wakeup to the wakee running on an idle CPU: the waker's part of
    /// `try_to_wake_up()` (`ttwu_base_ns`, `enqueue_hold_ns`), the reschedule IPI
    /// (`ipi_send_ns`, `ipi_delivery_ns`, `irq_entry_exit_ns`) and the exit of the
    /// shallowest idle state that is not polling, where a CPU idle only between two
    /// operations sleeps (the menu/TEO governors' pick for a short predicted idle).
    wake_ns: u128,
    /// `wake_ns` without the idle exit: the waker's part and the IPI.
    wake_path_ns: u128,
}

impl<'a> Machine<'a> {
    fn new(map: &CpuMap, costs: &'a CostModel) -> Self {
        let cpus = map.nr_cpus().max(1) as u128;
        let cores = (map.core_cpus.len() as u128).clamp(1, cpus);
        let llcs = (map.llc_cpus.len() as u128).clamp(1, cpus);
        let capacity_ns =
            if cores < cpus { cpus * SEC * 100 / (100 + costs.smt_slowdown_pct as u128) } else { cpus * SEC };
        let idle_exit = costs.cstates.iter().find(|c| !c.polling).map_or(0, |c| c.wake_ns.unwrap_or(c.exit_latency_ns));
        let wake_path_ns = [costs.ttwu_base_ns, costs.enqueue_hold_ns, costs.ipi_send_ns, costs.ipi_delivery_ns]
            .iter()
            .chain([costs.irq_entry_exit_ns].iter())
            .map(|&x| x as u128)
            .sum();
        Machine { costs, cpus, cores, llcs, capacity_ns, wake_ns: wake_path_ns + idle_exit as u128, wake_path_ns }
    }

    /// From a wakeup to the wakee running, for `pairs` strictly alternating pairs (each
    /// half round trip `cpu_ns` of CPU time) on a kernel whose `select_idle_sibling()`
    /// (`kernel/sched/fair.c`, [`crate::linux::sis`]) has no check of the wakee's
    /// previous CPU, which is warm: v3.8's group walk takes the first group of the
    /// LLC's domain, in list order from the target's, whose CPUs are all idle, and from
    /// Peter Zijlstra's rewrite (10e2f1acd010, v4.9) `select_idle_core()` /
    /// `select_idle_cpu()` take the first idle core or CPU from the target on. The
    /// target is the waker's CPU (`wake_affine()` pulls a sync wakeup), busy with the
    /// waker; the wakee's prev is checked only with Galbraith's e0a79f529d5b (v3.9,
    /// seed 001's `sis-prev-idle`, on in every version since), and v4.17–v5.14's
    /// `recent_used_cpu` (32e839dda3ba) is the wakee's own CPU when it last woke its
    /// partner, its prev, which it skips. So each wakeup takes the next wholly idle
    /// core after the waker's, and a pair's tasks go round the LLC's cores one after
    /// the other (the waker, asleep once its partner runs, leaves its core to the
    /// round): a core stays idle while the LLC's pairs work through its other cores,
    /// `(cores - pairs) / pairs` operations. With Gorman's `recent_used_cpu = prev`
    /// (89aafd67f28c, v5.15, seed 003's `recent-used-prev`) `recent_used_cpu` is the
    /// wakee's CPU before prev, idle, which takes it: each task of a pair alternates
    /// between two cores, a round of four, each core idle three operations.
    ///
    /// The CPU sleeps in the deepest state whose target residency that idle time
    /// reaches (capped by the housekeeping kworker's period, which wakes every CPU),
    /// the operations lasting its exit latency longer; taken from the deepest state
    /// down, as a run starting from idle CPUs (the menu governor's `predicted` at its
    /// horizon) settles into the deepest one that sustains itself. A core idle for no
    /// more than one operation (an LLC with at most twice its pairs in cores, where
    /// the round's next core is the one the partner just left) is as warm as prev:
    /// `wake_ns`, as where no state but the shallowest fits.
    fn walked_wake_ns(&self, pairs: u128, cpu_ns: u128, recent_prev: bool, housekeeping_ns: Option<u128>) -> u128 {
        let per_llc = pairs.div_ceil(self.llcs).max(1);
        let cores = self.cores / self.llcs;
        if cores <= 2 * per_llc {
            return self.wake_ns;
        }
        let states = self.costs.cstates.iter().filter(|c| !c.polling);
        for c in states.rev() {
            let wake_ns = self.wake_path_ns + c.wake_ns.unwrap_or(c.exit_latency_ns) as u128;
            let op_ns = cpu_ns + wake_ns;
            let mut idle_ns = (cores - per_llc) * op_ns / per_llc;
            if recent_prev {
                idle_ns = idle_ns.min(3 * op_ns);
            }
            if c.target_residency_ns as u128 <= idle_ns.min(housekeeping_ns.unwrap_or(u128::MAX)) {
                return wake_ns;
            }
        }
        self.wake_ns
    }

    /// The refill a task pays on each switch-in when `runnable` tasks (more than the
    /// CPUs) take turns, ns: between two of its turns every other runnable task of its
    /// core ran, filling the core's L2 with its working set (`ws` bytes each), and every
    /// other of its LLC filled the LLC; the evicted share of its set comes back from the
    /// LLC, or from DRAM for the share the LLC evicted too, `refill_mlp` misses at a
    /// time (`Sim::refill_penalty`'s fill counters at their steady state).
    fn refill_ns(&self, runnable: u128, ws: u64) -> u128 {
        let c = self.costs;
        if runnable <= self.cpus || ws == 0 {
            return 0;
        }
        let ws = ws as u128;
        let share = |tasks: u128, size: u64| (tasks * ws * PPM / (size as u128).max(1)).min(PPM);
        let evicted = ws * share(runnable / self.cores, c.l2_bytes) / PPM;
        let from_dram = evicted * share(runnable / self.llcs, c.llc_bytes) / PPM;
        let lines = |b: u128| b.div_ceil(c.cache_line_bytes.max(1) as u128);
        let mlp = c.refill_mlp.max(1) as u128;
        (lines(evicted - from_dram) * c.llc_hit_ns as u128 + lines(from_dram) * c.dram_ns as u128) / mlp
    }
}

/// One operation of a closed loop: a chain of tasks that does it again once it is
/// done (a tbench pair's half round trip, a dbench client's filesystem operation).
struct LoopOp {
    /// CPU time of the operation, ns (its work and its context switches).
    cpu_ns: u128,
    /// Time off a CPU waiting for something else than a CPU (a device), ns.
    wait_ns: u128,
    /// Wakeups per operation, ppm (each also a switch-in of the wakee).
    wakeups: u128,
    /// Device interrupts per operation, ppm.
    interrupts: u128,
    /// Stretches of work that end per operation, ppm.
    segments: u128,
    /// Working set of the tasks, bytes.
    ws_bytes: u64,
    /// From a wakeup to the wakee running on an idle CPU, ns ([`Machine::wake_ns`],
    /// or [`Machine::walked_wake_ns`] where the kernel leaves a warm CPU).
    wake_ns: u128,
}

/// What a closed loop does per second: its operations' events, its operations, and
/// how many CPUs it keeps busy (they tick).
struct PerSec {
    events: u128,
    ops: u128,
    busy_cpus: u128,
}

/// `chains` independent chains repeating `op`. With the CPUs to spare, a chain does
/// one operation per its CPU time, its waits and its wakeups' latency, each wakeup on
/// an idle CPU (which is occupied from the wakeup until the wakee runs); with more
/// runnable tasks than CPUs, the CPUs bound the operations, each switch-in paying its
/// refill, and wakeups queue.
fn closed_loop(m: &Machine, chains: u128, op: &LoopOp) -> PerSec {
    let wake_total = op.wakeups * op.wake_ns / PPM;
    let cycle = (op.cpu_ns + op.wait_ns + wake_total).max(1);
    // The chains on a CPU or waiting for one (a task waking up counts: it is on its way).
    let runnable = chains * (op.cpu_ns + wake_total) / cycle;
    let (ops, per_wakeup) = if runnable > m.cpus {
        let refill = m.refill_ns(runnable, op.ws_bytes) * op.wakeups / PPM;
        (m.capacity_ns / (op.cpu_ns + refill).max(1), EVENTS_PER_QUEUED_WAKEUP)
    } else {
        let by_chains = chains * SEC / cycle;
        (by_chains.min(m.capacity_ns / (op.cpu_ns + wake_total).max(1)), EVENTS_PER_IDLE_WAKEUP)
    };
    let per_op = op.segments * EVENTS_PER_SEGMENT as u128
        + op.wakeups * per_wakeup as u128
        + op.interrupts * EVENTS_PER_INTERRUPT as u128;
    PerSec { events: ops * per_op / PPM, ops, busy_cpus: (ops * op.cpu_ns).div_ceil(SEC).min(m.cpus) }
}

/// The wasted-core sampler's samples per simulated second: one every tenth of the
/// threshold, at least a microsecond apart (`driver/wasted.rs`), none when it is off.
fn sampler_per_sec(exp: &Experiment) -> u128 {
    match exp.wasted_core_threshold_ns {
        0 => 0,
        t => SEC / (t / 10).max(1_000) as u128,
    }
}

/// One operation in `every`, in millionths.
fn ppm_of(every: u64) -> u128 {
    PPM / every.max(1) as u128
}

/// A central estimate of the events of one run with `clients` on `map`'s CPUs: what
/// the workload's model does per simulated second at its mean costs, over the run's
/// duration (hackbench, pipe and a replay stop when their work is done), at `kernel`'s
/// wakeup path (its version and switches; a policy script's placement is not
/// modelled: the kernel's own is taken). Within 2.0 times of every preset's runs over a
/// range of client counts (`tests/estimate.rs`). It never exceeds
/// [`run_events_max`], the bound validation refuses on. For the page's and `--dry-run`'s
/// cost of a sweep.
pub fn run_events(exp: &Experiment, kernel: &KernelSpec, clients: u32, map: &CpuMap, costs: &CostModel) -> u64 {
    let m = Machine::new(map, costs);
    // Whether the kernel's `select_idle_sibling()` passes over the wakee's warm prev
    // ([`Machine::walked_wake_ns`]). A policy script's placement is not modelled.
    // `recent_used_cpu` exists from v4.17 (32e839dda3ba); v3.8's walk has none.
    let k = kernel.resolve();
    let (walks, recent_prev) = (!k.on(Switch::SisPrevIdle), k.since(4, 17) && k.on(Switch::RecentUsedPrev));
    let housekeeping_ns = exp.housekeeping.enabled.then_some(exp.housekeeping.period_ns as u128);
    let c = clients as u128;
    let cs = costs.context_switch_ns as u128;
    let duration_ns = exp.duration_ms as u128 * 1_000_000;
    // The events of the workload's own work over the run, the CPUs it keeps busy, and
    // how long it runs, ns (the periodic activity's span).
    let (work_events, busy_cpus, run_ns) = match &exp.workload {
        // A pair strictly alternates: one half round trip is a stretch of work and the
        // wakeup of the partner (`sock_def_readable()`, `pipe_write()`), onto a CPU the
        // kernel may have to wake from deep idle.
        Workload::Tbench(TbenchParams { work_ns, ws_bytes, .. })
        | Workload::Pipe(PipeParams { work_ns, ws_bytes, .. }) => {
            let cpu_ns = *work_ns as u128 + cs;
            let wake_ns = if walks { m.walked_wake_ns(c, cpu_ns, recent_prev, housekeeping_ns) } else { m.wake_ns };
            let op =
                LoopOp { cpu_ns, wait_ns: 0, wakeups: PPM, interrupts: 0, segments: PPM, ws_bytes: *ws_bytes, wake_ns };
            let r = closed_loop(&m, c, &op);
            let mut events = r.events * duration_ns / SEC;
            let mut run_ns = duration_ns;
            // pipe: each pair does `loops` round trips, then exits.
            if let Workload::Pipe(PipeParams { loops, .. }) = &exp.workload {
                let total_ops = c * 2 * *loops as u128;
                let ops = r.ops * duration_ns / SEC;
                if total_ops < ops {
                    run_ns = run_ns * total_ops / ops;
                    events = events * total_ops / ops;
                }
            }
            (events, r.busy_cpus, run_ns)
        }
        // A client's operation is a stretch of work; one in `read_miss_every` waits for a
        // read (the device, its interrupt, the wakeup), one in `fsync_every` for a
        // journal commit (jbd2 woken, its commit, the device, the completion's wakeups).
        Workload::Dbench(p) => {
            let (read_wait, read_wakeups, read_irqs, commit_wait, commit_wakeups, commit_irqs) = match p.device {
                DbenchDevice::Disk => (
                    p.io_ns + costs.irq_handler_ns,
                    1,
                    1,
                    COMMIT_BASE_NS + p.io_ns + costs.irq_handler_ns + KWORKER_NS,
                    // jbd2, the kworker finishing the write, jbd2 again, the client.
                    4,
                    1,
                ),
                // The loop worker and ksoftirqd do the request; a commit is the log
                // write and the commit record between two flushes of the backing file.
                DbenchDevice::Loop => (
                    LOOP_WORKER_NS + KSOFTIRQD_NS,
                    3,
                    0,
                    COMMIT_BASE_NS + 2 * (LOOP_WORKER_NS + KSOFTIRQD_NS + p.flush_ns),
                    8,
                    2,
                ),
            };
            let (reads, commits) = (ppm_of(p.read_miss_every), ppm_of(p.fsync_every));
            let op = LoopOp {
                cpu_ns: p.work_ns as u128 + (reads + commits) * cs / PPM,
                wait_ns: (reads * read_wait as u128 + commits * commit_wait as u128) / PPM,
                wakeups: reads * read_wakeups + commits * commit_wakeups,
                interrupts: reads * read_irqs + commits * commit_irqs,
                segments: PPM,
                ws_bytes: p.ws_bytes,
                wake_ns: m.wake_ns,
            };
            let r = closed_loop(&m, c, &op);
            (r.events * duration_ns / SEC, r.busy_cpus, duration_ns)
        }
        // Each message is a write and a read, and the write's wakeup of its receiver,
        // which is mostly awake: a stretch of the writer's kernel time. The groups send
        // `fds` x `fds` x `loops` messages each, then exit.
        Workload::Hackbench(p @ HackbenchParams { fds, loops, .. }) => {
            let messages = c * (*fds as u128).pow(2) * *loops as u128;
            let events = messages * 3 * EVENTS_PER_SEGMENT as u128;
            // The CPUs (or the tasks, if fewer) work through the writes and reads.
            let tasks = (c * 2 * *fds as u128).max(1);
            let finish_ns = messages * 2 * (p.work_ns() as u128 + cs) * SEC / m.capacity_ns.min(tasks * SEC).max(1);
            let run_ns = finish_ns.min(duration_ns);
            let done = events * run_ns / finish_ns.max(1);
            (done, m.cpus.min(tasks), run_ns)
        }
        // A message thread sleeps `sleep_ns` (a timer), then wakes its `workers`; each
        // takes the message (`WAKE_HANDLING_NS`) and works `cpu_ns`, at most one
        // message at a time.
        Workload::Schbench(SchbenchParams { workers, sleep_ns, cpu_ns, ws_bytes }) => {
            let w = *workers as u128;
            let rounds = c * SEC / (*sleep_ns as u128 + m.wake_ns).max(1);
            let worker_op = *cpu_ns as u128 + WAKE_HANDLING_NS as u128 + cs;
            let wanted = (rounds * w).min(c * w * SEC / worker_op);
            let runnable = (wanted * worker_op).div_ceil(SEC);
            let (done, per_wakeup) = if runnable > m.cpus {
                (
                    wanted.min(m.capacity_ns / (worker_op + m.refill_ns(runnable, *ws_bytes)).max(1)),
                    EVENTS_PER_QUEUED_WAKEUP,
                )
            } else {
                (wanted, EVENTS_PER_IDLE_WAKEUP)
            };
            let events = rounds * (EVENTS_PER_SEGMENT + EVENTS_PER_IDLE_WAKEUP) as u128
                + rounds * w * EVENTS_PER_SEGMENT as u128
                + done * (2 * EVENTS_PER_SEGMENT + per_wakeup) as u128;
            (events * duration_ns / SEC, (done * worker_op).div_ceil(SEC).min(m.cpus), duration_ns)
        }
        // Requests arrive as interrupts whatever the workers do (open loop); the
        // workers serve what the CPUs can, and a request wakes a worker only when one is
        // idle, the share of the CPUs the service leaves.
        Workload::Memcache(MemcacheParams {
            rps_per_worker,
            service_ns,
            background_threads,
            background_run_ns,
            background_sleep_ns,
            ..
        }) => {
            let arrivals = c * *rps_per_worker as u128;
            let serve_ns = (*service_ns as u128 + cs).max(1);
            let served = arrivals.min(m.capacity_ns / serve_ns).min(c * SEC / serve_ns);
            let busy_ppm = (served * serve_ns * PPM / m.capacity_ns.max(1)).min(PPM);
            let woken = served * (PPM - busy_ppm) / PPM;
            let bg = *background_threads as u128;
            let bg_rounds = bg * SEC / (*background_run_ns as u128 + *background_sleep_ns as u128).max(1);
            let events = arrivals * EVENTS_PER_INTERRUPT as u128
                + served * EVENTS_PER_SEGMENT as u128
                + woken * EVENTS_PER_IDLE_WAKEUP as u128
                + bg_rounds * (2 * EVENTS_PER_SEGMENT + EVENTS_PER_IDLE_WAKEUP) as u128;
            let busy = (served * serve_ns + bg_rounds * *background_run_ns as u128).div_ceil(SEC).min(m.cpus);
            (events * duration_ns / SEC, busy, duration_ns)
        }
        // A replay's copies each run their trace's programs once: a step of work ends
        // a stretch, a wakeup is one onto an idle CPU (a trace of a box's own pace), an
        // interrupt is one and wakes its sleeper; the run lasts about the traced span.
        Workload::Replay(p) => {
            let per_copy: u128 = p
                .tasks
                .iter()
                .flat_map(|t| t.program.iter())
                .map(|op| match op {
                    ReplayOp::Run(_) | ReplayOp::Sys(_) | ReplayOp::Exit => EVENTS_PER_SEGMENT,
                    ReplayOp::Wake { .. } => EVENTS_PER_SEGMENT + EVENTS_PER_IDLE_WAKEUP,
                    ReplayOp::Irq { .. } => EVENTS_PER_INTERRUPT + EVENTS_PER_IDLE_WAKEUP,
                    ReplayOp::Block => 0,
                } as u128)
                .sum();
            let busy = (p.work_ns() as u128 * c).div_ceil(p.span_ns.max(1) as u128).min(m.cpus);
            (c * per_copy, busy, duration_ns.min(p.span_ns as u128))
        }
        // An rt-app thread makes as many passes of its loop as fit (each at least its
        // work, sleeps and longest timer period), or its `loop`; each work stretch a
        // segment, each wakeup one onto an idle CPU (a periodic task set mostly idles).
        Workload::Rtapp(p) => {
            let (mut events, mut cpu_ns) = (0u128, 0u128);
            for t in p.passes() {
                let passes = (duration_ns / t.paced_ns as u128).max(1).min(t.loops as u128);
                events += passes
                    * (t.segments as u128 * EVENTS_PER_SEGMENT as u128
                        + t.wakeups as u128 * (EVENTS_PER_SEGMENT + EVENTS_PER_IDLE_WAKEUP) as u128);
                cpu_ns += passes * t.cpu_ns as u128;
            }
            // No more work than the CPUs can do: beyond it, every pass is slower.
            let (want, can) = (c * cpu_ns, m.cpus * duration_ns);
            let events = if want > can { c * events * can / want } else { c * events };
            let busy = want.div_ceil(duration_ns.max(1)).min(m.cpus);
            (events, busy, duration_ns)
        }
    };
    // Periodic activity: the ticks of the busy CPUs (an idle CPU does not tick,
    // NO_HZ_IDLE), every CPU's housekeeping kworker (its timer, its wakeup on an idle
    // CPU, its work) and the wasted-core sampler.
    let ticks = busy_cpus.max(1) * (SEC / costs.tick_ns.max(1) as u128) * EVENTS_PER_TICK as u128;
    let housekeeping = if exp.housekeeping.enabled {
        m.cpus
            * (SEC / exp.housekeeping.period_ns.max(1) as u128)
            * (2 * EVENTS_PER_SEGMENT + EVENTS_PER_IDLE_WAKEUP) as u128
    } else {
        0
    };
    let sampler = sampler_per_sec(exp);
    let events = work_events + (ticks + housekeeping + sampler) * run_ns / SEC;
    (events.min(u64::MAX as u128) as u64).min(run_events_max(exp, clients, map, costs))
}

/// An upper bound on the events of one run with `clients` on `map`'s CPUs, which
/// [`Experiment::validate`] refuses above [`RUN_EVENTS_MAX`].
///
/// Why a validated run never reaches the cap: a run cannot do its operations faster
/// than at their best case, which this counts (each operation's shortest work, a
/// context switch and no wakeup latency, every CPU at full speed, a refill only where
/// the caches cannot hold the runnable tasks' working sets at all), nor take more events
/// per operation than the most measured for any workload, which it charges with a
/// margin ([`EVENTS_PER_OP`]: 8 an operation, where the table's runs take at most 7.9
/// per wakeup, work included, tbench on 256 CPUs; [`EVENTS_PER_REQUEST`]: 16 a memcache
/// request, against 10.3; [`EVENTS_PER_PERIODIC`]: 8 a tick or housekeeping wakeup,
/// against the central estimate's 1 and 7); the events of a run whose bound is under
/// the cap are therefore under it too. `tests/estimate.rs` checks it against every preset from one
/// client to well past its machine (1.2 to 24 times what they process). It is looser
/// than [`run_events`] where tasks queue, wait on a device or do not block, which is
/// where a run is slower than its best case; the central estimate never exceeds it.
///
/// Per simulated second, the operations are the fewer of what the tasks would do each
/// on a CPU of its own and what the CPUs can run ([`cpu_ops_per_sec`]: a thousand tbench
/// pairs on 80 CPUs are bounded by the 80 CPUs and their caches, not by the pairs); the
/// periodic events are the ticks of the CPUs that can be busy (an idle CPU does not
/// tick, NO_HZ_IDLE: at most one CPU per task) and every CPU's housekeeping kworker.
pub fn run_events_max(exp: &Experiment, clients: u32, map: &CpuMap, costs: &CostModel) -> u64 {
    let nr_cpus = map.nr_cpus();
    let c = clients as u128;
    let mut per_op = EVENTS_PER_OP as u128;
    let cpus = |runnable, min_op_ns, ws| cpu_ops_per_sec(map, costs, runnable, min_op_ns, ws);
    let ops: u128 = match &exp.workload {
        // A pair strictly alternates: one of its two tasks works at a time.
        Workload::Tbench(TbenchParams { work_ns, ws_bytes, .. }) => {
            (c * ops_per_sec(*work_ns, costs)).min(cpus(c, jitter_min(*work_ns, 20), *ws_bytes))
        }
        Workload::Pipe(PipeParams { work_ns, ws_bytes, .. }) => {
            (c * ops_per_sec(*work_ns, costs)).min(cpus(c, jitter_min(*work_ns, 10), *ws_bytes))
        }
        // A client also waits for the device: one op in `read_miss_every` for a read,
        // one in `fsync_every` for at least the journal's write.
        Workload::Dbench(DbenchParams { work_ns, ws_bytes, io_ns, read_miss_every, fsync_every, .. }) => {
            let waits = io_ns / read_miss_every.max(&1) + io_ns / fsync_every.max(&1);
            ((c + 1) * ops_per_sec(work_ns + waits, costs)).min(cpus(c, jitter_min(*work_ns, 30), *ws_bytes))
        }
        // Most of a group's tasks wait on a pipe at any time: no refill is counted.
        Workload::Hackbench(p @ HackbenchParams { fds, .. }) => {
            let tasks = c * 2 * *fds as u128;
            (tasks * ops_per_sec(p.work_ns(), costs)).min(cpus(0, jitter_min(p.work_ns(), 10), 0))
        }
        Workload::Schbench(SchbenchParams { workers, sleep_ns, cpu_ns, ws_bytes, .. }) => {
            let w = c * *workers as u128;
            c * ops_per_sec(*sleep_ns, costs) + (w * ops_per_sec(*cpu_ns, costs)).min(cpus(w, *cpu_ns, *ws_bytes))
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
        Workload::Replay(_) | Workload::Rtapp(_) => 0,
    };
    let busy_cpus = (nr_cpus as u64).min(exp.workload.task_count(clients, nr_cpus).max(1)) as u128;
    let mut periodic = busy_cpus * (SEC / costs.tick_ns.max(1) as u128);
    if exp.housekeeping.enabled {
        periodic += nr_cpus as u128 * (SEC / exp.housekeeping.period_ns.max(1) as u128);
    }
    let cpus = periodic * EVENTS_PER_PERIODIC as u128;
    let sampler = sampler_per_sec(exp);
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
        // An rt-app pass takes at least its `min_ns`, so no more passes fit the run.
        Workload::Rtapp(p) => {
            let steps: u128 = p
                .passes()
                .iter()
                .map(|t| {
                    let passes = (secs_ms * 1_000_000 / t.min_ns as u128 + 1).min(t.loops as u128);
                    passes * (t.segments + t.wakeups) as u128
                })
                .sum();
            op_events = c * steps * EVENTS_PER_REQUEST as u128;
        }
        _ => {}
    }
    let events = op_events + (cpus + sampler) * secs_ms / 1000;
    events.min(u64::MAX as u128) as u64
}

/// The estimate's calibration: how many of [`run_events`]' estimated events one CPU
/// core gets through per second, natively, at the slowest of the built-in experiments.
/// Measured on the 2-core development machine (2026-12-06, release build,
/// `schedsim run PRESET --jobs 1`, user time against `run --dry-run`'s central
/// estimate): seed004 (tbench on 256 CPUs) 6.41M a second, seed002 (memcache, 80 CPUs)
/// 6.42M–6.54M, the others 9.7M–19M (seed003-tbench 12.3M, seed000 16.6M; the smallest
/// at the 10 ms resolution of the timing; a replay's run is lost in the process's start,
/// 20–30 ms). Rounded down, so the CPU time it gives is above every preset's there, by
/// up to 3.2 times. In the page a worker is 1.4–1.7 times slower than a native thread
/// (README, WebAssembly).
pub const ESTIMATED_EVENTS_PER_CPU_SECOND: u64 = 6_000_000;

/// CPU time of one operation a policy script's budgets count, ns: a Rhai operation, or
/// one CPU of a helper's read beyond the first (the per-CPU op charge of
/// `linux::policy::helpers::charge`, which makes the budgets bound the helpers' time
/// too). Default 25 ns, the dearer of the two kinds rounded up. Measured on the 2-core
/// development machine (2026-12-07, release build, load under 0.5, `schedsim run FILE
/// --jobs 1`, best of 3 user times, the whole run's time over the operations it counted,
/// so the simulation's own share is in it): `demo` on a 1,024-CPU LLC (`--topology
/// 1x1x512x2`), kernel v4.15, 16 tbench pairs, 20 ms, the script's `select_idle_sibling`
/// being a plain loop (`for k in 0..500 { s += k; }`, 1,443 operations a wakeup):
/// 1.24 s for 51.9M operations, 23.9 ns each; a scan of the LLC with `idle_cpu()` a CPU
/// (6,810 a wakeup): 0.90 s for 64.8M, 13.9 ns; `llc_cpus()` taken 8 times (7,874 a
/// wakeup, nearly all the per-CPU charge): 1.38 s for 283M, 4.9 ns; the same run with no
/// script, 0.13 s. The operation counts are `tests/estimate.rs`'s (deterministic), which
/// prints its own times. A native function over a large array or string (a `sort()` of
/// 4,096 elements) is one operation that costs more: not covered. In the page the script
/// worker is slower by the page's own factor, which it applies to the whole figure.
pub const SCRIPT_NS_PER_OP: u64 = 25;

/// The most operations `kernel`'s policy script may make in one run with `clients` on
/// `map`'s CPUs, 0 without a script: every call of it is at a wakeup (at most one call
/// of each function a script may define, [`HOOKS`]), a wakeup is at least one event, so
/// the calls are at most [`run_events_max`]' bound times [`HOOKS`]' length, each within
/// [`CALL_OPS_MAX`], and the whole run within the run's budget
/// ([`crate::facts::policy::run_ops_max`], [`crate::facts::policy::RUN_OPS_MAX`]). An
/// upper figure, as the CPU time it gives is: the estimate cannot run the script (the
/// page's own build has no script engine), so it charges the budgets, which any run
/// longer than a few thousand wakeups reaches as a whole-run cap of about
/// `RUN_OPS_MAX` x [`SCRIPT_NS_PER_OP`] a run. A template's some 250 operations a call
/// ([`crate::facts::policy::RUN_OPS_MAX`]'s note) cost far less.
pub fn script_ops_max(exp: &Experiment, kernel: &KernelSpec, clients: u32, map: &CpuMap, costs: &CostModel) -> u64 {
    if kernel.policy.is_none() {
        return 0;
    }
    let calls = run_events_max(exp, clients, map, costs) as u128 * HOOKS.len() as u128;
    (calls * CALL_OPS_MAX as u128).min(run_ops_max() as u128) as u64
}

/// What a whole sweep will cost, estimated before it starts: every (kernel, client
/// count, iteration) run of an experiment. The events are [`run_events`]' central
/// estimate, each run's at its own kernel (within 2.0 times of what every preset's runs
/// process, `tests/estimate.rs`), and [`run_events_max`]' bound; the CPU time
/// is the central estimate at [`ESTIMATED_EVENTS_PER_CPU_SECOND`], each run's events
/// weighted by its CPUs' queues ([`QUEUED_TASKS_PER_EVENT_COST`]), an upper figure for
/// the presets, plus the policy scripts' operations at their budgets
/// ([`script_ops_max`]) at [`SCRIPT_NS_PER_OP`]: enough to decide whether to ask before
/// starting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepCost {
    /// Runs: kernels x client counts x iterations.
    pub runs: u64,
    /// Central estimate of the simulated events of all runs.
    pub events: u64,
    /// Upper bound on them (what validation refuses on, run by run).
    pub events_max: u64,
    /// Central estimate of the runs' events in the first iteration only (the page offers
    /// to run just that).
    pub first_iteration_events: u64,
    /// [`SweepCost::events`] weighted by what an event costs where CPUs are overloaded
    /// (see [`QUEUED_TASKS_PER_EVENT_COST`]): what the CPU time is made from.
    pub weighted_events: u64,
    /// The same for the first iteration.
    pub first_iteration_weighted_events: u64,
    /// Most operations the runs' policy scripts may make ([`script_ops_max`]), 0
    /// without scripts.
    pub script_ops: u64,
    /// The same for the first iteration.
    pub first_iteration_script_ops: u64,
}

/// Queued tasks per CPU that make an event cost twice as much: the model's runqueue is
/// a list that `update_curr()`, the pick and a wakeup's load sum scan, so an event on an
/// overloaded CPU costs in proportion to its queue. From issue 42's measurement: 8,192
/// tbench pairs (16,384 tasks) on one CPU for 10 s took 10.8 s where the unweighted
/// estimate said 0.2 s, x54, about 1 + 16,383 / 300.
pub const QUEUED_TASKS_PER_EVENT_COST: u128 = 300;

impl SweepCost {
    /// CPU milliseconds of `events` estimated events at
    /// [`ESTIMATED_EVENTS_PER_CPU_SECOND`], rounded up.
    pub fn cpu_ms_of(events: u64) -> u64 {
        (events as u128 * 1000).div_ceil(ESTIMATED_EVENTS_PER_CPU_SECOND as u128).min(u64::MAX as u128) as u64
    }

    /// CPU milliseconds of `ops` policy-script operations at [`SCRIPT_NS_PER_OP`],
    /// rounded up.
    pub fn script_cpu_ms_of(ops: u64) -> u64 {
        (ops as u128 * SCRIPT_NS_PER_OP as u128).div_ceil(1_000_000).min(u64::MAX as u128) as u64
    }

    /// The whole sweep's CPU time, an upper figure, in milliseconds.
    pub fn cpu_ms(&self) -> u64 {
        Self::cpu_ms_of(self.weighted_events).saturating_add(Self::script_cpu_ms_of(self.script_ops))
    }

    /// The first iteration's CPU time, an upper figure, in milliseconds.
    pub fn first_iteration_cpu_ms(&self) -> u64 {
        Self::cpu_ms_of(self.first_iteration_weighted_events)
            .saturating_add(Self::script_cpu_ms_of(self.first_iteration_script_ops))
    }

    /// One line for people: runs, events, CPU time.
    ///
    /// ```
    /// let e = schedsim::presets::experiment("demo").unwrap();
    /// let c = schedsim::estimate::sweep_cost(&e).unwrap();
    /// assert_eq!(c.runs, 16);
    /// assert!(c.summary().starts_with("16 runs, about 2367412 simulated events (at most 6443816), about 0.4 CPU"), "{}", c.summary());
    /// ```
    pub fn summary(&self) -> String {
        let scripts = match self.script_ops {
            0 => String::new(),
            n => format!(" and policy scripts of at most {n} operations"),
        };
        format!(
            "{} runs, about {} simulated events (at most {}){scripts}, about {} CPU-seconds or less",
            self.runs,
            self.events,
            self.events_max,
            seconds_text(self.cpu_ms()),
        )
    }
}

/// Milliseconds as seconds with one decimal, rounded up ("0.1", "51.3").
pub fn seconds_text(ms: u64) -> String {
    let tenths = ms.div_ceil(100);
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// The cost of running all of `exp`; an invalid experiment is its validation error.
pub fn sweep_cost(exp: &Experiment) -> Result<SweepCost, crate::api::experiment::Error> {
    let r = exp.validate()?;
    let kernels = exp.kernels.len() as u128;
    // Each kernel's runs at its own wakeup path; the bound does not depend on it.
    let runs = || exp.kernels.iter().flat_map(|k| exp.clients.iter().map(move |&c| (k, c)));
    let central: u128 = runs().map(|(k, c)| run_events(exp, k, c, &r.map, &r.costs) as u128).sum();
    let cpus = r.map.nr_cpus().max(1);
    let weighted: u128 = runs()
        .map(|(k, c)| {
            let queued = exp.workload.task_count(c, cpus).saturating_sub(cpus as u64) as u128 / cpus as u128;
            run_events(exp, k, c, &r.map, &r.costs) as u128 * (QUEUED_TASKS_PER_EVENT_COST + queued)
                / QUEUED_TASKS_PER_EVENT_COST
        })
        .sum();
    let bound = exp.clients.iter().map(|&c| run_events_max(exp, c, &r.map, &r.costs) as u128).sum::<u128>() * kernels;
    let scripts: u128 = runs().map(|(k, c)| script_ops_max(exp, k, c, &r.map, &r.costs) as u128).sum();
    let clamp = |x: u128| x.min(u64::MAX as u128) as u64;
    let iterations = exp.iterations as u128;
    Ok(SweepCost {
        runs: clamp(kernels * exp.clients.len() as u128 * iterations),
        events: clamp(central * iterations),
        events_max: clamp(bound * iterations),
        first_iteration_events: clamp(central),
        weighted_events: clamp(weighted * iterations),
        first_iteration_weighted_events: clamp(weighted),
        script_ops: clamp(scripts * iterations),
        first_iteration_script_ops: clamp(scripts),
    })
}
