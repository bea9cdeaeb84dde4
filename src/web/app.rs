//! The root component: header (tabs, theme, presenter mode, Copy link), banners, and
//! the views — Sweep (machine, kernels, workload, run, results), Live, Classroom and
//! Diff.

use crate::charts::ChartTheme;
use crate::perfetto::{self, PerfettoAsk};
use crate::permalink::{self, Tab, Theme, View};
use crate::proto::{Request, Response};
use crate::web::components::diff::DiffView;
use crate::web::components::fields::{Field, FieldErrorSink, FieldErrors};
use crate::web::components::gallery::Gallery;
use crate::web::components::import::ImportBox;
use crate::web::components::kernels::KernelPanel;
use crate::web::components::live::LiveView;
use crate::web::components::results::Results;
use crate::web::components::topology::TopologyView;
use crate::web::components::workload::WorkloadForm;
use crate::web::dom;
use crate::web::hooks::{is_dark, use_keydown, use_theme, use_url_state};
use crate::web::state::{self, Action, PerfettoStatus, State, Sweep, SweepResult};
use crate::web::worker::{PoolEvent, SweepPool, SweepRunner};
use schedsim::topology::Topology;
use std::rc::Rc;
use web_sys::{HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

fn pool_event_to_action(e: PoolEvent) -> Action {
    match e {
        PoolEvent::Progress { id, progress } => Action::SweepProgress { id, progress },
        PoolEvent::Partial { id, report, points, progress } => {
            Action::SweepPartial(Rc::new(SweepResult::partial(id, report, points)), progress)
        }
        PoolEvent::Done { done, report, .. } => Action::SweepDone(Rc::new(SweepResult::finished(done, report))),
        PoolEvent::Failed { id, message } => Action::SweepFailed { id, message },
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let mut st =
            State::from_fragment(&dom::location_hash(), crate::sweep_job::default_workers(dom::hardware_concurrency()));
        // The address bar holds the page's state, so a reload (or a return from another
        // site) reopens this tab's own edits: a link to the Sweep view runs by itself
        // only when it is opened.
        if dom::navigation_type() != "navigate" {
            st.run_request = 0;
        }
        state::apply_local_prefs(
            &mut st.view,
            dom::stored(state::THEME_KEY).as_deref(),
            dom::stored(state::PRESENTER_KEY).as_deref(),
        );
        st
    });
    // What the address bar held when the page opened, if it was a link.
    let opened_with = use_memo((), |_| permalink::decode(&dom::location_hash()).ok().flatten());
    let dispatcher = state.dispatcher();
    let dispatch: Callback<Action> = {
        let d = dispatcher.clone();
        Callback::from(move |a| d.dispatch(a))
    };
    let runner = {
        let d = dispatcher.clone();
        let workers = state.workers;
        use_memo((), move |_| SweepPool::new(workers, move |e| d.dispatch(pool_event_to_action(e))))
    };
    {
        let runner = runner.clone();
        use_effect_with(state.workers, move |n| runner.set_size(*n));
    }
    let help = use_state(|| false);
    // Fields whose text is refused: listed beside Run, which they block.
    let field_errors = use_reducer(FieldErrors::default);
    let field_sink = {
        let d = field_errors.dispatcher();
        // One callback for the page's life: a new one would re-render every field.
        use_memo((), move |_| FieldErrorSink(Callback::from(move |a| d.dispatch(a))))
    };
    // "Link copied." beside the button, for a few seconds; the sequence number lets an
    // older timer leave a newer message alone.
    let link_flash = use_state(|| None::<(u32, String, bool)>);
    let link_seq = use_mut_ref(|| 0u32);
    // Perfetto exports run in a worker of their own, so a sweep and an export do not wait
    // for each other; the file names wait here for their answers.
    let perfetto_names = use_mut_ref(std::collections::HashMap::<u32, String>::new);
    let perfetto_runner = {
        let d = dispatcher.clone();
        let names = perfetto_names.clone();
        use_memo((), move |_| {
            SweepRunner::new(move |r| {
                let st = |id, failed, message: String| {
                    if failed {
                        PerfettoStatus::Failed { id, message }
                    } else {
                        PerfettoStatus::Done { id, message }
                    }
                };
                match r {
                    Response::Perfetto { id, json, events } => {
                        let name = names.borrow_mut().remove(&id).unwrap_or_else(|| "schedsim.perfetto.json".into());
                        match dom::download_text(&name, "application/json", &json) {
                            Ok(()) => d.dispatch(Action::Perfetto(st(
                                id,
                                false,
                                format!("Downloaded {name} ({events} events, {:.0} kB).", json.len() as f64 / 1e3),
                            ))),
                            Err(e) => d.dispatch(Action::Perfetto(st(id, true, format!("The download failed: {e}")))),
                        }
                    }
                    Response::Failed { id, message } => {
                        d.dispatch(Action::Perfetto(st(id, true, format!("The export failed: {message}"))))
                    }
                    _ => {}
                }
            })
        })
    };
    let perfetto_seq = use_mut_ref(|| 0u32);
    let on_perfetto = {
        let state = state.clone();
        let d = dispatch.clone();
        let runner = perfetto_runner.clone();
        let names = perfetto_names.clone();
        Callback::from(move |ask: PerfettoAsk| {
            let id = {
                let mut s = perfetto_seq.borrow_mut();
                *s += 1;
                *s
            };
            let exp = &state.exp;
            let stem = if exp.name.is_empty() { "schedsim".to_string() } else { format!("schedsim-{}", exp.name) };
            let kname = exp.kernels.get(ask.kernel as usize).map(|k| k.name.clone()).unwrap_or_default();
            let name = perfetto::file_name(&stem, &kname, &ask);
            names.borrow_mut().insert(id, name.clone());
            d.emit(Action::Perfetto(PerfettoStatus::Running {
                id,
                message: format!("Recording {name} in the worker…"),
            }));
            if let Err(e) = runner.request(id, Request::Perfetto { id, experiment_json: exp.to_json(), ask }) {
                d.emit(Action::Perfetto(PerfettoStatus::Failed { id, message: format!("The export failed: {e}") }));
            }
        })
    };

    // Theme and presenter mode live on <html> so the whole page's CSS follows.
    let dark = use_theme(state.view.theme, state.view.presenter);

    let start = {
        let state = state.clone();
        let runner = runner.clone();
        let d = dispatch.clone();
        move || {
            if let Err(e) = state.exp.validate() {
                d.emit(Action::Error(format!("cannot run: {e}")));
                return;
            }
            let id = state.next_id;
            if state.running() {
                runner.cancel();
            }
            d.emit(Action::SweepStarted { id, at_ms: dom::now_ms() });
            if let Err(e) = runner.start(id, state.exp.to_json()) {
                d.emit(Action::SweepFailed { id, message: e });
            }
        }
    };
    {
        // A tab opens at its top, not at the scroll position of the one left.
        use_effect_with(state.view.tab, |_| dom::scroll_to_top());
    }
    let scroll_on_done = use_mut_ref(|| false);
    {
        // The gallery's one-click run: the experiment is loaded by the time this runs.
        let start = start.clone();
        let scroll = scroll_on_done.clone();
        use_effect_with(state.run_request, move |n| {
            if *n > 0 {
                *scroll.borrow_mut() = true;
                start();
                if let Some(el) = dom::document().and_then(|d| d.query_selector(".runbar").ok().flatten()) {
                    el.scroll_into_view();
                }
            }
        });
    }
    {
        // ...and when it is done, show its results.
        let scroll = scroll_on_done.clone();
        let done = state.result.as_ref().map(|r| r.done.id);
        use_effect_with(done, move |_| {
            if std::mem::take(&mut *scroll.borrow_mut()) {
                if let Some(el) = dom::document().and_then(|d| d.query_selector("section.results").ok().flatten()) {
                    el.scroll_into_view();
                }
            }
        });
    }
    let on_run = {
        let start = start.clone();
        let field_errors = field_errors.clone();
        Callback::from(move |_| {
            // The button is disabled then; a click that still arrives does nothing.
            if field_errors.0.is_empty() {
                start()
            }
        })
    };
    let on_cancel = {
        let runner = runner.clone();
        let d = dispatch.clone();
        Callback::from(move |_| {
            runner.cancel();
            d.emit(Action::SweepCancelled);
        })
    };

    // The address bar follows the page (a tab is a history entry); Back, Forward and a
    // different link opened in the same tab bring their state back.
    {
        let (d, d2) = (dispatch.clone(), dispatch.clone());
        use_url_state(
            state.shared(),
            (*opened_with).clone(),
            Callback::from(move |s| d.emit(Action::Load(Box::new(s)))),
            Callback::from(move |why| d2.emit(Action::SetNotice(why))),
        );
    }

    // Page-wide keys; live mode handles space, p and r itself.
    {
        let d = dispatch.clone();
        let help = help.clone();
        let view = state.view.clone();
        use_keydown(Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "?" => help.set(!*help),
            "Escape" => help.set(false),
            "1" => d.emit(Action::SetTab(Tab::Sweep)),
            "2" => d.emit(Action::SetTab(Tab::Live)),
            "3" => d.emit(Action::SetTab(Tab::Classroom)),
            "4" => d.emit(Action::SetTab(Tab::Diff)),
            "f" | "F" => d.emit(Action::TogglePresenter),
            "t" | "T" => d.emit(Action::SetTheme(if is_dark(view.theme) { Theme::Light } else { Theme::Dark })),
            " " | "p" | "P" if view.tab != Tab::Live => {
                e.prevent_default();
                d.emit(Action::SetTab(Tab::Live));
            }
            _ => {}
        }));
    }

    let on_copy_link = {
        let state = state.clone();
        let d = dispatch.clone();
        let flash = link_flash.clone();
        let link_seq = link_seq.clone();
        Callback::from(move |_| {
            let frag = permalink::encode(&state.shared());
            let seq = {
                let mut s = link_seq.borrow_mut();
                *s += 1;
                *s
            };
            let link_seq = link_seq.clone();
            match dom::replace_hash(&frag) {
                Ok(url) => {
                    let d = d.clone();
                    let flash = flash.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let ok = dom::copy_text(url.clone()).await;
                        let status = if ok { "Link copied." } else { "Copy the link below." };
                        d.emit(Action::LinkMade { url, status: status.into() });
                        let msg = if ok {
                            "Link copied".to_string()
                        } else {
                            "Could not copy: the link is in the box at the top of the page".to_string()
                        };
                        flash.set(Some((seq, msg, ok)));
                        let clear = flash.clone();
                        dom::after_ms(4000, move || {
                            if *link_seq.borrow() == seq {
                                clear.set(None);
                            }
                        });
                    });
                }
                Err(e) => {
                    flash.set(Some((seq, format!("Could not make the link: {e}"), false)));
                    d.emit(Action::Error(format!("cannot make the link: {e}")));
                }
            }
        })
    };

    let chart_theme = if state.view.presenter {
        ChartTheme::presenter(dark)
    } else if dark {
        ChartTheme::dark()
    } else {
        ChartTheme::light()
    };
    let tab_button = |tab: Tab, label: &'static str, key: &'static str| {
        let d = dispatch.clone();
        let selected = state.view.tab == tab;
        html! {
            <button type="button" role="tab" id={format!("tab-{label}").to_lowercase()} aria-selected={if selected { "true" } else { "false" }}
                class={classes!("tab", selected.then_some("active"))} onclick={Callback::from(move |_| d.emit(Action::SetTab(tab)))}
                title={format!("{label} ({key})")}>{ label }</button>
        }
    };
    let on_theme = {
        let d = dispatch.clone();
        Callback::from(move |e: Event| {
            let t = match e.target_unchecked_into::<HtmlSelectElement>().value().as_str() {
                "light" => Theme::Light,
                "dark" => Theme::Dark,
                _ => Theme::Auto,
            };
            d.emit(Action::SetTheme(t));
        })
    };
    let on_presenter = {
        let d = dispatch.clone();
        Callback::from(move |_| d.emit(Action::TogglePresenter))
    };

    let body = match state.view.tab {
        Tab::Sweep => {
            sweep_view(&state, &dispatch, on_run, on_cancel, &chart_theme, on_perfetto.clone(), &field_errors)
        }
        Tab::Live => {
            let d = dispatch.clone();
            html! { <LiveView exp={state.exp.clone()} view={state.view.clone()} theme={chart_theme.clone()} jump={state.jump.clone()}
            on_perfetto={on_perfetto.clone()} perfetto={state.perfetto.clone()}
            on_view={Callback::from(move |v: View| d.emit(Action::SetView(v)))}
            on_steps={{ let d = dispatch.clone(); Callback::from(move |n| d.emit(Action::SetLiveSteps(n))) }} /> }
        }
        Tab::Classroom => {
            let d = dispatch.clone();
            html! { <Gallery on_load={Callback::from(move |(name, run)| d.emit(Action::LoadPreset { name, run }))} /> }
        }
        Tab::Diff => html! { <DiffView exp={state.exp.clone()} /> },
    };

    html! {
        <>
            <header class="top">
                <h1><span class="logo" aria-hidden="true"></span>{ "schedsim " }<span class="sub">{ "CFS wakeup path playground" }</span></h1>
                <nav role="tablist" aria-label="views">
                    { tab_button(Tab::Sweep, "Sweep", "1") }
                    { tab_button(Tab::Live, "Live", "2") }
                    { tab_button(Tab::Classroom, "Classroom", "3") }
                    { tab_button(Tab::Diff, "Diff", "4") }
                </nav>
                <div class="top-tools">
                    <label class="inline">{ "theme " }
                        <select id="theme" onchange={on_theme}>
                            <option value="auto" selected={state.view.theme == Theme::Auto}>{ "auto" }</option>
                            <option value="light" selected={state.view.theme == Theme::Light}>{ "light" }</option>
                            <option value="dark" selected={state.view.theme == Theme::Dark}>{ "dark" }</option>
                        </select>
                    </label>
                    <button type="button" id="presenter" aria-pressed={if state.view.presenter { "true" } else { "false" }} onclick={on_presenter} title="Presenter mode (f)">{ "Presenter" }</button>
                    <span class="copy-link-wrap">
                        <button type="button" id="copy-link" class="primary" onclick={on_copy_link}>{ "Copy link" }</button>
                        if let Some((_, msg, ok)) = &*link_flash {
                            <span id="copy-link-status" class={classes!("link-flash", (!ok).then_some("failed"))} role="status">{ msg.clone() }</span>
                        }
                    </span>
                    <button type="button" class="tool" aria-label="Keyboard shortcuts" onclick={{ let h = help.clone(); Callback::from(move |_| h.set(!*h)) }}>{ "?" }</button>
                </div>
            </header>
            if let Some(n) = &state.notice {
                <div class="banner notice" role="alert" id="link-notice">
                    <span>{ n.clone() }</span>
                    <button type="button" class="tool" aria-label="Dismiss" onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.emit(Action::DismissNotice)) }}>{ "✕" }</button>
                </div>
            }
            if !state.errors.is_empty() {
                <div class="banner error" role="alert" id="errors">
                    <ul>{ for state.errors.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
                    <button type="button" class="tool" aria-label="Dismiss errors" onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.emit(Action::DismissErrors)) }}>{ "✕" }</button>
                </div>
            }
            if let Some(url) = &state.link {
                <div class="banner link" role="status">
                    <span>{ state.link_status.clone().unwrap_or_default() }</span>
                    <input id="permalink" type="text" readonly=true value={url.clone()} aria-label="permalink" />
                </div>
            }
            if *help {
                <div class="help" role="dialog" aria-label="Keyboard shortcuts">
                    <h2>{ "Keyboard shortcuts" }</h2>
                    <dl>
                        <dt><kbd>{ "space" }</kbd></dt><dd>{ "live mode: step one wakeup" }</dd>
                        <dt><kbd>{ "p" }</kbd></dt><dd>{ "live mode: play / pause" }</dd>
                        <dt><kbd>{ "r" }</kbd></dt><dd>{ "live mode: reset" }</dd>
                        <dt><kbd>{ "1" }</kbd>{ " " }<kbd>{ "2" }</kbd>{ " " }<kbd>{ "3" }</kbd>{ " " }<kbd>{ "4" }</kbd></dt><dd>{ "Sweep, Live, Classroom, Diff" }</dd>
                        <dt><kbd>{ "←" }</kbd>{ " " }<kbd>{ "→" }</kbd></dt><dd>{ "Diff: previous, next difference" }</dd>
                        <dt><kbd>{ "f" }</kbd></dt><dd>{ "presenter mode (large type, high contrast)" }</dd>
                        <dt><kbd>{ "t" }</kbd></dt><dd>{ "light or dark theme" }</dd>
                        <dt><kbd>{ "?" }</kbd></dt><dd>{ "this help; Esc closes it" }</dd>
                    </dl>
                    <button type="button" onclick={{ let h = help.clone(); Callback::from(move |_| h.set(false)) }}>{ "Close" }</button>
                </div>
            }
            <main id="main"><ContextProvider<FieldErrorSink> context={(*field_sink).clone()}>{ body }</ContextProvider<FieldErrorSink>></main>
            <footer class="foot">
                { "Deterministic: the same experiment gives the same numbers here and in the schedsim CLI. Simulations run in a web worker; nothing leaves this page." }
            </footer>
        </>
    }
}

