//! The recorder's buffer and the hooks the kernel model calls where a task starts or
//! stops running, a CPU enters or leaves idle, a task migrates, and a traced wakeup
//! ends. Each hook is one test of `Sim::rec` when nothing records; the driver
//! (`driver::record`) starts a recording and turns the buffer into a
//! [`Recording`](crate::facts::recording::Recording).

use super::{Sim, Time};
use crate::facts::recording::{WakeRecord, WakerKind, WastedSpan, RECORD_EVENTS_MAX, WAKE_LOG_MAX};

#[derive(Clone)]
pub(crate) enum Rec {
    Run { cpu: u32, task: u32, start: Time, end: Time, flow: Option<u64> },
    Idle { cpu: u32, state: u8, start: Time, end: Time },
    Migrate { time: Time, task: u32, from: u32, to: u32, by: &'static str },
}

#[derive(Clone)]
pub(crate) struct Recorder {
    pub from: Time,
    pub to: Time,
    pub recs: Vec<Rec>,
    /// Trace events the recording will render so far (wakeups count two: the instant
    /// and the flow start).
    pub events: usize,
    /// Where the window was cut short because it reached [`RECORD_EVENTS_MAX`].
    pub clipped_at: Option<Time>,
    pub(crate) open_run: Vec<Option<(Time, u32)>>,
    pub(crate) open_idle: Vec<Option<(Time, u8)>>,
    /// Per task: the flow id of a wakeup whose run has not started yet.
    pub(crate) pending_flow: Vec<Option<u64>>,
    /// Wasted-core spans, closed and open (start, last sample, idle CPU, busy CPU, task).
    pub(crate) wasted: Vec<WastedSpan>,
    pub(crate) open_wasted: Option<WastedSpan>,
    /// Every wakeup of the run, when asked for (the replay's comparison with its trace).
    pub(crate) wake_log: Option<WakeLog>,
}

/// A wakeup begun and its task not yet switched in.
#[derive(Clone, Copy)]
struct OpenWake {
    time_ns: Time,
    waker: Option<u32>,
    kind: WakerKind,
    waker_cpu: u32,
}

/// The wakeups of a run as [`WakeRecord`]s: opened by `try_to_wake_up`, closed when
/// the task is switched in.
#[derive(Clone)]
pub(crate) struct WakeLog {
    /// Per task: a kernel thread (its wakeups are a kernel thread's).
    kthread: Vec<bool>,
    /// Per task: the wakeup on its way.
    open: Vec<Option<OpenWake>>,
    pub records: Vec<WakeRecord>,
    /// Wakeups past [`WAKE_LOG_MAX`], counted only.
    pub dropped: u64,
}

impl Recorder {
    pub(crate) fn new(from: Time, to: Time, cpus: usize, tasks: usize) -> Recorder {
        Recorder {
            from,
            to,
            recs: Vec::new(),
            events: 0,
            clipped_at: None,
            open_run: vec![None; cpus],
            open_idle: vec![None; cpus],
            pending_flow: vec![None; tasks],
            wasted: Vec::new(),
            open_wasted: None,
            wake_log: None,
        }
    }

    /// A recorder that records no window, only the wake log; `kthread` marks the
    /// kernel threads among the tasks.
    pub(crate) fn wake_log_only(cpus: usize, kthread: Vec<bool>) -> Recorder {
        let tasks = kthread.len();
        let mut r = Recorder::new(Time::MAX, Time::MAX, cpus, tasks);
        r.wake_log = Some(WakeLog { kthread, open: vec![None; tasks], records: Vec::new(), dropped: 0 });
        r
    }

    /// Counts `n` more events at `now`; past the bound the window ends here.
    pub(crate) fn count(&mut self, n: usize, now: Time) {
        self.events += n;
        if self.events >= RECORD_EVENTS_MAX && self.clipped_at.is_none() {
            self.clipped_at = Some(now);
            self.to = self.to.min(now);
        }
    }

    pub(crate) fn push(&mut self, r: Rec) {
        let n = match r {
            Rec::Run { flow: Some(_), .. } => 2,
            _ => 1,
        };
        self.events += n;
        self.recs.push(r);
    }

    pub(crate) fn active(&self, now: Time) -> bool {
        now >= self.from && now <= self.to
    }
}

impl Sim {
    #[inline(always)]
    pub(crate) fn rec_run_begin(&mut self, c: u32, t: u32) {
        if self.rec.is_some() {
            self.rec_run_begin_on(c, t);
        }
    }

