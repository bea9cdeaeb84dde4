//! The Perfetto export is valid Chrome trace-event JSON and its events match the run:
//! one wakeup instant per counted wakeup, one migration instant per counted migration,
//! every flow end has its start, slices on a CPU never overlap.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn trace_matches_the_run() {
    for (preset, kernel, clients) in [("demo", 1, 4), ("seed001", 0, 1), ("seed000", 1, 8)] {
        let mut e = schedsim::presets::experiment(preset).unwrap();
        e.warmup_ms = 0;
        e.duration_ms = 20;
        let t = e.perfetto(kernel, clients, 0, 0, u64::MAX).unwrap();
        let doc: Value = serde_json::from_str(&t.json).unwrap();
        let evs = doc["traceEvents"].as_array().unwrap();
        assert_eq!(evs.len(), t.events);
        let cpus = e.machine.resolve().unwrap().map.nr_cpus() as u64;
        let mut wakeups = 0;
        let mut migrations = 0;
        let mut starts = BTreeSet::new();
        let mut ends = Vec::new();
        let mut slices: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
        for ev in evs {
            let ph = ev["ph"].as_str().unwrap();
            assert_eq!(ev["pid"], 1);
            match ph {
                "M" => assert!(ev["args"].is_object()),
                "X" => {
                    let (ts, dur) = (ev["ts"].as_f64().unwrap(), ev["dur"].as_f64().unwrap());
                    assert!(ts >= 0.0 && dur >= 0.0, "{ev}");
                    let tid = ev["tid"].as_u64().unwrap();
                    assert!(tid < cpus);
                    assert!(["task", "idle"].contains(&ev["cat"].as_str().unwrap()));
                    slices.entry(tid).or_default().push((ts, ts + dur));
                }
                "i" => match ev["cat"].as_str().unwrap() {
                    "wakeup" => {
                        wakeups += 1;
                        assert!(
                            ev["args"]["path"].as_array().is_some_and(|p| !p.is_empty())
                                || ev["args"]["chosen_cpu"].is_u64()
                        );
                    }
                    "migration" => migrations += 1,
                    other => panic!("unexpected instant category {other}"),
                },
                "s" => {
                    starts.insert(ev["id"].as_u64().unwrap());
                }
                "f" => ends.push(ev["id"].as_u64().unwrap()),
                other => panic!("unexpected phase {other}"),
            }
        }
        assert_eq!(wakeups, t.counters.wakeups, "{preset}: wakeup events vs counted wakeups");
        assert_eq!(migrations, t.counters.migrations, "{preset}: migration events vs counted migrations");
        assert!(!ends.is_empty());
        for id in ends {
            assert!(starts.contains(&id), "flow end {id} without start");
        }
        for (cpu, mut v) in slices {
            v.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
            for w in v.windows(2) {
                assert!(w[1].0 >= w[0].1 - 1e-6, "{preset}: CPU {cpu} slices overlap: {:?}", w);
            }
        }
    }
}

#[test]
fn a_window_limits_the_events() {
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.warmup_ms = 0;
    e.duration_ms = 20;
    let all = e.perfetto(0, 2, 0, 0, u64::MAX).unwrap();
    let part = e.perfetto(0, 2, 0, 5_000_000, 6_000_000).unwrap();
    assert!(part.events * 5 < all.events, "{} vs {}", part.events, all.events);
    assert!(e.perfetto(0, 2, 0, 6, 5).is_err());
    assert!(e.perfetto(9, 2, 0, 0, 5).is_err());
}

/// A window with more events than the bound is clipped where the bound is reached,
/// says so, and stays valid JSON; the run stops there instead of running on.
#[test]
fn a_window_past_the_bound_is_clipped() {
    let mut e = schedsim::presets::experiment("demo").unwrap();
    e.warmup_ms = 0;
    e.duration_ms = 5_000;
    let t = e.perfetto(0, 4, 0, 0, u64::MAX).unwrap();
    let at = t.clipped_at_ns.expect("5 s of demo holds more than the bound");
    assert!(at > 0 && at < 5_000_000_000, "{at}");
    let cpus = 8;
    assert!(t.events <= schedsim::recording::RECORD_EVENTS_MAX + 4 * cpus + 2, "{}", t.events);
    let doc: Value = serde_json::from_str(&t.json).unwrap();
    assert_eq!(doc["traceEvents"].as_array().unwrap().len(), t.events);
    assert_eq!(doc["otherData"]["clipped_at_ns"], at);
    for ev in doc["traceEvents"].as_array().unwrap() {
        if let Some(ts) = ev["ts"].as_f64() {
            assert!(ts * 1000.0 <= at as f64 + 1.0, "event after the clip: {ev}");
        }
    }
    // A window under the bound is not clipped.
    assert_eq!(e.perfetto(0, 4, 0, 0, 5_000_000).unwrap().clipped_at_ns, None);
}
