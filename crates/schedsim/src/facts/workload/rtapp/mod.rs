//! rt-app workloads: a task set described in rt-app's JSON (the grammar of rt-app
//! 1.0's `doc/tutorial.txt`, the version Debian ships; the events' meaning from
//! `run_event()` in rt-app's `src/rt-app.c`), each thread run by the model as rt-app
//! runs it on Linux:
//!
//! - `run` N: N µs of CPU work at the machine's speed (rt-app calibrates `run` to a loop
//!   of its own, `calibration` ns per loop, so that N µs of `run` is N µs on the
//!   calibration CPU; the model's CPUs all run at that speed);
//! - `runtime` N: CPU work in 32 µs pieces until N µs of wall time have passed since it
//!   began (`loadwait(32)` until `clock_gettime` says so);
//! - `sleep` N: `nanosleep`, a timer wakeup N µs later;
//! - `timer` {ref, period, mode}: `clock_nanosleep(TIMER_ABSTIME)` until the timer's next
//!   expiry, `period` after the last (the first from the thread's start); a late thread
//!   does not sleep, and in `relative` mode (the default) the timer restarts from now;
//!   one timer per `ref`, shared by every thread that names it unless the ref starts
//!   with `unique`;
//! - `lock`/`unlock`: a futex mutex (`pthread_mutex_lock`): a locked mutex blocks; an
//!   unlock wakes its first waiter, which tries again (another thread may take it
//!   first, as glibc's mutex lets it);
//! - `wait` {ref, mutex}: `pthread_cond_wait`: releases the mutex, blocks until signalled,
//!   takes the mutex again; `signal` wakes the first waiter, `broad` every waiter (a
//!   signal with none waiting is lost, as a condition variable's is); `sync` is a
//!   `signal` then a `wait`;
//! - `barrier` R: the threads naming R wait for each other (the last to arrive wakes
//!   them all);
//! - `suspend` R: waits on R's condition variable (R empty: the thread's own name);
//!   `resume` R wakes every thread suspended on R.
//!
//! A thread's `phases` run in order, each `loop` times (default 1), the whole `loop`
//! times (default -1: until the run ends); `delay` µs first; `instance` copies.
//! What the model does not have is refused naming the key (`mem`, `iorun`, `yield`,
//! `fork`, semaphores, real-time and deadline policies, an affinity to some CPUs but
//! not one or all), or accepted with a note (a `SCHED_OTHER` priority, which is a nice
//! value the model does not weigh; output and calibration settings; `duration`, which
//! the experiment's `duration_ms` replaces).

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

mod out;
mod presets;
mod run;
pub use out::to_rtapp;
pub use presets::{rtapp_preset, RTAPP_PRESETS};
pub(super) use run::RtappRun;

/// The largest rt-app file read, bytes.
pub const RTAPP_BYTES_MAX: usize = 1 << 20;
/// Most threads of one copy (instances included).
pub const RTAPP_THREADS_MAX: usize = 4096;
/// Most events of one thread's phases, all phases together.
pub const RTAPP_EVENTS_MAX: usize = 100_000;
/// The largest duration of one event, µs (an hour).
const EVENT_US_MAX: u64 = 3_600_000_000;
/// How long `runtime` works between two looks at the clock, ns (rt-app's `loadwait(32)`).
const RUNTIME_PIECE_NS: u64 = 32_000;
/// Working set of an rt-app thread, bytes: `run` is a loop over a few variables
/// (estimate, schbench's worker).
const WS_BYTES: u64 = 64 << 10;
/// Share of a thread's CPU time spent in the kernel, percent: rt-app's `run` is user
/// time; its system calls are short (estimate).
const SYS_PCT: u8 = 10;

/// An rt-app workload as given: the file's name and its text. The text is what an
/// experiment and a link carry (it runs on the real `rt-app` as it is); it is read when
/// the experiment is, and an error names the key's path.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "RtappText", into = "RtappText")]
pub struct RtappParams {
    pub file: String,
    pub json: String,
    parsed: Arc<RtApp>,
}

