//! The simulation worker: the worker binary calls [`register`], which listens for
//! [`Request`]s and answers with [`Response`]s. The page side, [`SweepRunner`], owns the
//! `Worker` and cancels a sweep by terminating it: `Experiment::run` is one synchronous
//! call, so a message asking it to stop could not be read until it had finished.

use crate::proto::{Request, Response, SweepDone, PROGRESS_INTERVAL_MS};
use crate::web::dom::js_err;
use schedsim::Experiment;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

/// Where the worker's loader lives, relative to the page (Trunk's `data-loader-shim`).
pub const WORKER_URL: &str = "./worker_loader.js";

thread_local! {
    static CURRENT: Cell<u32> = const { Cell::new(0) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(r: &Response) {
    match serde_wasm_bindgen::to_value(r) {
        Ok(v) => {
            let _ = scope().post_message(&v);
        }
        Err(e) => web_sys::console::error_1(&JsValue::from_str(&format!("worker: cannot send: {e}"))),
    }
}

fn worker_now_ms() -> f64 {
    js_sys::global()
        .dyn_into::<web_sys::WorkerGlobalScope>()
        .ok()
        .and_then(|g| g.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Worker side: install the message handler and say we are ready.
pub fn register() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // Tell the page why before the abort kills the worker.
        post(&Response::Failed { id: CURRENT.with(|c| c.get()), message: format!("the simulator panicked: {info}") });
    }));
    let on_message =
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            match serde_wasm_bindgen::from_value::<Request>(e.data()) {
                Ok(req) => handle(req),
                Err(err) => post(&Response::Failed { id: 0, message: format!("worker: bad request: {err}") }),
            }
        });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&Response::Ready);
}

fn handle(req: Request) {
    match req {
        Request::Sweep { id, experiment_json } => {
            CURRENT.with(|c| c.set(id));
            post(&run_sweep(id, &experiment_json));
        }
        Request::Perfetto { id, experiment_json, ask } => {
            CURRENT.with(|c| c.set(id));
            let r = Experiment::from_json(&experiment_json)
                .and_then(|e| e.perfetto(ask.kernel as usize, ask.clients, ask.iteration, ask.from_ns, ask.to_ns));
            post(&match r {
                Ok(p) => Response::Perfetto { id, json: p.json, events: p.events as u64 },
                Err(e) => Response::Failed { id, message: e.to_string() },
            });
        }
    }
}

fn run_sweep(id: u32, json: &str) -> Response {
    let exp = match Experiment::from_json(json) {
        Ok(e) => e,
        Err(e) => return Response::Failed { id, message: e.to_string() },
    };
    let t0 = worker_now_ms();
    let mut last = f64::MIN;
    let mut progress = |p: schedsim::Progress| {
        let now = worker_now_ms();
        if now - last >= PROGRESS_INTERVAL_MS {
            last = now;
            post(&Response::Progress {
                id,
                runs_done: p.runs_done,
                runs_total: p.runs_total,
                sim_ns: p.sim_ns as f64,
                run_ns: p.run_ns as f64,
            });
        }
        true
    };
    match exp.run(&mut progress) {
        Ok(report) => {
            let wall_ms = worker_now_ms() - t0;
            Response::Done(Box::new(SweepDone {
                id,
                report_json: report.to_json(),
                table: report.mmtests_table(),
                samples_csv: report.samples_csv(),
                counters_csv: report.counters_csv(),
                wall_ms,
            }))
        }
        Err(e) => Response::Failed { id, message: e.to_string() },
    }
}

/// Page side: one worker, spawned lazily, replaced after a cancel or a crash.
pub struct SweepRunner {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    worker: Option<Worker>,
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
                ready: false,
                queue: Vec::new(),
                current: 0,
                on_response: Rc::new(on_response),
                closures: Vec::new(),
            })),
        }
    }

    /// Sends a sweep; answers arrive through the callback.
    pub fn start(&self, id: u32, experiment_json: String) -> Result<(), String> {
        self.request(id, Request::Sweep { id, experiment_json })
    }

    /// Sends any request; answers arrive through the callback.
    pub fn request(&self, id: u32, req: Request) -> Result<(), String> {
        let mut inner = self.inner.borrow_mut();
        inner.current = id;
        if inner.worker.is_none() {
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
    let v = serde_wasm_bindgen::to_value(req).map_err(|e| e.to_string())?;
    w.post_message(&v).map_err(js_err)
}

fn spawn(rc: &Rc<RefCell<Inner>>, inner: &mut Inner) -> Result<(), String> {
    let w = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the simulation worker: {}", js_err(e)))?;
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
        let msg = ev
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "it could not be loaded".into());
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
