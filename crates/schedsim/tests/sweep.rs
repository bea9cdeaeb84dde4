//! A sweep run one run at a time, in any order, assembles the report `Experiment::run`
//! makes, byte for byte; partial reports show what is in so far.

use schedsim::experiment::Checks;
use schedsim::{presets, Experiment, RunResult, Sweep};

fn small(name: &str) -> Experiment {
    let mut e = presets::experiment(name).unwrap();
    e.duration_ms = 30;
    e.warmup_ms = 5;
    e.iterations = 3;
    e.clients.truncate(3);
    e
}

/// A fixed permutation that is neither the report order nor its reverse.
fn scramble<T>(mut v: Vec<T>) -> Vec<T> {
    let n = v.len();
    let mut out = Vec::with_capacity(n);
    let mut i = 0usize;
    while !v.is_empty() {
        i = (i + 7) % v.len();
        out.push(v.remove(i));
    }
    out
}

fn all_results(s: &Sweep) -> Vec<RunResult> {
    s.runs().into_iter().map(|id| s.run(id, &mut |_| true, Checks::Off).unwrap()).collect()
}

#[test]
fn any_order_gives_the_bytes_of_experiment_run() {
    for name in ["demo", "seed002", "seed004"] {
        let e = small(name);
        let want = e.run(&mut |_| true).unwrap().to_json();
        let s = Sweep::new(&e).unwrap();
        assert_eq!(s.runs().len() as u32, s.runs_total());
        let results = all_results(&s);
        for order in [results.clone(), results.iter().rev().cloned().collect(), scramble(results.clone())] {
            let mut b = s.builder();
            for r in order {
                // Results cross to the page's workers as JSON: they must survive it.
                let back: RunResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
                assert_eq!(back, r);
                b.add(back).unwrap();
            }
            assert!(b.is_complete());
            assert_eq!(b.report().unwrap().to_json(), want, "{name}");
            assert_eq!(b.partial_report().to_json(), want, "{name}: a complete partial report is the report");
        }
    }
}

#[test]
fn partial_reports_grow_by_client_count_with_every_kernel() {
    let e = small("seed004");
    let s = Sweep::new(&e).unwrap();
    let nk = e.kernels.len();
    assert!(nk >= 2);
    let order = s.runs_by_iteration();
    // Iteration 0 of everything comes first, every kernel at one client count together.
    assert!(order[..nk * e.clients.len()].iter().all(|r| r.iteration == 0));
    assert!(order[..nk].iter().all(|r| r.point == 0));
    let mut b = s.builder();
    assert_eq!(b.partial_report().configs.len(), nk);
    assert!(b.partial_report().configs.iter().all(|c| c.points.is_empty()));
    for (i, id) in order.iter().enumerate() {
        b.add(s.run(*id, &mut |_| true, Checks::Off).unwrap()).unwrap();
        let p = b.partial_report();
        let shown = b.points_shown() as usize;
        assert_eq!(p.configs.iter().map(|c| c.points.len()).sum::<usize>(), shown);
        // Every kernel shows the same client counts.
        let clients: Vec<Vec<u32>> = p.configs.iter().map(|c| c.points.iter().map(|x| x.clients).collect()).collect();
        assert!(clients.iter().all(|c| *c == clients[0]), "{clients:?}");
        if i + 1 < nk {
            assert_eq!(shown, 0, "a client count shows once every kernel has a run at it");
        }
        if i + 1 == nk {
            assert_eq!(shown, nk);
            assert!(p.configs.iter().all(|c| c.points[0].samples.len() == 1));
        }
        if i + 1 == nk * e.clients.len() {
            // The whole shape, one iteration each.
            assert_eq!(shown, nk * e.clients.len());
            assert!(p.configs.iter().all(|c| c.points.iter().all(|x| x.samples.len() == 1)));
        }
    }
    assert!(b.partial_report().configs.iter().all(|c| c.points.iter().all(|x| x.samples.len() == 3)));
}

