//! The same experiment gives byte-identical report JSON, every time; a different seed
//! gives a different one (so the test can fail).

use schedsim::presets;

fn small(name: &str) -> schedsim::Experiment {
    let mut e = presets::experiment(name).unwrap();
    e.duration_ms = 30;
    e.warmup_ms = 5;
    e.iterations = 2;
    e.clients.truncate(2);
    e
}

#[test]
fn same_experiment_same_bytes() {
    for name in ["demo", "seed001", "seed002", "seed004"] {
        let e = small(name);
        let a = e.run(&mut |_| true).unwrap().to_json();
        let b = e.run(&mut |_| true).unwrap().to_json();
        assert_eq!(a, b, "{name} is not deterministic");
        let mut e2 = e.clone();
        e2.seed += 1;
        let c = e2.run(&mut |_| true).unwrap().to_json();
        assert_ne!(a, c, "{name}: the seed changes nothing");
    }
}

#[test]
fn report_json_round_trips() {
    let r = small("demo").run(&mut |_| true).unwrap();
    let back = schedsim::Report::from_json(&r.to_json()).unwrap();
    assert_eq!(back.to_json(), r.to_json());
}

/// The mmtests raw logs: the third field of each `execute` line is a sample, as
/// mmtests' ExtractTbench4 splits it.
#[test]
fn mmtests_logs_carry_every_sample() {
    let r = small("demo").run(&mut |_| true).unwrap();
    let logs = r.mmtests_logs().unwrap();
    assert_eq!(logs.len(), r.configs.len() * r.configs[0].points.len());
    for (kernel, file, text) in &logs {
        let c = r.configs.iter().find(|c| &c.name == kernel).unwrap();
        let clients: u32 = file.trim_start_matches("tbench-").trim_end_matches(".log").parse().unwrap();
        let p = c.points.iter().find(|p| p.clients == clients).unwrap();
        let values: Vec<f64> = text
            .lines()
            .filter(|l| l.contains("execute"))
            .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
            .collect();
        let want: Vec<f64> = p.samples.iter().map(|v| (v * 100.0).round() / 100.0).collect();
        assert_eq!(values, want, "{kernel} {file}");
    }
    let mut e = small("demo");
    e.workload = schedsim::Workload::by_name("pipe").unwrap();
    assert!(e.run(&mut |_| true).unwrap().mmtests_logs().is_none());
}
