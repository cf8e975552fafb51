#!/usr/bin/env bash
# Stops the one-node Slurm of scripts/slurm/start-local.sh: slurmctld and slurmd, then munged
# (unless --keep-munge). Safe to run when nothing runs. Jobs still queued are kept in the state
# folder and come back on the next start; --purge removes that folder (and the configuration).
#
#   ZL_SLURM_DIR  the scratch folder start-local.sh used (/tmp/zl-slurm)
set -euo pipefail

dir=${ZL_SLURM_DIR:-/tmp/zl-slurm}
keep_munge=0
purge=0
for arg in "$@"; do
  case "$arg" in
  --keep-munge) keep_munge=1 ;;
  --purge) purge=1 ;;
  *)
    echo "stop-local.sh: unknown option '$arg'; use --keep-munge or --purge" >&2
    exit 2
    ;;
  esac
done

# Waits for the process of a pid file to end, killing it after 10 s.
stop_pid() { # pid-file
  [ -s "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "stop-local.sh: pid $pid ($1) ignored SIGTERM for 10 s; killing it" >&2
  kill -9 "$pid" 2>/dev/null || true
}

# scontrol shutdown stops slurmctld and every slurmd cleanly; the pid files catch what it missed.
if command -v scontrol >/dev/null; then
  scontrol shutdown >/dev/null 2>&1 || true
fi
stop_pid "$dir/run/slurmctld.pid"
stop_pid "$dir/run/slurmd.pid"
[ "$keep_munge" -eq 1 ] || stop_pid /run/munge/munged.pid

if [ "$purge" -eq 1 ]; then
  rm -rf "$dir"
  rm -f /etc/slurm/slurm.conf /etc/slurm/gres.conf /etc/slurm/cgroup.conf
fi
