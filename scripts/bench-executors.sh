#!/usr/bin/env bash
# Times `zl batch --executor process` against `--executor warm` on a copy of the sample corpus
# whose benchmark package imports tests/fixtures/heavy_import/zl_heavy_import.py, a module whose
# import sleeps HEAVY_IMPORT_S seconds (default 2), standing in for `import torch, flag_gems`.
# The warm workers import it once (ZL_WARM_PRELOAD); each fresh process pays it per op.
# A benchmark, not a timed test: it prints the makespans and their ratio, whatever they are; it
# fails only when an op fails, since then the times measure nothing. CI runs it (.ci/run).
#   scripts/bench-executors.sh [ZL_BINARY] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
zl=${1:-$root/build/bin/zl}
rounds=${2:-3}
python=${ZL_PYTHON:-/usr/bin/python3}
ops=abs,add,mm,sum,fft
n_ops=$(tr , "\n" <<<"$ops" | wc -l)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/corpus" "$work/corpus"
find "$work/corpus" -name __pycache__ -prune -exec rm -rf {} +
printf 'import zl_heavy_import  # noqa: F401  (stands in for torch)\n' >> "$work/corpus/benchmark/__init__.py"
export PYTHONPATH="$root/tests/fixtures/heavy_import${PYTHONPATH:+:$PYTHONPATH}"
export HEAVY_IMPORT_S=${HEAVY_IMPORT_S:-2}
echo "ops: $ops; import cost: ${HEAVY_IMPORT_S} s; rounds: $rounds"
declare -A total=([process]=0 [warm]=0)
failed=0
# Rounds alternate the executors, so that a machine busy for a while slows both alike.
for r in $(seq "$rounds"); do
  for executor in process warm; do
    out="$work/$executor-$r"
    start=$(date +%s.%N)
    ZL_WARM_PRELOAD=zl_heavy_import "$zl" batch --flaggems "$work/corpus" --ops "$ops" --python "$python" \
      --out "$out" --executor "$executor" >/dev/null 2>"$work/err" || true
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
    total[$executor]=$(awk -v t="${total[$executor]}" -v w="$wall" 'BEGIN {print t + w}')
    # The corpus's fft is skipped without CUDA (corpus/benchmark/test_fft.py): skipped, as meant.
    done_ops=$(grep -cE '^[^,]*,(ok|no_rows|skipped|unsupported),' "$out/ops_status.csv" 2>/dev/null || true)
    printf '%-8s round %d: %6.2f s wall, %s of %s ops ok, no_rows, skipped or unsupported\n' "$executor" "$r" "$wall" "${done_ops:-0}" "$n_ops"
    if [ "${done_ops:-0}" != "$n_ops" ]; then
      failed=1
      tail -5 "$work/err" >&2
    fi
  done
done
awk -v p="${total[process]}" -v w="${total[warm]}" -v n="$rounds" \
  'BEGIN {printf "mean: process %.2f s, warm %.2f s; process / warm %.2fx\n", p / n, w / n, p / w}'
if [ "$failed" != 0 ]; then
  echo "bench-executors: an op failed (its stderr above), so these times measure nothing" >&2
  exit 1
fi
