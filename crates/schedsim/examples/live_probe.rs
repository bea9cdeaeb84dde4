//! Runs a preset live for a while and prints CPU states: `cargo run --example live_probe -- seed002 0 20 10`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let exp = if a[1].ends_with(".json") {
        schedsim::Experiment::from_json(&std::fs::read_to_string(&a[1]).unwrap()).unwrap()
    } else {
        schedsim::presets::experiment(&a[1]).unwrap()
    };
    let k: usize = a[2].parse().unwrap();
    let clients: u32 = a[3].parse().unwrap();
    let ms: u64 = a[4].parse().unwrap();
    let mut live = schedsim::live::Live::new(&exp, k, clients).unwrap();
    let tr = live.advance(ms * 1_000_000, 3);
    let c = live.counters();
    println!(
        "now {} work {:?} wakeups {} user {} sys {} idle {}",
        live.now_ns(),
        live.work_done(),
        c.wakeups,
        c.user_ns,
        c.system_ns,
        c.idle_ns
    );
    let mut hist = std::collections::BTreeMap::new();
    for v in live.cpus() {
        *hist.entry((v.phase.clone(), v.nr_running)).or_insert(0) += 1;
    }
    println!("phases: {hist:?}");
    let mut per_llc = std::collections::BTreeMap::new();
    for v in live.cpus() {
        let e = per_llc.entry(v.llc).or_insert((0, 0));
        if v.phase != "idle" {
            e.0 += 1;
        }
        e.1 += v.nr_running;
    }
    println!("per LLC (busy CPUs, runnable): {:?}", per_llc.values().collect::<Vec<_>>());
    for v in live.cpus().iter().filter(|v| v.running.is_some() || v.nr_running > 0).take(20) {
        println!("{:?}", v);
    }
    for t in tr {
        print!("{}", t.render());
    }
}
