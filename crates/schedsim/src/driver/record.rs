//! Recording a window of a run: started at a time or now, taken piece by piece for
//! live mode, finished into a [`Recording`]; the wasted-core spans it keeps. The
//! buffer and its hooks are on floor 2 (`state::recorder`); the Perfetto JSON writer
//! is `api::perfetto`.

use crate::facts::recording::{
    IdleSlice, MigrationMark, Recording, RunSlice, WastedMoment, WastedSpan, WASTED_SPANS_MAX,
};
use crate::facts::trace::WakeupTrace;
use crate::state::recorder::{Rec, Recorder};
use crate::state::{Phase, Sim, Time};

impl Sim {
    /// The recording has passed its window's end (or was clipped): the run can stop.
    #[inline]
    pub(crate) fn rec_done(&self) -> bool {
        self.rec.as_ref().is_some_and(|r| self.now > r.to)
    }

    /// A wasted-core sample: extends the open span while the same CPU stays wasted.
    pub(crate) fn rec_wasted(&mut self, found: Option<&WastedMoment>) {
        let now = self.now;
        let Some(r) = &mut self.rec else { return };
        if !r.active(now) {
            return;
        }
        match (found, &mut r.open_wasted) {
            (Some(m), Some(w)) if w.idle_cpu == m.idle_cpu => w.to_ns = now,
            (found, open) => {
                if let Some(w) = open.take() {
                    if r.wasted.len() < WASTED_SPANS_MAX {
                        r.wasted.push(w);
                    }
                }
                r.open_wasted = found.map(|m| WastedSpan {
                    from_ns: now,
                    to_ns: now,
                    idle_cpu: m.idle_cpu,
                    busy_cpu: m.busy_cpu,
                    waiting_task: m.waiting_task.clone(),
                    open: false,
                });
            }
        }
    }

    /// Starts recording from now to `to`, with the slices of what each CPU is doing
    /// now opened at this moment (for a recording that starts mid-run).
    pub(crate) fn rec_start_now(&mut self, to: Time) {
        let mut r = Recorder::new(self.now, to, self.cpus.len(), self.tasks.len());
        for (c, cpu) in self.cpus.iter().enumerate() {
            if let Some(t) = cpu.curr {
                r.open_run[c] = Some((self.now, t));
            } else if matches!(cpu.phase, Phase::Idle | Phase::Waking) {
                r.open_idle[c] = Some((self.now, cpu.cstate));
            }
        }
        self.rec = Some(r);
    }

    /// The slices finished since the last call and those still open (up to now, marked
    /// `open`, and given again next time), without wakeup traces or task names. The
    /// event count restarts, so a long live run is never clipped.
    pub(crate) fn rec_take(&mut self) -> Recording {
        let now = self.now;
        let nr_cpus = self.cpus.len() as u32;
        let cstates = self.cost.cstates.iter().map(|c| c.name.clone()).collect();
        let Some(r) = &mut self.rec else {
            return Recording { from_ns: now, to_ns: now, nr_cpus, cstates, ..Default::default() };
        };
        let mut out = Recording { from_ns: r.from, to_ns: now, nr_cpus, cstates, ..Default::default() };
        render_recs(std::mem::take(&mut r.recs), &mut out);
        for c in 0..r.open_run.len() {
            if let Some((start, task)) = r.open_run[c] {
                out.runs.push(RunSlice { cpu: c as u32, task, start_ns: start.max(r.from), end_ns: now, open: true });
            }
            if let Some((start, state)) = r.open_idle[c] {
                out.idles.push(IdleSlice {
                    cpu: c as u32,
                    cstate: state,
                    start_ns: start.max(r.from),
                    end_ns: now,
                    open: true,
                });
            }
        }
        out.wasted = std::mem::take(&mut r.wasted);
        out.wasted.extend(r.open_wasted.iter().map(|w| WastedSpan { open: true, ..w.clone() }));
        r.events = 0;
        out
    }

    /// Closes the open slices at the window's end and gives the whole window as data,
    /// with the wakeups' traces.
    pub(crate) fn rec_finish(&mut self, traces: Vec<WakeupTrace>) -> Recording {
        let now = self.now;
        let nr_cpus = self.cpus.len() as u32;
        let cstates = self.cost.cstates.iter().map(|c| c.name.clone()).collect();
        let tasks = self.tasks.iter().map(|t| t.name.clone()).collect();
        let Some(mut r) = self.rec.take() else {
            return Recording { nr_cpus, cstates, tasks, wakeups: traces, ..Default::default() };
        };
        close_open(&mut r, now);
        let mut out = Recording {
            from_ns: r.from,
            to_ns: r.to.min(now.max(r.from)),
            clipped_at_ns: r.clipped_at,
            nr_cpus,
            cstates,
            tasks,
            wakeups: traces,
            ..Default::default()
        };
        render_recs(std::mem::take(&mut r.recs), &mut out);
        out.wasted = std::mem::take(&mut r.wasted);
        out.wasted.extend(r.open_wasted.take());
        out
    }
}

/// Closes the slices still open at `now`, the end of the recording.
pub(crate) fn close_open(r: &mut Recorder, now: Time) {
    for c in 0..r.open_run.len() {
        if let Some((start, task)) = r.open_run[c].take() {
            if start <= r.to {
                let flow = r.pending_flow[task as usize].take();
                r.push(Rec::Run { cpu: c as u32, task, start: start.max(r.from), end: now.min(r.to), flow });
            }
        }
        if let Some((start, state)) = r.open_idle[c].take() {
            if start <= r.to {
                r.push(Rec::Idle { cpu: c as u32, state, start: start.max(r.from), end: now.min(r.to) });
            }
        }
    }
}

