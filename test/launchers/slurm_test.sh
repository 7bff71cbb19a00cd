#!/bin/bash
# shellcheck disable=SC2317  # cleanup and its helpers run from the EXIT trap
# A real test of examples/slurm/fabscope.sbatch: brings up a private one-node Slurm
# (munged, slurmctld, slurmd, all under one temporary folder, on free ports), submits the
# sbatch script unmodified with `sbatch --wait` and checks what it leaves behind, then runs
# `srun` once directly.
#
#   bash test/launchers/slurm_test.sh FABSCOPE_BINARY SBATCH_SCRIPT
#
# Exit: 0 pass, 1 fail, 77 skip (not root; slurmctld, slurmd, srun, sbatch, munged or srun's
# PMIx plugin missing; or the daemons never come up here). Needs the Debian packages slurmd,
# slurmctld, slurm-client and munge (slurm-wlm pulls them all), and Open MPI built with PMIx
# (Debian's openmpi-bin/libpmix2).
#
# The node declares 8 CPUs whatever the machine has (SlurmdParameters=config_overrides), so
# that more tasks than cores can run, and 8 GPUs whose device files are links to /dev/null,
# so that the script's `#SBATCH --gpus-per-node=8` is satisfied: the job runs the mpi
# backend, on host memory.
set -uo pipefail

FABSCOPE_BIN=${1:?usage: slurm_test.sh FABSCOPE_BINARY SBATCH_SCRIPT}
SBATCH_SCRIPT=${2:?usage: slurm_test.sh FABSCOPE_BINARY SBATCH_SCRIPT}
JOB_TASKS=4     # the batch job's ranks: more than this machine's cores, as on a busy CI runner
SRUN_TASKS=2    # the direct srun's ranks
MPI_PLUGIN=pmix # what the sbatch script uses by default; see examples/slurm/README.md

T0=$SECONDS
step() { echo "== [$((SECONDS - T0))s] $*"; }
skip() { echo "SKIP: $*"; exit 77; }
fail() {
  echo "FAIL: $*"
  dump_logs
  exit 1
}

# ---- Can it run here? ------------------------------------------------------------------
step "checking prerequisites"
[ "$(id -u)" -eq 0 ] || skip "not root (slurmd must run as root to start tasks)"
for cmd in slurmctld slurmd srun sbatch sinfo scontrol scancel munged munge python3; do
  command -v "$cmd" >/dev/null 2>&1 || skip "$cmd not found (Debian: apt-get install slurmd slurmctld slurm-client munge)"
done
FABSCOPE_BIN=$(readlink -f "$FABSCOPE_BIN")
SBATCH_SCRIPT=$(readlink -f "$SBATCH_SCRIPT")
[ -x "$FABSCOPE_BIN" ] || fail "fabscope binary $FABSCOPE_BIN is not executable"
[ -r "$SBATCH_SCRIPT" ] || fail "sbatch script $SBATCH_SCRIPT is not readable"

# Nothing from an enclosing allocation or the caller's Slurm defaults may leak in: a test run
# inside a Slurm job would otherwise submit to that job's cluster.
for v in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SALLOC_|SRUN_)'); do unset "$v"; done

# Open MPI as root, and more ranks than cores.
MPI_ENV="$(dirname "$(readlink -f "$0")")/../../scripts/mpi-env.sh"
if [ -r "$MPI_ENV" ]; then
  # shellcheck source=/dev/null
  source "$MPI_ENV"
else
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fi

# ---- A private cluster in a temporary folder -------------------------------------------
TMP=$(mktemp -d /tmp/fabscope-slurm.XXXXXX) || fail "mktemp"
chmod 755 "$TMP"
MUNGED_PID='' CTLD_PID='' SLURMD_PID=''

# Every process this test started, directly or through slurmd (slurmstepd, the job's tasks),
# has SLURM_CONF=$TMP/slurm.conf in its environment: end exactly those, by pid.
our_pids() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$TMP/slurm.conf" && echo "${p#/proc/}"
  done
}
stop_pid() {  # TERM, up to 5 s, then KILL
  local pid=$1 i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
}
cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM
  echo "== [$((SECONDS - T0))s] cleanup"
  if [ -n "$CTLD_PID" ] && kill -0 "$CTLD_PID" 2>/dev/null; then
    timeout 10 scancel --full --quiet --partition=debug 2>/dev/null
  fi
  unset SLURM_CONF   # from here on, only the processes started before carry it
  stop_pid "$SLURMD_PID"
  stop_pid "$CTLD_PID"
  for pid in $(our_pids); do stop_pid "$pid"; done
  stop_pid "$MUNGED_PID"
  wait 2>/dev/null
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

