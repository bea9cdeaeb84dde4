//! One test per seed patch: the built-in experiment (`schedsim run <preset>`) must
//! show the seed's result in direction and rough size, with the same cost model for
//! every seed. Where the model cannot reach a seed, the test that asserts the seed's
//! size is `#[ignore]`d with what the model lacks (see docs/seeds.md); run them with
//! `cargo test -p schedsim --test seeds -- --ignored`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use schedsim::metrics::Counters;
use schedsim::report::Report;

/// The preset's report, run once per test binary: several tests read the same
/// preset (seed003-tbench alone is half a minute of simulation).
fn run(name: &str) -> Arc<Report> {
    static CACHE: Mutex<BTreeMap<String, Arc<OnceLock<Arc<Report>>>>> = Mutex::new(BTreeMap::new());
    let cell = CACHE.lock().unwrap().entry(name.to_string()).or_default().clone();
    cell.get_or_init(|| Arc::new(schedsim::presets::experiment(name).unwrap().run(&mut |_| true).unwrap())).clone()
}

fn summary(r: &Report, k: usize, clients: u32) -> f64 {
    let p = r.configs[k].points.iter().find(|p| p.clients == clients).unwrap();
    p.summary(&r.metric)
}

fn total(r: &Report, k: usize) -> Counters {
    r.configs[k].total()
}

/// Seed 001: one tbench pair, 10-core SMT package: 15.22 -> 252.01 MB/s (16.6x).
#[test]
fn seed001_prev_idle_gives_at_least_4x() {
    let r = run("seed001");
    let (off, on) = (summary(&r, 0, 1), summary(&r, 1, 1));
    assert!(on >= 4.0 * off, "sis-prev-idle off {off:.2} MB/s, on {on:.2} MB/s");
    // And the mechanism: off migrates on nearly every wakeup, on almost never.
    let (m0, m1) = (total(&r, 0), total(&r, 1));
    assert!(m0.migrations * 2 > m0.wakeups, "{m0:?}");
    assert!(m1.migrations * 20 < m1.wakeups, "{m1:?}");
}

/// Seed 000 with the seed's own kernels: "noirq" (4.15-rc3 + 7332dec055f2) against
/// "wakeprev" (+ RFC 2/4 as posted). The mechanism the mail describes: wake_affine()
/// now returns prev when it is idle, so the patched kernel reports many more affine
/// decisions (each a "stay on prev" the old boolean could not say).
#[test]
fn seed000_rfc_keeps_idle_prev_through_wake_affine() {
    let r = run("seed000");
    let (a0, a1) = (total(&r, 0).affine_moves, total(&r, 1).affine_moves);
    assert!(a1 > 5 * a0, "affine decisions {a0} -> {a1}");
}

/// The seed: within a few percent at the highest client counts (-1.3% / +1.8%).
#[test]
fn seed000_top_counts_within_5pct() {
    let r = run("seed000");
    for c in [64, 128] {
        let (a, b) = (summary(&r, 0, c), summary(&r, 1, c));
        assert!((b - a).abs() / a < 0.05, "{c} clients: {a:.1} -> {b:.1}");
    }
}

/// The seed: +6.2 / +5.3 / +1.3% at 2/4/8 clients.
#[test]
#[ignore = "model gap: +7.5 / -11.0 / -1.0% at 2/4/8 clients, dominated by which socket a client runs on (bimodal: pulled to the interrupt CPU on every read completion, or completing locally); see docs/seeds.md"]
fn seed000_gains_at_2_to_8_clients() {
    let r = run("seed000");
    let d: Vec<f64> = [2, 4, 8].iter().map(|&c| summary(&r, 1, c) / summary(&r, 0, c) - 1.0).collect();
    assert!(d.iter().all(|&x| x >= 0.0) && d.iter().sum::<f64>() / 3.0 >= 0.01, "{d:?}");
}