#[test]
fn builder_refuses_duplicates_strangers_and_early_reports() {
    let e = small("demo");
    let s = Sweep::new(&e).unwrap();
    let mut b = s.builder();
    let r = s.run(s.runs()[0], &mut |_| true, Checks::Off).unwrap();
    b.add(r.clone()).unwrap();
    assert!(b.add(r.clone()).unwrap_err().0.contains("given twice"));
    assert!(b.report().unwrap_err().0.contains("1 of"));
    let mut stranger = r.clone();
    stranger.run.iteration = e.iterations;
    assert!(b.add(stranger).unwrap_err().0.contains("outside the sweep"));
    let mut bad = r;
    bad.run.iteration = 1;
    bad.wakeup_latency.push((1 << 20, 1));
    assert!(b.add(bad).unwrap_err().0.contains("wakeup_latency: bucket"));
    assert_eq!(b.runs_done(), 1);
    let mut id = s.runs()[0];
    id.kernel = 99;
    assert!(s.run(id, &mut |_| true, Checks::Off).unwrap_err().0.contains("outside the sweep"));
}

#[test]
fn a_run_result_is_small() {
    // Dense, the two latency histograms are 128 KiB; a run's result carries the non-empty
    // buckets only, well under a quarter of that even as JSON (a busy memcache-like run,
    // whose request latencies spread widest, needed 17 to 26 KB when this was written).
    let mut e = presets::experiment("seed002").unwrap();
    e.duration_ms = 100;
    e.warmup_ms = 10;
    e.iterations = 1;
    let s = Sweep::new(&e).unwrap();
    for id in s.runs() {
        let r = s.run(id, &mut |_| true, Checks::Off).unwrap();
        assert!(r.counters.wakeups > 1000);
        let bytes = serde_json::to_string(&r).unwrap().len();
        assert!(bytes < 32 * 1024, "{id:?}: {bytes} bytes");
    }
}

#[test]
fn cancelling_a_run_says_so() {
    let e = small("demo");
    let s = Sweep::new(&e).unwrap();
    let err = s.run(s.runs()[0], &mut |_| false, Checks::Off).unwrap_err();
    assert!(err.0.contains("cancelled"), "{err}");
}

/// A run's result says how often each patch switched on took its own branch: the seed's
/// patch on its own benchmark does, wake-affine-prev-rfc under tbench (sync wakeups from
/// a busy waker) never does, and a run that switches no patch on carries nothing.
#[test]
fn a_run_counts_the_patched_branches_it_took() {
    use schedsim::{KernelSpec, KernelVersion, Switch};
    let mut e = schedsim::presets::experiment("seed003-tbench").unwrap();
    e.clients = vec![8];
    e.duration_ms = 20;
    e.warmup_ms = 2;
    e.iterations = 1;
    e.kernels = vec![
        KernelSpec::new("plain", KernelVersion::V5_14),
        KernelSpec::new("recent", KernelVersion::V5_14).with(Switch::RecentUsedPrev, true),
        KernelSpec::new("rfc", KernelVersion::V5_15).with(Switch::WakeAffinePrevRfc, true),
    ];
    let s = schedsim::Sweep::new(&e).unwrap();
    let run = |k| {
        s.run(schedsim::RunId { kernel: k, point: 0, iteration: 0 }, &mut |_| true, schedsim::experiment::Checks::Off)
            .unwrap()
    };
    let (plain, recent, rfc) = (run(0), run(1), run(2));
    assert!(plain.patched.is_empty(), "{:?}", plain.patched);
    assert!(!serde_json::to_string(&plain).unwrap().contains("patched"));
    assert_eq!(recent.patched.len(), 1);
    assert_eq!(recent.patched[0].0, Switch::RecentUsedPrev);
    assert!(recent.patched[0].1 > 0, "{:?}", recent.patched);
    // Only the switches the kernel turns on are listed (not v5.15's own patches).
    assert_eq!(rfc.patched, [(Switch::WakeAffinePrevRfc, 0)]);
    // The report does not carry the counts: its bytes are as they were.
    assert!(!e.run(&mut |_| true).unwrap().to_json().contains("patched"));
}
