//! Live mode: step one wakeup at a time or play at a chosen speed, with each CPU's state
//! on the drawing, the current wakeup's roles (waker, prev, probed, chosen), its decision
//! trace, and live charts. The simulation runs in a worker of its own (the script worker
//! when a kernel has a policy script, so a script's calls are stepped and traced like
//! the kernel's), never on the page's main thread: the page sends it a step, a frame of
//! playing or of a jump, and draws the frame it answers with. No step runs more than
//! [`LIVE_STEP_EVENTS_MAX`](crate::model::live::LIVE_STEP_EVENTS_MAX) events (about
//! 50 ms) before answering, so on a machine where nothing sleeps the page says so, with
//! Continue and Stop.

use crate::charts::ChartTheme;
use crate::model::fmt::fmt_ns;
use crate::model::live::{LiveFrame, LiveKey, LiveOp, LiveShown, Stall, TimelineMirror};
use crate::model::perfetto::{default_window, PerfettoAsk};
use crate::model::wasted::{self, JumpPlan};
use crate::state::PerfettoStatus;
use crate::web::components::chart::{ChartCard, ChartSpec, LiveChart};
use crate::web::components::kernels::letter;
use crate::web::components::perfetto::PerfettoExport;
use crate::web::components::timeline::{TimelineData, TimelineView};
use crate::web::components::topology::{LiveFrame as TopoFrame, TopologyView};
use crate::web::components::wakeup::{probed, wakeup_facts, TraceSteps};
use crate::web::dom;
use crate::web::hooks::use_keydown;
use crate::web::pool::SweepRunner;
use crate::wire::permalink::View;
use crate::wire::proto::{Request, Response};
use schedsim::trace::WakeupTrace;
use schedsim::Experiment;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

/// Wakeups per second of wall time; the last is "as fast as the worker's frames allow".
pub const SPEEDS: [u32; 7] = [1, 4, 16, 64, 256, 2048, u32::MAX];

/// Steps asked for ahead of the session (Space held down): more are dropped.
const QUEUED_MAX: usize = 64;

#[derive(Default)]
struct Host {
    key: Option<LiveKey>,
    error: Option<String>,
    playing: bool,
    speed: usize,
    carry: f64,
    last_ms: f64,
    timer: Option<(i32, Closure<dyn FnMut()>)>,
    /// Stepping back to a count a link gave: played at full speed up to it.
    restore_to: Option<u64>,
    /// Going to a wasted-core moment: simulated time run to, a frame at a time.
    jump_to: Option<u64>,
    /// Whether the first session (the one a link's step count is for) has started.
    started: bool,
    /// The count the view holds, as of the last render, and where a new one goes.
    view_steps: u64,
    on_steps: Callback<u64>,
    last_report_ms: f64,
    /// The worker that holds the session, spawned at the first one.
    runner: Option<SweepRunner>,
    /// The session asked for last: frames of any other are stale and dropped.
    session_id: u32,
    /// A frame is owed: the session's first (no frame shown yet: it is starting), or the
    /// answer to the op sent last.
    waiting: bool,
    /// Steps asked for while one was in flight, sent one at a time as frames come.
    queued: VecDeque<LiveOp>,
    /// What the latest frame showed, and the timeline made of every frame's changes.
    shown: Option<LiveShown>,
    mirror: TimelineMirror,
}

#[derive(Clone)]
struct Ctl {
    host: Rc<RefCell<Host>>,
    redraw: UseForceUpdateHandle,
}

impl Ctl {
    /// Back to the start, as the user asks (Reset, r): the view's step count follows.
    fn reset(&self) {
        self.restart();
        self.report();
    }

    /// A new session at the start, in the worker (the script worker for a scripted
    /// experiment: `Request::engine`).
    fn restart(&self) {
        self.stop();
        let mut h = self.host.borrow_mut();
        h.shown = None;
        h.error = None;
        h.queued.clear();
        h.waiting = false;
        h.session_id = h.session_id.wrapping_add(1);
        let Some(k) = h.key.clone() else { return };
        if h.runner.is_none() {
            let weak = Rc::downgrade(&self.host);
            let redraw = self.redraw.clone();
            h.runner = Some(SweepRunner::new(move |r| on_response(&weak, &redraw, r)));
        }
        let id = h.session_id;
        let req = Request::LiveStart {
            id,
            experiment_json: k.experiment.to_json(),
            kernel: k.kernel,
            clients: k.clients,
            iteration: k.iteration,
        };
        h.waiting = true;
        let sent = h.runner.as_ref().map(|r| r.request(id, req));
        if let Some(Err(e)) = sent {
            h.waiting = false;
            h.error = Some(e);
        }
        drop(h);
        self.redraw.force_update();
    }

