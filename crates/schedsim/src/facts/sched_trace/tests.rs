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

fn imp_lines(lines: &[&str]) -> Trace {
    let mut text = lines.join("\n");
    text.push('\n');
    imp(&text)
}

#[test]
fn fork_exit_and_pid_reuse() {
    let t = imp_lines(&[
        "bash 10 [000] 1.000000: sched:sched_process_fork: comm=bash pid=10 child_comm=bash child_pid=11",
        "bash 10 [000] 1.000005: sched:sched_wakeup_new: comm=bash pid=11 prio=120 target_cpu=001",
        "swapper/1 0 [001] 1.000010: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=bash next_pid=11 next_prio=120",
        "bash 11 [001] 1.000050: sched:sched_process_exit: comm=bash pid=11 prio=120",
        "bash 11 [001] 1.000060: sched:sched_switch: prev_comm=bash prev_pid=11 prev_prio=120 prev_state=X ==> next_comm=swapper/1 next_pid=0 next_prio=120",
        "bash 10 [000] 1.000100: sched:sched_process_fork: comm=bash pid=10 child_comm=sh child_pid=11",
        "bash 10 [000] 1.000105: sched:sched_wakeup_new: comm=sh pid=11 prio=120 target_cpu=001",
        "bash 10 [000] 1.000200: sched:sched_switch: prev_comm=bash prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    ]);
    assert_eq!(programs(&t), ["bash/10 None r5000 w1 r100000 w2 r95000", "bash/11 None b r50000 x", "sh/11 None b"]);
    assert_eq!((t.summary.pid_reuses, t.summary.running_at_start, t.summary.sync_wakes), (1, 1, 0));
    assert_eq!(t.wakes.len(), 1);
    assert_eq!(t.summary.events.get("sched_process_fork"), Some(&2));
}

#[test]
fn kernel_threads_by_name() {
    for (comm, want) in [
        ("ksoftirqd/3", (true, Some(3))),
        ("migration/12", (true, Some(12))),
        ("kworker/2:1H", (true, Some(2))),
        ("kworker/0:2-events", (true, Some(0))),
        ("kworker/u16:0", (true, None)),
        ("kworker/R-kblockd", (true, None)),
        ("jbd2/sda1-8", (true, None)),
        ("card1-crtc0", (true, None)),
        ("irq/45-nvme0q1", (true, None)),
        ("rcu_preempt", (true, None)),
        ("kswapd0", (true, None)),
        ("bash", (false, None)),
        ("Web Content", (false, None)),
        ("ksoftirqd/x", (false, None)),
    ] {
        assert_eq!(kthread_of(comm.as_bytes()), want, "{comm}");
    }
}

#[test]
fn real_time_tasks_pin_where_they_first_ran_and_wakeups_of_runners_give_no_step() {
    let t = imp_lines(&[
        "a 5 [000] 2.000000: sched:sched_waking: comm=rt pid=6 prio=49 target_cpu=001",
        "swapper/1 0 [001] 2.000010: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rt next_pid=6 next_prio=49",
        "rt 6 [001] 2.000020: sched:sched_waking: comm=a pid=5 prio=120 target_cpu=000",
        "rt 6 [001] 2.000030: sched:sched_switch: prev_comm=rt prev_pid=6 prev_prio=49 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
    ]);
    // a runs throughout: rt's wakeup of it gives no step.
    assert_eq!(programs(&t), ["a/5 None w1 r30000", "rt/6 Some(1) b r20000"]);
    assert_eq!((t.summary.rt_tasks, t.summary.wakeups_not_sleeping), (1, 1));
    assert!(t.summary.lines().iter().any(|l| l.contains("1 real-time pinned")));
}

#[test]
fn sched_wakeup_is_used_when_there_is_no_sched_waking() {
    let t = imp_lines(&[
        "a 5 [000] 2.000000: sched:sched_wakeup: comm=b pid=6 prio=120 success=1 target_cpu=001",
        "swapper/1 0 [001] 2.000010: sched:sched_switch: swapper/1:0 [120] R ==> b:6 [120]",
    ]);
    assert_eq!(programs(&t), ["a/5 None w1 r10000", "b/6 None b"]);
    assert_eq!(t.summary.wake_source, "sched_wakeup");
    assert!(t.summary.lines().iter().any(|l| l.contains("no sched_waking events")));
    // With sched_waking present, sched_wakeup lines give no step.
    let t = imp_lines(&[
        "a 5 [000] 2.000000: sched:sched_waking: comm=b pid=6 prio=120 target_cpu=001",
        "swapper/1 0 [001] 2.000005: sched:sched_wakeup: comm=b pid=6 prio=120 target_cpu=001",
        "swapper/1 0 [001] 2.000010: sched:sched_switch: swapper/1:0 [120] R ==> b:6 [120]",
    ]);
    assert_eq!(programs(&t), ["a/5 None w1 r10000", "b/6 None b"]);
}

#[test]
fn lost_events_reordering_and_clock_steps_are_counted() {
    let t = imp_lines(&[
        "cpus=2",
        "  a-5  [000]  2.000000: sched_switch: a:5 [120] S ==> swapper/0:0 [120]",
        "CPU:1 [LOST 123 EVENTS]",
        "  <idle>-0  [001]  2.000200: sched_switch: swapper/1:0 [120] R ==> a:5 [120]",
        "  <idle>-0  [000]  2.000100: sched_switch: swapper/0:0 [120] R ==> b:6 [120]",
        "  b-6  [000]  1.000000: sched_switch: b:6 [120] R+ ==> swapper/0:0 [120]",
    ]);
    let s = &t.summary;
    assert_eq!((s.lost_events, s.lost_gaps, s.out_of_order, s.clock_steps), (123, 1, 1, 1));
    // a slept and ran again with no wakeup seen (lost): an interrupt wakes it. b ran
    // 2.000100 to 2.000200 (its clock-stepped time is the line above's).
    assert_eq!(programs(&t), ["a/5 None i200000@1", "b/6 None r100000"]);
    assert_eq!(s.switch_ins_unwoken, 1);
    assert!(s.lines().iter().any(|l| l.starts_with("LOST 123 events in 1 gaps")));
}

#[test]
fn bad_input_names_the_line_and_the_problem() {
    assert_eq!(err(b""), "trace t: the file is empty");
    assert_eq!(err(b"\n \n"), "trace t: the file is empty");
    assert!(err(b"PERFILE2\x10\0\0").contains("binary perf.data: run `perf script -i FILE > FILE.txt` first"));
    assert!(err(b"\xfd7zXZ\0..").contains("xz-compressed"));
    let e = err(b"total 12\ndrwxr-xr-x 2 root root 4096 Dec  3 14:00 .\n");
    assert_eq!(e, "trace t line 1: this is not perf script or trace-cmd report text (no `COMM PID [CPU] TIME: EVENT: ARGS` head): `total 12`");
    let e = err(b"perf 1 [000] 1.000000: sched:sched_stat_runtime: comm=perf pid=1 runtime=100 [ns] vruntime=5 [ns]\n");
    assert!(e.contains("no sched_switch or sched_waking events (it has sched:sched_stat_runtime)"), "{e}");
    let e = err(b"perf 1 [1024] 1.000000: sched:sched_switch: x\n");
    assert!(e.starts_with("trace t line 1: CPU 1024: at most 1024 CPUs"), "{e}");
    // A time that does not read, or one past a replay's span, names its line (issue 42:
    // the first were dropped as no event, the second refused with no line).
    let text = render(&scenario(), Form::PerfKv);
    for bad in ["-1.000000", "NaN", "1e3"] {
        let edited = text.replacen("1.000000:", &format!("{bad}:"), 1);
        let e = err(edited.as_bytes());
        assert!(e.starts_with(&format!("trace t line 1: time \"{bad}\" does not read as SECONDS.FRACTION")), "{e}");
    }
    let jump: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i == 3 { l.replacen("    1.", " 3602.", 1) } else { l.to_string() } + "\n")
        .collect();
    let e = err(jump.as_bytes());
    assert!(e.starts_with("trace t line 4: time 3602."), "{e}");
    assert!(e.contains("a replay spans at most 3600 s (REPLAY_SPAN_NS_MAX); did the clock jump?"), "{e}");
    let e = err(b"# comment\nperf 1 [000] 1.000000: sched:sched_switch: prev_comm=perf prev_pid=1\n");
    assert!(e.starts_with("trace t line 2: sched_switch arguments do not read as"), "{e}");
    assert!(e.ends_with("`perf 1 [000] 1.000000: sched:sched_switch: prev_comm=perf prev_pid=1`"), "{e}");
    let long = format!("perf 1 [000] 1.000000: sched:sched_waking: comm={}\n", "x".repeat(200));
    let e = err(long.as_bytes());
    assert!(e.ends_with("xxx…`") && e.chars().filter(|&c| c == 'x').count() < 90, "{e}");
    // Too big: the bound and the reason, plain and after gunzip.
    let text = render(&scenario(), Form::PerfKv);
    let e = import_inner(Input::Bytes(text.as_bytes()), "t", &mut |_| true, 100).unwrap_err();
    assert!(e.message.contains("over TRACE_BYTES_MAX (100)") && e.message.contains("cut the trace shorter"), "{e}");
    let gz = gzip::tests::gzip_stored(text.as_bytes());
    let e = import_inner(Input::Bytes(&gz), "t", &mut |_| true, 100).unwrap_err();
    assert!(e.message.contains("TRACE_BYTES_MAX"), "{e}");
    let e = import_with(text.as_bytes(), "t", &mut |_| false).unwrap_err();
    assert!(e.message.contains("cancelled"), "{e}");
}

#[test]
fn a_cut_last_line_is_dropped_and_other_bytes_are_kept_lossily() {
    let text = render(&scenario(), Form::PerfKv);
    let cut = &text[..text.len() - 30];
    let t = imp(cut);
    assert!(t.summary.truncated_last_line);
    assert_eq!(t.summary.events.get("sched_switch"), Some(&7));
    let mut bytes =
        b"caf\xe9 7 [000] 1.000000: sched:sched_waking: comm=x\xff pid=8 prio=120 target_cpu=000\n".to_vec();
    bytes.extend_from_slice(b"x\xff 8 [000] 1.000100: sched:sched_switch: x\xff:8 [120] S ==> swapper/0:0 [120]\n");
    let t = import(&bytes, "t").unwrap();
    assert_eq!(t.tasks[0].name, "caf\u{fffd}");
    assert_eq!(t.tasks[1].name, "x\u{fffd}");
}

#[test]
fn check_cpus_names_the_first_line_beyond_the_machine() {
    let t = imp(&render(&scenario(), Form::PerfKv));
    assert!(t.check_cpus(2).is_ok());
    let e = t.check_cpus(1).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.to_string().starts_with("trace t line 2: the trace names CPU 1 and more, the machine has 1 CPUs"));
    assert!(e.text.contains("[001]"));
}

