//! Fuzzing policy scripts: every template, mutated at random (characters deleted,
//! duplicated or replaced, lines swapped, tokens that break types, loops, recursion,
//! huge values and CPUs past the machine spliced in), through the compiler and, when it
//! compiles, a short run with the invariant checker. Each case must end in a report or
//! in a one-line error naming the script's line (or the field), never a panic or a
//! hang; the outcome counts are the test's output.
#![cfg(feature = "policy")]

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use schedsim::experiment::Checks;
use schedsim::kernel::{KernelSpec, KernelVersion as V};
use schedsim::rng::Pcg64;

const CASES: u32 = 1_000;
/// The tests of this file one at a time: the differential one reads the process's count
/// of script operations.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
/// Most wall time one case may take (compile and a 5 ms run of 8 CPUs).
const CASE_TIME_MAX: Duration = Duration::from_secs(20);

const SPLICES: [&str; 24] = [
    "loop { }",
    "9999",
    "-1",
    "\"x\"",
    "()",
    "[]",
    "p",
    "target",
    "prev",
    "idle_cpu(4096)",
    "nr_running(-3)",
    "kernel::select_idle_sibling(p, 0, 0)",
    "kernel::select_idle_cpu(p, true, target)",
    "f(f(1))",
    "llc_cpus(0)[99]",
    "let s = \"ab\"; loop { s += s; }",
    "return;",
    "p.recent_used_cpu = 77777;",
    "schedstat_inc(\"nope\")",
    "trace(p)",
    "fn f(x) { f(x) }",
    "}",
    "{",
    "prandom_u32() % 0",
];

/// Replaces one word (a name or a number) with an expression of `SPLICES`: mostly
/// scripts that still compile, to reach the runner.
fn replace_word(s: &str, rng: &mut Pcg64) -> String {
    let words: Vec<(usize, usize)> = {
        let b = s.as_bytes();
        let mut v = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
                let st = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                v.push((st, i));
            } else {
                i += 1;
            }
        }
        v
    };
    if words.is_empty() {
        return s.to_string();
    }
    let (a, b) = words[rng.below(words.len() as u64) as usize];
    let t = SPLICES[rng.below(16) as usize];
    format!("{}{}{}", &s[..a], t, &s[b..])
}

fn mutate(src: &str, rng: &mut Pcg64) -> String {
    if rng.below(2) == 0 {
        return replace_word(src, rng);
    }
    let mut s: Vec<char> = src.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(s.len() as u64 + 1) as usize;
        match rng.below(5) {
            0 if !s.is_empty() => {
                let n = (1 + rng.below(8) as usize).min(s.len() - at.min(s.len()));
                s.drain(at.min(s.len())..at.min(s.len()) + n);
            }
            1 => {
                let t = SPLICES[rng.below(SPLICES.len() as u64) as usize];
                s.splice(at..at, t.chars());
            }
            2 if !s.is_empty() => {
                let c = s[rng.below(s.len() as u64) as usize];
                s.insert(at, c);
            }
            3 => {
                let text: String = s.iter().collect();
                let mut lines: Vec<&str> = text.lines().collect();
                if lines.len() > 1 {
                    let (a, b) = (rng.below(lines.len() as u64) as usize, rng.below(lines.len() as u64) as usize);
                    lines.swap(a, b);
                }
                s = lines.join("\n").chars().collect();
            }
            _ => {
                let t = SPLICES[rng.below(SPLICES.len() as u64) as usize];
                let end = (at + t.len()).min(s.len());
                s.splice(at..end, t.chars());
            }
        }
    }
    s.into_iter().collect()
}

#[test]
fn mutated_templates_compile_or_fail_in_one_line_and_never_panic() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Pcg64::new(2026, 28);
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut slowest = Duration::ZERO;
    let base = schedsim::presets::experiment("demo").unwrap();
    for case in 0..CASES {
        let t = schedsim::policy::TEMPLATES[(case as usize) % schedsim::policy::TEMPLATES.len()];
        let src = mutate(t.2, &mut rng);
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Err(e) = schedsim::check_policy(&src) {
                return ("refused by the compiler", e);
            }
            let mut e = base.clone();
            let v = if t.0 == "seed001-v3.8" { V::V3_8 } else { V::V5_15 };
            e.kernels = vec![KernelSpec { policy: Some(src.clone()), ..KernelSpec::new("s", v) }];
            e.clients = vec![4];
            e.iterations = 1;
            e.duration_ms = 5;
            e.warmup_ms = 0;
            match e.run_with(&mut |_| true, Checks::Invariants) {
                Ok(_) => ("ran", String::new()),
                Err(err) => ("failed the run", err.0),
            }
        }));
        let took = started.elapsed();
        slowest = slowest.max(took);
        let (kind, msg) = outcome.unwrap_or_else(|_| panic!("case {case} ({}) panicked on:\n{src}", t.0));
        if !msg.is_empty() {
            assert!(!msg.contains('\n'), "case {case}: more than one line: {msg}\n{src}");
            assert!(msg.contains("line ") || msg.contains("defines none of"), "case {case}: no line: {msg}\n{src}");
        }
        assert!(took < CASE_TIME_MAX, "case {case} took {took:?}:\n{src}");
        *outcomes.entry(kind).or_default() += 1;
    }
    eprintln!("fuzz campaign policy scripts: {CASES} cases, {outcomes:?}, 0 panics, slowest case {slowest:?}");
    assert_eq!(outcomes.values().sum::<u64>(), u64::from(CASES));
    for kind in ["refused by the compiler", "ran", "failed the run"] {
        assert!(outcomes.get(kind).copied().unwrap_or(0) > 0, "no case {kind}: {outcomes:?}");
    }
}

