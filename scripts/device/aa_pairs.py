#!/usr/bin/env python3
"""An A/A over campaigns of one build: `zl summary --ab` of every pair of the campaigns given (in
that order, A first), the verdicts of each, their total, and the rows called most often.

    scripts/device/aa_pairs.py ZL CAMPAIGN CAMPAIGN [CAMPAIGN ...] [-- SUMMARY-ARGS ...]

ZL is the zl binary; SUMMARY-ARGS go to each `zl summary --ab` (e.g. --process-noise 1).
"""
import collections
import itertools
import json
import subprocess
import sys


def verdicts(zl, a, b, extra):
    out = subprocess.run([zl, "summary", "--ab", a, b, "--format", "json", *extra], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def main(argv):
    args, extra = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    if len(args) < 3:
        sys.exit(__doc__)
    zl, campaigns = args[0], args[1:]
    total, called = collections.Counter(), collections.defaultdict(list)
    for a, b in itertools.combinations(campaigns, 2):
        doc = verdicts(zl, a, b, extra)
        counts = collections.Counter(p["verdict"] for p in doc["pairings"])
        total.update(counts)
        print(f"{a} {b}: {dict(counts)} process noise {doc['process_noise']:.4f}, "
              f"throttled {doc['throttled_pairings']}")
        for p in doc["pairings"]:
            if p["verdict"] != "same":
                key = (p["op"], p["dtype"], p["shape"])
                called[key].append(f"{a}/{b} {p['verdict']} {p['ratio']:.3f} (torch {p['torch_ratio'] or 0:.3f})")
    n = sum(total.values())
    print(f"total: {dict(total)}; not same {n - total['same']} of {n} ({100 * (n - total['same']) / max(n, 1):.1f}%)")
    for key, calls in sorted(called.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(calls)}  {' '.join(key)[:110]}\n      {'; '.join(calls[:4])}")


if __name__ == "__main__":
    main(sys.argv[1:])