#[test]
fn the_summary_reads() {
    let t = imp(&render(&scenario(), Form::PerfKv));
    expect_test::expect![[r#"
        format: perf script, key=value
        11 lines, 2 CPUs (2 seen), span 0.002000 s, busy 65.0%
        events used: sched_switch 8, sched_waking 3
        events skipped: none
        tasks: 3 (1 kernel threads, 1 per-CPU, 0 real-time pinned and run as CFS)
        wakeups from sched_waking: idle 1, task 2 (1 as interrupts, 1 sync)
        1 tasks running at the start (run from the start)"#]]
    .assert_eq(&t.summary.lines().join("\n"));
    let json = serde_json::to_string(&t.summary).unwrap();
    assert!(json.contains(r#""events":{"sched_switch":8,"sched_waking":3}"#), "{json}");
}

#[test]
fn replay_params_validate_as_a_workload() {
    for form in [Form::PerfKv, Form::TraceCmd] {
        let p = imp(&render(&scenario(), form)).replay_params();
        assert_eq!((p.trace_cpus, p.span_ns, p.ws_bytes, p.sys_pct), (2, 2_000_000, 128 << 10, 50));
        assert_eq!(p.trace_sha256.len(), 64);
        crate::facts::workload::Workload::Replay(p).validate(4).unwrap();
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn corpus() -> Vec<u8> {
        let mut all = String::new();
        for form in [Form::PerfKv, Form::PerfKvNs, Form::PerfPlugin, Form::TraceCmd] {
            all.push_str(&render(&scenario(), form));
        }
        all.push_str(
            "bash 10 [000] 1.000000: sched:sched_process_fork: comm=bash pid=10 child_comm=bash child_pid=11\n",
        );
        all.push_str("bash 11 [001] 1.000050: sched:sched_process_exit: comm=bash pid=11 prio=120\n");
        all.push_str(
            "bash 11 [001] 1.000050: sched:sched_migrate_task: comm=bash pid=11 prio=120 orig_cpu=1 dest_cpu=0\n",
        );
        all.push_str("CPU:1 [LOST 123 EVENTS]\n");
        all.into_bytes()
    }

    const PIECES: &[u8] = b" :[]=-/|>+.0123456789\n\xffRSXprev_pidcomm";

    proptest! {
        // A fixed seed: the same cases on every machine (tests/campaign/mod.rs says why).
        #![proptest_config(ProptestConfig {
            cases: 2000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(20_261_204),
            ..ProptestConfig::default()
        })]
        /// Mutated real lines: byte changes, insertions, deletions and cuts. The importer
        /// answers, never panics.
        #[test]
        fn mutated_lines_never_panic(
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<prop::sample::Index>()), 1..12),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut b = corpus();
            for (at, what, piece) in edits {
                let i = at.index(b.len());
                let c = PIECES[piece.index(PIECES.len())];
                match what {
                    0 => b[i] = c,
                    1 => b.insert(i, c),
                    2 => { b.remove(i); }
                    _ => { let n = (i + 8).min(b.len()); b.drain(i..n); }
                }
                if b.is_empty() { b.push(b'x'); }
            }
            let keep = cut.index(b.len() + 1).max(b.len() / 2);
            b.truncate(keep);
            let _ = import(&b, "fuzz");
            let gz = gzip::tests::gzip_stored(&b);
            let _ = import(&gz[..gz.len() - (keep % 7)], "fuzz.gz");
        }

        #[test]
        fn random_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..400)) {
            let _ = import(&b, "fuzz");
            let mut g = vec![0x1f, 0x8b];
            g.extend_from_slice(&b);
            let _ = import(&g, "fuzz");
        }
    }
}

