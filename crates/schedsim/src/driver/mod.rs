//! Floor 4, the driver and its observers: the event loop that advances a `Sim` from
//! event to event and hands each to the kernel model, the invariant checker run after
//! every event in tests, the recording of a window (started, taken and finished here;
//! its hooks are on floor 2 where the kernel calls them), and the wasted-core alarm.

pub(crate) mod check;
pub(crate) mod record;
pub(crate) mod wasted;

use crate::facts::metrics::{Counters, Histogram};
use crate::facts::recording::WastedMoment;
use crate::facts::workload::{Measured, Sample};
use crate::state::{Ev, Irq, Sim, SimOptions, Time};

/// What one simulation run produced.
pub(crate) struct RunOutcome {
    pub sample: Sample,
    pub counters: Counters,
    pub wake_latency: Histogram,
    pub request_latency: Histogram,
    pub elapsed_ns: u64,
    pub wasted_moments: Vec<WastedMoment>,
}

impl Sim {
    /// Places every task (fork balancing) and schedules the workload's first events.
    pub(crate) fn start(&mut self) {
        self.start_tasks();
        self.wasted_start();
        for irq in self.wl.initial_irqs(&mut self.rng) {
            self.push(irq.at_ns, Ev::Irq { cpu: irq.cpu, token: irq.token });
        }
    }

    /// Processes the next event. Returns false when the run is over (end time, the
    /// workload finished, or an error, which is then in `self.error`).
    pub(crate) fn step_event(&mut self) -> bool {
        self.step_event_inline()
    }

    /// [`Sim::step_event`], inlined into [`Sim::run`]'s loop: the whole event handling
    /// is inlined into it, and as its own function it saved and restored its registers
    /// and frame once per event.
    #[inline(always)]
    fn step_event_inline(&mut self) -> bool {
        // The next event is the earlier of the main queue and the segment queue.
        let seg = self.segs.peek();
        let ev = self.events.peek();
        let (time, from_seg) = match (seg, ev) {
            (None, None) => return false,
            (Some((t, _, _)), None) => (t, true),
            (None, Some(k)) => ((k >> 64) as Time, false),
            (Some((t, s, _)), Some(k)) => {
                if (((t as u128) << 64) | s as u128) < k {
                    (t, true)
                } else {
                    ((k >> 64) as Time, false)
                }
            }
        };
        if time >= self.boundary {
            if time > self.opts.end_ns {
                return false;
            }
            if !self.measuring && time >= self.opts.warmup_ns {
                self.begin_measuring(time);
            }
            self.boundary = Sim::boundary_of(self.measuring, &self.opts);
        }
        debug_assert!(time >= self.now, "time went backwards");
        self.now = time;
        let what = if from_seg {
            // Let seg_end move this CPU's entry (one sift) rather than pop and push;
            // drop it if no new segment was set.
            let (t, s, c) = seg.unwrap_or((0, 0, 0));
            self.seg_end(c);
            if self.segs.key_of(c) == Some((t, s)) {
                self.segs.remove(c);
            }
            None
        } else {
            let Some(e) = self.events.pop().map(|e| e.ev) else { return false };
            self.dispatch(e);
            Some(e)
        };
        self.events_done += 1;
        if self.error.is_some() {
            return false;
        }
        if self.opts.check_invariants {
            if let Err(err) = self.check() {
                let after = what.map_or_else(|| "a segment end".to_string(), |e| format!("{e:?}"));
                self.error = Some(format!("invariant broken at {} ns after {after}: {err}", self.now).into());
                return false;
            }
        }
        !self.wl.done()
    }

    /// See [`Sim::boundary`]: past the run's end, or at the warm-up's end while it
    /// has not come.
    fn boundary_of(measuring: bool, opts: &SimOptions) -> Time {
        let past_end = opts.end_ns.saturating_add(1);
        if measuring {
            past_end
        } else {
            opts.warmup_ns.min(past_end)
        }
    }

