//! The per-CPU timeline as data: one lane per CPU tiled by slices (a task running, idle
//! in a C-state, or the scheduler's own time between them), wakeup arrows from the
//! waker's CPU to where the wakee ran, wasted-core spans, and the view window with its
//! zoom and pan arithmetic in integer nanoseconds. Fed by the library's recordings
//! (`Experiment::record` for a window of a sweep's run, `Live::take_recording` piece by
//! piece for live mode); the component in `web/components/model/timeline.rs` only draws it.

use schedsim::recording::{Recording, WastedSpan};
use schedsim::trace::WakeupTrace;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The narrowest view: 1 µs across the plot.
pub const MIN_SPAN_NS: u64 = 1_000;
/// Live mode keeps this much simulated time behind the present.
pub const LIVE_KEEP_NS: u64 = 20_000_000;
/// ...and at most this many wakeups (the oldest go first).
pub const LIVE_TRACES_MAX: usize = 20_000;
/// Slices narrower than this many pixels are merged into one drawn block.
pub const MIN_SLICE_PX: f64 = 1.0;
/// The longest window the page records for a timeline (Perfetto takes longer ones).
pub const WINDOW_MAX_NS: u64 = 50_000_000;

/// Refuses a recorded window longer than [`WINDOW_MAX_NS`].
pub fn check_window(from_ns: u64, to_ns: u64) -> Result<(), String> {
    if to_ns.saturating_sub(from_ns) > WINDOW_MAX_NS {
        return Err(format!(
            "a timeline shows at most {} ms; export a longer window to Perfetto",
            WINDOW_MAX_NS / 1_000_000
        ));
    }
    Ok(())
}

/// What a lane shows for a stretch of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A task (by task number) is the CPU's current task.
    Run(u32),
    /// Idle in this C-state (index into [`Timeline::cstates`]), exit latency included.
    Idle(u8),
    /// Neither: context switches and the scheduler's work between tasks.
    Sched,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub start_ns: u64,
    pub end_ns: u64,
    pub kind: Kind,
}

/// A wakeup as drawn: from the waker's CPU at the wakeup to the wakee's CPU when it
/// started running (or, while it has not, to the chosen CPU at the wakeup's time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// Position in [`Timeline::traces`].
    pub key: usize,
    /// The library's wakeup number (`schedsim trace --from`).
    pub index: u64,
    pub time_ns: u64,
    pub from_cpu: u32,
    pub to_cpu: u32,
    pub to_ns: u64,
    /// The wakee's run was found in the recording.
    pub ran: bool,
}

/// One lane's slices and the live tail still open.
#[derive(Clone, Debug, Default, PartialEq)]
struct Lane {
    slices: Vec<Slice>,
    /// How many slices at the end are provisional (replaced by the next piece).
    tail: usize,
}

/// A recorded window (or live mode's recent past) as lanes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub from_ns: u64,
    pub to_ns: u64,
    pub cstates: Vec<String>,
    pub tasks: Vec<String>,
    lanes: Vec<Lane>,
    /// Wakeups in time order.
    pub traces: Vec<Rc<WakeupTrace>>,
    pub wasted: Vec<WastedSpan>,
    /// Per task, the starts of its runs (time, CPU), for the arrows.
    runs_by_task: Vec<BTreeSet<(u64, u32)>>,
    /// Slices that overlapped an earlier one and were cut (none from the library).
    pub repaired: u64,
    pub clipped_at_ns: Option<u64>,
}

impl Timeline {
    /// An empty timeline starting at `from_ns`.
    pub fn new(nr_cpus: u32, from_ns: u64, cstates: Vec<String>, tasks: Vec<String>) -> Timeline {
        Timeline {
            from_ns,
            to_ns: from_ns,
            cstates,
            runs_by_task: vec![BTreeSet::new(); tasks.len()],
            tasks,
            lanes: vec![Lane::default(); nr_cpus as usize],
            ..Timeline::default()
        }
    }

    /// A whole recorded window.
    pub fn from_recording(rec: Recording) -> Timeline {
        let mut t = Timeline::new(rec.nr_cpus, rec.from_ns, rec.cstates.clone(), rec.tasks.clone());
        t.clipped_at_ns = rec.clipped_at_ns;
        let traces = rec.wakeups.clone();
        t.extend(rec);
        for tr in traces {
            t.push_trace(tr);
        }
        t
    }

    pub fn nr_cpus(&self) -> usize {
        self.lanes.len()
    }

    pub fn lane(&self, cpu: usize) -> &[Slice] {
        self.lanes.get(cpu).map(|l| l.slices.as_slice()).unwrap_or(&[])
    }

    /// Adds a wakeup (in time order).
    pub fn push_trace(&mut self, t: WakeupTrace) {
        self.traces.push(Rc::new(t));
    }

