//! Kernel names that say what they run.
//!
//! A kernel's name is its column in the table, its legend entry and its CSV key, so a
//! name that no longer matches the configuration is a wrong answer: the demo's kernel A
//! is called `v4.15`, and once its version is changed to v5.15 the table would read
//! "v4.15 vs v5.15: 0.00%". A name the user never typed — the configuration's own label
//! (`v5.15+SHARED_RUNQ`) or the page's `kernelN` — follows every change of version or switch; a name the user
//! typed (`wakeprev`) stays.
//!
//! The page never invents a name to make two kernels' names differ: when the label a
//! kernel follows is another kernel's name (kernel A set to v5.15 beside a v5.15 B), it
//! takes it anyway, the experiment is refused for the name used twice, and the name
//! field asks for a typed name ([`duplicate_name`]). Links made before this kept
//! `v5.15 (2)`-style names; those still count as automatic and follow.
//!
//! [`warnings`] says when two kernels resolve to the same configuration (their results
//! can only differ by chance, and with one seed they are identical), when a switch is set
//! to the value its version has anyway (`v5.15+recent-used-prev` is plain v5.15), and
//! when a typed name names another version than the one the kernel runs.

use schedsim::experiment::KERNELS_MAX;
use schedsim::{KernelSpec, KernelVersion, Switch};

/// The longest kernel name the experiment accepts, in bytes (`Experiment::validate`).
pub const NAME_BYTES_MAX: usize = 40;

/// A, B, C... for kernel `i`, as the panels and the charts' "% vs A" call them.
pub fn letter(i: usize) -> char {
    (b'A' + (i % 26) as u8) as char
}

/// `s` cut to at most `max` bytes on a character boundary, with `…` if it was cut.
fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let room = max.saturating_sub('…'.len_utf8());
    let mut out = String::new();
    for c in s.chars() {
        if out.len() + c.len_utf8() > room {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// What an automatic name adds to the label of a kernel with a policy script: the
/// script makes it another kernel than its configuration alone ("v6.18" and "v6.18 +
/// script" side by side).
pub const SCRIPT_SUFFIX: &str = " + script";

/// The `n`th automatic name of `spec` (1: its configuration's label, and
/// [`SCRIPT_SUFFIX`] if it has a script; 2, 3...: with ` (n)` after), the label cut so
/// that the whole fits the length a name may have.
fn candidate(spec: &KernelSpec, n: usize) -> String {
    let script = if spec.policy.is_some() { SCRIPT_SUFFIX } else { "" };
    let label = KernelSpec { policy: None, ..spec.clone() }.label();
    with_suffix(&label, script, n)
}

/// `label` cut to leave room for `script` and the ` (n)` of the `n`th name.
fn with_suffix(label: &str, script: &str, n: usize) -> String {
    let suffix = if n <= 1 { script.to_string() } else { format!("{script} ({n})") };
    format!("{}{suffix}", cut(label, NAME_BYTES_MAX - suffix.len()))
}

/// True if `spec`'s name is one the page made rather than one the user typed: its
/// automatic name, or one an older page made of the same kernel (before its script, or
/// the label with the library's `+policy`).
pub fn is_auto_name(spec: &KernelSpec) -> bool {
    let name = spec.name.as_str();
    if let Some(d) = name.strip_prefix("kernel") {
        if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) {
            return true;
        }
    }
    let unscripted = KernelSpec { policy: None, ..spec.clone() };
    (1..=KERNELS_MAX + 1).any(|n| {
        candidate(spec, n) == name || candidate(&unscripted, n) == name || with_suffix(&spec.label(), "", n) == name
    })
}

/// The automatic name of `spec`: its label (cut to the length a name may have), even
/// when another kernel already has it: two kernels of one configuration are said to be
/// identical, and the user names one of them ([`duplicate_name`]).
pub fn auto_name(spec: &KernelSpec) -> String {
    candidate(spec, 1)
}

/// What the name field of kernel `i` says when another kernel has its name: the
/// experiment is refused for it, and only a name the user types resolves it.
pub fn duplicate_name(kernels: &[KernelSpec], i: usize) -> Option<String> {
    let k = kernels.get(i)?;
    let j = kernels.iter().enumerate().position(|(j, o)| j != i && o.name == k.name)?;
    Some(format!("kernel {} is also called {:?}: type a name for one of them", letter(j), k.name))
}

/// Under the results table, the full names of the kernels its columns show cut (the
/// mmtests layout keeps `cuts` characters of a name, one count per table, widest first):
/// ("v5.15+wake-affine-pre, v5.15+wake-", "v5.15+wake-affine-prev-rfc"). Empty when
/// every name fits.
pub fn cut_in_table(names: &[String], cuts: &[usize]) -> Vec<(String, String)> {
    names
        .iter()
        .filter_map(|n| {
            let len = n.chars().count();
            let shown: Vec<String> = cuts.iter().filter(|&&c| len > c).map(|&c| n.chars().take(c).collect()).collect();
            (!shown.is_empty()).then(|| (shown.join(", "), n.clone()))
        })
        .collect()
}

/// `new` (an edit of `old`) with its name following the configuration if `old`'s name
/// was automatic; a typed name is kept.
pub fn follow(old: &KernelSpec, mut new: KernelSpec) -> KernelSpec {
    if is_auto_name(old) {
        new.name = auto_name(&new);
    }
    new
}

/// Switches set to the value their version has anyway: the label shows them, the run
/// does not differ.
pub fn redundant_switches(spec: &KernelSpec) -> Vec<Switch> {
    spec.overrides.iter().filter(|(sw, on)| sw.default_in(spec.preset) == Some(**on)).map(|(sw, _)| *sw).collect()
}

/// What is misleading about one kernel among `kernels`, in words, for its panel.
pub fn warnings(kernels: &[KernelSpec], i: usize) -> Vec<String> {
    let Some(k) = kernels.get(i) else { return Vec::new() };
    let mut out = Vec::new();
    let cfg = k.resolve();
    for (j, o) in kernels.iter().enumerate() {
        // A script makes a kernel its own, even on the same configuration.
        if j != i && o.resolve() == cfg && o.policy == k.policy {
            out.push(format!(
                "identical to kernel {} ({}): the same configuration, so any difference between them is noise (with one seed, none)",
                letter(j),
                o.name
            ));
        }
    }
    let redundant = redundant_switches(k);
    if !redundant.is_empty() {
        let list = redundant
            .iter()
            .map(|sw| format!("{} is already {} by default in {}", sw.name(), on_off(k, *sw), k.preset.name()))
            .collect::<Vec<_>>()
            .join("; ");
        let plain = KernelSpec { overrides: Default::default(), ..k.clone() };
        let rest: KernelSpec = KernelSpec {
            overrides: k.overrides.iter().filter(|(sw, _)| !redundant.contains(sw)).map(|(s, v)| (*s, *v)).collect(),
            ..plain
        };
        out.push(format!("{list}: {} runs exactly as {}", k.label(), rest.label()));
    }
    if !is_auto_name(k) {
        if let Some(v) = named_version(&k.name) {
            if v != k.preset {
                out.push(format!("the name says {} but the kernel runs {}", v.name(), k.preset.name()));
            }
        }
    }
    out
}

fn on_off(k: &KernelSpec, sw: Switch) -> &'static str {
    if k.resolve().on(sw) {
        "on"
    } else {
        "off"
    }
}

