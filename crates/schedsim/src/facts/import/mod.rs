//! Importing a real machine's topology from what Linux tools print.
//!
//! [`topology_from_text`] reads, and tells apart by their look:
//!
//! 1. `lscpu -p` (also `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE` and other column lists):
//!    `#` comments, the last of which names the columns, then comma-separated rows.
//! 2. `lscpu -e` / `lscpu --extended`: a whitespace table with a `CPU NODE SOCKET ...`
//!    header; offline CPUs show `-` fields and ONLINE `no`.
//! 3. sysfs: `grep . /sys/devices/system/cpu/cpu*/topology/*
//!    /sys/devices/system/cpu/cpu*/cache/index*/shared_cpu_list` (lines `PATH:VALUE`),
//!    or the same files through `tail -n +1` (`==> PATH <==` headers, value below).
//! 4. `numactl --hardware`, anywhere in the same text: the `node distances:` table
//!    becomes [`Topology::numa_distance`]; `node N cpus:` lines give node membership
//!    when the CPU table has none.
//!
//! Grouping follows the scheduler's view: node (NUMA node, else socket) ⊃ LLC (the
//! highest cache level the input names for that CPU, else one per socket) ⊃ core
//! (SMT siblings) ⊃ threads. Offline CPUs are left out and said so in
//! [`Imported::notes`]. schedsim numbers CPUs its own way (first thread of every core,
//! then the second threads; see [`crate::facts::topology`]), so [`Imported::cpu_map`] relates
//! Linux's numbers to schedsim's.
//!
//! ```
//! let text = "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,0,0,0,,0,0,0,0\n";
//! let imp = schedsim::import::topology_from_text(text).unwrap();
//! assert_eq!(imp.topology.cpu_count(), 2);
//! assert_eq!(imp.format, "lscpu -p");
//! assert_eq!(imp.cpu_map, [(0, 0), (1, 1)]);
//! ```

use crate::facts::topology::Topology;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

mod assemble;
mod lscpu;
mod numactl;
mod sysfs;

use assemble::assemble;
use lscpu::{parse_lscpu_e, parse_lscpu_p};
use numactl::take_numactl;
use sysfs::{parse_sysfs, sys_path, SysPath};

/// Highest Linux CPU number accepted (the kernel's largest `NR_CPUS` is 8192).
pub const LINUX_CPU_MAX: u32 = 8191;

/// What [`topology_from_text`] reads, in words (also part of its "unknown format" error).
pub const ACCEPTED_FORMATS: &str = "`lscpu -p` (or `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE`), `lscpu -e`, \
or sysfs as printed by `grep . /sys/devices/system/cpu/cpu*/topology/* \
/sys/devices/system/cpu/cpu*/cache/index*/shared_cpu_list` (or `tail -n +1` of the same files), \
each optionally followed by `numactl --hardware`";

/// A topology read from a real machine's tool output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// Valid: passes [`Topology::validate`].
    pub topology: Topology,
    /// Which format was read, e.g. `"lscpu -p"` or `"sysfs + numactl --hardware"`.
    pub format: &'static str,
    /// `(Linux CPU, schedsim CPU)` for every imported CPU, ascending by Linux number.
    pub cpu_map: Vec<(u32, u32)>,
    /// What was left out, assumed or changed (offline CPUs, fallbacks, renumbering).
    pub notes: Vec<String>,
}

impl Imported {
    /// schedsim's number for Linux CPU `linux`, if it was imported.
    pub fn schedsim_cpu(&self, linux: u32) -> Option<u32> {
        self.cpu_map.iter().find(|m| m.0 == linux).map(|m| m.1)
    }

    /// Linux's number for schedsim CPU `cpu`.
    pub fn linux_cpu(&self, cpu: u32) -> Option<u32> {
        self.cpu_map.iter().find(|m| m.1 == cpu).map(|m| m.0)
    }
}

/// A replay's CPU map (`ReplayParams::cpu_map`) for a trace of `trace_cpus` CPUs
/// recorded on the machine whose import renumbered its CPUs as `cpu_map` says (`(Linux
/// CPU, schedsim CPU)`, [`Imported::cpu_map`]): each trace CPU, a Linux number, at its
/// schedsim number, so that pinning and the observed column put the trace's CPUs
/// where they are (SMT siblings stay siblings). Empty when nothing moved. The error
/// names the first trace CPU the import does not have.
pub fn replay_cpu_map(cpu_map: &[(u32, u32)], trace_cpus: u32) -> Result<Vec<u32>, String> {
    let map: Vec<u32> = (0..trace_cpus)
        .map(|c| match cpu_map.binary_search_by_key(&c, |m| m.0) {
            Ok(i) => Ok(cpu_map[i].1),
            Err(_) => Err(format!("the trace names CPU {c}, which the topology does not have (offline?)")),
        })
        .collect::<Result<_, _>>()?;
    let same = map.iter().enumerate().all(|(i, &c)| i as u32 == c);
    Ok(if same { Vec::new() } else { map })
}

