#!/usr/bin/env bash
# record-traces.sh: re-record the real scheduler traces and untraced benchmark
# numbers kept under traces/ (see traces/README.md for what each file is).
#
# NOT run in CI. Needs root (perf sched record system-wide, a loop mount, the
# debugfs mount), a Debian 12 box with linux-perf 6.1, and these packages:
#   apt-get install -y dbench rt-tests trace-cmd libtraceevent1-plugin
# (dbench gives dbench/tbench/tbench_srv; rt-tests gives hackbench); and rt-app for
# the rtapp step.
#
# Usage:  scripts/record-traces.sh [box|record|cross|text|counts|wakers|bench|probe|measured|all]...
#   box     verbatim machine facts            -> traces/box/
#   record  perf sched record of 6 workloads  -> $SCRATCH/*.data (not committed)
#   cross   the pipe pair pinned to CPU 0 / CPU 1 -> $SCRATCH/pipe-cross.data
#   text    perf script text forms, gzip -9   -> traces/*.perf*.txt.gz
#   counts  awk-only independent counts       -> traces/*.counts
#   wakers  waker -> wakee comm pairs         -> traces/raw/*.wakers.txt
#   bench   untraced throughput, 3 runs each  -> traces/raw/*.txt
#   probe   pipe same/cross CPU under SCHED_FIFO -> traces/raw/*-fifo.txt
#   measured  medians of the bench runs       -> traces/measured.md
#   quiet   quiet-box traces (load < 0.3), with facts -> traces/quiet/
#   rtapp   rt-app task sets (workloads/rtapp/*.json, and Debian's mp3-short and
#           spreading-tasks examples) on the quiet box -> traces/rtapp/ (trace, facts,
#           rt-app's own per-thread summary of its logs)
#   all     all of the above, in that order (the default)
#
# Idempotent: every step overwrites its outputs; the dbench loop image is made
# and mounted only if it is not mounted already; servers it starts are stopped
# by pid. Scratch data (perf.data files, the 2 GB ext4 image, the small C
# project) goes to $SCRATCH, default /tmp/schedsim-traces.
#
# The numbers depend on the box and on whatever else runs on it: every run
# logs `uptime` next to it.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/traces
SCRATCH=${SCRATCH:-/tmp/schedsim-traces}
MNT=${MNT:-/mnt/dbench}
IMG=$SCRATCH/dbench.img
LOADFILE=/usr/share/dbench/client.txt
# perf sched record (perf 6.1) records sched_switch, sched_stat_runtime,
# sched_process_fork, sched_wakeup_new, sched_migrate_task, sched_waking and
# always system-wide (-a). We add sched_wakeup and sched_process_exit, and a
# 16 MB ring buffer per CPU: with the default one, perf lost 36% of the events
# of `perf bench sched pipe -l 20000` on this box.
PSR=(perf sched record -m 16M -e sched:sched_wakeup -e sched:sched_process_exit)

mkdir -p "$OUT/box" "$OUT/raw" "$SCRATCH"
[ "$(id -u)" = 0 ] || { echo "record-traces.sh: needs root" >&2; exit 1; }

log() { echo "== $(date -u +%H:%M:%S) $*" >&2; }
load() { uptime | sed 's/.*load average/load average/'; }

