//! `schedsim diff`: the built binary, run as a user would.

mod common;
use common::{run_ok, schedsim, text};

fn ok(args: &[&str]) -> String {
    run_ok(args).0
}

/// Seed 001: the patch (B) keeps the idle prev where v3.8 (A) leaves it; the counts
/// add up, the first difference is shown with both traces, and the output is the same
/// every time.
#[test]
fn seed001_lists_where_the_patch_changes_the_choice() {
    let args = ["diff", "seed001", "--kernel-index", "0", "--kernel-index", "1", "--count", "200", "--details", "2"];
    let out = ok(&args);
    assert!(out.starts_with("seed001: A = kernel 0 v3.8, B = kernel 1 prev-idle (v3.8+sis-prev-idle)"), "{out}");
    let line = out.lines().find(|l| l.starts_with("wakeups 200: compared ")).expect("the counts line");
    let nums: Vec<u64> =
        line.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).filter_map(|s| s.parse().ok()).collect();
    // wakeups, compared, differ, percent (integer and tenths).
    let (compared, differ) = (nums[1], nums[2]);
    assert!(differ > 0 && differ <= compared, "{line}");
    let same: u64 = out
        .lines()
        .find(|l| l.trim_start().starts_with("same CPU"))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|n| n.parse().ok())
        .expect("the same-CPU row");
    assert_eq!(same + differ, compared, "{out}");
    assert!(out.contains("=== difference 1 of") && out.contains("=== difference 2 of"), "{out}");
    assert!(!out.contains("=== difference 3 of"), "{out}");
    assert!(out.contains("B (prev-idle) would choose CPU"), "{out}");
    assert!(out.contains("--- A: v3.8") && out.contains("--- B: prev-idle (v3.8+sis-prev-idle), counterfactual"));
    assert!(out.contains("read: idle_cpu(prev="), "B's trace shows the patch's check of prev: {out}");
    assert_eq!(out, ok(&args), "deterministic");
    // The default pair is 0 then 1.
    assert_eq!(out, ok(&["diff", "seed001", "--count", "200", "--details", "2"]));
}

/// A's traces in the diff are `schedsim trace`'s, byte for byte (wakeup 1: at wakeup 0,
/// the run's first, B agrees with A).
#[test]
fn a_traces_are_the_trace_commands() {
    let d = ok(&["diff", "seed001", "--from", "1", "--count", "1", "--details", "1"]);
    let t = ok(&["trace", "seed001", "--kernel-index", "0", "--from", "1", "--count", "1"]);
    let a_trace = t.split_once("\n\n").map(|(_, body)| body).unwrap();
    let a_part = d.split_once("--- A: v3.8\n").unwrap().1.split_once("--- B:").unwrap().0;
    let unindented: String = a_part.lines().map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l))).collect();
    assert_eq!(unindented, a_trace);
}

#[test]
fn json_has_every_difference_and_the_details() {
    let j = ok(&["diff", "seed001", "--count", "100", "--details", "4", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    let differ = v["differ"].as_u64().unwrap();
    assert_eq!(v["list"].as_array().unwrap().len() as u64, differ);
    assert_eq!(v["details"].as_array().unwrap().len() as u64, differ.min(4));
    assert_eq!(v["details"][0]["cpus"].as_array().unwrap().len(), 20);
    assert!(v["details"][0]["b"]["steps"].as_array().is_some());
}

/// Identical kernels (the same configuration under two names) never differ.
#[test]
fn identical_kernels_give_no_difference() {
    let out = ok(&[
        "diff",
        "--topology",
        "1x1x4x2",
        "--clients",
        "4",
        "--duration-ms",
        "30",
        "--kernel",
        "one=v5.15",
        "--kernel",
        "two=v5.15",
        "--count",
        "300",
    ]);
    assert!(out.contains("compared 300, B differs at 0 (0.0%)"), "{out}");
    assert!(!out.contains("Differences"), "{out}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for (args, want) in [
        (vec!["diff", "seed001", "--kernel-index", "0", "--kernel-index", "2"], "B = 2 is out of range"),
        (vec!["diff", "seed001", "--kernel-index", "1"], "give it twice"),
        (vec!["diff", "seed001", "--kernel-index", "1", "--kernel-index", "1"], "both kernel 1"),
        (vec!["diff", "seed001", "--kernel-index", "x", "--kernel-index", "1"], "not a whole number"),
        (vec!["diff", "seed001", "--kernel", "only=v5.15"], "one kernel"),
        (vec!["diff", "seed001", "--count", "0"], "--count: 0 is out of range"),
        (vec!["diff", "seed001", "--details", "5000"], "--details"),
        (vec!["diff", "seed001", "--clients", "1,2"], "one client count"),
        (vec!["diff", "seed001", "--iteration", "9"], "--iteration"),
        (vec!["diff", "seed001", "extra"], "unexpected argument"),
        (vec!["diff", "nosuch"], "nosuch"),
    ] {
        let o = schedsim(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn help_lists_the_options() {
    let h = ok(&["diff", "--help"]);
    assert!(h.starts_with("Usage: schedsim diff "), "{h}");
    assert_eq!(h, ok(&["help", "diff"]));
    for f in ["--kernel-index K", "--clients N", "--count C", "--from W", "--list N", "--details N", "--json", "--out"]
    {
        assert!(h.contains(f), "diff --help lacks {f}: {h}");
    }
    assert!(ok(&["--help"]).contains("schedsim diff FILE|PRESET"));
}

/// One client count is said in the singular, in the diff's header and in `trace`'s, as
/// the page says it: "1 client/server pair", not "1 client/server pairs".
#[test]
fn one_pair_is_a_pair() {
    let d = ok(&["diff", "seed001", "--clients", "1", "--count", "5", "--details", "0"]);
    assert!(d.lines().next().unwrap().contains(", 1 client/server pair, iteration 0,"), "{d}");
    let t = ok(&["trace", "seed001", "--clients", "1", "--count", "1"]);
    assert!(t.lines().next().unwrap().contains(", 1 client/server pair, iteration 0,"), "{t}");
    let two = ok(&["diff", "seed001", "--clients", "2", "--count", "5", "--details", "0"]);
    assert!(two.lines().next().unwrap().contains(", 2 client/server pairs, iteration 0,"), "{two}");
}
