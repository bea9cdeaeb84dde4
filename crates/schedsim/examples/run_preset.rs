//! Runs a built-in experiment and prints its table: `cargo run --example run_preset -- demo`.
fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "demo".into());
    let exp = if name.ends_with(".json") {
        schedsim::Experiment::from_json(&std::fs::read_to_string(&name).unwrap()).unwrap()
    } else {
        match schedsim::presets::experiment(&name) {
            Some(e) => e,
            None => {
                eprintln!("unknown preset {name}");
                std::process::exit(2);
            }
        }
    };
    use schedsim::experiment::Checks;
    let checks = if std::env::var("CHECK").is_ok() { Checks::Invariants } else { Checks::Off };
    let t = std::time::Instant::now();
    match exp.run_with(&mut |_| true, checks) {
        Ok(r) => {
            println!("{}", r.mmtests_table());
            for c in &r.configs {
                let t = c.total();
                println!("{}: wakeups {} sis {} probed {} target {} prev {}/{} recent {}/{} core {} scan {}/{} queued {} newidle {} skip {} bail {} pulled {} srq {}/{} wide {} aff {}/{}",
                    c.name, t.wakeups, t.sis_searches, t.sis_probed, t.sis_target_hits, t.sis_prev_hits, t.sis_prev_attempts,
                    t.sis_recent_hits, t.sis_recent_attempts, t.sis_idle_core_hits, t.sis_scan_hits, t.sis_scan_fails, t.ttwu_queued,
                    t.newidle_calls, t.newidle_skipped_pending, t.newidle_bailed_pending, t.newidle_pulled, t.shared_runq_pulled, t.shared_runq_pops, t.wake_wide, t.affine_moves, t.affine_attempts);
                println!(
                    "   newidle load_balance passes: SMT {} MC {} PKG {} NUMA {}",
                    t.newidle_lb_smt, t.newidle_lb_mc, t.newidle_lb_pkg, t.newidle_lb_numa
                );
                for p in &c.points {
                    println!(
                        "   clients {} wake p50/p99 {}/{} req p95/p99 {}/{} idle_exits {:?}",
                        p.clients,
                        p.wakeup_latency.p50_ns,
                        p.wakeup_latency.p99_ns,
                        p.request_latency.p95_ns,
                        p.request_latency.p99_ns,
                        p.counters.idle_exits
                    );
                }
            }
        }
        Err(e) => eprintln!("error: {e}"),
    }
    eprintln!("wall {:?}", t.elapsed());
}
