//! Fuzzing the scheduler-trace importer with the bundled traces of `traces/` spoilt at
//! random: the text cut anywhere or at a line, bytes flipped, lines swapped, deleted or
//! doubled, numbers made huge; and the gzip file itself cut or flipped. Each case ends
//! in a trace or in an error that names its line (or, for the file as a whole, the
//! gzip layer or the missing events), never a panic, within a time bound. What is
//! accepted must not be wrong:
//!
//! - a gzip file with a flipped byte is refused, or reads to the very text of the
//!   original (its CRC-32 is checked), or is said to be cut;
//! - a text cut at a line reads to no more events than the whole;
//! - the trace is consistent: one program per task, every wakeup's tasks and CPUs in
//!   range, wakeups in the order of their switch-ins, its replay experiment valid (or refused naming the
//!   field) and, shortened, run with the invariant checker after every event.
//!
//! The figures (cases, outcomes by class, worst time and memory) are printed.

mod campaign;

use campaign::campaign;
use proptest::prelude::*;
use schedsim::experiment::{Checks, MachineSpec};
use schedsim::kernel::KernelVersion;
use schedsim::sched_trace::{import, import_read, Trace, TraceError};
use schedsim::{Experiment, KernelSpec, TopologyInput};
use std::collections::BTreeMap;
use std::time::Duration;

/// Most wall time one case may take (import, validation and the shortened run).
const CASE_TIME_MAX: Duration = Duration::from_secs(20);
const CASES: u32 = 600;
/// Lines kept of each trace: the campaign spoils the start of each, not its bulk.
const LINES_KEPT: usize = 2500;

/// The bundled traces: every text form the importer reads (perf key=value in µs and
/// ns, the libtraceevent plugin form of two perf releases) and several workloads.
const TRACES: &[&str] = &[
    "make.perf.txt.gz",
    "pipe.perf-ns.txt.gz",
    "pipe.perf-plugin.txt.gz",
    "pipe.perf-plugin-perf61.txt.gz",
    "dbench.perf.txt.gz",
    "messaging.perf.txt.gz",
    "tbench.perf.txt.gz",
];

/// The text of a bundled gzip file (RFC 1952: the header's optional fields skipped).
fn gunzip(gz: &[u8]) -> Vec<u8> {
    let flg = gz[3];
    let mut at = 10;
    if flg & 4 != 0 {
        at += 2 + u16::from_le_bytes([gz[at], gz[at + 1]]) as usize;
    }
    for flag in [8, 16] {
        if flg & flag != 0 {
            at += gz[at..].iter().position(|&c| c == 0).expect("a NUL-ended header field") + 1;
        }
    }
    if flg & 2 != 0 {
        at += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(&gz[at..]).map_err(|e| e.status).expect("a bundled trace inflates")
}

struct Base {
    name: &'static str,
    /// The file as bundled (gzip).
    gz: Vec<u8>,
    /// The first `LINES_KEPT` lines of its text.
    text: Vec<u8>,
    events: u64,
}

fn bases() -> Vec<Base> {
    TRACES
        .iter()
        .map(|name| {
            let path = format!("{}/../../traces/{name}", env!("CARGO_MANIFEST_DIR"));
            let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let full = gunzip(&gz);
            let cut = full
                .iter()
                .enumerate()
                .filter(|(_, &c)| c == b'\n')
                .nth(LINES_KEPT - 1)
                .map_or(full.len(), |(i, _)| i + 1);
            let text = full[..cut].to_vec();
            let events = import(&text, name).unwrap_or_else(|e| panic!("{name}: {e}")).summary.events.values().sum();
            Base { name, gz, text, events }
        })
        .collect()
}

/// What the trace campaigns count besides the common outcomes.
#[derive(Default, Debug)]
struct More {
    /// Accepted traces whose replay experiment was refused, by field.
    replay_refused: BTreeMap<String, u64>,
    largest_accepted_text: usize,
}

type Tally = campaign::Tally<More>;

/// The common figures and the trace campaigns' own.
fn report(t: &Tally, name: &str) {
    let replay_refused = t.more.replay_refused.values().sum::<u64>();
    t.report(
        name,
        CASES,
        &format!(
            " (replayed {}, largest accepted text {} bytes), accepted traces whose replay was refused by field {:?}",
            t.accepted - replay_refused,
            t.more.largest_accepted_text,
            t.more.replay_refused
        ),
    );
}

/// The class of a refusal: what it names, and the start of its reason.
fn class(e: &TraceError) -> String {
    let reason: String = e.message.split([':', '(', ',']).next().unwrap_or("").chars().take(48).collect();
    let reason = reason.trim_end();
    // Numbers in a reason ("CPU 9000", "gzip trailer gives 123 bytes") do not make a class.
    let reason: String = reason.chars().map(|c| if c.is_ascii_digit() { 'N' } else { c }).collect();
    let reason = reason.split("NN").next().unwrap_or(&reason).to_string();
    match e.line {
        Some(_) => format!("line: {reason}"),
        None => format!("file: {reason}"),
    }
}

/// A refusal names its line (within the text), or it is about the file as a whole: its
/// gzip layer, its size, or that it has no scheduler events at all.
fn check_refusal(e: &TraceError, lines: usize) {
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "error of more than one line: {msg}");
    assert!(msg.chars().count() <= 600, "error of {} characters", msg.chars().count());
    match e.line {
        Some(l) => assert!(l >= 1 && l as usize <= lines + 1, "line {l} of {lines}: {msg}"),
        None => assert!(
            ["gzip", "empty", "no sched_switch or sched_waking events", "TRACE_BYTES_MAX", "compressed"]
                .iter()
                .any(|w| msg.contains(w)),
            "an error about the whole file that names no line: {msg}"
        ),
    }
}

