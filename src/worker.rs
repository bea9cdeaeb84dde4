//! Inside a simulation worker, the floor the worker binaries run and the page never
//! imports: the message handler [`register`] installs, and what each [`Request`] runs
//! (a sweep's run, a Perfetto or timeline recording, an A/B diff, a trace's import and
//! replay table, a policy script's compile check, live mode's session), each answered by
//! one [`Response`] (a run also with its progress).

use crate::model::live::{LiveKey, LiveOp, LiveSession};
use crate::wire::proto::{Request, Response, TraceFile, FILES_KEY, PROGRESS_INTERVAL_MS};
use schedsim::sched_trace::Trace;
use schedsim::{Experiment, RunId, Sweep};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    static CURRENT: Cell<u32> = const { Cell::new(0) };
    /// Live mode's session in this worker, by id.
    static LIVE: RefCell<Option<(u32, LiveSession)>> = const { RefCell::new(None) };
    /// The sweep this worker last ran a run of, parsed and resolved.
    static SWEEP: RefCell<Option<(u32, Rc<Sweep>)>> = const { RefCell::new(None) };
    /// The trace this worker imported last (`Request::ImportTrace`).
    static TRACE: RefCell<Option<Rc<Trace>>> = const { RefCell::new(None) };
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
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        match request_of(&e.data()) {
            Ok(req) => handle(req),
            // Failed as the request's own, so that the page's waiting ends.
            Err(err) => {
                let id = js_sys::Reflect::get(&e.data(), &JsValue::from_str("id"))
                    .ok()
                    .and_then(|v| v.as_f64())
                    .map_or(0, |v| v as u32);
                post(&Response::Failed { id, message: format!("worker: bad request: {err}") })
            }
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&Response::Ready);
}

/// The request a message holds, with its trace files taken from beside it
/// (`proto::TraceFile`).
fn request_of(data: &JsValue) -> Result<Request, String> {
    let mut req = serde_wasm_bindgen::from_value::<Request>(data.clone()).map_err(|e| e.to_string())?;
    let files = js_sys::Reflect::get(data, &JsValue::from_str(FILES_KEY)).map_err(|_| "no files".to_string())?;
    let files: Vec<JsValue> = if files.is_undefined() { Vec::new() } else { js_sys::Array::from(&files).to_vec() };
    let slots = req.files_mut();
    if slots.len() != files.len() {
        return Err(format!("{} trace files for a request of {}", files.len(), slots.len()));
    }
    for (slot, f) in slots.into_iter().zip(files) {
        slot.0 = Some(f.dyn_into::<web_sys::Blob>().map_err(|_| "a trace file that is no Blob".to_string())?);
    }
    Ok(req)
}

