"""One campaign, one owner, one caliber: the lock, the checks on --out and options, --resume's record."""
import csv
import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest

from conftest import SOURCE_DIR, ZL_BIN

CORPUS = SOURCE_DIR / "corpus"
SLOW = SOURCE_DIR / "tests" / "fixtures" / "flaggems_campaign"
PYTHON = "/usr/bin/python3"


def statuses(out):
    with open(out / "ops_status.csv", newline="") as f:
        return {row["op"]: row for row in csv.DictReader(f)}


def start(zl, out, *extra, ops="slow", sleep=30, flaggems=SLOW):
    env = dict(zl.env, CAMPAIGN_SLEEP=str(sleep), ORPHAN_SLEEP="60")
    return subprocess.Popen([ZL_BIN, "batch", "--flaggems", str(flaggems), "--ops", ops, "--python", PYTHON,
                             "--out", str(out), *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for(path, text, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return path.read_text(errors="replace")
        time.sleep(0.05)
    pytest.fail(f"{text} never appeared in {path}")


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.communicate()


def batch(zl, out, *extra, ops="abs", check_rc=None, flaggems=CORPUS):
    return zl.run("batch", "--flaggems", str(flaggems), "--ops", ops, "--python", PYTHON, "--out", str(out), *extra,
                  check_rc=check_rc)


# --- issue 11.4: two processes on one campaign ---------------------------------------------------

def test_two_campaigns_started_together_only_one_runs(zl, tmp_path):
    out = tmp_path / "campaign"
    procs = [start(zl, out, sleep=8), start(zl, out, sleep=8)]
    try:
        results = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            stop(p)
    codes = sorted(p.returncode for p in procs)
    assert codes == [1, 2], [r[1] for r in results]  # the slow op prints no table: no_rows, exit 1
    loser = next(i for i, p in enumerate(procs) if p.returncode == 2)
    winner = procs[1 - loser]
    err = results[loser][1]
    assert f"pid {winner.pid}" in err and socket.gethostname() in err, err
    assert "in use" in err
    assert (out / "logs" / "slow.log").read_text().count("SLOW_STARTED") == 1
    assert list(statuses(out)) == ["slow"]


def test_a_second_campaign_is_refused_while_the_first_runs_and_writes_nothing(zl, tmp_path):
    out = tmp_path / "campaign"
    first = start(zl, out, sleep=30)
    try:
        wait_for(out / "slow" / "run.log", "SLOW_STARTED")
        before = (out / "ops_status.csv").read_text()
        for extra in ((), ("--resume",)):
            proc = batch(zl, out, *extra, ops="slow,other", flaggems=SLOW, check_rc=2)
            assert f"pid {first.pid}" in proc.stderr and socket.gethostname() in proc.stderr, proc.stderr
        assert (out / "ops_status.csv").read_text() == before
        assert not (out / "slow.attempt-1").exists()
        lock = (out / ".zl-lock").read_text()
        assert f"pid={first.pid}" in lock and f"host={socket.gethostname()}" in lock
    finally:
        stop(first)
    assert first.returncode == 130
    # Released with the owner: the campaign continues.
    zl.env["CAMPAIGN_SLEEP"] = "0"
    batch(zl, out, "--resume", ops="slow", flaggems=SLOW, check_rc=1)
    assert statuses(out)["slow"]["status"] == "no_rows"


def test_two_resumes_at_once_do_not_rerun_each_others_ops(zl, tmp_path):
    out = tmp_path / "campaign"
    first = start(zl, out, sleep=30)
    wait_for(out / "slow" / "run.log", "SLOW_STARTED")
    stop(first)
    assert statuses(out)["slow"]["status"] == "interrupted"
    procs = [start(zl, out, "--resume", sleep=8), start(zl, out, "--resume", sleep=8)]
    try:
        for p in procs:
            p.communicate(timeout=60)
    finally:
        for p in procs:
            stop(p)
    assert sorted(p.returncode for p in procs) == [1, 2]
    assert (out / "slow.attempt-1").exists() and not (out / "slow.attempt-2").exists()


def descendants(pid):
    """Every process under pid, from /proc (its threads' children files)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    kids = [int(c) for c in f.read().split()]
                found += kids
                todo += kids
        except FileNotFoundError:
            pass
    return found


def wait_gone(pids, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        alive = []
        for p in pids:
            try:
                with open(f"/proc/{p}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        alive.append(p)
            except (FileNotFoundError, IndexError):
                pass
        if not alive:
            return
        time.sleep(0.05)
    pytest.fail(f"processes {alive} still run")


def test_a_killed_owner_leaves_no_stale_lock(zl, tmp_path):
    out = tmp_path / "campaign"
    first = start(zl, out, sleep=30)
    wait_for(out / "slow" / "run.log", "SLOW_STARTED")
    # The owner and everything it started die at once (SIGKILL, no clean-up): the kernel drops the lock.
    tree = descendants(first.pid)
    for p in [first.pid, *tree]:
        os.kill(p, signal.SIGKILL)
    first.communicate(timeout=30)
    wait_gone(tree)
    zl.env["CAMPAIGN_SLEEP"] = "0"
    proc = batch(zl, out, "--resume", ops="slow", flaggems=SLOW, check_rc=1)
    assert "in use" not in proc.stderr and "still run" not in proc.stderr


# --- issue 11.3: an owner that left live processes behind ----------------------------------------

def children(pid):
    """The children of every thread of pid (zl batch starts each op from a worker thread)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            pass
    return found


def lock_groups(out):
    text = (out / ".zl-lock").read_text() if (out / ".zl-lock").exists() else ""
    line = next((line for line in text.splitlines() if line.startswith("running=")), "running=")
    return [int(g) for g in line[len("running="):].split()]


def process_facts(pid):
    """What the next owner reads of a process: its state, group and working folder."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return f"state {fields[0]} ppid {fields[1]} pgrp {fields[2]} cwd {os.readlink(f'/proc/{pid}/cwd')}"
    except OSError as e:
        return f"unreadable ({e})"


def test_resume_refuses_while_processes_of_a_dead_owner_still_run(zl, tmp_path):
    out = tmp_path / "campaign"
    first = start(zl, out, ops="orphan", sleep=60)
    text = wait_for(out / "orphan" / "run.log", "ORPHAN_STARTED")
    child, pgid = map(int, re.search(r"ORPHAN_STARTED pid=\d+ child=(\d+) pgid=(\d+)", text).groups())
    # Until the orphan ignores TERM, INT and HUP (its Python is still starting), a stop signal that
    # zl run sends on its way down would end it, and there would be nothing left to detect.
    wanted = (1 << (signal.SIGHUP - 1)) | (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(f"/proc/{child}/status") as f:
            ignored = int(next(line for line in f if line.startswith("SigIgn:")).split()[1], 16)
        if ignored & wanted == wanted:
            break
        time.sleep(0.05)
    # The owner notes the benchmark's process group in its lock within a second (read as a list:
    # the pgid's digits may also appear in the owner's pid or the start time).
    deadline = time.time() + 10
    while pgid not in lock_groups(out) and time.time() < deadline:
        time.sleep(0.05)
    assert pgid in lock_groups(out), (out / ".zl-lock").read_text()
    try:
        # The owner and its child (the warm worker, or `zl run`) die hard (as under the OOM killer);
        # the benchmark's group lives on. Both are stopped first, so that none of their threads runs
        # on while they die. The child is killed before its parent: killed after it, it would get its
        # death signal (and, stopped, the kernel's SIGHUP and SIGCONT for an orphaned group) and end
        # the benchmark's group in order. The owner is stopped too: running, it would see its worker
        # die and SIGKILL the worker's group, the leftover with it (core/exec/worker.cpp, run_op),
        # before its own SIGKILL landed (seen once in CI).
        run_child = children(first.pid)
        assert run_child, "zl batch has no child"
        os.kill(first.pid, signal.SIGSTOP)
        for c in run_child:
            os.kill(c, signal.SIGSTOP)
        for c in run_child:
            os.kill(c, signal.SIGKILL)
        os.kill(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
        wait_gone(run_child)
        assert process_facts(child).startswith(("state S", "state R")), process_facts(child)  # it lives on
        left = f"lock: {(out / '.zl-lock').read_text()!r}; leftover: {process_facts(child)}"
        assert pgid in lock_groups(out), left
        proc = batch(zl, out, "--resume", ops="orphan", flaggems=SLOW)
        assert proc.returncode == 2, f"{left}\nrc={proc.returncode}\n{proc.stderr}"
        assert f"pid {first.pid}" in proc.stderr and socket.gethostname() in proc.stderr, proc.stderr
        assert "still run" in proc.stderr and str(pgid) in proc.stderr
        assert re.search(rf"kill -- [-0-9 ]*-{pgid}\b", proc.stderr), proc.stderr
        # --force does not override live processes: they still write into the campaign.
        batch(zl, out, "--resume", "--force", ops="orphan", flaggems=SLOW, check_rc=2)
    finally:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
            time.sleep(0.05)
        except ProcessLookupError:
            break
    zl.env.update(CAMPAIGN_SLEEP="0", ORPHAN_SLEEP="0")
    batch(zl, out, "--resume", ops="orphan", flaggems=SLOW, check_rc=1)
    assert statuses(out)["orphan"]["status"] == "no_rows"


# --- issue 11.15: option values that cannot mean anything ----------------------------------------

@pytest.mark.parametrize("value", ["0", "-1", "1e-300", "0.5", "nan", "inf", "-inf", "1e999"])
def test_timeout_per_op_outside_its_range_is_refused(zl, tmp_path, value):
    out = tmp_path / "campaign"
    proc = batch(zl, out, f"--timeout-per-op={value}", check_rc=2)
    assert "--timeout-per-op" in proc.stderr and "at least 1" in proc.stderr, proc.stderr
    assert not out.exists()


def test_a_timeout_per_op_of_one_second_is_taken(zl, tmp_path):
    batch(zl, tmp_path / "campaign", "--timeout-per-op", "1", ops="slow", flaggems=SLOW, check_rc=1)
    assert statuses(tmp_path / "campaign")["slow"]["status"] == "timeout"


@pytest.mark.parametrize("name", ["with\nnewline", "with\rreturn", "tab\there", "esc\x1bape"])
def test_out_with_a_control_character_is_refused(zl, tmp_path, name):
    proc = batch(zl, tmp_path / name, check_rc=2)
    assert "--out" in proc.stderr and "control character" in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_campaign_of_instant_ops_shows_no_meaningless_ratio(zl, tmp_path):
    proc = batch(zl, tmp_path / "campaign", ops="nosuchop", check_rc=1)
    line = next(l for l in proc.stderr.splitlines() if "makespan" in l)
    assert not re.search(r"\d+\.\d+x", line), line
    assert "too short" in line, line


# --- issue 10.6: one caliber per campaign --------------------------------------------------------

@pytest.mark.parametrize("changed, said", [
    (("--level", "comprehensive"), "--level"),
    (("--mode", "operator"), "--mode"),
    (("--timer", "direct"), "--timer"),
    (("--dtypes", "float32"), "--dtypes"),
    (("--shape-file", "OTHER"), "--shape-file"),
])
def test_resume_with_another_caliber_is_refused(zl, tmp_path, changed, said):
    out = tmp_path / "campaign"
    shapes = tmp_path / "shapes.yaml"
    shapes.write_text((CORPUS / "benchmark" / "core_shapes.yaml").read_text())
    other = tmp_path / "other.yaml"
    other.write_text(shapes.read_text())
    batch(zl, out, "--shape-file", str(shapes), ops="abs", check_rc=0)
    record = json.loads((out / "campaign.json").read_text())
    assert record["caliber"]["level"] == "core" and record["caliber"]["backend"] == "cpu"
    before = (out / "ops_status.csv").read_text()
    args = ["--shape-file", str(shapes)]
    if changed[0] == "--shape-file":
        args = ["--shape-file", str(other)]
    else:
        args += list(changed)
    proc = batch(zl, out, "--resume", *args, ops="abs,add", check_rc=2)
    assert said in proc.stderr and "caliber" in proc.stderr, proc.stderr
    assert (out / "ops_status.csv").read_text() == before
    # The same options resume.
    batch(zl, out, "--resume", "--shape-file", str(shapes), ops="abs,add", check_rc=0)
    assert list(statuses(out)) == ["abs", "add"]


def test_a_changed_shape_file_content_is_another_caliber(zl, tmp_path):
    out = tmp_path / "campaign"
    shapes = tmp_path / "shapes.yaml"
    shapes.write_text((CORPUS / "benchmark" / "core_shapes.yaml").read_text())
    batch(zl, out, "--shape-file", str(shapes), ops="abs", check_rc=0)
    shapes.write_text(shapes.read_text() + "\n# edited\n")
    proc = batch(zl, out, "--resume", "--shape-file", str(shapes), ops="abs,add", check_rc=2)
    assert "--shape-file" in proc.stderr and "content" in proc.stderr, proc.stderr


def test_an_environment_level_is_part_of_the_caliber(zl, tmp_path):
    out = tmp_path / "campaign"
    batch(zl, out, ops="abs", check_rc=0)
    proc = zl.run("batch", "--flaggems", str(CORPUS), "--ops", "abs,add", "--python", PYTHON, "--out", str(out),
                  "--resume", env={"BENCH_LEVEL": "comprehensive"}, check_rc=2)
    assert "--level" in proc.stderr and "comprehensive" in proc.stderr


def test_a_campaign_without_a_record_is_checked_against_its_runs_or_needs_force(zl, tmp_path):
    out = tmp_path / "campaign"
    batch(zl, out, ops="abs", check_rc=0)
    (out / "campaign.json").unlink()  # as a campaign made by an earlier zl
    proc = batch(zl, out, "--resume", "--level", "comprehensive", "--force", ops="abs,add", check_rc=2)
    assert "--level" in proc.stderr and "comprehensive" in proc.stderr, proc.stderr
    proc = batch(zl, out, "--resume", ops="abs,add", check_rc=2)
    assert "campaign.json" in proc.stderr and "--force" in proc.stderr, proc.stderr
    batch(zl, out, "--resume", "--force", ops="abs,add", check_rc=0)
    assert json.loads((out / "campaign.json").read_text())["caliber"]["level"] == "core"


# --- issue 10.14: --out must be a campaign's own folder ------------------------------------------

def test_out_that_is_a_run_folder_is_refused(zl, tmp_path):
    run = tmp_path / "run"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(run), check_rc=0)
    before = sorted(p.name for p in run.iterdir())
    proc = batch(zl, run, check_rc=2)
    assert "run folder" in proc.stderr, proc.stderr
    proc = batch(zl, run, "--resume", check_rc=2)
    assert "run folder" in proc.stderr, proc.stderr
    assert sorted(p.name for p in run.iterdir()) == before


def test_out_inside_another_campaign_or_run_is_refused(zl, tmp_path):
    camp = tmp_path / "campaign"
    batch(zl, camp, check_rc=0)
    for inner in (camp / "nested", camp / "abs" / "deeper"):
        proc = batch(zl, inner, check_rc=2)
        assert "inside" in proc.stderr and str(camp) in proc.stderr, proc.stderr
        assert not inner.exists()


def test_out_with_foreign_files_is_refused(zl, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    proc = batch(zl, out, check_rc=2)
    assert "not a zl campaign" in proc.stderr, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    batch(zl, tmp_path / "empty-is-fine", check_rc=0)


# --- beyond the list: hostile input --------------------------------------------------------------

def test_out_that_is_a_file_a_loop_or_unwritable_is_refused_cleanly(zl, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    proc = batch(zl, a_file, check_rc=2)
    assert "not a folder" in proc.stderr, proc.stderr
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    proc = batch(zl, loop / "c", check_rc=2)
    assert str(loop) in proc.stderr, proc.stderr
    # A read-only place (chmod does not stop root, /proc does).
    proc = batch(zl, "/proc/zl-campaign", check_rc=2)
    assert "/proc/zl-campaign" in proc.stderr, proc.stderr

def test_ops_file_that_is_a_fifo_or_a_folder_is_refused_without_waiting(zl, tmp_path):
    fifo = tmp_path / "ops.fifo"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        proc = zl.run("batch", "--flaggems", str(CORPUS), "--ops-file", str(path), "--python", PYTHON,
                      "--out", str(tmp_path / "c"), check_rc=2)
        assert "not a regular file" in proc.stderr, proc.stderr


def test_campaign_files_that_are_not_regular_files_are_refused_without_waiting(zl, tmp_path):
    for name in ("ops_status.csv", "campaign.json"):
        out = tmp_path / name.replace(".", "-")
        batch(zl, out, check_rc=0)
        (out / name).unlink()
        os.mkfifo(out / name)
        proc = batch(zl, out, "--resume", check_rc=2)  # zl.run's own timeout catches a hang
        assert f"{out / name} is not a regular file" in proc.stderr, proc.stderr


def test_an_empty_out_is_refused_and_a_trailing_slash_is_the_same_folder(zl, tmp_path):
    proc = batch(zl, "", check_rc=2)
    assert "--out is empty" in proc.stderr
    out = tmp_path / "campaign"
    batch(zl, out, check_rc=0)
    proc = batch(zl, f"{out}/", check_rc=2)
    assert f"{out} already holds a campaign" in proc.stderr, proc.stderr
    batch(zl, f"{out}/", "--resume", check_rc=0)
    assert statuses(out)["abs"]["run_dir"] == str(out / "abs")


# --- the same rules for zl ab's folder ------------------------------------------------------------

def test_ab_refuses_a_folder_another_process_owns_and_a_run_folder(zl, tmp_path):
    import fcntl
    out = tmp_path / "ab"
    out.mkdir()
    with open(out / ".zl-lock", "w") as held:
        held.write(f"pid={os.getpid()}\nhost={socket.gethostname()}\nstarted=now\nrunning=\n")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--axis", "ZL_TEST_NO_SUCH_SWITCH", "--values",
                      "off,on", "--rounds", "1", "--force", "--python", PYTHON, "--out", str(out), check_rc=2)
    assert f"in use by zl pid {os.getpid()} on host {socket.gethostname()}" in proc.stderr, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [".zl-lock"]
    run = tmp_path / "run"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(run), check_rc=0)
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--axis", "ZL_TEST_NO_SUCH_SWITCH", "--values",
                  "off,on", "--rounds", "1", "--force", "--python", PYTHON, "--out", str(run), check_rc=2)
    assert "run folder" in proc.stderr, proc.stderr


def test_sweep_refuses_an_out_inside_a_campaign_or_with_a_control_character(zl, tmp_path):
    shapes = SOURCE_DIR / "tests" / "fixtures" / "shapes_flaggems"
    camp = tmp_path / "campaign"
    batch(zl, camp, check_rc=0)
    for out, said in ((camp / "sweep", "inside the campaign"), (tmp_path / "a\nb", "control character")):
        proc = zl.run("sweep", "--flaggems", str(shapes), "--op", "mm", "--python", PYTHON, "--out", str(out),
                      check_rc=2)
        assert said in proc.stderr, proc.stderr
        assert not out.exists()


def test_a_tampered_ops_status_cannot_move_folders_outside_the_campaign(zl, tmp_path):
    out = tmp_path / "campaign"
    batch(zl, out, check_rc=0)
    victim = tmp_path / "victim"
    victim.mkdir()
    csv_path = out / "ops_status.csv"
    text = csv_path.read_text().replace("\nabs,ok,", "\n../victim,failed,")
    csv_path.write_text(text)
    proc = batch(zl, out, "--resume", check_rc=2)
    assert "'../victim' is not an op name" in proc.stderr, proc.stderr
    assert victim.is_dir() and not (tmp_path / "victim.attempt-1").exists()


def test_a_campaign_stopped_before_its_first_op_starts_afresh(zl, tmp_path):
    out = tmp_path / "campaign"
    out.mkdir()
    (out / "campaign.json").write_text('{"schema": 1, "caliber": {"level": "comprehensive"}}\n')
    proc = batch(zl, out, "--resume", check_rc=2)
    assert "has no ops_status.csv; start the campaign without --resume" in proc.stderr
    batch(zl, out, check_rc=0)
    assert json.loads((out / "campaign.json").read_text())["caliber"]["level"] == "core"


def test_a_campaign_that_cannot_record_stops_cleanly_instead_of_aborting(zl, tmp_path):
    out = tmp_path / "campaign"
    proc = start(zl, out, ops="slow,other", sleep=2)
    try:
        wait_for(out / "slow" / "run.log", "SLOW_STARTED")
        (out / "ops_status.csv").unlink()
        (out / "ops_status.csv").mkdir()  # the next rewrite's rename fails
        _, err = proc.communicate(timeout=60)
    finally:
        stop(proc)
    assert proc.returncode == 2, err
    assert f"the campaign {out} stopped" in err and "--resume" in err, err
    assert not (out / "other").exists()  # nothing new started


def test_a_bad_db_is_refused_before_the_campaign_folder_is_made(zl, tmp_path):
    (tmp_path / "a-folder").mkdir()
    out = tmp_path / "campaign"
    proc = batch(zl, out, "--db", str(tmp_path / "a-folder"), check_rc=2)
    assert "results store" in proc.stderr, proc.stderr
    assert not out.exists()


def test_the_same_folder_spelled_another_way_is_the_same_caliber(zl, tmp_path):
    out = tmp_path / "campaign"
    batch(zl, out, ops="abs", check_rc=0)
    proc = zl.run("batch", "--flaggems", f"{CORPUS}/", "--ops", "abs,add", "--python", PYTHON, "--out", str(out),
                  "--resume", check_rc=0)
    assert list(statuses(out)) == ["abs", "add"], proc.stderr
