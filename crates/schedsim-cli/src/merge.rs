//! `schedsim merge PART...`: the parts of a sharded sweep folded into the report `run`
//! would have written, by the same `ReportBuilder` and the same writer
//! ([`crate::commands::write_report`]), hence the same bytes.
//!
//! Refused, naming what to fix: parts of different experiments, a run no part has
//! (with the shard that runs it), two different results of one run, and a part that is
//! cut short or malformed (with the file and line). Two equal results of a run are
//! one: a shard run twice is fine.

use crate::args::parse;
use crate::commands::{check_formats, check_mmtests_dir, write_report};
use crate::error::CliError;
use crate::help::{self, merge_flags};
use crate::output::{print_stdout, Destination};
use crate::part::{self, CutEnd, Part, Shard};
use crate::shard::short;
use schedsim::{RunId, RunResult, Sweep};
use std::collections::BTreeMap;

pub fn merge(args: &[String]) -> Result<(), CliError> {
    let p = parse("merge", &merge_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("merge").unwrap_or_default());
    }
    check_formats("merge", &p)?;
    if p.positionals.is_empty() {
        return Err(CliError::input(
            "merge: give the parts (PART...) that 'schedsim run --shard M/N --out PART' wrote",
        ));
    }
    let dest = Destination::open(p.get("out"))?;
    let mut parts: Vec<Part> = Vec::with_capacity(p.positionals.len());
    for path in &p.positionals {
        let part = part::read(path, CutEnd::Refuse)?;
        if let Some(first) = parts.first() {
            if first.generator != part.generator || first.model != part.model {
                return Err(CliError::input(format!(
                    "merge: {} and {} were written by different builds ({:?} model {}, {:?} model {}); rerun one's \
                     shards with the other",
                    first.path,
                    part.path,
                    schedsim::input::clip(&first.generator),
                    short(&first.model),
                    schedsim::input::clip(&part.generator),
                    short(&part.model)
                )));
            }
            if first.sha256 != part.sha256 {
                return Err(CliError::input(format!(
                    "merge: {} and {} are parts of different experiments ({:?}, SHA-256 {}…; {:?}, SHA-256 {}…)",
                    first.path,
                    part.path,
                    first.experiment.name,
                    &first.sha256[..12],
                    part.experiment.name,
                    &part.sha256[..12]
                )));
            }
        }
        parts.push(part);
    }
    if parts[0].generator != part::generator() || parts[0].model != part::model() {
        eprintln!(
            "schedsim: the parts were written by {:?} (model {}), this is {:?} (model {}): the report is theirs with \
             this build's name",
            schedsim::input::clip(&parts[0].generator),
            short(&parts[0].model),
            part::generator(),
            short(part::model())
        );
    }
    let exp = parts[0].experiment.clone();
    check_mmtests_dir(&p, &exp)?;
    let sweep = Sweep::new(&exp).map_err(|e| CliError::input(format!("{}: {e}", parts[0].path)))?;

    // Each run once, with where it was first seen.
    let mut got: BTreeMap<RunId, (RunResult, usize, usize)> = BTreeMap::new();
    let lines: Vec<Vec<(RunResult, usize)>> = parts.iter_mut().map(|p| std::mem::take(&mut p.runs)).collect();
    for (pi, part_runs) in lines.into_iter().enumerate() {
        for (r, line) in part_runs {
            match got.get(&r.run) {
                None => {
                    got.insert(r.run, (r, pi, line));
                }
                Some((old, _, _)) if *old == r => {}
                Some((_, opi, oline)) => {
                    return Err(CliError::input(format!(
                        "merge: run {} has two different results, {} line {oline} and {} line {line} \
                         (parts of different schedsim builds?)",
                        part::key_of(&exp, r.run),
                        parts[*opi].path,
                        parts[pi].path
                    )));
                }
            }
        }
    }
    let runs = sweep.runs();
    let missing: Vec<RunId> = runs.iter().copied().filter(|id| !got.contains_key(id)).collect();
    if let Some(&id) = missing.first() {
        return Err(missing_run(&exp, &parts, id, missing.len()));
    }
    // The report sums each point's counters over its iterations: refused where a sum
    // would wrap rather than shown wrapped.
    let mut sums: BTreeMap<(u32, u32), BTreeMap<String, u64>> = BTreeMap::new();
    for (id, (r, pi, line)) in &got {
        part::add_counters(sums.entry((id.kernel, id.point)).or_default(), r).map_err(|name| {
            CliError::input(format!(
                "{} line {line}: run {}: its {name} passes 2^64 - 1 summed with the point's other iterations",
                parts[*pi].path,
                part::key_of(&exp, *id)
            ))
        })?;
    }
    let mut builder = sweep.builder();
    for id in runs {
        if let Some((r, pi, line)) = got.remove(&id) {
            builder.add(r).map_err(|e| CliError::input(format!("{} line {line}: {e}", parts[pi].path)))?;
        }
    }
    let report = builder.report().map_err(|e| CliError::failure(format!("merge: {e}")))?;
    write_report(&p, dest, &report)
}

/// The error for a run no part has: which shard runs it, and whether its part was given.
fn missing_run(exp: &schedsim::Experiment, parts: &[Part], id: RunId, count: usize) -> CliError {
    let n = parts[0].shard.n;
    let m = part::shard_of(exp, id, n);
    let shard = Shard { m, n };
    let all = if count > 1 { format!("; {count} runs are missing in all") } else { String::new() };
    let why = match parts.iter().find(|p| p.shard == shard) {
        Some(p) => format!(
            "its part {} lacks it (the shard was interrupted?): rerun that shard with --out {} to finish it",
            p.path, p.path
        ),
        None => format!("no part of shard {shard} was given"),
    };
    CliError::input(format!(
        "merge: missing run {} ({}), which shard {shard} runs: {why}{all}",
        part::key_of(exp, id),
        part::describe(exp, id)
    ))
}
