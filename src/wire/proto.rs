//! Messages between the page and its simulation workers.
//!
//! A sweep goes to the pool run by run: each worker gets one (kernel, client count,
//! iteration) at a time and answers with its small result. Experiments and run results
//! cross as JSON strings: they hold `u64`s (seeds, counters, the sample's bits) that a
//! JavaScript number cannot carry exactly. The page assembles the report with the
//! library's `ReportBuilder`, so it is the very bytes `Report::to_json()` makes natively.

use serde::{Deserialize, Serialize};

/// A trace file as it goes to a worker: the browser's `Blob` (a picked `File`, or a
/// bundled trace's fetched body) itself, which a message copies as a handle, not as its
/// bytes; the worker reads it a piece at a time (`FileReaderSync`). The page never holds
/// the bytes, and they cross once, into the worker's importer. A `Blob` cannot go through
/// serde inside a tagged enum, so it rides beside the request: [`Request::files`] are
/// put in the message's `files` array, and [`Request::files_mut`] take them back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceFile(pub Option<FileHandle>);

#[cfg(target_arch = "wasm32")]
pub type FileHandle = web_sys::Blob;
/// Natively (the crate's tests) there is no `Blob`.
#[cfg(not(target_arch = "wasm32"))]
pub type FileHandle = ();

/// The message property the files of a request ride in.
pub const FILES_KEY: &str = "files";

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// Run one run of sweep `id` (which tags every answer, so stale ones are ignored).
    /// A worker keeps the sweep it last parsed, so the next runs of the same `id` skip
    /// the parsing.
    Run { id: u32, experiment_json: String, run: schedsim::RunId },
    /// Record one run's window as a Perfetto trace (`Experiment::perfetto`).
    Perfetto { id: u32, experiment_json: String, ask: crate::model::perfetto::PerfettoAsk },
    /// Record one run's window for the timeline (`Experiment::record`).
    Timeline { id: u32, experiment_json: String, ask: crate::model::perfetto::PerfettoAsk },
    /// Kernel A's run with kernel B asked at every wakeup (`Experiment::diff`).
    Diff { id: u32, experiment_json: String, ask: schedsim::diff::DiffAsk },
    /// Import a scheduler trace (`schedsim::sched_trace::import_read`, reading `file` a
    /// piece at a time) and make `experiment_json` replay it (`replay::with_trace`). The
    /// worker keeps the trace for the next `ReplayTable`.
    ImportTrace {
        id: u32,
        name: String,
        #[serde(skip)]
        file: TraceFile,
        experiment_json: String,
    },
    /// The observed/simulated table of a replay (`Experiment::compare_with`); the trace
    /// comes again, for a worker that no longer holds it (a new one after a cancel).
    ReplayTable {
        id: u32,
        experiment_json: String,
        name: String,
        #[serde(skip)]
        file: TraceFile,
    },
    /// Two real traces side by side (`schedsim::api::trace_vs`), each read on its own
    /// CPU count as one LLC, as `schedsim replay A --vs B` without a machine: A is the
    /// trace the worker holds if its SHA-256 is `a_sha256`, else `a_file` imported again.
    CompareTraces {
        id: u32,
        a_name: String,
        a_sha256: String,
        #[serde(skip)]
        a_file: TraceFile,
        b_name: String,
        #[serde(skip)]
        b_file: TraceFile,
    },
    /// Compile a policy script (`schedsim::check_policy`), for the kernel card's editor;
    /// only the script worker has the engine.
    CheckPolicy { id: u32, source: String },
    /// Start live mode's session `id` (`live::LiveSession`, kept by the worker
    /// in place of any other) on `kernel` with `clients` and the iteration's stream;
    /// answered by its first `Live` frame.
    LiveStart { id: u32, experiment_json: String, kernel: u32, clients: u32, iteration: u32 },
    /// Do `op` on live session `id`; answered by a `Live` frame.
    Live { id: u32, op: crate::model::live::LiveOp },
}

impl Request {
    /// The experiment this request runs, if it runs one.
    pub fn experiment_json(&self) -> Option<&str> {
        match self {
            Request::Run { experiment_json, .. }
            | Request::Perfetto { experiment_json, .. }
            | Request::Timeline { experiment_json, .. }
            | Request::Diff { experiment_json, .. }
            | Request::ImportTrace { experiment_json, .. }
            | Request::ReplayTable { experiment_json, .. }
            | Request::LiveStart { experiment_json, .. } => Some(experiment_json),
            Request::CheckPolicy { .. } | Request::Live { .. } | Request::CompareTraces { .. } => None,
        }
    }

    /// The trace files this request carries, in order (they ride beside it: [`TraceFile`]).
    pub fn files(&self) -> Vec<&TraceFile> {
        match self {
            Request::ImportTrace { file, .. } | Request::ReplayTable { file, .. } => vec![file],
            Request::CompareTraces { a_file, b_file, .. } => vec![a_file, b_file],
            _ => Vec::new(),
        }
    }

    /// [`Request::files`], to be filled in by the worker.
    pub fn files_mut(&mut self) -> Vec<&mut TraceFile> {
        match self {
            Request::ImportTrace { file, .. } | Request::ReplayTable { file, .. } => vec![file],
            Request::CompareTraces { a_file, b_file, .. } => vec![a_file, b_file],
            _ => Vec::new(),
        }
    }

    /// Which worker answers this request.
    /// `None` for a live op: it goes to the worker that holds its session, whichever
    /// kind `LiveStart` spawned.
    pub fn engine(&self) -> Option<Engine> {
        match self {
            Request::CheckPolicy { .. } => Some(Engine::Script),
            Request::Live { .. } => None,
            r => Some(r.experiment_json().map(Engine::of).unwrap_or(Engine::Plain)),
        }
    }
}

