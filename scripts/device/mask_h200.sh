#!/bin/bash
# Inherited visibility masks on the accelerator machine (issue 10.2): what zl reads from
# CUDA_VISIBLE_DEVICES against what the CUDA runtime itself makes of it (torch's device count and
# the UUID of device 0), for each mask form. Run from the repository root there, with an installed
# zl in .dev/zl; results go to $OUT. Not yet run: the device tool copies the main checkout, so it
# runs once this branch is merged (then compare each "cuda:" line with the "zl:" line below it).
set -u
export LD_LIBRARY_PATH=$PWD/.dev/zl/deps
Z=$PWD/.dev/zl/bin/zl
UUID=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
probe() { # what CUDA sees under the mask in the environment
  python3 -c 'import torch
n = torch.cuda.device_count()
print("cuda_count", n, "uuid0", ("GPU-" + str(torch.cuda.get_device_properties(0).uuid)) if n else "-")' 2>&1 | tail -1
}
{
  nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader
  $Z --version
  for mask in UNSET "$UUID" 0 "${UUID:0:12}" 1 "0,bogus" "bogus,0" "" "0,0" "MIG-nothing"; do
    if [ "$mask" = UNSET ]; then unset CUDA_VISIBLE_DEVICES; else export CUDA_VISIBLE_DEVICES="$mask"; fi
    echo "=== mask '${mask}'"
    echo "cuda: $(probe)"
    $Z --backend=cuda devices --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print("zl:", "mask", d["inherited_mask"], "visible", [(x["index"], x["pin"]) for x in d["devices"] if x["visible"]], "note", d["mask_note"])' 2>&1
    # What a run would set, and its exit code (2: no visible device).
    $Z --backend=cuda plan --flaggems tests/fixtures/flaggems_probe --op probe --python python3 --json 2>&1 \
      | python3 -c 'import json, sys
t = sys.stdin.read()
try:
    print("plan: sets", json.loads(t)["env_set"]["CUDA_VISIBLE_DEVICES"])
except Exception:
    print("plan:", t.strip().splitlines()[-1])'
    # The pin, as the child sees it: CUDA's view under the value zl sets.
    pin=$($Z --backend=cuda plan --flaggems tests/fixtures/flaggems_probe --op probe --python python3 --json 2>/dev/null \
      | python3 -c 'import json, sys; print(json.load(sys.stdin)["env_set"]["CUDA_VISIBLE_DEVICES"])' 2>/dev/null)
    [ -n "$pin" ] && echo "child: $(CUDA_VISIBLE_DEVICES=$pin probe)"
  done
  unset CUDA_VISIBLE_DEVICES
  echo "=== zl run under CUDA_VISIBLE_DEVICES=$UUID"
  CUDA_VISIBLE_DEVICES=$UUID $Z --backend=cuda run --flaggems tests/fixtures/flaggems_probe --op probe \
    --python python3 --out /tmp/zlmask-run > /tmp/zlmask-run.out 2>&1
  echo "rc=$?"
  python3 -c 'import json; print(json.load(open("/tmp/zlmask-run/run_identity.json"))["device"])'
} > $OUT/mask.txt 2>&1
