//! `State::reduce` and its helpers, natively.

use super::*;
use crate::model::topology::Spot;
use crate::wire::permalink;
use schedsim::topology::TopologyInput;

/// The page as opened without a link, its demo run already started.
fn state() -> State {
    let mut s = State::from_fragment("", 2);
    s.run_request = 0;
    s
}

#[test]
fn a_copied_link_is_taken_down_when_the_experiment_changes() {
    let s = state().reduce(Action::LinkMade { url: "u".into(), status: "Link copied.".into() });
    assert_eq!(s.link.as_deref(), Some("u"));
    let s = s.reduce(Action::Edit(ExpEdit::Iterations(7)));
    assert_eq!((s.link, s.link_status), (None, None));
    // "Link copied." is news of the click: a later run takes it down too.
    let s = state().reduce(Action::LinkMade { url: "u".into(), status: "Link copied.".into() });
    let s = s.reduce(Action::SweepStarted { id: 1, at_ms: 0.0 });
    assert_eq!((s.link, s.link_status), (None, None));
}

#[test]
fn failed_runs_keep_the_landed_ones_and_a_rerun_resumes_the_same_sweep() {
    let s = state().reduce(Action::SweepStarted { id: 4, at_ms: 0.0 });
    let part = Rc::new(SweepResult::partial(4, (*tiny_report()).clone(), (1, 2)));
    let failed = vec!["a at 1 clients, iteration 1: a simulation worker stopped".to_string()];
    let late = s.clone().reduce(Action::SweepRunsFailed {
        result: Rc::new(SweepResult::partial(3, (*tiny_report()).clone(), (1, 2))),
        failed: failed.clone(),
    });
    assert!(late.running() && late.result.is_none(), "an older sweep's failures change nothing");
    let s = s.reduce(Action::SweepRunsFailed { result: part.clone(), failed: failed.clone() });
    assert_eq!((s.sweep.clone(), s.result.clone()), (Sweep::RunsFailed { id: 4, failed }, Some(part.clone())));
    let s = s.reduce(Action::SweepRerun { id: 4, at_ms: 5.0 });
    assert_eq!(s.sweep, Sweep::Running { id: 4, started_ms: 5.0, progress: None });
    assert_eq!(s.result, Some(part), "the landed runs stay while the failed ones run again");
}

#[test]
fn the_page_opened_without_a_link_runs_the_demo_at_once() {
    let s = State::from_fragment("", 2);
    assert_eq!((s.exp.name.as_str(), s.run_request, s.question.clone()), ("demo", 1, None));
    // A bad link loads the demo but runs nothing: the notice is read first.
    assert_eq!(State::from_fragment("#v1.garbage", 2).run_request, 0);
}

fn tiny_report() -> Rc<Report> {
    let mut e = default_experiment();
    e.clients = vec![1];
    e.iterations = 1;
    e.duration_ms = 2;
    e.warmup_ms = 0;
    e.kernels.truncate(1);
    Rc::new(e.run(&mut |_| true).expect("a 2 ms run of the demo runs"))
}

fn done(id: u32) -> Rc<SweepResult> {
    let r = (*tiny_report()).clone();
    let mut d = SweepResult::partial(id, r.clone(), (1, 1)).done;
    d.report_json = r.to_json();
    Rc::new(SweepResult::finished(d, r))
}

/// The link of issue 29: 64 client counts, 8 kernels, 100 iterations (51,200 runs).
fn big_link() -> String {
    let mut e = presets::experiment("seed004").unwrap();
    e.clients = (1..=64).collect();
    e.iterations = 100;
    let k = e.kernels[0].clone();
    e.kernels = (0..8).map(|i| KernelSpec { name: format!("k{i}"), ..k.clone() }).collect();
    crate::wire::permalink::encode(&Shared { experiment: e, view: View::default() })
}

