//! The scheduler-trace importer: text from `perf script` (of `perf sched record`) or
//! `trace-cmd report`, plain or gzip-compressed, to a [`Trace`]: its tasks, their
//! replay programs ([`Trace::replay_params`]), the wakeups it shows (the same
//! [`WakeRecord`]s the simulator's wake log holds, so `wake_stats` compares the two)
//! and an [`ImportSummary`].
//!
//! The events read are the kernel's sched tracepoints (`include/trace/events/sched.h`,
//! v6.6): `sched_switch`, `sched_waking` (v4.3+, emitted in `try_to_wake_up()` on the
//! waker's CPU), `sched_wakeup`, `sched_wakeup_new`, `sched_migrate_task`,
//! `sched_process_fork` and `sched_process_exit`; others are counted by name and
//! passed over. `parse` reads a line; `program` turns the events into programs.
//!
//! Choices: times are integer ns (never an `f64` parse); lines out of time order are
//! counted and the events sorted stably by (time, line); a time more than
//! [`CLOCK_STEP_NS`] before the line above is a clock step, and later times are shifted
//! to continue; a last line without a newline is read if it reads and dropped (and
//! noted) if not; bytes that are not UTF-8 (a comm can hold any) are kept as bytes and
//! shown lossily. No input can panic the importer: every index is checked.

mod gzip;
mod parse;
pub mod program;
mod read;

use read::{import_inner, Input};
mod sha256;
mod summary;

pub use program::{kthread_of, SYNC_WINDOW_NS};
pub use sha256::sha256_hex;
pub use summary::ImportSummary;

use crate::facts::recording::WakeRecord;
use crate::facts::workload::replay::{Op, ReplayParams, ReplayTask, REPLAY_SPAN_NS_MAX, REPLAY_TASKS_MAX};
use parse::{HeadError, Left, Named};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::BuildHasherDefault;
use std::io::Read;

/// Most bytes of trace text (after gunzip): 8 GiB. The import reads the text a piece
/// at a time and keeps only its events ([`import_read`]), so its memory is bounded by
/// [`TRACE_EVENTS_MAX`], not by this; this bounds its time (about half a minute at
/// 300 MB/s). perf text is 80-150 bytes a line.
pub const TRACE_BYTES_MAX: u64 = 8 << 30;
/// Most events used (switches, wakeups, forks, exits, migrations). Each gives at most
/// two program steps, so the programs stay under the replay's `REPLAY_OPS_MAX` (20
/// million).
pub const TRACE_EVENTS_MAX: usize = 8_000_000;
/// Most tasks: the replay's bound per copy.
pub const TRACE_TASKS_MAX: usize = REPLAY_TASKS_MAX;
/// A time this far before the line above is a clock step, not a reordering: perf and
/// trace-cmd merge their per-CPU buffers in time order, so reordering is at most the
/// few microseconds two CPUs' clocks differ by.
pub const CLOCK_STEP_NS: u64 = 100_000_000;

/// Most distinct names of passed-over events counted by name; the rest are counted
/// together under [`OTHER_EVENT_NAMES`], so that a trace of many names (one per line)
/// grows neither the import's memory nor the summary's line with them.
pub const SKIPPED_NAMES_MAX: usize = 256;
/// The summary's name for the passed-over events past [`SKIPPED_NAMES_MAX`] names.
pub const OTHER_EVENT_NAMES: &str = "(other event names)";

/// Characters of a line an error shows.
const ECHO_MAX: usize = 80;
/// Bytes between progress calls.
const PROGRESS_BYTES: usize = 4 << 20;

/// A trace that could not be read: the line (1-based) and its text, clipped, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The trace's name, as given to [`import`].
    pub name: String,
    pub line: Option<u64>,
    /// The line, clipped to 80 characters.
    pub text: String,
    pub message: String,
}

impl TraceError {
    fn at(line: u32, message: String) -> Self {
        TraceError { name: String::new(), line: Some(line as u64), text: String::new(), message }
    }
    fn whole(message: impl Into<String>) -> Self {
        TraceError { name: String::new(), line: None, text: String::new(), message: message.into() }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace {}", self.name)?;
        if let Some(l) = self.line {
            write!(f, " line {l}")?;
        }
        write!(f, ": {}", self.message)?;
        if !self.text.is_empty() {
            write!(f, ": `{}`", self.text)?;
        }
        Ok(())
    }
}

