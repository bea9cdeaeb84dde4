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
//! then the second threads; see [`crate::topology`]), so [`Imported::cpu_map`] relates
//! Linux's numbers to schedsim's.
//!
//! ```
//! let text = "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,0,0,0,,0,0,0,0\n";
//! let imp = schedsim::import::topology_from_text(text).unwrap();
//! assert_eq!(imp.topology.cpu_count(), 2);
//! assert_eq!(imp.format, "lscpu -p");
//! assert_eq!(imp.cpu_map, [(0, 0), (1, 1)]);
//! ```

use crate::topology::{CoreDesc, LlcDesc, NodeDesc, Topology, CPUS_MAX, LOCAL_DISTANCE, THREADS_PER_CORE_MAX};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

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
    crate::input::check_size("the topology text", text.len()).map_err(ImportError::whole)?;
    let text = crate::input::strip_bom(text);
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
// numactl --hardware

fn take_numactl(lines: &[&str], used: &mut [bool]) -> Res<Option<Numa>> {
    let mut numa = Numa::default();
    let mut seen = false;
    let mut i = 0;
    while i < lines.len() {
        if used[i] {
            i += 1;
            continue;
        }
        let t = lines[i].trim();
        let lower = t.to_ascii_lowercase();
        if (lower.starts_with("available:") && lower.contains("node")) || lower.starts_with("no numa available") {
            used[i] = true;
            seen = true;
        } else if lower == "node distances:" {
            used[i] = true;
            seen = true;
            i = take_distances(lines, used, i + 1, &mut numa)?;
            continue;
        } else if let Some(rest) = t.strip_prefix("node ") {
            let tok: Vec<&str> = rest.split_whitespace().collect();
            if tok.len() >= 2
                && tok[0].bytes().all(|b| b.is_ascii_digit())
                && matches!(tok[1], "cpus:" | "size:" | "free:")
            {
                used[i] = true;
                seen = true;
                if tok[1] == "cpus:" {
                    let node = parse_node(tok[0], i + 1)?;
                    let cpus = tok[2..].iter().map(|c| parse_cpu(c, i + 1, "a CPU")).collect::<Res<Vec<u32>>>()?;
                    if numa.node_cpus.insert(node, cpus).is_some() {
                        return Err(ImportError::at(i + 1, format!("node {node} cpus are listed twice")));
                    }
                }
            }
        }
        i += 1;
    }
    Ok(seen.then_some(numa))
}

fn parse_node(tok: &str, line: usize) -> Res<u32> {
    match tok.parse::<u32>() {
        Ok(n) if n <= 4095 => Ok(n),
        _ => Err(ImportError::at(line, format!("node {tok:?} is not a node number (0 to 4095)"))),
    }
}

/// The table after `node distances:`; returns the index of the line after it.
fn take_distances(lines: &[&str], used: &mut [bool], start: usize, numa: &mut Numa) -> Res<usize> {
    let Some(h) = (start..lines.len()).find(|&j| !lines[j].trim().is_empty()) else {
        return Err(ImportError::at(start, "'node distances:' is not followed by the distance table"));
    };
    let tok: Vec<&str> = lines[h].split_whitespace().collect();
    if tok.first() != Some(&"node") || tok.len() < 2 {
        return Err(ImportError::at(
            h + 1,
            format!("expected the distance table header 'node 0 1 ...', found {}", snippet(lines[h])),
        ));
    }
    let ids = tok[1..].iter().map(|t| parse_node(t, h + 1)).collect::<Res<Vec<u32>>>()?;
    if ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
        return Err(ImportError::at(h + 1, "the distance table header names a node twice"));
    }
    used[h] = true;
    let count = ids.len();
    let mut rows = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let j = h + 1 + k;
        let Some(line) = lines.get(j) else {
            return Err(ImportError::at(
                lines.len().max(1),
                format!("the distance table ends after {k} of {} rows", ids.len()),
            ));
        };
        let tok: Vec<&str> = line.split_whitespace().collect();
        if tok.first() != Some(&format!("{id}:").as_str()) {
            return Err(ImportError::at(j + 1, format!("expected distance row '{id}:', found {}", snippet(line))));
        }
        if tok.len() - 1 != ids.len() {
            return Err(ImportError::at(
                j + 1,
                format!("distance row '{id}:' has {} values, expected {}", tok.len() - 1, ids.len()),
            ));
        }
        let row = tok[1..]
            .iter()
            .map(|t| {
                t.parse::<u32>().map_err(|_| ImportError::at(j + 1, format!("distance {t:?} is not a whole number")))
            })
            .collect::<Res<Vec<u32>>>()?;
        used[j] = true;
        rows.push(row);
    }
    numa.distance = Some((ids, rows, h + 1));
    Ok(h + 1 + count)
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

// ---------------------------------------------------------------------------------
// lscpu -p and lscpu -e

