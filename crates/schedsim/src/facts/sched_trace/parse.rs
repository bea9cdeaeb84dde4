//! One line of scheduler-trace text to an event, without allocating per line.
//!
//! Every accepted line has the same head, whatever the tool: `COMM PID [CPU] TIME:
//! EVENT: ARGS`. perf script (`tools/perf/builtin-script.c`, `perf_sample__fprintf_start`)
//! prints the comm right-aligned in 16 columns, the tid (or `pid/tid` with `-F pid,tid`),
//! `[%03d]` and the time as `%5lu.%06lu:` (9 decimals with `--ns`); trace-cmd report
//! (`tracecmd/trace-read.c`, through libtraceevent's `tep_print_event`) and the kernel's
//! own `trace` file (`kernel/trace/trace.c`, `trace_print_context`) print `comm-pid`,
//! `[%03d]`, an optional latency column (`d..2.`) and the time. The head is
//! found from the `[CPU]` token followed by a timestamp, so a COMM may hold spaces, dashes
//! or brackets; the PID is the last word before it (perf) or what follows the last `-`
//! (trace-cmd).
//!
//! The arguments come in two forms. The kernel's format strings
//! (`include/trace/events/sched.h`, v6.6: `TP_printk` of `sched_switch`,
//! `sched_wakeup_template`, `sched_migrate_task`, `sched_process_fork`,
//! `sched_process_template`) give `key=value` text; libtraceevent's sched plugin
//! (`plugins/plugin_sched_switch.c`: `sched_switch_handler`, `sched_wakeup_handler`),
//! which perf and trace-cmd load when they can, gives `comm:pid [prio] S ==> comm:pid
//! [prio]` and `comm:pid [prio] success=1 CPU:001`. A COMM in either may hold spaces and
//! colons: a comm ends at the key after it, or at the last `:pid`.

/// A parsed line's head.
pub(super) struct Head<'a> {
    /// COMM of the task current on the CPU (bytes as traced).
    pub comm: &'a [u8],
    /// Its pid (the thread id); `None` for perf's `-1`.
    pub pid: Option<u32>,
    pub cpu: u32,
    pub time_ns: u64,
    /// The event name as printed, without the trailing colon (`sched:sched_switch`).
    pub event: &'a [u8],
    pub args: &'a [u8],
    /// trace-cmd or ftrace head (`comm-pid`) rather than perf's (`comm pid`).
    pub dash: bool,
}

/// Most CPU numbers: the simulator's `REPLAY_TRACE_CPUS_MAX`.
pub(super) const CPU_NUMBER_MAX: u32 = super::super::workload::replay::REPLAY_TRACE_CPUS_MAX - 1;

/// Why a line that looked like an event line was refused.
pub(super) enum HeadError<'a> {
    /// Not an event line at all.
    NoMatch,
    /// A CPU over [`CPU_NUMBER_MAX`].
    Cpu(u64),
    /// A word ending in `:` where the time goes (after `[CPU]`, an event after it)
    /// that is no `SECS.FRAC` of at most 9 fraction digits: `-1.0`, `NaN`, `1e3`.
    Time(&'a [u8]),
}

fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

fn trim_start(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\r', rest @ ..] = s {
        s = rest;
    }
    s
}

fn trim(s: &[u8]) -> &[u8] {
    let mut s = trim_start(s);
    while let [rest @ .., b' ' | b'\t' | b'\r'] = s {
        s = rest;
    }
    s
}

fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
        i += 1;
    }
    i
}

/// A decimal u64 of at most 19 digits, the whole slice.
pub(super) fn num_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        if !is_digit(c) {
            return None;
        }
        v = v * 10 + (c - b'0') as u64;
    }
    Some(v)
}

pub(super) fn num_u32(s: &[u8]) -> Option<u32> {
    num_u64(s).and_then(|v| u32::try_from(v).ok())
}

