//! The page's side of the simulation workers (the side inside a worker is
//! [`crate::worker`]): [`SweepPool`] runs a sweep on a pool of workers, one run each at a
//! time, and [`SweepRunner`] owns one worker for Perfetto recordings, a replay's import
//! and live mode's session; both send [`Request`]s and read [`Response`]s. Both cancel by
//! terminating their workers: a run is one synchronous call, so a message asking it to
//! stop could not be read until it had finished. Workers talk by `postMessage` only (no
//! SharedArrayBuffer), so the page works on any static host, without cross-origin
//! isolation headers.

use crate::model::sweep::{JobProgress, Kept, SweepJob, Tell, Throttle};
use crate::web::dom::{self, js_err};
use crate::wire::proto::{Engine, Request, Response, FILES_KEY};
use schedsim::Report;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, Worker};

/// Page side: one worker, spawned lazily, replaced after a cancel or a crash, and by
/// the other kind when a request needs it (`Request::engine`).
pub struct SweepRunner {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    worker: Option<Worker>,
    engine: Engine,
    ready: bool,
    queue: Vec<Request>,
    current: u32,
    on_response: Rc<dyn Fn(Response)>,
    closures: Vec<Closure<dyn FnMut(JsValue)>>,
}

impl SweepRunner {
    pub fn new(on_response: impl Fn(Response) + 'static) -> SweepRunner {
        SweepRunner {
            inner: Rc::new(RefCell::new(Inner {
                worker: None,
                engine: Engine::Plain,
                ready: false,
                queue: Vec::new(),
                current: 0,
                on_response: Rc::new(on_response),
                closures: Vec::new(),
            })),
        }
    }

    /// Sends any request; answers arrive through the callback.
    pub fn request(&self, id: u32, req: Request) -> Result<(), String> {
        let mut inner = self.inner.borrow_mut();
        inner.current = id;
        let engine = req.engine();
        if inner.worker.is_some() && engine.is_some_and(|e| e != inner.engine) {
            stop(&mut inner);
        }
        if inner.worker.is_none() {
            // A live op whose worker is gone goes to a new plain worker, which says it
            // holds no such session.
            inner.engine = engine.unwrap_or(Engine::Plain);
            spawn(&self.inner, &mut inner)?;
        }
        if inner.ready {
            send(&inner, &req)
        } else {
            inner.queue.push(req);
            Ok(())
        }
    }

    /// Stops whatever runs, at once.
    pub fn cancel(&self) {
        let mut inner = self.inner.borrow_mut();
        stop(&mut inner);
    }
}

fn stop(inner: &mut Inner) {
    if let Some(w) = inner.worker.take() {
        w.set_onmessage(None);
        w.set_onerror(None);
        w.terminate();
    }
    inner.ready = false;
    inner.queue.clear();
    // The closures stay until the next spawn replaces them: this may run inside one of
    // them (the error handler), which must not be freed while it executes.
}

fn send(inner: &Inner, req: &Request) -> Result<(), String> {
    let w = inner.worker.as_ref().ok_or("no worker")?;
    w.post_message(&message(req)?).map_err(js_err)
}

/// `req` as a message: its serde form, with its trace files' `Blob`s beside it
/// (`proto::TraceFile`).
fn message(req: &Request) -> Result<JsValue, String> {
    let v = serde_wasm_bindgen::to_value(req).map_err(|e| e.to_string())?;
    let files = req.files();
    if !files.is_empty() {
        let a = js_sys::Array::new();
        for f in files {
            a.push(f.0.as_ref().ok_or("a trace file is missing from the request")?);
        }
        js_sys::Reflect::set(&v, &JsValue::from_str(FILES_KEY), &a).map_err(js_err)?;
    }
    Ok(v)
}