#[derive(Clone, Debug, PartialEq, Eq)]
enum Col {
    Cpu,
    Core,
    Socket,
    Node,
    Drawer,
    Book,
    Die,
    Cluster,
    Online,
    Configured,
    ModelName,
    /// One cache per column (compat `lscpu -p`: `,L1d,L1i,L2,L3`).
    Cache(CacheName),
    /// Several caches in one column, `L1d:L1i:L2:L3`.
    Caches(Vec<CacheName>),
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct CacheName {
    level: u32,
    instruction: bool,
    label: String,
}

fn cache_name(s: &str) -> Option<CacheName> {
    let b = s.as_bytes();
    if b.len() < 2 || !(b[0] == b'L' || b[0] == b'l') {
        return None;
    }
    let digits: String = s[1..].chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &s[1 + digits.len()..];
    let level = digits.parse::<u32>().ok().filter(|&l| (1..=9).contains(&l))?;
    let instruction = match rest.to_ascii_lowercase().as_str() {
        "" | "d" => false,
        "i" => true,
        _ => return None,
    };
    Some(CacheName { level, instruction, label: s.to_string() })
}

fn classify_col(name: &str) -> Col {
    match name.trim().to_ascii_lowercase().as_str() {
        "cpu" => Col::Cpu,
        "core" => Col::Core,
        "socket" => Col::Socket,
        "node" => Col::Node,
        "drawer" => Col::Drawer,
        "book" => Col::Book,
        "die" => Col::Die,
        "cluster" => Col::Cluster,
        "online" => Col::Online,
        "configured" => Col::Configured,
        "modelname" => Col::ModelName,
        n => {
            if let Some(c) = cache_name(name.trim()) {
                Col::Cache(c)
            } else if n.contains(':') {
                match name.trim().split(':').map(cache_name).collect::<Option<Vec<_>>>() {
                    Some(v) => Col::Caches(v),
                    None => Col::Other,
                }
            } else {
                Col::Other
            }
        }
    }
}

struct Header {
    names: Vec<String>,
    cols: Vec<Col>,
    /// As the user would recognise it in a message: `CPU,Core,Socket,Node,,L1d,L1i,L2,L3`.
    text: String,
}

impl Header {
    fn new(names: Vec<String>, sep: &str, line: usize) -> Res<Header> {
        let cols: Vec<Col> = names.iter().map(|n| classify_col(n)).collect();
        let text = names.join(sep);
        if !cols.contains(&Col::Cpu) {
            return Err(ImportError::at(line, format!("the header {text:?} has no CPU column")));
        }
        Ok(Header { names, cols, text })
    }

    /// How many fields a row needs for every column this importer reads.
    fn needed(&self) -> usize {
        self.cols.iter().rposition(|c| !matches!(c, Col::Other | Col::ModelName)).map_or(0, |i| i + 1)
    }
}

/// What one row says.
enum Row {
    Online(Rec),
    Offline(u32),
    /// No socket, core or cache: nothing to place it by.
    Unplaced(u32),
}

fn opt_id(v: &str, line: usize, name: &str) -> Res<Option<i64>> {
    let v = v.trim();
    if v.is_empty() || v == "-" {
        return Ok(None);
    }
    v.parse::<i64>()
        .map(Some)
        .map_err(|_| ImportError::at(line, format!("{name} is {v:?}, expected a number, '-' or nothing")))
}

fn yes_no(v: &str, line: usize, name: &str) -> Res<Option<bool>> {
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "-" => Ok(None),
        "y" | "yes" => Ok(Some(true)),
        "n" | "no" => Ok(Some(false)),
        other => Err(ImportError::at(line, format!("{name} is {other:?}, expected yes or no (Y or N)"))),
    }
}