/// An accepted trace is consistent, and its replay is valid or refused naming the
/// field; a valid one runs, shortened, with the invariant checker.
fn check_accepted(t: &Trace, tally: &mut Tally) {
    let n = t.tasks.len() as u32;
    assert_eq!(t.tasks.len(), t.programs.len(), "one program per task");
    assert!(t.cpus >= 1 && t.cpus <= 4096, "{} CPUs", t.cpus);
    let ran = |w: &schedsim::recording::WakeRecord| w.time_ns + w.run_delay_ns;
    assert!(t.wakes.windows(2).all(|w| ran(&w[0]) <= ran(&w[1])), "wakeups out of the order of their switch-ins");
    for w in &t.wakes {
        assert!(
            w.wakee < n && w.waker.is_none_or(|k| k < n),
            "a wakeup of task {} (waker {:?}) of {n}",
            w.wakee,
            w.waker
        );
        assert!(
            w.waker_cpu < t.cpus && w.ran_cpu < t.cpus && w.last_cpu.is_none_or(|c| c < t.cpus),
            "a CPU past {}",
            t.cpus
        );
        assert!(w.time_ns >= t.start_ns && w.time_ns - t.start_ns <= t.span_ns, "a wakeup outside the span");
    }
    assert_eq!(t.summary.tasks, n);
    assert_eq!(t.summary.span_ns, t.span_ns);
    let machine = MachineSpec {
        preset: None,
        topology: Some(TopologyInput::Spec(format!("1x1x{}x1", t.cpus))),
        costs: None,
        preempt: None,
    };
    let kernels = vec![KernelSpec::new("a", KernelVersion::V6_6)];
    let mut exp = Experiment::replay_of(t, machine, kernels);
    match exp.validate() {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("field "), "a replay refused naming no field: {msg}");
            let field: String = msg["field ".len()..].split([':', '[']).next().unwrap_or("").to_string();
            *tally.more.replay_refused.entry(field).or_default() += 1;
        }
        Ok(_) => {
            exp.duration_ms = 2;
            match exp.run_with(&mut |_| true, Checks::Invariants) {
                Ok(r) => assert_eq!(r.configs.len(), 1),
                Err(e) => panic!("an accepted trace's replay failed to run: {e}"),
            }
        }
    }
}

