//! Building an experiment from `FILE|PRESET` and/or flags, and reporting what is
//! wrong with it in one line that names the file or the flag and the field.

use crate::args::{parse_number, Flag, Parsed};
use crate::error::CliError;
use schedsim::experiment::{Experiment, MachineSpec};
use schedsim::kernel::{KernelSpec, KernelVersion};
use schedsim::topology::Topology;
use schedsim::topology::TopologyInput;
use schedsim::workload::{Workload, WORKLOAD_NAMES};

/// Flags that set experiment fields; shared by `run`, `show` and `trace`.
pub const EXPERIMENT_FLAGS: &[Flag] = &[
    Flag::value("topology", "SPEC", "machine topology NODESxLLCSxCORESxTHREADS, e.g. 1x1x10x2\n(with --machine: that preset's costs on this topology)"),
    Flag::value("topology-file", "FILE", "topology of a real machine: lscpu -p, lscpu -e or sysfs text, with\nnumactl --hardware optionally appended (see 'schedsim help run');\nwith --machine: that preset's costs on this topology"),
    Flag::value("machine", "NAME", "machine preset, e.g. cascadelake-2s (see 'schedsim presets')"),
    Flag::value("workload", "NAME", "tbench, dbench, hackbench, pipe, schbench or memcache with default\nparameters, a JSON object such as '{\"kind\":\"tbench\",\"work_ns\":8000}', or\nrtapp:FILE, an rt-app 1.0 task set (JSON; what the model cannot run is refused by key),\nor rtapp:NAME, one of ours: pingpong, chain, periodic, convoy, barrier"),
    Flag::value("replay", "TRACE", "replay a real machine's scheduler trace as the workload: perf script\nor trace-cmd report text of sched events, or either gzipped (see\n'schedsim help replay'); --clients counts copies of it"),
    Flag::value("clients", "LIST", "client counts, e.g. 1,2,4 (pairs, groups, ... as the workload means)"),
    Flag::value("iterations", "N", "iterations per client count"),
    Flag::value("duration-ms", "MS", "simulated time per iteration; the warm-up becomes a tenth of it\nunless --warmup-ms is given"),
    Flag::value("warmup-ms", "MS", "simulated time before measuring starts"),
    Flag::value("seed", "N", "random seed (the same seed gives the same report)"),
    Flag::repeated("kernel", "SPEC", "kernel column NAME=VERSION[+SWITCH][-SWITCH]...[+policy:FILE], e.g.\nwakeprev=v4.15+wake-affine-prev; repeat for more columns\n(replaces the experiment's kernels). +policy:FILE places the wakeups\nwith a Rhai script (README, \"Policy scripts\"); +policy:template:NAME\ntakes a shipped template (schedsim presets lists them)"),
    Flag::value("shard-size", "N", "SHARED_RUNQ shard size in CPUs"),
    Flag::value("cgroup-depth", "N", "task-group levels the benchmark runs in (0 to 16; 0, the root\ngroup, by default): update_blocked_averages() walks one cfs_rq per level"),
    Flag::value("other-cgroups", "N", "other task groups with blocked load on every CPU (0 to 4096, 0 by\ndefault): each one more cfs_rq for update_blocked_averages() to walk"),
    Flag::value("name", "NAME", "experiment name shown in the table header"),
];

/// Where the experiment came from, for error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    File(String),
    Preset(String),
    Flags,
}

/// A loaded, overridden and validated experiment.
pub struct Loaded {
    pub exp: Experiment,
    pub source: Source,
}

/// Reads `FILE|PRESET` (if given), applies the experiment flags, validates.
pub fn load(target: Option<&str>, p: &Parsed) -> Result<Loaded, CliError> {
    let (base, source) = match target {
        Some(t) => load_target(t)?,
        None => (None, Source::Flags),
    };
    let mut exp = match base {
        Some(e) => e,
        None => from_flags_only(p)?,
    };
    let notes = apply_flags(&mut exp, p)?;
    if let Err(e) = exp.validate() {
        return Err(attribute(&e.0, &source, p));
    }
    // What the topology import assumed or left out (offline CPUs, renumbering): worth
    // knowing, not worth failing for.
    for n in notes {
        eprintln!("schedsim: {n}");
    }
    Ok(Loaded { exp, source })
}

