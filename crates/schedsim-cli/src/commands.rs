//! The `presets`, `run`, `show` and `trace` commands.

use crate::args::{parse, Parsed};
use crate::error::CliError;
use crate::experiment_args::{load, Loaded, Source};
use crate::help::{self, run_flags, show_flags, trace_flags, PRESETS_FLAGS};
use crate::output::{print_stdout, Destination};
use crate::progress::{wanted, ProgressLine};
use schedsim::kernel::{KernelVersion, Switch};
use schedsim::topology::TopologyInput;
use schedsim::trace::{TraceWindow, TRACE_WAKEUPS_MAX};
use schedsim::workload::{Workload, WORKLOAD_NAMES};
use std::fmt::Write;

/// The at most one FILE|PRESET positional.
pub fn target<'a>(p: &'a Parsed, command: &str) -> Result<Option<&'a str>, CliError> {
    match p.positionals.as_slice() {
        [] => Ok(None),
        [t] => Ok(Some(t.as_str())),
        [_, extra, ..] => Err(CliError::input(format!(
            "{command}: unexpected argument {extra:?}; give one FILE or PRESET (try 'schedsim {command} --help')"
        ))),
    }
}

pub fn source_label(s: &Source) -> String {
    match s {
        Source::File(f) => format!("{f}: "),
        Source::Preset(n) => format!("preset {n}: "),
        Source::Flags => String::new(),
    }
}

pub fn presets(args: &[String]) -> Result<(), CliError> {
    let p = parse("presets", PRESETS_FLAGS, args)?;
    if p.help {
        return print_stdout(&help::command_help("presets").unwrap_or_default());
    }
    if let Some(extra) = p.positionals.first() {
        return Err(CliError::input(format!("presets: unexpected argument {extra:?}")));
    }
    print_stdout(&presets_text())
}

fn machine_of(e: &schedsim::Experiment) -> String {
    let m = &e.machine;
    let cpus = e.validate().map(|r| r.map.nr_cpus()).ok();
    let shape = match (&m.preset, &m.topology) {
        (Some(p), None) => p.clone(),
        (p, Some(TopologyInput::Spec(s))) => match p {
            Some(p) => format!("{s} with {p} costs"),
            None => s.clone(),
        },
        (_, Some(TopologyInput::Full(_))) => "custom topology".into(),
        (None, None) => "?".into(),
    };
    match cpus {
        Some(n) => format!("{shape} ({n} CPUs)"),
        None => shape,
    }
}

fn join<T: ToString>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

