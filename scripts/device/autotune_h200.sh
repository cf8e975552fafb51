#!/bin/bash
# Autotune record, then replay, of real FlagGems mm on the device machine (issue 5).
# Run from the repository root there: bash .dev/autotune_run.sh   (results under $OUT)
#
# Both runs are cold (--isolate-tuner-cache: own FLAGGEMS_CACHE_DIR and TRITON_CACHE_DIR), so
# the record run benchmarks (and compiles) every config of every key, and the replay run only
# compiles the configs it pins. Each run has a time limit so the whole script stays near 6 min.
set -u
# ZL, FG, BACKEND and OPERATOR only for a smoke test elsewhere (the tuned corpus on the host).
FG=${FG:-$PWD/.dev/flaggems}
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps
export PYTHONPATH=$FG/src:$FG/pylib${PYTHONPATH:+:$PYTHONPATH}
Z=${ZL:-$PWD/.dev/zl/bin/zl}
R=/tmp/zlat
rm -rf $R && mkdir -p $R
# FlagGems names its record log after every pytest argument, the node's absolute path among
# them; a name over 255 bytes fails the session. A short path to the tree keeps it short.
LINK=$(mktemp -d /tmp/zXXXX)/fg
ln -s $FG $LINK
COMMON=(--backend=${BACKEND:-cuda} run --flaggems $LINK --op ${OPERATOR:-mm} --level core --dtypes float16
        --python python3 --isolate-tuner-cache)
{
  nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  $Z --version
  ls $(dirname $Z)/../share/zl/python/zl_plugins
} > $OUT/env.txt 2>&1

# run NAME LIMIT_S ARGS...: one zl run into $R/NAME; a line of counts into summary.txt
run() {
  local name=$1 limit=$2
  shift 2
  local start
  start=$(date +%s.%N)
  timeout --signal=INT --kill-after=30 "$limit" $Z "${COMMON[@]}" "$@" --out $R/$name > $R/$name.out 2>&1
  local rc=$?
  local wall
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  local log=$R/$name/run.log
  local keys configs fallbacks
  keys=$(grep -c '^AUTOTUNE_BENCHMARKED ' $log 2>/dev/null)
  configs=$(grep '^AUTOTUNE_BENCHMARKED ' $log 2>/dev/null | sed 's/.* configs=\([0-9]*\).*/\1/' |
            awk '{s += $1} END {print s + 0}')
  fallbacks=$(grep -c '^AUTOTUNE_REPLAY_FALLBACK ' $log 2>/dev/null)
  {
    echo "== $name rc=$rc wall_s=$wall keys_tuned=${keys:-0} configs_benchmarked=$configs fallbacks=${fallbacks:-0}"
    grep -E '^(AUTOTUNE_|ZL_TIMER|SUCCESS|FAILED|Operator:)' $log 2>/dev/null | cut -c1-240
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('identity autotune:', json.dumps(d['autotune']))" \
      $R/$name/run_identity.json 2>&1
    tail -5 $R/$name.out
  } >> $OUT/summary.txt
}

run record 240 --record-autotune
run replay 100 --replay-from $R/record
ls -l $R/record/autotune_records >> $OUT/summary.txt 2>&1
tar czf $OUT/autotune_runs.tgz -C /tmp zlat
rm -r $(dirname $LINK)
cat $OUT/summary.txt