pub(super) fn num_i32(s: &[u8]) -> Option<i32> {
    match s {
        [b'-', rest @ ..] => num_u64(rest).and_then(|v| i32::try_from(v).ok()).map(|v| -v),
        _ => num_u64(s).and_then(|v| i32::try_from(v).ok()),
    }
}

/// `SECS.FRAC:` with 1 to 9 fraction digits, to ns, and the index after the colon.
fn timestamp(s: &[u8], i: usize) -> Option<(u64, usize)> {
    let mut j = i;
    while j < s.len() && is_digit(s[j]) {
        j += 1;
    }
    let secs = num_u64(s.get(i..j)?)?;
    if s.get(j) != Some(&b'.') {
        return None;
    }
    let f0 = j + 1;
    let mut k = f0;
    while k < s.len() && is_digit(s[k]) {
        k += 1;
    }
    let digits = k - f0;
    if digits == 0 || digits > 9 || s.get(k) != Some(&b':') {
        return None;
    }
    let frac = num_u64(&s[f0..k])? * 10u64.pow(9 - digits as u32);
    Some((secs.checked_mul(1_000_000_000)?.checked_add(frac)?, k + 1))
}

/// Finds the head: the first `[digits]` that a timestamp follows (after an optional
/// latency column).
pub(super) fn head(line: &[u8]) -> Result<Head<'_>, HeadError<'_>> {
    let mut from = 0;
    // The first `[CPU] WORD: EVENT:` whose WORD is no time: an error unless a later
    // `[` gives a head (a comm may hold `[1] x:`).
    let mut bad_time = None;
    while let Some(off) = line.get(from..).and_then(|r| r.iter().position(|&c| c == b'[')) {
        let open = from + off;
        from = open + 1;
        let mut j = open + 1;
        while j < line.len() && is_digit(line[j]) {
            j += 1;
        }
        // Any number of digits: a CPU past the bound is an error whatever its length
        // (an eight-digit one was dropped as no event while 1024 was refused).
        if j == open + 1 || line.get(j) != Some(&b']') {
            continue;
        }
        let k = skip_spaces(line, j + 1);
        if k == j + 1 {
            continue;
        }
        let ts = timestamp(line, k).or_else(|| {
            // trace-cmd's latency column (`d..2.`, `.....`): one word of flags.
            let mut m = k;
            while m < line.len() && line[m] != b' ' && line[m] != b'\t' {
                m += 1;
            }
            if m - k > 8 {
                return None;
            }
            timestamp(line, skip_spaces(line, m))
        });
        let Some((time_ns, after)) = ts else {
            if bad_time.is_none() {
                bad_time = time_word(line, k);
            }
            continue;
        };
        let cpu = num_u64(&line[open + 1..j]).unwrap_or(u64::MAX);
        if cpu > CPU_NUMBER_MAX as u64 {
            return Err(HeadError::Cpu(cpu));
        }
        let (comm, pid, dash) = comm_pid(trim(&line[..open])).ok_or(HeadError::NoMatch)?;
        let (event, args) = event_args(line, after).ok_or(HeadError::NoMatch)?;
        return Ok(Head { comm, pid, cpu: cpu as u32, time_ns, event, args, dash });
    }
    Err(bad_time.map_or(HeadError::NoMatch, HeadError::Time))
}

/// The word at `k` (or after a latency column there) when it stands where a time goes
/// (it ends in `:` and an event name follows it) without being one; timestamps that
/// did not read were dropped as no event, silently.
fn time_word(line: &[u8], k: usize) -> Option<&[u8]> {
    let word_end = |from: usize| {
        let mut m = from;
        while m < line.len() && line[m] != b' ' && line[m] != b'\t' {
            m += 1;
        }
        m
    };
    let mut start = k;
    let mut end = word_end(start);
    if end > start && line[end - 1] != b':' {
        start = skip_spaces(line, end);
        end = word_end(start);
    }
    let word = &line[start..end];
    (word.len() > 1 && word.ends_with(b":") && event_args(line, end).is_some()).then_some(word)
}