// A link to the Sweep view runs when opened, unless it costs more than
// CONFIRM_CPU_SECONDS: then it waits for a click on its question.
#[test]
fn a_large_sweep_from_a_link_waits_for_a_click() {
    let s = State::from_fragment(&big_link(), 2);
    assert_eq!(s.exp.iterations, 100);
    assert_eq!(s.run_request, 0, "a 51,200-run sweep started by itself");
    let q = s.question.clone().expect("a question");
    assert_eq!((q.runs, q.iterations), (51_200, 100));
    assert!(q.cpu_ms > 3_600_000 && q.first_iteration_cpu_ms * 100 >= q.cpu_ms - 100, "{q:?}");
    let text = q.text(2);
    assert!(
        text.starts_with("This sweep is 51200 runs: about ") && text.contains(" CPU-minutes on this machine"),
        "{text}"
    );
    assert!(text.contains("with 2 workers") && text.contains("run the first iteration only (about "), "{text}");
    // Run: the whole sweep, once.
    let all = s.clone().reduce(Action::Answer(RunAnswer::Run));
    assert_eq!((all.run_request, all.exp.iterations, all.question.clone()), (1, 100, None));
    assert_eq!(all.reduce(Action::Answer(RunAnswer::Run)).run_request, 1, "a second answer runs nothing");
    // The first iteration only.
    let first = s.clone().reduce(Action::Answer(RunAnswer::FirstIterationOnly));
    assert_eq!((first.run_request, first.exp.iterations, first.question), (1, 1, None));
    // Not now; or an edit, which makes the figures stale.
    let not_now = s.clone().reduce(Action::Answer(RunAnswer::NotNow));
    assert_eq!((not_now.run_request, not_now.question), (0, None));
    let edited = s.clone().reduce(Action::Edit(ExpEdit::Iterations(3)));
    assert_eq!((edited.run_request, edited.question), (0, None));
    // A link to another tab never runs by itself, so it asks nothing.
    let mut e = presets::experiment("seed004").unwrap();
    e.iterations = 100;
    let live =
        crate::wire::permalink::encode(&Shared { experiment: e, view: View { tab: Tab::Live, ..View::default() } });
    assert_eq!(State::from_fragment(&live, 2).question, None);
}

// Every built-in experiment is under the threshold: the gallery's one-click runs and
// links to them start at once.
#[test]
fn built_in_experiments_start_without_a_question() {
    for p in presets::presets() {
        let s = state().reduce(Action::LoadPreset { name: p.name.to_string(), run: true });
        assert_eq!((s.run_request, s.question.clone()), (1, None), "{}", p.name);
        let link = crate::wire::permalink::encode(&Shared { experiment: p.experiment.clone(), view: View::default() });
        assert_eq!(State::from_fragment(&link, 2).run_request, 1, "{}", p.name);
    }
    // Past the threshold, the gallery's run asks too: a preset made large by hand
    // cannot be loaded that way, so the question is checked on the state's own path.
    let mut s = state();
    s.exp = presets::experiment("seed003-tbench").unwrap();
    s.exp.iterations = 100;
    s.request_run(true);
    assert!(s.question.is_some() && s.run_request == 0);
}

#[test]
fn each_edit_sets_its_field_and_only_it() {
    let s0 = state();
    type Set = fn(&mut Experiment);
    let cases: Vec<(ExpEdit, Set)> = vec![
        (ExpEdit::Clients(vec![3, 5]), |e| e.clients = vec![3, 5]),
        (ExpEdit::Iterations(7), |e| e.iterations = 7),
        (ExpEdit::DurationMs(1234), |e| e.duration_ms = 1234),
        (ExpEdit::WarmupMs(11), |e| e.warmup_ms = 11),
        (ExpEdit::Seed(u64::MAX), |e| e.seed = u64::MAX),
        (ExpEdit::ShardSize(3), |e| e.shard_size = 3),
        (ExpEdit::CgroupDepth(3), |e| e.cgroup_depth = 3),
        (ExpEdit::OtherCgroups(40), |e| e.other_cgroups = 40),
        (ExpEdit::Name("x y".into()), |e| e.name = "x y".into()),
        (ExpEdit::WastedCoreThresholdNs(0), |e| e.wasted_core_threshold_ns = 0),
    ];
    for (edit, set) in cases {
        let mut want = s0.exp.clone();
        set(&mut want);
        assert_ne!(want, s0.exp, "{edit:?} must change something");
        let s = s0.clone().reduce(Action::Edit(edit.clone()));
        assert_eq!(s.exp, want, "{edit:?}");
        assert_eq!(s.view, s0.view, "{edit:?} leaves the view");
    }
}

