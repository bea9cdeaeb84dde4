//! Replaying a real scheduler trace in the page: what an imported trace does to the
//! experiment, what a link carries of it, and the observed/simulated table as the page
//! draws it. Pure, so it is tested natively; the import itself and the table's runs
//! happen in the web worker (`proto::Request::ImportTrace`, `Request::ReplayTable`).
//!
//! A link cannot carry a 10 MB trace, nor always the programs made from it. When the
//! replay's programs are small ([`LINK_REPLAY_JSON_MAX`]) the link carries them and
//! runs by itself; otherwise it carries the reference form (`ReplayParams::reference`:
//! the trace's name and SHA-256, no programs), and the page that opens it asks for the
//! file and refuses any file whose SHA-256 differs. A link is never run against another
//! trace without saying so.

use schedsim::experiment::Experiment;
use schedsim::replay::Comparison;
use schedsim::sched_trace::Trace;
use schedsim::topology::Topology;
use schedsim::workload::{ReplayParams, Workload};
use serde::{Deserialize, Serialize};

/// Largest replay workload (its JSON, bytes) a link carries whole; a larger one goes
/// into links as its reference form. 64 KiB of program text compresses to well under
/// the link's own bound (`permalink::FRAGMENT_LEN_MAX`), which is checked too.
pub const LINK_REPLAY_JSON_MAX: usize = 64 * 1024;

/// Largest trace file the page reads: the library's bound on the text, as the worker
/// reads the file a piece at a time (`schedsim::sched_trace::import_read`) and the page
/// holds only its `Blob` (a gzip file has a lower bound in the worker, which holds its
/// compressed bytes).
pub const TRACE_FILE_BYTES_MAX: u64 = schedsim::sched_trace::TRACE_BYTES_MAX;

/// The replay of `exp`, if its workload is one.
pub fn replay_of(exp: &Experiment) -> Option<&ReplayParams> {
    match &exp.workload {
        Workload::Replay(p) => Some(p),
        _ => None,
    }
}

/// The reference form `exp` holds (a link's replay without its programs), if any.
pub fn reference_of(exp: &Experiment) -> Option<&ReplayParams> {
    replay_of(exp).filter(|p| p.is_reference())
}

/// Bytes of the replay workload's JSON (0 for another workload).
pub fn replay_json_len(exp: &Experiment) -> usize {
    replay_of(exp).and_then(|p| serde_json::to_string(p).ok()).map(|s| s.len()).unwrap_or(0)
}

/// Whether a link carries `exp`'s replay programs whole ([`LINK_REPLAY_JSON_MAX`]).
pub fn link_carries_programs(exp: &Experiment) -> bool {
    replay_json_len(exp) <= LINK_REPLAY_JSON_MAX
}

/// `exp` with its replay in the reference form (unchanged if it is not a replay).
pub fn as_reference(exp: &Experiment) -> Experiment {
    let mut e = exp.clone();
    if let Workload::Replay(p) = &exp.workload {
        e.workload = Workload::Replay(p.reference());
    }
    e
}

/// "abcdef012345…": the first 12 hex digits, as the library's messages write them.
pub fn short_sha(sha: &str) -> String {
    format!("{}…", sha.get(..12).unwrap_or(sha))
}

/// Why a trace is refused for `exp`, if it is: `exp` replays another trace by
/// reference (a link's), so `trace` cannot fill its programs in.
pub fn refusal(exp: &Experiment, name: &str, sha256: &str) -> Option<String> {
    let r = reference_of(exp)?;
    (r.trace_sha256 != sha256).then(|| {
        format!(
            "{name} (sha256 {}) is not the trace this experiment replays: it replays {} (sha256 {}). Load that \
             file, or choose another benchmark first to replay a different trace.",
            short_sha(sha256),
            r.trace_name,
            short_sha(&r.trace_sha256)
        )
    })
}

/// What importing a trace made of the experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct WithTrace {
    pub experiment: Experiment,
    /// What changed besides the workload, in sentences (the machine grown, the
    /// duration set), for the page to say.
    pub notes: Vec<String>,
}

