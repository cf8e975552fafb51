#!/usr/bin/env bash
# Starts a real one-node Slurm on this machine (Debian 12, as root, no systemd needed) with two
# stand-in GPUs declared as generic resources, for testing zl's Slurm executor. Installs Debian's
# slurm-wlm and munge when missing, starts munged, slurmctld and slurmd, and waits until the node
# is idle. Safe to run again: what runs with the same configuration is left alone.
# docs/slurm-local.md says what it sets up and what Slurm does with it.
#
#   ZL_SLURM_DIR      scratch folder for state, spool, logs, pid files, devices (/tmp/zl-slurm)
#   ZL_SLURM_TIMEOUT  seconds to wait for the node to become idle (60)
set -euo pipefail

dir=${ZL_SLURM_DIR:-/tmp/zl-slurm}
timeout=${ZL_SLURM_TIMEOUT:-60}
conf_dir=/etc/slurm

die() {
  echo "start-local.sh: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root: munged, slurmctld and slurmd are started as system daemons"

# --- packages (as scripts/install-deps.sh: nothing when present) ---
packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "start-local.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- munge: a key, then munged as the munge user ---
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  su -s /bin/sh munge -c /usr/sbin/munged
  munge -n | unmunge >/dev/null || die "munged started but munge -n | unmunge fails; see /var/log/munge/munged.log"
fi

# --- the configuration for this node ---
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$dir"/{state,spool,log,run,dev} "$conf_dir"
# gres.conf wants character devices (a regular file is "not a valid character or block
# device"); the numbers of /dev/null and /dev/zero stand in for two GPUs.
[ -c "$dir/dev/nvidia0" ] || mknod "$dir/dev/nvidia0" c 1 3
[ -c "$dir/dev/nvidia1" ] || mknod "$dir/dev/nvidia1" c 1 5

new_conf=$(mktemp -d)
trap 'rm -rf "$new_conf"' EXIT
cat >"$new_conf/slurm.conf" <<EOF
# Written by zl's scripts/slurm/start-local.sh: a one-node cluster for tests.
ClusterName=zl
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
MailProg=/bin/true
# Batch jobs (arrays too) are never started inside sbatch's request; slurmctld's background loop
# (about once a second) runs the scheduler, by default no sooner than 3 s after its last pass:
# an array submitted just after another job started waited 3.0 s, with 0 1.0 s (the tests submit
# campaign after campaign; docs/slurm-local.md, "When a batch job starts"). bf_interval=1: the
# backfill thread's pass each second, at its own phase, is a second chance to start it (submit to
# start 0.41 s on average and at most 0.95 s without it, 0.29 s and 0.57 s with it).
SchedulerParameters=batch_sched_delay=0,bf_interval=1
NodeName=$host CPUs=$cpus RealMemory=2000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$new_conf/gres.conf" <<EOF
# Written by zl's scripts/slurm/start-local.sh: two stand-in GPUs.
NodeName=$host Name=gpu File=$dir/dev/nvidia[0-1]
EOF
# Nothing here uses cgroups (proctrack/linuxproc, task/none); the file keeps slurmd from
# guessing at the host's cgroup setup.
cat >"$new_conf/cgroup.conf" <<EOF
# Written by zl's scripts/slurm/start-local.sh: no cgroup plugin is used.
CgroupPlugin=autodetect
ConstrainDevices=no
EOF

running() { # pid file
  [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

changed=0
for f in slurm.conf gres.conf cgroup.conf; do
  cmp -s "$new_conf/$f" "$conf_dir/$f" || changed=1
done
if [ "$changed" -eq 1 ]; then
  if running "$dir/run/slurmctld.pid" || running "$dir/run/slurmd.pid"; then
    echo "start-local.sh: the configuration changed; restarting Slurm" >&2
    "$(dirname "$0")/stop-local.sh" --keep-munge
  fi
  cp "$new_conf"/{slurm.conf,gres.conf,cgroup.conf} "$conf_dir/"
fi

# --- the daemons (both daemonize) ---
running "$dir/run/slurmctld.pid" || slurmctld
running "$dir/run/slurmd.pid" || slurmd

# --- wait for the node: idle in sinfo, and both daemons alive (slurmctld keeps calling a node
# idle for SlurmdTimeout after its slurmd died) ---
up() {
  running "$dir/run/slurmctld.pid" && running "$dir/run/slurmd.pid" || return 1
  case "$state" in
  idle | mixed | allocated) return 0 ;;
  esac
  return 1
}
show_logs() {
  for log in "$dir/log/slurmctld.log" "$dir/log/slurmd.log"; do
    echo "--- last lines of $log" >&2
    tail -n 30 "$log" >&2 2>/dev/null || echo "(none)" >&2
  done
  echo "--- sinfo -R" >&2
  sinfo -R >&2 2>&1 || true
}
deadline=$((SECONDS + timeout))
state=
while [ "$SECONDS" -lt "$deadline" ]; do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  up && break
  sleep 1
done
if ! up; then
  show_logs
  for d in slurmctld slurmd; do
    running "$dir/run/$d.pid" || echo "start-local.sh: $d is not running" >&2
  done
  die "node $host is '${state:-not known to slurmctld}' after ${timeout}s, not idle with both daemons running; the daemons' logs are above"
fi
echo "start-local.sh: Slurm is up: node $host ($state), partition debug, gres gpu:2; logs in $dir/log" >&2