/// Snippets that reach each path of the compiled form (`linux::policy::fast`): what it
/// runs itself and what it hands back to Rhai.
const COMPILED_SPLICES: [&str; 24] = [
    "let x = 1; x = x + 9223372036854775807;",
    "const c = 1; let e = c; e = c * 2;",
    "let m = -(-9223372036854775807 - 1);",
    "while true { }",
    "for i in 0..3 { if i == 1 { continue; } if i == 2 { break; } }",
    "let a = [1, 2]; a[0] = 3; a[5];",
    "let n = 0; n += 1; n -= 2;",
    "let q = !5;",
    "let q = 1 == \"a\";",
    "let q = \"a\" + 1;",
    "idle_cpu(\"x\");",
    "kernel::select_idle_cpu(p, 1, target);",
    "kernel::wake_wide(7);",
    "trace(true);",
    "let t = true; t = !t && (1 < 2 || 3 >= 4);",
    "for c in llc_cpus(target) { if idle_cpu(c) { return c; } }",
    "let v = loop { break 5; };",
    "let s = 0; for c in 0..nr_cpu_ids() { s += nr_running(c) + cpu_util(c) * capacity_of(c); }",
    "let i = 0; while i < 3 { i = i + 1; }",
    "let y = type_of(p.recent_used_cpu) + type_of(current());",
    "let b = if sched_smt_active() { test_idle_cores(target) } else { sd_llc(target) };",
    "let d = [prev, 1].len() * 2;",
    "return default_select_cpu(p, prev, kernel::WF_SYNC);",
    "let w = switch prev { 0 => 1, _ => 2 };",
];

/// `e` run with its scripts interpreted, then compiled: each run's report (or error)
/// and the operations its scripts counted.
fn both_ways(e: &schedsim::Experiment, checks: Checks) -> [(Result<String, String>, u64); 2] {
    let runs = [true, false].map(|interpret| {
        schedsim::policy::set_interpret_only(interpret);
        schedsim::policy::take_ops_counted();
        let r = e.run_with(&mut |_| true, checks).map(|r| r.to_json()).map_err(|e| e.0);
        (r, schedsim::policy::take_ops_counted())
    });
    schedsim::policy::set_interpret_only(false);
    runs
}

/// Three of the wakeup path's functions, each the kernel's own but for a twist.
const THREE_HOOKS: &str = "// wake_wide, wake_affine and select_idle_sibling, called in turn.
fn wake_wide(p) {
    p.wakee_flips > 8 || kernel::wake_wide(p)
}
fn wake_affine(p, this_cpu, prev_cpu, sync) {
    if sync && cpus_share_cache(this_cpu, prev_cpu) { this_cpu } else { kernel::wake_affine(p, this_cpu, prev_cpu, sync) }
}
fn select_idle_sibling(p, prev, target) {
    for c in core_cpus(target) {
        if available_idle_cpu(c) && is_cpu_allowed(p, c) { return c; }
    }
    kernel::select_idle_sibling(p, prev, target)
}";

