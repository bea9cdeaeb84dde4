//! Scheduling domains derived from a topology, as `build_sched_domains()` and
//! `sd_init()` in Linux `kernel/sched/topology.c` (v4.15 to v5.15) build them.
//!
//! Each CPU gets a chain of domains from the bottom up: SMT (the core), MC (the LLC),
//! PKG (the node, when a node has several LLCs) and one NUMA level per distinct node
//! distance. A level whose span equals its child's is degenerate and dropped, as
//! `sd_degenerate()` drops it. Each domain's groups are its child domains' spans.

use crate::facts::cost::CostModel;
use crate::facts::kernel::KernelConfig;
use crate::facts::topology::{CpuMap, RECLAIM_DISTANCE};

/// `SD_BALANCE_NEWIDLE`: newidle balancing runs at this level.
pub const SD_BALANCE_NEWIDLE: u32 = 1 << 0;
/// `SD_WAKE_AFFINE`: wake_affine() may pull a wakee across this level.
pub const SD_WAKE_AFFINE: u32 = 1 << 1;
/// `SD_SHARE_CPUCAPACITY`: SMT siblings.
pub const SD_SHARE_CPUCAPACITY: u32 = 1 << 2;
/// `SD_SHARE_PKG_RESOURCES` (later `SD_SHARE_LLC`): the span shares a cache.
pub const SD_SHARE_PKG_RESOURCES: u32 = 1 << 3;
/// `SD_NUMA`.
pub const SD_NUMA: u32 = 1 << 4;
/// `SD_BALANCE_FORK`: fork placement (`find_idlest_cpu`) may search this level.
pub const SD_BALANCE_FORK: u32 = 1 << 5;

/// What a domain level is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Smt,
    Mc,
    Pkg,
    /// A NUMA level reaching nodes within this SLIT distance.
    Numa(u32),
}

impl Level {
    pub fn name(self) -> String {
        match self {
            Level::Smt => "SMT".into(),
            Level::Mc => "MC".into(),
            Level::Pkg => "PKG".into(),
            Level::Numa(d) => format!("NUMA{d}"),
        }
    }
}

/// One scheduling domain (shared by every CPU in its span; per-CPU mutable state such
/// as `max_newidle_lb_cost` lives in the simulator, indexed by CPU and depth).
#[derive(Clone, Debug)]
pub struct SchedDomain {
    pub level: Level,
    /// CPUs in the domain, ascending.
    pub span: Vec<u32>,
    pub flags: u32,
    /// `sd->imbalance_pct` as the kernel's [`SdInit`] form sets it.
    pub imbalance_pct: u32,
    /// Child spans, ascending by first CPU.
    pub groups: Vec<Vec<u32>>,
    /// `sd->min_interval` in ms = span weight (`sd_init`).
    pub min_interval_ms: u32,
    /// `span` as a bitmap (bit `c % 64` of word `c / 64`), for [`SchedDomain::contains`]
    /// on the wakeup path.
    span_mask: Vec<u64>,
    /// The first word of `span_mask` (CPUs 0 to 63), kept in the domain itself: the
    /// test of a CPU below 64 reads no vector.
    span_low: u64,
}

impl SchedDomain {
    #[inline]
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    #[inline]
    pub fn contains(&self, cpu: u32) -> bool {
        let w = if cpu < 64 { self.span_low } else { self.span_mask.get(cpu as usize / 64).copied().unwrap_or(0) };
        w >> (cpu % 64) & 1 != 0
    }

    /// Index of the group containing `cpu`.
    pub fn group_of(&self, cpu: u32) -> usize {
        self.groups.iter().position(|g| g.binary_search(&cpu).is_ok()).unwrap_or(0)
    }
}

/// The distinct remote distances of `map`'s SLIT, ascending: one NUMA level each.
pub fn numa_distances(map: &CpuMap) -> Vec<u32> {
    let mut dists: Vec<u32> =
        map.distance.iter().flatten().copied().filter(|&d| d > crate::facts::topology::LOCAL_DISTANCE).collect();
    dists.sort_unstable();
    dists.dedup();
    dists
}

