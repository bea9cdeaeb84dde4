//! The root component: header (tabs, theme, presenter mode, Copy link), banners, and
//! the views — Sweep (machine, kernels, workload, run, results), Live, Classroom and
//! Diff.

use crate::charts::ChartTheme;
use crate::state::{self, Action, RunAnswer, State};
use crate::web::components::cluster::ClusterPanel;
use crate::web::components::copy_link::CopyLink;
use crate::web::components::diff::DiffView;
use crate::web::components::fields::{FieldErrorSink, FieldErrors};
use crate::web::components::gallery::Gallery;
use crate::web::components::live::LiveView;
use crate::web::components::sweep::SweepView;
use crate::web::dom;
use crate::web::hooks::{
    is_dark, use_event_listener, use_keydown, use_perfetto_export, use_replay, use_sweep_runner, use_theme,
    use_url_state, ListenOn,
};
use crate::wire::permalink::{self, Tab, Theme, View};
use web_sys::{HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let mut st = State::from_fragment(
            &dom::location_hash(),
            crate::model::sweep::default_workers(dom::hardware_concurrency()),
        );
        // The address bar holds the page's state, so a reload (or a return from another
        // site) reopens this tab's own edits: a link to the Sweep view runs by itself
        // only when it is opened.
        if dom::navigation_type() != "navigate" {
            st.run_request = 0;
            st.question = None;
        }
        state::apply_local_prefs(
            &mut st,
            dom::stored(state::THEME_KEY).as_deref(),
            dom::stored(state::PRESENTER_KEY).as_deref(),
        );
        st
    });
    // What the address bar held when the page opened, if it was a link. A link made
    // before presenter mode left links is written again without it. A broken link
    // stays in the address bar as pasted (the notice says what is wrong with it) until
    // the user changes the experiment: it counts as written for the default it shows.
    let opened_with = use_memo((), |_| match permalink::decode(&dom::location_hash()) {
        Ok(opened) => {
            if let Some(s) = opened.as_ref().filter(|s| s.view.old_presenter.seen) {
                let _ = dom::replace_hash(&permalink::encode(s));
            }
            opened
        }
        Err(_) => Some(state.shared()),
    });
    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        Callback::from(move |a| d.dispatch(a))
    };
    let help = use_state(|| false);
    // Fields whose text is refused: listed beside Run, which they block.
    let field_errors = use_reducer(FieldErrors::default);
    let field_sink = {
        let d = field_errors.dispatcher();
        // One callback for the page's life: a new one would re-render every field.
        use_memo((), move |_| FieldErrorSink(Callback::from(move |a| d.dispatch(a))))
    };
    let on_perfetto = {
        let d = dispatch.clone();
        use_perfetto_export(&state.exp, Callback::from(move |st| d.emit(Action::Perfetto(st))))
    };

    // Theme and presenter mode live on <html> so the whole page's CSS follows.
    let dark = use_theme(state.view.theme, state.presenter);

    {
        // A tab opens at its top, not at the scroll position of the one left.
        use_effect_with(state.view.tab, |_| dom::scroll_to_top());
    }
    let replay = use_replay(&state, dispatch.clone());
    let (on_run, on_cancel, on_rerun) = use_sweep_runner(&state, dispatch.clone(), !field_errors.0.is_empty());

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

    // The mouse's last place in the window: what the viewer looks at, for presenter
    // mode's switch to keep in view.
    let pointer = use_mut_ref(|| None::<(f64, f64)>);
    {
        let pointer = pointer.clone();
        use_event_listener(
            ListenOn::Document,
            "mousemove",
            Callback::from(move |e: MouseEvent| {
                *pointer.borrow_mut() = Some((e.client_x() as f64, e.client_y() as f64))
            }),
        );
    }
    let toggle_presenter = {
        let d = dispatch.clone();
        Callback::from(move |()| {
            let anchor = dom::ViewAnchor::take(*pointer.borrow());
            d.emit(Action::TogglePresenter);
            if let Some(a) = anchor {
                a.keep();
            }
        })
    };
    // Run from anywhere, also while typing in a field: Ctrl+Enter (⌘+Enter), as in
    // code playgrounds. It presses the Sweep view's Run button, so a refused field
    // blocks it the same way.
    {
        let d = dispatch.clone();
        let tab = state.view.tab;
        use_event_listener(
            ListenOn::Document,
            "keydown",
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                    e.prevent_default();
                    if tab != Tab::Sweep {
                        d.emit(Action::SetTab(Tab::Sweep));
                    }
                    // Focus first: a field being typed in commits its text on blur,
                    // and the click then runs what it says.
                    dom::after_ms(0, || {
                        dom::focus("run");
                        dom::after_ms(0, || dom::click("run"));
                    });
                }
            }),
        );
    }
    // Page-wide keys; live mode handles space, p and r itself.
    {
        let d = dispatch.clone();
        let help = help.clone();
        let view = state.view.clone();
        let toggle = toggle_presenter.clone();
        use_keydown(Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "?" => help.set(!*help),
            "Escape" => help.set(false),
            "1" => d.emit(Action::SetTab(Tab::Sweep)),
            "2" => d.emit(Action::SetTab(Tab::Live)),
            "3" => d.emit(Action::SetTab(Tab::Classroom)),
            "4" => d.emit(Action::SetTab(Tab::Diff)),
            "f" | "F" => toggle.emit(()),
            "t" | "T" => d.emit(Action::SetTheme(if is_dark(view.theme) { Theme::Light } else { Theme::Dark })),
            " " | "p" | "P" if view.tab != Tab::Live => {
                e.prevent_default();
                d.emit(Action::SetTab(Tab::Live));
            }
            _ => {}
        }));
    }

    let chart_theme = if state.presenter {
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
    let on_presenter = toggle_presenter.reform(|_: MouseEvent| ());
    // The skip link: past the header and the form, to Run (in the Sweep view).
    let on_skip = {
        let d = dispatch.clone();
        let tab = state.view.tab;
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            if tab != Tab::Sweep {
                d.emit(Action::SetTab(Tab::Sweep));
            }
            dom::after_ms(0, || dom::focus("run"));
        })
    };

    let body = match state.view.tab {
        Tab::Sweep => {
            let d = &dispatch;
            let view = state.view.clone();
            html! { <SweepView exp={state.exp.clone()} refusal={state.refusal.clone()} workers={state.workers}
            sweep={state.sweep.clone()} result={state.result.clone()} theme={chart_theme.clone()} presenter={state.presenter}
            latency_point={state.view.latency_point} perfetto={state.perfetto.clone()}
            field_errors={(*field_errors).clone()} {on_run} {on_cancel} {on_rerun}
            on_preset={d.reform(|name| Action::LoadPreset { name, run: false })}
            on_machine_preset={d.reform(Action::SetMachinePreset)}
            on_machine={d.reform(|m| Action::SetMachine(Box::new(m)))}
            on_topology={d.reform(Action::SetTopology)} on_topology_edit={d.reform(Action::EditTopology)}
            on_kernel={d.reform(|(i, k)| Action::SetKernel(i, k))} on_remove_kernel={d.reform(Action::RemoveKernel)}
            on_add_kernel={d.reform(|()| Action::AddKernel)} on_workload={d.reform(Action::SetWorkload)}
            on_edit={d.reform(Action::Edit)} on_workers={d.reform(Action::SetWorkers)}
            on_latency_point={d.reform(move |i| Action::SetView(View { latency_point: i, ..view.clone() }))}
            on_jump={d.reform(Action::Jump)} on_perfetto={on_perfetto.clone()} replay={replay.clone()} /> }
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
            let (d2, fetch) = (dispatch.clone(), replay.on_fetch.clone());
            let on_replay = Callback::from(move |()| {
                let g = &crate::model::gallery::REPLAY_GUIDE;
                d2.emit(Action::SetTab(Tab::Sweep));
                fetch.emit((g.url.to_string(), g.file.to_string(), true));
            });
            let (d3, view) = (dispatch.clone(), state.view.clone());
            let on_exercise = Callback::from(move |()| {
                let view = View { tab: Tab::Sweep, live_kernel: 0, live_clients: 0, live_steps: 0, ..view.clone() };
                let experiment = crate::model::gallery::exercise_experiment();
                // The student's kernel is the last: its script editor is where the task is.
                let editor = format!("#k{}-policy", experiment.kernels.len() - 1);
                d3.emit(Action::Load(Box::new(permalink::Shared { experiment, view })));
                dom::after_paint(move || dom::scroll_to(&editor));
            });
            let (d4, view) = (dispatch.clone(), state.view.clone());
            let on_eevdf = Callback::from(move |()| {
                let view = View { tab: Tab::Sweep, live_kernel: 0, live_clients: 0, live_steps: 0, ..view.clone() };
                let experiment = crate::model::gallery::eevdf_experiment();
                d4.emit(Action::Load(Box::new(permalink::Shared { experiment, view })));
                d4.emit(Action::RequestRun);
            });
            html! { <Gallery on_load={Callback::from(move |(name, run)| d.emit(Action::LoadPreset { name, run }))} {on_replay} {on_exercise} {on_eevdf} /> }
        }
        Tab::Diff => html! { <DiffView exp={state.exp.clone()} replay={replay.clone()} /> },
    };

    html! {
        <>
            // Not a fragment link: the fragment is the page's permalink.
            <a class="skip-link" href="" id="skip-to-run" onclick={on_skip}>{ "Skip to Run" }</a>
            <header class="top">
                <h1><span class="logo" aria-hidden="true"></span>{ "schedsim " }<span class="sub">{ "CFS and EEVDF wakeup path playground" }</span></h1>
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
                    <button type="button" id="presenter" aria-pressed={if state.presenter { "true" } else { "false" }} onclick={on_presenter} title="Presenter mode (f)">{ "Presenter" }</button>
                    <CopyLink shared={state.shared()}
                        on_link={dispatch.reform(|(url, status)| Action::LinkMade { url, status })}
                        on_error={dispatch.reform(Action::Error)} />
                    <button type="button" class="tool" aria-label="Keyboard shortcuts" onclick={{ let h = help.clone(); Callback::from(move |_| h.set(!*h)) }}>{ "?" }</button>
                </div>
            </header>
            if let Some(n) = &state.notice {
                <div class="banner notice" role="alert" id="link-notice">
                    <span>{ n.clone() }</span>
                    <button type="button" class="tool" aria-label="Dismiss" onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.emit(Action::DismissNotice)) }}>{ "✕" }</button>
                </div>
            }
            if let Some(q) = &state.question {
                <div class="banner notice" role="alert" id="run-question">
                    <span>{ q.text(state.workers) }</span>
                    <button type="button" class="primary" id="run-question-all" onclick={dispatch.reform(|_| Action::Answer(RunAnswer::Run))}>{ "Run" }</button>
                    <button type="button" id="run-question-first" onclick={dispatch.reform(|_| Action::Answer(RunAnswer::FirstIterationOnly))}>{ "Run the first iteration only" }</button>
                    <button type="button" class="tool" aria-label="Not now" onclick={dispatch.reform(|_| Action::Answer(RunAnswer::NotNow))}>{ "✕" }</button>
                    <ClusterPanel exp={state.exp.clone()} open=true />
                </div>
            }
            if let Some((kept, total)) = state.restored {
                <div class="banner notice" role="status" id="restored">
                    <span>{ if kept == 0 {
                        format!("The page was reloaded during a sweep of this experiment: its finished runs could not be kept (the browser's storage for this tab is full). Run it again: {total} runs.")
                    } else if kept == total {
                        format!("Kept from before the reload: all {total} runs of this sweep, shown below.")
                    } else {
                        format!("Kept from before the reload: {kept} of this sweep's {total} runs, shown below as partial results.")
                    } }</span>
                    if kept < total {
                        <button type="button" class="primary" id="restored-run" onclick={dispatch.reform(|_| Action::RequestRun)}>
                            { if kept == 0 { "Run again".to_string() } else { format!("Run the other {}", total - kept) } }</button>
                    }
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
                        <dt><kbd>{ "Ctrl" }</kbd>{ " " }<kbd>{ "Enter" }</kbd></dt><dd>{ "run the sweep (also while typing in a field)" }</dd>
                        <dt><kbd>{ "space" }</kbd></dt><dd>{ "live mode: step one wakeup (a focused button takes it)" }</dd>
                        <dt><kbd>{ "p" }</kbd></dt><dd>{ "live mode: play / pause" }</dd>
                        <dt><kbd>{ "r" }</kbd></dt><dd>{ "live mode: reset" }</dd>
                        <dt><kbd>{ "1" }</kbd>{ " " }<kbd>{ "2" }</kbd>{ " " }<kbd>{ "3" }</kbd>{ " " }<kbd>{ "4" }</kbd></dt><dd>{ "Sweep, Live, Classroom, Diff" }</dd>
                        <dt><kbd>{ "←" }</kbd>{ " " }<kbd>{ "→" }</kbd></dt><dd>{ "Diff: previous, next difference; timeline: pan a quarter" }</dd>
                        <dt><kbd>{ "+" }</kbd>{ " " }<kbd>{ "−" }</kbd>{ " " }<kbd>{ "0" }</kbd>{ " " }<kbd>{ "End" }</kbd></dt><dd>{ "timeline (when on screen): zoom in, zoom out, fit all, follow the latest" }</dd>
                        <dt><kbd>{ "f" }</kbd></dt><dd>{ "presenter mode (large type, high contrast, charts one per row, the form folded)" }</dd>
                        <dt><kbd>{ "Tab" }</kbd></dt><dd>{ "the first stop skips to Run; the machine drawing is one stop, arrow keys move inside it" }</dd>
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
