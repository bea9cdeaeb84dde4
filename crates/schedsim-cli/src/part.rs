//! A part: what `schedsim run --shard M/N` writes and `schedsim merge` reads.
//!
//! JSON lines. Line 1 is the header: the format version, the build (its version and
//! the SHA-256 of its model's source, [`model`]), the SHA-256 of the experiment's
//! canonical JSON (serde's compact form of the validated experiment), the shard, and the
//! experiment itself, so that a part says on its own what it is a part of. Every further
//! line is one finished run: its key (`KERNEL/CLIENTS/ITERATION`, for people and for
//! checking), the library's `RunResult`, and the SHA-256 of the experiment's digest and
//! the result's canonical JSON, so that a hand edit of a run is found ([`run_digest`]). Each line is written whole
//! with one write and its newline last, so an interrupted shard leaves finished lines
//! and at worst one line cut short at the end, which a rerun with the same `--out`
//! drops and completes.
//!
//! Which shard a run belongs to ([`shard_of`]) is a fixed function of the run's place
//! in the sweep: nothing about timing or the machine enters it, and each run's random
//! stream comes from its client count and iteration (the library's `run_seed`), never
//! from the shard.

use crate::error::CliError;
use schedsim::{Experiment, RunId, RunResult};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};

/// The format version of a part's header (`schedsim_part`).
/// 2: the model's digest in the header and a digest on every run line.
pub const PART_VERSION: u32 = 2;

/// At most this many shards.
pub const SHARDS_MAX: u32 = 1_000_000;

/// A part file larger than this is refused (a 10,000-run part is about 20 MB), while it
/// is read: a device or a pipe (`/dev/zero`) is cut off here as a file is.
pub const PART_BYTES_MAX: u64 = 1 << 30;

/// A run line longer than this is refused as it is read (a run's line is a few KB: its
/// counters, two sparse histograms and at most 16 wasted-core moments).
pub const RUN_LINE_BYTES_MAX: u64 = 4 << 20;

/// Shard `m` (from 1) of `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub m: u32,
    pub n: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.m, self.n)
    }
}

impl Shard {
    /// Parses `M/N` with 1 <= M <= N <= [`SHARDS_MAX`].
    pub fn parse(s: &str) -> Result<Shard, String> {
        let shown = schedsim::input::clip(s);
        let Some((m, n)) = s.split_once('/') else {
            return Err(format!("{shown:?} is not M/N (e.g. 2/8, or auto)"));
        };
        let (Some(m), Some(n)) = (crate::args::parse_number::<u32>(m), crate::args::parse_number::<u32>(n)) else {
            return Err(format!("{shown:?} is not M/N with whole numbers M and N (e.g. 2/8)"));
        };
        Shard::new(m, n)
    }

    pub fn new(m: u32, n: u32) -> Result<Shard, String> {
        if n == 0 || n > SHARDS_MAX {
            return Err(format!("{m}/{n}: the shard count N must be from 1 to {SHARDS_MAX}"));
        }
        if m == 0 || m > n {
            return Err(format!("{m}/{n}: the shard M must be from 1 to N ({n}); shards count from 1"));
        }
        Ok(Shard { m, n })
    }
}

/// The shard (from 1) of `n` that runs `id`: runs are numbered from 0 client count by
/// client count, each client count's kernels in order, each kernel's iterations in
/// order, and run `j` goes to shard `j mod n + 1`. Dealing client count by client
/// count gives every shard about its share of each client count, the cost of a run
/// depending mostly on that.
pub fn shard_of(exp: &Experiment, id: RunId, n: u32) -> u32 {
    let kernels = exp.kernels.len() as u64;
    let iterations = exp.iterations as u64;
    let j = (id.point as u64 * kernels + id.kernel as u64) * iterations + id.iteration as u64;
    (j % n.max(1) as u64) as u32 + 1
}

/// A run's key: `KERNEL/CLIENTS/ITERATION`.
pub fn key_of(exp: &Experiment, id: RunId) -> String {
    let kernel = exp.kernels.get(id.kernel as usize).map_or("?", |k| k.name.as_str());
    let clients = exp.clients.get(id.point as usize).copied().unwrap_or(0);
    format!("{kernel}/{clients}/{}", id.iteration)
}

/// The same in words, for messages.
pub fn describe(exp: &Experiment, id: RunId) -> String {
    let kernel = exp.kernels.get(id.kernel as usize).map_or("?", |k| k.name.as_str());
    let clients = exp.clients.get(id.point as usize).copied().unwrap_or(0);
    format!("kernel {kernel:?}, {}, iteration {}", exp.workload.clients_of(clients as u64), id.iteration)
}

