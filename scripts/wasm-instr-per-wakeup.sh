#!/usr/bin/env bash
# Instructions per simulated wakeup of the simulator compiled to WebAssembly, as V8 runs
# it: the page's cost next to the native figure of scripts/instr-per-wakeup.sh.
#
# Builds crates/schedsim-wasm-bench (the same tbench-8 case: tbench 8 pairs on
# 1x1x10x2, v5.15, 200 ms, no warm-up) for wasm32 with the page worker's cargo profile
# (`web`), passes it through wasm-opt -O3 as Trunk does for the page when binaryen's
# wasm-opt is in tools/node_modules, and runs it in Node under
# `valgrind --tool=callgrind`, with V8's optimising compiler only (`--no-liftoff`, the
# tier a sweep's run spends its time in). Start-up (Node, compiling the module) is
# removed by running the case once and three times: the figure is the difference of the
# two counts over two runs' wakeups. Node's V8 is older than the browser's, so this is a
# proxy for the page, not its exact count. V8 compiles and collects garbage on threads of
# its own, so the same module reads a little differently run to run (6,098 and 6,121 for
# one build): far less than wall time on a shared box varies, enough to tell whether a
# change to the Rust code makes the WebAssembly cheaper by more than half a percent. It does not judge wasm-opt's flags:
# Node 20's V8 runs the -O3 module 9% slower than the unoptimised one (6,514 against
# 6,299 instructions per wakeup), while Chromium 156 runs both at the same speed (96 and
# 97 ms per run), and the page keeps -O3 for its 18% smaller download.
#
# Usage: scripts/wasm-instr-per-wakeup.sh [--no-build]
#   WASM_OPT_FLAGS="-O2" to try other wasm-opt flags ("none": no wasm-opt at all).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/lib/wasm-bench.sh
. scripts/lib/wasm-bench.sh
wasm_tools_or_exit
wasm_bench_module "${1:-}" "${WASM_OPT_FLAGS:--O3}"
cat >"$tmp/run.mjs" <<'EOF'
import fs from 'fs';
const { instance } = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]), {});
console.log(String(instance.exports.bench(+process.argv[3])));
EOF

# run RUNS: sets instr and wakeups (those of one run)
run() { wasm_callgrind "$1"; }

run 1
i1=$instr
run 3
i3=$instr

echo "case: tbench 8 pairs, 1x1x10x2, v5.15, 200 ms, no warm-up (WebAssembly in Node $(node --version), V8 optimising tier, callgrind)"
echo "module:                    profile web, $how"
echo "instructions, 1 run:       $i1"
echo "instructions, 3 runs:      $i3"
echo "wakeups per run:           $wakeups"
echo "instructions per wakeup:   $(((i3 - i1) / (2 * wakeups)))"