    /// Adds a piece of recording: finished slices are kept, the open ones (and the
    /// scheduler's time up to the piece's end) replace the previous piece's.
    pub fn extend(&mut self, rec: Recording) {
        let end = rec.to_ns.max(self.to_ns);
        let mut per_cpu: Vec<Vec<(Slice, bool)>> = vec![Vec::new(); self.lanes.len()];
        for r in &rec.runs {
            if let Some(v) = per_cpu.get_mut(r.cpu as usize) {
                v.push((Slice { start_ns: r.start_ns, end_ns: r.end_ns, kind: Kind::Run(r.task) }, r.open));
            }
            if let Some(s) = self.runs_by_task.get_mut(r.task as usize) {
                s.insert((r.start_ns, r.cpu));
            }
        }
        for r in &rec.idles {
            if let Some(v) = per_cpu.get_mut(r.cpu as usize) {
                v.push((Slice { start_ns: r.start_ns, end_ns: r.end_ns, kind: Kind::Idle(r.cstate) }, r.open));
            }
        }
        let from = self.from_ns;
        for (lane, mut new) in self.lanes.iter_mut().zip(per_cpu) {
            let keep = lane.slices.len() - lane.tail;
            lane.slices.truncate(keep);
            // Finished first, by start; then the open one.
            new.sort_by_key(|(s, open)| (*open, s.start_ns));
            let mut tail_from = None;
            for (s, open) in new {
                if open && tail_from.is_none() {
                    tail_from = Some(lane.slices.len());
                }
                push_slice(lane, s, from, &mut self.repaired);
            }
            // The scheduler's time up to now (or the window's end).
            let last = lane.slices.last().map_or(from, |s| s.end_ns);
            if last < end {
                if tail_from.is_none() {
                    tail_from = Some(lane.slices.len());
                }
                lane.slices.push(Slice { start_ns: last, end_ns: end, kind: Kind::Sched });
            }
            lane.tail = tail_from.map_or(0, |i| lane.slices.len() - i);
        }
        self.wasted.retain(|w| !w.open);
        self.wasted.extend(rec.wasted);
        self.to_ns = end;
    }

    /// Drops what lies before `from_ns` (live mode's horizon) and the oldest wakeups
    /// beyond `traces_max`.
    pub fn trim(&mut self, from_ns: u64, traces_max: usize) {
        if from_ns <= self.from_ns {
            return self.trim_traces(traces_max);
        }
        let from_ns = from_ns.min(self.to_ns);
        self.from_ns = from_ns;
        for lane in &mut self.lanes {
            let n = lane.slices.partition_point(|s| s.end_ns <= from_ns);
            let n = n.min(lane.slices.len() - lane.tail);
            lane.slices.drain(..n);
            if let Some(s) = lane.slices.first_mut() {
                s.start_ns = s.start_ns.max(from_ns);
            }
        }
        for s in &mut self.runs_by_task {
            *s = s.split_off(&(from_ns, 0));
        }
        let n = self.traces.partition_point(|t| t.time_ns < from_ns);
        self.traces.drain(..n);
        self.wasted.retain(|w| w.to_ns >= from_ns || w.open);
        self.trim_traces(traces_max);
    }

    fn trim_traces(&mut self, max: usize) {
        if self.traces.len() > max {
            let n = self.traces.len() - max;
            self.traces.drain(..n);
        }
    }

    /// The arrow of wakeup `key`.
    pub fn arrow(&self, key: usize) -> Option<Arrow> {
        let t = self.traces.get(key)?;
        let o = t.outcome.as_ref()?;
        let next = self.runs_by_task.get(t.wakee_id as usize).and_then(|s| s.range((t.time_ns, 0)..).next().copied());
        let (to_ns, to_cpu, ran) = match next {
            Some((at, cpu)) => (at, cpu, true),
            None => (t.time_ns, o.chosen_cpu, false),
        };
        Some(Arrow { key, index: t.index, time_ns: t.time_ns, from_cpu: t.waker_cpu, to_cpu, to_ns, ran })
    }

    /// Arrows that start or end inside `v`, at most `max` (then `None`: too many to draw).
    pub fn arrows_in(&self, v: ViewWindow, max: usize) -> Option<Vec<Arrow>> {
        let a = self.traces.partition_point(|t| t.time_ns < v.start_ns.saturating_sub(LIVE_KEEP_NS));
        let mut out = Vec::new();
        for key in a..self.traces.len() {
            if self.traces[key].time_ns > v.end_ns {
                break;
            }
            if let Some(ar) = self.arrow(key) {
                if ar.to_ns >= v.start_ns && ar.time_ns <= v.end_ns {
                    if out.len() == max {
                        return None;
                    }
                    out.push(ar);
                }
            }
        }
        Some(out)
    }

    /// The wakeup with this library index, if kept.
    pub fn key_of(&self, index: u64) -> Option<usize> {
        self.traces.iter().position(|t| t.index == index)
    }

