//! Experiments: what to run (machine, workload, client counts, iterations, kernels),
//! as versioned JSON, and running them into a [`Report`].

use crate::api::report::Report;
use crate::facts::cost::CostModel;
use crate::facts::kernel::KernelSpec;
use crate::facts::machine;
use crate::facts::metrics::Counters;
use crate::facts::recording::Recording;
use crate::facts::topology::{CpuMap, Topology, TopologyError, TopologyInput};
use crate::facts::trace::{TraceWindow, WakeupTrace};
use crate::facts::workload::{Housekeeping, Workload, WorkloadState};
use crate::state::{Sim, SimOptions};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The experiment format version this build reads and writes.
pub const EXPERIMENT_VERSION: u32 = 1;
/// Limits on what one experiment may ask for.
pub const ITERATIONS_MAX: u32 = 100;
pub const DURATION_MS_MAX: u64 = 600_000;
pub const CLIENT_COUNTS_MAX: usize = 64;
pub const CLIENTS_MAX: u32 = 8192;
pub const KERNELS_MAX: usize = 8;
pub const TASKS_MAX: u64 = 50_000;
/// The experiment's name heads tables and the page; a title, not a document.
pub const NAME_CHARS_MAX: usize = 200;

/// The machine: a preset, a topology, or a preset with its topology replaced; the cost
/// model comes from the preset (or the defaults) unless given in full.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<TopologyInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<CostModel>,
    /// The kernel build's preemption model (`none`, `voluntary`, `full`, `lazy`), for
    /// every kernel that sets none (`+preempt-*`); by default the preset's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempt: Option<crate::facts::kernel::PreemptModel>,
}

/// One experiment. Every run is a pure function of this value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub version: u32,
    #[serde(default)]
    pub name: String,
    pub machine: MachineSpec,
    pub workload: Workload,
    pub clients: Vec<u32>,
    pub iterations: u32,
    pub duration_ms: u64,
    /// Time before metrics count (not for hackbench, timed from its start).
    #[serde(default)]
    pub warmup_ms: u64,
    pub seed: u64,
    pub kernels: Vec<KernelSpec>,
    /// SHARED_RUNQ shard size (`SHARED_RUNQ_SHARD_SZ`): 6 in the v3 series.
    #[serde(default = "default_shard_size")]
    pub shard_size: u32,
    /// Per-CPU kernel housekeeping running beside the benchmark.
    #[serde(default)]
    pub housekeeping: Housekeeping,
    /// How many task-group levels below the root the benchmark's tasks run in (a
    /// systemd login session under cgroup v2 is three: `user.slice`,
    /// `user-UID.slice`, `session-N.scope`). Each level is a group `cfs_rq` on the
    /// leaf list of every CPU the tasks ran on, which `update_blocked_averages()`
    /// walks. Only that walk is modelled: enqueue and dequeue still act on the root
    /// `cfs_rq` alone. Default 0 (every task in the root group).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cgroup_depth: u32,
    /// Other task groups on the box (services, containers, other sessions) whose
    /// `cfs_rq` on each CPU still carries blocked load, so stays on the CPU's leaf list:
    /// each is one more `cfs_rq`, group entity and `tg->load_avg` line that
    /// `update_blocked_averages()` brings up to date. Their tasks are not simulated.
    /// A group whose load has fully decayed leaves the list (`cfs_rq_is_decayed()`,
    /// about a third of a second after its last run on that CPU), so count only groups
    /// that run on every CPU at least that often. Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other_cgroups: u32,
    /// Wasted-core alarm: a CPU idle this long while a task it could run waits
    /// elsewhere is a violation (0 turns the check off). Default 1 ms.
    #[serde(default = "default_wasted_threshold")]
    pub wasted_core_threshold_ns: u64,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// Deepest `cgroup_depth` accepted.
pub const CGROUP_DEPTH_MAX: u32 = 16;
/// Most `other_cgroups` accepted.
pub const OTHER_CGROUPS_MAX: u32 = 4096;