/// All domains of a machine.
#[derive(Clone, Debug)]
pub struct Domains {
    pub domains: Vec<SchedDomain>,
    /// For each CPU, its domain indices from the bottom up.
    pub chain: Vec<Vec<u32>>,
    /// For each CPU, the depth in `chain` of `sd_llc` (the highest domain with
    /// SD_SHARE_PKG_RESOURCES), or `None` when the LLC is a single CPU.
    pub llc_depth: Vec<Option<u8>>,
}

/// How a kernel initialises a domain's tunables, by era (`sd->imbalance_pct` per level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdInit {
    /// v3.8's `SD_SIBLING_INIT` / `SD_MC_INIT` / `SD_CPU_INIT` macros
    /// (include/linux/topology.h) and `sd_numa_init()`: SMT 110, every other level 125.
    Macros,
    /// `sd_init()` from "sched: Rework sched_domain topology definition" (143e1e28cb40,
    /// v3.16): default 125, SD_SHARE_CPUCAPACITY 110, SD_SHARE_PKG_RESOURCES 117.
    V3_16,
    /// `sd_init()` from "sched/fair: Reduce minimal imbalance threshold" (2208cdaa56c9,
    /// v5.10): the default is 117, so PKG and NUMA levels have 117 too; SMT stays 110.
    V5_10,
}

impl SdInit {
    /// `sd->imbalance_pct` of a domain at `level`.
    pub fn imbalance_pct(self, level: Level) -> u32 {
        match (self, level) {
            (_, Level::Smt) => 110,
            (SdInit::Macros, _) => 125,
            (SdInit::V3_16, Level::Mc) => 117,
            (SdInit::V3_16, _) => 125,
            (SdInit::V5_10, _) => 117,
        }
    }
}

/// What `build_sched_domains()` reads besides the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DomainParams {
    /// NUMA levels farther than this lose SD_WAKE_AFFINE and SD_BALANCE_FORK
    /// (`node_reclaim_distance`, RECLAIM_DISTANCE before v5.4).
    pub reclaim_distance: u32,
    pub sd_init: SdInit,
}

impl DomainParams {
    /// What this kernel's `build_sched_domains()` reads besides the topology: the
    /// distance past which NUMA levels lose SD_WAKE_AFFINE (`node_reclaim_distance` is
    /// a v5.4 variable; before it, RECLAIM_DISTANCE) and its `sd_init()` form.
    pub fn of(cfg: &KernelConfig, cost: &CostModel) -> DomainParams {
        let reclaim_distance = if cfg.since(5, 4) { cost.node_reclaim_distance } else { RECLAIM_DISTANCE };
        let sd_init = if cfg.since(5, 10) {
            SdInit::V5_10
        } else if cfg.since(3, 16) {
            SdInit::V3_16
        } else {
            SdInit::Macros
        };
        DomainParams { reclaim_distance, sd_init }
    }
}

