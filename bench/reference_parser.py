#!/usr/bin/env python3
"""A plain Python reference for `zl summary --ab A B --format csv`: the same parse, pairing and table.

The yardstick zl's C++ parser is measured against (bench/compare_parsers.sh): standard library
only, written the way one would write it in Python, not tuned. It reads run folders (run.log and
run_identity.json) below A and B, parses FlagGems' text tables (TFLOPS and GBPS cells row by row,
N/A, FAILED rows), zl's ZL_RUN / ZL_TIMER / BENCHMARK_DIRECT_NO_CUDAGRAPH markers for each row's
timer, pairs rows by (op, dtype, Size Detail, occurrence), and prints zl's per-op CSV. One round a
side: the U-test columns are zeros, as zl prints them then.

`reference_parser.py --summary LOG` is the same parse for `zl summary LOG --format csv` (one bare
log, bench/stream_summary.sh): rows are read line by line and folded into their (op, dtype) group
as they come, as zl does, so that it streams too: speedup column (else torch / gems), geometric
mean, range, failed and fallback rows per group, then the total.
"""
import json
import math
import os
import sys

HEADER = ("op,pairs,geomean_ratio,min_ratio,max_ratio,fallback_pairs,torch_geomean_ratio,faster,slower,same,ambiguous,"
          "unpaired,failed")