/// The defaults of an experiment's fields, in one place: the JSON's missing fields,
/// [`Experiment::new`], the CLI's flags-only experiment and the presets all take them
/// from here.
pub const DEFAULT_ITERATIONS: u32 = 3;
/// Simulated time per run, ms.
pub const DEFAULT_DURATION_MS: u64 = 500;
/// The warm-up is this fraction of the duration unless given: `duration_ms / 10`.
pub const DEFAULT_WARMUP_DIVISOR: u64 = 10;
pub const DEFAULT_SEED: u64 = 1;
/// `SHARED_RUNQ_SHARD_SZ` of the v3 series (David Vernet, 2023).
pub const DEFAULT_SHARD_SIZE: u32 = 6;
/// The wasted-core alarm's threshold, ns: 1 ms.
pub const DEFAULT_WASTED_THRESHOLD_NS: u64 = 1_000_000;

fn default_wasted_threshold() -> u64 {
    DEFAULT_WASTED_THRESHOLD_NS
}

/// Largest `shard_size`: one shard for the largest machine's LLC.
pub const SHARD_SIZE_MAX: u32 = 1024;

fn default_shard_size() -> u32 {
    DEFAULT_SHARD_SIZE
}

/// Bad input, naming where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Where a run is, for progress bars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub runs_done: u32,
    pub runs_total: u32,
    /// Simulated time reached in the current run.
    pub sim_ns: u64,
    pub run_ns: u64,
}

/// A resolved machine.
pub struct Resolved {
    pub map: CpuMap,
    pub costs: CostModel,
    pub description: String,
    /// The machine's preemption model: the spec's, the preset's, or `full`.
    pub preempt: crate::facts::kernel::PreemptModel,
    /// Sched domains, built once per machine (not per run) for each set of domain
    /// parameters a kernel version asks for.
    doms: std::sync::Mutex<Vec<(crate::facts::domains::DomainParams, std::sync::Arc<crate::facts::domains::Domains>)>>,
}

impl Resolved {
    /// The machine's sched domains with `params`, built on first use.
    pub(crate) fn domains(
        &self,
        params: crate::facts::domains::DomainParams,
    ) -> std::sync::Arc<crate::facts::domains::Domains> {
        let mut cache = self.doms.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, d)) = cache.iter().find(|(r, _)| *r == params) {
            return d.clone();
        }
        let d = std::sync::Arc::new(crate::facts::domains::Domains::build(&self.map, params));
        cache.push((params, d.clone()));
        d
    }
}

impl MachineSpec {
    pub fn resolve(&self) -> Result<Resolved, Error> {
        let (mut topo, mut costs, mut desc, mut preempt) = match &self.preset {
            Some(name) => {
                let m = machine::machine(name).ok_or_else(|| {
                    Error(format!(
                        "field machine.preset: unknown machine {:?}, expected one of {}",
                        crate::facts::input::clip(name),
                        machine::machines().iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
                    ))
                })?;
                (Some(m.topology), m.costs, format!("{} ({})", m.name, m.description), m.preempt)
            }
            None => (None, CostModel::default(), String::new(), Default::default()),
        };
        if let Some(t) = self.given_topology().map_err(|e| Error(format!("field machine.topology: {e}")))? {
            desc = match (&self.preset, t.spec()) {
                (Some(p), Some(s)) => format!("{s} with {p} costs"),
                (Some(p), None) => format!("custom topology with {p} costs"),
                (None, Some(s)) => s,
                (None, None) => "custom topology".into(),
            };
            topo = Some(t);
        }
        let topo = topo.ok_or_else(|| Error("field machine: give a preset or a topology".into()))?;
        if let Some(c) = &self.costs {
            costs = c.clone();
        }
        if let Some(p) = self.preempt {
            preempt = p;
        }
        costs.validate().map_err(|e| Error(format!("field machine.costs: {e}")))?;
        let map = topo.build().map_err(|e| Error(format!("field machine.topology: {e}")))?;
        Ok(Resolved { map, costs, description: desc, preempt, doms: Default::default() })
    }

    /// The topology written in `topology` (its spec parsed), if any: the branch of
    /// [`MachineSpec::resolve`] that replaces the preset's topology, shared with
    /// [`MachineSpec::effective_topology`].
    fn given_topology(&self) -> Result<Option<Topology>, TopologyError> {
        Ok(match &self.topology {
            Some(TopologyInput::Spec(s)) => Some(Topology::parse_spec(s)?),
            Some(TopologyInput::Full(t)) => Some(t.clone()),
            None => None,
        })
    }

