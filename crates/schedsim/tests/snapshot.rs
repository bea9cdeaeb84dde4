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