/// The seed: -5.5 / -5.4% at 16/32 clients: no better than +2% there.
#[test]
fn seed000_no_gain_at_16_and_32() {
    let r = run("seed000");
    for c in [16, 32] {
        let (a, b) = (summary(&r, 0, c), summary(&r, 1, c));
        assert!(b <= a * 1.02, "{c} clients: {a:.1} -> {b:.1}");
    }
}

/// The seed: system time 5729 -> 5288 s (-7.7%); at least 3% lower.
#[test]
#[ignore = "model gap: system time -0.3% with the seed's exact kernels; the RFC's CPU-1 targets make the patched kernel scan more; see docs/seeds.md"]
fn seed000_system_time_at_least_3pct_lower() {
    let r = run("seed000");
    let (s0, s1) = (total(&r, 0).system_ns as f64, total(&r, 1).system_ns as f64);
    assert!(s1 <= s0 * 0.97, "system time {s0} -> {s1}");
}

/// Seed 002, what the model reaches: with two workers per CPU the patch skips newidle
/// for workers woken while going to sleep, but the unpatched kernel's `avg_idle` gate
/// already stops nearly every newidle entry there, so there is no pass to save.
#[test]
fn seed002_skip_pending_skips_at_two_workers_per_cpu() {
    let r = run("seed002");
    let at = |k: usize| r.configs[k].points.iter().find(|p| p.clients == 160).unwrap().counters.clone();
    let (a, b) = (at(0), at(1));
    assert!(
        a.newidle_skipped_pending == 0 && b.newidle_skipped_pending > 1000,
        "skips {} -> {}",
        a.newidle_skipped_pending,
        b.newidle_skipped_pending
    );
    assert!(
        a.newidle_gate_avg_idle * 100 >= a.newidle_calls * 99,
        "avg_idle gate {} of {}",
        a.newidle_gate_avg_idle,
        a.newidle_calls
    );
}

/// Seed 002: memcache-like: ~2% less CPU, p95/p99 response -10%.
#[test]
#[ignore = "model gap: no CPU or tail-latency gain: the avg_idle gate already stops almost every newidle pass at this load; see docs/seeds.md"]
fn seed002_skip_pending_saves_cpu_and_tail_latency() {
    let r = run("seed002");
    let busy = |k: usize| {
        let t = total(&r, k);
        (t.user_ns + t.system_ns) as f64
    };
    assert!(busy(1) <= busy(0) * 0.99, "CPU {} -> {}", busy(0), busy(1));
    for p in 0..r.configs[0].points.len() {
        let (a, b) = (&r.configs[0].points[p].request_latency, &r.configs[1].points[p].request_latency);
        assert!(b.p95_ns as f64 <= a.p95_ns as f64 * 0.95 && b.p99_ns as f64 <= a.p99_ns as f64 * 0.95);
    }
}

/// `x` within a factor of two of the seed's `seed`.
fn within_2x(x: f64, seed: f64) -> bool {
    x >= seed / 2.0 && x <= seed * 2.0
}

fn recent_pct(r: &Report, k: usize) -> f64 {
    total(r, k).recent_hit_pct()
}

/// Seed 003: recent_used_cpu hit rate, pipe 57 -> 85%.
#[test]
fn seed003_pipe_hit_rate() {
    let r = run("seed003-pipe");
    let (off, on) = (recent_pct(&r, 0), recent_pct(&r, 1));
    assert!(on >= 70.0 && on >= off + 15.0, "pipe recent_used_cpu hit rate {off:.1}% -> {on:.1}%");
}

/// Seed 003: hackbench 0.21 -> 6.64%.
#[test]
fn seed003_hackbench_hit_rate_rises() {
    let r = run("seed003-hackbench");
    let (off, on) = (recent_pct(&r, 0), recent_pct(&r, 1));
    assert!(on > off, "hackbench hit rate {off:.2}% -> {on:.2}%");
}

