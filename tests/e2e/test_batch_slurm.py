"""zl batch --executor slurm against the real one-node Slurm of scripts/slurm/start-local.sh (two
stand-in GPUs as gres) with the fake nvidia-smi on PATH, so the cuda backend sees two GPUs and
Slurm hands each task one of them by index. Skipped when no Slurm answers, unless
ZL_REQUIRE_SLURM=1 (CI: .ci/run starts one), then they fail."""
import csv
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import SOURCE_DIR, ZL_BIN, corpus_with

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
OPS = "abs,add,mm,sum"  # fft has no rows without torch
GPUS = ["GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c", "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c"]

HOLD = """import os
import time

import pytest


@pytest.mark.slow
def test_slow():
    # Runs while the hold file exists (at most two minutes), so a test can cancel it mid-run. Not
    # ZL_*: zl keeps its own variables from the processes it starts (core/run/plan.cpp).
    for _ in range(240):
        if not os.path.exists(os.environ["TEST_HOLD_FILE"]):
            break
        time.sleep(0.5)
"""


def slurm_up():
    if not shutil.which("sbatch") or not shutil.which("sinfo"):
        return False
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and any(s.strip().rstrip("*") in ("idle", "mixed", "allocated")
                                       for s in out.stdout.split())


if not slurm_up():
    if os.environ.get("ZL_REQUIRE_SLURM") == "1":
        pytest.fail("ZL_REQUIRE_SLURM=1 but no Slurm answers (sinfo): start it with scripts/slurm/start-local.sh",
                    pytrace=False)
    pytestmark = pytest.mark.skip(reason="no Slurm reachable (scripts/slurm/start-local.sh starts one)")


def statuses(out):
    with open(out / "ops_status.csv", newline="") as f:
        return {row["op"]: row for row in csv.DictReader(f)}


def identity(out, op):
    return json.loads((out / op / "run_identity.json").read_text())


def batch(zl, corpus, out, ops, *extra, rc=None, env=None, timeout=400):
    proc = subprocess.run([ZL_BIN, "--backend", "cuda", "batch", "--flaggems", str(corpus), "--ops", ops, "--python",
                           PYTHON, "--timer", "direct", "--out", str(out), *extra],
                          env=dict(zl.env, **(env or {})), capture_output=True, text=True, timeout=timeout)
    if rc is not None:
        assert proc.returncode == rc, f"rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


def jobs(out):
    return dict(line.split("=", 1) for line in (out / "slurm" / "jobs").read_text().split())


def wait_for(path, seconds=300):
    deadline = time.time() + seconds
    while not path.exists():
        assert time.time() < deadline, f"{path} did not appear"
        time.sleep(0.5)


def hold_corpus(tmp_path):
    """The sample corpus plus the op `slow`, which runs while the returned hold file exists."""
    corpus = corpus_with(tmp_path / "corpus", {"test_slow.py": HOLD}, {"slow": "[8]"})
    hold = tmp_path / "hold"
    hold.write_text("")
    return corpus, hold


def fake_tool(zl, name, script):
    """A shell script named name in front of Slurm's on the PATH zl runs with."""
    fake = zl.tmp_path / "smi-bin" / name
    fake.write_text("#!/bin/sh\n" + script)
    fake.chmod(0o755)


@pytest.fixture
def szl(zl):
    zl.with_smi("nvidia-smi")
    return zl