fn read_row(h: &Header, fields: &[&str], line: usize) -> Res<Row> {
    let mut cpu = None;
    let (mut node, mut socket, mut core) = (None, None, None);
    let mut outer = [None; 4];
    let (mut online, mut configured) = (None, None);
    let mut caches: Vec<(CacheName, i64)> = Vec::new();
    for ((col, name), v) in h.cols.iter().zip(&h.names).zip(fields) {
        match col {
            Col::Cpu => cpu = Some(parse_cpu(v, line, name)?),
            Col::Core => core = opt_id(v, line, name)?,
            Col::Socket => socket = opt_id(v, line, name)?,
            Col::Node => node = opt_id(v, line, name)?,
            Col::Drawer => outer[0] = opt_id(v, line, name)?,
            Col::Book => outer[1] = opt_id(v, line, name)?,
            Col::Die => outer[2] = opt_id(v, line, name)?,
            Col::Cluster => outer[3] = opt_id(v, line, name)?,
            Col::Online => online = yes_no(v, line, name)?,
            Col::Configured => configured = yes_no(v, line, name)?,
            Col::Cache(c) => {
                if let Some(id) = opt_id(v, line, name)? {
                    caches.push((c.clone(), id));
                }
            }
            Col::Caches(cs) => {
                let v = v.trim();
                if v.is_empty() || v == "-" {
                    continue;
                }
                let parts: Vec<&str> = v.split(':').collect();
                if parts.len() != cs.len() {
                    return Err(ImportError::at(
                        line,
                        format!("{name} is {v:?}: {} ids, the header names {}", parts.len(), cs.len()),
                    ));
                }
                for (c, p) in cs.iter().zip(parts) {
                    if let Some(id) = opt_id(p, line, &c.label)? {
                        caches.push((c.clone(), id));
                    }
                }
            }
            Col::ModelName | Col::Other => {}
        }
    }
    let Some(cpu) = cpu else {
        return Err(ImportError::at(line, "no CPU number"));
    };
    if online == Some(false) || (online.is_none() && configured == Some(false)) {
        return Ok(Row::Offline(cpu));
    }
    if core.is_none() && socket.is_none() && caches.is_empty() && node.is_none() {
        return Ok(Row::Unplaced(cpu));
    }
    // The LLC is the farthest data or unified cache the row names.
    let llc = caches.iter().filter(|(c, _)| !c.instruction).max_by_key(|(c, _)| c.level).map(|(c, id)| Llc {
        rank: c.level,
        label: format!("L{}", c.level),
        id: LlcId::Id(*id),
    });
    Ok(Row::Online(Rec { cpu, line, node, socket, outer, core: core.map(CoreKey::Id), llc }))
}

/// Adds a row to the table, refusing a CPU seen before.
fn add_row(t: &mut Table, seen: &mut BTreeMap<u32, usize>, row: Row, line: usize) -> Res<()> {
    let cpu = match &row {
        Row::Online(r) => r.cpu,
        Row::Offline(c) | Row::Unplaced(c) => *c,
    };
    if let Some(first) = seen.insert(cpu, line) {
        return Err(ImportError::at(line, format!("CPU {cpu} appears twice (first on line {first})")));
    }
    match row {
        Row::Online(r) => t.recs.push(r),
        Row::Offline(c) => {
            t.offline.insert(c);
        }
        Row::Unplaced(c) => {
            t.mentioned.insert(c);
        }
    }
    Ok(())
}

fn parse_lscpu_p(lines: &[&str], used: &[bool]) -> Res<Table> {
    let mut t = Table { offline_why: "marked offline (Online N)", ..Table::default() };
    let mut seen = BTreeMap::new();
    let mut header: Option<Header> = None;
    for (i, raw) in lines.iter().enumerate() {
        if used[i] {
            continue;
        }
        let line = i + 1;
        let s = raw.trim();
        if let Some(body) = s.strip_prefix('#') {
            let body = body.trim();
            let first = body.split(',').next().unwrap_or("").trim();
            if first.eq_ignore_ascii_case("cpu") {
                let names = body.split(',').map(|n| n.trim().to_string()).collect();
                header = Some(Header::new(names, ",", line)?);
            }
            continue;
        }
        let Some(h) = &header else {
            return Err(ImportError::at(
                line,
                format!(
                    "found {} before the lscpu -p header line '# CPU,Core,Socket,Node,,L1d,L1i,L2,L3' \
                     (keep the '#' lines when pasting)",
                    snippet(s)
                ),
            ));
        };
        let fields: Vec<&str> = s.split(',').collect();
        if fields.len() != h.names.len() {
            return Err(ImportError::at(
                line,
                format!("expected {} comma-separated fields ({}), found {}", h.names.len(), h.text, fields.len()),
            ));
        }
        let row = read_row(h, &fields, line)?;
        add_row(&mut t, &mut seen, row, line)?;
    }
    if header.is_none() {
        return Err(ImportError::whole("lscpu -p output without its '# CPU,Core,Socket,...' header line"));
    }
    Ok(t)
}

