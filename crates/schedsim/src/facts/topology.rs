//! CPU topology: NUMA nodes ⊃ last-level caches ⊃ cores ⊃ SMT threads.
//!
//! A [`Topology`] is the user's description (serde, editable, possibly invalid);
//! [`CpuMap`] is the validated, flattened form the simulator uses. CPU numbers follow
//! the order Linux gives x86 machines: first thread of every core in node order, then
//! the second thread of every core, and so on (on a 2x20x2 Cascade Lake, CPU 0 and
//! CPU 40 are siblings). Scan order in `select_idle_cpu` wraps through these numbers,
//! so the numbering is part of the model, not cosmetics.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most CPUs a topology may have. Bounds memory and per-wakeup scan cost.
pub const CPUS_MAX: u32 = 1024;
/// Most SMT threads per core (POWER has 8; x86 has 2).
pub const THREADS_PER_CORE_MAX: u32 = 8;
/// Linux's `LOCAL_DISTANCE`.
pub const LOCAL_DISTANCE: u32 = 10;
/// Linux's `RECLAIM_DISTANCE`: NUMA levels farther than this lose SD_WAKE_AFFINE.
pub const RECLAIM_DISTANCE: u32 = 30;

/// One core: how many SMT threads it has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreDesc {
    pub threads: u32,
}

/// One last-level cache and the cores behind it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlcDesc {
    pub cores: Vec<CoreDesc>,
}

/// One NUMA node and its LLCs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDesc {
    pub llcs: Vec<LlcDesc>,
}

/// A machine as the user describes it. Not yet validated: see [`Topology::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    pub nodes: Vec<NodeDesc>,
    /// SLIT-style distance matrix, `nodes x nodes`, 10 on the diagonal. `None` means
    /// 10 locally and 21 between any two nodes (a typical 2-socket SLIT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_distance: Option<Vec<Vec<u32>>>,
}

/// A problem with a topology, naming where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError(pub String);

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TopologyError {}

fn err<T>(msg: impl Into<String>) -> Result<T, TopologyError> {
    Err(TopologyError(msg.into()))
}

impl Topology {
    /// A uniform machine: `nodes` nodes of `llcs` LLCs of `cores` cores of `threads`.
    pub fn uniform(nodes: u32, llcs: u32, cores: u32, threads: u32) -> Topology {
        let core = CoreDesc { threads };
        let llc = LlcDesc { cores: vec![core; cores as usize] };
        let node = NodeDesc { llcs: vec![llc; llcs as usize] };
        Topology { nodes: vec![node; nodes as usize], numa_distance: None }
    }