/// The experiment's canonical JSON and its SHA-256.
pub fn experiment_sha256(exp: &Experiment) -> String {
    schedsim::sched_trace::sha256_hex(serde_json::to_string(exp).unwrap_or_default().as_bytes())
}

#[derive(Serialize)]
struct HeaderOut<'a> {
    schedsim_part: u32,
    generator: String,
    model_sha256: &'static str,
    experiment_sha256: &'a str,
    shard: String,
    experiment: &'a Experiment,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderIn {
    schedsim_part: u32,
    generator: String,
    // Absent in format 1, which is refused by its version first.
    #[serde(default)]
    model_sha256: String,
    experiment_sha256: String,
    shard: String,
    experiment: Experiment,
}

#[derive(Serialize)]
struct LineOut<'a> {
    key: String,
    result: &'a RunResult,
    sha256: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineIn {
    key: String,
    result: RunResult,
    sha256: String,
}

/// The build that writes a part: a report names it (`generator`), and runs of
/// another build may give other numbers, so parts of two builds are not merged.
pub fn generator() -> String {
    format!("schedsim {}", env!("CARGO_PKG_VERSION"))
}

/// The SHA-256 of this build's model source (`build.rs`): parts whose runs a
/// different model made are not merged, nor resumed into.
pub fn model() -> &'static str {
    env!("SCHEDSIM_MODEL_SHA256")
}

/// A run line's digest: the experiment's SHA-256 and the result's canonical JSON, so
/// that an edited result (or one moved from a part of another experiment) is found.
pub fn run_digest(experiment_sha256: &str, r: &RunResult) -> String {
    let json = serde_json::to_string(r).unwrap_or_default();
    schedsim::sched_trace::sha256_hex(format!("{experiment_sha256}\n{json}").as_bytes())
}

/// The header line, newline included.
pub fn header_line(exp: &Experiment, sha256: &str, shard: Shard) -> String {
    let h = HeaderOut {
        schedsim_part: PART_VERSION,
        generator: generator(),
        model_sha256: model(),
        experiment_sha256: sha256,
        shard: shard.to_string(),
        experiment: exp,
    };
    let mut s = serde_json::to_string(&h).unwrap_or_default();
    s.push('\n');
    s
}

/// A run's line, newline included.
pub fn run_line(exp: &Experiment, experiment_sha256: &str, r: &RunResult) -> String {
    let line = LineOut { key: key_of(exp, r.run), result: r, sha256: run_digest(experiment_sha256, r) };
    let mut s = serde_json::to_string(&line).unwrap_or_default();
    s.push('\n');
    s
}

/// A part as read.
pub struct Part {
    pub path: String,
    pub experiment: Experiment,
    pub sha256: String,
    pub shard: Shard,
    /// The build that wrote it (`schedsim VERSION`) and its model's digest ([`model`]).
    pub generator: String,
    pub model: String,
    /// Each run with the line (from 1) it is on, in file order.
    pub runs: Vec<(RunResult, usize)>,
    /// Bytes of the header and the whole run lines: where a rerun appends.
    pub good_bytes: u64,
    /// The line number of a last line cut short (no newline), when one was allowed.
    pub cut_line: Option<usize>,
}

/// How a part may end.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CutEnd {
    /// A last line without its newline is an error (merge).
    Refuse,
    /// It is left out and reported in [`Part::cut_line`] (a rerun completes the part).
    Allow,
}

