//! Fuzzing what a user can type or link: every preset's experiment JSON (as `schedsim
//! show` writes it, with and without the cost model) and real topology texts (lscpu
//! -p, lscpu -e, sysfs, numactl), mutated at random. Each case must end in success or
//! in a one-line error that names a field or the problem, never a panic (test builds
//! check overflow), within a time bound; an accepted experiment is run (shortened to
//! 2 ms, one point) with the invariant checker after every event.

mod campaign;

use campaign::campaign;
use proptest::prelude::*;
use schedsim::experiment::Checks;
use schedsim::Experiment;
use serde_json::{json, Value};
use std::time::Duration;

/// Most wall time one case may take (parse, validate and the shortened run).
const CASE_TIME_MAX: Duration = Duration::from_secs(20);

type Tally = campaign::Tally;

/// The class of a refusal: its field's top-level name, or the kind of problem.
fn class(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("field ") {
        let path = rest.split(':').next().unwrap_or("");
        let top: String = path.split('[').next().unwrap_or(path).split('.').take(2).collect::<Vec<_>>().join(".");
        return format!("field {top}");
    }
    if msg.starts_with("unknown field") {
        return "unknown top-level field".into();
    }
    if msg.starts_with("missing field") {
        return "missing top-level field".into();
    }
    msg.split([':', ',']).next().unwrap_or(msg).chars().take(40).collect()
}

fn one_line(msg: &str) {
    assert!(!msg.is_empty(), "empty error");
    assert!(!msg.contains('\n'), "error of more than one line: {msg}");
    assert!(msg.chars().count() <= 1100, "error of {} characters", msg.chars().count());
}

/// Checks one experiment text end to end.
fn check_experiment_text(text: &str, t: &mut Tally) {
    let outcome = Experiment::from_json(text);
    match outcome {
        Err(e) => {
            one_line(&e.0);
            // "field PATH: problem", or a top-level "missing/unknown field `NAME`", or a
            // problem with the JSON text itself.
            let named = e.0.starts_with("field ") || e.0.contains("field `") || e.0.contains("JSON");
            assert!(named, "error names no field: {}", e.0);
            t.refuse(class(&e.0));
        }
        Ok(mut exp) => {
            exp.duration_ms = exp.duration_ms.min(2);
            exp.warmup_ms = 0;
            exp.iterations = 1;
            exp.clients.truncate(1);
            exp.kernels.truncate(1);
            match exp.run_with(&mut |_| true, Checks::Invariants) {
                Ok(r) => assert_eq!(r.configs.len(), 1),
                Err(e) => panic!("an accepted experiment failed to run: {e}\n{}", exp.to_json()),
            }
            t.accepted += 1;
        }
    }
}

fn pool() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(7),
        json!(1u64 << 62),
        json!(u64::MAX),
        json!(1e300),
        json!(1.5),
        json!(""),
        json!("2"),
        json!("k".repeat(5000)),
        json!("\u{feff}"),
        json!("2x1x20x2"),
        json!("1x1x1x9"),
        json!("v5.15"),
        json!("tbench"),
        Value::Null,
        json!(true),
        json!([]),
        json!({}),
        json!([1, 1]),
        json!([[10, 21], [21, 10]]),
        json!({"threads": 2}),
    ]
}

/// One mutation: a walk (child choices), what to do there, and a pool index.
type Mutation = (Vec<u16>, u8, u16);