#[test]
fn a_refused_topology_edit_keeps_the_machine_and_says_where() {
    let s0 = state();
    let t = s0.topology().unwrap();
    // The only node cannot be removed.
    let nodes = t.nodes.len() as u32;
    let mut s = s0.clone();
    for i in (0..nodes).rev() {
        s = s.reduce(Action::EditTopology(TopoEdit::RemoveNode(i)));
    }
    let r = s.refusal.clone().expect("removing every node is refused");
    assert!(matches!(r.spot, Spot::Node(_)), "{r:?}");
    assert_eq!(s.topology().unwrap().nodes.len(), 1, "every node but the last one goes");
    // The next accepted edit clears the refusal.
    let s = s.reduce(Action::EditTopology(TopoEdit::AddNode));
    assert_eq!(s.refusal, None);
    assert_eq!(s.topology().unwrap().nodes.len(), 2);
}

#[test]
fn a_smaller_machine_moves_dbench_interrupts_to_cpu_0() {
    let mut s = state();
    s.exp.workload = Workload::by_name("dbench").unwrap();
    if let Workload::Dbench(p) = &mut s.exp.workload {
        p.irq_cpu = 7;
    }
    let s = s.reduce(Action::SetTopology(Topology::parse_spec("1x1x2x1").unwrap()));
    assert!(matches!(&s.exp.workload, Workload::Dbench(p) if p.irq_cpu == 0), "{:?}", s.exp.workload);
    assert_eq!(s.exp.machine.topology, Some(TopologyInput::Spec("1x1x2x1".into())));
}

#[test]
fn kernels_get_fresh_names_up_to_the_limit_and_one_always_stays() {
    let mut s = state();
    s.exp.kernels.truncate(1);
    s.exp.kernels[0].name = "kernel2".into();
    let s1 = s.clone().reduce(Action::AddKernel);
    let names: Vec<&str> = s1.exp.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["kernel2", "kernel3"]);
    let mut full = s1.clone();
    for _ in 0..KERNELS_MAX + 3 {
        full = full.reduce(Action::AddKernel);
    }
    assert_eq!(full.exp.kernels.len(), KERNELS_MAX);
    let mut one = full.clone();
    one.view.live_kernel = (KERNELS_MAX - 1) as u32;
    for _ in 0..KERNELS_MAX + 3 {
        one = one.reduce(Action::RemoveKernel(KERNELS_MAX));
        let last = one.exp.kernels.len() - 1;
        one = one.reduce(Action::RemoveKernel(last));
    }
    assert_eq!(one.exp.kernels.len(), 1);
    assert_eq!(one.view.live_kernel, 0, "live mode's kernel follows its removal");
}

#[test]
fn a_sweep_takes_only_its_own_answers() {
    let s = state().reduce(Action::SweepStarted { id: 4, at_ms: 10.0 });
    assert!(s.running());
    assert_eq!(s.next_id, 5);
    let p = JobProgress { runs_done: 1, runs_total: 3, in_flight: 0.5, running: 1, left_s: None };
    let s = s.reduce(Action::SweepProgress { id: 3, progress: p });
    assert_eq!(s.sweep, Sweep::Running { id: 4, started_ms: 10.0, progress: None }, "an older sweep's progress");
    let s = s.reduce(Action::SweepProgress { id: 4, progress: p });
    assert_eq!(s.sweep, Sweep::Running { id: 4, started_ms: 10.0, progress: Some(p) });
    let s = s.reduce(Action::SweepDone(done(3)));
    assert!(s.running() && s.result.is_none(), "an older sweep's report is not shown");
    let s = s.reduce(Action::SweepFailed { id: 3, message: "old".into() });
    assert!(s.running());
    let d4 = done(4);
    let s = s.reduce(Action::SweepDone(d4.clone()));
    assert_eq!(s.sweep, Sweep::Done(d4.clone()));
    assert_eq!(s.result, Some(d4.clone()));
    // Cancel and a late failure change nothing once it is done.
    let s2 = s.clone().reduce(Action::SweepCancelled).reduce(Action::SweepFailed { id: 4, message: "late".into() });
    assert_eq!(s2, s);
    // A new sweep of the same experiment keeps the last result until its own lands
    // (the numbers will be the same); cancel ends it.
    let mut same = s.clone();
    same.exp = d4.report.experiment.clone();
    let same = same.reduce(Action::SweepStarted { id: 5, at_ms: 20.0 });
    assert_eq!(same.result, Some(d4.clone()));
    let same = same.reduce(Action::SweepCancelled);
    assert_eq!(same.sweep, Sweep::Cancelled);
    // A sweep of an edited experiment drops it: no old chart under a new run.
    assert_ne!(s.exp, d4.report.experiment);
    let s = s.reduce(Action::SweepStarted { id: 5, at_ms: 20.0 });
    assert!(s.running() && s.result.is_none());
}

