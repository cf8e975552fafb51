#!/bin/bash
# Issue 31's targets on the sample corpus (cpu backend): a known slowdown and an A/A, one
# campaign a side. B is the corpus with abs's FlagGems op made PCT% slower (a stand-in delay: it
# spins for PCT% of its own time); A is the corpus as it is. ROUNDS pairs of campaigns, the two
# sides alternating which runs first; each pair is compared alone (one campaign a side), and
# consecutive A campaigns form the A/A.
#   bench/verdicts.sh BUILD_DIR [ROUNDS] [PCT]
# Prints, per pair, abs's rows called slower and the other rows not called same, then totals.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
rounds=${2:-5}
pct=${3:-3}
zl=$build/bin/zl
src=$(cd "$(dirname "$0")/.." && pwd)
# KEEP=DIR keeps the campaigns there (to read them again); else a temporary folder.
if [ -n "${KEEP:-}" ]; then
  work=$KEEP && rm -rf "$work" && mkdir -p "$work"
else
  work=$(mktemp -d /tmp/zl-verdicts.XXXXXX) && trap 'rm -rf "$work"' EXIT
fi
cp -r "$src/corpus" "$work/a"
cp -r "$src/corpus" "$work/b"
cat >> "$work/b/benchmark/host_ops.py" <<PY


import time as _zl_time

_zl_gems_abs = gems_abs


def gems_abs(x):
    start = _zl_time.perf_counter()
    out = _zl_gems_abs(x)
    took = _zl_time.perf_counter() - start
    while _zl_time.perf_counter() - start < (1 + $pct / 100) * took:
        pass
    return out
PY
export ZL_PYTHON=${ZL_PYTHON:-/usr/bin/python3}
ops=abs,add,mm,sum
campaign() { # tree, out
  "$zl" --backend cpu batch --flaggems "$work/$1" --ops $ops --executor warm --out "$2" > /dev/null 2>&1
}
count() { # A B: "abs_slower abs_rows others_called others_not_same other_rows noise%"
  "$zl" summary --ab "$1" "$2" --format json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
a = [p for p in d["pairings"] if p["op"] == "abs"]
o = [p for p in d["pairings"] if p["op"] != "abs"]
print(sum(p["verdict"] == "slower" for p in a), len(a), sum(p["verdict"] in ("faster", "slower") for p in o),
      sum(p["verdict"] != "same" for p in o), len(o), round(d["process_noise"] * 100, 2))'
}
start=$(date +%s)
totals=(0 0 0 0 0) aa=(0 0 0)
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then campaign a "$work/A$r"; campaign b "$work/B$r"; else campaign b "$work/B$r"; campaign a "$work/A$r"; fi
  read -r s n c o m tau < <(count "$work/A$r" "$work/B$r")
  echo "pair $r: abs slower $s of $n; other rows called faster or slower $c, not same $o, of $m; between-process noise ${tau}%"
  totals=($((totals[0] + s)) $((totals[1] + n)) $((totals[2] + c)) $((totals[3] + o)) $((totals[4] + m)))
  if [ "$r" -gt 1 ]; then # A/A: every row (abs too), the earlier A campaign against this one
    read -r _ n2 c2 o2 m2 tau2 < <(count "$work/A$((r - 1))" "$work/A$r")
    read -r c3 < <("$zl" summary --ab "$work/A$((r - 1))" "$work/A$r" --format json |
      /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(p["verdict"] in ("faster","slower") for p in d["pairings"]), sum(p["verdict"] != "same" for p in d["pairings"]), len(d["pairings"]))')
    read -r called notsame all <<< "$c3"
    echo "A/A $((r - 1))-$r: rows called faster or slower $called, not same $notsame, of $all; noise ${tau2}%"
    aa=($((aa[0] + called)) $((aa[1] + notsame)) $((aa[2] + all)))
  fi
done
echo "known slowdown ${pct}%: abs rows called slower ${totals[0]} of ${totals[1]}; other rows called ${totals[2]}, not same ${totals[3]}, of ${totals[4]}"
echo "A/A: rows called faster or slower ${aa[0]}, not same ${aa[1]}, of ${aa[2]}"
echo "wall $(($(date +%s) - start)) s for $((2 * rounds)) campaigns"
