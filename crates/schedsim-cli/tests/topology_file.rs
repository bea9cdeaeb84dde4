//! `--topology-file FILE` on `run`, `show` and `trace`: a real machine's topology from
//! lscpu/sysfs/numactl text (the library's fixtures), stored in full in the experiment.

mod common;
use common::{run_ok as ok, schedsim, text, write_file};
use std::path::PathBuf;

/// Runs, checks exit 2 with exactly one stderr line and nothing on stdout; returns it.
fn bad(args: &[&str]) -> String {
    let o = schedsim(args);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{args:?}: exit {:?}, stderr {err}", o.status.code());
    assert!(out.is_empty(), "{args:?}: printed on stdout: {out}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(err.starts_with("schedsim: ") && !err.contains("panicked"), "{args:?}: {err}");
    err.trim_end().to_string()
}

fn fixture(name: &str) -> String {
    format!("{}/../schedsim/tests/fixtures/topology/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    common::tmp("schedsim-topofile", name)
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

/// Threads per core, per LLC, per node, from experiment JSON's machine.topology.
fn shape(t: &serde_json::Value) -> Vec<Vec<Vec<u64>>> {
    t["nodes"]
        .as_array()
        .expect("machine.topology is the full JSON form")
        .iter()
        .map(|n| {
            n["llcs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["cores"].as_array().unwrap().iter().map(|c| c["threads"].as_u64().unwrap()).collect())
                .collect()
        })
        .collect()
}

#[test]
fn show_stores_the_imported_topology_in_full() {
    // Xeon Gold 6248, 2S x 20C x 2T: uniform, yet kept as the full tree, not "2x1x20x2".
    let f = fixture("intel-xeon-gold-6248-2s.lscpu-p.txt");
    let (out, err) = ok(&["show", "--topology-file", &f]);
    let e = json(&out);
    assert!(e["machine"]["topology"].is_object(), "{}", e["machine"]);
    assert_eq!(shape(&e["machine"]["topology"]), vec![vec![vec![2; 20]]; 2]);
    assert!(e["machine"].get("preset").is_none());
    assert!(err.contains("read as lscpu -p: 2 node(s), 2 LLC(s), 40 core(s), 80 CPUs"), "{err}");
    // What show printed runs as is.
    let path = tmp("gold.json");
    std::fs::write(&path, &out).unwrap();
    let (again, _) = ok(&["show", path.to_str().unwrap()]);
    assert_eq!(again, out);
    let _ = std::fs::remove_file(path);
}

#[test]
fn with_machine_only_the_topology_is_replaced() {
    // i7-8700 with CPUs 9 and 11 offline, on Cascade Lake costs.
    let f = fixture("intel-core-i7-8700-offline.lscpu-e.txt");
    let (out, err) = ok(&["show", "--machine", "cascadelake-2s", "--topology-file", &f]);
    let e = json(&out);
    assert_eq!(e["machine"]["preset"], "cascadelake-2s");
    assert_eq!(shape(&e["machine"]["topology"]), vec![vec![vec![2, 2, 2, 1, 2, 1]]]);
    assert!(err.contains("CPUs 9,11 are marked offline"), "{err}");
    assert!(err.contains("10->9"), "the renumbering is said: {err}");
    // With a preset experiment, its machine preset stays too.
    let (out, _) = ok(&["show", "demo", "--topology-file", &fixture("rockchip-rk3399.sysfs-tail.txt")]);
    let e = json(&out);
    assert_eq!(e["machine"]["preset"], "teaching");
    assert_eq!(shape(&e["machine"]["topology"]), vec![vec![vec![1, 1, 1, 1], vec![1, 1]]]);
    assert_eq!(e["name"], "demo");
}

#[test]
fn numactl_distances_reach_the_experiment() {
    let dir = tmp("numa");
    std::fs::create_dir_all(&dir).unwrap();
    let both = dir.join("gold-numactl.txt");
    let text = std::fs::read_to_string(fixture("intel-xeon-gold-6248-2s.lscpu-e.txt")).unwrap()
        + &std::fs::read_to_string(fixture("numactl-hardware-2node.txt")).unwrap();
    std::fs::write(&both, text).unwrap();
    let (out, err) = ok(&["show", "--topology-file", both.to_str().unwrap()]);
    assert_eq!(json(&out)["machine"]["topology"]["numa_distance"], serde_json::json!([[10, 21], [21, 10]]));
    assert!(err.contains("lscpu -e + numactl --hardware"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn run_and_trace_use_the_imported_machine() {
    let rk = fixture("rockchip-rk3399.sysfs-tail.txt");
    let args = [
        "run",
        "--topology-file",
        &rk,
        "--workload",
        "tbench",
        "--clients",
        "1,2",
        "--iterations",
        "1",
        "--duration-ms",
        "20",
        "--json",
    ];
    let (out, _) = ok(&args);
    let r = json(&out);
    assert_eq!(shape(&r["experiment"]["machine"]["topology"]), vec![vec![vec![1, 1, 1, 1], vec![1, 1]]]);
    assert_eq!(r["configs"].as_array().unwrap().len(), 1);
    // Same command, same bytes.
    assert_eq!(ok(&args).0, out);
    let (table, _) = ok(&args[..args.len() - 1]);
    assert!(table.contains("custom topology (6 CPUs)"), "{table}");

    let (tr, _) = ok(&["trace", "demo", "--topology-file", &rk, "--clients", "2", "--count", "2"]);
    assert!(tr.contains("wakeup #0") && tr.contains("wakeup #1") && tr.contains("=> CPU"), "{tr}");
    let (tr, _) =
        ok(&["trace", "--topology-file", &fixture("amd-epyc-7763-1s.sysfs-grep.txt"), "--count", "1", "--json"]);
    assert_eq!(json(&tr).as_array().unwrap().len(), 1);
}

#[test]
fn help_lists_the_flag() {
    for c in ["run", "show", "trace"] {
        let (h, _) = ok(&[c, "--help"]);
        assert!(h.contains("--topology-file FILE"), "{c} --help lacks --topology-file:\n{h}");
    }
}

#[test]
fn bad_topology_files_exit_2_with_one_line() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, body: &str| write_file(&dir, name, body);
    let gold = std::fs::read_to_string(fixture("intel-xeon-gold-6248-2s.lscpu-p.txt")).unwrap();
    let mut lines: Vec<&str> = gold.lines().collect();
    lines[6] = "2,2,0,0";
    let short_row = file("short.txt", &(lines.join("\n") + "\n"));
    let unknown = file("unknown.txt", "hello\n");
    let empty = file("empty.txt", "");
    let mut big = String::from("# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n");
    for c in 0..2048 {
        big.push_str(&format!("{c},{},{},{},,0,0,0,0\n", c % 1024, c / 1024, c / 1024));
    }
    let big = file("big.txt", &big);
    let missing = dir.join("missing.txt").to_str().unwrap().to_string();
    let rk = fixture("rockchip-rk3399.sysfs-tail.txt");

    assert_eq!(
        bad(&["run", "--topology-file", &short_row]),
        format!(
            "schedsim: {short_row}: line 7: expected 9 comma-separated fields \
             (CPU,Core,Socket,Node,,L1d,L1i,L2,L3), found 4"
        )
    );
    for (args, words) in [
        (vec!["show", "--topology-file", &short_row], vec!["short.txt: line 7: "]),
        (vec!["trace", "demo", "--topology-file", &short_row], vec!["short.txt: line 7: "]),
        (vec!["run", "--topology-file", &unknown], vec!["unknown.txt: line 1: ", "lscpu -p", "sysfs"]),
        (vec!["run", "--topology-file", &empty], vec!["empty.txt: ", "lscpu -e"]),
        (vec!["run", "--topology-file", &big], vec!["big.txt: ", "2048 online CPUs", "at most 1024"]),
        (vec!["run", "--topology-file", &missing], vec!["missing.txt: cannot read: no such file"]),
        (vec!["show", "--topology", "1x1x2x2", "--topology-file", &rk], vec!["--topology-file", "not both"]),
        (vec!["run", "--topology-file"], vec!["--topology-file", "needs a value"]),
        (vec!["show", "--machine", "cray-1", "--topology-file", &rk], vec!["--machine", "cray-1"]),
        // The imported machine is fine but too small for the experiment's tasks.
        (vec!["run", "--topology-file", &rk, "--workload", "hackbench", "--clients", "8000"], vec!["--clients"]),
    ] {
        let err = bad(&args);
        for w in words {
            assert!(err.contains(w), "{args:?}: {err:?} lacks {w:?}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A replay on `--topology-file` puts the trace's CPUs (Linux's numbers) where the
/// import renumbered them: on an lscpu file whose CPUs 0 and 1 are one core's threads
/// (schedsim's 0 and 2), a task moving between Linux CPUs 0 and 1 moves between SMT
/// siblings, in the observed column and in the replay's map. It counted "SMT sibling 0".
#[test]
fn a_replay_on_a_topology_file_uses_its_cpu_numbers() {
    let d = tmp("replay-map");
    std::fs::create_dir_all(&d).unwrap();
    let lscpu = write_file(&d, "lscpu.txt", "# CPU,Core,Socket,Node\n0,0,0,0\n1,0,0,0\n2,1,0,0\n3,1,0,0\n");
    let mut trace = String::new();
    for i in 0..40u32 {
        let (t, cpu) = (1_000_000 + i * 1000, i % 2);
        let ts = |dt: u32| format!("{}.{:06}", (t + dt) / 1_000_000, (t + dt) % 1_000_000);
        trace.push_str(&format!(
            "  a 1 [002] {}: sched:sched_waking: comm=b pid=2 prio=120 target_cpu={cpu:03}\n",
            ts(0)
        ));
        trace.push_str(&format!(
            "  swapper/{cpu} 0 [{cpu:03}] {}: sched:sched_switch: prev_comm=swapper/{cpu} prev_pid=0 prev_prio=120 \
             prev_state=R ==> next_comm=b next_pid=2 next_prio=120\n",
            ts(10)
        ));
        trace.push_str(&format!(
            "  b 2 [{cpu:03}] {}: sched:sched_switch: prev_comm=b prev_pid=2 prev_prio=120 prev_state=S ==> \
             next_comm=swapper/{cpu} next_pid=0 next_prio=120\n",
            ts(500)
        ));
    }
    let trace = write_file(&d, "trace.txt", &trace);
    let (out, _) = ok(&["replay", &trace, "--topology-file", &lscpu, "--json"]);
    let smt = json(&out)["observed"]["migrations_by_distance"]["smt"].as_u64();
    assert_eq!(smt, Some(39), "{out}");
    let (out, _) = ok(&["show", "--replay", &trace, "--topology-file", &lscpu, "--workload", "replay"]);
    assert_eq!(json(&out)["workload"]["cpu_map"], json("[0, 2, 1]"), "{out}");
}
