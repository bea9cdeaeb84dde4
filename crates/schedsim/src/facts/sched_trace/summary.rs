//! What an import found, as data (for the page and JSON) and as lines (for the CLI).

use serde::Serialize;
use std::collections::BTreeMap;

/// Counts of what the importer read, used, skipped and repaired. Every map is a
/// `BTreeMap`, so the summary (and its JSON) is the same from run to run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ImportSummary {
    /// The text forms seen: `perf script`, `trace-cmd report`, `key=value`, `plugin`.
    pub forms: Vec<String>,
    /// The file was gzip-compressed.
    pub gzip: bool,
    /// The gzip stream ended early: the text up to there was read.
    pub gzip_truncated: bool,
    pub lines: u64,
    /// Events used, by name (`sched_switch`, `sched_waking`, ...).
    pub events: BTreeMap<String, u64>,
    /// Events passed over, by name as printed (`sched:sched_stat_runtime`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Lines after the first event that are no event (call chains, tool messages).
    pub unrecognised_lines: u64,
    /// The last line had no newline and did not read: dropped (a file cut while written).
    pub truncated_last_line: bool,
    /// The event whose lines give the wakeups: `sched_waking` (where `try_to_wake_up()`
    /// begins, on the waker's CPU) or, when the trace has none, `sched_wakeup`.
    pub wake_source: String,
    pub tasks: u32,
    pub kernel_threads: u32,
    pub percpu_kthreads: u32,
    /// Tasks at real-time priority (prio < 100): pinned where they first ran, run as
    /// CFS tasks (the model is CFS only).
    pub rt_tasks: u32,
    /// CFS tasks at a nice other than 0 (prio 100..139 but not 120): the model runs every
    /// task at nice 0 (it has no task weights).
    pub niced_tasks: u32,
    /// Wakeups that woke a sleeping task, by the waker's kind (`task`, `kernel_thread`,
    /// `idle`).
    pub wakeups_by_kind: BTreeMap<String, u64>,
    /// Wakeups that became an `Irq` step (idle or unknown waker).
    pub irq_wakes: u64,
    /// Wakeups traced just before their wakee's switch-out asleep (`EARLY_WAKE_NS`):
    /// applied to that sleep.
    pub early_wakes: u64,
    /// Wakes marked sync (the waker slept within `SYNC_WINDOW_NS`).
    pub sync_wakes: u64,
    /// Preemptions of a waker by its wakee made dependencies (`Conv::preempted_by_wakee`
    /// in `program.rs`): the waker waits for the wakee's next switch-out.
    #[serde(default)]
    pub causal_wakes: u64,
    /// Of those, dropped: the waker ran again before that switch-out, or the trace ended.
    #[serde(default)]
    pub causal_wakes_dropped: u64,
    /// Events lost by the tracer (sum of the counts of its lost lines) and the number of
    /// such lines (gaps). The replay runs across a gap; its programs there are guesses.
    pub lost_events: u64,
    pub lost_gaps: u64,
    /// Lines with a time before the line above: the events are sorted stably by time.
    pub out_of_order: u64,
    /// Times that went back by more than `CLOCK_STEP_NS`: later times were shifted to
    /// continue from the line above (a clock step, or traces joined end to end).
    pub clock_steps: u64,
    /// Wakeups of a task not asleep by the trace's account (running, runnable, or woken
    /// already): no step.
    pub wakeups_not_sleeping: u64,
    /// Tasks running when the trace began (their first event a switch-out or a line as
    /// current): they run from the start.
    pub running_at_start: u32,
    /// Switch-ins of a sleeping task with no wakeup seen (lost events): an `Irq` step.
    pub switch_ins_unwoken: u64,
    /// Switches that disagree with the CPU's or the task's state as traced so far.
    pub inconsistent_switches: u64,
    /// A pid seen again after its task exited: a new task.
    pub pid_reuses: u32,
    /// CPUs that appear in the CPU column, and the trace's CPU count (highest + 1).
    pub cpus_seen: u32,
    pub cpus: u32,
    /// trace-cmd's `cpus=N` header, when present.
    pub cpus_header: Option<u32>,
    pub span_ns: u64,
    /// Non-idle CPU time over CPUs x span, percent.
    pub busy_pct: f64,
}

fn count_map(m: &BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "none".into();
    }
    m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

impl ImportSummary {
    /// The summary as lines for a terminal.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!(
                "format: {}{}{}",
                self.forms.join(", "),
                if self.gzip { " (gzip)" } else { "" },
                if self.gzip_truncated { ", gzip stream cut short: read up to the cut" } else { "" }
            ),
            format!(
                "{} lines, {} CPUs ({} seen), span {:.6} s, busy {:.1}%",
                self.lines,
                self.cpus,
                self.cpus_seen,
                self.span_ns as f64 / 1e9,
                self.busy_pct
            ),
            format!("events used: {}", count_map(&self.events)),
            format!("events skipped: {}", count_map(&self.skipped)),
            format!(
                "tasks: {} ({} kernel threads, {} per-CPU, {} real-time pinned and run as CFS)",
                self.tasks, self.kernel_threads, self.percpu_kthreads, self.rt_tasks
            ),
            format!(
                "wakeups from {}: {} ({} as interrupts, {} sync)",
                self.wake_source,
                count_map(&self.wakeups_by_kind),
                self.irq_wakes,
                self.sync_wakes
            ),
        ];
        if self.wake_source == "sched_wakeup" {
            out.push(
                "no sched_waking events: wakeups read from sched_wakeup, which may be traced on the wakee's CPU \
                 after the wake-list IPI (waker and waking CPU less certain)"
                    .into(),
            );
        }
        if self.lost_gaps > 0 {
            out.push(format!(
                "LOST {} events in {} gaps: the replay runs across them, its programs there are guesses",
                self.lost_events, self.lost_gaps
            ));
        }
        let notes = [
            (self.out_of_order, "lines out of time order (sorted stably by time)"),
            (self.clock_steps, "clock steps back (later times shifted to continue)"),
            (self.early_wakes, "wakeups traced just before the wakee's switch-out (applied to that sleep)"),
            (
                self.causal_wakes,
                "wakers preempted by their wakee: they wait for its next switch-out (a wake that answers them)",
            ),
            (self.causal_wakes_dropped, "of those, dropped (the waker ran again first, or the trace ended)"),
            (self.wakeups_not_sleeping, "wakeups of a task not asleep (no step)"),
            (self.running_at_start as u64, "tasks running at the start (run from the start)"),
            (self.switch_ins_unwoken, "switch-ins with no wakeup seen (woken by an interrupt)"),
            (self.inconsistent_switches, "switches inconsistent with the state so far"),
            (self.pid_reuses as u64, "pids reused after exit (new tasks)"),
            (self.niced_tasks as u64, "tasks at a nice other than 0 (the model runs them at nice 0)"),
            (self.unrecognised_lines, "lines that are no event (skipped)"),
        ];
        for (n, what) in notes {
            if n > 0 {
                out.push(format!("{n} {what}"));
            }
        }
        if self.truncated_last_line {
            out.push("the last line is cut short (no newline): dropped".into());
        }
        if let Some(h) = self.cpus_header.filter(|&h| h != self.cpus) {
            out.push(format!("the header says cpus={h}; events name {} CPUs", self.cpus));
        }
        out
    }
}