/// `exp` replaying `trace`. A reference form of the same trace gets its programs back
/// and keeps the link's settings (machine, duration, everything); a reference to
/// another trace is refused. Otherwise the workload becomes the trace's replay with the
/// duration and warm-up of `Experiment::replay_of` (a trace is a finite piece of work,
/// replayed whole), and a machine with fewer CPUs than the trace becomes one LLC of
/// that many single-thread cores (the preset's costs stay), as the CLI's `replay` does.
pub fn with_trace(exp: &Experiment, trace: &Trace) -> Result<WithTrace, String> {
    if let Some(why) = refusal(exp, &trace.name, &trace.sha256) {
        return Err(why);
    }
    let mut e = exp.clone();
    let mut notes = Vec::new();
    if let Some(r) = reference_of(exp) {
        e.workload = Workload::Replay(ReplayParams { tasks: trace.replay_params().tasks, ..r.clone() });
        notes.push(format!(
            "{} has the SHA-256 the link names: its programs are back, with the link's settings.",
            trace.name
        ));
    } else if replay_of(exp).is_some_and(|p| p.trace_sha256 == trace.sha256) {
        // The same trace again (a link that carried its programs): keep them.
        notes.push(format!("{} is the trace this experiment replays: nothing changed.", trace.name));
    } else {
        let nr_cpus = e.machine.effective_topology().map(|t| t.cpu_count() as u32).unwrap_or(0);
        if nr_cpus < trace.cpus {
            let spec = format!("1x1x{}x1", trace.cpus.max(1));
            let t = Topology::parse_spec(&spec).map_err(|err| err.0)?;
            e.machine.set_topology(t);
            notes.push(format!(
                "The machine had {nr_cpus} CPUs and the trace names {}: it is now {spec} (one LLC, no SMT, the \
                 preset's costs). Give the traced machine's topology above for a closer replay.",
                trace.cpus
            ));
        }
        let model = Experiment::replay_of(trace, e.machine.clone(), e.kernels.clone());
        e.workload = model.workload;
        e.duration_ms = model.duration_ms;
        e.warmup_ms = 0;
        // The name the CLI gives it (the form's name field may change it after).
        e.name = model.name.chars().take(80).collect();
        notes.push(format!(
            "The workload is now the replay of {} ({} tasks); duration {} ms ({} times the traced span, so a slower \
             kernel still finishes), no warm-up. Client counts are copies of the trace.",
            trace.name,
            trace.tasks.len(),
            e.duration_ms,
            schedsim::replay::REPLAY_SPAN_FACTOR
        ));
    }
    let nr_cpus = e.machine.effective_topology().map(|t| t.cpu_count() as u32).unwrap_or(0);
    trace.check_cpus(nr_cpus).map_err(|err| err.to_string())?;
    e.validate().map_err(|err| err.to_string())?;
    Ok(WithTrace { experiment: e, notes })
}

/// The observed/simulated table as the page draws it: the rows of
/// `Comparison::table()`, cell for cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayTable {
    /// The trace, its size and the machine (`Comparison::title`).
    pub title: String,
    /// "observed", then each kernel's name.
    pub head: Vec<String>,
    pub rows: Vec<(String, Vec<String>)>,
    /// The text table, for copying.
    pub text: String,
    /// CPUs of the traced machine.
    pub trace_cpus: u32,
}

impl ReplayTable {
    pub fn of(c: &Comparison) -> ReplayTable {
        let (head, rows) = c.rows();
        ReplayTable { title: c.title(), head, rows, text: c.table(), trace_cpus: c.trace_cpus }
    }

    /// The rows as the page shows them on a machine of `nr_cpus` CPUs: where that is
    /// not the traced machine's count, a simulated placement cannot be "the same CPU as
    /// the machine", and those rows say so instead of a percentage.
    pub fn rows_on(&self, nr_cpus: u32) -> Vec<(String, Vec<String>)> {
        let mut rows = self.rows.clone();
        if nr_cpus != self.trace_cpus {
            for (name, cells) in &mut rows {
                if name.trim_start().starts_with("same CPU as the machine") || name.trim_start() == "before divergence"
                {
                    for c in cells.iter_mut().skip(1) {
                        *c = "other machine".into();
                    }
                }
            }
        }
        rows
    }
}

