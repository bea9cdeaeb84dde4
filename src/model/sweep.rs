//! One sweep as the page's pool of workers runs it: which run goes next, what is
//! running where, the runs landed so far (folded by the library's `ReportBuilder`), the
//! progress and the time left. Pure, so it is tested natively; `web::pool::SweepPool`
//! moves the messages.

use schedsim::{Experiment, Report, ReportBuilder, RunId, RunResult, Sweep};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// The pool's size: one worker per logical CPU the browser reports, within these bounds.
pub const WORKERS_MAX: u32 = 8;

pub fn default_workers(hardware_concurrency: f64) -> u32 {
    if hardware_concurrency.is_finite() && hardware_concurrency >= 1.0 {
        (hardware_concurrency as u32).clamp(1, WORKERS_MAX)
    } else {
        1
    }
}

/// How many of the pool's workers may run at once, kept so that the page's main thread
/// stays responsive. A browser gives a worker no lower priority than the page, so on a
/// machine with fewer cores than busy workers the main thread waits its turn behind them:
/// 8 busy workers on 2 cores made main-thread tasks of 5-15 ms of CPU last 100-250 ms
/// (measured 2026-12-04/06 in Chromium with the Long Tasks API), where 2 busy workers on
/// the same 2 cores made none over 50 ms. So the pool starts with as many runs in flight
/// as the device has logical CPUs (`navigator.hardwareConcurrency`, which some browsers
/// understate), one fewer whenever a beat every [`Throttle::BEAT_MS`] comes
/// [`Throttle::LATE_MS`] late (a main-thread task of at least that long: the Long Tasks
/// API's own floor), never fewer than one, and one more after [`Throttle::QUIET_MS`] in
/// which no beat came late, up to the user's worker count and, where the device's cores
/// are known, no further than them. Past the cores a run only time-shares them: it buys
/// no throughput, and its new worker compiles the module on the cores the page needs (CI's
/// run of 2026-12-07, on 2 cores, saw six main-thread tasks of up to 125 ms in seed000,
/// the first sweep long enough to grow to a third worker, and none in any other sweep).
/// Which worker runs which run changes nothing in the report (`ReportBuilder`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throttle {
    limit: u32,
    /// The most runs at once: the device's logical CPUs, or none (`u32::MAX`) unknown.
    cores_cap: u32,
    last_beat_ms: f64,
    quiet_since_ms: f64,
}

impl Throttle {
    /// The heartbeat's period, ms.
    pub const BEAT_MS: f64 = 50.0;
    /// How late a beat must be to count as the main thread held up, ms.
    pub const LATE_MS: f64 = 50.0;
    /// How long the beats must all be on time before one more run may go out, ms.
    pub const QUIET_MS: f64 = 2000.0;

    /// For a pool of `size` workers on a device of `cores` logical CPUs (0 if unknown).
    pub fn new(size: u32, cores: u32, now_ms: f64) -> Throttle {
        let cores_cap = if cores == 0 { u32::MAX } else { cores };
        Throttle { limit: size.min(cores_cap).max(1), cores_cap, last_beat_ms: now_ms, quiet_since_ms: now_ms }
    }

    /// Runs that may be in flight now, for a pool of `size` workers.
    pub fn limit(&self, size: u32) -> u32 {
        self.limit.min(size).max(1)
    }

    /// A heartbeat at `now_ms` (`hidden`: the page is not shown, where browsers slow
    /// timers down and nobody waits for the page). True when one more run may go out.
    pub fn beat(&mut self, now_ms: f64, size: u32, hidden: bool) -> bool {
        let gap = now_ms - std::mem::replace(&mut self.last_beat_ms, now_ms);
        if hidden {
            self.quiet_since_ms = now_ms;
            return false;
        }
        if gap > Self::BEAT_MS + Self::LATE_MS {
            self.limit = self.limit.saturating_sub(1).max(1);
            self.quiet_since_ms = now_ms;
            return false;
        }
        if now_ms - self.quiet_since_ms >= Self::QUIET_MS && self.limit < size.min(self.cores_cap) {
            self.limit += 1;
            self.quiet_since_ms = now_ms;
            return true;
        }
        false
    }
}

