//! rt-app workloads (`Workload::Rtapp`): the JSON rt-app 1.0 reads (comments, keys given
//! twice, json-c's trailing commas, workgen's bare "suspend"), refusals by key path, and
//! each event's mechanism seen in what a run does: a mutex serialises, a timer paces, a
//! barrier waits for the slowest, resume and suspend alternate, a condition variable's
//! signal wakes its waiter. The Debian package's examples run where installed.

use schedsim::experiment::Experiment;
use schedsim::workload::RtappParams;
use schedsim::Report;

/// Runs `json` as an rt-app workload on `cpus` CPUs for `ms` (10% warm-up).
fn run(json: &str, cpus: u32, ms: u64) -> Report {
    let w = serde_json::json!({ "kind": "rtapp", "file": "t.json", "json": json });
    let e = serde_json::json!({
        "version": 1, "name": "rtapp", "machine": { "topology": format!("1x1x{cpus}x1") }, "workload": w,
        "clients": [1], "iterations": 1, "duration_ms": ms, "warmup_ms": ms / 10, "seed": 1,
        "kernels": [{ "name": "v6.6", "preset": "v6.6" }],
    });
    let exp = Experiment::from_json(&e.to_string()).unwrap_or_else(|e| panic!("{}", e.0));
    exp.run(&mut |_| true).unwrap()
}

/// The headline: the threads' `run` work per second of the window, in CPUs.
fn busy(r: &Report) -> f64 {
    r.configs[0].points[0].summary(&r.metric)
}

fn err(json: &str) -> String {
    RtappParams::new("t.json", json).unwrap_err()
}

#[test]
fn rt_app_json_reads_as_rt_app_reads_it() {
    // Comments, a key given twice (two runs, in order), trailing commas, a bare suspend.
    let p = RtappParams::new(
        "t.json",
        r#"{ /* two threads */
            "tasks": {
                "a": { "loop": -1, "run": 1000, "sleep": 500, "run": 2000, // twice
                       "resume": "b", "suspend", },
                "b": { "instance": 2, "run": 100, "suspend": "b", },
            },
            "global": { "duration": 2, "calibration": "CPU0", "logdir": "./", },
        }"#,
    )
    .unwrap();
    assert_eq!(p.threads(), 3, "a, and b's two instances");
    assert_eq!(p.events(), 5 + 2 + 2);
    let a = p.passes()[0];
    assert_eq!((a.cpu_ns, a.min_ns, a.segments), (3_000_000, 3_500_000, 2));
    assert!(p.notes().iter().any(|n| n.starts_with("global.duration = 2 s")), "{:?}", p.notes());
    // Unknown keys are ignored by rt-app, and said.
    let p = RtappParams::new("t.json", r#"{"tasks":{"a":{"run":10,"colour":"red"}},"global":{"frag":1}}"#).unwrap();
    assert_eq!(p.notes().len(), 2, "{:?}", p.notes());
}

