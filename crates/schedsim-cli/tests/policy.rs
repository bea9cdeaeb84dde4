//! `--kernel NAME=VERSION+policy:FILE`: a kernel column placed by a Rhai script, the
//! experiment JSON carrying its text, `show --scripts` printing it, and a bad script
//! refused with exit 2 and one line naming its line.

mod common;
use common::{run_ok, schedsim, small_run, text, write_file};

fn with(extra: &[String]) -> Vec<String> {
    small_run("2", "1", &[]).into_iter().map(String::from).chain(extra.iter().cloned()).collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_script_file_places_a_kernel_column_and_travels_in_the_experiment() {
    let dir = common::tmp("schedsim-cli-policy", "file");
    std::fs::create_dir_all(&dir).unwrap();
    let script = "// always prev\nfn select_task_rq_fair(p, prev_cpu, wake_flags) {\n    prev_cpu\n}\n";
    let path = write_file(&dir, "prev.rhai", script);
    let a = with(&["--kernel".into(), "k=v5.15".into(), "--kernel".into(), format!("mine=v5.15+policy:{path}")]);
    let (out, _) = run_ok(&args(&a));
    assert!(out.contains("mine"), "{out}");
    // The JSON report's experiment carries the script's text; a rerun from it agrees.
    let mut j = a.clone();
    j.push("--json".into());
    let (json, _) = run_ok(&args(&j));
    assert!(json.contains("\"policy\": \"// always prev\\nfn select_task_rq_fair"), "{json}");
    let mut show = args(&a);
    show[0] = "show";
    let (exp, _) = run_ok(&show);
    assert!(exp.contains("\"policy\""), "{exp}");
    let exp_path = write_file(&dir, "exp.json", &exp);
    let (again, _) = run_ok(&["run", &exp_path, "--json", "--no-progress"]);
    let strip = |s: &str| s.lines().filter(|l| !l.contains("\"generator\"")).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&again), strip(&json));
    let (scripts, _) = run_ok(&["show", &exp_path, "--scripts"]);
    assert_eq!(scripts, format!("// kernel mine (v5.15+policy)\n{script}\n"));
}

#[test]
fn a_template_is_named_and_the_templates_are_listed() {
    let a = with(&["--kernel".into(), "scx=v5.15+policy:template:scx-default".into()]);
    run_ok(&args(&a));
    let (presets, _) = run_ok(&["presets"]);
    for t in schedsim::policy::TEMPLATES {
        assert!(presets.contains(t.0), "{}", t.0);
    }
    let out = schedsim(&args(&with(&["--kernel".into(), "x=v5.15+policy:template:nope".into()])));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no policy template \"nope\""), "{}", text(&out.stderr));
}

#[test]
fn a_bad_script_is_refused_with_its_line_and_a_failing_one_fails_the_run() {
    let dir = common::tmp("schedsim-cli-policy", "bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = write_file(&dir, "bad.rhai", "fn select_idle_sibling(p, prev, target) {\n  let = 3;\n}\n");
    let out = schedsim(&args(&with(&["--kernel".into(), format!("mine=v5.15+policy:{bad}")])));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("line 2:"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!err.contains("panick"), "{err}");
    // Compiles, but answers a CPU past the machine: the run fails with one line.
    let wrong = write_file(&dir, "wrong.rhai", "fn select_idle_sibling(p, prev, target) {\n  target + 100\n}\n");
    let out = schedsim(&args(&with(&["--kernel".into(), format!("mine=v5.15+policy:{wrong}")])));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("line 1:1: select_idle_sibling returned CPU 10"), "{err}");
    assert!(!err.contains("panick"), "{err}");
    let out = schedsim(&args(&with(&["--kernel".into(), "mine=v5.15+policy:/nonexistent.rhai".into()])));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read /nonexistent.rhai"));
}