/// At most this often the page hears of a running sweep (a redraw of the progress line,
/// or of the charts and table), except for its first result and its end: each redraw
/// costs the main thread layout and paint, on the cores the workers run on.
pub const TELL_INTERVAL_MS: f64 = 200.0;
/// At most this often the charts are redrawn for more iterations of the points already
/// shown; a new point is shown at the next telling.
pub const REFINE_INTERVAL_MS: f64 = 300.0;

/// What to tell the page now about a running sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tell {
    Nothing,
    /// The progress line.
    Progress,
    /// The results landed so far, and the progress line.
    Partial,
}

/// When results and progress go to the page (see `TELL_INTERVAL_MS`).
#[derive(Clone, Copy, Debug)]
struct Pacer {
    last_tell_ms: f64,
    /// When the last partial results went out, and how many points they showed.
    last_partial: (f64, u32),
    /// A run landed since the last partial results.
    unshown: bool,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer { last_tell_ms: f64::MIN, last_partial: (f64::MIN, 0), unshown: false }
    }

    fn tell(&mut self, now_ms: f64, points_shown: u32) -> Tell {
        let first = self.unshown && self.last_partial.1 == 0;
        if !first && now_ms - self.last_tell_ms < TELL_INTERVAL_MS {
            return Tell::Nothing;
        }
        self.last_tell_ms = now_ms;
        let worth = first || points_shown > self.last_partial.1 || now_ms - self.last_partial.0 >= REFINE_INTERVAL_MS;
        if self.unshown && worth {
            self.unshown = false;
            self.last_partial = (now_ms, points_shown);
            Tell::Partial
        } else {
            Tell::Progress
        }
    }
}

/// Where a sweep is, for the progress line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobProgress {
    pub runs_done: u32,
    pub runs_total: u32,
    /// Runs' worth done of the runs in flight (a fraction per running run, summed).
    pub in_flight: f64,
    pub running: u32,
    /// Seconds left, estimated from the rate so far; None until there is a rate.
    pub left_s: Option<f64>,
}

impl JobProgress {
    /// Fraction of the sweep done, runs in flight counted by their simulated time.
    pub fn fraction(&self) -> f64 {
        if self.runs_total == 0 {
            return 0.0;
        }
        ((self.runs_done as f64 + self.in_flight) / self.runs_total as f64).clamp(0.0, 1.0)
    }
}

/// The runs of a sweep that have landed, as the page keeps them for the tab's life
/// (sessionStorage), so that a reload during or after a sweep shows them again and
/// runs only the rest. `dropped` counts runs that landed but could not be kept (the
/// storage was full): then the page says so and offers to run again.
///
/// Stored as a header under [`Kept::KEY`] (the experiment, how many results follow,
/// how many were dropped) and each result under its own [`Kept::result_key`], so that
/// keeping one more run writes that run and the small header only: written whole at
/// every landed run, the text grew with the sweep (440 KB by seed002's last run, about
/// 8 ms of the main thread's `setItem` alone each time).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept {
    pub experiment_json: String,
    /// Each run's result as its worker sent it (`RunResult` JSON).
    pub results: Vec<String>,
    pub dropped: u32,
}

/// What [`Kept::KEY`] holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptHeader {
    experiment_json: String,
    /// Results stored under `result_key(0..runs)`.
    runs: u32,
    #[serde(default)]
    dropped: u32,
}

impl Kept {
    /// Where the page keeps the header.
    pub const KEY: &'static str = "schedsim.sweep";

    /// Where the `i`th kept result is.
    pub fn result_key(i: usize) -> String {
        format!("{}.{i}", Kept::KEY)
    }

    /// The header's text: the experiment and the counts, not the results.
    pub fn header_text(&self) -> String {
        let h = KeptHeader {
            experiment_json: self.experiment_json.clone(),
            runs: self.results.len() as u32,
            dropped: self.dropped,
        };
        serde_json::to_string(&h).unwrap_or_default()
    }

    /// How many results the stored header says follow it, whatever its experiment (the
    /// entries a new sweep's header leaves behind, to remove).
    pub fn stored_runs(get: impl Fn(&str) -> Option<String>) -> u32 {
        get(Kept::KEY).and_then(|t| serde_json::from_str::<KeptHeader>(&t).ok()).map_or(0, |h| h.runs)
    }

