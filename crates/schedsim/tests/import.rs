//! Importing real machines' topologies from `lscpu -p`, `lscpu -e`, sysfs and
//! `numactl --hardware` text (fixtures in tests/fixtures/topology/), and never
//! panicking on broken versions of them.

use proptest::prelude::*;
use schedsim::import::{topology_from_text, ImportError, Imported};
use schedsim::topology::Topology;

// For its fixed-seed proptest configuration only.
#[allow(dead_code)]
mod campaign;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/topology/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const FIXTURES: &[&str] = &[
    "intel-xeon-gold-6248-2s.lscpu-p.txt",
    "intel-xeon-gold-6248-2s.lscpu-e.txt",
    "numactl-hardware-2node.txt",
    "amd-epyc-7763-2s.lscpu-p.txt",
    "amd-epyc-7763-1s.sysfs-grep.txt",
    "intel-core-i9-12900k.lscpu-p-columns.txt",
    "intel-core-i7-8700-offline.lscpu-e.txt",
    "rockchip-rk3399.sysfs-tail.txt",
];

/// Imports, and checks what must hold for every successful import: the topology is
/// valid and `cpu_map` is a one-to-one map onto schedsim's CPUs 0..n that agrees with
/// the simulator's own numbering (a core's Linux siblings are schedsim siblings).
fn import(text: &str) -> Imported {
    let imp = topology_from_text(text).unwrap_or_else(|e| panic!("import failed: {e}"));
    checked(&imp);
    imp
}

fn checked(imp: &Imported) {
    let map = imp.topology.build().expect("imported topology is valid");
    let n = map.nr_cpus() as usize;
    assert_eq!(imp.cpu_map.len(), n, "cpu_map covers every CPU");
    let mut sim: Vec<u32> = imp.cpu_map.iter().map(|m| m.1).collect();
    sim.sort_unstable();
    assert_eq!(sim, (0..n as u32).collect::<Vec<_>>(), "schedsim numbers are 0..n once each");
    assert!(imp.cpu_map.windows(2).all(|w| w[0].0 < w[1].0), "sorted by Linux CPU, no duplicates");
}

/// (nodes, LLCs per node, cores per LLC, threads per core) of each LLC, in order.
fn shape(t: &Topology) -> Vec<Vec<Vec<u32>>> {
    t.nodes.iter().map(|n| n.llcs.iter().map(|l| l.cores.iter().map(|c| c.threads).collect()).collect()).collect()
}

fn err(text: &str) -> ImportError {
    match topology_from_text(text) {
        Ok(i) => panic!("expected an error, got {:?} from {text:?}", i.topology),
        Err(e) => e,
    }
}

/// Replaces line `n` (1-based) of `text`.
fn with_line(text: &str, n: usize, new: &str) -> String {
    let mut v: Vec<&str> = text.lines().collect();
    v[n - 1] = new;
    v.join("\n") + "\n"
}

// ---------------------------------------------------------------------------------
// The machines

/// Intel Xeon Gold 6248 (Cascade Lake), 2 sockets x 20 cores x 2 threads = 80 CPUs,
/// one 27.5 MB L3 per socket, `lscpu -p` from util-linux 2.37 (Ubuntu 22.04).
#[test]
fn xeon_gold_6248_lscpu_p() {
    let imp = import(&fixture("intel-xeon-gold-6248-2s.lscpu-p.txt"));
    assert_eq!(imp.format, "lscpu -p");
    assert_eq!(imp.topology, Topology::uniform(2, 1, 20, 2));
    assert_eq!(imp.topology.cpu_count(), 80);
    // Linux numbers this machine the way schedsim does: CPU 0 and 40 are siblings.
    assert!(imp.cpu_map.iter().all(|(a, b)| a == b));
    assert!(imp.notes.is_empty(), "{:?}", imp.notes);
}

/// The same Xeon Gold 6248 machine through `lscpu -e` (with MAXMHZ/MINMHZ/MHZ columns).
#[test]
fn xeon_gold_6248_lscpu_e_matches_lscpu_p() {
    let e = import(&fixture("intel-xeon-gold-6248-2s.lscpu-e.txt"));
    let p = import(&fixture("intel-xeon-gold-6248-2s.lscpu-p.txt"));
    assert_eq!(e.format, "lscpu -e");
    assert_eq!(e.topology, p.topology);
    assert_eq!(e.cpu_map, p.cpu_map);
}