# ---------------------------------------------------------------- box facts
box() {
    local B=$OUT/box
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug || true
    mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing || true
    lscpu -p > "$B/lscpu-p.txt"
    lscpu > "$B/lscpu.txt"
    uname -a > "$B/uname-a.txt"
    head -30 /proc/cpuinfo > "$B/cpuinfo-head30.txt"
    perf --version > "$B/perf-version.txt"
    { for f in /sys/devices/system/cpu/cpuidle/*; do echo "== $f"; cat "$f" 2>&1; done; } > "$B/cpuidle.txt"
    { for d in /sys/devices/system/cpu/cpu*/cpuidle/state*; do
          for k in name desc latency residency disable; do
              [ -e "$d/$k" ] && echo "$d/$k: $(cat "$d/$k" 2>&1)"
          done
      done; } > "$B/cpuidle-states.txt" 2>&1
    { for f in /sys/module/haltpoll/parameters/* /sys/module/cpuidle_haltpoll/parameters/*; do
          [ -e "$f" ] && echo "$f: $(cat "$f" 2>&1)"
      done; } > "$B/haltpoll-params.txt"
    # only the scheduler/idle-relevant kernel parameters, not the whole command line
    tr ' ' '\n' < /proc/cmdline | grep -E '^(mitigations|cpuidle_haltpoll|haltpoll|sched_|psi|nested_pvm)' \
        > "$B/kernel-cmdline-sched-idle-params.txt" || true
    { for f in /proc/sys/kernel/sched_*; do echo "$f: $(cat "$f" 2>&1)"; done; } > "$B/proc-sys-kernel-sched.txt"
    { for f in /sys/kernel/debug/sched/*; do
          if [ -d "$f" ]; then echo "== $f (dir)"; ls "$f"
              for g in "$f"/*; do [ -f "$g" ] && { echo "== $g"; cat "$g" 2>&1; }; done
          else echo "== $f"; cat "$f" 2>&1; fi
      done; } > "$B/debugfs-sched.txt" 2>&1 || true
    mount | grep -E 'debugfs|tracefs' > "$B/mounts-debug-trace.txt" || true
    # the tracepoint formats perf copies into perf.data (what perf script prints from)
    { ls /sys/kernel/tracing/events/sched/
      for e in sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task \
               sched_process_fork sched_process_exit sched_stat_runtime; do
          echo "== /sys/kernel/tracing/events/sched/$e/format"; cat "/sys/kernel/tracing/events/sched/$e/format"
      done; } > "$B/tracepoint-formats.txt" 2>&1 || true
    # trace-cmd: tried once, refused on this box ("Can't enable ftrace")
    { echo "\$ trace-cmd record -e sched:sched_switch -o tc.dat sleep 0.2"
      (cd "$SCRATCH" && timeout 20 trace-cmd record -e sched:sched_switch -o tc.dat sleep 0.2 2>&1; echo "exit status $?") | tail -5
    } > "$B/trace-cmd-record.txt" 2>&1 || true
}

# ---------------------------------------------------------------- dbench mount
dbench_mount() {
    if ! mountpoint -q "$MNT"; then
        truncate -s 2G "$IMG"
        mkfs.ext4 -q -F "$IMG"
        mkdir -p "$MNT"
        mount -o loop "$IMG" "$MNT"
    fi
    mount | grep " $MNT " > "$OUT/box/dbench-mount.txt"
}

tbench_srv_start() {
    tbench_srv > "$SCRATCH/tbench_srv.log" 2>&1 &
    SRV=$!
    sleep 0.5
}
tbench_srv_stop() { kill "$SRV" 2>/dev/null || true; wait "$SRV" 2>/dev/null || true; }

# a small C project for the non-benchmark workload (make -j2)
make_project() {
    local P=$SCRATCH/cproj
    rm -rf "$P"; mkdir -p "$P"
    for i in $(seq 1 60); do
        { echo "#include <stdio.h>"; echo "#include <string.h>"; echo "#include <stdlib.h>"
          echo "int f$i(int x) { int a[64]; for (int k = 0; k < 64; k++) a[k] = x * k + $i; return a[x & 63]; }"; } > "$P/f$i.c"
    done
    { echo "#include <stdio.h>"; for i in $(seq 1 60); do echo "int f$i(int);"; done
      echo "int main(void) { int s = 0;"; for i in $(seq 1 60); do echo "s += f$i(s);"; done
      echo "printf(\"%d\\n\", s); return 0; }"; } > "$P/main.c"
    printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard *.c))\nprog: $(OBJS)\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\nclean:\n\trm -f *.o prog\n' > "$P/Makefile"
}

# ---------------------------------------------------------------- record
record() {
    local S=$SCRATCH L=$OUT/raw/record-log.txt
    : > "$L"
    rec() { # name, then the perf sched record argument tail
        local name=$1; shift
        log "record $name"
        { echo "## $name  $(date -u +%FT%TZ)  $(load)"
          echo "\$ ${PSR[*]} -o $name.data $*"
          "${PSR[@]}" -o "$S/$name.data" "$@" 2>&1 | tail -4
        } >> "$L" 2>&1
    }
    # 1. pipe, unpinned (the command is perf bench itself; perf sched record is -a anyway)
    rec pipe -- perf bench sched pipe -l 20000
    # 2. messaging, socket and pipe mode
    rec messaging -- perf bench sched messaging -g 1 -l 500
    rec messaging-pipe -- perf bench sched messaging -p -g 1 -l 500
    # 3. tbench over loopback, 2 clients; 0.3 s system-wide after 1 s warm-up
    tbench_srv_start
    tbench -t 5 -c "$LOADFILE" 2 127.0.0.1 > "$S/tbench-traced.out" 2>&1 &
    local TB=$!
    sleep 1
    rec tbench -a -- sleep 0.3
    wait "$TB" || true
    tbench_srv_stop
    tail -1 "$S/tbench-traced.out" >> "$L"
    # 4. dbench on ext4 on a loop device, 2 clients; 0.5 s in the middle of 5 s
    dbench_mount
    dbench -t 5 -c "$LOADFILE" -D "$MNT" 2 > "$S/dbench-traced.out" 2>&1 &
    local DB=$!
    sleep 2.5
    rec dbench -a -- sleep 0.5
    wait "$DB" || true
    tail -1 "$S/dbench-traced.out" >> "$L"
    # 5. non-benchmark: make -j2 of a 61-file C project; 0.5 s after 0.2 s
    make_project
    (cd "$S/cproj" && make -s clean && make -s -j2 > /dev/null 2>&1) &
    local MK=$!
    sleep 0.2
    rec make -a -- sleep 0.5
    wait "$MK" || true
}

# ---------------------------------------------------------------- cross
# Added after the first recording: in pipe.data both ends ran on CPU 0, so
# this records the pipe pair pinned to CPU 0 and CPU 1 (pipe_cross below,
# nice 0, each end sharing its CPU with whatever else runs): 0.3 s
# system-wide, 0.2 s after the child was moved to CPU 1.
cross() {
    local S=$SCRATCH L=$OUT/raw/record-log.txt
    log "record pipe-cross"
    {   echo "## pipe-cross  $(date -u +%FT%TZ)  $(load)"
        taskset -c 0 perf bench sched pipe -l 20000 > "$S/pipe-cross-traced.out" 2>&1 &
        local P=$! C=""
        while [ -z "$C" ]; do C=$(pgrep -P "$P" || true); done
        taskset -p -c 1 "$C"
        sleep 0.2
        echo "\$ ${PSR[*]} -o pipe-cross.data -a -- sleep 0.3   (taskset -c 0 perf bench sched pipe -l 20000 running, pid $P on CPU 0, child $C moved to CPU 1)"
        "${PSR[@]}" -o "$S/pipe-cross.data" -a -- sleep 0.3 2>&1 | tail -4
        wait "$P" || true
        tail -2 "$S/pipe-cross-traced.out"; echo
    } >> "$L" 2>&1
}

# ---------------------------------------------------------------- text forms
# perf 6.1 (Debian linux-perf) has libtraceevent built in. It looks for
# plugins only in $TRACEEVENT_PLUGIN_DIR and ~/.local/lib/traceevent/plugins/
# (strace shows no other lookup), so by default it prints every sched event
# as key=value. Pointing TRACEEVENT_PLUGIN_DIR at a plugin directory turns on
# the sched_switch plugin, which reformats sched_switch, sched_wakeup and
# sched_wakeup_new (not sched_waking).
plain() { env -u TRACEEVENT_PLUGIN_DIR HOME="$SCRATCH/emptyhome" nice perf script "$@"; }
text() {
    mkdir -p "$SCRATCH/emptyhome"
    local n
    for n in pipe messaging messaging-pipe tbench dbench make pipe-cross; do
        log "text $n"
        plain -i "$SCRATCH/$n.data" 2> "$SCRATCH/$n.script.err" | nice gzip -9 > "$OUT/$n.perf.txt.gz"
    done
    # the variants of the pipe trace, all from the same pipe.data
    plain --ns -i "$SCRATCH/pipe.data" 2>/dev/null | nice gzip -9 > "$OUT/pipe.perf-ns.txt.gz"
    # libtraceevent1-plugin 1.7.1 (Debian package): plugin_function.so fails to
    # load (undefined symbol tep_print_event), the sched_switch plugin loads
    TRACEEVENT_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/traceevent/plugins HOME="$SCRATCH/emptyhome" \
        nice perf script -i "$SCRATCH/pipe.data" 2> "$SCRATCH/pipe.plugin.err" | nice gzip -9 > "$OUT/pipe.perf-plugin.txt.gz"
    # the plugins linux-perf itself ships (same 6.1 source): its sched_wakeup
    # handler still asks for the long-gone `success` field
    TRACEEVENT_PLUGIN_DIR=/usr/lib/traceevent/plugins HOME="$SCRATCH/emptyhome" \
        nice perf script -i "$SCRATCH/pipe.data" 2> "$SCRATCH/pipe.perf-plugin.err" | nice gzip -9 > "$OUT/pipe.perf-plugin-perf61.txt.gz"
    for n in pipe messaging messaging-pipe tbench dbench make pipe-cross; do
        perf evlist -i "$SCRATCH/$n.data" 2>/dev/null | grep -v '^#' > "$OUT/raw/$n.evlist.txt"
    done
}

# ---------------------------------------------------------------- counts
# awk only; works on the key=value and the plugin form alike. The task
# columns are found by the "[NNN]" CPU field because comms may hold spaces
# ("lto cgu.03") and colons ("memfd:sealed-91"). perf prints ":-1    -1" as
# the task of some events of exiting tasks; those lines are counted apart
# and their -1 is not a pid. "distinct pids" never count 0 or -1.
COUNTS_AWK='
{ c = 0; for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9][0-9][0-9]\]$/) { c = i; break }
  if (!c) next
  pid = $(c-1); cpu = substr($c, 2, 3) + 0; ts = $(c+1); sub(/:$/, "", ts)
  ev = $(c+2); sub(/:$/, "", ev)
  lines++; n[ev]++
  if (first == "") first = ts; last = ts
  if (cpu > maxcpu) maxcpu = cpu
  if (pid == -1) unresolved++
  if (pid > 0) { cur[pid] = 1; all[pid] = 1 }
  for (j = c+3; j <= NF; j++) {
    if ($j ~ /^(pid|prev_pid|next_pid|child_pid)=[0-9]+$/) { p = $j; sub(/^[a-z_]*=/, "", p); if (p != 0) all[p] = 1 }
    else if ($j ~ /:[0-9]+$/ && j < NF && $(j+1) ~ /^\[-?[0-9]+\]/) { p = $j; sub(/^.*:/, "", p); if (p != 0) all[p] = 1 }
  }
  if (ev == "sched:sched_waking" && pid == 0) idlewaking++
  if (ev == "sched:sched_wakeup" && pid == 0) idlewakeup++
  if (ev == "sched:sched_switch")
    for (j = c+3; j <= NF; j++) if ($j == "==>") { s = $(j-1); sub(/^prev_state=/, "", s); if (s == "R" || s == "R+") rsw++; break }
}
END {
  print "lines", lines + 0
  for (e in n) print "event." e, n[e]
  k = 0; for (p in cur) k++; print "distinct_pids_current", k
  k = 0; for (p in all) k++; print "distinct_pids_any", k
  print "task_column_pid_minus1", unresolved + 0
  print "waking_by_idle", idlewaking + 0
  print "wakeup_by_idle", idlewakeup + 0
  print "switch_prev_state_R_or_Rplus", rsw + 0
  print "first_ts", first
  print "last_ts", last
  print "max_cpu", maxcpu + 0
}'
counts() {
    local f name
    for f in "$OUT"/*.perf*.txt.gz; do
        name=$(basename "$f" .txt.gz)
        log "counts $name"
        zcat "$f" | LC_ALL=C awk "$COUNTS_AWK" | LC_ALL=C sort > "$OUT/$name.counts"
    done
}

# ---------------------------------------------------------------- wakers
# Who wakes whom: sched_waking lines as "waker comm -> wakee comm", digits
# folded to N, most frequent first (the task column is the waker: the task
# running when the wakeup was issued, which for softirq/irq wakeups is the
# interrupted task unless the work was deferred to ksoftirqd).
WAKERS_AWK='
{ c = 0; for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9][0-9][0-9]\]$/) { c = i; break }
  if (!c || $(c+2) != "sched:sched_waking:") next
  w = $1; for (k = 2; k < c-1; k++) w = w " " $k
  s = $0; sub(/.* sched:sched_waking: comm=/, "", s); sub(/ pid=[0-9]+ prio=.*/, "", s)
  gsub(/[0-9]+/, "N", w); gsub(/[0-9]+/, "N", s); print w " -> " s }'