/// What real perf 6.x text holds (the shapes of the `traces/` recordings): comms with
/// spaces and colons, perf's own thread-table comm in the task column
/// (`kworker/u8:3+lo`) against the kernel's in the payload, `:-1 -1` task columns,
/// right-aligned event names, and perf 6.1's plugin gluing `<CANT FIND FIELD success>`
/// to the prio.
#[test]
fn perf_quirks_of_real_traces() {
    let t = imp_lines(&[
        " kworker/u8:3+lo    77 [000]   523.000000:       sched:sched_waking: comm=memfd:sealed-91 pid=4013 prio=120 target_cpu=001",
        " opt 44ajmyhya5r 11684 [001]   523.000010:       sched:sched_switch: opt 44ajmyhya5r:11684 [130] R+ ==> memfd:sealed-91:4013 [120]",
        "             :-1    -1 [000]   523.000020:       sched:sched_switch: prev_comm=kworker/u8:3 prev_pid=77 prev_prio=120 prev_state=I ==> next_comm=opt 44ajmyhya5r next_pid=11684 next_prio=130",
        " memfd:sealed-91  4013 [001]   523.000030:   sched:sched_wakeup_new: memfd:sealed-91:4014 [120]<CANT FIND FIELD success> CPU:001",
    ]);
    assert_eq!(
        programs(&t),
        [
            "kworker/u8:3/77 None W1 r20000",
            "memfd:sealed-91/4013 None b r20000 w3",
            "opt 44ajmyhya5r/11684 None r20000",
            "memfd:sealed-91/4014 None b",
        ]
    );
    assert_eq!(t.tasks[2].prio, 130);
    assert_eq!(t.wakes.len(), 1);
    assert_eq!((t.wakes[0].kind, t.wakes[0].run_delay_ns), (WakerKind::KernelThread, 10_000));
    assert_eq!(t.summary.wakeups_by_kind.get("kernel_thread"), Some(&1));
    assert_eq!(t.summary.forms, ["perf script", "key=value", "plugin"]);
}

