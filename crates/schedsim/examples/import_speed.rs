//! How fast `sched_trace::import` reads perf script text: generates about 100 MB of
//! synthetic `perf sched record` / `perf script` output (client-server pairs on 8 CPUs
//! waking each other: sched_waking, sched_stat_runtime and sched_switch lines, as perf
//! prints them), then times three imports and prints the median rate, by wall time and
//! by this process's CPU time (the machine may be shared). Peak memory: run it under
//! `/usr/bin/time -v` and compare "Maximum resident set size" with the text size printed
//! (the text itself is part of it).
//!
//! `cargo run --release -p schedsim --example import_speed [MB]`; with file names
//! instead, it imports each and prints its summary. `--write FILE MB` writes the
//! synthetic text to FILE; `--json FILE` imports FILE three times and prints one JSON
//! line, `{"bytes", "wall_ms", "mb_per_s"}` (the median of five, read from the file as
//! the CLI reads it): the e2e budgets time the page's import of the same file beside
//! it. `--stream FILE` prints five streamed imports' median rate and the peak memory.

use std::fmt::Write;
use std::time::Instant;

fn synthetic(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 4096);
    let (cpus, pairs) = (8u64, 400u64);
    let mut t_ns = 5_000_000_000_000u64;
    let mut k = 0u64;
    let ts = |ns: u64| format!("{:5}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1_000);
    while out.len() < bytes {
        let cpu = k % cpus;
        let pair = (k / cpus) % pairs;
        // Even rounds the client wakes the server and sleeps, odd ones the reverse.
        let (a, b) = if (k / (cpus * pairs)).is_multiple_of(2) { ("client", "server") } else { ("server", "client") };
        let (ap, bp) =
            if a == "client" { (10_000 + 2 * pair, 10_001 + 2 * pair) } else { (10_001 + 2 * pair, 10_000 + 2 * pair) };
        let run = 1_000 + (k * 7919) % 40_000;
        let (t0, t1, t2) = (ts(t_ns), ts(t_ns + run), ts(t_ns + run + 2_000));
        let col = format!("{a}-{pair}");
        let _ = writeln!(
            out,
            "{col:>16} {ap:>6} [{cpu:03}] {t0}:       sched:sched_waking: comm={b}-{pair} pid={bp} prio=120 target_cpu={cpu:03}"
        );
        let _ = writeln!(
            out,
            "{col:>16} {ap:>6} [{cpu:03}] {t1}: sched:sched_stat_runtime: comm={a}-{pair} pid={ap} runtime={run} [ns]"
        );
        let _ = writeln!(
            out,
            "{col:>16} {ap:>6} [{cpu:03}] {t2}:       sched:sched_switch: prev_comm={a}-{pair} prev_pid={ap} prev_prio=120 \
             prev_state=S ==> next_comm={b}-{pair} next_pid={bp} next_prio=120"
        );
        if cpu == cpus - 1 {
            t_ns += run + 3_000;
        }
        k += 1;
    }
    out
}

/// This process's user + system CPU time, s (`/proc/self/stat` fields 14 and 15, in
/// clock ticks of 1/100 s).
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = after.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

fn import_files(files: &[String]) {
    for f in files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        let t0 = Instant::now();
        match schedsim::sched_trace::import(&bytes, f) {
            Ok(t) => {
                println!("== {f} ({:.3} s, {} wakes)", t0.elapsed().as_secs_f64(), t.wakes.len());
                for l in t.summary.lines() {
                    println!("  {l}");
                }
                let p = t.replay_params();
                if std::env::var("SIMULATE").is_ok() {
                    simulate(&p);
                }
                let text: Vec<String> =
                    p.tasks.iter().map(|t| schedsim::workload::replay::ops_text(&t.program)).collect();
                let digest = schedsim::sched_trace::sha256_hex(text.join("\n").as_bytes());
                println!("  programs' digest: {}", &digest[..16]);
                let same_cpu = |a: u32, b: u32| {
                    if a == b {
                        schedsim::topology::Distance::SameCpu
                    } else {
                        schedsim::topology::Distance::SameLlc
                    }
                };
                let stats = schedsim::wake_stats::WakeStats::of(&t.wakes, same_cpu, t.busy_share);
                println!("  wake stats: {}", serde_json::to_string(&stats).unwrap_or_default());
                let steps: usize = p.tasks.iter().map(|t| t.program.len()).sum();
                match schedsim::Workload::Replay(p).validate(t.cpus) {
                    Ok(()) => println!("  replay: {steps} steps, valid"),
                    Err(e) => println!("  replay: {e}"),
                }
            }
            Err(e) => println!("== {e}"),
        }
    }
}