/// `numactl --hardware` of the Xeon Gold 6248 box (two nodes, SLIT 10/21) appended:
/// the distances are kept.
#[test]
fn numactl_appended_gives_distances() {
    let text = fixture("intel-xeon-gold-6248-2s.lscpu-p.txt") + fixture("numactl-hardware-2node.txt").as_str();
    let imp = import(&text);
    assert_eq!(imp.format, "lscpu -p + numactl --hardware");
    assert_eq!(imp.topology.numa_distance, Some(vec![vec![10, 21], vec![21, 10]]));
    assert_eq!(shape(&imp.topology), shape(&Topology::uniform(2, 1, 20, 2)));
    // Before the table works too, and so does lscpu -e.
    let before = fixture("numactl-hardware-2node.txt") + "\n" + fixture("intel-xeon-gold-6248-2s.lscpu-e.txt").as_str();
    assert_eq!(import(&before).topology, imp.topology);
}

/// Without a Node column (non-NUMA kernel, or `lscpu -p=CPU,CORE,SOCKET,CACHE`) the
/// nodes come from numactl's `node N cpus:` lines, else from the sockets.
#[test]
fn nodes_from_numactl_or_sockets() {
    let p = fixture("intel-xeon-gold-6248-2s.lscpu-p.txt");
    // Empty the Node field: "0,0,0,0,,..." -> "0,0,0,,,...".
    let no_node: String = p
        .lines()
        .map(|l| {
            if l.starts_with('#') {
                l.to_string()
            } else {
                let mut f: Vec<&str> = l.split(',').collect();
                f[3] = "";
                f.join(",")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let by_socket = import(&no_node);
    assert_eq!(by_socket.topology, Topology::uniform(2, 1, 20, 2));
    assert!(by_socket.notes.iter().any(|n| n.contains("one node per socket")), "{:?}", by_socket.notes);

    let with_numactl = import(&(no_node + "\n" + fixture("numactl-hardware-2node.txt").as_str()));
    assert_eq!(shape(&with_numactl.topology), shape(&Topology::uniform(2, 1, 20, 2)));
    assert_eq!(with_numactl.topology.numa_distance, Some(vec![vec![10, 21], vec![21, 10]]));
    assert!(with_numactl.notes.iter().any(|n| n.contains("numactl")), "{:?}", with_numactl.notes);
}

/// AMD EPYC 7763 (Zen 3 Milan), 2 sockets x 64 cores x 2 threads = 256 CPUs, NPS1:
/// eight CCDs per socket, each with its own 32 MB L3 shared by 8 cores.
#[test]
fn epyc_7763_lscpu_p_has_eight_llcs_per_node() {
    let imp = import(&fixture("amd-epyc-7763-2s.lscpu-p.txt"));
    assert_eq!(imp.topology, Topology::uniform(2, 8, 8, 2));
    assert!(imp.cpu_map.iter().all(|(a, b)| a == b));
    let map = imp.topology.build().unwrap();
    // CPU 0 shares its L3 with 1-7 and the siblings 128-135, not with 8.
    assert!(map.share_cache(0, 7) && map.share_cache(0, 135) && !map.share_cache(0, 8));
}

/// A 1-socket EPYC 7763 (e.g. Dell R6515), kernel 5.15, through
/// `grep . /sys/devices/system/cpu/cpu*/topology/* /sys/devices/system/cpu/cpu*/cache/index*/shared_cpu_list`
/// (hex masks included, CPUs in the shell's cpu0, cpu1, cpu10, cpu100 order).
#[test]
fn epyc_7763_sysfs_grep() {
    let imp = import(&fixture("amd-epyc-7763-1s.sysfs-grep.txt"));
    assert_eq!(imp.format, "sysfs");
    assert_eq!(imp.topology, Topology::uniform(1, 8, 8, 2));
    assert!(imp.cpu_map.iter().all(|(a, b)| a == b));
    assert!(imp.notes.iter().any(|n| n.contains("no NUMA nodes")), "{:?}", imp.notes);
}

/// Intel Core i9-12900K (Alder Lake) through `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE`:
/// 8 P-cores with SMT (Linux numbers siblings adjacently, 0/1, 2/3, ...) and 8 E-cores
/// without, in two 4-core L2 clusters, all under one L3. Non-uniform thread counts,
/// and schedsim's numbering differs from Linux's.
#[test]
fn alder_lake_hybrid_keeps_thread_counts_and_maps_cpus() {
    let imp = import(&fixture("intel-core-i9-12900k.lscpu-p-columns.txt"));
    assert_eq!(imp.format, "lscpu -p");
    let mut want = vec![2; 8];
    want.extend([1; 8]);
    assert_eq!(shape(&imp.topology), vec![vec![want]]);
    assert_eq!(imp.topology.cpu_count(), 24);
    // schedsim: first threads of the 16 cores are 0..15, the P-cores' second threads 16..23.
    assert_eq!(imp.schedsim_cpu(0), Some(0));
    assert_eq!(imp.schedsim_cpu(1), Some(16));
    assert_eq!(imp.schedsim_cpu(2), Some(1));
    assert_eq!(imp.schedsim_cpu(15), Some(23));
    assert_eq!(imp.schedsim_cpu(16), Some(8));
    assert_eq!(imp.schedsim_cpu(23), Some(15));
    assert_eq!(imp.linux_cpu(16), Some(1));
    let map = imp.topology.build().unwrap();
    for (a, b) in [(0, 1), (14, 15)] {
        let (sa, sb) = (imp.schedsim_cpu(a).unwrap(), imp.schedsim_cpu(b).unwrap());
        assert!(map.siblings(sa).contains(&sb), "Linux {a} and {b} are SMT siblings in schedsim too");
    }
    assert!(imp.notes.iter().any(|n| n.contains("1->16")), "{:?}", imp.notes);
}

/// Intel Core i7-8700 (6 cores, 12 threads) after `chcpu -d 9,11`: lscpu -e shows
/// the two CPUs with `-` fields and ONLINE `no`. Cores 3 and 5 keep one thread.
#[test]
fn offline_cpus_are_left_out_and_noted() {
    let imp = import(&fixture("intel-core-i7-8700-offline.lscpu-e.txt"));
    assert_eq!(imp.format, "lscpu -e");
    assert_eq!(shape(&imp.topology), vec![vec![vec![2, 2, 2, 1, 2, 1]]]);
    assert_eq!(imp.topology.cpu_count(), 10);
    assert!(imp.notes.iter().any(|n| n.contains("CPUs 9,11") && n.contains("offline")), "{:?}", imp.notes);
    assert_eq!(imp.schedsim_cpu(9), None);
    assert_eq!(imp.schedsim_cpu(11), None);
    // Second threads: 6, 7, 8 (cores 0-2) then 10 (core 4) -> schedsim 6, 7, 8, 9.
    assert_eq!(imp.schedsim_cpu(10), Some(9));
    assert_eq!(imp.schedsim_cpu(8), Some(8));
}

/// CPUs missing from the input (lscpu -p lists online CPUs only; offline CPUs have no
/// sysfs topology files) are noted too.
#[test]
fn gaps_in_cpu_numbers_are_noted() {
    let p = fixture("intel-xeon-gold-6248-2s.lscpu-p.txt");
    let without: String =
        p.lines().filter(|l| !l.starts_with("41,") && !l.starts_with("42,")).map(|l| format!("{l}\n")).collect();
    let imp = import(&without);
    assert_eq!(imp.topology.cpu_count(), 78);
    assert!(imp.notes.iter().any(|n| n.contains("CPUs 41-42") && n.contains("not described")), "{:?}", imp.notes);

    let rk = fixture("rockchip-rk3399.sysfs-tail.txt");
    let cpu4_gone = rk.split("\n\n").filter(|b| !b.contains("/cpu4/")).collect::<Vec<_>>().join("\n\n");
    let imp = import(&cpu4_gone);
    assert_eq!(shape(&imp.topology), vec![vec![vec![1, 1, 1, 1], vec![1]]]);
    assert!(imp.notes.iter().any(|n| n.contains("CPU 4 is")), "{:?}", imp.notes);
    assert_eq!(imp.schedsim_cpu(5), Some(4));
}

/// Rockchip RK3399 (e.g. Pine64 RockPro64), kernel 6.6, through `tail -n +1` of the
/// sysfs files: 4 Cortex-A53 (CPUs 0-3) sharing one L2 and 2 Cortex-A72 (CPUs 4-5)
/// sharing another; no SMT, no L3; physical_package_id 0 for all, cluster_id 0/1 and
/// core_id repeating per cluster.
#[test]
fn rk3399_big_little_sysfs_tail() {
    let imp = import(&fixture("rockchip-rk3399.sysfs-tail.txt"));
    assert_eq!(imp.format, "sysfs");
    assert_eq!(shape(&imp.topology), vec![vec![vec![1, 1, 1, 1], vec![1, 1]]]);
    assert_eq!(imp.topology.spec(), None, "LLCs of different sizes");
    assert!(imp.cpu_map.iter().all(|(a, b)| a == b));
    assert!(imp.notes.iter().any(|n| n.contains("no L3") && n.contains("index2")), "{:?}", imp.notes);
    let map = imp.topology.build().unwrap();
    assert!(map.share_cache(0, 3) && map.share_cache(4, 5) && !map.share_cache(3, 4));
}

/// The same files as `grep .` prints them give the same topology; without the sibling
/// lists, core_id plus cluster_id still keep the clusters' core 0s apart.
#[test]
fn rk3399_grep_form_and_core_ids() {
    let tail = fixture("rockchip-rk3399.sysfs-tail.txt");
    let mut grep = String::new();
    let mut path = None;
    for l in tail.lines() {
        if let Some(p) = l.strip_prefix("==> ").and_then(|r| r.strip_suffix(" <==")) {
            path = Some(p.to_string());
        } else if let Some(p) = path.take() {
            grep.push_str(&format!("{p}:{l}\n"));
        }
    }
    assert_eq!(import(&grep).topology, import(&tail).topology);
    let no_lists: String = grep
        .lines()
        .filter(|l| !l.contains("siblings_list") && !l.contains("core_cpus_list"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(import(&no_lists).topology, import(&tail).topology);
    // Without cache files: one LLC per socket, as Linux's scheduler would have it.
    let no_cache: String = grep.lines().filter(|l| !l.contains("/cache/")).map(|l| format!("{l}\n")).collect();
    let imp = import(&no_cache);
    assert_eq!(shape(&imp.topology), vec![vec![vec![1; 6]]]);
    assert!(imp.notes.iter().any(|n| n.contains("one LLC per socket")), "{:?}", imp.notes);
}

#[test]
fn numactl_memory_only_node_and_llc_split_by_nodes() {
    // Node 2 has memory but no CPUs (CXL, Optane): it leaves the matrix.
    let text = "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n\
                0,0,0,0,,0,0,0,0\n1,1,0,0,,1,1,1,0\n2,2,0,1,,2,2,2,0\n3,3,0,1,,3,3,3,0\n\
                available: 3 nodes (0-2)\nnode 0 cpus: 0 1\nnode 1 cpus: 2 3\nnode 2 cpus:\n\
                node distances:\nnode   0   1   2 \n  0:  10  11  20 \n  1:  11  10  20 \n  2:  20  20  10 \n";
    let imp = import(text);
    assert_eq!(imp.topology.numa_distance, Some(vec![vec![10, 11], vec![11, 10]]));
    assert!(imp.notes.iter().any(|n| n.contains("node(s) 2")), "{:?}", imp.notes);
    // Sub-NUMA clustering: one L3 id over two nodes is split at the node boundary.
    assert_eq!(shape(&imp.topology), vec![vec![vec![1, 1]], vec![vec![1, 1]]]);
    assert!(imp.notes.iter().any(|n| n.contains("split at the node boundary")), "{:?}", imp.notes);
}

#[test]
fn lscpu_e_without_node_and_with_model_names() {
    let text = "CPU SOCKET CORE L1d:L1i:L2 ONLINE MODELNAME\n\
                  0      0    0 0:0:0         yes Cortex-A53\n\
                  1      0    1 1:1:0         yes Cortex-A53\n\
                  2      0    2 2:2:1         yes Neoverse N1 r3p1\n";
    let imp = import(text);
    assert_eq!(shape(&imp.topology), vec![vec![vec![1, 1], vec![1]]]);
    assert!(imp.notes.iter().any(|n| n.contains("the LLC is L2")), "{:?}", imp.notes);
}

/// `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE,ONLINE --all`: offline rows are listed with
/// `N`; without an ONLINE column, `--all` prints them with empty fields.
#[test]
fn lscpu_p_all_with_offline_rows() {
    let text = "# CPU,Core,Socket,Node,L1d:L1i:L2:L3,Online\n\
                0,0,0,0,0:0:0:0,Y\n1,1,0,0,1:1:1:0,Y\n2,0,0,0,0:0:0:0,Y\n3,,,,,N\n";
    let imp = import(text);
    assert_eq!(shape(&imp.topology), vec![vec![vec![2, 1]]]);
    assert!(imp.notes.iter().any(|n| n.contains("CPU 3 is marked offline")), "{:?}", imp.notes);
    let text = "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,,,,,,,,\n2,1,0,0,,1,1,1,0\n";
    let imp = import(text);
    assert_eq!(imp.topology.cpu_count(), 2);
    assert!(imp.notes.iter().any(|n| n.contains("CPU 1 is not described")), "{:?}", imp.notes);
    assert_eq!(imp.schedsim_cpu(2), Some(1));
}

/// With `level` and `type` files (grep . cpu*/cache/index*/*), the level decides, and
/// instruction caches never count as the LLC.
#[test]
fn sysfs_cache_levels_decide_when_given() {
    let mut text = String::new();
    for cpu in 0..4 {
        let p = format!("/sys/devices/system/cpu/cpu{cpu}");
        text.push_str(&format!("{p}/topology/core_id:{cpu}\n{p}/topology/physical_package_id:0\n"));
        // index0: L1d, index1: L1i shared by all (odd, but instruction), index2: L2 per pair.
        for (idx, level, kind, list) in [
            (0, 1, "Data", cpu.to_string()),
            (1, 1, "Instruction", "0-3".into()),
            (2, 2, "Unified", if cpu < 2 { "0-1".into() } else { "2-3".into() }),
        ] {
            text.push_str(&format!(
                "{p}/cache/index{idx}/level:{level}\n{p}/cache/index{idx}/type:{kind}\n\
                 {p}/cache/index{idx}/size:32K\n{p}/cache/index{idx}/shared_cpu_list:{list}\n"
            ));
        }
    }
    let imp = import(&text);
    assert_eq!(shape(&imp.topology), vec![vec![vec![1, 1], vec![1, 1]]]);
    assert!(imp.notes.iter().any(|n| n.contains("the LLC is L2")), "{:?}", imp.notes);
}

// ---------------------------------------------------------------------------------
// Errors

#[test]
fn broken_lscpu_p_row_names_its_line() {
    // Lines 1-4 are the comments, line 7 is CPU 2's row.
    let text = with_line(&fixture("intel-xeon-gold-6248-2s.lscpu-p.txt"), 7, "2,2,0,0");
    let e = err(&text);
    assert_eq!(e.line, Some(7));
    assert_eq!(
        e.to_string(),
        "line 7: expected 9 comma-separated fields (CPU,Core,Socket,Node,,L1d,L1i,L2,L3), found 4"
    );
    let text = with_line(&fixture("intel-xeon-gold-6248-2s.lscpu-p.txt"), 9, "4,four,0,0,,4,4,4,0");
    assert_eq!(err(&text).to_string(), "line 9: Core is \"four\", expected a number, '-' or nothing");
    let text = with_line(&fixture("intel-core-i9-12900k.lscpu-p-columns.txt"), 5, "0,0,0,0,0:0:0");
    let e = err(&text);
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("L1d:L1i:L2:L3"), "{e}");
}

#[test]
fn broken_lscpu_e_row_names_its_line() {
    let text = with_line(&fixture("intel-core-i7-8700-offline.lscpu-e.txt"), 4, "  2    0      0");
    let e = err(&text);
    assert_eq!(e.line, Some(4));
    assert!(e.message.contains("expected 9 whitespace-separated columns (CPU NODE SOCKET CORE"), "{e}");
    let text = with_line(&fixture("intel-core-i7-8700-offline.lscpu-e.txt"), 3, "  1    0      0    1 1:1:1:0 maybe");
    assert_eq!(err(&text).to_string(), "line 3: ONLINE is \"maybe\", expected yes or no (Y or N)");
    let text = with_line(&fixture("intel-core-i7-8700-offline.lscpu-e.txt"), 5, "  0    0      0    0 0:0:0:0 yes");
    assert_eq!(err(&text).to_string(), "line 5: CPU 0 appears twice (first on line 2)");
}

#[test]
fn broken_sysfs_names_its_line() {
    let grep = fixture("amd-epyc-7763-1s.sysfs-grep.txt");
    let text = with_line(&grep, 3, "/sys/devices/system/cpu/cpu0/topology/core_id:zero");
    assert_eq!(err(&text).to_string(), "line 3: core_id is \"zero\", expected a number");
    let text = with_line(&grep, 2, "/sys/devices/system/cpu/cpu0/topology/core_cpus_list:0,64-");
    assert_eq!(err(&text).line, Some(2));
    let text = with_line(&grep, 20, "Segmentation fault");
    let e = err(&text);
    assert_eq!(e.line, Some(20));
    assert!(e.message.contains("==> PATH <=="), "{e}");
    // In the tail form the value's own line is named.
    let tail = fixture("rockchip-rk3399.sysfs-tail.txt");
    let line = tail.lines().position(|l| l.ends_with("cpu1/topology/core_id <==")).unwrap() + 2;
    let e = err(&with_line(&tail, line, "one"));
    assert_eq!(e.line, Some(line));
}

#[test]
fn broken_numactl_names_its_line() {
    let text = fixture("intel-xeon-gold-6248-2s.lscpu-p.txt") + fixture("numactl-hardware-2node.txt").as_str();
    let n = text.lines().count();
    let e = err(&with_line(&text, n, "  1:  21"));
    assert_eq!(e.to_string(), format!("line {n}: distance row '1:' has 1 values, expected 2"));
    // A bad distance is no error, just not used.
    let imp = import(&with_line(&text, n, "  1:  20  10"));
    assert_eq!(imp.topology.numa_distance, None);
    assert!(imp.notes.iter().any(|x| x.contains("symmetry")), "{:?}", imp.notes);
}

#[test]
fn unknown_and_empty_input() {
    let e = err("hello world\n");
    assert_eq!(e.line, Some(1));
    for f in ["lscpu -p", "lscpu -e", "grep . /sys/devices/system/cpu", "tail -n +1", "numactl --hardware"] {
        assert!(e.message.contains(f), "{e} lacks {f}");
    }
    assert!(err("").message.contains("lscpu -p"));
    assert!(err("\n  \n").message.contains("lscpu -p"));
    assert!(err("Architecture:            x86_64\nCPU(s):                  8\n").message.contains("plain `lscpu`"));
    assert!(err(&fixture("numactl-hardware-2node.txt")).message.contains("not cores or caches"));
    assert!(err("0,0,0,0,,0,0,0,0\n").message.contains("header"));
}

#[test]
fn too_many_cpus_or_threads() {
    let mut text = String::from("# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n");
    for c in 0..1100 {
        text.push_str(&format!("{c},{c},0,0,,{c},{c},{c},0\n"));
    }
    let e = err(&text);
    assert_eq!(e.line, None);
    assert!(e.message.contains("1100 online CPUs") && e.message.contains("at most 1024"), "{e}");
    // Exactly 1024 is fine.
    let ok: String = text.lines().take(1025).map(|l| format!("{l}\n")).collect();
    assert_eq!(import(&ok).topology.cpu_count(), 1024);
    // A hypervisor that says every CPU is core 0.
    let mut text = String::from("# CPU,Core,Socket,Node\n");
    for c in 0..12 {
        text.push_str(&format!("{c},0,0,0\n"));
    }
    let e = err(&text);
    assert_eq!(e.line, Some(10), "{e}");
    assert!(e.message.contains("12 threads in one core; at most 8"), "{e}");
    assert!(err("# CPU,Core\n99999,0\n").message.contains("above 8191"));
}

// ---------------------------------------------------------------------------------
// Never a panic

/// A small deterministic generator, so failures reproduce.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n.max(1)
    }
}

fn no_panic(text: &str) {
    let r = std::panic::catch_unwind(|| topology_from_text(text));
    match r {
        Err(_) => panic!("import panicked on:\n{text}"),
        Ok(Ok(imp)) => checked(&imp),
        Ok(Err(e)) => {
            assert!(!e.message.is_empty() && e.line.is_none_or(|l| l >= 1 && l <= text.lines().count().max(1)))
        }
    }
}

fn cut_points(text: &str) -> Vec<usize> {
    let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
    let step = (bounds.len() / 300).max(1);
    bounds.into_iter().step_by(step).collect()
}

#[test]
fn truncated_and_garbled_fixtures_never_panic() {
    let mut rng = Lcg(7);
    let numactl = fixture("numactl-hardware-2node.txt");
    for name in FIXTURES {
        let base = fixture(name);
        for text in [base.clone(), base.clone() + numactl.as_str(), numactl.clone() + base.as_str()] {
            for cut in cut_points(&text) {
                no_panic(&text[..cut]);
                no_panic(&text[cut..]);
            }
            let lines: Vec<&str> = text.lines().collect();
            for _ in 0..150 {
                let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(v.len());
                    match rng.below(7) {
                        0 => {
                            v.remove(i);
                        }
                        1 => {
                            let l = v[i].clone();
                            v.insert(i, l);
                        }
                        2 => {
                            let j = rng.below(v.len());
                            v.swap(i, j);
                        }
                        3 => v[i] = v[i].replace(',', ""),
                        4 => v[i] = v[i].replace(|c: char| c.is_ascii_digit(), "9999999999"),
                        5 => {
                            let junk = ["-", ":", ",", "==>", "<==", "node", "x", "\t", "é", "#", "-1"];
                            let mut s: Vec<char> = v[i].chars().collect();
                            let at = rng.below(s.len() + 1);
                            for (k, c) in junk[rng.below(junk.len())].chars().enumerate() {
                                s.insert(at + k, c);
                            }
                            v[i] = s.into_iter().collect();
                        }
                        _ => {
                            let s: Vec<char> = v[i].chars().collect();
                            if !s.is_empty() {
                                let a = rng.below(s.len());
                                v[i] = s[..a].iter().collect();
                            }
                        }
                    }
                    if v.is_empty() {
                        break;
                    }
                }
                no_panic(&v.join("\n"));
            }
        }
    }
}

fn small_fixture() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "intel-xeon-gold-6248-2s.lscpu-p.txt",
        "intel-core-i7-8700-offline.lscpu-e.txt",
        "intel-core-i9-12900k.lscpu-p-columns.txt",
        "rockchip-rk3399.sysfs-tail.txt",
        "numactl-hardware-2node.txt",
    ])
    .prop_map(fixture)
}

proptest! {
    #![proptest_config(campaign::config(256))]

    #[test]
    fn arbitrary_text_never_panics(s in "(?s).{0,400}") {
        no_panic(&s);
    }

    #[test]
    fn tool_like_text_never_panics(lines in prop::collection::vec(
        "(#|==> |node |CPU |/sys/devices/system/cpu/cpu)?[0-9a-z_,:/ -]{0,40}( <==)?", 0..30)) {
        no_panic(&lines.join("\n"));
    }

    #[test]
    fn byte_edits_of_fixtures_never_panic(
        text in small_fixture(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<char>()), 1..8),
    ) {
        let mut chars: Vec<char> = text.chars().collect();
        for (at, c) in edits {
            let i = at.index(chars.len().max(1)).min(chars.len().saturating_sub(1));
            if chars.is_empty() { chars.push(c) } else { chars[i] = c }
        }
        no_panic(&chars.into_iter().collect::<String>());
    }
}