/// A file if one exists at that path, else a preset name, else a clear error.
fn load_target(t: &str) -> Result<(Option<Experiment>, Source), CliError> {
    let path = std::path::Path::new(t);
    let looks_like_path = t.contains('/') || t.contains('\\') || t.ends_with(".json") || t.starts_with('.');
    if path.exists() || looks_like_path {
        let text = read_text(t)?;
        if schedsim::input::strip_bom(&text).trim().is_empty() {
            return Err(CliError::input(format!("{t}: the file is empty; expected experiment JSON")));
        }
        // Parse without validating, so flags can fix a field before the limits are
        // checked; the library names the field path.
        if !looks_like_path && schedsim::presets::experiment(t).is_some() {
            eprintln!("schedsim: {t}: reading the file of that name here, not the preset {t}");
        }
        match Experiment::parse_json(&text) {
            Ok(e) => Ok((Some(e), Source::File(t.to_string()))),
            Err(e) => Err(CliError::input(format!("{t}: {}", with_field_prefix(&e.0)))),
        }
    } else {
        match schedsim::presets::experiment(t) {
            Some(e) => Ok((Some(e), Source::Preset(t.to_string()))),
            None => Err(CliError::input(format!(
                "{:?} is neither a file nor a preset; presets are {}",
                schedsim::input::clip(t),
                preset_names().join(", ")
            ))),
        }
    }
}

/// A text file's contents, at most [`schedsim::input::INPUT_BYTES_MAX`] bytes (so
/// `/dev/zero` is refused rather than read until memory runs out), or an error naming
/// it and saying why not.
fn read_text(file: &str) -> Result<String, CliError> {
    use std::io::Read;
    let max = schedsim::input::INPUT_BYTES_MAX;
    let why = |e: std::io::Error| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::InvalidData => "not UTF-8 text".to_string(),
            _ => e.to_string(),
        };
        CliError::input(format!("{file}: cannot read: {why}"))
    };
    let f = std::fs::File::open(file).map_err(why)?;
    let mut bytes = Vec::new();
    f.take(max as u64 + 1).read_to_end(&mut bytes).map_err(why)?;
    if bytes.len() > max {
        return Err(CliError::input(format!(
            "{file}: larger than {} MB; experiments and topology texts are at most {} MB",
            max / 1_048_576,
            max / 1_048_576
        )));
    }
    String::from_utf8(bytes).map_err(|_| CliError::input(format!("{file}: cannot read: not UTF-8 text")))
}

/// `file`'s bytes, at most `max` + 1 of them (one more than allowed says it is too
/// large, and no more is read); the error names the file.
fn read_at_most(file: &str, max: usize) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let why = |e: std::io::Error| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        CliError::input(format!("{file}: cannot read: {why}"))
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file).map_err(why)?.take(max as u64 + 1).read_to_end(&mut bytes).map_err(why)?;
    Ok(bytes)
}

/// Reads and imports a trace file (perf script or trace-cmd report text, or either
/// gzip-compressed) as a stream (`sched_trace::import_read`): memory holds the events,
/// not the text. Every error names the file, and the line where there is one.
pub fn import_trace_file(file: &str) -> Result<schedsim::sched_trace::Trace, CliError> {
    if file.is_empty() {
        return Err(CliError::input("--replay: needs a trace file name"));
    }
    let mut f = std::fs::File::open(file).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        CliError::input(format!("{file}: cannot read: {why}"))
    })?;
    let name = std::path::Path::new(file).file_name().and_then(|n| n.to_str()).unwrap_or(file);
    schedsim::sched_trace::import_read(&mut f, name, &mut |_| true).map_err(|e| CliError::input(e.to_string()))
}

pub fn preset_names() -> Vec<&'static str> {
    schedsim::presets::presets().iter().map(|p| p.name).collect()
}

