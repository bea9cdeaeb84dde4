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

/// `show --as rtapp`: tbench and pipe pairs, an rt-app file and a replayed trace as rt-app
/// files that this reader reads back and, where rt-app is installed (scripts/test.sh
/// installs Debian's), the real rt-app runs for a second.
#[test]
fn show_as_rtapp_writes_what_the_real_rt_app_runs() {
    let dir = tmp("rtapp", "out");
    std::fs::create_dir_all(&dir).unwrap();
    let own = write_file(&dir, "pingpong.json", PINGPONG);
    let traces = format!("{}/../../traces", env!("CARGO_MANIFEST_DIR"));
    let trace = format!("{traces}/make.perf.txt.gz");
    let rt_app = std::process::Command::new("rt-app").output().is_ok();
    if !rt_app {
        eprintln!("SKIPPED running the real rt-app: not installed (apt-get install rt-app)");
    }
    for (name, what) in [
        ("pipe", vec!["--workload", "pipe", "--clients", "2"]),
        ("tbench", vec!["--workload", "tbench", "--clients", "1"]),
        ("own", vec!["--workload", own.as_str()]),
        ("replay", vec!["--replay", trace.as_str()]),
    ] {
        let what: Vec<String> =
            what.iter().map(|a| if *a == own { format!("rtapp:{own}") } else { a.to_string() }).collect();
        let what: Vec<&str> = what.iter().map(String::as_str).collect();
        let (json, notes) =
            run_ok(&[&["show", "--machine", "kvm-2", "--duration-ms", "1000", "--as", "rtapp"][..], &what].concat());
        assert!(name == "own" || notes.contains("schedsim: "), "{name}: says what it loses: {notes}");
        let p = schedsim::workload::RtappParams::new("out.json", &json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(p.threads() >= 2, "{name}");
        if rt_app {
            let f = write_file(&dir, &format!("{name}.json"), &json);
            let out = std::process::Command::new("timeout")
                .args(["-k", "2", "8", "rt-app", &f])
                .current_dir(&dir)
                .output()
                .unwrap();
            // rt-app 1.0 may not end a run whose threads wait on each other when its
            // duration is up (it joins threads still blocked in pthread_cond_wait, and
            // its SIGTERM handler does the same; killed, its buffered notices are lost):
            // it read the file if it said no error (rt-app's parse errors go to stderr
            // at once, and it then waits out its duration) and went on to calibrate.
            let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert!(!said.contains("<error>") && !said.contains("<crit>"), "{name}: rt-app: {said}");
            assert!(said.contains("Calibrate ns per loop"), "{name}: rt-app: {said}");
        }
    }
    // A trace too long for an rt-app file is refused, saying what to do.
    let out = schedsim(&[
        "show",
        "--machine",
        "kvm-2",
        "--replay",
        &format!("{traces}/quiet/pipe.perf.txt.gz"),
        "--as",
        "rtapp",
    ]);
    assert!(text(&out.stderr).contains("more than the 1048576 an rt-app file may be"), "{}", text(&out.stderr));
    let out = schedsim(&["show", "--machine", "kvm-2", "--workload", "hackbench", "--as", "rtapp"]);
    assert!(text(&out.stderr).contains("the hackbench model has no rt-app form"), "{}", text(&out.stderr));
    let out = schedsim(&["show", "--machine", "kvm-2", "--as", "yaml"]);
    assert!(text(&out.stderr).contains("--as: \"yaml\" is not a format"), "{}", text(&out.stderr));
}

/// `rtapp:NAME` runs one of our examples (`workloads/rtapp/NAME.json`), `presets` lists
/// each with what it shows, and `--help` names each; a file of that name wins.
#[test]
fn our_rt_app_examples_run_by_name() {
    let (listed, _) = run_ok(&["presets"]);
    let (help, _) = run_ok(&["run", "--help"]);
    for name in ["pingpong", "chain", "periodic", "convoy", "barrier"] {
        assert!(listed.contains(&format!("--workload rtapp:{name}: ")), "{name}: {listed}");
        assert!(help.contains(name), "{name} in run --help");
        let (shown, _) = run_ok(&["show", "--workload", &format!("rtapp:{name}"), "--topology", "1x1x4x1"]);
        let file = std::fs::read_to_string(format!("{}/../../workloads/rtapp/{name}.json", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
        let j: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(j["workload"]["file"], format!("{name}.json"));
        assert_eq!(j["workload"]["json"], file.as_str(), "{name}: the experiment carries the file as it is");
    }
    // A file called like an example is the file.
    let dir = tmp("rtapp", "preset-file");
    std::fs::create_dir_all(&dir).unwrap();
    write_file(&dir, "chain", PINGPONG);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .current_dir(&dir)
        .args(["show", "--workload", "rtapp:chain", "--topology", "1x1x4x1"])
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains("tutorial example 4"), "{}", text(&out.stderr));
    let out = schedsim(&["run", "--workload", "rtapp:nosuch", "--topology", "1x1x4x1"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("nosuch"), "{}", text(&out.stderr));
}
