//! Replaying a trace: the import and the observed/simulated table run in a worker of
//! their own (a 10 MB trace takes seconds to read, and a sweep need not wait for it).
//! The page holds the last trace imported as the browser's `Blob` (the file picked, or a
//! bundled trace's fetched body), never its bytes: the worker reads it a piece at a
//! time, and again after a cancel; the experiment holds the programs made from it.

use crate::model::replay::{self, ReplayTable, TraceVsTable, TRACE_FILE_BYTES_MAX};
use crate::state::{Action, State, Sweep};
use crate::web::dom::{self, js_err};
use crate::web::pool::SweepRunner;
use crate::wire::proto::{Request, Response, TraceFile};
use schedsim::Experiment;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// Where the last import stands.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportStatus {
    Idle,
    /// Fetching a bundled trace.
    Reading {
        name: String,
    },
    /// In the worker; `read_bytes` of its text read so far.
    Importing {
        name: String,
        read_bytes: f64,
    },
    Done {
        name: String,
        sha256: String,
        summary: Vec<String>,
        notes: Vec<String>,
    },
    Failed {
        name: String,
        message: String,
    },
    Cancelled {
        name: String,
    },
}

impl ImportStatus {
    pub fn busy(&self) -> bool {
        matches!(self, ImportStatus::Reading { .. } | ImportStatus::Importing { .. })
    }

    /// The file this import is of, if one was chosen.
    pub fn file_name(&self) -> Option<&str> {
        match self {
            ImportStatus::Idle => None,
            ImportStatus::Reading { name }
            | ImportStatus::Importing { name, .. }
            | ImportStatus::Done { name, .. }
            | ImportStatus::Failed { name, .. }
            | ImportStatus::Cancelled { name } => Some(name),
        }
    }
}

/// The table of the sweep result `result_id`.
#[derive(Clone, Debug, PartialEq)]
pub enum TableStatus {
    Running { result_id: u32 },
    Done { result_id: u32, table: ReplayTable },
    Failed { result_id: u32, message: String },
}

/// A second trace compared with the one imported (`schedsim replay A --vs B`).
#[derive(Clone, Debug, PartialEq)]
pub enum VsStatus {
    Comparing { name: String, read_bytes: f64 },
    Done { name: String, table: TraceVsTable },
    Failed { name: String, message: String },
    Cancelled { name: String },
}

impl VsStatus {
    pub fn busy(&self) -> bool {
        matches!(self, VsStatus::Comparing { .. })
    }
}

/// The trace the page holds: the last file imported.
#[derive(Clone)]
struct Held {
    name: String,
    sha256: String,
    file: web_sys::Blob,
}

/// What the replay control and the table need.
#[derive(Clone, PartialEq)]
pub struct Replay {
    pub import: ImportStatus,
    pub table: Option<TableStatus>,
    /// (name, SHA-256) of the trace the page holds.
    pub held: Option<(String, String)>,
    /// The second trace's comparison with the held one, if one was asked.
    pub vs: Option<VsStatus>,
    /// A second trace picked or dropped, to compare with the held one.
    pub on_vs_file: Callback<web_sys::File>,
    /// A file picked or dropped.
    pub on_file: Callback<web_sys::File>,
    /// A bundled trace: (same-origin URL, file name, run the sweep once imported).
    pub on_fetch: Callback<(String, String, bool)>,
    pub on_cancel: Callback<()>,
}

#[derive(Default)]
struct Refs {
    exp: Option<Experiment>,
    /// The file of the import in flight, by request id, and whether to run when done.
    pending: Option<(u32, String, web_sys::Blob, bool)>,
    held: Option<Held>,
    /// The table's request: (request id, result id).
    table_req: Option<(u32, u32)>,
    /// The comparison's request: (request id, B's name).
    vs_req: Option<(u32, String)>,
    seq: u32,
}