fn spawn(rc: &Rc<RefCell<Inner>>, inner: &mut Inner) -> Result<(), String> {
    let w =
        Worker::new(inner.engine.url()).map_err(|e| format!("cannot start the simulation worker: {}", js_err(e)))?;
    let weak: Weak<RefCell<Inner>> = Rc::downgrade(rc);
    let on_msg = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let Some(rc) = weak.upgrade() else { return };
        let Some(ev) = ev.dyn_ref::<MessageEvent>() else { return };
        let resp = match serde_wasm_bindgen::from_value::<Response>(ev.data()) {
            Ok(r) => r,
            Err(e) => {
                Response::Failed { id: rc.borrow().current, message: format!("bad message from the worker: {e}") }
            }
        };
        if resp == Response::Ready {
            let mut inner = rc.borrow_mut();
            inner.ready = true;
            let queue = std::mem::take(&mut inner.queue);
            for q in &queue {
                if let Err(e) = send(&inner, q) {
                    let cb = inner.on_response.clone();
                    let id = inner.current;
                    drop(inner);
                    cb(Response::Failed { id, message: e });
                    return;
                }
            }
            return;
        }
        let cb = rc.borrow().on_response.clone();
        cb(resp);
    });
    let weak: Weak<RefCell<Inner>> = Rc::downgrade(rc);
    let on_err = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let Some(rc) = weak.upgrade() else { return };
        let msg = error_message(&ev);
        let (cb, id) = {
            let mut inner = rc.borrow_mut();
            stop(&mut inner);
            (inner.on_response.clone(), inner.current)
        };
        cb(Response::Failed { id, message: format!("the simulation worker stopped: {msg}") });
    });
    w.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
    w.set_onerror(Some(on_err.as_ref().unchecked_ref()));
    inner.closures = vec![on_msg, on_err];
    inner.worker = Some(w);
    inner.ready = false;
    Ok(())
}

/// Keeps a landed run for a reload: its own entry, then the header with the new count
/// (`Kept`). When the tab's storage is full, keeps only the count of the runs that could
/// not be kept, so that the reloaded page can say so.
fn keep(kept: &mut Kept, result_json: String) {
    if kept.dropped > 0 {
        kept.dropped += 1;
    } else {
        let i = kept.results.len();
        if dom::session_store(&Kept::result_key(i), &result_json) {
            kept.results.push(result_json);
        } else {
            (0..i).for_each(|j| dom::session_remove(&Kept::result_key(j)));
            kept.dropped = i as u32 + 1;
            kept.results.clear();
        }
    }
    dom::session_store(Kept::KEY, &kept.header_text());
}

/// What the pool tells the page about a sweep.
pub enum PoolEvent {
    /// A run moved on (or one landed): where the sweep is.
    Progress {
        id: u32,
        progress: JobProgress,
    },
    /// Runs landed: the report of those in so far, and (points shown, points in all).
    Partial {
        id: u32,
        report: Report,
        points: (u32, u32),
        progress: JobProgress,
    },
    Done {
        id: u32,
        done: crate::model::sweep::SweepDone,
        report: Report,
    },
    Failed {
        id: u32,
        message: String,
    },
    /// Every run has ended but some failed (their worker died): the report of those that
    /// landed, and the failed runs, described. `SweepPool::rerun_failed` runs them again.
    RunsFailed {
        id: u32,
        report: Report,
        points: (u32, u32),
        failed: Vec<String>,
    },
}

/// Page side of a sweep: a pool of workers, each given the next run as it finishes
/// one. Workers are spawned when a sweep needs them and kept for the next sweep;
/// cancelling terminates them all at once.
pub struct SweepPool {
    inner: Rc<RefCell<PoolInner>>,
}

struct Slot {
    key: u32,
    worker: Worker,
    ready: bool,
    busy: bool,
}

struct PoolInner {
    size: u32,
    /// The kind of worker the slots are: the current sweep's (`Engine::of`).
    engine: Engine,
    slots: Vec<Slot>,
    next_key: u32,
    job: Option<SweepJob>,
    /// The current sweep's landed runs as kept for a reload (`Kept::KEY`).
    kept: Kept,
    on_event: Rc<dyn Fn(PoolEvent)>,
    /// Message handlers of live and stopped workers: a stopped worker's may be the one
    /// running, so they are freed only when a sweep starts or is cancelled by the user.
    closures: Vec<Closure<dyn FnMut(JsValue)>>,
    retired: Vec<Closure<dyn FnMut(JsValue)>>,
    /// How many runs may be in flight now (`sweep::Throttle`), and its heartbeat: the
    /// interval's id while a sweep runs, and its handler, made once and kept (it clears
    /// its own interval when the sweep is over, so it must outlive that call).
    throttle: Throttle,
    beat_id: Option<i32>,
    beat: Option<Closure<dyn FnMut()>>,
}

impl SweepPool {
    pub fn new(size: u32, on_event: impl Fn(PoolEvent) + 'static) -> SweepPool {
        SweepPool {
            inner: Rc::new(RefCell::new(PoolInner {
                size: size.max(1),
                engine: Engine::Plain,
                slots: Vec::new(),
                next_key: 0,
                job: None,
                kept: Kept::default(),
                on_event: Rc::new(on_event),
                closures: Vec::new(),
                retired: Vec::new(),
                throttle: Throttle::new(size.max(1), 0, 0.0),
                beat_id: None,
                beat: None,
            })),
        }
    }