/// One spoiling of the text: (kind, position, pick).
type Spoil = (u8, u32, u16);

const HUGE: &[&str] = &[
    "99999999999999999999",
    "18446744073709551616",
    "18446744073709551615",
    "4294967296",
    "4294967295",
    "2147483648",
    "65536",
    "-1",
    "0",
    "00000000000000000000000000000000001",
];

fn lines_of(text: &[u8]) -> Vec<Vec<u8>> {
    text.split_inclusive(|&c| c == b'\n').map(<[u8]>::to_vec).collect()
}

/// Applies `s` to `text`; says whether it only cut the text at a line's end.
fn spoil(text: &mut Vec<u8>, &(kind, pos, pick): &Spoil) -> bool {
    if text.is_empty() {
        return false;
    }
    let at = pos as usize % text.len();
    match kind % 7 {
        0 => text.truncate(at),
        1 => {
            let end = text[..at].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            text.truncate(end);
            return true;
        }
        2 => text[at] ^= (pick as u8).max(1),
        3 => {
            let mut lines = lines_of(text);
            let i = at % lines.len();
            // A neighbour (reordering) or a line far away.
            let j = if pick % 2 == 0 { (i + 1) % lines.len() } else { pick as usize % lines.len() };
            lines.swap(i, j);
            *text = lines.concat();
        }
        4 => {
            // One run of digits (a time, pid, prio or CPU) made huge, negative or zero.
            let start = (at..text.len()).find(|&i| text[i].is_ascii_digit());
            if let Some(s) = start {
                let end = (s..text.len()).find(|&i| !text[i].is_ascii_digit()).unwrap_or(text.len());
                let w = HUGE[pick as usize % HUGE.len()].as_bytes();
                text.splice(s..end, w.iter().copied());
            }
        }
        5 => {
            let mut lines = lines_of(text);
            let i = at % lines.len();
            if pick % 2 == 0 {
                lines.remove(i);
            } else {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            *text = lines.concat();
        }
        _ => {
            // A long line: one line repeated inside itself.
            let mut lines = lines_of(text);
            let i = at % lines.len();
            let l = lines[i].clone();
            lines[i] =
                l.iter().copied().filter(|&c| c != b'\n').cycle().take(l.len() * (pick as usize % 500 + 2)).collect();
            lines[i].push(b'\n');
            *text = lines.concat();
        }
    }
    false
}

/// A reader that gives `bytes` a few at a time, in pieces of 1 to 13 bytes that change
/// with every read (so that every line end, `\r\n` pair and gzip magic falls across a
/// piece's edge in some case), as a file or a browser's `Blob` may.
struct Dribble<'a> {
    bytes: &'a [u8],
    reads: usize,
}

impl std::io::Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reads += 1;
        let n = (self.reads * 7 % 13 + 1).min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Imports `bytes`, checks the outcome as above, and counts it. The same bytes read as
/// a stream (`import_read`) must give the very same trace or error.
fn one_case(bytes: &[u8], lines: usize, tally: &mut Tally) -> Option<Trace> {
    let whole = import(bytes, "spoilt.txt");
    let streamed = import_read(&mut Dribble { bytes, reads: 0 }, "spoilt.txt", &mut |_| true);
    assert!(whole == streamed, "read whole and read as a stream, the same bytes import differently");
    match whole {
        Err(e) => {
            check_refusal(&e, lines);
            tally.refuse(class(&e));
            None
        }
        Ok(t) => {
            check_accepted(&t, tally);
            tally.accepted += 1;
            tally.more.largest_accepted_text = tally.more.largest_accepted_text.max(bytes.len());
            Some(t)
        }
    }
}