fn parse_lscpu_e(lines: &[&str], used: &[bool]) -> Res<Table> {
    let mut t = Table { offline_why: "marked offline (ONLINE no)", ..Table::default() };
    let mut seen = BTreeMap::new();
    let mut header: Option<Header> = None;
    for (i, raw) in lines.iter().enumerate() {
        if used[i] {
            continue;
        }
        let line = i + 1;
        if raw.trim().starts_with('#') {
            continue;
        }
        let tok: Vec<&str> = raw.split_whitespace().collect();
        if tok.first().is_some_and(|w| w.eq_ignore_ascii_case("cpu")) {
            header = Some(Header::new(tok.iter().map(|s| s.to_string()).collect(), " ", line)?);
            continue;
        }
        let Some(h) = &header else {
            return Err(ImportError::at(line, "expected the lscpu -e header line 'CPU NODE SOCKET CORE ...'"));
        };
        let n = h.names.len();
        let mut fields: Vec<String> = tok.iter().map(|s| s.to_string()).collect();
        // MODELNAME is the one column whose values contain spaces.
        if fields.len() > n {
            if let Some(m) = h.cols.iter().position(|c| *c == Col::ModelName) {
                let extra = fields.len() - n;
                let joined = fields[m..=m + extra].join(" ");
                fields.splice(m..=m + extra, [joined]);
            }
        }
        if fields.len() > n || fields.len() < h.needed() {
            return Err(ImportError::at(
                line,
                format!("expected {n} whitespace-separated columns ({}), found {}", h.text, tok.len()),
            ));
        }
        let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
        let row = read_row(h, &refs, line)?;
        add_row(&mut t, &mut seen, row, line)?;
    }
    if header.is_none() {
        return Err(ImportError::whole("lscpu -e output without its 'CPU NODE SOCKET CORE ...' header line"));
    }
    Ok(t)
}

// ---------------------------------------------------------------------------------
// sysfs