    /// Starts sweep `id`, stopping any other; answers arrive through the callback.
    pub fn start(&self, id: u32, experiment_json: String) -> Result<(), String> {
        // The runs a reload interrupted are not run again: the sweep resumes from them
        // (a whole sweep kept is run again, as asked).
        let stored = Kept::stored_runs(dom::session_stored) as usize;
        let mut kept = Kept::load_for(&experiment_json, dom::session_stored)
            .unwrap_or_else(|| Kept { experiment_json: experiment_json.clone(), ..Kept::default() });
        kept.dropped = 0;
        let job = match SweepJob::resume(id, experiment_json.clone(), &kept.results) {
            Ok(job) if !job.is_complete() => job,
            _ => {
                kept.results.clear();
                SweepJob::new(id, experiment_json)?
            }
        };
        dom::session_store(Kept::KEY, &kept.header_text());
        // The entries of an earlier sweep beyond this one's.
        (kept.results.len()..stored).for_each(|i| dom::session_remove(&Kept::result_key(i)));
        let engine = Engine::of(&job.experiment_json);
        {
            let mut inner = self.inner.borrow_mut();
            inner.kept = kept;
            // Workers of the other kind go: an experiment with a script runs only in
            // script workers, one without in the smaller plain ones.
            if inner.job.is_some() || inner.engine != engine {
                stop_all(&mut inner);
            }
            inner.engine = engine;
            inner.retired.clear();
            inner.job = Some(job);
            inner.throttle = Throttle::new(inner.size, dom::hardware_concurrency() as u32, dom::now_ms());
        }
        start_beat(&self.inner);
        pump(&self.inner)
    }

    /// Stops the sweep at once, terminating every worker.
    pub fn cancel(&self) {
        let mut inner = self.inner.borrow_mut();
        stop_all(&mut inner);
        inner.retired.clear();
    }

    /// Runs the failed runs of the sweep again (after `PoolEvent::RunsFailed`), on new
    /// workers; the runs that landed stay. False if there is no such sweep.
    pub fn rerun_failed(&self) -> bool {
        let retried = {
            let mut inner = self.inner.borrow_mut();
            match inner.job.as_mut() {
                Some(job) if job.stopped_by_failures() => {
                    job.retry_failed();
                    true
                }
                _ => false,
            }
        };
        if retried {
            start_beat(&self.inner);
            if let Err(e) = pump(&self.inner) {
                fail(&self.inner, e);
            }
        }
        retried
    }

    /// The number of workers; a running sweep grows to it at once and shrinks as
    /// workers finish their runs.
    pub fn set_size(&self, n: u32) {
        self.inner.borrow_mut().size = n.max(1);
        if let Err(e) = pump(&self.inner) {
            fail(&self.inner, e);
        }
    }
}

/// Starts the throttle's heartbeat, unless it beats already.
fn start_beat(rc: &Rc<RefCell<PoolInner>>) {
    let mut inner = rc.borrow_mut();
    if inner.beat_id.is_some() {
        return;
    }
    if inner.beat.is_none() {
        let weak = Rc::downgrade(rc);
        inner.beat = Some(Closure::<dyn FnMut()>::new(move || {
            if let Some(rc) = weak.upgrade() {
                beat(&rc);
            }
        }));
    }
    let Some(w) = dom::window() else { return };
    let Some(cb) = inner.beat.as_ref() else { return };
    inner.beat_id = w
        .set_interval_with_callback_and_timeout_and_arguments_0(cb.as_ref().unchecked_ref(), Throttle::BEAT_MS as i32)
        .ok();
}

/// One heartbeat: the throttle told how late it came; one more run goes out when it may;
/// with no sweep running (none, or one whose runs have all ended, some failed), the
/// heartbeat stops.
fn beat(rc: &Rc<RefCell<PoolInner>>) {
    let more = {
        let mut inner = rc.borrow_mut();
        if inner.job.as_ref().is_none_or(|j| j.stopped_by_failures()) {
            if let (Some(id), Some(w)) = (inner.beat_id.take(), dom::window()) {
                w.clear_interval_with_handle(id);
            }
            return;
        }
        let size = inner.size;
        inner.throttle.beat(dom::now_ms(), size, dom::page_hidden())
    };
    if more {
        if let Err(e) = pump(rc) {
            fail(rc, e);
        }
    }
}

fn stop_all(inner: &mut PoolInner) {
    for s in inner.slots.drain(..) {
        s.worker.set_onmessage(None);
        s.worker.set_onerror(None);
        s.worker.terminate();
    }
    let c = std::mem::take(&mut inner.closures);
    inner.retired.extend(c);
    inner.job = None;
}