impl std::error::Error for TraceError {}

fn clip_line(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line);
    let s = s.trim_end_matches(['\r', '\n']);
    if s.chars().count() <= ECHO_MAX {
        return s.to_string();
    }
    let mut out: String = s.chars().take(ECHO_MAX).collect();
    out.push('…');
    out
}

/// A traced task.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TraceTask {
    /// Its comm (the last one traced: `exec` renames).
    pub name: String,
    pub pid: u32,
    pub kthread: bool,
    /// The CPU of a per-CPU kernel thread (`ksoftirqd/3`), when the trace has it.
    pub percpu: Option<u32>,
    /// `prio` as first traced (120: nice 0; below 100: real time).
    pub prio: i32,
    /// The CPU it first ran on.
    pub first_cpu: Option<u32>,
}

/// An imported trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub name: String,
    /// SHA-256 of the bytes given (compressed or not), lowercase hex.
    pub sha256: String,
    /// Highest CPU number in the CPU column, plus one.
    pub cpus: u32,
    /// Time of the first event, ns, and from it to the last.
    pub start_ns: u64,
    pub span_ns: u64,
    /// Index: task number, the same as the replay's.
    pub tasks: Vec<TraceTask>,
    /// Each task's program (index: task number).
    pub programs: Vec<Vec<Op>>,
    /// Observed wakeups that led to a run, in time order of their switch-in; task
    /// numbers as above, CPUs as traced.
    pub wakes: Vec<WakeRecord>,
    /// Non-idle CPU time over (CPUs x span).
    pub busy_share: f64,
    /// Switch-outs of traced tasks: voluntary (asleep, dead) and involuntary (still
    /// runnable, `prev_state` R or R+).
    pub switches: (u64, u64),
    pub summary: ImportSummary,
    /// Per CPU number: the first line that names it, and its text (for `check_cpus`).
    cpu_lines: Vec<Option<(u64, String)>>,
}

impl Trace {
    /// The replay workload's parameters: one program per task, the model's defaults for
    /// the working set and the system-time share, no CPU map (the machine's CPU numbers
    /// are the trace's). Per-CPU kernel threads are pinned to their CPU; real-time
    /// tasks (prio < 100) to the CPU they first ran on, since the model runs them as CFS
    /// tasks and would otherwise move them.
    pub fn replay_params(&self) -> ReplayParams {
        let tasks = self
            .tasks
            .iter()
            .zip(&self.programs)
            .map(|(t, p)| ReplayTask {
                name: format!("{}/{}", t.name, t.pid),
                pinned: t.percpu.or(if t.prio < 100 { t.first_cpu } else { None }),
                kthread: t.kthread,
                start_cpu: t.first_cpu,
                prio: t.prio,
                program: p.clone(),
            })
            .collect::<Vec<_>>()
            .into();
        let defaults: ReplayParams =
            serde_json::from_str(r#"{"trace_name":"","trace_sha256":"","trace_cpus":1,"span_ns":1,"tasks":[]}"#)
                .unwrap_or_else(|_| unreachable!("the replay's defaults read"));
        ReplayParams {
            trace_name: self.name.clone(),
            trace_sha256: self.sha256.clone(),
            trace_cpus: self.cpus.max(1),
            span_ns: self.span_ns.max(1),
            tasks,
            ..defaults
        }
    }

    /// [`Trace::replay_params`] with every task pinned to the CPU it ran on after most
    /// of its traced wakeups (else the one it first ran on): the machine's placement
    /// kept, so that a replay compares what follows a placement (preemption, run
    /// delay, switches) with the placement itself taken out. A task pinned here is
    /// never placed by `select_task_rq()`, as `taskset` would make it.
    pub fn replay_params_pinned(&self) -> ReplayParams {
        let mut p = self.replay_params();
        let mut ran: Vec<std::collections::BTreeMap<u32, u64>> = vec![Default::default(); self.tasks.len()];
        for w in &self.wakes {
            if let Some(m) = ran.get_mut(w.wakee as usize) {
                *m.entry(w.ran_cpu).or_insert(0) += 1;
            }
        }
        for ((task, t), counts) in std::sync::Arc::make_mut(&mut p.tasks).iter_mut().zip(&self.tasks).zip(&ran) {
            // The most frequent CPU; on a tie the lowest.
            let most = counts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(&c, _)| c);
            task.pinned = task.pinned.or(most).or(t.first_cpu).filter(|&c| c < self.cpus.max(1));
        }
        p
    }