impl PartialEq for RtappParams {
    fn eq(&self, other: &Self) -> bool {
        self.file == other.file && self.json == other.json
    }
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RtappText {
    file: String,
    json: String,
}

impl TryFrom<RtappText> for RtappParams {
    type Error = String;
    fn try_from(t: RtappText) -> Result<Self, String> {
        RtappParams::new(&t.file, &t.json)
    }
}

impl From<RtappParams> for RtappText {
    fn from(p: RtappParams) -> Self {
        RtappText { file: p.file, json: p.json }
    }
}

impl RtappParams {
    /// Reads rt-app JSON `json` (from file `file`); the error names the key's path.
    pub fn new(file: &str, json: &str) -> Result<RtappParams, String> {
        if json.len() > RTAPP_BYTES_MAX {
            return Err(format!("rt-app file {file}: {} bytes, at most {RTAPP_BYTES_MAX}", json.len()));
        }
        let parsed = parse(json).map_err(|e| format!("rt-app file {}: {e}", crate::facts::input::clip(file)))?;
        Ok(RtappParams { file: file.to_string(), json: json.to_string(), parsed: Arc::new(parsed) })
    }

    /// What the model takes differently from rt-app on Linux, one line each.
    pub fn notes(&self) -> &[String] {
        &self.parsed.notes
    }

    /// Threads of one copy.
    pub fn threads(&self) -> usize {
        self.parsed.threads.len()
    }

    /// Events of one copy's threads, all together (one pass of every phase loop).
    pub fn events(&self) -> usize {
        self.parsed.threads.iter().map(|t| t.events.len()).sum()
    }

    /// Per thread of one copy, one pass of its loop: what the estimate of a run's
    /// cost reads.
    pub fn passes(&self) -> Vec<Pass> {
        let ts = &self.parsed.threads;
        let mut out: Vec<Pass> = ts.iter().map(Thread::pass).collect();
        // A thread that waits for another (suspend, wait, sync, barrier) goes at the
        // pace of the threads that wake it: its own pass and the waker's work, or the
        // waker's own pass, whichever is longer (a ping-pong's pass is both threads'
        // work; a consumer's is its producer's period). Nobody to wake it: one pass.
        let waits = |t: &Thread| -> Vec<(bool, u32)> {
            t.events
                .iter()
                .filter_map(|e| match *e {
                    Ev::Suspend(c) | Ev::Wait { cond: c, .. } | Ev::Sync { cond: c, .. } => Some((false, c)),
                    Ev::Barrier(b) => Some((true, b)),
                    _ => None,
                })
                .collect()
        };
        let wakes = |t: &Thread, (barrier, r): (bool, u32)| {
            t.events.iter().any(|e| match *e {
                Ev::Signal(c) | Ev::Broad(c) | Ev::Resume(c) | Ev::Sync { cond: c, .. } => !barrier && c == r,
                Ev::Barrier(b) => barrier && b == r,
                _ => false,
            })
        };
        for (i, t) in ts.iter().enumerate() {
            for w in waits(t) {
                let wakers: Vec<usize> = (0..ts.len()).filter(|&j| j != i && wakes(&ts[j], w)).collect();
                let own = out[i].min_ns;
                let paced = if wakers.is_empty() {
                    u64::MAX
                } else {
                    wakers.iter().map(|&j| (own + out[j].cpu_ns).max(out[j].min_ns)).min().unwrap_or(own)
                };
                out[i].paced_ns = out[i].paced_ns.max(paced);
            }
        }
        out
    }