/// Without FILE/PRESET: defaults for everything but the machine.
fn from_flags_only(p: &Parsed) -> Result<Experiment, CliError> {
    if !p.has("topology") && !p.has("topology-file") && !p.has("machine") {
        return Err(CliError::input(
            "give an experiment FILE or PRESET, or at least --topology SPEC, --topology-file FILE or --machine NAME \
             (see 'schedsim presets')",
        ));
    }
    let workload = Workload::by_name("tbench").expect("tbench is a built-in workload");
    let kernels = vec![KernelSpec::new("v5.15", KernelVersion::V5_15)];
    Ok(Experiment::new("command-line", MachineSpec::default(), workload, &[1, 2, 4], kernels))
}

/// What the machine flags leave besides the machine.
#[derive(Default)]
pub struct MachineFlags {
    /// What `--topology-file` assumed or left out, for stderr.
    pub notes: Vec<String>,
    /// `--topology-file`'s renumbering, `(Linux CPU, schedsim CPU)`: a replay's trace
    /// is in Linux's numbers ([`replay_on_machine`]).
    pub linux_cpus: Option<Vec<(u32, u32)>>,
}

/// A replay's CPU map from `--topology-file`'s renumbering, if the machine came from one;
/// the error names the file.
pub fn replay_on_machine(exp: &mut Experiment, flags: &MachineFlags, p: &Parsed) -> Result<(), CliError> {
    let (Some(map), Workload::Replay(r)) = (&flags.linux_cpus, &mut exp.workload) else { return Ok(()) };
    r.cpu_map = schedsim::import::replay_cpu_map(map, r.trace_cpus)
        .map_err(|e| CliError::input(format!("{}: {e}", p.get("topology-file").unwrap_or_default())))?;
    Ok(())
}

/// Applies --machine, --topology and --topology-file.
pub fn apply_machine_flags(machine: &mut MachineSpec, p: &Parsed) -> Result<MachineFlags, CliError> {
    let mut flags = MachineFlags::default();
    let notes = &mut flags.notes;
    if p.has("topology") && p.has("topology-file") {
        return Err(CliError::input("--topology-file: give either --topology or --topology-file, not both"));
    }
    if let Some(name) = p.get("machine") {
        if schedsim::machine::machine(name).is_none() {
            let names: Vec<&str> = schedsim::machine::machines().iter().map(|m| m.name).collect();
            return Err(CliError::input(format!(
                "--machine: unknown machine {name:?}, expected one of {}",
                names.join(", ")
            )));
        }
        *machine = MachineSpec { preset: Some(name.to_string()), topology: None, costs: None, preempt: None };
    }
    if let Some(spec) = p.get("topology") {
        let t = Topology::parse_spec(spec).map_err(|e| CliError::input(format!("--topology: {e}")))?;
        // Keep the compact form in the experiment when it round-trips, so `show`
        // prints what the user typed.
        machine.topology = Some(match t.spec() {
            Some(s) => TopologyInput::Spec(s),
            None => TopologyInput::Full(t),
        });
        // The machine's preset and cost model (per-CPU facts, independent of the
        // shape) stay: `--topology` on cascadelake-2s means its costs on this shape.
    }
    if let Some(file) = p.get("topology-file") {
        if file.is_empty() {
            return Err(CliError::input("--topology-file: needs a file name"));
        }
        let imported = schedsim::import::topology_from_text(&read_text(file)?)
            .map_err(|e| CliError::input(format!("{file}: {e}")))?;
        // Always the full tree: an imported machine is rarely uniform, and when it is
        // the JSON still says exactly what was read. Preset and costs stay, as with
        // --topology.
        let t = &imported.topology;
        let llcs: usize = t.nodes.iter().map(|n| n.llcs.len()).sum();
        let cores: usize = t.nodes.iter().flat_map(|n| &n.llcs).map(|l| l.cores.len()).sum();
        notes.push(format!(
            "{file}: read as {}: {} node(s), {llcs} LLC(s), {cores} core(s), {} CPUs",
            imported.format,
            t.nodes.len(),
            t.cpu_count()
        ));
        notes.extend(imported.notes.iter().map(|n| format!("{file}: note: {n}")));
        machine.topology = Some(TopologyInput::Full(imported.topology));
        flags.linux_cpus = Some(imported.cpu_map);
    }
    Ok(flags)
}

