#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for testing slurm/*.sbatch: slurmctld and
# slurmd with their own slurm.conf, ports, state, spool and logs in one folder.
#
#   scripts/local-slurm.sh start    # prints: export SLURM_CONF=... (eval it)
#   scripts/local-slurm.sh status   # "up" (exit 0) or "down" (exit 1)
#   scripts/local-slurm.sh stop     # cancels its jobs, stops both daemons by their pid files
#
# The folder is $SUPEROPT_SLURM_DIR (made by start if missing), else a new
# mktemp folder for start; stop and status also find it from $SLURM_CONF.
# Settings: auth/none, cred/none, proctrack/linuxproc, no accounting; the node
# declares $SUPEROPT_SLURM_CPUS CPUs (default: the larger of nproc and 8, with
# SlurmdParameters=config_overrides, so 4-task jobs run on a 2-core machine)
# and no GPU, like a CPU-only cluster: Slurm refuses a job that asks for one
# (slurm/optimize-gpu.sbatch) at submission. SUPEROPT_SLURM_GPUS=N declares N
# "gpu" generic resources without a device, so that GPU jobs are accepted (for
# tests of their plumbing; superopt finds no GPU when they start). A
# system-wide Slurm is left alone: clients use this cluster only while
# SLURM_CONF points at it.
# A requeued job waits 2 minutes before it may start again (Slurm's step
# credential lifetime); `scontrol update JobId=J StartTime=now` skips the wait,
# but not within a second or so of the cancel (the new credential would be
# taken for the revoked one).
# slurmd runs jobs as their submitter, so start it as root (as in CI).
set -euo pipefail

die() {
  echo "local-slurm: $*" >&2
  exit 1
}

cluster_dir() {
  if [ -n "${SUPEROPT_SLURM_DIR:-}" ]; then
    echo "$SUPEROPT_SLURM_DIR"
  elif [ -n "${SLURM_CONF:-}" ] && [ -f "$(dirname "$SLURM_CONF")/slurmctld.pid" ]; then
    dirname "$SLURM_CONF"
  else
    return 1
  fi
}

free_ports() {  # two distinct TCP ports nobody listens on now; the kernel picks them
  local python=/usr/bin/python3
  [ -x "$python" ] || python=python3
  "$python" -c 'import socket
held = [socket.socket() for _ in range(2)]
for s in held: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in held])'
}

alive() {  # alive PIDFILE: the daemon that wrote it still runs
  [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

write_conf() {  # write_conf DIR NODE CPUS GPUS
  local dir=$1 node=$2 cpus=$3 gpus=$4 ctld_port slurmd_port gres_types="" node_gres=""
  read -r ctld_port slurmd_port <<<"$(free_ports)"
  rm -rf "$dir/state" "$dir/spool" "$dir/tmp"  # a fresh cluster: no jobs or node states from an earlier one
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/tmp"
  rm -f "$dir/gres.conf"
  if [ "$gpus" != 0 ]; then
    gres_types=GresTypes=gpu node_gres=" Gres=gpu:$gpus"
    echo "NodeName=$node Name=gpu Count=$gpus File=/dev/null" >"$dir/gres.conf"
  fi
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/local-slurm.sh: a one-node test cluster.
ClusterName=superopt-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
$gres_types
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# Two clusters at once (two test runs) must not share job numbers: a job
# step's PMIx namespace, its folder spmix_appdir_UID_JOB.STEP and Open MPI's
# shared-memory segments are named by them, and two job 1s collided there
# ("Cannot create directory ... File exists"; ranks that crashed in
# mca_btl_vader or hung). Each cluster numbers its jobs from 1000 times its
# port (ports of live clusters differ) and keeps those folders in its own TmpFS.
FirstJobId=$((ctld_port * 1000))
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
# Clients wait 30 s for a reply, not 10: a busy machine (a ctest -j2 beside) slows slurmctld.
MessageTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus$node_gres State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

wait_until_idle() {  # the node takes jobs within a few seconds of slurmd starting (60 s on a busy machine)
  local state start=$SECONDS
  while [ $((SECONDS - start)) -lt 60 ]; do
    state=$(sinfo -h -o %t 2>/dev/null | head -n 1 || true)
    case $state in idle* | mix* | alloc*) return 0 ;; esac
    sleep 0.2
  done
  return 1
}

start() {
  command -v slurmctld >/dev/null || die "slurmctld is not installed (apt-get install slurm-wlm)"
  local dir
  if dir=$(cluster_dir) && alive "$dir/slurmctld.pid"; then
    die "a cluster already runs in $dir (stop it first)"
  fi
  dir=${SUPEROPT_SLURM_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/superopt-slurm.XXXXXX")}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  local node cpus gpus=${SUPEROPT_SLURM_GPUS:-0}
  node=$(hostname -s)
  cpus=${SUPEROPT_SLURM_CPUS:-$(($(nproc) > 8 ? $(nproc) : 8))}
  [[ $gpus =~ ^[0-9]+$ ]] || die "SUPEROPT_SLURM_GPUS must be a number of GPUs, not '$gpus'"
  write_conf "$dir" "$node" "$cpus" "$gpus"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" || die "slurmctld did not start; see $dir/log/slurmctld.log"
  slurmd -f "$SLURM_CONF" -N "$node" || die "slurmd did not start; see $dir/log/slurmd.log"
  if ! wait_until_idle; then
    tail -n 5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    SUPEROPT_SLURM_DIR=$dir stop >/dev/null
    die "the node did not become idle"
  fi
  echo "export SLURM_CONF=$SLURM_CONF"
}

stop_daemon() {  # stop_daemon PIDFILE: TERM, wait up to 10 s, then KILL
  local pidfile=$1 pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
}

stop() {
  local dir
  dir=$(cluster_dir) || die "no cluster: set SUPEROPT_SLURM_DIR (or SLURM_CONF) to the one to stop"
  export SLURM_CONF=$dir/slurm.conf
  if alive "$dir/slurmctld.pid" && alive "$dir/slurmd.pid"; then
    # Jobs' processes outlive slurmd, so end them while slurmd can.
    scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 1 50); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  stop_daemon "$dir/slurmd.pid"
  stop_daemon "$dir/slurmctld.pid"
  echo "stopped the cluster in $dir"
}

status() {
  local dir
  if dir=$(cluster_dir) && alive "$dir/slurmctld.pid" && alive "$dir/slurmd.pid"; then
    echo "up: export SLURM_CONF=$dir/slurm.conf"
  else
    echo "down"
    return 1
  fi
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: local-slurm.sh start|stop|status" ;;
esac