#[derive(Clone, Debug, PartialEq, Eq)]
enum SysPath<'a> {
    /// `cpuN/topology/NAME`
    Topo(&'a str, &'a str),
    /// `cpuN/cache/indexK/NAME`
    Cache(&'a str, &'a str, &'a str),
    /// `cpuN/online`
    CpuOnline(&'a str),
    /// `cpu/online`, `cpu/offline`
    CpuList(&'a str),
    /// `node/nodeN/cpulist`
    NodeCpus(&'a str),
    /// Another file under /sys: ignored.
    Other,
}

fn numbered<'a>(comp: &'a str, prefix: &str) -> Option<&'a str> {
    comp.strip_prefix(prefix).filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// What a path names, or `None` if it is not a sysfs path at all.
fn sys_path(path: &str) -> Option<SysPath<'_>> {
    let path = path.trim();
    let c: Vec<&str> = path.split('/').collect();
    let n = c.len();
    let at = |k: usize| if k <= n && k > 0 { c[n - k] } else { "" };
    if n >= 3 && numbered(at(3), "cpu").is_some() && at(2) == "topology" {
        return Some(SysPath::Topo(numbered(at(3), "cpu")?, at(1)));
    }
    if n >= 4 && numbered(at(4), "cpu").is_some() && at(3) == "cache" && numbered(at(2), "index").is_some() {
        return Some(SysPath::Cache(numbered(at(4), "cpu")?, numbered(at(2), "index")?, at(1)));
    }
    if n >= 2 && numbered(at(2), "cpu").is_some() && at(1) == "online" {
        return Some(SysPath::CpuOnline(numbered(at(2), "cpu")?));
    }
    if n >= 2 && at(2) == "cpu" && matches!(at(1), "online" | "offline") && path.contains("/sys/") {
        return Some(SysPath::CpuList(at(1)));
    }
    if n >= 2 && numbered(at(2), "node").is_some() && at(1) == "cpulist" {
        return Some(SysPath::NodeCpus(numbered(at(2), "node")?));
    }
    if path.starts_with("/sys/") && !path.contains(char::is_whitespace) {
        return Some(SysPath::Other);
    }
    None
}

#[derive(Default)]
struct SysCache {
    shared: Option<Vec<u32>>,
    level: Option<u32>,
    kind: Option<String>,
}

#[derive(Default)]
struct SysCpu {
    line: usize,
    topology: bool,
    core_id: Option<i64>,
    package: Option<i64>,
    outer: [Option<i64>; 4],
    thread_siblings: Option<Vec<u32>>,
    core_cpus: Option<Vec<u32>>,
    caches: BTreeMap<u32, SysCache>,
    online: Option<bool>,
}

fn parse_sysfs(lines: &[&str], used: &[bool]) -> Res<Table> {
    // (path, value, line of the value)
    let mut entries: Vec<(&str, &str, usize)> = Vec::new();
    let mut pending: Option<&str> = None;
    for (i, raw) in lines.iter().enumerate() {
        if used[i] {
            continue;
        }
        let s = raw.trim();
        if let Some(inner) = s.strip_prefix("==>").and_then(|r| r.strip_suffix("<==")) {
            pending = Some(inner.trim());
            continue;
        }
        if let Some(p) = pending.take() {
            entries.push((p, s, i + 1));
            continue;
        }
        if ["grep:", "tail:", "head:", "cat:"].iter().any(|p| s.starts_with(p)) {
            continue;
        }
        match s.split_once(':') {
            Some((p, v)) if sys_path(p).is_some() => entries.push((p.trim(), v.trim(), i + 1)),
            _ => {
                return Err(ImportError::at(
                    i + 1,
                    format!(
                        "expected a sysfs line PATH:VALUE (grep . FILES) or a '==> PATH <==' header \
                         (tail -n +1 FILES), found {}",
                        snippet(s)
                    ),
                ))
            }
        }
    }
    let mut cpus: BTreeMap<u32, SysCpu> = BTreeMap::new();
    let mut t = Table { offline_why: "offline in sysfs", ..Table::default() };
    let mut online_list: Option<Vec<u32>> = None;
    for (path, v, line) in entries {
        let Some(sp) = sys_path(path) else { continue };
        let int = |name: &str| -> Res<i64> {
            v.parse::<i64>().map_err(|_| ImportError::at(line, format!("{name} is {v:?}, expected a number")))
        };
        match sp {
            SysPath::Topo(cpu, name) => {
                let cpu = parse_cpu(cpu, line, "the CPU number in the path")?;
                let c = cpus.entry(cpu).or_insert_with(|| SysCpu { line, ..SysCpu::default() });
                c.topology = true;
                c.line = c.line.min(line);
                match name {
                    "core_id" => c.core_id = Some(int(name)?),
                    "physical_package_id" => c.package = Some(int(name)?),
                    "drawer_id" => c.outer[0] = Some(int(name)?),
                    "book_id" => c.outer[1] = Some(int(name)?),
                    "die_id" => c.outer[2] = Some(int(name)?),
                    "cluster_id" => c.outer[3] = Some(int(name)?),
                    "thread_siblings_list" => c.thread_siblings = Some(parse_cpu_list(v, line, name)?),
                    "core_cpus_list" => c.core_cpus = Some(parse_cpu_list(v, line, name)?),
                    _ => {}
                }
            }
            SysPath::Cache(cpu, index, name) => {
                let cpu = parse_cpu(cpu, line, "the CPU number in the path")?;
                let index = index
                    .parse::<u32>()
                    .ok()
                    .filter(|&x| x < 64)
                    .ok_or_else(|| ImportError::at(line, format!("cache index{index} is not a cache index")))?;
                let c = cpus.entry(cpu).or_insert_with(|| SysCpu { line, ..SysCpu::default() });
                let cache = c.caches.entry(index).or_default();
                match name {
                    "shared_cpu_list" => {
                        let l = parse_cpu_list(v, line, name)?;
                        t.mentioned.extend(l.iter().copied());
                        cache.shared = Some(l);
                    }
                    "level" => cache.level = Some(int(name)?.clamp(0, 99) as u32),
                    "type" => cache.kind = Some(v.to_string()),
                    _ => {}
                }
            }
            SysPath::CpuOnline(cpu) => {
                let cpu = parse_cpu(cpu, line, "the CPU number in the path")?;
                let c = cpus.entry(cpu).or_insert_with(|| SysCpu { line, ..SysCpu::default() });
                c.online = match v {
                    "0" => Some(false),
                    "1" => Some(true),
                    _ => return Err(ImportError::at(line, format!("online is {v:?}, expected 0 or 1"))),
                };
            }
            SysPath::CpuList(name) => {
                let l = parse_cpu_list(v, line, name)?;
                t.mentioned.extend(l.iter().copied());
                if name == "online" {
                    online_list = Some(l);
                } else {
                    t.offline.extend(l);
                }
            }
            SysPath::NodeCpus(node) => {
                let node = parse_node(node, line)?;
                let l = parse_cpu_list(v, line, "cpulist")?;
                t.mentioned.extend(l.iter().copied());
                t.node_cpus.insert(node, l);
            }
            SysPath::Other => {}
        }
    }
    for (&cpu, c) in &cpus {
        if let Some(l) = c.thread_siblings.iter().chain(&c.core_cpus).next() {
            t.mentioned.extend(l.iter().copied());
        }
        let offline = c.online == Some(false)
            || t.offline.contains(&cpu)
            || online_list.as_ref().is_some_and(|l| !l.contains(&cpu));
        if offline {
            t.offline.insert(cpu);
            continue;
        }
        if !c.topology {
            t.mentioned.insert(cpu);
            continue;
        }
        let siblings = c.core_cpus.as_ref().or(c.thread_siblings.as_ref()).filter(|l| l.contains(&cpu));
        let core = match (siblings, c.core_id) {
            (Some(l), _) => Some(CoreKey::Siblings(l.iter().copied().min().unwrap_or(cpu))),
            (None, Some(id)) => Some(CoreKey::Id(id)),
            (None, None) => None,
        };
        t.recs.push(Rec {
            cpu,
            line: c.line,
            node: None,
            socket: c.package,
            outer: c.outer,
            core,
            llc: sysfs_llc(&c.caches),
        });
    }
    if t.recs.is_empty() && t.offline.is_empty() {
        return Err(ImportError::whole(
            "the sysfs text has no cpuN/topology/ files (core_id, physical_package_id, thread_siblings_list); \
             paste the output of grep . /sys/devices/system/cpu/cpu*/topology/* \
             /sys/devices/system/cpu/cpu*/cache/index*/shared_cpu_list",
        ));
    }
    Ok(t)
}

/// The farthest cache: by `level` when every index gives one (skipping instruction
/// caches), else the highest index (index3 = L3 on x86, index2 = L2 where there is no L3).
fn sysfs_llc(caches: &BTreeMap<u32, SysCache>) -> Option<Llc> {
    let with_list: Vec<(&u32, &SysCache)> =
        caches.iter().filter(|(_, c)| c.shared.as_ref().is_some_and(|l| !l.is_empty())).collect();
    let by_level = !with_list.is_empty() && with_list.iter().all(|(_, c)| c.level.is_some());
    let best = if by_level {
        with_list
            .iter()
            .filter(|(_, c)| !c.kind.as_deref().is_some_and(|k| k.eq_ignore_ascii_case("instruction")))
            .max_by_key(|(i, c)| (c.level, **i))
            .map(|(_, c)| (c.level.unwrap_or(0), format!("L{}", c.level.unwrap_or(0)), *c))
    } else {
        with_list.iter().max_by_key(|(i, _)| **i).map(|(i, c)| (**i, format!("index{i}"), *c))
    }?;
    Some(Llc { rank: best.0, label: best.1, id: LlcId::Set(best.2.shared.clone().unwrap_or_default()) })
}

// ---------------------------------------------------------------------------------
// From CPUs to the topology tree

/// The LLC a CPU belongs to, before splitting at nodes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LlcKey {
    Cache(u32, LlcId),
    /// No cache information: one LLC per socket, as Linux does.
    Socket(Option<i64>),
}

