//! A run's wakeups as data, for the replay's table of what the machine did beside what
//! the model does: one run with the recorder's wake log on, its [`WakeRecord`]s, its
//! CPU busy share and its headline number.

use crate::api::experiment::{Checks, Error, Experiment, MachineSpec, DURATION_MS_MAX};
use crate::facts::kernel::KernelSpec;
use crate::facts::metrics::Counters;
use crate::facts::recording::WakeRecord;
use crate::facts::sched_trace::Trace;
use crate::facts::wake_stats::{Agreement, WakeStats};
use crate::facts::workload::Workload;
use crate::state::recorder::Recorder;
use serde::Serialize;
use std::fmt::Write;

/// What one run's wake log holds.
#[derive(Clone, Debug)]
pub struct RunWakes {
    /// Every wakeup that led to its task running, in the order the tasks ran.
    pub records: Vec<WakeRecord>,
    /// Wakeups past the log's bound, counted only.
    pub dropped: u64,
    /// Share of CPU time not idle, over every CPU and the whole run.
    pub busy_share: f64,
    pub counters: Counters,
    /// The workload's headline number for this run, and whether it finished its work.
    pub value: f64,
    pub finished: bool,
    pub elapsed_ns: u64,
    /// Task names by task number.
    pub tasks: Vec<String>,
}

impl Experiment {
    /// Runs (kernel, clients, iteration) to its end with the wake log on. A replay's
    /// kernel threads are those its trace shows; in the benchmarks, those the model
    /// creates as kernel threads (per-CPU kworkers and `ksoftirqd`, `jbd2`, loop workers).
    pub fn wake_log(&self, kernel: usize, clients: u32, iteration: u32) -> Result<RunWakes, Error> {
        let mut e = self.clone();
        e.clients = vec![clients];
        let r = e.validate()?;
        if kernel >= self.kernels.len() {
            return Err(Error(format!("kernel index {kernel}: the experiment has {}", self.kernels.len())));
        }
        let mut sim = e.make_sim(&r, kernel, clients, iteration, None, Checks::Off);
        let kthread: Vec<bool> = match &self.workload {
            Workload::Replay(p) => {
                let per_copy = p.tasks.iter().map(|t| t.kthread);
                let mut v: Vec<bool> = (0..clients).flat_map(|_| per_copy.clone()).collect();
                v.resize(sim.tasks.len(), false);
                v
            }
            _ => sim.tasks.iter().map(|t| t.kthread).collect(),
        };
        sim.rec = Some(Recorder::wake_log_only(sim.cpus.len(), kthread));
        sim.run(&mut |_| true).map_err(Error)?;
        let out = sim.outcome();
        let c = &out.counters;
        let all = (c.user_ns + c.system_ns + c.idle_ns).max(1);
        let log = sim.rec.take().and_then(|r| r.wake_log);
        let (records, dropped) = log.map_or((Vec::new(), 0), |l| (l.records, l.dropped));
        Ok(RunWakes {
            records,
            dropped,
            busy_share: (c.user_ns + c.system_ns) as f64 / all as f64,
            counters: out.counters,
            value: out.sample.value,
            finished: out.sample.finished,
            elapsed_ns: out.elapsed_ns,
            tasks: sim.tasks.iter().map(|t| t.name.clone()).collect(),
        })
    }
}

/// Simulated time a replay may take, as a multiple of the traced span: a modelled
/// kernel much slower than the machine still finishes the trace's work, and a replay
/// that deadlocks (a wakeup the trace shows but the model cannot reproduce) ends.
pub const REPLAY_SPAN_FACTOR: u64 = 20;

/// One kernel's column beside the trace's: the same statistics of its replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Simulated {
    /// The kernel column's name and label.
    pub kernel: String,
    #[serde(flatten)]
    pub stats: WakeStats,
    /// Wakeup for wakeup: how often the model chose the machine's CPU.
    pub placement: Agreement,
    /// Traced work per simulated second over the recording's pace (1.00: as fast).
    pub replay_throughput: f64,
    /// Whether every traced task reached the end of its program.
    pub finished: bool,
    /// Simulated time the replay took, ns.
    pub elapsed_ns: u64,
    /// Wakeups past the wake log's bound, counted only.
    pub dropped: u64,
    /// Switch-outs of tasks: (voluntary, involuntary), as [`Comparison::switches`].
    pub switches: (u64, u64),
}

/// What the machine did beside what the model does: the trace's statistics and each
/// kernel's, by the one definition of [`WakeStats`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub trace_name: String,
    pub trace_sha256: String,
    pub trace_cpus: u32,
    pub span_ns: u64,
    pub machine: String,
    pub observed: WakeStats,
    /// The trace's switch-outs of its tasks: (voluntary, involuntary), by `prev_state`.
    pub switches: (u64, u64),
    pub simulated: Vec<Simulated>,
}

