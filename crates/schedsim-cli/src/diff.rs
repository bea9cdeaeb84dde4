//! The `diff` command: run kernel A and, at every wakeup, ask kernel B's decision code
//! what it would choose in the same state; list where they differ, with both traces.

use crate::args::parse;
use crate::error::CliError;
use crate::experiment_args::{load, Loaded};
use crate::help::{self, diff_flags};
use crate::output::{print_stdout, Destination};
use schedsim::diff::{DiffAsk, DIFF_DETAILS_MAX};
use schedsim::trace::TRACE_WAKEUPS_MAX;

/// Wakeups compared when `--count` is not given.
const COUNT_DEFAULT: u32 = 1000;

pub fn diff(args: &[String]) -> Result<(), CliError> {
    let p = parse("diff", &diff_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("diff").unwrap_or_default());
    }
    let target = match p.positionals.as_slice() {
        [] => None,
        [t] => Some(t.as_str()),
        [_, extra, ..] => {
            return Err(CliError::input(format!(
                "diff: unexpected argument {extra:?}; give one FILE or PRESET (try 'schedsim diff --help')"
            )))
        }
    };
    if let Some(c) = p.get("clients") {
        if crate::args::parse_number::<u32>(c).is_none() {
            return Err(CliError::input(format!(
                "--clients: {c:?} is not a whole number; diff takes one client count"
            )));
        }
    }
    let ks = p.all("kernel-index");
    let mut idx = Vec::new();
    for k in &ks {
        match crate::args::parse_number::<usize>(k) {
            Some(n) => idx.push(n),
            None => {
                return Err(CliError::input(format!("--kernel-index: {}", crate::args::number_problem::<usize>(k))))
            }
        }
    }
    let (a, b) = match idx.as_slice() {
        [] => (0, 1),
        [a, b] => (*a, *b),
        _ => {
            return Err(CliError::input(format!(
                "--kernel-index: given {} time(s); give it twice, kernel A then kernel B (or not at all: 0 then 1)",
                idx.len()
            )))
        }
    };
    if a == b {
        return Err(CliError::input(format!(
            "--kernel-index: A and B are both kernel {a}; compare two different kernels"
        )));
    }
    let iteration = p.number::<u32>("iteration")?.unwrap_or(0);
    let from = p.number::<u64>("from")?.unwrap_or(0);
    let count = p.number_in::<u32>("count", 1, TRACE_WAKEUPS_MAX as u64)?.unwrap_or(COUNT_DEFAULT);
    if count == 0 || count > TRACE_WAKEUPS_MAX {
        return Err(CliError::input(format!("--count: {count} is out of range 1 to {TRACE_WAKEUPS_MAX}")));
    }
    if from.checked_add(count as u64).is_none() {
        return Err(CliError::input(format!("--from: {from} is too large; --from plus --count must fit in 64 bits")));
    }
    let list = p.number::<usize>("list")?.unwrap_or(20);
    let details = p.number::<u32>("details")?.unwrap_or(3);
    if details > DIFF_DETAILS_MAX {
        return Err(CliError::input(format!("--details: {details} is out of range 0 to {DIFF_DETAILS_MAX}")));
    }
    let dest = Destination::open(p.get("out"))?;
    let Loaded { exp, source } = load(target, &p)?;
    let n = exp.kernels.len();
    if n < 2 {
        return Err(CliError::input(format!(
            "diff: the experiment has one kernel ({}); a diff needs two (add one with --kernel NAME=SPEC twice)",
            exp.kernels[0].name
        )));
    }
    for (which, k) in [("A", a), ("B", b)] {
        if k >= n {
            return Err(CliError::input(format!(
                "--kernel-index: {which} = {k} is out of range; the experiment has {n} kernels, 0 to {}",
                n - 1
            )));
        }
    }
    crate::commands::check_run_choice(&exp, a, iteration)?;
    let ask = DiffAsk { a: a as u32, b: b as u32, clients: exp.clients[0], iteration, from, count, details };
    let rep = exp.diff(&ask).map_err(|e| {
        let label = match &source {
            crate::experiment_args::Source::File(f) => format!("{f}: "),
            crate::experiment_args::Source::Preset(n) => format!("preset {n}: "),
            crate::experiment_args::Source::Flags => String::new(),
        };
        CliError::failure(format!("{label}{e}"))
    })?;
    let text = if p.has("json") {
        let mut j = serde_json::to_string_pretty(&rep)
            .map_err(|e| CliError::failure(format!("cannot encode the diff as JSON: {e}")))?;
        j.push('\n');
        j
    } else {
        rep.render(list, details as usize)
    };
    dest.write(&text)
}