    /// Sends `op` to the session, or queues it behind the one in flight.
    fn send(&self, op: LiveOp) {
        let mut h = self.host.borrow_mut();
        if h.waiting {
            if h.queued.len() < QUEUED_MAX {
                h.queued.push_back(op);
            }
            return;
        }
        if !send_now(&mut h, op) {
            drop(h);
            self.redraw.force_update();
        }
    }

    fn step(&self) {
        if self.host.borrow().playing {
            self.stop();
        }
        self.send(LiveOp::Step);
    }

    /// Stop, on the no-wakeup notice: no more looking for the wakeup; the run stays
    /// where it got to.
    fn stop_looking(&self) {
        self.stop();
        self.send(LiveOp::DismissStall);
    }

    /// Tells the app how many wakeups are stepped (it goes into the URL), when that
    /// changed; not while stepping back to a link's count.
    fn report(&self) {
        let (on_steps, steps) = {
            let mut h = self.host.borrow_mut();
            let steps = h.shown.as_ref().map_or(0, |s| s.steps);
            if h.restore_to.is_some() || h.jump_to.is_some() || steps == h.view_steps {
                return;
            }
            h.last_report_ms = dom::now_ms();
            h.view_steps = steps;
            (h.on_steps.clone(), steps)
        };
        on_steps.emit(steps);
    }

    /// Steps at full speed, a frame at a time, until `n` wakeups are stepped.
    fn restore(&self, n: u64) {
        self.host.borrow_mut().restore_to = Some(n);
        self.start_timer();
    }

    /// Runs to `ns` of simulated time, a frame at a time.
    fn jump(&self, ns: u64) {
        self.host.borrow_mut().jump_to = Some(ns);
        self.start_timer();
    }

    fn stop(&self) {
        let mut h = self.host.borrow_mut();
        h.playing = false;
        h.restore_to = None;
        h.jump_to = None;
        if let Some((id, _cb)) = h.timer.take() {
            if let Some(w) = dom::window() {
                w.clear_interval_with_handle(id);
            }
        }
    }

    fn toggle_play(&self) {
        if self.host.borrow().playing {
            self.stop();
            self.report();
            self.redraw.force_update();
            return;
        }
        self.start_timer();
    }

    fn start_timer(&self) {
        let over = {
            let h = self.host.borrow();
            h.error.is_some() || h.shown.as_ref().is_some_and(|s| s.ended)
        };
        if over {
            let mut h = self.host.borrow_mut();
            h.restore_to = None;
            h.jump_to = None;
            return;
        }
        let me = self.clone();
        let cb = Closure::<dyn FnMut()>::new(move || me.tick());
        let Some(w) = dom::window() else { return };
        match w.set_interval_with_callback_and_timeout_and_arguments_0(cb.as_ref().unchecked_ref(), 16) {
            Ok(id) => {
                let mut h = self.host.borrow_mut();
                h.playing = true;
                h.carry = 0.0;
                h.last_ms = dom::now_ms();
                h.timer = Some((id, cb));
            }
            Err(e) => self.host.borrow_mut().error = Some(format!("cannot start playing: {}", dom::js_err(e))),
        }
        self.redraw.force_update();
    }

    /// A tick of the player: when the worker is free, the next frame's op (the wakeups
    /// due at this speed since the last one sent, a link's count, or a piece of a jump).
    fn tick(&self) {
        let mut h = self.host.borrow_mut();
        if h.waiting || !h.queued.is_empty() {
            return;
        }
        let now = dom::now_ms();
        let op = match (h.jump_to, h.restore_to) {
            (Some(to_ns), _) => LiveOp::Jump { to_ns },
            (None, Some(to)) => LiveOp::Frame { due: u32::MAX, restore_to: Some(to) },
            (None, None) => {
                let speed = SPEEDS[h.speed.min(SPEEDS.len() - 1)];
                let due = if speed == u32::MAX {
                    u32::MAX
                } else {
                    let want = h.carry + speed as f64 * (now - h.last_ms).max(0.0) / 1e3;
                    let n = want.floor();
                    h.carry = (want - n).min(speed as f64);
                    n.min(u32::MAX as f64 - 1.0) as u32
                };
                if due == 0 {
                    h.last_ms = now;
                    return;
                }
                LiveOp::Frame { due, restore_to: None }
            }
        };
        h.last_ms = now;
        if !send_now(&mut h, op) {
            drop(h);
            self.stop();
            self.redraw.force_update();
        }
    }

