#!/bin/bash
# Issue 13 on real FlagGems: zl batch's executors against one plain pytest session over the
# same ops, at the same timer. Run from the repository root on the accelerator machine with
# .dev/flaggems (the FlagGems bundle) and .dev/zl (scripts/device/bundle-zl.sh); PHASE picks the
# part (a device call is at most 10 minutes); state between phases stays in /tmp/zlx while the
# machine is held. Results go to $OUT.
#   plain   FlagGems' own session: --mode kernel and --mode cudagraph (the Triton cache warmed first)
#   direct  zl batch --timer direct, --executor process and warm
#   graph   zl batch --timer graph, --executor process and warm (round 1 of the A/B)
#   rounds  two more graph rounds each side, then zl summary --ab of process against warm
#   direct_rounds  ROUNDS (e.g. "1 2") direct rounds each side, alternating process and warm
#   ab_direct      zl summary --ab of the direct rounds, process against warm (text and JSON)
#   warmup30       FlagGems' session over OPS with one warm-up and one timed iteration: it fills
#                  the Triton cache (compiles and autotunes) cheaply, so every measured phase
#                  after it starts warm
#   plain30 / warm30 / process30  the same over OPS (30 ops): plain30 at MODE (kernel, or
#                  cudagraph), warm30 and process30 at TIMER (direct, or graph);
#                  process30 stops itself after SEGMENT seconds (SIGINT, as Ctrl-C) and the next
#                  call resumes it: its makespan is the sum of the ops' durations in ops_status.csv
#   chain          PHASES (e.g. "warmup30 warm30 process30 plain30") one after another in a new
#                  session (setsid) that outlives this call, so that a sequence longer than one
#                  call runs without a gap, and without a warm-up lost with a machine between
#                  calls; it runs from a copy in /tmp/zlw, since every call re-sends .dev
#   collect        waits up to WAIT seconds (default 520) for the chain to end, then returns its
#                  summary (chain-summary.txt) and everything made so far; call it again, within
#                  the machine's idle time, until the summary says "chain done"
# README's 30-op row at the graph timer, on one machine (three calls back to back):
#   OPS=abs,exp,relu,sigmoid,gelu,silu,rsqrt,add,mul,sub,maximum,sum,mean,amax,argmax,cumsum,all,\
#   layer_norm,rms_norm,softmax,log_softmax,group_norm,mm,bmm,addmm,mv,cat,index_select,gather,topk \
#   TIMER=graph MODE=cudagraph SEGMENT=5000 PHASES="warmup30 warm30 process30 plain30" PHASE=chain
#   then PHASE=collect WAIT=560, until its summary says "chain done"
set -u
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps
export PYTHONPATH=$PWD/.dev/flaggems/src:$PWD/.dev/flaggems/pylib
Z=$PWD/.dev/zl/bin/zl
FG=$PWD/.dev/flaggems
R=/tmp/zlx
mkdir -p $R
S=$OUT/summary.txt
OPS=${OPS:-abs,add,exp,sum,softmax,layer_norm,cumsum}
COMMON=(--flaggems $FG --ops $OPS --level core --dtypes float16 --python python3)
t() { # label, command...: wall seconds of one command
  local label=$1
  shift
  local s=$(date +%s.%N)
  "$@" > $R/$label.out 2>&1
  local rc=$?
  echo "$label rc=$rc wall=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s" >> $S
}
plain() { # mode, label, extra pytest arguments...
  local mode=$1 label=$2
  shift 2
  local files=() marks=()
  for op in ${OPS//,/ }; do
    files+=(benchmark/test_$op.py)
    marks+=("$op")
  done
  local expr=$(printf ' or %s' "${marks[@]}")
  (cd $FG && t $label python3 -m pytest "${files[@]}" -m "${expr:4}" --mode $mode --level core --dtypes float16 -s -q -p no:cacheprovider "$@")
}
batch() { # executor, timer, label
  rm -rf $R/$3
  mkdir -p $(dirname $R/$3)
  t ${3//\//_} $Z --backend=cuda batch "${COMMON[@]}" --executor $1 --timer $2 --out $R/$3
  tail -2 $R/${3//\//_}.out >> $S
  cut -d, -f1-4 $R/$3/ops_status.csv | tr '\n' ' ' >> $S
  echo >> $S
}
durations() { # campaign folder: the ops' statuses and the sum of their durations
  awk -F, 'NR>1 {n[$2]++; if ($2=="ok") s+=$10} END {for (k in n) printf "%s=%d ", k, n[k]; printf "sum_ok_duration=%.1f s\n", s}' $1/ops_status.csv >> $S
}
case ${PHASE:-plain} in
plain)
  { nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader
    python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
    $Z --version; nproc; } > $OUT/env.txt 2>&1
  # What a fork server could pre-import (torch, triton, pytest: flag_gems initializes CUDA, so
  # it cannot be imported before a fork) against what a warm worker pays once (all of them).
  python3 -c 'import time; t=time.time(); import torch, triton, pytest; a=time.time(); import flag_gems; b=time.time(); import torch; print(f"import torch+triton+pytest {a-t:.2f} s; then flag_gems {b-a:.2f} s; cuda initialized {torch.cuda.is_initialized()}")' >> $S 2>&1
  plain kernel warmup_kernel
  plain kernel plain_kernel
  plain cudagraph plain_cudagraph
  ;;
direct)
  batch process direct process_direct
  batch warm direct warm_direct
  ;;
graph)
  batch process graph process_graph/1
  batch warm graph warm_graph/1
  ;;
