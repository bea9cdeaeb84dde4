//! Our own rt-app task sets (`workloads/rtapp/*.json`, written for this project; the
//! Debian package's examples are GPL-2 and stay in the package): `--workload rtapp:NAME`
//! in the CLI and the rt-app examples list in the page. Each runs under the real
//! `rt-app` 1.0 too; `traces/rtapp/` holds a quiet-box `perf sched` trace of each.

/// (name, what it shows, the file's text).
pub const RTAPP_PRESETS: &[(&str, &str, &str)] = &[
    (
        "pingpong",
        "two threads hand the CPU to each other over a condition variable (a pipe-like pair)",
        include_str!("../../../../../../workloads/rtapp/pingpong.json"),
    ),
    (
        "chain",
        "a producer on a 4 ms timer signals a consumer (condition variable under a mutex)",
        include_str!("../../../../../../workloads/rtapp/chain.json"),
    ),
    (
        "periodic",
        "audio, video and UI threads on timers of 10, 16.7 and 33.3 ms (0.40 of a CPU)",
        include_str!("../../../../../../workloads/rtapp/periodic.json"),
    ),
    (
        "convoy",
        "a lock convoy: three threads each hold one mutex for 400 us",
        include_str!("../../../../../../workloads/rtapp/convoy.json"),
    ),
    (
        "barrier",
        "three threads of 1, 2 and 3 ms of work meet at a barrier every step",
        include_str!("../../../../../../workloads/rtapp/barrier.json"),
    ),
];

/// The preset called `name`, as (file name, text).
pub fn rtapp_preset(name: &str) -> Option<(String, &'static str)> {
    RTAPP_PRESETS.iter().find(|p| p.0 == name).map(|p| (format!("{}.json", p.0), p.2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::workload::RtappParams;

    /// Every preset reads, with no note on a task (only the global settings' notes: how
    /// `duration` and `calibration` map): each task uses only what the model runs.
    #[test]
    fn every_preset_reads_with_no_note_on_a_task() {
        for (name, _, text) in RTAPP_PRESETS {
            let r = RtappParams::new(&format!("{name}.json"), text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(r.threads() >= 2, "{name}: {} threads", r.threads());
            assert!(r.notes().iter().all(|n| n.starts_with("global.")), "{name}: {:?}", r.notes());
        }
        assert_eq!(rtapp_preset("chain").map(|p| p.0), Some("chain.json".to_string()));
        assert!(rtapp_preset("chain.json").is_none());
    }
}
