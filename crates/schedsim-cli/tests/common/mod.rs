//! Helpers shared by the tests that run the built `schedsim` binary.
#![allow(dead_code)] // each test file uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn schedsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedsim")).args(args).output().expect("the schedsim binary runs")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("output is UTF-8")
}

/// Runs, checks exit 0 and that nothing mentions a panic; returns (stdout, stderr).
pub fn run_ok(args: &[&str]) -> (String, String) {
    let o = schedsim(args);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(!out.contains("panicked") && !err.contains("panicked"), "{args:?} panicked: {err}");
    assert_eq!(o.status.code(), Some(0), "{args:?} failed: {err}");
    (out, err)
}

/// A per-process scratch path under Cargo's test temp dir.
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{}-{name}", std::process::id()))
}

/// Writes `body` to `dir/name` and returns the path as a string.
pub fn write_file(dir: &std::path::Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

/// The start of the tests' small experiments: `run` on 4 CPUs (1x1x2x2) with tbench.
pub const SMALL_MACHINE: &[&str] = &["run", "--topology", "1x1x2x2", "--workload", "tbench"];

/// The two kernels most tests compare: v4.15, and v4.15 with wake-affine-prev.
pub const TWO_KERNELS: &[&str] = &["--kernel", "base=v4.15", "--kernel", "patched=v4.15+wake-affine-prev"];

/// `SMALL_MACHINE` for the client counts `clients`, `iterations` iterations of 20
/// simulated ms each, then `rest` (kernels, flags).
pub fn small_run(clients: &'static str, iterations: &'static str, rest: &[&'static str]) -> Vec<&'static str> {
    let mut v = SMALL_MACHINE.to_vec();
    v.extend(["--clients", clients, "--iterations", iterations, "--duration-ms", "20"]);
    v.extend(rest);
    v
}

/// Every file under `dir`, by relative path, with its bytes.
pub fn files_under(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}