#[test]
fn a_late_perfetto_answer_leaves_a_newer_export_alone() {
    let run = |id| PerfettoStatus::Running { id, message: format!("recording {id}") };
    let s = state().reduce(Action::Perfetto(run(1))).reduce(Action::Perfetto(run(2)));
    let s = s.reduce(Action::Perfetto(PerfettoStatus::Done { id: 1, message: "old file".into() }));
    assert_eq!(s.perfetto, Some(run(2)));
    let failed = PerfettoStatus::Failed { id: 2, message: "no".into() };
    let s = s.reduce(Action::Perfetto(failed.clone()));
    assert_eq!(s.perfetto, Some(failed.clone()));
    assert!(failed.failed() && !failed.running() && failed.id() == 2 && failed.message() == "no");
}

#[test]
fn errors_keep_the_newest_eight() {
    let mut s = state();
    for i in 0..11 {
        s = s.reduce(Action::Error(format!("e{i}")));
    }
    assert_eq!(s.errors, (3..11).map(|i| format!("e{i}")).collect::<Vec<_>>());
    assert!(s.reduce(Action::DismissErrors).errors.is_empty());
}

#[test]
fn presets_load_into_the_sweep_view_and_may_run() {
    let mut s = state();
    s.view.tab = Tab::Classroom;
    s.view.latency_point = 2;
    let s1 = s.clone().reduce(Action::LoadPreset { name: "seed001".into(), run: true });
    assert_eq!(s1.exp, presets::experiment("seed001").unwrap());
    assert_eq!((s1.view.tab, s1.view.latency_point, s1.run_request), (Tab::Sweep, u32::MAX, 1));
    let s2 = s.clone().reduce(Action::LoadPreset { name: "seed001".into(), run: false });
    assert_eq!(s2.run_request, 0);
    let s3 = s.clone().reduce(Action::LoadPreset { name: "seed999".into(), run: true });
    assert_eq!((s3.exp.clone(), s3.run_request), (s.exp.clone(), 0));
    assert_eq!(s3.errors, ["no built-in experiment named \"seed999\""]);
}

#[test]
fn a_link_opens_its_view_and_a_shared_sweep_runs() {
    let mut exp = presets::experiment("seed002").unwrap();
    exp.seed = 99;
    let view = View { tab: Tab::Sweep, live_clients: 4, ..View::default() };
    let frag = permalink::encode(&Shared { experiment: exp.clone(), view: view.clone() });
    let s = State::from_fragment(&frag, 1000);
    assert_eq!((s.exp.clone(), s.view.clone(), s.run_request), (exp.clone(), view, 1));
    assert_eq!(s.workers, crate::model::sweep::WORKERS_MAX);
    let live = View { tab: Tab::Live, ..View::default() };
    let s = State::from_fragment(&permalink::encode(&Shared { experiment: exp, view: live }), 0);
    assert_eq!((s.run_request, s.workers), (0, 1));
    let bad = State::from_fragment("#v1.garbage", 2);
    assert_eq!(bad.exp, default_experiment());
    assert!(bad.notice.as_deref().unwrap_or("").ends_with("The default experiment is loaded instead; Run runs it."));
    assert_eq!(bad.run_request, 0, "a broken link's default is not passed off as its answer");
    assert_eq!(bad.reduce(Action::DismissNotice).notice, None);
}

