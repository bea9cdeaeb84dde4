//! The up-front event estimate is an upper bound: every preset, at each of its client
//! counts and kernels, processes fewer events than estimated; a run the cap would stop
//! late is refused while validating.

use schedsim::estimate::run_events;
use schedsim::experiment::Checks;

#[test]
fn presets_stay_under_the_estimate() {
    let mut worst = (0.0f64, String::new());
    for p in schedsim::presets::presets() {
        let mut e = p.experiment.clone();
        e.duration_ms = 30;
        e.warmup_ms = 0;
        e.iterations = 1;
        let r = e.validate().unwrap();
        let rep = e.run(&mut |_| true).unwrap();
        for cfg in &rep.configs {
            for pt in &cfg.points {
                let est = run_events(&e, pt.clients, r.map.nr_cpus(), &r.costs);
                let got = pt.counters.events;
                assert!(got <= est, "{} {} {}: {got} events, estimate {est}", p.name, cfg.name, pt.clients);
                // A margin of two: the bound is not merely touched.
                assert!(got * 2 <= est, "{} {} {}: {got} events, estimate {est}", p.name, cfg.name, pt.clients);
                let ratio = got as f64 / est as f64;
                if ratio > worst.0 {
                    worst = (ratio, format!("{} {} {}", p.name, cfg.name, pt.clients));
                }
            }
        }
    }
    eprintln!("highest events / estimate: {:.3} ({})", worst.0, worst.1);
}

#[test]
fn a_run_the_cap_would_stop_is_refused_up_front() {
    let mut e = schedsim::presets::experiment("seed004").unwrap();
    e.duration_ms = 600_000;
    let msg = e.validate().err().unwrap().0;
    assert!(msg.starts_with("field duration_ms: a run of 600000 ms with 128 client/server pairs"), "{msg}");
    assert!(msg.contains("upper estimate"), "{msg}");
}

/// A failure in a later run keeps the runs that finished before it.
#[test]
fn a_late_failure_keeps_the_finished_runs() {
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.duration_ms = 10;
    e.warmup_ms = 1;
    e.iterations = 1;
    let clients = e.clients.clone();
    assert!(clients.len() >= 2 && e.kernels.len() >= 2);
    // Fail inside the first kernel's second client count.
    let (rep, err) = e.run_keeping(&mut |p| !(p.runs_done == 1 && p.run_ns > 0), Checks::Off);
    let err = err.expect("the second run fails");
    assert!(err.0.contains("cancelled") && err.0.contains(&format!("with {} ", clients[1])), "{err}");
    let rep = rep.expect("the first run is kept");
    assert_eq!(rep.configs.len(), 1);
    assert_eq!(rep.configs[0].points.len(), 1);
    assert_eq!(rep.configs[0].points[0].clients, clients[0]);
    // Fail in the second kernel: the first kernel's column is whole, the table renders.
    let n = clients.len() as u32;
    let (rep, err) = e.run_keeping(&mut |p| !(p.runs_done == n + 1 && p.run_ns > 0), Checks::Off);
    assert!(err.is_some());
    let rep = rep.unwrap();
    assert_eq!(rep.configs.len(), 2);
    assert_eq!(rep.configs[0].points.len(), clients.len());
    assert_eq!(rep.configs[1].points.len(), 1);
    let table = rep.mmtests_table();
    assert!(table.contains(" - "), "{table}");
}

#[test]
fn a_sweep_costs_the_sum_of_its_runs() {
    use schedsim::estimate::{run_events, sweep_cost};
    let e = schedsim::presets::experiment("seed003-tbench").unwrap();
    let r = e.validate().unwrap();
    let c = sweep_cost(&e).unwrap();
    assert_eq!(c.runs, 2 * 10 * 3);
    let per: u64 = e.clients.iter().map(|&n| run_events(&e, n, r.map.nr_cpus(), &r.costs)).sum::<u64>() * 2;
    assert_eq!((c.first_iteration_events_max, c.events_max), (per, per * 3));
    let mut bad = e.clone();
    bad.iterations = 0;
    assert!(sweep_cost(&bad).unwrap_err().0.contains("iterations"));
}
