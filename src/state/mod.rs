//! The app's state: one value, changed only through [`Action`]s by [`State::reduce`].
//! Pure, so it compiles and is tested natively; in the page, Yew's `Reducible` is a thin
//! wrapper around `reduce`.

use crate::model::sweep::{JobProgress, SweepDone};
use crate::model::topology::{self, Refusal, TopoEdit};
use crate::model::wasted::JumpPlan;
use crate::wire::permalink::{Shared, Tab, Theme, View};
use schedsim::experiment::{MachineSpec, KERNELS_MAX};
use schedsim::topology::Topology;
use schedsim::{presets, Experiment, KernelSpec, Report, Workload};
use std::rc::Rc;

/// A sweep's results as the page shows them: finished, or the runs landed so far.
#[derive(Debug, PartialEq)]
pub struct SweepResult {
    /// The exports; empty texts (and `wall_ms` 0) while the sweep is partial.
    pub done: SweepDone,
    /// The report, or the partial report of the runs landed so far (each point with
    /// the iterations it has).
    pub report: Report,
    /// (points shown, points in all): a point is one kernel at one client count.
    pub points: (u32, u32),
    pub complete: bool,
}

impl SweepResult {
    pub fn finished(done: SweepDone, report: Report) -> SweepResult {
        let n = report.configs.iter().map(|c| c.points.len() as u32).sum();
        SweepResult { done, report, points: (n, n), complete: true }
    }

    pub fn partial(id: u32, report: Report, points: (u32, u32)) -> SweepResult {
        let done = SweepDone {
            id,
            report_json: String::new(),
            table: String::new(),
            samples_csv: String::new(),
            counters_csv: String::new(),
            wall_ms: 0.0,
            patched: Vec::new(),
        };
        SweepResult { done, report, points, complete: false }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Sweep {
    Idle,
    Running {
        id: u32,
        started_ms: f64,
        progress: Option<JobProgress>,
    },
    Done(Rc<SweepResult>),
    Failed(String),
    /// Every run ended, some failed (their worker died): the failed runs, described;
    /// the result holds those that landed.
    RunsFailed {
        id: u32,
        failed: Vec<String>,
    },
    Cancelled,
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub exp: Experiment,
    pub view: View,
    /// A problem with the link the page was opened with, shown until dismissed.
    pub notice: Option<String>,
    /// Errors from the page itself (charts, worker), newest last.
    pub errors: Vec<String>,
    pub sweep: Sweep,
    /// Last result, kept while a new sweep of the same experiment runs (it gives the
    /// same numbers); a sweep of an edited experiment drops it, so that no chart of the
    /// old experiment stands under a running new one.
    pub result: Option<Rc<SweepResult>>,
    pub link: Option<String>,
    pub link_status: Option<String>,
    pub refusal: Option<Refusal>,
    /// Bumped to ask the app to start a sweep (the gallery's one-click run).
    pub run_request: u32,
    pub next_id: u32,
    /// Live mode's jump to a wasted-core moment: a sequence number (a new click replays
    /// the same moment) and the plan.
    pub jump: Option<(u32, JumpPlan)>,
    /// The last Perfetto export.
    pub perfetto: Option<PerfettoStatus>,
    /// Size of the pool of simulation workers.
    pub workers: u32,
    /// A sweep that would have started by itself (a link, the gallery) but costs more
    /// than [`CONFIRM_CPU_SECONDS`]: it waits for a click on this question.
    pub question: Option<RunQuestion>,
    /// Presenter mode (large type, high contrast, charts one per row, the form folded):
    /// this device's setting, kept in local storage and never in a link.
    pub presenter: bool,
    /// Runs kept from before a reload (`sweep::Kept`): (runs kept, runs in all),
    /// said in a banner until a sweep starts; (0, n) when n runs could not be kept.
    pub restored: Option<(u32, u32)>,
}

/// Past this estimated CPU time a sweep that would start by itself waits for a click
/// (Run, or Run the first iteration only). Above every built-in experiment (the largest,
/// seed003-tbench, is estimated at about 26 CPU-seconds in the page), so the gallery's
/// one-click runs run; the 51,200 runs a 527-character link can ask for are days.
pub const CONFIRM_CPU_SECONDS: u64 = 300;

/// How much slower a page worker is than a native thread, in percent: README,
/// "WebAssembly" (1.36–1.7 times in Chromium), rounded to the middle.
pub const PAGE_SLOWDOWN_PERCENT: u64 = 150;

/// The question asked before a large sweep starts: its estimated cost in the page
/// (CPU time at the library's calibration, [`schedsim::estimate::sweep_cost`], times
/// [`PAGE_SLOWDOWN_PERCENT`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunQuestion {
    pub runs: u64,
    pub cpu_ms: u64,
    /// The first iteration alone (one run per kernel and client count).
    pub first_iteration_cpu_ms: u64,
    pub iterations: u32,
}

impl RunQuestion {
    /// The question for `exp`, if it costs more than [`CONFIRM_CPU_SECONDS`]; none for an
    /// invalid experiment (the run refuses it, saying why).
    pub fn of(exp: &Experiment) -> Option<RunQuestion> {
        RunQuestion::estimate(exp).filter(|q| q.cpu_ms > CONFIRM_CPU_SECONDS * 1000)
    }