impl Domains {
    /// Builds the domain hierarchy for `map`; NUMA levels farther than
    /// `reclaim_distance` (`node_reclaim_distance`) lose SD_WAKE_AFFINE and
    /// SD_BALANCE_FORK, as `sd_init()` strips them.
    ///
    /// Work and memory grow with CPUs x levels, not CPUs² x levels: NUMA spans are
    /// made once per node and level, and each distinct span becomes one domain.
    pub fn build(map: &CpuMap, params: DomainParams) -> Domains {
        let DomainParams { reclaim_distance, sd_init } = params;
        let n = map.nr_cpus();
        let dists = numa_distances(map);
        let nodes = map.node_cpus.len();

        // A candidate span: which table it comes from, and its index there.
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        enum Span {
            Core(u32),
            Llc(u32),
            Node(u32),
            /// (level index into `dists`, node)
            Numa(u32, u32),
        }
        // The nodes within each distance of each node, and the CPUs they hold.
        let mut numa_nodes: Vec<Vec<Vec<u32>>> = Vec::with_capacity(dists.len());
        let mut numa_spans: Vec<Vec<Vec<u32>>> = Vec::with_capacity(dists.len());
        for &d in &dists {
            let mut ns = Vec::with_capacity(nodes);
            let mut ss = Vec::with_capacity(nodes);
            for from in 0..nodes {
                let near: Vec<u32> = (0..nodes as u32).filter(|&j| map.distance[from][j as usize] <= d).collect();
                let mut span: Vec<u32> = near.iter().flat_map(|&j| map.node_cpus[j as usize].iter().copied()).collect();
                span.sort_unstable();
                ns.push(near);
                ss.push(span);
            }
            numa_nodes.push(ns);
            numa_spans.push(ss);
        }
        let span_of = |s: Span| -> &[u32] {
            match s {
                Span::Core(i) => &map.core_cpus[i as usize],
                Span::Llc(i) => &map.llc_cpus[i as usize],
                Span::Node(i) => &map.node_cpus[i as usize],
                Span::Numa(k, i) => &numa_spans[k as usize][i as usize],
            }
        };
        let level_of = |s: Span| match s {
            Span::Core(_) => Level::Smt,
            Span::Llc(_) => Level::Mc,
            Span::Node(_) => Level::Pkg,
            Span::Numa(k, _) => Level::Numa(dists[k as usize]),
        };
        // One key per distinct domain: NUMA spans of two nodes with the same near set
        // are one domain.
        let key_of = |s: Span| -> (Level, Vec<u32>) {
            match s {
                Span::Numa(k, i) => (level_of(s), numa_nodes[k as usize][i as usize].clone()),
                Span::Core(i) | Span::Llc(i) | Span::Node(i) => (level_of(s), vec![i]),
            }
        };
        // Per CPU, bottom up, with degenerate levels (no wider than the child) removed.
        let chains: Vec<Vec<Span>> = (0..n)
            .map(|cpu| {
                let p = map.places[cpu as usize];
                let mut cand = vec![Span::Core(p.core), Span::Llc(p.llc), Span::Node(p.node)];
                cand.extend((0..dists.len() as u32).map(|k| Span::Numa(k, p.node)));
                let mut out = Vec::new();
                let mut prev_len = 1usize;
                for s in cand {
                    let len = span_of(s).len();
                    if len > prev_len {
                        prev_len = len;
                        out.push(s);
                    }
                }
                out
            })
            .collect();
        // Domain ids in order of first appearance (CPU 0's chain bottom up, then CPU 1's...).
        let mut index: std::collections::BTreeMap<(Level, Vec<u32>), u32> = Default::default();
        let mut firsts: Vec<Span> = Vec::new();
        let chain: Vec<Vec<u32>> = chains
            .iter()
            .map(|c| {
                c.iter()
                    .map(|&s| {
                        let next = firsts.len() as u32;
                        let id = *index.entry(key_of(s)).or_insert(next);
                        if id == next {
                            firsts.push(s);
                        }
                        id
                    })
                    .collect()
            })
            .collect();
        let domains: Vec<SchedDomain> = firsts
            .iter()
            .enumerate()
            .map(|(id, &s)| {
                let lvl = level_of(s);
                let span = span_of(s).to_vec();
                // Each CPU's child span below this domain in its own chain (the CPU
                // alone when this is its lowest level, or when its own domain at this
                // level is another span).
                // Children are borrowed from the span tables, so overlapping NUMA
                // spans cost a comparison, not a copy, per CPU.
                let mut children: std::collections::BTreeSet<&[u32]> = Default::default();
                let mut groups: Vec<Vec<u32>> = Vec::new();
                for &c in &span {
                    let cc = &chain[c as usize];
                    match cc.iter().position(|&d| d as usize == id) {
                        Some(pos) if pos > 0 => {
                            children.insert(span_of(chains[c as usize][pos - 1]));
                        }
                        _ => groups.push(vec![c]),
                    }
                }
                groups.extend(children.into_iter().map(<[u32]>::to_vec));
                groups.sort_by_key(|g| g[0]);
                let flags = match lvl {
                    Level::Smt => {
                        SD_BALANCE_NEWIDLE
                            | SD_BALANCE_FORK
                            | SD_WAKE_AFFINE
                            | SD_SHARE_CPUCAPACITY
                            | SD_SHARE_PKG_RESOURCES
                    }
                    Level::Mc => SD_BALANCE_NEWIDLE | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_SHARE_PKG_RESOURCES,
                    Level::Pkg => SD_BALANCE_NEWIDLE | SD_BALANCE_FORK | SD_WAKE_AFFINE,
                    Level::Numa(d) => {
                        let near = if d <= reclaim_distance { SD_WAKE_AFFINE | SD_BALANCE_FORK } else { 0 };
                        SD_BALANCE_NEWIDLE | SD_NUMA | near
                    }
                };
                let pct = sd_init.imbalance_pct(lvl);
                let min_interval_ms = span.len() as u32;
                let mut span_mask = vec![0u64; span.last().map_or(0, |&c| c as usize / 64 + 1)];
                for &c in &span {
                    span_mask[c as usize / 64] |= 1 << (c % 64);
                }
                let span_low = span_mask.first().copied().unwrap_or(0);
                SchedDomain {
                    level: lvl,
                    span,
                    flags,
                    imbalance_pct: pct,
                    groups,
                    min_interval_ms,
                    span_mask,
                    span_low,
                }
            })
            .collect();
        let llc_depth = chain
            .iter()
            .map(|c| c.iter().rposition(|&d| domains[d as usize].has(SD_SHARE_PKG_RESOURCES)).map(|p| p as u8))
            .collect();
        Domains { domains, chain, llc_depth }
    }

