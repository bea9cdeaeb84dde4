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
        ("\"seed\":1", "\"seed\":1,\"cgroup_depth\":17", "cgroup_depth: 17 is out of range 0 to 16"),
        ("\"seed\":1", "\"seed\":1,\"other_cgroups\":4097", "other_cgroups: 4097 is out of range 0 to 4096"),
        ("\"seed\":1", "\"seed\":18446744073709551616", "seed: invalid type: floating point"),
        ("\"seed\":1", "\"seed\":18446744073709551616", "(a whole number within the field's range) at line"),
        ("\"1x1x2x2\"", "\"65536x65536x65536x65536\"", "18446744073709551616 CPUs, at most 1024"),
        ("\"1x1x2x2\"", "\"4294967296x1x1x1\"", "nodes is 4294967296, far more than 1024 CPUs in all"),
        ("\"v5.15\"", "null", "kernels[0].preset: invalid type: null, expected a kernel version as a string"),
        (
            "\"preset\":\"v5.15\"",
            "\"preset\":\"v5.15\",\"overrides\":{\"NOPE\":true}",
            "overrides.NOPE: unknown switch",
        ),
        ("\"name\":\"a\"", "\"name\":\"a\\u001b[31m\"", "kernels[0].name: \"a\\u{1b}[31m\" has the control character"),
        ("\"seed\":1", "\"seed\":1,\"name\":\"x\\ny\"", "field name: has the control character '\\n'"),
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
    assert_eq!(e, "an experiment must be a JSON object {...}, this is an array");
    assert!(err("7").contains("must be a JSON object"));
    // Only white space may follow the object.
    assert!(Experiment::from_json(&format!("{GOOD}\n\t ")).is_ok());
    for tail in ["x", "{}", "\u{0}", ",", GOOD] {
        let e = err(&format!("{GOOD}{tail}"));
        assert!(
            e.starts_with("an experiment is one JSON object, but more follows it: trailing characters"),
            "{tail:?}: {e}"
        );
    }
}

/// A pasted megabyte where a topology spec belongs is refused without being echoed.
#[test]
fn a_huge_topology_spec_is_not_echoed() {
    let e = schedsim::topology::Topology::parse_spec(&"x".repeat(10_000_000)).unwrap_err().to_string();
    assert!(e.len() < 300 && e.contains("expected NODESxLLCSxCORESxTHREADS"), "{} bytes", e.len());
}