    /// Parses the compact spec `NODESxLLCSxCORESxTHREADS`, e.g. `2x1x20x2`.
    ///
    /// ```
    /// let t = schedsim::topology::Topology::parse_spec("2x8x8x2").unwrap();
    /// assert_eq!(t.cpu_count(), 256);
    /// assert!(schedsim::topology::Topology::parse_spec("2x0x8x2").is_err());
    /// // 2^64 CPUs: refused with its size, not wrapped to 0.
    /// let e = schedsim::topology::Topology::parse_spec("65536x65536x65536x65536").unwrap_err();
    /// assert!(e.to_string().contains("18446744073709551616 CPUs"), "{e}");
    /// ```
    pub fn parse_spec(spec: &str) -> Result<Topology, TopologyError> {
        // Past 64 bytes it is no spec; a pasted megabyte is not echoed whole.
        if spec.trim().len() > 64 {
            let shown = crate::facts::input::clip(spec);
            return err(format!("topology spec {shown:?}: expected NODESxLLCSxCORESxTHREADS, e.g. 2x1x20x2"));
        }
        let spec = spec.trim();
        let parts: Vec<&str> = spec.split(['x', 'X']).collect();
        if parts.len() != 4 {
            return err(format!("topology spec {spec:?}: expected NODESxLLCSxCORESxTHREADS, e.g. 2x1x20x2"));
        }
        let names = ["nodes", "LLCs per node", "cores per LLC", "threads per core"];
        let mut v = [0u32; 4];
        for (i, p) in parts.iter().enumerate() {
            let word = p.trim();
            v[i] = match word.parse::<u32>() {
                Ok(n) => n,
                Err(_) if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) => {
                    return err(format!(
                        "topology spec {spec:?}: {} is {word}, far more than {CPUS_MAX} CPUs in all",
                        names[i]
                    ))
                }
                Err(_) => {
                    return err(format!("topology spec {spec:?}: {} is {p:?}, expected a whole number", names[i]))
                }
            };
            if v[i] == 0 {
                return err(format!("topology spec {spec:?}: {} must be at least 1", names[i]));
            }
        }
        // Multiply in u128 so 100000x100000x... reports its size, not an overflow: four
        // u32 factors fit exactly, where u64 wraps 65536x65536x65536x65536 to 0 CPUs.
        let cpus = v.iter().map(|&n| n as u128).product::<u128>();
        if cpus > CPUS_MAX as u128 {
            return err(format!("topology spec {spec:?}: {cpus} CPUs, at most {CPUS_MAX} allowed"));
        }
        let t = Topology::uniform(v[0], v[1], v[2], v[3]);
        t.validate()?;
        Ok(t)
    }

    /// The compact spec if this topology is uniform, else `None`.
    pub fn spec(&self) -> Option<String> {
        let n = self.nodes.len();
        let l = self.nodes.first()?.llcs.len();
        let c = self.nodes[0].llcs.first()?.cores.len();
        let t = self.nodes[0].llcs[0].cores.first()?.threads;
        let uniform = self.nodes.iter().all(|nd| {
            nd.llcs.len() == l
                && nd.llcs.iter().all(|lc| lc.cores.len() == c && lc.cores.iter().all(|k| k.threads == t))
        });
        (uniform && self.numa_distance.is_none()).then(|| format!("{n}x{l}x{c}x{t}"))
    }

    /// Total number of CPUs (hardware threads); saturates instead of overflowing.
    pub fn cpu_count(&self) -> u64 {
        self.nodes.iter().flat_map(|n| &n.llcs).flat_map(|l| &l.cores).map(|c| c.threads as u64).sum()
    }

    /// Checks every rule and says which part breaks it.
    // The symmetry check reads d[j][i] beside d[i][j]: indices are the clearest form.
    #[allow(clippy::needless_range_loop)]
    pub fn validate(&self) -> Result<(), TopologyError> {
        if self.nodes.is_empty() {
            return err("topology: needs at least one NUMA node");
        }
        for (ni, node) in self.nodes.iter().enumerate() {
            if node.llcs.is_empty() {
                return err(format!("topology: node {ni} has no LLC"));
            }
            for (li, llc) in node.llcs.iter().enumerate() {
                if llc.cores.is_empty() {
                    return err(format!("topology: node {ni} LLC {li} has no core"));
                }
                for (ci, core) in llc.cores.iter().enumerate() {
                    if core.threads == 0 || core.threads > THREADS_PER_CORE_MAX {
                        return err(format!(
                            "topology: node {ni} LLC {li} core {ci} has {} threads, expected 1 to {THREADS_PER_CORE_MAX}",
                            core.threads
                        ));
                    }
                }
            }
        }
        let cpus = self.cpu_count();
        if cpus > CPUS_MAX as u64 {
            return err(format!("topology: {cpus} CPUs, at most {CPUS_MAX} allowed"));
        }
        if let Some(d) = &self.numa_distance {
            let n = self.nodes.len();
            if d.len() != n || d.iter().any(|row| row.len() != n) {
                return err(format!("topology: numa_distance must be a {n}x{n} matrix"));
            }
            for i in 0..n {
                if d[i][i] != LOCAL_DISTANCE {
                    return err(format!("topology: numa_distance[{i}][{i}] is {}, must be {LOCAL_DISTANCE}", d[i][i]));
                }
                for j in 0..n {
                    if i != j && (d[i][j] <= LOCAL_DISTANCE || d[i][j] > 254) {
                        return err(format!("topology: numa_distance[{i}][{j}] is {}, expected 11 to 254", d[i][j]));
                    }
                    if d[i][j] != d[j][i] {
                        return err(format!("topology: numa_distance is not symmetric at [{i}][{j}]"));
                    }
                }
            }
            let mut levels: Vec<u32> = d.iter().flatten().copied().filter(|&x| x != LOCAL_DISTANCE).collect();
            levels.sort_unstable();
            levels.dedup();
            let max = NUMA_LEVELS_MAX;
            if levels.len() > max {
                return err(format!(
                    "topology: numa_distance has {} distinct remote distances, at most {max}: Linux makes one \
                     NUMA domain level per distinct distance (sched_init_numa()), and schedsim models at most {max} \
                     levels; round nearby distances to one value",
                    levels.len()
                ));
            }
        }
        Ok(())
    }

    /// Validates and flattens.
    pub fn build(&self) -> Result<CpuMap, TopologyError> {
        self.validate()?;
        Ok(CpuMap::new(self))
    }
}

