//! How a preset's tasks spread over LLCs as a run goes on, and how many client/server
//! pairs are split across LLCs: `cargo run --release --example llc_probe -- seed004 0 128 1,10,100`
//! (preset, kernel index, client count, times in ms).
fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: llc_probe PRESET KERNEL_INDEX CLIENTS MS[,MS...]");
        std::process::exit(2);
    }
    let mut exp = schedsim::presets::experiment(&a[1]).expect("unknown preset");
    // Run as long as the last time asked for (a live run ends with the experiment).
    let last: u64 = a[4].split(',').filter_map(|t| t.parse().ok()).max().unwrap_or(1);
    exp.duration_ms = last + 1;
    exp.warmup_ms = 0;
    let k: usize = a[2].parse().expect("kernel index");
    let clients: u32 = a[3].parse().expect("client count");
    let mut live = schedsim::live::Live::new(&exp, k, clients).expect("experiment");
    for ms in a[4].split(',') {
        let at: u64 = ms.parse::<u64>().expect("time in ms") * 1_000_000;
        live.advance(at.saturating_sub(live.now_ns()), 0);
        let tasks = live.tasks();
        let mut per = std::collections::BTreeMap::new();
        for t in &tasks {
            *per.entry(t.llc).or_insert(0u32) += 1;
        }
        // Paired workloads (tbench, pipe) create partner tasks next to each other.
        let split = tasks.chunks(2).filter(|p| p.len() == 2 && p[0].llc != p[1].llc).count();
        println!("t={ms}ms tasks per LLC {:?}, pairs split across LLCs {split}", per.values().collect::<Vec<_>>());
    }
}