/// `__schedule()` dequeues a task before it traces `sched_switch`, so a waker on
/// another CPU can trace its `sched_waking` first: that waking wakes the sleep that
/// follows (within `EARLY_WAKE_NS`), rather than being lost.
#[test]
fn a_waking_traced_just_before_the_wakees_switch_out_wakes_that_sleep() {
    let t = imp_lines(&[
        "swapper/1 0 [001] 1.000000: sched:sched_switch: swapper/1:0 [120] R ==> b:6 [120]",
        "a 5 [000] 1.000010: sched:sched_waking: comm=b pid=6 prio=120 target_cpu=001",
        "b 6 [001] 1.000012: sched:sched_switch: b:6 [120] S ==> swapper/1:0 [120]",
        "swapper/1 0 [001] 1.000020: sched:sched_switch: swapper/1:0 [120] R ==> b:6 [120]",
        "a 5 [000] 1.000030: sched:sched_switch: a:5 [120] S ==> swapper/0:0 [120]",
    ]);
    assert_eq!(programs(&t), ["b/6 None r12000 b r10000", "a/5 None r12000 W0 r18000"]);
    assert_eq!((t.summary.early_wakes, t.summary.wakeups_not_sleeping, t.summary.switch_ins_unwoken), (1, 0, 0));
    let w = &t.wakes[0];
    assert_eq!(
        (w.time_ns, w.waker, w.last_cpu, w.ran_cpu, w.run_delay_ns),
        (1_000_010_000, Some(1), Some(1), 1, 10_000)
    );
}