/// Applies every experiment flag given. Syntax errors name the flag. Returns notes
/// for stderr (what `--topology-file` assumed or left out).
pub fn apply_flags(exp: &mut Experiment, p: &Parsed) -> Result<Vec<String>, CliError> {
    let mut machine = apply_machine_flags(&mut exp.machine, p)?;
    let mut notes = std::mem::take(&mut machine.notes);
    if let Some(w) = p.get("workload") {
        if w == "replay" && !p.has("replay") {
            return Err(CliError::input("--workload: replay needs its trace: give it with --replay TRACE"));
        }
        if w != "replay" {
            exp.workload = parse_workload(w)?;
        }
        if let Workload::Rtapp(r) = &exp.workload {
            notes.extend(r.notes().iter().map(|n| format!("{}: {n}", r.file)));
        }
    }
    if let Some(file) = p.get("replay") {
        let trace = import_trace_file(file)?;
        notes.push(format!(
            "{file}: {} tasks, {} wakeups, {} CPUs, {:.3} ms traced",
            trace.tasks.len(),
            trace.wakes.len(),
            trace.cpus,
            trace.span_ns as f64 / 1e6
        ));
        // A CPU past the machine is named with its line, as `replay` names it.
        if let Ok(m) = exp.machine.resolve() {
            trace.check_cpus(m.map.nr_cpus()).map_err(|e| CliError::input(e.to_string()))?;
        }
        exp.workload = Workload::Replay(trace.replay_params());
    }
    replay_on_machine(exp, &machine, p)?;
    if let Some(c) = p.get("clients") {
        exp.clients = parse_clients(c)?;
    }
    if let Some(n) = p.number_in::<u32>("iterations", 1, schedsim::experiment::ITERATIONS_MAX as u64)? {
        exp.iterations = n;
    }
    if let Some(d) = p.number_in::<u64>("duration-ms", 1, schedsim::experiment::DURATION_MS_MAX)? {
        exp.duration_ms = d;
        if !p.has("warmup-ms") {
            exp.warmup_ms = d / schedsim::experiment::DEFAULT_WARMUP_DIVISOR;
        }
    }
    if let Some(w) = p.number::<u64>("warmup-ms")? {
        exp.warmup_ms = w;
    }
    if let Some(s) = p.number::<u64>("seed")? {
        exp.seed = s;
    }
    let kernels = p.all("kernel");
    if !kernels.is_empty() {
        exp.kernels = kernels.iter().map(|k| kernel_arg(k)).collect::<Result<_, _>>()?;
    }
    if let Some(s) = p.number_in::<u32>("shard-size", 1, schedsim::experiment::SHARD_SIZE_MAX as u64)? {
        exp.shard_size = s;
    }
    if let Some(d) = p.number_in::<u32>("cgroup-depth", 0, schedsim::experiment::CGROUP_DEPTH_MAX as u64)? {
        exp.cgroup_depth = d;
    }
    if let Some(n) = p.number_in::<u32>("other-cgroups", 0, schedsim::experiment::OTHER_CGROUPS_MAX as u64)? {
        exp.other_cgroups = n;
    }
    if let Some(n) = p.get("name") {
        exp.name = n.to_string();
    }
    Ok(notes)
}