#[test]
fn spoilt_trace_texts_are_refused_at_their_line_or_read_right() {
    let bases = bases();
    let strategy = (0..bases.len(), prop::collection::vec((any::<u8>(), any::<u32>(), any::<u16>()), 1..4));
    let t = campaign("trace texts", CASES, CASE_TIME_MAX, strategy, |(b, spoils), tally: &mut Tally| {
        let base = &bases[b];
        let mut text = base.text.clone();
        let mut only_line_cuts = true;
        for s in &spoils {
            only_line_cuts &= spoil(&mut text, s);
        }
        let lines = text.iter().filter(|&&c| c == b'\n').count() + 1;
        if let Some(t) = one_case(&text, lines, tally) {
            if only_line_cuts {
                let events: u64 = t.summary.events.values().sum();
                assert!(
                    events <= base.events,
                    "{}: a cut text read {events} events, the whole {}",
                    base.name,
                    base.events
                );
                assert!(!t.summary.truncated_last_line, "a cut at a line's end is not a cut line");
            }
        }
    });
    report(&t, "trace texts");
}

/// Every bundled trace, gzip and text, plain and with `\r\n` line ends, read as a stream
/// a few bytes at a time is the trace read whole.
#[test]
fn a_trace_read_as_a_stream_is_the_trace_read_whole() {
    for base in bases() {
        let crlf: Vec<u8> =
            base.text.iter().flat_map(|&c| if c == b'\n' { vec![b'\r', b'\n'] } else { vec![c] }).collect();
        for bytes in [&base.gz, &base.text, &crlf] {
            let whole = import(bytes, base.name).unwrap();
            let streamed = import_read(&mut Dribble { bytes, reads: 0 }, base.name, &mut |_| true).unwrap();
            assert!(whole == streamed, "{}: read as a stream, another trace", base.name);
        }
    }
}

#[test]
fn spoilt_gzip_files_are_refused_or_read_whole_or_said_cut() {
    let bases = bases();
    let base = &bases[0]; // make.perf.txt.gz: 31 KB
    let whole = import(&base.gz, base.name).unwrap();
    let full_text = gunzip(&base.gz);
    let strategy = (any::<bool>(), any::<u32>(), 1u8..=255);
    let t = campaign("trace gzip files", CASES, CASE_TIME_MAX, strategy, |(cut, pos, x), tally: &mut Tally| {
        let mut gz = base.gz.clone();
        let at = pos as usize % gz.len();
        if cut {
            gz.truncate(at);
        } else {
            gz[at] ^= x;
        }
        let lines = full_text.iter().filter(|&&c| c == b'\n').count() + 1;
        if let Some(t) = one_case(&gz, lines, tally) {
            // A changed byte is refused or read whole, never taken for a cut (the
            // trailer of a whole file says so: `gzip.rs`, `whole_file_trailer`).
            assert!(cut || !t.summary.gzip_truncated, "a gzip file with byte {at} changed was read as cut short");
            if t.summary.gzip_truncated {
                // Said to be cut: the text read is a start of the original's.
                assert!(t.summary.lines as usize <= lines);
            } else if t.summary.gzip {
                // Read whole: the original, not a text altered without a word.
                assert_eq!(
                    (&t.tasks, &t.programs, &t.wakes, &t.summary.events),
                    (&whole.tasks, &whole.programs, &whole.wakes, &whole.summary.events),
                    "a gzip file with byte {at} changed was read as a different trace without a word"
                );
            }
        }
    });
    report(&t, "trace gzip files");
}

/// The case a CI run's random seed found (stop 35): byte 30,895 of 30,910 of
/// `make.perf.txt.gz` changed (xor 57) sends the decoder past the last block's end into
/// the trailer; it wanted more input and the file was read as cut short, with a garbage
/// line at its end. The trailer's length says the file is whole.
#[test]
fn a_gzip_file_damaged_near_its_end_is_not_read_as_cut() {
    let base = &bases()[0];
    let mut gz = base.gz.clone();
    let at = 931_751_025 % gz.len();
    assert_eq!((gz.len(), at), (30_910, 30_895), "the bundled make.perf.txt.gz");
    gz[at] ^= 57;
    let e = import(&gz, base.name).unwrap_err().to_string();
    assert!(e.contains("damaged near its end") && e.contains("giving 428861 bytes"), "{e}");
    // Cut at that byte instead, it is read up to the cut.
    let t = import(&base.gz[..at], base.name).unwrap();
    assert!(t.summary.gzip_truncated);
}
