# Sourced by scripts/instr-per-wakeup.sh and scripts/lib/wasm-bench.sh: reading a
# callgrind run's count, and stopping when a run gave no usable figures.

# callgrind_instructions LOG: the instructions callgrind reports collected in LOG.
callgrind_instructions() {
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$1" | tail -1
}

# need_counts INSTRUCTIONS WAKEUPS DIR: exits (keeping DIR, with its logs, for a look)
# unless both figures were read and the run woke something. Call it from the script's
# own shell, not a subshell, so that the exit and the kept directory take effect.
need_counts() {
  if [ -z "$1" ] || [ -z "$2" ] || [ "$2" -eq 0 ]; then
    echo "could not read the instruction count or the wakeups (see $3)" >&2
    trap - EXIT
    exit 1
  fi
}