#[test]
fn live_steps_belong_to_their_experiment_but_a_link_brings_its_own() {
    let mut s = state().reduce(Action::SetTab(Tab::Live));
    s = s.reduce(Action::SetLiveSteps(40));
    assert_eq!(s.view.live_steps, 40);
    // View changes and edits that leave the experiment as it is keep the count.
    let seed = s.exp.seed;
    s = s.reduce(Action::SetTheme(Theme::Dark)).reduce(Action::Edit(ExpEdit::Seed(seed)));
    assert_eq!(s.view.live_steps, 40);
    let edited = s.clone().reduce(Action::Edit(ExpEdit::Seed(seed + 1)));
    assert_eq!(edited.view.live_steps, 0, "another seed, another run");
    let preset = s.clone().reduce(Action::LoadPreset { name: "seed001".into(), run: false });
    assert_eq!(preset.view.live_steps, 0);
    let mut link = Shared { experiment: presets::experiment("seed001").unwrap(), view: View::default() };
    link.view.live_steps = 12;
    assert_eq!(s.reduce(Action::Load(Box::new(link))).view.live_steps, 12);
}

#[test]
fn the_viewers_stored_theme_wins_over_a_links_and_presenter_mode_is_only_the_devices() {
    let link = View { theme: Theme::Dark, live_steps: 3, ..View::default() };
    let mut st = State::new(default_experiment(), link.clone(), None);
    apply_local_prefs(&mut st, None, None);
    assert_eq!((&st.view, st.presenter), (&link, false), "nothing stored: the link's theme, not presenting");
    apply_local_prefs(&mut st, Some("light"), Some("on"));
    assert_eq!((st.view.theme, st.presenter, st.view.live_steps), (Theme::Light, true, 3));
    apply_local_prefs(&mut st, Some("purple"), Some("maybe"));
    assert_eq!((st.view.theme, st.presenter), (Theme::Light, false), "unknown stored values are ignored");
    for t in [Theme::Auto, Theme::Light, Theme::Dark] {
        let mut w = State::new(default_experiment(), View::default(), None);
        apply_local_prefs(&mut w, Some(theme_name(t)), Some("on"));
        assert_eq!((w.view.theme, w.presenter), (t, true));
        assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{}\"", theme_name(t)), "the link's own name");
    }
}

#[test]
fn view_actions() {
    let s = state().reduce(Action::SetTab(Tab::Live)).reduce(Action::SetTheme(Theme::Dark));
    assert_eq!((s.view.tab, s.view.theme, s.presenter), (Tab::Live, Theme::Dark, false));
    let s = s.reduce(Action::TogglePresenter);
    assert!(s.presenter);
    assert!(!s.clone().reduce(Action::TogglePresenter).presenter);
    // Presenter mode is the device's: a link loaded (Back, Forward) keeps it, and
    // the link the page would share does not carry it.
    let link = Shared { experiment: presets::experiment("seed001").unwrap(), view: View::default() };
    assert!(s.clone().reduce(Action::Load(Box::new(link))).presenter);
    assert!(!permalink::encode(&s.shared()).is_empty());
    assert!(!serde_json::to_string(&s.shared()).unwrap().contains("presenter"));
    let plan = JumpPlan { kernel: 1, clients: 8, iteration: 2, time_ns: 5, advance_ns: 4 };
    let s = s.reduce(Action::SetTab(Tab::Sweep)).reduce(Action::Jump(plan.clone()));
    assert_eq!((s.view.tab, s.view.live_kernel, s.view.live_clients), (Tab::Live, 1, 8));
    let s = s.reduce(Action::Jump(plan.clone()));
    assert_eq!(s.jump, Some((2, plan)), "a second click on the same moment replays it");
    assert_eq!(s.clone().reduce(Action::SetWorkers(0)).workers, 1);
    assert_eq!(s.clone().reduce(Action::RequestRun).run_request, s.run_request + 1);
}
