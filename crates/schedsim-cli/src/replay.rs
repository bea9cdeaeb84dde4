//! The `replay` command: a real machine's scheduler trace imported, replayed under each
//! kernel, and the table of what the machine did beside what the model does.

use crate::args::{parse, Parsed};
use crate::error::CliError;
use crate::experiment_args::{apply_machine_flags, import_trace_file, replay_on_machine, MachineFlags};
use crate::help::{self, replay_flags};
use crate::output::{print_stdout, Destination};
use schedsim::experiment::{Experiment, MachineSpec};
use schedsim::kernel::{KernelSpec, KernelVersion};
use schedsim::sched_trace::Trace;

/// The machine a replay runs on: the flags' machine, or (without one) the trace's CPU
/// count as one LLC of single-thread cores, said on stderr.
fn machine_for(trace: &Trace, p: &Parsed) -> Result<(MachineSpec, MachineFlags), CliError> {
    let mut machine = MachineSpec::default();
    let flags = apply_machine_flags(&mut machine, p)?;
    for n in &flags.notes {
        eprintln!("schedsim: {n}");
    }
    if p.has("machine") || p.has("topology") || p.has("topology-file") {
        return Ok((machine, flags));
    }
    let machine = schedsim::api::trace_vs::own_machine(trace);
    eprintln!(
        "schedsim: no machine given: replaying on 1x1x{}x1 (the trace's {} CPUs, one LLC, no SMT); give the traced \
         machine with --machine, --topology or --topology-file (lscpu -p)",
        trace.cpus.max(1),
        trace.cpus
    );
    Ok((machine, flags))
}

/// `replay A --vs B`: the two traces' statistics side by side, each read on its machine
/// (the flags' machine, or its own CPU count as one LLC); with `--kernel`, each trace's
/// replay table after it.
fn vs(a: &Trace, other: &str, p: &Parsed, dest: Destination) -> Result<(), CliError> {
    let b = import_trace_file(other)?;
    let (ma, _) = machine_for(a, p)?;
    let (mb, _) = machine_for(&b, p)?;
    let cmp = schedsim::api::trace_vs::compare_on(a, &ma, &b, &mb).map_err(CliError::input)?;
    if p.has("json") {
        let mut j = serde_json::to_string_pretty(&cmp)
            .map_err(|e| CliError::failure(format!("cannot encode the comparison as JSON: {e}")))?;
        j.push('\n');
        return dest.write(&j);
    }
    let mut text = cmp.table();
    if !p.all("kernel").is_empty() {
        for (t, name) in [(a, "A"), (&b, "B")] {
            let (machine, flags) = machine_for(t, p)?;
            let kernels: Vec<KernelSpec> = p
                .all("kernel")
                .iter()
                .map(|k| KernelSpec::parse(k).map_err(|e| CliError::input(format!("--kernel: {e}"))))
                .collect::<Result<_, _>>()?;
            let mut exp = Experiment::replay_of(t, machine, kernels);
            replay_on_machine(&mut exp, &flags, p)?;
            exp.validate().map_err(|e| CliError::input(format!("{}: {}", t.name, e.0)))?;
            let c = exp.compare_with(t).map_err(|e| CliError::failure(format!("{}: {}", t.name, e.0)))?;
            text.push_str(&format!("\n{name}, replayed:\n"));
            text.push_str(&c.table());
        }
    }
    dest.write(&text)
}

pub fn replay(args: &[String]) -> Result<(), CliError> {
    let p = parse("replay", &replay_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("replay").unwrap_or_default());
    }
    let file = match p.positionals.as_slice() {
        [f] => f.as_str(),
        [] => return Err(CliError::input("replay: give a TRACE file (perf script or trace-cmd report text)")),
        [_, extra, ..] => {
            return Err(CliError::input(format!(
                "replay: unexpected argument {extra:?}; give one TRACE file (try 'schedsim replay --help')"
            )))
        }
    };
    let dest = Destination::open(p.get("out"))?;
    let trace = import_trace_file(file)?;
    if let Some(other) = p.get("vs") {
        return vs(&trace, other, &p, dest);
    }
    let (machine, flags) = machine_for(&trace, &p)?;
    let kernels: Vec<KernelSpec> = match p.all("kernel") {
        k if k.is_empty() => {
            let v = KernelVersion::ALL[KernelVersion::ALL.len() - 1];
            vec![KernelSpec::new(v.name(), v)]
        }
        k => k
            .iter()
            .map(|k| KernelSpec::parse(k).map_err(|e| CliError::input(format!("--kernel: {e}"))))
            .collect::<Result<_, _>>()?,
    };
    let mut exp = Experiment::replay_of(&trace, machine, kernels);
    if p.has("pin-as-traced") {
        exp.workload = schedsim::workload::Workload::Replay(trace.replay_params_pinned());
    }
    if let Some(s) = p.number::<u64>("seed")? {
        exp.seed = s;
    }
    // The trace's CPUs against the machine's first: that error names the line.
    let m = exp.machine.resolve().map_err(|e| CliError::input(e.0))?;
    trace.check_cpus(m.map.nr_cpus()).map_err(|e| CliError::input(e.to_string()))?;
    replay_on_machine(&mut exp, &flags, &p)?;
    exp.validate().map_err(|e| CliError::input(format!("{file}: {}", e.0)))?;
    let cmp = exp.compare_with(&trace).map_err(|e| CliError::failure(format!("{file}: {}", e.0)))?;
    let text = if p.has("json") {
        let v = serde_json::json!({
            "summary": trace.summary,
            "observed": cmp.observed,
            "simulated": cmp.simulated,
            "switches": {"voluntary": cmp.switches.0, "involuntary": cmp.switches.1},
            "trace": {
                "name": cmp.trace_name,
                "sha256": cmp.trace_sha256,
                "cpus": cmp.trace_cpus,
                "span_ns": cmp.span_ns,
            },
            "machine": cmp.machine,
        });
        let mut j = serde_json::to_string_pretty(&v)
            .map_err(|e| CliError::failure(format!("cannot encode the comparison as JSON: {e}")))?;
        j.push('\n');
        j
    } else {
        let mut s = String::new();
        for l in trace.summary.lines() {
            s.push_str(&l);
            s.push('\n');
        }
        s.push('\n');
        s.push_str(&cmp.table());
        s
    };
    dest.write(&text)
}
