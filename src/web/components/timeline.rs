//! The per-CPU timeline, drawn as SVG from [`crate::model::timeline::Timeline`]: one lane per
//! CPU with what ran, idle periods coloured by C-state, the scheduler's time between
//! them, wakeup arrows (click or Enter opens the wakeup's decision trace, the text of
//! `schedsim trace`) and wasted-core marks. Zoom: buttons, + and −, Ctrl+wheel or a
//! pinch; pan: drag, buttons, arrow keys, Shift+wheel. [`RecordTimeline`] asks a worker
//! to record a window of one run of a sweep and shows it.

use crate::model::fmt::{fmt_duration, fmt_ms, fmt_ms_within};
use crate::model::perfetto::{parse_window, PerfettoAsk};
use crate::model::timeline::{
    layout_lane, shown_view, task_colour, ticks, Arrow, Gesture, Kind, Timeline, ViewState, ViewWindow,
};
use crate::web::hooks::{use_timeline_gestures, use_width, ViewOps};
use crate::web::pool::SweepRunner;
use crate::wire::proto::{Request, Response};
use schedsim::trace::WakeupTrace;
use schedsim::Experiment;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Lane height and the label column, px.
const LANE_H: f64 = 18.0;
const LABEL_W: f64 = 58.0;
const AXIS_H: f64 = 22.0;
/// Most arrows drawn; beyond it the view says to zoom in.
const ARROWS_MAX: usize = 400;
/// Above this many CPUs only the lanes scrolled into view (and [`LANES_MARGIN`] either
/// side) are drawn: at 1,024 CPUs every live step moved ~7,000 rects and labels of lanes
/// out of sight (the view window follows the present, so every slice's x changes), and
/// the step's style, layout and paint of them held the main thread for 0.1–0.6 s.
const LANES_ALL_MAX: usize = 128;
const LANES_MARGIN: usize = 16;
/// The lanes' scroll box's tallest (`.tl-scroll`'s max-height, 34rem), in px: what it
/// shows before it is first scrolled.
const SCROLL_MAX_H: f64 = 34.0 * 16.0;

/// The lanes `[from, to)` to draw of `n` when the lanes' scroll box shows `height` px
/// from `top`, in steps of [`LANES_MARGIN`] lanes (a scroll within a step draws nothing
/// new).
fn lanes_in_view(top: f64, height: f64, n: usize) -> (usize, usize) {
    if n <= LANES_ALL_MAX {
        return (0, n);
    }
    let first = (top.max(0.0) / LANE_H) as usize;
    let last = ((top.max(0.0) + height.max(LANE_H)) / LANE_H).ceil() as usize;
    let from = (first / LANES_MARGIN).saturating_sub(1) * LANES_MARGIN;
    let to = ((last / LANES_MARGIN + 2) * LANES_MARGIN).min(n);
    (from.min(to), to)
}
/// A timeline to draw, shared with its owner (live mode changes it in place and bumps
/// `version`).
#[derive(Clone)]
pub struct TimelineData {
    pub tl: Rc<RefCell<Timeline>>,
    pub version: u64,
}

impl PartialEq for TimelineData {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.tl, &o.tl) && self.version == o.version
    }
}

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub data: TimelineData,
    /// Live mode: the view follows the present until panned back.
    #[prop_or_default]
    pub live: bool,
    pub id: AttrValue,
}

