//! The wasted-core alarm as the page shows it: per kernel and client count, the time
//! the "Decade of Wasted Cores" invariant was broken, the moments it broke, and the
//! plan to replay one of them in live mode.

use crate::model::fmt::fmt_ns;
use schedsim::{Report, WastedMoment};

/// How far before a moment live mode stops, so the user steps into it.
pub const JUMP_LEAD_NS: u64 = 1_000;

/// One kernel at one client count.
#[derive(Clone, Debug, PartialEq)]
pub struct WastedRow {
    pub kernel: usize,
    pub kernel_name: String,
    pub clients: u32,
    pub wasted_ns: u64,
    pub episodes: u64,
    pub moments: Vec<WastedMoment>,
}

/// Rows of a report, kernel by kernel, client count by client count.
pub fn rows(r: &Report) -> Vec<WastedRow> {
    r.configs
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            c.points.iter().map(move |p| WastedRow {
                kernel: k,
                kernel_name: c.name.clone(),
                clients: p.clients,
                wasted_ns: p.counters.wasted_core_ns,
                episodes: p.counters.wasted_core_episodes,
                moments: p.wasted_moments.clone(),
            })
        })
        .collect()
}

/// One moment in words.
pub fn describe(m: &WastedMoment) -> String {
    format!(
        "at {:.3} ms (iteration {}): CPU {} idle for {} while {} waited on CPU {} ({} task{} waiting machine-wide)",
        m.time_ns as f64 / 1e6,
        m.iteration,
        m.idle_cpu,
        fmt_ns(m.idle_for_ns),
        m.waiting_task,
        m.busy_cpu,
        m.waiting,
        if m.waiting == 1 { "" } else { "s" }
    )
}

/// Where live mode goes to show a moment: kernel, client count, and how far to advance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JumpPlan {
    pub kernel: u32,
    pub clients: u32,
    pub iteration: u32,
    pub time_ns: u64,
    pub advance_ns: u64,
}

/// The plan for a moment: live mode replays the moment's iteration
/// (`Live::with_iteration` follows the sweep's random stream exactly).
pub fn jump_plan(kernel: usize, clients: u32, m: &WastedMoment) -> Result<JumpPlan, String> {
    Ok(JumpPlan {
        kernel: kernel as u32,
        clients,
        iteration: m.iteration,
        time_ns: m.time_ns,
        advance_ns: m.time_ns.saturating_sub(JUMP_LEAD_NS),
    })
}

/// Parses the threshold field (µs; 0 turns the alarm off) into nanoseconds, with the
/// library's range (10 µs to 10 s).
pub fn parse_threshold_us(s: &str) -> Result<u64, String> {
    let v: u64 = s.trim().replace('_', "").parse().map_err(|_| "a whole number of µs (0 = off)".to_string())?;
    if v != 0 && !(10..=10_000_000).contains(&v) {
        return Err(format!("{v} µs is out of range 10 to 10000000 (or 0 for off)"));
    }
    Ok(v * 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::live::{LiveKey, LiveSession};

    fn moment(iteration: u32, time_ns: u64) -> WastedMoment {
        WastedMoment {
            time_ns,
            iteration,
            idle_cpu: 3,
            idle_for_ns: 2_500_000,
            busy_cpu: 1,
            waiting_task: "tbench-2".into(),
            waiting: 1,
        }
    }

    #[test]
    fn formats() {
        assert_eq!(
            describe(&moment(0, 7_250_000)),
            "at 7.250 ms (iteration 0): CPU 3 idle for 2.50 ms while tbench-2 waited on CPU 1 (1 task waiting machine-wide)"
        );
        assert_eq!(parse_threshold_us("1000"), Ok(1_000_000));
        assert_eq!(parse_threshold_us("0"), Ok(0));
        assert!(parse_threshold_us("5").is_err());
        assert!(parse_threshold_us("x").is_err());
    }

    #[test]
    fn plans() {
        assert_eq!(
            jump_plan(1, 4, &moment(0, 5_000_000)),
            Ok(JumpPlan { kernel: 1, clients: 4, iteration: 0, time_ns: 5_000_000, advance_ns: 4_999_000 })
        );
        assert_eq!(jump_plan(0, 1, &moment(0, 10)).unwrap().advance_ns, 0);
        assert_eq!(jump_plan(0, 1, &moment(2, 5_000_000)).unwrap().iteration, 2);
    }

    /// A moment found by the sweep is seen again in live mode after the jump.
    #[test]
    fn a_jump_lands_on_the_violation() {
        for name in ["demo", "seed003-pipe"] {
            let mut exp = schedsim::presets::experiment(name).unwrap();
            // The presets' 1 ms threshold is never crossed in these; 100 µs is.
            exp.wasted_core_threshold_ns = 100_000;
            let report = exp.run(&mut |_| true).unwrap();
            let Some((row, m)) = rows(&report)
                .into_iter()
                .find_map(|r| r.moments.iter().find(|m| m.iteration == 0).cloned().map(|m| (r, m)))
            else {
                eprintln!("{name}: no wasted moment in iteration 0");
                continue;
            };
            let plan = jump_plan(row.kernel, row.clients, &m).unwrap();
            let mut s = LiveSession::new(LiveKey {
                experiment: exp.clone(),
                kernel: plan.kernel,
                clients: plan.clients,
                iteration: plan.iteration,
            })
            .unwrap();
            s.jump(plan.advance_ns);
            assert!(
                s.now_ns() >= plan.advance_ns && s.now_ns() <= plan.time_ns + 100_000,
                "{name}: at {} for {:?}",
                s.now_ns(),
                plan
            );
            let mut seen = s.wasted_now();
            let mut n = 0;
            while seen.is_none() && s.now_ns() <= plan.time_ns && n < 1000 {
                s.step();
                seen = s.wasted_now();
                n += 1;
            }
            eprintln!("{name}: violation after {n} steps");
            let seen = seen.unwrap_or_else(|| panic!("{name}: no violation near {plan:?}"));
            assert_eq!((seen.idle_cpu, seen.busy_cpu), (m.idle_cpu, m.busy_cpu), "{name}");
            return;
        }
        panic!("no preset had a wasted moment in iteration 0");
    }
}
