#!/usr/bin/env bash
# Regenerates docs/ground-truth.md: each benchmark as the recording box ran it
# (traces/measured.md: untraced throughput; traces/quiet/*.perf.txt.gz: its structure
# on the quiet box, as `schedsim replay` reads it) beside the model's benchmark on the
# box's preset (`--machine kvm-2`) and the model's replay of the trace, and the identity
# table (tests/identity.rs: every quiet-box trace replayed under the kernel and
# preemption model that recorded it).
#
# Usage: scripts/ground-truth.sh [KERNEL ...]   (default: v6.5; e.g. v6.5 v6.6 v6.12 v6.18)
# Takes a few minutes on two cores; nothing here runs in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(v6.5)

# Two builds: `--example` would limit the first to the example alone.
cargo build --release --locked -p schedsim-cli >&2
cargo build --release --locked -p schedsim --example wake_stats >&2
bin=target/release/schedsim
stats=target/release/examples/wake_stats
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | measured.md key | model workload | clients | duration ms | trace (or -)
# The dbench rows are the model's loop device (the machine's image was loop-mounted).
loop='{"kind":"dbench","device":"loop"}'
cases=(
  "tbench, 1 client|tbench-1|tbench|1|1000|quiet/tbench-1.perf.txt.gz"
  "tbench, 2 clients|tbench-2|tbench|2|1000|quiet/tbench-2.perf.txt.gz"
  "dbench, 1 client (ext4 on loop)|dbench-1|$loop|1|1000|-"
  "dbench, 2 clients (ext4 on loop)|dbench-2|$loop|2|1000|quiet/dbench.perf.txt.gz"
  "perf bench sched pipe|pipe-unpinned|pipe|1|1000|quiet/pipe.perf.txt.gz"
  "perf bench sched messaging -g 2 -l 2000 (socket)|messaging-socket|{\"kind\":\"hackbench\",\"loops\":2000}|2|30000|quiet/messaging.perf.txt.gz"
  "perf bench sched messaging -p -g 2 -l 2000|messaging-pipe|{\"kind\":\"hackbench\",\"loops\":2000,\"pipe\":true}|2|30000|quiet/messaging-pipe.perf.txt.gz"
  "hackbench -g 2 --loops 2000 (socket)|hackbench-socket|{\"kind\":\"hackbench\",\"loops\":2000}|2|30000|quiet/hackbench.perf.txt.gz"
  "hackbench -p -g 2 --loops 2000|hackbench-pipe|{\"kind\":\"hackbench\",\"loops\":2000,\"pipe\":true}|2|30000|quiet/hackbench-pipe.perf.txt.gz"
)

for k in "${kernels[@]}"; do
  i=0
  for c in "${cases[@]}"; do
    IFS='|' read -r name key wl clients dur trace <<<"$c"
    $bin run --machine kvm-2 --workload "$wl" --clients "$clients" --iterations 3 --duration-ms "$dur" \
      --kernel "$k=$k" --json --no-progress >"$tmp/run-$k-$i.json"
    $bin show --machine kvm-2 --workload "$wl" --clients "$clients" --duration-ms "$dur" --kernel "$k=$k" \
      >"$tmp/exp-$k-$i.json"
    $stats <"$tmp/exp-$k-$i.json" >"$tmp/stats-$k-$i.json"
    if [ "$trace" != - ]; then
      $bin replay "traces/$trace" --machine kvm-2 --kernel "$k=$k" --json 2>/dev/null >"$tmp/replay-$k-$i.json"
    fi
    i=$((i + 1))
  done
done

# The pipe pair on one CPU (the machine's `taskset -c 0` probe), per kernel: how many
# wakeups a round trip takes tells whether the wakee preempts its waker at once (one) or
# waits for it to block (two).
for k in "${kernels[@]}"; do
  $bin run --topology 1x1x1x1 --workload pipe --clients 1 --iterations 1 --duration-ms 200 \
    --kernel "$k=$k+preempt-none" --json --no-progress >"$tmp/pipe1-$k.json"
