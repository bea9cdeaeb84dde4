//! A window of a run as data: per-CPU run and idle slices, migrations, wasted-core
//! spans and moments, and the wakeups' decision traces. Filled in by the recorder of
//! floor 2 (`state::recorder`), started and finished by the driver, drawn by the page's
//! timeline and written out by `api::perfetto`.

use crate::facts::trace::WakeupTrace;
use serde::{Deserialize, Serialize};

/// Most trace events a recording holds (about 100 MB of JSON). When a window would
/// hold more, the recording is clipped: it ends at the moment the bound is reached and
/// [`Recorder::clipped_at`] says when.
pub const RECORD_EVENTS_MAX: usize = 500_000;

/// Most wasted-core spans a recording keeps (they are not trace events: Perfetto's
/// export leaves them out).
pub const WASTED_SPANS_MAX: usize = 10_000;

/// A task's stay on a CPU: from `finish_task_switch()` to the switch away.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSlice {
    pub cpu: u32,
    /// Index into [`Recording::tasks`].
    pub task: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Still running when the recording was taken (it ends there for now).
    pub open: bool,
}

/// An idle period, from idle entry to the end of the exit from its C-state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleSlice {
    pub cpu: u32,
    /// Index into [`Recording::cstates`].
    pub cstate: u8,
    pub start_ns: u64,
    pub end_ns: u64,
    pub open: bool,
}

/// A task moved to another CPU (`wakeup` or `balance`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigrationMark {
    pub time_ns: u64,
    pub task: u32,
    pub from_cpu: u32,
    pub to_cpu: u32,
    pub by: String,
}

/// Consecutive wasted-core samples (see `driver/wasted.rs`) with the same idle CPU: the
/// invariant was broken at every sample from `from_ns` to `to_ns` (equal for one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WastedSpan {
    pub from_ns: u64,
    pub to_ns: u64,
    pub idle_cpu: u32,
    pub busy_cpu: u32,
    pub waiting_task: String,
    /// Still going on when the recording was taken.
    pub open: bool,
}

/// A window of one run as data, for a timeline: what ran on each CPU, idle periods
/// with their C-state, migrations, wasted-core spans and (from
/// `Experiment::record`) every wakeup's decision trace. Slices of one CPU do not
/// overlap; the time between them is the scheduler's own (context switches).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recording {
    pub from_ns: u64,
    /// The end of the window (or the simulated time now, for `Live::take_recording`).
    pub to_ns: u64,
    /// Where the recording was cut short at [`RECORD_EVENTS_MAX`] events.
    pub clipped_at_ns: Option<u64>,
    pub nr_cpus: u32,
    /// C-state names, shallowest first.
    pub cstates: Vec<String>,
    /// Task names by task number (empty from `Live::take_recording`: see `Live::task_names`).
    pub tasks: Vec<String>,
    pub runs: Vec<RunSlice>,
    pub idles: Vec<IdleSlice>,
    pub migrations: Vec<MigrationMark>,
    pub wasted: Vec<WastedSpan>,
    /// The wakeups in the window, in order (empty from `Live::take_recording`: `Live::step`
    /// gives them).
    pub wakeups: Vec<WakeupTrace>,
}

/// Most moments kept per run.
pub const WASTED_MOMENTS_MAX: usize = 16;

/// One moment the invariant was broken (the first sample of an episode).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WastedMoment {
    pub time_ns: u64,
    /// Which iteration of the point (0-based).
    pub iteration: u32,
    pub idle_cpu: u32,
    pub idle_for_ns: u64,
    /// A CPU with a waiting task that could run on `idle_cpu`.
    pub busy_cpu: u32,
    pub waiting_task: String,
    /// Tasks waiting on runqueues machine-wide at that moment.
    pub waiting: u32,
}

/// Who ran on the waking CPU when a wakeup began (`current` in `try_to_wake_up()`),
/// as a scheduler trace shows it in the first columns of a `sched_waking` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WakerKind {
    /// A user task (a waker of the benchmark or of the trace).
    Task,
    /// A kernel thread (`ksoftirqd`, `kworker`, `jbd2`, ...).
    KernelThread,
    /// The CPU's idle task: a wakeup from an interrupt on an idle CPU.
    Idle,
}

/// One wakeup that led to its task running: when it began, who woke whom from which
/// CPU, where the task had last run and where it ran next, and the run delay (waking
/// to switched in). The simulator's wake log and a trace's wakeups are both lists of
/// these, so the statistics of the two sides have one definition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WakeRecord {
    pub time_ns: u64,
    pub wakee: u32,
    pub waker: Option<u32>,
    pub kind: WakerKind,
    pub waker_cpu: u32,
    /// `None` before the task first ran.
    pub last_cpu: Option<u32>,
    pub ran_cpu: u32,
    pub run_delay_ns: u64,
}

/// Most wakeups a wake log keeps (about 40 MB); past it they are counted, not kept.
pub const WAKE_LOG_MAX: usize = 1_000_000;