#[function_component(TimelineView)]
pub fn timeline_view(p: &TimelineProps) -> Html {
    let selected = use_state(|| None::<Rc<WakeupTrace>>);
    let plot = use_node_ref();
    let width = use_width(plot.clone());
    let g = use_timeline_gestures(plot.clone(), p.live, LABEL_W);
    let tl = p.data.tl.borrow();
    let (lo, hi) = (tl.from_ns, tl.to_ns);
    let plot_w = (width - LABEL_W).max(40.0);
    let v = shown_view(lo, hi, g.ops.chosen(), g.ops.following());
    g.ops.drawn(ViewState { v, lo, hi, plot_w, following: g.ops.following() });
    let arrows = tl.arrows_in(v, ARROWS_MAX);
    let status = format!(
        "{} to {} ({} of {} shown){}",
        fmt_ms_within(v.start_ns, v.span()),
        fmt_ms_within(v.end_ns, v.span()),
        fmt_duration(v.span()),
        fmt_duration(hi - lo),
        match &arrows {
            Some(a) => format!(" · {} wakeup{} in view", a.len(), if a.len() == 1 { "" } else { "s" }),
            None => format!(" · over {ARROWS_MAX} wakeups in view: zoom in to see them"),
        }
    );
    let clipped = tl.clipped_at_ns.map(|c| html! {
        <p class="refusal" role="status">{ format!("The recording was cut at {} (too many events): the rest of the window is empty.", fmt_ms(c)) }</p>
    });
    let scroll = use_node_ref();
    // Lanes drawn: the scroll box's first screen until it is scrolled.
    let drawn = use_state_eq(|| lanes_in_view(0.0, SCROLL_MAX_H, tl.nr_cpus()));
    let on_scroll = {
        let (scroll, drawn, n) = (scroll.clone(), drawn.clone(), tl.nr_cpus());
        Callback::from(move |_: Event| {
            if let Some(el) = scroll.cast::<web_sys::Element>() {
                drawn.set(lanes_in_view(el.scroll_top() as f64, el.client_height() as f64, n));
            }
        })
    };
    let (from, to) = *drawn;
    let (from, to) = if tl.nr_cpus() <= LANES_ALL_MAX { (0, tl.nr_cpus()) } else { (from, to.min(tl.nr_cpus())) };
    let lanes = Lanes { tl: &tl, v, plot_w, from, to };
    let height = tl.nr_cpus() as f64 * LANE_H + 4.0;
    html! {
        <div class="timeline" id={p.id.clone()} data-view-start={v.start_ns.to_string()} data-view-end={v.end_ns.to_string()}>
            { zoom_tools(&g.ops, p.live, status) }
            { clipped }
            <div class="tl-plot" ref={plot} tabindex="0" role="group"
                aria-label="Per-CPU timeline: + and − zoom, arrow keys pan, 0 fits, Tab reaches the wakeup arrows"
                onkeydown={g.on_key} onpointerdown={g.on_down} onpointermove={g.on_move} onpointerup={g.on_up.clone()} onpointercancel={g.on_up}>
                { axis(v, width, plot_w) }
                <div class="tl-scroll" ref={scroll} onscroll={on_scroll} data-lanes-drawn={format!("{from}-{to}")}>
                    <svg class="tl-lanes" width={format!("{}", width)} height={f(height)}>
                        <defs>
                            <marker id="tl-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                                <path d="M0,0 L10,5 L0,10 z" class="tl-head" />
                            </marker>
                        </defs>
                        { lanes.cpus() }
                        { lanes.wasted() }
                        { lanes.arrows(arrows.as_deref().unwrap_or(&[]), &selected) }
                    </svg>
                </div>
            </div>
            { legend(&tl) }
            { chosen_trace(&tl, &selected) }
        </div>
    }
}

/// The toolbar: zoom, pan, fit, follow the present (live mode) and what is shown.
fn zoom_tools(ops: &ViewOps, live: bool, status: String) -> Html {
    let btn = |label: &'static str, title: &'static str, cls: &'static str, gesture: Gesture| {
        html! { <button type="button" class={classes!("tool", cls)} {title} aria-label={title}
        onclick={ops.on(gesture)}>{ label }</button> }
    };
    html! {
        <div class="tl-tools" role="toolbar" aria-label="timeline zoom and pan">
            { btn("−", "Zoom out (-)", "tl-zoom-out", Gesture::Zoom { num: 2, den: 1, anchor_ns: None }) }
            { btn("+", "Zoom in (+)", "tl-zoom-in", Gesture::Zoom { num: 1, den: 2, anchor_ns: None }) }
            { btn("◀", "Pan earlier (←)", "tl-left", Gesture::PanBy(-1, 4)) }
            { btn("▶", "Pan later (→)", "tl-right", Gesture::PanBy(1, 4)) }
            { btn("Fit", "Show the whole window (0)", "tl-fit", Gesture::Fit) }
            if live {
                <button type="button" class="tool tl-latest" aria-pressed={if ops.following() { "true" } else { "false" }}
                    title="Follow the present (End)" onclick={ops.on(Gesture::Latest)}>{ "Follow" }</button>
            }
            <span class="tl-status status" role="status">{ status }</span>
        </div>
    }
}