/// Which of the two simulation workers runs an experiment: the plain one, or the script
/// worker (the same worker built with the policy-script engine), which the page loads
/// only when an experiment has a kernel with a policy script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Plain,
    Script,
}

impl Engine {
    /// The script worker if any kernel of `experiment_json` has a policy script; the
    /// plain worker otherwise, and for text that does not parse (it says why).
    pub fn of(experiment_json: &str) -> Engine {
        match schedsim::Experiment::parse_json(experiment_json) {
            Ok(e) if e.kernels.iter().any(|k| k.policy.is_some()) => Engine::Script,
            _ => Engine::Plain,
        }
    }

    /// The worker's loader, relative to the page (Trunk's `data-loader-shim`).
    pub fn url(self) -> &'static str {
        match self {
            Engine::Plain => "./worker_loader.js",
            Engine::Script => "./policy-worker_loader.js",
        }
    }
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Response {
    /// The worker's WebAssembly is instantiated and it listens.
    Ready,
    /// Run `run` of sweep `id` has simulated `sim_ns` of `run_ns`.
    Progress {
        id: u32,
        run: schedsim::RunId,
        sim_ns: f64,
        run_ns: f64,
    },
    /// A run's `schedsim::RunResult`, as JSON.
    RunDone {
        id: u32,
        result_json: String,
    },
    /// A Perfetto trace's JSON, as the library wrote it.
    Perfetto {
        id: u32,
        json: String,
        events: u64,
    },
    /// A timeline recording (`schedsim::recording::Recording`), as JSON.
    Timeline {
        id: u32,
        recording_json: String,
    },
    /// A `schedsim::diff::DiffReport`, as JSON.
    Diff {
        id: u32,
        report_json: String,
    },
    /// An import has read `read_bytes` of the trace's text (after any gunzip).
    ImportProgress {
        id: u32,
        read_bytes: f64,
    },
    /// A trace imported: the experiment replaying it, the import summary's lines and
    /// what changed besides the workload.
    Imported {
        id: u32,
        name: String,
        sha256: String,
        experiment_json: String,
        summary: Vec<String>,
        notes: Vec<String>,
    },
    /// A replay's observed/simulated table.
    ReplayTable {
        id: u32,
        table: crate::model::replay::ReplayTable,
    },
    /// Two traces compared.
    TraceVs {
        id: u32,
        table: crate::model::replay::TraceVsTable,
    },
    /// A policy script compiled (`error` is `None`), or the compiler's one line.
    PolicyChecked {
        id: u32,
        error: Option<String>,
    },
    /// A live session's `live::LiveFrame`, as JSON (its counters are `u64`s).
    Live {
        id: u32,
        frame_json: String,
    },
    Failed {
        id: u32,
        message: String,
    },
}

/// Emit progress at most this often: enough for a smooth bar, few enough messages.
pub const PROGRESS_INTERVAL_MS: f64 = 100.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_json() {
        let run = schedsim::RunId { kernel: 1, point: 2, iteration: 0 };
        let r = Response::Progress { id: 3, run, sim_ns: 5e6, run_ns: 1e8 };
        let s = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Response>(&s).unwrap(), r);
        let q = Request::Run { id: 1, experiment_json: "{}".into(), run };
        let s = serde_json::to_string(&q).unwrap();
        assert!(s.contains("\"type\":\"Run\""));
        assert_eq!(serde_json::from_str::<Request>(&s).unwrap(), q);
    }

    #[test]
    fn an_experiment_with_a_script_goes_to_the_script_worker() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        let run = schedsim::RunId { kernel: 0, point: 0, iteration: 0 };
        let plain = Request::Run { id: 1, experiment_json: e.to_json(), run };
        assert_eq!(plain.engine(), Some(Engine::Plain));
        e.kernels[1].policy = Some(schedsim::policy::template("always-prev").unwrap().into());
        let scripted = Request::Run { id: 1, experiment_json: e.to_json(), run };
        assert_eq!(scripted.engine(), Some(Engine::Script));
        assert_eq!(Request::CheckPolicy { id: 2, source: String::new() }.engine(), Some(Engine::Script));
        let live = Request::LiveStart { id: 3, experiment_json: e.to_json(), kernel: 1, clients: 2, iteration: 0 };
        assert_eq!(live.engine(), Some(Engine::Script));
        let op = Request::Live { id: 3, op: crate::model::live::LiveOp::Step };
        assert_eq!(op.engine(), None, "a live op stays on its session's worker");
        assert_eq!(Engine::of("not json"), Engine::Plain);
        assert_ne!(Engine::Plain.url(), Engine::Script.url());
    }

    #[test]
    fn without_the_engine_a_script_validates_by_size_and_its_run_fails_never_unscripted() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        e.duration_ms = 20;
        e.clients = vec![2];
        e.kernels[1].policy = Some(schedsim::policy::template("always-prev").unwrap().into());
        e.validate().unwrap();
        let r = e.run(&mut |_| true);
        // The page's build (and this crate's tests alone) have no engine; a workspace
        // build that unifies schedsim's `policy` on runs the script.
        if !schedsim::POLICY_ENGINE {
            let err = r.unwrap_err().to_string();
            assert!(err.contains(schedsim::NO_ENGINE), "{err}");
            e.kernels[1].policy = Some("x".repeat(schedsim::policy::POLICY_SOURCE_MAX + 1));
            assert!(e.validate().err().unwrap().to_string().contains("kernels[1].policy"));
        } else {
            r.unwrap();
        }
    }
}