    /// The runs kept for `experiment_json`, read through `get` (key → stored text), if
    /// the stored header is for it. A result missing from the storage ends the list: the
    /// ones after it count as dropped.
    pub fn load_for(experiment_json: &str, get: impl Fn(&str) -> Option<String>) -> Option<Kept> {
        let h = serde_json::from_str::<KeptHeader>(&get(Kept::KEY)?).ok()?;
        if h.experiment_json != experiment_json {
            return None;
        }
        let results: Vec<String> = (0..h.runs as usize).map_while(|i| get(&Kept::result_key(i))).collect();
        let dropped = h.dropped + (h.runs - results.len() as u32);
        Some(Kept { experiment_json: h.experiment_json, results, dropped })
    }
}

pub struct SweepJob {
    pub id: u32,
    pub experiment_json: String,
    sweep: Sweep,
    queue: VecDeque<RunId>,
    builder: ReportBuilder,
    /// Worker key → its run and the fraction of it simulated.
    running: BTreeMap<u32, (RunId, f64)>,
    /// When the first run was handed to a worker (the sweep's wall time starts there).
    started_ms: Option<f64>,
    pacer: Pacer,
    /// Runs whose worker died (or that failed in it), and why, in the order they failed.
    failed: Vec<(RunId, String)>,
    /// (kernel, patch) → how often its branch ran, summed over the runs landed.
    patched: BTreeMap<(u32, schedsim::Switch), u64>,
}

impl SweepJob {
    /// Checks the experiment and queues its runs, iteration 0 of every client count and
    /// kernel first (client count by client count), so the whole shape shows early.
    pub fn new(id: u32, experiment_json: String) -> Result<SweepJob, String> {
        let exp = Experiment::from_json(&experiment_json).map_err(|e| e.to_string())?;
        let sweep = Sweep::new(&exp).map_err(|e| e.to_string())?;
        let queue = sweep.runs_by_iteration().into();
        let builder = sweep.builder();
        Ok(SweepJob {
            id,
            experiment_json,
            sweep,
            queue,
            builder,
            running: BTreeMap::new(),
            started_ms: None,
            pacer: Pacer::new(),
            failed: Vec::new(),
            patched: BTreeMap::new(),
        })
    }

    /// [`SweepJob::new`] with the runs of `kept` landed already: only the rest is queued.
    /// A kept result that does not belong to this sweep (or repeats one) is refused.
    pub fn resume(id: u32, experiment_json: String, kept: &[String]) -> Result<SweepJob, String> {
        let mut job = SweepJob::new(id, experiment_json)?;
        for json in kept {
            let r: RunResult =
                serde_json::from_str(json).map_err(|e| format!("a kept run's result does not read back: {e}"))?;
            let Some(i) = job.queue.iter().position(|q| *q == r.run) else {
                return Err(format!("a kept result is of run {:?}, which this sweep does not have left", r.run));
            };
            job.queue.remove(i);
            for &(sw, n) in &r.patched {
                *job.patched.entry((r.run.kernel, sw)).or_default() += n;
            }
            job.builder.add(r).map_err(|e| e.to_string())?;
        }
        Ok(job)
    }

    pub fn experiment(&self) -> &Experiment {
        self.sweep.experiment()
    }

    /// The next run for worker `key`, if any is left.
    pub fn next_run(&mut self, key: u32, now_ms: f64) -> Option<RunId> {
        let run = self.queue.pop_front()?;
        self.started_ms.get_or_insert(now_ms);
        self.running.insert(key, (run, 0.0));
        Some(run)
    }

    /// Worker `key` gave its run back unfinished (it was stopped): the run goes first.
    pub fn give_back(&mut self, key: u32) {
        if let Some((run, _)) = self.running.remove(&key) {
            self.queue.push_front(run);
        }
    }

    /// Worker `key` died, or its run failed in it: the run is set aside as failed (the
    /// others go on). False if the worker was running nothing of this sweep.
    pub fn fail_run(&mut self, key: u32, why: String) -> bool {
        match self.running.remove(&key) {
            Some((run, _)) => {
                self.failed.push((run, why));
                true
            }
            None => false,
        }
    }

