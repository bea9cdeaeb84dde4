//! `run --shard M/N`: one shard of a sweep's runs, written as a part ([`crate::part`])
//! for `schedsim merge`, with `--shard auto` reading the shard from a batch system's
//! variables, and a rerun with the same `--out` skipping the runs its part already has.
//!
//! The part is not written atomically like `run --out`'s output: it is appended to, a
//! whole line per finished run, because what an interrupted shard has finished is
//! worth keeping.

use crate::args::Parsed;
use crate::commands::source_label;
use crate::error::CliError;
use crate::experiment_args::{load, Loaded};
use crate::part::{self, CutEnd, Shard};
use crate::progress::{wanted, ProgressLine};
use schedsim::{Error, RunId, Sweep};
use std::collections::BTreeSet;
use std::io::{BufRead, Read, Write};

/// The variable that gives the shard count in a Kubernetes Indexed Job (the Job's
/// `completions`), which Kubernetes does not pass to the pod itself.
pub const SHARD_COUNT_VAR: &str = "SCHEDSIM_SHARD_COUNT";

pub fn run(p: &Parsed, target: Option<&str>, jobs: usize) -> Result<(), CliError> {
    let Some(spec) = p.get("shard") else {
        return Err(CliError::input("--shard-count: only with --shard auto"));
    };
    for f in ["json", "csv", "counters-csv", "mmtests-dir", "dry-run"] {
        if p.has(f) {
            return Err(CliError::input(format!(
                "--shard: writes a part (JSON lines) for 'schedsim merge', which takes --{f}; drop --{f} here"
            )));
        }
    }
    let count = p.number_in::<u32>("shard-count", 1, part::SHARDS_MAX as u64)?;
    let shard = if spec == "auto" {
        let (shard, from) = auto(count, &|v| std::env::var(v).ok())?;
        eprintln!("schedsim: --shard auto: shard {shard} from {from}");
        shard
    } else {
        if count.is_some() {
            return Err(CliError::input("--shard-count: only with --shard auto"));
        }
        Shard::parse(spec).map_err(|e| CliError::input(format!("--shard: {e}")))?
    };
    let Loaded { exp, source } = load(target, p)?;
    let sweep = Sweep::new(&exp).map_err(|e| CliError::input(format!("{}{e}", source_label(&source))))?;
    let sha256 = part::experiment_sha256(&exp);
    let (mut out, done) = Out::open(p.get("out"), &exp, &sha256, shard)?;
    let mine: Vec<RunId> =
        sweep.runs().into_iter().filter(|&id| part::shard_of(&exp, id, shard.n) == shard.m).collect();
    let total = mine.len() as u32;
    let todo: Vec<RunId> = mine.into_iter().filter(|id| !done.contains(id)).collect();
    if let Some(path) = p.get("out") {
        if !done.is_empty() {
            eprintln!(
                "schedsim: {path}: resuming shard {shard}: {} of its {total} runs are in the part, {} to run",
                total - todo.len() as u32,
                todo.len()
            );
        }
    }
    let order = crate::pool::schedule(&sweep, todo);
    let mut line = ProgressLine::new(wanted(p.has("progress"), p.has("no-progress")));
    let mut written = total - order.len() as u32;
    let failures = crate::pool::drive(&sweep, &order, jobs, &mut line, (written, total), &mut |r| {
        out.line(&part::run_line(&exp, &sha256, &r)).map_err(Error)?;
        written += 1;
        Ok(())
    });
    line.finish();
    match failures.into_iter().next() {
        None => Ok(()),
        Some((_, e, _)) => Err(CliError::failure(format!(
            "{}{e}; the part keeps the {written} of {total} runs of shard {shard} that finished{}",
            source_label(&source),
            if p.get("out").is_some() { " (rerun with the same --out to run the rest)" } else { "" }
        ))),
    }
}