    #[cold]
    fn rec_run_begin_on(&mut self, c: u32, t: u32) {
        let now = self.now;
        let last = self.tasks[t as usize].last_ran_cpu;
        if let Some(r) = &mut self.rec {
            r.open_run[c as usize] = Some((now, t));
            if let Some(l) = &mut r.wake_log {
                if let Some(OpenWake { time_ns, waker, kind, waker_cpu }) = l.open[t as usize].take() {
                    if l.records.len() < WAKE_LOG_MAX {
                        l.records.push(WakeRecord {
                            time_ns,
                            wakee: t,
                            waker,
                            kind,
                            waker_cpu,
                            last_cpu: (last != super::NO_CPU).then_some(last),
                            ran_cpu: c,
                            run_delay_ns: now - time_ns,
                        });
                    } else {
                        l.dropped += 1;
                    }
                }
            }
        }
    }

    /// A wakeup of `p` begins on `this`, by `waker` or from interrupt context: the
    /// wake log notes who ran there. Called on the cold path of `try_to_wake_up`.
    pub(crate) fn rec_waking(&mut self, p: u32, this: u32, waker: Option<u32>) {
        let now = self.now;
        let curr = waker.or(self.cpus[this as usize].curr);
        let Some(r) = &mut self.rec else { return };
        let Some(l) = &mut r.wake_log else { return };
        let kind = match curr {
            Some(t) if l.kthread[t as usize] => WakerKind::KernelThread,
            Some(_) => WakerKind::Task,
            None => WakerKind::Idle,
        };
        l.open[p as usize] = Some(OpenWake { time_ns: now, waker, kind, waker_cpu: this });
    }

    #[inline(always)]
    pub(crate) fn rec_run_end(&mut self, c: u32, t: u32) {
        if self.rec.is_some() {
            self.rec_run_end_on(c, t);
        }
    }

    #[cold]
    fn rec_run_end_on(&mut self, c: u32, t: u32) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            if let Some((start, task)) = r.open_run[c as usize].take() {
                if task == t && now >= r.from && start <= r.to {
                    let flow = r.pending_flow[t as usize].take();
                    r.push(Rec::Run { cpu: c, task: t, start: start.max(r.from), end: now.min(r.to), flow });
                    r.count(0, now);
                }
            }
        }
    }

    #[inline(always)]
    pub(crate) fn rec_idle_begin(&mut self, c: u32, state: u8) {
        if self.rec.is_some() {
            self.rec_idle_begin_on(c, state);
        }
    }

    #[cold]
    fn rec_idle_begin_on(&mut self, c: u32, state: u8) {
        if let Some(r) = &mut self.rec {
            r.open_idle[c as usize] = Some((self.now, state));
        }
    }

    #[inline(always)]
    pub(crate) fn rec_idle_end(&mut self, c: u32) {
        if self.rec.is_some() {
            self.rec_idle_end_on(c);
        }
    }

    #[cold]
    fn rec_idle_end_on(&mut self, c: u32) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            if let Some((start, state)) = r.open_idle[c as usize].take() {
                if now >= r.from && start <= r.to {
                    r.push(Rec::Idle { cpu: c, state, start: start.max(r.from), end: now.min(r.to) });
                    r.count(0, now);
                }
            }
        }
    }

    #[inline(always)]
    pub(crate) fn rec_migrate(&mut self, t: u32, from: u32, to: u32, by: &'static str) {
        if self.rec.is_some() {
            self.rec_migrate_on(t, from, to, by);
        }
    }

    #[cold]
    fn rec_migrate_on(&mut self, t: u32, from: u32, to: u32, by: &'static str) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            if r.active(now) {
                r.push(Rec::Migrate { time: now, task: t, from, to, by });
                r.count(0, now);
            }
        }
    }

    /// Whether wakeups should be traced for the recorder now.
    #[inline]
    pub(crate) fn rec_wants_trace(&self) -> bool {
        self.rec.as_ref().is_some_and(|r| r.active(self.now) && r.clipped_at.is_none())
    }

    /// Remembers that the wakeup traced as `index` leads to the wakee's next run.
    pub(crate) fn rec_wakeup(&mut self, wakee: u32, index: u64) {
        let now = self.now;
        if let Some(r) = &mut self.rec {
            r.pending_flow[wakee as usize] = Some(index);
            r.count(2, now);
        }
    }
}