type CoreIdent = (Option<i64>, [Option<i64>; 4], CoreKey);

fn assemble(format: &'static str, mut t: Table, numa: Numa) -> Res<Imported> {
    let mut notes = std::mem::take(&mut t.notes);
    t.recs.sort_by_key(|r| r.cpu);
    let n = t.recs.len();
    if n == 0 {
        return Err(ImportError::whole(format!(
            "no online CPU in the input{}",
            if t.offline.is_empty() {
                String::new()
            } else {
                format!(" (CPUs {} are offline)", format_cpu_list(&t.offline.iter().copied().collect::<Vec<_>>()))
            }
        )));
    }
    if n > CPUS_MAX as usize {
        return Err(ImportError::whole(format!(
            "the input has {n} online CPUs; schedsim simulates at most {CPUS_MAX}"
        )));
    }

    // Nodes: the table's own, else sysfs node/nodeN/cpulist, else numactl, else sockets.
    let placed: BTreeSet<u32> = t.recs.iter().map(|r| r.cpu).collect();
    let membership = |m: &BTreeMap<u32, Vec<u32>>| -> Option<BTreeMap<u32, u32>> {
        let mut of = BTreeMap::new();
        for (&node, cpus) in m {
            for &c in cpus {
                of.insert(c, node);
            }
        }
        placed.iter().all(|c| of.contains_key(c)).then_some(of)
    };
    let mut nodes_are_numa = true;
    if t.recs.iter().all(|r| r.node.is_some()) {
        // The CPU table says.
    } else if let Some(of) = membership(&t.node_cpus).or_else(|| membership(&numa.node_cpus)) {
        for r in &mut t.recs {
            r.node = of.get(&r.cpu).map(|&x| x as i64);
        }
        if !numa.node_cpus.is_empty() && t.node_cpus.is_empty() {
            notes.push("NUMA nodes taken from the numactl --hardware 'node N cpus:' lines".into());
        }
    } else {
        nodes_are_numa = false;
        let sockets: BTreeSet<Option<i64>> = t.recs.iter().map(|r| r.socket).collect();
        let why = if t.recs.iter().any(|r| r.node.is_some()) {
            "the input gives NUMA nodes for only some CPUs"
        } else {
            "the input gives no NUMA nodes"
        };
        notes.push(format!(
            "{why}: one node per socket ({} socket{}); append `numactl --hardware` for nodes and distances",
            sockets.len(),
            if sockets.len() == 1 { "" } else { "s" }
        ));
        for r in &mut t.recs {
            r.node = Some(r.socket.unwrap_or(0));
        }
    }

    // LLC fallbacks, said once.
    let no_cache: Vec<u32> = t.recs.iter().filter(|r| r.llc.is_none()).map(|r| r.cpu).collect();
    if !no_cache.is_empty() {
        let whom = if no_cache.len() == n {
            "in the input".to_string()
        } else {
            format!("for CPUs {}", format_cpu_list(&no_cache))
        };
        notes.push(format!("no cache ids {whom}: one LLC per socket, as Linux's scheduler assumes"));
    }
    let labels: BTreeSet<&str> = t.recs.iter().filter_map(|r| r.llc.as_ref().map(|l| l.label.as_str())).collect();
    if labels.len() > 1 {
        notes.push(format!(
            "CPUs differ in their last cache level ({}); each CPU's farthest cache is its LLC",
            labels.iter().copied().collect::<Vec<_>>().join(", ")
        ));
    } else if let Some(l) = labels.iter().next() {
        if !matches!(*l, "L3" | "index3") {
            let what = if l.starts_with("index") { format!("cache {l}") } else { l.to_string() };
            notes.push(format!("no L3 in the input: the LLC is {what}"));
        }
    }
    let no_core: Vec<u32> = t.recs.iter().filter(|r| r.core.is_none()).map(|r| r.cpu).collect();
    if !no_core.is_empty() {
        notes.push(format!("CPUs {}: no core id, so each is a core of its own", format_cpu_list(&no_core)));
    }

    // Group: node -> LLC -> core -> CPUs.
    type Cores = BTreeMap<CoreIdent, Vec<(u32, usize)>>;
    let mut tree: BTreeMap<i64, BTreeMap<LlcKey, Cores>> = BTreeMap::new();
    let mut llc_nodes: BTreeMap<LlcKey, BTreeSet<i64>> = BTreeMap::new();
    let mut core_llcs: BTreeMap<CoreIdent, BTreeSet<(i64, LlcKey)>> = BTreeMap::new();
    for r in &t.recs {
        let node = r.node.unwrap_or(0);
        let llc = match &r.llc {
            Some(l) => LlcKey::Cache(l.rank, l.id.clone()),
            None => LlcKey::Socket(r.socket),
        };
        let core: CoreIdent = (r.socket, r.outer, r.core.clone().unwrap_or(CoreKey::Alone(r.cpu)));
        llc_nodes.entry(llc.clone()).or_default().insert(node);
        core_llcs.entry(core.clone()).or_default().insert((node, llc.clone()));
        tree.entry(node).or_default().entry(llc).or_default().entry(core).or_default().push((r.cpu, r.line));
    }
    let split_llcs = llc_nodes.values().filter(|s| s.len() > 1).count();
    if split_llcs > 0 {
        notes.push(format!("{split_llcs} LLC(s) span more than one NUMA node; each is split at the node boundary"));
    }
    let split_cores = core_llcs.values().filter(|s| s.len() > 1).count();
    if split_cores > 0 {
        notes.push(format!("{split_cores} core(s) have threads in different LLCs or nodes; each part is a core"));
    }

    // Order: nodes by number, LLCs and cores by their lowest CPU, threads ascending.
    let mut node_ids = Vec::new();
    let mut core_lists: Vec<Vec<u32>> = Vec::new(); // global core order, for numbering
    let mut topo_nodes = Vec::new();
    for (node, llcs) in tree {
        let mut llc_list: Vec<Vec<Vec<(u32, usize)>>> =
            llcs.into_values().map(|cores| cores.into_values().collect()).collect();
        for cores in &mut llc_list {
            for c in cores.iter_mut() {
                c.sort_unstable();
            }
            cores.sort_by_key(|c| c.first().map_or(u32::MAX, |x| x.0));
        }
        llc_list.sort_by_key(|cores| cores.first().and_then(|c| c.first()).map_or(u32::MAX, |x| x.0));
        let mut llc_descs = Vec::new();
        for cores in llc_list {
            let mut descs = Vec::new();
            for c in cores {
                if c.len() > THREADS_PER_CORE_MAX as usize {
                    let cpus: Vec<u32> = c.iter().map(|x| x.0).collect();
                    return Err(ImportError::at(
                        c[THREADS_PER_CORE_MAX as usize].1,
                        format!(
                            "CPUs {} all have the same core id, {} threads in one core; at most {THREADS_PER_CORE_MAX} \
                             (core ids missing or wrong in the input?)",
                            format_cpu_list(&cpus),
                            c.len()
                        ),
                    ));
                }
                descs.push(CoreDesc { threads: c.len() as u32 });
                core_lists.push(c.iter().map(|x| x.0).collect());
            }
            llc_descs.push(LlcDesc { cores: descs });
        }
        node_ids.push(node);
        topo_nodes.push(NodeDesc { llcs: llc_descs });
    }

    let numa_distance = distances(&numa, &node_ids, nodes_are_numa, &mut notes);
    let topology = Topology { nodes: topo_nodes, numa_distance };
    topology.validate().map_err(|e| ImportError::whole(format!("the imported topology is not usable: {e}")))?;

    // The numbering of topology::CpuMap: thread 0 of every core, then thread 1, ...
    let max_threads = core_lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut cpu_map = Vec::with_capacity(n);
    let mut next = 0u32;
    for th in 0..max_threads {
        for c in &core_lists {
            if let Some(&linux) = c.get(th) {
                cpu_map.push((linux, next));
                next += 1;
            }
        }
    }
    cpu_map.sort_unstable();

    // What was left out.
    if !t.offline.is_empty() {
        let l: Vec<u32> = t.offline.iter().copied().collect();
        notes.push(format!("{} {} and left out", cpus_are(&l), t.offline_why));
    }
    let mut universe: BTreeSet<u32> = t.mentioned.clone();
    universe.extend(numa.node_cpus.values().flatten().copied());
    universe.extend(t.node_cpus.values().flatten().copied());
    let top = universe.iter().chain(&placed).chain(&t.offline).copied().max().unwrap_or(0);
    let missing: Vec<u32> = (0..=top).filter(|c| !placed.contains(c) && !t.offline.contains(c)).collect();
    if !missing.is_empty() {
        notes.push(format!("{} not described in the input (offline?) and left out", cpus_are(&missing)));
    }
    let moved: Vec<(u32, u32)> = cpu_map.iter().copied().filter(|(a, b)| a != b).collect();
    if !moved.is_empty() {
        let shown: Vec<String> = moved.iter().take(8).map(|(a, b)| format!("{a}->{b}")).collect();
        notes.push(format!(
            "schedsim numbers CPUs first threads of every core, then second threads: {} of {n} CPUs \
             renumbered (Linux->schedsim {}{})",
            moved.len(),
            shown.join(" "),
            if moved.len() > 8 { " ..." } else { "" }
        ));
    }
    Ok(Imported { topology, format, cpu_map, notes })
}

