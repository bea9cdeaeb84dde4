//! How fast `sched_trace::import` reads perf script text: generates about 100 MB of
//! synthetic `perf sched record` / `perf script` output (client-server pairs on 8 CPUs:
//! sched_waking, sched_stat_runtime and sched_switch lines, as perf prints them), then
//! times three imports and prints the median rate. Peak memory: run it under
//! `/usr/bin/time -v` and compare "Maximum resident set size" with the text size printed.
//!
//! `cargo run --release -p schedsim --example import_speed [MB]`; with file names
//! instead, it imports each and prints its summary.

use std::fmt::Write;
use std::time::Instant;

fn synthetic(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 4096);
    let (cpus, pairs) = (8u64, 400u64);
    let mut t_ns = 5_000_000_000_000u64;
    let mut k = 0u64;
    while out.len() < bytes {
        let cpu = k % cpus;
        let pair = (k / cpus) % pairs;
        let (c, s) = (10_000 + 2 * pair, 10_001 + 2 * pair);
        let run = 1_000 + (k * 7919) % 40_000;
        let t = |ns: u64| format!("{:5}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1_000);
        let (t0, t1, t2) = (t(t_ns), t(t_ns + run), t(t_ns + run + 2_000));
        let _ = writeln!(
            out,
            "{:>16} {c:>6} [{cpu:03}] {t0}: sched:sched_waking: comm=server-{pair} pid={s} prio=120 target_cpu={:03}",
            format!("client-{pair}"),
            (cpu + 1) % cpus
        );
        let _ = writeln!(
            out,
            "{:>16} {c:>6} [{cpu:03}] {t1}: sched:sched_stat_runtime: comm=client-{pair} pid={c} runtime={run} [ns] \
             vruntime={} [ns]",
            format!("client-{pair}"),
            k * 1000
        );
        let _ = writeln!(
            out,
            "{:>16} {c:>6} [{cpu:03}] {t2}: sched:sched_switch: prev_comm=client-{pair} prev_pid={c} prev_prio=120 \
             prev_state=S ==> next_comm=server-{pair} next_pid={s} next_prio=120",
            format!("client-{pair}")
        );
        t_ns += 3_000;
        k += 1;
    }
    out
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).filter(|a| a.parse::<usize>().is_err()).collect();
    if !files.is_empty() {
        for f in files {
            let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
            let t0 = Instant::now();
            match schedsim::sched_trace::import(&bytes, &f) {
                Ok(t) => {
                    println!("== {f} ({:.3} s, {} wakes)", t0.elapsed().as_secs_f64(), t.wakes.len());
                    for l in t.summary.lines() {
                        println!("  {l}");
                    }
                }
                Err(e) => println!("== {e}"),
            }
        }
        return;
    }
    let mb: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let text = synthetic(mb << 20);
    println!("text: {} bytes ({:.1} MB), {} lines", text.len(), text.len() as f64 / 1e6, text.lines().count());
    let mut rates = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let trace = match schedsim::sched_trace::import(text.as_bytes(), "synthetic") {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let s = t0.elapsed().as_secs_f64();
        rates.push(text.len() as f64 / 1e6 / s);
        println!(
            "import: {s:.3} s, {:.0} MB/s, {} tasks, {} wakes",
            rates[rates.len() - 1],
            trace.tasks.len(),
            trace.wakes.len()
        );
    }
    rates.sort_by(f64::total_cmp);
    println!("median: {:.0} MB/s", rates[1]);
}
