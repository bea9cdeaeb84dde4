#!/usr/bin/env bash
# Instructions per simulated wakeup: the noise-free speed figure of the simulator.
#
# Builds the release CLI and runs the `schedsim bench` tbench-8 case (tbench 8 pairs on
# 1x1x10x2, kernel v5.15, 200 ms, no warm-up, one iteration) under
# `valgrind --tool=callgrind`, then prints the run's instructions, its wakeups counter (from
# the JSON report) and their ratio. Start-up (argument parsing, domain building, report
# writing) is measured by the same case run for 1 ms and shown apart; the marginal figure
# divides the difference of the two runs' instructions by the difference of their wakeups.
#
# Usage: scripts/instr-per-wakeup.sh [--no-build] [--workload W] [--clients N]
# (another workload on the same machine, kernel and window: `--workload rtapp:pingpong
# --clients 8` is issue 43's rt-app figure, to be within 1.3x of tbench's).
set -euo pipefail
cd "$(dirname "$0")/.."

build=1 workload=tbench clients=8
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --workload) workload=$2; shift ;;
    --clients) clients=$2; shift ;;
    *) echo "usage: $0 [--no-build] [--workload W] [--clients N]" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind is not installed: instructions per wakeup not measured (apt-get install valgrind)"
  exit 0
fi

if [ "$build" = 1 ]; then
  cargo build --release --locked -p schedsim-cli >&2
fi
bin=target/release/schedsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/lib/callgrind.sh
. scripts/lib/callgrind.sh

# run DURATION_MS: sets instr and wakeups
run() {
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    "$bin" run --topology 1x1x10x2 --workload "$workload" --clients "$clients" --kernel v5.15=v5.15 \
    --duration-ms "$1" --warmup-ms 0 --iterations 1 --seed 1 --json --no-progress \
    >"$tmp/report.json" 2>"$tmp/valgrind.log"
  instr=$(callgrind_instructions "$tmp/valgrind.log")
  wakeups=$(sed -n 's/^ *"wakeups": \([0-9]*\).*/\1/p' "$tmp/report.json" | head -1)
  need_counts "$instr" "$wakeups" "$tmp"
}

run 1
instr0=$instr wakeups0=$wakeups
run 200

echo "case: $workload, $clients clients, 1x1x10x2, v5.15, 200 ms, no warm-up (callgrind)"
echo "instructions:              $instr"
echo "wakeups:                   $wakeups"
echo "instructions per wakeup:   $((instr / wakeups))"
echo "start-up (1 ms run):       $instr0 instructions, $wakeups0 wakeups"
echo "marginal per wakeup:       $(((instr - instr0) / (wakeups - wakeups0)))"