def test_slurm_campaign_equals_a_local_one_each_task_on_its_gpu(szl, tmp_path):
    batch(szl, CORPUS, tmp_path / "local", OPS, "--executor", "warm", rc=0)
    out = tmp_path / "cluster"
    proc = batch(szl, CORPUS, out, OPS, "--executor", "slurm", "--ops-per-task", "2", rc=0)
    assert "submitted 4 ops as job array" in proc.stderr
    local, cluster = statuses(tmp_path / "local"), statuses(out)
    assert {op: (r["status"], r["rows"]) for op, r in cluster.items()} == \
           {op: (r["status"], r["rows"]) for op, r in local.items()}
    assert all(r["status"] == "ok" for r in cluster.values())
    array = jobs(out)["array"]
    for op in OPS.split(","):
        ident = identity(out, op)
        slurm = ident["slurm"]
        assert slurm["array_job_id"] == array
        assert slurm["node"]
        # The GPU the task ran on is the one Slurm allocated to it.
        assert ident["device"]["uuid"] == GPUS[int(slurm["job_gpus"])]
        assert cluster[op]["device_uuid"] == GPUS[int(slurm["job_gpus"])]
    assert (out / "results.sqlite").exists()
    assert (out / "slurm" / "array.sbatch").read_text().count("#SBATCH --array=0-1\n") == 1
    assert "COMPLETED" in (out / "slurm" / "tasks.csv").read_text()
    # Each task's last record, which the follower waits for before it asks Slurm again.
    assert [(out / "slurm" / f"task-{t}.exit").read_text() for t in (0, 1)] == ["exit=0\n"] * 2


def test_max_concurrent_one_runs_one_task_at_a_time(szl, tmp_path):
    out = tmp_path / "c"
    batch(szl, CORPUS, out, "abs,add,sum", "--executor", "slurm", "--max-concurrent", "1", "--ops-per-task", "1",
          rc=0)
    assert "#SBATCH --array=0-2%1\n" in (out / "slurm" / "array.sbatch").read_text()
    spans = sorted((identity(out, op)["started_at"], identity(out, op)["finished_at"]) for op in ("abs", "add", "sum"))
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert end <= start, spans


def test_scancel_mid_run_then_resume(szl, tmp_path):
    corpus, hold = hold_corpus(tmp_path)
    out = tmp_path / "c"
    env = {"TEST_HOLD_FILE": str(hold)}
    batch(szl, corpus, out, "slow,abs", "--executor", "slurm", "--ops-per-task", "1", "--no-wait", rc=0, env=env)
    array = jobs(out)["array"]
    wait_for(out / "slow" / "run_identity.json")
    slow_task = next(t for t in (0, 1) if "slow" in (out / "slurm" / f"task-{t}.ops").read_text())
    subprocess.run(["scancel", f"{array}_{slow_task}"], check=True)
    wait_for(out / "slurm" / "final.done")
    rows = statuses(out)
    assert rows["slow"]["status"] == "interrupted"
    assert rows["abs"]["status"] == "ok"
    assert "CANCELLED" in (out / "slurm" / "tasks.csv").read_text()
    hold.unlink()
    proc = batch(szl, corpus, out, "slow,abs", "--executor", "slurm", "--resume", env=env)
    assert "submitted 1 ops" in proc.stderr, proc.stderr
    # The stand-in op prints no benchmark table: it ends as a local run of it would, not interrupted.
    assert statuses(out)["slow"]["status"] in ("ok", "failed", "no_rows")
    assert statuses(out)["abs"]["status"] == "ok"
    assert (out / "slow.attempt-1").is_dir()


def test_dry_run_writes_runnable_scripts_and_submits_nothing(szl, tmp_path):
    out = tmp_path / "it's a $HOME `id` dir"
    proc = batch(szl, CORPUS, out, "abs,sum", "--executor", "slurm", "--dry-run", rc=0)
    array, final = out / "slurm" / "array.sbatch", out / "slurm" / "final.sbatch"
    assert proc.stdout.split("\n")[:2] == [str(array), str(final)]
    assert "array=\n" in (out / "slurm" / "jobs").read_text()  # no job id: nothing submitted
    # Runnable by hand, hostile folder name and all.
    env = dict(szl.env)
    first = subprocess.run(["sbatch", "--parsable", str(array)], env=env, capture_output=True, text=True, check=True)
    subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{first.stdout.strip()}", str(final)], env=env,
                   check=True, capture_output=True)
    wait_for(out / "slurm" / "final.done")
    assert {op: r["status"] for op, r in statuses(out).items()} == {"abs": "ok", "sum": "ok"}


