#!/bin/bash
# Issue 10 on real FlagGems: the items whose truth depends on FlagGems itself or on the CUDA
# runtime. Run from the repository root on the accelerator machine with .dev/flaggems (the
# FlagGems bundle) and .dev/zl (scripts/device/bundle-zl.sh); results go to $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps
export PYTHONPATH=$PWD/.dev/flaggems/src:$PWD/.dev/flaggems/pylib
Z=$PWD/.dev/zl/bin/zl
R=/tmp/zlcal
rm -rf $R && mkdir -p $R
S=$OUT/summary.txt
COMMON=(--op abs --level core --dtypes float16,float32 --python python3)
step() { echo "== $*" >> $S; }
ident() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({k: d.get(k) for k in sys.argv[2:]}))" "$@" >> $S 2>&1; }
{
  nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  $Z --version
} > $OUT/env.txt 2>&1

# 10.19: a 240-character path to the checkout (FlagGems names its record log after the arguments).
deep=$R/$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))/$(printf 'f%.0s' $(seq 1 60))
mkdir -p $deep && ln -s $PWD/.dev/flaggems $deep/fg
step "10.19 checkout path of ${#deep} characters + /fg"
$Z --backend=cuda run --flaggems $deep/fg "${COMMON[@]}" --out $R/deep > $R/deep.out 2>&1
echo "rc=$? record_log_lines=$(wc -l < $R/deep/record.log 2>/dev/null)" >> $S
grep -E '^(SUCCESS|FAILED|Operator:|ZL_RUN)' $R/deep/run.log | cut -c1-200 | head -5 >> $S
tail -3 $R/deep.out >> $S

# 10.4: --mode cudagraph on FlagGems' own conftest.
step "10.4 --mode cudagraph"
$Z --backend=cuda run --flaggems .dev/flaggems "${COMMON[@]}" --mode cudagraph --out $R/cg > $R/cg.out 2>&1
echo "rc=$?" >> $S
grep -E 'mode|Operator:' $R/cg/run.log | cut -c1-200 | head -4 >> $S
ident $R/cg/run_identity.json mode timer timer_reason status exit_code

# 10.1: pass-through that zl owns is refused; one it leaves alone is recorded.
step "10.1 -- --mode operator (refused)"
$Z --backend=cuda run --flaggems .dev/flaggems "${COMMON[@]}" --out $R/p1 -- --mode operator >> $S 2>&1
echo "rc=$?" >> $S
step "10.1 -- --warmup 5 (recorded)"
$Z --backend=cuda run --flaggems .dev/flaggems "${COMMON[@]}" --out $R/p2 -- --warmup 5 > $R/p2.out 2>&1
echo "rc=$?" >> $S
ident $R/p2/run_identity.json pytest_extra_args status

# 10.2: an inherited mask by UUID; the identity records it, the pin stays inside it.
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
step "10.2 CUDA_VISIBLE_DEVICES=$uuid"
CUDA_VISIBLE_DEVICES=$uuid $Z --backend=cuda devices >> $S 2>&1
CUDA_VISIBLE_DEVICES=$uuid $Z --backend=cuda run --flaggems .dev/flaggems "${COMMON[@]}" --out $R/mask > $R/mask.out 2>&1
echo "rc=$?" >> $S
ident $R/mask/run_identity.json device visibility status
step "10.2 CUDA_VISIBLE_DEVICES=1 (no such device inside the mask)"
CUDA_VISIBLE_DEVICES=1 $Z --backend=cuda devices >> $S 2>&1
echo "rc=$?" >> $S

# 10.18 and 11.1: a campaign whose op times out; the summary carries the status.
if [ "${BATCH:-1}" = 1 ]; then
  step "10.18 batch abs,pow with --timeout-per-op 25"
  printf 'abs\npow\n' > $R/ops.txt
  $Z --backend=cuda batch --flaggems .dev/flaggems --ops-file $R/ops.txt --level core --dtypes float16 \
     --python python3 --timeout-per-op 25 --out $R/camp > $R/camp.out 2>&1
  echo "rc=$?" >> $S
  cat $R/camp/ops_status.csv >> $S 2>&1
  $Z summary $R/camp >> $S 2>&1
  ident $R/camp/pow/run_identity.json status exit_code
  echo "python processes left: $(pgrep -fc 'pytest' || true)" >> $S
fi
tar czf $OUT/runs.tgz -C /tmp zlcal 2>/dev/null
cat $S
