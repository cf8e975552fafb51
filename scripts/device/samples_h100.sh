#!/bin/bash
# Issues 31 and 32 on real FlagGems, one build, one machine, one chain of campaigns:
#   calibrate  zl calibrate (copy and GEMM through the device's torch), kept in $R/cal
#   c0         OPS, adaptive sampling: compiles and tunes; its timings are kept apart
#   c1 .. cN   OPS, adaptive sampling, telemetry alternately on (the default) and off: any two
#              with the same sampling are an A/A; c1/c2, c3/c4 ... give telemetry's cost
#   cfixed     OPS, --sampling fixed (after c2): adaptive sampling's cost against c1..
#   p30        OPS30 at float16 (after cfixed): % of peak on every row with a formula
# Run from the repository root on the accelerator machine with .dev/flaggems and .dev/zl
# (scripts/device/bundle-zl.sh). PHASE:
#   chain    starts the chain in a new session (setsid) that outlives this call, from a copy in
#            /tmp/zlw (every call re-sends .dev)
#   collect  waits up to WAIT seconds for the chain, then packs what is there into $OUT; call it
#            again, within the machine's idle time, until progress.txt says "chain done"
# OPS, OPS30: comma lists. N: the adaptive campaigns after c0. TIMER: graph.
set -u
R=/tmp/zlsamp
[ "${1:-}" = run ] || case ${PHASE:?} in
chain)
  rm -rf /tmp/zlw $R && mkdir -p /tmp/zlw $R && cp -a .dev scripts /tmp/zlw/
  (cd /tmp/zlw && OPS=${OPS:?} OPS30=${OPS30:-} N=${N:-6} TIMER=${TIMER:-graph} setsid nohup \
     bash scripts/device/samples_h100.sh run < /dev/null > $R/chain.log 2>&1 &)
  echo "chain started $(date +%T)" > $OUT/summary.txt
  ;;
collect)
  for _ in $(seq ${WAIT:-540}); do
    grep -q '^chain done' $R/progress.txt 2> /dev/null && break
    sleep 1
  done
  cp $R/progress.txt $R/chain.log $R/gpu.csv $R/calibrate.txt $OUT/ 2> /dev/null
  cat $R/progress.txt
  (cd $R && tar czf $OUT/campaigns.tgz --exclude='*.tuner-cache*' cal c*/ops_status.csv c*/campaign.json \
     c*/*/run_identity.json c*/*/record.log c*/*/samples.bin c*/*/telemetry.jsonl c*/*/run.log \
     p30/ops_status.csv p30/campaign.json p30/*/run_identity.json p30/*/record.log p30/*/run.log p30/*/samples.bin \
     p30/*/telemetry.jsonl 2> /dev/null)
  ls -la $OUT
  ;;
esac
[ "${1:-}" = run ] || exit 0
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps PYTHONPATH=$PWD/.dev/flaggems/src:$PWD/.dev/flaggems/pylib
export ZL_CALIBRATION_DIR=$R/cal
Z=$PWD/.dev/zl/bin/zl
FG=$PWD/.dev/flaggems
P=$R/progress.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.applications.graphics,clocks.mem,power.limit,temperature.gpu,persistence_mode,ecc.mode.current,mig.mode.current \
  --format=csv > $R/gpu.csv

stamp() { echo "$1 $(date +%T.%N | cut -c1-12)" >> $P; }
campaign() { # name, ops, dtypes, sampling, telemetry
  stamp "$1 starts"
  $Z --backend cuda batch --flaggems $FG --ops "$2" --level core --mode kernel --dtypes "$3" \
    --timer $TIMER --sampling "$4" --telemetry "$5" --python python3 --executor warm --timeout-per-op 600 \
    --out $R/$1 > $R/$1.log 2>&1
  stamp "$1 rc=$?"
}
ALL=float16,float32,bfloat16
stamp "calibrate starts"
$Z --backend cuda calibrate --python python3 > $R/calibrate.txt 2>&1
stamp "calibrate rc=$?"
A=ci=0.5%,min=10,max=100000,min-time=0,max-time=1 # the default, spelled out
campaign c0 "$OPS" $ALL $A every=0.5
for i in $(seq 1 $N); do
  [ $((i % 2)) = 1 ] && tel=every=0.5 || tel=off
  campaign c$i "$OPS" $ALL $A $tel
  if [ $i = 2 ]; then
    campaign cfixed "$OPS" $ALL fixed every=0.5
    [ -n "$OPS30" ] && campaign p30 "$OPS30" float16 $A every=0.5
  fi
done
echo "chain done $(date +%T)" >> $P
