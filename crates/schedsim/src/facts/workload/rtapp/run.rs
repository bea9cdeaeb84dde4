//! An rt-app task set at run time: each thread's place in its events, and the copy's
//! mutexes, condition variables, timers and barriers, as rt-app's `run_event()` uses
//! them (see the module above).

use super::super::run::{Action, Measured, Sample, Shared, TaskInit};
use super::{Affinity, Ev, RtApp, RtappParams, Thread, RUNTIME_PIECE_NS, SYS_PCT, WS_BYTES};
use std::collections::VecDeque;
use std::sync::Arc;

#[derive(Clone, Default)]
struct Mutex {
    owner: Option<u32>,
    waiters: VecDeque<u32>,
}

#[derive(Clone, Copy, Default)]
struct Timer {
    started: bool,
    next_ns: u64,
}

/// Where a task is in its program.
#[derive(Clone, Copy, Default)]
struct Pc {
    /// Index into the thread's events.
    ev: u32,
    /// Phase index and loops of it done.
    phase: u32,
    phase_done: u32,
    /// Loops of the whole done.
    loops_done: u64,
    /// Within a multi-step event: 0 not begun.
    stage: u8,
    /// Its start (runtime), ns.
    since_ns: u64,
    /// In a `wait` or `sync`: the mutex was held, and is taken again when woken.
    relock: bool,
    /// Past `delay` (and its start time, the timers' origin).
    begun: bool,
    first_ns: u64,
}

#[derive(Clone)]
pub(crate) struct RtappRun {
    p: Arc<RtApp>,
    n: u32,
    pcs: Vec<Pc>,
    /// Per copy: mutexes, condition variables (their waiters), timers, barriers (how
    /// many more must arrive, and who waits).
    mutexes: Vec<Mutex>,
    conds: Vec<VecDeque<u32>>,
    timers: Vec<Timer>,
    barrier_left: Vec<u32>,
    barrier_waiters: Vec<VecDeque<u32>>,
    /// Wakes a task owes before its next step (a broadcast's).
    owed: Vec<VecDeque<u32>>,
    /// The `run`/`runtime` piece each task was last given, counted when it asks again.
    running: Vec<u64>,
    done_ns: u64,
    ended: u32,
    copies: u32,
}

impl RtappRun {
    /// Task `k * n + i` is thread `i` of copy `k`.
    pub(crate) fn new(p: &RtappParams, copies: u32, tasks: &mut Vec<TaskInit>) -> RtappRun {
        let a = &p.parsed;
        let n = a.threads.len() as u32;
        for k in 0..copies {
            for t in &a.threads {
                let name = if copies > 1 { format!("{}#{k}", t.name) } else { t.name.clone() };
                let pinned = match &t.cpus {
                    Affinity::Cpus(c) if c.len() == 1 => Some(c[0]),
                    _ => None,
                };
                tasks.push(TaskInit { pinned, ..TaskInit::app(name, WS_BYTES, SYS_PCT) });
            }
        }
        let c = copies as usize;
        RtappRun {
            p: a.clone(),
            n,
            pcs: vec![Pc::default(); n as usize * c],
            mutexes: vec![Mutex::default(); a.mutexes as usize * c],
            conds: vec![VecDeque::new(); a.conds as usize * c],
            timers: vec![Timer::default(); a.timers.len() * c],
            barrier_left: (0..c).flat_map(|_| a.barriers.iter().map(|u| u.saturating_sub(1))).collect(),
            barrier_waiters: vec![VecDeque::new(); a.barriers.len() * c],
            owed: vec![VecDeque::new(); n as usize * c],
            running: vec![0; n as usize * c],
            done_ns: 0,
            ended: 0,
            copies,
        }
    }

    /// Wakes `target` (a message it takes when it runs again).
    fn wake(s: &mut Shared, target: u32) -> Action {
        s.post(target);
        Action::Wake { task: target, sync: false, bytes: 0 }
    }

    /// Releases mutex `m`: its first waiter, if any, is woken to try again.
    /// `pthread_mutex_lock` of mutex `m` by `task`: taken (true), or `task` queued.
    fn lock(&mut self, m: usize, task: u32) -> bool {
        let mx = &mut self.mutexes[m];
        if mx.owner.is_none() {
            mx.owner = Some(task);
            true
        } else {
            mx.waiters.push_back(task);
            false
        }
    }