fn handle(req: Request) {
    match req {
        Request::Run { id, experiment_json, run } => {
            CURRENT.with(|c| c.set(id));
            post(&run_one(id, &experiment_json, run));
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
        Request::Timeline { id, experiment_json, ask } => {
            CURRENT.with(|c| c.set(id));
            let r = Experiment::from_json(&experiment_json)
                .and_then(|e| e.record(ask.kernel as usize, ask.clients, ask.iteration, ask.from_ns, ask.to_ns));
            post(&match r.map(|r| serde_json::to_string(&r)) {
                Ok(Ok(recording_json)) => Response::Timeline { id, recording_json },
                Ok(Err(e)) => Response::Failed { id, message: format!("cannot encode the recording: {e}") },
                Err(e) => Response::Failed { id, message: e.to_string() },
            });
        }
        Request::ImportTrace { id, name, file, experiment_json } => {
            CURRENT.with(|c| c.set(id));
            post(&import_trace(id, &name, &file, &experiment_json));
        }
        Request::ReplayTable { id, experiment_json, name, file } => {
            CURRENT.with(|c| c.set(id));
            post(&replay_table(id, &experiment_json, &name, &file));
        }
        Request::CompareTraces { id, a_name, a_sha256, a_file, b_name, b_file } => {
            CURRENT.with(|c| c.set(id));
            post(&compare_traces(id, (&a_name, &a_sha256, &a_file), (&b_name, &b_file)));
        }
        Request::CheckPolicy { id, source } => {
            CURRENT.with(|c| c.set(id));
            post(&Response::PolicyChecked { id, error: schedsim::check_policy(&source).err() });
        }
        Request::LiveStart { id, experiment_json, kernel, clients, iteration } => {
            CURRENT.with(|c| c.set(id));
            post(&live_start(id, &experiment_json, kernel, clients, iteration));
        }
        Request::Live { id, op } => {
            CURRENT.with(|c| c.set(id));
            post(&live_op(id, &op));
        }
        Request::Diff { id, experiment_json, ask } => {
            CURRENT.with(|c| c.set(id));
            let r = Experiment::from_json(&experiment_json).and_then(|e| e.diff(&ask));
            post(&match r.map(|d| serde_json::to_string(&d)) {
                Ok(Ok(report_json)) => Response::Diff { id, report_json },
                Ok(Err(e)) => Response::Failed { id, message: format!("cannot encode the diff: {e}") },
                Err(e) => Response::Failed { id, message: e.to_string() },
            });
        }
    }
}

/// Wall time a frame of playing or of a jump may run in the worker, ms: about a
/// display frame, so that the page hears of progress at its frame rate.
const LIVE_FRAME_BUDGET_MS: f64 = 12.0;

/// Starts live session `id` in place of any other this worker holds: its first frame.
fn live_start(id: u32, json: &str, kernel: u32, clients: u32, iteration: u32) -> Response {
    LIVE.with(|l| *l.borrow_mut() = None);
    let experiment = match Experiment::from_json(json) {
        Ok(e) => e,
        Err(e) => return Response::Failed { id, message: e.to_string() },
    };
    match LiveSession::new(LiveKey { experiment, kernel, clients, iteration }) {
        Ok(mut s) => {
            s.sync_timeline();
            let r = live_frame(id, &mut s, false);
            LIVE.with(|l| *l.borrow_mut() = Some((id, s)));
            r
        }
        Err(message) => Response::Failed { id, message },
    }
}

/// `op` on live session `id`, and the frame after it.
fn live_op(id: u32, op: &LiveOp) -> Response {
    LIVE.with(|l| {
        let mut l = l.borrow_mut();
        match l.as_mut() {
            Some((i, s)) if *i == id => {
                let done = s.apply(op, LIVE_FRAME_BUDGET_MS, &worker_now_ms);
                live_frame(id, s, done)
            }
            _ => Response::Failed { id, message: format!("this worker holds no live session {id} (it was replaced)") },
        }
    })
}

fn live_frame(id: u32, s: &mut LiveSession, done: bool) -> Response {
    match serde_json::to_string(&s.frame(done)) {
        Ok(frame_json) => Response::Live { id, frame_json },
        Err(e) => Response::Failed { id, message: format!("cannot encode a live frame: {e}") },
    }
}

/// Most bytes of a gzip trace file the worker reads: it holds the compressed bytes whole
/// (and inflates them a window at a time), in a wasm32 memory of at most 4 GiB.
const GZIP_FILE_BYTES_MAX: f64 = (1u64 << 30) as f64;

/// A `Blob` read a piece at a time (`FileReaderSync`, which a worker has): the bytes
/// cross from the browser into the importer once, and no more of them than a piece is
/// held here.
struct BlobReader {
    blob: web_sys::Blob,
    at: f64,
    reader: web_sys::FileReaderSync,
}

impl std::io::Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let end = (self.at + buf.len() as f64).min(self.blob.size());
        if end <= self.at {
            return Ok(0);
        }
        let piece = self.blob.slice_with_f64_and_f64(self.at, end).map_err(io_err)?;
        let bytes = js_sys::Uint8Array::new(&self.reader.read_as_array_buffer(&piece).map_err(io_err)?.into());
        let n = (bytes.length() as usize).min(buf.len());
        bytes.subarray(0, n as u32).copy_to(&mut buf[..n]);
        self.at += n as f64;
        Ok(n)
    }
}

fn io_err(e: JsValue) -> std::io::Error {
    std::io::Error::other(e.as_string().unwrap_or_else(|| format!("{e:?}")))
}

/// `file` imported, with progress posted as request `id`'s.
fn import_file(id: u32, name: &str, file: &TraceFile) -> Result<Trace, String> {
    let blob = file.0.clone().ok_or("the trace file did not reach the worker")?;
    let reader = web_sys::FileReaderSync::new().map_err(|e| format!("cannot read the file here: {}", io_err(e)))?;
    let mut r = BlobReader { blob, at: 0.0, reader };
    if r.blob.size() > GZIP_FILE_BYTES_MAX {
        let mut magic = [0u8; 2];
        let _ = std::io::Read::read(&mut r, &mut magic);
        if magic == [0x1f, 0x8b] {
            return Err(format!(
                "trace {name}: a gzip file of {:.1} GB; the page inflates gzip files of at most {} GB (it holds \
                 the compressed bytes): gunzip it first, or import it with `schedsim replay`",
                r.blob.size() / 1e9,
                GZIP_FILE_BYTES_MAX / 1e9
            ));
        }
        r.at = 0.0;
    }
    let mut last = worker_now_ms();
    let mut progress = |read: u64| {
        let now = worker_now_ms();
        if now - last >= PROGRESS_INTERVAL_MS {
            last = now;
            post(&Response::ImportProgress { id, read_bytes: read as f64 });
        }
        true
    };
    schedsim::sched_trace::import_read(&mut r, name, &mut progress).map_err(|e| e.to_string())
}