    /// The machine's topology alone, as an editor of it sees the machine: the one given,
    /// else the preset's. Unlike [`MachineSpec::resolve`] it neither reads the costs nor
    /// builds the CPU map, so a topology can be shown and edited while the rest of the
    /// machine does not validate. Errors in one line without a field name: the spec's
    /// own, or the machine that is missing or unknown.
    ///
    /// ```
    /// use schedsim::experiment::MachineSpec;
    /// use schedsim::topology::{Topology, TopologyInput};
    /// let mut m = MachineSpec { preset: Some("ryzen-7950x".into()), ..Default::default() };
    /// assert_eq!(m.effective_topology().unwrap().cpu_count(), 32);
    /// m.set_topology(Topology::parse_spec("1x1x4x2").unwrap());
    /// assert_eq!(m.topology, Some(TopologyInput::Spec("1x1x4x2".into())));
    /// assert_eq!(m.effective_topology().unwrap().cpu_count(), 8);
    /// m.set_topology(Topology::uniform(1, 2, 8, 2));
    /// assert_eq!(m.topology, None, "the preset's own topology is not written");
    /// assert_eq!(MachineSpec::default().effective_topology().unwrap_err().0, "no machine preset or topology");
    /// ```
    pub fn effective_topology(&self) -> Result<Topology, Error> {
        if let Some(t) = self.given_topology().map_err(|e| Error(e.0))? {
            return Ok(t);
        }
        let name = self.preset.as_deref().ok_or_else(|| Error("no machine preset or topology".into()))?;
        machine::machine(name).map(|m| m.topology).ok_or_else(|| Error(format!("unknown machine {name:?}")))
    }

    /// Sets the topology: none when it is the preset's own, else the compact spec where
    /// the topology has one (shorter JSON and links), else the topology in full.
    pub fn set_topology(&mut self, t: Topology) {
        let same_as_preset =
            self.preset.as_deref().and_then(machine::machine).map(|p| p.topology == t).unwrap_or(false);
        self.topology = if same_as_preset {
            None
        } else {
            Some(match t.spec() {
                Some(s) => TopologyInput::Spec(s),
                None => TopologyInput::Full(t),
            })
        };
    }
}

/// Whether a run checks the simulator's invariants (`driver/check.rs`) after every event:
/// tests and `CHECK=1` examples do, at a cost in speed; a violation fails the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    Off,
    Invariants,
}

impl Experiment {
    /// An experiment of `workload` on `machine` at `clients` under `kernels`, every
    /// other field at its default (`DEFAULT_*` above; the warm-up a tenth of the
    /// duration; no task groups; housekeeping as `Housekeeping::default`).
    pub fn new(
        name: &str,
        machine: MachineSpec,
        workload: Workload,
        clients: &[u32],
        kernels: Vec<KernelSpec>,
    ) -> Experiment {
        Experiment {
            version: EXPERIMENT_VERSION,
            name: name.into(),
            machine,
            workload,
            clients: clients.to_vec(),
            iterations: DEFAULT_ITERATIONS,
            duration_ms: DEFAULT_DURATION_MS,
            warmup_ms: DEFAULT_DURATION_MS / DEFAULT_WARMUP_DIVISOR,
            seed: DEFAULT_SEED,
            kernels,
            shard_size: DEFAULT_SHARD_SIZE,
            cgroup_depth: 0,
            other_cgroups: 0,
            housekeeping: Housekeeping::default(),
            wasted_core_threshold_ns: DEFAULT_WASTED_THRESHOLD_NS,
        }
    }

    /// Sets the duration and, as the CLI's `--duration-ms` does, the warm-up to
    /// [`DEFAULT_WARMUP_DIVISOR`]'s share of it.
    pub fn with_duration_ms(mut self, duration_ms: u64) -> Experiment {
        self.duration_ms = duration_ms;
        self.warmup_ms = duration_ms / DEFAULT_WARMUP_DIVISOR;
        self
    }

    /// Parses and validates experiment JSON; errors name the field path and the
    /// problem.
    pub fn from_json(text: &str) -> Result<Experiment, Error> {
        let exp = Experiment::parse_json(text)?;
        exp.validate()?;
        Ok(exp)
    }