/// `COMM PID`, `COMM PID/TID` (perf) or `COMM-PID` (trace-cmd); the pid `None` for `-1`.
fn comm_pid(h: &[u8]) -> Option<(&[u8], Option<u32>, bool)> {
    let sp = h.iter().rposition(|&c| c == b' ' || c == b'\t');
    let last = &h[sp.map_or(0, |i| i + 1)..];
    let tid = match last.iter().position(|&c| c == b'/') {
        Some(s) if num_u32(&last[..s]).is_some() || &last[..s] == b"-1" => &last[s + 1..],
        _ => last,
    };
    if let (Some(i), true) = (sp, tid == b"-1" || num_u32(tid).is_some()) {
        return Some((trim(&h[..i]), num_u32(tid), false));
    }
    let dash = h.iter().rposition(|&c| c == b'-')?;
    let pid = &h[dash + 1..];
    let pid = if pid == b"-1" { None } else { Some(num_u32(pid)?) };
    Some((trim(&h[..dash]), pid, true))
}

/// The event name (the first word ending in `:`; perf may print a period before it)
/// and the arguments after it.
fn event_args(line: &[u8], mut i: usize) -> Option<(&[u8], &[u8])> {
    for _ in 0..3 {
        i = skip_spaces(line, i);
        let mut e = i;
        while e < line.len() && line[e] != b' ' && line[e] != b'\t' {
            e += 1;
        }
        if e > i + 1 && line[e - 1] == b':' {
            return Some((&line[i..e - 1], trim(&line[e..])));
        }
        if e == i {
            return None;
        }
        i = e;
    }
    None
}

/// The name after the subsystem (`sched:sched_switch` → `sched_switch`).
pub(super) fn short_name(event: &[u8]) -> &[u8] {
    match event.iter().rposition(|&c| c == b':') {
        Some(i) => &event[i + 1..],
        None => event,
    }
}

/// The first `needle` in `hay` from `from`: each place its first byte is (`memchr`'s
/// SIMD byte search) compared with it. A slice compare at every byte took a tenth of an
/// import (every line is searched for `[LOST` and `PERF_RECORD_LOST`), and `memmem`'s
/// searcher, built anew for each short line, most of that again.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut at = from;
    while at < hay.len() {
        let p = at + memchr::memchr(first, &hay[at..])?;
        if hay[p + 1..].starts_with(rest) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

/// The last `needle` in `hay`, as [`find`] from the end.
fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut end = hay.len();
    while let Some(p) = memchr::memrchr(first, &hay[..end]) {
        if hay[p + 1..].starts_with(rest) {
            return Some(p);
        }
        end = p;
    }
    None
}

/// The word after `key` (`key` includes its `=`) at the start or after a space, from
/// `from`.
fn word_after<'a>(s: &'a [u8], key: &[u8], from: usize) -> Option<(&'a [u8], usize)> {
    let mut at = from;
    loop {
        let p = find(s, key, at)?;
        if p == 0 || s[p - 1] == b' ' {
            let v0 = p + key.len();
            let mut v1 = v0;
            while v1 < s.len() && s[v1] != b' ' {
                v1 += 1;
            }
            return Some((&s[v0..v1], v1));
        }
        at = p + 1;
    }
}

/// A task as an event names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Named<'a> {
    pub comm: &'a [u8],
    pub pid: u32,
    pub prio: i32,
}

/// How a task left the CPU, from `prev_state`: runnable (`R`, `R+`: preempted) or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Left {
    Runnable,
    Sleeping,
    /// `X` (dead) or `Z` (zombie): it exits.
    Dead,
}

