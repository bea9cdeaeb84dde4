//! Every command's flag table, which the parser reads, and the help texts, whose
//! option lists are made from the same tables. The commands import this module; it
//! imports none of them.

use crate::args::{options_help, Flag};
use crate::experiment_args::EXPERIMENT_FLAGS;

pub const PRESETS_FLAGS: &[Flag] = &[];

/// How a report is written: `run` and `merge` write the same bytes.
const REPORT_FLAGS: [Flag; 4] = [
    Flag::switch("json", "print the report as JSON instead of the table"),
    Flag::switch("csv", "print per-iteration samples as CSV instead of the table"),
    Flag::switch("counters-csv", "print per-kernel, per-client-count counters as CSV"),
    Flag::value("out", "FILE", "write the output to FILE instead of standard output"),
];

pub fn run_flags() -> Vec<Flag> {
    let mut f = EXPERIMENT_FLAGS.to_vec();
    f.extend(REPORT_FLAGS);
    f.extend([
        Flag::value(
            "mmtests-dir",
            "DIR",
            "also write an mmtests results directory its compare-kernels.sh reads:\nDIR/KERNEL/iter-N/ (tbench, dbench, hackbench, pipe as perfpipe; mmtests has\nnothing to read schbench, memcache, replay or rt-app from; docs/mmtests.md)",
        ),
        Flag::switch("progress", "show progress on stderr even when it is not a terminal"),
        Flag::switch("no-progress", "never show progress"),
        Flag::switch(
            "dry-run",
            "print what the sweep would cost (runs, simulated events and their\nbound, CPU and wall time) and exit without running it",
        ),
        Flag::value(
            "jobs",
            "N",
            "run N simulations at once (default: the CPUs available); the output is the same for every N",
        ),
        Flag::value(
            "shard",
            "M/N",
            "run only shard M of N (from 1) of the sweep's runs and write a part\n(JSON lines) for 'schedsim merge'; with --out, a rerun skips the\nruns the part has. auto: M and N from Slurm's SLURM_ARRAY_TASK_ID,\n_MIN and _COUNT or Kubernetes' JOB_COMPLETION_INDEX",
        ),
        Flag::value(
            "shard-count",
            "N",
            "with --shard auto under Kubernetes: the shard count (the Job's\ncompletions; or set SCHEDSIM_SHARD_COUNT)",
        ),
    ]);
    f
}

pub fn merge_flags() -> Vec<Flag> {
    let mut f = REPORT_FLAGS.to_vec();
    f.push(Flag::value(
        "mmtests-dir",
        "DIR",
        "also write the mmtests results directory 'run --mmtests-dir' writes\n(tbench, dbench, hackbench, pipe; docs/mmtests.md)",
    ));
    f
}

pub fn show_flags() -> Vec<Flag> {
    let mut f = EXPERIMENT_FLAGS.to_vec();
    f.push(Flag::value("out", "FILE", "write the JSON to FILE instead of standard output"));
    f.push(Flag::switch("with-costs", "write out the machine's whole cost model (machine.costs), to edit any cost"));
    f.push(Flag::switch("scripts", "print each kernel's policy script as text instead of the JSON"));
    f.push(Flag::value(
        "as",
        "FORMAT",
        "rtapp: the workload at the first client count as an rt-app 1.0 file for the real\nrt-app, running --duration-ms (what the translation loses is said on stderr)",
    ));
    f
}

pub fn trace_flags() -> Vec<Flag> {
    let mut f: Vec<Flag> = EXPERIMENT_FLAGS
        .iter()
        .map(|f| {
            if f.name == "clients" {
                Flag::value("clients", "N", "the one client count to trace (default: the experiment's first)")
            } else {
                *f
            }
        })
        .collect();
    f.extend([
        Flag::value("kernel-index", "K", "which kernel column to trace, from 0 (default 0)"),
        Flag::value("iteration", "I", "which iteration's random stream, from 0 (default 0)"),
        Flag::value(
            "from",
            "W",
            "first wakeup to show, counted from 0 at the start of the run,\nwarm-up included (default 0)",
        ),
        Flag::value("count", "C", "how many wakeups to show (default 5)"),
        Flag::switch("json", "print the traces as JSON"),
        Flag::value("out", "FILE", "write the output to FILE instead of standard output"),
    ]);
    f
}