/// A kernel version written in a name (`v4.15`, `tip-v6.5`), if one is.
fn named_version(name: &str) -> Option<KernelVersion> {
    // Longest match first: "v5.15" must not be read as "v5.1...".
    let mut found: Option<KernelVersion> = None;
    for v in KernelVersion::ALL {
        let n = v.name();
        let mut from = 0;
        while let Some(p) = name[from..].find(n) {
            let end = from + p + n.len();
            let next_is_digit = name[end..].chars().next().is_some_and(|c| c.is_ascii_digit());
            if !next_is_digit && found.is_none_or(|f| f.name().len() < n.len()) {
                found = Some(v);
            }
            from = end;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim::KernelVersion as V;

    #[test]
    fn the_demo_kernel_follows_its_version() {
        let demo = schedsim::presets::experiment("demo").unwrap();
        let a = demo.kernels[0].clone();
        assert_eq!(a.name, "v4.15");
        let moved = follow(&a, KernelSpec { preset: V::V5_15, ..a.clone() });
        // B is already called v5.15: A is called so too, no "v5.15 (2)"; the name is
        // used twice, which the field says, until the user types one.
        assert_eq!(moved.name, "v5.15");
        let ks = vec![moved.clone(), demo.kernels[1].clone()];
        assert_eq!(
            duplicate_name(&ks, 0).as_deref(),
            Some("kernel B is also called \"v5.15\": type a name for one of them")
        );
        assert!(duplicate_name(&demo.kernels, 0).is_none());
        assert!(is_auto_name(&moved));
        // ...and keeps following: a switch renames it again.
        let sw = follow(&moved, moved.clone().with(Switch::SharedRunq, true));
        assert_eq!(sw.name, "v5.15+SHARED_RUNQ");
        // Back to v4.15 with no switch: the original name.
        let back = follow(&sw, KernelSpec::new(&sw.name, V::V4_15));
        assert_eq!(back.name, "v4.15");
        // A link's old "v5.15 (2)" is automatic: it follows, to the label alone.
        let old = KernelSpec::new("v5.15 (2)", V::V5_15);
        assert!(is_auto_name(&old));
        assert_eq!(follow(&old, KernelSpec { preset: V::V6_5, ..old.clone() }).name, "v6.5");
    }

    #[test]
    fn a_kernel_with_a_script_is_named_apart_from_its_version() {
        let a = KernelSpec::new("v6.18", V::V6_18);
        let b = a.clone();
        // B gets a script: it follows to "v6.18 + script", so A/B runs as it is.
        let scripted = follow(&b, KernelSpec { policy: Some("fn wake_wide(p) { true }".into()), ..b.clone() });
        assert_eq!(scripted.name, "v6.18 + script");
        assert!(is_auto_name(&scripted));
        assert_eq!(duplicate_name(&[a.clone(), scripted.clone()], 1), None);
        // ...and keeps following its version, and back to the label without the script.
        let moved = follow(&scripted, KernelSpec { preset: V::V6_5, ..scripted.clone() });
        assert_eq!(moved.name, "v6.5 + script");
        assert_eq!(follow(&moved, KernelSpec { policy: None, ..moved.clone() }).name, "v6.5");
        // A scripted kernel of an older link, named by its version alone, follows too.
        let old = KernelSpec { policy: Some("fn wake_wide(p) { true }".into()), ..a.clone() };
        assert!(is_auto_name(&old));
        // A long label leaves room for the suffix.
        let long = KernelSpec::new("x", V::V6_5)
            .with(Switch::SharedRunq, true)
            .with(Switch::SharedRunqOverload, true)
            .with(Switch::TtwuQueue, false);
        let n = auto_name(&KernelSpec { policy: Some(String::new()), ..long });
        assert!(n.len() <= NAME_BYTES_MAX && n.ends_with("… + script"), "{n}");
    }

    #[test]
    fn a_typed_name_stays() {
        let k = KernelSpec::new("wakeprev", V::V4_15).with(Switch::WakeAffinePrev, true);
        assert!(!is_auto_name(&k));
        let moved = follow(&k, KernelSpec { preset: V::V5_15, ..k.clone() });
        assert_eq!(moved.name, "wakeprev");
        // The page's own "kernel3" is not typed.
        let added = KernelSpec::new("kernel3", V::V5_15);
        assert_eq!(follow(&added, KernelSpec { preset: V::V6_5, ..added.clone() }).name, "v6.5");
    }

    #[test]
    fn long_labels_fit_the_name_limit() {
        let k = KernelSpec::new("x", V::V6_5)
            .with(Switch::SharedRunq, true)
            .with(Switch::SharedRunqOverload, true)
            .with(Switch::TtwuQueue, false)
            .with(Switch::SisProp, true);
        assert!(k.label().len() > NAME_BYTES_MAX);
        let a = auto_name(&k);
        assert!(a.len() <= NAME_BYTES_MAX && a.ends_with('…'), "{a}");
        assert!(is_auto_name(&KernelSpec { name: a, ..k.clone() }));
    }

    #[test]
    fn names_the_table_cuts_are_given_whole() {
        let names = ["v4.15".to_string(), "v5.15+wake-affine-prev-rfc".to_string()];
        assert_eq!(
            cut_in_table(&names, &[21, 11]),
            [("v5.15+wake-affine-pre, v5.15+wake-".to_string(), "v5.15+wake-affine-prev-rfc".to_string())]
        );
        assert!(cut_in_table(&names[..1], &[21, 11]).is_empty());
        // Cut by the narrow table only.
        assert_eq!(cut_in_table(&["v5.15+SHARED".to_string()], &[21, 11])[0].0, "v5.15+SHARE");
    }

    #[test]
    fn identical_and_redundant_kernels_are_named() {
        let a = KernelSpec::new("v5.15", V::V5_15);
        let b = KernelSpec::new("prev", V::V5_15).with(Switch::RecentUsedPrev, true);
        let ks = vec![a, b];
        let wa = warnings(&ks, 0);
        assert_eq!(wa.len(), 1, "{wa:?}");
        assert!(wa[0].starts_with("identical to kernel B (prev)"), "{wa:?}");
        let wb = warnings(&ks, 1);
        assert!(wb.iter().any(|w| w.starts_with("identical to kernel A (v5.15)")), "{wb:?}");
        let mut scripted = ks.clone();
        scripted[1].policy = Some("fn wake_wide(p) { true }".into());
        assert!(warnings(&scripted, 0).is_empty(), "a kernel with a script is not identical to one without");
        assert!(
            wb.iter().any(|w| w
                == "recent-used-prev is already on by default in v5.15: v5.15+recent-used-prev runs exactly as v5.15"),
            "{wb:?}"
        );
        // Different configurations: nothing to say.
        let ks = vec![KernelSpec::new("v4.15", V::V4_15), KernelSpec::new("v5.15", V::V5_15)];
        assert!(warnings(&ks, 0).is_empty() && warnings(&ks, 1).is_empty());
        // A switch turned off where it is off anyway is redundant too.
        let off = KernelSpec::new("t", V::V6_5).with(Switch::SharedRunq, false);
        assert_eq!(redundant_switches(&off), [Switch::SharedRunq]);
    }

    #[test]
    fn a_typed_name_naming_another_version_is_flagged() {
        let ks = vec![KernelSpec::new("my v4.15", V::V5_15)];
        assert_eq!(warnings(&ks, 0), ["the name says v4.15 but the kernel runs v5.15"]);
        assert_eq!(named_version("v5.15-tip"), Some(V::V5_15));
        assert_eq!(named_version("v5.13"), Some(V::V5_13));
        assert_eq!(named_version("v5.155"), None);
        assert_eq!(named_version("noirq"), None);
    }
}