impl Experiment {
    /// A replay of `trace` on `machine` under `kernels`: one copy, one iteration, no
    /// warm-up (a trace is a finite piece of work, replayed whole), and at most
    /// [`REPLAY_SPAN_FACTOR`] times the traced span of simulated time.
    pub fn replay_of(trace: &Trace, machine: MachineSpec, kernels: Vec<KernelSpec>) -> Experiment {
        let span_ms = trace.span_ns.div_ceil(1_000_000).max(1);
        let duration = span_ms.saturating_mul(REPLAY_SPAN_FACTOR).clamp(10, DURATION_MS_MAX);
        let mut e = Experiment::new(
            &format!("replay of {}", trace.name),
            machine,
            Workload::Replay(trace.replay_params()),
            &[1],
            kernels,
        )
        .with_duration_ms(duration);
        e.warmup_ms = 0;
        e.iterations = 1;
        e
    }

    /// The table of a replay: `trace`'s statistics beside each kernel's replay of it
    /// (copy 0 of the first client count, iteration 0). The experiment's workload must
    /// be `trace`'s replay.
    pub fn compare_with(&self, trace: &Trace) -> Result<Comparison, Error> {
        let Workload::Replay(p) = &self.workload else {
            return Err(Error(format!("field workload: {} is not a replay of a trace", self.workload.name())));
        };
        if p.trace_sha256 != trace.sha256 {
            return Err(Error(format!(
                "field workload.trace_sha256: the experiment replays {} ({}), not this trace {} ({})",
                p.trace_name,
                short_sha(&p.trace_sha256),
                trace.name,
                short_sha(&trace.sha256)
            )));
        }
        let r = self.validate()?;
        let nr_cpus = r.map.nr_cpus();
        trace.check_cpus(nr_cpus).map_err(|e| Error(e.to_string()))?;
        // The trace's CPU numbers are Linux's; the machine's are the same numbers on a
        // preset or an imported topology, or the replay's map when it has one.
        let place = |c: u32| p.cpu_map.get(c as usize).copied().unwrap_or(c);
        let distance = |a: u32, b: u32| r.map.distance(a.min(nr_cpus - 1), b.min(nr_cpus - 1));
        let observed = WakeStats::of(&trace.wakes, |a, b| distance(place(a), place(b)), trace.busy_share);
        // Agreement compares CPUs: put the trace's in the machine's numbers (the same
        // numbers unless the replay has a CPU map).
        let observed_here: std::borrow::Cow<[WakeRecord]> = if p.cpu_map.is_empty() {
            std::borrow::Cow::Borrowed(&trace.wakes)
        } else {
            let here = |w: &WakeRecord| WakeRecord {
                waker_cpu: place(w.waker_cpu),
                last_cpu: w.last_cpu.map(place),
                ran_cpu: place(w.ran_cpu),
                ..w.clone()
            };
            std::borrow::Cow::Owned(trace.wakes.iter().map(here).collect())
        };
        let n = p.tasks.len() as u32;
        let clients = self.clients.first().copied().unwrap_or(1);
        let mut simulated = Vec::with_capacity(self.kernels.len());
        for (k, spec) in self.kernels.iter().enumerate() {
            let w = self.wake_log(k, clients, 0)?;
            simulated.push(Simulated {
                kernel: spec.name_with_label(),
                stats: WakeStats::of(&w.records, distance, w.busy_share),
                placement: Agreement::of(&observed_here, &w.records, |t| (t < n).then_some(t)),
                replay_throughput: w.value,
                finished: w.finished,
                elapsed_ns: w.elapsed_ns,
                dropped: w.dropped,
                switches: (w.counters.context_switches - w.counters.preemptions, w.counters.preemptions),
            });
        }
        Ok(Comparison {
            trace_name: trace.name.clone(),
            trace_sha256: trace.sha256.clone(),
            trace_cpus: trace.cpus,
            span_ns: trace.span_ns,
            machine: r.description.clone(),
            observed,
            switches: trace.switches,
            simulated,
        })
    }
}

fn short_sha(s: &str) -> &str {
    s.get(..12).unwrap_or(s)
}

impl Comparison {
    /// The table's title line: the trace, its size and the machine it is replayed on.
    pub fn title(&self) -> String {
        format!(
            "{} ({} CPUs, {:.3} ms, sha256 {}) on {}",
            self.trace_name,
            self.trace_cpus,
            self.span_ns as f64 / 1e6,
            short_sha(&self.trace_sha256),
            self.machine
        )
    }

    /// The table as text: a row per statistic, the trace's column then each kernel's.
    pub fn table(&self) -> String {
        let (head, rows) = self.rows();
        let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let widths: Vec<usize> = (0..head.len())
            .map(|i| rows.iter().map(|r| r.1[i].len()).chain([head[i].len()]).max().unwrap_or(0))
            .collect();
        let mut out = format!("{}\n\n", self.title());
        let _ = write!(out, "{:<w0$}", "");
        for (h, w) in head.iter().zip(&widths) {
            let _ = write!(out, "  {h:>w$}");
        }
        out.push('\n');
        for (name, cells) in &rows {
            let _ = write!(out, "{name:<w0$}");
            for (c, w) in cells.iter().zip(&widths) {
                let _ = write!(out, "  {c:>w$}");
            }
            out.push('\n');
        }
        out
    }

