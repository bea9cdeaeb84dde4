//! A report as an mmtests results directory: the files mmtests' own `compare-kernels.sh`
//! and `bin/extract-mmtests.pl` read, with the model's numbers in them.
//!
//! Followed: gormanm/mmtests at commit 638401e07e70d67fa5a1e6295e1315ae0af831b2 —
//! `run-mmtests.sh` (the layout `KERNEL/iter-N/`, `tests-activity`, `tests-timestamp`,
//! `preempt-dynamic`), `shellpacks/common.sh` (`have_run_results`, `run_results`,
//! `run_report_name`, `collect_hardware_info`'s `cpuidle-latencies.txt`),
//! `bin/lib/MMTests/MonitorDuration.pm` (the `time ::` line), and for each benchmark
//! its `shellpack_src/src/<bench>/<bench>-bench` (file names) and `parse-results`
//! (what is read of them): tbench, dbench, hackbench, perfpipe.
//!
//! Why a list of files and not files: the library does no IO. The CLI writes them
//! (and xz-compresses the ones marked so, as the shellpacks do, because tbench's and
//! dbench's `parse-results` read them only through `xzcat`).
//!
//! What has no mmtests counterpart is refused ([`benchmark`] returns the reason),
//! never written with invented numbers: schbench (mmtests' parser reads schbench
//! v1.x, whose samples close with a `current rps` line; the model is the 2016
//! schbench without requests per second), memcache (mmtests' `mutilate` shellpack has
//! no `parse-results`), replay and rt-app (no mmtests benchmark).
//!
//! Timestamps: the formats carry Unix seconds (`date +%s`). A wall clock would make
//! two writes of one report differ, so they are seconds of simulated time since the
//! sweep began, kernels one after another as mmtests runs them; `run_results` sorts
//! kernels by them, so mmtests lists the kernels in the experiment's order.

use crate::api::report::{ConfigResult, PointResult, Report};
use crate::facts::workload::Workload;
use std::fmt::Write;

/// One file of the layout.
#[derive(Clone, Debug, PartialEq)]
pub struct MmtestsFile {
    /// The index of the kernel (column) in the report; its directory is the kernel's
    /// name made path-safe, which is the writer's business.
    pub kernel: usize,
    /// The path under the kernel's directory, `/`-separated, without `.xz`.
    pub path: String,
    pub text: String,
    /// Whether mmtests reads it xz-compressed (`NAME.xz`).
    pub xz: bool,
}

/// The mmtests test name (`MMTESTS=` in its configs, the directory under `iter-N/`)
/// of a workload, or why mmtests has none.
pub fn benchmark(w: &Workload) -> Result<&'static str, String> {
    Ok(match w {
        Workload::Tbench(_) => "tbench",
        Workload::Dbench(_) => "dbench",
        // configs/config-scheduler-hackbench: hackbench-process-pipes and -sockets;
        // the model runs processes.
        Workload::Hackbench(p) if p.pipe => "hackbench-process-pipes",
        Workload::Hackbench(_) => "hackbench-process-sockets",
        Workload::Pipe(_) => "perfpipe",
        Workload::Schbench(_) => {
            return Err("mmtests' schbench parser reads schbench v1.x output, whose samples end with a \
                        'current rps' line; the model is the 2016 schbench, which has no requests per \
                        second, so nothing is written rather than an invented rate"
                .into())
        }
        Workload::Memcache(_) => {
            return Err("mmtests' mutilate shellpack (its memcached load) has no parse-results to read".into())
        }
        Workload::Replay(_) | Workload::Rtapp(_) => return Err(format!("mmtests has no {} benchmark", w.name())),
    })
}

