#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz (issue 16): builds them with clang-14 into build-fuzz
# (-DZL_FUZZ=ON: ASan, UBSan, coverage), makes each a seed corpus from the project's fixtures,
# and runs each in turn. Fails on any crash, leak, timeout or sanitizer report; what failed is
# left in build-fuzz/artifacts/<target>/ (commit it under tests/fuzz/regressions/<target>/).
#
#   bash scripts/fuzz.sh [TARGET...]            CI: FUZZ_SECONDS (default 30) per target
#   bash scripts/fuzz.sh --bench [TARGET...]    long runs: FUZZ_RUNS executions (default 10 million)
#                                               each, FUZZ_SECONDS (default 3600) at most, in
#                                               rounds of FUZZ_ROUND_RUNS (150,000; below why)
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

source "$root/scripts/fuzz-dicts.sh"
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
# Long runs go in rounds of FUZZ_ROUND_RUNS executions (default 150,000), each a fresh process
# on the same corpus. ASan's stack depot keeps every allocation stack it sees and never frees one;
# through libraries built without frame pointers (Debian's libyaml-cpp) its fast unwinder records
# junk frames, so nearly every stack is new: fuzz_shape_yaml's depot held 821-865 MB after 190,869
# executions (2,125,869 ids in 15,000; 48,967 with the slow unwinder, 17x slower), and one process
# would pass -rss_limit_mb by about 400,000 and report an out-of-memory that is not zl's.
round=${FUZZ_ROUND_RUNS:-150000}
[[ $round =~ ^[1-9][0-9]*$ ]] || { echo "zl: FUZZ_ROUND_RUNS=$round: give a whole number of executions above 0" >&2; exit 2; }
# fuzz TARGET: runs it; its log in build-fuzz/fuzz-logs/TARGET.log, its summary on stdout.
fuzz() {
  local t=$1 work=$build/fuzz-corpus/$1 art=$build/artifacts/$1/ log=$build/fuzz-logs/$1.log
  mkdir -p "$work" "$art" "$build/fuzz-logs" "$corpus/$t"
  local args=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$art")
  [ -n "${dict[$t]:-}" ] && args+=(-dict="$root/tests/fuzz/dict/${dict[$t]}.dict")
  local start=$SECONDS rc=0 execs=0 n left per
  : >"$log"
  while :; do
    left=$((seconds - (SECONDS - start)))
    per=$runs
    if [ "$runs" -ge 0 ]; then
      per=$((runs - execs))
      [ "$bench" = 1 ] && [ "$per" -gt "$round" ] && per=$round
    fi
    "$build/bin/fuzz_$t" "${args[@]}" -max_total_time="$left" -runs="$per" "$work" "$corpus/$t" >"$log.round" 2>&1 || rc=$?
    cat "$log.round" >>"$log"
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.round" | tail -1)
    execs=$((execs + ${n:-0}))
    # CI's run is one process for its time; a long run's next round starts where this one ended.
    # A round also replays the whole corpus first, so it may run more than it was asked to.
    if [ "$rc" != 0 ] || [ "$bench" = 0 ] || [ -z "$n" ] || [ "$n" -lt "$per" ] || [ "$execs" -ge "$runs" ] ||
      [ $((SECONDS - start)) -ge "$seconds" ]; then
      break
    fi
    echo "== round ends at $execs executions" >>"$log"
  done
  rm -f "$log.round"
  local edges
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
  [ -n "$n" ] || execs="$execs+?"
  echo "fuzz_$t: $execs executions, ${edges:-?} edges, $((SECONDS - start)) s, exit $rc"
  if [ "$rc" != 0 ]; then
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
