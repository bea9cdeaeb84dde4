//! sysfs text: `grep . /sys/devices/system/cpu/cpu*/topology/* .../cache/index*/shared_cpu_list`
//! (lines `PATH:VALUE`) or the same files through `tail -n +1` (`==> PATH <==`
//! headers, the value below).

use super::numactl::parse_node;
use super::{parse_cpu, parse_cpu_list, snippet, CoreKey, ImportError, Llc, LlcId, Rec, Res, Table};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SysPath<'a> {
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
pub(super) fn sys_path(path: &str) -> Option<SysPath<'_>> {
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

pub(super) fn parse_sysfs(lines: &[&str], used: &[bool]) -> Res<Table> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(sys_path("/sys/devices/system/cpu/cpu12/topology/core_id"), Some(SysPath::Topo("12", "core_id")));
        assert_eq!(sys_path("cpu3/cache/index2/shared_cpu_list"), Some(SysPath::Cache("3", "2", "shared_cpu_list")));
        assert_eq!(sys_path("/sys/devices/system/node/node1/cpulist"), Some(SysPath::NodeCpus("1")));
        assert_eq!(sys_path("/sys/devices/system/cpu/offline"), Some(SysPath::CpuList("offline")));
        assert_eq!(sys_path("/sys/devices/system/cpu/cpufreq/boost"), Some(SysPath::Other));
        assert_eq!(sys_path("Model name"), None);
    }
}