/// Where one CPU sits. All indices are global (LLC 3 is the fourth LLC of the machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuPlace {
    pub node: u32,
    pub llc: u32,
    pub core: u32,
    /// Which thread of its core (0 = first).
    pub thread: u32,
}

/// How far apart two CPUs are, for cache and lock costs. Ordered from near to far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distance {
    SameCpu,
    SmtSibling,
    SameLlc,
    CrossLlc,
    CrossNode,
}

impl Distance {
    pub const ALL: [Distance; 5] =
        [Distance::SameCpu, Distance::SmtSibling, Distance::SameLlc, Distance::CrossLlc, Distance::CrossNode];
}

/// The validated, flattened topology.
#[derive(Clone, Debug)]
pub struct CpuMap {
    pub topology: Topology,
    pub places: Vec<CpuPlace>,
    /// CPUs of each core, ascending.
    pub core_cpus: Vec<Vec<u32>>,
    /// CPUs of each LLC, ascending.
    pub llc_cpus: Vec<Vec<u32>>,
    /// CPUs of each node, ascending.
    pub node_cpus: Vec<Vec<u32>>,
    /// Node distance matrix (filled in when the topology leaves it out).
    pub distance: Vec<Vec<u32>>,
    /// True if any core has more than one thread.
    pub smt: bool,
    /// Per CPU, its place packed for [`CpuMap::distance`]: core, LLC and node in fields
    /// of [`KEY_FIELD_BITS`] each, from the low end. Cores and LLCs are numbered across
    /// the machine, so two CPUs' keys differ only in the core field when they share an
    /// LLC, and only below the node field when they share a node.
    distance_key: Vec<u64>,
}

/// Width of each field of a CPU's distance key: room for [`CPUS_MAX`] cores, LLCs and
/// nodes.
const KEY_FIELD_BITS: u32 = 21;
const _: () = assert!(CPUS_MAX < 1 << KEY_FIELD_BITS);

