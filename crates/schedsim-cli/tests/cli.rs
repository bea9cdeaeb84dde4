//! Runs the built `schedsim` binary as a user would and checks what it prints and how
//! it exits. Every simulation here is small (a few CPUs, tens of simulated ms).

mod common;
use common::{files_under, run_ok, schedsim, small_run, text, write_file, SMALL_MACHINE, TWO_KERNELS};
use std::path::PathBuf;
use std::sync::LazyLock;

/// Checks the run succeeded and never mentioned a panic; returns stdout.
fn ok(args: &[&str]) -> String {
    run_ok(args).0
}

fn tmp(name: &str) -> PathBuf {
    common::tmp("schedsim-cli", name)
}

/// The small experiment of these tests: two kernels, client counts 1 and 2.
static SMALL: LazyLock<Vec<&str>> = LazyLock::new(|| small_run("1,2", "2", TWO_KERNELS));

/// A tiny run with one client count, for the tests that choose their own kernels.
static ONE_CLIENT: LazyLock<Vec<&str>> = LazyLock::new(|| {
    let mut v = SMALL_MACHINE.to_vec();
    v.extend(["--clients", "1", "--duration-ms", "20"]);
    v
});

fn small(extra: &[&str]) -> Vec<&'static str> {
    let mut v = SMALL.to_vec();
    for e in extra {
        v.push(Box::leak(e.to_string().into_boxed_str()));
    }
    v
}

#[test]
fn presets_lists_experiments_machines_switches_and_versions() {
    let out = ok(&["presets"]);
    for want in [
        "demo",
        "seed000",
        "seed004",
        "cascadelake-2s",
        "milan-2s",
        "256",
        "wake-affine-prev",
        "SIS_PROP",
        "select_idle_cpu",
        "v3.8",
        "v6.5",
        "v6.6",
        "v6.12",
        "v6.18",
        "tbench",
        "hackbench",
    ] {
        assert!(out.contains(want), "presets output lacks {want:?}:\n{out}");
    }
}

#[test]
fn short_run_prints_the_mmtests_table() {
    let out = ok(&small(&[]));
    let hmean: Vec<&str> = out.lines().filter(|l| l.starts_with("Hmean")).collect();
    assert_eq!(hmean.len(), 2, "{out}");
    assert!(hmean[0].starts_with("Hmean     1 ") && hmean[1].starts_with("Hmean     2 "), "{out}");
    // Two columns: the base at 0.00% and the other with its own percentage.
    for l in &hmean {
        assert_eq!(l.matches('%').count(), 2, "{l}");
        assert!(l.contains("(   0.00%)"), "{l}");
    }
    assert_eq!(out.lines().filter(|l| l.starts_with("Stddev")).count(), 2, "{out}");
    let names = out.lines().find(|l| l.contains("base") && l.contains("patched"));
    assert!(names.is_some(), "no header with both kernel names:\n{out}");
    assert!(out.contains("v4.15"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("Wakeups")), "{out}");
}

