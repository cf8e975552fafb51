#!/usr/bin/env bash
# zl batch --executor slurm against a running Slurm (scripts/slurm/start-local.sh starts one):
# 1. generating (--dry-run) and submitting (--no-wait) a 1,000-op campaign: the time, and the
#    number of sbatch calls (a counting sbatch on PATH in front of Slurm's); the jobs are
#    cancelled at once;
# 2. the makespan of the sample corpus through Slurm against the local warm executor on the
#    same CPUs and the same two (fake) GPUs;
# 3. the same where import time matters: the corpus's benchmark package imports
#    tests/fixtures/heavy_import/zl_heavy_import.py (a 2 s sleep standing in for torch, as in
#    scripts/bench-executors.sh), preloaded by the warm workers, 2 array tasks against 2 devices.
# 4. Slurm alone: how long an array of two waits when it is submitted as soon as another job has
#    started (the scheduler has just run), which batch_sched_delay decides (docs/slurm-local.md).
# A benchmark, not a test: it prints the figures and exits 0.
#   [ROUNDS=3] scripts/bench-slurm.sh [ZL_BINARY]   (ROUNDS: makespan rounds per executor)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
zl=${1:-$root/build/bin/zl}
python=${ZL_PYTHON:-/usr/bin/python3}
work=$(mktemp -d /tmp/zl-bench-slurm.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
sbatch_real=$(command -v sbatch)
printf '#!/bin/sh\necho x >> %s/sbatch-calls\nexec %s "$@"\n' "$work" "$sbatch_real" > "$work/bin/sbatch"
printf '#!/bin/sh\nexec %s "$@"\n' "$root/tests/fixtures/fake_smi/bin/nvidia-smi" > "$work/bin/nvidia-smi"
chmod +x "$work/bin/sbatch" "$work/bin/nvidia-smi"
export PATH="$work/bin:$PATH"

# A corpus of 1,000 ops: its 5 and the sample corpus's abs under 995 more names (only submitted, never run).
cp -r "$root/corpus" "$work/big"
find "$work/big" -name __pycache__ -prune -exec rm -rf {} +
for i in $(seq -w 0 994); do ln -s test_abs.py "$work/big/benchmark/test_op$i.py"; done
now() { date +%s.%N; }
t0=$(now)
"$zl" --backend cuda batch --flaggems "$work/big" --all --python "$python" --out "$work/dry" --executor slurm \
  --ops-per-task 1 --dry-run >/dev/null 2>&1
t1=$(now)
rm -f "$work/sbatch-calls"
"$zl" --backend cuda batch --flaggems "$work/big" --all --python "$python" --out "$work/real" --executor slurm \
  --ops-per-task 1 --no-wait >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
t2=$(now)
array=$(sed -n 's/^array=//p' "$work/real/slurm/jobs"); final=$(sed -n 's/^final=//p' "$work/real/slurm/jobs")
scancel "$array" "$final" || true
printf '1,000 ops, 1 op per task: --dry-run %.2f s; submission %.2f s with %d sbatch calls (array %s, final %s)\n' \
  "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$(wc -l < "$work/sbatch-calls")" "$array" "$final"

ops=abs,add,mm,sum
makespans() { # label corpus
  for round in $(seq "${ROUNDS:-3}"); do
    for executor in warm slurm; do
      extra=()
      [ "$executor" = slurm ] && extra=(--max-concurrent 2)
      out="$work/$1-$executor-$round"
      s=$(now)
      "$zl" --backend cuda batch --flaggems "$2" --ops "$ops" --python "$python" --timer direct \
        --out "$out" --executor "$executor" "${extra[@]}" >/dev/null 2>"$work/err" || true
      e=$(now)
      ok=$(grep -c '^[^,]*,ok,' "$out/ops_status.csv" || true)
      parts=
      if [ "$executor" = slurm ]; then
        # Where a Slurm campaign's extra time goes, from its records' times: Slurm's wait before
        # the first task started, and from the last task's record to the campaign recorded.
        first=$(stat -c %.Y "$out"/slurm/task-*.started | sort -n | head -1)
        last=$(stat -c %.Y "$out"/slurm/task-*.csv | sort -n | tail -1)
        parts=$(printf '; until the first task started %.2f s, last record to recorded %.2f s' \
          "$(echo "$first - $s" | bc)" "$(echo "$(stat -c %.Y "$out/slurm/final.done") - $last" | bc)")
      fi
      printf '%s, %-5s round %d: makespan %6.2f s, %s ops ok%s\n' "$1" "$executor" "$round" "$(echo "$e - $s" | bc)" \
        "$ok" "$parts"
    done
  done
}
makespans "sample corpus" "$root/corpus"
cp -r "$root/corpus" "$work/heavy"
find "$work/heavy" -name __pycache__ -prune -exec rm -rf {} +
printf 'import zl_heavy_import  # noqa: F401  (stands in for torch)\n' >> "$work/heavy/benchmark/__init__.py"
export PYTHONPATH="$root/tests/fixtures/heavy_import${PYTHONPATH:+:$PYTHONPATH}" ZL_WARM_PRELOAD=zl_heavy_import
makespans "heavy import" "$work/heavy"

# 4. Back to back: job A, then, once A runs, an array B of two; B's wait from submit to both started.
waits=()
for round in $(seq "${ROUNDS:-3}"); do
  rm -f "$work"/a "$work"/b0 "$work"/b1
  sbatch --parsable -o /dev/null --wrap "date +%s.%N > $work/a" >/dev/null
  while [ ! -s "$work/a" ]; do sleep 0.01; done
  s=$(now)
  sbatch --parsable -o /dev/null --array=0-1 --wrap "date +%s.%N > $work/b\$SLURM_ARRAY_TASK_ID" >/dev/null
  while [ ! -s "$work/b0" ] || [ ! -s "$work/b1" ]; do sleep 0.01; done
  waits+=("$(printf '%.2f' "$(echo "$(sort -n "$work/b0" "$work/b1" | tail -1) - $s" | bc)")")
  sleep 4 # the next A is submitted long after this pass
done
printf 'an array submitted just after another job started (%s): waited %s s\n' \
  "$(scontrol show config | sed -n 's/^SchedulerParameters *= *//p')" "${waits[*]}"