    /// Nothing queued or running, and not complete: some runs failed.
    pub fn stopped_by_failures(&self) -> bool {
        self.queue.is_empty() && self.running.is_empty() && !self.failed.is_empty()
    }

    /// The failed runs, each as "KERNEL at N CLIENTS, iteration I: why".
    pub fn failures(&self) -> Vec<String> {
        let e = self.experiment();
        self.failed
            .iter()
            .map(|(r, why)| {
                let kernel = e.kernels.get(r.kernel as usize).map_or("?", |k| k.name.as_str());
                let clients = e.clients.get(r.point as usize).copied().unwrap_or(0);
                format!(
                    "{kernel} at {}, iteration {}: {why}",
                    crate::model::fmt::count_of(clients as u64, e.workload.clients_meaning()),
                    r.iteration + 1
                )
            })
            .collect()
    }

    /// Queues the failed runs again, first; the runs that landed stay.
    pub fn retry_failed(&mut self) {
        for (run, _) in self.failed.drain(..).rev() {
            self.queue.push_front(run);
        }
        self.pacer.unshown = true;
    }

    /// Worker `key`'s run has reached `sim_ns` of `run_ns`.
    pub fn progress(&mut self, key: u32, run: RunId, sim_ns: f64, run_ns: f64) {
        if let Some((r, frac)) = self.running.get_mut(&key) {
            if *r == run && run_ns > 0.0 {
                *frac = (sim_ns / run_ns).clamp(0.0, 1.0);
            }
        }
    }

    /// Worker `key`'s run landed (its result as the worker's JSON).
    pub fn land(&mut self, key: u32, result_json: &str) -> Result<(), String> {
        let r: RunResult =
            serde_json::from_str(result_json).map_err(|e| format!("a run's result does not read back: {e}"))?;
        match self.running.get(&key) {
            Some((run, _)) if *run == r.run => {}
            _ => return Err(format!("a worker sent the result of run {:?}, which it was not running", r.run)),
        }
        self.running.remove(&key);
        self.pacer.unshown = true;
        for &(sw, n) in &r.patched {
            *self.patched.entry((r.run.kernel, sw)).or_default() += n;
        }
        self.builder.add(r).map_err(|e| e.to_string())
    }

    /// What the page should hear now, after a run landed or a worker's progress (the
    /// first result at once, then at most every `TELL_INTERVAL_MS`).
    pub fn tell(&mut self, now_ms: f64) -> Tell {
        let shown = self.points().0;
        self.pacer.tell(now_ms, shown)
    }

    pub fn is_complete(&self) -> bool {
        self.builder.is_complete()
    }

    pub fn running(&self) -> usize {
        self.running.len()
    }

    pub fn progress_now(&self, now_ms: f64) -> JobProgress {
        let in_flight: f64 = self.running.values().map(|(_, f)| f).sum();
        let mut p = JobProgress {
            runs_done: self.builder.runs_done(),
            runs_total: self.builder.runs_total(),
            in_flight,
            running: self.running.len() as u32,
            left_s: None,
        };
        let frac = p.fraction();
        if let Some(t0) = self.started_ms {
            let elapsed = (now_ms - t0).max(0.0) / 1e3;
            if frac > 0.0 && elapsed > 0.0 && p.runs_done > 0 {
                p.left_s = Some(elapsed * (1.0 - frac) / frac);
            }
        }
        p
    }

    /// (points shown, points in all): a point is one kernel at one client count.
    pub fn points(&self) -> (u32, u32) {
        let e = self.experiment();
        (self.builder.points_shown(), (e.kernels.len() * e.clients.len()) as u32)
    }

    /// The report of the runs landed so far (see `ReportBuilder::partial_report`).
    pub fn partial_report(&self) -> Report {
        self.builder.partial_report()
    }

    /// The finished sweep: the report and its renderings, each the library's own.
    pub fn finish(&self, now_ms: f64) -> Result<(SweepDone, Report), String> {
        let report = self.builder.report().map_err(|e| e.to_string())?;
        let wall_ms = now_ms - self.started_ms.unwrap_or(now_ms);
        let done = SweepDone {
            id: self.id,
            report_json: report.to_json(),
            table: report.mmtests_table(),
            samples_csv: report.samples_csv(),
            counters_csv: report.counters_csv(),
            wall_ms,
            patched: self.patched.iter().map(|(&(k, sw), &n)| (k, sw, n)).collect(),
        };
        Ok((done, report))
    }
}