rounds)
  for k in 2 3; do
    batch process graph process_graph/$k
    batch warm graph warm_graph/$k
  done
  # Each side a folder of three campaigns: every pairing gets a U test over its rounds.
  $Z summary --ab $R/process_graph $R/warm_graph > $OUT/ab.txt 2>&1
  echo "summary --ab rc=$?" >> $S
  ;;
direct_rounds)
  for k in ${ROUNDS:-1}; do
    batch process direct process_direct/$k
    batch warm direct warm_direct/$k
  done
  ;;
ab_direct)
  $Z summary --ab $R/process_direct $R/warm_direct --force > $OUT/ab_direct.txt 2>&1
  echo "summary --ab direct rc=$?" >> $S
  $Z summary --ab $R/process_direct $R/warm_direct --force --format json > $OUT/ab_direct.json 2>> $S
  ;;
warmup30)
  plain kernel warmup30_kernel --warmup 1 --iter 1
  ;;
plain30)
  plain ${MODE:-kernel} plain30_${MODE:-kernel}
  ;;
warm30)
  batch warm ${TIMER:-direct} warm30_${TIMER:-direct}
  durations $R/warm30_${TIMER:-direct}
  ;;
process30)
  tm=${TIMER:-direct}
  resume=()
  [ -f $R/process30_$tm/campaign.json ] && resume=(--resume)
  t process30_$tm timeout -s INT -k 60 ${SEGMENT:-400} $Z --backend=cuda batch "${COMMON[@]}" \
    --executor process --timer $tm --out $R/process30_$tm "${resume[@]}"
  durations $R/process30_$tm
  ;;
chain)
  rm -rf /tmp/zlw /tmp/zlchain && mkdir -p /tmp/zlw /tmp/zlchain && cp -a .dev scripts /tmp/zlw/
  (cd /tmp/zlw && PHASES=${PHASES:?} setsid nohup bash -c 'for p in $PHASES; do
     echo "phase $p starts $(date +%T)" >> /tmp/zlchain/summary.txt
     OUT=/tmp/zlchain PHASE=$p bash scripts/device/executors_h200.sh > /dev/null 2>&1
   done; echo "chain done $(date +%T)" >> /tmp/zlchain/summary.txt' < /dev/null > /dev/null 2>&1 &)
  echo "chain of $PHASES started $(date +%T)" >> $S
  ;;
collect)
  for ((i = 0; i < ${WAIT:-520}; i += 5)); do
    grep -q '^chain done' /tmp/zlchain/summary.txt 2> /dev/null && break
    sleep 5
  done
  cp /tmp/zlchain/summary.txt $OUT/chain-summary.txt
  echo "collected $(date +%T)" >> $S
  pgrep -fa 'zl|pytest' | cut -c1-200 > $OUT/processes.txt
  ;;
esac
# Everything made so far comes back as one archive (at most 8 files return from the machine,
# and a machine lost between calls loses /tmp): summary --ab then runs on this side too.
tar czf $OUT/zlx.tgz -C $R . 2>/dev/null
cat $S
