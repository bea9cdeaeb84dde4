//! Scheduling domains derived from a topology, as `build_sched_domains()` and
//! `sd_init()` in Linux `kernel/sched/topology.c` (v4.15 to v5.15) build them.
//!
//! Each CPU gets a chain of domains from the bottom up: SMT (the core), MC (the LLC),
//! PKG (the node, when a node has several LLCs) and one NUMA level per distinct node
//! distance. A level whose span equals its child's is degenerate and dropped, as
//! `sd_degenerate()` drops it. Each domain's groups are its child domains' spans.

use crate::topology::CpuMap;

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
    /// `sd->imbalance_pct`: SMT 110, MC 117, others 125 (`sd_init`, v4.15–v5.15).
    pub imbalance_pct: u32,
    /// Child spans, ascending by first CPU.
    pub groups: Vec<Vec<u32>>,
    /// `sd->min_interval` in ms = span weight (`sd_init`).
    pub min_interval_ms: u32,
}

impl SchedDomain {
    #[inline]
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    #[inline]
    pub fn contains(&self, cpu: u32) -> bool {
        self.span.binary_search(&cpu).is_ok()
    }

    /// Index of the group containing `cpu`.
    pub fn group_of(&self, cpu: u32) -> usize {
        self.groups.iter().position(|g| g.binary_search(&cpu).is_ok()).unwrap_or(0)
    }
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

impl Domains {
    /// Builds the domain hierarchy for `map`; NUMA levels farther than
    /// `reclaim_distance` (`node_reclaim_distance`) lose SD_WAKE_AFFINE and
    /// SD_BALANCE_FORK, as `sd_init()` strips them.
    pub fn build(map: &CpuMap, reclaim_distance: u32) -> Domains {
        let n = map.nr_cpus();
        let mut dists: Vec<u32> =
            map.distance.iter().flatten().copied().filter(|&d| d > crate::topology::LOCAL_DISTANCE).collect();
        dists.sort_unstable();
        dists.dedup();

        // Candidate spans per CPU, bottom up, with their level.
        let candidates = |cpu: u32| -> Vec<(Level, Vec<u32>)> {
            let p = map.places[cpu as usize];
            let mut v = vec![
                (Level::Smt, map.core_cpus[p.core as usize].clone()),
                (Level::Mc, map.llc_cpus[p.llc as usize].clone()),
                (Level::Pkg, map.node_cpus[p.node as usize].clone()),
            ];
            for &d in &dists {
                let mut span: Vec<u32> = (0..map.node_cpus.len())
                    .filter(|&j| map.distance[p.node as usize][j] <= d)
                    .flat_map(|j| map.node_cpus[j].iter().copied())
                    .collect();
                span.sort_unstable();
                v.push((Level::Numa(d), span));
            }
            v
        };
        // Per CPU chain of (level, span), with degenerate levels removed.
        let chains: Vec<Vec<(Level, Vec<u32>)>> = (0..n)
            .map(|cpu| {
                let mut out: Vec<(Level, Vec<u32>)> = Vec::new();
                let mut prev_len = 1usize;
                for (lvl, span) in candidates(cpu) {
                    if span.len() > prev_len {
                        prev_len = span.len();
                        out.push((lvl, span));
                    }
                }
                out
            })
            .collect();

        let mut domains: Vec<SchedDomain> = Vec::new();
        let mut index: std::collections::BTreeMap<(Level, u32), u32> = Default::default();
        let mut chain = vec![Vec::new(); n as usize];
        for cpu in 0..n {
            for (lvl, span) in &chains[cpu as usize] {
                let key = (*lvl, span[0]);
                let id = match index.get(&key) {
                    Some(&id) => id,
                    None => {
                        let mut groups: Vec<Vec<u32>> = Vec::new();
                        for &c in span {
                            // c's child span: the one below this level in c's own chain.
                            let cc = &chains[c as usize];
                            let pos = cc.iter().position(|(l, s)| l == lvl && s == span).unwrap_or(0);
                            let g = if pos == 0 { vec![c] } else { cc[pos - 1].1.clone() };
                            if !groups.contains(&g) {
                                groups.push(g);
                            }
                        }
                        groups.sort_by_key(|g| g[0]);
                        let (flags, pct) = match lvl {
                            Level::Smt => (
                                SD_BALANCE_NEWIDLE
                                    | SD_BALANCE_FORK
                                    | SD_WAKE_AFFINE
                                    | SD_SHARE_CPUCAPACITY
                                    | SD_SHARE_PKG_RESOURCES,
                                110,
                            ),
                            Level::Mc => {
                                (SD_BALANCE_NEWIDLE | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_SHARE_PKG_RESOURCES, 117)
                            }
                            Level::Pkg => (SD_BALANCE_NEWIDLE | SD_BALANCE_FORK | SD_WAKE_AFFINE, 125),
                            Level::Numa(d) => {
                                let near = if *d <= reclaim_distance { SD_WAKE_AFFINE | SD_BALANCE_FORK } else { 0 };
                                (SD_BALANCE_NEWIDLE | SD_NUMA | near, 125)
                            }
                        };
                        domains.push(SchedDomain {
                            level: *lvl,
                            span: span.clone(),
                            flags,
                            imbalance_pct: pct,
                            groups,
                            min_interval_ms: span.len() as u32,
                        });
                        let id = domains.len() as u32 - 1;
                        index.insert(key, id);
                        id
                    }
                };
                chain[cpu as usize].push(id);
            }
        }
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
    use crate::topology::Topology;

    fn names(d: &Domains, cpu: u32) -> Vec<String> {
        d.of(cpu).map(|s| format!("{}:{}:{}", s.level.name(), s.span.len(), s.groups.len())).collect()
    }

    #[test]
    fn cascade_lake_levels() {
        let m = Topology::parse_spec("2x1x20x2").unwrap().build().unwrap();
        let d = Domains::build(&m, 30);
        // Node == LLC, so PKG degenerates into MC.
        assert_eq!(names(&d, 0), ["SMT:2:2", "MC:40:20", "NUMA21:80:2"]);
        assert_eq!(d.sd_llc(0).unwrap().span.len(), 40);
        assert!(d.of(0).last().unwrap().has(SD_WAKE_AFFINE));
    }

    #[test]
    fn milan_levels() {
        let m = Topology::parse_spec("2x8x8x2").unwrap().build().unwrap();
        let d = Domains::build(&m, 30);
        assert_eq!(names(&d, 5), ["SMT:2:2", "MC:16:8", "PKG:128:8", "NUMA21:256:2"]);
    }

    #[test]
    fn far_numa_loses_wake_affine_and_single_cpu_has_none() {
        let mut t = Topology::uniform(2, 1, 2, 1);
        t.numa_distance = Some(vec![vec![10, 32], vec![32, 10]]);
        let d = Domains::build(&t.build().unwrap(), 30);
        let top = d.of(0).last().unwrap();
        assert_eq!(top.level, Level::Numa(32));
        assert!(!top.has(SD_WAKE_AFFINE) && !top.has(SD_BALANCE_FORK));
        // AMD Zen's node_reclaim_distance of 32 keeps them.
        let zen = Domains::build(&t.build().unwrap(), 32);
        let top = zen.of(0).last().unwrap();
        assert!(top.has(SD_WAKE_AFFINE) && top.has(SD_BALANCE_FORK));
        let one = Domains::build(&Topology::uniform(1, 1, 1, 1).build().unwrap(), 30);
        assert!(one.sd_llc(0).is_none());
        assert_eq!(one.max_depth(), 0);
    }
}
