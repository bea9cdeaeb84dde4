//! A sweep split into its independent runs, for callers that run them in parallel
//! (the CLI's thread pool, the page's web workers) or show results as they land.
//!
//! A sweep is one simulation per (kernel, client count, iteration). [`Sweep::runs`]
//! lists them, [`Sweep::run`] runs one to a small [`RunResult`] (its histograms sparse),
//! and [`ReportBuilder`] assembles the [`Report`] from results given in any order. The
//! builder folds each result into its point at once (integer sums, which do not depend on
//! the order) and lays out samples and wasted moments by iteration number, never by
//! arrival, so the report is byte-identical to [`Experiment::run`]'s whatever the order.
//! Nothing here uses threads, I/O or a clock.

use crate::api::experiment::{Checks, Error, Experiment, Resolved};
use crate::api::report::{ConfigResult, PointResult, Report, REPORT_VERSION};
use crate::facts::kernel::Switch;
use crate::facts::metrics::{Counters, Histogram, Percentiles};
use crate::facts::recording::WastedMoment;
use serde::{Deserialize, Serialize};

/// One run of a sweep: indices into the experiment's `kernels` and `clients`, and the
/// iteration (which picks the random stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RunId {
    pub kernel: u32,
    pub point: u32,
    pub iteration: u32,
}

/// What one run produced: what its point needs, and nothing more.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    pub run: RunId,
    /// The workload's metric as IEEE-754 bits, so that it crosses any JSON reader (the
    /// page's workers send results as JSON) exactly: see [`RunResult::sample`].
    pub sample_bits: u64,
    pub finished: bool,
    pub elapsed_ns: u64,
    pub counters: Counters,
    /// Latency histograms as (bucket, count) pairs of their non-empty buckets.
    pub wakeup_latency: Vec<(u32, u64)>,
    pub request_latency: Vec<(u32, u64)>,
    /// Their `iteration` is this run's.
    pub wasted_moments: Vec<WastedMoment>,
    /// Every seed patch the run's kernel switches on (its overrides), with how often its
    /// own branch ran (`Counters::patched`); 0 means the switch changed nothing in this
    /// run. Not in the report; absent when the kernel switches no patch on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patched: Vec<(Switch, u64)>,
}

impl RunResult {
    pub fn sample(&self) -> f64 {
        f64::from_bits(self.sample_bits)
    }
}

/// An experiment checked and resolved once, ready to run any of its runs.
pub struct Sweep {
    exp: Experiment,
    resolved: Resolved,
}

impl Sweep {
    /// Validates the experiment; errors name the field.
    pub fn new(exp: &Experiment) -> Result<Sweep, Error> {
        let resolved = exp.validate()?;
        Ok(Sweep { exp: exp.clone(), resolved })
    }

    pub fn experiment(&self) -> &Experiment {
        &self.exp
    }

    /// CPUs of the resolved machine.
    pub fn nr_cpus(&self) -> u32 {
        self.resolved.map.nr_cpus()
    }

    pub fn runs_total(&self) -> u32 {
        (self.exp.kernels.len() * self.exp.clients.len()) as u32 * self.exp.iterations
    }

    /// Every run, in report order: kernel, then client count, then iteration.
    pub fn runs(&self) -> Vec<RunId> {
        let mut v = Vec::with_capacity(self.runs_total() as usize);
        for kernel in 0..self.exp.kernels.len() as u32 {
            for point in 0..self.exp.clients.len() as u32 {
                for iteration in 0..self.exp.iterations {
                    v.push(RunId { kernel, point, iteration });
                }
            }
        }
        v
    }

    /// Every run, first iteration first: iteration 0 of every client count and kernel
    /// (client count by client count, every kernel at each), then iteration 1 of all,
    /// and so on, so that a caller showing results as they land has the whole shape of
    /// the sweep early.
    pub fn runs_by_iteration(&self) -> Vec<RunId> {
        let mut v = self.runs();
        v.sort_by_key(|r| (r.iteration, r.point, r.kernel));
        v
    }

