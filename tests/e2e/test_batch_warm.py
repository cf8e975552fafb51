"""zl batch --executor warm end to end: real workers, real pytest, the sample corpus and copies
of it with an op that kills its worker or hangs."""
import csv
import json
import os
import signal
import subprocess

import pytest

from conftest import SOURCE_DIR, ZL_BIN, corpus_with

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
OPS = "abs,add,mm,sum"

CRASH = """import os
import signal

import pytest


@pytest.mark.crash
def test_crash():
    print("about to crash", flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)


@pytest.mark.hang
def test_hang():
    import time
    print("hanging", flush=True)
    time.sleep(120)
"""


def statuses(out):
    with open(out / "ops_status.csv", newline="") as f:
        return {row["op"]: row for row in csv.DictReader(f)}


def identity(out, op):
    return json.loads((out / op / "run_identity.json").read_text())


@pytest.fixture
def crash_corpus(tmp_path):
    """The sample corpus plus benchmark/test_crash.py: `crash` segfaults, `hang` sleeps."""
    return corpus_with(tmp_path / "corpus", {"test_crash.py": CRASH}, {"crash": "[8]", "hang": "[8]"})


def batch(zl, corpus, out, executor, ops, *extra, rc=None):
    # Five ops of the corpus take longer than zl.run's minute on a loaded machine.
    proc = subprocess.run([ZL_BIN, "batch", "--flaggems", str(corpus), "--ops", ops, "--python", PYTHON,
                           "--out", str(out), "--executor", executor, *extra],
                          env=zl.env, capture_output=True, text=True, timeout=300)
    if rc is not None:
        assert proc.returncode == rc, f"rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


def test_warm_gives_the_same_statuses_and_rows_as_process(zl, tmp_path):
    seen = {}
    for executor in ("process", "warm"):
        out = tmp_path / executor
        batch(zl, CORPUS, out, executor, OPS, rc=0)
        seen[executor] = {op: (row["status"], row["rows"], row["timer"]) for op, row in statuses(out).items()}
        assert json.loads((out / "campaign.json").read_text())["caliber"]["executor"] == executor
    assert seen["warm"] == seen["process"]
    assert all(status == "ok" for status, _, _ in seen["warm"].values())


def test_identities_carry_the_executor_the_worker_and_its_count(zl, tmp_path):
    out = tmp_path / "warm"
    batch(zl, CORPUS, out, "warm", OPS, rc=0)
    ids = [identity(out, op)["executor"] for op in OPS.split(",")]
    assert {i["name"] for i in ids} == {"warm"}
    assert len({i["pid"] for i in ids}) == 1  # one device, one worker
    assert sorted(i["ops_before"] for i in ids) == [0, 1, 2, 3]
    process = tmp_path / "process"
    batch(zl, CORPUS, process, "process", "abs", rc=0)
    ex = identity(process, "abs")["executor"]
    assert ex["name"] == "process" and ex["ops_before"] == 0 and ex["pid"] > 0


@pytest.mark.parametrize("executor", ["process", "warm"])
def test_one_op_of_five_crashes_four_are_ok(zl, tmp_path, crash_corpus, executor):
    out = tmp_path / executor
    batch(zl, crash_corpus, out, executor, "abs,crash,add,mm,sum", rc=1)
    rows = statuses(out)
    assert {op: row["status"] for op, row in rows.items()} == {
        "abs": "ok", "crash": "crashed", "add": "ok", "mm": "ok", "sum": "ok"}
    assert all(int(rows[op]["rows"]) > 0 for op in ("abs", "add", "mm", "sum"))
    crashed = identity(out, "crash")
    assert crashed["status"] == "crashed" and crashed["exit_code"] == 14
    if executor == "warm":
        assert "SIGSEGV" in crashed["error"] and "about to crash" in crashed["error"]
        pids = {op: identity(out, op)["executor"]["pid"] for op in rows}
        # the crash took its worker; the op after it ran on a fresh one
        assert pids["crash"] not in {pids[op] for op in ("add", "mm", "sum")}


def test_a_hanging_op_is_stopped_and_the_next_runs_on_a_fresh_worker(zl, tmp_path, crash_corpus):
    out = tmp_path / "warm"
    batch(zl, crash_corpus, out, "warm", "hang,abs", "--timeout-per-op", "15", rc=1)
    rows = statuses(out)
    assert rows["hang"]["status"] == "timeout" and float(rows["hang"]["duration_s"]) < 40
    assert rows["abs"]["status"] == "ok"
    hang, abs_ = identity(out, "hang"), identity(out, "abs")
    assert hang["status"] == "interrupted"
    assert abs_["executor"]["pid"] != hang["executor"]["pid"] and abs_["executor"]["ops_before"] == 0


def test_warm_refuses_an_isolated_tuner_cache(zl, tmp_path):
    proc = batch(zl, CORPUS, tmp_path / "out", "warm", "abs", "--isolate-tuner-cache")
    assert proc.returncode == 2
    assert "--executor process" in proc.stderr


def test_summary_ab_refuses_process_against_warm_unless_forced(zl, tmp_path):
    for executor in ("process", "warm"):
        batch(zl, CORPUS, tmp_path / executor, executor, "abs", rc=0)
    a, b = str(tmp_path / "process" / "abs"), str(tmp_path / "warm" / "abs")
    refused = zl.run("summary", "--ab", a, b)
    assert refused.returncode != 0 and "executor" in refused.stderr
    forced = zl.run("summary", "--ab", a, b, "--force")
    assert forced.returncode == 0, forced.stderr


