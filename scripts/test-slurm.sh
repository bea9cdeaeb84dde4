#!/usr/bin/env bash
# docs/cluster/slurm.sbatch end to end under a real Slurm: the CLI test
# `slurm_array_end_to_end` (crates/schedsim-cli/tests/shard.rs) submits the script as
# an array of N = 1, 3, 7 tasks, then the merge as a dependent job, and compares the
# report with `schedsim run`'s bytes.
#
#   scripts/test-slurm.sh
#
# Idempotent. Where no Slurm controller with an idle node answers yet, it installs
# Debian's single-node Slurm and MUNGE (slurmctld, slurmd, slurm-client, munge) if
# missing, writes /etc/slurm/slurm.conf for this one machine (only where there is none,
# or one this script wrote), starts munged, slurmctld and slurmd on loopback, waits up
# to 60 s for the node to be idle, runs the test, and stops the daemons it started.
# A machine where Slurm cannot be installed or its daemons cannot start says SKIPPED
# with the reason and exits 0; a job that ran and gave a wrong result fails the test.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

LOG="$PWD/target/slurm"
MARK="# written by schedsim's scripts/test-slurm.sh"
CONF=/etc/slurm/slurm.conf
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
started=()

log() { printf '[test-slurm] %s\n' "$*" >&2; }
skip() {
  echo "SKIPPED slurm end to end: $*"
  exit 0
}
# A controller that is down makes sinfo retry for about 9 s: 3 s is plenty for one
# that answers.
idle() { [[ -n $(timeout 3 sinfo -h -t idle -o %n 2>/dev/null) ]]; }
stop() {
  local p
  for p in "${started[@]}"; do $sudo kill "$p" 2>/dev/null || true; done
  for p in "${started[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
}
trap stop EXIT

# Starts "$@" in the background as a daemon kept in the foreground (-D), its output in
# $LOG/NAME.log, and remembers its pid to stop it at exit.
start() {
  local name=$1
  shift
  $sudo "$@" >"$LOG/$name.log" 2>&1 &
  started+=($!)
}

mkdir -p "$LOG"
if ! idle; then
  if [[ -n $sudo ]] && ! sudo -n true 2>/dev/null; then
    skip "not root and no password-less sudo (Slurm's daemons run as root here)"
  fi
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
     ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
    log "installing Debian's slurmctld, slurmd, slurm-client and munge"
    { $sudo apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >"$LOG/apt.log" 2>&1; } ||
      skip "apt-get could not install slurmctld slurmd slurm-client munge (see $LOG/apt.log)"
  fi

  if [[ -e $CONF ]] && ! grep -qxF "$MARK" "$CONF"; then
    skip "$CONF was not written by this script and its Slurm has no idle node (sinfo)"
  fi
  host=$(hostname -s)
  log "writing $CONF: one node, $host, $(nproc) CPUs, daemons on 127.0.0.1"
  $sudo mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd
  $sudo tee "$CONF" >/dev/null <<EOF
$MARK
ClusterName=schedsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
ReturnToService=2
MpiDefault=none
# Schedule a task as soon as a CPU frees, not up to 3 s later (the default delay).
SchedulerParameters=batch_sched_delay=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    log "starting munged"
    [[ -s /etc/munge/munge.key ]] || $sudo mungekey --create >/dev/null 2>&1 ||
      skip "no MUNGE key and mungekey could not make one"
    $sudo install -d -o munge -g munge -m 0755 /run/munge
    # setpriv execs munged as the munge user (runuser would sit between, and take 2 s
    # to stop).
    start munged setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F
    for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || skip "munged did not start (see $LOG/munged.log)"
  fi
  log "starting slurmctld and slurmd"
  # -c: no job state from an earlier run.
  start slurmctld /usr/sbin/slurmctld -D -c
  start slurmd /usr/sbin/slurmd -D -N "$host"
  t0=$SECONDS
  until idle; do
    ((SECONDS - t0 < 60)) ||
      skip "no idle node 60 s after starting slurmctld and slurmd (see $LOG/slurmctld.log, $LOG/slurmd.log)"
    sleep 0.5
  done
  log "node $host idle after $((SECONDS - t0)) s"
fi

log "slurm.sbatch as arrays of 1, 3 and 7 tasks, merged by a dependent job"
# --workspace, as scripts/test.sh builds the tests: `-p schedsim-cli` unifies other
# features and would build every dependency again.
SCHEDSIM_SLURM_REQUIRED=1 nice -n 10 cargo test --workspace --locked --test shard slurm_array_end_to_end \
  -- --exact --nocapture