/// `prev_state` as the kernel prints it (`__print_flags` of `TASK_REPORT` bits joined by
/// `|`, `R` when none, `+` for a preemption) or as the plugin does (`write_state`: the
/// letters of `SDTtZXxW...` joined by `|`, `R` when none).
pub(super) fn left(state: &[u8]) -> Option<Left> {
    let s = trim(state);
    // A state the kernel's table does not name is printed as a number (`0x400`,
    // `TASK_REPORT_MAX` and above): its bits, of which 0x10 is X (dead) and 0x20 Z.
    if let Some(hex) = s.strip_prefix(b"0x") {
        let bits = std::str::from_utf8(hex).ok().and_then(|h| u64::from_str_radix(h, 16).ok())?;
        return Some(match bits {
            0 => Left::Runnable,
            b if b & 0x30 != 0 => Left::Dead,
            _ => Left::Sleeping,
        });
    }
    match s.first()? {
        b'R' if s.iter().skip(1).all(|&c| c == b'+') => Some(Left::Runnable),
        _ if s.iter().any(|&c| matches!(c, b'X' | b'Z' | b'x')) => Some(Left::Dead),
        _ if s.iter().all(|&c| c.is_ascii_alphabetic() || c == b'|' || c == b'+') => Some(Left::Sleeping),
        _ => None,
    }
}

/// `sched_switch`'s arguments.
pub(super) struct Switch<'a> {
    pub prev: Named<'a>,
    pub left: Left,
    pub next: Named<'a>,
    pub plugin: bool,
}

pub(super) fn switch(a: &[u8]) -> Option<Switch<'_>> {
    if a.starts_with(b"prev_comm=") {
        // prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d
        let pp = find(a, b" prev_pid=", 10)?;
        let (pid, e) = word_after(a, b"prev_pid=", pp)?;
        let (prio, e) = word_after(a, b"prev_prio=", e)?;
        let (state, e) = word_after(a, b"prev_state=", e)?;
        let nc = find(a, b" ==> next_comm=", e)? + 15;
        let rest = &a[nc..];
        let np = rfind(rest, b" next_pid=")?;
        let (npid, e2) = word_after(rest, b"next_pid=", np)?;
        let (nprio, _) = word_after(rest, b"next_prio=", e2)?;
        return Some(Switch {
            prev: Named { comm: &a[10..pp], pid: num_u32(pid)?, prio: num_i32(prio)? },
            left: left(state)?,
            next: Named { comm: &rest[..np], pid: num_u32(npid)?, prio: num_i32(nprio)? },
            plugin: false,
        });
    }
    // comm:pid [prio] S ==> comm:pid [prio]; take the first ` ==> ` both sides of which
    // read. Linear in the line however many ` ==> ` it holds: the next task is read from
    // the line's right end once (every try's right side ends there, and its comm starts
    // after its ` ==> `), and each try's left side reads only back to its own words.
    let next = plugin_task(a);
    let mut from = 0;
    while let Some(p) = find(a, b" ==> ", from) {
        from = p + 1;
        let lhs = &a[..p];
        let Some(sp) = lhs.iter().rposition(|&c| c == b' ') else { continue };
        let n = next.filter(|n| n.comm_at >= p + 5)?;
        let (Some(l), Some(prev)) = (left(&lhs[sp + 1..]), plugin_task(&lhs[..sp])) else {
            continue;
        };
        let comm = trim_start(&a[p + 5..n.comm_at]);
        return Some(Switch { prev: prev.named, left: l, next: Named { comm, ..n.named }, plugin: true });
    }
    None
}

/// A task read by [`plugin_task`], and where its comm ends in the slice read (its `:`).
#[derive(Clone, Copy)]
struct PluginTask<'a> {
    named: Named<'a>,
    comm_at: usize,
}

/// `comm:pid [prio]`, from the right. The `[` and the `:` are looked for only as far
/// back as a prio or pid can reach (20 characters: `num_i32` and `num_u64` take no
/// more), so that a try costs the same however long the text before it.
fn plugin_task(whole: &[u8]) -> Option<PluginTask<'_>> {
    const NUMBER_MAX: usize = 20;
    let rposition_near = |s: &[u8], b: u8| {
        let from = s.len().saturating_sub(NUMBER_MAX + 1);
        s[from..].iter().rposition(|&c| c == b).map(|i| i + from)
    };
    let s = trim(whole);
    let (body, prio) = match s {
        [rest @ .., b']'] => {
            let o = rposition_near(rest, b'[')?;
            (trim(&rest[..o]), num_i32(&rest[o + 1..])?)
        }
        _ => (s, 120),
    };
    let c = rposition_near(body, b':')?;
    let pid = num_u32(&body[c + 1..])?;
    // `body` starts where the trimmed `s` does: after the leading white space.
    let lead = whole.len() - trim_start(whole).len();
    Some(PluginTask { named: Named { comm: &body[..c], pid, prio }, comm_at: lead + c })
}

