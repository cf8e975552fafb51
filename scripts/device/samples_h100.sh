#!/bin/bash
# Issue 31 on real FlagGems: campaigns of one build, one after another, with every sample kept,
# for an A/A (any two of them) and for the cost of adaptive sampling against fixed. Run from the
# repository root on the accelerator machine with .dev/flaggems and .dev/zl
# (scripts/device/bundle-zl.sh). OPS: comma list. PHASE:
#   chain    N campaigns with the default sampling (and one --sampling fixed after the first),
#            in a new session (setsid) that outlives this call, from a copy in /tmp/zlw
#   collect  waits up to WAIT seconds for the chain, then packs what is there into $OUT
# ITER: FlagGems' DEFAULT_ITER_TIME in the copy (ms timed per call; FlagGems' own is 100). TIMER: graph.
set -u
R=/tmp/zlsamp
[ "${1:-}" = run ] || case ${PHASE:?} in
chain)
  rm -rf /tmp/zlw $R && mkdir -p /tmp/zlw $R && cp -a .dev scripts /tmp/zlw/
  (cd /tmp/zlw && OPS=${OPS:?} N=${N:-4} ITER=${ITER:-} TIMER=${TIMER:-graph} setsid nohup bash scripts/device/samples_h100.sh run \
     < /dev/null > $R/chain.log 2>&1 &)
  echo "chain started $(date +%T)" > $OUT/summary.txt
  ;;
collect)
  for _ in $(seq ${WAIT:-540}); do
    grep -q '^chain done' $R/progress.txt 2> /dev/null && break
    sleep 1
  done
  cp $R/progress.txt $R/chain.log $R/gpu.csv $OUT/ 2> /dev/null
  cat $R/progress.txt
  (cd $R && tar czf $OUT/campaigns.tgz --exclude='*.tuner-cache*' c*/ops_status.csv c*/campaign.json c*/*/run_identity.json \
     c*/*/record.log c*/*/samples.bin c*/*/run.log 2> /dev/null)
  ls -la $OUT
  ;;
esac
[ "${1:-}" = run ] || exit 0
[ -n "$ITER" ] && sed -i "s/^DEFAULT_ITER_TIME = .*/DEFAULT_ITER_TIME = $ITER/" .dev/flaggems/benchmark/consts.py
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps PYTHONPATH=$PWD/.dev/flaggems/src:$PWD/.dev/flaggems/pylib
Z=$PWD/.dev/zl/bin/zl
FG=$PWD/.dev/flaggems
P=$R/progress.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,persistence_mode \
  --format=csv > $R/gpu.csv


campaign() { # name, sampling
  echo "$1 starts $(date +%T.%N | cut -c1-12)" >> $P
  $Z --backend cuda batch --flaggems $FG --ops $OPS --level core --mode kernel --dtypes float16,float32,bfloat16 \
    --timer $TIMER --sampling "$2" --python python3 --executor warm --timeout-per-op 600 --out $R/$1 > $R/$1.log 2>&1
  echo "$1 rc=$? $(date +%T.%N | cut -c1-12)" >> $P
}
# A first campaign compiles and tunes: its timings are kept apart (c0), then the pairs.
campaign c0 ci=0.5%,min=10,max=100000,min-time=0,max-time=1
campaign cfixed fixed
for i in $(seq 1 $N); do
  campaign c$i ci=0.5%,min=10,max=100000,min-time=0,max-time=1
done
echo "chain done $(date +%T)" >> $P