fn sweep_view(
    state: &UseReducerHandle<State>,
    d: &Callback<Action>,
    on_run: Callback<MouseEvent>,
    on_cancel: Callback<MouseEvent>,
    th: &ChartTheme,
    on_perfetto: Callback<PerfettoAsk>,
    field_errors: &FieldErrors,
) -> Html {
    let exp = &state.exp;
    let topo = state.topology();
    let resolved = exp.machine.resolve();
    let nr_cpus = topo.as_ref().map(|t| t.cpu_count()).unwrap_or(0);
    let on_machine = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            d.emit(Action::SetMachinePreset(e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let on_spec = {
        let d = d.clone();
        Callback::from(move |s: String| match Topology::parse_spec(&s) {
            Ok(t) => {
                d.emit(Action::SetTopology(t));
                None
            }
            Err(e) => Some(e.0.trim_start_matches("topology spec ").to_string()),
        })
    };
    let on_edit = {
        let d = d.clone();
        Callback::from(move |e| d.emit(Action::EditTopology(e)))
    };
    let spec_text = topo.as_ref().ok().and_then(|t| t.spec()).unwrap_or_default();
    let preset = exp.machine.preset.clone().unwrap_or_default();
    let machines = schedsim::machine::machines();
    let kernels = exp
        .kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let others: Vec<String> =
                exp.kernels.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, o)| o.name.clone()).collect();
            let dc = d.clone();
            let dr = d.clone();
            html! {
                <KernelPanel index={i} spec={k.clone()} {others} can_remove={exp.kernels.len() > 1}
                    warnings={crate::kernel_names::warnings(&exp.kernels, i)}
                    on_change={Callback::from(move |k| dc.emit(Action::SetKernel(i, k)))}
                    on_remove={Callback::from(move |_| dr.emit(Action::RemoveKernel(i)))} />
            }
        })
        .collect::<Html>();
    let validation = exp.validate().err().map(|e| e.to_string());
    let on_workers = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            if let Ok(n) = e.target_unchecked_into::<web_sys::HtmlInputElement>().value().trim().parse::<u32>() {
                d.emit(Action::SetWorkers(n));
            }
        })
    };
    let running = state.running();
    let progress = match &state.sweep {
        Sweep::Running { progress, started_ms, .. } => {
            let elapsed = (dom::now_ms() - started_ms) / 1e3;
            let value = progress.map(|p| p.fraction()).unwrap_or(0.0);
            let text = match progress {
                Some(p) => {
                    let left = match p.left_s {
                        Some(l) => format!(" · about {} left", fmt_secs(l)),
                        None => String::new(),
                    };
                    format!(
                        "{} of {} runs done · {} running · {:.0}% · {:.1} s{left}",
                        p.runs_done,
                        p.runs_total,
                        p.running,
                        value * 100.0,
                        elapsed
                    )
                }
                None => format!("starting {} worker{}…", state.workers, if state.workers == 1 { "" } else { "s" }),
            };
            html! {
                <div class="progress" role="status" id="sweep-progress">
                    <progress max="1" value={format!("{value:.4}")} aria-label="sweep progress"></progress>
                    <span>{ text }</span>
                </div>
            }
        }
        Sweep::Failed(m) => {
            html! { <p class="refusal" role="alert" id="sweep-error">{ format!("The sweep failed: {m}") }</p> }
        }
        Sweep::Cancelled => html! { <p class="status" role="status" id="sweep-cancelled">{ "Sweep cancelled." }</p> },
        _ => html! {},
    };
    let results = match &state.result {
        Some(r) => {
            let stale = r.report.experiment != *exp;
            let d2 = d.clone();
            let view = state.view.clone();
            html! { <Results result={r.clone()} {stale} theme={th.clone()} latency_point={state.view.latency_point}
            on_latency_point={Callback::from(move |i| d2.emit(Action::SetView(View { latency_point: i, ..view.clone() })))}
            on_jump={{ let d = d.clone(); Callback::from(move |plan| d.emit(Action::Jump(plan))) }}
            {on_perfetto} perfetto={state.perfetto.clone()} /> }
        }
        None => html! {},
    };
    // A finished sweep's results are far below the form: the bar says they are ready.
    let results_ready = match (&state.sweep, &state.result) {
        (Sweep::Done(_), Some(r)) if r.report.experiment == *exp => html! {
            <button type="button" class="tool" id="results-ready"
                onclick={Callback::from(|_| dom::scroll_to("section.results"))}>{ "Results ready ↓" }</button>
        },
        _ => html! {},
    };
    let presets_list = schedsim::presets::presets();
    let on_preset = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if !v.is_empty() {
                d.emit(Action::LoadPreset { name: v, run: false });
            }
        })
    };
    html! {
        <>
            <section class="panel experiment-bar">
                <label class="inline">{ "built-in experiment " }
                    <select id="preset" onchange={on_preset}>
                        <option value="" selected={!presets_list.iter().any(|p| p.experiment == *exp)}>{ "custom (edited)" }</option>
                        { for presets_list.iter().map(|p| html! {
                            <option value={p.name} selected={p.experiment == *exp}>{ format!("{} — {}", p.name, p.description) }</option>
                        }) }
                    </select>
                </label>
            </section>
            <section class="panel machine" aria-labelledby="machine-h">
                <h2 id="machine-h">{ "Machine" }</h2>
                <div class="row">
                    <label class="field">
                        <span class="field-label">{ "machine preset (costs, C-states)" }</span>
                        <select id="machine-preset" onchange={on_machine}>
                            { for machines.iter().map(|m| html! { <option value={m.name} selected={m.name == preset}>{ format!("{} — {}", m.name, m.description) }</option> }) }
                        </select>
                    </label>
                    <Field label="topology spec" value={spec_text} on_commit={on_spec} id="topo-spec" hint="NODESxLLCSxCORESxTHREADS, e.g. 2x1x20x2" />
                    <p class="machine-desc" id="machine-desc">{
                        match &resolved {
                            Ok(r) => format!("{} · {} CPUs", r.description, r.map.nr_cpus()),
                            Err(e) => e.to_string(),
                        }
                    }</p>
                </div>
                {
                    match &topo {
                        Ok(t) => html! { <TopologyView topo={Rc::new(t.clone())} editable=true refusal={state.refusal.clone()} {on_edit} /> },
                        Err(e) => html! { <p class="refusal" role="alert">{ e.clone() }</p> },
                    }
                }
                <ImportBox machine={exp.machine.clone()} on_machine={{ let d = d.clone(); Callback::from(move |m| d.emit(Action::SetMachine(Box::new(m)))) }} />
            </section>
            <section class="panel" aria-labelledby="kernels-h">
                <div class="section-head">
                    <h2 id="kernels-h">{ "Kernels" }</h2>
                    if exp.kernels.len() < schedsim::experiment::KERNELS_MAX {
                        <button type="button" class="tool" onclick={{ let d = d.clone(); Callback::from(move |_| d.emit(Action::AddKernel)) }}>{ "+ kernel" }</button>
                    }
                </div>
                <div class="kernels">{ kernels }</div>
            </section>
            <section class="panel" aria-labelledby="workload-h">
                <h2 id="workload-h">{ "Workload and sweep" }</h2>
                <WorkloadForm exp={exp.clone()} nr_cpus={nr_cpus}
                    on_workload={{ let d = d.clone(); Callback::from(move |w| d.emit(Action::SetWorkload(w))) }}
                    on_edit={{ let d = d.clone(); Callback::from(move |e| d.emit(Action::Edit(e))) }} />
            </section>
            <section class="panel runbar" aria-label="run">
                <button type="button" id="run" class="primary big" onclick={on_run}
                    disabled={validation.is_some() || !field_errors.0.is_empty()}>{ if running { "Restart sweep" } else { "Run sweep" } }</button>
                if running {
                    <button type="button" id="cancel" onclick={on_cancel}>{ "Cancel" }</button>
                }
                <label class="inline workers" title="Simulation workers: each runs one (kernel, client count, iteration) at a time; one per CPU is the fastest">
                    { "workers " }
                    <input type="number" id="workers" min="1" max={crate::sweep_job::WORKERS_MAX.to_string()} step="1"
                        value={state.workers.to_string()} onchange={on_workers} aria-label="number of simulation workers" />
                </label>
                if !field_errors.0.is_empty() {
                    <div class="field-errors" role="alert" id="field-errors">
                        <span>{ if field_errors.0.len() == 1 { "Fix this field to run:" } else { "Fix these fields to run:" } }</span>
                        <ul>
                            { for field_errors.0.iter().map(|(id, (what, why))| {
                                let id2 = id.clone();
                                html! { <li><button type="button" class="tool linkish" onclick={Callback::from(move |_| dom::focus(&id2))}>{ what.clone() }</button>{ format!(": {why}") }</li> }
                            }) }
                        </ul>
                    </div>
                } else if let Some(v) = validation {
                    <p class="refusal" role="alert" id="exp-invalid">{ v }</p>
                }
                { progress }
                { results_ready }
            </section>
            { results }
        </>
    }
}

/// "12 s", "3 min 5 s".
fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {} s", s / 60, s % 60)
    }
}
