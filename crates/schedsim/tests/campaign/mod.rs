//! What the fuzz campaigns share (`tests/fuzz.rs`, `tests/fuzz_traces.rs` and the web
//! crate's `tests/fuzz_links.rs`, which includes this file by path): running a
//! strategy's cases, each timed, into a tally of outcomes, and the figures printed.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::time::{Duration, Instant};

/// A campaign's outcomes: every case counted, accepted or refused by class, with the
/// slowest of each; `more` is what one campaign counts besides.
#[derive(Default, Debug)]
pub struct Tally<M = ()> {
    pub cases: u64,
    pub accepted: u64,
    pub refused: BTreeMap<String, u64>,
    pub slowest_accepted: Duration,
    pub slowest_case: Duration,
    // Read only by the campaigns that count more (`tests/fuzz_traces.rs`); each test
    // crate compiles this file on its own.
    #[allow(dead_code)]
    pub more: M,
}

impl<M: Debug> Tally<M> {
    /// Counts a case refused, by the class of its refusal.
    pub fn refuse(&mut self, class: impl Into<String>) {
        *self.refused.entry(class.into()).or_default() += 1;
    }

    /// Prints the campaign's figures (`more`: its own, already worded, after the
    /// common ones) and asserts what every campaign must show: each case counted
    /// once, and both outcomes reached (a campaign that only refuses, or only accepts,
    /// tests one side).
    pub fn report(&self, name: &str, cases: u32, more: &str) {
        eprintln!(
            "fuzz campaign {name}: {} cases, {} accepted{more}, refused by class {:?}, slowest accepted {:?}, slowest \
             case {:?}, peak memory of the test process {}",
            self.cases,
            self.accepted,
            self.refused,
            self.slowest_accepted,
            self.slowest_case,
            peak_memory()
        );
        assert_eq!(self.cases, u64::from(cases), "{name}: every case is counted once");
        assert!(self.accepted > 0, "{name}: no case was accepted: {self:?}");
        assert!(!self.refused.is_empty(), "{name}: no case was refused: {self:?}");
    }
}

/// The cases' seed unless `PROPTEST_RNG_SEED` gives one.
const SEED: u64 = 20_261_204;

/// Proptest's configuration for `cases` cases with a fixed seed, so that a run gives
/// the same cases on every machine (a case that fails in CI fails on the developer's
/// box, as one found by a random seed once did not); `PROPTEST_RNG_SEED=N` explores
/// others. No failure files: a failing case is printed.
pub fn config(cases: u32) -> Config {
    let config = Config::default();
    let rng_seed = match config.rng_seed {
        RngSeed::Random => RngSeed::Fixed(SEED),
        fixed => fixed,
    };
    Config { cases, failure_persistence: None, rng_seed, ..config }
}

/// Runs `cases` cases of `strategy` through `check`, which counts each as accepted (
/// `accepted += 1`) or refused (`refuse`); each case is timed and counted here, and one
/// that takes `case_time_max` or more fails. A panic or a failed assertion inside a
/// case fails the campaign with its input.
pub fn campaign<S: Strategy, M: Default + Debug>(
    name: &str,
    cases: u32,
    case_time_max: Duration,
    strategy: S,
    check: impl Fn(S::Value, &mut Tally<M>),
) -> Tally<M> {
    let config = config(cases);
    eprintln!("fuzz campaign {name}: seed {:?} (PROPTEST_RNG_SEED)", config.rng_seed);
    let mut runner = TestRunner::new(config);
    let tally = RefCell::new(Tally::default());
    if let Err(e) = runner.run(&strategy, |v| {
        let t = &mut tally.borrow_mut();
        let (t0, accepted) = (Instant::now(), t.accepted);
        check(v, t);
        let took = t0.elapsed();
        t.cases += 1;
        t.slowest_case = t.slowest_case.max(took);
        if t.accepted > accepted {
            t.slowest_accepted = t.slowest_accepted.max(took);
        }
        assert!(took < case_time_max, "a case took {took:?}");
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
