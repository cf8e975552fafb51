#!/bin/bash
# Issue 28 on real FlagGems: each op's zl status against a plain pytest session of the same op,
# and zl batch's warm executor against its process executor, record log by record log. Run from
# the repository root on the accelerator machine with .dev/flaggems (the FlagGems bundle) and
# .dev/zl (scripts/device/bundle-zl.sh). OPS: the ops (comma list). PHASE:
#   chain    plain, warm and process, one after another in a new session (setsid) that outlives
#            this call, from a copy in /tmp/zlw (every call re-sends .dev)
#   collect  waits up to WAIT seconds (default 540) for the chain, then compares what is there
#            (scripts/device/twin_compare.py) into $OUT; call it again until it says "chain done"
# PLAIN_XML: a folder of JUnit files from an earlier plain pass of the same FlagGems and image,
# used instead of running it again. PROCESS_OPS: the ops of the process pass (default OPS).
set -u
R=/tmp/zltwin
[ "${1:-}" = run ] || case ${PHASE:?} in
chain)
  rm -rf /tmp/zlw $R && mkdir -p /tmp/zlw $R && cp -a .dev scripts /tmp/zlw/
  (cd /tmp/zlw && OPS=${OPS:?} PLAIN_XML=${PLAIN_XML:-} PROCESS_OPS=${PROCESS_OPS:-$OPS} setsid nohup bash scripts/device/twin_h100.sh run \
     < /dev/null > $R/chain.log 2>&1 &)
  echo "chain started $(date +%T)" > $OUT/summary.txt
  ;;
collect)
  for _ in $(seq ${WAIT:-540}); do
    grep -q '^chain done' $R/progress.txt 2> /dev/null && break
    sleep 1
  done
  cp $R/progress.txt $R/chain.log $OUT/ 2> /dev/null
  python3 scripts/device/twin_compare.py $R > $OUT/compare.txt 2>&1
  tail -n 40 $OUT/compare.txt
  (cd $R && tar czf $OUT/twin.tgz gpu.csv warm/ops_status.csv process/ops_status.csv plain/*.xml plain/*.log \
     warm/*/run_identity.json process/*/run_identity.json warm/*/record.log process/*/record.log 2> /dev/null)
  ;;
esac
[ "${1:-}" = run ] || exit 0
# The chain itself (in /tmp/zlw).
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps PYTHONPATH=$PWD/.dev/flaggems/src:$PWD/.dev/flaggems/pylib
Z=$PWD/.dev/zl/bin/zl
FG=$PWD/.dev/flaggems
P=$R/progress.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $R/gpu.csv
mkdir -p $R/plain
# The passes compare statuses and records, not timings: FlagGems' time budgets (1000 ms warm-up,
# 100 ms timed, per shape) cut to 1 ms in this copy, for all three alike.
sed -i 's/^DEFAULT_WARMUP_TIME = .*/DEFAULT_WARMUP_TIME = 1/; s/^DEFAULT_ITER_TIME = .*/DEFAULT_ITER_TIME = 1/' \
  $FG/benchmark/consts.py
marked=() unmarked=() marks=()
for op in ${OPS//,/ }; do
  # The node and marker zl gives pytest, so that the plain sessions run the same tests.
  $Z --backend cuda plan --flaggems $FG --op $op --python python3 --json > $R/plain/$op.plan.json 2> /dev/null
  read -r node marker < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["node"], p["marker"] or "")' $R/plain/$op.plan.json)
  if [ -n "$marker" ]; then marked+=("$node") marks+=("$marker"); else unmarked+=("$node"); fi
done
if [ -n "${PLAIN_XML:-}" ]; then
  cp "$PLAIN_XML"/*.xml $R/plain/ && echo "plain taken from $PLAIN_XML" >> $P
else
echo "plain starts $(date +%T): ${#marked[@]} files by marker, ${#unmarked[@]} whole" >> $P
# One session over all the files pays the imports once; without --record log, since FlagGems
# would name the log after all the files and the name would pass 255 bytes (the very limit zl's
# argument list keeps under).
expr=$(printf ' or %s' "${marks[@]}")
(cd $FG && timeout 1800 python3 -m pytest "${marked[@]}" -m "${expr:4}" --level core --mode kernel --dtypes float16 \
   -s -p no:cacheprovider --junitxml=$R/plain/marked.xml > $R/plain/marked.log 2>&1)
echo "plain marked rc=$? $(date +%T)" >> $P
if [ ${#unmarked[@]} -gt 0 ]; then
  (cd $FG && timeout 900 python3 -m pytest "${unmarked[@]}" --level core --mode kernel --dtypes float16 \
     -s -p no:cacheprovider --junitxml=$R/plain/whole.xml > $R/plain/whole.log 2>&1)
  echo "plain whole rc=$? $(date +%T)" >> $P
fi
fi
for executor in warm process; do
  echo "$executor starts $(date +%T)" >> $P
  ops=$OPS
  [ $executor = process ] && ops=$PROCESS_OPS
  $Z --backend cuda batch --flaggems $FG --ops $ops --level core --mode kernel --dtypes float16 --timer direct \
    --python python3 --executor $executor --timeout-per-op 300 --out $R/$executor > $R/$executor.log 2>&1
  echo "$executor rc=$? $(date +%T)" >> $P
done
echo "chain done $(date +%T)" >> $P