/// The files of `report` as mmtests lays out its results, for every kernel that ran.
pub fn layout(report: &Report) -> Result<Vec<MmtestsFile>, String> {
    let bench = benchmark(&report.experiment.workload)?;
    let exp = &report.experiment;
    let machine = exp.machine.resolve().map_err(|e| e.to_string())?;
    let iterations = exp.iterations.max(1);
    let mut out = Vec::new();
    let mut clock_s = 0u64;
    for (k, c) in report.configs.iter().enumerate() {
        let per_iter_s = secs_up(c.elapsed_ns()).div_ceil(iterations as u64);
        let spec = exp.kernels.get(k);
        for it in 0..iterations {
            let start = clock_s + it as u64 * per_iter_s;
            let end = start + per_iter_s;
            let mut file = |path: String, text: String, xz: bool| out.push(MmtestsFile { kernel: k, path, text, xz });
            file(format!("iter-{it}/tests-activity"), activity(bench, it, start, end), false);
            file(format!("iter-{it}/tests-timestamp"), timestamp(bench, c, iterations, start, end), false);
            if let Some(s) = spec.filter(|s| s.preset.since(5, 12)) {
                let cfg = s.resolve_on(machine.preempt);
                file(format!("iter-{it}/preempt-dynamic"), preempt_dynamic(cfg.preempt, s.preset.since(6, 13)), false);
            }
            file(format!("iter-{it}/cpuidle-latencies.txt"), cpuidle(&machine.costs.cstates), false);
            for p in &c.points {
                let Some(v) = p.samples.get(it as usize).copied() else { continue };
                if let Some((name, text, xz)) = bench_log(exp, p, v, it) {
                    file(format!("iter-{it}/{bench}/logs/{name}"), text, xz);
                }
            }
        }
        clock_s += per_iter_s * iterations as u64;
    }
    Ok(out)
}

fn secs_up(ns: u64) -> u64 {
    ns.div_ceil(1_000_000_000).max(1)
}

/// `iter-N/tests-activity`: `activity_log`'s lines (`date +%s` and the message) as
/// `run-mmtests.sh` writes them; `run_report_name` takes the test name from `test
/// start :: NAME` and `run_results` the kernel's start from `run-mmtests: Start`.
fn activity(bench: &str, it: u32, start: u64, end: u64) -> String {
    let n = it + 1;
    format!(
        "{start} run-mmtests: Start\n{start} run-mmtests: Iteration {n} start\n\
         {start} run-mmtests: test start :: {bench} {start}\n{end} run-mmtests: test end :: {bench} {end} 0\n\
         {end} run-mmtests: Iteration {n} end\n{end} run-mmtests: End\n"
    )
}

/// `iter-N/tests-timestamp`: `teststate_log`'s lines, with `/usr/bin/time -f "time ::
/// TEST %U user %S system %e elapsed"`, which `MonitorDuration` reads. The model keeps
/// CPU time summed over iterations, so each iteration carries the mean: mmtests'
/// Duration rows are the table's User, System and Elapsed over the iteration count.
fn timestamp(bench: &str, c: &ConfigResult, iterations: u32, start: u64, end: u64) -> String {
    let t = c.total();
    let per = |ns: u64| ns as f64 / 1e9 / iterations as f64;
    format!(
        "start :: {start}\ntest begin :: {bench} {start}\ntest end :: {bench} {end} 0\n\
         time :: {bench} {:.2} user {:.2} system {:.2} elapsed\nfinish :: {end}\n",
        per(t.user_ns),
        per(t.system_ns),
        per(c.elapsed_ns())
    )
}

/// `iter-N/preempt-dynamic`: `/sys/kernel/debug/sched/preempt` (Linux
/// `kernel/sched/core.c` `sched_dynamic_show()`, v5.12 on): every mode followed by a
/// space, the current one in parentheses; `lazy` from v6.13.
fn preempt_dynamic(current: crate::facts::kernel::PreemptModel, has_lazy: bool) -> String {
    use crate::facts::kernel::PreemptModel;
    let mut s = String::new();
    for m in PreemptModel::ALL {
        if m == PreemptModel::Lazy && !has_lazy {
            continue;
        }
        if m == current {
            let _ = write!(s, "({}) ", m.name());
        } else {
            let _ = write!(s, "{} ", m.name());
        }
    }
    s.push('\n');
    s
}