/// The time axis over the lanes, with its ticks.
fn axis(v: ViewWindow, width: f64, plot_w: f64) -> Html {
    html! {
        <svg class="tl-axis" width={format!("{}", width)} height={AXIS_H.to_string()} aria-hidden="true">
            { for ticks(v, plot_w).into_iter().map(|(t, label)| {
                let x = LABEL_W + v.x(t, plot_w);
                html! { <g>
                    <line x1={f(x)} x2={f(x)} y1="14" y2={f(AXIS_H)} class="tl-tick" />
                    <text x={f(x + 3.0)} y="11" class="tl-ticklabel">{ label }</text>
                </g> }
            }) }
        </svg>
    }
}

/// What the lanes' drawing needs: the timeline, the view, the plot's width and which
/// CPUs' lanes are drawn (`from..to`; the others are scrolled out of view).
struct Lanes<'a> {
    tl: &'a Timeline,
    v: ViewWindow,
    plot_w: f64,
    from: usize,
    to: usize,
}

impl Lanes<'_> {
    fn x(&self, t: u64) -> f64 {
        LABEL_W + self.v.x(t, self.plot_w)
    }

    fn y(c: u32) -> f64 {
        c as f64 * LANE_H
    }

    /// One lane per CPU: what ran, idle periods by C-state, the scheduler between them.
    fn cpus(&self) -> Html {
        (self.from..self.to).map(|c| self.cpu(c)).collect()
    }

    fn cpu(&self, c: usize) -> Html {
        let tl = self.tl;
        let y = Lanes::y(c as u32);
        let blocks = layout_lane(tl.lane(c), self.v, self.plot_w).into_iter().map(|r| {
            let (cls, what) = match r.kind {
                Kind::Run(t) => (format!("tl-run tl-t{}", task_colour(t)), tl.task_name(t).to_string()),
                Kind::Idle(s) => (format!("tl-idle tl-c{}", s.min(4)), format!("idle {}", tl.cstates.get(s as usize).map(String::as_str).unwrap_or("?"))),
                Kind::Sched => ("tl-sched".to_string(), "scheduler (context switch)".to_string()),
            };
            let w = (r.x1 - r.x0).max(0.5);
            let label = match r.kind {
                Kind::Run(_) if w > 44.0 && !r.mixed => {
                    let chars = ((w - 6.0) / 6.5) as usize;
                    let t: String = what.chars().take(chars).collect();
                    html! { <text x={f(LABEL_W + r.x0 + 3.0)} y={f(y + LANE_H - 5.0)} class="tl-name">{ t }</text> }
                }
                _ => html! {},
            };
            let title = if w >= 3.0 && !r.mixed {
                html! { <title>{ format!("CPU {c}: {what}, {} to {}", fmt_ms(r.start_ns), fmt_ms(r.end_ns)) }</title> }
            } else {
                html! {}
            };
            html! { <>
                <rect x={f(LABEL_W + r.x0)} y={f(y + 2.0)} width={f(w)} height={f(LANE_H - 4.0)}
                    class={classes!(cls, r.mixed.then_some("tl-mixed"))}>{ title }</rect>
                { label }
            </> }
        }).collect::<Html>();
        html! {
            <g class="tl-lane" key={c} data-cpu={c.to_string()}>
                <text x="4" y={f(y + LANE_H - 5.0)} class="tl-cpu">{ format!("CPU {c}") }</text>
                { blocks }
            </g>
        }
    }

    /// Wasted-core spans: the idle CPU's box, linked to the CPU where a task waited.
    fn wasted(&self) -> Html {
        let v = self.v;
        self.tl.wasted.iter().filter(|w| w.to_ns >= v.start_ns && w.from_ns <= v.end_ns).map(|w| {
            let x0 = self.x(w.from_ns.max(v.start_ns));
            let x1 = self.x(w.to_ns.min(v.end_ns)).max(x0 + 4.0);
            let (yi, yb) = (Lanes::y(w.idle_cpu), Lanes::y(w.busy_cpu));
            html! { <g class="tl-wasted" data-idle-cpu={w.idle_cpu.to_string()}>
                <title>{ format!("Wasted core: CPU {} idle while {} waits on CPU {} ({} to {})", w.idle_cpu, w.waiting_task, w.busy_cpu, fmt_ms(w.from_ns), fmt_ms(w.to_ns)) }</title>
                <rect x={f(x0)} y={f(yi + 0.5)} width={f(x1 - x0)} height={f(LANE_H - 1.0)} class="tl-wasted-box" />
                <line x1={f(x0)} x2={f(x0)} y1={f(yi + LANE_H / 2.0)} y2={f(yb + LANE_H / 2.0)} class="tl-wasted-link" />
            </g> }
        }).collect()
    }

    /// Wakeup arrows, from the waker's CPU to where the wakee ran; a click (or Enter)
    /// opens the wakeup's decision trace.
    fn arrows(&self, arrows: &[Arrow], selected: &UseStateHandle<Option<Rc<WakeupTrace>>>) -> Html {
        let sel = (**selected).clone();
        arrows.iter().map(|a| {
            let tr = self.tl.traces[a.key].clone();
            let (x0, y0) = (self.x(a.time_ns), Lanes::y(a.from_cpu) + LANE_H / 2.0);
            let (x1, y1) = (self.x(a.to_ns), Lanes::y(a.to_cpu) + LANE_H / 2.0);
            // Same lane: a small arc above; else a gentle curve.
            let (cx, cy) = ((x0 + x1) / 2.0, if a.from_cpu == a.to_cpu { y0 - LANE_H * 0.9 } else { (y0 + y1) / 2.0 - 4.0 });
            let d = format!("M{:.1},{:.1} Q{:.1},{:.1} {:.1},{:.1}", x0, y0, cx, cy, x1.max(x0 + 1.0), y1);
            let is_sel = sel.as_ref().is_some_and(|s| s.index == tr.index && s.time_ns == tr.time_ns);
            let label = format!("wakeup #{}: {} woken on CPU {} by {}, ran on CPU {}{} — open its decision trace",
                tr.index, tr.wakee, a.from_cpu, tr.waker, a.to_cpu, if a.ran { format!(" at {}", fmt_ms(a.to_ns)) } else { " (not yet)".into() });
            let open = {
                let selected = selected.clone();
                let tr = tr.clone();
                move || selected.set(Some(tr.clone()))
            };
            let o2 = open.clone();
            html! {
                <g class={classes!("tl-wake", is_sel.then_some("selected"), (!a.ran).then_some("pending"))} tabindex="0" role="button"
                    aria-label={label.clone()} data-index={tr.index.to_string()}
                    onclick={Callback::from(move |_| open())}
                    onkeydown={Callback::from(move |e: KeyboardEvent| if e.key() == "Enter" || e.key() == " " { e.prevent_default(); e.stop_propagation(); o2() })}>
                    <title>{ label }</title>
                    <path d={d.clone()} class="tl-hit" />
                    <path d={d} class="tl-arrow" marker-end="url(#tl-head)" />
                    <circle cx={f(x0)} cy={f(y0)} r="2.5" class="tl-waker" />
                </g>
            }
        }).collect()
    }
}