    /// Parses experiment JSON without checking limits (callers that adjust fields
    /// before [`Experiment::validate`]).
    pub fn parse_json(text: &str) -> Result<Experiment, Error> {
        crate::facts::input::from_json(text, "an experiment").map_err(Error)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks every limit; says which field breaks which.
    pub fn validate(&self) -> Result<Resolved, Error> {
        if self.version != EXPERIMENT_VERSION {
            return Err(Error(format!(
                "field version: {} is not supported; this build reads version {EXPERIMENT_VERSION}",
                self.version
            )));
        }
        let r = self.machine.resolve()?;
        let n = r.map.nr_cpus();
        self.workload.validate(n).map_err(|e| Error(format!("field workload: {e}")))?;
        if self.clients.is_empty() || self.clients.len() > CLIENT_COUNTS_MAX {
            return Err(Error(format!("field clients: give 1 to {CLIENT_COUNTS_MAX} client counts")));
        }
        for (i, &c) in self.clients.iter().enumerate() {
            if self.clients[..i].contains(&c) {
                return Err(Error(format!(
                    "field clients: {c} is listed twice; give each client count once (clients[{i}])"
                )));
            }
            if c == 0 || c > CLIENTS_MAX {
                return Err(Error(format!("field clients: {c} is out of range 1 to {CLIENTS_MAX}")));
            }
            let tasks = self.workload.task_count(c, n);
            if tasks > TASKS_MAX {
                return Err(Error(format!(
                    "field clients: {} make {tasks} tasks, at most {TASKS_MAX}",
                    self.workload.clients_of(c as u64)
                )));
            }
        }
        if self.iterations == 0 || self.iterations > ITERATIONS_MAX {
            return Err(Error(format!("field iterations: {} is out of range 1 to {ITERATIONS_MAX}", self.iterations)));
        }
        if self.duration_ms == 0 || self.duration_ms > DURATION_MS_MAX {
            return Err(Error(format!(
                "field duration_ms: {} is out of range 1 to {DURATION_MS_MAX}",
                self.duration_ms
            )));
        }
        if self.warmup_ms >= self.duration_ms {
            return Err(Error(format!(
                "field warmup_ms: {} must be shorter than duration_ms ({})",
                self.warmup_ms, self.duration_ms
            )));
        }
        if self.kernels.is_empty() || self.kernels.len() > KERNELS_MAX {
            return Err(Error(format!("field kernels: give 1 to {KERNELS_MAX} kernel configurations")));
        }
        if self.name.chars().count() > NAME_CHARS_MAX {
            return Err(Error(format!("field name: at most {NAME_CHARS_MAX} characters")));
        }
        if let Some(c) = self.name.chars().find(|c| c.is_control()) {
            return Err(Error(format!("field name: has the control character {c:?}")));
        }
        for (i, k) in self.kernels.iter().enumerate() {
            if k.name.is_empty() || k.name.len() > 40 {
                return Err(Error(format!("field kernels[{i}].name: must be 1 to 40 characters")));
            }
            // Names head table columns and CSV rows: a newline or an escape would break them.
            if let Some(c) = k.name.chars().find(|c| c.is_control()) {
                return Err(Error(format!("field kernels[{i}].name: {:?} has the control character {c:?}", k.name)));
            }
            if self.kernels[..i].iter().any(|o| o.name == k.name) {
                return Err(Error(format!("field kernels[{i}].name: {:?} is used twice", k.name)));
            }
            k.check().map_err(|e| Error(format!("field kernels[{i}].overrides: {e}")))?;
            if let Some(src) = &k.policy {
                crate::api::policy::validate_policy(src)
                    .map_err(|e| Error(format!("field kernels[{i}].policy: {e}")))?;
            }
        }
        self.housekeeping.validate().map_err(|e| Error(format!("field {e}")))?;
        if self.wasted_core_threshold_ns != 0 && !(10_000..=10_000_000_000).contains(&self.wasted_core_threshold_ns) {
            return Err(Error(format!(
                "field wasted_core_threshold_ns: {} is out of range 10000 to 1e10 (or 0 for off)",
                self.wasted_core_threshold_ns
            )));
        }
        if self.cgroup_depth > CGROUP_DEPTH_MAX {
            return Err(Error(format!(
                "field cgroup_depth: {} is out of range 0 to {CGROUP_DEPTH_MAX}",
                self.cgroup_depth
            )));
        }
        if self.other_cgroups > OTHER_CGROUPS_MAX {
            return Err(Error(format!(
                "field other_cgroups: {} is out of range 0 to {OTHER_CGROUPS_MAX}",
                self.other_cgroups
            )));
        }
        if self.shard_size == 0 || self.shard_size > SHARD_SIZE_MAX {
            return Err(Error(format!("field shard_size: {} is out of range 1 to {SHARD_SIZE_MAX}", self.shard_size)));
        }
        // Refuse up front what the event cap would stop late.
        for &c in &self.clients {
            let est = crate::api::estimate::run_events_max(self, c, &r.map, &r.costs);
            if est > crate::api::estimate::RUN_EVENTS_MAX {
                return Err(Error(format!(
                    "field duration_ms: a run of {} ms with {} would take about {:.1e} events (an upper \
                     estimate), more than the {:.0e} one run may process; shorten the duration or lower the \
                     client count",
                    self.duration_ms,
                    self.workload.clients_of(c as u64),
                    est as f64,
                    crate::api::estimate::RUN_EVENTS_MAX as f64
                )));
            }
        }
        Ok(r)
    }

    /// The warm-up actually used: hackbench does a fixed amount of work and is timed
    /// from its start, as the real tool is, so it has none.
    pub fn effective_warmup_ms(&self) -> u64 {
        match self.workload {
            Workload::Hackbench(_) => 0,
            _ => self.warmup_ms,
        }
    }

    /// The seed of one iteration: the same for every kernel, so A and B see the same
    /// random stream (common random numbers).
    pub fn run_seed(&self, clients: u32, iteration: u32) -> u64 {
        let mut z = self.seed ^ ((clients as u64) << 32) ^ iteration as u64;
        // splitmix64 finaliser
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn make_sim(
        &self,
        r: &Resolved,
        k: usize,
        clients: u32,
        iteration: u32,
        trace: Option<TraceWindow>,
        checks: Checks,
    ) -> Sim {
        let (wl, inits) = WorkloadState::new(&self.workload, clients, r.map.nr_cpus(), &self.housekeeping);
        let mut wl = wl;
        let warmup_ns = self.effective_warmup_ms() * 1_000_000;
        wl.shared.measure_from = warmup_ns;
        let opts = SimOptions {
            seed: self.run_seed(clients, iteration),
            end_ns: self.duration_ms * 1_000_000,
            warmup_ns,
            trace,
            check_invariants: checks == Checks::Invariants,
            shard_size: self.shard_size,
            cgroup_depth: self.cgroup_depth,
            other_cgroups: self.other_cgroups,
            max_events: crate::api::estimate::RUN_EVENTS_MAX,
            wasted_threshold_ns: self.wasted_core_threshold_ns,
        };
        let cfg = self.kernels[k].resolve_on(r.preempt);
        let doms = r.domains(crate::facts::domains::DomainParams::of(&cfg, &r.costs));
        #[allow(unused_mut)]
        let mut sim = Sim::new(r.map.clone(), r.costs.clone(), cfg, wl, inits, opts, doms);
        #[cfg(feature = "policy")]
        if let Some(src) = &self.kernels[k].policy {
            // Validation compiled it already; a failure here fails the run all the same.
            if let Err(e) = sim.attach_policy(src) {
                sim.fail(format!("policy script {e}"));
            }
        }
        #[cfg(not(feature = "policy"))]
        if self.kernels[k].policy.is_some() {
            sim.fail(crate::api::policy::NO_ENGINE.to_string());
        }
        sim
    }

    /// Runs everything. `progress` is called now and then; returning false cancels.
    pub fn run(&self, progress: &mut dyn FnMut(Progress) -> bool) -> Result<Report, Error> {
        self.run_with(progress, Checks::Off)
    }

    /// As [`Experiment::run`], with the invariants checked after every event if `checks`
    /// says so. The
    /// runs go one after the other through [`crate::api::sweep::Sweep`], as a parallel
    /// caller would run them, and the same [`crate::api::sweep::ReportBuilder`] assembles
    /// the report.
    pub fn run_with(&self, progress: &mut dyn FnMut(Progress) -> bool, checks: Checks) -> Result<Report, Error> {
        match self.run_keeping(progress, checks) {
            (Some(rep), None) => Ok(rep),
            (_, Some(e)) => Err(e),
            (None, None) => Err(Error("no report".into())),
        }
    }

    /// As [`Experiment::run_with`], but a failure keeps what finished: the report of
    /// every (kernel, client count) whose iterations all ran, beside the error.
    pub fn run_keeping(
        &self,
        progress: &mut dyn FnMut(Progress) -> bool,
        checks: Checks,
    ) -> (Option<Report>, Option<Error>) {
        let sweep = match crate::api::sweep::Sweep::new(self) {
            Ok(s) => s,
            Err(e) => return (None, Some(e)),
        };
        let mut builder = sweep.builder();
        let total = sweep.runs_total();
        let run_ns = self.duration_ms * 1_000_000;
        for id in sweep.runs() {
            let done = builder.runs_done();
            let mut cb = |t: u64| progress(Progress { runs_done: done, runs_total: total, sim_ns: t, run_ns });
            let result = match sweep.run(id, &mut cb, checks) {
                Ok(r) => r,
                Err(e) => {
                    let kept = builder.kept_report();
                    return (kept, Some(e));
                }
            };
            if let Err(e) = builder.add(result) {
                return (None, Some(e));
            }
            if id.iteration + 1 == self.iterations
                && !progress(Progress { runs_done: builder.runs_done(), runs_total: total, sim_ns: 0, run_ns: 0 })
            {
                return (None, Some(Error("cancelled".into())));
            }
        }
        match builder.report() {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e)),
        }
    }