/// Reads and checks a part: the header's experiment against its SHA-256 and the
/// limits, every run line against the experiment and the shard. Errors name the file
/// and the line.
pub fn read(path: &str, cut: CutEnd) -> Result<Part, CliError> {
    let f = std::fs::File::open(path).map_err(|e| CliError::input(format!("{path}: cannot read the part: {e}")))?;
    if let Ok(m) = f.metadata() {
        if m.is_file() && m.len() > PART_BYTES_MAX {
            return Err(CliError::input(format!(
                "{path}: {} bytes is larger than a part may be ({PART_BYTES_MAX} bytes)",
                m.len()
            )));
        }
    }
    let mut r = std::io::BufReader::with_capacity(1 << 16, f);
    let cannot = |lineno: usize, e: std::io::Error| {
        CliError::input(format!("{path}: cannot read the part after line {lineno}: {e}"))
    };
    // A part starts with its header's `{`: anything else (`/dev/zero`, a binary file) is
    // refused before a line of it is read.
    match r.fill_buf().map_err(|e| cannot(0, e))?.first() {
        None | Some(b'{') => {}
        Some(_) => {
            return Err(CliError::input(format!(
                "{path} line 1: not a schedsim part: it does not start with a JSON object (the header)"
            )))
        }
    }
    let mut buf = Vec::new();
    let mut lineno = 0usize;
    let mut good_bytes = 0u64;
    let mut head: Option<Header> = None;
    let mut runs = Vec::new();
    let mut cut_line = None;
    loop {
        buf.clear();
        // Each line is read no further than it may go: the header up to the part's
        // bound, a run line up to its own, so memory stays within them whatever the file.
        let room = PART_BYTES_MAX - good_bytes;
        let max = if head.is_none() { room } else { room.min(RUN_LINE_BYTES_MAX) };
        let got = (&mut r).take(max + 1).read_until(b'\n', &mut buf).map_err(|e| cannot(lineno, e))?;
        if got == 0 {
            break;
        }
        lineno += 1;
        if got as u64 > max {
            return Err(CliError::input(if max < room {
                format!("{path} line {lineno}: longer than a run's line may be ({RUN_LINE_BYTES_MAX} bytes)")
            } else {
                format!("{path}: larger than a part may be ({PART_BYTES_MAX} bytes)")
            }));
        }
        if buf.last() != Some(&b'\n') {
            // Only the end of a file lacks a newline: a line cut short.
            if cut == CutEnd::Allow && head.is_some() {
                cut_line = Some(lineno);
                break;
            }
            return Err(CliError::input(format!(
                "{path} line {lineno}: the line is cut short (no newline at the end of the file: the shard was \
                 interrupted?); rerun that shard with the same --out to complete the part"
            )));
        }
        let Ok(text) = std::str::from_utf8(&buf[..buf.len() - 1]) else {
            return Err(CliError::input(format!("{path} line {lineno}: not UTF-8 text; this is not a schedsim part")));
        };
        match &head {
            None => head = Some(read_header(path, text)?),
            Some(h) => runs.push((read_run(path, lineno, text, h)?, lineno)),
        }
        good_bytes += got as u64;
    }
    let Some(h) = head else {
        return Err(CliError::input(format!("{path}: the part is empty; expected a header line")));
    };
    Ok(Part {
        path: path.to_string(),
        experiment: h.experiment,
        sha256: h.sha256,
        shard: h.shard,
        generator: h.generator,
        model: h.model,
        runs,
        good_bytes,
        cut_line,
    })
}

/// A header as read and checked.
struct Header {
    experiment: Experiment,
    sha256: String,
    shard: Shard,
    generator: String,
    model: String,
}

fn read_header(path: &str, text: &str) -> Result<Header, CliError> {
    let bad = |what: String| CliError::input(format!("{path} line 1: {what}"));
    if !text.trim_start().starts_with('{') {
        return Err(bad("not a schedsim part: expected the header, a JSON object".into()));
    }
    let h: HeaderIn = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "not a schedsim part header ({}): {e}",
            "schedsim_part, generator, experiment_sha256, shard, experiment"
        ))
    })?;
    if h.schedsim_part != PART_VERSION {
        return Err(bad(format!(
            "part format {} is not supported; this build reads format {PART_VERSION}",
            h.schedsim_part
        )));
    }
    let shard = Shard::parse(&h.shard).map_err(|e| bad(format!("shard: {e}")))?;
    h.experiment.validate().map_err(|e| bad(format!("the experiment: {e}")))?;
    let sha = experiment_sha256(&h.experiment);
    if sha != h.experiment_sha256 {
        return Err(bad(format!(
            "the experiment's SHA-256 is {sha}, not the {:?} the header states (the part was edited?)",
            schedsim::input::clip(&h.experiment_sha256)
        )));
    }
    Ok(Header { experiment: h.experiment, sha256: sha, shard, generator: h.generator, model: h.model_sha256 })
}

