//! Prints the decision trace of some wakeups: `cargo run --example trace_preset -- demo 0 1 100 5`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let exp = schedsim::presets::experiment(&a[1]).unwrap();
    let k: usize = a[2].parse().unwrap();
    let clients: u32 = a[3].parse().unwrap();
    let from: u64 = a[4].parse().unwrap();
    let count: u32 = a[5].parse().unwrap();
    let tr = exp.trace(k, clients, 0, schedsim::trace::TraceWindow { from, count }).unwrap();
    for t in tr {
        print!("{}", t.render());
    }
}
