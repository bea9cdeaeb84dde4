//! Worst-case shapes (issue 42): inputs built to break linearity, not mutated at random
//! (the `fuzz*.rs` campaigns do that). For each shape, the input is doubled from a
//! small size until one run takes at least `TIME_FLOOR`, then the time at that size and
//! at twice it (the best of `REPEATS` each, against noise) must grow at most
//! `GROWTH_MAX` times: linear work doubles, quadratic work quadruples. The figures are
//! the test's output (`--nocapture`).

use std::time::{Duration, Instant};

/// A size is measured once one run takes this long, so that timer and scheduler noise
/// is small beside it.
const TIME_FLOOR: Duration = Duration::from_millis(50);
/// Doubling the input may cost at most this many times the time: 2 for linear work,
/// with room for noise and for an allocation that grows by doubling.
const GROWTH_MAX: f64 = 2.5;
const REPEATS: usize = 3;

/// The best of `REPEATS` runs of `f` on `input`.
fn best<T>(input: &T, f: &dyn Fn(&T)) -> Duration {
    (0..REPEATS)
        .map(|_| {
            let t = Instant::now();
            f(input);
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Asserts that `run` on `make(n)` grows at most linearly in `n`, from `n0` doubled
/// until a run takes `TIME_FLOOR` (at most `n_max`, which must reach it).
fn assert_linear<T>(name: &str, n0: usize, n_max: usize, make: &dyn Fn(usize) -> T, run: &dyn Fn(&T)) {
    let mut n = n0;
    let small = loop {
        let input = make(n);
        let t = best(&input, run);
        if t >= TIME_FLOOR || n * 2 > n_max {
            break t;
        }
        n *= 2;
    };
    let big = best(&make(n * 2), run);
    let ratio = big.as_secs_f64() / small.as_secs_f64().max(1e-9);
    eprintln!("worst case {name}: size {n} {small:?}, size {} {big:?}: x{ratio:.2}", n * 2);
    assert!(small >= TIME_FLOOR / 2, "{name}: size {n} took only {small:?}; raise n_max");
    assert!(
        ratio <= GROWTH_MAX,
        "{name}: doubling the input from {n} took x{ratio:.2} the time ({small:?} to {big:?})"
    );
}

fn import(text: &[u8]) {
    let _ = schedsim::sched_trace::import(text, "worst.txt");
}

/// One `sched_switch` line in the plugin form whose arguments repeat ` ==> ` `n` times:
/// each ` ==> ` is a try, and a try that read the text before or after it again made
/// the line's time its length squared (240 KB took 6 s).
#[test]
fn one_long_plugin_switch_line_is_linear() {
    let head = "  a 1 [000] 1.000000: sched:sched_switch: ";
    let shapes: [(&str, &str, &str, &str); 3] = [
        ("' ==> ' repeated (issue 42's line)", "", "S ==> ", "S"),
        ("' ==> ' repeated, the right side reads", "", "S ==> ", "x:1 [120]"),
        ("' ==> ' repeated after a bracket, the right side reads", ":1 [", "] S ==> ", "x:1 [120]"),
    ];
    for (name, first, each, last) in shapes {
        assert_linear(
            &format!("plugin switch, {name}"),
            1 << 10,
            1 << 24,
            &|n| format!("{head}{first}{}{last}\n", each.repeat(n)).into_bytes(),
            &|t| import(t),
        );
    }
}

/// `n` wakeups by one waker whose CPU time does not advance (all at one timestamp): the
/// waker's list of recent wakes (the sync candidates) was filtered in full at each.
#[test]
fn many_wakes_by_one_waker_at_one_time_are_linear() {
    let make = |n: usize| {
        let mut s = String::new();
        for _ in 0..n {
            s.push_str("  a 1 [000] 1.000000: sched:sched_waking: comm=b pid=2 prio=120 target_cpu=001\n");
            s.push_str(
                "  swapper/1 0 [001] 1.000000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 \
                 prev_state=R ==> next_comm=b next_pid=2 next_prio=120\n",
            );
            s.push_str(
                "  b 2 [001] 1.000000: sched:sched_switch: prev_comm=b prev_pid=2 prev_prio=120 prev_state=S ==> \
                 next_comm=swapper/1 next_pid=0 next_prio=120\n",
            );
        }
        s.into_bytes()
    };
    let t = schedsim::sched_trace::import(&make(3), "w").unwrap();
    assert_eq!(t.wakes.len(), 3, "the shape is what it says: every waking a wakeup");
    assert_linear("wakes by one waker at one time", 1 << 8, 1 << 20, &make, &|t| import(t));
}