    /// Runs one (kernel, clients, iteration) recording the decision trace of the
    /// wakeups in `window`.
    pub fn trace(
        &self,
        kernel: usize,
        clients: u32,
        iteration: u32,
        window: TraceWindow,
    ) -> Result<Vec<WakeupTrace>, Error> {
        let r = self.validate()?;
        if kernel >= self.kernels.len() {
            return Err(Error(format!("kernel index {kernel}: the experiment has {}", self.kernels.len())));
        }
        if !self.clients.contains(&clients) {
            let mut e = self.clone();
            e.clients = vec![clients];
            e.validate()?;
        }
        if window.count > crate::facts::trace::TRACE_WAKEUPS_MAX {
            return Err(Error(format!("trace: at most {} wakeups", crate::facts::trace::TRACE_WAKEUPS_MAX)));
        }
        let mut sim = self.make_sim(&r, kernel, clients, iteration, Some(window), Checks::Off);
        sim.stop_after_trace = true;
        sim.run(&mut |_| true).map_err(Error)?;
        Ok(std::mem::take(&mut sim.traces))
    }
}

/// A Perfetto-loadable trace of one run's window, with the run's counters.
pub struct PerfettoTrace {
    /// Chrome trace-event JSON (ui.perfetto.dev opens it).
    pub json: String,
    /// Events in `json` (metadata included).
    pub events: usize,
    /// The run's counters (measured after the warm-up), up to the end of the window:
    /// the run stops there.
    pub counters: Counters,
    /// Set when the window held more than [`RECORD_EVENTS_MAX`](crate::facts::recording::RECORD_EVENTS_MAX) events: the recording
    /// ends at this simulated time (ns) instead of the window's end.
    pub clipped_at_ns: Option<u64>,
}

