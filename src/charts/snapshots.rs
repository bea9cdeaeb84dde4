//! Snapshot tests of the report charts, drawn as SVG from fixed reports, so that any
//! change in a chart's axes, labels or data shows up as a diff of a file.
//!
//! The reports are JSON files under `src/charts/fixtures/`, made once by running the
//! experiments below, so a change in the simulator does not move these snapshots (the
//! library has its own). To accept a change in the charts:
//!
//! ```text
//! UPDATE_EXPECT=1 cargo test -p schedsim-web charts::snapshots
//! ```
//!
//! To remake the fixtures from the simulator (then update the snapshots as above):
//!
//! ```text
//! SCHEDSIM_REMAKE_FIXTURES=1 cargo test -p schedsim-web charts::snapshots
//! ```

use super::tests::texts;
use super::{draw_report_chart, report_chart_size, to_svg_sized, ChartTheme};
use schedsim::topology::TopologyInput;
use schedsim::{Experiment, KernelSpec, KernelVersion, Report};
use std::path::PathBuf;

/// The fixed experiments: the demo (v4.15 against v5.15), a machine too small for its
/// clients (nothing completes at 8,192 pairs on one CPU), and two identical kernels.
fn experiment(name: &str) -> Experiment {
    let mut e = schedsim::presets::experiment("demo").expect("the demo preset");
    e.iterations = 3;
    e.duration_ms = 40;
    e.warmup_ms = 4;
    match name {
        "demo" => {}
        "empty" => {
            e.machine.topology = Some(TopologyInput::Spec("1x1x1x1".into()));
            e.clients = vec![1, 2, 8192];
            e.iterations = 2;
            e.duration_ms = 20;
            e.warmup_ms = 2;
        }
        "identical" => {
            e.kernels = vec![
                KernelSpec::new("v5.15 (2)", KernelVersion::V5_15),
                KernelSpec::new("v5.15", KernelVersion::V5_15),
            ];
        }
        _ => panic!("no fixture {name}"),
    }
    e
}

fn fixture(name: &str) -> Report {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("src/charts/fixtures/{name}.report.json"));
    if std::env::var_os("SCHEDSIM_REMAKE_FIXTURES").is_some() || !path.exists() {
        let r = experiment(name).run(&mut |_| true).expect("the fixture experiment runs");
        std::fs::write(&path, r.to_json() + "\n").expect("write the fixture");
    }
    let text = std::fs::read_to_string(&path).expect("read the fixture");
    Report::from_json(&text).expect("the fixture reads as a report")
}

fn svg(r: &Report, chart: &str, point: usize) -> String {
    to_svg_sized(report_chart_size(chart), |a| draw_report_chart(chart, a, r, point, &ChartTheme::light())).unwrap()
}

macro_rules! snapshot {
    ($report:expr, $chart:expr, $point:expr, $file:literal, $texts:expr) => {{
        let s = svg(&$report, $chart, $point);
        expect_test::expect_file![$file].assert_eq(&s);
        $texts.assert_eq(&texts(&s));
    }};
}

#[test]
fn demo_report_charts() {
    let r = fixture("demo");
    snapshot!(r, "throughput", 0, "snapshots/demo-throughput.svg", expect_test::expect!["Hmean throughput (MB/sec), higher is better; bars ±1 stddev of 3 iterations | throughput (MB/sec) | 0.0 | 200.0 | 400.0 | 600.0 | 800.0 | 1000.0 | 1200.0 | 1400.0 | 1 | 2 | 4 | 8 | A v4.15 | B v5.15 | % vs A (v4.15), + is better; hollow: no difference beyond noise | % vs A | client/server pairs (log scale) | -5% | 0% | +5% | 1 | 2 | 4 | 8 | no difference beyond noise"]);
    snapshot!(r, "migrations", 0, "snapshots/demo-migrations.svg", expect_test::expect!["Wakeup migrations by distance from prev, per 1000 wakeups | migrations / 1000 wakeups | 0.0 | 0.2 | 0.4 | 0.6 | 0.8 | 1.0 | 1.2 | 1.4 | 1.6 | SMT sibling | same LLC | cross-LLC | cross-node | v4.15 | v5.15"]);
    snapshot!(r, "cputime", 0, "snapshots/demo-cputime.svg", expect_test::expect!["CPU time: user, system and idle (all runs) | CPU seconds | 0.0 | 0.5 | 1.0 | 1.5 | 2.0 | 2.5 | 3.0 | 3.5 | v4.15 | v5.15 | 0.23 | 0.23 | 1.22 | 1.22 | 2.01 | 2.01 | user | system | idle"]);
    snapshot!(r, "latency", 3, "snapshots/demo-latency.svg", expect_test::expect!["Wakeup latency at 8 client/server pairs | µs from wakeup to running | 0.0 | 0.5 | 1.0 | 1.5 | 2.0 | 2.5 | p50 | p90 | p95 | p99 | v4.15 | v5.15"]);
}

#[test]
fn nothing_completed_is_said_not_drawn_as_zero() {
    let r = fixture("empty");
    snapshot!(r, "throughput", 0, "snapshots/empty-throughput.svg", expect_test::expect!["Hmean throughput (MB/sec), higher is better; bars ±1 stddev of 2 iterations | throughput (MB/sec) | 0.0 | 50.0 | 100.0 | 150.0 | 200.0 | 250.0 | 1 | 2 | 8192 | × on the axis: no request completed in the measured window | A v4.15 | B v5.15 | % vs A (v4.15), + is better; hollow: no difference beyond noise | % vs A | client/server pairs (log scale) | -1.0% | -0.5% | 0% | +0.5% | +1.0% | 1 | 2 | 8192 | no difference beyond noise"]);
    snapshot!(r, "latency", 2, "snapshots/empty-latency.svg", expect_test::expect!["Wakeup latency at 8192 client/server pairs | µs from wakeup to running | 0.0 | 5.0 | 10.0 | 15.0 | 20.0 | 25.0 | 30.0 | 35.0 | 40.0 | 45.0 | 50.0 | p50 | p90 | p95 | p99 | v4.15, v5.15: no request completed in the measured window | v4.15 | v5.15"]);
}

#[test]
fn identical_kernels_show_no_difference_beyond_noise() {
    let r = fixture("identical");
    snapshot!(r, "throughput", 0, "snapshots/identical-throughput.svg", expect_test::expect!["Hmean throughput (MB/sec), higher is better; bars ±1 stddev of 3 iterations | throughput (MB/sec) | 0.0 | 200.0 | 400.0 | 600.0 | 800.0 | 1000.0 | 1200.0 | 1400.0 | 1 | 2 | 4 | 8 | A v5.15 (2) (v5.15) | B v5.15 | % vs A (v5.15 (2)), + is better; hollow: no difference beyond noise | % vs A | client/server pairs (log scale) | -2.0% | 0% | +2.0% | 1 | 2 | 4 | 8 | no difference beyond noise"]);
}
