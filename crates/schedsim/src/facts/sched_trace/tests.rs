use super::*;
use crate::facts::recording::WakerKind;
use crate::facts::workload::replay::ops_text;

/// One scenario event: (comm, pid, cpu, µs after 1 s, event).
enum E {
    /// prev (comm, pid, prio, state) ==> next (comm, pid, prio)
    Sw(&'static str, u32, i32, &'static str, &'static str, u32, i32),
    /// woken (comm, pid, prio), target CPU
    Waking(&'static str, u32, i32, u32),
}

#[derive(Clone, Copy)]
enum Form {
    PerfKv,
    PerfKvNs,
    PerfPlugin,
    TraceCmd,
}

fn render(lines: &[(&str, u32, u32, u64, E)], form: Form) -> String {
    let mut out = String::new();
    if let Form::TraceCmd = form {
        out.push_str("version = 6\ncpus=2\n");
    }
    for (comm, pid, cpu, us, e) in lines {
        let t = 1_000_000 + us;
        let (secs, frac) = (t / 1_000_000, t % 1_000_000);
        let head = match form {
            Form::PerfKv | Form::PerfPlugin => format!("{comm:>16} {pid:>6} [{cpu:03}] {secs:5}.{frac:06}: sched:"),
            Form::PerfKvNs => format!("{comm:>16} {pid:>6} [{cpu:03}] {secs:5}.{:09}: sched:", frac * 1000),
            Form::TraceCmd => format!("{:>16}  [{cpu:03}] d..2. {secs:5}.{frac:06}: ", format!("{comm}-{pid}")),
        };
        let plugin = matches!(form, Form::PerfPlugin | Form::TraceCmd);
        let body = match (e, plugin) {
            (E::Sw(pc, pp, ppr, st, nc, np, npr), false) => format!(
                "sched_switch: prev_comm={pc} prev_pid={pp} prev_prio={ppr} prev_state={st} ==> next_comm={nc} \
                 next_pid={np} next_prio={npr}"
            ),
            (E::Sw(pc, pp, ppr, st, nc, np, npr), true) => {
                format!("sched_switch: {pc}:{pp} [{ppr}] {st} ==> {nc}:{np} [{npr}]")
            }
            (E::Waking(c, p, pr, tc), false) => {
                format!("sched_waking: comm={c} pid={p} prio={pr} target_cpu={tc:03}")
            }
            (E::Waking(c, p, pr, tc), true) => format!("sched_waking: {c}:{p} [{pr}] CPU:{tc:03}"),
        };
        out.push_str(&head);
        out.push_str(&body);
        out.push('\n');
    }
    out
}

/// A client and a server in a closed loop on two CPUs, a per-CPU kworker preempting
/// the server, and an interrupt waking the server on idle CPU 1.
fn scenario() -> Vec<(&'static str, u32, u32, u64, E)> {
    use E::*;
    vec![
        ("client", 100, 0, 0, Waking("server", 200, 120, 1)),
        ("swapper/1", 0, 1, 10, Sw("swapper/1", 0, 120, "R", "server", 200, 120)),
        ("client", 100, 0, 20, Sw("client", 100, 120, "S", "swapper/0", 0, 120)),
        ("server", 200, 1, 100, Waking("client", 100, 120, 0)),
        ("server", 200, 1, 300, Sw("server", 200, 120, "R+", "kworker/1:1", 50, 120)),
        ("swapper/0", 0, 0, 400, Sw("swapper/0", 0, 120, "R", "client", 100, 120)),
        ("kworker/1:1", 50, 1, 500, Sw("kworker/1:1", 50, 120, "I", "server", 200, 120)),
        ("server", 200, 1, 600, Sw("server", 200, 120, "S", "swapper/1", 0, 120)),
        ("swapper/1", 0, 1, 1600, Waking("server", 200, 120, 1)),
        ("swapper/1", 0, 1, 1610, Sw("swapper/1", 0, 120, "R", "server", 200, 120)),
        ("client", 100, 0, 2000, Sw("client", 100, 120, "S", "swapper/0", 0, 120)),
    ]
}

fn programs(t: &Trace) -> Vec<String> {
    t.replay_params().tasks.iter().map(|r| format!("{} {:?} {}", r.name, r.pinned, ops_text(&r.program))).collect()
}

fn imp(text: &str) -> Trace {
    match import(text.as_bytes(), "t") {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

fn err(bytes: &[u8]) -> String {
    match import(bytes, "t") {
        Ok(_) => panic!("imported"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_closed_loop_scenario_gives_these_programs_and_wakes() {
    let t = imp(&render(&scenario(), Form::PerfKv));
    assert_eq!(
        programs(&t),
        [
            "client/100 None W1 r20000 b r1600000",
            "server/200 None b r90000 w0 r300000 i1000000@1 r390000",
            "kworker/1:1/50 Some(1) r200000",
        ]
    );
    assert_eq!((t.cpus, t.start_ns, t.span_ns), (2, 1_000_000_000, 2_000_000));
    let w: Vec<_> = t
        .wakes
        .iter()
        .map(|w| (w.time_ns - t.start_ns, w.wakee, w.waker, w.kind, w.waker_cpu, w.last_cpu, w.ran_cpu, w.run_delay_ns))
        .collect();
    assert_eq!(
        w,
        [
            (0, 1, Some(0), WakerKind::Task, 0, None, 1, 10_000),
            (100_000, 0, Some(1), WakerKind::Task, 1, Some(0), 0, 300_000),
            (1_600_000, 1, None, WakerKind::Idle, 1, Some(1), 1, 10_000),
        ]
    );
    // CPU time: client 20 + 1600 µs, server 90 + 300 + 390, kworker 200: 2600 µs of 4000.
    assert!((t.busy_share - 0.65).abs() < 1e-9, "{}", t.busy_share);
    let s = &t.summary;
    assert_eq!((s.tasks, s.kernel_threads, s.percpu_kthreads, s.rt_tasks), (3, 1, 1, 0));
    assert_eq!((s.running_at_start, s.sync_wakes, s.irq_wakes), (1, 1, 1));
    assert_eq!(s.events.get("sched_switch"), Some(&8));
    assert_eq!(s.events.get("sched_waking"), Some(&3));
    assert_eq!(s.wakeups_by_kind.get("task"), Some(&2));
    assert_eq!(s.wakeups_by_kind.get("idle"), Some(&1));
    assert_eq!(s.wake_source, "sched_waking");
    assert_eq!(s.forms, ["perf script", "key=value"]);
}

#[test]
fn the_same_trace_in_each_form_gives_the_same_programs() {
    let want = programs(&imp(&render(&scenario(), Form::PerfKv)));
    for form in [Form::PerfKvNs, Form::PerfPlugin, Form::TraceCmd] {
        let t = imp(&render(&scenario(), form));
        assert_eq!(programs(&t), want);
    }
    let gz = gzip::tests::gzip_stored(render(&scenario(), Form::TraceCmd).as_bytes());
    let t = import(&gz, "t.gz").unwrap();
    assert_eq!(programs(&t), want);
    assert!(t.summary.gzip);
    assert_eq!(t.summary.forms, ["trace-cmd report", "plugin"]);
    assert_eq!(t.summary.cpus_header, Some(2));
}
