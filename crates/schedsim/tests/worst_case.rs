//! Worst-case shapes (issue 42): inputs built to break linearity, not mutated at random
//! (the `fuzz*.rs` campaigns do that). For each shape, the input is doubled from a
//! small size until one run takes at least `TIME_FLOOR`, then the time at that size and
//! at twice it (the best of `REPEATS` each, against noise) must grow at most
//! `GROWTH_MAX` times: linear work doubles, quadratic work quadruples. The figures (with
//! the test process's peak memory so far) are the test's output (`--nocapture`). Where
//! memory can grow with the input, the heap's peak (counted by this binary's allocator)
//! at a size and at twice it must grow at most `GROWTH_MAX` times too.

use std::time::{Duration, Instant};

// For `peak_memory` only: the test process's high-water mark, printed with each shape.
#[allow(dead_code)]
mod campaign;

/// A size is measured once one run takes this long, so that timer and scheduler noise
/// is small beside it.
const TIME_FLOOR: Duration = Duration::from_millis(50);
/// Doubling the input may cost at most this many times the time: 2 for linear work,
/// with room for noise and for an allocation that grows by doubling.
const GROWTH_MAX: f64 = 2.5;
const REPEATS: usize = 3;
/// Measurements of a pair of sizes before a shape is found superlinear.
const TRIES: usize = 3;

/// One shape measured at a time: the test threads would otherwise share the cores, and
/// each other's heap.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
/// until a run takes `TIME_FLOOR`. `n_max` is the largest input the surface accepts (its
/// byte cap): a shape still under `TIME_FLOOR` there is bounded by the cap, which is
/// said instead.
fn assert_linear<T>(name: &str, n0: usize, n_max: usize, make: &dyn Fn(usize) -> T, run: &dyn Fn(&T)) {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut n = n0;
    let small = loop {
        let input = make(n);
        let t = best(&input, run);
        if t >= TIME_FLOOR || n * 4 > n_max {
            break t;
        }
        n *= 2;
    };
    if small < TIME_FLOOR {
        let top = best(&make(n_max), run);
        eprintln!(
            "worst case {name}: {small:?} at size {n}, {top:?} at {n_max}, the largest accepted: bounded by the cap; \
             peak memory of the test process {}",
            campaign::peak_memory()
        );
        assert!(top < TIME_FLOOR * 20, "{name}: {top:?} at the largest size");
        return;
    }
    // Noise (the box's other work) can slow one measurement; a shape that grows faster
    // than linearly fails every try.
    let mut tries = Vec::new();
    let (input, doubled) = (make(n), make(n * 2));
    for _ in 0..TRIES {
        let (small, big) = (best(&input, run), best(&doubled, run));
        let ratio = big.as_secs_f64() / small.as_secs_f64().max(1e-9);
        eprintln!(
            "worst case {name}: size {n} {small:?}, size {} {big:?}: x{ratio:.2}; peak memory of the test process {}",
            n * 2,
            campaign::peak_memory()
        );
        tries.push(ratio);
        if ratio <= GROWTH_MAX {
            return;
        }
    }
    panic!("{name}: doubling the input from {n} took x{tries:.2?} the time, over x{GROWTH_MAX} every try");
}

/// About the largest `n` whose `make(n)` is at most `cap` bytes.
fn largest(make: &dyn Fn(usize) -> String, cap: usize) -> usize {
    let (a, b) = (make(1024).len(), make(2048).len());
    let unit = (b - a).div_ceil(1024).max(1);
    let mut n = (cap.saturating_sub(a) / unit + 1024).max(1);
    while make(n).len() > cap {
        n = n * 15 / 16;
    }
    n
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

/// Experiment JSON (files, `--workload`, links), up to its 2 MB cap: one key given again
/// and again, many distinct unknown names, deep nesting, one long string.
#[test]
fn experiment_json_shapes_are_linear_or_bounded() {
    let cap = schedsim::input::INPUT_BYTES_MAX;
    let base = serde_json::to_string(&schedsim::presets::experiment("seed001").unwrap()).unwrap();
    let parse = |t: &String| {
        let _ = schedsim::Experiment::from_json(t);
    };
    let shapes: [(&str, &dyn Fn(usize) -> String); 4] = [
        ("one key repeated", &|n| format!("{{{}{}", "\"seed\":1,".repeat(n), &base[1..])),
        ("distinct unknown names", &|n| {
            format!("{{{}{}", (0..n).map(|i| format!("\"k{i}\":1,")).collect::<String>(), &base[1..])
        }),
        ("deep nesting", &|n| format!("{{\"name\":{}1{}}}", "[".repeat(n), "]".repeat(n))),
        ("one long name", &|n| base.replacen("\"name\":\"", &format!("\"name\":\"{}", "x".repeat(n)), 1)),
    ];
    for (name, make) in shapes {
        assert_linear(&format!("experiment JSON, {name}"), 1 << 10, largest(make, cap), make, &parse);
    }
}

/// Topology texts (`--topology-file`, the page's import), up to the 2 MB cap: many
/// comment lines, one long line, the CPU lines of the largest machine repeated.
#[test]
fn topology_text_shapes_are_linear_or_bounded() {
    let cap = schedsim::input::INPUT_BYTES_MAX;
    let read = |t: &String| {
        let _ = schedsim::import::topology_from_text(t);
    };
    let cpus = |n: usize| (0..n).map(|c| format!("{c},{},0,0,,{c},{c},{c},0\n", c / 2)).collect::<String>();
    let shapes: [(&str, &dyn Fn(usize) -> String); 3] = [
        ("comment lines", &|n| format!("{}{}", "# CPU,Core,Socket,Node\n".repeat(n), cpus(4))),
        ("one long line", &|n| format!("# {}\n{}", "x".repeat(n), cpus(4))),
        ("CPU lines repeated", &|n| {
            format!("# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n{}", cpus(1024).repeat(n.div_ceil(1024)))
        }),
    ];
    for (name, make) in shapes {
        assert_linear(&format!("topology text, {name}"), 1 << 10, largest(make, cap), make, &read);
    }
}

mod heap;

#[global_allocator]
static A: heap::Counting = heap::Counting;

/// Below this much, a peak is a constant's, not a growth to compare.
const MEMORY_FLOOR_BYTES: usize = 1 << 20;

/// Asserts that the heap `run` takes on `make(2n)` is at most `GROWTH_MAX` times that
/// on `make(n)` (or the floor), and prints both.
fn assert_memory_linear<T>(name: &str, n: usize, make: &dyn Fn(usize) -> T, run: &dyn Fn(&T)) {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (small, big) = (make(n), make(n * 2));
    let (a, b) = (heap::peak_during(|| run(&small)).1, heap::peak_during(|| run(&big)).1);
    let ratio = b as f64 / a.max(1) as f64;
    eprintln!("worst case {name}: peak heap at size {n} {} kB, at size {} {} kB: x{ratio:.2}", a >> 10, n * 2, b >> 10);
    assert!(
        b as f64 <= GROWTH_MAX * a.max(MEMORY_FLOOR_BYTES) as f64,
        "{name}: doubling the input from {n} took x{ratio:.2} the memory ({a} bytes, {b} bytes)"
    );
}

/// CRC-32 (IEEE), for the gzip trailers the shapes below write.
fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        std::array::from_fn(|i| (0..8).fold(i as u32, |c, _| if c & 1 == 1 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 }))
    });
    !data.iter().fold(!0u32, |c, &b| table[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8))
}