    /// `task` takes mutex `m`, or waits in its queue at stage `waiting` of its event and
    /// tries again when woken: `None` once it holds it.
    fn acquire(&mut self, s: &mut Shared, task: u32, m: usize, waiting: u8) -> Option<Action> {
        let i = task as usize;
        if self.pcs[i].stage == waiting && !s.take(task) {
            return Some(Action::Block);
        }
        if !self.lock(m, task) {
            self.pcs[i].stage = waiting;
            return Some(Action::Block);
        }
        None
    }

    fn release(&mut self, m: usize) -> Option<u32> {
        self.mutexes[m].owner = None;
        self.mutexes[m].waiters.pop_front()
    }

    /// The next action of `task` at `now`.
    pub(crate) fn step(&mut self, s: &mut Shared, task: u32, now: u64) -> Action {
        let i = task as usize;
        let done = std::mem::take(&mut self.running[i]);
        if s.measuring(now) {
            self.done_ns += done;
        }
        if let Some(w) = self.owed[i].pop_front() {
            return Self::wake(s, w);
        }
        let (copy, me) = ((task / self.n) as usize, (task % self.n) as usize);
        let p = self.p.clone();
        let t = &p.threads[me];
        let (mb, cb, tb, bb) =
            (copy * p.mutexes as usize, copy * p.conds as usize, copy * p.timers.len(), copy * p.barriers.len());
        if !self.pcs[i].begun {
            self.pcs[i].begun = true;
            if t.delay_ns > 0 {
                self.pcs[i].first_ns = now + t.delay_ns;
                return Action::Sleep(t.delay_ns);
            }
            self.pcs[i].first_ns = now;
        }
        loop {
            let pc = self.pcs[i];
            let Some(&ev) = t.events.get(pc.ev as usize) else {
                return self.end(s, now);
            };
            match ev {
                Ev::Run(ns) => {
                    self.advance(i, t);
                    if ns > 0 {
                        self.running[i] = ns;
                        return Action::Run(ns);
                    }
                }
                Ev::Runtime(ns) => {
                    if pc.stage == 0 {
                        self.pcs[i].stage = 1;
                        self.pcs[i].since_ns = now;
                    }
                    let elapsed = now - self.pcs[i].since_ns;
                    if elapsed >= ns {
                        self.advance(i, t);
                        continue;
                    }
                    let piece = RUNTIME_PIECE_NS.min(ns - elapsed);
                    self.running[i] = piece;
                    return Action::Run(piece);
                }
                Ev::Sleep(ns) => {
                    self.advance(i, t);
                    if ns > 0 {
                        return Action::Sleep(ns);
                    }
                }
                Ev::Timer { timer, period } => {
                    self.advance(i, t);
                    let timer = if timer < p.shared_timers {
                        timer
                    } else {
                        p.shared_timers + t.unique_base + (u32::MAX - timer)
                    };
                    let tm = &mut self.timers[tb + timer as usize];
                    if !tm.started {
                        tm.started = true;
                        tm.next_ns = pc.first_ns;
                    }
                    tm.next_ns += period;
                    if now < tm.next_ns {
                        return Action::Sleep(tm.next_ns - now);
                    }
                    // Late: no sleep; a relative timer restarts from now.
                    if !p.timers[timer as usize] {
                        tm.next_ns = now;
                    }
                }
                Ev::Lock(m) => {
                    if let Some(a) = self.acquire(s, task, mb + m as usize, 1) {
                        return a;
                    }
                    self.advance(i, t);
                }
                Ev::Unlock(m) => {
                    self.advance(i, t);
                    if let Some(w) = self.release(mb + m as usize) {
                        return Self::wake(s, w);
                    }
                }
                Ev::Wait { cond, mutex } | Ev::Sync { cond, mutex } => {
                    match pc.stage {
                        0 => {
                            self.pcs[i].stage = 1;
                            if matches!(ev, Ev::Sync { .. }) {
                                if let Some(w) = self.conds[cb + cond as usize].pop_front() {
                                    self.owed[i].push_back(w);
                                }
                            }
                            self.conds[cb + cond as usize].push_back(task);
                            // pthread_cond_wait releases the mutex it is given (if the
                            // thread holds it) and takes it again when woken.
                            self.pcs[i].relock = self.mutexes[mb + mutex as usize].owner == Some(task);
                            if self.pcs[i].relock {
                                if let Some(w) = self.release(mb + mutex as usize) {
                                    self.owed[i].push_back(w);
                                }
                            }
                            if let Some(w) = self.owed[i].pop_front() {
                                return Self::wake(s, w);
                            }
                            return Action::Block;
                        }
                        1 => {
                            if !s.take(task) {
                                return Action::Block;
                            }
                            // Signalled: take the mutex again (a Lock from here on).
                            self.pcs[i].stage = 2;
                        }
                        _ => {
                            if self.pcs[i].relock {
                                if let Some(a) = self.acquire(s, task, mb + mutex as usize, 3) {
                                    return a;
                                }
                            }
                            self.advance(i, t);
                        }
                    }
                }
                Ev::Signal(c) => {
                    self.advance(i, t);
                    if let Some(w) = self.conds[cb + c as usize].pop_front() {
                        return Self::wake(s, w);
                    }
                }
                Ev::Broad(c) | Ev::Resume(c) => {
                    self.advance(i, t);
                    let all = std::mem::take(&mut self.conds[cb + c as usize]);
                    self.owed[i].extend(all);
                    if let Some(w) = self.owed[i].pop_front() {
                        return Self::wake(s, w);
                    }
                }
                Ev::Suspend(c) => {
                    if pc.stage == 0 {
                        self.pcs[i].stage = 1;
                        self.conds[cb + c as usize].push_back(task);
                        return Action::Block;
                    }
                    if !s.take(task) {
                        return Action::Block;
                    }
                    self.advance(i, t);
                }
                Ev::Barrier(b) => {
                    let k = bb + b as usize;
                    if pc.stage == 0 {
                        if self.barrier_left[k] == 0 {
                            self.advance(i, t);
                            let all = std::mem::take(&mut self.barrier_waiters[k]);
                            self.owed[i].extend(all);
                            if let Some(w) = self.owed[i].pop_front() {
                                return Self::wake(s, w);
                            }
                            continue;
                        }
                        self.barrier_left[k] -= 1;
                        self.barrier_waiters[k].push_back(task);
                        self.pcs[i].stage = 1;
                        return Action::Block;
                    }
                    if !s.take(task) {
                        return Action::Block;
                    }
                    self.barrier_left[k] += 1;
                    self.advance(i, t);
                }
            }
            if self.pcs[i].ev == u32::MAX {
                return self.end(s, now);
            }
        }
    }