/// Seed 003: tbench ~0 -> 25% overall, highest at low thread counts, ~0 at saturation.
/// The baseline's rate rests on almost no attempts (its waker overwrites the wakee's
/// recent_used_cpu), so compare hits, then the patched kernel's shape.
#[test]
fn seed003_tbench_hit_rate_shape() {
    let r = run("seed003-tbench");
    let (off, on) = (total(&r, 0), total(&r, 1));
    assert!(
        on.sis_recent_hits > 10 * (off.sis_recent_hits + 1),
        "tbench hits {} -> {}",
        off.sis_recent_hits,
        on.sis_recent_hits
    );
    let per: Vec<f64> = r.configs[1].points.iter().map(|p| p.counters.recent_hit_pct()).collect();
    let first = per[0].max(per[1]);
    let last = *per.last().unwrap();
    assert!(first >= per.iter().copied().fold(0.0, f64::max) - 1e-9, "highest at low counts: {per:?}");
    assert!(last < 5.0, "near zero at saturation: {per:?}");
}

/// Seed 003, with the patch: pipe 85.32%, tbench 25.42%, each within a factor of two.
/// tbench runs mmtests' client series for 80 CPUs (1 to 320 pairs): the seed's rate is
/// the counters' total over that series. Hackbench's 6.64% is the steady-state test's
/// below: the preset's short runs count 150 to 7,000 attempts a kernel, and a change of
/// trajectory alone moves their rate by half (the `voluntary` model of the machine,
/// which moves a preemption from the end of the wakeup to the waker's next step, at the
/// same instant, so that the random draws come in another order: 4.26% -> 2.65%).
#[test]
fn seed003_patched_hit_rates_within_a_factor_of_two() {
    for (preset, seed_on) in [("seed003-pipe", 85.32), ("seed003-tbench", 25.42)] {
        let on = recent_pct(&run(preset), 1);
        assert!(within_2x(on, seed_on), "{preset}: patched hit rate {on:.2}%, seed {seed_on}%");
    }
}

/// Seed 003, hackbench in steady state: the seed's rates (0.21% -> 6.64%) are mmtests'
/// whole series (1 to 296 groups, 10,000 loops each), whose work-weighted median is 203
/// groups. The preset's 100-loop runs are dominated by start-up and finish, when CPUs
/// idle; here one run of 203 groups with 1,000 loops per kernel, each within a factor
/// of two of the seed (measured 0.17% -> 4.51%).
#[test]
fn seed003_hackbench_steady_state_within_a_factor_of_two() {
    let mut e = schedsim::presets::experiment("seed003-hackbench").unwrap();
    e.workload = serde_json::from_str(r#"{"kind":"hackbench","loops":1000}"#).unwrap();
    e.clients = vec![203];
    e.iterations = 1;
    e.duration_ms = 20_000;
    e.warmup_ms = 0;
    let rates: Vec<(f64, u64)> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..2)
            .map(|k| {
                let mut one = e.clone();
                one.kernels = vec![e.kernels[k].clone()];
                s.spawn(move || {
                    let r = one.run(&mut |_| true).unwrap();
                    assert!(r.configs[0].points[0].finished, "203 groups did not finish in 20 s");
                    let t = r.configs[0].total();
                    (t.recent_hit_pct(), t.sis_recent_attempts)
                })
            })
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ((off, a_off), (on, a_on)) = (rates[0], rates[1]);
    eprintln!("hackbench 203 groups, 1,000 loops: {off:.2}% -> {on:.2}% ({a_off} / {a_on} attempts)");
    assert!(a_off > 0 && a_on > 0, "attempts {a_off} / {a_on}");
    assert!(within_2x(off, 0.21) && within_2x(on, 6.64), "hackbench 203 groups, 1,000 loops: {off:.2}% -> {on:.2}%");
}

/// Seed 003 without the patch: pipe 57.14%, tbench "almost 0%" (hackbench: the
/// steady-state test above).
#[test]
#[ignore = "model gap: pipe n/a (no attempt: the pair's recent_used_cpu is always prev; the seed's 57.14% is 4 of 7 attempts, wakeups that are not the benchmark's), tbench 29.5% of 44 attempts in 7.0M wakeups (attempts only after balancer moves, which hit); see docs/seeds.md"]
fn seed003_unpatched_hit_rates_within_a_factor_of_two() {
    for (preset, seed_off) in [("seed003-pipe", 57.14), ("seed003-tbench", 0.5)] {
        let r = run(preset);
        let off = recent_pct(&r, 0);
        assert!(
            total(&r, 0).sis_recent_attempts > 0 && within_2x(off, seed_off),
            "{preset}: unpatched hit rate {off:.2}%"
        );
    }
}