    /// Runs one (kernel, client count, iteration). `progress` gets the simulated time
    /// reached now and then; returning false cancels.
    pub fn run(&self, id: RunId, progress: &mut dyn FnMut(u64) -> bool, checks: Checks) -> Result<RunResult, Error> {
        let exp = &self.exp;
        let (k, p) = (id.kernel as usize, id.point as usize);
        if k >= exp.kernels.len() || p >= exp.clients.len() || id.iteration >= exp.iterations {
            return Err(out_of_range(exp, id));
        }
        let clients = exp.clients[p];
        let mut sim = exp.make_sim(&self.resolved, k, clients, id.iteration, None, checks);
        sim.run(progress).map_err(|e| {
            Error(format!("kernel {} with {}: {e}", exp.kernels[k].name, exp.workload.clients_of(clients as u64)))
        })?;
        let mut out = sim.outcome();
        // The counts leave the counters (which serialise without them) for `patched`.
        let hits = std::mem::take(&mut out.counters.patched);
        let patched = exp.kernels[k]
            .overrides
            .iter()
            .filter(|(sw, on)| sw.is_patch() && **on)
            .map(|(&sw, _)| (sw, hits[sw as usize]))
            .collect();
        Ok(RunResult {
            run: id,
            sample_bits: out.sample.value.to_bits(),
            finished: out.sample.finished,
            elapsed_ns: out.elapsed_ns,
            counters: out.counters,
            wakeup_latency: out.wake_latency.to_sparse(),
            request_latency: out.request_latency.to_sparse(),
            wasted_moments: out
                .wasted_moments
                .into_iter()
                .map(|mut w| {
                    w.iteration = id.iteration;
                    w
                })
                .collect(),
            patched,
        })
    }

    /// An empty builder for this sweep's report.
    pub fn builder(&self) -> ReportBuilder {
        let n = self.exp.kernels.len() * self.exp.clients.len();
        ReportBuilder {
            machine: self.resolved.description.clone(),
            nr_cpus: self.resolved.map.nr_cpus(),
            cstates: self.resolved.costs.cstates.iter().map(|c| c.name.clone()).collect(),
            exp: self.exp.clone(),
            points: (0..n).map(|_| PointAcc::default()).collect(),
            done: 0,
        }
    }
}

fn out_of_range(exp: &Experiment, id: RunId) -> Error {
    Error(format!(
        "run (kernel {}, point {}, iteration {}) is outside the sweep of {} kernel(s), {} client count(s), {} iteration(s)",
        id.kernel,
        id.point,
        id.iteration,
        exp.kernels.len(),
        exp.clients.len(),
        exp.iterations
    ))
}

/// One point's runs so far, folded.
#[derive(Default)]
struct PointAcc {
    /// Per iteration, once its run is in: the sample and its wasted moments.
    iterations: Vec<Option<(f64, Vec<WastedMoment>)>>,
    done: u32,
    finished: bool,
    elapsed_ns: u64,
    counters: Counters,
    wake: Option<Histogram>,
    req: Option<Histogram>,
}

impl PointAcc {
    fn result(&self, clients: u32) -> PointResult {
        let empty = Histogram::default();
        let mut samples = Vec::new();
        let mut wasted = Vec::new();
        for (s, w) in self.iterations.iter().flatten() {
            samples.push(*s);
            wasted.extend(w.iter().cloned());
        }
        PointResult {
            clients,
            samples,
            finished: self.finished,
            elapsed_ns: self.elapsed_ns,
            counters: self.counters.clone(),
            wakeup_latency: Percentiles::from(self.wake.as_ref().unwrap_or(&empty)),
            request_latency: Percentiles::from(self.req.as_ref().unwrap_or(&empty)),
            wasted_moments: wasted,
        }
    }
}

/// Assembles a sweep's [`Report`] from its [`RunResult`]s, given in any order. Memory is
/// one point's worth (two dense histograms and the counters) per (kernel, client count),
/// whatever the number of iterations.
pub struct ReportBuilder {
    exp: Experiment,
    machine: String,
    nr_cpus: u32,
    cstates: Vec<String>,
    /// Kernel-major, like the report.
    points: Vec<PointAcc>,
    done: u32,
}

impl ReportBuilder {
    pub fn runs_done(&self) -> u32 {
        self.done
    }

    pub fn runs_total(&self) -> u32 {
        self.points.len() as u32 * self.exp.iterations
    }

    pub fn is_complete(&self) -> bool {
        self.done == self.runs_total()
    }