    /// `sd_llc` of `cpu`.
    #[inline]
    pub fn sd_llc(&self, cpu: u32) -> Option<&SchedDomain> {
        self.llc_depth[cpu as usize].map(|d| &self.domains[self.chain[cpu as usize][d as usize] as usize])
    }

    /// Domains of `cpu`, bottom up.
    pub fn of(&self, cpu: u32) -> impl Iterator<Item = &SchedDomain> + '_ {
        self.chain[cpu as usize].iter().map(move |&d| &self.domains[d as usize])
    }

    /// The deepest chain length over all CPUs (for per-CPU per-level state arrays).
    pub fn max_depth(&self) -> usize {
        self.chain.iter().map(|c| c.len()).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::topology::Topology;

    fn names(d: &Domains, cpu: u32) -> Vec<String> {
        d.of(cpu).map(|s| format!("{}:{}:{}", s.level.name(), s.span.len(), s.groups.len())).collect()
    }

    #[test]
    fn cascade_lake_levels() {
        let m = Topology::parse_spec("2x1x20x2").unwrap().build().unwrap();
        let d = Domains::build(&m, DomainParams { reclaim_distance: 30, sd_init: SdInit::V3_16 });
        // Node == LLC, so PKG degenerates into MC.
        assert_eq!(names(&d, 0), ["SMT:2:2", "MC:40:20", "NUMA21:80:2"]);
        assert_eq!(d.sd_llc(0).unwrap().span.len(), 40);
        assert!(d.of(0).last().unwrap().has(SD_WAKE_AFFINE));
    }

    /// The span bitmap answers as the span does, for every CPU of the machine and past it.
    #[test]
    fn contains_agrees_with_the_span() {
        for spec in ["2x8x8x2", "1x1x10x2", "4x2x3x1"] {
            let m = Topology::parse_spec(spec).unwrap().build().unwrap();
            let d = Domains::build(&m, DomainParams { reclaim_distance: 30, sd_init: SdInit::V5_10 });
            for sd in &d.domains {
                for c in 0..m.nr_cpus() + 70 {
                    assert_eq!(sd.contains(c), sd.span.binary_search(&c).is_ok(), "{spec} CPU {c}");
                }
            }
        }
    }

    #[test]
    fn milan_levels() {
        let m = Topology::parse_spec("2x8x8x2").unwrap().build().unwrap();
        let d = Domains::build(&m, DomainParams { reclaim_distance: 30, sd_init: SdInit::V3_16 });
        assert_eq!(names(&d, 5), ["SMT:2:2", "MC:16:8", "PKG:128:8", "NUMA21:256:2"]);
    }

    #[test]
    fn far_numa_loses_wake_affine_and_single_cpu_has_none() {
        let mut t = Topology::uniform(2, 1, 2, 1);
        t.numa_distance = Some(vec![vec![10, 32], vec![32, 10]]);
        let d = Domains::build(&t.build().unwrap(), DomainParams { reclaim_distance: 30, sd_init: SdInit::V3_16 });
        let top = d.of(0).last().unwrap();
        assert_eq!(top.level, Level::Numa(32));
        assert!(!top.has(SD_WAKE_AFFINE) && !top.has(SD_BALANCE_FORK));
        // AMD Zen's node_reclaim_distance of 32 keeps them.
        let zen = Domains::build(&t.build().unwrap(), DomainParams { reclaim_distance: 32, sd_init: SdInit::V3_16 });
        let top = zen.of(0).last().unwrap();
        assert!(top.has(SD_WAKE_AFFINE) && top.has(SD_BALANCE_FORK));
        let one = Domains::build(
            &Topology::uniform(1, 1, 1, 1).build().unwrap(),
            DomainParams { reclaim_distance: 30, sd_init: SdInit::V3_16 },
        );
        assert!(one.sd_llc(0).is_none());
        assert_eq!(one.max_depth(), 0);
    }

    /// 1024 CPUs in 256 nodes with eight distance levels: one domain per distinct NUMA
    /// span, groups that cover each span (they overlap where the distances are not
    /// transitive, as Linux's overlapping NUMA groups do), built quickly (the old builder copied
    /// every span per CPU: 1.7 GB with 244 levels).
    #[test]
    fn many_numa_nodes_build_cheaply() {
        let mut t = Topology::uniform(256, 1, 2, 2);
        let d = |i: usize, j: usize| if i == j { 10 } else { 10 + 10 * (i.abs_diff(j) as u32).div_ceil(32).min(8) };
        t.numa_distance = Some((0..256).map(|i| (0..256).map(|j| d(i, j)).collect()).collect());
        let m = t.build().unwrap();
        let doms = Domains::build(&m, DomainParams { reclaim_distance: 30, sd_init: SdInit::V3_16 });
        assert_eq!(names(&doms, 0)[..2], ["SMT:2:2", "MC:4:2"]);
        assert_eq!(doms.of(0).last().unwrap().span.len(), 1024);
        for sd in &doms.domains {
            let mut all: Vec<u32> = sd.groups.iter().flatten().copied().collect();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all, sd.span, "{:?} groups do not cover the span", sd.level);
        }
        // Nine levels are refused, naming the limit.
        let d9 = |i: usize, j: usize| if i == j { 10 } else { 10 + 10 * (i.abs_diff(j) as u32).div_ceil(28).min(9) };
        t.numa_distance = Some((0..256).map(|i| (0..256).map(|j| d9(i, j)).collect()).collect());
        let e = t.validate().unwrap_err().0;
        assert!(e.contains("9 distinct remote distances, at most 8"), "{e}");
    }

    #[test]
    fn imbalance_pct_follows_the_sd_init_form() {
        let m = Topology::uniform(2, 1, 2, 2).build().unwrap();
        let pcts = |sd_init| {
            let d = Domains::build(&m, DomainParams { reclaim_distance: 30, sd_init });
            d.chain[0]
                .iter()
                .map(|&i| (d.domains[i as usize].level.name(), d.domains[i as usize].imbalance_pct))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pcts(SdInit::Macros),
            [("SMT".to_string(), 110), ("MC".to_string(), 125), ("NUMA21".to_string(), 125)]
        );
        assert_eq!(
            pcts(SdInit::V3_16),
            [("SMT".to_string(), 110), ("MC".to_string(), 117), ("NUMA21".to_string(), 125)]
        );
        assert_eq!(
            pcts(SdInit::V5_10),
            [("SMT".to_string(), 110), ("MC".to_string(), 117), ("NUMA21".to_string(), 117)]
        );
    }
}
