//! Parsing of the page's form fields that is worth testing natively.

use schedsim::experiment::{CLIENTS_MAX, CLIENT_COUNTS_MAX};

/// Client counts as typed ("4 2 1 1", "1, 2; 4"), and what the sweep will run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clients {
    /// Sorted, each count once: the order of the table and the charts.
    pub counts: Vec<u32>,
    /// Said beside the field when the text was not already in that form.
    pub note: Option<String>,
}

/// Parses client counts, sorting them and dropping repeats, and says so when it did:
/// the table and the charts list counts in ascending order, once each, so the sweep
/// runs them that way rather than running a count twice or drawing a line backwards.
pub fn parse_clients(s: &str) -> Result<Clients, String> {
    let mut typed = Vec::new();
    for w in s.split([' ', ',', ';']).filter(|w| !w.is_empty()) {
        let n: u32 = w.parse().map_err(|_| {
            let shown = schedsim::input::clip(w);
            if w.bytes().all(|b| b.is_ascii_digit()) {
                format!("{shown} is out of range 1 to {CLIENTS_MAX}")
            } else {
                format!("{shown:?} is not a whole number")
            }
        })?;
        if n == 0 || n > CLIENTS_MAX {
            return Err(format!("{n} is out of range 1 to {CLIENTS_MAX}"));
        }
        typed.push(n);
    }
    if typed.is_empty() {
        return Err("give at least one client count".into());
    }
    let mut counts = typed.clone();
    counts.sort_unstable();
    counts.dedup();
    if counts.len() > CLIENT_COUNTS_MAX {
        return Err(format!("at most {CLIENT_COUNTS_MAX} different client counts"));
    }
    // Linear in the words typed (a pasted list can be long): at most
    // CLIENT_COUNTS_MAX different counts, so `repeated` stays short.
    let mut seen = vec![false; CLIENTS_MAX as usize + 1];
    let mut repeated: Vec<u32> = Vec::new();
    for &c in &typed {
        if std::mem::replace(&mut seen[c as usize], true) && !repeated.contains(&c) {
            repeated.push(c);
        }
    }
    let sorted = typed.windows(2).all(|w| w[0] <= w[1]);
    let mut changes = Vec::new();
    if !sorted {
        changes.push("sorted".to_string());
    }
    if !repeated.is_empty() {
        let list = repeated.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
        changes.push(format!("repeated {list} run once"));
    }
    let note = (!changes.is_empty()).then(|| {
        format!("runs {} ({})", counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" "), changes.join("; "))
    });
    Ok(Clients { counts, note })
}

/// The form fields (by element id) to mark when `exp` is refused as too large a run
/// (the library's event estimate over its cap, which it reports as the duration's
/// fault): the duration and the client counts, either of which makes it fit, with the
/// words to show at each. None when the experiment is not refused for its size.
pub fn run_size_refusal(exp: &schedsim::Experiment) -> Option<(&'static [&'static str], String)> {
    let e = exp.validate().err()?;
    e.0.starts_with("field duration_ms: a run of").then(|| {
        const IDS: &[&str] = &["duration", "clients"];
        let most = exp.clients.iter().max().copied().unwrap_or(0);
        (
            IDS,
            format!(
                "too large a run: {} for {} ms is over one run's event cap; shorten the duration or lower the count",
                exp.workload.clients_of(most as u64),
                exp.duration_ms
            ),
        )
    })
}

/// What picking machine preset `name` does to `current`: a machine without a topology
/// of its own is replaced at once; over a topology the user typed, edited or imported,
/// the page asks first, with the two machines it can become.
#[derive(Clone, Debug, PartialEq)]
pub enum MachineChoice {
    /// The preset replaces the machine, topology and costs.
    Replace,
    Ask {
        /// The preset's own topology and costs.
        replace: Box<schedsim::experiment::MachineSpec>,
        /// The user's topology with the preset's costs.
        keep: Box<schedsim::experiment::MachineSpec>,
        question: String,
    },
}

pub fn machine_choice(current: &schedsim::experiment::MachineSpec, name: &str) -> MachineChoice {
    use schedsim::experiment::MachineSpec;
    let replace = MachineSpec { preset: Some(name.to_string()), topology: None, costs: None, preempt: None };
    let Some(mine) = &current.topology else { return MachineChoice::Replace };
    let Ok(theirs) = replace.resolve() else { return MachineChoice::Replace };
    let keep = MachineSpec {
        preset: Some(name.to_string()),
        topology: Some(mine.clone()),
        costs: current.costs.clone(),
        preempt: current.preempt,
    };
    let mine_text = match mine {
        schedsim::topology::TopologyInput::Spec(s) => s.clone(),
        schedsim::topology::TopologyInput::Full(t) => t.spec().unwrap_or_else(|| "your edited topology".into()),
    };
    let theirs_text = theirs.map.topology.spec().unwrap_or_else(|| "its own topology".into());
    let question = format!(
        "{name} has its own topology ({theirs_text}, {} CPUs). Use it in place of your {mine_text}, or keep {mine_text} with {name}'s costs?",
        theirs.map.nr_cpus()
    );
    MachineChoice::Ask { replace: Box::new(replace), keep: Box::new(keep), question }
}

