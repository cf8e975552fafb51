"""How zl starts, stops and cleans up after benchmarks that misbehave (tests/fixtures/hostile_corpus).

Every process a hostile op starts inherits HOSTILE_TAG=<unique>, so a test can tell which of them
survived, and the fixture's finalizer kills whatever did, whatever the test's outcome.
"""
import csv
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from conftest import SOURCE_DIR, ZL_BIN

HOSTILE = SOURCE_DIR / "tests" / "fixtures" / "hostile_corpus"
CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
EXIT_SIGNALED = 14  # zl run: the benchmark was killed by a signal (zl --help, README)


def tagged(tag):
    """Live processes whose environment carries HOSTILE_TAG=tag (zombies have no environment)."""
    needle = f"HOSTILE_TAG={tag}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


class Hostile:
    def __init__(self, zl, tmp_path):
        self.zl = zl
        self.tmp_path = tmp_path
        self.tag = uuid.uuid4().hex
        self.env = dict(zl.env, HOSTILE_TAG=self.tag, ZL_STOP_GRACE_S="1")
        self.procs = []

    def start(self, *args, env=None, **popen_args):
        popen_args.setdefault("stdout", subprocess.PIPE)
        popen_args.setdefault("stderr", subprocess.PIPE)
        proc = subprocess.Popen([ZL_BIN, *args], env=dict(self.env, **(env or {})), text=True, **popen_args)
        self.procs.append(proc)
        return proc

    def run_args(self, op, out):
        return ["run", "--flaggems", str(HOSTILE), "--op", op, "--python", PYTHON, "--out", str(out)]

    def batch_args(self, ops, out, *extra):
        return ["batch", "--flaggems", str(HOSTILE), "--ops", ops, "--python", PYTHON, "--out", str(out), *extra]

    def survivors(self):
        return tagged(self.tag)

    def wait_gone(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.survivors():
                return []
            time.sleep(0.1)
        return self.survivors()

    def cleanup(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            try:
                proc.communicate(timeout=10)
            except (ValueError, subprocess.TimeoutExpired):  # a test closed its stdin; a leftover holds a pipe
                pass
        for pid in self.survivors():
            for sig in (signal.SIGKILL, signal.SIGCONT):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass


@pytest.fixture
def hostile(zl, tmp_path):
    h = Hostile(zl, tmp_path)
    yield h
    h.cleanup()


def wait_for(path, text, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        time.sleep(0.05)
    pytest.fail(f"{text} never appeared in {path}")


def identity(run_dir):
    return json.loads((run_dir / "run_identity.json").read_text())


def finish(proc, timeout):
    """Waits for proc; fails (rather than hangs) when it does not end in time."""
    start = time.monotonic()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate(timeout=10)
        pytest.fail(f"zl did not end within {timeout} s\nstdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}")
    return out, err, time.monotonic() - start


# Item 1: a benchmark that ignores SIGINT and SIGTERM is still stopped.

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_ends_a_benchmark_that_ignores_it(hostile, tmp_path, sig):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("stubborn", run))
    wait_for(run / "run.log", "HOSTILE_STARTED")
    proc.send_signal(sig)
    out, err, took = finish(proc, 20)
    assert proc.returncode == 130, err
    assert took < 10  # a one-second grace period, then SIGKILL
    assert identity(run)["status"] == "interrupted"
    assert "SIGKILL" in err  # zl says it had to escalate
    assert hostile.wait_gone(5) == []


def test_a_second_interrupt_kills_at_once(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("stubborn", run), env={"ZL_STOP_GRACE_S": "120"})
    wait_for(run / "run.log", "HOSTILE_STARTED")
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert proc.poll() is None  # still in the grace period
    proc.send_signal(signal.SIGINT)
    finish(proc, 20)
    assert proc.returncode == 130
    assert identity(run)["status"] == "interrupted"
    assert hostile.wait_gone(5) == []


def test_batch_timeout_ends_a_stubborn_op_and_its_identity(hostile, tmp_path):
    out = tmp_path / "campaign"
    proc = hostile.start(*hostile.batch_args("stubborn", out, "--timeout-per-op", "2"))
    _, err, took = finish(proc, 40)
    assert proc.returncode == 1, err
    assert took < 15
    with open(out / "ops_status.csv", newline="") as f:
        row = next(csv.DictReader(f))
    assert row["status"] == "timeout"
    assert identity(out / "stubborn")["status"] in ("interrupted", "timeout")
    assert hostile.wait_gone(5) == []


# Item 2: what a benchmark leaves behind neither blocks zl nor survives it.

@pytest.mark.parametrize("op", ["lingering", "escapee"])
def test_a_leftover_process_does_not_block_a_passing_run(hostile, tmp_path, op):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args(op, run))
    out, err, took = finish(proc, 30)
    assert proc.returncode == 0, err
    assert "1 passed" in out
    assert took < 20
    assert identity(run)["status"] == "ok"
    assert hostile.wait_gone(5) == []


# Item 3: children die with their parent, whatever killed it.

def test_sigkill_of_zl_run_takes_pytest_with_it(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("sleepy", run))
    wait_for(run / "run.log", "HOSTILE_STARTED")
    proc.kill()
    finish(proc, 10)
    assert hostile.wait_gone(5) == []


@pytest.mark.parametrize("executor", ["process", "warm"])
def test_sigkill_of_zl_batch_ends_its_whole_tree(hostile, tmp_path, executor):
    out = tmp_path / "campaign"
    # The op leaves a stubborn grandchild and sleeps: zl run (process) or the worker (warm) must
    # end both when batch dies.
    proc = hostile.start(*hostile.batch_args("lingering", out, "--executor", executor),
                         env={"HOSTILE_SLEEP": "300"})
    wait_for(out / "lingering" / "run.log", "HOSTILE_STARTED")
    proc.kill()
    finish(proc, 10)
    assert hostile.wait_gone(10) == []
    # Under process the op's own zl run outlives batch long enough to record the interruption;
    # under warm batch itself writes the identity, so SIGKILL leaves it as a killed zl run
    # leaves its own: running, never finished (--resume runs the op again).
    expected = {"process": "interrupted", "warm": "running"}[executor]
    assert identity(out / "lingering")["status"] == expected
    assert identity(out / "lingering")["finished_at"] is None or executor == "process"


# Item 5: a benchmark killed by a signal has an exit status of its own, and says which signal.

def test_a_crashed_benchmark_is_told_apart_from_a_crashed_zl(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("segfault", run))
    _, err, _ = finish(proc, 30)
    assert proc.returncode == EXIT_SIGNALED, err
    assert "SIGSEGV" in err
    ident = identity(run)
    assert ident["status"] == "crashed" and ident["signal"] == "SIGSEGV"
    assert ident["exit_code"] == EXIT_SIGNALED and ident["pytest_exit_code"] is None


def test_batch_counts_a_crashed_benchmark_as_crashed(hostile, tmp_path):
    out = tmp_path / "campaign"
    proc = hostile.start(*hostile.batch_args("segfault", out))
    finish(proc, 40)
    with open(out / "ops_status.csv", newline="") as f:
        row = next(csv.DictReader(f))
    assert row["status"] == "crashed" and row["exit_code"] == str(EXIT_SIGNALED)


# Item 7: zl started with its standard output closed still writes each line once.

def test_closed_stdout_does_not_double_the_run_log(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(run),
                         stdout=None, pass_fds=(), preexec_fn=lambda: os.close(1))
    finish(proc, 60)
    assert proc.returncode == 74  # the run is whole, but what zl printed was lost (zl --help, exit codes)
    assert identity(run)["status"] == "ok"
    log = (run / "run.log").read_text()
    assert log.count("ZL_RUN ") == 1
    assert log.count("test session starts") == 1


# Beyond the issue: what else a hostile benchmark does.

def test_a_benchmark_that_stops_itself_is_ended_by_the_timeout(hostile, tmp_path):
    out = tmp_path / "campaign"
    proc = hostile.start(*hostile.batch_args("stopper", out, "--timeout-per-op", "2"))
    finish(proc, 40)
    with open(out / "ops_status.csv", newline="") as f:
        assert next(csv.DictReader(f))["status"] == "timeout"
    assert hostile.wait_gone(5) == []


def test_a_stopped_benchmark_is_ended_by_ctrl_c(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("stopper", run))
    wait_for(run / "run.log", "HOSTILE_STARTED")
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    finish(proc, 20)
    assert proc.returncode == 130
    assert hostile.wait_gone(5) == []


def test_output_without_newlines_is_kept_whole(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("flood", run), env={"HOSTILE_FLOOD_MB": "8"})
    out, err, _ = finish(proc, 60)
    assert proc.returncode == 0, err
    assert "x" * (8 << 20) in (run / "run.log").read_text()
    assert "1 passed" in out


def test_a_light_fork_bomb_is_cleaned_up(hostile, tmp_path):
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("forker", run), env={"HOSTILE_FORKS": "12"})
    _, err, _ = finish(proc, 30)
    assert proc.returncode == 0, err
    assert identity(run)["status"] == "ok"
    assert hostile.wait_gone(5) == []


