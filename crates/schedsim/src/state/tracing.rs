//! The decision trace of the wakeup being traced: opened by `try_to_wake_up` when the
//! wakeup is in the trace window (or a recording wants it), filled with the steps the
//! kernel model records, closed with its outcome.

use super::Sim;
use crate::facts::trace::{Outcome, Step, WakeupTrace, PROBED_MAX, TRACE_STEPS_MAX};

impl Sim {
    /// Starts tracing the current wakeup if it is in the window.
    pub(crate) fn trace_begin(&mut self, wakee: u32, waker: Option<u32>, this: u32, sync: bool) {
        let in_window = self
            .opts
            .trace
            .is_some_and(|w| self.wake_index >= w.from && self.wake_index < w.from.saturating_add(w.count as u64));
        if !in_window && !self.rec_wants_trace() {
            return;
        }
        let waker = match waker {
            Some(w) => self.tasks[w as usize].name.clone(),
            None => "interrupt".into(),
        };
        let t = &self.tasks[wakee as usize];
        self.trace = Some(WakeupTrace {
            index: self.wake_index,
            time_ns: self.now,
            wakee: t.name.clone(),
            wakee_id: wakee,
            waker,
            waker_cpu: this,
            prev_cpu: t.cpu,
            target_cpu: None,
            sync,
            probed: Vec::new(),
            steps: Vec::new(),
            outcome: None,
        });
    }

    #[inline]
    pub(crate) fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Records a step; `f` runs only while tracing.
    #[inline(always)]
    pub(crate) fn step(&mut self, f: impl FnOnce(&Sim) -> Step) {
        if self.trace.is_some() {
            self.step_traced(f);
        }
    }

    /// [`Sim::step`] while tracing.
    #[cold]
    fn step_traced(&mut self, f: impl FnOnce(&Sim) -> Step) {
        let s = f(self);
        if let Some(tb) = &mut self.trace {
            if tb.steps.len() < TRACE_STEPS_MAX {
                tb.steps.push(s);
            }
        }
    }

    #[inline]
    pub(crate) fn probe(&mut self, this: u32, c: u32) -> u64 {
        if let Some(tb) = &mut self.trace {
            if tb.probed.len() < PROBED_MAX {
                tb.probed.push(c);
            }
        }
        self.cost.idle_probe_base_ns + self.cost.line_transfer_ns(self.map.distance(this, c))
    }

    pub(crate) fn trace_end(&mut self, outcome: Outcome) {
        if let Some(mut tb) = self.trace.take() {
            self.rec_wakeup(tb.wakee_id, tb.index);
            tb.outcome = Some(outcome);
            self.traces.push(tb);
        }
    }
}
