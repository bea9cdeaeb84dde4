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

/// The mmtests layout (`schedsim::mmtests`): one `benchlog-tput-N` a kernel, iteration
/// and client count, whose third field is that iteration's sample, as tbench's
/// `parse-results` splits it; a workload mmtests has no benchmark for writes nothing.
#[test]
fn mmtests_layout_carries_every_sample() {
    let r = small("demo").run(&mut |_| true).unwrap();
    let files = schedsim::mmtests::layout(&r).unwrap();
    for (k, c) in r.configs.iter().enumerate() {
        for p in &c.points {
            for (it, v) in p.samples.iter().enumerate() {
                let path = format!("iter-{it}/tbench/logs/benchlog-tput-{}", p.clients);
                let f = files.iter().find(|f| f.kernel == k && f.path == path).unwrap();
                let got: f64 = f.text.split_whitespace().nth(2).unwrap().parse().unwrap();
                assert_eq!(got, (v * 100.0).round() / 100.0, "{} {path}", c.name);
                assert!(f.xz);
            }
        }
    }
    let mut e = small("demo");
    e.workload = schedsim::Workload::by_name("schbench").unwrap();
    assert!(schedsim::mmtests::layout(&e.run(&mut |_| true).unwrap()).is_err());
}
