//! What a report's numbers can and cannot say: each kernel against kernel A at each
//! client count (the change in percent, signed like the mmtests table, and whether it
//! is beyond noise), and the points that measured nothing.
//!
//! "Beyond noise" is the test a reader applies to the ±1 stddev error bars: two means
//! whose `mean ± stddev` ranges overlap are not told apart. It is no significance test,
//! and with one iteration there is no stddev at all, which [`notes`] says. Where there
//! is no noise (a stddev of 0: a replay gives the same numbers at every iteration), two
//! values that print alike are no difference, not a difference beyond noise.

use schedsim::{Report, Workload};

/// Kernel `kernel` against kernel A at one client count.
#[derive(Clone, Debug, PartialEq)]
pub struct Versus {
    pub kernel: usize,
    pub clients: u32,
    /// Positive is better, as in the table; `None` when either side measured nothing.
    pub gain_pct: Option<f64>,
    /// This kernel's stddev as a percentage of A's mean (the error bar of `gain_pct`).
    pub spread_pct: f64,
    /// No difference: the change prints as 0.00% ([`EQUAL_PCT`]), or the `mean ±
    /// stddev` ranges of the two overlap.
    pub within_noise: bool,
}

/// Half the last digit of the change the page and the mmtests table print: a change
/// under it prints as 0.00% and is no difference, also where the stddev is 0.
pub const EQUAL_PCT: f64 = 0.005;

/// True if the sweep has no noise to tell differences from: two or more iterations, and
/// every point's iterations gave the same value (a replay's do).
pub fn deterministic(r: &Report) -> bool {
    r.experiment.iterations >= 2
        && r.configs
            .iter()
            .flat_map(|c| &c.points)
            .all(|p| p.samples.len() >= 2 && p.samples.windows(2).all(|w| w[0] == w[1]))
}

/// What a hollow point of the "% vs A" panel means for `r`.
pub fn hollow_means(r: &Report) -> &'static str {
    if deterministic(r) {
        "hollow: no difference (stddev 0)"
    } else {
        "hollow: no difference beyond noise"
    }
}

/// A point whose samples include runs that measured nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Empty {
    pub kernel: usize,
    pub clients: u32,
    /// Iterations that measured nothing, of `of`.
    pub count: usize,
    pub of: usize,
}

/// What a run that measured nothing means for `w`, as a phrase.
pub fn nothing_measured(w: &Workload) -> &'static str {
    match w {
        Workload::Tbench(_) | Workload::Dbench(_) | Workload::Memcache(_) => {
            "no request completed in the measured window"
        }
        Workload::Pipe(_) => "no pipe round trip completed in the measured window",
        Workload::Schbench(_) => "no wakeup was measured in the window",
        Workload::Hackbench(_) => "the work did not finish within the duration",
        Workload::Replay(_) => "no traced work completed in the measured window",
        Workload::Rtapp(_) => "no rt-app run or runtime work was done in the measured window",
    }
}

/// The points with iterations that measured nothing: a zero sample (the metric of an
/// empty window), or for a fixed amount of work (hackbench), a run that hit the duration.
pub fn empty_points(r: &Report) -> Vec<Empty> {
    let mut out = Vec::new();
    let fixed_work = matches!(r.experiment.workload, Workload::Hackbench(_));
    for (k, c) in r.configs.iter().enumerate() {
        for p in &c.points {
            let count = if fixed_work {
                if p.finished {
                    0
                } else {
                    p.samples.len()
                }
            } else {
                p.samples.iter().filter(|v| **v <= 0.0 || !v.is_finite()).count()
            };
            if count > 0 {
                out.push(Empty { kernel: k, clients: p.clients, count, of: p.samples.len() });
            }
        }
    }
    out
}

/// True if kernel `k`'s point `pi` has an iteration that measured nothing.
pub fn is_empty_point(r: &Report, k: usize, pi: usize) -> bool {
    let Some(p) = r.configs.get(k).and_then(|c| c.points.get(pi)) else { return false };
    if matches!(r.experiment.workload, Workload::Hackbench(_)) {
        !p.finished
    } else {
        p.samples.iter().any(|v| *v <= 0.0 || !v.is_finite())
    }
}