    /// Checks that a machine of `nr_cpus` CPUs has every CPU the trace names; the error
    /// names the first line with a CPU beyond it.
    pub fn check_cpus(&self, nr_cpus: u32) -> Result<(), TraceError> {
        let first = self.cpu_lines.iter().skip(nr_cpus as usize).flatten().min_by_key(|(l, _)| *l);
        match first {
            None => Ok(()),
            Some((line, text)) => Err(TraceError {
                name: self.name.clone(),
                line: Some(*line),
                text: text.clone(),
                message: format!(
                    "the trace names CPU {} and more, the machine has {nr_cpus} CPUs: pick a machine with at least {}",
                    self.cpus - 1,
                    self.cpus
                ),
            }),
        }
    }
}

/// A pid no task has (perf's `-1`).
const NO_PID: u32 = u32::MAX;
/// A priority the event did not give.
const NO_PRIO: i16 = i16::MIN;

/// A task as an event names it: pid, interned comm, prio.
#[derive(Clone, Copy, Debug)]
struct TaskRef {
    pid: u32,
    comm: u32,
    prio: i16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WakeEv {
    Waking,
    Wakeup,
    WakeupNew,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Switch {
        prev: TaskRef,
        left: Left,
        next: TaskRef,
    },
    Wake {
        which: WakeEv,
        task: TaskRef,
    },
    Fork {
        parent: TaskRef,
        child: TaskRef,
    },
    Exit {
        task: TaskRef,
    },
    /// `orig_cpu`: where the task was before (`None` if the line does not say).
    Migrate {
        task: TaskRef,
        orig_cpu: Option<u32>,
    },
    /// A `sched_stat_runtime` of the line's current task: it ran on the line's CPU.
    /// Read only where no switch-in put it there (a switch-in the trace lacks), else
    /// passed over.
    Runtime {
        task: TaskRef,
    },
}

/// One used event: when, which line, which CPU, the task current there, what.
#[derive(Clone, Copy, Debug)]
struct Ev {
    time_ns: u64,
    line: u32,
    cpu: u16,
    cur: TaskRef,
    kind: Kind,
}

/// Comms interned: each distinct byte string once. Looked up three times a switch line,
/// so with `rustc-hash`'s hasher (the map is never iterated: ids are given in the order
/// names first appear) and the last name found kept at hand (a line's current task is
/// most often the one it switches out).
#[derive(Default)]
struct Comms {
    ids: HashMap<Box<[u8]>, u32, BuildHasherDefault<rustc_hash::FxHasher>>,
    names: Vec<Box<[u8]>>,
    last: Option<u32>,
}

impl Comms {
    fn id(&mut self, c: &[u8]) -> u32 {
        if let Some(k) = self.last.filter(|&k| *self.names[k as usize] == *c) {
            return k;
        }
        let k = self.intern(c);
        self.last = Some(k);
        k
    }

