#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz (issue 16): builds them with clang-14 into build-fuzz
# (-DZL_FUZZ=ON: ASan, UBSan, coverage), makes each a seed corpus from the project's fixtures,
# and runs each in turn. Fails on any crash, leak, timeout or sanitizer report; what failed is
# left in build-fuzz/artifacts/<target>/ (commit it under tests/fuzz/regressions/<target>/).
#
#   bash scripts/fuzz.sh [TARGET...]            CI: FUZZ_SECONDS (default 30) per target
#   bash scripts/fuzz.sh --bench [TARGET...]    long runs: FUZZ_RUNS executions (default 10 million)
#                                               each, FUZZ_SECONDS (default 3600) at most, in
#                                               rounds of FUZZ_ROUND_RUNS (150,000;
#                                               scripts/fuzz-lib.sh says why)
#
# TARGET is a name without fuzz_ (table_parser); default: all. FUZZ_JOBS fuzzes that many targets
# at once (default 1). FUZZ_NO_BUILD=1 runs the targets already in BUILD_DIR/bin (another machine). Each ends with a line "fuzz_<target>: <execs> executions, <edges> edges, <s> s".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
bench=0
if [ "${1:-}" = --bench ]; then
  bench=1
  shift
fi
seconds=${FUZZ_SECONDS:-$([ "$bench" = 1 ] && echo 3600 || echo 30)}
runs=${FUZZ_RUNS:-$([ "$bench" = 1 ] && echo 10000000 || echo -1)}
source "$root/scripts/fuzz-lib.sh"
fuzz_set_round FUZZ_ROUND_RUNS "${FUZZ_ROUND_RUNS:-150000}"

# Warnings stay the GCC build's job (scripts/build.sh): clang-14 has others.
[ "${FUZZ_NO_BUILD:-0}" = 1 ] || cmake -S "$root" -B "$build" -G Ninja -DZL_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DZL_BUILD_TESTS=OFF -DZL_BUILD_BENCH=OFF -DZL_WERROR=OFF -DCMAKE_BUILD_TYPE=None \
  "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS=-O1 -gline-tables-only" >/dev/null
[ "${FUZZ_NO_BUILD:-0}" = 1 ] || cmake --build "$build" -j "${ZL_JOBS:-2}" --target zl_fuzzers

fixtures=$root/tests/fixtures
seeds=$root/tests/fuzz/seeds
sep=$'\n=====\n'
corpus=$build/fuzz-seeds
rm -rf "$corpus"
# seed TARGET NAME PART...: one seed, the parts joined by the separator the targets split on.
seed() {
  local target=$1 name=$2 first=1
  shift 2
  mkdir -p "$corpus/$target"
  for part in "$@"; do
    [ "$first" = 1 ] || printf '%s' "$sep"
    cat "$part"
    first=0
  done >"$corpus/$target/$name"
}
for f in "$fixtures"/flaggems_output/*.log; do
  n=$(basename "$f")
  seed table_parser "$n" "$f"
  seed record_log "$n" "$f"
  seed markers "$n" "$f"
  seed run_folder "$n" "$seeds/identity.json" "$f" "$fixtures/flaggems_output/record.log"
done
seed record_log merged "$fixtures/flaggems_output/tflops.log" "$fixtures/flaggems_output/record.log"
seed receipt plain "$seeds/receipt.json" "$seeds/identity.json" "$seeds/plan.json" "$fixtures/flaggems_output/tflops.log"
seed campaign_json campaign.json "$seeds/campaign_json/campaign.json"
seed ops_status ops_status.csv "$seeds/ops_status/ops_status.csv"
for f in "$fixtures"/*/benchmark/core_shapes.yaml; do
  seed shape_yaml "$(basename "$(dirname "$(dirname "$f")")").yaml" "$f"