/// Every kernel after A against A, point by point (`[kernel - 1][point]`).
pub fn versus(r: &Report) -> Vec<Vec<Versus>> {
    let m = &r.metric;
    let Some(a) = r.configs.first() else { return Vec::new() };
    r.configs
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, c)| {
            a.points
                .iter()
                .enumerate()
                .zip(&c.points)
                .map(|((pi, pa), p)| {
                    let (base, v) = (pa.summary(m), p.summary(m));
                    let (sa, sv) = (pa.stddev(), p.stddev());
                    let measured = !is_empty_point(r, 0, pi) && !is_empty_point(r, k, pi) && base > 0.0;
                    let gain_pct = measured.then(|| {
                        if m.higher_is_better {
                            (v - base) / base * 100.0
                        } else {
                            (base - v) / base * 100.0
                        }
                    });
                    Versus {
                        kernel: k,
                        clients: p.clients,
                        gain_pct,
                        spread_pct: if base > 0.0 { sv / base * 100.0 } else { 0.0 },
                        within_noise: measured
                            && (gain_pct.is_some_and(|g| g.abs() < EQUAL_PCT) || (v - base).abs() <= sa + sv),
                    }
                })
                .collect()
        })
        .collect()
}

/// The kernels (by index) whose configuration equals an earlier kernel's, with it.
pub fn identical_kernels(r: &Report) -> Vec<(usize, usize)> {
    let ks = &r.experiment.kernels;
    let mut out = Vec::new();
    for j in 1..ks.len() {
        // A policy script makes a kernel its own, even on the same configuration.
        if let Some(i) = (0..j).find(|i| ks[*i].resolve() == ks[j].resolve() && ks[*i].policy == ks[j].policy) {
            out.push((i, j));
        }
    }
    out
}

fn list(v: &[u32]) -> String {
    v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
}

/// What the reader must know before reading the numbers, as sentences.
/// What the sweep's patch counts say (`SweepDone::patched`): for each seed patch a
/// kernel switches on, how often its own branch ran; a patch that never did changed
/// nothing in this sweep, which the results say (one note each), and the counts as one
/// line ("kernel: patch N times; ...").
pub fn patch_notes(r: &Report, patched: &[(u32, schedsim::Switch, u64)]) -> (Vec<String>, Option<String>) {
    let name = |k: u32| r.configs.get(k as usize).map(|c| c.name.clone()).unwrap_or_else(|| format!("kernel {k}"));
    let never = patched
        .iter()
        .filter(|(_, _, n)| *n == 0)
        .map(|&(k, sw, _)| {
            format!(
                "{}: {} is on, but the patched branch was taken 0 times in this sweep: the results are those of the kernel without it.",
                name(k),
                sw.name()
            )
        })
        .collect();
    let counts = (!patched.is_empty()).then(|| {
        let list: Vec<String> = patched
            .iter()
            .map(|&(k, sw, n)| format!("{}: {} {n} time{}", name(k), sw.name(), if n == 1 { "" } else { "s" }))
            .collect();
        format!("Patched branches taken over all runs: {}.", list.join("; "))
    });
    (never, counts)
}