fn mutate(root: &mut Value, (walk, kind, pick): &Mutation) {
    let pool = pool();
    // Choose the spot by reading, then reach it by JSON pointer.
    let mut ptr = String::new();
    let mut cur: &Value = root;
    for &w in walk {
        let (seg, next) = match cur {
            Value::Object(m) if !m.is_empty() => {
                let (k, x) = m.iter().nth(w as usize % m.len()).unwrap();
                (k.replace('~', "~0").replace('/', "~1"), x)
            }
            Value::Array(a) if !a.is_empty() => {
                let i = w as usize % a.len();
                (i.to_string(), &a[i])
            }
            _ => break,
        };
        ptr.push('/');
        ptr.push_str(&seg);
        cur = next;
    }
    let Some(v) = root.pointer_mut(&ptr) else { return };
    let p = *pick as usize;
    match (kind % 6, &mut *v) {
        (0, _) => *v = pool[p % pool.len()].clone(),
        (1, Value::Object(m)) if !m.is_empty() => {
            let k = m.keys().nth(p % m.len()).cloned().unwrap_or_default();
            m.remove(&k);
        }
        (2, Value::Object(m)) if !m.is_empty() => {
            // A typo: drop or double a letter of a key.
            let k = m.keys().nth(p % m.len()).cloned().unwrap_or_default();
            if let Some(x) = m.remove(&k) {
                let typo = if p.is_multiple_of(2) { format!("{k}s") } else { k.chars().skip(1).collect() };
                m.insert(typo, x);
            }
        }
        (3, Value::Object(m)) => {
            m.insert("bogus_field".into(), pool[p % pool.len()].clone());
        }
        (4, Value::Array(a)) if !a.is_empty() => {
            let x = a[p % a.len()].clone();
            a.push(x);
        }
        (5, Value::Array(a)) => a.clear(),
        _ => *v = pool[p % pool.len()].clone(),
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (prop::collection::vec(any::<u16>(), 0..7), any::<u8>(), any::<u16>())
}

fn preset_json(i: usize, with_costs: bool) -> Value {
    let presets = schedsim::presets::presets();
    let mut e = presets[i % presets.len()].experiment.clone();
    if with_costs {
        e.machine.costs = Some(e.machine.resolve().unwrap().costs);
    }
    serde_json::from_str(&e.to_json()).unwrap()
}

/// How a text is spoilt before reading: (kind, position, pool index).
type TextMutation = (u8, u16, u16);

fn spoil(text: &str, muts: &[TextMutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let words = ["-1", "99999999999999999999", "4294967296", "x", "", ",,,", "0-", "1-0", "8191", "\u{feff}"];
    for &(kind, pos, pick) in muts {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let i = pos as usize % lines.len();
        let w = words[pick as usize % words.len()];
        match kind % 6 {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                // Replace one number with a word.
                let l = &lines[i];
                let start = l.find(|c: char| c.is_ascii_digit());
                if let Some(s) = start {
                    let end = l[s..].find(|c: char| !c.is_ascii_digit()).map_or(l.len(), |e| s + e);
                    lines[i] = format!("{}{w}{}", &l[..s], &l[end..]);
                }
            }
            3 => {
                let l = &lines[i];
                let cut = (0..=l.len()).filter(|&c| l.is_char_boundary(c)).nth(pick as usize % (l.len() + 1));
                lines[i] = l[..cut.unwrap_or(0)].to_string();
            }
            4 => lines.insert(0, "\u{feff}".into()),
            _ => lines[i].push_str(w),
        }
    }
    lines.join("\n")
}

const FIXTURES: &[&str] = &[
    "intel-xeon-gold-6248-2s.lscpu-p.txt",
    "intel-xeon-gold-6248-2s.lscpu-e.txt",
    "amd-epyc-7763-2s.lscpu-p.txt",
    "amd-epyc-7763-1s.sysfs-grep.txt",
    "intel-core-i9-12900k.lscpu-p-columns.txt",
    "intel-core-i7-8700-offline.lscpu-e.txt",
    "rockchip-rk3399.sysfs-tail.txt",
];

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/topology/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const CASES: u32 = 1000;

#[test]
fn mutated_experiments_are_refused_or_run() {
    let strategy = (0usize..16, any::<bool>(), prop::collection::vec(mutation(), 1..4));
    let t = campaign("experiments", CASES, CASE_TIME_MAX, strategy, |(preset, with_costs, muts), t: &mut Tally| {
        let mut v = preset_json(preset, with_costs);
        for m in &muts {
            mutate(&mut v, m);
        }
        check_experiment_text(&v.to_string(), t);
    });
    t.report("experiments", CASES, " and run");
}

#[test]
fn mutated_topology_texts_are_refused_or_run() {
    let strategy =
        (0usize..FIXTURES.len(), any::<bool>(), prop::collection::vec((any::<u8>(), any::<u16>(), any::<u16>()), 0..4));
    let t = campaign("topology texts", CASES, CASE_TIME_MAX, strategy, |(f, numactl, muts), t: &mut Tally| {
        let mut text = fixture(FIXTURES[f]);
        if numactl {
            text.push_str(&fixture("numactl-hardware-2node.txt"));
        }
        let text = spoil(&text, &muts);
        match schedsim::import::topology_from_text(&text) {
            Err(e) => {
                one_line(&e.to_string());
                t.refuse("topology text");
            }
            Ok(imp) => {
                // As the CLI and the page do: the imported tree in an experiment.
                let mut exp = schedsim::presets::experiment("demo").unwrap();
                exp.machine.topology = Some(schedsim::TopologyInput::Full(imp.topology));
                check_experiment_text(&exp.to_json(), t);
            }
        }
    });
    t.report("topology texts", CASES, " and run");
}