def run_folders(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if "run_identity.json" in filenames or "run.log" in filenames:
            found.append(dirpath)
            dirnames[:] = []
    return sorted(found)


def parse_marker(line):
    """NAME key=value …: a value is a JSON string when it starts with a quote, else up to a space."""
    name, _, rest = line.partition(" ")
    fields = {}
    decoder = json.JSONDecoder()
    i = 0
    while i < len(rest):
        eq = rest.index("=", i)
        key = rest[i:eq]
        if rest.startswith('"', eq + 1):
            value, end = decoder.raw_decode(rest, eq + 1)
        else:
            end = rest.find(" ", eq + 1)
            end = len(rest) if end < 0 else end
            value = rest[eq + 1:end]
        fields[key] = value
        i = end + 1
    return name, fields


def number(cell):
    return None if cell == "N/A" else float(cell)


def parse_row(line):
    """(success, torch, gems, shape) of a table row, or None when it is malformed."""
    success = line.startswith("SUCCESS")
    parts = line[7 if success else 6:].split()
    cells = []
    for part in parts[:6]:
        if part != "N/A":
            try:
                float(part)
            except ValueError:
                break
        cells.append(part)
    if len(cells) < 3:
        return None
    rest = line[7 if success else 6:]
    for cell in cells:
        rest = rest[rest.index(cell) + len(cell):]
    shape = rest.strip()
    if not shape and cells[-1] == "N/A" and len(cells) > 3:
        shape = "N/A"
    if not shape:
        return None
    return success, number(cells[0]), number(cells[1]), number(cells[2]), shape


def read_rows(path, run_timer=""):
    """(op, dtype, shape, success, torch, gems, speedup, fallback, lineno) of each table row, as read."""
    timer = run_timer
    fallbacks = set()
    op = dtype = None
    state = "outside"
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if state == "table":
                if line.startswith("SUCCESS ") or line.startswith("FAILED "):
                    row = parse_row(line)
                    if row is None:
                        print(f"{path}:{lineno}: malformed row", file=sys.stderr)
                        continue
                    success, torch, gems, speedup, shape = row
                    yield op, dtype, shape, success, torch, gems, speedup, (op, dtype, shape) in fallbacks, lineno
                    continue
                if not line.strip():
                    state = "outside"
                    continue
                state = "outside"
            if state == "columns":
                state = "separator"
                continue
            if state == "separator":
                state = "table" if line.startswith("-") else "outside"
                continue
            if line.startswith("Operator: "):
                op = line[10:line.index("  Performance Test (")]
                params = line[line.index("(") + 1:line.rindex(")")]
                for kv in params.split(","):
                    key, _, value = kv.strip().partition("=")
                    if key == "dtype":
                        dtype = value
                state = "columns"
            elif line.startswith("ZL_TIMER "):
                timer = parse_marker(line)[1].get("timer", run_timer)
                fallbacks = set()
            elif line.startswith("ZL_RUN "):
                run_timer = timer = parse_marker(line)[1].get("timer", run_timer)
            elif line.startswith("BENCHMARK_DIRECT_NO_CUDAGRAPH "):
                fields = parse_marker(line)[1]
                fallbacks.add((fields.get("op"), fields.get("dtype"), fields.get("shape")))


def parse_run(folder):
    with open(os.path.join(folder, "run_identity.json")) as f:
        identity = json.load(f)
    rows = []
    seen = {}
    for op, dtype, shape, success, torch, gems, _, fallback, _ in read_rows(
            os.path.join(folder, "run.log"), identity.get("timer", {}).get("effective", "")):
        key = (op, dtype, shape)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        rows.append((op, dtype, shape, occurrence, success, torch, gems, None, fallback))
    return rows


def side(root):
    groups = {}
    for folder in run_folders(root):
        for row in parse_run(folder):
            groups.setdefault(row[:4], []).append(row)
    return groups


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def measured(row):
    return row[4] and row[6] is not None and row[6] > 0 and math.isfinite(row[6])


def compare(a, b):
    ops = {}

    def op_stats(op):
        return ops.setdefault(op, {"ratios": [], "torch": [], "fallback": 0, "unpaired": 0, "failed": 0})

    for key, rows_a in a.items():
        rows_b = b.get(key)
        good_a = [r for r in rows_a if measured(r)]
        if rows_b is None:
            op_stats(key[0])["unpaired" if good_a else "failed"] += 1
            continue
        good_b = [r for r in rows_b if measured(r)]
        if not good_a or not good_b:
            op_stats(key[0])["failed"] += 1
            continue
        stats = op_stats(key[0])
        stats["ratios"].append(median([r[6] for r in good_b]) / median([r[6] for r in good_a]))
        torch_a = [r[5] for r in good_a if r[5] and r[5] > 0]
        torch_b = [r[5] for r in good_b if r[5] and r[5] > 0]
        if torch_a and torch_b:
            stats["torch"].append(median(torch_b) / median(torch_a))
        if any(r[8] for r in rows_a + rows_b):
            stats["fallback"] += 1
    for key, rows_b in b.items():
        if key not in a:
            op_stats(key[0])["unpaired" if any(measured(r) for r in rows_b) else "failed"] += 1
    return ops


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fixed(value):
    return "-" if value is None else f"{value:.3f}"


def positive(value):
    return value is not None and value > 0 and math.isfinite(value)


def summary(log):
    """zl summary LOG --format csv: per (op, dtype), folded as the rows are read."""
    groups = {}
    for op, dtype, _, success, torch, gems, speedup, fallback, _ in read_rows(log):
        g = groups.get((op, dtype))
        if g is None:
            g = groups[(op, dtype)] = {"rows": 0, "measured": 0, "log_sum": 0.0, "min": None, "max": None,
                                       "failed": 0, "fallback": 0}
        g["rows"] += 1
        g["failed"] += 0 if success else 1
        g["fallback"] += 1 if fallback else 0
        s = speedup if positive(speedup) else torch / gems if positive(torch) and positive(gems) else None
        if success and s is not None:
            g["measured"] += 1
            g["log_sum"] += math.log(s)
            g["min"] = s if g["min"] is None else min(g["min"], s)
            g["max"] = s if g["max"] is None else max(g["max"], s)
    print("op,dtype,rows,geomean_speedup,min_speedup,max_speedup,failed,fallback")
    total = {"rows": 0, "measured": 0, "log_sum": 0.0, "min": None, "max": None, "failed": 0, "fallback": 0}
    for (op, dtype), g in sorted(groups.items()):
        for k in ("rows", "measured", "log_sum", "failed", "fallback"):
            total[k] += g[k]
        if g["min"] is not None:
            total["min"] = g["min"] if total["min"] is None else min(total["min"], g["min"])
            total["max"] = g["max"] if total["max"] is None else max(total["max"], g["max"])
        print_group(op, dtype, g)
    print_group("total", "", total)


def print_group(op, dtype, g):
    mean = math.exp(g["log_sum"] / g["measured"]) if g["measured"] else None
    print(f"{op},{dtype},{g['rows']},{fixed(mean)},{fixed(g['min'])},{fixed(g['max'])},{g['failed']},{g['fallback']}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        summary(sys.argv[2])
        return
    if len(sys.argv) != 3:
        sys.exit("usage: reference_parser.py A B | reference_parser.py --summary LOG")
    ops = compare(side(sys.argv[1]), side(sys.argv[2]))
    print(HEADER)
    total = {"ratios": [], "torch": [], "fallback": 0, "unpaired": 0, "failed": 0}
    for op in sorted(ops):
        s = ops[op]
        for k in total:
            total[k] += s[k]
        print(f"{op},{len(s['ratios'])},{fixed(geomean(s['ratios']))},{fixed(min(s['ratios'], default=None))},"
              f"{fixed(max(s['ratios'], default=None))},{s['fallback']},{fixed(geomean(s['torch']))},0,0,0,0,"
              f"{s['unpaired']},{s['failed']}")
    s = total
    print(f"total,{len(s['ratios'])},{fixed(geomean(s['ratios']))},{fixed(min(s['ratios'], default=None))},"
          f"{fixed(max(s['ratios'], default=None))},{s['fallback']},{fixed(geomean(s['torch']))},0,0,0,0,"
          f"{s['unpaired']},{s['failed']}")


if __name__ == "__main__":
    main()