pub fn presets_text() -> String {
    let mut s = String::new();
    let presets = schedsim::presets::presets();
    let w = presets.iter().map(|p| p.name.len()).max().unwrap_or(0).max(4);
    let _ = writeln!(s, "Built-in experiments ('schedsim run NAME'; 'schedsim show NAME' prints one as JSON to edit):");
    for p in &presets {
        let e = &p.experiment;
        let _ = writeln!(s, "  {:<w$}  {}", p.name, p.description);
        let _ = writeln!(
            s,
            "  {:<w$}  machine {}, workload {}, clients {}, {} x {} ms",
            "",
            machine_of(e),
            e.workload.name(),
            join(&e.clients),
            e.iterations,
            e.duration_ms
        );
        let kernels: Vec<String> = e.kernels.iter().map(|k| format!("{}={}", k.name, k.label())).collect();
        let _ = writeln!(s, "  {:<w$}  kernels {}", "", kernels.join(" "));
    }

    let machines = schedsim::machine::machines();
    let w = machines.iter().map(|m| m.name.len()).max().unwrap_or(0).max(4);
    let _ = writeln!(s, "\nMachine presets (--machine NAME):");
    let _ = writeln!(s, "  {:<w$}  {:>4}  {:<9} DESCRIPTION", "NAME", "CPUS", "TOPOLOGY");
    for m in &machines {
        let _ = writeln!(
            s,
            "  {:<w$}  {:>4}  {:<9} {}",
            m.name,
            m.topology.cpu_count(),
            m.topology.spec().unwrap_or_else(|| "custom".into()),
            m.description
        );
    }

    let _ = writeln!(s, "\nWorkloads (--workload NAME; what --clients counts; the result):");
    for name in WORKLOAD_NAMES {
        if let Some(wl) = Workload::by_name(name) {
            let m = wl.metric();
            let _ = writeln!(
                s,
                "  {:<10} {:<20} {} ({}, {} is better)",
                name,
                wl.clients_meaning(),
                m.name,
                m.unit,
                if m.higher_is_better { "higher" } else { "lower" }
            );
        }
    }

    let _ = writeln!(
        s,
        "  {:<10} {:<20} rt-app work (CPUs busy, higher is better): --workload rtapp:FILE, an rt-app 1.0 task set",
        "rtapp", "copies of the task set"
    );
    for (name, what, _) in schedsim::workload::rtapp::RTAPP_PRESETS {
        let _ = writeln!(s, "  {:<10} {:<20} --workload rtapp:{name}: {what}", "", "");
    }

    let versions: Vec<&str> = KernelVersion::ALL.iter().map(|v| v.name()).collect();
    let _ = writeln!(s, "\nKernel versions (--kernel NAME=VERSION[+SWITCH][-SWITCH]...): {}", versions.join(" "));

    let sw = Switch::ALL.iter().map(|x| x.name().len()).max().unwrap_or(0);
    let _ = writeln!(s, "\nSwitches (+SWITCH turns on, -SWITCH turns off):");
    for x in Switch::ALL {
        let kind = if x.is_patch() {
            "patch"
        } else if x.is_preempt_model() {
            "preempt"
        } else if x.inert() {
            "inert"
        } else {
            "feature"
        };
        let _ = writeln!(s, "  {:<sw$}  {:<7}  {}", x.name(), kind, x.explain());
    }
    let _ = writeln!(s, "\nPreemption models (one preempt-* switch at a time; without one, the machine's model):");
    for m in schedsim::machine::machines() {
        let _ = writeln!(s, "  {:<14} {:<9} {}", m.name, m.preempt.name(), m.preempt_source);
    }
    let _ = writeln!(
        s,
        "  {:<14} {:<9} a machine given without a preset, unless machine.preempt says",
        "(a topology)", "full"
    );
    let _ = writeln!(
        s,
        "\nSwitch defaults by version (- = the code does not exist in that version; preempt-*: the machine's \
         model unless set):"
    );
    let mut head = format!("  {:<sw$}", "");
    for v in &versions {
        let _ = write!(head, " {v:>6}");
    }
    let _ = writeln!(s, "{head}");
    for x in Switch::ALL {
        let _ = write!(s, "  {:<sw$}", x.name());
        for v in KernelVersion::ALL {
            let cell = match x.default_in(v) {
                Some(true) => "on",
                Some(false) => "off",
                None => "-",
            };
            let _ = write!(s, " {cell:>6}");
        }
        s.push('\n');
    }
    let _ = writeln!(s, "\nPolicy script templates (--kernel NAME=VERSION+policy:template:NAME):");
    let tw = schedsim::policy::TEMPLATES.iter().map(|t| t.0.len()).max().unwrap_or(0);
    for t in schedsim::policy::TEMPLATES {
        let _ = writeln!(s, "  {:<tw$}  {}", t.0, t.1);
    }
    s
}

/// Checks `--kernel-index` and `--iteration` against the experiment (trace, perfetto).
pub fn check_run_choice(exp: &schedsim::Experiment, kernel: usize, iteration: u32) -> Result<(), CliError> {
    if kernel >= exp.kernels.len() {
        return Err(CliError::input(format!(
            "--kernel-index: {kernel} is out of range; the experiment has {} kernel(s), 0 to {}",
            exp.kernels.len(),
            exp.kernels.len() - 1
        )));
    }
    if iteration >= exp.iterations {
        return Err(CliError::input(format!(
            "--iteration: {iteration} is out of range; the experiment has {} iteration(s), 0 to {}",
            exp.iterations,
            exp.iterations - 1
        )));
    }
    Ok(())
}