/// The recorded slices and marks as public data.
fn render_recs(recs: Vec<Rec>, out: &mut Recording) {
    for rec in recs {
        match rec {
            Rec::Run { cpu, task, start, end, .. } => {
                out.runs.push(RunSlice { cpu, task, start_ns: start, end_ns: end, open: false })
            }
            Rec::Idle { cpu, state, start, end } => {
                out.idles.push(IdleSlice { cpu, cstate: state, start_ns: start, end_ns: end, open: false })
            }
            Rec::Migrate { time, task, from, to, by } => {
                out.migrations.push(MigrationMark { time_ns: time, task, from_cpu: from, to_cpu: to, by: by.into() })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::live::Live;
    use crate::facts::recording::{IdleSlice, RunSlice};

    /// Per CPU, run and idle slices lie in the window and do not overlap; every wakeup
    /// of the window is there with its trace.
    #[test]
    fn a_recording_tiles_each_cpu_without_overlap() {
        for name in ["demo", "seed001", "seed003-pipe"] {
            let e = crate::api::presets::experiment(name).unwrap();
            let from = e.warmup_ms * 1_000_000;
            let to = from + 2_000_000;
            let r = e.record(0, e.clients[0], 0, from, to).unwrap();
            assert_eq!((r.from_ns, r.to_ns), (from, to), "{name}");
            assert!(!r.runs.is_empty() && !r.idles.is_empty() && !r.wakeups.is_empty(), "{name}");
            for c in 0..r.nr_cpus {
                let mut s: Vec<(u64, u64)> =
                    r.runs.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)).collect();
                s.extend(r.idles.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)));
                s.sort();
                for w in s.windows(2) {
                    assert!(w[0].1 <= w[1].0, "{name} CPU {c}: {:?} overlaps {:?}", w[0], w[1]);
                }
                for &(a, b) in &s {
                    assert!(from <= a && a <= b && b <= to, "{name} CPU {c}: ({a}, {b})");
                }
            }
            assert!(r.wakeups.iter().all(|w| (from..=to).contains(&w.time_ns)), "{name}");
            assert!(r.wakeups.windows(2).all(|w| w[0].index < w[1].index), "{name}: indices increase");
            assert!(r.runs.iter().all(|x| !x.open) && r.idles.iter().all(|x| !x.open));
        }
    }

    /// The wakeups recorded are the ones `Experiment::trace` gives, trace for trace.
    #[test]
    fn recorded_traces_are_the_trace_commands() {
        let e = crate::api::presets::experiment("demo").unwrap();
        let from = e.warmup_ms * 1_000_000;
        let r = e.record(1, 2, 0, from, from + 1_000_000).unwrap();
        let first = &r.wakeups[3];
        let t = e.trace(1, 2, 0, crate::facts::trace::TraceWindow { from: first.index, count: 1 }).unwrap();
        assert_eq!(t[0].render(), first.render());
    }

    /// Wakeups inside the warm-up have their own indices too (counted from the start
    /// of the run): a recording of the warm-up numbers them apart, so its Perfetto
    /// flow ids never collide, and `Experiment::trace` reaches each one by its index.
    #[test]
    fn warm_up_wakeups_have_unique_indices() {
        let e = crate::api::presets::experiment("demo").unwrap();
        assert!(e.warmup_ms >= 2);
        let r = e.record(1, 2, 0, 0, 1_000_000).unwrap();
        assert!(r.wakeups.len() > 3, "{}", r.wakeups.len());
        assert!(r.wakeups.windows(2).all(|w| w[0].index < w[1].index), "indices increase inside the warm-up");
        let w = &r.wakeups[3];
        let t = e.trace(1, 2, 0, crate::facts::trace::TraceWindow { from: w.index, count: 1 }).unwrap();
        assert_eq!(t[0].render(), w.render());
    }

    /// Recording a live run changes nothing in it, and the pieces taken add up to
    /// non-overlapping slices per CPU; wasted-core spans appear where the alarm rings.
    #[test]
    fn live_recording_is_neutral_and_consistent() {
        let mut e = crate::api::presets::experiment("demo").unwrap();
        e.wasted_core_threshold_ns = 100_000;
        let mut plain = Live::new(&e, 0, 2).unwrap();
        let mut rec = Live::new(&e, 0, 2).unwrap();
        rec.record();
        let mut runs: Vec<RunSlice> = Vec::new();
        let mut idles: Vec<IdleSlice> = Vec::new();
        let mut wasted = 0;
        for i in 0..3000 {
            assert_eq!(plain.step(), rec.step());
            if i % 97 == 0 {
                let r = rec.take_recording();
                assert_eq!(r.to_ns, rec.now_ns());
                runs.retain(|x| !x.open);
                idles.retain(|x| !x.open);
                runs.extend(r.runs);
                idles.extend(r.idles);
                wasted += r.wasted.len();
            }
        }
        assert_eq!(plain.cpus(), rec.cpus());
        assert!(runs.len() > 100);
        for c in 0..8 {
            let mut s: Vec<(u64, u64)> = runs.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)).collect();
            s.extend(idles.iter().filter(|x| x.cpu == c).map(|x| (x.start_ns, x.end_ns)));
            s.sort();
            assert!(s.windows(2).all(|w| w[0].1 <= w[1].0), "CPU {c}");
        }
        eprintln!("{wasted} wasted spans");
        let names = rec.task_names();
        assert!(rec.tasks().iter().all(|t| names.contains(&t.name)));
        assert!(runs.iter().all(|x| (x.task as usize) < names.len()));
    }
}
