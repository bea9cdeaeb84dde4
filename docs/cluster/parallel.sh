#!/bin/sh
# A schedsim sweep as N shards under GNU parallel (this machine's cores, or other
# machines' with --sshloginfile), then the merge; prints what 'schedsim run' prints.
#
#   docs/cluster/parallel.sh EXPERIMENT.json N PARTS_DIR [MERGE OPTIONS...]
#   docs/cluster/parallel.sh exp.json 8 parts --json --out report.json
#
# The line that does the work, to paste elsewhere:
#   seq N | parallel --halt now,fail=1 schedsim run exp.json --shard {}/N --jobs 1 --out parts/part-{}.jsonl
# Run it again after an interruption: each shard skips the runs its part has.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 EXPERIMENT.json N PARTS_DIR [MERGE OPTIONS...]" >&2
    exit 2
fi
exp=$1 n=$2 parts=$3
shift 3
# The binary to run (default: schedsim on PATH).
schedsim=${SCHEDSIM:-schedsim}

mkdir -p "$parts"
seq "$n" | parallel --will-cite --halt now,fail=1 \
    "$schedsim" run "$exp" --shard "{}/$n" --jobs 1 --no-progress --out "$parts/part-{}.jsonl"
i=1 files=
while [ "$i" -le "$n" ]; do
    files="$files $parts/part-$i.jsonl"
    i=$((i + 1))
done
# shellcheck disable=SC2086 # the part names are ours, without spaces unless PARTS_DIR has them
exec "$schedsim" merge $files "$@"
