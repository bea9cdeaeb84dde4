//! What the fuzz campaigns share (`tests/fuzz.rs`, `tests/fuzz_traces.rs` and the web
//! crate's `tests/fuzz_links.rs`, which includes this file by path): running a
//! strategy's cases into a tally, and the test process's peak memory for the figures.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::RefCell;

/// Runs `cases` cases of `strategy` through `check`, each with the campaign's tally;
/// a panic or a failed assertion inside a case fails the campaign with its input.
pub fn campaign<S: Strategy, T: Default>(name: &str, cases: u32, strategy: S, check: impl Fn(S::Value, &mut T)) -> T {
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let tally = RefCell::new(T::default());
    if let Err(e) = runner.run(&strategy, |v| {
        check(v, &mut tally.borrow_mut());
        Ok(())
    }) {
        panic!("fuzz campaign {name}: {e}");
    }
    tally.into_inner()
}

/// The test process's peak resident memory (`VmHWM`), as "N kB".
pub fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM")).map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        })
        .map_or_else(|| "unknown".to_string(), |kb| format!("{kb} kB"))
}
