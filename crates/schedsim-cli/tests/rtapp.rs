//! `--workload rtapp:FILE`: an rt-app task set from a file, its notes on stderr, its
//! refusals naming the key, and the experiment that carries it (`show`) running again
//! to the same table.

mod common;
use common::{run_ok, schedsim, text, tmp, write_file};

const PINGPONG: &str = r#"{
    /* rt-app's tutorial example 4, with a nice value the model does not weigh */
    "tasks": {
        "thread0": { "loop": -1, "priority": -5, "run": 10000, "resume": "thread1", "suspend": "thread0" },
        "thread1": { "loop": -1, "run": 10000, "resume": "thread0", "suspend": "thread1", },
    },
    "global": { "duration": 2, "calibration": "CPU0" }
}"#;

#[test]
fn an_rt_app_file_runs_and_says_what_it_took_differently() {
    let dir = tmp("rtapp", "run");
    std::fs::create_dir_all(&dir).unwrap();
    let f = write_file(&dir, "pingpong.json", PINGPONG);
    let workload = format!("rtapp:{f}");
    let flags = [
        "--workload",
        &workload,
        "--topology",
        "1x1x4x1",
        "--iterations",
        "1",
        "--duration-ms",
        "200",
        "--kernel",
        "v6.6",
    ];
    let out = schedsim(&[&["run"][..], &flags].concat());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("rt-app work (CPUs busy"), "{stdout}");
    // One thread runs at a time: a CPU's worth.
    assert!(stdout.contains("Hmean     1          1.00"), "{stdout}");
    for note in ["pingpong.json: global.duration = 2 s", "pingpong.json: tasks.thread0.priority = -5"] {
        assert!(stderr.contains(note), "{note}: {stderr}");
    }
    // The experiment carries the file's text: shown, then run, it gives the same table.
    let (shown, _) = run_ok(&[&["show"][..], &flags].concat());
    assert!(shown.contains("\"kind\": \"rtapp\"") && shown.contains("tutorial example 4"), "{shown}");
    let e = write_file(&dir, "e.json", &shown);
    assert_eq!(run_ok(&["run", &e]).0, stdout);
}

#[test]
fn a_bad_rt_app_file_is_refused_naming_the_key() {
    let dir = tmp("rtapp", "bad");
    std::fs::create_dir_all(&dir).unwrap();
    for (body, says) in [
        (r#"{"tasks":{"t":{"run":10,"mem":100}}}"#, "t.json: tasks.t.mem: not modelled"),
        (r#"{"tasks":{"t":{"run":10}"#, "not JSON"),
    ] {
        let f = write_file(&dir, "t.json", body);
        let out =
            schedsim(&["run", "--workload", &format!("rtapp:{f}"), "--topology", "1x1x2x1", "--duration-ms", "10"]);
        assert_eq!(out.status.code(), Some(2), "{body}");
        assert!(text(&out.stderr).contains(says), "{says}: {}", text(&out.stderr));
    }
    let out = schedsim(&["run", "--workload", "rtapp:/nonexistent/x.json", "--topology", "1x1x2x1"]);
    assert!(text(&out.stderr).contains("/nonexistent/x.json: cannot read: no such file"), "{}", text(&out.stderr));
    let big = write_file(&dir, "big.json", &" ".repeat((1 << 20) + 1));
    let out = schedsim(&["run", "--workload", &format!("rtapp:{big}"), "--topology", "1x1x2x1"]);
    assert!(text(&out.stderr).contains("larger than 1024 KiB"), "{}", text(&out.stderr));
}