    /// The figures of `exp`, large or not (the cluster panel shows them); none for an
    /// invalid experiment.
    pub fn estimate(exp: &Experiment) -> Option<RunQuestion> {
        let c = schedsim::estimate::sweep_cost(exp).ok()?;
        let page = |ms: u64| ms.saturating_mul(PAGE_SLOWDOWN_PERCENT) / 100;
        let q = RunQuestion {
            runs: c.runs,
            cpu_ms: page(c.cpu_ms()),
            first_iteration_cpu_ms: page(c.first_iteration_cpu_ms()),
            iterations: exp.iterations,
        };
        Some(q)
    }

    /// What the page says, with `workers` workers sharing the runs.
    pub fn text(&self, workers: u32) -> String {
        let w = (workers.max(1) as u64).min(self.runs.max(1));
        format!(
            "This sweep is {} runs: about {} on this machine (about {} with {w} worker{}), an upper \
             estimate. Run it, or run the first iteration only (about {}).",
            self.runs,
            cpu_minutes(self.cpu_ms),
            minutes(self.cpu_ms.div_ceil(w)),
            if w == 1 { "" } else { "s" },
            cpu_minutes(self.first_iteration_cpu_ms),
        )
    }
}

/// "12 CPU-minutes", "1 CPU-minute", rounded up; "under a CPU-minute".
fn cpu_minutes(ms: u64) -> String {
    match ms.div_ceil(60_000) {
        0 | 1 if ms < 60_000 => "under a CPU-minute".into(),
        1 => "1 CPU-minute".into(),
        n => format!("{n} CPU-minutes"),
    }
}

/// "12 minutes", "1 minute", rounded up.
fn minutes(ms: u64) -> String {
    match ms.div_ceil(60_000) {
        0 | 1 if ms < 60_000 => "under a minute".into(),
        1 => "1 minute".into(),
        n => format!("{n} minutes"),
    }
}

/// An answer to a [`RunQuestion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunAnswer {
    Run,
    /// Iterations set to 1, then run.
    FirstIterationOnly,
    /// Neither: the experiment stays loaded, not run.
    NotNow,
}

/// Where the last Perfetto export stands. `id` numbers the exports of the page's life.
#[derive(Clone, Debug, PartialEq)]
pub enum PerfettoStatus {
    /// Recording in the worker; `message` says what.
    Running { id: u32, message: String },
    /// Downloaded; `message` names the file and its size.
    Done { id: u32, message: String },
    /// The recording or the download failed; `message` says why.
    Failed { id: u32, message: String },
}

impl PerfettoStatus {
    pub fn id(&self) -> u32 {
        match self {
            PerfettoStatus::Running { id, .. }
            | PerfettoStatus::Done { id, .. }
            | PerfettoStatus::Failed { id, .. } => *id,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            PerfettoStatus::Running { message, .. }
            | PerfettoStatus::Done { message, .. }
            | PerfettoStatus::Failed { message, .. } => message,
        }
    }

