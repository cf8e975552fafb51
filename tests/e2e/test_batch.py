"""zl batch end to end: real zl run children, real pytest, the sample corpus and the probe corpus."""
import csv
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import SOURCE_DIR, ZL_BIN

CORPUS = SOURCE_DIR / "corpus"
PROBE = SOURCE_DIR / "tests" / "fixtures" / "flaggems_probe"
PYTHON = "/usr/bin/python3"


def statuses(out):
    with open(out / "ops_status.csv", newline="") as f:
        return {row["op"]: row for row in csv.DictReader(f)}


def test_a_campaign_over_the_sample_corpus(zl, tmp_path):
    out = tmp_path / "campaign"
    proc = zl.run("batch", "--flaggems", str(CORPUS), "--ops", "abs,add,mm", "--python", PYTHON, "--out", str(out),
                  check_rc=0)
    rows = statuses(out)
    assert list(rows) == ["abs", "add", "mm"]
    for op, row in rows.items():
        assert row["status"] == "ok" and row["exit_code"] == "0", row
        assert int(row["rows"]) > 0
        assert row["backend"] == "cpu" and row["device_index"] == "0" and row["device_uuid"].startswith("host-")
        assert row["timer"] == "direct" and row["level"] == "core"
        assert row["run_dir"] == str(out / op)
        assert (out / op / "run_identity.json").exists() and (out / "logs" / f"{op}.log").exists()
        assert float(row["duration_s"]) > 0
    assert "makespan" in proc.stderr and "ideal" in proc.stderr
    db = sqlite3.connect(out / "results.sqlite")
    assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 3


def test_each_outcome_has_its_status(zl, tmp_path):
    out = tmp_path / "campaign"
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe,failing,nosuchop", "--python", PYTHON,
                  "--out", str(out))
    assert proc.returncode == 1
    rows = statuses(out)
    assert rows["probe"]["status"] == "no_rows"  # it passes but prints no FlagGems table
    assert rows["failing"]["status"] == "failed" and rows["failing"]["exit_code"] == "1"
    assert rows["nosuchop"]["status"] == "preflight_failed" and rows["nosuchop"]["exit_code"] == "3"
    assert "PREFLIGHT_FAILED check=benchmark_file" in (out / "logs" / "nosuchop.log").read_text()


@pytest.mark.parametrize("executor", ["process", "warm"])
def test_declined_ops_are_unsupported_or_skipped_not_failed(zl, tmp_path, executor):
    """sum_dim takes float32 alone (the corpus refuses float16 in FlagGems' words), add_alpha too
    (add's other test runs), fft is skipped without CUDA: none is a failure, in the statuses,
    the exit status, --resume or the summary."""
    out = tmp_path / "campaign"
    ops = "abs,add,sum_dim,fft"
    proc = zl.run("batch", "--flaggems", str(CORPUS), "--ops", ops, "--dtypes", "float16", "--python", PYTHON,
                  "--out", str(out), "--executor", executor, check_rc=0)
    rows = statuses(out)
    assert rows["abs"]["status"] == "ok" and int(rows["abs"]["rows"]) > 0
    assert rows["add"]["status"] == "ok" and rows["add"]["exit_code"] == "1"  # add_alpha refused float16
    assert rows["sum_dim"]["status"] == "unsupported" and rows["sum_dim"]["exit_code"] == "1"
    assert rows["fft"]["status"] == "skipped" and rows["fft"]["exit_code"] == "0"
    add = json.loads((out / "add" / "run_identity.json").read_text())
    assert add["status"] == "ok" and add["tests"]["passed"] == 1 and add["tests"]["unsupported"] == 2  # add_alpha, two alphas
    mm = json.loads((out / "sum_dim" / "run_identity.json").read_text())
    assert mm["status"] == "unsupported" and mm["pytest_exit_code"] == 1
    assert mm["tests"]["unsupported"] == 1 and mm["tests"]["unsupported_dtypes"] == ["torch.float16"]
    fft = json.loads((out / "fft" / "run_identity.json").read_text())
    assert fft["status"] == "skipped" and fft["tests"]["skip_reasons"] == ["CUDA is not available"]
    assert "sum_dim unsupported" in proc.stderr and "fft skipped" in proc.stderr
    summary = json.loads(zl.run("summary", "--format", "json", str(out), check_rc=0).stdout)
    by_op = {g["op"]: g for g in summary["groups"] if g["dtype"] in ("", "-", None)}
    assert by_op["sum_dim"]["status"] == "unsupported" and by_op["sum_dim"]["failed"] == 0
    assert by_op["sum_dim"]["rows"] == 0
    assert by_op["fft"]["status"] == "skipped" and by_op["fft"]["failed"] == 0
    assert summary["total"]["failed"] == 0
    text = zl.run("summary", str(out), check_rc=0).stdout
    declined = next(line for line in text.splitlines() if line.startswith("declined by FlagGems, not failures: "))
    assert "sum_dim unsupported" in declined and "fft skipped" in declined and "abs" not in declined
    assert "did not finish ok" not in text
    zl.run("batch", "--flaggems", str(CORPUS), "--ops", ops, "--dtypes", "float16", "--python", PYTHON,
           "--out", str(out), "--executor", executor, "--resume", check_rc=0)
    assert not list(out.glob("*.attempt-*"))  # nothing re-ran