/// A recorded window not yet written: [`Experiment::perfetto_window`]'s result, for
/// callers that stream the trace to a file instead of holding it
/// ([`PerfettoWindow::write_json`]).
pub struct PerfettoWindow {
    sim: Sim,
    traces: Vec<WakeupTrace>,
    /// As [`PerfettoTrace::counters`].
    pub counters: Counters,
    /// As [`PerfettoTrace::clipped_at_ns`].
    pub clipped_at_ns: Option<u64>,
}

impl PerfettoWindow {
    /// The wakeups in the window: one "wakeup" instant each in the JSON.
    pub fn wakeups(&self) -> usize {
        self.traces.len()
    }

    /// The migrations in the window: one "migrate" instant each in the JSON.
    pub fn migrations(&self) -> usize {
        let recs = self.sim.rec.as_ref().map_or(&[][..], |r| &r.recs[..]);
        recs.iter().filter(|r| matches!(r, crate::state::recorder::Rec::Migrate { .. })).count()
    }

    /// Writes the Chrome trace-event JSON to `w`, event by event (the caller buffers
    /// `w`); returns the number of events written, metadata included. The bytes are
    /// those of [`PerfettoTrace::json`]. Only `w`'s errors are errors.
    pub fn write_json(mut self, w: &mut dyn std::io::Write) -> std::io::Result<usize> {
        self.sim.write_perfetto_json(&self.traces, w)
    }
}