    /// A frame of the session: shown, the timeline brought up to date, the player
    /// stopped when its op is finished, and the next queued step sent.
    fn frame(&self, f: LiveFrame) {
        let playing = {
            let mut h = self.host.borrow_mut();
            h.mirror.apply(f.start.as_ref(), f.timeline);
            h.shown = Some(f.shown);
            h.waiting = false;
            if let Some(op) = h.queued.pop_front() {
                send_now(&mut h, op);
            }
            h.playing
        };
        if playing {
            if f.done {
                self.stop();
                self.report();
            } else if dom::now_ms() - self.host.borrow().last_report_ms > 1000.0 {
                // While playing, the count in the URL follows about once a second.
                self.report();
            }
        } else {
            self.report();
        }
        self.redraw.force_update();
    }

    /// The session failed (its start was refused, a script failed, the worker died).
    fn failed(&self, message: String) {
        self.stop();
        {
            let mut h = self.host.borrow_mut();
            h.waiting = false;
            h.queued.clear();
            h.error = Some(message);
        }
        self.redraw.force_update();
    }
}

/// Sends `op` to the session now; false (and the error kept to show) if it could not go.
fn send_now(h: &mut Host, op: LiveOp) -> bool {
    let id = h.session_id;
    let Some(r) = h.runner.as_ref() else { return false };
    match r.request(id, Request::Live { id, op }) {
        Ok(()) => h.waiting = true,
        Err(e) => h.error = Some(format!("cannot send live mode's step to its worker: {e}")),
    }
    h.waiting
}

/// The worker's answer, for the player that asked (if it is still there).
fn on_response(host: &Weak<RefCell<Host>>, redraw: &UseForceUpdateHandle, r: Response) {
    let Some(host) = host.upgrade() else { return };
    let ctl = Ctl { host, redraw: redraw.clone() };
    let current = ctl.host.borrow().session_id;
    match r {
        Response::Live { id, frame_json } if id == current => match serde_json::from_str::<LiveFrame>(&frame_json) {
            Ok(f) => ctl.frame(f),
            Err(e) => ctl.failed(format!("a live frame did not read: {e}")),
        },
        Response::Failed { id, message } if id == current => ctl.failed(message),
        _ => {}
    }
}

#[derive(Properties, PartialEq)]
pub struct LiveProps {
    pub exp: Experiment,
    pub view: View,
    pub theme: ChartTheme,
    pub on_view: Callback<View>,
    /// Wakeups stepped, when that changes (not at every frame while playing).
    pub on_steps: Callback<u64>,
    /// A wasted-core moment to go to (sequence number, plan).
    #[prop_or_default]
    pub jump: Option<(u32, JumpPlan)>,
    pub on_perfetto: Callback<PerfettoAsk>,
    pub perfetto: Option<PerfettoStatus>,
}

/// Which run live mode shows: the view's kernel and client count (the first of each
/// when out of range), and after a jump to a wasted-core moment, that moment's iteration.
fn live_key(p: &LiveProps) -> LiveKey {
    let clients = if p.view.live_clients == 0 || !p.exp.clients.contains(&p.view.live_clients) {
        p.exp.clients.first().copied().unwrap_or(1)
    } else {
        p.view.live_clients
    };
    let kernel = if (p.view.live_kernel as usize) < p.exp.kernels.len() { p.view.live_kernel } else { 0 };
    let iteration = p
        .jump
        .as_ref()
        .filter(|(_, plan)| plan.kernel == kernel && plan.clients == clients)
        .map_or(0, |(_, plan)| plan.iteration);
    LiveKey { experiment: p.exp.clone(), kernel, clients, iteration }
}

