# Sourced by scripts/wasm-instr-per-wakeup.sh and scripts/wasm-policy-speed.sh: the
# module of crates/schedsim-wasm-bench built for wasm32 with the page worker's profile
# (`web`), passed through binaryen's wasm-opt, and run in Node's V8 (optimising tier
# only) under callgrind.

# shellcheck source=scripts/lib/callgrind.sh
. "$(dirname "${BASH_SOURCE[0]}")/callgrind.sh"

# wasm_tools_or_exit: exits 0, saying so, when valgrind or node is missing.
wasm_tools_or_exit() {
  for tool in valgrind node; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$tool is not installed: WebAssembly instructions per wakeup not measured"
      exit 0
    fi
  done
}

# wasm_bench_module BUILD FLAGS [CARGO_ARG...]: builds the module with CARGO_ARGs
# (e.g. --features policy) unless BUILD is --no-build, and writes $tmp/case.wasm through
# `wasm-opt FLAGS` when tools/node_modules has it (FLAGS "none": no wasm-opt). Sets tmp
# (a directory removed at exit) and how (the module's making, in words).
wasm_bench_module() {
  local build=$1 flags=$2
  shift 2
  local wasm=target/wasm32-unknown-unknown/web/schedsim_wasm_bench.wasm
  if [ "$build" != "--no-build" ]; then
    rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
    cargo build --locked --profile web -p schedsim-wasm-bench "$@" --target wasm32-unknown-unknown >&2
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  local opt=tools/node_modules/.bin/wasm-opt
  if [ "$flags" = none ]; then
    cp "$wasm" "$tmp/case.wasm"
    how="no wasm-opt"
  elif [ -x "$opt" ]; then
    # shellcheck disable=SC2086 # the flags are words
    "$opt" $flags "$wasm" -o "$tmp/case.wasm"
    how="wasm-opt $flags"
  else
    cp "$wasm" "$tmp/case.wasm"
    how="no wasm-opt (tools/node_modules has none: scripts/serve.sh installs it)"
  fi
}

# wasm_callgrind ARG...: runs `node $tmp/run.mjs $tmp/case.wasm ARG...` under callgrind
# (the script writes run.mjs, which prints the wakeups of one run last); sets instr and
# wakeups, or exits keeping $tmp when they cannot be read.
wasm_callgrind() {
  valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file="$tmp/cg.out" \
    node --no-liftoff "$tmp/run.mjs" "$tmp/case.wasm" "$@" >"$tmp/out" 2>"$tmp/valgrind.log"
  instr=$(callgrind_instructions "$tmp/valgrind.log")
  wakeups=$(tail -1 "$tmp/out")
  need_counts "$instr" "$wakeups" "$tmp"
}
