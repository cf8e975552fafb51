#!/usr/bin/env bash
# zl summary of one large log, streamed: wall time and peak memory at about 128 MB and 1 GB of
# log, against the Python reader doing the same parse (reference_parser.py --summary, which folds
# as it reads too), in one paired run. The figures docs/scale.md quotes.
#
#   bench/stream_summary.sh [BUILD_DIR] [WORK_DIR]
#
# BUILD_DIR holds bin/zl and bin/zl_bench (default: build), built optimized. WORK_DIR (default:
# a temporary folder under /tmp) receives zl_bench's synthetic campaign (bench_summary.cpp's
# format: FlagGems tables with zl's markers, 1,000,000 rows) and the logs made of its run.log
# files end to end; everything it wrote there is removed at the end (1.3 GB of disk meanwhile).
# Each tool runs RUNS times (default 3) a size; the best wall time and the largest peak RSS are
# printed, and the two CSV tables must be identical. PYTHON picks the interpreter (default
# python3); SIZES_MB the sizes (default "128 1024").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
python=${PYTHON:-python3}
runs=${RUNS:-3}
sizes=${SIZES_MB:-128 1024}
if [ -n "${2:-}" ]; then
  work=$2
  mkdir -p "$work"
  trap 'rm -rf "$work/campaign" "$work"/log-*MB.log "$work"/out.*' EXIT
else
  work=$(mktemp -d /tmp/zl-stream-XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time) for the peak RSS" >&2; exit 2; }

echo "== the synthetic campaign (zl_bench writes it once)"
if ! ZL_BENCH_CAMPAIGN=$work/campaign "$build/bin/zl_bench" --benchmark_filter='BM_ParseSide' \
  --benchmark_min_time=0.01 >"$work/out.bench" 2>&1; then
  cat "$work/out.bench" >&2
  exit 1
fi
mapfile -t logs < <(find "$work/campaign" -name run.log | sort)

# A log of at least MB megabytes: the campaign's run.log files end to end, again as needed.
write_log() {
  local out=$1 want=$(($2 << 20)) have=0
  : >"$out"
  while [ "$have" -lt "$want" ]; do
    for f in "${logs[@]}"; do
      cat "$f" >>"$out"
      have=$((have + $(stat -c %s "$f")))
      [ "$have" -lt "$want" ] || break
    done
  done
}

# Runs a command RUNS times: "best-wall-s peak-MB" on stdout, its output kept in $3.
measure() {
  local label=$1 log=$2 out=$3 best="" peak=0
  shift 3
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/out.time" "$@" "$log" >"$out"
    read -r wall kb <"$work/out.time"
    best=$(awk -v a="$best" -v b="$wall" 'BEGIN { print (a == "" || b < a) ? b : a }')
    peak=$((kb > peak ? kb : peak))
  done
  printf '%-22s %8.2f s %8.1f MB\n' "$label" "$best" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
  echo "$best" >"$out.wall"
}

echo "== zl summary LOG --format csv against reference_parser.py --summary LOG (best of $runs)"
for mb in $sizes; do
  log=$work/log-${mb}MB.log
  write_log "$log" "$mb"
  rows=$(grep -c -E '^(SUCCESS|FAILED) ' "$log")
  echo "-- $(du -m "$log" | cut -f1) MB, $rows rows"
  measure "zl summary" "$log" "$work/out.zl" "$build/bin/zl" summary --format csv
  measure "Python reference" "$log" "$work/out.py" "$python" "$here/reference_parser.py" --summary
  ratio=$(awk -v p="$(cat "$work/out.py.wall")" -v z="$(cat "$work/out.zl.wall")" 'BEGIN { printf "%.1f", p / z }')
  echo "ratio                  ${ratio}x"
  if ! cmp -s "$work/out.zl" "$work/out.py"; then
    echo "the two tables differ" >&2
    exit 1
  fi
  echo "tables                 identical ($(wc -l <"$work/out.zl") lines of CSV)"
  rm -f "$log"
done