pub fn perfetto_flags() -> Vec<Flag> {
    let mut f: Vec<Flag> = trace_flags().into_iter().filter(|f| !["from", "count", "json"].contains(&f.name)).collect();
    f.extend([
        Flag::value("from-ms", "MS", "start of the recorded window, simulated ms (default 0)"),
        Flag::value("to-ms", "MS", "end of the recorded window, simulated ms (default: the end of the run)"),
    ]);
    f
}

pub fn diff_flags() -> Vec<Flag> {
    let mut f: Vec<Flag> = trace_flags()
        .into_iter()
        .filter(|f| !["kernel-index", "from", "count", "json", "out"].contains(&f.name))
        .map(|f| {
            if f.name == "clients" {
                Flag::value("clients", "N", "the one client count (default: the experiment's first)")
            } else {
                f
            }
        })
        .collect();
    f.extend([
        Flag::repeated(
            "kernel-index",
            "K",
            "give it twice: kernel A (which runs) then kernel B (which is asked),\nfrom 0 (default 0 then 1)",
        ),
        Flag::value(
            "from",
            "W",
            "first wakeup to compare, counted from 0 at the start of the run,\nwarm-up included (default 0)",
        ),
        Flag::value("count", "C", "how many wakeups to compare (default 1000, at most 10000)"),
        Flag::value("list", "N", "list at most N differences, one line each (default 20)"),
        Flag::value("details", "N", "show the first N differences with both traces (default 3)"),
        Flag::switch("json", "print the whole diff as JSON (every difference listed, the first\n--details in full)"),
        Flag::value("out", "FILE", "write the output to FILE instead of standard output"),
    ]);
    f
}

pub fn replay_flags() -> Vec<Flag> {
    let mut f: Vec<Flag> = EXPERIMENT_FLAGS
        .iter()
        .filter(|f| ["topology", "topology-file", "machine", "kernel", "seed"].contains(&f.name))
        .copied()
        .collect();
    f.extend([
        Flag::switch("json", "print the import summary and both sides of the table as JSON\n(objects summary, observed, simulated: one per kernel)"),
        Flag::value("out", "FILE", "write the output to FILE instead of standard output"),
        Flag::switch(
            "pin-as-traced",
            "pin every task to the CPU it ran on after most of its traced wakeups: the\nmachine's placement kept, to compare what follows it (preemption, delays)",
        ),
        Flag::value(
            "vs",
            "TRACE",
            "put a second trace beside the first: both traces' statistics, B's change\nagainst A, overall and per task name; with --kernel, each trace's replay table too",
        ),
    ]);
    f
}

pub const BENCH_FLAGS: &[Flag] = &[
    Flag::value("repeat", "N", "runs per case; the median is printed (default 5)"),
    Flag::repeated("case", "NAME", "only this case: tbench-8, hackbench-10 or tbench-128 (repeatable)"),
];

pub fn main_help() -> String {
    format!(
        "schedsim {} - deterministic simulator of the Linux CFS task-wakeup path

Usage:
  schedsim presets                        list built-in experiments, machines, workloads,
                                          kernel versions and switches
  schedsim run FILE|PRESET [OPTIONS]      run an experiment, print the mmtests comparison table
  schedsim run --topology SPEC|--topology-file FILE|--machine NAME [OPTIONS]
                                          run an experiment given by flags alone
  schedsim run FILE|PRESET --shard M/N --out PART
                                          run shard M of N of the sweep (a cluster job's share)
  schedsim merge PART... [OPTIONS]        print what 'run' prints, from all the shards' parts
  schedsim show FILE|PRESET [OPTIONS]     print an experiment as JSON (to edit and run)
  schedsim trace FILE|PRESET [OPTIONS]    print the decision trace of chosen wakeups
  schedsim diff FILE|PRESET [OPTIONS]     run kernel A; list the wakeups where kernel B,
                                          asked in the same state, would choose another CPU
  schedsim perfetto FILE|PRESET --out F   write a run as a Perfetto (Chrome JSON) trace
  schedsim replay TRACE [OPTIONS]         replay a real machine's scheduler trace (perf script
                                          or trace-cmd report text) under each kernel; print
                                          what the machine did beside what the model does
  schedsim bench [--repeat N]             measure simulated wakeups per wall-clock second
  schedsim help COMMAND                   options of a command (or COMMAND --help)

Examples:
  schedsim run demo
  schedsim run seed000 --clients 1,8,64 --iterations 2 --json --out seed000.json
  schedsim run --topology 1x1x10x2 --workload tbench --clients 1,2,4 \\
      --kernel base=v5.14 --kernel recent=v5.14+recent-used-prev
  schedsim show demo > exp.json; schedsim run exp.json
  schedsim run seed001 --kernel v3.8=v3.8 --kernel mine=v3.8+policy:prev.rhai
  schedsim run demo --kernel v5.15=v5.15 --kernel scx=v5.15+policy:template:scx-default
  lscpu -p > mybox.txt; schedsim run demo --topology-file mybox.txt
  for m in 1 2 3; do schedsim run seed000 --shard $m/3 --out part-$m.jsonl & done; wait
  schedsim merge part-*.jsonl
  schedsim trace demo --kernel-index 1 --clients 2 --from 100 --count 3
  schedsim diff seed001 --kernel-index 0 --kernel-index 1 --count 200
  schedsim perfetto seed001 --kernel-index 1 --to-ms 60 --out seed001.json
  perf sched record -- perf bench sched pipe -l 20000; perf script > pipe.txt
  schedsim replay pipe.txt --topology-file mybox.txt --kernel a=v6.5 --kernel b=v5.15

Exit status: 0 success, 2 bad input (one line on stderr names the file or option,
the field and the problem), 1 the simulation or writing the output failed.
",
        env!("CARGO_PKG_VERSION")
    )
}

