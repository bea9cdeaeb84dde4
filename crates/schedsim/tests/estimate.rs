//! The up-front event estimates: the bound validation refuses on ([`run_events_max`])
//! is above every preset's runs, at each of its client counts and kernels, so that a run
//! the cap would stop late is refused while validating; the central estimate
//! ([`run_events`]) tracks what the runs process.

use schedsim::estimate::{run_events, run_events_max};
use schedsim::experiment::Checks;

/// Every preset's runs (30 ms, at its own client counts) stay under the bound validation
/// refuses on, [`run_events_max`].
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
                let est = run_events_max(&e, pt.clients, &r.map, &r.costs);
                let got = pt.counters.events;
                assert!(got <= est, "{} {} {}: {got} events, bound {est}", p.name, cfg.name, pt.clients);
                let ratio = got as f64 / est as f64;
                if ratio > worst.0 {
                    worst = (ratio, format!("{} {} {}", p.name, cfg.name, pt.clients));
                }
            }
        }
    }
    eprintln!("highest events / bound: {:.3} ({})", worst.0, worst.1);
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
    use schedsim::estimate::sweep_cost;
    let e = schedsim::presets::experiment("seed003-tbench").unwrap();
    let r = e.validate().unwrap();
    let c = sweep_cost(&e).unwrap();
    assert_eq!(c.runs, 2 * 10 * 3);
    let per: u64 =
        e.kernels.iter().flat_map(|k| e.clients.iter().map(|&n| run_events(&e, k, n, &r.map, &r.costs))).sum();
    let per_max: u64 = e.clients.iter().map(|&n| run_events_max(&e, n, &r.map, &r.costs)).sum::<u64>() * 2;
    assert_eq!((c.first_iteration_events, c.events, c.events_max), (per, per * 3, per_max * 3));
    let mut bad = e.clone();
    bad.iterations = 0;
    assert!(sweep_cost(&bad).unwrap_err().0.contains("iterations"));
}