/// The live player: a session for `key`, restarted when it changes (then jumped to a
/// wasted-core moment, or stepped as far as a link says), the keyboard's space, p and
/// r, and the timer stopped when the view goes.
#[hook]
fn use_live_player(key: LiveKey, jump: Option<(u32, JumpPlan)>, link_steps: u64, on_steps: Callback<u64>) -> Ctl {
    let host = use_mut_ref(Host::default);
    let redraw = use_force_update();
    let ctl = Ctl { host: host.clone(), redraw };
    {
        let mut h = ctl.host.borrow_mut();
        h.view_steps = link_steps;
        h.on_steps = on_steps;
    }
    {
        let ctl = ctl.clone();
        use_effect_with((key, jump), move |(key, jump)| {
            ctl.host.borrow_mut().key = Some(key.clone());
            ctl.restart();
            let first = !std::mem::replace(&mut ctl.host.borrow_mut().started, true);
            let jumped = jump.as_ref().filter(|(_, plan)| {
                plan.kernel == key.kernel && plan.clients == key.clients && plan.iteration == key.iteration
            });
            if let Some((_, plan)) = jumped {
                ctl.jump(plan.advance_ns);
            } else if first && link_steps > 0 {
                // Opened from a link (or back to this tab): step as far as it says.
                ctl.restore(link_steps);
            } else {
                ctl.report();
            }
        });
    }
    {
        // Keyboard: space steps, p plays or pauses, r resets. Not while typing.
        let ctl = ctl.clone();
        use_keydown(Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            " " => {
                e.prevent_default();
                ctl.step();
            }
            "p" | "P" => ctl.toggle_play(),
            "r" | "R" => ctl.reset(),
            _ => {}
        }));
    }
    {
        // Leaving live mode stops the player and its worker.
        use_effect_with((), move |_| {
            move || {
                let mut h = host.borrow_mut();
                if let Some((id, _)) = h.timer.take() {
                    if let Some(w) = dom::window() {
                        w.clear_interval_with_handle(id);
                    }
                }
                h.playing = false;
                // The session's worker goes with the view.
                if let Some(r) = h.runner.take() {
                    r.cancel();
                }
            }
        });
    }
    ctl
}

#[function_component(LiveView)]
pub fn live_view(p: &LiveProps) -> Html {
    let key = live_key(p);
    let (kernel, clients) = (key.kernel, key.clients);
    let ctl = use_live_player(key, p.jump.clone(), p.view.live_steps, p.on_steps.clone());
    let h = ctl.host.borrow();
    let session = h.shown.as_ref();
    let jumped = p
        .jump
        .as_ref()
        .filter(|(_, j)| {
            j.kernel == kernel && j.clients == clients && session.map(|s| s.now_ns >= j.advance_ns).unwrap_or(false)
        })
        .map(|(_, j)| (j.advance_ns, j.time_ns));
    html! {
        // `data-busy` while the worker has an op of the page's to answer: tests wait for
        // it to go before reading a paused player's state.
        <section class="live-mode" aria-labelledby="live-h"
            data-busy={(h.waiting || !h.queued.is_empty()).then_some("true")}>
            <h2 id="live-h">{ "Live: the wakeup path, one wakeup at a time" }</h2>
            { live_what(&p.exp) }
            { live_toolbar(p, &ctl, &h, kernel, clients) }
            if let Some(e) = h.error.as_ref().or(session.and_then(|s| s.error.as_ref())) {
                <p class="refusal" id="live-error" role="alert">{ e.clone() }</p>
            }
            if let Some(st) = session.and_then(|s| s.stall) {
                { stall_notice(st, h.playing, ctl.on(Ctl::step), ctl.on(Ctl::stop_looking)) }
            }
            if let Some((a, t)) = jumped {
                <p class="jumped status" id="live-jumped" role="status">{ format!(
                    "Jumped to {:.3} ms, just before the wasted-core moment the sweep saw at {:.3} ms: step to watch it.",
                    a as f64 / 1e6, t as f64 / 1e6) }</p>
            }
            if let Some(s) = session {
                { live_counters(s) }
            }
            { live_grid(p, session) }
            if let Some(s) = session {
                { live_timeline_and_charts(p, s, &h.mirror) }
            }
            // After what it exports: on a phone the machine and its decision come
            // first under the controls, not this form and its help.
            <PerfettoExport exp={p.exp.clone()} {kernel} {clients} fixed_run=true
                window={default_window(Some(session.map(|s| s.now_ns).unwrap_or(0)), p.exp.warmup_ms, p.exp.duration_ms)}
                on_export={p.on_perfetto.clone()} status={p.perfetto.clone()} id="live-perfetto" />
        </section>
    }
}