/// The experiment's name is a title: bounded.
#[test]
fn a_name_longer_than_a_title_is_refused() {
    let named = |n: usize| GOOD.replacen("\"seed\":1", &format!("\"seed\":1,\"name\":\"{}\"", "é".repeat(n)), 1);
    assert!(Experiment::from_json(&named(schedsim::experiment::NAME_CHARS_MAX)).is_ok());
    assert!(err(&named(schedsim::experiment::NAME_CHARS_MAX + 1)).contains("field name: at most 200 characters"));
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

fn full_topology(topo: &str) -> String {
    GOOD.replace(r#""topology":"1x1x2x2""#, &format!(r#""topology":{topo}"#))
}

/// Unknown fields are refused at every depth of the machine, with the nearest name.
#[test]
fn unknown_fields_are_refused_everywhere() {
    let base = r#"{"nodes":[{"llcs":[{"cores":[{"threads":2},{"threads":2}]}]},{"llcs":[{"cores":[{"threads":1}]}]}],"numa_distance":[[10,21],[21,10]]}"#;
    assert!(Experiment::from_json(&full_topology(base)).is_ok());
    let cases = [
        ("\"numa_distance\"", "\"numa_distances\"", "machine.topology", "numa_distance"),
        ("{\"llcs\"", "{\"llc\"", "machine.topology.nodes[0]", "llcs"),
        ("{\"cores\"", "{\"core\"", "machine.topology.nodes[0].llcs[0]", "cores"),
        ("{\"threads\":2}", "{\"threads\":2,\"thread\":1}", "machine.topology.nodes[0].llcs[0].cores[0]", "threads"),
    ];
    for (from, to, path, near) in cases {
        let t = base.replacen(from, to, 1);
        let e = err(&full_topology(&t));
        assert!(e.starts_with(&format!("field {path}: unknown field")), "{to}: {e}");
        assert!(e.contains(&format!("(did you mean `{near}`?)")), "{to}: {e}");
    }
    let mut costs = serde_json::to_value(schedsim::cost::CostModel::default()).unwrap();
    costs["cstates"][1]["exit_latency"] = 5.into();
    let j = GOOD.replace(
        r#""machine":{"topology":"1x1x2x2"}"#,
        &format!(r#""machine":{{"topology":"1x1x2x2","costs":{costs}}}"#),
    );
    let e = err(&j);
    assert!(e.starts_with("field machine.costs.cstates[1]: unknown field `exit_latency`"), "{e}");
    assert!(e.contains("(did you mean `exit_latency_ns`?)"), "{e}");
    assert!(err(&GOOD.replace("\"seed\"", "\"sed\"")).contains("did you mean `seed`?"));
}

/// A problem inside a full topology names its field, not "did not match any variant".
#[test]
fn errors_inside_a_full_topology_name_the_field() {
    let e = err(&full_topology(r#"{"nodes":[{"llcs":[{"cores":[{"threads":"2"}]}]}]}"#));
    assert!(e.starts_with("field machine.topology.nodes[0].llcs[0].cores[0].threads: invalid type: string"), "{e}");
    let e = err(&full_topology(
        r#"{"nodes":[{"llcs":[{"cores":[{"threads":1}]}]},{"llcs":[{"cores":[{"threads":1}]}]}],"numa_distance":[[10,-21],[21,10]]}"#,
    ));
    assert!(e.starts_with("field machine.topology.numa_distance[0][1]: invalid value: integer `-21`"), "{e}");
    let e = err(&full_topology("5"));
    assert!(e.starts_with("field machine.topology: invalid type: integer `5`, expected a topology spec"), "{e}");
    assert!(!e.contains("untagged"));
}

/// A byte-order mark is read past; long keys are not echoed whole; duplicate client
/// counts are refused; input over 2 MB is refused.
#[test]
fn bom_long_keys_duplicates_and_size() {
    assert!(Experiment::from_json(&format!("\u{feff}{GOOD}")).is_ok());
    let key = "k".repeat(100_000);
    let e = err(&GOOD.replace("\"seed\"", &format!("\"{key}\"")));
    assert!(e.len() < 400 && e.contains("…"), "{} chars", e.len());
    let e = err(&GOOD.replace("[1,2]", "[1,1]"));
    assert_eq!(e, "field clients: 1 is listed twice; give each client count once (clients[1])");
    let big = format!("{}{}", GOOD, " ".repeat(schedsim::input::INPUT_BYTES_MAX));
    assert!(err(&big).contains("at most 2 MB"), "{}", err(&big));
    let imp = schedsim::import::topology_from_text("\u{feff}# CPU,Core,Socket,Node\n0,0,0,0\n1,1,0,0\n");
    assert_eq!(imp.unwrap().topology.cpu_count(), 2);
    let big = "0,0,0,0\n".repeat(300_000);
    assert!(schedsim::import::topology_from_text(&big).unwrap_err().to_string().contains("at most 2 MB"));
}

/// A key given twice in any object is refused with its path, by the one reader that
/// experiment files, `--workload` JSON and links share (serde alone keeps the last).
#[test]
fn a_key_given_twice_is_refused_with_its_path() {
    assert_eq!(
        err(&GOOD.replacen("\"seed\"", "\"seed\":3,\"seed\"", 1)),
        "field seed is given twice; give each field once"
    );
    let twice_kind = GOOD.replacen("\"kind\"", "\"kind\":\"pipe\",\"kind\"", 1);
    assert_eq!(err(&twice_kind), "field workload.kind is given twice; give each field once");
    // The same key in two objects is not a duplicate.
    assert!(Experiment::from_json(GOOD).is_ok());
}