#[test]
fn json_output_parses_and_has_every_config() {
    let out = ok(&small(&["--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).expect("--json prints JSON");
    let configs = v["configs"].as_array().expect("configs array");
    assert_eq!(configs.len(), 2);
    assert_eq!(configs[0]["name"], "base");
    assert_eq!(configs[1]["name"], "patched");
    for c in configs {
        let points = c["points"].as_array().unwrap();
        assert_eq!(points.len(), 2);
        assert_eq!(points[0]["clients"], 1);
        assert_eq!(points[1]["samples"].as_array().unwrap().len(), 2);
    }
    assert_eq!(v["nr_cpus"], 4);
}

#[test]
fn same_command_gives_byte_identical_json() {
    let a = ok(&small(&["--json", "--seed", "7"]));
    let b = ok(&small(&["--json", "--seed", "7"]));
    assert_eq!(a, b);
    let c = ok(&small(&["--json", "--seed", "8"]));
    assert_ne!(a, c, "the seed should matter");
}

#[test]
fn csv_and_counters_csv() {
    let out = ok(&small(&["--csv"]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("kernel,label,clients,iteration,"), "{out}");
    assert_eq!(lines.len(), 1 + 2 * 2 * 2, "{out}");
    // Iterations count from 0 here as `--iteration` and the Perfetto export count them.
    let iterations: Vec<&str> = lines[1..3].iter().map(|l| l.split(',').nth(3).unwrap()).collect();
    assert_eq!(iterations, ["0", "1"], "{out}");
    let out = ok(&small(&["--counters-csv"]));
    assert!(out.starts_with("kernel,clients,summary"), "{out}");
    assert_eq!(out.lines().count(), 1 + 2 * 2);
    // The recent_used_cpu rate is empty where nothing was tried, and otherwise its
    // hits over attempts, both of which are columns too.
    let head: Vec<&str> = out.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (rate, hits, attempts) = (col("recent_hit_pct"), col("recent_hits"), col("recent_attempts"));
    let mut seen = [false; 2];
    let hackbench = [
        "run",
        "--topology",
        "1x1x2x2",
        "--workload",
        "hackbench",
        "--clients",
        "2",
        "--iterations",
        "1",
        "--duration-ms",
        "20",
        "--kernel",
        "a=v5.14",
        "--kernel",
        "b=v5.14+recent-used-prev",
        "--counters-csv",
    ];
    for args in [small(&["--counters-csv"]), hackbench.to_vec()] {
        for row in ok(&args).lines().skip(1) {
            let f: Vec<&str> = row.split(',').collect();
            assert_eq!(f.len(), head.len(), "{row}");
            let (h, a): (u64, u64) = (f[hits].parse().unwrap(), f[attempts].parse().unwrap());
            if a == 0 {
                assert_eq!(f[rate], "", "{row}");
                seen[0] = true;
            } else {
                assert_eq!(f[rate], format!("{:.2}", 100.0 * h as f64 / a as f64), "{row}");
                seen[1] = true;
            }
        }
    }
    assert_eq!(seen, [true, true], "rows without and with recent_used_cpu attempts: {seen:?}");
}

#[test]
fn show_round_trips_through_a_file_and_flags_override_it() {
    let json = ok(&["show", "demo"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["name"], "demo");
    let path = tmp("demo.json");
    std::fs::write(&path, &json).unwrap();
    let p = path.to_str().unwrap();
    let out = ok(&["run", p, "--clients", "1", "--iterations", "1", "--duration-ms", "20", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["experiment"]["clients"], serde_json::json!([1]));
    assert_eq!(r["experiment"]["duration_ms"], 20);
    assert_eq!(r["experiment"]["warmup_ms"], 2);
    assert_eq!(r["configs"].as_array().unwrap().len(), 2);
    // show applies flags too.
    let edited = ok(&["show", "demo", "--topology", "1x1x2x2", "--kernel", "x=v5.15-SIS_PROP"]);
    let e: serde_json::Value = serde_json::from_str(&edited).unwrap();
    assert_eq!(e["machine"]["topology"], "1x1x2x2");
    assert_eq!(e["kernels"][0]["overrides"]["SIS_PROP"], false);
    let _ = std::fs::remove_file(path);
}

#[test]
fn show_with_costs_writes_the_preset_costs_and_an_edit_takes_effect() {
    assert!(ok(&["show", "seed004"]).find("\"costs\"").is_none());
    let json = ok(&["show", "seed004", "--with-costs", "--clients", "8", "--iterations", "1", "--duration-ms", "20"]);
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cstates = v["machine"]["costs"]["cstates"].as_array().unwrap().clone();
    // milan-2s's own idle states, not the default machine's.
    assert_eq!(cstates.iter().map(|c| c["name"].as_str().unwrap()).collect::<Vec<_>>(), ["POLL", "C1", "C2"]);
    // The samples of every kernel and client count: the same as the preset's run with
    // the costs written out unchanged, different once one cost is edited.
    let samples = |out: &str| {
        let r: serde_json::Value = serde_json::from_str(out).unwrap();
        r["configs"].as_array().unwrap().iter().map(|c| c["points"].to_string()).collect::<Vec<_>>()
    };
    let run = |v: &serde_json::Value, name: &str| {
        let path = tmp(name);
        std::fs::write(&path, v.to_string()).unwrap();
        let out = ok(&["run", path.to_str().unwrap(), "--json"]);
        let _ = std::fs::remove_file(path);
        samples(&out)
    };
    let preset =
        samples(&ok(&["run", "seed004", "--clients", "8", "--iterations", "1", "--duration-ms", "20", "--json"]));
    assert_eq!(run(&v, "costs-as-is.json"), preset);
    v["machine"]["costs"]["context_switch_ns"] = serde_json::json!(20_000);
    assert_ne!(run(&v, "costs-edited.json"), preset, "an edited cost changes the run");
}

#[test]
fn out_writes_the_file_instead_of_stdout() {
    let path = tmp("out.json");
    let p = path.to_str().unwrap().to_string();
    let out = ok(&small(&["--json", "--out", &p]));
    assert!(out.is_empty());
    let written = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str::<serde_json::Value>(&written).unwrap();
    let _ = std::fs::remove_file(path);
}

#[test]
fn trace_prints_readable_steps_and_json() {
    let out = ok(&["trace", "demo", "--kernel-index", "1", "--clients", "2", "--from", "3", "--count", "2"]);
    assert!(out.contains("wakeup #3") && out.contains("wakeup #4"), "{out}");
    assert!(!out.contains("wakeup #5"), "{out}");
    assert!(out.contains("select_idle_sibling") && out.contains("=> CPU"), "{out}");
    let j = ok(&["trace", "demo", "--count", "3", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert!(v[0]["steps"].as_array().is_some());
    // Default count is 5.
    let d = ok(&["trace", "demo"]);
    assert_eq!(d.lines().filter(|l| l.starts_with("wakeup #")).count(), 5, "{d}");
}

#[test]
fn help_for_everything() {
    let main = ok(&["--help"]);
    for c in ["presets", "run", "show", "trace", "bench"] {
        assert!(main.contains(c), "{main}");
        let h = ok(&[c, "--help"]);
        assert!(h.starts_with("Usage: schedsim "), "{c}: {h}");
        assert_eq!(h, ok(&["help", c]));
    }
    let run = ok(&["run", "--help"]);
    for f in ["--topology", "--machine", "--clients", "--kernel", "--json", "--csv", "--out", "--progress"] {
        assert!(run.contains(f), "run --help lacks {f}");
    }
    assert!(ok(&["--version"]).starts_with("schedsim "));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, body: &str| write_file(&dir, name, body);
    let good = r#"{"version":1,"machine":{"topology":"1x1x2x2"},"workload":{"kind":"tbench"},"clients":[1],"iterations":1,"duration_ms":20,"seed":1,"kernels":[{"name":"a","preset":"v5.15"}]}"#;
    let negative = file("neg.json", &good.replace("\"duration_ms\":20", "\"duration_ms\":-5"));
    let truncated = file("trunc.json", &good[..good.len() / 2]);
    let badswitch =
        file("sw.json", &good.replace("\"preset\":\"v5.15\"", "\"preset\":\"v5.15\",\"overrides\":{\"FOO\":true}"));
    let zero = file("zero.json", &good.replace("\"topology\":\"1x1x2x2\"", "\"topology\":\"1x1x0x2\""));
    let unknown_field = file("unk.json", &good.replace("\"seed\":1", "\"seed\":1,\"sed\":2"));
    let empty = file("empty.json", "");
    let array = file("array.json", &format!("[{good}]"));
    let long_key = file("long.json", &good.replace("\"seed\"", &format!("\"{}\"", "k".repeat(100_000))));
    let missing = dir.join("missing.json").to_str().unwrap().to_string();
    // A second object (two files run together) or text after the object is not ignored.
    let two = file("two.json", &format!("{good}\n{good}\n"));
    let junk = file("junk.json", &format!("{good} this is not json"));
    let preset_number = file("pnum.json", &good.replace("\"preset\":\"v5.15\"", "\"preset\":5"));
    let override_number = file(
        "onum.json",
        &good.replace("\"preset\":\"v5.15\"", "\"preset\":\"v5.15\",\"overrides\":{\"SHARED_RUNQ\":1}"),
    );
    let newline_name = file("nl.json", &good.replace("\"name\":\"a\"", "\"name\":\"a\\nb\""));
    // A key given twice: serde would keep the last without a word (a link refuses it).
    let twice = file("twice.json", &good.replace("\"seed\":1", "\"seed\":1,\"seed\":2"));
    let twice_deep =
        file("twice2.json", &good.replace("\"preset\":\"v5.15\"", "\"preset\":\"v5.15\",\"preset\":\"v6.6\""));
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["run", &two], vec!["two.json", "one JSON object, but more follows it", "line 2 column 1"]),
        (vec!["run", &junk], vec!["junk.json", "one JSON object, but more follows it"]),
        (vec!["run", &preset_number], vec!["pnum.json", "kernels[0].preset", "integer `5`", "v5.15"]),
        (vec!["run", &override_number], vec!["onum.json", "kernels[0].overrides.SHARED_RUNQ", "expected a boolean"]),
        (vec!["run", &newline_name], vec!["nl.json", "kernels[0].name", "control character '\\n'"]),
        (vec!["run", &twice], vec!["twice.json", "field seed is given twice"]),
        (vec!["run", &twice_deep], vec!["twice2.json", "field kernels[0].preset is given twice"]),
        (
            vec!["run", "--topology", "1x1x2x2", "--workload", r#"{"kind":"tbench","kind":"pipe"}"#],
            vec!["--workload", "field kind is given twice"],
        ),
        // 2^64 CPUs, which a u64 product wraps to 0: refused with its size.
        (vec!["run", "--topology", "65536x65536x65536x65536"], vec!["--topology", "18446744073709551616 CPUs", "1024"]),
        (vec!["run", "--topology", "4x2147483648x2147483648x1"], vec!["--topology", "CPUs, at most 1024"]),
        (vec![], vec!["no command"]),
        (vec!["frobnicate"], vec!["unknown command", "frobnicate"]),
        (vec!["run"], vec!["--topology"]),
        (vec!["run", &missing], vec!["missing.json", "no such file"]),
        (vec!["run", &truncated], vec!["trunc.json", "ends early"]),
        (vec!["run", &empty], vec!["empty.json", "empty"]),
        (vec!["run", &negative], vec!["neg.json", "field duration_ms", "-5"]),
        (vec!["run", &badswitch], vec!["sw.json", "kernels[0].overrides", "FOO"]),
        (vec!["run", &zero], vec!["zero.json", "machine.topology", "at least 1"]),
        (vec!["run", &unknown_field], vec!["unk.json", "sed"]),
        (vec!["run", "nosuchpreset"], vec!["nosuchpreset", "neither a file nor a preset", "demo"]),
        (vec!["show", "nosuchpreset"], vec!["nosuchpreset", "preset"]),
        (vec!["run", "--topology", "0x1x1x1"], vec!["--topology", "at least 1"]),
        (vec!["run", "--topology", "100000x1x1x1"], vec!["--topology", "100000 CPUs", "1024"]),
        (vec!["run", "--topology", "1x1x10"], vec!["--topology", "NODESxLLCSxCORESxTHREADS"]),
        (vec!["run", "demo", "--duration-ms", "-5"], vec!["--duration-ms", "-5", "negative"]),
        (vec!["run", "demo", "--duration-ms", "0"], vec!["--duration-ms", "out of range"]),
        (vec!["run", "demo", "--clients", "1,x"], vec!["--clients", "\"1,x\" is not a list of whole numbers"]),
        (vec!["run", "demo", "--clients", "0"], vec!["--clients", "out of range"]),
        (vec!["run", "demo", "--cgroup-depth", "17"], vec!["--cgroup-depth", "out of range 0 to 16"]),
        (vec!["run", "demo", "--other-cgroups", "5000"], vec!["--other-cgroups", "out of range 0 to 4096"]),
        (vec!["run", "demo", "--kernel", "a=v5.15+FOO"], vec!["--kernel", "unknown switch", "FOO"]),
        (vec!["run", "demo", "--kernel", "a=v9.9"], vec!["--kernel", "unknown preset", "v9.9"]),
        (vec!["run", "demo", "--kernel", "a=v5.15", "--kernel", "a=v4.15"], vec!["--kernel", "used twice"]),
        (vec!["run", "demo", "--machine", "cray-1"], vec!["--machine", "cray-1", "teaching"]),
        (vec!["run", "demo", "--workload", "doom"], vec!["--workload", "doom", "tbench"]),
        (vec!["run", "demo", "--iterations"], vec!["--iterations", "needs a value"]),
        (vec!["run", "demo", "--iterations", "many"], vec!["--iterations", "not a whole number"]),
        (vec!["run", "demo", "--warmup-ms", "100"], vec!["--warmup-ms", "shorter"]),
        (vec!["run", "demo", "--bogus"], vec!["unknown option", "--bogus"]),
        (vec!["run", "demo", "--json", "--csv"], vec!["--json", "--csv"]),
        (vec!["run", "demo", "demo"], vec!["unexpected argument"]),
        (vec!["trace", "demo", "--kernel-index", "7"], vec!["--kernel-index", "7", "2 kernel"]),
        (vec!["trace", "demo", "--clients", "1,2"], vec!["--clients", "one client count"]),
        (vec!["trace", "demo", "--count", "0"], vec!["--count", "out of range"]),
        (vec!["trace", "demo", "--from", "18446744073709551615"], vec!["--from", "too large"]),
        (vec!["trace", "demo", "--clients", "100000"], vec!["--clients", "out of range"]),
        (vec!["bench", "--repeat", "0"], vec!["--repeat", "out of range"]),
        (vec!["run", &array], vec!["array.json", "an experiment must be a JSON object", "array"]),
        (vec!["run", &long_key], vec!["long.json", "unknown field", "…"]),
        (vec!["run", "/dev/zero"], vec!["/dev/zero", "larger than 2 MB"]),
        (vec!["run", "demo", "--iterations", "1 "], vec!["--iterations", "has spaces"]),
        (vec!["run", "demo", "--iterations", " 7"], vec!["--iterations", "has spaces"]),
        (vec!["run", "demo", "--iterations", "_"], vec!["--iterations", "no digits"]),
        (vec!["run", "demo", "--clients", "1,1"], vec!["--clients", "1 is listed twice"]),
        (vec!["bench", "--case", "tbench-9"], vec!["--case", "tbench-8"]),
        // A range known to the flag is the one said, not "from 0" nor 2^64 - 1.
        (
            vec!["run", "demo", "--jobs", "-1"],
            vec!["--jobs", "\"-1\" is negative; expected a whole number from 1 to 1024"],
        ),
        (
            vec!["run", "demo", "--duration-ms", "99999999999999999999"],
            vec!["--duration-ms", "out of range 1 to 600000"],
        ),
        (vec!["run", "demo", "--iterations", "-2"], vec!["--iterations", "from 1 to 100"]),
        (vec!["trace", "demo", "--count", "-1"], vec!["--count", "from 1 to 10000"]),
        // A Perfetto window past the run's end, or empty, is refused (it was written).
        (vec!["perfetto", "demo", "--to-ms", "999999"], vec!["--to-ms", "999999", "lasts 100 ms"]),
        (
            vec!["perfetto", "demo", "--from-ms", "5", "--to-ms", "5"],
            vec!["--from-ms and --to-ms are both 5: the window is empty"],
        ),
        (vec!["perfetto", "demo", "--from-ms", "9", "--to-ms", "7"], vec!["--from-ms: 9 is after --to-ms 7"]),
        (vec!["perfetto", "demo", "--from-ms", "200"], vec!["--from-ms", "200", "lasts 100 ms"]),
    ];
    for (args, words) in cases {
        let o = schedsim(&args);
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{args:?}: exit {:?}, stderr {err}", o.status.code());
        assert!(out.is_empty(), "{args:?}: printed on stdout: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(err.starts_with("schedsim: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.len() < 600, "{args:?}: {} bytes of error", err.len());
        for w in words {
            assert!(err.contains(w), "{args:?}: {err:?} lacks {w:?}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A memcache load far past what the workers serve fails with the reason (it queued
/// requests until memory ran out), and on several threads the reason is the reported
/// error, not "cancelled" from a run stopped because of it.
#[test]
fn an_overload_that_would_exhaust_memory_fails_with_its_reason() {
    let dir = tmp("overload");
    std::fs::create_dir_all(&dir).unwrap();
    let j = text(&schedsim(&["show", "seed002"]).stdout);
    let over = j.replace("\"rps_per_worker\": 10000,", "\"rps_per_worker\": 10000000,");
    assert_ne!(over, j);
    let f = write_file(&dir, "over.json", &over);
    for jobs in ["1", "2"] {
        let o = schedsim(&["run", &f, "--jobs", jobs, "--no-progress"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("requests wait for a worker") && err.contains("lower rps_per_worker"), "{err}");
        assert!(!err.contains("cancelled"), "{err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A file named like a preset in the working directory is read, and the user is told.
#[test]
fn a_file_named_like_a_preset_is_read_with_a_note() {
    let dir = tmp("shadow");
    std::fs::create_dir_all(&dir).unwrap();
    let seed001 = text(&schedsim(&["show", "seed001"]).stdout);
    write_file(&dir, "demo", &seed001);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .args(["show", "demo"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), seed001);
    assert_eq!(text(&o.stderr), "schedsim: demo: reading the file of that name here, not the preset demo\n");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_byte_order_mark_is_read_past() {
    let dir = tmp("bom");
    std::fs::create_dir_all(&dir).unwrap();
    let j = text(&schedsim(&["show", "demo"]).stdout);
    let f = write_file(&dir, "bom.json", &format!("\u{feff}{j}"));
    let (out, _) = run_ok(&["show", &f]);
    assert_eq!(out, j);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_bad_out_path_fails_before_running() {
    let o = schedsim(&small(&["--out", "/nonexistent-dir/x.txt"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--out"));
}

#[test]
fn progress_goes_to_stderr_only() {
    // Long enough (more than a second) for the progress line to appear.
    let o = schedsim(&[
        "run",
        "--topology",
        "2x8x8x2",
        "--clients",
        "128",
        "--iterations",
        "2",
        "--duration-ms",
        "200",
        "--json",
        "--progress",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&o.stdout)).expect("stdout is pure JSON");
    assert_eq!(v["configs"].as_array().unwrap().len(), 1);
    let err = text(&o.stderr);
    assert!(err.contains("runs done"), "no progress on stderr: {err:?}");
    assert!(err.contains('\r'));
    // Without --progress and with stderr not a terminal: nothing.
    let o = schedsim(&small(&["--json"]));
    assert!(o.stderr.is_empty());
}

#[test]
fn bench_runs_a_case() {
    let out = ok(&["bench", "--repeat", "1", "--case", "tbench-8"]);
    let line = out.lines().find(|l| l.starts_with("tbench 8 pairs")).unwrap_or_else(|| panic!("no row:\n{out}"));
    assert!(line.contains("1x1x10x2"), "{line}");
    assert!(!out.contains("hackbench 10 groups"), "{out}");
    assert!(out.contains("wakeups/s"));
}

#[test]
fn bench_prints_the_three_cases() {
    let out = ok(&["bench", "--repeat", "1"]);
    for case in ["tbench 8 pairs", "hackbench 10 groups", "tbench 128 pairs"] {
        assert!(out.lines().any(|l| l.starts_with(case)), "no {case} row:\n{out}");
    }
}

#[test]
fn perfetto_writes_a_chrome_trace() {
    let out = ok(&["perfetto", "seed001", "--kernel-index", "1", "--from-ms", "40", "--to-ms", "41"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let evs = doc["traceEvents"].as_array().unwrap();
    assert!(evs.iter().any(|e| e["cat"] == "wakeup" && e["ph"] == "i"), "no wakeup events");
    assert!(evs.iter().any(|e| e["cat"] == "task" && e["ph"] == "X"), "no task slices");
    let o = schedsim(&["perfetto", "seed001", "--from-ms", "5", "--to-ms", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--from-ms"));
}

/// Kernel names are the directories under --mmtests-dir: `..` stays inside it, and two
/// names that make one directory are refused before the run, not written over.
#[test]
fn mmtests_dir_names_stay_inside_and_apart() {
    let dir = tmp("mmtests-names");
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = ONE_CLIENT.to_vec();
    args.extend(["--iterations", "1", "--kernel", "..=v5.15", "--mmtests-dir", dir.to_str().unwrap()]);
    ok(&args);
    assert!(dir.join("_..").join("iter-0/tbench/logs/benchlog-tput-1.xz").is_file());
    assert!(!dir.parent().unwrap().join("iter-0").exists());
    let mut args = ONE_CLIENT.to_vec();
    args.extend(["--kernel", "a b=v5.15", "--kernel", "a_b=v4.15", "--mmtests-dir", dir.to_str().unwrap()]);
    let o = schedsim(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("would both write to the directory \"a_b\""), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

/// A kernel name with a comma or a quote is one quoted CSV field (RFC 4180).
#[test]
fn csv_quotes_kernel_names_that_need_it() {
    let mut args = ONE_CLIENT.to_vec();
    args.extend(["--iterations", "1", "--kernel", "a,\"b\"=v5.15", "--csv"]);
    let out = ok(&args);
    let row = out.lines().nth(1).unwrap();
    assert!(row.starts_with("\"a,\"\"b\"\"\",v5.15,1,0,"), "{out}");
    args.pop();
    args.push("--counters-csv");
    let out = ok(&args);
    assert!(out.lines().nth(1).unwrap().starts_with("\"a,\"\"b\"\"\",1,"), "{out}");
}

/// The names of `--out`'s temporary files in `dir`.
fn temp_files_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn out_is_replaced_atomically_and_a_signal_leaves_no_temp_file() {
    let dir = tmp("atomic");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = write_file(&dir, "report.txt", "old\n");
    // A run long enough to be interrupted.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .args(["run", "seed004", "--iterations", "3", "--out", &out])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    let tmp_files = || temp_files_in(&dir);
    assert_eq!(tmp_files().len(), 1, "the temporary file exists while running");
    let st = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "128 + SIGTERM");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n", "the old file is untouched");
    assert!(tmp_files().is_empty(), "{:?}", tmp_files());
    // Completed: replaced whole, no temporary file left.
    let mut args = small(&["--out"]);
    args.push(&out);
    run_ok(&args);
    assert!(std::fs::read_to_string(&out).unwrap().contains("Hmean"));
    assert!(tmp_files().is_empty());
    let _ = std::fs::remove_dir_all(dir);
}

/// Every signal whose default action ends the process removes `--out`'s temporary file
/// (issue 42: SIGHUP, SIGUSR1 and SIGALRM left it), and `--out DIR/missing/` is refused
/// before the run.
#[test]
fn other_signals_leave_no_temp_file_and_a_directory_out_is_refused_first() {
    let dir = tmp("signals");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("report.txt").to_str().unwrap().to_string();
    let tmp_files = || temp_files_in(&dir);
    for (sig, code) in [("HUP", 129), ("USR1", 138), ("ALRM", 142)] {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_schedsim"))
            .args(["run", "seed004", "--iterations", "3", "--out", &out])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let t0 = std::time::Instant::now();
        while tmp_files().is_empty() && t0.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        let st = std::process::Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status();
        assert!(st.unwrap().success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(code), "SIG{sig}");
        assert!(tmp_files().is_empty(), "SIG{sig}: {:?}", tmp_files());
    }
    let missing = format!("{}/missing/", dir.display());
    let t0 = std::time::Instant::now();
    let o = schedsim(&["run", "seed004", "--iterations", "3", "--out", &missing]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(t0.elapsed() < std::time::Duration::from_secs(2), "refused before the run: {:?}", t0.elapsed());
    assert!(text(&o.stderr).contains("ends with a slash"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn exit_codes_for_outputs() {
    // An --mmtests-dir that cannot be made is bad input, found before running.
    let o = schedsim(&small(&["--mmtests-dir", "/proc/schedsim-no"]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("--mmtests-dir: cannot write in /proc/schedsim-no"));
    // A closed standard output is a failure with a message, not a silent 0.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .args(small(&[]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("broken pipe"), "{}", text(&o.stderr));
    // A write that fails after the run: exit 1, and no success line before it.
    if std::path::Path::new("/dev/full").exists() {
        let o = schedsim(&["perfetto", "demo", "--to-ms", "20", "--out", "/dev/full"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(!err.contains("trace events"), "{err}");
        assert!(err.contains("--out: cannot write /dev/full"), "{err}");
    }
}

#[test]
fn every_jobs_count_gives_the_same_bytes() {
    // The demo preset, shortened: 2 kernels x 4 client counts x 2 iterations = 16 runs.
    let base = ["run", "demo", "--duration-ms", "30", "--iterations", "2"];
    let mut first: Option<Vec<(String, Vec<u8>)>> = None;
    for jobs in ["1", "2", "3"] {
        let mut outputs = Vec::new();
        for format in [None, Some("--json"), Some("--csv"), Some("--counters-csv")] {
            let mut args = base.to_vec();
            args.extend(["--jobs", jobs]);
            args.extend(format);
            let o = schedsim(&args);
            assert_eq!(o.status.code(), Some(0), "--jobs {jobs} {format:?}: {}", text(&o.stderr));
            assert!(o.stderr.is_empty(), "--jobs {jobs}: {}", text(&o.stderr));
            outputs.push((format!("stdout {format:?}"), o.stdout));
        }
        let dir = tmp(&format!("jobs-mmtests-{jobs}"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut args = base.to_vec();
        args.extend(["--jobs", jobs, "--mmtests-dir", dir.to_str().unwrap()]);
        ok(&args);
        let logs = files_under(&dir);
        let tput = logs.iter().filter(|l| l.0.contains("benchlog-tput-")).count();
        assert_eq!(
            tput,
            16,
            "one log per kernel, iteration and client count: {:?}",
            logs.iter().map(|l| &l.0).collect::<Vec<_>>()
        );
        outputs.extend(logs);
        match &first {
            None => first = Some(outputs),
            Some(want) => {
                assert_eq!(want.len(), outputs.len());
                for (w, g) in want.iter().zip(&outputs) {
                    assert_eq!(w.0, g.0);
                    assert!(w.1 == g.1, "--jobs {jobs}: {} differs from --jobs 1", g.0);
                }
            }
        }
    }
    // The runs differ from each other, so a mix-up between them would show.
    let want = first.unwrap();
    let json: serde_json::Value = serde_json::from_slice(&want[1].1).unwrap();
    let samples: Vec<f64> = json["configs"][0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["samples"].as_array().unwrap().iter().map(|s| s.as_f64().unwrap()))
        .collect();
    assert_eq!(samples.len(), 8);
    assert!(samples.windows(2).all(|w| w[0] != w[1]), "{samples:?}");
}

#[test]
fn jobs_must_be_a_positive_count() {
    for (v, says) in [("0", "out of range 1 to 1024"), ("2000", "out of range"), ("two", "not a whole number")] {
        let o = schedsim(&small(&["--jobs", v]));
        assert_eq!(o.status.code(), Some(2), "--jobs {v}");
        let err = text(&o.stderr);
        assert!(err.contains("--jobs") && err.contains(says), "--jobs {v}: {err}");
    }
}

/// A standard output closed when schedsim starts (`>&-`) is a failure, exit 1 with the
/// reason, not a silent success (Rust's runtime would have put /dev/null there).
/// Redirected to /dev/null it is a success, and `--out` needs no standard output.
#[cfg(target_os = "linux")]
#[test]
fn a_closed_standard_output_exits_1() {
    let bin = env!("CARGO_BIN_EXE_schedsim");
    let sh =
        |script: &str| std::process::Command::new("/bin/sh").arg("-c").arg(script).arg(bin).output().expect("sh runs");
    for cmd in ["show demo", "presets", "run demo --clients 1 --iterations 1 --duration-ms 5 --no-progress"] {
        let o = sh(&format!("exec \"$0\" {cmd} >&-"));
        assert_eq!(o.status.code(), Some(1), "{cmd}: {}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("standard output") && err.lines().count() == 1, "{cmd}: {err}");
    }
    assert_eq!(sh("exec \"$0\" show demo >/dev/null").status.code(), Some(0));
    let out = tmp("closed-stdout.json");
    let o = sh(&format!("exec \"$0\" show demo --out {} >&-", out.display()));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(&out).unwrap().contains("\"kernels\""));
}

// The link of issue 29: 64 client counts, 8 kernels, 100 iterations is 51,200 runs. With
// --dry-run the sweep's cost is printed from the library's estimate and nothing runs
// (a run of it would take hours), nothing is written to --out, and the exit is 0.
#[test]
fn dry_run_prints_the_sweep_cost_and_runs_nothing() {
    let clients: Vec<String> = (1..=64).map(|c| c.to_string()).collect();
    let clients = clients.join(",");
    let mut args = vec!["run", "--machine", "milan-2s", "--workload", "tbench", "--clients", &clients];
    args.extend(["--iterations", "100", "--duration-ms", "1000"]);
    for k in [
        "a=v3.8",
        "b=v4.15",
        "c=v5.13",
        "d=v5.14",
        "e=v5.15",
        "f=v6.5",
        "g=v6.5+SHARED_RUNQ",
        "h=v4.15+wake-affine-prev",
    ] {
        args.extend(["--kernel", k]);
    }
    let out_file = tmp("dry-run.txt");
    let out_arg = out_file.to_str().unwrap().to_string();
    args.extend(["--dry-run", "--jobs", "2", "--out", &out_arg]);
    let started = std::time::Instant::now();
    let (out, err) = run_ok(&args);
    assert!(started.elapsed().as_secs() < 60, "took {:?}", started.elapsed());
    assert!(out.contains(": 51200 runs (8 kernels x 64 client counts x 100 iterations); not run (--dry-run)"), "{out}");
    assert!(out.contains("simulated events  about ") && out.contains(", at most "), "{out}");
    assert!(out.contains("CPU time          about ") && out.contains(" events per CPU-second"), "{out}");
    assert!(out.contains("wall time         about ") && out.contains("or less with --jobs 2"), "{out}");
    assert!(out.contains("first iteration   about "), "{out}");
    assert!(!out.contains("Hmean"), "the sweep ran: {out}");
    assert!(err.is_empty(), "{err}");
    assert!(!out_file.exists(), "--dry-run wrote --out");
    // The figures: the whole is the first iteration times 100.
    let secs = |label: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with(label)).unwrap();
        line.split_whitespace().skip_while(|w| *w != "about").nth(1).unwrap().parse().unwrap()
    };
    let (cpu, first) = (secs("CPU time"), secs("first iteration"));
    assert!(cpu > 60.0 * 60.0, "{out}");
    assert!((cpu / first - 100.0).abs() < 0.5, "{out}");
    // A small sweep says so too, and an invalid one is refused as without --dry-run.
    let out = ok(&small(&["--dry-run"]));
    assert!(out.contains(": 8 runs (2 kernels x 2 client counts x 2 iterations)"), "{out}");
    assert!(!out.contains("policy scripts"), "{out}");
    // A script is charged at its budgets: 4 runs of at most 500 million operations.
    let out = ok(&small(&["--dry-run", "--kernel", "s=v5.15+policy:template:always-prev"]));
    assert!(out.contains("policy scripts    at most 2000000000 operations (their budgets)"), "{out}");
    let cpu_line = out.lines().find(|l| l.starts_with("CPU time")).unwrap();
    let cpu: f64 = cpu_line.split_whitespace().nth(3).unwrap().parse().unwrap();
    let script_s = 2e9 * schedsim::estimate::SCRIPT_NS_PER_OP as f64 / 1e9;
    assert!(cpu >= script_s && cpu < script_s + 1.0, "{out}");
    let o = schedsim(&small(&["--dry-run", "--iterations", "0"]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("iterations"), "{}", text(&o.stderr));
}