done
# rt-app task sets (traces/rtapp/, `scripts/record-traces.sh rtapp`): the JSON the machine
# ran, run by the model (first kernel, 2 s like the recording), and the trace's replay.
k0=${kernels[0]}
: >"$tmp/rtapp.txt"
for f in traces/rtapp/*.facts; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .facts)
  json=$(sed -n 's/^rtapp_json: //p' "$f")
  [ -e "$json" ] || { echo "ground-truth.sh: $name: $json is not here (Debian's rt-app package); left out" >&2; continue; }
  $bin show --machine kvm-2 --workload "rtapp:$json" --clients 1 --iterations 1 --duration-ms 2000 --warmup-ms 0 \
    --kernel "$k0=$k0" >"$tmp/rtexp-$name.json" 2>/dev/null
  $stats <"$tmp/rtexp-$name.json" >"$tmp/rtstats-$name.json"
  $bin replay "traces/rtapp/$name.perf.txt.gz" --machine kvm-2 --kernel "$k0=$k0" --json 2>/dev/null >"$tmp/rtreplay-$name.json"
  echo "$name|$json" >>"$tmp/rtapp.txt"
done

# The identity table: every quiet-box trace under the kernel and model that recorded it.
cargo test --release --locked -p schedsim --test identity -- --ignored identity_table --nocapture 2>/dev/null |
  grep '^|' >"$tmp/identity.md"

printf '%s\n' "${cases[@]}" >"$tmp/cases.txt"
python3 - "$tmp" "${kernels[@]}" >docs/ground-truth.md <<'EOF'
import gzip, json, os, re, sys
tmp, kernels = sys.argv[1], sys.argv[2:]
cases = [l.rstrip("\n").split("|") for l in open(os.path.join(tmp, "cases.txt"))]
measured = {}
for line in open("traces/measured.md"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 6 and cells[4].startswith("**"):
        measured[cells[0]] = (cells[2], float(cells[4].strip("*")), cells[5])

def facts(trace):
    f = os.path.join("traces", trace.replace(".perf.txt.gz", ".facts"))
    out = {}
    for line in open(f):
        k, _, v = line.partition(":")
        out.setdefault(k.strip(), v.strip())
    return out

def bytes_per_op(raw):
    """The loadfile's bytes per operation, from the untraced runs' outputs: dbench and
    tbench count the bytes of ReadX/WriteX over the 10 s of `-t 10`, and print every
    operation's count."""
    mb = ops = 0.0
    for line in open(os.path.join("traces/raw", raw)):
        m = re.match(r"\s+([A-Za-z]+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s*$", line)
        if m:
            ops += int(m.group(2))
        m = re.match(r"Throughput ([\d.]+) MB/sec", line)
        if m:
            mb += float(m.group(1)) * 10
    return mb * 1e6 / ops

def trace_ops(trace, span_ns):
    """Operations in a trace's window: messages or round trips of a whole run, or the
    traced run's MB/s (its facts' benchmark_output) over the window in the loadfile's
    bytes per op of the untraced runs."""
    base = os.path.basename(trace).split(".")[0]
    if base.startswith(("messaging", "hackbench")):
        return 20 * 20 * 500  # -g 1 -l 500: 20 senders x 20 receivers x 500 loops
    if base == "pipe":
        return 20000  # -l 20000, the whole run in the window
    m = re.search(r"Throughput ([\d.]+) MB/sec", facts(trace).get("benchmark_output", ""))
    raw = {"tbench-1": "tbench-1.txt", "tbench-2": "tbench-2.txt", "dbench": "dbench-2.txt"}[base]
    return float(m.group(1)) * 1e6 * span_ns / 1e9 / bytes_per_op(raw) if m else None

def trace_cpu_ns(trace):
    """CPU time of every task in the trace's window (sched_stat_runtime)."""
    total = 0
    for line in gzip.open(os.path.join("traces", trace), "rt"):
        m = re.search(r"sched_stat_runtime: .* runtime=(\d+)", line)
        if m:
            total += int(m.group(1))
    return total

def model_ops(exp, value, elapsed_ns):
    """Operations of the model's run: an op of `op_bytes` / `msg_bytes` (dbench,
    tbench: value in MB/s), a round trip (pipe: µs per op), a message (hackbench)."""
    w = exp["workload"]
    kind = w["kind"]
    if kind in ("tbench", "dbench"):
        return value * 1e6 * elapsed_ns / 1e9 / w.get("op_bytes", w.get("msg_bytes", 4096))
    if kind == "pipe":
        return elapsed_ns / 1e3 / value if value else None
    if kind == "hackbench":
        return exp["clients"][0] * w["fds"] ** 2 * w["loops"]
    return None

def load(name):
    p = os.path.join(tmp, name)
    return json.load(open(p)) if os.path.exists(p) else None

def hmean(run):
    pt = run["configs"][0]["points"][0]
    s = [x for x in pt["samples"] if x > 0]
    return len(s) / sum(1 / x for x in s) if s else 0.0

def pct(a, b):
    return f"{100 * a / b:.1f}%" if b else "-"

f0 = facts(cases[4][5])
print("# The benchmarks as the machine runs them\n")
print("Generated by `scripts/ground-truth.sh " + " ".join(kernels) + "`; do not edit by hand.")
print(f"The machine: the 2-vCPU KVM guest of `traces/README.md`, kernel {f0['kernel']}, preemption")
print(f"model `{f0['preempt_model']}` ({f0['preempt_model_source'].split(';')[0]}), HZ {f0['hz']}, recorded on a quiet box")
print("(`traces/quiet/*.facts`: 1-minute load average 0.13-0.28 before each recording), and its")
print("preset `kvm-2`, whose model is the box's (`none`). The model's numbers: 3 iterations,")
print("Hmean, on `kvm-2`.\n")
print("## Identity: every quiet-box trace replayed under its own kernel and model\n")
print("`tests/identity.rs` (`identity_table`): each trace of `traces/quiet/` replayed by")
print("`schedsim replay` on `kvm-2` under the kernel version and preemption model its facts")
print("name; each cell is observed / model. Bands: wakeups within 15%, migrations per 1,000")
print("wakeups within 2x or ±3, run delay p50 within 2x or ±3 µs, p99 within 3x, voluntary and")
print("involuntary switches within 25%; the last column counts the bands missed (each")
print("trace's test is `#[ignore]`d with its numbers where it misses one).\n")
print(open(os.path.join(tmp, "identity.md")).read())
print("## Throughput\n")
print("| benchmark | unit | machine (median of 3) | " + " | ".join(f"model {k}" for k in kernels) + " |")
print("|---|---|---|" + "---|" * len(kernels))
for i, (name, key, wl, clients, dur, trace) in enumerate(cases):
    unit, med, _load = measured.get(key, ("?", float("nan"), ""))
    unit = {"µs per round trip": "µs per round trip (model: usecs/op)"}.get(unit, unit)
    cols = []
    for k in kernels:
        r = load(f"run-{k}-{i}.json")
        cols.append(f"{hmean(r):.3f}" if r else "-")
    print(f"| {name} | {unit} | {med:g} | " + " | ".join(cols) + " |")
print()
print("The pipe benchmark's model reports µs per operation (one round trip). The model's")
print("hackbench is `perf bench sched messaging` and rt-tests' `hackbench` (`-l` is its")
print("`--loops`) alike. The dbench rows run the model's loop device")
print("(`{\"kind\":\"dbench\",\"device\":\"loop\"}`), as the machine's image was loop-mounted.\n")
print("## Wakeups per operation: the benchmark models against the machine\n")
print("The machine's from its trace (operations in the window as the next section says); the")
print(f"model's from its own benchmark run ({kernels[0]}, first iteration). Within 25% is the goal.\n")
print("| benchmark | machine (trace) | model | model / machine |")
print("|---|---|---|---|")
k = kernels[0]
for i, (name, key, wl, clients, dur, trace) in enumerate(cases):
    rep = load(f"replay-{k}-{i}.json")
    st = load(f"stats-{k}-{i}.json")
    if rep is None or st is None:
        continue
    tops = trace_ops(trace, rep["trace"]["span_ns"])
    ex = load(f"exp-{k}-{i}.json")
    mops = model_ops(ex, st["value"], st["elapsed_ns"])
    if tops and mops:
        a, b = rep["observed"]["wakeups"] / tops, st["stats"]["wakeups"] / mops
        print(f"| {name} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
print()
print("## Structure: what the trace shows, what the model's benchmark does, what its replay does\n")
print("Per benchmark: the trace's wakeups (`schedsim replay`'s observed column), the model's")
print("own benchmark run (kernel first listed, first iteration, wake log on: `examples/wake_stats.rs`),")
print("and the model's replay of the trace. The trace windows are short (0.3-1.4 s) and their")
print("parameters are in `traces/README.md` and each trace's facts; shares and rates compare, counts")
print("do not. An operation is a loadfile op (tbench, dbench: the traced run's MB/s over the")
print("window, in the bytes per op of the untraced runs' op counts), a round trip (pipe), a")
print("message (messaging, hackbench).\n")
rows = [
    ("wakeups per second", lambda s, el: f"{s['wakeups'] / (el / 1e9):.0f}" if el else "-"),
    ("share from a task", lambda s, el: pct(s["by_waker"]["task"], s["wakeups"])),
    ("share from a kernel thread", lambda s, el: pct(s["by_waker"]["kernel_thread"], s["wakeups"])),
    ("share from idle (interrupt)", lambda s, el: pct(s["by_waker"]["idle"], s["wakeups"])),
    ("migrations / 1000 wakeups", lambda s, el: f"{s['migrations_per_1000_wakeups']:.1f}"),
    ("run delay p50 (µs)", lambda s, el: f"{s['run_delay_us']['p50']:.1f}"),
    ("run delay p95 (µs)", lambda s, el: f"{s['run_delay_us']['p95']:.1f}"),
    ("run delay p99 (µs)", lambda s, el: f"{s['run_delay_us']['p99']:.1f}"),
    ("CPU busy share", lambda s, el: f"{s['cpu_busy_share']:.3f}"),
]

def structure_table(rep, st, model_head):
    """The rows above for the trace, the model's own run (`st`) and the trace's replay."""
    sim = rep["simulated"][0]
    print(f"| | machine (trace) | {model_head} | model's replay of the trace |")
    print("|---|---|---|---|")
    for label, f in rows:
        print(f"| {label} | {f(rep['observed'], rep['trace']['span_ns'])} | {f(st['stats'], st['elapsed_ns'])} | {f(sim, sim['elapsed_ns'])} |")
    return sim

for i, (name, key, wl, clients, dur, trace) in enumerate(cases):
    rep = load(f"replay-{k}-{i}.json")
    st = load(f"stats-{k}-{i}.json")
    if rep is None:
        continue
    print(f"### {name}\n")
    print(f"Trace `traces/{trace}` ({rep['trace']['span_ns'] / 1e6:.0f} ms); model: `{wl}`, {clients} clients, kernel {k}.\n")
    sim = structure_table(rep, st, "model's benchmark")
    ex = load(f"exp-{k}-{i}.json")
    tops = trace_ops(trace, rep["trace"]["span_ns"])
    mops = model_ops(ex, st["value"], st["elapsed_ns"])
    nobs = rep["observed"]["wakeups"]
    print(f"| wakeups per operation | {nobs / tops:.3f} | {st['stats']['wakeups'] / mops:.3f} | - |" if tops and mops else "| wakeups per operation | - | - | - |")
    print(f"| CPU time per wakeup (µs) | {trace_cpu_ns(trace) / nobs / 1e3:.1f} | {st['cpu_ns_per_wakeup'] / 1e3:.1f} | - |")
    print(f"| replay throughput (x recorded) | 1.00 | - | {sim['replay_throughput']:.2f} |")
    print()

rt = [l.rstrip("\n").split("|") for l in open(os.path.join(tmp, "rtapp.txt")) if l.strip()]
if rt:
    print("## rt-app task sets: the machine, the same JSON in the model, the trace's replay\n")
    print("Each rt-app file as the box ran it (`scripts/record-traces.sh rtapp`: 2 s, rt-app's")
    print("calibration done before the trace, `traces/rtapp/NAME.facts`), as `--workload rtapp:FILE`")
    print(f"runs it in the model ({k}, 2 s, no warm-up, one iteration on `kvm-2`), and the model's")
    print("replay of the trace. rt-app's own summary of its logs follows each table (per thread:")
    print("loops, and the run, period and slack columns of its log, µs; `run` is the wall time of")
    print("the run event, preemption included).\n")
    for name, json_path in rt:
        rep, st = load(f"rtreplay-{name}.json"), load(f"rtstats-{name}.json")
        if rep is None or st is None:
            continue
        fx = facts(f"rtapp/{name}.perf.txt.gz")
        print(f"### {name}\n")
        print(f"`{json_path}`; trace `traces/rtapp/{name}.perf.txt.gz` ({rep['trace']['span_ns'] / 1e6:.0f} ms, load {fx.get('load_average_1min_before', '?')} before).\n")
        sim = structure_table(rep, st, "the JSON in the model")
        sw, ssw = rep["switches"], sim["switches"]
        print(f"| voluntary / involuntary switches | {sw['voluntary']} / {sw['involuntary']} | - | {ssw[0]} / {ssw[1]} |")
        print(f"| model's rt-app work (CPUs busy) | - | {st['value']:.3f} | - |")
        print()
        print("```")
        print(open(f"traces/rtapp/{name}.rtapp-log.txt").read().rstrip())
        print("```\n")

print("## The pipe pair on one CPU\n")
print("`perf bench sched pipe` with both ends on one CPU: the machine's `taskset -c 0` probe")
print("(`traces/measured.md`, pipe-cpu0) and the model's `pipe` benchmark on `1x1x1x1` with the")
print("box's model (`+preempt-none`), 200 ms. One wakeup per round trip means the wakee")
print("preempts its waker (at the waker's return to user mode, before its read), and the waker,")
print("still runnable when the answer comes, is not woken again; two mean each end waits until")
print("the other blocks.\n")
unit, med, _l = measured.get("pipe-cpu0", ("?", float("nan"), ""))
print("| | µs per round trip | wakeups per round trip |")
print("|---|---|---|")
print(f"| machine, pinned probe | {med:g} | - |")
for k in kernels:
    r = load(f"pipe1-{k}.json")
    pt = r["configs"][0]["points"][0]
    us = pt["samples"][0]
    w = pt["counters"]["wakeups"]
    print(f"| model {k} | {us:.2f} | {w / (200e3 / us):.2f} |")
print()
print(open("docs/ground-truth-notes.md").read())
EOF
echo "wrote docs/ground-truth.md" >&2