/// Seed 004: tbench 128 on 2x EPYC: tip 1.00, SHARED_RUNQ+1-2 0.41, full series 1.01.
/// What the model reaches: patches 1-2 cost at least a fifth of tip's throughput, and
/// the flag wins most of it back by cutting the pops that pull freshly woken tasks.
#[test]
fn seed004_shared_runq_loses_and_the_flag_wins_most_back() {
    let r = run("seed004");
    let (tip, srq, full) = (summary(&r, 0, 128), summary(&r, 1, 128), summary(&r, 2, 128));
    assert!(srq <= 0.8 * tip, "patches 1-2 at most 0.8 of tip: tip {tip:.0}, shared_runq {srq:.0}");
    assert!(full >= tip * 0.9, "full series within 10% of tip: {tip:.0} vs {full:.0}");
    let (s, o) = (total(&r, 1), total(&r, 2));
    assert!(
        s.shared_runq_pulled > 5 * o.shared_runq_pulled,
        "pulls {} vs {}",
        s.shared_runq_pulled,
        o.shared_runq_pulled
    );
    assert!(s.shared_runq_pops > 5 * o.shared_runq_pops, "pops {} vs {}", s.shared_runq_pops, o.shared_runq_pops);
}

#[test]
fn seed004_full_series_within_5pct_of_tip() {
    let r = run("seed004");
    let (tip, full) = (summary(&r, 0, 128), summary(&r, 2, 128));
    assert!(full >= tip * 0.95, "full series within 5% of tip: {tip:.0} vs {full:.0}");
}

/// The generated part of `docs/seeds.md`: every preset's mmtests table as this build
/// makes it, between the two markers, so a change that moves a seed's numbers shows
/// in the diff of the doc and cannot drift from it. `UPDATE_EXPECT=1 cargo test -p
/// schedsim --test seeds docs_seeds` (or `scripts/seed-numbers.sh`) rewrites it.
#[test]
fn docs_seeds_md_has_every_presets_numbers() {
    const BEGIN: &str = "<!-- generated by tests/seeds.rs: begin -->";
    const END: &str = "<!-- generated by tests/seeds.rs: end -->";
    let names: Vec<&str> = schedsim::presets::presets().iter().map(|p| p.name).collect();
    // Two at a time: the presets run in the cache shared with the other tests.
    std::thread::scope(|s| {
        for pair in names.chunks(names.len().div_ceil(2)) {
            s.spawn(move || pair.iter().for_each(|n| drop(run(n))));
        }
    });
    let mut gen = String::new();
    for n in &names {
        let e = schedsim::presets::experiment(n).unwrap();
        gen.push_str(&format!(
            "\n### {n}\n\n`schedsim run {n}`: {} iterations of {} ms, seed {}.\n\n```\n{}```\n",
            e.iterations,
            e.duration_ms,
            e.seed,
            run(n).mmtests_table()
        ));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/seeds.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/seeds.md lacks the markers {BEGIN} and {END}")
    };
    let want = format!("{}{BEGIN}\n{gen}\n{}", &doc[..a], &doc[b..]);
    if want != doc {
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, &want).unwrap();
        } else {
            let old = &doc[a..b];
            let first = old.lines().zip(format!("{BEGIN}\n{gen}\n").lines()).position(|(x, y)| x != y);
            panic!(
                "docs/seeds.md's generated numbers differ from this build's (first differing line {first:?} of the \
                 section); run UPDATE_EXPECT=1 cargo test -p schedsim --test seeds docs_seeds and say in the commit \
                 which seed moved and why"
            );
        }
    }
}
