//! ARCHITECTURE.md names only what the tree has: every path it names exists, and every
//! Rust name it names is a word of the tree's Rust sources. A code map that drifts
//! (a file renamed, a test split, a type gone) fails here, naming the line and what is
//! missing, rather than misleading the next reader.
//!
//! What counts as a path: a backticked token outside fenced code blocks, without white
//! space, not a URL, that contains `/` or ends in one of [`PATH_ENDINGS`]. It is looked
//! up, first match wins, from
//! - the directory of its list item, when the item begins with a backticked directory
//!   (`` - `src/facts/` — `topology.rs` … ``; the item runs to the next item, heading
//!   or blank line),
//! - the directory of its section, when the nearest heading that names a backticked
//!   directory first is below the last one that does not
//!   (`` ### `crates/schedsim/` — … `` and its `####` subsections),
//! - the repository root.
//!
//! What counts as a Rust name: a backticked token of identifiers joined by `::`
//! (`Experiment::run`, `facts::topology`, a trailing `()` allowed), or one CamelCase
//! identifier (`CostModel`). Each identifier must appear as a whole word in a `.rs` file
//! of the repository outside `crates/vendor/` and `target/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PATH_ENDINGS: [&str; 10] = [".rs", ".md", ".sh", ".js", ".json", ".toml", ".rhai", ".html", ".py", ".yaml"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn is_path(t: &str) -> bool {
    !t.is_empty()
        && !t.contains(char::is_whitespace)
        && !t.contains("://")
        && (t.contains('/') || PATH_ENDINGS.iter().any(|e| t.ends_with(e)))
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The identifiers of a Rust name, or `None` when the token is not one.
fn rust_name(t: &str) -> Option<Vec<&str>> {
    let t = t.strip_suffix("()").unwrap_or(t);
    let parts: Vec<&str> = t.split("::").collect();
    if !parts.iter().all(|p| is_ident(p)) {
        return None;
    }
    let camel = |p: &str| {
        p.starts_with(|c: char| c.is_ascii_uppercase())
            && p.contains(|c: char| c.is_ascii_lowercase())
            && !p.contains('_')
    };
    (parts.len() > 1 || camel(parts[0])).then_some(parts)
}

/// One backticked token, with the directories it may be relative to (nearest first)
/// and its line in the document.
struct Token {
    line: usize,
    text: String,
    bases: Vec<PathBuf>,
}

fn tokens(doc: &str) -> Vec<Token> {
    // The directory a heading of each level names, or None; index 0 unused.
    let mut heading_dirs: Vec<Option<String>> = vec![None; 7];
    let mut item_dir: Option<String> = None;
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in doc.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let spans: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        let first_dir = spans.first().filter(|t| t.ends_with('/') && is_path(t)).map(|t| t.to_string());
        if let Some(level) = line.split_once(' ').map(|(h, _)| h.len()).filter(|_| line.starts_with('#')) {
            let level = level.min(6);
            heading_dirs[level] = first_dir.clone();
            heading_dirs[level + 1..].iter_mut().for_each(|d| *d = None);
            item_dir = None;
        } else if line.trim().is_empty() {
            item_dir = None;
        } else if line.starts_with("- ") {
            item_dir = first_dir.filter(|_| line.starts_with("- `"));
        }
        // A section's directory: the deepest heading that names one, unless a shallower
        // heading after it (which cleared it) names none.
        let section = heading_dirs.iter().rev().flatten().next().cloned();
        let mut bases = Vec::new();
        let section_dir = section.map(|s| root().join(s));
        if let Some(d) = &item_dir {
            bases.push(section_dir.clone().unwrap_or_else(root).join(d));
        }
        bases.extend(section_dir);
        bases.push(root());
        for t in spans {
            out.push(Token { line: i + 1, text: t.to_string(), bases: bases.clone() });
        }
    }
    out
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            let skip = name.starts_with('.') || ["target", "vendor", "node_modules", "dist"].contains(&name.as_str());
            if !skip {
                rust_sources(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

fn rust_words() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_sources(&root(), &mut files);
    let mut words = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        words.extend(
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(String::from),
        );
    }
    words
}

fn architecture_md() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap()
}

/// The missing paths of `doc`, as "line N: `path`".
fn missing_paths(doc: &str) -> Vec<String> {
    tokens(doc)
        .into_iter()
        .filter(|t| is_path(&t.text) && !t.bases.iter().any(|b| b.join(&t.text).exists()))
        .map(|t| format!("line {}: `{}`", t.line, t.text))
        .collect()
}

#[test]
fn every_path_architecture_md_names_exists() {
    let doc = architecture_md();
    let names = tokens(&doc).iter().filter(|t| is_path(&t.text)).count();
    assert!(names > 100, "the rule finds only {names} paths: has the document's form changed?");
    let missing = missing_paths(&doc);
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths the tree lacks:\n{}", missing.join("\n"));
}

#[test]
fn every_rust_name_architecture_md_names_is_in_the_sources() {
    let words = rust_words();
    let mut missing = Vec::new();
    for t in tokens(&architecture_md()) {
        if let Some(parts) = rust_name(&t.text) {
            for p in parts.into_iter().filter(|p| !words.contains(*p)) {
                missing.push(format!("line {}: `{p}` of `{}`", t.line, t.text));
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names Rust items no source has:\n{}", missing.join("\n"));
}

/// The rules resolve as the module doc says, and report what they cannot find.
#[test]
fn the_rules_find_paths_where_the_document_puts_them() {
    let doc = "\
# Title

See `README.md` and `no/such/file.rs`.

### `crates/schedsim/` — a crate

`src/lib.rs` from the crate, `Cargo.lock` from the root, `lib.rs` from neither.

- `src/facts/` — `topology.rs`, `workload/`,
  `rng.rs` on a continuation line, `Cargo.toml` from the crate.
- Not a directory: `topology.rs` again.

```
`not/a/path/in/a/fence.rs`
```

#### Floors

`tests/scenarios.rs` under the crate still.

## Invariants

`tests/scenarios.rs` from the root: missing.
";
    let want =
        ["line 3: `no/such/file.rs`", "line 7: `lib.rs`", "line 11: `topology.rs`", "line 23: `tests/scenarios.rs`"];
    assert_eq!(missing_paths(doc), want);
    assert_eq!(rust_name("Experiment::run()"), Some(vec!["Experiment", "run"]));
    assert_eq!(rust_name("CostModel"), Some(vec!["CostModel"]));
    assert_eq!(rust_name("SHARED_RUNQ"), None);
    assert_eq!(rust_name("select_idle_sibling"), None);
    assert!(!is_path("https://example.org/a.md") && !is_path("run --shard M/N"));
}