    /// The task's name.
    pub fn task_name(&self, task: u32) -> &str {
        self.tasks.get(task as usize).map(String::as_str).unwrap_or("?")
    }
}

/// Appends `s`, after the scheduler's time since the lane's last slice; a slice that
/// would overlap the last is cut (counted in `repaired`).
fn push_slice(lane: &mut Lane, mut s: Slice, from: u64, repaired: &mut u64) {
    s.start_ns = s.start_ns.max(from);
    let last = lane.slices.last().map_or(from, |l| l.end_ns);
    if s.start_ns < last {
        *repaired += 1;
        s.start_ns = last;
    }
    if s.end_ns <= s.start_ns {
        return;
    }
    if s.start_ns > last {
        lane.slices.push(Slice { start_ns: last, end_ns: s.start_ns, kind: Kind::Sched });
    }
    lane.slices.push(s);
}

/// The part of the time line on screen, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewWindow {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl ViewWindow {
    pub fn span(&self) -> u64 {
        self.end_ns - self.start_ns
    }

    /// The whole of `lo..hi`.
    pub fn fit(lo: u64, hi: u64) -> ViewWindow {
        ViewWindow { start_ns: lo, end_ns: hi.max(lo) }
    }

    /// Kept inside `lo..hi` with its span (no wider than the bounds, no narrower than
    /// [`MIN_SPAN_NS`] unless the bounds are), shifted rather than cut.
    pub fn clamp(self, lo: u64, hi: u64) -> ViewWindow {
        let hi = hi.max(lo);
        let span = self.end_ns.saturating_sub(self.start_ns).max(MIN_SPAN_NS).min(hi - lo);
        let start = self.start_ns.clamp(lo, hi - span);
        ViewWindow { start_ns: start, end_ns: start + span }
    }

    /// The span times `num / den` around `anchor_ns`, which stays where it is on screen.
    pub fn zoom(self, lo: u64, hi: u64, num: u64, den: u64, anchor_ns: u64) -> ViewWindow {
        let span = self.span().max(1);
        let new = ((span as u128 * num as u128) / den.max(1) as u128).min(u64::MAX as u128) as u64;
        let new = new.max(MIN_SPAN_NS);
        let anchor = anchor_ns.clamp(self.start_ns, self.end_ns);
        let left = ((anchor - self.start_ns) as u128 * new as u128 / span as u128) as u64;
        let start = anchor.saturating_sub(left);
        ViewWindow { start_ns: start, end_ns: start.saturating_add(new) }.clamp(lo, hi)
    }

    /// Moved by `delta_ns` (negative: earlier), within the bounds.
    pub fn pan(self, lo: u64, hi: u64, delta_ns: i64) -> ViewWindow {
        let start = if delta_ns < 0 {
            self.start_ns.saturating_sub(delta_ns.unsigned_abs())
        } else {
            self.start_ns.saturating_add(delta_ns as u64)
        };
        ViewWindow { start_ns: start, end_ns: start.saturating_add(self.span()) }.clamp(lo, hi)
    }

    /// Screen x (0..width) of time `t`.
    pub fn x(&self, t: u64, width: f64) -> f64 {
        (t as f64 - self.start_ns as f64) * width / self.span().max(1) as f64
    }

    /// The time at screen x.
    pub fn time_at(&self, x: f64, width: f64) -> u64 {
        let f = (x / width.max(1.0)).clamp(0.0, 1.0);
        self.start_ns + (self.span() as f64 * f).round() as u64
    }

    /// Nanoseconds for `dx` pixels.
    pub fn ns_per_px(&self, dx: f64, width: f64) -> i64 {
        (dx * self.span() as f64 / width.max(1.0)).round() as i64
    }
}

/// Live mode's first view: the last 2 ms.
pub const LIVE_SPAN_NS: u64 = 2_000_000;
/// How far a pointer moves before a press becomes a drag, px.
pub const DRAG_SLOP_PX: f64 = 4.0;
/// The narrowest two touches count as apart in a pinch, px (closer would zoom wildly).
pub const PINCH_MIN_PX: f64 = 10.0;

/// What the view's zoom and pan gestures ask for, whichever way they came (buttons,
/// keys, the wheel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gesture {
    /// The span times `num / den`, around `anchor_ns` (none: the middle, or the present
    /// while following it).
    Zoom { num: u64, den: u64, anchor_ns: Option<u64> },
    /// Moved by ns (negative: earlier).
    Pan(i64),
    /// Moved by `num / den` of the span.
    PanBy(i64, i64),
    /// The whole window.
    Fit,
    /// The present, at the current span.
    Latest,
}

/// The view a gesture starts from, as last drawn: the window, the bounds of the
/// timeline, the plot's width in px, and whether the view follows the present (live mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewState {
    pub v: ViewWindow,
    pub lo: u64,
    pub hi: u64,
    pub plot_w: f64,
    pub following: bool,
}