def test_resume_of_a_warm_campaign_reruns_only_what_is_not_ok(zl, tmp_path, crash_corpus):
    out = tmp_path / "warm"
    batch(zl, crash_corpus, out, "warm", "abs,crash,add", rc=1)
    assert {op: row["status"] for op, row in statuses(out).items()} == {"abs": "ok", "crash": "crashed",
                                                                        "add": "ok"}
    first_abs = identity(out, "abs")["executor"]["pid"]
    # The benchmark is mended; the resume runs the crashed op alone, on a fresh worker.
    (crash_corpus / "benchmark" / "test_crash.py").write_text(CRASH.replace(
        "os.kill(os.getpid(), signal.SIGSEGV)", "pass"))
    batch(zl, crash_corpus, out, "warm", "abs,crash,add", "--resume", rc=1)  # crash has no table: no_rows
    after = statuses(out)
    assert after["abs"]["status"] == "ok" and after["add"]["status"] == "ok"
    assert after["crash"]["status"] != "crashed"
    assert (out / "crash.attempt-1").is_dir()
    assert identity(out, "abs")["executor"]["pid"] == first_abs  # an ok op is not run again
    assert identity(out, "crash")["executor"]["name"] == "warm"
    # The executor is part of the campaign's caliber: another one is refused, naming it.
    proc = batch(zl, crash_corpus, out, "process", "abs,crash,add", "--resume", rc=2)
    assert "--executor" in proc.stderr and "'warm'" in proc.stderr


def default_batch(zl, corpus, out, ops, *extra):
    """zl batch without --executor."""
    return subprocess.run([ZL_BIN, "batch", "--flaggems", str(corpus), "--ops", ops, "--python", PYTHON,
                           "--out", str(out), *extra], env=zl.env, capture_output=True, text=True, timeout=300)


def test_the_default_executor_is_warm_but_process_with_an_isolated_tuner_cache(zl, tmp_path):
    for out, extra, executor in ((tmp_path / "plain", (), "warm"),
                                 (tmp_path / "isolated", ("--isolate-tuner-cache",), "process")):
        proc = default_batch(zl, CORPUS, out, "abs", *extra)
        assert proc.returncode == 0, proc.stderr
        assert json.loads((out / "campaign.json").read_text())["caliber"]["executor"] == executor
        assert identity(out, "abs")["executor"]["name"] == executor


def test_resume_without_executor_continues_with_the_campaigns(zl, tmp_path, crash_corpus):
    out = tmp_path / "process"
    batch(zl, crash_corpus, out, "process", "abs,crash", rc=1)
    proc = default_batch(zl, crash_corpus, out, "abs,crash", "--resume")
    assert proc.returncode == 1, proc.stderr  # crash crashes again
    assert json.loads((out / "campaign.json").read_text())["caliber"]["executor"] == "process"
    assert identity(out, "crash")["executor"]["name"] == "process"
    assert (out / "crash.attempt-1").is_dir()


def test_receipt_of_a_warm_campaign_names_the_worker(zl, tmp_path):
    out = tmp_path / "warm"
    batch(zl, CORPUS, out, "warm", "abs", rc=0)
    zl.run("receipt", str(out), check_rc=0)
    roles = {e["role"]: e["path"] for e in json.loads((out / "receipt.json").read_text())["harness"]}
    assert roles["plugin:zl_worker"].endswith("zl_worker.py")
    assert roles["plugin:zl_state"].endswith("zl_state.py")
    assert "plugin:zl_patch" in roles


DOUBLE_FORK = """import subprocess

import pytest


@pytest.mark.escape
def test_escape():
    # A shell that backgrounds a new session and exits: the sleeper is orphaned at once.
    subprocess.run(["sh", "-c", "setsid sleep {seconds} > /dev/null 2>&1 &"])
"""


def sleepers(seconds):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read().split(b"\0")[:2] == [b"sleep", str(seconds).encode()]:
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("executor", ["process", "warm"])
def test_what_an_op_double_forks_away_is_ended(zl, tmp_path, crash_corpus, executor):
    seconds = 400 + os.getpid() % 97  # a sleeper this test alone starts
    (crash_corpus / "benchmark" / "test_escape.py").write_text(DOUBLE_FORK.format(seconds=seconds))
    with open(crash_corpus / "benchmark" / "core_shapes.yaml", "a") as f:
        f.write("\nescape:\n  shapes:\n    - [8]\n")
    try:
        batch(zl, crash_corpus, tmp_path / executor, executor, "escape,abs")
        assert statuses(tmp_path / executor)["abs"]["status"] == "ok"
        assert sleepers(seconds) == []
    finally:
        for pid in sleepers(seconds):
            os.kill(pid, signal.SIGKILL)


def test_what_a_worker_preloaded_is_on_record(zl, tmp_path):
    # ZL_WARM_PRELOAD adds modules whose state every op of that worker inherits: on record.
    zl.env["ZL_WARM_PRELOAD"] = "colorsys"
    try:
        batch(zl, CORPUS, tmp_path / "warm", "warm", "abs", rc=0)
    finally:
        del zl.env["ZL_WARM_PRELOAD"]
    assert "colorsys" in identity(tmp_path / "warm", "abs")["executor"]["preloaded"]
    batch(zl, CORPUS, tmp_path / "process", "process", "abs", rc=0)
    assert identity(tmp_path / "process", "abs")["executor"]["preloaded"] == []