/// Why the text could not be read, and on which line (1-based) if one is to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    pub line: Option<usize>,
    pub message: String,
}

impl ImportError {
    fn at(line: usize, message: impl Into<String>) -> ImportError {
        ImportError { line: Some(line), message: message.into() }
    }

    fn whole(message: impl Into<String>) -> ImportError {
        ImportError { line: None, message: message.into() }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ImportError {}

type Res<T> = Result<T, ImportError>;

/// Reads a topology from `lscpu -p`, `lscpu -e` or sysfs text, with optional
/// `numactl --hardware` output anywhere in it. Never panics; every problem is an
/// [`ImportError`] naming the line where there is one.
pub fn topology_from_text(text: &str) -> Result<Imported, ImportError> {
    crate::facts::input::check_size("the topology text", text.len()).map_err(ImportError::whole)?;
    let text = crate::facts::input::strip_bom(text);
    let lines: Vec<&str> = text.lines().collect();
    // `used` marks lines already accounted for: blank lines, pasted shell prompts,
    // numactl output.
    let mut used: Vec<bool> = lines.iter().map(|l| is_blank_or_prompt(l)).collect();
    let numa = take_numactl(&lines, &mut used)?;
    let Some(first) = used.iter().position(|u| !u) else {
        return Err(if numa.is_some() {
            ImportError::whole(
                "numactl --hardware gives NUMA nodes and distances but not cores or caches; \
                 paste it after lscpu -p, lscpu -e or sysfs output",
            )
        } else {
            ImportError::whole(format!("no topology text; accepted: {ACCEPTED_FORMATS}"))
        });
    };
    let kind = detect(&lines, &used, first)?;
    let table = match kind {
        Kind::LscpuP => parse_lscpu_p(&lines, &used)?,
        Kind::LscpuE => parse_lscpu_e(&lines, &used)?,
        Kind::Sysfs => parse_sysfs(&lines, &used)?,
    };
    let format = match (kind, numa.is_some()) {
        (Kind::LscpuP, false) => "lscpu -p",
        (Kind::LscpuP, true) => "lscpu -p + numactl --hardware",
        (Kind::LscpuE, false) => "lscpu -e",
        (Kind::LscpuE, true) => "lscpu -e + numactl --hardware",
        (Kind::Sysfs, false) => "sysfs",
        (Kind::Sysfs, true) => "sysfs + numactl --hardware",
    };
    assemble(format, table, numa.unwrap_or_default())
}

fn is_blank_or_prompt(l: &str) -> bool {
    let t = l.trim();
    t.is_empty() || t == "$" || t.starts_with("$ ")
}

/// A short, printable excerpt of a line for messages.
fn snippet(s: &str) -> String {
    let t = s.trim();
    let mut out: String = t.chars().take(60).collect();
    if t.chars().count() > 60 {
        out.push('…');
    }
    format!("{out:?}")
}

// ---------------------------------------------------------------------------------
// What every format is reduced to.

/// How a CPU's core is told apart from other cores of the same socket.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CoreKey {
    /// A core id (lscpu's Core column, sysfs core_id).
    Id(i64),
    /// The lowest CPU of the sysfs sibling list.
    Siblings(u32),
    /// Nothing known: the CPU is a core of its own.
    Alone(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LlcId {
    /// An lscpu cache id.
    Id(i64),
    /// A sysfs shared_cpu_list.
    Set(Vec<u32>),
}

#[derive(Clone, Debug)]
struct Llc {
    /// Cache level (or sysfs index when the level is not given); higher is farther.
    rank: u32,
    /// `L3`, `index2`, ... for notes.
    label: String,
    id: LlcId,
}

/// One online CPU as the input describes it.
#[derive(Clone, Debug)]
struct Rec {
    cpu: u32,
    line: usize,
    node: Option<i64>,
    socket: Option<i64>,
    /// Drawer, book, die, cluster: only to keep apart cores whose ids repeat in each.
    outer: [Option<i64>; 4],
    core: Option<CoreKey>,
    llc: Option<Llc>,
}

/// A parsed CPU table.
#[derive(Default)]
struct Table {
    recs: Vec<Rec>,
    /// Offline CPUs and how the input said so.
    offline: BTreeSet<u32>,
    offline_why: &'static str,
    /// CPUs the input names (in a list, a node, ...) without describing them.
    mentioned: BTreeSet<u32>,
    /// Node membership the CPU table itself gives (sysfs node/nodeN/cpulist).
    node_cpus: BTreeMap<u32, Vec<u32>>,
    notes: Vec<String>,
}

#[derive(Default)]
struct Numa {
    /// `node N cpus:` lines: node -> CPUs.
    node_cpus: BTreeMap<u32, Vec<u32>>,
    /// `node distances:` table: node ids in header order, rows, line of the header.
    distance: Option<(Vec<u32>, Vec<Vec<u32>>, usize)>,
}

fn parse_cpu(tok: &str, line: usize, what: &str) -> Res<u32> {
    let t = tok.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ImportError::at(line, format!("{what} is {t:?}, expected a CPU number")));
    }
    match t.parse::<u32>() {
        Ok(n) if n <= LINUX_CPU_MAX => Ok(n),
        _ => Err(ImportError::at(line, format!("{what} {t} is above {LINUX_CPU_MAX}, the largest Linux CPU number"))),
    }
}

/// A Linux CPU list such as `0-3,8,10-11` (empty means none).
fn parse_cpu_list(s: &str, line: usize, what: &str) -> Res<Vec<u32>> {
    let mut bits = vec![0u64; (LINUX_CPU_MAX as usize + 1) / 64];
    let bad = || ImportError::at(line, format!("{what} is {:?}, expected a CPU list such as 0-3,8", s.trim()));
    let s = s.trim();
    if s.is_empty() {
        return Ok(Vec::new());
    }
    for part in s.split(',') {
        let part = part.trim();
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let num = |x: &str| -> Res<u32> {
            if x.is_empty() || !x.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            parse_cpu(x, line, what)
        };
        let (a, b) = (num(a)?, num(b)?);
        if a > b {
            return Err(bad());
        }
        let mut i = a;
        while i <= b {
            if i % 64 == 0 && b - i >= 63 {
                bits[(i / 64) as usize] = !0;
                i += 64;
            } else {
                bits[(i / 64) as usize] |= 1 << (i % 64);
                i += 1;
            }
        }
    }
    let mut out = Vec::new();
    for (w, word) in bits.iter().enumerate() {
        if *word != 0 {
            for b in 0..64 {
                if word & (1u64 << b) != 0 {
                    out.push(w as u32 * 64 + b);
                }
            }
        }
    }
    Ok(out)
}

/// Formats CPUs as a Linux CPU list, `0-3,8`.
pub fn format_cpu_list(cpus: &[u32]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(",")
}

// ---------------------------------------------------------------------------------
// Telling the formats apart

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    LscpuP,
    LscpuE,
    Sysfs,
}