/// The compiled form of a script gives what Rhai's evaluator gives, case for case:
/// every template and a thousand mutated ones (with snippets for each path of the
/// compiled form spliced in), run once compiled and once interpreted: the same report,
/// or the same one-line error, and the same number of operations counted.
#[test]
fn compiled_and_interpreted_scripts_agree() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Pcg64::new(2026, 1206);
    let mut outcomes: BTreeMap<&str, u64> = BTreeMap::new();
    let base = schedsim::presets::experiment("demo").unwrap();
    // The templates, and a script of three hooks that the wakeup path calls in turn.
    let mut templates = schedsim::policy::TEMPLATES.to_vec();
    templates.push(("three-hooks", "", THREE_HOOKS));
    for case in 0..CASES + templates.len() as u32 {
        let t = templates[(case as usize) % templates.len()];
        let src = match case {
            c if c < templates.len() as u32 => t.2.to_string(),
            c if c % 2 == 0 => mutate(t.2, &mut rng),
            _ => {
                // A snippet at the start of a line of the function's body.
                let lines: Vec<&str> = t.2.lines().collect();
                let body = 1 + lines.iter().position(|l| l.starts_with("fn ")).unwrap_or(0);
                let at = body + rng.below((lines.len() - body) as u64) as usize;
                let snippet = COMPILED_SPLICES[rng.below(COMPILED_SPLICES.len() as u64) as usize];
                let mut l = lines.clone();
                l.insert(at, snippet);
                l.join("\n")
            }
        };
        if schedsim::check_policy(&src).is_err() {
            *outcomes.entry("refused by the compiler").or_default() += 1;
            continue;
        }
        let mut e = base.clone();
        let v = if t.0 == "seed001-v3.8" { V::V3_8 } else { V::V5_15 };
        e.kernels = vec![KernelSpec { policy: Some(src.clone()), ..KernelSpec::new("s", v) }];
        e.clients = vec![1 + (case % 12)];
        e.iterations = 1;
        e.duration_ms = 5;
        e.warmup_ms = 0;
        let [interpreted, compiled] = both_ways(&e, Checks::Invariants);
        assert_eq!(compiled.0, interpreted.0, "case {case} ({}): compiled and interpreted differ:\n{src}", t.0);
        assert_eq!(compiled.1, interpreted.1, "case {case} ({}): operations counted differ:\n{src}", t.0);
        *outcomes.entry(if compiled.0.is_ok() { "ran" } else { "failed the run" }).or_default() += 1;
    }
    eprintln!("compiled against interpreted: {outcomes:?}");
    for kind in ["ran", "failed the run"] {
        assert!(outcomes.get(kind).copied().unwrap_or(0) > 50, "few cases {kind}: {outcomes:?}");
    }
}

/// The run's budget ends a run of calls each well within its own budget, and at the
/// same operation compiled or interpreted (the compiled form makes the progress
/// callback's test itself). The budget is lowered to 3,000,000 operations for the
/// test (each call here makes about 60,000: the run ends at about its fiftieth wakeup).
#[test]
fn the_run_budget_ends_a_run_of_slow_calls_at_the_same_operation_either_way() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // `i += 1` is handed back to Rhai, the loop around it is compiled.
    let src = "fn select_idle_sibling(p, prev, target) {\n  let i = 0;\n  while i < 10000 { i += 1; }\n  target\n}";
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.kernels = vec![KernelSpec { policy: Some(src.into()), ..KernelSpec::new("s", V::V5_15) }];
    e.clients = vec![8];
    e.iterations = 1;
    e.duration_ms = 1_000;
    e.warmup_ms = 0;
    ends_at_a_budget_of_3_million(&e);
}

/// A helper pays for the CPUs it reads or lists (issue 42): `llc_cpus` over a 256-CPU
/// LLC counted as one operation, so a run within its budget could take minutes. Here
/// each call lists the LLC 100 times: about 25,500 operations charged a call (it was
/// about 500), the same compiled or interpreted; and the run's budget ends such a run.
#[test]
fn a_helper_over_many_cpus_is_charged_one_operation_a_cpu() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let src = "fn select_idle_sibling(p, prev, target) {\n  for i in 0..100 { let a = llc_cpus(target); }\n  target\n}";
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.machine = serde_json::from_str(r#"{"topology": "1x1x256x1"}"#).unwrap();
    e.kernels = vec![KernelSpec { policy: Some(src.into()), ..KernelSpec::new("s", V::V5_15) }];
    e.clients = vec![8];
    e.iterations = 1;
    e.duration_ms = 5;
    e.warmup_ms = 0;
    let [interpreted, compiled] = both_ways(&e, Checks::Off);
    assert_eq!(compiled, interpreted);
    let report: schedsim::Report = serde_json::from_str(compiled.0.as_ref().unwrap()).unwrap();
    let calls = report.configs[0].total().sis_searches;
    assert!(calls > 10, "{calls}");
    assert!(compiled.1 / calls >= 25_500, "{} operations in {calls} calls", compiled.1);
    e.duration_ms = 1_000;
    ends_at_a_budget_of_3_million(&e);
}

/// `e` run both ways with the run's budget lowered to 3,000,000 operations: each run
/// ends saying so, at the same operation.
fn ends_at_a_budget_of_3_million(e: &schedsim::Experiment) {
    schedsim::policy::set_run_ops_max(3_000_000);
    let [interpreted, compiled] = both_ways(e, Checks::Off);
    schedsim::policy::set_run_ops_max(schedsim::policy::RUN_OPS_MAX);
    let err = compiled.0.clone().expect_err("the run budget");
    assert!(err.contains("the run's policy budget of 3000000 operations is spent"), "{err}");
    assert!((3_000_000..3_100_000).contains(&compiled.1), "{}", compiled.1);
    assert_eq!(compiled, interpreted);
}