wakers() {
    local n
    for n in pipe messaging messaging-pipe tbench dbench make pipe-cross; do
        zcat "$OUT/$n.perf.txt.gz" | LC_ALL=C awk "$WAKERS_AWK" | LC_ALL=C sort | uniq -c | LC_ALL=C sort -k1,1nr -k2 | head -30 \
            > "$OUT/raw/$n.wakers.txt"
    done
}

# ---------------------------------------------------------------- bench
# 3 untraced runs of a command, with the load average before each run.
run3() { # file, command...  (writes $OUT/raw/FILE.txt)
    local f=$OUT/raw/$1.txt; shift
    log "bench $(basename "$f")"
    : > "$f"
    for r in 1 2 3; do
        { echo "## run $r  $(date -u +%FT%TZ)  $(load)"; echo "\$ $*"; "$@" 2>&1; echo; } >> "$f"
    done
}
# cross-CPU pipe: perf 6.1's sched pipe has no pinning option, so start it
# on CPU 0 (both ends) and move the forked child (the second end) to CPU 1
# as soon as it exists; the few ms before the move are noise next to the
# whole run. The psr column is printed as proof.
pipe_cross() { # [prefix command...] loops
    "${@:1:$#-1}" taskset -c 0 perf bench sched pipe -l "${@: -1}" &
    local P=$! C=""
    while [ -z "$C" ]; do C=$(pgrep -P "$P" || true); done
    taskset -p -c 1 "$C"
    sleep 0.5; ps -L -o pid,tid,psr,comm -p "$P","$C"
    wait "$P"
}
bench() {
    run3 pipe-unpinned perf bench sched pipe -l 1000000
    run3 pipe-cpu0 taskset -c 0 perf bench sched pipe -l 1000000
    run3 pipe-cpu0-cpu1 pipe_cross 1000000
    run3 messaging-socket perf bench sched messaging -g 2 -l 2000
    run3 messaging-pipe perf bench sched messaging -p -g 2 -l 2000
    run3 hackbench-socket hackbench -g 2 -l 2000
    run3 hackbench-pipe hackbench -p -g 2 -l 2000
    tbench_srv_start
    run3 tbench-1 tbench -t 10 -c "$LOADFILE" 1 127.0.0.1
    run3 tbench-2 tbench -t 10 -c "$LOADFILE" 2 127.0.0.1
    tbench_srv_stop
    dbench_mount
    run3 dbench-1 dbench -t 10 -c "$LOADFILE" -D "$MNT" 1
    run3 dbench-2 dbench -t 10 -c "$LOADFILE" -D "$MNT" 2
}

