#!/usr/bin/env python3
"""Every op of a FlagGems checkout planned by zl, and the name FlagGems would give its record log
against a plain session's: `python3 scripts/record_log_names.py ZL FLAGGEMS [--dtypes float16]`.

FlagGems names its record log after every pytest argument (result_<args>.log) and stops at a name
over 255 bytes. For each benchmark/test_<op>.py this runs `zl plan --json` (no device needed:
the cpu backend, --python /usr/bin/python3) and reports the ops zl refuses, and those whose name
under zl is over 255 bytes or longer than the plain session's
`pytest benchmark/test_<op>.py --level core --mode kernel --dtypes D --record log`."""
import argparse
import json
import subprocess
import sys
from pathlib import Path


def record_log_name(args):
    """FlagGems' rule (benchmark/conftest.py): .py dropped, = and / as _, joined by _, _- as -."""
    parts = [a.replace(".py", "").replace("=", "_").replace("/", "_") for a in args]
    return ("result_" + "_".join(parts) + ".log").replace("_-", "-")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("zl")
    ap.add_argument("flaggems")
    ap.add_argument("--dtypes", default="float16")
    a = ap.parse_args()
    ops = sorted(p.name[len("test_"):-len(".py")] for p in Path(a.flaggems, "benchmark").glob("test_*.py"))
    refused, longer, longest = [], [], (0, 0)
    for op in ops:
        p = subprocess.run([a.zl, "--backend", "cpu", "plan", "--flaggems", a.flaggems, "--op", op, "--dtypes",
                            a.dtypes, "--level", "core", "--mode", "kernel", "--python", "/usr/bin/python3", "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            refused.append((op, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else p.returncode))
            continue
        ours = len(record_log_name(json.loads(p.stdout)["pytest_argv"][3:]).encode())
        plain = len(record_log_name([f"benchmark/test_{op}.py", "--level", "core", "--mode", "kernel", "--dtypes",
                                     a.dtypes, "--record", "log"]).encode())
        longest = (max(longest[0], ours), max(longest[1], plain))
        if ours > 255 or ours > plain:
            longer.append((op, ours, plain))
    print(f"{len(ops)} ops; refused by zl plan: {len(refused)}; record-log name over 255 bytes or longer than a "
          f"plain session's: {len(longer)}; longest name: zl {longest[0]} bytes, plain {longest[1]}")
    for op, why in refused:
        print(f"refused {op}: {why}")
    for op, ours, plain in longer:
        print(f"longer {op}: zl {ours} bytes, plain {plain}")
    return 1 if refused or longer else 0


if __name__ == "__main__":
    sys.exit(main())