    fn intern(&mut self, c: &[u8]) -> u32 {
        if let Some(&k) = self.ids.get(c) {
            return k;
        }
        let k = self.names.len() as u32;
        self.names.push(c.into());
        self.ids.insert(c.into(), k);
        k
    }
    fn task(&mut self, n: Named<'_>) -> TaskRef {
        TaskRef { pid: n.pid, comm: self.id(n.comm), prio: n.prio.clamp(-1000, 1000) as i16 }
    }
}

/// Reads a trace (text or gzip). `name` is the file's name, for messages and the replay.
///
/// ```
/// let text = "\
///       client   100 [000]  1.000000: sched:sched_waking: comm=server pid=200 prio=120 target_cpu=001
///    swapper/1     0 [001]  1.000010: sched:sched_switch: swapper/1:0 [120] R ==> server:200 [120]
/// ";
/// let trace = schedsim::sched_trace::import(text.as_bytes(), "example.txt").unwrap();
/// assert_eq!((trace.tasks.len(), trace.cpus, trace.span_ns), (2, 2, 10_000));
/// // The client ran from the start and woke the server, which blocked until then.
/// let replay = trace.replay_params();
/// let ops: Vec<String> = replay.tasks.iter().map(|t| schedsim::workload::replay::ops_text(&t.program)).collect();
/// assert_eq!(ops, ["w1 r10000", "b"]);
/// assert_eq!((trace.wakes[0].waker, trace.wakes[0].run_delay_ns), (Some(0), 10_000));
/// ```
pub fn import(bytes: &[u8], name: &str) -> Result<Trace, TraceError> {
    import_with(bytes, name, &mut |_| true)
}

/// [`import`], calling `progress` with the text bytes read so far every few MB; when
/// it returns `false` the import stops with an error.
pub fn import_with(bytes: &[u8], name: &str, progress: &mut dyn FnMut(u64) -> bool) -> Result<Trace, TraceError> {
    named(import_inner(Input::Bytes(bytes), name, progress, TRACE_BYTES_MAX), name)
}

/// [`import_with`] from a reader (a file, a browser's `Blob`), read a piece at a time:
/// the import holds a line of the text at a time, never all of it (a gzip file's
/// compressed bytes are held whole, and inflated a window at a time), so its memory is
/// the events it keeps. Same result, byte for byte, as [`import_with`] of the bytes.
pub fn import_read(r: &mut dyn Read, name: &str, progress: &mut dyn FnMut(u64) -> bool) -> Result<Trace, TraceError> {
    named(import_inner(Input::Read(r), name, progress, TRACE_BYTES_MAX), name)
}

fn named(r: Result<Trace, TraceError>, name: &str) -> Result<Trace, TraceError> {
    r.map_err(|mut e| {
        e.name = name.to_string();
        e
    })
}

/// Where the parse stands between lines.
#[derive(Default)]
struct LineState {
    line_no: u32,
    seen_event: bool,
    clock: Clock,
}

/// The time correction of [`Parsed::push`]: the latest time so far and the offset clock
/// steps added.
#[derive(Default)]
struct Clock {
    last_t: u64,
    offset: u64,
    /// The earliest time so far, once there is one.
    first_t: Option<u64>,
}

#[derive(Default)]
struct Parsed {
    events: Vec<Ev>,
    comms: Comms,
    cpu_lines: Vec<Option<(u64, String)>>,
    skipped: BTreeMap<Box<[u8]>, u64>,
    counts: [u64; 7],
    /// Per CPU: the pid a switch-in or a read `sched_stat_runtime` last put there, so
    /// that only a runtime line naming another task is kept (one in thousands).
    cpu_pid: Vec<u32>,
    perf: bool,
    dash: bool,
    kv: bool,
    plugin: bool,
}

const EVENT_NAMES: [&str; 7] = [
    "sched_switch",
    "sched_waking",
    "sched_wakeup",
    "sched_wakeup_new",
    "sched_migrate_task",
    "sched_process_fork",
    "sched_process_exit",
];

impl Parsed {
    /// One line of the text (`complete`: a line end followed it).
    fn line(
        &mut self,
        raw: &[u8],
        complete: bool,
        at: &mut LineState,
        sum: &mut ImportSummary,
    ) -> Result<(), TraceError> {
        at.line_no = at.line_no.saturating_add(1);
        let line_no = at.line_no;
        let clock = &mut at.clock;
        {
            let err = |m: String| TraceError { text: clip_line(raw), ..TraceError::at(line_no, m) };
            if let Some(h) = parse::header_line(raw) {
                if h.is_some() {
                    sum.cpus_header = h;
                }
                return Ok(());
            }
            if let Some(n) = parse::lost(raw) {
                sum.lost_events += n;
                sum.lost_gaps += 1;
                return Ok(());
            }
            let h = match parse::head(raw) {
                Ok(h) => h,
                Err(_) if !complete => {
                    sum.truncated_last_line = true;
                    return Ok(());
                }
                Err(HeadError::Cpu(c)) => {
                    return Err(err(format!(
                        "CPU {c}: at most {} CPUs (REPLAY_TRACE_CPUS_MAX, the simulator's bound)",
                        parse::CPU_NUMBER_MAX + 1
                    )))
                }
                Err(HeadError::Time(t)) => {
                    return Err(err(format!(
                        "time {:?} does not read as SECONDS.FRACTION (1 to 9 fraction digits, at least 0)",
                        crate::facts::input::clip(&String::from_utf8_lossy(t.strip_suffix(b":").unwrap_or(t)))
                    )))
                }
                Err(HeadError::NoMatch) if !at.seen_event => {
                    return Err(err("this is not perf script or trace-cmd report text (no `COMM PID [CPU] \
                                    TIME: EVENT: ARGS` head)"
                        .into()))
                }
                Err(HeadError::NoMatch) => {
                    sum.unrecognised_lines += 1;
                    return Ok(());
                }
            };
            at.seen_event = true;
            let short = parse::short_name(h.event);
            let Some(which) = EVENT_NAMES.iter().position(|n| n.as_bytes() == short) else {
                let full = self.skipped.len() >= SKIPPED_NAMES_MAX;
                match self.skipped.get_mut(h.event) {
                    Some(n) => *n += 1,
                    None if !full => {
                        self.skipped.insert(h.event.into(), 1);
                    }
                    None => *self.skipped.entry(OTHER_EVENT_NAMES.as_bytes().into()).or_insert(0) += 1,
                }
                // Counted as passed over (no program step comes of it), but where it
                // says a task ran that no switch-in showed, that is kept.
                let Some(task) = self.runtime(&h) else { return Ok(()) };
                let cur = TaskRef { pid: h.pid.unwrap_or(NO_PID), comm: self.comms.id(h.comm), prio: NO_PRIO };
                self.push(
                    Ev { time_ns: h.time_ns, line: line_no, cpu: h.cpu as u16, cur, kind: Kind::Runtime { task } },
                    raw,
                    clock,
                    sum,
                )
                .map_err(err)?;
                return Ok(());
            };
            let cur_comm = self.comms.id(h.comm);
            let cur = TaskRef { pid: h.pid.unwrap_or(NO_PID), comm: cur_comm, prio: NO_PRIO };
            let bad = |what: &str| format!("{} arguments do not read as {what}", EVENT_NAMES[which]);
            let kind = match which {
                0 => {
                    let s = parse::switch(h.args).ok_or_else(|| {
                        bad("`prev_comm=.. prev_pid=.. prev_prio=.. prev_state=.. ==> next_comm=.. next_pid=.. \
                             next_prio=..` or `comm:pid [prio] S ==> comm:pid [prio]`")
                    });
                    let s = match s {
                        Ok(s) => s,
                        Err(_) if !complete => {
                            sum.truncated_last_line = true;
                            return Ok(());
                        }
                        Err(m) => return Err(err(m)),
                    };
                    self.note_form(s.plugin);
                    Kind::Switch { prev: self.comms.task(s.prev), left: s.left, next: self.comms.task(s.next) }
                }
                1..=3 => {
                    let w = match parse::wakeup(h.args) {
                        Some(w) => w,
                        None if !complete => {
                            sum.truncated_last_line = true;
                            return Ok(());
                        }
                        None => {
                            return Err(err(bad("`comm=.. pid=.. prio=.. target_cpu=..` or `comm:pid [prio] CPU:N`")))
                        }
                    };
                    self.note_form(w.1);
                    let which = [WakeEv::Waking, WakeEv::Wakeup, WakeEv::WakeupNew][which - 1];
                    Kind::Wake { which, task: self.comms.task(w.0) }
                }
                5 => match parse::fork(h.args) {
                    Some((p, c)) => Kind::Fork { parent: self.comms.task(p), child: self.comms.task(c) },
                    None if !complete => {
                        sum.truncated_last_line = true;
                        return Ok(());
                    }
                    None => return Err(err(bad("`comm=.. pid=.. child_comm=.. child_pid=..`"))),
                },
                _ => match parse::comm_pid_prio(h.args) {
                    Some(t) if which == 6 => Kind::Exit { task: self.comms.task(t) },
                    Some(t) => Kind::Migrate { task: self.comms.task(t), orig_cpu: parse::orig_cpu(h.args) },
                    None if !complete => {
                        sum.truncated_last_line = true;
                        return Ok(());
                    }
                    None => return Err(err(bad("`comm=.. pid=.. prio=..`"))),
                },
            };
            if let Kind::Switch { next, .. } = kind {
                self.set_cpu_pid(h.cpu, next.pid);
            }
            self.push(Ev { time_ns: h.time_ns, line: line_no, cpu: h.cpu as u16, cur, kind }, raw, clock, sum)
                .map_err(err)?;
            self.counts[which] += 1;
            if h.dash {
                self.dash = true;
            } else {
                self.perf = true;
            }
        }
        Ok(())
    }