impl ViewState {
    /// The view after `g`.
    pub fn apply(&self, g: Gesture) -> ViewWindow {
        let (v, lo, hi) = (self.v, self.lo, self.hi);
        match g {
            Gesture::Zoom { num, den, anchor_ns } => {
                let a = anchor_ns.unwrap_or(if self.following { v.end_ns } else { v.start_ns + v.span() / 2 });
                let z = v.zoom(lo, hi, num, den, a);
                if self.following && anchor_ns.is_none() {
                    ViewWindow { start_ns: hi.saturating_sub(z.span()), end_ns: hi }.clamp(lo, hi)
                } else {
                    z
                }
            }
            Gesture::Pan(d) => v.pan(lo, hi, d),
            Gesture::PanBy(num, den) => v.pan(lo, hi, v.span() as i64 * num / den.max(1)),
            Gesture::Fit => ViewWindow::fit(lo, hi),
            Gesture::Latest => ViewWindow { start_ns: hi.saturating_sub(v.span()), end_ns: hi }.clamp(lo, hi),
        }
    }

    /// The view a drag `dx` px long from `v0` shows (the content follows the pointer).
    pub fn dragged(&self, v0: ViewWindow, dx: f64) -> ViewWindow {
        v0.pan(self.lo, self.hi, -v0.ns_per_px(dx, self.plot_w))
    }

    /// The view of a pinch that began `d0` px apart on `v0` around `anchor_ns` and is
    /// `d` px apart now.
    pub fn pinched(&self, v0: ViewWindow, d0: f64, d: f64, anchor_ns: u64) -> ViewWindow {
        let (d0, d) = (d0.max(PINCH_MIN_PX), d.max(PINCH_MIN_PX));
        v0.zoom(self.lo, self.hi, (d0 * 1000.0) as u64, (d * 1000.0).max(1.0) as u64, anchor_ns)
    }
}

/// The window drawn: the bounds while empty, the present while following it (live
/// mode), else the window chosen (the whole timeline until one is), kept in bounds.
pub fn shown_view(lo: u64, hi: u64, chosen: Option<ViewWindow>, following: bool) -> ViewWindow {
    if hi <= lo {
        ViewWindow::fit(lo, hi)
    } else if following {
        let span = chosen.map_or(LIVE_SPAN_NS, |v| v.span());
        ViewWindow { start_ns: hi.saturating_sub(span), end_ns: hi }.clamp(lo, hi)
    } else {
        chosen.map_or(ViewWindow::fit(lo, hi), |v| v.clamp(lo, hi))
    }
}

/// The timeline's keys: + and − zoom, the arrows pan a quarter, 0 fits, End follows.
pub fn key_gesture(key: &str) -> Option<Gesture> {
    Some(match key {
        "+" | "=" => Gesture::Zoom { num: 1, den: 2, anchor_ns: None },
        "-" | "_" => Gesture::Zoom { num: 2, den: 1, anchor_ns: None },
        "ArrowLeft" => Gesture::PanBy(-1, 4),
        "ArrowRight" => Gesture::PanBy(1, 4),
        "0" => Gesture::Fit,
        "End" => Gesture::Latest,
        _ => return None,
    })
}

/// A wheel event: with Ctrl (or Cmd; Chromium reports a trackpad pinch as Ctrl+wheel)
/// it zooms at the pointer, `x_px` into the plot; with Shift, or when mostly sideways,
/// it pans. Anything else scrolls the page (None).
pub fn wheel_gesture(st: &ViewState, dx: f64, dy: f64, zoom_key: bool, shift: bool, x_px: f64) -> Option<Gesture> {
    if zoom_key {
        let anchor_ns = Some(st.v.time_at(x_px, st.plot_w));
        if dy < 0.0 {
            Some(Gesture::Zoom { num: 2, den: 3, anchor_ns })
        } else if dy > 0.0 {
            Some(Gesture::Zoom { num: 3, den: 2, anchor_ns })
        } else {
            None
        }
    } else if shift || dx.abs() > dy.abs() {
        let d = if dx.abs() > dy.abs() { dx } else { dy };
        Some(Gesture::Pan(st.v.ns_per_px(d, st.plot_w)))
    } else {
        None
    }
}

/// What one drawn block shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub x1: f64,
    pub kind: Kind,
    /// Several slices narrower than a pixel, drawn in the colour of the longest kind.
    pub mixed: bool,
    /// The first slice it stands for (for the task name and the tooltip).
    pub start_ns: u64,
    pub end_ns: u64,
}