    /// Past the current event: the next one, the phase's next loop, the next phase, the
    /// thread's next loop, or the end (`ev` = `u32::MAX`).
    fn advance(&mut self, i: usize, t: &Thread) {
        let pc = &mut self.pcs[i];
        pc.stage = 0;
        pc.ev += 1;
        let (start, loops) = t.phases[pc.phase as usize];
        let end = t.phases.get(pc.phase as usize + 1).map_or(t.events.len() as u32, |p| p.0);
        if pc.ev < end {
            return;
        }
        pc.phase_done += 1;
        if pc.phase_done < loops {
            pc.ev = start;
            return;
        }
        pc.phase_done = 0;
        pc.phase += 1;
        if (pc.phase as usize) < t.phases.len() {
            return;
        }
        pc.phase = 0;
        pc.loops_done += 1;
        if t.loops > 0 && pc.loops_done >= t.loops as u64 {
            pc.ev = u32::MAX;
            return;
        }
        pc.ev = 0;
    }

    fn end(&mut self, s: &mut Shared, now: u64) -> Action {
        self.ended += 1;
        s.exit_one(now, self.n * self.copies)
    }

    /// The threads' `run` and `runtime` work done per second of the window, in CPUs'
    /// worth.
    pub(crate) fn sample(&self, m: &Measured) -> Sample {
        Sample { value: self.done_ns as f64 / m.window_ns as f64, finished: true }
    }
}
