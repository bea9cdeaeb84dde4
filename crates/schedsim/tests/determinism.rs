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