# ---------------------------------------------------------------- probe
# The same-CPU / cross-CPU pipe probe again under SCHED_FIFO priority 1, so
# that the nice-10 jobs sharing the box cannot delay the wakee (added after
# the SCHED_OTHER cross-CPU runs came out at ~120 us per round trip).
probe() {
    run3 pipe-cpu0-fifo chrt -f 1 taskset -c 0 perf bench sched pipe -l 200000
    run3 pipe-cpu0-cpu1-fifo pipe_cross chrt -f 1 200000
}

# ---------------------------------------------------------------- measured
# traces/measured.md from traces/raw/*.txt: the median of the 3 runs and the
# 1-minute load average before each run.
measured() {
    local R=$OUT/raw M=$OUT/measured.md
    row() { # name, unit, awk pattern that prints the value of one run, command
        local name=$1 unit=$2 pat=$3 cmd=$4 vals med loads
        vals=$(awk "$pat" "$R/$name.txt" | tr '\n' ' ')
        med=$(printf '%s\n' $vals | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
        loads=$(grep -o 'load average: [0-9.]*' "$R/$name.txt" | awk '{printf "%s%s", s, $3; s=", "}')
        echo "| $name | \`$cmd\` | $unit | $vals | **$med** | $loads |"
    }
    local PIPE='/usecs\/op/ {print $1}' MSG='/Total time:/ {print $3}' HB='/^Time:/ {print $2}' TP='/^Throughput/ {print $2}'
    {
        echo "# Untraced throughput on the recording box"
        echo
        echo "Made by \`scripts/record-traces.sh bench probe measured\`; raw outputs in \`raw/\`."
        echo "3 runs each, median in bold; the load average column is the 1-minute"
        echo "load average (\`uptime\`) just before each run. The box has 2 vCPUs; nothing"
        echo "else ran on it (no build, no helper: the 1-minute load average was 0.34 when the"
        echo "first run started, and each later figure is the benchmarks' own load)."
        echo
        echo "| benchmark | command | unit | runs | median | load average (1 min) before runs 1, 2, 3 |"
        echo "|---|---|---|---|---|---|"
        row pipe-unpinned "µs per round trip" "$PIPE" "perf bench sched pipe -l 1000000"
        row pipe-cpu0 "µs per round trip" "$PIPE" "taskset -c 0 perf bench sched pipe -l 1000000"
        row pipe-cpu0-cpu1 "µs per round trip" "$PIPE" "taskset -c 0 perf bench sched pipe -l 1000000, child moved to CPU 1 (taskset -p -c 1)"
        row pipe-cpu0-fifo "µs per round trip" "$PIPE" "chrt -f 1 taskset -c 0 perf bench sched pipe -l 200000"
        row pipe-cpu0-cpu1-fifo "µs per round trip" "$PIPE" "chrt -f 1 taskset -c 0 perf bench sched pipe -l 200000, child moved to CPU 1"
        row messaging-socket "s (total time)" "$MSG" "perf bench sched messaging -g 2 -l 2000"
        row messaging-pipe "s (total time)" "$MSG" "perf bench sched messaging -p -g 2 -l 2000"
        row hackbench-socket "s (Time:)" "$HB" "hackbench -g 2 -l 2000"
        row hackbench-pipe "s (Time:)" "$HB" "hackbench -p -g 2 -l 2000"
        row tbench-1 "MB/s" "$TP" "tbench -t 10 -c client.txt 1 127.0.0.1"
        row tbench-2 "MB/s" "$TP" "tbench -t 10 -c client.txt 2 127.0.0.1"
        row dbench-1 "MB/s" "$TP" "dbench -t 10 -c client.txt -D /mnt/dbench 1 (ext4 on loop)"
        row dbench-2 "MB/s" "$TP" "dbench -t 10 -c client.txt -D /mnt/dbench 2 (ext4 on loop)"
        echo
        local same cross
        same=$(awk "$PIPE" "$R/pipe-cpu0.txt" | sort -g | sed -n 2p)
        cross=$(awk "$PIPE" "$R/pipe-cpu0-cpu1.txt" | sort -g | sed -n 2p)
        echo "Wakeup-cost probe: one pipe round trip is two wakeups."
        echo "Same CPU (both ends on CPU 0): $same µs per round trip; cross CPU (CPU 0 and CPU 1): $cross µs."
        awk -v s="$same" -v c="$cross" 'BEGIN { printf "Cross minus same: %.3f µs per round trip, %.3f µs per wakeup.\n", c - s, (c - s) / 2 }'
        if [ -e "$R/pipe-cpu0-fifo.txt" ]; then
            same=$(awk "$PIPE" "$R/pipe-cpu0-fifo.txt" | sort -g | sed -n 2p)
            cross=$(awk "$PIPE" "$R/pipe-cpu0-cpu1-fifo.txt" | sort -g | sed -n 2p)
            echo
            echo "Under SCHED_FIFO 1 (nothing else can delay the wakee):"
            echo "same CPU $same µs per round trip; cross CPU $cross µs."
            awk -v s="$same" -v c="$cross" 'BEGIN { printf "Cross minus same: %.3f µs per round trip, %.3f µs per wakeup.\n", c - s, (c - s) / 2 }'
        fi
    } > "$M"
}

# ---------------------------------------------------------------- quiet
# Quiet-box traces (issue 44 item 6): the same recipe on a box with nothing
# else running. Before each recording the 1-minute load average must fall under
# $QUIET_LOAD (0.3) (waited for, up to 5 minutes; the recording is refused
# otherwise), and traces/quiet/NAME.facts records it with the kernel version,
# the preemption model (from the boot log's "Dynamic Preempt:" line, else the
# kernel configuration), HZ and the command line's scheduler parameters.
QUIET_LOAD=${QUIET_LOAD:-0.3}
wait_quiet() {
    local i
    for i in $(seq 1 300); do
        awk -v m="$QUIET_LOAD" '{ exit !($1 < m) }' /proc/loadavg && return 0
        sleep 1
    done
    echo "record-traces.sh: load average $(cut -d' ' -f1 /proc/loadavg) stayed >= $QUIET_LOAD for 5 minutes" >&2
    return 1
}
preempt_model() {
    local m
    m=$(dmesg 2>/dev/null | sed -n 's/.*Dynamic Preempt: \([a-z]*\).*/\1/p' | tail -1)
    if [ -z "$m" ]; then
        m=$(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_PREEMPT_\(NONE\|VOLUNTARY\|LAZY\)=y/\1/p;s/^CONFIG_PREEMPT=y/FULL/p' | head -1 | tr A-Z a-z)
    fi
    local arg; arg=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^preempt=//p')
    [ -n "$arg" ] && m=$arg
    echo "${m:-unknown}"
}
facts() { # name, load before, the workload as run[, output directory]
    local Q=${4:-$OUT/quiet}
    { echo "trace: $1.perf.txt.gz"
      echo "recorded: $(date -u +%FT%TZ)"
      echo "load_average_1min_before: $2"
      echo "kernel: $(uname -r)"
      echo "uname: $(uname -v)"
      echo "preempt_model: $(preempt_model)"
      echo "preempt_model_source: $(dmesg 2>/dev/null | grep -o 'Dynamic Preempt: [a-z]*' | tail -1 || true) (boot log); /proc/config.gz: $(zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_PREEMPT(_NONE|_VOLUNTARY|_LAZY|_DYNAMIC)?=y' | tr '\n' ' ')"
      echo "hz: $(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p')"
      echo "cmdline_sched: $(tr ' ' '\n' < /proc/cmdline | grep -E '^(preempt|sched_|cpuidle_haltpoll|haltpoll|mitigations)' | tr '\n' ' ')"
      echo "cpus: $(nproc)"
      echo "perf: $(perf --version)"
      echo "workload: $3"
    } > "$Q/$1.facts"
}
quiet() {
    local Q=$OUT/quiet S=$SCRATCH
    mkdir -p "$Q" "$S/emptyhome"
    qrec() { # name, workload description, perf sched record argument tail
        local name=$1 what=$2 ld; shift 2
        wait_quiet
        ld=$(cut -d' ' -f1 /proc/loadavg)
        log "quiet $name (load $ld)"
        "${PSR[@]}" -o "$S/q-$name.data" "$@" > "$S/q-$name.out" 2>&1
        facts "$name" "$ld" "$what"
        tail -3 "$S/q-$name.out" | sed 's/^/perf_output: /' >> "$Q/$name.facts"
        plain -i "$S/q-$name.data" 2>/dev/null | gzip -9 > "$Q/$name.perf.txt.gz"
    }
    qrec pipe "perf bench sched pipe -l 20000" -- perf bench sched pipe -l 20000
    qrec messaging "perf bench sched messaging -g 1 -l 500 (sockets)" -- perf bench sched messaging -g 1 -l 500
    qrec messaging-pipe "perf bench sched messaging -p -g 1 -l 500" -- perf bench sched messaging -p -g 1 -l 500
    qrec hackbench "hackbench -g 1 -l 500 (sockets, processes)" -- hackbench -g 1 -l 500
    qrec hackbench-pipe "hackbench -p -g 1 -l 500 (pipes, processes)" -- hackbench -p -g 1 -l 500
    qrec hackbench-threads "hackbench -T -g 1 -l 500 (sockets, threads)" -- hackbench -T -g 1 -l 500
    local n
    for n in 1 2; do
        wait_quiet
        tbench_srv_start
        tbench -t 3 -c "$LOADFILE" "$n" 127.0.0.1 > "$S/q-tbench-$n.run" 2>&1 &
        local TB=$!
        sleep 1
        # the load average now counts the benchmark itself: record without waiting again
        local ld; ld=$(cut -d' ' -f1 /proc/loadavg)
        QUIET_LOAD=1000 qrec "tbench-$n" "tbench_srv & tbench -t 3 -c client.txt $n 127.0.0.1 &, 1 s in, 0.3 s system-wide (load before the benchmark started: see load_before_benchmark)" -a -- sleep 0.3
        echo "load_before_benchmark: $ld (1 s after the benchmark started; the line above is the same)" >> "$Q/tbench-$n.facts"
        wait "$TB" || true; tbench_srv_stop
        tail -1 "$S/q-tbench-$n.run" | sed 's/^/benchmark_output: /' >> "$Q/tbench-$n.facts"
    done
    dbench_mount
    wait_quiet
    local ld0; ld0=$(cut -d' ' -f1 /proc/loadavg)
    dbench -t 4 -c "$LOADFILE" -D "$MNT" 2 > "$S/q-dbench.run" 2>&1 &
    local DB=$!
    sleep 2
    QUIET_LOAD=1000 qrec dbench "dbench -t 4 -c client.txt -D /mnt/dbench 2 (ext4 on a loop device) &, 2 s in, 0.5 s system-wide" -a -- sleep 0.5
    sed -i "s/^load_average_1min_before: .*/load_average_1min_before: $ld0 (before the benchmark started)/" "$Q/dbench.facts"
    wait "$DB" || true
    tail -1 "$S/q-dbench.run" | sed 's/^/benchmark_output: /' >> "$Q/dbench.facts"
    wait_quiet
    ld0=$(cut -d' ' -f1 /proc/loadavg)
    QUIET_LOAD=1000 qrec pipeline "sh -c 'tar cf - /usr/share/doc | head -c 16000000 | xz -1 -T1 > /dev/null' (a three-process pipeline, whole run)" -- sh -c 'tar cf - /usr/share/doc 2>/dev/null | head -c 16000000 | xz -1 -T1 > /dev/null'
    sed -i "s/^load_average_1min_before: .*/load_average_1min_before: $ld0/" "$Q/pipeline.facts"
}

# rt-app summary of its logs: per thread, loops, and the mean and worst of run, period
# and slack (us), the columns of rt-app 1.0's log (idx perf run period start end rel_st
# slack c_duration c_period wu_lat).
rtapp_summary() {
    local f
    for f in "$@"; do
        awk -v t="$(basename "$f" .log)" '!/^#/ && NF >= 11 { n++; run += $3; per += $4; sl += $8; wu += $11
              if ($3 > mr) mr = $3; if ($4 > mp) mp = $4; if (n == 1 || $8 < ms) ms = $8 }
            END { if (n) printf "%s loops %d run_mean_us %.0f run_max_us %d period_mean_us %.0f period_max_us %d slack_mean_us %.0f slack_min_us %d wu_lat_mean_us %.1f\n", t, n, run / n, mr, per / n, mp, sl / n, ms, wu / n }' "$f"
    done
}
rtapp() {
    local R=$OUT/rtapp S=$SCRATCH/rtapp
    command -v rt-app >/dev/null || { echo "record-traces.sh: rtapp needs rt-app (apt-get install rt-app)" >&2; return 1; }
    mkdir -p "$R" "$S"
    # Calibrate once (rt-app's ns per loop on CPU 0), so that no trace holds a calibration.
    printf '{"tasks":{"t":{"loop":1,"run":1000}},"global":{"duration":1,"calibration":"CPU0","logdir":"%s","log_basename":"cal"}}\n' "$S" > "$S/cal.json"
    local ns; ns=$(cd "$S" && rt-app cal.json 2>&1 | sed -n 's/.*pLoad = \([0-9]*\)ns.*/\1/p' | head -1)
    [ -n "$ns" ] || { echo "record-traces.sh: rt-app did not calibrate" >&2; return 1; }
    local f name ld
    local files=("$REPO"/workloads/rtapp/*.json)
    local deb=/usr/share/doc/rt-app/examples
    for f in mp3-short spreading-tasks; do [ -e "$deb/$f.json" ] && files+=("$deb/$f.json"); done
    for f in "${files[@]}"; do
        name=$(basename "$f" .json)
        rm -f "$S"/*.log
        # The file as run: 2 s, the calibrated ns per loop, logs in scratch.
        sed -e 's/"duration" *: *[0-9-]*/"duration" : 2/' -e "s/\"calibration\" *: *\"[^\"]*\"/\"calibration\" : $ns/" \
            -e "s#\"logdir\" *: *\"[^\"]*\"#\"logdir\" : \"$S\"#" -e "s/\"log_basename\" *: *\"[^\"]*\"/\"log_basename\" : \"$name\"/" \
            -e 's/"ftrace" *: *true/"ftrace" : false/' "$f" > "$S/$name.json"
        wait_quiet
        ld=$(cut -d' ' -f1 /proc/loadavg)
        log "rtapp $name (load $ld)"
        (cd "$S" && "${PSR[@]}" -o "$S/r-$name.data" -- rt-app "$S/$name.json" > "$S/r-$name.out" 2>&1)
        facts "$name" "$ld" "rt-app $(basename "$f") (duration 2 s, calibration $ns ns per loop)" "$R"
        sed -i "s/^trace: .*/trace: $name.perf.txt.gz/" "$R/$name.facts"
        echo "rtapp_json: ${f#"$REPO"/}" >> "$R/$name.facts"
        tail -3 "$S/r-$name.out" | sed 's/^/perf_output: /' >> "$R/$name.facts"
        plain -i "$S/r-$name.data" 2>/dev/null | gzip -9 > "$R/$name.perf.txt.gz"
        rtapp_summary "$S"/*.log > "$R/$name.rtapp-log.txt"
    done
}

[ $# -gt 0 ] || set -- all
for step in "$@"; do
    case $step in
        box|record|cross|text|counts|wakers|bench|probe|measured|quiet|rtapp) "$step" ;;
        all) box; record; cross; text; counts; wakers; bench; probe; measured ;;
        *) echo "unknown step: $step" >&2; exit 2 ;;
    esac
done
