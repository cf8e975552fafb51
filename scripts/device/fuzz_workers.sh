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
# results.tgz: every worker's round logs and any artifact.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.dev/fuzz
case "${1:-}" in
bundle)
  t=${TARGET:?TARGET names a target without fuzz_}
  build=${BUILD_DIR:-$root/build-fuzz}
  source "$root/scripts/fuzz-dicts.sh"
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
  round=${ROUND_RUNS:-150000}
  [[ $round =~ ^[1-9][0-9]*$ ]] || { echo "zl: ROUND_RUNS=$round: give a whole number of executions above 0" >&2; exit 2; }
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
  echo "fuzz_$t: $workers workers x $per runs in rounds of $round, $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo)"
  start=$SECONDS
  # worker W: its share in rounds, each a fresh process, for the reason scripts/fuzz.sh gives
  # (ASan's stack depot); a round replays the corpus first, so it may run more than asked.
  worker() {
    local w=$1 done=0 n rc r=0
    while [ "$done" -lt "$per" ] && [ $((SECONDS - start)) -lt "$limit" ]; do
      r=$((r + 1))
      rc=0
      "$dest/fuzz_$t" "${args[@]}" -max_total_time=$((limit - (SECONDS - start))) \
        -runs=$((per - done < round ? per - done : round)) "$dest/corpus" "$dest/seeds" \
        >"$logs/fuzz-$w.$r.log" 2>&1 || rc=$?
      n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/fuzz-$w.$r.log" | tail -1)
      done=$((done + ${n:-0}))
      [ "$rc" = 0 ] || break
    done
  }
  for w in $(seq 1 "$workers"); do worker "$w" & done
  wait
  for w in $(seq 1 "$workers"); do
    n=$(cat "$logs"/fuzz-"$w".*.log | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
    e=$(cat "$logs"/fuzz-"$w".*.log | grep -o 'cov: [0-9]*' | tail -1 | sed 's/cov: //')
    r=$(cat "$logs"/fuzz-"$w".*.log | grep -c -E 'ERROR|runtime error' || true)
    echo "worker $w: $n executions, ${e:-?} edges, $r reports"
  done | tee "$out/workers.txt"
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