/// A wakeup's arguments: `comm=%s pid=%d prio=%d [success=%d] target_cpu=%03d`, or the
/// plugin's `comm:pid [prio] [success=1] CPU:001`.
pub(super) fn wakeup(a: &[u8]) -> Option<(Named<'_>, bool)> {
    if a.starts_with(b"comm=") {
        // The last ` pid=`: a comm may hold one, the fields after it do not.
        let pp = rfind(a, b" pid=").filter(|&p| p >= 5)?;
        let (pid, e) = word_after(a, b"pid=", pp)?;
        let prio = word_after(a, b"prio=", e).and_then(|(p, _)| num_i32(p)).unwrap_or(120);
        return Some((Named { comm: &a[5..pp], pid: num_u32(pid)?, prio }, false));
    }
    let mut s = trim(a);
    // perf 6.1's own plugin asks for the `success` field the kernel dropped in v4.3 and
    // prints `<CANT FIND FIELD success>` glued to the prio: what follows is unused.
    if let Some(p) = find(s, b"<CANT FIND FIELD", 0) {
        s = trim(&s[..p]);
    }
    for _ in 0..2 {
        let sp = s.iter().rposition(|&c| c == b' ');
        let last = &s[sp.map_or(0, |i| i + 1)..];
        if last.starts_with(b"CPU:") || last.starts_with(b"success=") {
            s = trim(&s[..sp?]);
        }
    }
    Some((plugin_task(s)?.named, true))
}

/// `sched_process_fork`: `comm=%s pid=%d child_comm=%s child_pid=%d`.
pub(super) fn fork(a: &[u8]) -> Option<(Named<'_>, Named<'_>)> {
    let a = a.strip_prefix(b"comm=")?;
    let pp = find(a, b" pid=", 0)?;
    let (pid, e) = word_after(a, b"pid=", pp)?;
    let cc = find(a, b" child_comm=", e.saturating_sub(1))? + 12;
    let rest = &a[cc..];
    let cp = rfind(rest, b" child_pid=")?;
    let (cpid, _) = word_after(rest, b"child_pid=", cp)?;
    Some((
        Named { comm: &a[..pp], pid: num_u32(pid)?, prio: 120 },
        Named { comm: &rest[..cp], pid: num_u32(cpid)?, prio: 120 },
    ))
}

/// `sched_process_exit` (`comm=%s pid=%d prio=%d [group_dead=%d]`) and
/// `sched_migrate_task` (`comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d`): the task.
pub(super) fn comm_pid_prio(a: &[u8]) -> Option<Named<'_>> {
    let a = a.strip_prefix(b"comm=")?;
    // The last ` pid=`, as for a wakeup.
    let pp = rfind(a, b" pid=")?;
    let (pid, e) = word_after(a, b"pid=", pp)?;
    let prio = word_after(a, b"prio=", e).and_then(|(p, _)| num_i32(p)).unwrap_or(120);
    Some(Named { comm: &a[..pp], pid: num_u32(pid)?, prio })
}

/// `sched_migrate_task`'s `orig_cpu=N`.
pub(super) fn orig_cpu(a: &[u8]) -> Option<u32> {
    word_after(a, b"orig_cpu=", 0).and_then(|(w, _)| num_u32(w))
}