/// Stops the sweep and says why.
fn fail(rc: &Rc<RefCell<PoolInner>>, message: String) {
    let (cb, id) = {
        let mut inner = rc.borrow_mut();
        let id = inner.job.as_ref().map(|j| j.id);
        stop_all(&mut inner);
        (inner.on_event.clone(), id)
    };
    if let Some(id) = id {
        cb(PoolEvent::Failed { id, message });
    }
}

/// Spawns workers up to the pool's size while runs wait, retires idle workers beyond
/// it, and hands the next run to every idle worker.
fn pump(rc: &Rc<RefCell<PoolInner>>) -> Result<(), String> {
    let mut inner = rc.borrow_mut();
    let inner = &mut *inner;
    while inner.slots.len() > inner.size as usize {
        let Some(i) = inner.slots.iter().rposition(|s| !s.busy) else { break };
        let s = inner.slots.remove(i);
        s.worker.terminate();
    }
    let Some(job) = inner.job.as_mut() else { return Ok(()) };
    let p = job.progress_now(0.0);
    let waiting = p.runs_total - p.runs_done - job.running() as u32;
    let idle = inner.slots.iter().filter(|s| !s.busy).count() as u32;
    // Workers are spawned as the throttle lets runs go out (each starts by compiling its
    // WebAssembly, on the same cores).
    let limit = inner.throttle.limit(inner.size) as usize;
    let want = limit.min(inner.slots.len() + waiting.saturating_sub(idle) as usize);
    while inner.slots.len() < want {
        let key = inner.next_key;
        inner.next_key += 1;
        let (worker, closures) = spawn_slot(rc, key, inner.engine)?;
        inner.closures.extend(closures);
        inner.slots.push(Slot { key, worker, ready: false, busy: false });
    }
    let now = dom::now_ms();
    let free = limit.saturating_sub(inner.slots.iter().filter(|s| s.busy).count());
    for s in inner.slots.iter_mut().filter(|s| s.ready && !s.busy).take(free) {
        let Some(run) = job.next_run(s.key, now) else { break };
        let req = Request::Run { id: job.id, experiment_json: job.experiment_json.clone(), run };
        let v = serde_wasm_bindgen::to_value(&req).map_err(|e| e.to_string())?;
        s.worker.post_message(&v).map_err(js_err)?;
        s.busy = true;
    }
    Ok(())
}

type Handler = Closure<dyn FnMut(JsValue)>;

fn spawn_slot(rc: &Rc<RefCell<PoolInner>>, key: u32, engine: Engine) -> Result<(Worker, Vec<Handler>), String> {
    let w = Worker::new(engine.url()).map_err(|e| format!("cannot start a simulation worker: {}", js_err(e)))?;
    let weak: Weak<RefCell<PoolInner>> = Rc::downgrade(rc);
    let on_msg = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let Some(rc) = weak.upgrade() else { return };
        let Some(ev) = ev.dyn_ref::<MessageEvent>() else { return };
        match serde_wasm_bindgen::from_value::<Response>(ev.data()) {
            Ok(r) => on_response(&rc, key, r),
            Err(e) => fail(&rc, format!("bad message from a worker: {e}")),
        }
    });
    let weak: Weak<RefCell<PoolInner>> = Rc::downgrade(rc);
    let on_err = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let Some(rc) = weak.upgrade() else { return };
        let msg = error_message(&ev);
        lose_worker(&rc, key, format!("a simulation worker stopped: {msg}"));
    });
    w.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
    w.set_onerror(Some(on_err.as_ref().unchecked_ref()));
    Ok((w, vec![on_msg, on_err]))
}

