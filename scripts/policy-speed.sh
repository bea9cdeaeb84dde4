#!/usr/bin/env bash
# The speed of a policy script against the built-in kernel it reproduces: instructions per
# simulated wakeup (callgrind, start-up removed) for the two byte-identical templates.
#
#   seed001:  seed 001's experiment (westmere-1s, tbench 1 pair, 3 x 400 ms), the
#             built-in v3.8+sis-prev-idle against v3.8 + the seed001-v3.8 template
#   tbench256: tbench 128 pairs on milan-2s (256 CPUs), v5.15, 20 ms, no warm-up, one
#             iteration, the built-in v5.15 against v5.15 + the sis-v5.15 template
#
# Each case runs once as given and once for 1 ms (one iteration): the figure is the
# difference of the two runs' instructions over the difference of their wakeups, so the
# process start-up, the domain building and the report are left out. Each pair's reports
# are checked to be the same but for the kernel's label, so the figures compare one
# simulation computed two ways. The experiment is read from a file written by `schedsim
# show`, so the CLI does not build its presets (the replay presets import their traces).
#
# Usage: scripts/policy-speed.sh [--no-build] [CASE...]   (CASE: seed001, tbench256)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind is not installed: instructions per wakeup not measured (apt-get install valgrind)"
  exit 0
fi
if [ "${1:-}" = "--no-build" ]; then
  shift
else
  cargo build --release --locked -p schedsim-cli >&2
fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(seed001 tbench256)
bin=target/release/schedsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/lib/callgrind.sh
. scripts/lib/callgrind.sh

"$bin" show seed001 >"$tmp/seed001.json"
"$bin" show --machine milan-2s --workload tbench --clients 128 --duration-ms 20 --warmup-ms 0 \
  --iterations 1 --seed 1 >"$tmp/tbench256.json"

# count NAME KERNEL [ARGS...]: sets instr and wakeups of the case's file run with KERNEL
count() {
  local name=$1 kernel=$2
  shift 2
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    "$bin" run "$tmp/$name.json" --kernel "$kernel" "$@" --json --no-progress \
    >"$tmp/report.json" 2>"$tmp/valgrind.log"
  instr=$(callgrind_instructions "$tmp/valgrind.log")
  wakeups=$(sed -n 's/^ *"wakeups": \([0-9]*\).*/\1/p' "$tmp/report.json" | head -1)
  need_counts "$instr" "$wakeups" "$tmp"
}

# marginal NAME KERNEL: sets per (instructions per wakeup, start-up removed) and keeps
# the full run's report as $tmp/last.json
marginal() {
  count "$1" "$2" --duration-ms 1 --warmup-ms 0 --iterations 1
  local i0=$instr w0=$wakeups
  count "$1" "$2"
  cp "$tmp/report.json" "$tmp/last.json"
  per=$(((instr - i0) / (wakeups - w0)))
  total_wakeups=$wakeups
}

# same A B: the two reports' results (from "points" on: not the kernel's label or its
# note that a switch is not historical)
same() {
  sed -n '/"points"/,$p' "$1" >"$tmp/x"
  sed -n '/"points"/,$p' "$2" >"$tmp/y"
  if ! cmp -s "$tmp/x" "$tmp/y"; then
    echo "the script's results differ from the built-in kernel's (kept in $tmp)" >&2
    trap - EXIT
    exit 1
  fi
}

for c in "${cases[@]}"; do
  case $c in
    seed001) builtin=v3.8=v3.8+sis-prev-idle script=v3.8=v3.8+policy:template:seed001-v3.8 ;;
    tbench256) builtin=v5.15=v5.15 script=v5.15=v5.15+policy:template:sis-v5.15 ;;
    *) echo "no case $c (seed001, tbench256)" >&2; exit 2 ;;
  esac
  marginal "$c" "$builtin"
  b=$per
  cp "$tmp/last.json" "$tmp/builtin.json"
  marginal "$c" "$script"
  s=$per
  same "$tmp/builtin.json" "$tmp/last.json"
  echo "$c ($total_wakeups wakeups): built-in $builtin $b, script $script $s instructions per wakeup;" \
    "ratio $((s * 100 / b / 100)).$(printf '%02d' $((s * 100 / b % 100)))"
done