/// One gzip member of `text`, deflated at `level`.
fn gzip_member(text: &[u8], level: u8) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(text, level));
    out.extend_from_slice(&crc32(text).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out
}

/// A wakeup and its two switches: three lines a trace may hold a million times.
const ROUND: &str = "  a 1 [000] 1.000000: sched:sched_waking: comm=b pid=2 prio=120 target_cpu=001\n  \
                     swapper/1 0 [001] 1.000000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 \
                     prev_state=R ==> next_comm=b next_pid=2 next_prio=120\n  b 2 [001] 1.000000: \
                     sched:sched_switch: prev_comm=b prev_pid=2 prev_prio=120 prev_state=S ==> next_comm=swapper/1 \
                     next_pid=0 next_prio=120\n";

/// gzip: many members (`cat a.gz b.gz ...`, each member's trailer checked and the next
/// read after it), and a bomb (one member of one line repeated, about 1:300 deflated),
/// in time and in memory: the text inflated is the one thing that grows, within
/// TRACE_BYTES_MAX.
#[test]
fn gzip_shapes_are_linear_in_time_and_memory() {
    let members = |n: usize| (0..n).flat_map(|_| gzip_member(ROUND.as_bytes(), 1)).collect::<Vec<u8>>();
    let bomb = |n: usize| gzip_member(ROUND.repeat(n).as_bytes(), 9);
    let b = bomb(1 << 12);
    eprintln!(
        "worst case gzip bomb: {} bytes inflate to {} ({:.0}:1)",
        b.len(),
        ROUND.len() << 12,
        (ROUND.len() << 12) as f64 / b.len() as f64
    );
    let t = schedsim::sched_trace::import(&members(3), "m.gz").unwrap();
    assert_eq!(t.wakes.len(), 3, "every member is read");
    assert_linear("gzip, many members", 1 << 8, 1 << 22, &members, &|g| import(g));
    assert_linear("gzip, a bomb of one round repeated", 1 << 8, 1 << 22, &bomb, &|g| import(g));
    assert_memory_linear("gzip, a bomb of one round repeated", 1 << 15, &bomb, &|g| import(g));
    assert_memory_linear("gzip, many members", 1 << 14, &members, &|g| import(g));
}

/// Plain trace text's memory: the events kept grow with the lines.
#[test]
fn trace_memory_is_linear() {
    let text = |n: usize| ROUND.repeat(n).into_bytes();
    assert_memory_linear("trace text, one round repeated", 1 << 16, &text, &|t| import(t));
}

/// Policy scripts, up to their 16 KB source cap: compiled as a run would (many
/// functions, deep nesting, one long string, many statements).
#[cfg(feature = "policy")]
#[test]
fn policy_script_shapes_are_linear_or_bounded() {
    let cap = schedsim::policy::POLICY_SOURCE_MAX;
    let hook = "fn select_task_rq_fair(p, prev_cpu, wake_flags) { prev_cpu }\n";
    let check = |s: &String| {
        let _ = schedsim::check_policy(s);
    };
    let shapes: [(&str, &dyn Fn(usize) -> String); 4] = [
        ("many functions", &|n| {
            format!("{hook}{}", (0..n).map(|i| format!("fn f{i}(x) {{ x }}\n")).collect::<String>())
        }),
        ("deep nesting", &|n| {
            format!("fn select_task_rq_fair(p, prev_cpu, wake_flags) {{ {}prev_cpu{} }}", "(".repeat(n), ")".repeat(n))
        }),
        ("one long string", &|n| {
            format!("fn select_task_rq_fair(p, prev_cpu, wake_flags) {{ let s = \"{}\"; prev_cpu }}", "x".repeat(n))
        }),
        ("many statements", &|n| {
            format!("fn select_task_rq_fair(p, prev_cpu, wake_flags) {{ {}prev_cpu }}", "let a = 1; ".repeat(n))
        }),
    ];
    for (name, make) in shapes {
        assert_linear(&format!("policy script, {name}"), 1 << 4, largest(make, cap), make, &check);
    }
}
