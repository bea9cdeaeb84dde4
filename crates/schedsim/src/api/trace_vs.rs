//! Two real traces side by side (`schedsim replay A --vs B`, the page's second trace):
//! the statistics the replay table gives a trace ([`WakeStats`], the switches), for
//! both, with B's change against A, overall and per task name (the comm; a name in one
//! trace only is listed with a dash for the other). The windows may differ in length, so
//! counts are also given per second; the machines may differ, and the table says so.

use crate::api::experiment::MachineSpec;
use crate::facts::recording::WakeRecord;
use crate::facts::sched_trace::Trace;
use crate::facts::topology::{Distance, TopologyInput};
use crate::facts::wake_stats::WakeStats;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Most task names the per-name rows list (the busiest first); the rest are counted.
pub const TASK_ROWS_MAX: usize = 40;

/// One trace's column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    pub name: String,
    pub sha256: String,
    pub cpus: u32,
    pub span_ns: u64,
    #[serde(flatten)]
    pub stats: WakeStats,
    /// Switch-outs of tasks: (voluntary, involuntary).
    pub switches: (u64, u64),
}

/// A task name's wakeups in one trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NameStats {
    pub wakeups: u64,
    pub migrations: u64,
    pub run_delay_p50_us: f64,
}

/// A task name's row: its numbers in A and in B (`None`: no such task there).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NameRow {
    pub name: String,
    pub a: Option<NameStats>,
    pub b: Option<NameStats>,
}

/// Two traces compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceVs {
    pub a: Side,
    pub b: Side,
    /// Why the two are not one machine's (their CPU counts differ), if they are not.
    pub machines_differ: Option<String>,
    /// The busiest task names (by wakeups in both), at most [`TASK_ROWS_MAX`].
    pub names: Vec<NameRow>,
    /// Task names not listed.
    pub names_left_out: usize,
}

fn side(t: &Trace, distance: &dyn Fn(u32, u32) -> Distance) -> Side {
    Side {
        name: t.name.clone(),
        sha256: t.sha256.clone(),
        cpus: t.cpus,
        span_ns: t.span_ns,
        stats: WakeStats::of(&t.wakes, distance, t.busy_share),
        switches: t.switches,
    }
}

/// Per task name (comm), the wakeups of its tasks.
fn by_name(t: &Trace, distance: &dyn Fn(u32, u32) -> Distance) -> BTreeMap<String, NameStats> {
    let mut groups: BTreeMap<&str, Vec<WakeRecord>> = BTreeMap::new();
    for w in &t.wakes {
        let name = t.tasks.get(w.wakee as usize).map_or("?", |k| k.name.as_str());
        groups.entry(name).or_default().push(w.clone());
    }
    groups
        .into_iter()
        .map(|(name, recs)| {
            let s = WakeStats::of(&recs, distance, 0.0);
            (
                name.to_string(),
                NameStats { wakeups: s.wakeups, migrations: s.migrations, run_delay_p50_us: s.run_delay_us.p50 },
            )
        })
        .collect()
}

/// `a` and `b` side by side; `distance_a` and `distance_b` place two CPUs of the machine
/// each trace is read on (as the replay table's observed column does).
pub fn compare_traces(
    a: &Trace,
    b: &Trace,
    distance_a: &dyn Fn(u32, u32) -> Distance,
    distance_b: &dyn Fn(u32, u32) -> Distance,
) -> TraceVs {
    let (na, nb) = (by_name(a, distance_a), by_name(b, distance_b));
    let mut names: Vec<NameRow> = na
        .keys()
        .chain(nb.keys().filter(|k| !na.contains_key(*k)))
        .map(|k| NameRow { name: k.clone(), a: na.get(k).cloned(), b: nb.get(k).cloned() })
        .collect();
    let busy = |r: &NameRow| r.a.as_ref().map_or(0, |s| s.wakeups) + r.b.as_ref().map_or(0, |s| s.wakeups);
    // The busiest first; names in order among equals (the map's order, kept by a stable sort).
    names.sort_by_key(|r| std::cmp::Reverse(busy(r)));
    let names_left_out = names.len().saturating_sub(TASK_ROWS_MAX);
    names.truncate(TASK_ROWS_MAX);
    let machines_differ = (a.cpus != b.cpus)
        .then(|| format!("the traces come from machines of {} and {} CPUs: compare shares and rates", a.cpus, b.cpus));
    TraceVs { a: side(a, distance_a), b: side(b, distance_b), machines_differ, names, names_left_out }
}

