#!/usr/bin/env bash
# zl summary against a plain Python parser of the same format, on the same bytes: the synthetic
# A/B campaign of 1,000,000 rows that bench_summary.cpp writes.
#
#   bench/compare_parsers.sh [BUILD_DIR] [CAMPAIGN_DIR]
#
# BUILD_DIR holds bin/zl and bin/zl_bench (default: build), built optimized (RelWithDebInfo,
# the default). CAMPAIGN_DIR (default: a temporary folder, removed at the end) is written once
# by zl_bench and reused when it exists. Prints zl's own benchmark, then each tool's best wall
# time of three as a whole process (start-up included), the ratio, and checks that both
# printed the same per-op table. PYTHON picks the interpreter (default python3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
python=${PYTHON:-python3}
campaign=${2:-$(mktemp -d /tmp/zl-campaign-XXXXXX)}
[ -n "${2:-}" ] || trap 'rm -rf "$campaign"' EXIT

echo "== zl's own benchmark of parse + pair + table (writes the campaign the first time)"
ZL_BENCH_CAMPAIGN=$campaign "$build/bin/zl_bench" --benchmark_filter='BM_SummaryAb|BM_PairAndTable|BM_ParseSide' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

echo "== the same campaign through both, as whole processes"
"$python" - "$build/bin/zl" "$here/reference_parser.py" "$campaign" <<'EOF'
import os, subprocess, sys, time

zl, reference, campaign = sys.argv[1:]
a, b = os.path.join(campaign, "A"), os.path.join(campaign, "B")

def best_of_3(argv):
    best, out = None, None
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, check=True)
        took = time.perf_counter() - start
        best, out = (took, proc.stdout) if best is None or took < best else (best, out)
    return best, out

rows = 0
for root, _, files in os.walk(campaign):
    if "run.log" in files:
        with open(os.path.join(root, "run.log")) as f:
            rows += sum(1 for line in f if line.startswith(("SUCCESS ", "FAILED ")))
zl_s, zl_out = best_of_3([zl, "summary", "--ab", a, b, "--format", "csv"])
py_s, py_out = best_of_3([sys.executable, reference, a, b])
print(f"campaign:          {campaign}, {rows} rows")
print(f"zl summary --ab:   {zl_s:.3f} s")
print(f"Python reference:  {py_s:.3f} s (Python {sys.version.split()[0]})")
print(f"ratio:             {py_s / zl_s:.1f}x")
if zl_out != py_out:
    print("the two per-op tables differ", file=sys.stderr)
    sys.exit(1)
print(f"tables:            identical ({zl_out.count(chr(10))} lines of per-op CSV)")
EOF