    pub(super) fn validate(&self, nr_cpus: u32) -> Result<(), String> {
        for t in &self.parsed.threads {
            if let Affinity::Cpus(c) = &t.cpus {
                let all = (0..nr_cpus).all(|k| c.contains(&k));
                if let Some(bad) = c.iter().find(|&&k| k >= nr_cpus) {
                    return Err(format!(
                        "rt-app file {}: tasks.{}.cpus names CPU {bad}, the machine has {nr_cpus}",
                        self.file, t.key
                    ));
                }
                if c.len() > 1 && !all {
                    return Err(format!(
                        "rt-app file {}: tasks.{}.cpus {c:?}: an affinity to some CPUs but not one or all is not \
                         modelled (a task is pinned to one CPU or free)",
                        self.file, t.key
                    ));
                }
            }
        }
        Ok(())
    }
}

/// One pass of a thread's loop (every phase, each its loops), for estimates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// CPU work (`run`, `runtime`), ns.
    pub cpu_ns: u64,
    /// The least time a pass takes, ns: its work and sleeps, and at least its longest
    /// timer period (a timer late by a period restarts; on time it sleeps to it).
    pub min_ns: u64,
    /// The time a pass is expected to take, ns: [`Pass::min_ns`], or the pace of the
    /// threads it waits for (`u64::MAX`: nobody wakes it).
    pub paced_ns: u64,
    /// Stretches of work the simulator runs (a `runtime` is a piece every 32 µs).
    pub segments: u64,
    /// Wakeups: timers and sleeps ending, and every event that may wake another thread.
    pub wakeups: u64,
    /// Passes the thread makes at most (`loop`), `u64::MAX` for until the run ends.
    pub loops: u64,
}

/// A thread's CPU affinity.
#[derive(Clone, Debug, PartialEq)]
enum Affinity {
    Any,
    Cpus(Vec<u32>),
}

/// One event, resources by index into the copy's tables.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    Run(u64),
    Runtime(u64),
    Sleep(u64),
    Timer { timer: u32, period: u64 },
    Lock(u32),
    Unlock(u32),
    Wait { cond: u32, mutex: u32 },
    Signal(u32),
    Broad(u32),
    Sync { cond: u32, mutex: u32 },
    Barrier(u32),
    Suspend(u32),
    Resume(u32),
}

/// A thread: its events, phase by phase (`phases[k]` is the start of phase k's events
/// in `events`, with its loop count).
#[derive(Clone, Debug)]
struct Thread {
    /// The JSON key, for messages.
    key: String,
    name: String,
    cpus: Affinity,
    delay_ns: u64,
    /// Loops of all phases; -1: until the run ends.
    loops: i64,
    /// Shared by a thread's instances.
    events: Arc<Vec<Ev>>,
    phases: Arc<Vec<(u32, u32)>>,
    /// Its own (`unique`) timers: the first one's index among the file's own timers
    /// (after the shared ones; an event names its k-th own timer `u32::MAX - k`).
    unique_base: u32,
}

impl Thread {
    fn pass(&self) -> Pass {
        let mut p = Pass { loops: if self.loops < 0 { u64::MAX } else { self.loops as u64 }, ..Pass::default() };
        let (mut sleep_ns, mut period_max) = (0u64, 0u64);
        for (k, &(start, loops)) in self.phases.iter().enumerate() {
            let end = self.phases.get(k + 1).map_or(self.events.len() as u32, |q| q.0);
            for ev in &self.events[start as usize..end as usize] {
                let l = loops as u64;
                match *ev {
                    Ev::Run(ns) => {
                        p.cpu_ns += ns * l;
                        p.segments += l;
                    }
                    Ev::Runtime(ns) => {
                        p.cpu_ns += ns * l;
                        p.segments += ns.div_ceil(RUNTIME_PIECE_NS) * l;
                    }
                    Ev::Sleep(ns) => {
                        sleep_ns += ns * l;
                        p.wakeups += l;
                    }
                    Ev::Timer { period, .. } => {
                        period_max = period_max.max(period);
                        p.wakeups += l;
                    }
                    // What may wake another thread; waiting itself wakes nobody.
                    Ev::Signal(_) | Ev::Broad(_) | Ev::Resume(_) | Ev::Sync { .. } | Ev::Unlock(_) | Ev::Barrier(_) => {
                        p.wakeups += l
                    }
                    Ev::Lock(_) | Ev::Wait { .. } | Ev::Suspend(_) => {}
                }
            }
        }
        p.min_ns = (p.cpu_ns + sleep_ns).max(period_max).max(1_000);
        p.paced_ns = p.min_ns;
        p
    }
}