impl CpuMap {
    fn new(t: &Topology) -> CpuMap {
        // Global core list in node/LLC order with each core's thread count.
        let mut cores = Vec::new(); // (node, llc, threads)
        let mut llc_idx = 0u32;
        for (ni, node) in t.nodes.iter().enumerate() {
            for llc in &node.llcs {
                for core in &llc.cores {
                    cores.push((ni as u32, llc_idx, core.threads));
                }
                llc_idx += 1;
            }
        }
        let max_threads = cores.iter().map(|c| c.2).max().unwrap_or(1);
        let mut places = Vec::new();
        let mut core_cpus = vec![Vec::new(); cores.len()];
        let mut llc_cpus = vec![Vec::new(); llc_idx as usize];
        let mut node_cpus = vec![Vec::new(); t.nodes.len()];
        for thread in 0..max_threads {
            for (ci, &(node, llc, threads)) in cores.iter().enumerate() {
                if thread < threads {
                    let cpu = places.len() as u32;
                    places.push(CpuPlace { node, llc, core: ci as u32, thread });
                    core_cpus[ci].push(cpu);
                    llc_cpus[llc as usize].push(cpu);
                    node_cpus[node as usize].push(cpu);
                }
            }
        }
        for v in llc_cpus.iter_mut().chain(node_cpus.iter_mut()) {
            v.sort_unstable();
        }
        let n = t.nodes.len();
        let distance = t.numa_distance.clone().unwrap_or_else(|| {
            (0..n).map(|i| (0..n).map(|j| if i == j { LOCAL_DISTANCE } else { 21 }).collect()).collect()
        });
        let distance_key = places
            .iter()
            .map(|p| (p.node as u64) << (2 * KEY_FIELD_BITS) | (p.llc as u64) << KEY_FIELD_BITS | p.core as u64)
            .collect();
        CpuMap {
            topology: t.clone(),
            places,
            core_cpus,
            llc_cpus,
            node_cpus,
            distance,
            smt: max_threads > 1,
            distance_key,
        }
    }

    pub fn nr_cpus(&self) -> u32 {
        self.places.len() as u32
    }

    /// `cpus_share_cache()`: same LLC.
    #[inline]
    pub fn share_cache(&self, a: u32, b: u32) -> bool {
        self.places[a as usize].llc == self.places[b as usize].llc
    }

    /// How far apart `a` and `b` are: the highest field in which their places differ
    /// (see `distance_key`), one XOR of two words rather than three comparisons of
    /// fields.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> Distance {
        let x = self.distance_key[a as usize] ^ self.distance_key[b as usize];
        if a == b {
            Distance::SameCpu
        } else if x == 0 {
            Distance::SmtSibling
        } else if x < 1 << KEY_FIELD_BITS {
            Distance::SameLlc
        } else if x < 1 << (2 * KEY_FIELD_BITS) {
            Distance::CrossLlc
        } else {
            Distance::CrossNode
        }
    }

    /// SMT siblings of `cpu`, including itself.
    #[inline]
    pub fn siblings(&self, cpu: u32) -> &[u32] {
        &self.core_cpus[self.places[cpu as usize].core as usize]
    }

    /// CPUs sharing `cpu`'s LLC, ascending.
    #[inline]
    pub fn llc_span(&self, cpu: u32) -> &[u32] {
        &self.llc_cpus[self.places[cpu as usize].llc as usize]
    }
}

/// Most distinct remote SLIT distances, hence NUMA domain levels, a machine may have.
/// Linux makes one level per distinct distance and refuses distances of 256 or more
/// (`sched_init_numa()`, `kernel/sched/topology.c`: a bitmap of `NR_DISTANCE_VALUES =
/// 1 << DISTANCE_BITS` values, "Invalid distance value range"); schedsim bounds the
/// count lower, to keep domain building and balancing cheap. Real SLITs have one to
/// four remote distances.
pub const NUMA_LEVELS_MAX: usize = 8;

/// A topology written as the compact spec or in full (its `Deserialize` picks
/// the form by the JSON type).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TopologyInput {
    Spec(String),
    Full(Topology),
}

