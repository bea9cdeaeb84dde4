//! `run --jobs N`: a sweep's runs on N threads. Each thread takes the next run from a
//! shared index and sends its small result back; this thread folds each into the
//! library's `ReportBuilder` as it lands (which lays results out by run, never by
//! arrival, so the report is the same bytes for every N) and keeps the progress line.

use crate::progress::ProgressLine;
use schedsim::experiment::Checks;
use schedsim::{Error, Experiment, Report, RunId, RunResult, Sweep};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// `--jobs`' default: the CPUs this process may use.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// At most this many threads, whatever `--jobs` asks.
pub const JOBS_MAX: usize = 1024;

/// Runs `exp` on `jobs` threads (one: `Experiment::run_keeping` itself, on this
/// thread). A failure keeps what finished: every point whose iterations all ran, beside
/// the error.
pub fn run(exp: &Experiment, jobs: usize, line: &mut ProgressLine) -> (Option<Report>, Option<Error>) {
    if jobs <= 1 {
        return exp.run_keeping(&mut |p| line.update(p), Checks::Off);
    }
    let sweep = match Sweep::new(exp) {
        Ok(s) => s,
        Err(e) => return (None, Some(e)),
    };
    let order = schedule(&sweep, sweep.runs());
    let mut builder = sweep.builder();
    let total = builder.runs_total();
    let failures = drive(&sweep, &order, jobs, line, (0, total), &mut |r| builder.add(r));
    if let Some((_, e, _)) = failures.into_iter().next() {
        let kept = builder.kept_report();
        return (kept, Some(e));
    }
    match builder.report() {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e)),
    }
}

/// Runs `order` on `jobs` threads and hands each result to `sink` on this thread as it
/// lands; `progress` is (runs done before, runs in all) for the progress line. A run
/// that fails, or whose result `sink` refuses, stops the others. Returns the failures:
/// (run, error, whether it only stopped because another run had failed).
pub fn drive(
    sweep: &Sweep,
    order: &[RunId],
    jobs: usize,
    line: &mut ProgressLine,
    progress: (u32, u32),
    sink: &mut dyn FnMut(RunResult) -> Result<(), Error>,
) -> Vec<(RunId, Error, bool)> {
    let exp = sweep.experiment();
    let jobs = jobs.min(order.len()).max(1);
    let run_ns = (exp.duration_ms * 1_000_000).max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Simulated time each thread's current run has reached, for the progress line.
    let reached: Vec<AtomicU64> = (0..jobs).map(|_| AtomicU64::new(0)).collect();
    let mut done = progress.0;
    let mut failures: Vec<(RunId, Error, bool)> = Vec::new();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(RunId, Result<RunResult, Error>, bool)>();
        for slot in &reached {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let Some(&id) = order.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                let r = sweep.run(
                    id,
                    &mut |t| {
                        slot.store(t, Ordering::Relaxed);
                        !stop.load(Ordering::Relaxed)
                    },
                    Checks::Off,
                );
                slot.store(0, Ordering::Relaxed);
                // A run that ends in an error after the stop is a cancelled one.
                let cancelled = r.is_err() && stop.load(Ordering::Relaxed);
                if tx.send((id, r, cancelled)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok((id, Ok(r), _)) => match sink(r) {
                    Ok(()) => done += 1,
                    Err(e) => {
                        failures.push((id, e, false));
                        stop.store(true, Ordering::Relaxed);
                    }
                },
                Ok((id, Err(e), cancelled)) => {
                    failures.push((id, e, cancelled));
                    stop.store(true, Ordering::Relaxed);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            let in_flight: f64 =
                reached.iter().map(|a| (a.load(Ordering::Relaxed) as f64 / run_ns as f64).min(1.0)).sum();
            line.update_parts(done, progress.1, in_flight);
        }
    });
    // Of several failures, the first in report order; a run stopped because another
    // failed says only "cancelled" and is not the cause (its message names the run, so
    // it is told apart by when it ended, not by its text).
    failures.sort_by_key(|(id, _, cancelled)| (*cancelled, *id));
    failures
}

/// The order runs are handed out: the ones with the most tasks first (at equal
/// duration, the longest), so that the last runs to start are short and the threads
/// finish together; report order among equals.
pub fn schedule(sweep: &Sweep, mut order: Vec<RunId>) -> Vec<RunId> {
    let exp = sweep.experiment();
    let cpus = sweep.nr_cpus();
    order.sort_by_key(|r| std::cmp::Reverse(exp.workload.task_count(exp.clients[r.point as usize], cpus)));
    order
}