/// The lane's blocks for view `v` on `width` pixels: slices cut to the view, those
/// under [`MIN_SLICE_PX`] merged, so a lane never draws more blocks than pixels.
pub fn layout_lane(lane: &[Slice], v: ViewWindow, width: f64) -> Vec<Rect> {
    let first = lane.partition_point(|s| s.end_ns <= v.start_ns);
    let mut out: Vec<Rect> = Vec::new();
    // For a merged block: ns of each kind (run, idle, sched) to pick its colour.
    let mut weights = [0u64; 3];
    let mut best: [Kind; 3] = [Kind::Run(0), Kind::Idle(0), Kind::Sched];
    for s in &lane[first..] {
        if s.start_ns >= v.end_ns {
            break;
        }
        let a = s.start_ns.max(v.start_ns);
        let b = s.end_ns.min(v.end_ns);
        let (x0, x1) = (v.x(a, width), v.x(b, width));
        let slot = match s.kind {
            Kind::Run(_) => 0,
            Kind::Idle(_) => 1,
            Kind::Sched => 2,
        };
        let narrow = x1 - x0 < MIN_SLICE_PX;
        if let Some(last) = out.last_mut() {
            if narrow && last.mixed && last.x1 - last.x0 < MIN_SLICE_PX {
                last.x1 = x1;
                last.end_ns = b;
                weights[slot] += b - a;
                if weights[slot] >= weights.iter().copied().max().unwrap_or(0) {
                    best[slot] = s.kind;
                    last.kind = s.kind;
                }
                continue;
            }
        }
        if narrow {
            weights = [0; 3];
            weights[slot] = b - a;
            best[slot] = s.kind;
        }
        out.push(Rect { x0, x1, kind: s.kind, mixed: narrow, start_ns: a, end_ns: b });
    }
    out
}

/// Tick marks for the time axis: a 1-2-5 step giving about one label per 90 px, as
/// (time, label in ms).
pub fn ticks(v: ViewWindow, width: f64) -> Vec<(u64, String)> {
    let want = (width / 90.0).max(2.0);
    let raw = v.span() as f64 / want;
    let mut step = 1u64;
    'outer: for p in 0..19 {
        let base = 10u64.pow(p);
        for m in [1, 2, 5] {
            step = base * m;
            if step as f64 >= raw {
                break 'outer;
            }
        }
    }
    let decimals = match step {
        s if s >= 1_000_000 => 0,
        s if s >= 100_000 => 1,
        s if s >= 10_000 => 2,
        s if s >= 1_000 => 3,
        s if s >= 100 => 4,
        s if s >= 10 => 5,
        _ => 6,
    };
    let mut t = v.start_ns.div_ceil(step) * step;
    let mut out = Vec::new();
    while t <= v.end_ns && out.len() < 64 {
        out.push((t, format!("{:.*} ms", decimals, t as f64 / 1e6)));
        t += step;
    }
    out
}

