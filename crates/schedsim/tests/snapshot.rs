//! Snapshot of a small report's mmtests table (UPDATE_EXPECT=1 refreshes it).

use expect_test::expect_file;

#[test]
fn small_tbench_table() {
    let e = schedsim::Experiment::from_json(
        r#"{"version":1,"name":"snap","machine":{"preset":"teaching"},"workload":{"kind":"tbench"},
        "clients":[1,4],"iterations":2,"duration_ms":20,"warmup_ms":2,"seed":7,
        "kernels":[{"name":"v4.15","preset":"v4.15"},{"name":"v5.15","preset":"v5.15"}]}"#,
    )
    .unwrap();
    let r = e.run(&mut |_| true).unwrap();
    expect_file!["snapshots/small_tbench_table.txt"].assert_eq(&r.mmtests_table());
}

/// A point where an iteration completed nothing has no Hmean, Stddev or change: the
/// table says "n/a" there (and why), never "0.00 (0.00%)" nor a change against 0.
#[test]
fn nothing_completed_is_not_zero_percent() {
    let e = schedsim::Experiment::from_json(
        r#"{"version":1,"name":"snap","machine":{"preset":"teaching"},"workload":{"kind":"tbench"},
        "clients":[1,4],"iterations":2,"duration_ms":20,"warmup_ms":2,"seed":7,
        "kernels":[{"name":"v4.15","preset":"v4.15"},{"name":"v5.15","preset":"v5.15"}]}"#,
    )
    .unwrap();
    let mut r = e.run(&mut |_| true).unwrap();
    // Kernel B at 1 client and kernel A at 4 clients: one iteration completed nothing.
    r.configs[1].points[0].samples[1] = 0.0;
    r.configs[0].points[1].samples[0] = 0.0;
    let t = r.mmtests_table();
    let row = |name: &str, clients: &str| -> String {
        t.lines()
            .find(|l| l.split_whitespace().take(2).eq([name, clients]))
            .unwrap_or_else(|| panic!("no {name} {clients} row in\n{t}"))
            .to_string()
    };
    let (h1, h4, s1, s4) = (row("Hmean", "1"), row("Hmean", "4"), row("Stddev", "1"), row("Stddev", "4"));
    // B at 1 client: no value, no change; A's cell is a measurement.
    assert!(h1.contains("(   0.00%)") && h1.ends_with("n/a (     n/a)"), "{h1}");
    assert!(s1.ends_with("n/a (     n/a)"), "{s1}");
    // A at 4 clients is the base: nothing there, and B cannot be compared with it.
    assert_eq!(h4.matches("n/a").count(), 3, "{h4}");
    assert!(!h4.contains('%'), "{h4}");
    assert_eq!(s4.matches("n/a").count(), 3, "{s4}");
    assert!(t.contains("(n/a: an iteration measured nothing there"), "{t}");
    // The measured table says nothing of it.
    assert!(!e.run(&mut |_| true).unwrap().mmtests_table().contains("n/a:"));
}
