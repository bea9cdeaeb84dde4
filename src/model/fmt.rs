//! Text for people: times, durations and file names as the page writes them. One home
//! for these, compiled natively and tested here, so a view never grows its own copy.
//!
//! Two duration styles are kept on purpose: [`fmt_ns`] (fixed decimals per unit, "0"
//! for nothing: the wasted-core tables and alarms) and [`fmt_duration`] (three
//! significant digits: the timeline's captions). Merging them would change what the
//! page already says.

/// Wasted time as text: "0", "12.3 µs", "4.56 ms", "1.23 s".
pub fn fmt_ns(ns: u64) -> String {
    match ns {
        0 => "0".into(),
        n if n < 1_000_000 => format!("{:.1} µs", n as f64 / 1e3),
        n if n < 1_000_000_000 => format!("{:.2} ms", n as f64 / 1e6),
        n => format!("{:.2} s", n as f64 / 1e9),
    }
}

/// A time for people: "12.345678 ms" at ns precision, trimmed.
pub fn fmt_ms(ns: u64) -> String {
    let s = format!("{:.6}", ns as f64 / 1e6);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s} ms")
}

/// A duration for people: three significant digits in the largest unit under it,
/// trailing zeros dropped ("2.07 ms", "850 µs", "20 ms", "1.5 s", "740 ns").
pub fn fmt_duration(ns: u64) -> String {
    let digits = ns.checked_ilog10().unwrap_or(0) + 1;
    let ns = if digits > 3 {
        let mag = 10u64.pow(digits - 3);
        (ns.saturating_add(mag / 2) / mag).saturating_mul(mag)
    } else {
        ns
    };
    let (v, unit) = match ns {
        n if n < 1_000 => return format!("{n} ns"),
        n if n < 1_000_000 => (n as f64 / 1e3, "µs"),
        n if n < 1_000_000_000 => (n as f64 / 1e6, "ms"),
        n => (n as f64 / 1e9, "s"),
    };
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    format!("{s} {unit}")
}

/// A time in ms at the precision a view `span_ns` wide shows (its third significant
/// digit): "10.00 ms" in a 2 ms view, "10.0123 ms" in a 50 µs one.
pub fn fmt_ms_within(ns: u64, span_ns: u64) -> String {
    let digits = span_ns.checked_ilog10().unwrap_or(0) + 1;
    let decimals = 9usize.saturating_sub(digits as usize).min(6);
    format!("{:.*} ms", decimals, ns as f64 / 1e6)
}

/// Wall time left, rounded to the second: "12 s", "3 min 5 s"; nothing below 0 s.
pub fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        format!("{} min {} s", s / 60, s % 60)
    }
}

/// A count with thousands separated: 200000 as "200,000".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A file-name-safe version of `s`: ASCII letters, digits, `-` and `_` kept, anything
/// else a `-`, at most 60 characters.
pub fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).take(60).collect()
}

/// The stem of every file the page exports for `exp` ("schedsim-demo"): its name when it
/// is that built-in experiment unchanged or a name the user gave it, and for a built-in
/// experiment the user changed, its name and what changed ("schedsim-demo-v5-15-vs-
/// v5-15-sis-prev-idle-c1-16"), so that the files of an edited demo are not called the
/// demo's. Only file-name-safe characters (`sanitize`), at most 100 of them.
pub fn export_stem(exp: &schedsim::Experiment) -> String {
    if exp.name.is_empty() {
        return "schedsim-custom".into();
    }
    let Some(base) = schedsim::presets::experiment(&exp.name) else {
        return format!("schedsim-{}", sanitize(&exp.name));
    };
    let mut parts: Vec<String> = Vec::new();
    if exp.machine != base.machine {
        parts.push(match (&exp.machine.topology, &exp.machine.preset) {
            (Some(schedsim::topology::TopologyInput::Spec(s)), _) => s.clone(),
            (Some(_), _) => "topology".into(),
            (None, Some(p)) => p.clone(),
            (None, None) => "machine".into(),
        });
    }
    if exp.workload != base.workload {
        parts.push(if exp.workload.name() == base.workload.name() {
            format!("{}-params", exp.workload.name())
        } else {
            exp.workload.name().into()
        });
    }
    if exp.kernels != base.kernels {
        parts.push(exp.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join("-vs-"));
    }
    if exp.clients != base.clients {
        let c = &exp.clients;
        parts.push(match c.as_slice() {
            [one] => format!("c{one}"),
            [first, .., last] => format!("c{first}-{last}"),
            [] => "c".into(),
        });
    }
    if exp.duration_ms != base.duration_ms {
        parts.push(format!("{}ms", exp.duration_ms));
    }
    if exp.iterations != base.iterations {
        parts.push(format!("x{}", exp.iterations));
    }
    if exp.seed != base.seed {
        parts.push(format!("seed{}", exp.seed));
    }
    // Anything else (warm-up, shards, cgroups, threshold, costs): changed, unnamed.
    let named = schedsim::Experiment {
        machine: base.machine.clone(),
        workload: base.workload.clone(),
        kernels: base.kernels.clone(),
        clients: base.clients.clone(),
        duration_ms: base.duration_ms,
        iterations: base.iterations,
        seed: base.seed,
        ..exp.clone()
    };
    if named != base {
        parts.push("custom".into());
    }
    let stem: String = std::iter::once(format!("schedsim-{}", exp.name))
        .chain(parts)
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .take(100)
        .collect();
    stem.trim_end_matches('-').to_string()
}