/// `rtapp:FILE`: an rt-app JSON file as the workload (at most
/// `RTAPP_BYTES_MAX` bytes, read no further).
fn rtapp_file(file: &str) -> Result<Workload, CliError> {
    use schedsim::workload::rtapp::RTAPP_BYTES_MAX;
    if file.is_empty() {
        return Err(CliError::input("--workload rtapp:FILE: needs a file name"));
    }
    // One of our examples by name, unless a file of that name is here.
    if let Some((name, text)) =
        schedsim::workload::rtapp::rtapp_preset(file).filter(|_| !std::path::Path::new(file).exists())
    {
        return schedsim::workload::RtappParams::new(&name, text).map(Workload::Rtapp).map_err(CliError::input);
    }
    let bytes = read_at_most(file, RTAPP_BYTES_MAX)?;
    if bytes.len() > RTAPP_BYTES_MAX {
        return Err(CliError::input(format!(
            "{file}: larger than {} KiB, the most an rt-app file may be",
            RTAPP_BYTES_MAX >> 10
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| CliError::input(format!("{file}: not UTF-8 text")))?;
    let name = std::path::Path::new(file).file_name().and_then(|n| n.to_str()).unwrap_or(file);
    schedsim::workload::RtappParams::new(name, &text).map(Workload::Rtapp).map_err(CliError::input)
}

pub fn parse_workload(w: &str) -> Result<Workload, CliError> {
    if let Some(file) = w.strip_prefix("rtapp:") {
        return rtapp_file(file);
    }
    if w.trim_start().starts_with('{') {
        // The reader of experiment files and links: field paths, no key given twice.
        return schedsim::input::from_json::<Workload>(w, "a workload")
            .map_err(|msg| CliError::input(format!("--workload: {msg}")));
    }
    Workload::by_name(w).ok_or_else(|| {
        CliError::input(format!(
            "--workload: unknown workload {:?}, expected one of {}",
            schedsim::input::clip(w),
            WORKLOAD_NAMES.join(", ")
        ))
    })
}

pub fn parse_clients(s: &str) -> Result<Vec<u32>, CliError> {
    let parts: Vec<Option<u32>> = s.split(',').map(|x| parse_number::<u32>(x.trim())).collect();
    if parts.is_empty() || parts.iter().any(Option::is_none) {
        return Err(CliError::input(format!(
            "--clients: {:?} is not a list of whole numbers (e.g. 1,2,4)",
            schedsim::input::clip(s)
        )));
    }
    Ok(parts.into_iter().flatten().collect())
}

/// The library's machine errors lack the `field ` prefix the others have.
fn with_field_prefix(msg: &str) -> String {
    if msg.starts_with("machine") {
        format!("field {msg}")
    } else {
        msg.to_string()
    }
}

/// The flag that sets a top-level field.
fn flag_of(field: &str, p: &Parsed) -> Option<&'static str> {
    let candidates: &[&'static str] = match field {
        "machine" | "machine.topology" => &["topology", "topology-file", "machine"],
        "machine.preset" | "machine.costs" => &["machine", "topology", "topology-file"],
        "workload" => &["replay", "workload"],
        "clients" => &["clients"],
        "iterations" => &["iterations"],
        "duration_ms" => &["duration-ms"],
        "warmup_ms" => &["warmup-ms", "duration-ms"],
        "seed" => &["seed"],
        "kernels" => &["kernel"],
        "shard_size" => &["shard-size"],
        "cgroup_depth" => &["cgroup-depth"],
        "other_cgroups" => &["other-cgroups"],
        "name" => &["name"],
        _ => &[],
    };
    candidates.iter().copied().find(|f| p.has(f))
}

/// Turns a validation message into one line that names the flag responsible if a flag
/// set that field, else the file or preset it came from.
pub fn attribute(msg: &str, source: &Source, p: &Parsed) -> CliError {
    let msg = with_field_prefix(msg);
    if let Some(rest) = msg.strip_prefix("field ") {
        if let Some((path, problem)) = rest.split_once(": ") {
            let top = path.split(['.', '[']).next().unwrap_or(path);
            let key = if path.starts_with("machine.") { path } else { top };
            if let Some(flag) = flag_of(key, p) {
                return if path == top || path.starts_with("machine") {
                    CliError::input(format!("--{flag}: {problem}"))
                } else {
                    CliError::input(format!("--{flag}: {path}: {problem}"))
                };
            }
        }
    }
    match source {
        Source::File(f) => CliError::input(format!("{f}: {msg}")),
        Source::Preset(n) => CliError::input(format!("preset {n}: {msg}")),
        Source::Flags => CliError::input(msg),
    }
}

/// A `--kernel` value: `NAME=VERSION[+SWITCH]...`, optionally ending in
/// `+policy:FILE` (a Rhai policy script) or `+policy:template:NAME` (a shipped one).
pub fn kernel_arg(k: &str) -> Result<KernelSpec, CliError> {
    let (spec, policy) = match k.find("+policy:") {
        Some(i) => (&k[..i], Some(&k[i + "+policy:".len()..])),
        None => (k, None),
    };
    let mut spec = KernelSpec::parse(spec).map_err(|e| CliError::input(format!("--kernel: {e}")))?;
    if let Some(path) = policy {
        let text = match path.strip_prefix("template:") {
            Some(name) => schedsim::policy::template(name).map(str::to_string).ok_or_else(|| {
                let names: Vec<&str> = schedsim::policy::TEMPLATES.iter().map(|t| t.0).collect();
                CliError::input(format!("--kernel: no policy template {name:?}, expected one of {}", names.join(", ")))
            })?,
            None => read_policy(path)?,
        };
        schedsim::check_policy(&text).map_err(|e| CliError::input(format!("--kernel {k}: {path}: {e}")))?;
        spec.policy = Some(text);
    }
    Ok(spec)
}

fn read_policy(path: &str) -> Result<String, CliError> {
    let max = schedsim::policy::POLICY_SOURCE_MAX as u64;
    let f = std::fs::File::open(path).map_err(|e| CliError::input(format!("--kernel: cannot read {path}: {e}")))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(f, max + 1), &mut text)
        .map_err(|e| CliError::input(format!("--kernel: cannot read {path}: {e}")))?;
    if text.len() as u64 > max {
        return Err(CliError::input(format!("--kernel: {path} is larger than {max} bytes")));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse;

    fn parsed(args: &[&str]) -> Parsed {
        let mut flags = EXPERIMENT_FLAGS.to_vec();
        flags.push(Flag::switch("json", ""));
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse("run", &flags, &v).unwrap()
    }

    #[test]
    fn flags_override_a_preset() {
        let p = parsed(&["--topology", "1x1x2x2", "--clients", "1,2", "--duration-ms", "20", "--kernel", "a=v5.15"]);
        let l = load(Some("demo"), &p).unwrap();
        assert_eq!(l.exp.clients, [1, 2]);
        assert_eq!(l.exp.duration_ms, 20);
        assert_eq!(l.exp.warmup_ms, 2);
        assert_eq!(l.exp.kernels.len(), 1);
        assert_eq!(l.exp.machine.preset.as_deref(), Some("teaching"));
        assert_eq!(l.exp.machine.topology, Some(TopologyInput::Spec("1x1x2x2".into())));
    }

    #[test]
    fn range_errors_name_the_flag() {
        let p = parsed(&["--topology", "1x1x2x2", "--iterations", "0"]);
        let e = load(None, &p).err().unwrap();
        assert!(e.msg.starts_with("--iterations: 0 is out of range"), "{}", e.msg);
        let p = parsed(&["--topology", "1x1x2x2", "--clients", "0"]);
        assert!(load(None, &p).err().unwrap().msg.starts_with("--clients: "));
        let p = parsed(&["--topology", "1x1x2x2", "--kernel", "a=v5.15", "--kernel", "a=v4.15"]);
        let e = load(None, &p).err().unwrap();
        assert!(e.msg.starts_with("--kernel: kernels[1].name: "), "{}", e.msg);
    }

    #[test]
    fn clients_lists() {
        assert_eq!(parse_clients("1, 2,4").unwrap(), [1, 2, 4]);
        assert!(parse_clients("1,x").unwrap_err().msg.contains("\"1,x\" is not a list of whole numbers"));
        assert!(parse_clients("").is_err());
        assert!(parse_clients("1,,2").is_err());
    }
}