/// A parsed rt-app file.
#[derive(Debug)]
struct RtApp {
    threads: Vec<Thread>,
    mutexes: u32,
    conds: u32,
    /// Per timer, absolute (else relative): shared ones first, then each thread's own
    /// `unique` ones.
    timers: Vec<bool>,
    shared_timers: u32,
    /// Per barrier: how many references name it (its users).
    barriers: Vec<u32>,
    notes: Vec<String>,
}

// ---------------------------------------------------------------------------------
// Reading the JSON: rt-app's files have comments and keys given twice ("run" after
// "run" in one phase, events in the order written), which serde_json's maps lose.

#[derive(Clone, Debug)]
enum Node {
    Null,
    Bool,
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Bool)
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
                i64::try_from(v).map(Node::Int).map_err(|_| E::custom(format!("{v} is too large")))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Node::Arr(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, Node>()? {
                    v.push((k, x));
                }
                Ok(Node::Obj(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// The text without its `/* */` and `//` comments (outside strings), as rt-app's
/// json-c reads it; line breaks are kept so that serde_json's line numbers hold.
fn strip_comments(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
        } else if c == b'"' {
            in_str = true;
            out.push(c);
            i += 1;
        } else if b[i..].starts_with(b"/*") {
            let line = 1 + b[..i].iter().filter(|&&x| x == b'\n').count();
            let end = b[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .ok_or(format!("line {line}: a /* comment never ends"))?;
            out.extend(b[i..i + 2 + end + 2].iter().filter(|&&x| x == b'\n'));
            i += 2 + end + 2;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "not UTF-8".to_string())
}

/// What json-c and Debian's `workgen` (rt-app 1.0) take beyond JSON, made JSON: a comma
/// before `}` or `]` goes, and a bare `"suspend"` key (no value: workgen fills in the
/// thread's name) gets `: ""`, which the model reads as the thread's own name.
/// serde_json then reads it: a JSON5 reader would also take what rt-app refuses
/// (single quotes, hex numbers, bare keys), and none fills workgen's bare keys.
fn lenient(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() + 16);
    let mut i = 0;
    let next_significant = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        b.get(j).copied()
    };
    let mut last = 0u8;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.extend_from_slice(&b[start..i]);
            let key_position = last == b'{' || last == b',';
            if key_position
                && b[start + 1..].starts_with(b"suspend")
                && matches!(next_significant(i), Some(b',' | b'}'))
            {
                out.extend_from_slice(b" : \"\"");
            }
            last = b'"';
            continue;
        }
        if c == b',' && matches!(next_significant(i + 1), Some(b'}' | b']')) {
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            last = c;
        }
        out.push(c);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_default()
}

fn as_int(n: &Node, path: &str) -> Result<i64, String> {
    match n {
        Node::Int(v) => Ok(*v),
        Node::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Ok(*f as i64),
        _ => Err(format!("{path}: expected a whole number")),
    }
}

fn as_str<'a>(n: &'a Node, path: &str) -> Result<&'a str, String> {
    match n {
        Node::Str(s) => Ok(s),
        _ => Err(format!("{path}: expected a string")),
    }
}

/// A duration in µs, 0 to an hour, as ns.
fn as_us(n: &Node, path: &str) -> Result<u64, String> {
    let v = as_int(n, path)?;
    if v < 0 || v as u64 > EVENT_US_MAX {
        return Err(format!("{path} = {v}: expected 0 to {EVENT_US_MAX} µs"));
    }
    Ok(v as u64 * 1_000)
}

fn get<'a>(obj: &'a [(String, Node)], key: &str) -> Option<&'a Node> {
    obj.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Names of resources, each kind its own table, in order of first use.