dump_logs() {
  local f
  for f in "$TMP"/log/* "$TMP"/job-*.out; do
    [ -s "$f" ] || continue
    echo "---- $f (last 40 lines)"
    tail -n 40 "$f"
  done
}

mkdir -p "$TMP"/{munge,state,spool,log,dev,reports} || fail "mkdir"
chmod 711 "$TMP/munge"   # munged wants its socket's folder searchable by all

# munged with its own key and socket: the machine's munged (if any) is left alone.
step "starting munged (private key and socket)"
head -c 1024 /dev/urandom >"$TMP/munge/munge.key" && chmod 600 "$TMP/munge/munge.key"
MUNGE_SOCKET="$TMP/munge/munge.socket"
munged --foreground --force --key-file="$TMP/munge/munge.key" --socket="$MUNGE_SOCKET" \
  --pid-file="$TMP/munge/munged.pid" --log-file="$TMP/log/munged.log" --seed-file="$TMP/munge/munged.seed" \
  >"$TMP/log/munged.out" 2>&1 &
MUNGED_PID=$!
for _ in $(seq 50); do [ -S "$MUNGE_SOCKET" ] && break; sleep 0.1; done
munge --socket="$MUNGE_SOCKET" --no-input >/dev/null 2>&1 || { dump_logs; skip "munged did not come up"; }

# Node name: slurmctld only runs as the controller on the host SlurmctldHost names.
NODE=$(hostname -s)
[[ "$NODE" =~ ^[A-Za-z0-9][A-Za-z0-9_-]*$ ]] || skip "hostname '$NODE' is not usable as a Slurm node name"

# Two free TCP ports (the kernel's choice), for slurmctld and slurmd.
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))') || fail "no free ports"

# 8 "GPUs": links to /dev/null (slurmd wants character devices; it drops file-less GPUs).
for i in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$TMP/dev/gpu$i"; done
echo "Name=gpu File=$TMP/dev/gpu[0-7]" >"$TMP/gres.conf"   # found beside slurm.conf
mkdir -p "$TMP/spool/$NODE"

cat >"$TMP/slurm.conf" <<EOF
# Written by test/launchers/slurm_test.sh: one node, everything under $TMP.
ClusterName=fabscopetest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool/%n
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
# No cgroups: processes tracked through /proc, tasks not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=60
# The node as declared, not as detected: 8 CPUs on any machine, so more tasks than cores run.
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=8 RealMemory=1 Gres=gpu:8 State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=UNLIMITED State=UP OverSubscribe=FORCE
EOF
# The fabric description beside slurm.conf, as on a cluster that keeps one: the sbatch
# script passes it to fabscope diagnose --fabric (Slurm ignores it without TopologyPlugin).
printf 'SwitchName=leaf1 Nodes=%s\nSwitchName=spine Switches=leaf1\n' "$NODE" >"$TMP/topology.conf"
export SLURM_CONF="$TMP/slurm.conf"
echo "   SLURM_CONF=$SLURM_CONF node=$NODE slurmctld port $CTLD_PORT, slurmd port $SLURMD_PORT"

step "starting slurmctld and slurmd"
slurmctld -D -i -f "$SLURM_CONF" >"$TMP/log/slurmctld.out" 2>&1 &
CTLD_PID=$!
slurmd -D -N "$NODE" -f "$SLURM_CONF" >"$TMP/log/slurmd.out" 2>&1 &
SLURMD_PID=$!

step "waiting for node $NODE to be idle (up to 60 s)"
state=''
for _ in $(seq 120); do
  kill -0 "$CTLD_PID" 2>/dev/null || { dump_logs; skip "slurmctld exited at start"; }
  kill -0 "$SLURMD_PID" 2>/dev/null || { dump_logs; skip "slurmd exited at start"; }
  state=$(timeout 5 sinfo -h -n "$NODE" -o %t 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { dump_logs; skip "node $NODE never became idle (last state: '${state:-none}')"; }
sinfo
srun --mpi=list 2>&1 | grep -qw "$MPI_PLUGIN" || skip "this srun has no --mpi=$MPI_PLUGIN plugin"

# ---- The sbatch script, as an operator submits it ----------------------------------------
# Command-line options override the script's #SBATCH lines: one node, JOB_TASKS tasks.
step "sbatch --wait $SBATCH_SCRIPT (-N1 -n $JOB_TASKS)"
export FABSCOPE="$FABSCOPE_BIN"
export FABSCOPE_OUT="$TMP/reports"
export FABSCOPE_BUDGET=20
export FABSCOPE_ARGS='--backend mpi --phases collective,links -b 64K -e 256K --timeout 60'
unset FABSCOPE_MPI   # the script's own default (pmix) is what is tested
(cd "$TMP" && timeout 100 sbatch --wait --parsable -N 1 -n "$JOB_TASKS" --ntasks-per-node="$JOB_TASKS" \
  --time=3 --output="$TMP/job-%j.out" "$SBATCH_SCRIPT") >"$TMP/sbatch.stdout" 2>"$TMP/sbatch.stderr"
job_rc=$?
cat "$TMP/sbatch.stderr"
JOB_ID=$(head -n 1 "$TMP/sbatch.stdout" | cut -d';' -f1)
[[ "$JOB_ID" =~ ^[0-9]+$ ]] || fail "sbatch printed no job id (exit $job_rc): $(cat "$TMP/sbatch.stdout")"
echo "   job $JOB_ID exited with $job_rc"
echo "---- job output ($TMP/job-$JOB_ID.out)"
cat "$TMP/job-$JOB_ID.out" 2>/dev/null
echo "----"

# fabscope's exit codes: 0 pass, 1 verdict fail (findings: on an oversubscribed machine a
# slow link is a real observation). Anything else is a launch or run failure.
case $job_rc in
  0 | 1) ;;
  *) fail "job $JOB_ID exited with $job_rc (fabscope: 0 pass, 1 findings; anything else: it did not run)" ;;
esac

JSON="$TMP/reports/fabscope-$JOB_ID.json"
HTML="$TMP/reports/fabscope-$JOB_ID.html"
step "checking $JSON"
[ -s "$JSON" ] || fail "no JSON report at $JSON"
python3 - "$JSON" "$JOB_TASKS" "$job_rc" <<'EOF' || fail "JSON report check failed"
import json, sys
path, tasks, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path) as f:
    report = json.load(f)
ctx = report["context"]
verdict = report["verdict"]["result"]
print(f"   schema {report.get('schema')}, nranks {ctx['nranks']}, hosts {ctx['hosts']}, "
      f"backend {ctx['backend']}, verdict {verdict}, findings {len(report.get('findings') or [])}")
assert ctx["nranks"] == tasks, f"context.nranks is {ctx['nranks']}, the job ran {tasks} tasks"
assert len(ctx["hosts"]) == 1, f"context.hosts is {ctx['hosts']}, the job ran on one node"
assert ctx["backend"] == "mpi", f"context.backend is {ctx['backend']}"
fabric = report.get("fabric") or {}
assert [s["name"] for s in fabric.get("switches", [])] == ["leaf1", "spine"] and \
    fabric["switches"][0]["hosts"] == ctx["hosts"], f"the cluster's topology.conf must reach --fabric: {fabric}"
expected = {0: "pass", 1: "fail"}[rc]
assert verdict == expected, f"exit code {rc} but verdict.result {verdict!r} (expected {expected!r})"
EOF

step "checking $HTML"
[ -s "$HTML" ] || fail "no HTML report at $HTML"
python3 - "$HTML" <<'EOF' || fail "$HTML does not start with <!DOCTYPE html>"
import sys
head = open(sys.argv[1], "rb").read(64).lstrip().lower()
print("   starts with", head[:15])
sys.exit(0 if head.startswith(b"<!doctype html>") else 1)
EOF

# ---- srun directly, outside sbatch ------------------------------------------------------
step "srun -N1 -n $SRUN_TASKS --mpi=$MPI_PLUGIN fabscope sweep allreduce (outside sbatch)"
timeout 60 srun -N 1 -n "$SRUN_TASKS" --mpi="$MPI_PLUGIN" --kill-on-bad-exit=1 \
  "$FABSCOPE_BIN" sweep allreduce -b 1K -e 64K -n 5 -w 1 --backend mpi --timeout 40 >"$TMP/srun.out" 2>&1
srun_rc=$?
cat "$TMP/srun.out"
[ "$srun_rc" -eq 0 ] || fail "srun exited with $srun_rc"
# One MPI job of SRUN_TASKS ranks, not SRUN_TASKS singletons of one rank each.
[ "$(grep -cE '^#  Rank +[0-9]+ ' "$TMP/srun.out")" -eq "$SRUN_TASKS" ] ||
  fail "srun's fabscope did not list $SRUN_TASKS ranks in one job"
grep -q '^# Verdict: pass' "$TMP/srun.out" || fail "srun's fabscope sweep did not pass"

step "PASS (job $JOB_ID exit $job_rc, srun exit $srun_rc)"
exit 0