def test_no_sbatch_on_path_is_refused_before_anything_is_written(szl, tmp_path):
    out = tmp_path / "c"
    proc = batch(szl, CORPUS, out, "abs", "--executor", "slurm", rc=2,
                 env={"PATH": str(szl.tmp_path / "smi-bin")})
    assert "sbatch is not on PATH" in proc.stderr
    assert not out.exists()


def test_unknown_partition_is_refused_and_nothing_runs(szl, tmp_path):
    out = tmp_path / "c"
    proc = batch(szl, CORPUS, out, "abs", "--executor", "slurm", "--partition", "nosuchpart", rc=2)
    assert "refused the campaign" in proc.stderr and "partition" in proc.stderr.lower()
    assert "array=\n" in (out / "slurm" / "jobs").read_text()


# Slurm's words when an account is refused (UPPMAX's Slurm troubleshooting page quotes them); the
# one-node CI Slurm has no accounting database, so it cannot refuse an account itself.
REFUSED = "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified"


def test_an_account_refused_for_the_array_is_an_error_and_nothing_is_submitted(szl, tmp_path):
    fake_tool(szl, "sbatch", f'echo "{REFUSED}" >&2\nexit 1\n')
    out = tmp_path / "c"
    proc = batch(szl, CORPUS, out, "abs", "--executor", "slurm", "--account", "nosuchproject", rc=2)
    assert REFUSED in proc.stderr and "--account" in proc.stderr and "sacctmgr" in proc.stderr
    assert "nothing was submitted" in proc.stderr
    assert "array=\n" in (out / "slurm" / "jobs").read_text()


def test_a_refused_final_step_cancels_the_array_already_submitted(szl, tmp_path):
    # The array is accepted, the final step refused (an account/partition pair the cluster does
    # not allow for it): the array must not be left to run without anything to record it.
    fake_tool(szl, "sbatch", f'case "$*" in *final.sbatch) echo "{REFUSED}" >&2; exit 1 ;; esac\n'
                             'exec /usr/bin/sbatch "$@"\n')
    corpus, hold = hold_corpus(tmp_path)
    out = tmp_path / "c"
    try:
        proc = batch(szl, corpus, out, "slow", "--executor", "slurm", rc=2, env={"TEST_HOLD_FILE": str(hold)})
    finally:
        hold.unlink()
    assert REFUSED in proc.stderr
    array = proc.stderr.split("the array ")[1].split()[0]
    assert "is cancelled" in proc.stderr
    deadline = time.time() + 30
    while in_squeue(array):
        assert time.time() < deadline, in_squeue(array)
        time.sleep(0.5)


def test_a_folder_the_nodes_cannot_see_is_an_error_and_the_jobs_are_cancelled(szl, tmp_path):
    # An sbatch that submits an array whose task never writes into the campaign folder: what the
    # submit host sees when the nodes mount another filesystem at that path.
    fake_tool(szl, "sbatch", 'case "$*" in *array.sbatch) exec /usr/bin/sbatch --parsable --array=0-0 '
                             '--output=/dev/null --wrap "sleep 1" ;; esac\nexec /usr/bin/sbatch "$@"\n')
    out = tmp_path / "c"
    proc = batch(szl, CORPUS, out, "abs", "--executor", "slurm", rc=2)
    assert "cannot see or write the campaign folder" in proc.stderr, proc.stderr
    # The final step is cancelled, or (on a slow machine) had started and is ending: within
    # moments nothing of the campaign is pending or running.
    final = jobs(out)["final"]
    deadline = time.time() + 30
    while True:
        state = subprocess.run(["squeue", "-h", "-t", "all", "-j", final, "-o", "%T"], capture_output=True,
                               text=True).stdout.strip()
        if state not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
            break
        assert time.time() < deadline, f"the final step {final} is still {state}"
        time.sleep(0.5)


def in_squeue(*job_ids):
    out = subprocess.run(["squeue", "-h", "-j", ",".join(job_ids), "-o", "%i %T"], capture_output=True, text=True)
    return out.stdout.strip()