/// `--mmtests-dir` is made and tried before anything runs, so a bad path fails at once
/// (exit 2) rather than after the simulation.
fn check_dir_writable(dir: &str) -> Result<(), CliError> {
    let bad = |e: std::io::Error| CliError::input(format!("--mmtests-dir: cannot write in {dir}: {e}"));
    if dir.is_empty() {
        return Err(CliError::input("--mmtests-dir: needs a directory name"));
    }
    std::fs::create_dir_all(dir).map_err(bad)?;
    let probe = std::path::Path::new(dir).join(format!(".schedsim-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).map_err(bad)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The directory name of kernel `name` under `--mmtests-dir`: path-safe (other
/// characters become `_`, and `.` or `..` get a leading `_`, so nothing lands outside).
fn mmtests_dir_name(name: &str) -> String {
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    if safe.chars().all(|c| c == '.') {
        format!("_{safe}")
    } else {
        safe
    }
}

/// Two kernels whose names make the same directory under `--mmtests-dir` would write
/// over each other's logs: refused before anything runs.
fn check_mmtests_names(exp: &schedsim::Experiment) -> Result<(), CliError> {
    for (i, k) in exp.kernels.iter().enumerate() {
        let d = mmtests_dir_name(&k.name);
        if let Some(o) = exp.kernels[..i].iter().find(|o| mmtests_dir_name(&o.name) == d) {
            return Err(CliError::input(format!(
                "--mmtests-dir: kernels {:?} and {:?} would both write to the directory {d:?}; rename one",
                o.name, k.name
            )));
        }
    }
    Ok(())
}

/// Writes the report as an mmtests results directory (`schedsim::mmtests::layout`):
/// `DIR/KERNEL/iter-N/...`, the files mmtests reads through `xzcat` xz-compressed
/// (`NAME.xz`, as the shellpacks' `xz` leaves them). lzma-rs writes xz with stored
/// (uncompressed) LZMA2 chunks: a valid `.xz` that `xz -d` reads, the same bytes on
/// every run, and a pure-Rust dependency rather than liblzma's C build.
fn write_mmtests_logs(dir: &str, report: &schedsim::Report) -> Result<(), CliError> {
    let files = schedsim::mmtests::layout(report).map_err(|e| CliError::input(format!("--mmtests-dir: {e}")))?;
    for f in files {
        let Some(c) = report.configs.get(f.kernel) else { continue };
        let mut path = std::path::Path::new(dir).join(mmtests_dir_name(&c.name));
        path.extend(f.path.split('/'));
        let bytes = if f.xz {
            let mut out = Vec::new();
            lzma_rs::xz_compress(&mut f.text.as_bytes(), &mut out)
                .map_err(|e| CliError::failure(format!("--mmtests-dir: cannot compress {}: {e}", path.display())))?;
            path.set_file_name(format!("{}.xz", path.file_name().unwrap_or_default().to_string_lossy()));
            out
        } else {
            f.text.into_bytes()
        };
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)
                .map_err(|e| CliError::failure(format!("--mmtests-dir: cannot create {}: {e}", d.display())))?;
        }
        std::fs::write(&path, bytes)
            .map_err(|e| CliError::failure(format!("--mmtests-dir: cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// `run --dry-run`: what the sweep would cost, from the library's estimate, without
/// running it: the events' central estimate and bound, and the CPU time at the
/// estimate's calibration, an upper figure for the presets, with policy scripts charged
/// at their operation budgets ([`schedsim::estimate::SweepCost`]).
fn dry_run(exp: &schedsim::Experiment, jobs: usize) -> Result<String, schedsim::Error> {
    use schedsim::estimate::{seconds_text, ESTIMATED_EVENTS_PER_CPU_SECOND, SCRIPT_NS_PER_OP};
    let c = schedsim::estimate::sweep_cost(exp)?;
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let cpu_ms = c.cpu_ms();
    let threads = (jobs as u64).clamp(1, c.runs.max(1));
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: {} ({} x {} x {}); not run (--dry-run)",
        exp.name,
        plural(c.runs as usize, "run", "runs"),
        plural(exp.kernels.len(), "kernel", "kernels"),
        plural(exp.clients.len(), "client count", "client counts"),
        plural(exp.iterations as usize, "iteration", "iterations"),
    );
    let _ = writeln!(
        t,
        "simulated events  about {}, at most {} (the library's estimate and its bound)",
        c.events, c.events_max
    );
    if c.script_ops > 0 {
        let _ = writeln!(
            t,
            "policy scripts    at most {} operations (their budgets), {SCRIPT_NS_PER_OP} ns an operation in the CPU time",
            c.script_ops
        );
    }
    let _ = writeln!(
        t,
        "CPU time          about {} s or less (the estimate's calibration: {ESTIMATED_EVENTS_PER_CPU_SECOND} \
         estimated events per CPU-second, the slowest preset's on the development machine)",
        seconds_text(cpu_ms)
    );
    let _ = writeln!(
        t,
        "wall time         about {} s or less with --jobs {threads}",
        seconds_text(cpu_ms.div_ceil(threads))
    );
    let _ = writeln!(
        t,
        "first iteration   about {} CPU-seconds or less (--iterations 1)",
        seconds_text(c.first_iteration_cpu_ms())
    );
    Ok(t)
}

pub fn run(args: &[String]) -> Result<(), CliError> {
    let p = parse("run", &run_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("run").unwrap_or_default());
    }
    check_formats("run", &p)?;
    if p.has("progress") && p.has("no-progress") {
        return Err(CliError::input("run: --progress and --no-progress contradict each other"));
    }
    let jobs = match p.number_in::<u32>("jobs", 1, crate::pool::JOBS_MAX as u64)? {
        None => crate::pool::default_jobs(),
        Some(n) if n == 0 || n as usize > crate::pool::JOBS_MAX => {
            return Err(CliError::input(format!("--jobs: {n} is out of range 1 to {}", crate::pool::JOBS_MAX)))
        }
        Some(n) => n as usize,
    };
    let t = target(&p, "run")?;
    if p.get("shard").is_some() || p.has("shard-count") {
        return crate::shard::run(&p, t, jobs);
    }
    if p.has("dry-run") {
        // Nothing is written to --out and nothing runs: the estimate is the output.
        let Loaded { exp, source } = load(t, &p)?;
        return print_stdout(
            &dry_run(&exp, jobs).map_err(|e| CliError::input(format!("{}{e}", source_label(&source))))?,
        );
    }
    let dest = Destination::open(p.get("out"))?;
    let Loaded { exp, source } = load(t, &p)?;
    check_mmtests_dir(&p, &exp)?;
    let mut line = ProgressLine::new(wanted(p.has("progress"), p.has("no-progress")));
    let (report, failure) = crate::pool::run(&exp, jobs, &mut line);
    line.finish();
    let failure = failure.map(|e| CliError::failure(format!("{}{e}", source_label(&source))));
    // A failure late in a sweep keeps what finished: it is written out, then the error.
    let Some(report) = report else {
        return Err(failure.unwrap_or_else(|| CliError::failure("the run produced no report")));
    };
    if failure.is_some() {
        eprintln!("schedsim: a run failed; writing the runs that finished before it");
    }
    write_report(&p, dest, &report)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// At most one of the report's formats (`run`, `merge`).
pub fn check_formats(command: &str, p: &Parsed) -> Result<(), CliError> {
    let formats = ["json", "csv", "counters-csv"].iter().filter(|f| p.has(f)).count();
    if formats > 1 {
        return Err(CliError::input(format!("{command}: choose one of --json, --csv, --counters-csv")));
    }
    Ok(())
}

/// `--mmtests-dir` is for the workloads mmtests has a benchmark for, with kernels that
/// make distinct directories, in a directory that can be written: checked before
/// anything runs.
pub fn check_mmtests_dir(p: &Parsed, exp: &schedsim::Experiment) -> Result<(), CliError> {
    let Some(dir) = p.get("mmtests-dir") else { return Ok(()) };
    schedsim::mmtests::benchmark(&exp.workload)
        .map_err(|e| CliError::input(format!("--mmtests-dir: nothing to write for {}: {e}", exp.workload.name())))?;
    check_mmtests_names(exp)?;
    check_dir_writable(dir)
}

/// Writes a sweep's report as `run` does: `--mmtests-dir`'s logs, then the table,
/// `--json`, `--csv` or `--counters-csv` to `dest`. `merge` writes through this too,
/// which is what makes its output the same bytes as `run`'s.
pub fn write_report(p: &Parsed, dest: Destination, report: &schedsim::Report) -> Result<(), CliError> {
    if let Some(dir) = p.get("mmtests-dir") {
        write_mmtests_logs(dir, report)?;
    }
    let text = if p.has("json") {
        let mut j = report.to_json();
        j.push('\n');
        j
    } else if p.has("csv") {
        report.samples_csv()
    } else if p.has("counters-csv") {
        report.counters_csv()
    } else {
        report.mmtests_table()
    };
    dest.write(&text)
}

pub fn show(args: &[String]) -> Result<(), CliError> {
    let p = parse("show", &show_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("show").unwrap_or_default());
    }
    let t = target(&p, "show")?;
    if t.is_none() && !p.has("topology") && !p.has("topology-file") && !p.has("machine") {
        return Err(CliError::input(format!(
            "show: give a PRESET (one of {}) or FILE, or flags with --topology/--topology-file/--machine",
            crate::experiment_args::preset_names().join(", ")
        )));
    }
    let dest = Destination::open(p.get("out"))?;
    let Loaded { mut exp, .. } = load(t, &p)?;
    if p.has("with-costs") {
        // machine.costs replaces the preset's costs as a whole, so it is written whole.
        let r = exp.machine.resolve().map_err(|e| CliError::input(format!("show: {e}")))?;
        exp.machine.costs = Some(r.costs);
    }
    if let Some(format) = p.get("as") {
        if format != "rtapp" {
            return Err(CliError::input(format!(
                "--as: {:?} is not a format; rtapp is",
                schedsim::input::clip(format)
            )));
        }
        let clients = exp.clients.first().copied().unwrap_or(1);
        let (text, notes) = schedsim::workload::rtapp::to_rtapp(&exp.workload, clients, exp.duration_ms.div_ceil(1000))
            .map_err(CliError::input)?;
        for n in notes {
            eprintln!("schedsim: {n}");
        }
        return dest.write(&text);
    }
    if p.has("scripts") {
        // Each kernel's policy script as it is, for reading or editing.
        let mut s = String::new();
        for k in exp.kernels.iter().filter(|k| k.policy.is_some()) {
            let _ = writeln!(s, "// kernel {}\n{}", k.name_with_label(), k.policy.as_deref().unwrap_or_default());
        }
        if s.is_empty() {
            s = "no kernel of this experiment has a policy script\n".into();
        }
        return dest.write(&s);
    }
    let mut j = exp.to_json();
    j.push('\n');
    dest.write(&j)
}

pub fn trace(args: &[String]) -> Result<(), CliError> {
    let p = parse("trace", &trace_flags(), args)?;
    if p.help {
        return print_stdout(&help::command_help("trace").unwrap_or_default());
    }
    let t = target(&p, "trace")?;
    if let Some(c) = p.get("clients") {
        if crate::args::parse_number::<u32>(c).is_none() {
            return Err(CliError::input(format!(
                "--clients: {c:?} is not a whole number; trace takes one client count"
            )));
        }
    }
    let kernel = p.number::<usize>("kernel-index")?.unwrap_or(0);
    let iteration = p.number::<u32>("iteration")?.unwrap_or(0);
    let from = p.number::<u64>("from")?.unwrap_or(0);
    let count = p.number_in::<u32>("count", 1, TRACE_WAKEUPS_MAX as u64)?.unwrap_or(5);
    if count == 0 || count > TRACE_WAKEUPS_MAX {
        return Err(CliError::input(format!("--count: {count} is out of range 1 to {TRACE_WAKEUPS_MAX}")));
    }
    if from.checked_add(count as u64).is_none() {
        return Err(CliError::input(format!("--from: {from} is too large; --from plus --count must fit in 64 bits")));
    }
    let dest = Destination::open(p.get("out"))?;
    // `--clients N` makes the experiment's client list [N], so its limits are checked.
    let Loaded { exp, source } = load(t, &p)?;
    check_run_choice(&exp, kernel, iteration)?;
    let clients = exp.clients[0];
    let traces = exp
        .trace(kernel, clients, iteration, TraceWindow { from, count })
        .map_err(|e| CliError::failure(format!("{}{e}", source_label(&source))))?;
    let text = if p.has("json") {
        let mut j = serde_json::to_string_pretty(&traces)
            .map_err(|e| CliError::failure(format!("cannot encode the traces as JSON: {e}")))?;
        j.push('\n');
        j
    } else {
        let k = &exp.kernels[kernel];
        let mut s = format!(
            "{}: kernel {}, {}, iteration {}, wakeups {} to {} from the start of the run ({} ms of warm-up)\n",
            if exp.name.is_empty() { "experiment" } else { &exp.name },
            k.name_with_label(),
            exp.workload.clients_of(clients as u64),
            iteration,
            from,
            from.saturating_add(count as u64 - 1),
            exp.warmup_ms
        );
        for tr in &traces {
            s.push('\n');
            s.push_str(&tr.render());
        }
        if (traces.len() as u64) < count as u64 {
            let _ = writeln!(
                s,
                "\n({} of {count} wakeups traced: the run ended after {} ms with fewer wakeups)",
                traces.len(),
                exp.duration_ms
            );
        }
        s
    };
    dest.write(&text)
}
