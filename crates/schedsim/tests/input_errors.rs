//! Bad input gets a clear error naming the problem, never a panic.

use schedsim::Experiment;

fn err(json: &str) -> String {
    Experiment::from_json(json).unwrap_err().0
}

const GOOD: &str = r#"{"version":1,"machine":{"topology":"1x1x2x2"},"workload":{"kind":"tbench"},
 "clients":[1,2],"iterations":1,"duration_ms":10,"seed":1,"kernels":[{"name":"a","preset":"v5.15"}]}"#;

#[test]
fn good_input_parses() {
    let e = Experiment::from_json(GOOD).unwrap();
    assert_eq!(Experiment::from_json(&e.to_json()).unwrap(), e);
}

#[test]
fn each_problem_is_named() {
    let cases: &[(&str, &str, &str)] = &[
        ("\"duration_ms\":10", "\"duration_ms\":-5", "duration_ms"),
        ("\"duration_ms\":10", "\"duration_ms\":0", "duration_ms"),
        ("\"1x1x2x2\"", "\"0x1x2x2\"", "nodes must be at least 1"),
        ("\"1x1x2x2\"", "\"100000x1x1x1\"", "at most 1024"),
        ("\"version\":1", "\"version\":99", "version"),
        ("\"tbench\"", "\"nosuch\"", "workload"),
        ("\"v5.15\"", "\"v9.9\"", "preset"),
        ("[1,2]", "[]", "clients"),
        ("[1,2]", "[0]", "clients"),
        ("\"iterations\":1", "\"iterations\":1000", "iterations"),
        ("\"seed\":1", "\"seed\":1,\"bogus\":2", "bogus"),
        ("\"name\":\"a\"", "\"name\":\"\"", "name"),
    ];
    for (from, to, want) in cases {
        let j = GOOD.replacen(from, to, 1);
        assert_ne!(j, GOOD, "case {to} did not apply");
        let e = err(&j);
        assert!(e.contains(want), "{to}: {e:?} does not mention {want:?}");
    }
    for cut in [10, 50, GOOD.len() - 3] {
        let e = err(&GOOD[..cut]);
        assert!(e.contains("ends early") || e.contains("EOF"), "{e}");
    }
    assert!(err("").contains("ends early"));
    let e = err("[1,2]");
    assert!(e.contains("invalid type") || e.contains("expected"), "{e}");
}

#[test]
fn two_kernels_with_one_name_are_refused() {
    let j = GOOD.replace(
        r#"[{"name":"a","preset":"v5.15"}]"#,
        r#"[{"name":"a","preset":"v5.15"},{"name":"a","preset":"v4.15"}]"#,
    );
    assert!(err(&j).contains("used twice"));
}

/// A cost near 2^62 used to wrap in release and panic with overflow checks; every cost
/// field is now bounded and the error names it.
#[test]
fn huge_costs_are_refused_by_name() {
    let mut costs = serde_json::to_value(schedsim::cost::CostModel::default()).unwrap();
    let fields: Vec<String> = costs.as_object().unwrap().keys().cloned().collect();
    for f in fields.iter().filter(|f| f.as_str() != "cstates") {
        let saved = costs[f.as_str()].clone();
        costs[f.as_str()] = serde_json::json!(1u64 << 62);
        let j = GOOD.replace(
            r#""machine":{"topology":"1x1x2x2"}"#,
            &format!(r#""machine":{{"topology":"1x1x2x2","costs":{costs}}}"#),
        );
        let e = err(&j);
        assert!(e.contains(f.as_str()) && e.starts_with("field machine.costs"), "{f}: {e}");
        costs[f.as_str()] = saved;
    }
}
