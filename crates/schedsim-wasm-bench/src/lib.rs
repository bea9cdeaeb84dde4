//! The case of `scripts/instr-per-wakeup.sh` (tbench 8 pairs on `1x1x10x2`, v5.15,
//! 200 ms, no warm-up) as one export of a bare WebAssembly module, with no JavaScript
//! glue, so that `scripts/wasm-instr-per-wakeup.sh` can run it in Node's V8 under
//! callgrind and compare the simulator's cost in the page's engine with its native cost.

/// The experiment, as `schedsim show --topology 1x1x10x2 --workload tbench --clients 8
/// --kernel v5.15=v5.15 --duration-ms 200 --warmup-ms 0 --iterations 1 --seed 1` prints it.
const CASE: &str = include_str!("tbench8.json");

/// Runs the case `runs` times; returns the wakeups of one run (0 if it failed).
#[no_mangle]
pub extern "C" fn bench(runs: u32) -> u64 {
    let Ok(exp) = schedsim::Experiment::from_json(CASE) else { return 0 };
    let mut wakeups = 0;
    for _ in 0..runs {
        let Ok(report) = exp.run(&mut |_| true) else { return 0 };
        wakeups = report.configs.first().and_then(|c| c.points.first()).map_or(0, |p| p.counters.wakeups);
    }
    wakeups
}

/// The cases of `scripts/policy-speed.sh`, as `schedsim show` prints them: seed 001's
/// experiment and tbench 128 pairs on `milan-2s` for 20 ms.
#[cfg(feature = "policy")]
const SEED001: &str = include_str!("seed001.json");
#[cfg(feature = "policy")]
const TBENCH256: &str = include_str!("tbench256.json");

/// `case` of `scripts/policy-speed.sh` with one kernel column: 0 tbench256 on the built-in
/// v5.15, 1 the same with the sis-v5.15 template, 2 seed001 on the built-in
/// v3.8+sis-prev-idle, 3 seed001 on v3.8 with the seed001-v3.8 template. Runs it `runs`
/// times; returns the wakeups of one run (0 if it failed or there is no such case).
#[cfg(feature = "policy")]
#[no_mangle]
pub extern "C" fn policy_bench(case: u32, runs: u32) -> u64 {
    let (json, column, script) = match case {
        0 => (TBENCH256, 0, None),
        1 => (TBENCH256, 0, Some(include_str!("../../schedsim/policies/sis-v5.15.rhai"))),
        2 => (SEED001, 1, None),
        3 => (SEED001, 0, Some(include_str!("../../schedsim/policies/seed001-v3.8.rhai"))),
        _ => return 0,
    };
    let Ok(mut exp) = schedsim::Experiment::from_json(json) else { return 0 };
    let mut k = exp.kernels[column].clone();
    k.policy = script.map(str::to_string);
    exp.kernels = vec![k];
    let mut wakeups = 0;
    for _ in 0..runs {
        let Ok(report) = exp.run(&mut |_| true) else { return 0 };
        wakeups = report.configs.first().and_then(|c| c.points.first()).map_or(0, |p| p.counters.wakeups);
    }
    wakeups
}

#[cfg(test)]
mod tests {
    /// The case runs natively and wakes tasks (the script divides by this).
    #[test]
    fn the_case_runs() {
        assert!(super::bench(1) > 100_000);
    }

    /// Each policy case runs, and a template wakes as many tasks as the kernel it
    /// reproduces.
    #[cfg(feature = "policy")]
    #[test]
    fn the_policy_cases_run() {
        let w: Vec<u64> = (0..4).map(|c| super::policy_bench(c, 1)).collect();
        assert!(w[0] > 100_000 && w[2] > 10_000, "{w:?}");
        assert_eq!((w[0], w[2]), (w[1], w[3]));
    }
}
