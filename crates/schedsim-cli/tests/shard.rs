//! `run --shard M/N` and `merge`: the merged parts are the bytes `run` prints, every
//! refusal of `merge` names what to fix, an interrupted shard resumes, and `--shard
//! auto` reads Slurm's and Kubernetes' variables.

mod common;
use common::{run_ok, schedsim, small_run, text, SMALL_MACHINE, TWO_KERNELS};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

/// 2 kernels x 3 client counts x 3 iterations: 18 runs of a few ms each.
static SWEEP: LazyLock<Vec<&str>> = LazyLock::new(|| small_run("1,2,4", "3", TWO_KERNELS));

/// The variables `--shard auto` reads, removed from every command that is not about
/// them (the tests may run inside a Slurm job).
const AUTO_VARS: &[&str] = &[
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
    "SCHEDSIM_SHARD_COUNT",
];

fn dir(name: &str) -> PathBuf {
    let d = common::tmp("schedsim-shard", name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(extra).copied().collect()
}

fn command(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_schedsim"));
    c.args(args);
    for v in AUTO_VARS {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the schedsim binary runs")
}

/// Writes shard `m`/`n` of `SWEEP` (plus `extra`) to `d/part-m.jsonl`, one thread, so
/// the part's bytes are the same every time.
fn part(d: &Path, m: u32, n: u32, extra: &[&str]) -> String {
    let out = d.join(format!("part-{m}.jsonl")).to_str().unwrap().to_string();
    let shard = format!("{m}/{n}");
    let args = with(&with(&SWEEP, &["--shard", &shard, "--out", &out, "--jobs", "1"]), extra);
    let o = command(&args, &[]);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
    out
}

fn parts(d: &Path, n: u32) -> Vec<String> {
    (1..=n).map(|m| part(d, m, n, &[])).collect()
}

/// `merge` of `files` with `extra`: (exit code, stdout, stderr).
fn merge(files: &[String], extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    args.extend(extra);
    let o = command(&args, &[]);
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

fn merge_err(files: &[String]) -> String {
    let (code, out, err) = merge(files, &[]);
    assert_eq!(code, Some(2), "merge {files:?} should be refused; it printed {out}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(String::from).collect()
}

fn write_lines(path: &str, lines: &[String]) {
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

#[test]
fn merge_is_byte_identical_to_run_for_1_3_and_7_shards() {
    let formats: &[&[&str]] = &[&[], &["--json"], &["--csv"], &["--counters-csv"]];
    let whole: Vec<String> = formats.iter().map(|f| run_ok(&with(&SWEEP, f)).0).collect();
    for n in [1, 3, 7] {
        let d = dir(&format!("identity-{n}"));
        let mut files = parts(&d, n);
        // Any order of the parts.
        files.reverse();
        for (f, want) in formats.iter().zip(&whole) {
            let (code, got, err) = merge(&files, f);
            assert_eq!(code, Some(0), "{err}");
            assert!(got == *want, "merge of {n} parts {f:?} differs from run:\n{got}\n---\n{want}");
        }
    }
}

#[test]
fn merge_writes_the_same_mmtests_logs_and_out_file() {
    let d = dir("mmtests");
    let files = parts(&d, 3);
    let (a, b) = (d.join("run-logs"), d.join("merge-logs"));
    let (out_run, out_merge) = (d.join("run.txt"), d.join("merge.txt"));
    run_ok(&with(&SWEEP, &["--mmtests-dir", a.to_str().unwrap(), "--out", out_run.to_str().unwrap()]));
    let (code, _, err) = merge(&files, &["--mmtests-dir", b.to_str().unwrap(), "--out", out_merge.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(&out_run).unwrap(), std::fs::read(&out_merge).unwrap());
    let (from_run, from_merge) = (common::files_under(&a), common::files_under(&b));
    assert!(
        from_run.iter().any(|f| f.0.ends_with("base/iter-2/tbench/logs/benchlog-tput-4.xz")),
        "{:?}",
        from_run.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(from_run == from_merge, "merge's mmtests directory differs from run's");
}

#[test]
fn a_part_is_json_lines_with_a_header_and_keys() {
    let d = dir("format");
    let f = part(&d, 2, 3, &[]);
    let l = lines(&f);
    let h: serde_json::Value = serde_json::from_str(&l[0]).unwrap();
    assert_eq!(h["schedsim_part"], 2);
    assert_eq!(h["generator"], format!("schedsim {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(h["model_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(h["shard"], "2/3");
    assert_eq!(h["experiment_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(h["experiment"]["clients"], serde_json::json!([1, 2, 4]));
    // 18 runs dealt over 3 shards: 6 each.
    assert_eq!(l.len(), 1 + 6);
    for line in &l[1..] {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let key = v["key"].as_str().unwrap();
        assert!(key.starts_with("base/") || key.starts_with("patched/"), "{key}");
        assert!(v["result"]["counters"].is_object());
        assert_eq!(v["sha256"].as_str().unwrap().len(), 64);
    }
}

/// A run line `line` of a part whose header is `header`, its result's text changed by
/// `edit` and its digest made again as the writer makes it: what a different result of
/// the same run (another build's) looks like.
fn resealed(header: &str, line: &str, edit: &dyn Fn(&str) -> String) -> String {
    let h: serde_json::Value = serde_json::from_str(header).unwrap();
    let exp = h["experiment_sha256"].as_str().unwrap();
    let (head, rest) = line.split_once("\"result\":").unwrap();
    let (result, _) = rest.rsplit_once(",\"sha256\":").unwrap();
    let result = edit(result);
    let digest = schedsim::sched_trace::sha256_hex(format!("{exp}\n{result}").as_bytes());
    format!("{head}\"result\":{result},\"sha256\":\"{digest}\"}}")
}

/// An edit of a result's text, and what `merge` says of it.
type Reseal<'a> = (&'a dyn Fn(&str) -> String, &'a str);

/// The result's `"field":N` made `"field":M` in a line's text.
fn with_number(text: &str, field: &str, f: &dyn Fn(u64) -> u64) -> String {
    let key = format!("\"{field}\":");
    let at = text.find(&key).unwrap_or_else(|| panic!("no {field} in {text}")) + key.len();
    let end = at + text[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let n: u64 = text[at..end].parse().unwrap();
    format!("{}{}{}", &text[..at], f(n), &text[end..])
}

#[test]
fn merge_refuses_parts_of_different_experiments_naming_both() {
    let (d1, d2) = (dir("exp-a"), dir("exp-b"));
    let a = part(&d1, 1, 2, &[]);
    let b = part(&d2, 2, 2, &["--seed", "2"]);
    let e = merge_err(&[a.clone(), b.clone()]);
    assert!(e.contains("different experiments") && e.contains(&a) && e.contains(&b), "{e}");
}

#[test]
fn merge_refuses_a_missing_run_naming_it_and_its_shard() {
    let d = dir("missing");
    let files = parts(&d, 3);
    let e = merge_err(&files[..2]);
    assert!(e.contains("missing run") && e.contains("shard 3/3") && e.contains("no part of shard 3/3"), "{e}");
    assert!(e.contains("6 runs are missing"), "{e}");
    // A part that lacks one of its runs: that run, and that part, named.
    let mut l = lines(&files[1]);
    let gone: serde_json::Value = serde_json::from_str(&l.remove(3)).unwrap();
    write_lines(&files[1], &l);
    let e = merge_err(&files);
    let key = gone["key"].as_str().unwrap();
    assert!(e.contains(&format!("missing run {key} ")) && e.contains("shard 2/3"), "{e}");
    assert!(e.contains(&format!("its part {} lacks it", files[1])), "{e}");
}

#[test]
fn merge_takes_duplicates_that_agree_and_refuses_ones_that_differ() {
    let d = dir("dup");
    let files = parts(&d, 3);
    let want = run_ok(&SWEEP).0;
    let again = d.join("part-1-again.jsonl").to_str().unwrap().to_string();
    std::fs::copy(&files[0], &again).unwrap();
    let mut with_dup = files.clone();
    with_dup.push(again.clone());
    let (code, got, err) = merge(&with_dup, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(got, want);
    // The rerun gave another result for one run.
    let mut l = lines(&again);
    l[2] = resealed(&l[0], &l[2], &|r| with_number(r, "elapsed_ns", &|e| e + 1));
    write_lines(&again, &l);
    let e = merge_err(&with_dup);
    assert!(e.contains("two different results"), "{e}");
    assert!(e.contains(&format!("{} line 3", files[0])) && e.contains(&format!("{again} line 3")), "{e}");
}

#[test]
fn merge_refuses_a_truncated_or_malformed_part_naming_file_and_line() {
    let d = dir("bad");
    let files = parts(&d, 2);
    let n = lines(&files[1]).len();
    // Cut short: the last line loses its end.
    let bytes = std::fs::read(&files[1]).unwrap();
    std::fs::write(&files[1], &bytes[..bytes.len() - 20]).unwrap();
    let e = merge_err(&files);
    assert!(e.contains(&format!("{} line {n}", files[1])) && e.contains("cut short"), "{e}");
    std::fs::write(&files[1], &bytes).unwrap();
    // Garbage in the middle.
    let mut l = lines(&files[1]);
    l[2] = "{\"key\": \"base/1/0\", \"result\": {".into();
    write_lines(&files[1], &l);
    let e = merge_err(&files);
    assert!(e.contains(&format!("{} line 3", files[1])), "{e}");
    // Not a part at all, and an empty file.
    let junk = d.join("junk.jsonl").to_str().unwrap().to_string();
    std::fs::write(&junk, "hello\n").unwrap();
    assert!(merge_err(std::slice::from_ref(&junk)).contains(&format!("{junk} line 1")));
    std::fs::write(&junk, "").unwrap();
    assert!(merge_err(std::slice::from_ref(&junk)).contains("empty"));
    std::fs::write(&junk, [0xff, 0xfe, b'\n']).unwrap();
    assert!(merge_err(std::slice::from_ref(&junk)).contains("does not start with a JSON object"));
    std::fs::write(&junk, [b'{', 0xff, 0xfe, b'\n']).unwrap();
    assert!(merge_err(std::slice::from_ref(&junk)).contains("not UTF-8"));
    // An edited experiment no longer matches its SHA-256.
    std::fs::write(&files[1], &bytes).unwrap();
    let first = std::fs::read(&files[0]).unwrap();
    let mut l = lines(&files[0]);
    l[0] = l[0].replacen("\"seed\":1", "\"seed\":3", 1);
    write_lines(&files[0], &l);
    let e = merge_err(&files);
    assert!(e.contains(&format!("{} line 1", files[0])) && e.contains("SHA-256"), "{e}");
    // A part of another build.
    std::fs::write(&files[0], &first).unwrap();
    let mut l = lines(&files[1]);
    let h = l[0].clone();
    l[0] = l[0].replacen(
        &format!("\"generator\":\"schedsim {}\"", env!("CARGO_PKG_VERSION")),
        "\"generator\":\"schedsim 0.0.1\"",
        1,
    );
    assert_ne!(l[0], h);
    write_lines(&files[1], &l);
    let e = merge_err(&files);
    assert!(e.contains("different builds") && e.contains("schedsim 0.0.1"), "{e}");
    // A part of another model with the same version (what 'schedsim 0.1.0' hid for 522
    // commits).
    std::fs::write(&files[1], &bytes).unwrap();
    let mut l = lines(&files[1]);
    let h: serde_json::Value = serde_json::from_str(&l[0]).unwrap();
    let model = h["model_sha256"].as_str().unwrap();
    l[0] = l[0].replacen(model, &"0".repeat(64), 1);
    write_lines(&files[1], &l);
    let e = merge_err(&files);
    assert!(e.contains("different builds") && e.contains("model 000000000000"), "{e}");
    // A run edited by hand: its sample x10 (the table then showed -44.99% for -0.02%).
    std::fs::write(&files[1], &bytes).unwrap();
    let mut l = lines(&files[1]);
    l[2] = with_number(&l[2], "sample_bits", &|b| (f64::from_bits(b) * 10.0).to_bits());
    write_lines(&files[1], &l);
    let e = merge_err(&files);
    assert!(e.contains(&format!("{} line 3", files[1])) && e.contains("was edited"), "{e}");
    // Values no run gives, even resealed: a NaN sample, migrations that are not the sum
    // of their distances, and a counter whose sum over the iterations wraps.
    let nan = f64::NAN.to_bits();
    let cases: [Reseal; 3] = [
        (&|r| with_number(r, "sample_bits", &|_| nan), "its sample is NaN"),
        (&|r| with_number(r, "migrations_smt", &|m| m + 1), "its counters disagree"),
        (&|r| with_number(r, "wakeups", &|_| u64::MAX), "its counters.wakeups passes 2^64 - 1"),
    ];
    for (edit, says) in cases {
        let mut l: Vec<String> = std::str::from_utf8(&bytes).unwrap().lines().map(String::from).collect();
        l[2] = resealed(&l[0], &l[2], edit);
        write_lines(&files[1], &l);
        let e = merge_err(&files);
        assert!(e.contains(" line ") && e.contains(says), "{says}: {e}");
    }
    std::fs::write(&files[1], &bytes).unwrap();
    // A run line moved into a part of another shard.
    std::fs::write(&files[0], first).unwrap();
    let mut l = lines(&files[1]);
    l.push(lines(&part(&dir("bad-other"), 1, 2, &[]))[1].clone());
    write_lines(&files[1], &l);
    let e = merge_err(&files);
    assert!(e.contains(&format!("{} line {}", files[1], l.len())) && e.contains("belongs to shard 1/2"), "{e}");
}

#[test]
fn merge_refuses_no_parts_and_two_formats() {
    let (code, _, err) = merge(&[], &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("give the parts"), "{err}");
    let (code, _, err) = merge(&["x".into()], &["--json", "--csv"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("choose one of"), "{err}");
}

#[test]
fn an_interrupted_shard_is_completed_by_a_rerun() {
    let d = dir("resume");
    let whole = part(&d, 2, 3, &[]);
    let want = std::fs::read(&whole).unwrap();
    let cut = d.join("part-cut.jsonl").to_str().unwrap().to_string();
    // Two runs finished and the third was being written when the shard was killed.
    let l = lines(&whole);
    let mut partial: String = l[..3].iter().map(|x| format!("{x}\n")).collect();
    partial.push_str(&l[3][..l[3].len() / 2]);
    std::fs::write(&cut, partial).unwrap();
    let o = command(&with(&SWEEP, &["--shard", "2/3", "--out", &cut, "--jobs", "1"]), &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("line 4 was cut short") && err.contains("2 of its 6 runs are in the part, 4 to run"), "{err}");
    assert_eq!(std::fs::read(&cut).unwrap(), want);
    // Complete: a rerun runs nothing and leaves the part as it is.
    let o = command(&with(&SWEEP, &["--shard", "2/3", "--out", &cut, "--jobs", "1"]), &[]);
    assert!(text(&o.stderr).contains("6 of its 6 runs are in the part, 0 to run"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(&cut).unwrap(), want);
    // Only the header made it: the part is written afresh.
    std::fs::write(&cut, format!("{}\n", l[0])).unwrap();
    assert_eq!(command(&with(&SWEEP, &["--shard", "2/3", "--out", &cut, "--jobs", "1"]), &[]).status.code(), Some(0));
    assert_eq!(std::fs::read(&cut).unwrap(), want);
    // Only part of the header made it: the part is written afresh.
    std::fs::write(&cut, &l[0][..l[0].len() / 2]).unwrap();
    assert_eq!(command(&with(&SWEEP, &["--shard", "2/3", "--out", &cut, "--jobs", "1"]), &[]).status.code(), Some(0));
    assert_eq!(std::fs::read(&cut).unwrap(), want);
    // A file of one line without a newline that is no part is refused as one with a
    // newline is (issue 42: it was overwritten).
    let notes = d.join("notes.txt").to_str().unwrap().to_string();
    std::fs::write(&notes, "my notes").unwrap();
    let o = command(&with(&SWEEP, &["--shard", "2/3", "--out", &notes]), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("is not a part this shard can resume: it holds no whole line"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
    // Another shard's or another experiment's part is not resumed into.
    let o = command(&with(&SWEEP, &["--shard", "1/3", "--out", &cut]), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("holds shard 2/3"), "{}", text(&o.stderr));
    let o = command(&with(&SWEEP, &["--shard", "2/3", "--out", &cut, "--seed", "9"]), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("another experiment"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(&cut).unwrap(), want);
}

/// The variables set, extra arguments, and what stderr says.
type AutoCase<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], &'a str);

#[test]
fn shard_auto_reads_slurm_and_kubernetes_variables() {
    let d = dir("auto");
    let want = std::fs::read(part(&d, 2, 3, &[])).unwrap();
    let out = d.join("auto.jsonl").to_str().unwrap().to_string();
    let cases: &[AutoCase] = &[
        // sbatch --array=1-3
        (
            &[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_COUNT", "3")],
            &[],
            "from Slurm",
        ),
        // sbatch --array=0-2
        (
            &[("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_MIN", "0"), ("SLURM_ARRAY_TASK_COUNT", "3")],
            &[],
            "from Slurm",
        ),
        (&[("JOB_COMPLETION_INDEX", "1"), ("SCHEDSIM_SHARD_COUNT", "3")], &[], "from Kubernetes"),
        (&[("JOB_COMPLETION_INDEX", "1")], &["--shard-count", "3"], "from Kubernetes"),
    ];
    for (env, extra, from) in cases {
        let _ = std::fs::remove_file(&out);
        let args = with(&with(&SWEEP, &["--shard", "auto", "--out", &out, "--jobs", "1"]), extra);
        let o = command(&args, env);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{env:?}: {err}");
        assert!(err.contains(&format!("shard 2/3 {from}")), "{env:?}: {err}");
        assert_eq!(std::fs::read(&out).unwrap(), want, "{env:?}");
    }
    let refused: &[AutoCase] = &[
        (&[], &[], "neither SLURM_ARRAY_TASK_ID"),
        (&[("JOB_COMPLETION_INDEX", "1")], &[], "SCHEDSIM_SHARD_COUNT"),
        (&[("JOB_COMPLETION_INDEX", "3"), ("SCHEDSIM_SHARD_COUNT", "3")], &[], "not below the shard count 3"),
        (
            &[("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_COUNT", "3")],
            &[],
            "not among",
        ),
        (&[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "3")], &[], "SLURM_ARRAY_TASK_MIN is not set"),
        (&[("SLURM_ARRAY_TASK_ID", "x"), ("SLURM_ARRAY_TASK_COUNT", "3")], &[], "not a whole number"),
        (
            &[("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_COUNT", "3")],
            &["--shard-count", "4"],
            "contradicts",
        ),
    ];
    for (env, extra, says) in refused {
        let args = with(&with(&SWEEP, &["--shard", "auto", "--out", &out]), extra);
        let o = command(&args, env);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{env:?}: {err}");
        assert!(err.contains(says), "{env:?}: {err}");
    }
}

#[test]
fn shard_refuses_bad_specs_and_report_formats() {
    for (extra, says) in [
        (&["--shard", "0/3"][..], "count from 1"),
        (&["--shard", "4/3"], "from 1 to N"),
        (&["--shard", "two"], "not M/N"),
        (&["--shard", "1/3", "--json"], "drop --json"),
        (&["--shard", "1/3", "--mmtests-dir", "x"], "drop --mmtests-dir"),
        (&["--shard", "1/3", "--shard-count", "3"], "only with --shard auto"),
        (&["--shard-count", "3"], "only with --shard auto"),
    ] {
        let o = schedsim(&with(&SWEEP, extra));
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(text(&o.stderr).contains(says), "{extra:?}: {}", text(&o.stderr));
    }
}

/// `docs/cluster/`, where the job files are.
fn cluster_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cluster")
}

/// The sweep as an experiment file, as the job files take it.
fn experiment_file(name: &str) -> PathBuf {
    let exp = dir(name).join("exp.json");
    let show: Vec<&str> = std::iter::once("show").chain(SWEEP[1..].iter().copied()).collect();
    std::fs::write(&exp, run_ok(&show).0).unwrap();
    exp
}

/// `docs/cluster/parallel.sh` under GNU parallel (Debian's `parallel`), N = 1, 3, 7:
/// its merge is `run`'s bytes. Skipped, saying so, when `parallel` is not installed.
#[test]
fn gnu_parallel_script_end_to_end() {
    if Command::new("parallel").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!("SKIPPED gnu_parallel_script_end_to_end: GNU parallel is not installed (apt-get install parallel)");
        return;
    }
    let want = run_ok(&with(&SWEEP, &["--json"])).0;
    let exp = experiment_file("parallel-exp");
    for n in [1, 3, 7] {
        let d = dir(&format!("parallel-{n}"));
        let o = Command::new("sh")
            .arg(cluster_dir().join("parallel.sh"))
            .args([exp.to_str().unwrap(), &n.to_string(), d.to_str().unwrap(), "--json"])
            .env("SCHEDSIM", env!("CARGO_BIN_EXE_schedsim"))
            .output()
            .unwrap();
        assert!(o.status.success(), "parallel.sh with {n} shards: {}", text(&o.stderr));
        assert!(text(&o.stdout) == want, "parallel.sh with {n} shards: merge differs from run");
    }
}

/// `docs/cluster/slurm.sbatch` as each task of `sbatch --array=1-3` runs it (the
/// variables Slurm sets), then the merge: `run`'s bytes.
#[test]
fn slurm_script_with_array_variables() {
    let want = run_ok(&SWEEP).0;
    let exp = experiment_file("slurm-exp");
    let d = dir("slurm");
    for id in 1..=3 {
        let id = id.to_string();
        let mut c = Command::new("bash");
        c.arg(cluster_dir().join("slurm.sbatch")).args([exp.to_str().unwrap(), d.to_str().unwrap()]);
        for v in AUTO_VARS {
            c.env_remove(v);
        }
        let o = c
            .env("SCHEDSIM", env!("CARGO_BIN_EXE_schedsim"))
            .env("SLURM_ARRAY_TASK_ID", &id)
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_MAX", "3")
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("SLURM_CPUS_PER_TASK", "1")
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert!(o.status.success(), "task {id}: {err}");
        assert!(err.contains(&format!("shard {id}/3 from Slurm")), "{err}");
    }
    let files: Vec<String> = (1..=3).map(|m| d.join(format!("part-{m}.jsonl")).to_str().unwrap().into()).collect();
    let (code, got, err) = merge(&files, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(got, want);
}

/// A shard killed by SIGTERM (a batch system's time limit) keeps the runs it finished,
/// each a whole line, and a rerun with the same `--out` writes the part an
/// uninterrupted shard writes.
#[test]
fn a_shard_killed_by_sigterm_keeps_its_runs_and_resumes() {
    // 20 runs of about 0.1 s each, so that the kill lands mid-shard.
    let slow: Vec<&str> = with(
        SMALL_MACHINE,
        &["--clients", "2", "--iterations", "20", "--duration-ms", "200", "--kernel", "base=v4.15"],
    );
    let d = dir("sigterm");
    let (whole, killed) = (d.join("whole.jsonl"), d.join("killed.jsonl"));
    let (w, k) = (whole.to_str().unwrap().to_string(), killed.to_str().unwrap().to_string());
    let args = |out: &'static str| with(&slow, &["--shard", "1/1", "--jobs", "1", "--no-progress", "--out", out]);
    assert_eq!(command(&args(leak(&w)), &[]).status.code(), Some(0));
    let want = std::fs::read(&whole).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedsim")).args(args(leak(&k))).spawn().unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&killed).map(|t| t.lines().count()).unwrap_or(0) < 4
        && start.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let status = child.wait().unwrap();
    let kept = std::fs::read(&killed).unwrap();
    // Whatever it had finished is a prefix of the whole part (killed mid-write, a line
    // may be cut short: the rerun drops it).
    assert!(want.starts_with(&kept), "the killed part is not a prefix of the whole one");
    let lines_of = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
    eprintln!("killed ({status}) with {} of {} lines", lines_of(&kept), lines_of(&want));
    let o = command(&args(leak(&k)), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(&killed).unwrap(), want);
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// `docs/cluster/slurm.sbatch` under a real Slurm, as docs/cluster/README.md submits it
/// (`sbatch --array=1-N`, then the merge as a job depending on the array), N = 1, 3, 7:
/// `run`'s bytes. Runs only where `sinfo` reaches a controller with an idle node
/// (`scripts/test-slurm.sh` starts a single-node one and sets `SCHEDSIM_SLURM_REQUIRED`,
/// which makes a missing node a failure); skipped, saying so, elsewhere.
#[test]
fn slurm_array_end_to_end() {
    let idle = Command::new("sinfo")
        .args(["-h", "-t", "idle", "-o", "%n"])
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    if !idle {
        assert!(
            std::env::var_os("SCHEDSIM_SLURM_REQUIRED").is_none(),
            "SCHEDSIM_SLURM_REQUIRED is set but sinfo finds no idle node"
        );
        eprintln!("SKIPPED slurm_array_end_to_end: no Slurm controller with an idle node (sinfo)");
        return;
    }
    let want = run_ok(&SWEEP).0;
    let exp = experiment_file("slurm-real-exp");
    let bin = env!("CARGO_BIN_EXE_schedsim");
    for n in [1, 3, 7] {
        let start = std::time::Instant::now();
        let d = dir(&format!("slurm-real-{n}"));
        let parts = d.join("parts");
        let array = sbatch(
            &d,
            Command::new("sbatch")
                .args(["--parsable", "--export=ALL", &format!("--array=1-{n}")])
                .arg(cluster_dir().join("slurm.sbatch"))
                .args([exp.to_str().unwrap(), parts.to_str().unwrap()])
                .env("SCHEDSIM", bin),
        );
        let report = d.join("report.txt");
        let merge = format!("{bin} merge {}/part-*.jsonl --out {}", parts.display(), report.display());
        let job = sbatch(
            &d,
            Command::new("sbatch").args(["--parsable", &format!("--dependency=afterok:{array}"), "--wrap", &merge]),
        );
        if let Err(e) = wait_for_job(&job) {
            let _ = Command::new("scancel").args([&array, &job]).status();
            let outs: Vec<String> = std::fs::read_dir(&d)
                .unwrap()
                .flatten()
                .filter(|f| f.file_name().to_string_lossy().ends_with(".out"))
                .map(|f| format!("{}: {}", f.path().display(), std::fs::read_to_string(f.path()).unwrap_or_default()))
                .collect();
            panic!("Slurm with {n} tasks: the merge job {job} {e}\n{}", outs.join("\n"));
        }
        assert!(std::fs::read_to_string(&report).unwrap() == want, "Slurm with {n} tasks: merge differs from run");
        eprintln!("Slurm array of {n} tasks and its merge: {:.1} s", start.elapsed().as_secs_f64());
    }
}

/// Submits `c` (an `sbatch --parsable`) from `d`; returns the job id.
fn sbatch(d: &Path, c: &mut Command) -> String {
    let o = c.current_dir(d).output().expect("sbatch runs");
    assert!(o.status.success(), "{c:?}: {}", text(&o.stderr));
    text(&o.stdout).trim().to_string()
}

/// Polls `scontrol show job` every 0.2 s (sbatch --wait polls at 2, 10 then 42 s) until
/// the job completes; an error names the state it ended in, a dependency that can no
/// longer be met (a task of the array failed), or 5 minutes gone by.
fn wait_for_job(job: &str) -> Result<(), String> {
    let start = std::time::Instant::now();
    loop {
        let o = Command::new("scontrol").args(["-o", "show", "job", job]).output().expect("scontrol runs");
        let line = text(&o.stdout);
        let field = |k: &str| {
            line.split_whitespace().find_map(|w| w.strip_prefix(k).and_then(|w| w.strip_prefix('='))).unwrap_or("")
        };
        match (field("JobState"), field("Reason")) {
            ("COMPLETED", _) => return Ok(()),
            (_, "DependencyNeverSatisfied") => return Err("waits on a dependency never satisfied".into()),
            ("PENDING" | "CONFIGURING" | "RUNNING" | "COMPLETING", _) => {}
            (state, _) => return Err(format!("ended {state:?}: {line}{}", text(&o.stderr))),
        }
        if start.elapsed() > std::time::Duration::from_secs(300) {
            return Err(format!("has not completed in 5 minutes: {line}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// `merge` of what is not a part file, under a 2 GB address-space limit (`ulimit -v`):
/// one line, exit 2, whatever the file. `/dev/zero` grew to 12 GB (the part limit was
/// checked for regular files only, and after a whole line was read).
fn merge_limited(shell: &str) -> (Option<i32>, String) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v 2000000; {shell}"))
        .env("SCHEDSIM", env!("CARGO_BIN_EXE_schedsim"))
        .output()
        .expect("sh runs");
    (o.status.code(), text(&o.stderr))
}

#[test]
fn merge_refuses_a_device_a_symlink_to_it_and_an_endless_line_in_one_line() {
    let d = dir("devices");
    let link = d.join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    for what in ["/dev/zero", link.to_str().unwrap()] {
        let (code, err) = merge_limited(&format!("\"$SCHEDSIM\" merge {what}"));
        assert_eq!(code, Some(2), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.contains("not a schedsim part"), "{what}: {err}");
    }
    // A good header, then a run line that never ends, through a pipe: cut off at the
    // run line's bound as it is read.
    let files = parts(&d, 2);
    let (code, err) = merge_limited(&format!(
        "(head -n 1 {}; printf '{{'; cat /dev/zero) | \"$SCHEDSIM\" merge /dev/stdin",
        files[0]
    ));
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/dev/stdin line 2: longer than a run's line may be"), "{err}");
}

#[test]
fn a_shard_with_a_header_over_4_mb_resumes() {
    let d = dir("resume-big");
    let whole = part(&d, 2, 3, &[]);
    let l = lines(&whole);
    // The header made 5 MB long by white space inside its JSON (as a replay's header is
    // long with its trace's programs): still the same experiment.
    let big = format!("{{{}{}", " ".repeat(5 << 20), &l[0][1..]);
    let cut = d.join("part-cut.jsonl").to_str().unwrap().to_string();
    let mut partial = vec![big.clone()];
    partial.extend_from_slice(&l[1..3]);
    write_lines(&cut, &partial);
    let o = command(&with(&SWEEP, &["--shard", "2/3", "--out", &cut, "--jobs", "1"]), &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("2 of its 6 runs are in the part, 4 to run"), "{err}");
    let now = lines(&cut);
    assert_eq!(now[0], big, "the header is kept");
    assert_eq!(now[1..], l[1..], "the runs kept and the rest run");
    // Its refusals hold too: another shard is not resumed into.
    let o = command(&with(&SWEEP, &["--shard", "1/3", "--out", &cut]), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("holds shard 2/3"), "{}", text(&o.stderr));
}

/// `merge`'s worst shape (issue 42's campaign, parts surface): one part whose run lines
/// are repeated (duplicates that agree, each checked against the first) `n` times, the
/// input doubled until merge takes 50 ms of its own (over the process's start), then
/// held under 2.5 times the time per doubling, the best of three, three tries.
#[test]
fn merge_of_many_run_lines_is_linear() {
    let d = dir("worst");
    let one = part(&d, 1, 1, &[]);
    let l = lines(&one);
    let make = |n: usize| {
        let path = d.join(format!("many-{n}.jsonl")).to_str().unwrap().to_string();
        let mut all = vec![l[0].clone()];
        all.extend((0..n).flat_map(|_| l[1..].iter().cloned()));
        write_lines(&path, &all);
        path
    };
    let best = |path: &String| {
        (0..3)
            .map(|_| {
                let t = std::time::Instant::now();
                assert_eq!(merge(std::slice::from_ref(path), &[]).0, Some(0));
                t.elapsed()
            })
            .min()
            .unwrap()
    };
    let start = best(&make(1));
    let mut n = 64;
    while best(&make(n)) < start + std::time::Duration::from_millis(50) && n < 1 << 16 {
        n *= 2;
    }
    let (small, big) = (make(n), make(2 * n));
    let mut tries = Vec::new();
    for _ in 0..3 {
        let (a, b) = (best(&small).saturating_sub(start), best(&big).saturating_sub(start));
        let ratio = b.as_secs_f64() / a.as_secs_f64().max(1e-9);
        eprintln!("worst case merge, run lines repeated: {n} copies {a:?}, {} copies {b:?}: x{ratio:.2}", 2 * n);
        tries.push(ratio);
        if ratio <= 2.5 {
            return;
        }
    }
    panic!("merge of {n} copies of the run lines doubled took x{tries:.2?} the time");
}