    /// Adds an event, its time made monotonic: a small step back is reordering (sorted
    /// later), a big one a clock step (shifted so that time goes on from the line above).
    fn push(&mut self, mut ev: Ev, raw: &[u8], clock: &mut Clock, sum: &mut ImportSummary) -> Result<(), String> {
        if self.events.len() >= TRACE_EVENTS_MAX {
            return Err(format!(
                "more than {TRACE_EVENTS_MAX} events (TRACE_EVENTS_MAX, which keeps the programs under the \
                 replay's REPLAY_OPS_MAX steps): cut the trace shorter"
            ));
        }
        let mut t = ev.time_ns.saturating_add(clock.offset);
        if t < clock.last_t {
            if clock.last_t - t > CLOCK_STEP_NS {
                clock.offset = clock.offset.saturating_add(clock.last_t - t);
                t = clock.last_t;
                sum.clock_steps += 1;
            } else {
                sum.out_of_order += 1;
            }
        }
        clock.last_t = clock.last_t.max(t);
        let first_t = clock.first_t.map_or(t, |f| f.min(t));
        clock.first_t = Some(first_t);
        if clock.last_t - first_t > REPLAY_SPAN_NS_MAX {
            // Said at the line that jumps, not by the replay's validation with no line.
            return Err(format!(
                "time {} s is {} s after the trace's first event: a replay spans at most {} s (REPLAY_SPAN_NS_MAX); \
                 did the clock jump? cut the trace before this line",
                secs(ev.time_ns),
                secs(clock.last_t - first_t),
                REPLAY_SPAN_NS_MAX / 1_000_000_000
            ));
        }
        let cpu = ev.cpu as usize;
        if self.cpu_lines.len() <= cpu {
            self.cpu_lines.resize(cpu + 1, None);
        }
        if self.cpu_lines[cpu].is_none() {
            self.cpu_lines[cpu] = Some((ev.line as u64, clip_line(raw)));
        }
        ev.time_ns = t;
        self.events.push(ev);
        Ok(())
    }

