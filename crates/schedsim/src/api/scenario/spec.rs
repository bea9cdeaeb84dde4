//! A wakeup or newidle scenario's text (the grammar in `mod.rs`) read into a [`Spec`].

use crate::state::pelt::NICE_0_LOAD;

#[derive(Clone, Default)]
pub(super) struct CpuSpec {
    pub(super) busy: bool,
    pub(super) queued: u32,
    pub(super) cstate: Option<String>,
    pub(super) load: Option<u64>,
    pub(super) task_load: Option<u64>,
    pub(super) avg_idle: Option<u64>,
    pub(super) wake_avg_idle: Option<u64>,
    pub(super) max_newidle_lb_cost: Option<Vec<u64>>,
    pub(super) wake_stamp_ago: u64,
    pub(super) ttwu_pending: bool,
}

#[derive(Default)]
pub(super) struct WakeeSpec {
    pub(super) prev: u32,
    pub(super) recent: Option<u32>,
    pub(super) flips: u32,
    pub(super) load: u64,
    pub(super) pinned: Option<u32>,
    pub(super) on_cpu: bool,
}

#[derive(Default)]
pub(super) struct WakerSpec {
    pub(super) task: bool,
    pub(super) cpu: u32,
    pub(super) flips: u32,
    pub(super) load: u64,
    pub(super) new_partner: bool,
    pub(super) kthread: bool,
    pub(super) recent: Option<u32>,
}

#[derive(Default)]
pub(super) struct Spec {
    pub(super) machine: String,
    pub(super) numa: Option<u32>,
    pub(super) kernel: String,
    pub(super) cpus: Vec<(Vec<u32>, Vec<String>)>,
    pub(super) llcs: Vec<(u32, Vec<String>)>,
    pub(super) rd_overload: Option<bool>,
    pub(super) shard_size: u32,
    pub(super) cgroup_depth: u32,
    pub(super) other_cgroups: u32,
    pub(super) wakee: Option<WakeeSpec>,
    pub(super) waker: Option<WakerSpec>,
    pub(super) sync: bool,
    pub(super) newidle: Option<u32>,
    /// A wakeup queued on the newidle CPU's wake list while it balances.
    pub(super) wakeup_during: bool,
}

pub(super) fn num(line: &str, key: &str, v: &str) -> Result<u64, String> {
    v.parse::<u64>().map_err(|_| format!("line {line:?}: {key}={v:?} is not a whole number"))
}

/// `0-3,5` → [0, 1, 2, 3, 5].
fn cpu_list(line: &str, s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let a = num(line, "cpu", a)? as u32;
        let b = num(line, "cpu", b)? as u32;
        if b < a {
            return Err(format!("line {line:?}: empty CPU range {part:?}"));
        }
        out.extend(a..=b);
    }
    Ok(out)
}

pub(super) fn parse(text: &str) -> Result<Spec, String> {
    let mut s = Spec { shard_size: crate::api::experiment::DEFAULT_SHARD_SIZE, ..Spec::default() };
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let kv = |w: &str| -> (String, String) {
            match w.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (w.to_string(), String::new()),
            }
        };
        match words[0] {
            "machine" => s.machine = words.get(1).ok_or("machine: missing spec")?.to_string(),
            "numa" => s.numa = Some(num(line, "numa", words.get(1).ok_or("numa: missing distance")?)? as u32),
            "kernel" => s.kernel = words.get(1).ok_or("kernel: missing spec")?.to_string(),
            "sync" => s.sync = true,
            "shard_size" => s.shard_size = num(line, "shard_size", words.get(1).ok_or("shard_size: missing")?)? as u32,
            "cgroup_depth" => {
                s.cgroup_depth = num(line, "cgroup_depth", words.get(1).ok_or("cgroup_depth: missing")?)?.min(16) as u32
            }
            "other_cgroups" => {
                s.other_cgroups =
                    num(line, "other_cgroups", words.get(1).ok_or("other_cgroups: missing")?)?.min(4096) as u32
            }
            "rd_overload" => s.rd_overload = Some(words.get(1) == Some(&"1")),
            "cpu" => {
                let list = cpu_list(line, words.get(1).ok_or("cpu: missing CPU list")?)?;
                s.cpus.push((list, words[2..].iter().map(|w| w.to_string()).collect()));
            }
            "llc" => {
                let l = num(line, "llc", words.get(1).ok_or("llc: missing index")?)? as u32;
                s.llcs.push((l, words[2..].iter().map(|w| w.to_string()).collect()));
            }
            "wakee" => {
                let mut w = WakeeSpec { load: 512, ..WakeeSpec::default() };
                let mut has_prev = false;
                for word in &words[1..] {
                    let (k, v) = kv(word);
                    match k.as_str() {
                        "prev" => {
                            w.prev = num(line, &k, &v)? as u32;
                            has_prev = true;
                        }
                        "recent" => w.recent = Some(num(line, &k, &v)? as u32),
                        "flips" => w.flips = num(line, &k, &v)? as u32,
                        "load" => w.load = num(line, &k, &v)?,
                        "pinned" => w.pinned = Some(num(line, &k, &v)? as u32),
                        "on_cpu" => w.on_cpu = true,
                        _ => return Err(format!("line {line:?}: unknown wakee field {k:?}")),
                    }
                }
                if !has_prev {
                    return Err(format!("line {line:?}: wakee needs prev="));
                }
                s.wakee = Some(w);
            }
            "waker" => {
                let mut w = WakerSpec { load: NICE_0_LOAD, ..WakerSpec::default() };
                match words.get(1) {
                    Some(&"task") => w.task = true,
                    Some(&"irq") => w.task = false,
                    _ => return Err(format!("line {line:?}: waker task|irq cpu=N ...")),
                }
                for word in &words[2..] {
                    let (k, v) = kv(word);
                    match k.as_str() {
                        "cpu" => w.cpu = num(line, &k, &v)? as u32,
                        "flips" => w.flips = num(line, &k, &v)? as u32,
                        "load" => w.load = num(line, &k, &v)?,
                        "new_partner" => w.new_partner = true,
                        "kthread" => w.kthread = true,
                        "recent" => w.recent = Some(num(line, &k, &v)? as u32),
                        _ => return Err(format!("line {line:?}: unknown waker field {k:?}")),
                    }
                }
                s.waker = Some(w);
            }
            "newidle" => {
                let (k, v) = kv(words.get(1).ok_or("newidle: missing cpu=N")?);
                if k != "cpu" {
                    return Err(format!("line {line:?}: newidle cpu=N [wakeup_during]"));
                }
                s.newidle = Some(num(line, &k, &v)? as u32);
                match words.get(2) {
                    None => {}
                    Some(&"wakeup_during") => s.wakeup_during = true,
                    Some(w) => return Err(format!("line {line:?}: unknown newidle option {w:?}")),
                }
            }
            w => return Err(format!("line {line:?}: unknown directive {w:?}")),
        }
    }
    if s.machine.is_empty() || s.kernel.is_empty() {
        return Err("a scenario needs `machine` and `kernel`".into());
    }
    match (&s.wakee, &s.waker, s.newidle) {
        (Some(_), Some(_), None) | (None, None, Some(_)) => Ok(s),
        _ => Err("a scenario is either `wakee` + `waker` or `newidle`".into()),
    }
}
