#!/bin/bash
# Kept in the repo for reproducibility; run from the repository root on the accelerator machine
# with a FlagGems bundle in .dev/flaggems and an installed zl in .dev/zl (README of the device tool).
# Runs zl on the accelerator machine against real FlagGems; results go to $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps
export PYTHONPATH=$PWD/.dev/flaggems/src:$PWD/.dev/flaggems/pylib
Z=$PWD/.dev/zl/bin/zl
mkdir -p /tmp/zlruns
{
  nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader,nounits
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  $Z backends
  $Z devices
  $Z --backend=cuda devices --json
} > $OUT/env.txt 2>&1
for t in ${TIMERS:-graph direct profiler}; do
  start=$(date +%s.%N)
  $Z --backend=cuda run --flaggems .dev/flaggems --op abs --level core --timer $t --dtypes float16 \
     --python python3 --out /tmp/zlruns/abs-$t > /tmp/zlruns/abs-$t.out 2>&1
  echo "abs timer=$t rc=$? wall=$(echo "$(date +%s.%N) - $start" | bc)" >> $OUT/summary.txt
done
if [ "${MM:-1}" = 1 ]; then
  export FLAGGEMS_CACHE_DIR=/tmp/fgcache-mm
  rm -rf $FLAGGEMS_CACHE_DIR
  for side in cold warm; do
    start=$(date +%s.%N)
    $Z --backend=cuda run --flaggems .dev/flaggems --op mm --level core --dtypes float16 \
       --python python3 --out /tmp/zlruns/mm-$side > /tmp/zlruns/mm-$side.out 2>&1
    echo "mm $side rc=$? wall=$(echo "$(date +%s.%N) - $start" | bc)" >> $OUT/summary.txt
  done
fi
tar czf $OUT/runs.tgz -C /tmp zlruns
cat $OUT/summary.txt
