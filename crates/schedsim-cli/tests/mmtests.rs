//! `--mmtests-dir` writes a results directory mmtests' own tools read. CI has no mmtests
//! checkout, so these tests read the directory back the way mmtests does, re-implemented
//! minimal from its sources (gormanm/mmtests at commit
//! 638401e07e70d67fa5a1e6295e1315ae0af831b2): `shellpacks/common.sh` (`have_run_results`,
//! `run_results`, `run_report_name`), `bin/compare-mmtests.pl` (`KERNEL/iter-*/BENCH/logs`),
//! and each benchmark's `shellpack_src/src/<bench>/parse-results`. The numbers they
//! extract must be the table's; docs/mmtests.md runs the real compare-kernels.sh.

mod common;
use common::{files_under, run_ok, schedsim, small_run, text, TWO_KERNELS};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = common::tmp("schedsim-mmtests", name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `xzcat`: the file must be real xz, as tbench's and dbench's parse-results pipe it.
fn xzcat(p: &Path) -> String {
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut std::io::BufReader::new(std::fs::File::open(p).unwrap()), &mut out)
        .unwrap_or_else(|e| panic!("{} is not xz: {e:?}", p.display()));
    String::from_utf8(out).unwrap()
}

/// awk's `$n` (1-based) of a whitespace-split line.
fn field(line: &str, n: usize) -> f64 {
    line.split_whitespace().nth(n - 1).unwrap_or_else(|| panic!("no ${n} in {line:?}")).parse().unwrap()
}

/// One kernel's extracted values by label (`tput-4`, `usecs-op-2`, `time-1`), over all
/// `iter-*` directories, as ExtractShellpack collects parse-results' rows.
type Extracted = BTreeMap<String, Vec<f64>>;

/// The benchmark's parse-results over `KERNEL/iter-*/BENCH/logs`, minimal.
fn extract(kernel_dir: &Path, bench: &str) -> Extracted {
    let mut by_label = Extracted::new();
    let mut iters: Vec<_> = std::fs::read_dir(kernel_dir).unwrap().map(|e| e.unwrap().path()).collect();
    iters.retain(|p| p.file_name().unwrap().to_string_lossy().starts_with("iter-"));
    for it in iters {
        let logs = it.join(bench).join("logs");
        for e in std::fs::read_dir(&logs).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let parts: Vec<&str> = name.trim_end_matches(".xz").split('-').collect();
            let mut add = |label: String, v: f64| by_label.entry(label).or_default().push(v);
            match bench {
                // tbench/parse-results: `ls benchlog-*-*.xz`, heading tput: xzcat | awk $3.
                "tbench" | "dbench" => {
                    assert!(name.ends_with(".xz"), "{name}: parse-results lists only *.xz");
                    assert_eq!(parts[..2], ["benchlog", "tput"], "{name}");
                    for l in xzcat(&p).lines() {
                        assert!(field(l, 6) > 0.0, "the interval, $6: {l}");
                        add(format!("tput-{}", parts[2]), field(l, 3));
                    }
                }
                // hackbench/parse-results: hackbench-N, `grep "Total time:"`, awk $3.
                "hackbench-process-pipes" | "hackbench-process-sockets" => {
                    assert_eq!(parts[0], "hackbench", "{name}");
                    for l in std::fs::read_to_string(&p).unwrap().lines().filter(|l| l.contains("Total time:")) {
                        add(format!("time-{}", parts[1]), field(l, 3));
                    }
                }
                // perfpipe: parsers/line-parse-results 'usecs/op' usecs-op 1, over
                // benchlog-FACTORA-FACTORB-NR; factor B `_` is left out of the label.
                "perfpipe" => {
                    assert_eq!((parts[0], parts.len(), parts[2]), ("benchlog", 4, "_"), "{name}");
                    for l in std::fs::read_to_string(&p).unwrap().lines().filter(|l| l.contains("usecs/op")) {
                        add(format!("usecs-op-{}", parts[1]), field(l, 1));
                    }
                }
                _ => panic!("no parser for {bench}"),
            }
        }
    }
    by_label
}