    /// Runs to the end.
    pub(crate) fn run(&mut self, progress: &mut dyn FnMut(Time) -> bool) -> Result<(), String> {
        self.start();
        let mut next_progress = 0;
        // A recording or a trace window can end the run early; neither comes or goes
        // while it runs, so plain runs skip both tests.
        let may_stop_early = self.rec.is_some() || self.stop_after_trace;
        while self.step_event_inline() {
            if self.events_done >= next_progress {
                next_progress = self.events_done + 65_536;
                if !progress(self.now) {
                    return Err("cancelled".into());
                }
                if self.events_done > self.opts.max_events {
                    return Err(format!(
                        "the run needs more than {} events; shorten the duration or lower the client count",
                        self.opts.max_events
                    ));
                }
            }
            if !may_stop_early {
                continue;
            }
            if self.rec_done() {
                break;
            }
            if self.stop_after_trace {
                if let Some(w) = self.opts.trace {
                    if self.wake_index >= w.from.saturating_add(w.count as u64) && self.trace.is_none() {
                        break;
                    }
                }
            }
        }
        if let Some(err) = self.error.take() {
            return Err(err.into());
        }
        self.finish();
        Ok(())
    }

    /// Closes the time accounting at the end of the run. A run that ended inside the
    /// warm-up (the workload finished, or a recording's window closed) measured
    /// nothing: its counters are zero, its CPU times those of the whole run.
    pub(crate) fn finish(&mut self) {
        let end = if self.wl.done() { self.now } else { self.opts.end_ns.max(self.now) };
        self.now = end;
        for c in 0..self.cpus.len() {
            self.account(c as u32);
        }
        if !self.measuring {
            self.reset_counters();
        }
    }

    /// The run's counters and latencies; the workload's metric is read from them
    /// with [`WorkloadState::sample`].
    pub(crate) fn outcome(&mut self) -> RunOutcome {
        let mut m = self.m.clone();
        m.events = self.events_done;
        for cpu in &self.cpus {
            m.user_ns += cpu.user_ns;
            m.system_ns += cpu.sys_ns;
            m.idle_ns += cpu.idle_ns;
        }
        let measured = self.now.saturating_sub(self.measure_start).max(1);
        RunOutcome {
            sample: self.wl.sample(&Measured {
                end_ns: self.now,
                window_ns: measured,
                wake_latency: &self.wake_latency,
            }),
            counters: m,
            wake_latency: self.wake_latency.clone(),
            request_latency: self.wl.request_latency(),
            elapsed_ns: measured,
            wasted_moments: std::mem::take(&mut self.wasted_moments),
        }
    }

    fn begin_measuring(&mut self, at: Time) {
        self.measuring = true;
        self.measure_start = at;
        for c in 0..self.cpus.len() {
            let saved = self.now;
            self.now = at;
            self.account(c as u32);
            self.now = saved;
            let cpu = &mut self.cpus[c];
            cpu.user_ns = 0;
            cpu.sys_ns = 0;
            cpu.idle_ns = 0;
        }
        self.reset_counters();
    }

    /// Forgets every count made so far: the counters count all along, and what they
    /// counted in the warm-up is dropped when measuring begins (or, for a run that ends
    /// inside the warm-up, when it ends).
    fn reset_counters(&mut self) {
        self.m = Counters::default();
        self.wake_latency = Histogram::default();
        self.wasted_moments.clear();
        self.wasted_episode = false;
    }

    #[inline(always)]
    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Enqueue { cpu, task } => self.enqueue_wakee(cpu, task),
            Ev::WakeIpi { cpu } => self.wake_ipi(cpu),
            Ev::Resched { cpu } => self.resched_ipi(cpu),
            Ev::Irq { cpu, token } => self.raise_irq(cpu, Irq::Device(token)),
            Ev::Timer { task } => {
                let cpu = self.tasks[task as usize].cpu;
                self.raise_irq(cpu, Irq::Timer { task });
            }
            Ev::Tick { cpu } => self.tick(cpu),
            Ev::Sample => self.wasted_sample(),
            Ev::ActiveBalance { src, dst } => self.active_balance(src, dst),
        }
    }
}