    /// Folds in one run's result. Refuses a run outside the sweep, one already in, and
    /// a histogram bucket out of range (a result from another build), naming it.
    pub fn add(&mut self, r: RunResult) -> Result<(), Error> {
        let id = r.run;
        let nc = self.exp.clients.len();
        if id.kernel as usize >= self.exp.kernels.len()
            || id.point as usize >= nc
            || id.iteration >= self.exp.iterations
        {
            return Err(out_of_range(&self.exp, id));
        }
        let iterations = self.exp.iterations as usize;
        let acc = &mut self.points[id.kernel as usize * nc + id.point as usize];
        if acc.iterations.is_empty() {
            acc.iterations.resize_with(iterations, || None);
            acc.finished = true;
        }
        let it = id.iteration as usize;
        if acc.iterations[it].is_some() {
            return Err(Error(format!(
                "run (kernel {}, point {}, iteration {}) was given twice",
                id.kernel, id.point, id.iteration
            )));
        }
        let wake = acc.wake.get_or_insert_with(Histogram::default);
        wake.merge_sparse(&r.wakeup_latency).map_err(|e| Error(format!("run result wakeup_latency: {e}")))?;
        let req = acc.req.get_or_insert_with(Histogram::default);
        req.merge_sparse(&r.request_latency).map_err(|e| Error(format!("run result request_latency: {e}")))?;
        acc.iterations[it] = Some((r.sample(), r.wasted_moments));
        acc.finished &= r.finished;
        acc.elapsed_ns += r.elapsed_ns;
        acc.counters.add(&r.counters);
        acc.done += 1;
        self.done += 1;
        Ok(())
    }

    /// The report, once every run is in.
    pub fn report(&self) -> Result<Report, Error> {
        if !self.is_complete() {
            return Err(Error(format!("the sweep has {} of {} runs", self.done, self.runs_total())));
        }
        Ok(self.assemble(&(0..self.exp.clients.len()).collect::<Vec<_>>()))
    }

    /// The report of the runs in so far: each client count at which every kernel has at
    /// least one run, each point with the iterations it has (its `samples`), so that
    /// every kernel has the same client counts as in a full report. No client count yet:
    /// no points. Complete, it is [`ReportBuilder::report`]'s.
    pub fn partial_report(&self) -> Report {
        let nc = self.exp.clients.len();
        let shown: Vec<usize> =
            (0..nc).filter(|&p| (0..self.exp.kernels.len()).all(|k| self.points[k * nc + p].done > 0)).collect();
        self.assemble(&shown)
    }

    /// How many (kernel, client count) points [`ReportBuilder::partial_report`] shows.
    pub fn points_shown(&self) -> u32 {
        let nc = self.exp.clients.len();
        let nk = self.exp.kernels.len();
        (0..nc).filter(|&p| (0..nk).all(|k| self.points[k * nc + p].done > 0)).count() as u32 * nk as u32
    }

    /// What a failed sweep keeps: for each kernel the client counts whose every
    /// iteration ran (a kernel with none is left out). `None` when no point is whole.
    pub fn kept_report(&self) -> Option<Report> {
        let nc = self.exp.clients.len();
        let configs: Vec<ConfigResult> = self
            .exp
            .kernels
            .iter()
            .enumerate()
            .filter_map(|(k, spec)| {
                let points: Vec<_> = (0..nc)
                    .filter(|&p| self.points[k * nc + p].done == self.exp.iterations)
                    .map(|p| self.points[k * nc + p].result(self.exp.clients[p]))
                    .collect();
                (!points.is_empty()).then(|| ConfigResult {
                    name: spec.name.clone(),
                    label: spec.label(),
                    non_historical: spec.non_historical(),
                    points,
                })
            })
            .collect();
        (!configs.is_empty()).then(|| self.with_configs(configs))
    }

    fn assemble(&self, shown: &[usize]) -> Report {
        let nc = self.exp.clients.len();
        let configs = self
            .exp
            .kernels
            .iter()
            .enumerate()
            .map(|(k, spec)| ConfigResult {
                name: spec.name.clone(),
                label: spec.label(),
                non_historical: spec.non_historical(),
                points: shown.iter().map(|&p| self.points[k * nc + p].result(self.exp.clients[p])).collect(),
            })
            .collect();
        self.with_configs(configs)
    }

    fn with_configs(&self, configs: Vec<ConfigResult>) -> Report {
        Report {
            version: REPORT_VERSION,
            generator: format!("schedsim {}", env!("CARGO_PKG_VERSION")),
            machine: self.machine.clone(),
            nr_cpus: self.nr_cpus,
            metric: self.exp.workload.metric(),
            cstates: self.cstates.clone(),
            experiment: self.exp.clone(),
            configs,
        }
    }
}