fn on_response(rc: &Rc<RefCell<PoolInner>>, key: u32, r: Response) {
    // A run failed in its worker (a panic, which aborts the worker next): that run only;
    // the others go on.
    if let Response::Failed { id, message } = &r {
        if rc.borrow().job.as_ref().map(|j| j.id) == Some(*id) {
            lose_worker(rc, key, message.clone());
        }
        return;
    }
    let event = {
        let mut inner = rc.borrow_mut();
        let inner = &mut *inner;
        let current = inner.job.as_ref().map(|j| j.id);
        match r {
            Response::Ready => {
                if let Some(s) = inner.slots.iter_mut().find(|s| s.key == key) {
                    s.ready = true;
                }
                None
            }
            Response::Progress { id, run, sim_ns, run_ns } if Some(id) == current => {
                let job = inner.job.as_mut().expect("current");
                job.progress(key, run, sim_ns, run_ns);
                told(job, dom::now_ms()).map(|e| Next::Tell(Box::new(e)))
            }
            Response::RunDone { id, result_json } if Some(id) == current => {
                if let Some(s) = inner.slots.iter_mut().find(|s| s.key == key) {
                    s.busy = false;
                }
                let job = inner.job.as_mut().expect("current");
                let now = dom::now_ms();
                let landed = job.land(key, &result_json);
                if landed.is_ok() {
                    keep(&mut inner.kept, result_json);
                }
                let job = inner.job.as_mut().expect("current");
                match landed {
                    Err(message) => Some(Next::Tell(Box::new(PoolEvent::Failed { id, message }))),
                    Ok(()) if job.is_complete() => inner.job.take().map(|job| Next::Finish(Box::new(job), now)),
                    Ok(()) if job.stopped_by_failures() => Some(Next::Tell(Box::new(runs_failed(job)))),
                    Ok(()) => told(job, now).map(|e| Next::Tell(Box::new(e))),
                }
            }
            // Stale answers (an earlier sweep's) and Perfetto's.
            _ => None,
        }
    };
    if let Some(Next::Tell(ev)) = &event {
        if let PoolEvent::Failed { message, .. } = &**ev {
            fail(rc, message.clone());
            return;
        }
    }
    // The next run goes to the worker that just finished before the page folds this
    // result in and redraws its charts, so no worker waits for the main thread.
    pump_then_tell(rc, event);
}

/// What the page is to hear after a worker's message.
enum Next {
    Tell(Box<PoolEvent>),
    /// The last run landed: the report and its renderings are to be made.
    Finish(Box<SweepJob>, f64),
}

/// Hands out the runs left (`pump`), then tells the page `next`, if any, in tasks of
/// their own: the worker's message is taken in (a run's result parsed, folded in and
/// kept) in one task, a finished sweep's report and its texts are made in the next, and
/// the page redraws in the one after (Yew renders in the microtasks of the task that
/// dispatches). On two cores shared with eight busy workers a task's wall time is
/// several times its CPU time, so the main thread's work is cut into short tasks.
fn pump_then_tell(rc: &Rc<RefCell<PoolInner>>, next: Option<Next>) {
    if let Err(e) = pump(rc) {
        fail(rc, e);
        return;
    }
    let cb = rc.borrow().on_event.clone();
    match next {
        None => {}
        Some(Next::Tell(ev)) => dom::after_ms(0, move || cb(*ev)),
        Some(Next::Finish(job, now)) => dom::after_ms(0, move || {
            let id = job.id;
            let ev = match job.finish(now) {
                Ok((done, report)) => PoolEvent::Done { id, done, report },
                Err(message) => PoolEvent::Failed { id, message },
            };
            drop(job);
            dom::after_ms(0, move || cb(ev));
        }),
    }
}

fn runs_failed(job: &SweepJob) -> PoolEvent {
    PoolEvent::RunsFailed { id: job.id, report: job.partial_report(), points: job.points(), failed: job.failures() }
}

/// Worker `key` died or its run failed: the worker goes (a new one takes the runs left),
/// its run is set aside as failed, and when nothing is left to run the page hears which
/// runs failed. A worker running nothing of the sweep just goes.
fn lose_worker(rc: &Rc<RefCell<PoolInner>>, key: u32, why: String) {
    let event = {
        let mut inner = rc.borrow_mut();
        if let Some(i) = inner.slots.iter().position(|s| s.key == key) {
            let s = inner.slots.remove(i);
            s.worker.set_onmessage(None);
            s.worker.set_onerror(None);
            s.worker.terminate();
        }
        match inner.job.as_mut() {
            Some(job) => {
                (job.fail_run(key, why) && job.stopped_by_failures()).then(|| Next::Tell(Box::new(runs_failed(job))))
            }
            None => None,
        }
    };
    pump_then_tell(rc, event);
}

/// The event for the page, if it is to hear of `job` now (`SweepJob::tell`).
fn told(job: &mut SweepJob, now: f64) -> Option<PoolEvent> {
    let id = job.id;
    match job.tell(now) {
        Tell::Nothing => None,
        Tell::Progress => Some(PoolEvent::Progress { id, progress: job.progress_now(now) }),
        Tell::Partial => {
            let (points, progress) = (job.points(), job.progress_now(now));
            Some(PoolEvent::Partial { id, report: job.partial_report(), points, progress })
        }
    }
}

/// What a worker's `error` event says, or why it stopped when it says nothing.
fn error_message(ev: &JsValue) -> String {
    ev.dyn_ref::<web_sys::ErrorEvent>()
        .map(|e| e.message())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "it could not be loaded".into())
}