fn hmean(v: &[f64]) -> f64 {
    v.len() as f64 / v.iter().map(|x| 1.0 / x).sum::<f64>()
}

fn amean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The table's `Hmean`/`Amean` rows: client count -> the value of each column.
fn table_rows(table: &str, label: &str) -> BTreeMap<u32, Vec<f64>> {
    let mut rows = BTreeMap::new();
    for l in table.lines().filter(|l| l.starts_with(label)) {
        let mut w = l.split_whitespace().skip(1);
        let clients: u32 = w.next().unwrap().parse().unwrap();
        // "216.47 ( 0.00%) 220.99 ( 2.09%)": every value is followed by "(".
        let toks: Vec<&str> = w.collect();
        let vals = toks.windows(2).filter(|p| p[1] == "(").map(|p| p[0].parse().unwrap()).collect();
        rows.insert(clients, vals);
    }
    assert!(!rows.is_empty(), "no {label} rows in\n{table}");
    rows
}

/// Runs `args` with `--mmtests-dir`, then checks every kernel's extracted summary
/// against the table's row within `tolerance` (the logs' rounding and the table's).
fn check_numbers(args: &[&str], bench: &str, label: &str, tolerance: f64) -> PathBuf {
    let dir = tmp(bench);
    let mut a = args.to_vec();
    a.extend(["--mmtests-dir", dir.to_str().unwrap()]);
    let (table, _) = run_ok(&a);
    let rows = table_rows(&table, label);
    for (k, kernel) in ["base", "patched"].iter().enumerate() {
        let got = extract(&dir.join(kernel), bench);
        assert_eq!(got.len(), rows.len(), "{kernel}: one label per client count: {got:?}");
        for (clients, want) in &rows {
            let key = got.keys().find(|l| l.ends_with(&format!("-{clients}"))).unwrap();
            let v = &got[key];
            assert_eq!(v.len(), 3, "{kernel} {key}: one sample per iteration");
            let mean = if label == "Hmean" { hmean(v) } else { amean(v) };
            assert!(
                (mean - want[k]).abs() <= tolerance,
                "{kernel} {key}: mmtests would print {mean}, the table {}\n{table}",
                want[k]
            );
        }
    }
    dir
}

#[test]
fn tbench_logs_give_the_tables_hmean() {
    // Samples are written with two decimals (dbench's %.2f) and the table rounds to
    // two: the Hmean of the written values is within 0.01 of the table's.
    check_numbers(&small_run("1,2", "3", TWO_KERNELS), "tbench", "Hmean", 0.01);
}

#[test]
fn dbench_logs_give_the_tables_hmean() {
    let mut a = small_run("1,2", "3", TWO_KERNELS);
    a[4] = "dbench";
    check_numbers(&a, "dbench", "Hmean", 0.01);
}

#[test]
fn perfpipe_logs_give_the_tables_amean() {
    let mut a = small_run("1,2", "3", TWO_KERNELS);
    a[4] = "pipe";
    // perf's %14lf: six decimals; the table's two.
    check_numbers(&a, "perfpipe", "Amean", 0.005 + 1e-6);
}

#[test]
fn hackbench_logs_give_the_tables_amean_to_the_millisecond() {
    let mut a = small_run("1,2", "3", TWO_KERNELS);
    a[4] = "hackbench";
    // Long enough for every iteration to finish its messages.
    let d = a.iter().position(|x| *x == "--duration-ms").unwrap();
    a[d + 1] = "2000";
    // perf prints whole milliseconds, truncated: within 1 ms and the table's rounding.
    check_numbers(&a, "hackbench-process-sockets", "Amean", 0.001 + 0.00005);
}