pub fn notes(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let meaning = r.experiment.workload.clients_meaning();
    let summary = if r.metric.higher_is_better { "Hmean" } else { "Amean" };
    let nothing = nothing_measured(&r.experiment.workload);
    let window = r.experiment.duration_ms.saturating_sub(r.experiment.warmup_ms);
    for e in empty_points(r) {
        let c = &r.configs[e.kernel];
        let iters = if e.count == e.of {
            if e.of == 1 {
                "in its only iteration".to_string()
            } else {
                format!("in all {} iterations", e.of)
            }
        } else {
            format!("in {} of {} iterations", e.count, e.of)
        };
        out.push(if matches!(r.experiment.workload, Workload::Hackbench(_)) {
            format!(
                "{} at {}: {nothing} ({} ms) {iters}, so the {summary} there is the duration, not the time the work took.",
                c.name, crate::model::fmt::count_of(e.clients as u64, meaning), r.experiment.duration_ms
            )
        } else {
            format!(
                "{} at {}: {nothing} ({window} ms after warm-up) {iters}, so the {summary} there is not a measurement. More time (duration_ms) or fewer {meaning} would let requests complete.",
                c.name, crate::model::fmt::count_of(e.clients as u64, meaning)
            )
        });
    }
    for (i, j) in identical_kernels(r) {
        out.push(format!(
            "{} and {} are the same configuration ({}): they differ only by chance, and with the same seed not at all.",
            r.configs[i].name, r.configs[j].name, r.configs[j].label
        ));
    }
    if r.configs.len() > 1 {
        if r.experiment.iterations < 2 {
            out.push(
                "One iteration per point: there is no stddev, so no difference can be told from noise. Run 3 or more iterations."
                    .to_string(),
            );
        } else {
            let a = &r.configs[0].name;
            let exact = deterministic(r);
            if exact {
                out.push(
                    "Every iteration gave the same value (stddev 0): these runs are deterministic (a replay is), so there is no noise. Values that print alike are no difference; any other difference is the kernels' own."
                        .to_string(),
                );
            }
            for row in versus(r) {
                let same: Vec<u32> = row.iter().filter(|v| v.within_noise).map(|v| v.clients).collect();
                if let Some(first) = row.first() {
                    let name = &r.configs[first.kernel].name;
                    if !same.is_empty() {
                        let at = if same.len() == row.len() {
                            "at every count".to_string()
                        } else {
                            match same[..] {
                                [one] => format!("at {}", crate::model::fmt::count_of(one as u64, meaning)),
                                _ => format!("at {} {meaning}", list(&same)),
                            }
                        };
                        out.push(if exact {
                            format!("{name} vs {a}: no difference {at} (the same value).")
                        } else {
                            format!("{name} vs {a}: no difference beyond noise {at} (the ±1 stddev ranges overlap).")
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim::KernelSpec;

    fn run(mut f: impl FnMut(&mut schedsim::Experiment)) -> Report {
        let mut exp = schedsim::presets::experiment("demo").unwrap();
        exp.iterations = 2;
        exp.duration_ms = 20;
        exp.warmup_ms = 2;
        exp.clients = vec![1, 4];
        f(&mut exp);
        exp.run(&mut |_| true).unwrap()
    }

    #[test]
    fn identical_kernels_are_within_noise_and_named() {
        let r = run(|e| {
            e.kernels = vec![
                KernelSpec::new("v5.15 (2)", schedsim::KernelVersion::V5_15),
                KernelSpec::new("v5.15", schedsim::KernelVersion::V5_15),
            ]
        });
        let v = versus(&r);
        assert_eq!(v.len(), 1);
        for p in &v[0] {
            assert_eq!(p.gain_pct, Some(0.0));
            assert!(p.within_noise);
        }
        assert_eq!(identical_kernels(&r), [(0, 1)]);
        let n = notes(&r);
        assert!(n.iter().any(|s| s.starts_with("v5.15 (2) and v5.15 are the same configuration")), "{n:?}");
        assert!(
            n.iter().any(|s| s
                == "v5.15 vs v5.15 (2): no difference beyond noise at every count (the ±1 stddev ranges overlap)."),
            "{n:?}"
        );
    }

    #[test]
    fn with_a_stddev_of_0_equal_values_are_no_difference() {
        let mut r = run(|e| {
            e.kernels = vec![
                KernelSpec::new("v6.5", schedsim::KernelVersion::V6_5),
                KernelSpec::new("v6.18", schedsim::KernelVersion::V6_18),
            ]
        });
        // Every iteration alike, as a replay's: B equal to A at the first count but for
        // a rounding far under what prints, and 3% better at the second.
        for c in &mut r.configs {
            for p in &mut c.points {
                p.samples = vec![1.0; p.samples.len()];
            }
        }
        r.configs[1].points[0].samples = vec![1.0 - 1e-7; 2];
        r.configs[1].points[1].samples = vec![1.03; 2];
        assert!(deterministic(&r));
        let v = &versus(&r)[0];
        assert!(v[0].within_noise, "{v:?}");
        assert!(!v[1].within_noise, "{v:?}");
        let n = notes(&r);
        assert!(n.iter().any(|s| s.starts_with("Every iteration gave the same value (stddev 0)")), "{n:?}");
        assert!(
            n.iter().any(|s| s == "v6.18 vs v6.5: no difference at 1 client/server pair (the same value)."),
            "{n:?}"
        );
        assert_eq!(hollow_means(&r), "hollow: no difference (stddev 0)");
        // With noise, the same numbers are read against it.
        r.configs[0].points[1].samples = vec![0.9, 1.1];
        assert!(!deterministic(&r));
        assert!(versus(&r)[0][1].within_noise);
    }

    #[test]
    fn a_kernel_with_a_policy_script_is_not_called_identical_to_one_without() {
        let mut r = run(|e| {
            e.kernels = vec![
                KernelSpec::new("v5.15", schedsim::KernelVersion::V5_15),
                KernelSpec::new("yours", schedsim::KernelVersion::V5_15),
            ]
        });
        assert_eq!(identical_kernels(&r), [(0, 1)]);
        // The script set on the report's experiment: the page's own build (and this
        // test's, with `cargo test -p schedsim-web`) has no engine to run it.
        r.experiment.kernels[1].policy = Some("fn select_idle_sibling(p, prev, target) { prev }".into());
        assert_eq!(identical_kernels(&r), []);
        assert!(!notes(&r).iter().any(|s| s.contains("same configuration")), "{:?}", notes(&r));
    }

    #[test]
    fn a_window_with_no_request_is_said() {
        // 8,192 pairs on one CPU: nothing completes in 18 ms.
        let r = run(|e| {
            e.machine.topology = Some(schedsim::topology::TopologyInput::Spec("1x1x1x1".into()));
            e.clients = vec![1, 8192];
            e.iterations = 1;
        });
        let empty = empty_points(&r);
        assert!(empty.iter().any(|e| e.clients == 8192 && e.count == 1), "{empty:?}");
        assert!(!empty.iter().any(|e| e.clients == 1), "{empty:?}");
        let n = notes(&r);
        assert!(
            n.iter().any(|s| s.contains("at 8192 client/server pairs: no request completed in the measured window (18 ms after warm-up) in its only iteration, so the Hmean there is not a measurement")),
            "{n:?}"
        );
        assert!(n.iter().any(|s| s.starts_with("One iteration per point")), "{n:?}");
        // No percentage is made up for it.
        assert!(versus(&r)[0].iter().any(|v| v.clients == 8192 && v.gain_pct.is_none() && !v.within_noise));
    }

    #[test]
    fn a_patch_that_never_ran_is_said() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        e.clients = vec![1];
        e.iterations = 1;
        e.duration_ms = 5;
        e.warmup_ms = 0;
        let r = e.run(&mut |_| true).unwrap();
        let rfc = schedsim::Switch::WakeAffinePrevRfc;
        let (never, counts) = patch_notes(&r, &[(1, rfc, 0), (0, schedsim::Switch::RecentUsedPrev, 12)]);
        assert_eq!(never, ["v5.15: wake-affine-prev-rfc is on, but the patched branch was taken 0 times in this sweep: the results are those of the kernel without it."]);
        assert_eq!(counts.unwrap(), "Patched branches taken over all runs: v5.15: wake-affine-prev-rfc 0 times; v4.15: recent-used-prev 12 times.");
        assert_eq!(patch_notes(&r, &[]), (vec![], None));
    }
}