/// The trace this worker imported last, if it has `sha256`; otherwise `file` imported
/// now (and kept).
fn trace_of(id: u32, name: &str, file: &TraceFile, sha256: Option<&str>) -> Result<Rc<Trace>, String> {
    if let Some(t) = TRACE.with(|c| c.borrow().as_ref().filter(|t| Some(t.sha256.as_str()) == sha256).cloned()) {
        return Ok(t);
    }
    let t = Rc::new(import_file(id, name, file)?);
    TRACE.with(|c| *c.borrow_mut() = Some(t.clone()));
    Ok(t)
}

fn import_trace(id: u32, name: &str, file: &TraceFile, experiment_json: &str) -> Response {
    // Not `from_json`: a link's reference form does not validate until the trace is in.
    let exp = match Experiment::parse_json(experiment_json) {
        Ok(e) => e,
        Err(e) => return Response::Failed { id, message: e.to_string() },
    };
    let trace = match trace_of(id, name, file, None) {
        Ok(t) => t,
        Err(message) => return Response::Failed { id, message },
    };
    match crate::model::replay::with_trace(&exp, &trace) {
        Ok(w) => Response::Imported {
            id,
            name: trace.name.clone(),
            sha256: trace.sha256.clone(),
            experiment_json: w.experiment.to_json(),
            summary: trace.summary.lines(),
            notes: w.notes,
        },
        Err(message) => Response::Failed { id, message },
    }
}

fn replay_table(id: u32, experiment_json: &str, name: &str, file: &TraceFile) -> Response {
    let exp = match Experiment::from_json(experiment_json) {
        Ok(e) => e,
        Err(e) => return Response::Failed { id, message: e.to_string() },
    };
    let sha = crate::model::replay::replay_of(&exp).map(|p| p.trace_sha256.clone());
    let trace = match trace_of(id, name, file, sha.as_deref()) {
        Ok(t) => t,
        Err(message) => return Response::Failed { id, message },
    };
    match exp.compare_with(&trace) {
        Ok(c) => Response::ReplayTable { id, table: crate::model::replay::ReplayTable::of(&c) },
        Err(e) => Response::Failed { id, message: e.to_string() },
    }
}

/// Two traces side by side: A (kept, as the replay's trace is) and B (imported for this
/// answer only), each on its own CPU count as one LLC.
fn compare_traces(id: u32, a: (&str, &str, &TraceFile), b: (&str, &TraceFile)) -> Response {
    use schedsim::api::trace_vs::{compare_on, own_machine};
    let ta = match trace_of(id, a.0, a.2, Some(a.1)) {
        Ok(t) => t,
        Err(message) => return Response::Failed { id, message },
    };
    let tb = match import_file(id, b.0, b.1) {
        Ok(t) => t,
        Err(message) => return Response::Failed { id, message },
    };
    match compare_on(&ta, &own_machine(&ta), &tb, &own_machine(&tb)) {
        Ok(v) => Response::TraceVs { id, table: crate::model::replay::TraceVsTable::of(&v) },
        Err(message) => Response::Failed { id, message },
    }
}

fn sweep_of(id: u32, json: &str) -> Result<Rc<Sweep>, String> {
    if let Some(s) = SWEEP.with(|c| c.borrow().as_ref().filter(|(i, _)| *i == id).map(|(_, s)| s.clone())) {
        return Ok(s);
    }
    let exp = Experiment::from_json(json).map_err(|e| e.to_string())?;
    let s = Rc::new(Sweep::new(&exp).map_err(|e| e.to_string())?);
    SWEEP.with(|c| *c.borrow_mut() = Some((id, s.clone())));
    Ok(s)
}

fn run_one(id: u32, json: &str, run: RunId) -> Response {
    let sweep = match sweep_of(id, json) {
        Ok(s) => s,
        Err(message) => return Response::Failed { id, message },
    };
    let run_ns = sweep.experiment().duration_ms as f64 * 1e6;
    let mut last = worker_now_ms();
    let mut progress = |t: u64| {
        let now = worker_now_ms();
        if now - last >= PROGRESS_INTERVAL_MS {
            last = now;
            post(&Response::Progress { id, run, sim_ns: t as f64, run_ns });
        }
        true
    };
    match sweep.run(run, &mut progress, schedsim::experiment::Checks::Off) {
        Ok(r) => match serde_json::to_string(&r) {
            Ok(result_json) => Response::RunDone { id, result_json },
            Err(e) => Response::Failed { id, message: format!("cannot encode a run's result: {e}") },
        },
        Err(e) => Response::Failed { id, message: e.to_string() },
    }
}