    fn set_cpu_pid(&mut self, cpu: u32, pid: u32) {
        let cpu = cpu as usize;
        if self.cpu_pid.len() <= cpu {
            self.cpu_pid.resize(cpu + 1, NO_PID);
        }
        self.cpu_pid[cpu] = pid;
    }

    /// The task of a `sched_stat_runtime` line (key=value: `comm=.. pid=.. runtime=..`)
    /// when it is the line's current task (a runtime line can be another CPU's: a
    /// remote wakeup's `update_curr()` of that CPU's runqueue) and no switch-in or
    /// earlier runtime line put it on the line's CPU.
    fn runtime(&mut self, h: &parse::Head<'_>) -> Option<TaskRef> {
        if parse::short_name(h.event) != b"sched_stat_runtime" {
            return None;
        }
        let n = parse::comm_pid_prio(h.args)?;
        if n.pid == 0 || h.pid != Some(n.pid) || self.cpu_pid.get(h.cpu as usize) == Some(&n.pid) {
            return None;
        }
        self.set_cpu_pid(h.cpu, n.pid);
        Some(TaskRef { pid: n.pid, comm: self.comms.id(n.comm), prio: NO_PRIO })
    }

    fn note_form(&mut self, plugin: bool) {
        if plugin {
            self.plugin = true;
        } else {
            self.kv = true;
        }
    }
}

/// Sorts events stably by time: (time, index) keys sorted (moving 16-byte keys, not the
/// events), then the events moved in place along the permutation's cycles, so that the
/// sort needs the keys' memory only.
fn sort_by_time(events: &mut [Ev]) {
    let mut keys: Vec<(u64, u32)> = events.iter().enumerate().map(|(i, e)| (e.time_ns, i as u32)).collect();
    keys.sort_unstable();
    const DONE: u32 = u32::MAX;
    for start in 0..keys.len() {
        if keys[start].1 == DONE {
            continue;
        }
        // Position j takes the event at keys[j].1, until the cycle comes back to start.
        let held = events[start];
        let mut j = start;
        loop {
            let from = std::mem::replace(&mut keys[j].1, DONE) as usize;
            if from == start {
                events[j] = held;
                break;
            }
            events[j] = events[from];
            j = from;
        }
    }
}

/// Nanoseconds as seconds with six decimals, in integers.
fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1_000)
}

