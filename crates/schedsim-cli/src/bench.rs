//! `schedsim bench`: simulator speed as simulated wakeups per wall-clock second,
//! single-threaded, on three fixed cases. The library has no clock; timing is here.

use crate::args::parse;
use crate::error::CliError;
use crate::help::{self, BENCH_FLAGS};
use crate::output::print_stdout;
use schedsim::experiment::{Experiment, MachineSpec};
use schedsim::kernel::{KernelSpec, KernelVersion};
use schedsim::topology::TopologyInput;
use schedsim::workload::Workload;
use std::io::Write;
use std::time::Instant;

/// One benchmark case.
pub struct Case {
    /// Name for `--case`.
    pub key: &'static str,
    pub label: &'static str,
    pub workload: &'static str,
    pub clients: u32,
    pub topology: &'static str,
    /// Simulated time limit; hackbench ends earlier, when its messages are all read.
    pub duration_ms: u64,
}

/// The three cases, fixed so numbers stay comparable across versions of the simulator.
pub const CASES: [Case; 3] = [
    Case {
        key: "tbench-8",
        label: "tbench 8 pairs",
        workload: "tbench",
        clients: 8,
        topology: "1x1x10x2",
        duration_ms: 500,
    },
    Case {
        key: "hackbench-10",
        label: "hackbench 10 groups",
        workload: "hackbench",
        clients: 10,
        topology: "2x1x20x2",
        duration_ms: 10_000,
    },
    Case {
        key: "tbench-128",
        label: "tbench 128 pairs",
        workload: "tbench",
        clients: 128,
        topology: "2x8x8x2",
        duration_ms: 100,
    },
];

impl Case {
    pub fn experiment(&self) -> Experiment {
        let machine = MachineSpec {
            preset: None,
            topology: Some(TopologyInput::Spec(self.topology.into())),
            costs: None,
            preempt: None,
        };
        let workload = Workload::by_name(self.workload).expect("built-in workload");
        let kernels = vec![KernelSpec::new("v5.15", KernelVersion::V5_15)];
        let mut e = Experiment::new(&format!("bench {}", self.label), machine, workload, &[self.clients], kernels);
        e.iterations = 1;
        e.duration_ms = self.duration_ms;
        // No warm-up: the counters then cover every simulated wakeup.
        e.warmup_ms = 0;
        e
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn si(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

pub fn bench(args: &[String]) -> Result<(), CliError> {
    let p = parse("bench", BENCH_FLAGS, args)?;
    if p.help {
        return print_stdout(&help::command_help("bench").unwrap_or_default());
    }
    if let Some(extra) = p.positionals.first() {
        return Err(CliError::input(format!("bench: unexpected argument {extra:?}")));
    }
    let repeat = p.number_in::<u32>("repeat", 1, 1000)?.unwrap_or(5);
    if repeat == 0 || repeat > 1000 {
        return Err(CliError::input(format!("--repeat: {repeat} is out of range 1 to 1000")));
    }
    let chosen = p.all("case");
    for c in &chosen {
        if !CASES.iter().any(|k| k.key == *c) {
            let keys: Vec<&str> = CASES.iter().map(|k| k.key).collect();
            return Err(CliError::input(format!("--case: unknown case {c:?}, expected one of {}", keys.join(", "))));
        }
    }
    let build = if cfg!(debug_assertions) {
        "debug build: numbers are not representative, use --release"
    } else {
        "optimised build"
    };
    let mut head = format!(
        "schedsim bench: simulated wakeups per wall-clock second, one thread, kernel v5.15, 1 iteration,\nmedian of {repeat} run(s); {build}\n\n"
    );
    head.push_str(&format!(
        "{:<20} {:<9} {:>4} {:>8} {:>9} {:>10} {:>12} {:>12}\n",
        "case", "topology", "CPUs", "sim ms", "wakeups", "wall ms", "wakeups/s", "events/s"
    ));
    print_stdout(&head)?;
    for case in CASES.iter().filter(|c| chosen.is_empty() || chosen.contains(&c.key)) {
        let exp = case.experiment();
        let mut rates = Vec::with_capacity(repeat as usize);
        let mut walls = Vec::with_capacity(repeat as usize);
        let mut wakeups = 0;
        let mut events_rates = Vec::with_capacity(repeat as usize);
        let mut sim_ms = 0.0;
        let mut cpus = 0;
        for _ in 0..repeat {
            let t0 = Instant::now();
            let report =
                exp.run(&mut |_| true).map_err(|e| CliError::failure(format!("bench case {}: {e}", case.label)))?;
            let wall = t0.elapsed().as_secs_f64();
            let c = &report.configs[0];
            wakeups = c.total().wakeups;
            sim_ms = c.elapsed_ns() as f64 / 1e6;
            cpus = report.nr_cpus;
            walls.push(wall);
            rates.push(wakeups as f64 / wall.max(1e-9));
            events_rates.push(c.total().events as f64 / wall.max(1e-9));
        }
        let line = format!(
            "{:<20} {:<9} {:>4} {:>8.1} {:>9} {:>10.1} {:>12} {:>12}\n",
            case.label,
            case.topology,
            cpus,
            sim_ms,
            wakeups,
            median(&mut walls) * 1e3,
            si(median(&mut rates)),
            si(median(&mut events_rates))
        );
        print_stdout(&line)?;
        let _ = std::io::stdout().flush();
    }
    print_stdout("\n(events: every simulator event of the run, warm-up included; wakeups: those counted)\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_and_cases() {
        assert_eq!(super::median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        for c in &super::CASES {
            c.experiment().validate().unwrap();
        }
    }
}
