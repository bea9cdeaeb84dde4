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

#[cfg(test)]
mod tests {
    /// The case runs natively and wakes tasks (the script divides by this).
    #[test]
    fn the_case_runs() {
        assert!(super::bench(1) > 100_000);
    }
}