/// "CPU 4 is" or "CPUs 4-5,9 are".
fn cpus_are(cpus: &[u32]) -> String {
    if cpus.len() == 1 {
        format!("CPU {} is", cpus[0])
    } else {
        format!("CPUs {} are", format_cpu_list(cpus))
    }
}

/// The numactl distance matrix restricted to the imported nodes, if it fits them.
fn distances(numa: &Numa, node_ids: &[i64], nodes_are_numa: bool, notes: &mut Vec<String>) -> Option<Vec<Vec<u32>>> {
    let (ids, rows, line) = numa.distance.as_ref()?;
    if !nodes_are_numa {
        notes.push(format!("the numactl distance table (line {line}) is ignored: CPUs have no NUMA node numbers"));
        return None;
    }
    let mut idx = Vec::new();
    for &node in node_ids {
        match ids.iter().position(|&i| i as i64 == node) {
            Some(k) => idx.push(k),
            None => {
                notes.push(format!("the numactl distance table (line {line}) has no node {node}; it is ignored"));
                return None;
            }
        }
    }
    let unused: Vec<String> = ids.iter().filter(|&&i| !node_ids.contains(&(i as i64))).map(|i| i.to_string()).collect();
    if !unused.is_empty() {
        notes.push(format!("node(s) {} have no online CPU and are left out of the distances", unused.join(",")));
    }
    if node_ids.len() < 2 {
        return None;
    }
    let m: Vec<Vec<u32>> = idx.iter().map(|&i| idx.iter().map(|&j| rows[i][j]).collect()).collect();
    for i in 0..m.len() {
        for j in 0..m.len() {
            let ok = if i == j { m[i][j] == LOCAL_DISTANCE } else { m[i][j] > LOCAL_DISTANCE && m[i][j] <= 254 };
            if !ok || m[i][j] != m[j][i] {
                notes.push(format!(
                    "the numactl distance table (line {line}) is ignored: schedsim needs {LOCAL_DISTANCE} on the \
                     diagonal, 11 to 254 elsewhere and symmetry; it has {} between nodes {} and {}",
                    m[i][j], node_ids[i], node_ids[j]
                ));
                return None;
            }
        }
    }
    Some(m)
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

    #[test]
    fn paths() {
        assert_eq!(sys_path("/sys/devices/system/cpu/cpu12/topology/core_id"), Some(SysPath::Topo("12", "core_id")));
        assert_eq!(sys_path("cpu3/cache/index2/shared_cpu_list"), Some(SysPath::Cache("3", "2", "shared_cpu_list")));
        assert_eq!(sys_path("/sys/devices/system/node/node1/cpulist"), Some(SysPath::NodeCpus("1")));
        assert_eq!(sys_path("/sys/devices/system/cpu/offline"), Some(SysPath::CpuList("offline")));
        assert_eq!(sys_path("/sys/devices/system/cpu/cpufreq/boost"), Some(SysPath::Other));
        assert_eq!(sys_path("Model name"), None);
    }

    #[test]
    fn cache_names() {
        assert_eq!(classify_col("L3"), Col::Cache(CacheName { level: 3, instruction: false, label: "L3".into() }));
        assert!(matches!(classify_col("L1d:L1i:L2:L3"), Col::Caches(v) if v.len() == 4 && v[1].instruction));
        assert_eq!(classify_col("MAXMHZ"), Col::Other);
        assert_eq!(classify_col(""), Col::Other);
    }
}