done
for f in "$fixtures"/*/benchmark/*.py "$fixtures"/tuned_corpus/pylib/*/*/*.py; do
  n=$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")
  seed py_tokenizer "$n" "$f"
  seed py_module "$n" "$f"
  seed class_chain "$n" "$f" "$fixtures/shapes_flaggems/benchmark/base.py"
done
# The vendor tools' answers: the recorded samples (tests/fixtures/smi), real ones (smi/real).
for f in "$fixtures"/smi/cuda/* "$fixtures"/smi/real/nvidia-smi/*; do seed nvidia_smi "$(basename "$f")" "$f"; done
for f in "$fixtures"/smi/musa/* "$fixtures"/smi/real/mthreads-gmi/*; do seed mthreads_gmi "$(basename "$f")" "$f"; done
for f in "$fixtures"/smi/rocm/rocm-smi-*.json "$fixtures"/smi/real/rocm-smi/*; do
  seed rocm_smi "$(basename "$f")" "$f"
done
for f in "$fixtures"/smi/rocm/amd-smi-list-*.json; do seed amd_smi "$(basename "$f")" "$f" "${f/list/static}"; done
for f in "$fixtures"/smi/real/amd-smi/*; do seed amd_smi "$(basename "$f")" "$f" "$f"; done
for f in "$fixtures"/smi/ascend/npu-smi-info-[2egpt]*.txt; do
  m=${f/npu-smi-info-/npu-smi-info-m-}
  [ -f "$m" ] && seed npu_smi "$(basename "$f")" "$f" "$m"
done
for f in "$fixtures"/smi/real/npu-smi/*; do seed npu_smi "$(basename "$f")" "$f" "$f"; done
for d in "$seeds"/*/ "$root"/tests/fuzz/regressions/*/; do
  [ -d "$d" ] || continue
  mkdir -p "$corpus/$(basename "$d")"
  cp "$d"* "$corpus/$(basename "$d")/" 2>/dev/null || true
done

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for t in "$build"/bin/fuzz_*; do targets+=("$(basename "$t" | sed 's/^fuzz_//')"); done
fi

# The targets' scratch folders (tests/fuzz/fuzz_util.hpp), in one folder removed at the end.
# They go on /dev/shm where it is writable: on a disk, SQLite's syncs made fuzz_store 5-7x slower
# (1,258-1,763 runs in 13 s against 8,952-9,154). FUZZ_TMPDIR names another place.
scratch=${FUZZ_TMPDIR:-$([ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo "$build")}
export TMPDIR
TMPDIR=$(mktemp -d "$scratch/zl-fuzz-tmp.XXXXXX")
trap 'rm -rf "$TMPDIR"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# fuzz TARGET: runs it; its log in build-fuzz/fuzz-logs/TARGET.log, its summary on stdout.
fuzz() {
  local t=$1 work=$build/fuzz-corpus/$1 art=$build/artifacts/$1/ log=$build/fuzz-logs/$1.log
  mkdir -p "$work" "$art" "$build/fuzz-logs" "$corpus/$t"
  local args=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$art")
  [ -n "${dict[$t]:-}" ] && args+=(-dict="$root/tests/fuzz/dict/${dict[$t]}.dict")
  local start=$SECONDS
  fuzz_rounds "$build/bin/fuzz_$t" "$log" "$runs" "$seconds" "${args[@]}" "$work" "$corpus/$t"
  echo "fuzz_$t: $fuzz_execs executions, $(fuzz_edges "$log") edges, $((SECONDS - start)) s, exit $fuzz_rc"
  if [ "$fuzz_rc" != 0 ]; then
    grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==|Test unit written' "$log" | head -20 >&2
    return 1
  fi
}
failed=0
jobs=${FUZZ_JOBS:-1}
for t in "${targets[@]}"; do
  if [ "$jobs" -gt 1 ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || failed=1; done
    fuzz "$t" &
  else
    fuzz "$t" || failed=1
  fi
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
if [ "$failed" != 0 ]; then
  echo "zl: a fuzz target failed: its input is in $build/artifacts/<target>/; add it to tests/fuzz/regressions/" >&2
  exit 1
fi
