//! Messages between the page and its simulation workers.
//!
//! A sweep goes to the pool run by run: each worker gets one (kernel, client count,
//! iteration) at a time and answers with its small result. Experiments and run results
//! cross as JSON strings: they hold `u64`s (seeds, counters, the sample's bits) that a
//! JavaScript number cannot carry exactly. The page assembles the report with the
//! library's `ReportBuilder`, so it is the very bytes `Report::to_json()` makes natively.

use serde::{Deserialize, Serialize};

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// Run one run of sweep `id` (which tags every answer, so stale ones are ignored).
    /// A worker keeps the sweep it last parsed, so the next runs of the same `id` skip
    /// the parsing.
    Run { id: u32, experiment_json: String, run: schedsim::RunId },
    /// Record one run's window as a Perfetto trace (`Experiment::perfetto`).
    Perfetto { id: u32, experiment_json: String, ask: crate::perfetto::PerfettoAsk },
    /// Record one run's window for the timeline (`Experiment::record`).
    Timeline { id: u32, experiment_json: String, ask: crate::perfetto::PerfettoAsk },
    /// Kernel A's run with kernel B asked at every wakeup (`Experiment::diff`).
    Diff { id: u32, experiment_json: String, ask: schedsim::diff::DiffAsk },
    /// Import a scheduler trace (`schedsim::sched_trace::import_with`) and make
    /// `experiment_json` replay it (`replay_view::with_trace`). The file's bytes cross as
    /// base64: a JSON string, as every other request's payload. The worker keeps the
    /// trace for the next `ReplayTable`.
    ImportTrace { id: u32, name: String, bytes_b64: String, experiment_json: String },
    /// The observed/simulated table of a replay (`Experiment::compare_with`); the trace
    /// comes again, for a worker that no longer holds it (a new one after a cancel).
    ReplayTable { id: u32, experiment_json: String, name: String, bytes_b64: String },
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
        table: crate::replay_view::ReplayTable,
    },
    Failed {
        id: u32,
        message: String,
    },
}

/// A finished sweep: the report and its text renderings, each made by the library from
/// the same `Report` value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepDone {
    pub id: u32,
    pub report_json: String,
    pub table: String,
    pub samples_csv: String,
    pub counters_csv: String,
    /// Wall time from the first run handed to a worker to the last result.
    pub wall_ms: f64,
    /// Per kernel (its index), each seed patch it switches on and how often the patch's
    /// own branch ran over all the sweep's runs (`RunResult::patched`); not in the report.
    #[serde(default)]
    pub patched: Vec<(u32, schedsim::Switch, u64)>,
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
}