/// Said at the machine, where the user looks, while a typed topology runs with a machine
/// preset's costs (its C-states, caches and latencies): which machine's they are.
pub fn costs_clash(m: &schedsim::experiment::MachineSpec) -> Option<String> {
    let name = m.preset.as_deref()?;
    m.topology.as_ref()?;
    let preset = schedsim::machine::machine(name)?;
    let r = m.resolve().ok()?;
    (r.map.topology != preset.topology).then(|| {
        format!(
            "These {} CPUs run with the costs of {name} ({}, {} CPUs): its C-states, caches and latencies, not a machine of this shape. Pick the machine whose costs fit.",
            r.map.nr_cpus(),
            preset.description,
            preset.topology.cpu_count()
        )
    })
}

/// The experiment's refusal (`Experiment::validate`, which names the field as the JSON
/// does: `field kernels[1].name: "v6.18" is used twice`) in the words of the form: the
/// card and the field as the page labels them ("Kernel B, name: ..."). A field the form
/// has no words for keeps the library's.
pub fn in_card_words(exp: &schedsim::Experiment, refusal: &str) -> String {
    let Some((field, why)) = refusal.strip_prefix("field ").and_then(|r| r.split_once(": ")) else {
        return refusal.to_string();
    };
    if let Some((i, rest)) = field
        .strip_prefix("kernels[")
        .and_then(|r| r.split_once("]."))
        .and_then(|(i, rest)| Some((i.parse::<usize>().ok()?, rest)))
    {
        let letter = crate::model::kernels::letter(i);
        if rest == "name" && why.ends_with(" is used twice") {
            let name = exp.kernels.get(i).map(|k| k.name.as_str()).unwrap_or_default();
            let other = exp.kernels.iter().enumerate().position(|(j, k)| j != i && k.name == name);
            if let Some(j) = other {
                return format!(
                    "Kernel {letter}, name: {name:?} is kernel {}'s name too; type another in one of the two cards.",
                    crate::model::kernels::letter(j)
                );
            }
        }
        let what = match rest {
            "name" => "name",
            "policy" => "policy script",
            "preset" => "version preset",
            r if r.starts_with("overrides") => "switches",
            r => r,
        };
        return format!("Kernel {letter}, {what}: {why}");
    }
    let place = match field {
        "clients" => "Workload and sweep, client counts",
        "iterations" => "Workload and sweep, iterations",
        "duration_ms" => "Workload and sweep, duration",
        "warmup_ms" => "Workload and sweep, warmup_ms",
        "name" => "Workload and sweep, experiment name",
        "workload" => "Workload and sweep",
        "kernels" => "Kernels",
        "machine.topology" => "Machine, topology",
        "machine.costs" => "Machine, costs",
        _ => return refusal.to_string(),
    };
    format!("{place}: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_sorted_and_deduplicated_visibly() {
        let c = parse_clients("4 2 1 1").unwrap();
        assert_eq!(c.counts, [1, 2, 4]);
        assert_eq!(c.note.as_deref(), Some("runs 1 2 4 (sorted; repeated 1 run once)"));
        let c = parse_clients("1, 2;4  8").unwrap();
        assert_eq!((c.counts, c.note), (vec![1, 2, 4, 8], None));
        assert_eq!(parse_clients("8 1").unwrap().note.as_deref(), Some("runs 1 8 (sorted)"));
        assert_eq!(parse_clients("2 2 2").unwrap().note.as_deref(), Some("runs 2 (repeated 2 run once)"));
    }

    #[test]
    fn bad_clients_name_the_word() {
        assert_eq!(parse_clients("1 x").unwrap_err(), "\"x\" is not a whole number");
        assert_eq!(parse_clients("-5").unwrap_err(), "\"-5\" is not a whole number");
        assert!(parse_clients("0").unwrap_err().contains("out of range"));
        assert!(parse_clients(" ").unwrap_err().contains("at least one"));
        // Repeats do not count against the limit.
        let many = vec!["1"; 100].join(" ");
        assert_eq!(parse_clients(&many).unwrap().counts, [1]);
        // Too large is out of range, not "not a whole number"; a long word is clipped.
        assert_eq!(parse_clients("4294967296").unwrap_err(), "4294967296 is out of range 1 to 8192");
        assert!(parse_clients(&"y".repeat(100_000)).unwrap_err().len() < 200);
    }

    /// A pasted list of 600,000 counts is read at once: the repeat check is linear.
    #[test]
    fn a_long_pasted_list_is_read_quickly() {
        let paste = format!("{}{}", "2 ".repeat(300_000), "1 ".repeat(300_000));
        let t = std::time::Instant::now();
        let c = parse_clients(&paste).unwrap();
        assert_eq!(c.counts, [1, 2]);
        assert_eq!(c.note.as_deref(), Some("runs 1 2 (sorted; repeated 2, 1 run once)"));
        // Quadratic took 8.8 s here; linear takes milliseconds (slack for a debug build).
        assert!(t.elapsed() < std::time::Duration::from_secs(2), "{:?}", t.elapsed());
    }
}

