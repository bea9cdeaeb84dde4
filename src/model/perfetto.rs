//! Perfetto export: which run and which window of it `Experiment::perfetto` records.

use serde::{Deserialize, Serialize};

/// Default window length.
pub const WINDOW_NS: u64 = 5_000_000;

/// One Perfetto export, as asked by the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerfettoAsk {
    pub kernel: u32,
    pub clients: u32,
    pub iteration: u32,
    pub from_ns: u64,
    pub to_ns: u64,
}

/// The default window: 5 ms around live mode's current time, or the first 5 ms after the
/// warm-up; within the run.
pub fn default_window(live_now_ns: Option<u64>, warmup_ms: u64, duration_ms: u64) -> (u64, u64) {
    let end = duration_ms.saturating_mul(1_000_000);
    let from = match live_now_ns {
        Some(now) => now.saturating_sub(WINDOW_NS / 2),
        None => warmup_ms.saturating_mul(1_000_000),
    };
    let from = from.min(end.saturating_sub(WINDOW_NS.min(end)));
    (from, (from + WINDOW_NS).min(end))
}

/// Parses the window's "from" and "to" fields, in ms.
pub fn parse_window(from_ms: &str, to_ms: &str, duration_ms: u64) -> Result<(u64, u64), String> {
    let ms = |s: &str, what: &str| -> Result<u64, String> {
        let v: f64 = s.trim().parse().map_err(|_| format!("{what}: a number of ms"))?;
        if !(v.is_finite() && v >= 0.0) {
            return Err(format!("{what}: a number of ms from 0"));
        }
        Ok((v * 1e6).round() as u64)
    };
    let (f, t) = (ms(from_ms, "from")?, ms(to_ms, "to")?);
    if f >= t {
        return Err("the window's end must be after its start".into());
    }
    if t > duration_ms * 1_000_000 {
        return Err(format!("the run lasts {duration_ms} ms"));
    }
    Ok((f, t))
}

/// The downloaded file's name; an iteration other than 0 is named in it.
pub fn file_name(stem: &str, kernel_name: &str, a: &PerfettoAsk) -> String {
    let clean = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect::<String>()
    };
    let iteration = if a.iteration == 0 { String::new() } else { format!("-i{}", a.iteration) };
    format!(
        "{}-{}-c{}{}-{}-{}us.perfetto.json",
        clean(stem),
        clean(kernel_name),
        a.clients,
        iteration,
        a.from_ns / 1000,
        a.to_ns / 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows() {
        assert_eq!(default_window(None, 100, 1000), (100_000_000, 105_000_000));
        assert_eq!(default_window(Some(10_000_000), 100, 1000), (7_500_000, 12_500_000));
        assert_eq!(default_window(Some(1_000_000), 100, 1000), (0, 5_000_000));
        assert_eq!(default_window(Some(999_000_000), 0, 1000), (995_000_000, 1_000_000_000));
        assert_eq!(default_window(None, 0, 3), (0, 3_000_000));
        assert_eq!(parse_window("1.5", "6.5", 100), Ok((1_500_000, 6_500_000)));
        assert!(parse_window("6", "1", 100).is_err());
        assert!(parse_window("x", "1", 100).is_err());
        assert!(parse_window("1", "200", 100).unwrap_err().contains("100 ms"));
        let a = PerfettoAsk { kernel: 0, clients: 4, iteration: 0, from_ns: 1_000_000, to_ns: 6_000_000 };
        assert_eq!(file_name("schedsim-demo", "v4.15 a/b", &a), "schedsim-demo-v4_15_a_b-c4-1000-6000us.perfetto.json");
        let a = PerfettoAsk { iteration: 2, ..a };
        assert_eq!(file_name("schedsim-demo", "v4.15", &a), "schedsim-demo-v4_15-c4-i2-1000-6000us.perfetto.json");
    }

    /// The library's export for the default window parses and has events.
    #[test]
    fn export_parses() {
        let exp = schedsim::presets::experiment("demo").unwrap();
        let (f, t) = default_window(None, exp.warmup_ms, exp.duration_ms);
        let p = exp.perfetto(0, exp.clients[0], 0, f, t).unwrap();
        let v: serde_json::Value = serde_json::from_str(&p.json).unwrap();
        assert!(v["traceEvents"].as_array().map(|a| !a.is_empty()).unwrap_or(false));
    }
}