/// A topology is the compact spec (a JSON string) or the full tree (an object). The
/// JSON type decides which, and the chosen form's own error is reported (an untagged
/// enum would only say "did not match any variant").
impl<'de> Deserialize<'de> for TopologyInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TopologyInput;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a topology spec such as \"2x1x20x2\" or an object {\"nodes\": [...]}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TopologyInput, E> {
                Ok(TopologyInput::Spec(s.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TopologyInput, A::Error> {
                Topology::deserialize(de::value::MapAccessDeserializer::new(map)).map(TopologyInput::Full)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_puts_siblings_one_core_count_apart() {
        let m = Topology::parse_spec("2x1x20x2").unwrap().build().unwrap();
        assert_eq!(m.nr_cpus(), 80);
        assert_eq!(m.siblings(0), &[0, 40]);
        assert_eq!(m.distance(0, 40), Distance::SmtSibling);
        assert_eq!(m.distance(0, 1), Distance::SameLlc);
        assert_eq!(m.distance(0, 20), Distance::CrossNode);
        assert!(m.share_cache(0, 59));
        assert!(!m.share_cache(0, 60));
    }

    /// The packed key gives the distance that comparing the places field by field
    /// gives, on every pair of CPUs.
    #[test]
    fn distance_key_agrees_with_the_places() {
        for spec in ["1x1x10x2", "2x8x8x2", "4x2x3x1", "1x1x1x1", "2x1x4x4"] {
            let m = Topology::parse_spec(spec).unwrap().build().unwrap();
            for a in 0..m.nr_cpus() {
                for b in 0..m.nr_cpus() {
                    let (pa, pb) = (m.places[a as usize], m.places[b as usize]);
                    let want = if a == b {
                        Distance::SameCpu
                    } else if pa.core == pb.core {
                        Distance::SmtSibling
                    } else if pa.llc == pb.llc {
                        Distance::SameLlc
                    } else if pa.node == pb.node {
                        Distance::CrossLlc
                    } else {
                        Distance::CrossNode
                    };
                    assert_eq!(m.distance(a, b), want, "{spec}: CPUs {a} and {b}");
                }
            }
        }
    }

    #[test]
    fn multi_llc_nodes() {
        let m = Topology::parse_spec("2x8x8x2").unwrap().build().unwrap();
        assert_eq!(m.llc_cpus.len(), 16);
        assert_eq!(m.llc_span(0).len(), 16);
        assert_eq!(m.distance(0, 8), Distance::CrossLlc);
        assert_eq!(m.distance(0, 64), Distance::CrossNode);
    }

    #[test]
    fn non_uniform_cores() {
        let t = Topology {
            nodes: vec![NodeDesc {
                llcs: vec![LlcDesc { cores: vec![CoreDesc { threads: 2 }, CoreDesc { threads: 1 }] }],
            }],
            numa_distance: None,
        };
        let m = t.build().unwrap();
        assert_eq!(m.nr_cpus(), 3);
        assert_eq!(m.siblings(0), &[0, 2]);
        assert_eq!(m.siblings(1), &[1]);
        assert_eq!(t.spec(), None);
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let e = |s: &str| Topology::parse_spec(s).unwrap_err().0;
        assert!(e("0x1x1x1").contains("nodes must be at least 1"), "{}", e("0x1x1x1"));
        assert!(e("100000x100000x1x1").contains("at most 1024"));
        assert!(e("1x1x4").contains("expected NODESxLLCSxCORESxTHREADS"));
        assert!(e("1x1xfourx2").contains("cores per LLC"));
        assert!(e("1x1x4x9").contains("threads"));
        assert_eq!(Topology::parse_spec("1x1x1x1").unwrap().cpu_count(), 1);
        assert_eq!(Topology::parse_spec("1x1x512x2").unwrap().cpu_count(), 1024);
    }

    #[test]
    fn distance_matrix_checked() {
        let mut t = Topology::uniform(2, 1, 2, 1);
        t.numa_distance = Some(vec![vec![10, 21], vec![20, 10]]);
        assert!(t.validate().unwrap_err().0.contains("symmetric"));
        t.numa_distance = Some(vec![vec![10, 21]]);
        assert!(t.validate().unwrap_err().0.contains("2x2"));
    }
}