def test_a_benchmark_reading_stdin_gets_end_of_file(hostile, tmp_path):
    run = tmp_path / "run"
    # zl's own stdin is a pipe that stays open and silent: the benchmark must not inherit it.
    proc = hostile.start(*hostile.run_args("stdin", run), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the benchmark waited on zl's standard input")
    finally:
        proc.stdin.close()
    assert proc.returncode == 0
    assert "HOSTILE_STDIN bytes=0" in (run / "run.log").read_text()


def test_a_stop_before_pytest_starts_is_recorded_and_starts_nothing(hostile, tmp_path):
    # zl asks git for FlagGems' commit before pytest starts; this git is slow, so Ctrl-C lands there.
    bin_dir = tmp_path / "slow-bin"
    bin_dir.mkdir()
    marker = tmp_path / "git-started"
    (bin_dir / "git").write_text(f'#!/bin/sh\ntouch "{marker}"\nsleep 3\nexit 1\n')
    (bin_dir / "git").chmod(0o755)
    run = tmp_path / "run"
    proc = hostile.start(*hostile.run_args("sleepy", run), env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    finish(proc, 20)
    assert proc.returncode == 130
    ident = identity(run)
    assert ident["status"] == "interrupted" and ident["pytest_exit_code"] is None
    assert "HOSTILE_STARTED" not in (run / "run.log").read_text()
    assert hostile.wait_gone(5) == []


def test_sigkill_of_zl_ab_ends_its_whole_tree(hostile, tmp_path):
    out = tmp_path / "ab"
    proc = hostile.start("ab", "--flaggems", str(HOSTILE), "--op", "lingering", "--axis", "HOSTILE_AXIS", "--values",
                         "0,1", "--rounds", "1", "--force", "--python", PYTHON, "--out", str(out),
                         env={"HOSTILE_SLEEP": "300"})
    deadline = time.monotonic() + 30
    while not list(out.glob("*/round-1/run.log")) and time.monotonic() < deadline:
        time.sleep(0.05)
    wait_for(next(out.glob("*/round-1/run.log")), "HOSTILE_STARTED")
    proc.kill()
    finish(proc, 10)
    assert hostile.wait_gone(10) == []
    assert identity(next(out.glob("*/round-1")))["status"] == "interrupted"


def test_sigkill_of_zl_sweep_ends_its_whole_tree(hostile, tmp_path):
    out = tmp_path / "sweep"
    proc = hostile.start("sweep", "--flaggems", str(HOSTILE), "--op", "lingering", "--python", PYTHON, "--out",
                         str(out), env={"HOSTILE_SLEEP": "300"})
    deadline = time.monotonic() + 30
    while not list(out.glob("**/run.log")) and time.monotonic() < deadline:
        time.sleep(0.05)
    wait_for(next(out.glob("**/run.log")), "HOSTILE_STARTED")
    proc.kill()
    finish(proc, 10)
    assert hostile.wait_gone(10) == []