/// The files compare-kernels.sh needs to find the kernels, the test and the facts it
/// prints, in their formats; and the same bytes from a second run.
#[test]
fn layout_is_what_compare_kernels_looks_for() {
    let args = small_run("1,2", "3", &["--kernel", "old=v4.15", "--kernel", "new=v6.6+preempt-none"]);
    let dir = tmp("layout");
    let mut a = args.clone();
    a.extend(["--mmtests-dir", dir.to_str().unwrap()]);
    run_ok(&a);
    // run_results: grep "run-mmtests: Start" in */iter-*/tests-activity (maxdepth 3),
    // sorted by its timestamp: the kernels in the experiment's order.
    let mut starts = Vec::new();
    for k in ["old", "new"] {
        for it in 0..3 {
            let d = dir.join(k).join(format!("iter-{it}"));
            let act = std::fs::read_to_string(d.join("tests-activity")).unwrap();
            let start = act.lines().find(|l| l.contains("run-mmtests: Start")).unwrap();
            starts.push((start.split(' ').next().unwrap().parse::<u64>().unwrap(), k));
            // run_report_name: awk '/ run-mmtests: test start :: / {print $6}'.
            let test = act.lines().find(|l| l.contains(" run-mmtests: test start :: ")).unwrap();
            assert_eq!(test.split_whitespace().nth(5), Some("tbench"), "{act}");
            assert!(act.contains(&format!("run-mmtests: Iteration {} end", it + 1)), "{act}");
            // MonitorDuration: /^time :: tbench (.*)/, split on spaces: U user S system E elapsed.
            let ts = std::fs::read_to_string(d.join("tests-timestamp")).unwrap();
            let time = ts.lines().find_map(|l| l.strip_prefix("time :: tbench ")).unwrap();
            let w: Vec<&str> = time.split(' ').collect();
            assert_eq!((w[1], w[3], w[5]), ("user", "system", "elapsed"), "{ts}");
            assert!(w[4].parse::<f64>().unwrap() > 0.0, "{ts}");
            // cpuidle-latencies.txt: grep . .../cpu0/cpuidle/state*/latency.
            let idle = std::fs::read_to_string(d.join("cpuidle-latencies.txt")).unwrap();
            for (i, l) in idle.lines().enumerate() {
                let (path, us) = l.split_once(':').unwrap();
                assert_eq!(path, format!("/sys/devices/system/cpu/cpu0/cpuidle/state{i}/latency"));
                us.parse::<u64>().unwrap();
            }
        }
    }
    let mut sorted = starts.clone();
    sorted.sort_by_key(|s| s.0);
    assert_eq!(sorted, starts, "start timestamps follow the experiment's order");
    // /sys/kernel/debug/sched/preempt exists from v5.12 (CONFIG_PREEMPT_DYNAMIC): v4.15
    // has none; v6.6 lists its modes with the current one in parentheses.
    assert!(!dir.join("old/iter-0/preempt-dynamic").exists());
    let p = std::fs::read_to_string(dir.join("new/iter-0/preempt-dynamic")).unwrap();
    assert_eq!(p, "(none) voluntary full \n");
    // Deterministic: the same run writes the same bytes.
    let again = tmp("layout-again");
    let mut b = args.clone();
    b.extend(["--mmtests-dir", again.to_str().unwrap()]);
    run_ok(&b);
    assert!(files_under(&dir) == files_under(&again), "a second run wrote other bytes");
}

/// Where mmtests has no counterpart, nothing is written and the reason is given.
#[test]
fn workloads_mmtests_cannot_read_are_refused_before_running() {
    for (w, why) in [("schbench", "current rps"), ("memcache", "mutilate")] {
        let dir = tmp(&format!("refused-{w}"));
        let mut a = small_run("1", "1", &[]);
        a[4] = w;
        a.extend(["--mmtests-dir", dir.to_str().unwrap()]);
        let o = schedsim(&a);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{w}: {err}");
        assert!(err.contains("--mmtests-dir") && err.contains(why), "{w}: {err}");
        assert!(!dir.join("base").exists());
    }
}
