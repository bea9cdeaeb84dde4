#!/usr/bin/env bash
# Every report a behaviour-neutral change must leave byte-identical, into one directory:
# for each preset `run --json` and `--csv`, `trace` of each kernel, `diff` of kernels 0
# and 1 (JSON) and a Perfetto recording; plus the instructions-per-wakeup case's report.
# Compare two snapshots with `diff -r`.
#
# Usage: scripts/report-snapshot.sh OUT_DIR [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/report-snapshot.sh OUT_DIR [--no-build]}
if [ "${2:-}" != "--no-build" ]; then
  cargo build --release --locked -p schedsim-cli >&2
fi
bin=$PWD/target/release/schedsim
mkdir -p "$out"
# "NAME KERNELS" for each built-in experiment, from the listing's name and kernels lines.
presets=$("$bin" presets | awk '/^Built-in experiments/{on=1; next} on && !NF {exit}
  on && $1 != "machine" && $1 != "kernels" {name=$1} on && $1 == "kernels" {print name ":" NF-1}')
[ -n "$presets" ] || { echo "no presets listed by 'schedsim presets'" >&2; exit 1; }
for pk in $presets; do
  p=${pk%%:*}
  kernels=${pk##*:}
  "$bin" run "$p" --json --no-progress >"$out/$p.run.json"
  "$bin" run "$p" --csv --no-progress >"$out/$p.run.csv"
  for k in $(seq 0 $((kernels - 1))); do
    "$bin" trace "$p" --kernel-index "$k" --from 50 --count 20 >"$out/$p.trace$k.txt"
  done
  "$bin" diff "$p" --kernel-index 0 --kernel-index 1 --count 400 --json >"$out/$p.diff.json"
  "$bin" perfetto "$p" --kernel-index 1 --from-ms 5 --to-ms 8 --out "$out/$p.perfetto.json"
done
"$bin" run --topology 1x1x10x2 --workload tbench --clients 8 --kernel v5.15=v5.15 \
  --duration-ms 200 --warmup-ms 0 --iterations 1 --seed 1 --json --no-progress >"$out/instr-case.json"
ls "$out" | wc -l
