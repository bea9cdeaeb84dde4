//! From the CPUs a format described to the topology tree: node (NUMA node, else
//! socket) ⊃ LLC ⊃ core ⊃ threads, schedsim's CPU numbering, and the notes on what
//! was left out or assumed.

use super::{format_cpu_list, CoreKey, ImportError, Imported, LlcId, Numa, Res, Table};
use crate::facts::topology::{CoreDesc, LlcDesc, NodeDesc, Topology, CPUS_MAX, LOCAL_DISTANCE, THREADS_PER_CORE_MAX};
use std::collections::{BTreeMap, BTreeSet};

/// The LLC a CPU belongs to, before splitting at nodes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LlcKey {
    Cache(u32, LlcId),
    /// No cache information: one LLC per socket, as Linux does.
    Socket(Option<i64>),
}

type CoreIdent = (Option<i64>, [Option<i64>; 4], CoreKey);

pub(super) fn assemble(format: &'static str, mut t: Table, numa: Numa) -> Res<Imported> {
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