fn detect(lines: &[&str], used: &[bool], first: usize) -> Res<Kind> {
    let unused = || (0..lines.len()).filter(|&i| !used[i]).map(|i| lines[i].trim());
    if unused().any(|t| {
        t.starts_with("==>") || t.split_once(':').is_some_and(|(p, _)| sys_path(p).is_some_and(|s| s != SysPath::Other))
    }) {
        return Ok(Kind::Sysfs);
    }
    // The first line that is not a comment (lscpu -p starts with four of them).
    let at = (first..lines.len()).find(|&i| !used[i] && !lines[i].trim().starts_with('#')).unwrap_or(first);
    let t = lines[at].trim();
    let p_header = |t: &str| {
        t.strip_prefix('#').is_some_and(|b| b.split(',').next().is_some_and(|f| f.trim().eq_ignore_ascii_case("cpu")))
    };
    if unused().any(p_header)
        || t.split(',').next().is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
    {
        return Ok(Kind::LscpuP);
    }
    if t.split_whitespace().next().is_some_and(|w| w.eq_ignore_ascii_case("cpu")) {
        return Ok(Kind::LscpuE);
    }
    if unused().any(|t| t.starts_with("Architecture:") || t.starts_with("Model name:")) {
        return Err(ImportError::at(
            first + 1,
            format!("this looks like plain `lscpu` output, which has no per-CPU table; accepted: {ACCEPTED_FORMATS}"),
        ));
    }
    Err(ImportError::at(at + 1, format!("unrecognised topology text {}; accepted: {ACCEPTED_FORMATS}", snippet(t))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8,10-11", 1, "x").unwrap(), [0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse_cpu_list("0-127", 1, "x").unwrap().len(), 128);
        assert_eq!(parse_cpu_list("", 1, "x").unwrap(), Vec::<u32>::new());
        assert!(parse_cpu_list("3-1", 1, "x").is_err());
        assert!(parse_cpu_list("0-9000", 1, "x").is_err());
        assert!(parse_cpu_list("a", 1, "x").is_err());
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
    }
}