/// Replays the trace once on the `demo` preset's machine and kernels (`SIMULATE=1`):
/// the programs run to their end, and the wake log has the simulated side.
fn simulate(p: &schedsim::workload::ReplayParams) {
    let Some(mut e) = schedsim::presets::experiment("demo") else { return };
    e.workload = schedsim::Workload::Replay(p.clone());
    e.clients = vec![1];
    e.iterations = 1;
    e.warmup_ms = 0;
    e.duration_ms = 10 * (p.span_ns / 1_000_000).max(1);
    let t0 = Instant::now();
    match e.wake_log(0, 1, 0) {
        Ok(w) => println!(
            "  simulated on demo ({}): {} wakes, value {:.3}, finished {}, {:.1} ms simulated, {:.2} s",
            e.kernels[0].name,
            w.records.len(),
            w.value,
            w.finished,
            w.elapsed_ns as f64 / 1e6,
            t0.elapsed().as_secs_f64()
        ),
        Err(err) => println!("  simulated: {err}"),
    }
}

/// This process's peak resident memory, bytes (`VmHWM` of `/proc/self/status`).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
    kb.unwrap_or(0u64) * 1024
}

/// FILE imported `runs` times as the CLI reads it (`import_read`, streamed from the
/// file): (text bytes, each run's wall time in ms, sorted).
fn streamed(file: &str, runs: usize) -> (u64, Vec<f64>) {
    let mut text = 0u64;
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let mut f = std::fs::File::open(file).unwrap_or_else(|e| panic!("{file}: {e}"));
            let t0 = Instant::now();
            if let Err(e) = schedsim::sched_trace::import_read(&mut f, file, &mut |n| {
                text = n;
                true
            }) {
                eprintln!("{e}");
                std::process::exit(1);
            }
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (text, ms)
}

/// `--json FILE`: the median of five streamed imports of FILE, as one JSON line; the
/// rate is of the text (after any gunzip).
fn json_median(file: &str) {
    let (text, ms) = streamed(file, 5);
    let rate = text as f64 / 1e6 / (ms[2] / 1e3);
    println!("{{\"bytes\":{text},\"wall_ms\":{:.1},\"mb_per_s\":{:.1}}}", ms[2], rate);
}

/// `--stream FILE`: five streamed imports of FILE, their median rate and this process's
/// peak memory against the text's size.
fn stream_report(file: &str) {
    let (text, ms) = streamed(file, 5);
    let peak = peak_rss();
    println!(
        "{file}: {:.1} MB of text; median of 5 streamed imports {:.0} ms, {:.0} MB/s (fastest {:.0}, slowest {:.0} ms); \
         peak memory {:.0} MB, {:.2}x the text",
        text as f64 / 1e6,
        ms[2],
        text as f64 / 1e6 / (ms[2] / 1e3),
        ms[0],
        ms[4],
        peak as f64 / 1e6,
        peak as f64 / text.max(1) as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [w, file, mb] if w == "--write" => {
            let text = synthetic(mb.parse::<usize>().unwrap_or(32) << 20);
            return std::fs::write(file, text).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        [j, file] if j == "--json" => return json_median(file),
        [j, file] if j == "--stream" => return stream_report(file),
        _ => {}
    }
    let files: Vec<String> = std::env::args().skip(1).filter(|a| a.parse::<usize>().is_err()).collect();
    if !files.is_empty() {
        return import_files(&files);
    }
    let mb: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let text = synthetic(mb << 20);
    println!("text: {} bytes ({:.1} MB), {} lines", text.len(), text.len() as f64 / 1e6, text.lines().count());
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let (t0, c0) = (Instant::now(), cpu_s());
        let trace = match schedsim::sched_trace::import(text.as_bytes(), "synthetic") {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let (s, c) = (t0.elapsed().as_secs_f64(), (cpu_s() - c0).max(0.01));
        let mb = text.len() as f64 / 1e6;
        wall.push(mb / s);
        cpu.push(mb / c);
        println!(
            "import: {s:.3} s wall, {c:.2} s CPU: {:.0} MB/s wall, {:.0} MB/s of CPU time; {} tasks, {} wakes",
            mb / s,
            mb / c,
            trace.tasks.len(),
            trace.wakes.len()
        );
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    println!("median: {:.0} MB/s wall, {:.0} MB/s of CPU time", wall[1], cpu[1]);
}
