//! The web crate is six floors, and a floor uses only the floors below it (src/lib.rs,
//! ARCHITECTURE.md's web section). This test reads the crate's sources and fails on a
//! `crate::…` path that reaches up (`crate::web::…` in `model/`), naming the file and
//! line, and on a file that sits on no floor. Unit-test modules (`#[cfg(test)] mod
//! tests`) may use anything; the binaries (`main.rs`, `bin/`) use the crate from
//! outside, as `schedsim_web::…`. The simulator crate has its own: crates/schedsim/tests/floors.rs.

// The simulator crate's floor test reads its sources the same way.
#[path = "../crates/schedsim/tests/floors/sources.rs"]
mod sources;

use sources::{code_of, crate_sources};
use std::collections::{BTreeMap, BTreeSet};

/// From the bottom: the pure model, the wire formats, the page's state, the charts, what
/// runs inside a worker, the page's shell.
const FLOORS: [&str; 6] = ["model", "wire", "state", "charts", "worker", "web"];

fn floor_of(name: &str) -> Option<usize> {
    FLOORS.iter().position(|f| *f == name)
}

/// (line, path) of each path following `crate::` in `code` (`model::sweep::SweepJob`),
/// lines from 1.
fn crate_paths(code: &str) -> Vec<(usize, &str)> {
    let mut v = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        // `schedsim_web::…` and `other_crate::…` are not this crate's paths.
        if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
        let line = code[..i].matches('\n').count() + 1;
        v.push((line, rest[..end].trim_end_matches(':')));
    }
    v
}

/// The floor of a file (relative to src), or `None` for the crate root and the binaries.
fn file_floor(rel: &str) -> Option<Result<usize, String>> {
    if rel == "lib.rs" || rel == "main.rs" || rel.starts_with("bin/") {
        return None;
    }
    let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
    Some(floor_of(top).ok_or_else(|| format!("src/{rel}: `{top}` is not a floor ({FLOORS:?})")))
}

/// What is wrong with one file: each path that reaches up or names no floor.
fn problems(rel: &str, floor: usize, text: &str) -> Vec<String> {
    let code = code_of(text);
    let mut bad = Vec::new();
    for (line, path) in crate_paths(&code) {
        let w = path.split("::").next().unwrap_or_default();
        match floor_of(w) {
            Some(f) if f > floor => {
                bad.push(format!("src/{rel}:{line} ({}) uses crate::{w}, a higher floor", FLOORS[floor]))
            }
            Some(_) => {}
            // `crate::{model::…, wire::…}` would hide the floor: every path names its floor.
            None => bad.push(format!("src/{rel}:{line} uses crate::{w}, which names no floor")),
        }
    }
    bad
}

/// Every source file on a floor: (file relative to src, its text).
fn floor_files() -> Vec<(String, String)> {
    crate_sources().into_iter().filter(|(rel, _)| file_floor(rel).is_some()).collect()
}

#[test]
fn no_path_reaches_a_higher_floor() {
    let mut bad = Vec::new();
    let mut on_floors = [0usize; FLOORS.len()];
    for (rel, text) in floor_files() {
        match file_floor(&rel) {
            None => {}
            Some(Err(e)) => bad.push(e),
            Some(Ok(floor)) => {
                on_floors[floor] += 1;
                bad.extend(problems(&rel, floor, &text));
            }
        }
    }
    // Every floor holds code: a floor renamed without this list fails above, not here.
    assert!(on_floors.iter().all(|n| *n > 0), "files per floor {FLOORS:?}: {on_floors:?}");
    assert!(bad.is_empty(), "paths that reach up:\n{}", bad.join("\n"));
}

/// The module a file is: `model/sweep.rs` is `model::sweep`, `web/hooks/mod.rs` is
/// `web::hooks`.
fn module_of(rel: &str) -> String {
    let m = rel.trim_end_matches(".rs");
    m.strip_suffix("/mod").unwrap_or(m).replace('/', "::")
}

/// Which modules each module's code uses by a `crate::` path (the path's longest prefix
/// that is a module of `files`, itself aside), from (file, text) pairs.
fn uses(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files.iter().map(|(rel, _)| module_of(rel)).collect();
    let mut graph = BTreeMap::new();
    for (rel, text) in files {
        let me = module_of(rel);
        let mut used = BTreeSet::new();
        for (_, path) in crate_paths(&code_of(text)) {
            let mut p = path;
            while !modules.contains(p) {
                match p.rfind("::") {
                    Some(i) => p = &p[..i],
                    None => break,
                }
            }
            if modules.contains(p) && p != me {
                used.insert(p.to_string());
            }
        }
        graph.insert(me, used);
    }
    graph
}

/// A circle of modules that use each other (`a`, `b`, `a`), if there is one: depth-first
/// in name order.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// Files of one floor may use each other, but not in a circle: the seven that did
/// (`live_session`, `permalink`, `policy_edit`, `proto`, `replay_view`, `sweep_job`,
/// `web/state`) were one tangle to read and to change.
#[test]
fn no_modules_use_each_other_in_a_circle() {
    let graph = uses(&floor_files());
    assert!(graph.len() > 60 && graph["web::components::sweep"].contains("model::sweep"), "{graph:?}");
    if let Some(c) = circle(&graph) {
        panic!("modules that use each other in a circle: {}", c.join(" → "));
    }
}

/// The check can fail: an upward path is found, with its line; a test module's is not.
#[test]
fn the_check_sees_an_upward_path() {
    let text = "//! doc naming crate::web\nuse crate::model::fmt;\nuse crate::web::dom;\n\n#[cfg(test)]\nmod tests {\n    use crate::web::dom;\n}\n";
    assert_eq!(problems("model/x.rs", 0, text), ["src/model/x.rs:3 (model) uses crate::web, a higher floor"]);
    assert_eq!(problems("web/x.rs", 5, text), Vec::<String>::new());
    assert_eq!(
        problems("web/x.rs", 5, "use crate::{model::fmt};"),
        ["src/web/x.rs:1 uses crate::, which names no floor"]
    );
    assert_eq!(crate_paths("schedsim_web::web::start(); x::crate::y"), []);
    assert_eq!(file_floor("sweep_job.rs"), Some(Err("src/sweep_job.rs: `sweep_job` is not a floor ([\"model\", \"wire\", \"state\", \"charts\", \"worker\", \"web\"])".into())));
    assert_eq!(file_floor("bin/worker.rs"), None);
}

/// The circle check can fail: the old path from the replay's model to the link and back.
#[test]
fn the_check_sees_a_circle() {
    let files = |replay: &str| {
        vec![
            ("model/replay.rs".to_string(), replay.to_string()),
            ("wire/permalink.rs".to_string(), "fn f() { crate::model::replay::replay_of(e); }".to_string()),
            ("wire/mod.rs".to_string(), String::new()),
        ]
    };
    let graph = uses(&files("use crate::wire::permalink::{self, Shared};"));
    assert_eq!(circle(&graph).unwrap(), ["model::replay", "wire::permalink", "model::replay"]);
    assert_eq!(circle(&uses(&files("use crate::wire;"))), None, "the wire module itself is not the link");
    assert_eq!(circle(&uses(&files(""))), None);
}