def test_timeout_stops_the_op_and_says_so(zl, tmp_path):
    out = tmp_path / "campaign"
    zl.run("batch", "--flaggems", str(PROBE), "--ops", "sleeper", "--timeout-per-op", "2", "--python", PYTHON,
           "--out", str(out), env={"PROBE_SLEEP": "60"}, check_rc=1)
    row = statuses(out)["sleeper"]
    assert row["status"] == "timeout"
    assert float(row["duration_s"]) < 30
    assert json.loads((out / "sleeper" / "run_identity.json").read_text())["status"] == "interrupted"


def start_batch(zl, out, ops, sleep):
    env = dict(zl.env, PROBE_SLEEP=str(sleep))
    return subprocess.Popen([ZL_BIN, "batch", "--flaggems", str(PROBE), "--ops", ops, "--python", PYTHON,
                             "--out", str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path, text, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and text in path.read_text():
            return
        time.sleep(0.1)
    pytest.fail(f"{text} never appeared in {path}")


def test_interrupt_then_resume_ends_like_an_uninterrupted_campaign(zl, tmp_path):
    out = tmp_path / "campaign"
    proc = start_batch(zl, out, "sleeper,probe", 60)
    wait_for(out / "sleeper" / "run.log", "SLEEPER_STARTED")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    rows = statuses(out)
    assert rows["sleeper"]["status"] == "interrupted"
    assert rows["probe"]["status"] == "pending"

    zl.run("batch", "--flaggems", str(PROBE), "--ops", "sleeper,probe", "--python", PYTHON, "--out", str(out),
           "--resume", env={"PROBE_SLEEP": "0"})
    resumed = statuses(out)
    assert (out / "sleeper.attempt-1" / "run_identity.json").exists()  # the interrupted run is kept

    fresh = tmp_path / "fresh"
    zl.run("batch", "--flaggems", str(PROBE), "--ops", "sleeper,probe", "--python", PYTHON, "--out", str(fresh),
           env={"PROBE_SLEEP": "0"})
    fresh_rows = statuses(fresh)
    columns = ("status", "exit_code", "rows", "backend", "device_index", "timer", "level")
    assert {op: [r[c] for c in columns] for op, r in resumed.items()} == \
        {op: [r[c] for c in columns] for op, r in fresh_rows.items()}


def test_resume_needs_a_campaign_and_a_campaign_is_never_overwritten(zl, tmp_path):
    out = tmp_path / "campaign"
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON, "--out", str(out),
                  "--resume", check_rc=2)
    assert "has no ops_status.csv" in proc.stderr
    zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON, "--out", str(out))
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON, "--out", str(out),
                  check_rc=2)
    assert "already holds a campaign" in proc.stderr


def test_longest_expected_first_from_the_store(zl, tmp_path):
    db = tmp_path / "shared.sqlite"
    first = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe,sleeper", "--python", PYTHON,
                   "--out", str(tmp_path / "one"), "--db", str(db), env={"PROBE_SLEEP": "1.5"})
    starts = [l.split()[3] for l in first.stderr.splitlines() if l.startswith("zl batch: start ")]
    assert starts == ["probe", "sleeper"]  # no history: the order given
    second = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe,sleeper", "--python", PYTHON,
                    "--out", str(tmp_path / "two"), "--db", str(db), env={"PROBE_SLEEP": "1.5"})
    starts = [l.split()[3] for l in second.stderr.splitlines() if l.startswith("zl batch: start ")]
    assert starts == ["sleeper", "probe"]


def test_bad_input_is_refused_before_anything_runs(zl, tmp_path):
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--level", "huge", check_rc=2)
    assert "--level huge is not accepted" in proc.stderr
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "Bad-Op", "--python", PYTHON, check_rc=2)
    assert "'Bad-Op' is not an op name" in proc.stderr
    ops_file = tmp_path / "ops.txt"
    ops_file.write_text("probe  # fine\n../etc\n")
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops-file", str(ops_file), "--python", PYTHON, check_rc=2)
    assert f"{ops_file}:2: '../etc' is not an op name" in proc.stderr
    proc = zl.run("batch", "--flaggems", "/nonexistent", "--ops", "probe", check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=flaggems_dir")
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--devices", "7", "--python", PYTHON,
                  check_rc=2)
    assert "has no device '7'" in proc.stderr