def assert_ending(*job_ids):
    """Jobs zl cancelled: nothing pending or running, and gone within moments. A job Slurm had
    just started when zl cancelled it (the final step, once the array ended) shows COMPLETING
    while it ends."""
    deadline = time.time() + 30
    while left := in_squeue(*job_ids):
        assert all(line.split()[-1] == "COMPLETING" for line in left.splitlines()), left
        assert time.time() < deadline, left
        time.sleep(0.2)


def test_ctrl_c_asks_once_then_a_second_cancels_the_array_and_exits_130(szl, tmp_path):
    corpus, hold = hold_corpus(tmp_path)
    out = tmp_path / "c"
    err = tmp_path / "stderr"
    with open(err, "w") as e:
        proc = subprocess.Popen([ZL_BIN, "--backend", "cuda", "batch", "--flaggems", str(corpus), "--ops", "slow",
                                 "--python", PYTHON, "--timer", "direct", "--out", str(out), "--executor", "slurm"],
                                env=dict(szl.env, TEST_HOLD_FILE=str(hold)), stdout=subprocess.DEVNULL, stderr=e)
    try:
        wait_for(out / "slow" / "run_identity.json", 120)
        proc.send_signal(signal.SIGINT)
        deadline = time.time() + 10
        while "Ctrl-C again within 10 s" not in err.read_text():
            assert time.time() < deadline, err.read_text()
            time.sleep(0.2)
        # The first Ctrl-C only asks: zl goes on following and the task goes on running.
        time.sleep(1.5)
        assert proc.poll() is None, err.read_text()
        assert "RUNNING" in in_squeue(jobs(out)["array"])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=90) == 130, err.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
        hold.unlink()
    text = err.read_text()
    assert "cancelling the array: scancel" in text
    ids = jobs(out)
    assert_ending(ids["array"], ids["final"])
    row = statuses(out)["slow"]
    assert row["status"] == "interrupted"
    assert row["slurm_state"] == "CANCELLED"


def test_a_task_past_its_time_limit_gives_timeout_with_the_slurm_state(szl, tmp_path):
    # Slurm's smallest limit is one minute and slurmctld sweeps for overrun jobs every ~30 s
    # (docs/slurm-local.md): the task gets SIGTERM 60-90 s after it started.
    corpus, hold = hold_corpus(tmp_path)
    out = tmp_path / "c"
    try:
        batch(szl, corpus, out, "slow", "--executor", "slurm", "--time-per-task", "1", rc=1,
              env={"TEST_HOLD_FILE": str(hold)}, timeout=200)
    finally:
        hold.unlink()
    row = statuses(out)["slow"]
    assert row["status"] == "timeout"
    assert row["slurm_state"] == "TIMEOUT"
    assert "TIMEOUT" in (out / "slurm" / "tasks.csv").read_text()


def test_an_array_over_max_array_size_is_refused_naming_ops_per_task_or_fitted(szl, tmp_path):
    # A cluster whose MaxArraySize is 3 (task ids 0-2): scontrol says so, the rest is Slurm's.
    fake_tool(szl, "scontrol", '[ "$*" = "show config" ] && { echo "MaxArraySize            = 3"; exit 0; }\n'
                               'exec /usr/bin/scontrol "$@"\n')
    out = tmp_path / "refused"
    proc = batch(szl, CORPUS, out, OPS, "--executor", "slurm", "--ops-per-task", "1", rc=2)
    assert "--ops-per-task 1 makes 4 array tasks of 4 ops, more than this cluster's MaxArraySize 3" in proc.stderr
    assert "give --ops-per-task 2 or more" in proc.stderr
    assert not (out / "slurm" / "array.sbatch").exists()  # nothing written for Slurm, nothing submitted
    # Left to zl, the ops per task are chosen so that the array fits.
    out = tmp_path / "fitted"
    proc = batch(szl, CORPUS, out, OPS, "--executor", "slurm", rc=0)
    assert "submitted 4 ops as job array" in proc.stderr and "(2 tasks)" in proc.stderr, proc.stderr
    assert "#SBATCH --array=0-1\n" in (out / "slurm" / "array.sbatch").read_text()
    assert all(r["status"] == "ok" for r in statuses(out).values())