impl Ctl {
    /// A click handler that calls `f` on this player.
    fn on(&self, f: fn(&Ctl)) -> Callback<MouseEvent> {
        let ctl = self.clone();
        Callback::from(move |_| f(&ctl))
    }
}

/// The toolbar: kernel and client count (into the view, so the URL follows), Step,
/// Play/Pause, speed, Reset and the status line.
fn live_toolbar(p: &LiveProps, ctl: &Ctl, h: &Host, kernel: u32, clients: u32) -> Html {
    let on_speed = {
        let ctl = ctl.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<usize>() {
                ctl.host.borrow_mut().speed = i.min(SPEEDS.len() - 1);
                ctl.redraw.force_update();
            }
        })
    };
    // A choice in a select becomes the view with it set.
    let view_with = |set: fn(&mut View, u32)| {
        let cb = p.on_view.clone();
        let v = p.view.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<u32>() {
                let mut v = v.clone();
                set(&mut v, i);
                cb.emit(v);
            }
        })
    };
    let on_kernel = view_with(|v, i| v.live_kernel = i);
    let on_clients = view_with(|v, c| v.live_clients = c);
    let status = match h.shown.as_ref() {
        Some(s) => format!(
            "{} wakeups stepped · {:.3} ms simulated{}",
            s.steps,
            s.now_ns as f64 / 1e6,
            if s.ended { " · end of run (press Reset)" } else { "" }
        ),
        None if h.waiting => "starting…".into(),
        None => "not started".into(),
    };
    html! {
        <div class="live-controls" role="toolbar" aria-label="live controls">
            <label class="inline">{ "kernel " }
                <select id="live-kernel" onchange={on_kernel}>
                    { for p.exp.kernels.iter().enumerate().map(|(i, k)| html! {
                        <option value={i.to_string()} selected={i as u32 == kernel}>{ format!("{}: {}", letter(i), k.name_with_label()) }</option>
                    }) }
                </select>
            </label>
            <label class="inline">{ format!("{} ", p.exp.workload.clients_meaning()) }
                <select id="live-clients" onchange={on_clients}>
                    { for p.exp.clients.iter().map(|&n| html! { <option value={n.to_string()} selected={n == clients}>{ n }</option> }) }
                </select>
            </label>
            <button type="button" id="live-step" class="primary" onclick={ctl.on(Ctl::step)} title="Step one wakeup (space)">{ "Step" }<kbd>{ "space" }</kbd></button>
            <button type="button" id="live-play" onclick={ctl.on(Ctl::toggle_play)} title="Play or pause (p)" aria-pressed={if h.playing { "true" } else { "false" }}>
                { if h.playing { "Pause" } else { "Play" } }<kbd>{ "p" }</kbd>
            </button>
            <label class="inline">{ "speed " }
                <select id="live-speed" onchange={on_speed}>
                    { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                        <option value={i.to_string()} selected={i == h.speed}>{ if *s == u32::MAX { "max".to_string() } else { format!("{s}/s") } }</option>
                    }) }
                </select>
            </label>
            <button type="button" id="live-reset" onclick={ctl.on(Ctl::reset)} title="Back to the start (r)">{ "Reset" }<kbd>{ "r" }</kbd></button>
            <span id="live-status" class="status" role="status">{ status }</span>
            // The latest decision beside Step: on a phone the bar stays on screen, and
            // this line with it, while the trace below scrolls.
            <p class="live-latest" id="live-latest">{
                h.shown.as_ref().and_then(|s| s.last()).map(|t| format!("latest: {}", short(t))).unwrap_or_else(|| "latest: no wakeup yet".into())
            }</p>
        </div>
    }
}