/// A finished sweep: the report and its text renderings, each made by the library from
/// the same `Report` value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepDone {
    pub id: u32,
    pub report_json: String,
    pub table: String,
    pub samples_csv: String,
    pub counters_csv: String,
    /// Wall time from the first run handed to a worker to the last result.
    pub wall_ms: f64,
    /// Per kernel (its index), each seed patch it switches on and how often the patch's
    /// own branch ran over all the sweep's runs (`RunResult::patched`); not in the report.
    #[serde(default)]
    pub patched: Vec<(u32, schedsim::Switch, u64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_throttle_starts_at_the_cores_shrinks_when_late_and_grows_back_when_quiet() {
        // 8 workers asked on 2 cores: 2 at once to begin with, and no more however long
        // the beats come on time.
        let mut t = Throttle::new(8, 2, 0.0);
        assert_eq!(t.limit(8), 2);
        let mut now = 0.0;
        let mut grew = 0;
        while now < 10_000.0 {
            now += Throttle::BEAT_MS;
            grew += t.beat(now, 8, false) as u32;
        }
        assert_eq!((grew, t.limit(8)), (0, 2), "past the cores a run only time-shares them");
        // A beat 120 ms late (a main-thread task): one fewer at once, and the quiet
        // period starts again.
        now += 170.0;
        assert!(!t.beat(now, 8, false));
        assert_eq!(t.limit(8), 1);
        for _ in 0..39 {
            now += 50.0;
            assert!(!t.beat(now, 8, false), "not 2 s quiet yet");
        }
        assert_eq!(t.limit(8), 1);
        // Beats on time for 2 s: one more, back to the cores.
        now += 50.0;
        assert!(t.beat(now, 8, false));
        assert_eq!(t.limit(8), 2);
        // Never below one, never above the pool, and a smaller pool caps it.
        for _ in 0..5 {
            now += 500.0;
            t.beat(now, 8, false);
        }
        assert_eq!(t.limit(8), 1);
        // Cores unknown: from the pool's size, which a late beat lowers and quiet raises.
        let mut u = Throttle::new(4, 0, 0.0);
        assert!(!u.beat(200.0, 4, false));
        assert_eq!(u.limit(4), 3);
        let mut now = 200.0;
        let mut grew = 0;
        while now < 2200.0 {
            now += Throttle::BEAT_MS;
            grew += u.beat(now, 4, false) as u32;
        }
        assert_eq!((grew, u.limit(4)), (1, 4));
        assert_eq!(Throttle::new(1, 16, 0.0).limit(1), 1);
        assert_eq!(Throttle::new(4, 0, 0.0).limit(4), 4, "cores unknown: the pool's size");
        let mut big = Throttle::new(8, 16, 0.0);
        assert_eq!(big.limit(8), 8);
        assert!(!big.beat(50.0, 8, false));
        assert_eq!((big.limit(8), big.limit(3)), (8, 3));
        // A hidden page's slow timers are not the page held up.
        let mut h = Throttle::new(8, 2, 0.0);
        assert!(!h.beat(1000.0, 8, true));
        assert_eq!(h.limit(8), 2);
    }

    fn small() -> Experiment {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        e.duration_ms = 20;
        e.warmup_ms = 2;
        e.iterations = 2;
        e.clients = vec![1, 2, 4];
        e
    }

    /// Runs `run` as a worker would and returns its result JSON.
    fn work(job: &SweepJob, run: RunId) -> String {
        let s = Sweep::new(job.experiment()).unwrap();
        serde_json::to_string(&s.run(run, &mut |_| true, schedsim::experiment::Checks::Off).unwrap()).unwrap()
    }

    #[test]
    fn three_workers_landing_out_of_order_give_the_library_report() {
        let e = small();
        let want = e.run(&mut |_| true).unwrap().to_json();
        let mut job = SweepJob::new(7, e.to_json()).unwrap();
        let total = job.progress_now(0.0).runs_total;
        assert_eq!(total, 12);
        // The first iteration of every point goes out first.
        let mut handed = Vec::new();
        let mut t = 0.0;
        for key in [0, 1, 2] {
            handed.push((key, job.next_run(key, t).unwrap()));
        }
        let mut order: Vec<RunId> = handed.iter().map(|h| h.1).collect();
        while !job.is_complete() {
            // The middle worker lands first, then the last, then the first: out of order.
            let (key, run) = handed.remove(handed.len() / 2);
            job.progress(key, run, 10e6, 20e6);
            let json = work(&job, run);
            t += 100.0;
            job.land(key, &json).unwrap();
            let p = job.progress_now(t);
            assert!(p.left_s.is_some() && p.fraction() > 0.0 && p.fraction() <= 1.0);
            let partial = job.partial_report();
            let (shown, all) = job.points();
            assert_eq!(all, 6);
            assert_eq!(partial.configs.iter().map(|c| c.points.len() as u32).sum::<u32>(), shown);
            if let Some(next) = job.next_run(key, t) {
                handed.push((key, next));
                order.push(next);
            }
        }
        assert!(order[..6].iter().all(|r| r.iteration == 0), "{order:?}");
        assert!(order[6..].iter().all(|r| r.iteration == 1), "{order:?}");
        let (done, report) = job.finish(t).unwrap();
        assert_eq!(done.report_json, want);
        assert_eq!(report.to_json(), want);
        assert_eq!(done.table, report.mmtests_table());
        assert_eq!(done.wall_ms, t);
        assert_eq!(job.progress_now(t).left_s, Some(0.0));
    }

    #[test]
    fn a_result_for_another_run_or_garbage_is_refused() {
        let mut job = SweepJob::new(1, small().to_json()).unwrap();
        let a = job.next_run(0, 0.0).unwrap();
        let b = job.next_run(1, 0.0).unwrap();
        let json_b = work(&job, b);
        assert!(job.land(0, &json_b).unwrap_err().contains("was not running"));
        assert!(job.land(0, "{\"run\":").unwrap_err().contains("does not read back"));
        // A worker stopped mid-run gives its run back, to go out first again.
        job.give_back(0);
        assert_eq!(job.next_run(2, 0.0), Some(a));
        assert!(job.finish(0.0).is_err());
        assert!(SweepJob::new(1, "{}".into()).is_err());
    }

    #[test]
    fn a_dead_worker_fails_its_run_only_and_a_retry_completes_the_same_report() {
        let e = small();
        let want = e.run(&mut |_| true).unwrap().to_json();
        let mut job = SweepJob::new(1, e.to_json()).unwrap();
        let lost = job.next_run(0, 0.0).unwrap();
        assert!(job.fail_run(0, "a simulation worker stopped: out of memory".into()));
        assert!(!job.fail_run(0, "twice".into()), "the worker had no run left");
        assert!(!job.stopped_by_failures(), "other runs wait");
        while let Some(run) = job.next_run(1, 0.0) {
            let json = work(&job, run);
            job.land(1, &json).unwrap();
        }
        assert!(job.stopped_by_failures() && !job.is_complete());
        assert_eq!(
            job.failures(),
            ["v4.15 at 1 client/server pair, iteration 1: a simulation worker stopped: out of memory"]
        );
        assert_eq!((job.progress_now(0.0).runs_done, job.progress_now(0.0).runs_total), (11, 12));
        job.retry_failed();
        assert_eq!(job.next_run(2, 0.0), Some(lost));
        let json = work(&job, lost);
        job.land(2, &json).unwrap();
        assert!(job.is_complete() && !job.stopped_by_failures());
        assert_eq!(job.finish(0.0).unwrap().0.report_json, want);
    }

    #[test]
    fn the_page_hears_the_first_result_at_once_then_at_most_every_interval() {
        let mut p = Pacer::new();
        assert_eq!(p.tell(0.0, 0), Tell::Progress, "progress before any result");
        // The first result, 10 ms later: at once, for the first chart.
        p.unshown = true;
        assert_eq!(p.tell(10.0, 1), Tell::Partial);
        // A second point 50 ms later waits for the interval, and nothing is lost.
        p.unshown = true;
        assert_eq!(p.tell(60.0, 2), Tell::Nothing);
        assert_eq!(p.tell(150.0, 2), Tell::Nothing);
        assert_eq!(p.tell(10.0 + TELL_INTERVAL_MS, 2), Tell::Partial);
        // More iterations of the points shown: the progress line at the interval, the
        // charts only after REFINE_INTERVAL_MS.
        p.unshown = true;
        let t = 10.0 + 2.0 * TELL_INTERVAL_MS;
        assert_eq!(p.tell(t, 2), Tell::Progress);
        assert_eq!(p.tell(t + TELL_INTERVAL_MS / 2.0, 2), Tell::Nothing);
        assert_eq!(p.tell(t + TELL_INTERVAL_MS, 2), Tell::Partial);
        // Nothing new landed: progress only.
        assert_eq!(p.tell(10_000.0, 2), Tell::Progress);
    }

    #[test]
    fn a_landed_run_is_told_as_partial_results() {
        let mut job = SweepJob::new(1, small().to_json()).unwrap();
        let run = job.next_run(0, 0.0).unwrap();
        assert_eq!(job.tell(0.0), Tell::Progress);
        let json = work(&job, run);
        job.land(0, &json).unwrap();
        assert_eq!(job.tell(1.0), Tell::Partial);
        assert_eq!(job.tell(2.0), Tell::Nothing);
    }

    #[test]
    fn the_pool_size_follows_the_cpus_within_bounds() {
        assert_eq!(default_workers(2.0), 2);
        assert_eq!(default_workers(64.0), WORKERS_MAX);
        assert_eq!(default_workers(0.0), 1);
        assert_eq!(default_workers(f64::NAN), 1);
    }

    #[test]
    fn a_sweep_resumed_from_kept_runs_gives_the_same_report() {
        let e = small();
        let want = e.run(&mut |_| true).unwrap().to_json();
        let mut job = SweepJob::new(1, e.to_json()).unwrap();
        let mut kept = Kept { experiment_json: e.to_json(), ..Kept::default() };
        for key in 0..5 {
            let run = job.next_run(key, 0.0).unwrap();
            let json = work(&job, run);
            job.land(key, &json).unwrap();
            kept.results.push(json);
        }
        // The page reloads: the kept entries, read back for the same experiment only.
        let mut store = std::collections::BTreeMap::new();
        store.insert(Kept::KEY.to_string(), kept.header_text());
        for (i, r) in kept.results.iter().enumerate() {
            store.insert(Kept::result_key(i), r.clone());
        }
        let get = |k: &str| store.get(k).cloned();
        assert!(Kept::load_for(&small().to_json(), get).is_some());
        assert_eq!(Kept::stored_runs(get), 5);
        let mut other = small();
        other.seed += 1;
        assert!(Kept::load_for(&other.to_json(), get).is_none());
        let back = Kept::load_for(&e.to_json(), get).unwrap();
        assert_eq!(back, kept);
        // The header holds no result: keeping a run writes that run's entry only.
        let quoted = serde_json::to_string(&e.to_json()).unwrap().len();
        assert!(kept.header_text().len() < quoted + 60, "{}", kept.header_text());
        // A result missing from the storage: the ones from it on count as dropped.
        let mut cut = store.clone();
        cut.remove(&Kept::result_key(3));
        let partial = Kept::load_for(&e.to_json(), |k: &str| cut.get(k).cloned()).unwrap();
        assert_eq!((partial.results.len(), partial.dropped), (3, 2));
        let mut job = SweepJob::resume(2, e.to_json(), &back.results).unwrap();
        assert_eq!(job.progress_now(0.0).runs_done, 5);
        assert_eq!(job.points().0, job.partial_report().configs.iter().map(|c| c.points.len() as u32).sum::<u32>());
        let mut key = 0;
        while let Some(run) = job.next_run(key, 1.0) {
            let json = work(&job, run);
            job.land(key, &json).unwrap();
            key += 1;
        }
        assert_eq!(key, 12 - 5, "only the rest ran");
        assert_eq!(job.finish(2.0).unwrap().0.report_json, want);
        // A result twice, or of another sweep, is refused.
        let twice = [back.results[0].clone(), back.results[0].clone()];
        let err = SweepJob::resume(3, e.to_json(), &twice).err().expect("refused");
        assert!(err.contains("does not have left"), "{err}");
    }
}