fn read_run(path: &str, lineno: usize, text: &str, h: &Header) -> Result<RunResult, CliError> {
    let (exp, shard) = (&h.experiment, h.shard);
    let bad = |what: String| CliError::input(format!("{path} line {lineno}: {what}"));
    let l: LineIn =
        serde_json::from_str(text).map_err(|e| bad(format!("not a run of a part (key, result, sha256): {e}")))?;
    if run_digest(&h.sha256, &l.result) != l.sha256 {
        return Err(bad(format!(
            "the run's SHA-256 is not the {:?} the line states (the line was edited?): rerun its shard",
            schedsim::input::clip(&l.sha256)
        )));
    }
    let id = l.result.run;
    if id.kernel as usize >= exp.kernels.len()
        || id.point as usize >= exp.clients.len()
        || id.iteration >= exp.iterations
    {
        return Err(bad(format!(
            "run (kernel {}, point {}, iteration {}) is outside the experiment's sweep",
            id.kernel, id.point, id.iteration
        )));
    }
    let key = key_of(exp, id);
    if l.key != key {
        return Err(bad(format!(
            "the key {:?} does not name the run's result ({key:?})",
            schedsim::input::clip(&l.key)
        )));
    }
    check_result(&l.result).map_err(|e| bad(format!("run {key}: {e}")))?;
    let belongs = shard_of(exp, id, shard.n);
    if belongs != shard.m {
        return Err(bad(format!("run {key} belongs to shard {belongs}/{}, not this part's {shard}", shard.n)));
    }
    Ok(l.result)
}

/// What no run gives, refused even under a good digest: a sample that is not a
/// finite number at least 0 (a NaN showed as "measured nothing"), and migrations that
/// are not the sum of their distances (`Counters::count_migration` counts both) or fewer
/// than the balancers' share of them.
pub fn check_result(r: &RunResult) -> Result<(), String> {
    let v = r.sample();
    if !v.is_finite() || v < 0.0 {
        return Err(format!("its sample is {v}, which no run gives"));
    }
    let c = &r.counters;
    let by_distance = [c.migrations_smt, c.migrations_llc, c.migrations_cross_llc, c.migrations_cross_node]
        .iter()
        .try_fold(0u64, |a, &b| a.checked_add(b));
    if by_distance != Some(c.migrations) || c.migrations_balance > c.migrations {
        return Err(format!(
            "its counters disagree: migrations {} is not the sum of its distances ({} + {} + {} + {}) or is below \
             migrations_balance {}",
            c.migrations,
            c.migrations_smt,
            c.migrations_llc,
            c.migrations_cross_llc,
            c.migrations_cross_node,
            c.migrations_balance
        ));
    }
    Ok(())
}

/// Sums each counter (and `elapsed_ns`) of `r` into `sums`, by its JSON name (an array's
/// entries by index); the name of the first sum that would pass 2^64 - 1, which the
/// report's sums would wrap.
pub fn add_counters(sums: &mut std::collections::BTreeMap<String, u64>, r: &RunResult) -> Result<(), String> {
    fn walk(
        sums: &mut std::collections::BTreeMap<String, u64>,
        name: String,
        v: &serde_json::Value,
    ) -> Result<(), String> {
        match v {
            serde_json::Value::Number(n) => match n.as_u64() {
                Some(x) => {
                    let s = sums.entry(name.clone()).or_insert(0);
                    *s = s.checked_add(x).ok_or(name)?;
                    Ok(())
                }
                None => Ok(()),
            },
            serde_json::Value::Array(a) => {
                a.iter().enumerate().try_for_each(|(i, x)| walk(sums, format!("{name}[{i}]"), x))
            }
            serde_json::Value::Object(o) => o.iter().try_for_each(|(k, x)| walk(sums, format!("{name}.{k}"), x)),
            _ => Ok(()),
        }
    }
    let counters = serde_json::to_value(&r.counters).unwrap_or_default();
    walk(sums, "counters".into(), &counters)?;
    walk(sums, "elapsed_ns".into(), &serde_json::Value::from(r.elapsed_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse() {
        assert_eq!(Shard::parse("2/8"), Ok(Shard { m: 2, n: 8 }));
        assert!(Shard::parse("0/8").unwrap_err().contains("count from 1"));
        assert!(Shard::parse("9/8").unwrap_err().contains("from 1 to N"));
        assert!(Shard::parse("1/0").unwrap_err().contains("from 1 to"));
        assert!(Shard::parse("x").unwrap_err().contains("not M/N"));
        assert!(Shard::parse("1/-2").unwrap_err().contains("whole numbers"));
    }

    #[test]
    fn every_run_is_in_exactly_one_shard_and_shards_are_even() {
        let exp = schedsim::presets::experiment("seed000").unwrap();
        let sweep = schedsim::Sweep::new(&exp).unwrap();
        for n in [1, 2, 3, 7, 48, 100] {
            let mut count = vec![0u32; n as usize + 1];
            for id in sweep.runs() {
                let m = shard_of(&exp, id, n);
                assert!((1..=n).contains(&m));
                count[m as usize] += 1;
            }
            let (lo, hi) = (count[1..].iter().min().unwrap(), count[1..].iter().max().unwrap());
            assert!(hi - lo <= 1, "n {n}: {count:?}");
        }
    }
}
