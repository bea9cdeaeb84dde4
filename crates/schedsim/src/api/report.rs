//! Reports: the versioned JSON result of an experiment, and its renderings — the
//! mmtests `compare-kernels.sh` comparison table and CSV of per-iteration samples.

use crate::api::experiment::Experiment;
use crate::facts::metrics::{amean, hmean, pct, stddev, Counters, Percentiles};
use crate::facts::workload::MetricInfo;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

pub const REPORT_VERSION: u32 = 1;

/// Results of one kernel at one client count, over all iterations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub clients: u32,
    /// The workload's metric, one per iteration.
    pub samples: Vec<f64>,
    /// False if a workload with a fixed amount of work (hackbench) hit the duration.
    pub finished: bool,
    /// Simulated time of all iterations.
    pub elapsed_ns: u64,
    /// Counters summed over iterations.
    pub counters: Counters,
    pub wakeup_latency: Percentiles,
    pub request_latency: Percentiles,
    /// The first moments the wasted-core invariant broke (at most 16 per iteration).
    #[serde(default)]
    pub wasted_moments: Vec<crate::facts::recording::WastedMoment>,
}

impl PointResult {
    /// Hmean for throughput, Amean for times (as mmtests summarises them).
    pub fn summary(&self, m: &MetricInfo) -> f64 {
        if m.higher_is_better {
            hmean(&self.samples)
        } else {
            amean(&self.samples)
        }
    }

    pub fn stddev(&self) -> f64 {
        stddev(&self.samples)
    }

    /// False when an iteration measured nothing (a sample of 0: no request completed
    /// in the window) or there are no samples: the Hmean/Amean is then no measurement.
    pub fn measured(&self) -> bool {
        !self.samples.is_empty() && self.samples.iter().all(|v| v.is_finite() && *v > 0.0)
    }
}

/// One kernel configuration's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    pub name: String,
    /// `PRESET+SWITCH-SWITCH`.
    pub label: String,
    /// Why this combination never shipped, if it did not.
    pub non_historical: Vec<String>,
    pub points: Vec<PointResult>,
}

impl ConfigResult {
    /// Counters summed over every client count.
    pub fn total(&self) -> Counters {
        let mut c = Counters::default();
        for p in &self.points {
            c.add(&p.counters);
        }
        c
    }

    pub fn elapsed_ns(&self) -> u64 {
        self.points.iter().map(|p| p.elapsed_ns).sum()
    }
}

/// The result of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub version: u32,
    pub generator: String,
    pub machine: String,
    pub nr_cpus: u32,
    pub metric: MetricInfo,
    pub cstates: Vec<String>,
    pub experiment: Experiment,
    pub configs: Vec<ConfigResult>,
}

/// The change against the base in percent, + is better; `None` when there is none to
/// give (a base of 0 with another value: mmtests' `pdiff` prints 100% or 0% there).
fn gain(base: f64, v: f64, higher_is_better: bool) -> Option<f64> {
    if base == v {
        return Some(0.0);
    }
    if base == 0.0 {
        return None;
    }
    Some(if higher_is_better { (v - base) / base * 100.0 } else { (base - v) / base * 100.0 })
}