/// Sync is judged on the waker's CPU time from the waking to its sleep: a wakee that
/// preempts its waker at once (`R+`) does not make the wake less synchronous. The
/// preemption by its own wakee is a dependency (`Conv::preempted_by_wakee`): `a` waits
/// (`b`) for `b`'s next switch-out, which wakes it (`W0`), and `a`'s time between its
/// wakeup and its switch-out is the rest of its system call (`k`).
#[test]
fn sync_counts_the_wakers_cpu_time_not_the_time_it_waited() {
    let lines = |after_us: u32| {
        imp_lines(&[
            "a 5 [000] 1.000000: sched:sched_waking: comm=b pid=6 prio=120 target_cpu=000",
            "a 5 [000] 1.000005: sched:sched_switch: a:5 [120] R+ ==> b:6 [120]",
            "b 6 [000] 1.000500: sched:sched_switch: b:6 [120] S ==> a:5 [120]",
            &format!("a 5 [000] 1.{:06}: sched:sched_switch: a:5 [120] S ==> swapper/0:0 [120]", 500 + after_us),
        ])
    };
    assert_eq!(programs(&lines(10)), ["a/5 None W1 k5000 b r10000", "b/6 None b r495000 W0"]);
    assert_eq!(programs(&lines(60)), ["a/5 None w1 k5000 b r60000", "b/6 None b r495000 W0"]);
    assert_eq!((lines(10).summary.causal_wakes, lines(10).summary.causal_wakes_dropped), (1, 0));
    assert_eq!(lines(10).switches, (2, 1));
}

