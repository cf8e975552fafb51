"""zl receipt: digests of the harness and the results, and their verification."""
import hashlib
import json
from pathlib import Path

from conftest import SOURCE_DIR, ZL_BIN

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_receipt_records_and_verifies(zl, tmp_path):
    run = tmp_path / "run"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(run), check_rc=0)
    zl.run("receipt", str(run), check_rc=0)
    receipt = json.loads((run / "receipt.json").read_text())
    roles = {e["role"]: e for e in receipt["harness"]}
    assert roles["zl"]["path"] == ZL_BIN and roles["zl"]["sha256"] == sha256(Path(ZL_BIN))
    assert roles["backend:cpu"]["path"].endswith("libzl_backend_cpu.so")
    # The modules the plugins import are harness files too (zl_patch restores what they patch).
    for plugin in ("plugin:zl_plan", "plugin:zl_patch", "plugin:zl_autotune_records", "plugin:zl_samples",
                   "plugin:zl_metrics", "plugin:zl_device_setup", "plugin:zl_timing", "plugin:zl_identity"):
        assert roles[plugin]["sha256"] == sha256(Path(roles[plugin]["path"]))
    assert roles["shapes"]["path"] == str(CORPUS / "benchmark" / "core_shapes.yaml")
    assert "plugin:zl_worker" not in roles  # a fresh process: no worker ran it
    results = {e["path"]: e["sha256"] for e in receipt["results"]}
    assert set(results) == {"outcomes.json", "plan.json", "python_versions.json", "record.log", "run.log",
                            "run_identity.json", "samples.bin", "shapes.yaml", "telemetry.jsonl"}
    assert results["run.log"] == sha256(run / "run.log")
    assert receipt["runs"][0]["identity"]["backend"]["name"] == "cpu"
    assert "every digest matches" in zl.run("receipt", "--verify", str(run), check_rc=0).stdout

    with open(run / "record.log", "a") as f:
        f.write("tampered\n")
    (run / "extra.txt").write_text("new")
    proc = zl.run("receipt", "--verify", str(run), check_rc=1)
    assert "changed    result record.log" in proc.stdout
    assert "added      extra.txt (not in the receipt)" in proc.stdout
    (run / "plan.json").unlink()
    assert "missing    result plan.json" in zl.run("receipt", "--verify", str(run), check_rc=1).stdout


def test_receipt_of_a_folder_without_runs_is_refused(zl, tmp_path):
    proc = zl.run("receipt", str(tmp_path), check_rc=2)
    assert "holds no run" in proc.stderr
    proc = zl.run("receipt", "--verify", str(tmp_path), check_rc=2)
    assert "has no receipt.json" in proc.stderr
