#!/usr/bin/env bash
# A throw-away single-node Slurm on this machine (issue 15): munged,
# slurmctld and slurmd on localhost, every file under DIR, ports picked
# from free ones. Used by the `slurm` ctest; also handy to try --slurm.
#
#   scripts/slurm_local.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm_local.sh stop DIR
#
# Needs Debian's slurm-wlm and munge (scripts/setup.sh installs them). Runs as
# the current user (SlurmUser = SlurmdUser = you), so jobs run as you too.
set -euo pipefail
cmd=${1:?usage: slurm_local.sh start|stop DIR}
dir=${2:?usage: slurm_local.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf

stop() {
  if [[ -f $conf ]]; then SLURM_CONF=$conf scontrol shutdown >/dev/null 2>&1 || true; fi
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    if [[ -f $pidfile ]]; then
      pid=$(cat "$pidfile")
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill "$pid" 2>/dev/null || true
      rm -f "$pidfile"
    fi
  done
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case $cmd in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "slurm_local.sh: unknown command '$cmd' (start or stop)" >&2; exit 2 ;;
esac

for tool in munged slurmctld slurmd sbatch scontrol; do
  command -v "$tool" >/dev/null || { echo "slurm_local.sh: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 3; }
done
user=$(id -un)
host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
if [[ ! -f $dir/munge/munge.key ]]; then
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
fi
munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed"
cat > "$conf" <<CONF
ClusterName=ftsimlocal
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$conf
slurmctld -f "$conf"
slurmd -f "$conf"
# Ready when the node is idle (at most a minute).
for _ in $(seq 600); do
  if sinfo -h -o %t 2>/dev/null | grep -qx idle; then
    echo "export SLURM_CONF=$conf"
    exit 0
  fi
  sleep 0.1
done
echo "slurm_local.sh: Slurm did not become ready within 60 s; logs in $dir" >&2
tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
stop
exit 4