/// A waker preempted by its wakee that runs again elsewhere before the wakee switches
/// out (a balancer moved it) waited for nothing: no dependency. Preempted by a task it
/// did not wake, it never waits either.
#[test]
fn a_preempted_waker_that_runs_again_first_waits_for_nothing() {
    let t = imp_lines(&[
        "a 5 [000] 1.000000: sched:sched_waking: comm=b pid=6 prio=120 target_cpu=000",
        "a 5 [000] 1.000005: sched:sched_switch: a:5 [120] R ==> b:6 [120]",
        "swapper/1 0 [001] 1.000100: sched:sched_switch: swapper/1:0 [120] R ==> a:5 [120]",
        "b 6 [000] 1.000500: sched:sched_switch: b:6 [120] S ==> swapper/0:0 [120]",
        "a 5 [001] 1.000600: sched:sched_switch: a:5 [120] S ==> swapper/1:0 [120]",
    ]);
    assert_eq!(programs(&t), ["a/5 None w1 k5000 r500000", "b/6 None b r495000"]);
    assert_eq!((t.summary.causal_wakes, t.summary.causal_wakes_dropped), (1, 1));
    let t = imp_lines(&[
        "a 5 [000] 1.000000: sched:sched_waking: comm=b pid=6 prio=120 target_cpu=001",
        "a 5 [000] 1.000005: sched:sched_switch: a:5 [120] R ==> c:7 [120]",
        "c 7 [000] 1.000500: sched:sched_switch: c:7 [120] S ==> a:5 [120]",
    ]);
    assert_eq!(t.summary.causal_wakes, 0);
}

/// A real deflate stream (Python's `gzip.compress(text, 9, mtime=0)` of the two lines
/// below), not only the stored blocks the other tests make.
#[test]
fn gzip_with_compressed_blocks() {
    const GZ: [u8; 135] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x5d, 0x8c, 0x41, 0x0a, 0x83, 0x30, 0x14, 0x44,
        0xf7, 0x9e, 0x62, 0x4e, 0xd0, 0xfe, 0x5f, 0xd0, 0x45, 0xe0, 0xf7, 0x10, 0xdd, 0x16, 0x91, 0x18, 0x83, 0x86,
        0x62, 0xfd, 0x24, 0x29, 0xb9, 0x7e, 0xa3, 0xc5, 0x4d, 0x67, 0x31, 0x30, 0xc3, 0xe3, 0x59, 0xb4, 0x78, 0x12,
        0x51, 0x0f, 0xbe, 0xd0, 0x11, 0x83, 0xe4, 0x16, 0x3f, 0x99, 0xa3, 0x87, 0x62, 0x5f, 0xe1, 0x3d, 0x1b, 0xb8,
        0x6d, 0x5d, 0x65, 0x84, 0x86, 0x49, 0x3a, 0x68, 0x0c, 0x9b, 0xf0, 0x8d, 0x90, 0x6d, 0x9c, 0x7d, 0x1e, 0x9c,
        0x7e, 0x84, 0x88, 0x9b, 0x54, 0xac, 0xaa, 0x8f, 0x57, 0x06, 0xed, 0x52, 0x3e, 0xa5, 0xfc, 0x27, 0x4d, 0x25,
        0x64, 0xb7, 0xd4, 0xef, 0xe4, 0x4d, 0xe5, 0xab, 0xaf, 0xc7, 0x03, 0x22, 0x77, 0x8c, 0xa6, 0xfb, 0xed, 0xe6,
        0x0b, 0xab, 0xdf, 0x52, 0x16, 0x9f, 0x00, 0x00, 0x00,
    ];
    let t = import(&GZ, "t.txt.gz").unwrap();
    let plain = imp_lines(&[
        "a 5 [000] 1.000000: sched:sched_waking: comm=b pid=6 prio=120 target_cpu=001",
        "swapper/1 0 [001] 1.000010: sched:sched_switch: swapper/1:0 [120] R ==> b:6 [120]",
    ]);
    assert_eq!(programs(&t), programs(&plain));
    assert_eq!(programs(&t), ["a/5 None w1 r10000", "b/6 None b"]);
    assert!(t.summary.gzip && !t.summary.gzip_truncated);
    // The digest is of the bytes given, not of the text.
    assert_ne!(t.sha256, plain.sha256);
    assert_eq!(t.sha256, sha256_hex(&GZ));
    // A second member after the first (`cat a.gz b.gz`) is read after it, as gunzip
    // reads it (it was refused when the trailers' lengths differed, dropped when not).
    let mut two = GZ.to_vec();
    two.extend_from_slice(&gzip::tests::gzip_stored(b"x 1 [000] 2.0: sched:sched_waking: comm=y pid=2\n"));
    let both = import(&two, "t.txt.gz").unwrap();
    assert_eq!((both.summary.lines, both.summary.events.get("sched_waking")), (t.summary.lines + 1, Some(&2)));
}

