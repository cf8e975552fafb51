"""Compares what scripts/device/twin_h100.sh left in a folder: each op's zl status (warm and
process campaigns) against the plain pytest session's outcome of its tests (JUnit XML), and
the warm campaign's record log of each op against the process campaign's, timings aside."""
import csv
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REFUSAL = re.compile(r"Given dtype\(s\) '[^']*'\s*can't be supported by this op")
TIMINGS = {"latency", "latency_base", "speedup", "gbps", "gbps_base", "tflops", "utilization",
           "compared_speedup"}
AS_PLAIN = {"ok": "passed", "no_rows": "passed"}


def plain_outcomes(folder):
    """{file: [outcome, ...]} over every JUnit file of the plain sessions."""
    found = {}
    for xml in sorted(folder.glob("*.xml")):
        for case in ET.parse(xml).getroot().iter("testcase"):
            file = case.get("classname", "").replace(".", "/") + ".py"
            failure = case.find("failure")
            if failure is not None:
                text = (failure.get("message") or "") + (failure.text or "")
                outcome = "unsupported" if REFUSAL.search(text) else "failed"
            elif case.find("error") is not None:
                outcome = "failed"
            elif case.find("skipped") is not None:
                outcome = "skipped"
            else:
                outcome = "passed"
            found.setdefault(file, []).append(outcome)
    return found


def plain_status(outcomes):
    if not outcomes:
        return "no_tests"
    if "failed" in outcomes:
        return "failed"
    if "passed" in outcomes:
        return "passed"
    return "unsupported" if "unsupported" in outcomes else "skipped"


def statuses(campaign):
    path = campaign / "ops_status.csv"
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        return {row["op"]: row["status"] for row in csv.DictReader(f)}


def records(run_dir):
    path = run_dir / "record.log"
    if not path.exists():
        return None
    out = []
    for line in path.read_text(errors="replace").splitlines():
        body = line.split("] ", 1)[-1]
        try:
            doc = json.loads(body)
        except ValueError:
            out.append(body)
            continue
        for result in doc.get("result", []) if isinstance(doc, dict) else []:
            for key in TIMINGS:
                result.pop(key, None)
        out.append(json.dumps(doc, sort_keys=True))
    return out


def main(root):
    root = Path(root)
    plans = {p.name[:-len(".plan.json")]: json.loads(p.read_text())
             for p in (root / "plain").glob("*.plan.json") if p.stat().st_size}
    plain = plain_outcomes(root / "plain")
    warm, process = statuses(root / "warm"), statuses(root / "process")
    agree = {"warm": [0, 0], "process": [0, 0]}
    same_records = differ = 0
    for op, plan in sorted(plans.items()):
        expected = plain_status(plain.get(plan["node"].split("::")[0], []))
        line = f"{op:45s} plain={expected:11s}"
        for name, got in (("warm", warm), ("process", process)):
            status = got.get(op)
            if status is None or status == "pending":
                line += f" {name}=-"
                continue
            ok = AS_PLAIN.get(status, status) == expected
            agree[name][0 if ok else 1] += 1
            line += f" {name}={status}{'' if ok else ' (DIFFERS)'}"
        if op in warm and op in process and warm[op] != "pending" and process[op] != "pending":
            a, b = records(root / "warm" / op), records(root / "process" / op)
            if a == b:
                same_records += 1
            else:
                differ += 1
                line += f" RECORDS DIFFER ({len(a or [])} vs {len(b or [])} lines)"
        print(line)
    for name, (yes, no) in agree.items():
        print(f"{name}: {yes} ops agree with plain pytest, {no} differ")
    print(f"record logs, warm against process: {same_records} ops the same, {differ} differ")
    executor_report(root / "warm")


def executor_report(campaign):
    """What the warm worker put back after each op, and which ops ended their worker."""
    restored, recycled, ops = {}, [], 0
    for path in sorted(campaign.glob("*/run_identity.json")):
        executor = json.loads(path.read_text()).get("executor") or {}
        ops += 1
        for item in executor.get("restored") or []:
            restored[item] = restored.get(item, 0) + 1
        if executor.get("recycled"):
            recycled.append(f"{path.parent.name}: {'; '.join(executor['recycled'])}")
    print(f"warm identities: {ops}; ops whose worker was recycled: {len(recycled)}")
    for line in recycled:
        print(f"  recycled {line}")
    for item, count in sorted(restored.items(), key=lambda kv: -kv[1]):
        print(f"  restored after {count} ops: {item}")


if __name__ == "__main__":
    main(sys.argv[1])