/// Which experiment this is and what each kernel is, for a link opened straight into
/// live mode: the kernel with no switch changed is the version as released.
fn live_what(exp: &Experiment) -> Html {
    let name = if exp.name.is_empty() { "a custom experiment" } else { exp.name.as_str() };
    let kernels = exp
        .kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let mut what = if k.overrides.is_empty() { format!("{} as released", k.preset.name()) } else { k.label() };
            if k.policy.is_some() {
                what = format!("{what} with a policy script");
            }
            format!("{} {} = {what}", letter(i), k.name)
        })
        .collect::<Vec<_>>()
        .join(" · ");
    html! { <p class="live-what muted" id="live-what">{ format!("Experiment {name}: {kernels}") }</p> }
}

/// The wasted-core alarm, if the invariant is broken right now, and the counters.
fn live_counters(s: &LiveShown) -> Html {
    let c = &s.counters;
    html! {
        <>
            if let Some(w) = &s.wasted_now {
                <p class="wasted-now" id="live-wasted-now" role="alert">{ format!(
                    "Wasted core now: CPU {} idle for {} while {} waits on CPU {} ({} waiting machine-wide).",
                    w.idle_cpu, fmt_ns(w.idle_for_ns), w.waiting_task, w.busy_cpu, w.waiting) }</p>
            }
            <p class="live-counters">{ format!(
                "wakeups {} · migrations {} (SMT {}, LLC {}, cross-LLC {}, cross-node {}) · affine moves {} · CPUs scanned for an idle one {} · IPIs {} · context switches {} ({} preemptions)",
                c.wakeups, c.migrations, c.migrations_smt, c.migrations_llc, c.migrations_cross_llc, c.migrations_cross_node,
                c.affine_moves, c.sis_probed, c.ipis, c.context_switches, c.preemptions) }</p>
        </>
    }
}