/// Every event that says where a task is counts for the CPU its next wakeup moves it
/// from (issue 42): a forked worker whose switch-in onto an idle CPU the trace lacks
/// still ran there (its `sched_stat_runtime` and its switch-out say so), and a
/// `sched_migrate_task`'s `orig_cpu` says where a task first seen woken was. Both
/// wakeups were "no migration" (`last_cpu` unknown), which undercounted the observed
/// column of `perf bench sched messaging` traces (20 of 53 migrations).
#[test]
fn where_a_task_ran_comes_from_every_event_that_says() {
    let lacks_switch_in = "\
  parent 10 [000] 1.000000: sched:sched_process_fork: comm=parent pid=10 child_comm=w child_pid=11
  parent 10 [000] 1.000001: sched:sched_wakeup_new: comm=w pid=11 prio=120 target_cpu=001
  w 11 [001] 1.000100: sched:sched_stat_runtime: comm=w pid=11 runtime=100 [ns] vruntime=5 [ns]
  w 11 [001] 1.000200: sched:sched_switch: prev_comm=w prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
  parent 10 [000] 1.000300: sched:sched_waking: comm=w pid=11 prio=120 target_cpu=002
  swapper/2 0 [002] 1.000400: sched:sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=11 next_prio=120
";
    let t = imp(lacks_switch_in);
    let w = t.wakes.last().expect("the second wakeup ran");
    assert_eq!((w.wakee, w.last_cpu, w.ran_cpu), (1, Some(1), 2), "{:?}", t.wakes);
    assert_eq!(t.summary.skipped.get("sched:sched_stat_runtime"), Some(&1), "still counted as passed over");
    let migrated = "\
  parent 10 [000] 1.000300: sched:sched_waking: comm=w pid=11 prio=120 target_cpu=002
  parent 10 [000] 1.000301: sched:sched_migrate_task: comm=w pid=11 prio=120 orig_cpu=3 dest_cpu=2
  swapper/2 0 [002] 1.000400: sched:sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=11 next_prio=120
";
    let t = imp(migrated);
    assert_eq!(t.wakes.iter().map(|w| (w.last_cpu, w.ran_cpu)).collect::<Vec<_>>(), [(Some(3), 2)]);
}

/// Line ends `\r\n` and a lone `\r` read as `\n` does, line numbers included (issue 42:
/// a file with CR-only line ends read as one line).
#[test]
fn cr_and_crlf_line_ends_read_as_newlines() {
    let text = render(&scenario(), Form::PerfKv);
    let want = imp(&text);
    for end in ["\r\n", "\r"] {
        let t = imp(&text.replace('\n', end));
        assert_eq!((programs(&t), t.summary.lines), (programs(&want), want.summary.lines), "{end:?}");
    }
}

/// Passed-over events are counted by name up to `SKIPPED_NAMES_MAX` names, the rest
/// together (issue 42: a trace of many distinct event names grew the import by GBs and
/// printed every name on one 258 MB summary line).
#[test]
fn skipped_event_names_are_bounded() {
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!("  a 1 [000] 1.000000: probe:p{i}: x\n"));
    }
    text.push_str("  a 1 [000] 1.000001: sched:sched_waking: comm=b pid=2 prio=120 target_cpu=000\n");
    let t = imp(&text);
    let s = &t.summary.skipped;
    assert_eq!(s.len(), SKIPPED_NAMES_MAX + 1, "{} names", s.len());
    assert_eq!(s.values().sum::<u64>(), 1000);
    assert_eq!(s.get(OTHER_EVENT_NAMES), Some(&(1000 - SKIPPED_NAMES_MAX as u64)));
}