/// A lost-events line: trace-cmd's `CPU:N [LOST 123 EVENTS]` (or `[LOST EVENTS]`), perf
/// script's `PERF_RECORD_LOST` with `lost N` (`--show-lost-events`). The count, if any.
pub(super) fn lost(line: &[u8]) -> Option<u64> {
    // Both marks hold an `L`, which most lines lack: one byte search rules them out.
    memchr::memchr(b'L', line)?;
    if let Some(p) = find(line, b"[LOST", 0) {
        let rest = &line[p + 5..];
        let w = rest.iter().skip_while(|&&c| c == b' ').take_while(|c| c.is_ascii_digit()).count();
        let k = rest.iter().take_while(|&&c| c == b' ').count();
        return Some(num_u64(&rest[k..k + w]).unwrap_or(0));
    }
    let p = find(line, b"PERF_RECORD_LOST", 0)?;
    let rest = &line[p..];
    let q = find(rest, b"lost", 16).map_or(rest.len(), |q| q + 4);
    let digits: &[u8] = {
        let r = &rest[q..];
        let s = r.iter().position(|c| c.is_ascii_digit()).unwrap_or(r.len());
        let e = r[s..].iter().position(|c| !c.is_ascii_digit()).map_or(r.len(), |e| s + e);
        &r[s..e]
    };
    Some(num_u64(digits).unwrap_or(0))
}