/// Two real traces side by side as the page draws them (`TraceVs`'s rows, cell for
/// cell, and its text, the very text `schedsim replay A --vs B` prints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceVsTable {
    /// "A: name (N CPUs, ms, sha256 …)" and B's.
    pub heads: Vec<String>,
    /// Why the machines differ, if they do.
    pub machines_differ: Option<String>,
    /// (statistic, A, B, B vs A).
    pub rows: Vec<(String, String, String, String)>,
    /// (task name, wakeups/s A, B, B vs A, delay p50 A, B).
    pub names: Vec<[String; 6]>,
    pub names_left_out: usize,
    pub text: String,
}

impl TraceVsTable {
    pub fn of(v: &schedsim::api::trace_vs::TraceVs) -> TraceVsTable {
        let text = v.table();
        TraceVsTable {
            heads: text.lines().take(2).map(String::from).collect(),
            machines_differ: v.machines_differ.clone(),
            rows: v.rows(),
            names: v.name_rows(),
            names_left_out: v.names_left_out,
            text,
        }
    }
}

/// A replay run on a machine with another CPU count than the traced one: what the page
/// says at the table, and the ways back to the trace's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct OtherMachine {
    pub note: String,
    /// Machine presets with the trace's CPU count.
    pub presets: Vec<&'static str>,
    /// One LLC of the trace's CPU count, single-thread cores (this machine's costs).
    pub spec: String,
}