#[derive(Default)]
struct Names {
    mutex: BTreeMap<String, u32>,
    cond: BTreeMap<String, u32>,
    timer: BTreeMap<String, u32>,
    /// Per shared timer: absolute (else relative).
    timer_abs: Vec<bool>,
    barrier: BTreeMap<String, u32>,
    barrier_users: Vec<u32>,
}

fn index(map: &mut BTreeMap<String, u32>, name: &str) -> u32 {
    let n = map.len() as u32;
    *map.entry(name.to_string()).or_insert(n)
}

/// rt-app's event names, matched by prefix in this order (`obj_is_event`): "runtime"
/// before "run", so "run1" is a run and "runtime2" a runtime.
const EVENTS: [&str; 20] = [
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run", "timer", "suspend", "resume",
    "memrun", "mem", "iorun", "yield", "barrier", "fork", "sem_post", "sem_wait",
];

fn event_kind(key: &str) -> Option<&'static str> {
    EVENTS.iter().copied().find(|e| key.starts_with(e))
}

/// Thread and phase keys that are not events.
const THREAD_KEYS: [&str; 10] =
    ["instance", "loop", "policy", "priority", "cpus", "delay", "phases", "dl-runtime", "dl-period", "dl-deadline"];

struct ThreadBuild<'a> {
    key: &'a str,
    events: Vec<Ev>,
    unique: BTreeMap<String, u32>,
    unique_abs: Vec<bool>,
}

fn parse_event(kind: &str, v: &Node, path: &str, names: &mut Names, t: &mut ThreadBuild) -> Result<(), String> {
    let obj_field = |field: &str| -> Result<&Node, String> {
        match v {
            Node::Obj(o) => get(o, field).ok_or(format!("{path}.{field}: missing")),
            _ => Err(format!("{path}: expected an object")),
        }
    };
    let ev = match kind {
        "run" => Ev::Run(as_us(v, path)?),
        "runtime" => Ev::Runtime(as_us(v, path)?),
        "sleep" => Ev::Sleep(as_us(v, path)?),
        "timer" => {
            let r = as_str(obj_field("ref")?, &format!("{path}.ref"))?;
            let period = as_us(obj_field("period")?, &format!("{path}.period"))?;
            let absolute = match v {
                Node::Obj(o) => match get(o, "mode") {
                    None => false,
                    Some(m) => as_str(m, &format!("{path}.mode"))?.starts_with("absolute"),
                },
                _ => false,
            };
            // Relative or absolute is the timer's: rt-app's resource starts relative and
            // any use that says "absolute" makes it absolute.
            let timer = if r.starts_with("unique") {
                // The thread's own: numbered after the shared ones once all are read.
                let k = index(&mut t.unique, r);
                if t.unique_abs.len() <= k as usize {
                    t.unique_abs.push(false);
                }
                t.unique_abs[k as usize] |= absolute;
                u32::MAX - k
            } else {
                let k = index(&mut names.timer, r);
                if names.timer_abs.len() <= k as usize {
                    names.timer_abs.push(false);
                }
                names.timer_abs[k as usize] |= absolute;
                k
            };
            t.events.push(Ev::Timer { timer, period });
            return Ok(());
        }
        "lock" => Ev::Lock(index(&mut names.mutex, as_str(v, path)?)),
        "unlock" => Ev::Unlock(index(&mut names.mutex, as_str(v, path)?)),
        "wait" | "sync" => {
            let cond = index(&mut names.cond, as_str(obj_field("ref")?, &format!("{path}.ref"))?);
            let mutex = index(&mut names.mutex, as_str(obj_field("mutex")?, &format!("{path}.mutex"))?);
            if kind == "wait" {
                Ev::Wait { cond, mutex }
            } else {
                Ev::Sync { cond, mutex }
            }
        }
        "signal" => Ev::Signal(index(&mut names.cond, as_str(v, path)?)),
        "broad" => Ev::Broad(index(&mut names.cond, as_str(v, path)?)),
        "barrier" => {
            let b = index(&mut names.barrier, as_str(v, path)?);
            if names.barrier_users.len() <= b as usize {
                names.barrier_users.push(0);
            }
            names.barrier_users[b as usize] += 1;
            Ev::Barrier(b)
        }
        "suspend" => {
            let s = as_str(v, path)?;
            Ev::Suspend(index(&mut names.cond, if s.is_empty() { t.key } else { s }))
        }
        "resume" => Ev::Resume(index(&mut names.cond, as_str(v, path)?)),
        "mem" | "memrun" | "iorun" => {
            return Err(format!("{path}: not modelled (memory and I/O bandwidth are not in the model)"))
        }
        "yield" => {
            return Err(format!("{path}: not modelled (sched_yield: the model has no yield_task_fair)"));
        }
        _ => return Err(format!("{path}: not modelled ({kind} is not in rt-app 1.0's events the model has)")),
    };
    t.events.push(ev);
    Ok(())
}

