//! The benchmark models' structure against the real benchmarks traced on the `kvm-2`
//! box (`traces/README.md`, `docs/ground-truth.md`): who wakes whom, from which
//! context, and what separates two forms of one benchmark. Each test states the
//! trace's figure and a range the model before the fix it guards fell outside.

use schedsim::experiment::Experiment;
use schedsim::wake_stats::WakeStats;

/// The experiment `schedsim show --machine kvm-2 --workload WL --clients C` makes.
fn exp(workload: &str, clients: u32, duration_ms: u64) -> Experiment {
    let text = format!(
        r#"{{"version":1,"name":"t","machine":{{"preset":"kvm-2"}},"workload":{workload},"clients":[{clients}],
        "iterations":1,"duration_ms":{duration_ms},"warmup_ms":{},"seed":1,"kernels":[{{"name":"v6.5","preset":"v6.5"}}]}}"#,
        duration_ms / 10
    );
    Experiment::parse_json(&text).unwrap()
}

/// The share of wakeups by waker kind (task, kernel thread, idle), percent, and the
/// run's headline number.
fn shares(workload: &str, clients: u32, duration_ms: u64) -> ([f64; 3], f64, u64) {
    let e = exp(workload, clients, duration_ms);
    let r = e.validate().unwrap();
    let w = e.wake_log(0, clients, 0).unwrap();
    let s = WakeStats::of(&w.records, |a, b| r.map.distance(a, b), w.busy_share);
    let n = s.wakeups.max(1) as f64;
    let b = &s.by_waker;
    ([b.task as f64 * 100.0 / n, b.kernel_thread as f64 * 100.0 / n, b.idle as f64 * 100.0 / n], w.value, s.wakeups)
}

/// dbench on ext4 on a loop device: the trace has 66.1% of its wakeups from kernel
/// threads (the loop worker, `ksoftirqd`, `jbd2`, kblockd). The model on a disk has a
/// device interrupt for every I/O (41% of its wakeups from idle at 2 clients, 34%
/// from kernel threads); on a loop device there is no interrupt on the I/O path,
/// only the backing file's flushes.
#[test]
fn dbench_on_a_loop_device_is_woken_by_kernel_threads() {
    let (lp, _, _) = shares(r#"{"kind":"dbench","device":"loop"}"#, 2, 1000);
    assert!((55.0..=80.0).contains(&lp[1]), "loop: {lp:.1?} (task, kernel thread, idle %)");
    let (disk, _, _) = shares(r#"{"kind":"dbench"}"#, 2, 1000);
    assert!(disk[1] < 50.0 && disk[2] > 30.0, "disk: {disk:.1?}");
}

/// The loop device's commit waits for the backing file's fsyncs: with the default
/// flush time the commit takes milliseconds, so throughput is far below the disk
/// model's (the box: 69 / 83 MB/s at 1 / 2 clients; the disk model 268 / 508).
#[test]
fn dbench_on_a_loop_device_waits_for_the_backing_files_flushes() {
    let (_, lp, _) = shares(r#"{"kind":"dbench","device":"loop"}"#, 1, 1000);
    let (_, disk, _) = shares(r#"{"kind":"dbench"}"#, 1, 1000);
    assert!(lp < disk / 4.0, "loop {lp:.1} MB/s, disk {disk:.1} MB/s");
}

/// perf bench sched messaging in the traced form (`-g 1 -l 500`): the quiet box takes
/// 0.242 s on sockets and 0.154 s on pipes (1.57x, `traces/quiet/messaging*.facts`;
/// untraced `-g 2 -l 2000`: 1.500 / 0.722 s, 2.08x; rt-tests' hackbench 1.432 / 0.665 s,
/// 2.15x); the model before the transports were told apart gave both the same time
/// (1.0x). (The loaded box of the first recordings: 2.6x traced, 2.4x untraced.)
#[test]
fn hackbench_tells_sockets_from_pipes() {
    let (_, sock, _) = shares(r#"{"kind":"hackbench","loops":500}"#, 1, 30_000);
    let (_, pipe, _) = shares(r#"{"kind":"hackbench","loops":500,"pipe":true}"#, 1, 30_000);
    let ratio = sock / pipe;
    assert!((1.4..=3.0).contains(&ratio), "socket {sock:.3} s, pipe {pipe:.3} s: {ratio:.2}x");
}

/// The socket trace has 0.057 wakeups per message (11.4k wakeups for 200k messages);
/// within a factor of two of it.
#[test]
#[ignore = "model gap: 0.34 wakeups per message (v6.5; at -g 2 -l 2000 0.32, and 0.37 before the transports were told apart): the model's receivers run at once when woken (run delay p50 3 us, the trace's 25 us), drain their socket and sleep again; see docs/ground-truth.md"]
fn hackbench_socket_wakeups_per_message_as_traced() {
    let (_, _, w) = shares(r#"{"kind":"hackbench","loops":500}"#, 1, 30_000);
    let per_msg = w as f64 / (20.0 * 20.0 * 500.0);
    assert!((0.0285..=0.114).contains(&per_msg), "socket wakeups per message {per_msg:.3}");
}
