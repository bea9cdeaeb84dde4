#!/usr/bin/env bash
# The cases of scripts/policy-speed.sh compiled to WebAssembly, as V8 runs them:
# instructions per simulated wakeup of the two byte-identical templates against the
# built-in kernel they reproduce, in the page's engine.
#
# Builds crates/schedsim-wasm-bench with its `policy` feature (the Rhai engine in the
# module) for wasm32 with the page worker's profile (`web`), passes it through
# wasm-opt -O3 when tools/node_modules has it (as scripts/wasm-instr-per-wakeup.sh does),
# and runs each case's export `policy_bench(case, runs)` in Node under callgrind, V8's
# optimising tier only. Start-up is removed by running each case once and twice: the
# figure is the difference of the two counts over one run's wakeups. Node's V8 is older
# than the browser's: a proxy for the page, not its exact count.
#
# Usage: scripts/wasm-policy-speed.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/lib/wasm-bench.sh
. scripts/lib/wasm-bench.sh
wasm_tools_or_exit
wasm_bench_module "${1:-}" -O3 --features policy
cat >"$tmp/run.mjs" <<'JS'
import fs from 'fs';
const { instance } = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]), {});
if (!instance.exports.policy_bench) throw new Error('the module has no policy_bench: build it with --features policy');
console.log(String(instance.exports.policy_bench(+process.argv[3], +process.argv[4])));
JS

# run CASE RUNS: sets instr and wakeups (those of one run)
run() { wasm_callgrind "$1" "$2"; }

# per CASE: sets per (instructions per wakeup of one run, start-up removed)
per() {
  run "$1" 1
  local i1=$instr
  run "$1" 2
  per=$(((instr - i1) / wakeups))
  case_wakeups=$wakeups
}

echo "WebAssembly in Node $(node --version), V8 optimising tier, callgrind; module: profile web, $how"
for c in tbench256 seed001; do
  case $c in
    tbench256) b=0 s=1 names="v5.15 | v5.15 + the sis-v5.15 template" ;;
    seed001) b=2 s=3 names="v3.8+sis-prev-idle | v3.8 + the seed001-v3.8 template" ;;
  esac
  per $b
  pb=$per wb=$case_wakeups
  per $s
  ps=$per
  if [ "$wb" != "$case_wakeups" ]; then
    echo "$c: the script woke $case_wakeups tasks, the kernel $wb" >&2
    exit 1
  fi
  echo "$c ($wb wakeups): $names: $pb | $ps instructions per wakeup; ratio" \
    "$((ps * 100 / pb / 100)).$(printf '%02d' $((ps * 100 / pb % 100)))"
done