/// The machine with the current wakeup's roles, beside its decision trace (the machine
/// alone before a session has started).
fn live_grid(p: &LiveProps, session: Option<&LiveShown>) -> Html {
    let topo = p.exp.machine.effective_topology().ok();
    let cstates =
        p.exp.machine.resolve().map(|r| r.costs.cstates.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
    let frame = session.map(|s| {
        Rc::new(TopoFrame {
            cpus: s.cpus.clone(),
            trace: s.last().cloned(),
            cstates,
            wasted: s.wasted_now.clone(),
            counterfactual: None,
        })
    });
    html! {
        <div class="live-grid">
            <div class="live-topo">
                if let Some(t) = topo {
                    <TopologyView topo={Rc::new(t)} live={frame} />
                }
                { wakeup_summary(session.and_then(|s| s.last())) }
            </div>
            { trace_aside(p, session) }
        </div>
    }
}

/// Beside the machine: the current wakeup's decision trace, the wasted-core moments so
/// far and the recent wakeups.
fn trace_aside(p: &LiveProps, session: Option<&LiveShown>) -> Html {
    let moments = session.map(|s| s.wasted_moments.as_slice()).unwrap_or_default();
    html! {
        <aside class="trace" aria-labelledby="trace-h">
            <h3 id="trace-h">{ "Decision trace" }</h3>
            { trace_view(session.and_then(|s| s.last())) }
            if p.exp.wasted_core_threshold_ns > 0 {
                <h4>{ "Wasted-core moments" }</h4>
                <p class="muted small">{ format!("an idle CPU past {} while a task it could run waits as long; this run so far (live mode has no warm-up)", fmt_ns(p.exp.wasted_core_threshold_ns)) }</p>
                if moments.is_empty() {
                    <p class="muted" id="live-wasted-none">{ "None so far." }</p>
                } else {
                    <ol class="moments" id="live-wasted-list">
                        { for moments.iter().map(|m| html! { <li>{ wasted::describe(m) }</li> }) }
                    </ol>
                }
            }
            if let Some(s) = session.filter(|s| s.recent.len() > 1) {
                <h4>{ "Recent wakeups" }</h4>
                // Each line has its wakeup's own number: no list numbers beside it.
                <ul class="recent">
                    { for s.recent.iter().rev().skip(1).map(|t| html! { <li>{ short(t) }</li> }) }
                </ul>
            }
        </aside>
    }
}

/// The stepped kernel's timeline and the live charts of every kernel.
fn live_timeline_and_charts(p: &LiveProps, s: &LiveShown, tl: &TimelineMirror) -> Html {
    let names: Rc<Vec<String>> = Rc::new(p.exp.kernels.iter().map(|k| k.name.clone()).collect());
    html! {
        <>
            <section class="live-timeline" aria-labelledby="live-timeline-h">
                <h3 id="live-timeline-h">{ "Timeline" }</h3>
                <p class="muted small">{ "What each CPU did over the last 20 ms of simulated time, up to now." }</p>
                <TimelineView data={TimelineData { tl: tl.timeline.clone(), version: tl.version }} live=true id="live-timeline" />
            </section>
            <div class="charts">
                <ChartCard spec={ChartSpec::Live { which: LiveChart::Throughput, series: Rc::new(s.series.clone()), names: names.clone() }} theme={p.theme.clone()} id="live-throughput" exports=true />
                <ChartCard spec={ChartSpec::Live { which: LiveChart::Migrations, series: Rc::new(s.series.clone()), names }} theme={p.theme.clone()} id="live-migrations" exports=true />
            </div>
        </>
    }
}

/// The stepped kernel went a whole budget of events without a wakeup (nothing on the
/// machine sleeps, or not for long): say so, and let the user go on looking or stop.
/// While playing, the player goes on by itself, a budget per frame; Stop pauses it.
fn stall_notice(st: Stall, playing: bool, on_continue: Callback<MouseEvent>, on_stop: Callback<MouseEvent>) -> Html {
    html! {
        <div class="live-stall" id="live-stall" role="status">
            <p>
                <strong id="live-stall-text">{ st.describe() }</strong>
                { if playing {
                    " Playing goes on looking, a slice of events per frame."
                } else {
                    " No task was woken in that stretch: on this machine nothing sleeps, or not for long."
                } }
            </p>
            <button type="button" id="live-continue" class="primary" onclick={on_continue} disabled={playing}
                title="Run another slice of events looking for the next wakeup">{ "Continue" }</button>
            <button type="button" id="live-stop" onclick={on_stop}
                title="Stop looking: the run stays where it got to">{ "Stop" }</button>
        </div>
    }
}

/// The library's own name of a migration distance (`same_llc`, `cross_node`...).
fn distance(d: schedsim::topology::Distance) -> String {
    serde_json::to_value(d).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn short(t: &WakeupTrace) -> String {
    let to = t
        .outcome
        .as_ref()
        .map(|o| format!("CPU {} ({})", o.chosen_cpu, distance(o.migration)))
        .unwrap_or_else(|| "—".into());
    format!("#{} {} by {}: prev {} → {}", t.index, t.wakee, t.waker, t.prev_cpu, to)
}

fn wakeup_summary(t: Option<&WakeupTrace>) -> Html {
    let Some(t) = t else {
        return html! { <p class="wakeup-summary muted" id="wakeup-none">{
            "No wakeup stepped yet. A yellow CPU is leaving idle to run a task put on it: at 0 ms every CPU, its first task queued. Press Step (or space) to run to the next wakeup."
        }</p> };
    };
    let probed = probed(t);
    html! {
        <dl class="wakeup-summary" id="wakeup-summary">
            { wakeup_facts(t) }
            if let Some(c) = t.target_cpu {
                <dt>{ "target" }</dt><dd>{ format!("CPU {c} (from wake_affine)") }</dd>
            }
            <dt>{ "probed" }</dt><dd>{ probed }</dd>
            if let Some(o) = &t.outcome {
                <dt>{ "chosen" }</dt><dd id="chosen-cpu">{ format!("CPU {}", o.chosen_cpu) }</dd>
                <dt>{ "migration" }</dt><dd>{ format!("{} from prev", distance(o.migration)) }</dd>
                <dt>{ "delivery" }</dt><dd>{ format!("{}{}{}, waker cost {} ns",
                    if o.queued { "queued on the wake list" } else { "direct enqueue" },
                    if o.ipi { ", IPI" } else { "" },
                    o.idle_exit.as_ref().map(|x| format!(", target leaves {x}")).unwrap_or_default(),
                    o.cost_ns) }</dd>
            }
        </dl>
    }
}

fn trace_view(t: Option<&WakeupTrace>) -> Html {
    let Some(t) = t else {
        return html! { <p class="muted">{ "No wakeup yet." }</p> };
    };
    html! {
        <>
            <p class="trace-head">{ format!("{} woken by {} on CPU {} (prev CPU {})", t.wakee, t.waker, t.waker_cpu, t.prev_cpu) }</p>
            <TraceSteps steps={t.steps.clone()} id="trace-steps" />
        </>
    }
}