/// `--shard auto`: the shard from Slurm's job array variables, else from a
/// Kubernetes Indexed Job's, with where it came from in words.
pub fn auto(count: Option<u32>, var: &dyn Fn(&str) -> Option<String>) -> Result<(Shard, String), CliError> {
    let num = |name: &str| -> Result<Option<u32>, CliError> {
        match var(name) {
            None => Ok(None),
            Some(v) => crate::args::parse_number::<u32>(v.trim()).map(Some).ok_or_else(|| {
                CliError::input(format!("--shard auto: {name}={:?} is not a whole number", schedsim::input::clip(&v)))
            }),
        }
    };
    let bad = |m: String| CliError::input(format!("--shard auto: {m}"));
    if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
        let Some(n) = num("SLURM_ARRAY_TASK_COUNT")? else {
            return Err(bad("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (not a job array?)".into()));
        };
        if let Some(step) = num("SLURM_ARRAY_TASK_STEP")? {
            if step != 1 {
                return Err(bad(format!(
                    "the job array steps by {step}; give it consecutive ids (--array=1-N or 0-N-1)"
                )));
            }
        }
        // Arrays start where the user says (--array=0-7 or 1-8): the shard is the id's
        // place from the array's first id.
        let (min, min_from) = match (num("SLURM_ARRAY_TASK_MIN")?, num("SLURM_ARRAY_TASK_MAX")?) {
            (Some(min), _) => (min, format!("SLURM_ARRAY_TASK_MIN={min}")),
            (None, Some(max)) if max + 1 >= n => (max + 1 - n, format!("SLURM_ARRAY_TASK_MAX={max}")),
            _ => {
                return Err(bad(
                    "SLURM_ARRAY_TASK_MIN is not set, so whether the array's ids start at 0 or 1 is unknown".into(),
                ))
            }
        };
        if id < min || id - min >= n {
            return Err(bad(format!(
                "SLURM_ARRAY_TASK_ID={id} is not among the {n} consecutive ids from {min} \
                 (an array of listed ids such as --array=1,3,5? give it --array=1-N)"
            )));
        }
        if let Some(c) = count {
            if c != n {
                return Err(bad(format!("--shard-count {c} contradicts SLURM_ARRAY_TASK_COUNT={n}")));
            }
        }
        let shard = Shard::new(id - min + 1, n).map_err(bad)?;
        return Ok((shard, format!("Slurm (SLURM_ARRAY_TASK_ID={id}, {min_from}, SLURM_ARRAY_TASK_COUNT={n})")));
    }
    if let Some(index) = num("JOB_COMPLETION_INDEX")? {
        let (n, n_from) = match (count, num(SHARD_COUNT_VAR)?) {
            (Some(c), Some(v)) if c != v => {
                return Err(bad(format!("--shard-count {c} contradicts {SHARD_COUNT_VAR}={v}")));
            }
            (Some(c), _) => (c, format!("--shard-count {c}")),
            (None, Some(v)) => (v, format!("{SHARD_COUNT_VAR}={v}")),
            (None, None) => {
                return Err(bad(format!(
                    "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not the shard count: give \
                     --shard-count N or set {SHARD_COUNT_VAR} to the Job's completions"
                )))
            }
        };
        if index >= n {
            return Err(bad(format!("JOB_COMPLETION_INDEX={index} is not below the shard count {n} ({n_from})")));
        }
        let shard = Shard::new(index + 1, n).map_err(bad)?;
        return Ok((shard, format!("Kubernetes (JOB_COMPLETION_INDEX={index}, {n_from})")));
    }
    Err(bad("neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) \
         is set; give --shard M/N"
        .into()))
}

/// Where the part goes: standard output, or `--out FILE` appended to a line at a time.
enum Out {
    Stdout,
    File { path: String, file: std::fs::File },
}