/// What the colours mean, with the machine's C-states.
fn legend(tl: &Timeline) -> Html {
    html! {
        <ul class="tl-legend" aria-label="colours">
            <li><span class="sw tl-run tl-t0"></span><span class="sw tl-run tl-t3"></span>{ "a task runs (one colour per task)" }</li>
            { for tl.cstates.iter().enumerate().map(|(i, name)| html! {
                <li><span class={classes!("sw", "tl-idle", format!("tl-c{}", i.min(4)))}></span>{ format!("idle {name}") }</li>
            }) }
            <li><span class="sw tl-sched"></span>{ "scheduler (context switch)" }</li>
            <li><span class="sw tl-wasted-sw"></span>{ "wasted core" }</li>
            <li><span class="sw-arrow" aria-hidden="true">{ "→" }</span>{ "wakeup: waker's CPU to where the wakee ran" }</li>
        </ul>
    }
}

/// The decision trace of the wakeup chosen, with the previous and next ones for the
/// keyboard; a hint until one is.
fn chosen_trace(tl: &Timeline, selected: &UseStateHandle<Option<Rc<WakeupTrace>>>) -> Html {
    let Some(t) = &**selected else {
        return html! { <p class="muted small tl-hint">{ "Click a wakeup arrow (or focus it and press Enter) to read its decision trace." }</p> };
    };
    let close = {
        let selected = selected.clone();
        Callback::from(move |_| selected.set(None))
    };
    let pos = tl.traces.iter().position(|x| x.index == t.index && x.time_ns == t.time_ns);
    let step = |d: i64| {
        let selected = selected.clone();
        let target = pos.and_then(|i| tl.traces.get((i as i64 + d) as usize).cloned());
        let disabled = target.is_none();
        (
            Callback::from(move |_| {
                if let Some(x) = target.clone() {
                    selected.set(Some(x))
                }
            }),
            disabled,
        )
    };
    let (prev, prev_dis) = step(-1);
    let (next, next_dis) = step(1);
    html! {
        <div class="tl-trace" role="region" aria-label="decision trace of the chosen wakeup">
            <div class="tl-trace-head">
                <strong>{ format!("Wakeup #{}", t.index) }</strong>
                <button type="button" class="tool tl-prev" onclick={prev} disabled={prev_dis} aria-label="previous wakeup">{ "◀ previous" }</button>
                <button type="button" class="tool tl-next" onclick={next} disabled={next_dis} aria-label="next wakeup">{ "next ▶" }</button>
                <button type="button" class="tool tl-close" onclick={close} aria-label="close the trace">{ "✕" }</button>
            </div>
            <pre class="tl-trace-text" tabindex="0">{ t.render() }</pre>
        </div>
    }
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// Where a recording stands.
#[derive(Clone, PartialEq)]
enum Rec {
    None,
    Running(u32),
    Ready(TimelineData, PerfettoAsk),
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct RecordProps {
    /// The sweep's experiment.
    pub exp: Experiment,
}

/// A window of one run of the sweep, recorded in a worker of its own and drawn.
#[function_component(RecordTimeline)]
pub fn record_timeline(p: &RecordProps) -> Html {
    let exp = &p.exp;
    let kernel = use_state(|| 0u32);
    let clients = use_state(|| exp.clients.first().copied().unwrap_or(1));
    let iteration = use_state(|| "0".to_string());
    let warm = exp.warmup_ms.min(exp.duration_ms.saturating_sub(1));
    let from = use_state(|| format!("{warm}"));
    let to = use_state(|| format!("{}", (warm + 2).min(exp.duration_ms)));
    let error = use_state(|| None::<String>);
    let rec = use_state(|| Rec::None);
    let seq = use_mut_ref(|| 0u32);
    let runner = {
        let rec = rec.clone();
        let seq = seq.clone();
        use_memo((), move |_| {
            let asks = Rc::new(RefCell::new(None::<PerfettoAsk>));
            let a2 = asks.clone();
            let runner = SweepRunner::new(move |r| {
                let current = *seq.borrow();
                match r {
                    Response::Timeline { id, recording_json } if id == current => {
                        match serde_json::from_str::<schedsim::recording::Recording>(&recording_json) {
                            Ok(r) => {
                                let tl = Timeline::from_recording(r);
                                let ask = a2.borrow().clone().unwrap_or(PerfettoAsk {
                                    kernel: 0,
                                    clients: 0,
                                    iteration: 0,
                                    from_ns: 0,
                                    to_ns: 0,
                                });
                                rec.set(Rec::Ready(
                                    TimelineData { tl: Rc::new(RefCell::new(tl)), version: id as u64 },
                                    ask,
                                ))
                            }
                            Err(e) => rec.set(Rec::Failed(format!("cannot read the recording: {e}"))),
                        }
                    }
                    Response::Failed { id, message } if id == current => rec.set(Rec::Failed(message)),
                    _ => {}
                }
            });
            (runner, asks)
        })
    };
    let on_record = {
        let (from, to, it, error, rec) = (from.clone(), to.clone(), iteration.clone(), error.clone(), rec.clone());
        let (k, c) = (*kernel, *clients);
        let exp = exp.clone();
        let runner = runner.clone();
        Callback::from(move |_| {
            let window = parse_window(&from, &to, exp.duration_ms).and_then(|(a, b)| {
                crate::model::timeline::check_window(a, b)?;
                Ok((a, b))
            });
            let iter = it.trim().parse::<u32>().ok().filter(|i| *i < exp.iterations);
            match (window, iter) {
                (Err(e), _) => error.set(Some(e)),
                (_, None) => {
                    error.set(Some(format!("iteration: a whole number from 0 to {}", exp.iterations.saturating_sub(1))))
                }
                (Ok((from_ns, to_ns)), Some(iteration)) => {
                    error.set(None);
                    let id = {
                        let mut s = seq.borrow_mut();
                        *s += 1;
                        *s
                    };
                    let ask = PerfettoAsk { kernel: k, clients: c, iteration, from_ns, to_ns };
                    *runner.1.borrow_mut() = Some(ask.clone());
                    rec.set(Rec::Running(id));
                    runner.0.cancel();
                    if let Err(e) = runner.0.request(id, Request::Timeline { id, experiment_json: exp.to_json(), ask })
                    {
                        rec.set(Rec::Failed(e));
                    }
                }
            }
        })
    };
    let text_in = |s: &UseStateHandle<String>| {
        let s = s.clone();
        Callback::from(move |e: InputEvent| s.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let sel_u32 = |s: &UseStateHandle<u32>| {
        let s = s.clone();
        Callback::from(move |e: Event| {
            if let Ok(i) = e.target_unchecked_into::<HtmlSelectElement>().value().parse() {
                s.set(i)
            }
        })
    };
    let running = matches!(*rec, Rec::Running(_));
    html! {
        <section class="record-timeline" id="record-timeline" aria-labelledby="record-timeline-h">
            <h3 id="record-timeline-h">{ "Timeline of one run" }</h3>
            <p class="muted small">{ "Records a window of one run (a few ms is plenty) in a worker and draws what each CPU did. The same window as the Perfetto export." }</p>
            <div class="tl-ask">
                <label class="inline">{ "kernel " }
                    <select class="tl-kernel" onchange={sel_u32(&kernel)} aria-label="kernel of the timeline">
                        { for exp.kernels.iter().enumerate().map(|(i, k)| html! {
                            <option value={i.to_string()} selected={i as u32 == *kernel}>{ k.name.clone() }</option> }) }
                    </select>
                </label>
                <label class="inline">{ format!("{} ", exp.workload.clients_meaning()) }
                    <select class="tl-clients" onchange={sel_u32(&clients)} aria-label="client count of the timeline">
                        { for exp.clients.iter().map(|n| html! { <option value={n.to_string()} selected={*n == *clients}>{ *n }</option> }) }
                    </select>
                </label>
                <label class="inline">{ "iteration " }
                    <input class="tl-iteration" type="text" inputmode="numeric" size="3" value={(*iteration).clone()} oninput={text_in(&iteration)} aria-label="iteration of the timeline" />
                </label>
                <label class="inline">{ "from ms " }
                    <input class="tl-from" type="text" inputmode="decimal" size="6" value={(*from).clone()} oninput={text_in(&from)} aria-label="timeline window start, ms" />
                </label>
                <label class="inline">{ "to ms " }
                    <input class="tl-to" type="text" inputmode="decimal" size="6" value={(*to).clone()} oninput={text_in(&to)} aria-label="timeline window end, ms" />
                </label>
                <button type="button" class="tl-record" onclick={on_record} disabled={running}>{ if running { "Recording…" } else { "Record timeline" } }</button>
                if let Some(e) = &*error {
                    <span class="refusal tl-error" role="alert">{ e.clone() }</span>
                }
            </div>
            {
                match &*rec {
                    Rec::None => html! {},
                    Rec::Running(_) => html! { <p class="status" role="status">{ "Recording in the worker…" }</p> },
                    Rec::Failed(m) => html! { <p class="refusal" role="alert">{ format!("The recording failed: {m}") }</p> },
                    Rec::Ready(data, ask) => html! {
                        <>
                            <p class="muted small tl-what">{ format!("{} at {}, iteration {}: {} to {}",
                                exp.kernels.get(ask.kernel as usize).map(|k| k.name.clone()).unwrap_or_default(),
                                exp.workload.clients_of(ask.clients as u64), ask.iteration, fmt_ms(ask.from_ns), fmt_ms(ask.to_ns)) }</p>
                            <TimelineView data={data.clone()} id="run-timeline" />
                        </>
                    },
                }
            }
        </section>
    }
}
