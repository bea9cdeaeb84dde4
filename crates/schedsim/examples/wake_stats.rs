//! The replay table's statistics for any experiment's run (kernel 0, the first client
//! count, iteration 0), as one JSON object: what `scripts/ground-truth.sh` puts beside
//! a real benchmark's trace.
//!
//! Usage: `schedsim show … > exp.json; cargo run --release --example wake_stats < exp.json`

use schedsim::experiment::Experiment;
use schedsim::wake_stats::WakeStats;
use std::io::Read;

fn main() {
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        eprintln!("wake_stats: cannot read the experiment from standard input");
        std::process::exit(2);
    }
    let exp = match Experiment::parse_json(&text) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("wake_stats: {}", e.0);
            std::process::exit(2);
        }
    };
    let resolved = match exp.validate() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("wake_stats: {}", e.0);
            std::process::exit(2);
        }
    };
    let clients = exp.clients[0];
    let w = match exp.wake_log(0, clients, 0) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("wake_stats: {}", e.0);
            std::process::exit(1);
        }
    };
    let stats = WakeStats::of(&w.records, |a, b| resolved.map.distance(a, b), w.busy_share);
    let cpu_ns = w.counters.user_ns + w.counters.system_ns;
    let out = serde_json::json!({
        "stats": stats,
        "value": w.value,
        "elapsed_ns": w.elapsed_ns,
        "cpu_ns_per_wakeup": if stats.wakeups > 0 { cpu_ns as f64 / stats.wakeups as f64 } else { 0.0 },
    });
    println!("{out}");
}