/// `iter-N/cpuidle-latencies.txt`: `grep . /sys/devices/system/cpu/cpu0/cpuidle/state*/latency`,
/// the exit latency of each idle state in µs, from the machine's cost model.
fn cpuidle(cstates: &[crate::facts::cost::CState]) -> String {
    let mut s = String::new();
    for (i, c) in cstates.iter().enumerate() {
        let _ = writeln!(s, "/sys/devices/system/cpu/cpu0/cpuidle/state{i}/latency:{}", c.exit_latency_ns / 1000);
    }
    s
}

/// One iteration's log of one client count, named as the shellpack names it.
fn bench_log(
    exp: &crate::api::experiment::Experiment,
    p: &PointResult,
    v: f64,
    it: u32,
) -> Option<(String, String, bool)> {
    let n = p.clients;
    Some(match &exp.workload {
        // tbench-bench and dbench-bench: `grep execute` of dbench's output into
        // benchlog-tput-N, then `xz`; parse-results takes $3 (MB/sec) and $6 (the
        // second). dbench prints one line a second; the model's sample is the whole
        // measured window, one line at its end. The operation count and latency are
        // not read: the mean of requests per iteration, and the p99 request latency
        // over all iterations (the model keeps no maximum).
        Workload::Tbench(_) | Workload::Dbench(_) => {
            let secs = exp.duration_ms.saturating_sub(exp.warmup_ms).div_ceil(1000).max(1);
            let ops = p.request_latency.count / exp.iterations.max(1) as u64;
            let lat_ms = p.request_latency.p99_ns as f64 / 1e6;
            let line = format!("{n:>4} {ops:>11} {v:>9.2} MB/sec  execute {secs:>3} sec  latency {lat_ms:.3} ms\n");
            (format!("benchlog-tput-{n}"), line, true)
        }
        // hackbench-bench: `perf bench sched messaging` appended to hackbench-N;
        // parse-results takes $3 of each "Total time:" line. perf prints milliseconds
        // (tools/perf/bench/sched-messaging.c: "%lu.%03lu [sec]").
        Workload::Hackbench(h) => {
            let kind = "processes";
            let text = format!(
                "# Running 'sched/messaging' benchmark:\n# {} sender and receiver {kind} per group\n\
                 # {n} groups == {} {kind} run\n\n{:>20}{} [sec]\n",
                h.fds,
                n as u64 * 2 * h.fds as u64,
                "Total time: ",
                perf_secs(v)
            );
            (format!("hackbench-{n}"), text, false)
        }
        // perfpipe-bench: `perf bench sched pipe` into benchlog-_-_-ITERATION;
        // parse-results (parsers/line-parse-results 'usecs/op' usecs-op 1) takes $1 of
        // the usecs/op line, factor A from the name. perf runs one pair, so mmtests
        // writes `_` there; the model's sweep counts pairs, and writes that count.
        Workload::Pipe(pp) => {
            let ops_per_s = if v > 0.0 { (1e6 / v) as u64 } else { 0 };
            let text = format!(
                "# Running 'sched/pipe' benchmark:\n# Executed {} pipe operations between two processes\n\n \
                 {:>14}: {} [sec]\n\n {v:>14.6} usecs/op\n {ops_per_s:>14} ops/sec\n",
                pp.loops,
                "Total time",
                perf_secs(v * pp.loops as f64 / 1e6),
            );
            (format!("benchlog-{n}-_-{}", it + 1), text, false)
        }
        // benchmark() refused the others before any file was made.
        _ => return None,
    })
}

/// Seconds as perf prints them, `%lu.%03lu` of whole seconds and truncated
/// milliseconds (tools/perf/bench/sched-messaging.c, sched-pipe.c).
fn perf_secs(s: f64) -> String {
    let ms = (s.max(0.0) * 1e6).round() as u64 / 1000;
    format!("{}.{:03}", ms / 1000, ms % 1000)
}