impl Experiment {
    /// Runs one (kernel, clients, iteration) and records `from_ns..=to_ns` of it as a
    /// Perfetto trace: per-CPU task and idle slices, wakeups with their decision path
    /// and a flow to where the wakee ran, and migrations.
    pub fn perfetto(
        &self,
        kernel: usize,
        clients: u32,
        iteration: u32,
        from_ns: u64,
        to_ns: u64,
    ) -> Result<PerfettoTrace, Error> {
        let w = self.perfetto_window(kernel, clients, iteration, from_ns, to_ns)?;
        let (counters, clipped_at_ns) = (w.counters.clone(), w.clipped_at_ns);
        // About 64 bytes an event: one allocation for most windows.
        let recs = w.sim.rec.as_ref().map_or(0, |r| r.recs.len());
        let mut buf = Vec::with_capacity(64 * (recs + 2 * w.traces.len()) + 256);
        let events = w.write_json(&mut buf).map_err(|e| Error(format!("perfetto: {e}")))?;
        let json = String::from_utf8(buf).map_err(|e| Error(format!("perfetto: {e}")))?;
        Ok(PerfettoTrace { json, events, counters, clipped_at_ns })
    }

    /// [`Experiment::perfetto`]'s run and recording, the JSON left to
    /// [`PerfettoWindow::write_json`], so a large window need not be held as text.
    pub fn perfetto_window(
        &self,
        kernel: usize,
        clients: u32,
        iteration: u32,
        from_ns: u64,
        to_ns: u64,
    ) -> Result<PerfettoWindow, Error> {
        let mut sim = self.recorded_run(kernel, clients, iteration, from_ns, to_ns, "perfetto")?;
        let traces = std::mem::take(&mut sim.traces);
        let out = sim.outcome();
        let clipped_at_ns = sim.rec.as_ref().and_then(|r| r.clipped_at);
        Ok(PerfettoWindow { sim, traces, counters: out.counters, clipped_at_ns })
    }

    /// The same window as [`Experiment::perfetto`] records, as data for a timeline: per-CPU
    /// run and idle slices, migrations, wasted-core spans and every wakeup's trace.
    pub fn record(
        &self,
        kernel: usize,
        clients: u32,
        iteration: u32,
        from_ns: u64,
        to_ns: u64,
    ) -> Result<Recording, Error> {
        let mut sim = self.recorded_run(kernel, clients, iteration, from_ns, to_ns, "record")?;
        let traces = std::mem::take(&mut sim.traces);
        Ok(sim.rec_finish(traces))
    }

    /// One run with a recorder on `from_ns..=to_ns`, run to the window's end.
    fn recorded_run(
        &self,
        kernel: usize,
        clients: u32,
        iteration: u32,
        from_ns: u64,
        to_ns: u64,
        what: &str,
    ) -> Result<crate::state::Sim, Error> {
        let mut e = self.clone();
        e.clients = vec![clients];
        let r = e.validate()?;
        if kernel >= self.kernels.len() {
            return Err(Error(format!("kernel index {kernel}: the experiment has {}", self.kernels.len())));
        }
        if from_ns > to_ns {
            return Err(Error(format!("{what} window: from {from_ns} ns is after to {to_ns} ns")));
        }
        let mut sim = e.make_sim(&r, kernel, clients, iteration, None, Checks::Off);
        sim.rec = Some(crate::state::recorder::Recorder::new(from_ns, to_ns, sim.cpus.len(), sim.tasks.len()));
        sim.run(&mut |_| true).map_err(Error)?;
        Ok(sim)
    }
}