/// The `global` object: the default policy; notes on what the model takes otherwise.
fn parse_global(g: &[(String, Node)], notes: &mut Vec<String>) -> Result<String, String> {
    let mut policy = "SCHED_OTHER".to_string();
    for (gk, gv) in g {
        let path = format!("global.{gk}");
        match gk.as_str() {
            "duration" => {
                let d = as_int(gv, &path)?;
                notes.push(format!("{path} = {d} s: the experiment's duration_ms sets how long the model runs"));
            }
            "default_policy" => policy = as_str(gv, &path)?.to_string(),
            "calibration" => notes.push(format!(
                "{path}: run N is N µs of CPU work at the machine's speed (rt-app's ns per loop only converts N into \
                 loops)"
            )),
            "pi_enabled" => notes.push(format!(
                "{path}: priority inheritance is for real-time mutex owners; every thread here is SCHED_OTHER"
            )),
            "lock_pages" | "logdir" | "log_basename" | "log_size" | "ftrace" | "gnuplot" | "cumulative_slack" => {}
            "mem_buffer_size" | "io_device" => notes.push(format!("{path}: for mem and iorun, which are refused")),
            _ => notes.push(ignored(&path)),
        }
    }
    Ok(policy)
}

fn ignored(path: &str) -> String {
    format!("{path}: not an rt-app 1.0 key; rt-app ignores it, so does the model")
}

/// A thread's settings: instances, loops, affinity, delay; the policy and priority
/// checked (`nice_noted`: a nice value was said once already).
fn parse_settings(
    t: &[(String, Node)],
    tpath: &str,
    policy_default: &str,
    notes: &mut Vec<String>,
    nice_noted: &mut bool,
) -> Result<(usize, i64, Affinity, u64), String> {
    let instance = match get(t, "instance") {
        None => 1,
        Some(n) => {
            let v = as_int(n, &format!("{tpath}.instance"))?;
            if v < 1 || v as usize > RTAPP_THREADS_MAX {
                return Err(format!("{tpath}.instance = {v}: expected 1 to {RTAPP_THREADS_MAX}"));
            }
            v as usize
        }
    };
    let loops = get(t, "loop").map_or(Ok(-1), |n| as_int(n, &format!("{tpath}.loop")))?;
    if loops == 0 || loops < -1 {
        return Err(format!("{tpath}.loop = {loops}: expected -1 (until the run ends) or at least 1"));
    }
    let policy = match get(t, "policy") {
        Some(p) => as_str(p, &format!("{tpath}.policy"))?,
        None => policy_default,
    };
    if policy != "SCHED_OTHER" {
        return Err(format!("{tpath}.policy {policy}: not modelled (the model has the fair class only; SCHED_OTHER)"));
    }
    if let Some(dl) = ["dl-runtime", "dl-period", "dl-deadline"].iter().find(|k| get(t, k).is_some()) {
        return Err(format!("{tpath}.{dl}: not modelled (SCHED_DEADLINE)"));
    }
    if let Some(p) = get(t, "priority") {
        let nice = as_int(p, &format!("{tpath}.priority"))?;
        if nice != 0 && !std::mem::replace(nice_noted, true) {
            notes.push(format!(
                "{tpath}.priority = {nice} (a nice value; others may have one too): the model runs every task at nice 0"
            ));
        }
    }
    let cpus = match get(t, "cpus") {
        None => Affinity::Any,
        Some(Node::Arr(a)) if !a.is_empty() => {
            let mut c = Vec::new();
            for (i, x) in a.iter().enumerate() {
                let v = as_int(x, &format!("{tpath}.cpus[{i}]"))?;
                if !(0..=4095).contains(&v) {
                    return Err(format!("{tpath}.cpus[{i}] = {v}: expected a CPU number, 0 to 4095"));
                }
                c.push(v as u32);
            }
            c.sort_unstable();
            c.dedup();
            Affinity::Cpus(c)
        }
        Some(_) => return Err(format!("{tpath}.cpus: expected a non-empty array of CPU numbers")),
    };
    let delay_ns = get(t, "delay").map_or(Ok(0), |n| as_us(n, &format!("{tpath}.delay")))?;
    Ok((instance, loops, cpus, delay_ns))
}