/// The machine a trace is read on when none is given: its CPU count as one LLC of
/// single-thread cores (`1x1xNx1`). The CLI says so on stderr; the page, in its table.
pub fn own_machine(t: &Trace) -> MachineSpec {
    let spec = format!("1x1x{}x1", t.cpus.max(1));
    MachineSpec { preset: None, topology: Some(TopologyInput::Spec(spec)), costs: None, preempt: None }
}

/// `a` read on machine `ma` beside `b` read on `mb` (`schedsim replay A --vs B`, and the
/// page's second trace on [`own_machine`]s): an error names a machine that does not
/// resolve or a trace CPU past its machine's (with the trace's line).
pub fn compare_on(a: &Trace, ma: &MachineSpec, b: &Trace, mb: &MachineSpec) -> Result<TraceVs, String> {
    let map_of = |t: &Trace, m: &MachineSpec| -> Result<crate::facts::topology::CpuMap, String> {
        let r = m.resolve().map_err(|e| e.0)?;
        t.check_cpus(r.map.nr_cpus()).map_err(|e| e.to_string())?;
        Ok(r.map)
    };
    let (ma, mb) = (map_of(a, ma)?, map_of(b, mb)?);
    let da = |x: u32, y: u32| ma.distance(x.min(ma.nr_cpus() - 1), y.min(ma.nr_cpus() - 1));
    let db = |x: u32, y: u32| mb.distance(x.min(mb.nr_cpus() - 1), y.min(mb.nr_cpus() - 1));
    Ok(compare_traces(a, b, &da, &db))
}

/// B's change against A, in percent ("-" when A is 0).
fn change(a: f64, b: f64) -> String {
    if a == 0.0 {
        if b == 0.0 {
            "0.0%".into()
        } else {
            "-".into()
        }
    } else {
        format!("{:+.1}%", (b - a) * 100.0 / a)
    }
}

impl TraceVs {
    /// The overall rows: (statistic, A, B, change), as [`TraceVs::table`] prints them
    /// and the page draws them.
    pub fn rows(&self) -> Vec<(String, String, String, String)> {
        let mut rows = Vec::new();
        let mut row = |name: &str, f: &dyn Fn(&Side) -> f64, digits: usize| {
            let (x, y) = (f(&self.a), f(&self.b));
            rows.push((name.to_string(), format!("{x:.digits$}"), format!("{y:.digits$}"), change(x, y)));
        };
        let per_s = |n: u64, s: &Side| n as f64 / (s.span_ns.max(1) as f64 / 1e9);
        let share =
            |n: u64, s: &Side| if s.stats.wakeups == 0 { 0.0 } else { n as f64 * 100.0 / s.stats.wakeups as f64 };
        row("window (ms)", &|s| s.span_ns as f64 / 1e6, 1);
        row("wakeups", &|s| s.stats.wakeups as f64, 0);
        row("wakeups per second", &|s| per_s(s.stats.wakeups, s), 0);
        row("  from a task (%)", &|s| share(s.stats.by_waker.task, s), 2);
        row("  from a kernel thread (%)", &|s| share(s.stats.by_waker.kernel_thread, s), 2);
        row("  from idle, an interrupt (%)", &|s| share(s.stats.by_waker.idle, s), 2);
        row("migrations / 1000 wakeups", &|s| s.stats.migrations_per_1000_wakeups, 1);
        row("run delay p50 (us)", &|s| s.stats.run_delay_us.p50, 1);
        row("run delay p95 (us)", &|s| s.stats.run_delay_us.p95, 1);
        row("run delay p99 (us)", &|s| s.stats.run_delay_us.p99, 1);
        row("CPU busy share", &|s| s.stats.cpu_busy_share, 3);
        row("voluntary switches per second", &|s| per_s(s.switches.0, s), 0);
        row("involuntary switches per second", &|s| per_s(s.switches.1, s), 0);
        rows
    }