pub fn command_help(cmd: &str) -> Option<String> {
    Some(match cmd {
        "presets" => "Usage: schedsim presets

Lists the built-in experiments (name, description, machine, workload, kernels), the
machine presets (name, CPU count, topology, description), the workloads, the kernel
version presets, the switches with what each does, and which switch is on in which
version.
"
        .to_string(),
        "run" => format!(
            "Usage: schedsim run FILE|PRESET [OPTIONS]
       schedsim run --topology SPEC|--topology-file FILE|--machine NAME [OPTIONS]

Runs every kernel at every client count for every iteration and prints the mmtests
compare-kernels table: Hmean (or Amean) and Stddev rows per client count with the
change against the first kernel, then CPU time, migrations and wakeup path counters.

FILE is experiment JSON (see 'schedsim show PRESET'); PRESET is a built-in experiment
(see 'schedsim presets'). Options given with FILE or PRESET override its fields.
Without either, --topology, --topology-file or --machine is needed and the rest
defaults to: tbench, clients 1,2,4, 3 iterations of 500 ms with 50 ms warm-up,
seed 1, kernel v5.15.

--topology-file FILE reads a real machine's shape from the text of 'lscpu -p',
'lscpu -e', or 'grep . /sys/devices/system/cpu/cpu*/topology/*
/sys/devices/system/cpu/cpu*/cache/index*/shared_cpu_list', with 'numactl --hardware'
appended for NUMA distances. Offline CPUs are left out; what was read and assumed is
said on stderr. schedsim renumbers CPUs (first threads of all cores, then second
threads), so CPU numbers in traces may differ from Linux's; stderr lists the changes.

Progress goes to stderr, once a run takes more than a second and stderr is a terminal.

--shard M/N runs only shard M of N: the runs numbered j (from 0, client count by
client count, each one's kernels in order, each kernel's iterations in order) with
j mod N = M - 1. Each run's random stream comes from its client count and iteration,
never from the shard. It writes a part: JSON lines, first a header (format version,
the experiment's SHA-256 and the experiment), then a line per finished run, each
written whole as the run finishes. With --out, a rerun of an interrupted shard keeps
the part's finished runs and runs the rest. 'schedsim merge' of all N parts prints
exactly what 'schedsim run' prints. --shard auto takes M and N from a Slurm job array
(SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT: ids from 0 or
from 1) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, from 0, with --shard-count
or SCHEDSIM_SHARD_COUNT), says which on stderr, and refuses when neither is set.

Options:
{}",
            options_help(&run_flags())
        ),
        "show" => format!(
            "Usage: schedsim show FILE|PRESET [OPTIONS]

Prints the experiment, with any options applied and validated, as JSON that
'schedsim run FILE' reads. Options are those of 'schedsim run' that set fields.
With --with-costs the machine preset's cost model is written out in full as
machine.costs (which, when present, replaces the preset's costs as a whole), so
that any hardware cost or C-state can be changed by editing one value.

Options:
{}",
            options_help(&show_flags())
        ),
        "trace" => format!(
            "Usage: schedsim trace FILE|PRESET [OPTIONS]

Runs one kernel at one client count (one iteration) and prints, for the chosen
wakeups, every step of the wakeup path: the function, the values it read, what it
returned and why, the CPUs probed, and where the task went.

Options:
{}",
            options_help(&trace_flags())
        ),
        "diff" => format!(
            "Usage: schedsim diff FILE|PRESET [--kernel-index A --kernel-index B] [OPTIONS]

Runs kernel A at one client count (one iteration). At every wakeup A decides, kernel
B's decision code (select_task_rq_fair and what it calls) is asked what it would
choose in exactly the same state, on a copy of the simulation: B's answer changes
nothing, and A's run is the one 'schedsim trace' shows. Prints how many of the
wakeups differ, how far B's CPU is from A's (same CPU, SMT sibling, same LLC,
cross-LLC, cross-node), a line per difference, and the first differences with both
decision traces.

B reads A's state as it is, also state only B's kernel keeps up (with A = v3.8,
B = v5.15 reads a recent_used_cpu A never set). A wakee still on its CPU is queued
or waited for without choosing a CPU: such wakeups are counted, not compared.

Options:
{}",
            options_help(&diff_flags())
        ),
        "perfetto" => format!(
            "Usage: schedsim perfetto FILE|PRESET [OPTIONS]

Runs one kernel at one client count (one iteration) and writes the window
--from-ms..--to-ms as Chrome trace-event JSON, which ui.perfetto.dev opens: a track
per CPU with what ran and the idle C-states, each wakeup as an instant on the
waker's CPU with its whole decision path as arguments and a flow arrow to where the
wakee ran, and migrations. Traces of long windows are large; a few ms is plenty. A
trace holds at most 500,000 events (up to about 140 MB of JSON, written as it is made): a
wider window is cut where it reaches them, and the command says at which time.

Options:
{}",
            options_help(&perfetto_flags())
        ),
        "bench" => format!(
            "Usage: schedsim bench [--repeat N] [--case NAME]

Measures simulator speed: simulated wakeups per wall-clock second, single-threaded,
on three fixed cases, each kernel v5.15, one iteration, no warm-up:
  tbench 8 pairs on 1x1x10x2, hackbench 10 groups on 2x1x20x2, tbench 128 pairs on 2x8x8x2.
Prints the median over N runs of each. Build with --release for meaningful numbers.

Options:
{}",
            options_help(BENCH_FLAGS)
        ),
        "replay" => format!(
            "Usage: schedsim replay TRACE [OPTIONS]

Imports TRACE, the text 'perf script' prints of a 'perf sched record' (either of its
two forms, µs or --ns timestamps) or 'trace-cmd report' text of the same sched events,
or either gzip-compressed, and prints the import summary. Each traced task becomes a
program of the model's own steps (run for the CPU time it ran, wake the task it woke,
block until woken, sleep until an interrupt on the CPU that woke it, exit); wakeups
between traced tasks are closed loop, so the modelled kernel sets their timing.

The trace is replayed once (one copy, no warm-up) under each --kernel (default: the
newest modelled version) on the machine given (default: the trace's CPU count as one
LLC), and a table puts the trace's statistics beside each replay's, by the same
definitions: wakeups by waker kind, migrations per 1,000 wakeups by distance, run
delay (waking to switched in) percentiles, CPU busy share, how often the model chose
the machine's CPU (before the replay first diverged), and the replay's throughput
relative to the recording, and the voluntary and involuntary switches (a switch-out
asleep, or still runnable: `prev_state` R or R+). A waker that its wakee preempted
waits, in its program, for that wakee's next switch-out (a pipe or socket answer the
trace cannot show), so a replay under another kernel or preemption model keeps the
workload's dependencies. Use 'schedsim run' with --replay TRACE for copies on a
client axis.

Options:
{}",
            options_help(&replay_flags())
        ),
        "merge" => format!(
            "Usage: schedsim merge PART... [OPTIONS]

Reads the parts 'schedsim run --shard M/N --out PART' wrote and prints the report
'schedsim run' of the whole experiment prints, byte for byte: the table, --json,
--csv, --counters-csv, and --mmtests-dir's logs. The parts may come in any order, and
a shard's part may be given twice (a rerun shard) if its results agree.

Refuses, naming the files: parts of different experiments (their SHA-256 differ), a
run no part has (with the shard that runs it), two different results of one run, and
a part cut short or malformed (with the line).

Options:
{}",
            options_help(&merge_flags())
        ),
        "help" => "Usage: schedsim help [COMMAND]\n".to_string(),
        _ => return None,
    })
}