/// Whether `e` lets time pass: work, a sleep, a timer.
fn takes_time(e: &Ev) -> bool {
    matches!(e, Ev::Run(1..) | Ev::Runtime(1..) | Ev::Sleep(1..) | Ev::Timer { period: 1.., .. })
}

/// A thread's phases (an object of them, or its own events as its one phase) into
/// `b`'s events; returns each phase's first event and loops.
fn parse_phases(
    t: &[(String, Node)],
    tpath: &str,
    names: &mut Names,
    b: &mut ThreadBuild,
    notes: &mut Vec<String>,
) -> Result<Vec<(u32, u32)>, String> {
    let in_phases = get(t, "phases").is_some();
    let list: Vec<(String, &[(String, Node)])> = match get(t, "phases") {
        Some(Node::Obj(ph)) if !ph.is_empty() => ph
            .iter()
            .map(|(pk, pv)| match pv {
                Node::Obj(po) => Ok((format!("{tpath}.phases.{pk}"), po.as_slice())),
                _ => Err(format!("{tpath}.phases.{pk}: expected an object")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(format!("{tpath}.phases: expected an object of phases")),
        None => vec![(tpath.to_string(), t)],
    };
    for (k, _) in t {
        if !THREAD_KEYS.contains(&k.as_str()) && (in_phases || event_kind(k).is_none()) {
            notes.push(ignored(&format!("{tpath}.{k}")));
        }
    }
    let mut phases = Vec::new();
    for (ppath, po) in &list {
        let start = b.events.len() as u32;
        let mut loops = 1u32;
        for (k, v) in po.iter().filter(|(k, _)| in_phases || !THREAD_KEYS.contains(&k.as_str())) {
            let path = format!("{ppath}.{k}");
            match (k.as_str(), event_kind(k)) {
                ("loop", _) => {
                    let l = as_int(v, &path)?;
                    if !(1..=1_000_000_000).contains(&l) {
                        return Err(format!("{path} = {l}: expected 1 to 1e9"));
                    }
                    loops = l as u32;
                }
                ("cpus", _) => {
                    return Err(format!(
                        "{path}: not modelled (a phase's own affinity; the model pins a task for its life)"
                    ))
                }
                (_, Some(kind)) => {
                    parse_event(kind, v, &path, names, b)?;
                    if b.events.len() > RTAPP_EVENTS_MAX {
                        return Err(format!("{tpath}: more than {RTAPP_EVENTS_MAX} events"));
                    }
                }
                // A thread's own keys were said above.
                (_, None) if in_phases => notes.push(ignored(&path)),
                (_, None) => {}
            }
        }
        // Each phase lets time pass: a loop of zero-time events (an uncontended lock,
        // a signal nobody waits for) would turn for ever at one instant.
        if !b.events[start as usize..].iter().any(takes_time) {
            return Err(format!(
                "{ppath}: no run, runtime, sleep or timer longer than 0: its loop would never let time pass"
            ));
        }
        phases.push((start, loops));
    }
    Ok(phases)
}

fn parse(text: &str) -> Result<RtApp, String> {
    let clean = lenient(&strip_comments(text)?);
    let root: Node = serde_json::from_str(&clean).map_err(|e| format!("not JSON: {e}"))?;
    let Node::Obj(root) = root else { return Err("expected an object with \"tasks\" (and \"global\")".into()) };
    let mut notes = Vec::new();
    let mut policy_default = "SCHED_OTHER".to_string();
    for (k, v) in &root {
        match (k.as_str(), v) {
            ("tasks", _) => {}
            ("global", Node::Obj(g)) => policy_default = parse_global(g, &mut notes)?,
            ("global", _) => return Err("global: expected an object".into()),
            ("resources", _) => notes.push("resources: rt-app 1.0 makes them from the events; not needed".into()),
            _ => return Err(format!("{k}: unknown key, expected tasks or global")),
        }
    }
    let Some(Node::Obj(tasks)) = get(&root, "tasks") else { return Err("tasks: missing, or not an object".into()) };
    if tasks.is_empty() {
        return Err("tasks: no thread".into());
    }
    let mut names = Names::default();
    let (mut threads, mut unique_abs): (Vec<Thread>, Vec<bool>) = (Vec::new(), Vec::new());
    let mut nice_noted = false;
    for (key, tv) in tasks {
        let tpath = format!("tasks.{key}");
        let Node::Obj(t) = tv else { return Err(format!("{tpath}: expected an object")) };
        let (instance, mut loops, cpus, delay_ns) =
            parse_settings(t, &tpath, &policy_default, &mut notes, &mut nice_noted)?;
        // Without "phases", rt-app 1.0 (Debian's; measured on the box: a thread of
        // "loop": 3 ran its run and sleep for the whole duration) repeats the thread
        // until the run ends; rt-app since 2017 (c67aaf6) stops after `loop` passes.
        if get(t, "phases").is_none() && loops > 0 {
            notes.push(format!(
                "{tpath}.loop = {loops} without phases: rt-app 1.0 repeats the thread until the run ends, and so does                  the model (later rt-app stops after {loops})"
            ));
            loops = -1;
        }
        let mut b = ThreadBuild { key, events: Vec::new(), unique: BTreeMap::new(), unique_abs: Vec::new() };
        let phases = Arc::new(parse_phases(t, &tpath, &mut names, &mut b, &mut notes)?);
        let events = Arc::new(b.events);
        if threads.len() + instance > RTAPP_THREADS_MAX {
            return Err(format!("tasks: more than {RTAPP_THREADS_MAX} threads with their instances"));
        }
        for i in 0..instance {
            threads.push(Thread {
                key: key.clone(),
                name: if instance > 1 { format!("{key}-{i}") } else { key.clone() },
                cpus: cpus.clone(),
                delay_ns,
                loops,
                events: events.clone(),
                phases: phases.clone(),
                unique_base: unique_abs.len() as u32,
            });
            unique_abs.extend(&b.unique_abs);
        }
        // A barrier's users are its references in every thread, and each instance is a
        // thread of its own with its own references (the first counted as read).
        for ev in events.iter() {
            if let Ev::Barrier(x) = ev {
                names.barrier_users[*x as usize] += instance as u32 - 1;
            }
        }
    }
    let shared_timers = names.timer.len() as u32;
    let mut timers = names.timer_abs;
    timers.extend(unique_abs);
    Ok(RtApp {
        threads,
        mutexes: names.mutex.len() as u32,
        conds: names.cond.len() as u32,
        timers,
        shared_timers,
        barriers: names.barrier_users,
        notes,
    })
}