    /// Per task name: (name, A's wakeups per second, B's, change, A's run delay p50, B's).
    pub fn name_rows(&self) -> Vec<[String; 6]> {
        let per_s = |s: &Option<NameStats>, side: &Side| {
            s.as_ref().map(|n| n.wakeups as f64 / (side.span_ns.max(1) as f64 / 1e9))
        };
        let cell = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |x| format!("{x:.d$}"));
        self.names
            .iter()
            .map(|r| {
                let (wa, wb) = (per_s(&r.a, &self.a), per_s(&r.b, &self.b));
                let ch = match (wa, wb) {
                    (Some(x), Some(y)) => change(x, y),
                    (None, Some(_)) => "B only".into(),
                    _ => "A only".into(),
                };
                [
                    r.name.clone(),
                    cell(wa, 0),
                    cell(wb, 0),
                    ch,
                    cell(r.a.as_ref().map(|n| n.run_delay_p50_us), 1),
                    cell(r.b.as_ref().map(|n| n.run_delay_p50_us), 1),
                ]
            })
            .collect()
    }

    /// The comparison as text: the two traces, the overall rows, the per-name rows.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for (tag, s) in [("A", &self.a), ("B", &self.b)] {
            let sha = s.sha256.get(..12).unwrap_or(&s.sha256);
            let _ =
                writeln!(out, "{tag}: {} ({} CPUs, {:.3} ms, sha256 {sha})", s.name, s.cpus, s.span_ns as f64 / 1e6);
        }
        if let Some(m) = &self.machines_differ {
            let _ = writeln!(out, "note: {m}");
        }
        out.push('\n');
        let rows = self.rows();
        let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let w = rows.iter().flat_map(|r| [r.1.len(), r.2.len(), r.3.len()]).max().unwrap_or(0).max(8);
        let _ = writeln!(out, "{:<w0$}  {:>w$}  {:>w$}  {:>w$}", "", "A", "B", "B vs A");
        for (n, a, b, c) in &rows {
            let _ = writeln!(out, "{n:<w0$}  {a:>w$}  {b:>w$}  {c:>w$}");
        }
        let names = self.name_rows();
        if !names.is_empty() {
            let heads = ["task name", "wakeups/s A", "wakeups/s B", "B vs A", "delay p50 A", "delay p50 B"];
            let widths: Vec<usize> =
                (0..6).map(|i| names.iter().map(|r| r[i].len()).chain([heads[i].len()]).max().unwrap_or(0)).collect();
            out.push('\n');
            // The name left-aligned, the numbers right-aligned.
            let mut line = |cells: &[String]| {
                for (i, c) in cells.iter().enumerate() {
                    let _ = if i == 0 {
                        write!(out, "{c:<w$}", w = widths[0])
                    } else {
                        write!(out, "  {c:>w$}", w = widths[i])
                    };
                }
                out.push('\n');
            };
            line(&heads.map(String::from));
            for r in &names {
                line(r);
            }
            if self.names_left_out > 0 {
                let _ = writeln!(out, "({} more task names, with fewer wakeups)", self.names_left_out);
            }
            let _ = writeln!(out, "(run delay p50 in us; a name in one trace only has a dash in the other)");
        }
        out
    }
}