/// The replay's worker, its import status and its table; `state` is read at each
/// render (the experiment an import starts from, the sweep a table belongs to).
#[hook]
pub fn use_replay(state: &UseReducerHandle<State>, dispatch: Callback<Action>) -> Replay {
    let import = use_state(|| ImportStatus::Idle);
    let table = use_state(|| None::<TableStatus>);
    let held = use_state(|| None::<(String, String)>);
    let vs = use_state(|| None::<VsStatus>);
    let refs = use_mut_ref(Refs::default);
    refs.borrow_mut().exp = Some(state.exp.clone());
    let runner = {
        let hs = Handles { import: import.clone(), table: table.clone(), held: held.clone(), vs: vs.clone() };
        let (refs, d) = (refs.clone(), dispatch.clone());
        use_memo((), move |_| Rc::new(SweepRunner::new(move |r| on_response(r, &hs, &refs, &d))))
    };
    // The table, once a replay's sweep is done and the page holds its trace.
    {
        let (runner, refs, table) = (runner.clone(), refs.clone(), table.clone());
        let done = match &state.sweep {
            Sweep::Done(r) if r.report.experiment == state.exp => Some(r.done.id),
            _ => None,
        };
        let want = done.filter(|_| replay::replay_of(&state.exp).is_some_and(|p| !p.is_reference()));
        let sha = (*held).as_ref().map(|h| h.1.clone());
        let exp = state.exp.clone();
        use_effect_with((want, sha), move |(want, sha)| {
            let (Some(result_id), Some(sha)) = (*want, sha.clone()) else { return };
            if replay::replay_of(&exp).map(|p| p.trace_sha256.as_str()) != Some(sha.as_str()) {
                return;
            }
            let mut r = refs.borrow_mut();
            let Some(h) = r.held.clone().filter(|h| h.sha256 == sha) else { return };
            r.seq += 1;
            let id = r.seq;
            r.table_req = Some((id, result_id));
            drop(r);
            table.set(Some(TableStatus::Running { result_id }));
            let req = Request::ReplayTable {
                id,
                experiment_json: exp.to_json(),
                name: h.name.clone(),
                file: TraceFile(Some(h.file.clone())),
            };
            if let Err(message) = runner.request(id, req) {
                table.set(Some(TableStatus::Failed { result_id, message }));
            }
        });
    }
    let start = {
        let (runner, refs, import) = (runner.clone(), refs.clone(), import.clone());
        // The file itself to the worker, which reads it.
        Rc::new(move |name: String, file: web_sys::Blob, run: bool| {
            let mut r = refs.borrow_mut();
            r.seq += 1;
            let id = r.seq;
            r.pending = Some((id, name.clone(), file.clone(), run));
            let exp_json = r.exp.as_ref().map(|e| e.to_json()).unwrap_or_default();
            drop(r);
            import.set(ImportStatus::Importing { name: name.clone(), read_bytes: 0.0 });
            let req =
                Request::ImportTrace { id, name: name.clone(), file: TraceFile(Some(file)), experiment_json: exp_json };
            if let Err(message) = runner.request(id, req) {
                import.set(ImportStatus::Failed { name, message });
            }
        })
    };
    // A link's reference form (opened, or brought back by Back) whose trace the page
    // still holds: import it again, without asking for the file.
    {
        let (start, refs) = (start.clone(), refs.clone());
        let wanted = replay::reference_of(&state.exp).map(|r| r.trace_sha256.clone());
        use_effect_with(wanted, move |wanted| {
            let Some(sha) = wanted else { return };
            let h = refs.borrow().held.clone().filter(|h| &h.sha256 == sha);
            if let Some(h) = h {
                start(h.name, h.file, false);
            }
        });
    }
    let on_file = {
        let (start, import) = (start.clone(), import.clone());
        use_callback((), move |f: web_sys::File, _| {
            let name = f.name();
            if let Some(message) = too_large(&f) {
                import.set(ImportStatus::Failed { name, message });
                return;
            }
            start(name, f.into(), false);
        })
    };
    // B: read in the worker and compared there with the held trace A.
    let on_vs_file = {
        let (runner, refs, vs) = (runner.clone(), refs.clone(), vs.clone());
        use_callback((), move |f: web_sys::File, _| {
            let name = f.name();
            if let Some(message) = too_large(&f) {
                vs.set(Some(VsStatus::Failed { name, message }));
                return;
            }
            let mut r = refs.borrow_mut();
            let Some(a) = r.held.clone() else {
                return vs.set(Some(VsStatus::Failed { name, message: "import a trace (A) first".into() }));
            };
            r.seq += 1;
            let id = r.seq;
            r.vs_req = Some((id, name.clone()));
            drop(r);
            vs.set(Some(VsStatus::Comparing { name: name.clone(), read_bytes: 0.0 }));
            let req = Request::CompareTraces {
                id,
                a_name: a.name,
                a_sha256: a.sha256,
                a_file: TraceFile(Some(a.file)),
                b_name: name.clone(),
                b_file: TraceFile(Some(f.into())),
            };
            if let Err(message) = runner.request(id, req) {
                vs.set(Some(VsStatus::Failed { name, message }));
            }
        })
    };
    let on_fetch = {
        let (start, import) = (start.clone(), import.clone());
        use_callback((), move |(url, name, run): (String, String, bool), _| {
            import.set(ImportStatus::Reading { name: name.clone() });
            let (start, import) = (start.clone(), import.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_blob(&url).await {
                    Ok(b) => start(name, b, run),
                    Err(message) => import.set(ImportStatus::Failed { name, message }),
                }
            });
        })
    };
    let on_cancel = {
        let (runner, refs, import, table, vs) =
            (runner.clone(), refs.clone(), import.clone(), table.clone(), vs.clone());
        use_callback((), move |_: (), _| {
            runner.cancel();
            let mut r = refs.borrow_mut();
            if let Some((_, name, _, _)) = r.pending.take() {
                import.set(ImportStatus::Cancelled { name });
            }
            if let Some((_, result_id)) = r.table_req.take() {
                table.set(Some(TableStatus::Failed { result_id, message: "cancelled".into() }));
            }
            if let Some((_, name)) = r.vs_req.take() {
                vs.set(Some(VsStatus::Cancelled { name }));
            }
        })
    };
    Replay {
        import: (*import).clone(),
        table: (*table).clone(),
        held: (*held).clone(),
        vs: (*vs).clone(),
        on_vs_file,
        on_file,
        on_fetch,
        on_cancel,
    }
}

