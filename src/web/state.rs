//! The app's state: one value, changed only through [`Action`]s (Yew's `Reducible`).

use crate::permalink::{Shared, Tab, Theme, View};
use crate::proto::SweepDone;
use crate::sweep_job::JobProgress;
use crate::topo_edit::{self, Refusal, TopoEdit};
use crate::wasted::JumpPlan;
use schedsim::experiment::{MachineSpec, TopologyInput, KERNELS_MAX};
use schedsim::topology::Topology;
use schedsim::{presets, Experiment, KernelSpec, Report, Workload};
use std::rc::Rc;
use yew::Reducible;

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
        };
        SweepResult { done, report, points, complete: false }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Sweep {
    Idle,
    Running { id: u32, started_ms: f64, progress: Option<JobProgress> },
    Done(Rc<SweepResult>),
    Failed(String),
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
    /// Last result, kept while a new sweep runs.
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
    pub perfetto: Option<crate::web::components::perfetto::PerfettoStatus>,
    /// Size of the pool of simulation workers.
    pub workers: u32,
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
            workers: crate::sweep_job::default_workers(crate::web::dom::hardware_concurrency()),
        }
    }

    /// State from the page's fragment: the link's experiment, or the default one with a
    /// message saying why the link was not used.
    pub fn from_fragment(fragment: &str) -> State {
        match crate::permalink::decode(fragment) {
            Ok(Some(s)) => {
                // A shared result shows itself: a link to the Sweep view runs at once.
                let run = s.view.tab == Tab::Sweep;
                let mut st = State::new(s.experiment, s.view, None);
                st.run_request = run as u32;
                st
            }
            Ok(None) => State::new(default_experiment(), View::default(), None),
            Err(e) => State::new(
                default_experiment(),
                View::default(),
                Some(format!("{e} The default experiment is loaded instead.")),
            ),
        }
    }

    pub fn shared(&self) -> Shared {
        Shared { experiment: self.exp.clone(), view: self.view.clone() }
    }

    /// The topology being edited: the experiment's own, or its preset's.
    pub fn topology(&self) -> Result<Topology, String> {
        machine_topology(&self.exp.machine)
    }

    pub fn running(&self) -> bool {
        matches!(self.sweep, Sweep::Running { .. })
    }
}

pub fn machine_topology(m: &MachineSpec) -> Result<Topology, String> {
    match &m.topology {
        Some(TopologyInput::Spec(s)) => Topology::parse_spec(s).map_err(|e| e.0),
        Some(TopologyInput::Full(t)) => Ok(t.clone()),
        None => {
            let name = m.preset.as_deref().ok_or("no machine preset or topology")?;
            schedsim::machine::machine(name).map(|m| m.topology).ok_or_else(|| format!("unknown machine {name:?}"))
        }
    }
}

/// Sets a topology, written as the compact spec when it has one (shorter links).
pub fn set_topology(m: &mut MachineSpec, t: Topology) {
    let same_as_preset =
        m.preset.as_deref().and_then(schedsim::machine::machine).map(|p| p.topology == t).unwrap_or(false);
    m.topology = if same_as_preset {
        None
    } else {
        Some(match t.spec() {
            Some(s) => TopologyInput::Spec(s),
            None => TopologyInput::Full(t),
        })
    };
}

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
    SetMachine(MachineSpec),
    /// Live mode at a wasted-core moment.
    Jump(JumpPlan),
    /// A Perfetto export started, finished or failed (`running` false).
    Perfetto(crate::web::components::perfetto::PerfettoStatus),
    EditTopology(TopoEdit),
    SetKernel(usize, KernelSpec),
    AddKernel,
    RemoveKernel(usize),
    SetWorkload(Workload),
    /// Any other experiment field; the closure edits a copy.
    EditExperiment(Box<dyn FnOnce(&mut Experiment)>),
    SetView(View),
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
    Error(String),
    DismissErrors,
    DismissNotice,
    SetNotice(String),
    LinkMade {
        url: String,
        status: String,
    },
    RequestRun,
    SetWorkers(u32),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
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
                    if run {
                        s.run_request += 1;
                    }
                }
                None => s.errors.push(format!("no built-in experiment named {name:?}")),
            },
            Action::SetMachinePreset(name) => {
                s.exp.machine = MachineSpec { preset: Some(name), topology: None, costs: None };
                s.refusal = None;
                clamp_irq_cpu(&mut s.exp);
            }
            Action::SetTopology(t) => {
                set_topology(&mut s.exp.machine, t);
                s.refusal = None;
                clamp_irq_cpu(&mut s.exp);
            }
            Action::SetMachine(m) => {
                s.exp.machine = m;
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
                if st.running || s.perfetto.as_ref().map(|p| p.id == st.id).unwrap_or(true) {
                    s.perfetto = Some(st);
                }
            }
            Action::EditTopology(e) => match s.topology() {
                Ok(t) => match topo_edit::apply(&t, e) {
                    Ok(t2) => {
                        set_topology(&mut s.exp.machine, t2);
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
            Action::EditExperiment(f) => f(&mut s.exp),
            Action::SetView(v) => s.view = v,
            Action::SetTab(t) => s.view.tab = t,
            Action::SetTheme(t) => s.view.theme = t,
            Action::TogglePresenter => s.view.presenter = !s.view.presenter,
            Action::SweepStarted { id, at_ms } => {
                s.sweep = Sweep::Running { id, started_ms: at_ms, progress: None };
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
            Action::SetWorkers(n) => s.workers = n.clamp(1, crate::sweep_job::WORKERS_MAX),
        }
        Rc::new(s)
    }
}

/// dbench's interrupt CPU must exist on the machine; keep it on CPU 0 when the machine
/// shrinks below it rather than making the experiment invalid.
fn clamp_irq_cpu(e: &mut Experiment) {
    let n = machine_topology(&e.machine).map(|t| t.cpu_count()).unwrap_or(1);
    if let Workload::Dbench { irq_cpu, .. } = &mut e.workload {
        if *irq_cpu as u64 >= n {
            *irq_cpu = 0;
        }
    }
}