/// A task's colour slot (the page has eight).
pub fn task_colour(task: u32) -> u32 {
    task.wrapping_mul(2_654_435_761) >> 29
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim::live::Live;

    fn recorded(name: &str, kernel: usize, ms: u64) -> (Timeline, Recording) {
        let e = schedsim::presets::experiment(name).unwrap();
        let from = e.warmup_ms * 1_000_000;
        let rec = e.record(kernel, e.clients[0], 0, from, from + ms * 1_000_000).unwrap();
        (Timeline::from_recording(rec.clone()), rec)
    }

    /// Each lane is tiled: slices from the window's start to its end, each starting where
    /// the last ended, none empty, none cut for overlapping.
    fn assert_tiled(t: &Timeline, what: &str) {
        assert_eq!(t.repaired, 0, "{what}: overlapping slices");
        for c in 0..t.nr_cpus() {
            let l = t.lane(c);
            assert!(!l.is_empty(), "{what}: CPU {c} empty");
            assert_eq!(l[0].start_ns, t.from_ns, "{what}: CPU {c} starts late");
            assert_eq!(l.last().unwrap().end_ns, t.to_ns, "{what}: CPU {c} ends early");
            for w in l.windows(2) {
                assert_eq!(w[0].end_ns, w[1].start_ns, "{what}: CPU {c}: gap or overlap {:?} {:?}", w[0], w[1]);
            }
            assert!(l.iter().all(|s| s.start_ns < s.end_ns), "{what}: CPU {c} has an empty slice");
        }
    }

    #[test]
    fn recorded_windows_tile_every_lane() {
        for (name, k) in [("demo", 0), ("demo", 1), ("seed001", 1), ("seed003-pipe", 0), ("seed004", 1)] {
            let (t, rec) = recorded(name, k, 2);
            assert_tiled(&t, name);
            // Every recorded run is a slice of its lane.
            for r in &rec.runs {
                assert!(t.lane(r.cpu as usize).contains(&Slice {
                    start_ns: r.start_ns,
                    end_ns: r.end_ns,
                    kind: Kind::Run(r.task)
                }));
            }
            let idle: u64 = t
                .lanes
                .iter()
                .flat_map(|l| &l.slices)
                .filter(|s| matches!(s.kind, Kind::Idle(_)))
                .map(|s| s.end_ns - s.start_ns)
                .sum();
            assert!(idle > 0, "{name}: some idle time");
        }
    }

    /// An arrow leaves the waker's CPU at the wakeup's time and ends where the wakee's
    /// next run starts, on that lane, no earlier than the wakeup.
    #[test]
    fn arrows_point_from_waker_to_wakee() {
        for (name, k) in [("demo", 1), ("seed001", 0), ("seed001", 1), ("seed003-pipe", 0)] {
            let (t, _) = recorded(name, k, 2);
            assert!(!t.traces.is_empty(), "{name}");
            let (mut ran, mut chosen) = (0usize, 0usize);
            for key in 0..t.traces.len() {
                let tr = &t.traces[key];
                let Some(a) = t.arrow(key) else { continue };
                assert_eq!((a.from_cpu, a.time_ns, a.index), (tr.waker_cpu, tr.time_ns, tr.index), "{name}");
                assert!(a.to_ns >= a.time_ns, "{name}: arrow back in time {a:?}");
                if a.ran {
                    ran += 1;
                    let lane = t.lane(a.to_cpu as usize);
                    assert!(
                        lane.iter().any(|s| s.start_ns == a.to_ns && s.kind == Kind::Run(tr.wakee_id)),
                        "{name}: no run of {} on CPU {} at {}",
                        tr.wakee,
                        a.to_cpu,
                        a.to_ns
                    );
                    chosen += (a.to_cpu == tr.outcome.as_ref().unwrap().chosen_cpu) as usize;
                }
            }
            assert!(ran * 10 >= t.traces.len() * 8, "{name}: {ran} of {} wakees ran in the window", t.traces.len());
            assert!(chosen * 10 >= ran * 9, "{name}: {chosen} of {ran} ran where chosen");
        }
    }

    /// Live mode's pieces, taken at any moments, give the same lanes as one recording of
    /// the same stretch would: tiled, with the open tail replaced each time.
    #[test]
    fn live_pieces_tile_and_trim() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        e.wasted_core_threshold_ns = 100_000;
        let mut live = Live::new(&e, 0, 4).unwrap();
        live.record();
        let first = live.take_recording();
        let mut t = Timeline::new(first.nr_cpus, first.from_ns, first.cstates.clone(), live.task_names());
        t.extend(first);
        for i in 0..4000 {
            if let Some(tr) = live.step() {
                t.push_trace(tr);
            }
            if i % 37 == 0 {
                t.extend(live.take_recording());
                assert_tiled(&t, &format!("step {i}"));
                assert_eq!(t.to_ns, live.now_ns());
            }
        }
        t.extend(live.take_recording());
        let before = t.traces.len();
        let cut = t.from_ns + (t.to_ns - t.from_ns) / 2;
        t.trim(cut, usize::MAX);
        assert_tiled(&t, "trimmed");
        assert_eq!(t.from_ns, cut);
        assert!(t.traces.len() < before && t.traces.iter().all(|x| x.time_ns >= cut));
        // Arrows still point at runs on their lanes.
        for key in 0..t.traces.len() {
            if let Some(a) = t.arrow(key).filter(|a| a.ran) {
                assert!(t.lane(a.to_cpu as usize).iter().any(|s| s.start_ns == a.to_ns.max(cut)));
            }
        }
        t.trim(t.from_ns, 10);
        assert_eq!(t.traces.len(), 10);
    }

    /// The wasted-core spans of a recorded window are where the report's moments are.
    #[test]
    fn wasted_spans_match_the_reports_moments() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        e.wasted_core_threshold_ns = 100_000;
        let r = e.run(&mut |_| true).unwrap();
        let (k, p, m) = r
            .configs
            .iter()
            .enumerate()
            .find_map(|(k, c)| {
                c.points
                    .iter()
                    .find_map(|p| p.wasted_moments.iter().find(|m| m.iteration == 0).map(|m| (k, p, m.clone())))
            })
            .expect("a wasted moment at 100 µs");
        let from = m.time_ns - 500_000;
        let rec = e.record(k, p.clients, 0, from, m.time_ns + 500_000).unwrap();
        let t = Timeline::from_recording(rec);
        assert!(
            t.wasted.iter().any(|w| w.from_ns == m.time_ns && w.idle_cpu == m.idle_cpu && w.busy_cpu == m.busy_cpu),
            "{m:?} not in {:?}",
            t.wasted
        );
        // The idle CPU is idle in its lane there.
        let lane = t.lane(m.idle_cpu as usize);
        let s = lane.iter().find(|s| s.start_ns <= m.time_ns && m.time_ns < s.end_ns).unwrap();
        assert!(matches!(s.kind, Kind::Idle(_)), "{s:?}");
    }

    #[test]
    fn zoom_and_pan_stay_in_bounds() {
        let (lo, hi) = (1_000_000u64, 6_000_000u64);
        let v = ViewWindow::fit(lo, hi);
        assert_eq!(v.span(), 5_000_000);
        // Zoom in around an anchor: it stays at the same place on screen.
        let z = v.zoom(lo, hi, 1, 2, 2_000_000);
        assert_eq!(z, ViewWindow { start_ns: 1_500_000, end_ns: 4_000_000 });
        // Zooming out past the bounds gives the bounds.
        assert_eq!(z.zoom(lo, hi, 4, 1, 3_000_000), v);
        // Zooming in stops at the narrowest span.
        let mut n = v;
        for _ in 0..40 {
            n = n.zoom(lo, hi, 1, 2, hi);
        }
        assert_eq!(n.span(), MIN_SPAN_NS);
        assert_eq!(n.end_ns, hi, "the anchor at the end keeps the end");
        // Pans stop at the ends with the span kept.
        assert_eq!(z.pan(lo, hi, -10_000_000), ViewWindow { start_ns: lo, end_ns: lo + 2_500_000 });
        assert_eq!(z.pan(lo, hi, i64::MAX), ViewWindow { start_ns: hi - 2_500_000, end_ns: hi });
        assert_eq!(z.pan(lo, hi, 100), ViewWindow { start_ns: 1_500_100, end_ns: 4_000_100 });
        // Arbitrary sequences never leave the bounds.
        let mut w = v;
        let mut x = 12345u64;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            w = match x >> 62 {
                0 => w.zoom(lo, hi, 1 + (x >> 40) % 5, 1 + (x >> 20) % 5, lo + (x >> 8) % (hi - lo)),
                1 => w.pan(lo, hi, ((x >> 8) % 20_000_000) as i64 - 10_000_000),
                2 => w.clamp(lo, hi),
                _ => w.zoom(lo, hi, 1, 3, (x >> 8) % (2 * hi)),
            };
            assert!(lo <= w.start_ns && w.end_ns <= hi && w.span() >= MIN_SPAN_NS, "{w:?}");
        }
        // A window narrower than the narrowest span is the window.
        assert_eq!(ViewWindow::fit(10, 20).clamp(10, 20), ViewWindow { start_ns: 10, end_ns: 20 });
        assert_eq!(v.time_at(0.0, 500.0), lo);
        assert_eq!(v.time_at(500.0, 500.0), hi);
        assert_eq!(v.x(3_500_000, 500.0), 250.0);
    }

    #[test]
    fn layout_merges_what_is_under_a_pixel() {
        let mut lane = Vec::new();
        for i in 0..1000u64 {
            let kind = if i % 2 == 0 { Kind::Run(1) } else { Kind::Idle(2) };
            lane.push(Slice { start_ns: i * 100, end_ns: i * 100 + 100, kind });
        }
        lane.push(Slice { start_ns: 100_000, end_ns: 200_000, kind: Kind::Sched });
        let v = ViewWindow::fit(0, 200_000);
        let r = layout_lane(&lane, v, 200.0);
        assert!(r.len() <= 200, "{} blocks for 200 px", r.len());
        assert_eq!(r.last().unwrap().kind, Kind::Sched);
        assert!(!r.last().unwrap().mixed);
        assert_eq!(r[0].x0, 0.0);
        assert!((r.last().unwrap().x1 - 200.0).abs() < 1e-9);
        // Blocks abut.
        assert!(r.windows(2).all(|w| (w[0].x1 - w[1].x0).abs() < 1e-9));
        // Zoomed in, every slice is its own block.
        let z = ViewWindow { start_ns: 0, end_ns: 1_000 };
        let r = layout_lane(&lane, z, 1000.0);
        assert_eq!(r.len(), 10);
        assert!(r.iter().all(|b| !b.mixed));
    }

    #[test]
    fn ticks_and_times() {
        let t = ticks(ViewWindow { start_ns: 1_000_000, end_ns: 6_000_000 }, 900.0);
        assert_eq!(t.first().unwrap(), &(1_000_000, "1.0 ms".to_string()));
        assert!(t.len() >= 5 && t.len() <= 12, "{t:?}");
        let t = ticks(ViewWindow { start_ns: 1_000_100, end_ns: 1_002_000 }, 400.0);
        assert!(t.iter().all(|(_, l)| l.starts_with("1.00")), "{t:?}");
        assert!((0..100).all(|i| task_colour(i) < 8));
        assert!(check_window(0, WINDOW_MAX_NS).is_ok());
        assert!(check_window(1, WINDOW_MAX_NS + 2).unwrap_err().contains("50 ms"));
    }

    fn state(start_ns: u64, end_ns: u64, following: bool) -> ViewState {
        ViewState { v: ViewWindow { start_ns, end_ns }, lo: 0, hi: 10_000_000, plot_w: 1000.0, following }
    }

    #[test]
    fn gestures_move_the_view() {
        let st = state(2_000_000, 4_000_000, false);
        // Zoom in around the middle, out around an anchor that stays put on screen.
        assert_eq!(st.apply(key_gesture("+").unwrap()), ViewWindow { start_ns: 2_500_000, end_ns: 3_500_000 });
        let out = st.apply(Gesture::Zoom { num: 2, den: 1, anchor_ns: Some(2_000_000) });
        assert_eq!(out, ViewWindow { start_ns: 2_000_000, end_ns: 6_000_000 });
        // Arrows pan a quarter of the span; panning stops at the bounds, keeping the span.
        assert_eq!(st.apply(key_gesture("ArrowRight").unwrap()), ViewWindow { start_ns: 2_500_000, end_ns: 4_500_000 });
        assert_eq!(st.apply(Gesture::Pan(-9_000_000)), ViewWindow { start_ns: 0, end_ns: 2_000_000 });
        assert_eq!(st.apply(key_gesture("0").unwrap()), ViewWindow { start_ns: 0, end_ns: 10_000_000 });
        assert_eq!(st.apply(key_gesture("End").unwrap()), ViewWindow { start_ns: 8_000_000, end_ns: 10_000_000 });
        assert_eq!(key_gesture("a"), None);
        assert_eq!(key_gesture("="), key_gesture("+"));
        assert_eq!(key_gesture("_"), key_gesture("-"));
        assert_eq!(st.apply(Gesture::PanBy(1, 0)), ViewWindow { start_ns: 4_000_000, end_ns: 6_000_000 });
        // Following the present: a zoom keeps the end at the present.
        let live = state(8_000_000, 10_000_000, true);
        assert_eq!(live.apply(key_gesture("+").unwrap()), ViewWindow { start_ns: 9_000_000, end_ns: 10_000_000 });
    }

    #[test]
    fn pointer_gestures() {
        let st = state(2_000_000, 4_000_000, false);
        // Ctrl+wheel zooms at the pointer; up is in.
        let g = wheel_gesture(&st, 0.0, -100.0, true, false, 250.0).unwrap();
        assert_eq!(g, Gesture::Zoom { num: 2, den: 3, anchor_ns: Some(2_500_000) });
        assert_eq!(
            wheel_gesture(&st, 0.0, 100.0, true, false, 0.0).unwrap(),
            Gesture::Zoom { num: 3, den: 2, anchor_ns: Some(2_000_000) }
        );
        assert_eq!(wheel_gesture(&st, 0.0, 0.0, true, false, 0.0), None);
        // Shift+wheel and sideways wheels pan; a plain wheel scrolls the page.
        assert_eq!(wheel_gesture(&st, 0.0, 100.0, false, true, 0.0), Some(Gesture::Pan(200_000)));
        assert_eq!(wheel_gesture(&st, -50.0, 10.0, false, false, 0.0), Some(Gesture::Pan(-100_000)));
        assert_eq!(wheel_gesture(&st, 0.0, 100.0, false, false, 0.0), None);
        // A drag moves the content with the pointer: to the right is earlier.
        let v0 = st.v;
        assert_eq!(st.dragged(v0, 100.0), ViewWindow { start_ns: 1_800_000, end_ns: 3_800_000 });
        assert_eq!(st.dragged(v0, -5_000.0), ViewWindow { start_ns: 8_000_000, end_ns: 10_000_000 });
        // Fingers twice as far apart: half the span, around the anchor.
        assert_eq!(st.pinched(v0, 100.0, 200.0, 3_000_000), ViewWindow { start_ns: 2_500_000, end_ns: 3_500_000 });
        // Touches closer than the minimum count as the minimum: no wild zoom.
        assert_eq!(st.pinched(v0, 1.0, 0.0, 3_000_000), v0);
    }

    #[test]
    fn the_view_shown() {
        let window = ViewWindow { start_ns: 1_000_000, end_ns: 2_000_000 };
        let chosen = Some(window);
        assert_eq!(shown_view(5, 5, chosen, true), ViewWindow { start_ns: 5, end_ns: 5 });
        assert_eq!(shown_view(0, 10_000_000, None, true), ViewWindow { start_ns: 8_000_000, end_ns: 10_000_000 });
        assert_eq!(shown_view(0, 10_000_000, chosen, true), ViewWindow { start_ns: 9_000_000, end_ns: 10_000_000 });
        assert_eq!(shown_view(0, 10_000_000, chosen, false), window);
        assert_eq!(shown_view(0, 10_000_000, None, false), ViewWindow { start_ns: 0, end_ns: 10_000_000 });
        assert_eq!(
            shown_view(3_000_000, 10_000_000, chosen, false),
            ViewWindow { start_ns: 3_000_000, end_ns: 4_000_000 }
        );
    }
}