fn finish(mut p: Parsed, name: &str, sha256: String, mut sum: ImportSummary) -> Result<Trace, TraceError> {
    for (k, n) in EVENT_NAMES.iter().zip(p.counts) {
        if n > 0 {
            sum.events.insert(k.to_string(), n);
        }
    }
    sum.skipped = std::mem::take(&mut p.skipped)
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
        .collect();
    let (switches, wakings, wakeups) = (p.counts[0], p.counts[1], p.counts[2]);
    if switches == 0 && wakings == 0 {
        let had = if sum.skipped.is_empty() {
            String::new()
        } else {
            format!(" (it has {})", sum.skipped.keys().cloned().collect::<Vec<_>>().join(", "))
        };
        return Err(TraceError::whole(format!(
            "no sched_switch or sched_waking events{had}: record with `perf sched record` or `trace-cmd record -e \
             sched_switch -e sched_waking -e sched_wakeup_new -e sched_process_exit`"
        )));
    }
    for (on, form) in [(p.perf, "perf script"), (p.dash, "trace-cmd report"), (p.kv, "key=value"), (p.plugin, "plugin")]
    {
        if on {
            sum.forms.push(form.to_string());
        }
    }
    let use_waking = wakings > 0;
    sum.wake_source = if use_waking {
        "sched_waking"
    } else if wakeups > 0 {
        "sched_wakeup"
    } else {
        "none"
    }
    .into();
    if sum.out_of_order > 0 {
        sort_by_time(&mut p.events);
    }
    let start_ns = p.events.first().map_or(0, |e| e.time_ns);
    let end_ns = p.events.last().map_or(0, |e| e.time_ns);
    let cpus = p.cpu_lines.len() as u32;
    let c = program::convert(&p.events, &p.comms.names, cpus, start_ns, end_ns, use_waking, &mut sum)?;
    let span_ns = end_ns - start_ns;
    sum.tasks = c.tasks.len() as u32;
    sum.kernel_threads = c.tasks.iter().filter(|t| t.kthread).count() as u32;
    sum.percpu_kthreads = c.tasks.iter().filter(|t| t.percpu.is_some()).count() as u32;
    sum.rt_tasks = c.tasks.iter().filter(|t| t.prio < 100).count() as u32;
    sum.niced_tasks = c.tasks.iter().filter(|t| t.prio >= 100 && t.prio != 120).count() as u32;
    sum.cpus_seen = p.cpu_lines.iter().filter(|l| l.is_some()).count() as u32;
    sum.cpus = cpus;
    sum.span_ns = span_ns;
    let busy_share = if span_ns == 0 { 0.0 } else { c.busy_ns as f64 / (cpus as f64 * span_ns as f64) };
    sum.busy_pct = busy_share * 100.0;
    let _ = c.comms;
    Ok(Trace {
        name: name.to_string(),
        sha256,
        cpus,
        start_ns,
        span_ns,
        tasks: c.tasks,
        programs: c.programs,
        wakes: c.wakes,
        busy_share,
        switches: c.switches,
        summary: sum,
        cpu_lines: p.cpu_lines,
    })
}

#[cfg(test)]
mod tests;
