//! Messages between the page and the simulation worker.
//!
//! Experiments and reports cross as JSON strings: the experiment holds `u64` seeds that
//! a JavaScript number cannot carry exactly, and the report must reach the page as the
//! very bytes `Report::to_json()` produced, so nothing re-serialises it.

use serde::{Deserialize, Serialize};

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Request {
    /// Run a whole sweep. `id` tags every answer so stale ones can be ignored.
    Sweep { id: u32, experiment_json: String },
    /// Record one run's window as a Perfetto trace (`Experiment::perfetto`).
    Perfetto { id: u32, experiment_json: String, ask: crate::perfetto::PerfettoAsk },
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Response {
    /// The worker's WebAssembly is instantiated and it listens.
    Ready,
    Progress {
        id: u32,
        runs_done: u32,
        runs_total: u32,
        sim_ns: f64,
        run_ns: f64,
    },
    Done(Box<SweepDone>),
    /// A Perfetto trace's JSON, as the library wrote it.
    Perfetto {
        id: u32,
        json: String,
        events: u64,
    },
    Failed {
        id: u32,
        message: String,
    },
}

/// A finished sweep: the report and its text renderings, each made by the library in
/// the worker from the same `Report` value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepDone {
    pub id: u32,
    pub report_json: String,
    pub table: String,
    pub samples_csv: String,
    pub counters_csv: String,
    /// Wall time of `Experiment::run` inside the worker.
    pub wall_ms: f64,
}

/// Emit progress at most this often: enough for a smooth bar, few enough messages.
pub const PROGRESS_INTERVAL_MS: f64 = 100.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_json() {
        let r = Response::Progress { id: 3, runs_done: 1, runs_total: 4, sim_ns: 5e6, run_ns: 1e8 };
        let s = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Response>(&s).unwrap(), r);
        let q = Request::Sweep { id: 1, experiment_json: "{}".into() };
        assert!(serde_json::to_string(&q).unwrap().contains("\"type\":\"Sweep\""));
    }
}