/// A header or comment line to pass over: `#` comments (ftrace, perf's `# ========`),
/// trace-cmd's `version = 6`, `cpus=2`, `CPU 3 is empty`, `CPU0 data recorded at...`.
pub(super) fn header_line(line: &[u8]) -> Option<Option<u32>> {
    let t = trim(line);
    if t.is_empty() || t[0] == b'#' || t.starts_with(b"version = ") || t.starts_with(b"version=") {
        return Some(None);
    }
    if let Some(n) = t.strip_prefix(b"cpus=") {
        return Some(num_u32(trim(n)));
    }
    if t.starts_with(b"CPU") && (find(t, b" is empty", 0).is_some() || find(t, b" data recorded at", 0).is_some()) {
        return Some(None);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_of_each_tool() {
        let h = head(b"     tmux: server 12345 [001] 12345.678901: sched:sched_switch: a=b").ok().unwrap();
        assert_eq!((h.comm, h.pid, h.cpu, h.time_ns), (&b"tmux: server"[..], Some(12345), 1, 12_345_678_901_000));
        assert_eq!((h.event, h.args, h.dash), (&b"sched:sched_switch"[..], &b"a=b"[..], false));
        let h = head(b"  Web Content  77/78   [002]  5.000000001: sched:sched_waking: comm=x").ok().unwrap();
        assert_eq!((h.comm, h.pid, h.time_ns), (&b"Web Content"[..], Some(78), 5_000_000_001));
        let h = head(b"  kworker/u8:3-ev-1234  [003] d..2.  1234.567890: sched_switch: x").ok().unwrap();
        assert_eq!((h.comm, h.pid, h.cpu, h.dash), (&b"kworker/u8:3-ev"[..], Some(1234), 3, true));
        let h = head(b"<idle>-0 [000] 1.5: sched_waking: comm=a").ok().unwrap();
        assert_eq!((h.comm, h.pid, h.time_ns), (&b"<idle>"[..], Some(0), 1_500_000_000));
        let h = head(b"perf -1 [000] 1.000001:  sched:sched_stat_runtime: x").ok().unwrap();
        assert_eq!(h.pid, None);
        assert!(matches!(head(b"perf 1 [4096] 1.0: sched:sched_switch: x"), Err(HeadError::Cpu(4096))));
        assert!(matches!(head(b"perf 1 [12345678] 1.0: sched:sched_switch: x"), Err(HeadError::Cpu(12_345_678))));
        let huge = head(b"perf 1 [123456789012345678901234] 1.0: sched:sched_switch: x");
        assert!(matches!(huge, Err(HeadError::Cpu(u64::MAX))));
        assert!(matches!(head(b"hello [1] world"), Err(HeadError::NoMatch)));
        // A time that does not read is an error, not a line dropped as no event (issue 42).
        for t in ["1.0123456789:", "-1.000000:", "NaN:", "1e3:", "1.5e3:", "inf:"] {
            let line = format!("perf 1 [001] {t} sched:sched_switch: x");
            assert!(matches!(head(line.as_bytes()), Err(HeadError::Time(w)) if w == t.as_bytes()), "{t}");
        }
        assert!(matches!(head(b"k-1 [001] d..2. -1.5: sched_switch: x"), Err(HeadError::Time(b"-1.5:"))));
        // A comm holding `[1] x:` still finds the real head after it.
        let h = head(b"a [1] x: b 7 [002] 1.5: sched:sched_waking: comm=a").ok().unwrap();
        assert_eq!((h.pid, h.cpu), (Some(7), 2));
    }

    #[test]
    fn switch_forms() {
        let s = switch(
            b"prev_comm=tmux: server prev_pid=5 prev_prio=120 prev_state=R+ ==> next_comm=a b next_pid=6 next_prio=98",
        )
        .unwrap();
        assert_eq!((s.prev.comm, s.prev.pid, s.left), (&b"tmux: server"[..], 5, Left::Runnable));
        assert_eq!((s.next.comm, s.next.pid, s.next.prio), (&b"a b"[..], 6, 98));
        let s = switch(b"a:b c:5 [120] S|D ==> swapper/1:0 [120]").unwrap();
        assert_eq!((s.prev.comm, s.prev.pid, s.left, s.next.pid), (&b"a:b c"[..], 5, Left::Sleeping, 0));
        assert_eq!(switch(b"x:1 [120] X ==> y:2 [120]").unwrap().left, Left::Dead);
        assert!(
            switch(b"prev_comm=a prev_pid=z prev_prio=1 prev_state=S ==> next_comm=b next_pid=1 next_prio=1").is_none()
        );
        let (w, plugin) = wakeup(b"perf:12346 [120] success=1 CPU:001").unwrap();
        assert_eq!((w.comm, w.pid, w.prio, plugin), (&b"perf"[..], 12346, 120, true));
        let (w, _) = wakeup(b"sched-pipe:11685 [120]<CANT FIND FIELD success> CPU:001").unwrap();
        assert_eq!((w.comm, w.pid, w.prio), (&b"sched-pipe"[..], 11685, 120));
        let (w, _) = wakeup(b"memfd:sealed-91:4013 [120] CPU:001").unwrap();
        assert_eq!((w.comm, w.pid), (&b"memfd:sealed-91"[..], 4013));
        let (w, _) = wakeup(b"comm=a b pid=7 prio=120 success=1 target_cpu=002").unwrap();
        assert_eq!((w.comm, w.pid), (&b"a b"[..], 7));
        let (p, c) = fork(b"comm=bash pid=10 child_comm=bash child_pid=11").unwrap();
        assert_eq!((p.pid, c.comm, c.pid), (10, &b"bash"[..], 11));
        // A comm holding ` pid=` (issue 42).
        let (w, _) = wakeup(b"comm=a pid=9 pid=7 prio=120 target_cpu=002").unwrap();
        assert_eq!((w.comm, w.pid), (&b"a pid=9"[..], 7));
        let m = comm_pid_prio(b"comm=a pid=9 pid=7 prio=120 orig_cpu=1 dest_cpu=2").unwrap();
        assert_eq!((m.comm, m.pid), (&b"a pid=9"[..], 7));
        // A state printed as a number: its bits (issue 42: 0x400 was 'dead' for its x).
        assert_eq!(left(b"0x400"), Some(Left::Sleeping));
        assert_eq!(left(b"0x0"), Some(Left::Runnable));
        assert_eq!(left(b"0x10"), Some(Left::Dead));
        assert_eq!(left(b"0xq"), None);
        assert_eq!(lost(b"CPU:1 [LOST 123 EVENTS]"), Some(123));
        assert_eq!(lost(b"CPU:1 [LOST EVENTS]"), Some(0));
        assert_eq!(lost(b" perf 0 [000] 0.0: PERF_RECORD_LOST lost 77"), Some(77));
    }
}