/// `n` of what a workload's client count counts: the library's one wording, which the
/// CLI prints too ("1 client/server pair", "1 copy of the trace", "8 clients").
pub use schedsim::workload::count_of;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wasted_time() {
        assert_eq!(fmt_ns(0), "0");
        assert_eq!(fmt_ns(500), "0.5 µs");
        assert_eq!(fmt_ns(12_300), "12.3 µs");
        assert_eq!(fmt_ns(4_560_000), "4.56 ms");
        assert_eq!(fmt_ns(1_230_000_000), "1.23 s");
        assert_eq!(fmt_ns(u64::MAX), "18446744073.71 s");
    }

    #[test]
    fn times_and_durations() {
        assert_eq!(fmt_ms(12_345_600), "12.3456 ms");
        assert_eq!(fmt_ms(2_000_000), "2 ms");
        assert_eq!(fmt_ms(0), "0 ms");
        // The caption's durations: three significant digits, never raw ns digits.
        assert_eq!(fmt_duration(2_069_492), "2.07 ms");
        assert_eq!(fmt_duration(20_000_000), "20 ms");
        assert_eq!(fmt_duration(850_000), "850 µs");
        assert_eq!(fmt_duration(85_349), "85.3 µs");
        assert_eq!(fmt_duration(1_500), "1.5 µs");
        assert_eq!(fmt_duration(740), "740 ns");
        assert_eq!(fmt_duration(0), "0 ns");
        assert_eq!(fmt_duration(999_999), "1 ms");
        assert_eq!(fmt_duration(123_456_789), "123 ms");
        assert_eq!(fmt_duration(1_500_000_000), "1.5 s");
        assert_eq!(fmt_duration(u64::MAX), "18400000000 s");
        assert_eq!(fmt_ms_within(10_003_215, 2_069_492), "10.00 ms");
        assert_eq!(fmt_ms_within(12_072_707, 2_069_492), "12.07 ms");
        assert_eq!(fmt_ms_within(10_012_345, 50_000), "10.0123 ms");
        assert_eq!(fmt_ms_within(0, 20_000_000), "0.0 ms");
        assert_eq!(fmt_ms_within(1_234, 0), "0.001234 ms");
    }

    #[test]
    fn seconds_left() {
        assert_eq!(fmt_secs(-3.0), "0 s");
        assert_eq!(fmt_secs(f64::NAN), "0 s");
        assert_eq!(fmt_secs(12.4), "12 s");
        assert_eq!(fmt_secs(59.6), "1 min 0 s");
        assert_eq!(fmt_secs(185.0), "3 min 5 s");
    }

    #[test]
    fn counts() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn file_names() {
        assert_eq!(sanitize("seed 002: 8,192 clients"), "seed-002--8-192-clients");
        assert_eq!(sanitize("a_b-C9"), "a_b-C9");
        assert_eq!(sanitize("µs"), "-s");
        assert_eq!(sanitize(&"x".repeat(100)).len(), 60);
        assert_eq!(sanitize(""), "");
    }

    #[test]
    fn an_edited_preset_is_named_from_what_changed() {
        let demo = schedsim::presets::experiment("demo").unwrap();
        assert_eq!(export_stem(&demo), "schedsim-demo");
        let mut e = demo.clone();
        e.kernels[0] = schedsim::KernelSpec::new("v5.15+sis-prev-idle", schedsim::KernelVersion::V5_15)
            .with(schedsim::Switch::SisPrevIdle, true);
        e.clients = vec![1, 16];
        assert_eq!(export_stem(&e), "schedsim-demo-v5-15-sis-prev-idle-vs-v5-15-c1-16");
        let mut w = demo.clone();
        w.warmup_ms = 3;
        w.duration_ms = 50;
        assert_eq!(export_stem(&w), "schedsim-demo-50ms-custom");
        let mut t = demo.clone();
        t.machine.topology = Some(schedsim::topology::TopologyInput::Spec("2x1x16x2".into()));
        assert_eq!(export_stem(&t), "schedsim-demo-2x1x16x2");
        // A name the user gave is kept; none is "custom".
        let mut mine = e.clone();
        mine.name = "my run".into();
        assert_eq!(export_stem(&mine), "schedsim-my-run");
        mine.name.clear();
        assert_eq!(export_stem(&mine), "schedsim-custom");
    }

    #[test]
    fn one_of_a_count_is_singular() {
        assert_eq!(count_of(1, "client/server pairs"), "1 client/server pair");
        assert_eq!(count_of(1, "copies of the trace"), "1 copy of the trace");
        assert_eq!(count_of(1, "message threads"), "1 message thread");
        assert_eq!(count_of(2, "copies of the trace"), "2 copies of the trace");
        assert_eq!(count_of(0, "groups"), "0 groups");
    }
}
