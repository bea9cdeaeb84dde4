//! The simulator crate is five floors, and a floor uses only the floors below it
//! (ARCHITECTURE.md, "Floors"). This test reads the crate's sources and fails on a path
//! (`crate::api::…` in `state/`) or a method call (`self.try_to_wake_up(…)` in
//! `state/`) that reaches up, and on a module at the top of `src/` that is not a floor.
//! Unit-test modules (`#[cfg(test)] mod tests`) may use anything.

#[path = "floors/sources.rs"]
mod sources;

use sources::{code_of, crate_sources};
use std::collections::{BTreeMap, BTreeSet};

/// From the bottom.
const FLOORS: [&str; 5] = ["facts", "state", "linux", "driver", "api"];

fn floor_of(name: &str) -> Option<usize> {
    FLOORS.iter().position(|f| *f == name)
}

/// Identifiers following `pat` in `code` (`crate::` → `facts`, `fn ` → `schedule`).
fn words_after<'a>(code: &'a str, pat: &str) -> Vec<&'a str> {
    let mut v = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(pat) {
        rest = &rest[i + pat.len()..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if end > 0 {
            v.push(&rest[..end]);
        }
    }
    v
}

struct Crate {
    /// (file relative to src, its floor, its code).
    files: Vec<(String, usize, String)>,
}

fn read_crate() -> Crate {
    let mut files = Vec::new();
    for (rel, text) in crate_sources() {
        if rel == "lib.rs" {
            continue;
        }
        let top = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        let floor = floor_of(&top).unwrap_or_else(|| panic!("src/{rel}: `{top}` is not a floor ({FLOORS:?})"));
        files.push((rel, floor, code_of(&text)));
    }
    Crate { files }
}

#[test]
fn no_path_reaches_a_higher_floor() {
    let c = read_crate();
    let mut bad = Vec::new();
    for (rel, floor, code) in &c.files {
        for w in words_after(code, "crate::") {
            match floor_of(w) {
                Some(f) if f > *floor => bad.push(format!("src/{rel} ({}) uses crate::{w}", FLOORS[*floor])),
                Some(_) => {}
                // `crate::{facts::…, state::…}` and root re-exports such as `crate::topology`
                // would hide the floor: inside the crate every path names its floor.
                None => bad.push(format!("src/{rel} uses crate::{w}, which names no floor")),
            }
        }
    }
    assert!(bad.is_empty(), "paths that reach up:\n{}", bad.join("\n"));
}

/// Names of the functions defined in `impl Sim` blocks of `code` (brace depth counted;
/// braces inside strings come in pairs in this code base).
fn sim_methods(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("impl Sim {") {
        let body = &rest[i + "impl Sim {".len()..];
        let mut depth = 1usize;
        let mut end = body.len();
        for (k, ch) in body.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.extend(words_after(&body[..end], "fn "));
        rest = &body[end..];
    }
    out
}

/// The simulation's methods are defined on the floor they belong to (state, the kernel
/// model, the driver, the API), and a floor calls only its own and those below: the
/// state never calls into the kernel model, the kernel model never into the driver.
/// Facts know no `Sim` at all.
#[test]
fn no_method_call_reaches_a_higher_floor() {
    let c = read_crate();
    let mut defined: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, floor, code) in &c.files {
        for w in sim_methods(code) {
            let e = defined.entry(w).or_insert(*floor);
            *e = (*e).min(*floor);
        }
    }
    assert!(defined.len() > 100 && defined.get("try_to_wake_up") == Some(&2), "{defined:?}");
    let mut bad = BTreeSet::new();
    for (rel, floor, code) in &c.files {
        if *floor == 0 {
            let names_sim = code.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|word| word == "Sim");
            if names_sim {
                bad.insert(format!("src/{rel} (facts) names Sim"));
            }
            continue;
        }
        for w in words_after(code, ".") {
            if let Some(&f) = defined.get(w) {
                if f > *floor && code.contains(&format!(".{w}(")) {
                    bad.insert(format!("src/{rel} ({}) calls .{w}(), defined on {}", FLOORS[*floor], FLOORS[f]));
                }
            }
        }
    }
    assert!(bad.is_empty(), "method calls that reach up:\n{}", bad.into_iter().collect::<Vec<_>>().join("\n"));
}

/// The check can fail: a call from the state floor to the kernel model is found.
#[test]
fn the_method_check_sees_an_upward_call() {
    let code = code_of("impl Sim {\n    fn f(&mut self) { self.try_to_wake_up(0, None, 1, true, 0); }\n}\nfn g() {}\n");
    assert_eq!(words_after(&code, ".").iter().filter(|w| **w == "try_to_wake_up").count(), 1);
    assert_eq!(sim_methods(&code), ["f"]);
    assert_eq!(words_after("use crate::api::live;", "crate::"), ["api"]);
}