/// One cell of the Hmean/Stddev rows: the value and its change, or "n/a" for what was
/// not measured, never a made-up "0.00 (0.00%)".
fn cell(s: &mut String, v: Option<f64>, change: Option<f64>, d: usize) {
    match v {
        Some(v) => {
            let _ = write!(s, "{v:>12.d$}");
        }
        None => {
            let _ = write!(s, "{:>12}", "n/a");
        }
    }
    match change {
        Some(g) => {
            let _ = write!(s, " ({g:>7.2}%)");
        }
        None => {
            let _ = write!(s, " ({:>8})", "n/a");
        }
    }
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Report, String> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let r = serde_path_to_error::deserialize(&mut *de)
            .map_err(|e| format!("report field {}: {}", e.path(), e.inner()))?;
        de.end().map_err(|e| format!("a report is one JSON object, but more follows it: {e}"))?;
        Ok(r)
    }

    /// The mmtests comparison table (`compare-kernels.sh` layout): one Hmean (or
    /// Amean) row per client count with the change against the first kernel, Stddev
    /// rows, then CPU time, migrations and wakeup path statistics.
    pub fn mmtests_table(&self) -> String {
        let mut s = String::new();
        let m = &self.metric;
        // "tbench throughput", but "replay throughput", not "replay replay throughput".
        let workload = self.experiment.workload.name();
        let what = if m.name.starts_with(workload) { m.name.to_string() } else { format!("{workload} {}", m.name) };
        let _ = writeln!(
            s,
            "{what} ({}, {} per column), {} on {} ({} CPUs)",
            m.unit,
            if m.higher_is_better { "higher is better" } else { "lower is better" },
            self.experiment.name,
            self.machine,
            self.nr_cpus
        );
        for c in &self.configs {
            for why in &c.non_historical {
                let _ = writeln!(s, "note: {} ({}) never existed as such: {why}", c.name, c.label);
            }
        }
        let _ = writeln!(s);
        // Header: preset label over name, right-aligned to each column.
        let (mut h1, mut h2) = (String::new(), String::new());
        for (i, c) in self.configs.iter().enumerate() {
            let w = if i == 0 { 36 } else { 23 };
            let preset = c.label.split(['+', '-']).next().unwrap_or("");
            let _ = write!(h1, "{:>w$}", preset);
            let _ = write!(h2, "{:>w$}", truncate(&c.name, TABLE_NAME_CHARS));
        }
        let _ = writeln!(s, "{h1}\n{h2}");
        let label = if m.higher_is_better { "Hmean" } else { "Amean" };
        let base_points = &self.configs[0].points;
        // Two decimals as mmtests prints, more for sub-unit values (hackbench seconds).
        let big = self.configs.iter().flat_map(|c| &c.points).map(|p| p.summary(m)).fold(0.0, f64::max);
        let d = if big < 1.0 { 4 } else { 2 };
        // A point where an iteration measured nothing has no mean, stddev or change.
        let summary = |p: &PointResult| p.measured().then(|| p.summary(m));
        let spread = |p: &PointResult| p.measured().then(|| p.stddev());
        let mut unmeasured = false;
        for (rows, value, higher) in
            [(label, &summary as &dyn Fn(&PointResult) -> Option<f64>, m.higher_is_better), ("Stddev", &spread, false)]
        {
            for (pi, bp) in base_points.iter().enumerate() {
                let base = value(bp);
                unmeasured |= base.is_none();
                let _ = write!(s, "{:<10}{:<3}", rows, bp.clients);
                cell(&mut s, base, base.map(|_| 0.0), d);
                for c in &self.configs[1..] {
                    // A report cut short by a failure may lack a column's later points.
                    match c.points.get(pi) {
                        Some(p) => {
                            let v = value(p);
                            unmeasured |= v.is_none();
                            let change = base.zip(v).and_then(|(b, v)| gain(b, v, higher));
                            cell(&mut s, v, change, d);
                        }
                        None => s.push_str(&format!("{:>12} {:>10}", "-", "")),
                    }
                }
                s.push('\n');
            }
        }
        if base_points.iter().any(|p| !p.finished) {
            let _ = writeln!(s, "(some iterations hit the duration before the work was done)");
        }
        if unmeasured {
            let _ = writeln!(s, "(n/a: an iteration measured nothing there, so there is no mean to compare)");
        }
        s.push('\n');
        let (mut h1, mut h2) = (String::new(), String::new());
        for (i, c) in self.configs.iter().enumerate() {
            let w = if i == 0 { 20 } else { 12 };
            let preset = c.label.split(['+', '-']).next().unwrap_or("");
            let _ = write!(h1, "{:>w$}", preset);
            let _ = write!(h2, "{:>w$}", truncate(&c.name, COUNTERS_NAME_CHARS));
        }
        let _ = writeln!(s, "{h1}\n{h2}");
        let totals: Vec<Counters> = self.configs.iter().map(|c| c.total()).collect();
        /// How a counter row prints: seconds and percentages with two decimals, counts whole.
        enum Shown {
            TwoDecimals,
            Whole,
        }
        use Shown::{TwoDecimals, Whole};
        type Row = (&'static str, fn(&Counters, &ConfigResult) -> f64, Shown);
        let rows: [Row; 17] = [
            ("User", |t, _| secs(t.user_ns), TwoDecimals),
            ("System", |t, _| secs(t.system_ns), TwoDecimals),
            ("Elapsed", |_, c| secs(c.elapsed_ns()), TwoDecimals),
            ("Wakeups", |t, _| t.wakeups as f64, Whole),
            ("Migrate", |t, _| t.migrations as f64, Whole),
            ("MigSMT", |t, _| t.migrations_smt as f64, Whole),
            ("MigLLC", |t, _| t.migrations_llc as f64, Whole),
            ("MigXLLC", |t, _| t.migrations_cross_llc as f64, Whole),
            ("MigXNode", |t, _| t.migrations_cross_node as f64, Whole),
            ("AffMove", |t, _| t.affine_moves as f64, Whole),
            ("SISProbe", |t, _| t.sis_probed as f64, Whole),
            // No attempt at all is "n/a", not a 0% hit rate.
            ("SISRecnt%", |t, _| if t.sis_recent_attempts == 0 { f64::NAN } else { t.recent_hit_pct() }, TwoDecimals),
            ("IPIs", |t, _| t.ipis as f64, Whole),
            ("CtxSw", |t, _| t.context_switches as f64, Whole),
            ("Preempt", |t, _| t.preemptions as f64, Whole),
            ("Spin(s)", |t, _| secs(t.lock_spin_ns), TwoDecimals),
            ("Wasted(s)", |t, _| secs(t.wasted_core_ns), TwoDecimals),
        ];
        for (name, f, shown) in rows {
            let _ = write!(s, "{name:<8}");
            for (t, c) in totals.iter().zip(&self.configs) {
                let v = f(t, c);
                if v.is_nan() {
                    let _ = write!(s, "{:>12}", "n/a");
                } else if let TwoDecimals = shown {
                    let _ = write!(s, "{v:>12.2}");
                } else {
                    let _ = write!(s, "{v:>12.0}");
                }
            }
            s.push('\n');
        }
        s
    }

    /// Per-iteration samples as CSV: kernel,clients,iteration,value. Iterations count
    /// from 0, as `--iteration`, the Perfetto export and the Diff view name them.
    pub fn samples_csv(&self) -> String {
        let mut s = format!("kernel,label,clients,iteration,{} ({})\n", self.metric.name, self.metric.unit);
        for c in &self.configs {
            for p in &c.points {
                for (i, v) in p.samples.iter().enumerate() {
                    let _ = writeln!(s, "{},{},{},{},{:.4}", csv_field(&c.name), csv_field(&c.label), p.clients, i, v);
                }
            }
        }
        s
    }

    /// Summary counters per kernel and client count as CSV. `recent_hit_pct` is empty
    /// where no `recent_used_cpu` candidate was tried (a rate of nothing, not 0%);
    /// `recent_hits` and `recent_attempts` let a rate over several client counts be
    /// summed as the kernel's counters are (hits over attempts, not a mean of rates).
    pub fn counters_csv(&self) -> String {
        let mut s = String::from(
            "kernel,clients,summary,stddev,user_s,system_s,idle_s,wakeups,migrations,mig_smt,mig_llc,mig_cross_llc,mig_cross_node,affine_moves,sis_probed,recent_hit_pct,ipis,wakeup_p99_ns,request_p99_ns,recent_hits,recent_attempts\n",
        );
        for c in &self.configs {
            for p in &c.points {
                let t = &p.counters;
                let _ = writeln!(
                    s,
                    "{},{},{:.4},{:.4},{:.6},{:.6},{:.6},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    csv_field(&c.name),
                    p.clients,
                    p.summary(&self.metric),
                    p.stddev(),
                    t.user_ns as f64 / 1e9,
                    t.system_ns as f64 / 1e9,
                    t.idle_ns as f64 / 1e9,
                    t.wakeups,
                    t.migrations,
                    t.migrations_smt,
                    t.migrations_llc,
                    t.migrations_cross_llc,
                    t.migrations_cross_node,
                    t.affine_moves,
                    t.sis_probed,
                    if t.sis_recent_attempts == 0 {
                        String::new()
                    } else {
                        format!("{:.2}", pct(t.sis_recent_hits, t.sis_recent_attempts))
                    },
                    t.ipis,
                    p.wakeup_latency.p99_ns,
                    p.request_latency.p99_ns,
                    t.sis_recent_hits,
                    t.sis_recent_attempts
                );
            }
        }
        s
    }
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// How many characters of a kernel's name the mmtests table's column head keeps (its
/// columns are 22 wide, as compare-kernels prints them).
pub const TABLE_NAME_CHARS: usize = 21;
/// ...and the counters table below it (columns 12 wide).
pub const COUNTERS_NAME_CHARS: usize = 11;

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A CSV field as RFC 4180 writes it: quoted, with its quotes doubled, when it holds a
/// comma, a quote or a line break, or begins or ends with a space (kernel names may).
/// A name a spreadsheet would run as a formula (starting `=`, `+`, `-`, `@`, a tab or a
/// carriage return: OWASP's "CSV injection") is quoted with a `'` first, which the
/// spreadsheet shows as text.
fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("\"'{}\"", s.replace('"', "\"\"")).into()
    } else if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn csv_fields_are_quoted_and_formulas_disarmed() {
        assert_eq!(csv_field("v5.15"), "v5.15");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        // Issue 42: kernel names starting =, +, -, @ went into CSV as formulas.
        for name in ["=1+1", "+x", "-y", "@SUM(A1)", "\tz"] {
            let f = csv_field(name);
            assert!(f.starts_with("\"'"), "{name}: {f}");
        }
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    }
}
