#!/usr/bin/env bash
# Times `zl batch --executor process` against `--executor warm` on a copy of the sample corpus
# whose benchmark package imports tests/fixtures/heavy_import/zl_heavy_import.py, a module whose
# import sleeps ZL_HEAVY_IMPORT_S seconds (default 2), standing in for `import torch, flag_gems`.
# The warm workers import it once (ZL_WARM_PRELOAD); each fresh process pays it per op.
# A benchmark, not a test: it prints the makespans and exits 0.
#   scripts/bench-executors.sh [ZL_BINARY] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
zl=${1:-$root/build/bin/zl}
rounds=${2:-3}
python=${ZL_PYTHON:-/usr/bin/python3}
ops=abs,add,mm,sum,fft
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/corpus" "$work/corpus"
find "$work/corpus" -name __pycache__ -prune -exec rm -rf {} +
printf 'import zl_heavy_import  # noqa: F401  (stands in for torch)\n' >> "$work/corpus/benchmark/__init__.py"
export PYTHONPATH="$root/tests/fixtures/heavy_import${PYTHONPATH:+:$PYTHONPATH}"
export ZL_HEAVY_IMPORT_S=${ZL_HEAVY_IMPORT_S:-2}
echo "ops: $ops; import cost: ${ZL_HEAVY_IMPORT_S} s; rounds: $rounds"
for executor in process warm; do
  for r in $(seq "$rounds"); do
    out="$work/$executor-$r"
    start=$(date +%s.%N)
    ZL_WARM_PRELOAD=zl_heavy_import "$zl" batch --flaggems "$work/corpus" --ops "$ops" --python "$python" \
      --out "$out" --executor "$executor" >/dev/null 2>"$work/err" || true
    end=$(date +%s.%N)
    ok=$(grep -c '^[^,]*,ok,' "$out/ops_status.csv" || true)
    printf '%-8s round %d: %6.2f s wall, %s ops ok\n' "$executor" "$r" "$(echo "$end - $start" | bc)" "$ok"
  done
done
