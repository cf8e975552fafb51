#!/bin/bash
# Runs one libFuzzer target of tests/fuzz (issue 16) as many workers on one corpus on a machine
# with more cores than this one: the accelerator machine's CPUs. Each worker is a libFuzzer process
# on the one corpus folder, as libFuzzer's own -jobs=N -workers=N would start: it reloads the folder
# and adds what it finds to it, so their executions add up the way one long run's would.
#
# Here, after `bash scripts/fuzz.sh` has built the targets and made the seeds:
#   TARGET=shape_yaml bash scripts/device/fuzz_workers.sh bundle
# copies the target, the shared libraries that machine lacks, its corpus, seeds and dictionary
# into .dev/fuzz (name .dev in the device tool's carry). There:
#   WORKERS=16 RUNS=10000000 SECONDS_MAX=540 bash scripts/device/fuzz_workers.sh run
# splits RUNS over the workers, each in rounds of ROUND_RUNS (150,000) executions, and leaves in
# $OUT the grown corpus (corpus.tgz: unpack it over build-fuzz/fuzz-corpus/TARGET to go on with a
# next call), a summary line per worker (workers.txt: executions, edges, reports) and
# results.tgz: every worker's log and any artifact.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.dev/fuzz
source "$root/scripts/fuzz-lib.sh"
case "${1:-}" in
bundle)
  t=${TARGET:?TARGET names a target without fuzz_}
  build=${BUILD_DIR:-$root/build-fuzz}
  rm -rf "$dest"
  mkdir -p "$dest/deps" "$dest/corpus" "$dest/seeds"
  cp "$build/bin/fuzz_$t" "$dest/"
  ldd "$build/bin/fuzz_$t" | awk '$3 ~ /^\// {print $3}' |
    grep -E 'libfmt|libyaml-cpp|libboost|libsqlite3|libcrypto|libstdc\+\+|libgcc_s' |
    while read -r lib; do cp -L "$lib" "$dest/deps/"; done
  [ -d "$build/fuzz-corpus/$t" ] && cp -r "$build/fuzz-corpus/$t/." "$dest/corpus/"
  cp -r "$build/fuzz-seeds/$t/." "$dest/seeds/"
  [ -n "${dict[$t]:-}" ] && cp "$root/tests/fuzz/dict/${dict[$t]}.dict" "$dest/dict"
  echo "$t" >"$dest/target"
  du -sh "$dest"
  ;;
run)
  t=$(cat "$dest/target")
  workers=${WORKERS:-$(nproc)}
  runs=${RUNS:-10000000}
  out=${OUT:?OUT is the device tool\'s result folder}
  fuzz_set_round ROUND_RUNS "${ROUND_RUNS:-150000}"
  per=$(((runs + workers - 1) / workers))
  export LD_LIBRARY_PATH=$dest/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # The targets' scratch files (tests/fuzz/fuzz_util.hpp) go to memory, as in scripts/fuzz.sh.
  export TMPDIR
  TMPDIR=$(mktemp -d /dev/shm/zl-fuzz-tmp.XXXXXX)
  logs=$out/logs
  mkdir -p "$logs" "$out/artifacts"
  args=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/artifacts/")
  [ -f "$dest/dict" ] && args+=(-dict="$dest/dict")
  limit=${SECONDS_MAX:-540}
  echo "fuzz_$t: $workers workers x $per runs in rounds of $fuzz_round, $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo)"
  start=$SECONDS
  # worker W: its share in rounds (scripts/fuzz-lib.sh), its log fuzz-W.log, its line worker-W.txt.
  worker() {
    local log=$logs/fuzz-$1.log
    fuzz_rounds "$dest/fuzz_$t" "$log" "$per" "$limit" "${args[@]}" "$dest/corpus" "$dest/seeds"
    echo "worker $1: $fuzz_execs executions, $(fuzz_edges "$log") edges, $(grep -ac -E 'ERROR|runtime error' "$log") reports" \
      >"$logs/worker-$1.txt"
  }
  for w in $(seq 1 "$workers"); do worker "$w" & done
  wait
  for w in $(seq 1 "$workers"); do cat "$logs/worker-$w.txt"; done | tee "$out/workers.txt"
  total=$(awk '{s += $3} END {print s}' "$out/workers.txt")
  echo "fuzz_$t: $total executions in all, $((SECONDS - start)) s, corpus $(ls "$dest/corpus" | wc -l) files" |
    tee -a "$out/workers.txt"
  tar -C "$dest/corpus" -czf "$out/corpus.tgz" .
  rm -rf "$TMPDIR"
  ls "$out/artifacts"
  # One archive: the device tool brings back only a few files of $OUT.
  tar -C "$out" -czf "$out/results.tgz" logs artifacts workers.txt
  rm -rf "$logs" "$out/artifacts"
  ;;
*)
  echo "usage: TARGET=T $0 bundle | WORKERS=N RUNS=N SECONDS_MAX=S [ROUND_RUNS=N] $0 run" >&2
  exit 2
  ;;
esac