/// The states the worker's answers set.
struct Handles {
    import: UseStateHandle<ImportStatus>,
    table: UseStateHandle<Option<TableStatus>>,
    held: UseStateHandle<Option<(String, String)>>,
    vs: UseStateHandle<Option<VsStatus>>,
}

/// Why the page will not read `f`, if it will not.
fn too_large(f: &web_sys::File) -> Option<String> {
    (f.size() > TRACE_FILE_BYTES_MAX as f64).then(|| {
        format!(
            "the file is {:.1} GB; a trace is at most {} GB of text (TRACE_BYTES_MAX)",
            f.size() / 1e9,
            TRACE_FILE_BYTES_MAX as f64 / 1e9
        )
    })
}

fn on_response(r: Response, hs: &Handles, refs: &Rc<RefCell<Refs>>, dispatch: &Callback<Action>) {
    let Handles { import, table, held, vs } = hs;
    let mut rf = refs.borrow_mut();
    let pending_id = rf.pending.as_ref().map(|p| p.0);
    let table_req = rf.table_req;
    let vs_req = rf.vs_req.clone();
    match r {
        Response::ImportProgress { id, read_bytes } if vs_req.as_ref().map(|q| q.0) == Some(id) => {
            let name = vs_req.map(|q| q.1).unwrap_or_default();
            vs.set(Some(VsStatus::Comparing { name, read_bytes }));
        }
        Response::TraceVs { id, table: t } if vs_req.as_ref().map(|q| q.0) == Some(id) => {
            rf.vs_req = None;
            let name = vs_req.map(|q| q.1).unwrap_or_default();
            vs.set(Some(VsStatus::Done { name, table: t }));
        }
        Response::ImportProgress { id, read_bytes } if Some(id) == pending_id => {
            let name = rf.pending.as_ref().map(|p| p.1.clone()).unwrap_or_default();
            import.set(ImportStatus::Importing { name, read_bytes });
        }
        Response::Imported { id, name, sha256, experiment_json, summary, notes } if Some(id) == pending_id => {
            let Some((_, _, file, run)) = rf.pending.take() else { return };
            match Experiment::from_json(&experiment_json) {
                Ok(e) => {
                    rf.held = Some(Held { name: name.clone(), sha256: sha256.clone(), file });
                    // A comparison was of the trace this one replaces.
                    rf.vs_req = None;
                    drop(rf);
                    held.set(Some((name.clone(), sha256.clone())));
                    vs.set(None);
                    import.set(ImportStatus::Done { name, sha256, summary, notes });
                    dispatch.emit(Action::SetExperiment(Box::new(e)));
                    if run {
                        dispatch.emit(Action::RequestRun);
                    }
                }
                Err(e) => import.set(ImportStatus::Failed { name, message: e.to_string() }),
            }
        }
        Response::ReplayTable { id, table: t } if table_req.map(|q| q.0) == Some(id) => {
            rf.table_req = None;
            let result_id = table_req.map(|q| q.1).unwrap_or(0);
            table.set(Some(TableStatus::Done { result_id, table: t }));
        }
        Response::Failed { id, message } => {
            if Some(id) == pending_id {
                let name = rf.pending.take().map(|p| p.1).unwrap_or_default();
                import.set(ImportStatus::Failed { name, message });
            } else if table_req.map(|q| q.0) == Some(id) {
                rf.table_req = None;
                let result_id = table_req.map(|q| q.1).unwrap_or(0);
                table.set(Some(TableStatus::Failed { result_id, message }));
            } else if vs_req.as_ref().map(|q| q.0) == Some(id) {
                rf.vs_req = None;
                let name = vs_req.map(|q| q.1).unwrap_or_default();
                vs.set(Some(VsStatus::Failed { name, message }));
            }
        }
        _ => {}
    }
}

/// The body at a same-origin URL (the bundled traces), as a `Blob`.
async fn fetch_blob(url: &str) -> Result<web_sys::Blob, String> {
    let w = dom::window().ok_or("no window")?;
    let resp = JsFuture::from(w.fetch_with_str(url)).await.map_err(|e| format!("cannot fetch {url}: {}", js_err(e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| format!("cannot fetch {url}"))?;
    if !resp.ok() {
        return Err(format!("cannot fetch {url}: HTTP {}", resp.status()));
    }
    let blob = JsFuture::from(resp.blob().map_err(js_err)?).await.map_err(js_err)?;
    blob.dyn_into().map_err(|_| format!("cannot fetch {url}: the body is no Blob"))
}