impl Out {
    /// Opens the part and writes its header, or, when FILE already holds a part of the
    /// same experiment and shard, keeps its whole lines (dropping a last line cut
    /// short) and returns the runs they hold.
    fn open(
        out: Option<&str>,
        exp: &schedsim::Experiment,
        sha256: &str,
        shard: Shard,
    ) -> Result<(Out, BTreeSet<RunId>), CliError> {
        let header = part::header_line(exp, sha256, shard);
        let Some(path) = out else {
            let mut o = Out::Stdout;
            o.line(&header).map_err(CliError::failure)?;
            return Ok((o, BTreeSet::new()));
        };
        if path.is_empty() {
            return Err(CliError::input("--out: needs a file name"));
        }
        let cannot = |e: std::io::Error| CliError::input(format!("--out: cannot write {path}: {e}"));
        let meta = std::fs::metadata(path).ok();
        if meta.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(CliError::input(format!("--out: {path} is a directory")));
        }
        let regular = meta.as_ref().is_some_and(|m| m.is_file());
        let mut done = BTreeSet::new();
        let mut keep = 0u64;
        let whole_first_line = regular && has_whole_first_line(path).map_err(cannot)?;
        // A file without a newline is written afresh only when it is what an
        // interrupted write of this header leaves (or empty): any other file of one line
        // without a final newline was overwritten, where one with it was refused.
        if regular && !whole_first_line && !is_prefix_of(path, header.as_bytes()).map_err(cannot)? {
            return Err(CliError::input(format!(
                "--out: {path} is not a part this shard can resume: it holds no whole line and is not this shard's \
                 header cut short; give another --out or remove it"
            )));
        }
        if whole_first_line {
            let old = part::read(path, CutEnd::Allow).map_err(|e| {
                CliError::input(format!("--out: {path} is not a part this shard can resume: {}", e.msg))
            })?;
            if old.sha256 != sha256 {
                return Err(CliError::input(format!(
                    "--out: {path} holds a part of another experiment (SHA-256 {}, this one's {}); \
                     give another --out or remove it",
                    &old.sha256[..12],
                    &sha256[..12]
                )));
            }
            if old.generator != part::generator() || old.model != part::model() {
                return Err(CliError::input(format!(
                    "--out: {path} was written by {:?} (model {}), this is {:?} (model {}); its runs may differ \
                     from this build's: give another --out or remove it",
                    schedsim::input::clip(&old.generator),
                    short(&old.model),
                    part::generator(),
                    short(part::model())
                )));
            }
            if old.shard != shard {
                return Err(CliError::input(format!(
                    "--out: {path} holds shard {} of this experiment, not {shard}; give another --out",
                    old.shard
                )));
            }
            if let Some(l) = old.cut_line {
                eprintln!("schedsim: {path}: line {l} was cut short (an interrupted run); running it again");
            }
            done.extend(old.runs.iter().map(|(r, _)| r.run));
            keep = old.good_bytes;
        }
        let mut file =
            std::fs::OpenOptions::new().create(true).write(true).truncate(false).open(path).map_err(cannot)?;
        if regular {
            file.set_len(keep).map_err(cannot)?;
        }
        use std::io::Seek;
        if regular {
            file.seek(std::io::SeekFrom::Start(keep)).map_err(cannot)?;
        }
        let mut o = Out::File { path: path.to_string(), file };
        if keep == 0 {
            o.line(&header).map_err(CliError::failure)?;
        }
        Ok((o, done))
    }

    /// Writes one whole line (newline included) with one write and flushes it.
    fn line(&mut self, text: &str) -> Result<(), String> {
        match self {
            Out::Stdout => {
                let mut o = std::io::stdout().lock();
                o.write_all(text.as_bytes()).and_then(|_| o.flush()).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        "cannot write to standard output: the reader closed the pipe (broken pipe)".to_string()
                    } else {
                        format!("cannot write to standard output: {e}")
                    }
                })
            }
            Out::File { path, file } => file
                .write_all(text.as_bytes())
                .and_then(|_| file.flush())
                .map_err(|e| format!("--out: cannot write {path}: {e}")),
        }
    }
}

/// A digest's first 12 digits, for messages.
pub fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// Whether the file's bytes are the start of `text` (an empty file is).
fn is_prefix_of(path: &str, text: &[u8]) -> std::io::Result<bool> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(text.len() as u64 + 1).read_to_end(&mut bytes)?;
    Ok(text.starts_with(&bytes))
}

/// Whether the file's first line (the header) was written whole; a file without one
/// holds no finished run and is written afresh. The header holds the experiment, whose
/// replay workload can be a trace's worth of programs (tens of MB): the line is scanned
/// for its newline up to a part's bound without being kept.
fn has_whole_first_line(path: &str) -> std::io::Result<bool> {
    let f = std::fs::File::open(path)?.take(part::PART_BYTES_MAX);
    let mut r = std::io::BufReader::with_capacity(1 << 16, f);
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        if buf.contains(&b'\n') {
            return Ok(true);
        }
        let n = buf.len();
        r.consume(n);
    }
}
