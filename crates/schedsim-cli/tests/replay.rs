//! `schedsim replay` and `--replay` on the traces recorded on a real machine
//! (`traces/`, with their recipes and independent counts in `traces/README.md`).

mod common;
use common::{run_ok, schedsim, text, tmp, write_file};

/// A bundled trace's path.
fn trace(name: &str) -> String {
    format!("{}/../../traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `traces/NAME.counts`: `key value` lines made by grep and awk (the commands are in
/// traces/README.md), independent of the importer.
fn counts(name: &str) -> Vec<(String, String)> {
    let body = std::fs::read_to_string(trace(&format!("{name}.counts"))).unwrap();
    body.lines().filter_map(|l| l.split_once(' ')).map(|(k, v)| (k.to_string(), v.trim().to_string())).collect()
}

fn count(c: &[(String, String)], key: &str) -> u64 {
    c.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key} in the counts")).1.parse().unwrap()
}

/// An event count: awk prints no line for an event the trace does not have.
fn events(c: &[(String, String)], event: &str) -> u64 {
    c.iter().find(|(k, _)| k == &format!("event.sched:{event}")).map_or(0, |(_, v)| v.parse().unwrap())
}

fn replay_json(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["replay"];
    a.extend_from_slice(args);
    a.push("--json");
    let (out, _) = run_ok(&a);
    serde_json::from_str(&out).unwrap()
}

/// The import summary of every bundled trace agrees with the awk counts: events by
/// type, skipped events, lines, CPUs; and the replay finishes on the recorded box.
#[test]
fn every_bundled_trace_imports_with_the_independent_counts_and_replays() {
    for name in [
        "pipe.perf",
        "pipe-cross.perf",
        "messaging.perf",
        "messaging-pipe.perf",
        "tbench.perf",
        "dbench.perf",
        "make.perf",
    ] {
        let c = counts(name);
        let j = replay_json(&[&trace(&format!("{name}.txt.gz")), "--topology-file", &trace("box/lscpu-p.txt")]);
        let s = &j["summary"];
        assert_eq!(s["lines"].as_u64(), Some(count(&c, "lines")), "{name}: lines");
        for ev in [
            "sched_switch",
            "sched_waking",
            "sched_wakeup",
            "sched_wakeup_new",
            "sched_migrate_task",
            "sched_process_fork",
            "sched_process_exit",
        ] {
            let want = events(&c, ev);
            assert_eq!(s["events"][ev].as_u64().unwrap_or(0), want, "{name}: {ev}");
        }
        assert_eq!(s["skipped"]["sched:sched_stat_runtime"].as_u64(), Some(events(&c, "sched_stat_runtime")));
        assert_eq!(j["trace"]["cpus"].as_u64(), Some(count(&c, "max_cpu") + 1), "{name}: CPUs");
        // The observed wakeups are the wakings of a sleeping task that then ran: at most
        // the sched_waking lines plus the forks' first wakeups.
        let observed = j["observed"]["wakeups"].as_u64().unwrap();
        let wakings = events(&c, "sched_waking") + events(&c, "sched_wakeup_new");
        assert!(observed > 0 && observed <= wakings, "{name}: {observed} observed of {wakings} wakings");
        let sim = &j["simulated"][0];
        assert_eq!(sim["finished"], true, "{name}: the replay reaches the end of every program");
        let busy = j["observed"]["cpu_busy_share"].as_f64().unwrap();
        assert!(busy > 0.0 && busy <= 1.0, "{name}: observed busy share {busy}");
        for p in ["p50", "p95", "p99"] {
            assert!(sim["run_delay_us"][p].as_f64().unwrap() >= 0.0);
        }
    }
}

/// The same recording in four text forms (key=value µs, --ns, the libtraceevent
/// plugin form of two perf builds) gives the same tasks, wakeups and table, up to the
/// timestamps' precision.
#[test]
fn one_recording_in_four_text_forms_gives_the_same_replay() {
    let box_ = trace("box/lscpu-p.txt");
    let base = replay_json(&[&trace("pipe.perf.txt.gz"), "--topology-file", &box_]);
    for other in ["pipe.perf-plugin.txt.gz", "pipe.perf-plugin-perf61.txt.gz", "pipe.perf-ns.txt.gz"] {
        let j = replay_json(&[&trace(other), "--topology-file", &box_]);
        assert_eq!(j["summary"]["tasks"], base["summary"]["tasks"], "{other}");
        assert_eq!(j["summary"]["events"], base["summary"]["events"], "{other}");
        assert_eq!(j["observed"]["wakeups"], base["observed"]["wakeups"], "{other}");
        assert_eq!(j["observed"]["by_waker"], base["observed"]["by_waker"], "{other}");
        assert_eq!(j["observed"]["migrations"], base["observed"]["migrations"], "{other}");
        if other.contains("plugin") {
            // The same µs timestamps: the same programs, so the same replay.
            assert_eq!(j["simulated"], base["simulated"], "{other}");
        }
    }
}

/// The text output has the summary, then the table with a column per kernel; the
/// default machine is said on stderr.
#[test]
fn the_table_has_the_trace_and_each_kernel() {
    let (out, err) = run_ok(&["replay", &trace("dbench.perf.txt.gz"), "--kernel", "a=v6.5", "--kernel", "b=v5.15"]);
    assert!(err.contains("no machine given: replaying on 1x1x2x1"), "{err}");
    assert!(out.contains("format: perf script, key=value (gzip)"), "{out}");
    for row in
        ["wakeups", "from a kernel thread", "migrations / 1000 wakeups", "run delay p99 (us)", "replay throughput"]
    {
        assert!(out.contains(row), "no row {row}: {out}");
    }
    assert!(out.contains("observed") && out.contains("a (v6.5)") && out.contains("b (v5.15)"), "{out}");
}

/// `--replay TRACE` makes the trace the workload of run: copies on the client axis,
/// the mmtests table, byte-identical from run to run.
#[test]
fn run_replays_copies_of_a_trace() {
    let args = [
        "run",
        "--replay",
        &trace("make.perf.txt.gz"),
        "--topology",
        "1x1x8x1",
        "--clients",
        "1,4",
        "--iterations",
        "1",
        "--duration-ms",
        "600",
        "--kernel",
        "v6.5=v6.5",
        "--json",
        "--no-progress",
    ];
    let (a, _) = run_ok(&args);
    let (b, _) = run_ok(&args);
    assert_eq!(a, b);
    let j: serde_json::Value = serde_json::from_str(&a).unwrap();
    let points = j["configs"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    let x1 = points[0]["samples"][0].as_f64().unwrap();
    assert!(x1 > 0.2 && x1 < 5.0, "one copy's throughput relative to the recording: {x1}");
}

/// Bad trace files: one line on stderr naming the file (and the line), exit 2.
#[test]
fn bad_traces_are_refused_with_the_reason() {
    let dir = tmp("replay", "bad");
    std::fs::create_dir_all(&dir).unwrap();
    let cases: Vec<(String, &str)> = vec![
        (write_file(&dir, "empty.txt", ""), "empty"),
        (write_file(&dir, "other.txt", "hello world\nthis is not a trace\n"), "not perf script"),
        (write_file(&dir, "perf.data", "PERFILE2\0\0\0binary"), "perf script"),
        (
            write_file(
                &dir,
                "stat.txt",
                "            perf 11669 [000]   520.901475: sched:sched_stat_runtime: comm=perf pid=11669 runtime=79599 [ns]\n",
            ),
            "no sched_switch",
        ),
        (dir.join("missing.txt").to_str().unwrap().to_string(), "no such file"),
    ];
    for (file, want) in &cases {
        let o = schedsim(&["replay", file]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        assert!(err.contains(want), "{file}: wanted {want:?} in {err}");
        assert!(!err.contains("panicked"));
    }
    // A trace from a bigger machine than the one given names the CPU and the line.
    let o = schedsim(&["replay", &trace("pipe.perf.txt.gz"), "--topology", "1x1x1x1"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("CPU 1") && err.contains("line"), "{err}");
    // And so does `run --replay` (issue 42: it did not name the line).
    let o = schedsim(&["run", "--replay", &trace("pipe.perf.txt.gz"), "--topology", "1x1x1x1"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("CPU 1") && err.contains(" line "), "{err}");
    let o = schedsim(&["run", "--workload", "replay", "--topology", "1x1x2x1"]);
    assert!(text(&o.stderr).contains("--replay TRACE"), "{}", text(&o.stderr));
}

/// `perfetto` of a replay says how many wakeups the file holds (issue 42: it said 0
/// wakeups, the run's counter, for a file holding 20).
#[test]
fn perfetto_of_a_replay_counts_the_wakeups_it_writes() {
    let o = schedsim(&["perfetto", "--replay", &trace("pipe.perf.txt.gz"), "--topology", "1x1x2x1", "--to-ms", "5"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = doc["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "wakeup" && e["ph"] == "i").count();
    assert!(n > 0, "the window has wakeups");
    let m = doc["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "migration").count();
    // Only the file's counts: the run's counters (after the warm-up) said 0 wakeups.
    assert!(err.contains(&format!(", {n} wakeups and {m} migrations in the window;")), "{n} {m}: {err}");
    assert!(!err.contains(" 0 wakeups"), "{err}");
}

/// `replay A --vs B`: both traces' statistics side by side, each as its own replay table's
/// observed column counts them, B's change against A, per task name (a name in one only
/// with a dash), and a note when the machines differ.
#[test]
fn two_traces_side_by_side() {
    let (a, b) = (trace("quiet/hackbench.perf.txt.gz"), trace("quiet/hackbench-pipe.perf.txt.gz"));
    let (out, _) = run_ok(&["replay", &a, "--vs", &b, "--machine", "kvm-2"]);
    let v = replay_json(&[&a, "--machine", "kvm-2"]);
    let w = replay_json(&[&b, "--machine", "kvm-2"]);
    let wakeups = |j: &serde_json::Value| j["observed"]["wakeups"].as_u64().unwrap();
    let row = out.lines().find(|l| l.starts_with("wakeups ")).unwrap().split_whitespace().collect::<Vec<_>>();
    assert_eq!((row[1], row[2]), (wakeups(&v).to_string().as_str(), wakeups(&w).to_string().as_str()), "{out}");
    let pct = (wakeups(&w) as f64 - wakeups(&v) as f64) * 100.0 / wakeups(&v) as f64;
    assert_eq!(row[3], format!("{pct:+.1}%"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("hackbench ")), "{out}");
    assert!(out.contains("A only") || out.contains("B only"), "{out}");
    assert!(!out.contains("note: the traces come from machines"), "{out}");
    // JSON: the same numbers.
    let (j, _) = run_ok(&["replay", &a, "--vs", &b, "--machine", "kvm-2", "--json"]);
    let j: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(j["a"]["wakeups"].as_u64(), Some(wakeups(&v)));
    assert_eq!(j["b"]["wakeups"].as_u64(), Some(wakeups(&w)));
    // B from a 4-CPU machine (the same trace with CPU 1 as CPU 3): said, and each read on
    // its own CPU count without --machine.
    let text = std::process::Command::new("zcat").arg(trace("make.perf.txt.gz")).output().unwrap().stdout;
    let four = text::remap(&String::from_utf8(text).unwrap());
    let dir = tmp("vs", "four");
    std::fs::create_dir_all(&dir).unwrap();
    let f = write_file(&dir, "four.perf.txt", &four);
    let (out, err) = run_ok(&["replay", &trace("make.perf.txt.gz"), "--vs", &f]);
    assert!(out.contains("note: the traces come from machines of 2 and 4 CPUs"), "{out}\n{err}");
    // With --kernel, each trace's replay table follows.
    let (out, _) = run_ok(&["replay", &trace("make.perf.txt.gz"), "--vs", &f, "--kernel", "v6.6"]);
    assert!(out.contains("A, replayed:") && out.contains("B, replayed:"), "{out}");
}

mod text {
    /// A trace's CPU 1 as CPU 3: `[001]` and every `cpu=001`.
    pub fn remap(s: &str) -> String {
        s.replace("[001]", "[003]").replace("cpu=001", "cpu=003").replace("cpu=1 ", "cpu=3 ")
    }
}