    pub fn running(&self) -> bool {
        matches!(self, PerfettoStatus::Running { .. })
    }

    pub fn failed(&self) -> bool {
        matches!(self, PerfettoStatus::Failed { .. })
    }
}

/// Where the page keeps the viewer's own theme and presenter mode (localStorage).
pub const THEME_KEY: &str = "schedsim.theme";
pub const PRESENTER_KEY: &str = "schedsim.presenter";

/// A theme as stored: its name in links.
pub fn theme_name(t: Theme) -> &'static str {
    match t {
        Theme::Auto => "auto",
        Theme::Light => "light",
        Theme::Dark => "dark",
    }
}

/// The viewer's own theme, as stored by an earlier visit, wins over a link's, and
/// presenter mode is only ever the stored one (off if none); a stored value this page
/// does not know is ignored.
pub fn apply_local_prefs(st: &mut State, theme: Option<&str>, presenter: Option<&str>) {
    match theme {
        Some("auto") => st.view.theme = Theme::Auto,
        Some("light") => st.view.theme = Theme::Light,
        Some("dark") => st.view.theme = Theme::Dark,
        _ => {}
    }
    st.presenter = presenter == Some("on");
}

pub fn default_experiment() -> Experiment {
    presets::experiment("demo").unwrap_or_else(|| presets::presets().remove(0).experiment)
}

impl State {
    pub fn new(exp: Experiment, view: View, notice: Option<String>) -> State {
        State {
            exp,
            view,
            notice,
            errors: Vec::new(),
            sweep: Sweep::Idle,
            result: None,
            link: None,
            link_status: None,
            refusal: None,
            run_request: 0,
            next_id: 1,
            jump: None,
            perfetto: None,
            workers: 1,
            question: None,
            presenter: false,
            restored: None,
        }
    }

    /// State from the page's fragment: the link's experiment, or the default one with a
    /// message saying why the link was not used; `workers` simulation workers.
    pub fn from_fragment(fragment: &str, workers: u32) -> State {
        let mut st = State::from_fragment_alone(fragment);
        st.workers = workers.clamp(1, crate::model::sweep::WORKERS_MAX);
        st
    }

    fn from_fragment_alone(fragment: &str) -> State {
        match crate::wire::permalink::decode(fragment) {
            Ok(Some(s)) => {
                // A shared result shows itself: a link to the Sweep view runs at once.
                let run = s.view.tab == Tab::Sweep;
                let mut st = State::new(s.experiment, s.view, None);
                st.request_run(run);
                st
            }
            Ok(None) => {
                // The page opens on a finished experiment, not a bare form: the small
                // demo runs at once (16 short runs, about 0.1 s in the workers).
                let mut st = State::new(default_experiment(), View::default(), None);
                st.request_run(true);
                st
            }
            Err(e) => State::new(
                default_experiment(),
                View::default(),
                // Not run: its results would read as the link's answer. The address
                // bar keeps the link as pasted (`app.rs`), so the user sees what is wrong.
                Some(format!("{e} The address bar keeps the link as pasted. The default experiment is loaded instead; Run runs it.")),
            ),
        }
    }

    pub fn shared(&self) -> Shared {
        Shared { experiment: self.exp.clone(), view: self.view.clone() }
    }

    /// The topology being edited: the experiment's own, or its preset's.
    pub fn topology(&self) -> Result<Topology, String> {
        self.exp.machine.effective_topology().map_err(|e| e.0)
    }

    pub fn running(&self) -> bool {
        matches!(self.sweep, Sweep::Running { .. })
    }

    /// A sweep that starts without a click on Run (a link, the gallery): at once, or
    /// after a click on its question if it is large.
    fn request_run(&mut self, run: bool) {
        self.question = if run { RunQuestion::of(&self.exp) } else { None };
        if run && self.question.is_none() {
            self.run_request += 1;
        }
    }
}

