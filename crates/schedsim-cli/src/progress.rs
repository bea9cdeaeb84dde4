//! The progress line on stderr: shown only once a run has taken about a second, only
//! when stderr is a terminal (or `--progress` asks for it), updated in place with `\r`
//! and wiped before the result is printed. Never touches stdout.

use schedsim::Progress;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);
const EVERY: Duration = Duration::from_millis(100);

pub struct ProgressLine {
    enabled: bool,
    start: Instant,
    last: Option<Instant>,
    width: usize,
}

/// Whether to show progress for the `--progress` / `--no-progress` choice.
pub fn wanted(force_on: bool, force_off: bool) -> bool {
    !force_off && (force_on || std::io::stderr().is_terminal())
}

impl ProgressLine {
    pub fn new(enabled: bool) -> ProgressLine {
        ProgressLine { enabled, start: Instant::now(), last: None, width: 0 }
    }

    /// The callback for `Experiment::run`; never cancels.
    pub fn update(&mut self, p: Progress) -> bool {
        let within = if p.run_ns > 0 { (p.sim_ns as f64 / p.run_ns as f64).min(1.0) } else { 0.0 };
        self.update_parts(p.runs_done, p.runs_total, within);
        true
    }

    /// `runs_done` of `runs_total` finished, and `in_flight` runs' worth done of those
    /// running (a fraction per running run, summed).
    pub fn update_parts(&mut self, runs_done: u32, runs_total: u32, in_flight: f64) {
        if !self.enabled || runs_total == 0 {
            return;
        }
        let now = Instant::now();
        let elapsed = now - self.start;
        if elapsed < SHOW_AFTER || self.last.is_some_and(|l| now - l < EVERY) {
            return;
        }
        self.last = Some(now);
        let frac = ((runs_done as f64 + in_flight) / runs_total as f64).min(1.0);
        let mut line = format!(
            "schedsim: {}/{} runs done ({:.0}%), {:.0} s",
            runs_done,
            runs_total,
            frac * 100.0,
            elapsed.as_secs_f64()
        );
        if frac > 0.02 {
            let left = elapsed.as_secs_f64() * (1.0 - frac) / frac;
            line.push_str(&format!(", about {left:.0} s left"));
        }
        let pad = self.width.saturating_sub(line.len());
        self.width = self.width.max(line.len());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}{:pad$}", "");
        let _ = err.flush();
    }

    /// Wipes the line if it was shown.
    pub fn finish(&mut self) {
        if self.enabled && self.last.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{:w$}\r", "", w = self.width);
            let _ = err.flush();
        }
    }
}