    /// The table's cells, as [`Comparison::table`] prints them: the column heads
    /// ("observed", then each kernel) and one (statistic, cells) row per statistic; a
    /// sub-row's name starts with two spaces. The page draws its HTML table from these,
    /// so both show the same rows and numbers.
    pub fn rows(&self) -> (Vec<String>, Vec<(String, Vec<String>)>) {
        let mut head = vec!["observed".to_string()];
        head.extend(self.simulated.iter().map(|s| s.kernel.clone()));
        let cols: Vec<&WakeStats> =
            std::iter::once(&self.observed).chain(self.simulated.iter().map(|s| &s.stats)).collect();
        let mut rows: Vec<(String, Vec<String>)> = Vec::new();
        let mut row = |name: &str, f: &dyn Fn(&WakeStats) -> String| {
            rows.push((name.to_string(), cols.iter().map(|c| f(c)).collect()))
        };
        row("wakeups", &|s| s.wakeups.to_string());
        row("  from a task", &|s| s.by_waker.task.to_string());
        row("  from a kernel thread", &|s| s.by_waker.kernel_thread.to_string());
        row("  from idle (interrupt)", &|s| s.by_waker.idle.to_string());
        row("migrations / 1000 wakeups", &|s| format!("{:.1}", s.migrations_per_1000_wakeups));
        // Counts, not per 1000 wakeups as the row above: the unit says so.
        row("  SMT sibling (count)", &|s| s.migrations_by_distance.smt.to_string());
        row("  same LLC (count)", &|s| s.migrations_by_distance.same_llc.to_string());
        row("  cross LLC (count)", &|s| s.migrations_by_distance.cross_llc.to_string());
        row("  cross node (count)", &|s| s.migrations_by_distance.cross_node.to_string());
        row("run delay p50 (us)", &|s| format!("{:.1}", s.run_delay_us.p50));
        row("run delay p95 (us)", &|s| format!("{:.1}", s.run_delay_us.p95));
        row("run delay p99 (us)", &|s| format!("{:.1}", s.run_delay_us.p99));
        row("CPU busy share", &|s| format!("{:.3}", s.cpu_busy_share));
        let dash = || "-".to_string();
        let mut both = |name: &str, o: u64, f: &dyn Fn(&Simulated) -> u64| {
            let mut v = vec![o.to_string()];
            v.extend(self.simulated.iter().map(|s| f(s).to_string()));
            rows.push((name.to_string(), v));
        };
        both("voluntary switches", self.switches.0, &|s| s.switches.0);
        both("involuntary switches", self.switches.1, &|s| s.switches.1);
        let mut extra = |name: &str, f: &dyn Fn(&Simulated) -> String| {
            let mut v = vec![dash()];
            v.extend(self.simulated.iter().map(f));
            rows.push((name.to_string(), v));
        };
        extra("same CPU as the machine", &|s| pct(s.placement.same_cpu, s.placement.same_inputs));
        extra("  before divergence", &|s| {
            format!(
                "{} of {}",
                pct(s.placement.same_cpu_before_divergence, s.placement.before_divergence),
                s.placement.before_divergence
            )
        });
        extra("replay throughput (x rec.)", &|s| format!("{:.2}", s.replay_throughput));
        extra("finished the trace", &|s| if s.finished { "yes".into() } else { "no".into() });
        (head, rows)
    }
}

fn pct(a: u64, b: u64) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.1}%", a as f64 * 100.0 / b as f64)
    }
}

#[cfg(test)]
mod tests {
    use crate::api::presets::experiment;

    /// The wake log watches and changes nothing: the run's counters are the sweep's,
    /// and it holds every wakeup that led to a run.
    #[test]
    fn the_wake_log_changes_nothing_and_misses_no_wakeup() {
        for name in ["demo", "seed001"] {
            let mut e = experiment(name).unwrap();
            e.iterations = 1;
            e.clients.truncate(1);
            let report = e.run(&mut |_| true).unwrap();
            let w = e.wake_log(1, e.clients[0], 0).unwrap();
            let point = &report.configs[1].points[0];
            // A report's counters carry no patched-branch counts (`Sweep::run` takes
            // them out for `RunResult::patched`); the wake log's keep them.
            let mut counters = w.counters.clone();
            counters.patched = Default::default();
            assert_eq!(counters, point.counters, "{name}");
            assert_eq!(w.value, point.samples[0], "{name}");
            let n = w.records.len() as u64;
            // Wakeups counted in the warm-up, and those still waiting at the end, are
            // not in the measured counters or not in the log.
            assert!(
                n > 0 && n + 10 >= point.counters.wakeups,
                "{name}: {n} records, {} wakeups",
                point.counters.wakeups
            );
            assert!(w.records.iter().all(|r| r.run_delay_ns < 1_000_000_000), "{name}");
            assert!(w.busy_share > 0.0 && w.busy_share <= 1.0);
        }
    }
}