/// An overloaded CPU's events cost in proportion to its queue (issue 42: 8,192 tbench
/// pairs on one CPU for 10 s were estimated at 0.2 s and took 10.8 s); a machine with
/// a CPU per task is not weighted.
#[test]
fn an_overloaded_cpu_weighs_its_events_by_its_queue() {
    use schedsim::estimate::sweep_cost;
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.machine = serde_json::from_str(r#"{"topology": "1x1x1x1"}"#).unwrap();
    e.kernels.truncate(1);
    (e.clients, e.iterations, e.duration_ms, e.warmup_ms) = (vec![8192], 1, 10_000, 1_000);
    let c = sweep_cost(&e).unwrap();
    assert!(c.cpu_ms() >= 5_000, "{} ms for {} events", c.cpu_ms(), c.events);
    // What the events alone said (the estimate before the weight).
    assert!(schedsim::estimate::SweepCost::cpu_ms_of(c.events) < 1_000, "{}", c.events);
    assert_eq!(c.first_iteration_cpu_ms(), c.cpu_ms());
    e.machine = serde_json::from_str(r#"{"topology": "1x1x16x1"}"#).unwrap();
    e.clients = vec![8];
    let c = sweep_cost(&e).unwrap();
    assert_eq!((c.weighted_events, c.cpu_ms()), (c.events, schedsim::estimate::SweepCost::cpu_ms_of(c.events)));
}

/// A policy script over a 1,024-CPU LLC (issue 42): the events alone said a tenth of a
/// second for runs the script made last a second or more each (minutes for a sweep of
/// them), and nothing in the estimate knew of scripts. Each script here (a scan of the LLC
/// with a helper a CPU, a list of the LLC taken eight times, a plain loop) runs on
/// 16 tbench pairs for 20 ms; the operations its run counted (`take_ops_counted`,
/// deterministic) must be within the estimate's bound ([`script_ops_max`]), and their
/// CPU time at [`SCRIPT_NS_PER_OP`] within the estimated CPU time, which the events
/// alone are far below. The wall time of each run, with and without the script, is
/// printed (`--nocapture`), not tested: `SCRIPT_NS_PER_OP`'s source is these runs timed
/// in a release build.
#[cfg(feature = "policy")]
#[test]
fn a_script_over_a_big_llc_is_charged_its_operations() {
    use schedsim::estimate::{script_ops_max, sweep_cost, SweepCost, SCRIPT_NS_PER_OP};
    let scripts = [
        ("scan", "let n = 0;\n  for c in llc_cpus(target) {\n    if idle_cpu(c) { n += 1; }\n  }"),
        ("lists", "for i in 0..8 {\n    let a = llc_cpus(target);\n  }"),
        ("loop", "let s = 0;\n  for k in 0..500 { s += k; }"),
    ];
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.machine = serde_json::from_str(r#"{"topology": "1x1x512x2"}"#).unwrap();
    (e.clients, e.iterations, e.duration_ms, e.warmup_ms) = (vec![16], 1, 20, 0);
    e.kernels.truncate(1);
    e.kernels[0].policy = None;
    let timed = |e: &schedsim::Experiment| {
        let t = std::time::Instant::now();
        let rep = e.run(&mut |_| true).unwrap();
        (t.elapsed(), rep.configs[0].points[0].counters.wakeups)
    };
    let (plain, _) = timed(&e);
    let r = e.validate().unwrap();
    for (name, body) in scripts {
        let mut e = e.clone();
        e.kernels[0].policy = Some(format!("fn select_idle_sibling(p, prev, target) {{\n  {body}\n  target\n}}"));
        let c = sweep_cost(&e).unwrap();
        let _ = schedsim::policy::take_ops_counted();
        let (wall, wakeups) = timed(&e);
        let ops = schedsim::policy::take_ops_counted();
        let bound = script_ops_max(&e, &e.kernels[0], 16, &r.map, &r.costs);
        let extra_ns = wall.saturating_sub(plain).as_nanos() as u64;
        eprintln!(
            "{name}: {wakeups} wakeups, {ops} script operations ({} a wakeup), bound {bound}; {wall:?} with the \
             script, {plain:?} without: {} ns an operation; estimated {} ms ({} ms of events alone), \
             SCRIPT_NS_PER_OP {SCRIPT_NS_PER_OP}",
            ops / wakeups.max(1),
            extra_ns / ops.max(1),
            c.cpu_ms(),
            SweepCost::cpu_ms_of(c.weighted_events),
        );
        assert!(ops > 1_000_000, "{name}: {ops} operations: the script did not run as meant");
        assert_eq!(c.script_ops, bound, "{name}: one run");
        assert!(ops <= bound, "{name}: {ops} operations past the bound {bound}");
        assert!(
            c.cpu_ms() >= SweepCost::script_cpu_ms_of(ops),
            "{name}: estimated {} ms, the run's script alone {} ms at {SCRIPT_NS_PER_OP} ns an operation",
            c.cpu_ms(),
            SweepCost::script_cpu_ms_of(ops)
        );
    }
}

/// Client counts over which the estimate is checked: each preset's own, and from one to
/// well past its machine (the guard of issue 31 refused 5,000 tbench pairs that run).
fn client_range(e: &schedsim::Experiment) -> Vec<u32> {
    use schedsim::Workload as W;
    let mut v: Vec<u32> = match e.workload {
        W::Tbench(_) => vec![1, 8, 64, 512, 5000],
        W::Dbench(_) => vec![1, 16, 128, 512],
        W::Memcache(_) => vec![1, 40, 200, 800],
        W::Pipe(_) => vec![1, 16, 256],
        W::Hackbench(_) => vec![1, 8, 32],
        W::Schbench(_) => vec![1, 8, 64],
        W::Replay(_) | W::Rtapp(_) => vec![1, 4],
    };
    v.extend(e.clients.iter().copied());
    v.sort_unstable();
    v.dedup();
    v
}

/// (preset, kernel, clients, estimated, actual events) over every preset's first and last
/// kernel and [`client_range`], 100 ms runs without warm-up.
fn estimated_vs_actual() -> Vec<Row> {
    let mut rows = Vec::new();
    for p in schedsim::presets::presets() {
        let mut e = p.experiment.clone();
        // A replay runs its trace's span; the others 100 ms.
        if !matches!(e.workload, schedsim::Workload::Replay(_)) {
            e.duration_ms = 100;
        }
        e.warmup_ms = 0;
        e.iterations = 1;
        e.clients = client_range(&e);
        if e.kernels.len() > 2 {
            e.kernels = vec![e.kernels[0].clone(), e.kernels.last().unwrap().clone()];
        }
        let r = e.validate().unwrap();
        let rep = e.run(&mut |_| true).unwrap();
        for cfg in &rep.configs {
            let kernel = e.kernels.iter().find(|k| k.name == cfg.name).unwrap();
            for pt in &cfg.points {
                rows.push(Row {
                    preset: p.name.to_string(),
                    kernel: cfg.name.clone(),
                    clients: pt.clients,
                    estimate: run_events(&e, kernel, pt.clients, &r.map, &r.costs),
                    bound: run_events_max(&e, pt.clients, &r.map, &r.costs),
                    events: pt.counters.events,
                    wakeups: pt.counters.wakeups,
                });
            }
        }
    }
    rows
}

/// One run of the table: the central estimate, the bound validation refuses on, and
/// what the run processed.
struct Row {
    preset: String,
    kernel: String,
    clients: u32,
    estimate: u64,
    bound: u64,
    events: u64,
    wakeups: u64,
}

/// The table of estimated against actual events, printed (`--nocapture`), with the
/// rows whose central estimate is more than `band` times off either way, and those
/// above the bound.
fn check_band(band: f64) -> (Vec<String>, Vec<String>) {
    let rows = estimated_vs_actual();
    eprintln!(
        "{:<18} {:<12} {:>7} {:>12} {:>12} {:>6} {:>12} {:>6} {:>10} {:>6}",
        "preset", "kernel", "clients", "estimated", "actual", "ratio", "bound", "b/act", "wakeups", "ev/wk"
    );
    let (mut under, mut off) = (Vec::new(), Vec::new());
    let mut worst: Vec<(String, f64)> = Vec::new();
    for Row { preset: p, kernel: k, clients: c, estimate: est, bound, events: got, wakeups: wk } in &rows {
        let ratio = *est as f64 / (*got).max(1) as f64;
        let b = *bound as f64 / (*got).max(1) as f64;
        let per_wakeup = *got as f64 / (*wk).max(1) as f64;
        eprintln!(
            "{p:<18} {k:<12} {c:>7} {est:>12} {got:>12} {ratio:>6.2} {bound:>12} {b:>6.2} {wk:>10} {per_wakeup:>6.2}"
        );
        let off_by = ratio.max(1.0 / ratio);
        match worst.iter_mut().find(|(n, _)| n == p) {
            Some(w) => w.1 = w.1.max(off_by),
            None => worst.push((p.clone(), off_by)),
        }
        if got > bound {
            under.push(format!("{p} {k} {c}: bound {bound}, actual {got}"));
        }
        if off_by > band {
            off.push(format!("{p} {k} {c}: estimated {est}, actual {got} ({ratio:.2}x)"));
        }
    }
    eprintln!("worst factor per preset (estimate against actual, either way): {worst:.2?}");
    (under, off)
}

/// The cap's refusal relies on [`run_events_max`] being an upper bound: over every
/// preset and a range of client counts (well past each machine), no run processes more
/// events than it. The central estimate ([`run_events`]), given each run's kernel,
/// tracks every run within 3 times either way (the test below); `--nocapture` prints
/// the table.
#[test]
fn the_estimate_bounds_every_run_and_tracks_the_cpus() {
    let (under, off) = check_band(3.0);
    assert!(under.is_empty(), "runs above the bound: {under:#?}");
    assert!(off.is_empty(), "more than 3x off: {off:#?}");
}

/// Issue 31's case: 5,000 tbench pairs for 200 ms ran in 1.2 s natively but were refused
/// as "about 2.1e9 events"; now they run: the bound validation uses is within 3.5 times
/// of what they do, the central estimate within 1.1.
#[test]
fn five_thousand_tbench_pairs_are_not_refused() {
    let mut e = schedsim::presets::experiment("seed003-tbench").unwrap();
    e.clients = vec![5000];
    e.duration_ms = 200;
    let r = e.validate().expect("5000 pairs x 200 ms validate");
    let bound = run_events_max(&e, 5000, &r.map, &r.costs);
    assert!(bound < 5_000_000, "{bound}");
    let est = run_events(&e, &e.kernels[0], 5000, &r.map, &r.costs);
    assert!((800_000..1_400_000).contains(&est), "{est}");
}

/// The band of issue 31: the central estimate within 3 times of every run's events,
/// either way. The worst row is 2.0x over: seed001's 8 pairs under v3.8 on 10 cores,
/// where the estimate charges warm wakeups (at most twice as many cores as pairs: the
/// group walk's next idle core was left one operation ago) while the run reaches C1E
/// and C6 now and then; then tbench at 64 pairs on 80 CPUs (1.9x, SMT siblings sharing
/// cores). seed001's single pair under v3.8, 7.1x over when the estimate did not know
/// the kernel (47,537 against 6,705 events in 100 ms), is now 0.79x (5,278): v3.8's
/// `select_idle_sibling()` without sis-prev-idle walks the LLC for the first group with
/// every CPU idle after the waker's, so the lone pair goes round Westmere's 10 cores,
/// each idle 9 operations, long enough for C6 (800 us target residency), and each
/// wakeup pays C6's 200 us exit; the estimate charges the deepest state that idle time
/// sustains, from the machine's idle states (`Machine::walked_wake_ns`), where the
/// kernel's wakeup path passes over the wakee's warm prev. The same pair under
/// prev-idle stays at 1.11x (47,537 against 42,703).
#[test]
fn the_estimate_tracks_the_events_within_three_times() {
    let (under, off) = check_band(3.0);
    assert!(under.is_empty() && off.is_empty(), "{under:#?} {off:#?}");
}