/// A whole number from 1 to `max` (underscores allowed as separators), or why not.
pub fn parse_count(s: &str, max: u64) -> Result<u64, String> {
    parse_whole(s, 1, max)
}

/// A whole number from `lo` to `max`, or the message saying what was expected.
pub fn parse_whole(s: &str, lo: u64, max: u64) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    match t.parse::<u64>() {
        Ok(v) if (lo..=max).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is out of range {lo} to {max}")),
        Err(_) if t.parse::<i128>().is_ok() => Err(format!("{t} is out of range {lo} to {max}")),
        Err(_) => Err(format!("a whole number from {lo} to {max}")),
    }
}

#[cfg(test)]
mod count_tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count(" 1_000 ", 5000), Ok(1000));
        assert_eq!(parse_count("-5", 5000).unwrap_err(), "-5 is out of range 1 to 5000");
        assert_eq!(parse_count("0", 10).unwrap_err(), "0 is out of range 1 to 10");
        assert_eq!(parse_count("1.5", 10).unwrap_err(), "a whole number from 1 to 10");
    }

    #[test]
    fn refusals_name_the_card_and_the_field_as_the_page_does() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        e.kernels[1].name = e.kernels[0].name.clone();
        let why = e.validate().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(why.starts_with("field kernels[1].name:"), "{why}");
        assert_eq!(
            in_card_words(&e, &why),
            "Kernel B, name: \"v4.15\" is kernel A's name too; type another in one of the two cards."
        );
        assert_eq!(
            in_card_words(&e, "field kernels[2].policy: script too long"),
            "Kernel C, policy script: script too long"
        );
        assert_eq!(
            in_card_words(&e, "field iterations: 0 is out of range 1 to 100"),
            "Workload and sweep, iterations: 0 is out of range 1 to 100"
        );
        // Words the form has none for stay the library's.
        assert_eq!(in_card_words(&e, "field shard_size: 0"), "field shard_size: 0");
        assert_eq!(in_card_words(&e, "this experiment replays trace x"), "this experiment replays trace x");
    }

    #[test]
    fn a_run_over_the_event_cap_marks_the_duration_and_the_clients() {
        let mut e = schedsim::presets::experiment("seed004").unwrap();
        assert!(run_size_refusal(&e).is_none());
        e.duration_ms = 600_000;
        let (ids, why) = run_size_refusal(&e).expect("refused for its size");
        assert_eq!(ids, ["duration", "clients"]);
        assert!(why.starts_with("too large a run: 128 client/server pairs for 600000 ms"), "{why}");
        // Another refusal is not the size's.
        e.duration_ms = 100;
        e.iterations = 0;
        assert!(run_size_refusal(&e).is_none());
    }

    #[test]
    fn a_typed_topology_is_not_replaced_without_asking() {
        use schedsim::experiment::MachineSpec;
        use schedsim::topology::TopologyInput;
        let teaching = MachineSpec { preset: Some("teaching".into()), topology: None, costs: None, preempt: None };
        assert!(costs_clash(&teaching).is_none());
        // No typed topology: the preset replaces the machine at once.
        assert_eq!(machine_choice(&teaching, "cascadelake-2s"), MachineChoice::Replace);
        let typed = MachineSpec { topology: Some(TopologyInput::Spec("2x1x16x2".into())), ..teaching.clone() };
        let clash = costs_clash(&typed).expect("said");
        assert!(clash.starts_with("These 64 CPUs run with the costs of teaching ("), "{clash}");
        match machine_choice(&typed, "cascadelake-2s") {
            MachineChoice::Ask { replace, keep, question } => {
                assert_eq!(
                    *replace,
                    MachineSpec { preset: Some("cascadelake-2s".into()), topology: None, costs: None, preempt: None }
                );
                assert_eq!(keep.topology, typed.topology);
                assert_eq!(keep.preset.as_deref(), Some("cascadelake-2s"));
                assert!(question.starts_with("cascadelake-2s has its own topology (2x1x20x2, 80 CPUs). Use it in place of your 2x1x16x2, or keep 2x1x16x2 with cascadelake-2s's costs?"), "{question}");
            }
            other => panic!("{other:?}"),
        }
    }
}