#[test]
fn what_the_model_has_not_is_refused_by_its_path() {
    for (json, says) in [
        (r#"{"tasks":{"t":{"phases":{"p1":{"run":10,"mem":4096}}}}}"#, "tasks.t.phases.p1.mem: not modelled"),
        (r#"{"tasks":{"t":{"run":10,"iorun":4096}}}"#, "tasks.t.iorun: not modelled"),
        (r#"{"tasks":{"t":{"run":10,"yield":""}}}"#, "tasks.t.yield: not modelled"),
        (r#"{"tasks":{"t":{"policy":"SCHED_FIFO","run":10}}}"#, "tasks.t.policy SCHED_FIFO: not modelled"),
        (r#"{"global":{"default_policy":"SCHED_RR"},"tasks":{"t":{"run":10}}}"#, "tasks.t.policy SCHED_RR"),
        (r#"{"tasks":{"t":{"dl-runtime":100,"run":10}}}"#, "tasks.t.dl-runtime: not modelled"),
        (r#"{"tasks":{"t":{"phases":{"p":{"cpus":[1],"run":10}}}}}"#, "tasks.t.phases.p.cpus: not modelled"),
        (r#"{"tasks":{"t":{"lock":"m","unlock":"m"}}}"#, "tasks.t: no run, runtime, sleep or timer"),
        (r#"{"tasks":{"t":{"run":-5}}}"#, "tasks.t.run = -5"),
        (r#"{"tasks":{"t":{"timer":{"ref":"x"},"run":1}}}"#, "tasks.t.timer.period: missing"),
        (r#"{"tasks":{"t":{"loop":0,"run":1}}}"#, "tasks.t.loop = 0"),
        (r#"{"tasks":{"t":{"run":1}}"#, "not JSON"),
        (r#"{"tasks":{"t":{"run":1}}} /* open"#, "never ends"),
        (r#"{"tasks":{}}"#, "tasks: no thread"),
        (
            r#"{"tasks":{"t":{"phases":{"a":{"loop":1000000000,"lock":"m","unlock":"m"},"b":{"run":10}}}}}"#,
            "tasks.t.phases.a: no run, runtime, sleep or timer",
        ),
        (r#"{"tasks":{"t":{"instance":5000,"run":10}}}"#, "tasks.t.instance = 5000: expected 1 to 4096"),
    ] {
        let e = err(json);
        assert!(e.starts_with("rt-app file t.json: ") && e.contains(says), "{json}: {e}");
    }
    // An affinity the model cannot keep: refused when the machine is known.
    let w =
        serde_json::json!({ "kind": "rtapp", "file": "t.json", "json": r#"{"tasks":{"t":{"cpus":[0,1],"run":10}}}"# });
    let e = serde_json::json!({ "version": 1, "name": "x", "machine": { "topology": "1x1x4x1" }, "workload": w,
        "clients": [1], "iterations": 1, "duration_ms": 10, "seed": 1, "kernels": [{ "name": "v6.6", "preset": "v6.6" }] });
    let msg = Experiment::from_json(&e.to_string()).err().map(|e| e.0).unwrap_or_default();
    assert!(msg.contains("tasks.t.cpus [0, 1]: an affinity to some CPUs"), "{msg}");
}

/// rt-app 1.0 (measured on the box): a thread without phases repeats until the run
/// ends whatever its "loop"; with phases, "loop" counts passes and the thread exits.
#[test]
fn loops_count_as_rt_app_1_0_counts_them() {
    let flat = r#"{"tasks":{"t":{"loop":3,"run":1000,"sleep":1000}}}"#;
    let p = RtappParams::new("t.json", flat).unwrap();
    assert!(p.notes().iter().any(|n| n.contains("tasks.t.loop = 3 without phases")), "{:?}", p.notes());
    let b = busy(&run(flat, 2, 200));
    // A sleep begins after the run and ends in a wakeup: a little over 2 ms a pass.
    assert!(b > 0.44 && b <= 0.5, "runs all along: {b}");
    let phased = r#"{"tasks":{"t":{"loop":3,"phases":{"p":{"run":1000,"sleep":1000}}},"u":{"run":100,"sleep":900}}}"#;
    let r = run(phased, 2, 200);
    assert!(busy(&r) > 0.07 && busy(&r) < 0.11, "t exits after 3 passes (6 ms), u goes on: {}", busy(&r));
}

#[test]
fn a_mutex_serialises_its_holders() {
    // Two threads working 1 ms each with a lock held, on 4 CPUs: one at a time.
    let locked = r#"{"tasks":{"a":{"lock":"m","run":1000,"unlock":"m"},"b":{"lock":"m","run":1000,"unlock":"m"}}}"#;
    let free = r#"{"tasks":{"a":{"run":1000},"b":{"run":1000}}}"#;
    let (l, f) = (busy(&run(locked, 4, 200)), busy(&run(free, 4, 200)));
    assert!((f - 2.0).abs() < 0.05, "two free threads keep two CPUs busy: {f}");
    assert!(l <= 1.0 + 1e-9 && l > 0.9, "a lock lets one hold it at a time: {l}");
}

#[test]
fn a_timer_paces_a_periodic_task_and_a_sleep_does_not() {
    // run 2 ms, then the timer's 10 ms period: 20% of a CPU. A sleep of 8 ms after
    // the same run gives about the same on an idle machine.
    let timer = r#"{"tasks":{"t":{"run":2000,"timer":{"ref":"tick","period":10000}}}}"#;
    let r = run(timer, 2, 1000);
    assert!((busy(&r) - 0.2).abs() < 0.01, "{}", busy(&r));
    // Two threads on one CPU, each 6 ms a 10 ms period: the second one is late every
    // period, and a relative timer restarts from then: together more than the CPU.
    let two = r#"{"tasks":{"a":{"cpus":[0],"run":6000,"timer":{"ref":"unique","period":10000}},
                            "b":{"cpus":[0],"run":6000,"timer":{"ref":"unique","period":10000}}}}"#;
    let r = run(two, 2, 1000);
    assert!(busy(&r) > 0.95, "one CPU busy all along: {}", busy(&r));
}

#[test]
fn a_barrier_waits_for_the_slowest() {
    // 1 ms and 5 ms of work, meeting at a barrier every loop: both go at the slow one's
    // pace, 6 ms of work per 5 ms.
    let j = r#"{"tasks":{"fast":{"run":1000,"barrier":"meet"},"slow":{"run":5000,"barrier":"meet"}}}"#;
    let b = busy(&run(j, 4, 500));
    assert!((b - 1.2).abs() < 0.03, "{b}");
}

#[test]
fn resume_and_suspend_alternate_and_a_signal_wakes_its_waiter() {
    // rt-app's tutorial example 4: two threads resume each other, run 10 ms in turn.
    let pingpong = r#"{"tasks":{"thread0":{"loop":-1,"run":10000,"resume":"thread1","suspend":"thread0"},
                                 "thread1":{"loop":-1,"run":10000,"resume":"thread0","suspend":"thread1"}}}"#;
    let r = run(pingpong, 4, 500);
    assert!((busy(&r) - 1.0).abs() < 0.02, "one runs at a time: {}", busy(&r));
    // A producer signals a consumer every 5 ms; the consumer runs 1 ms per signal.
    let pc = r#"{"tasks":{
        "producer":{"run":100,"lock":"m","signal":"data","unlock":"m","sleep":5000},
        "consumer":{"lock":"m","wait":{"ref":"data","mutex":"m"},"unlock":"m","run":1000}}}"#;
    let r = run(pc, 4, 1000);
    let per_loop = 0.1 + 1.0;
    let b = busy(&r);
    // About 5.1 ms a loop: 1.1 ms of work; a signal sent while the consumer works is
    // lost (a condition variable keeps none), so never more than that.
    assert!(b <= per_loop / 5.0 + 0.01 && b > 0.15, "{b}");
    assert!(r.configs[0].total().wakeups > 300, "{:?}", r.configs[0].total().wakeups);
}

/// The largest file read (1 MiB of events) reads in time linear in it, and a thread's
/// instances share its events (4,096 instances of 100,000 events hold one copy).
#[test]
fn the_largest_rt_app_file_reads_fast_and_instances_share_events() {
    let body =
        |n: usize| (0..n).map(|i| format!("\"run{i}\":{},\"sleep{i}\":5", i % 100 + 1)).collect::<Vec<_>>().join(",");
    let file = |n: usize, inst: u32| format!("{{\"tasks\":{{\"t\":{{\"instance\":{inst},{}}}}}}}", body(n));
    let (small, big1, big) = (file(17_000, 1), file(34_000, 1), file(34_000, 4096));
    assert!(big.len() < 1 << 20, "{}", big.len());
    // The least of three reads (the machine is shared), and 20 ms of slack for noise.
    let time = |s: &str| {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let p = RtappParams::new("big.json", s).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            drop(p);
        }
        best
    };
    let (ts, t1, tb) = (time(&small), time(&big1), time(&big));
    eprintln!(
        "{} bytes read in {:.1} ms, {} in {:.1} ms, with 4,096 instances {:.1} ms",
        small.len(),
        ts * 1e3,
        big1.len(),
        t1 * 1e3,
        tb * 1e3
    );
    let p = RtappParams::new("big.json", &big).unwrap();
    assert_eq!((p.threads(), p.events()), (4096, 4096 * 68_000));
    // Twice the events at most 2.5 times the time; 4,096 instances cost next to nothing.
    assert!(t1 < 2.5 * ts + 0.02, "{ts} s, then {t1} s");
    assert!(tb < 1.5 * t1 + 0.02 && tb < 1.0, "{t1} s, with instances {tb} s");
    let over = format!("{}{}", big, " ".repeat((1 << 20) - big.len() + 1));
    assert!(RtappParams::new("x.json", &over).unwrap_err().contains("at most 1048576"));
}

/// The cost estimate (`--dry-run`, the page's question before a large sweep) bounds
/// every rt-app run and tracks it within 3 times, as it does the benchmark models'.
#[test]
fn the_estimate_bounds_rt_app_runs() {
    use schedsim::estimate::{run_events, run_events_max};
    for json in [
        r#"{"tasks":{"a":{"lock":"m","run":1000,"unlock":"m"},"b":{"lock":"m","run":1000,"unlock":"m"}}}"#,
        r#"{"tasks":{"t":{"instance":6,"run":2000,"timer":{"ref":"unique","period":10000}}}}"#,
        r#"{"tasks":{"fast":{"run":1000,"barrier":"meet"},"slow":{"run":5000,"barrier":"meet"}}}"#,
        r#"{"tasks":{"a":{"run":50,"resume":"b","suspend":"a"},"b":{"run":50,"resume":"a","suspend":"b"}}}"#,
        r#"{"tasks":{"t":{"instance":3,"runtime":3000,"sleep":1000}}}"#,
    ] {
        for clients in [1, 4] {
            let w = serde_json::json!({ "kind": "rtapp", "file": "t.json", "json": json });
            let e = serde_json::json!({ "version": 1, "name": "x", "machine": { "topology": "1x1x4x1" }, "workload": w,
                "clients": [clients], "iterations": 1, "duration_ms": 100, "warmup_ms": 0, "seed": 1,
                "kernels": [{ "name": "v6.6", "preset": "v6.6" }] });
            let e = Experiment::from_json(&e.to_string()).unwrap();
            let v = e.validate().unwrap();
            let got = e.run(&mut |_| true).unwrap().configs[0].points[0].counters.events;
            let est = run_events(&e, &e.kernels[0], clients, &v.map, &v.costs);
            let max = run_events_max(&e, clients, &v.map, &v.costs);
            let ratio = est as f64 / got.max(1) as f64;
            eprintln!("{clients} x {json}: {got} events, estimated {est} ({ratio:.2}x), bound {max}");
            assert!(got <= max, "above the bound: {got} > {max}: {json}");
            assert!((1.0 / 3.0..=3.0).contains(&ratio), "{ratio:.2}x: {json}");
        }
    }
}

/// Debian's rt-app package: every example that uses only modelled events runs, the
/// rest are refused by key (skipped, saying so, where the package is not installed).
#[test]
fn the_debian_examples_run_or_are_refused_by_key() {
    let dir = std::path::Path::new("/usr/share/doc/rt-app/examples");
    if !dir.is_dir() {
        eprintln!("SKIPPED: rt-app's examples are not installed (apt-get install rt-app)");
        return;
    }
    let mut files = Vec::new();
    for sub in ["", "tutorial"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut ran, mut refused) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        match RtappParams::new(&name, &text) {
            Ok(p) => {
                let cpus = 8;
                let w = serde_json::to_value(schedsim::Workload::Rtapp(p)).unwrap();
                let e = serde_json::json!({ "version": 1, "name": "x", "machine": { "topology": format!("1x1x{cpus}x1") },
                    "workload": w, "clients": [1], "iterations": 1, "duration_ms": 300, "seed": 1,
                    "kernels": [{ "name": "v6.6", "preset": "v6.6" }] });
                match Experiment::from_json(&e.to_string()) {
                    Ok(exp) => {
                        let r = exp.run(&mut |_| true).unwrap();
                        eprintln!("{name}: {} wakeups, {:.3} CPUs busy", r.configs[0].total().wakeups, busy(&r));
                        ran += 1;
                    }
                    Err(e) => {
                        assert!(e.0.contains("rt-app file"), "{name}: {}", e.0);
                        eprintln!("{name}: refused: {}", e.0);
                        refused += 1;
                    }
                }
            }
            Err(e) => {
                assert!(e.contains("not modelled"), "{name}: {e}");
                eprintln!("{name}: refused: {e}");
                refused += 1;
            }
        }
    }
    eprintln!("{ran} examples ran, {refused} refused by key");
    assert!(ran >= 8, "{ran} ran");
}