/// What to say when `exp` replays a trace of `trace_cpus` CPUs on a machine of
/// another count (`None` when the counts agree).
pub fn other_machine(exp: &Experiment, trace_cpus: u32) -> Option<OtherMachine> {
    let nr_cpus = exp.machine.effective_topology().map(|t| t.cpu_count() as u32).ok()?;
    (nr_cpus != trace_cpus && trace_cpus > 0).then(|| OtherMachine {
        note: format!(
            "Replayed on {nr_cpus} CPUs; the trace was recorded on {trace_cpus}. The simulated columns are another \
             machine than the observed one: CPU busy share, migrations by distance and placements compare two \
             machines, and \"same CPU as the machine\" cannot be said."
        ),
        presets: schedsim::machine::machines()
            .into_iter()
            .filter(|m| m.topology.cpu_count() == trace_cpus as u64)
            .map(|m| m.name)
            .collect(),
        spec: format!("1x1x{trace_cpus}x1"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAKE: &[u8] = include_bytes!("../../traces/make.perf.txt.gz");
    const DBENCH: &[u8] = include_bytes!("../../traces/dbench.perf.txt.gz");

    fn demo() -> Experiment {
        schedsim::presets::experiment("demo").expect("the demo preset")
    }

    fn trace(bytes: &[u8], name: &str) -> Trace {
        schedsim::sched_trace::import(bytes, name).expect("a bundled trace imports")
    }

    #[test]
    fn importing_makes_the_replay_and_grows_a_small_machine() {
        let t = trace(MAKE, "make.perf.txt.gz");
        let mut small = demo();
        small.machine.set_topology(Topology::parse_spec("1x1x1x1").unwrap());
        let w = with_trace(&small, &t).unwrap();
        assert_eq!(replay_of(&w.experiment), Some(&t.replay_params()));
        assert_eq!(w.experiment.machine.effective_topology().unwrap().spec().as_deref(), Some("1x1x2x1"));
        assert!(w.notes[0].contains("it is now 1x1x2x1"), "{:?}", w.notes);
        assert_eq!(w.experiment.warmup_ms, 0);
        // The same duration as the CLI's `schedsim replay`, so the table's numbers agree.
        let cli = Experiment::replay_of(&t, w.experiment.machine.clone(), w.experiment.kernels.clone());
        assert_eq!(w.experiment.duration_ms, cli.duration_ms);
        // A machine as large as the trace's stays.
        let big = demo();
        let w = with_trace(&big, &t).unwrap();
        assert_eq!(w.experiment.machine, big.machine);
    }

    #[test]
    fn a_reference_takes_back_its_own_trace_and_refuses_another() {
        let d = trace(DBENCH, "dbench.perf.txt.gz");
        let mut full = with_trace(&demo(), &d).unwrap().experiment;
        full.seed = 7;
        full.duration_ms = 1234;
        let r = as_reference(&full);
        // The right file: the programs come back and the link's settings stay.
        let back = with_trace(&r, &d).unwrap();
        assert_eq!(back.experiment, full);
        // Another file, even under the same name: refused, naming both.
        let other = trace(MAKE, "dbench.perf.txt.gz");
        let why = with_trace(&r, &other).unwrap_err();
        assert!(why.contains(&short_sha(&other.sha256)) && why.contains(&short_sha(&d.sha256)), "{why}");
        assert!(why.contains("is not the trace this experiment replays"), "{why}");
        assert_eq!(refusal(&r, &d.name, &d.sha256), None);
        // With the whole replay (not a reference), any trace may replace it.
        assert!(with_trace(&full, &other).is_ok());
    }

    #[test]
    fn random_bytes_and_a_cut_trace_give_messages() {
        let mut cut = MAKE.to_vec();
        cut.truncate(MAKE.len() / 2);
        for (bytes, name) in [(&cut[..], "cut.gz"), (&b"\x00\x01garbage\xff"[..], "junk.txt"), (&b""[..], "empty.txt")]
        {
            match schedsim::sched_trace::import(bytes, name) {
                Err(e) => assert!(e.to_string().starts_with(&format!("trace {name}")), "{e}"),
                Ok(t) => {
                    // A gzip cut short may still give a trace (the summary says so).
                    assert!(t.summary.gzip_truncated || with_trace(&demo(), &t).is_err(), "{name}");
                }
            }
        }
    }

    #[test]
    fn the_table_has_the_rows_of_the_text_table() {
        let t = trace(MAKE, "make.perf.txt.gz");
        let mut e = with_trace(&demo(), &t).unwrap().experiment;
        e.kernels.truncate(1);
        let c = e.compare_with(&t).unwrap();
        let tab = ReplayTable::of(&c);
        assert_eq!(tab.text, c.table());
        assert_eq!(tab.head.len(), 2);
        for (name, cells) in &tab.rows {
            let line = tab.text.lines().find(|l| l.starts_with(name.as_str())).expect("the row is in the text");
            assert_eq!(
                line.split_whitespace().rev().take(1).next(),
                cells.last().and_then(|c| c.split_whitespace().last())
            );
        }
        assert!(tab.rows.iter().any(|(n, _)| n == "replay throughput (x rec.)"));
        // On the traced machine's CPU count the rows are the table's; on another, the
        // placement rows say why they are not compared.
        assert_eq!(tab.trace_cpus, 2);
        assert_eq!(tab.rows_on(2), tab.rows);
        let other = tab.rows_on(8);
        let same = other.iter().find(|(n, _)| n == "same CPU as the machine").unwrap();
        assert_eq!(same.1[1], "other machine");
        assert_eq!(other.iter().find(|(n, _)| n == "wakeups"), tab.rows.iter().find(|(n, _)| n == "wakeups"));
    }

    #[test]
    fn a_replay_on_another_cpu_count_says_so_and_offers_the_traces_shape() {
        let t = trace(MAKE, "make.perf.txt.gz");
        let e = with_trace(&demo(), &t).unwrap().experiment;
        let n = e.machine.effective_topology().unwrap().cpu_count();
        assert!(n > 2);
        let o = other_machine(&e, t.cpus).expect("the demo's machine is not the traced 2 CPUs");
        assert!(o.note.starts_with(&format!("Replayed on {n} CPUs; the trace was recorded on 2.")), "{}", o.note);
        assert!(o.presets.contains(&"kvm-2"), "{:?}", o.presets);
        assert_eq!(o.spec, "1x1x2x1");
        let mut two = e.clone();
        two.machine.set_topology(Topology::parse_spec("1x1x2x1").unwrap());
        assert_eq!(other_machine(&two, t.cpus), None);
    }
}