/// One edit of an experiment field that has no action of its own (the workload form's
/// fields). Each sets one field and nothing else: fields commit on every keystroke that
/// parses, so an edit may not change another field.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpEdit {
    Clients(Vec<u32>),
    Iterations(u32),
    DurationMs(u64),
    WarmupMs(u64),
    Seed(u64),
    ShardSize(u32),
    CgroupDepth(u32),
    OtherCgroups(u32),
    Name(String),
    WastedCoreThresholdNs(u64),
}

impl ExpEdit {
    fn apply(self, e: &mut Experiment) {
        match self {
            ExpEdit::Clients(c) => e.clients = c,
            ExpEdit::Iterations(n) => e.iterations = n,
            ExpEdit::DurationMs(n) => e.duration_ms = n,
            ExpEdit::WarmupMs(n) => e.warmup_ms = n,
            ExpEdit::Seed(n) => e.seed = n,
            ExpEdit::ShardSize(n) => e.shard_size = n,
            ExpEdit::CgroupDepth(n) => e.cgroup_depth = n,
            ExpEdit::OtherCgroups(n) => e.other_cgroups = n,
            ExpEdit::Name(s) => e.name = s,
            ExpEdit::WastedCoreThresholdNs(n) => e.wasted_core_threshold_ns = n,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Load(Box<Shared>),
    /// Loads a built-in experiment; `run` starts it at once.
    LoadPreset {
        name: String,
        run: bool,
    },
    SetMachinePreset(String),
    SetTopology(Topology),
    /// A whole machine (an imported topology with the preset's costs).
    SetMachine(Box<MachineSpec>),
    /// Live mode at a wasted-core moment.
    Jump(JumpPlan),
    /// A Perfetto export started, finished or failed.
    Perfetto(PerfettoStatus),
    EditTopology(TopoEdit),
    SetKernel(usize, KernelSpec),
    AddKernel,
    RemoveKernel(usize),
    SetWorkload(Workload),
    /// A whole experiment, the view unchanged (a trace imported into it:
    /// `replay::with_trace`).
    SetExperiment(Box<Experiment>),
    /// Any other experiment field.
    Edit(ExpEdit),
    SetView(View),
    /// Live mode's wakeups stepped so far (for the URL).
    SetLiveSteps(u64),
    SetTab(Tab),
    SetTheme(Theme),
    TogglePresenter,
    SweepStarted {
        id: u32,
        at_ms: f64,
    },
    SweepProgress {
        id: u32,
        progress: JobProgress,
    },
    /// The runs landed so far, as a partial result, and where the sweep is.
    SweepPartial(Rc<SweepResult>, JobProgress),
    SweepDone(Rc<SweepResult>),
    SweepFailed {
        id: u32,
        message: String,
    },
    SweepCancelled,
    /// Sweep `id` ended with failed runs: the results of those that landed.
    SweepRunsFailed {
        result: Rc<SweepResult>,
        failed: Vec<String>,
    },
    /// The failed runs of sweep `id` run again.
    SweepRerun {
        id: u32,
        at_ms: f64,
    },
    Error(String),
    DismissErrors,
    DismissNotice,
    SetNotice(String),
    LinkMade {
        url: String,
        status: String,
    },
    RequestRun,
    /// The answer to the question asked before a large sweep.
    Answer(RunAnswer),
    SetWorkers(u32),
    /// The runs kept from before a reload, as a result (or none: they could not be kept),
    /// with (runs kept, runs in all).
    Restored(Option<Rc<SweepResult>>, u32, u32),
}

impl State {
    /// The state after `action`. Every change of the page's state goes through here.
    pub fn reduce(self, action: Action) -> State {
        let before = self.exp.clone();
        // A link's view comes whole, its step count included.
        let whole_view = matches!(action, Action::Load(_));
        let preset_asked = matches!(action, Action::LoadPreset { run: true, .. });
        let started = matches!(action, Action::SweepStarted { .. });
        let mut s = self;
        // Any edit of the experiment clears a refusal shown from an earlier edit.
        match action {
            Action::Load(sh) => {
                s.notice = None;
                s.exp = sh.experiment;
                s.view = sh.view;
                s.refusal = None;
            }
            Action::LoadPreset { name, run } => match presets::experiment(&name) {
                Some(e) => {
                    s.exp = e;
                    s.refusal = None;
                    s.view.tab = Tab::Sweep;
                    s.view.live_kernel = 0;
                    s.view.live_clients = 0;
                    s.view.latency_point = u32::MAX;
                    s.request_run(run);
                }
                None => s.errors.push(format!("no built-in experiment named {name:?}")),
            },
            Action::SetMachinePreset(name) => {
                s.exp.machine = MachineSpec { preset: Some(name), topology: None, costs: None, preempt: None };
                s.refusal = None;
                clamp_irq_cpu(&mut s.exp);
            }
            Action::SetTopology(t) => {
                s.exp.machine.set_topology(t);
                s.refusal = None;
                clamp_irq_cpu(&mut s.exp);
            }
            Action::SetMachine(m) => {
                s.exp.machine = *m;
                s.refusal = None;
                clamp_irq_cpu(&mut s.exp);
            }
            Action::Jump(plan) => {
                s.view.tab = Tab::Live;
                s.view.live_kernel = plan.kernel;
                s.view.live_clients = plan.clients;
                let seq = s.jump.as_ref().map(|j| j.0 + 1).unwrap_or(1);
                s.jump = Some((seq, plan));
            }
            Action::Perfetto(st) => {
                // A late answer to an older export does not replace a newer one's status.
                if st.running() || s.perfetto.as_ref().map(|p| p.id() == st.id()).unwrap_or(true) {
                    s.perfetto = Some(st);
                }
            }
            Action::EditTopology(e) => match s.topology() {
                Ok(t) => match topology::apply(&t, e) {
                    Ok(t2) => {
                        s.exp.machine.set_topology(t2);
                        s.refusal = None;
                        clamp_irq_cpu(&mut s.exp);
                    }
                    Err(r) => s.refusal = Some(r),
                },
                Err(msg) => s.errors.push(msg),
            },
            Action::SetKernel(i, k) => {
                if let Some(slot) = s.exp.kernels.get_mut(i) {
                    *slot = k;
                }
            }
            Action::AddKernel => {
                if s.exp.kernels.len() < KERNELS_MAX {
                    let mut k = s
                        .exp
                        .kernels
                        .last()
                        .cloned()
                        .unwrap_or_else(|| KernelSpec::new("A", schedsim::KernelVersion::V5_15));
                    let mut n = s.exp.kernels.len() + 1;
                    loop {
                        let name = format!("kernel{n}");
                        if !s.exp.kernels.iter().any(|o| o.name == name) {
                            k.name = name;
                            break;
                        }
                        n += 1;
                    }
                    s.exp.kernels.push(k);
                }
            }
            Action::RemoveKernel(i) => {
                if s.exp.kernels.len() > 1 && i < s.exp.kernels.len() {
                    s.exp.kernels.remove(i);
                    if s.view.live_kernel as usize >= s.exp.kernels.len() {
                        s.view.live_kernel = 0;
                    }
                }
            }
            Action::SetWorkload(w) => {
                s.exp.workload = w;
                clamp_irq_cpu(&mut s.exp);
            }
            Action::SetExperiment(e) => {
                s.exp = *e;
                s.refusal = None;
            }
            Action::Edit(e) => e.apply(&mut s.exp),
            Action::SetView(v) => s.view = v,
            Action::SetLiveSteps(n) => s.view.live_steps = n,
            Action::SetTab(t) => s.view.tab = t,
            Action::SetTheme(t) => s.view.theme = t,
            Action::TogglePresenter => s.presenter = !s.presenter,
            Action::SweepStarted { id, at_ms } => {
                s.sweep = Sweep::Running { id, started_ms: at_ms, progress: None };
                s.restored = None;
                if s.result.as_ref().is_some_and(|r| r.report.experiment != s.exp) {
                    s.result = None;
                }
                s.next_id = id + 1;
            }
            Action::SweepProgress { id, progress: p } => {
                if let Sweep::Running { id: rid, progress, .. } = &mut s.sweep {
                    if *rid == id {
                        *progress = Some(p);
                    }
                }
            }
            Action::SweepPartial(r, p) => {
                if let Sweep::Running { id, progress, .. } = &mut s.sweep {
                    if *id == r.done.id {
                        *progress = Some(p);
                        s.result = Some(r);
                    }
                }
            }
            Action::SweepDone(r) => {
                if matches!(s.sweep, Sweep::Running { id, .. } if id == r.done.id) {
                    s.result = Some(r.clone());
                    s.sweep = Sweep::Done(r);
                }
            }
            Action::SweepFailed { id, message } => {
                if matches!(s.sweep, Sweep::Running { id: rid, .. } if rid == id) {
                    s.sweep = Sweep::Failed(message);
                }
            }
            Action::SweepRunsFailed { result, failed } => {
                let id = result.done.id;
                if matches!(s.sweep, Sweep::Running { id: rid, .. } if rid == id) {
                    s.result = Some(result);
                    s.sweep = Sweep::RunsFailed { id, failed };
                }
            }
            Action::SweepRerun { id, at_ms } => {
                if matches!(s.sweep, Sweep::RunsFailed { id: rid, .. } if rid == id) {
                    s.sweep = Sweep::Running { id, started_ms: at_ms, progress: None };
                }
            }
            Action::SweepCancelled => {
                if s.running() {
                    s.sweep = Sweep::Cancelled;
                }
            }
            Action::Error(e) => {
                s.errors.push(e);
                if s.errors.len() > 8 {
                    s.errors.remove(0);
                }
            }
            Action::DismissErrors => s.errors.clear(),
            Action::DismissNotice => s.notice = None,
            Action::SetNotice(n) => s.notice = Some(n),
            Action::LinkMade { url, status } => {
                s.link = Some(url);
                s.link_status = Some(status);
            }
            Action::RequestRun => s.run_request += 1,
            Action::Answer(a) => {
                if s.question.take().is_some() {
                    match a {
                        RunAnswer::Run => s.run_request += 1,
                        RunAnswer::FirstIterationOnly => {
                            s.exp.iterations = 1;
                            s.run_request += 1;
                        }
                        RunAnswer::NotNow => {}
                    }
                }
            }
            Action::SetWorkers(n) => s.workers = n.clamp(1, crate::model::sweep::WORKERS_MAX),
            Action::Restored(r, kept, total) => {
                if let Some(r) = r {
                    if r.complete {
                        s.sweep = Sweep::Done(r.clone());
                    }
                    s.result = Some(r);
                }
                s.restored = Some((kept, total));
            }
        }
        // Live mode's step count belongs to the experiment it was stepped in, and the
        // runs kept from before a reload to theirs.
        if !whole_view && s.exp != before {
            s.view.live_steps = 0;
        }
        if s.exp != before || started {
            // A link made before the edit no longer opens what the page shows, and the
            // strip that said "Link copied." was news of that click, not of a later run.
            s.link = None;
            s.link_status = None;
        }
        if s.exp != before {
            s.restored = None;
        }
        // The question's figures are of the experiment it was asked for; an edit, another
        // link or a click on Run leaves nothing to ask about.
        if (s.exp != before && !preset_asked) || started {
            s.question = None;
        }
        s
    }
}

/// The page's `use_reducer`: a copy of the state, reduced.
#[cfg(target_arch = "wasm32")]
impl yew::Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(State::reduce((*self).clone(), action))
    }
}

/// dbench's interrupt CPU must exist on the machine; keep it on CPU 0 when the machine
/// shrinks below it rather than making the experiment invalid.
fn clamp_irq_cpu(e: &mut Experiment) {
    let n = e.machine.effective_topology().map(|t| t.cpu_count()).unwrap_or(1);
    if let Workload::Dbench(p) = &mut e.workload {
        if p.irq_cpu as u64 >= n {
            p.irq_cpu = 0;
        }
    }
}

#[cfg(test)]
mod tests;
