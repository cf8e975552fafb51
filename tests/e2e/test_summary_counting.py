"""zl summary counts each run once and never passes off unknown or unfinished results as good (issue 10)."""
import json
import os
import random
import shutil
import subprocess

import pytest

from conftest import SOURCE_DIR, ZL_BIN

FIXTURES = SOURCE_DIR / "tests" / "fixtures" / "flaggems_output"
PROBE = SOURCE_DIR / "tests" / "fixtures" / "flaggems_probe"
PYTHON = "/usr/bin/python3"


def table(op, dtype, rows, level="core"):
    """One table as FlagGems prints it; rows are (shape, torch_ms, gems_ms)."""
    cols = [f"{'Status':<10}", f"{'Torch Latency (ms)':>20}", f"{'Gems Latency (ms)':>20}", f"{'Gems Speedup':>20}",
            f"{'Size Detail':>20}\n"]
    header = " ".join(cols)
    out = f"\nOperator: {op}  Performance Test (dtype={dtype}, mode=kernel,level={level})\n{header}{'-' * len(header)}\n"
    for shape, base, lat in rows:
        out += f"{'SUCCESS':<10}{base:>20.6f}{lat:>20.6f}{base / lat:>20.3f}{' ' * 10}{shape}\n"
    return out + "\n"


ABS = table("abs", "torch.float16", [("[torch.Size([64])]", 1.0, 0.5), ("[torch.Size([128])]", 1.0, 0.5)])


def write_run(path, log=ABS, identity=None):
    path.mkdir(parents=True)
    doc = {"schema": 1, "status": "ok", "duration_s": 3.0, "backend": {"name": "cuda"},
           "timer": {"effective": "graph", "requested": "auto"}, "level": "core", "mode": "kernel",
           "tuner_cache": {"mode": "shared"}, "node": {"op": "abs"}}
    doc.update(identity or {})
    (path / "run_identity.json").write_text(json.dumps(doc))
    (path / "run.log").write_text("ZL_RUN zl_version=0.1.0 backend=cuda timer=graph level=core\n" + log)
    return path


def summary_json(zl, *paths):
    return zl.json("summary", *map(str, paths), "--format", "json")


# --- 10: a bare log's unknown caliber is a difference -------------------------------------------

def test_a_bare_log_against_a_zl_run_names_the_unknown_fields(zl, tmp_path):
    run = write_run(tmp_path / "run")
    bare = tmp_path / "bare.log"
    bare.write_text(ABS)
    proc = zl.run("summary", "--ab", str(run), str(bare), check_rc=2)
    for field in ("backend: A=cuda B=unknown", "timer: A=graph B=unknown", "tuner_cache: A=shared B=unknown"):
        assert field in proc.stderr
    assert "level:" not in proc.stderr and "mode:" not in proc.stderr  # the table titles say these
    assert "never checked" in proc.stderr and "--force" in proc.stderr
    assert proc.stdout == ""
    proc = zl.run("summary", "--ab", str(bare), str(run), "--force", check_rc=0)
    assert "CALIBER DIFFERS, compared anyway (--force):\n  backend: A=unknown B=cuda\n" in proc.stdout


# --- 11: each run once, symlinks never followed -------------------------------------------------

def campaign_of_two(root):
    write_run(root / "round-1" / "abs")
    write_run(root / "round-2" / "abs")
    return root


def test_a_run_reached_twice_counts_once(zl, tmp_path):
    c = campaign_of_two(tmp_path / "c")
    for paths in ([c], [c, c], [c, c / "round-1" / "abs"], [c / "round-1" / "abs", c],
                  [c / "round-1" / "abs", c / "round-1", c]):
        data = summary_json(zl, *paths)
        assert (data["runs"], data["total"]["rows"]) == (2, 4), paths
    proc = zl.run("summary", str(c), str(c / "round-1" / "abs"), check_rc=0)
    assert "already counted" in proc.stderr


def test_symlinks_inside_a_campaign_are_not_followed(zl, tmp_path):
    c = campaign_of_two(tmp_path / "c")
    outside = write_run(tmp_path / "outside")
    os.symlink(c / "round-1" / "abs", c / "round-1" / "again")  # to a run inside
    os.symlink(c / "round-1", c / "round-3")                      # to a parent folder inside
    os.symlink("..", c / "round-2" / "up")                        # a loop
    os.symlink(outside, c / "elsewhere")                          # out of the tree
    proc = zl.run("summary", str(c), "--format", "json", check_rc=0)
    data = json.loads(proc.stdout)
    assert (data["runs"], data["total"]["rows"]) == (2, 4)
    for link in ("round-1/again", "round-3", "round-2/up", "elsewhere"):
        assert f"{c / link}: a symbolic link, not followed" in proc.stderr
    # A link named on the command line is the user's choice: followed, and still counted once.
    os.symlink(c, tmp_path / "c-link")
    assert summary_json(zl, c, tmp_path / "c-link")["runs"] == 2


def test_ab_of_the_same_runs_on_both_sides_is_refused(zl, tmp_path):
    c = campaign_of_two(tmp_path / "c")
    proc = zl.run("summary", "--ab", str(c), str(c), check_rc=2)
    assert "on both sides" in proc.stderr and str(c / "round-1" / "abs") in proc.stderr
    os.symlink(c / "round-2", tmp_path / "r2")
    proc = zl.run("summary", "--ab", str(c / "round-1"), str(tmp_path / "r2" / "abs"), check_rc=0)
    proc = zl.run("summary", "--ab", str(c), str(tmp_path / "r2"), check_rc=2)
    assert str(c / "round-2" / "abs") in proc.stderr


# --- 12 and 18: zl batch campaigns: attempts and unfinished ops ----------------------------------

PARTIAL_TEST = '''
import os
import time

import pytest

TABLE = {table!r}


@pytest.mark.partial
def test_partial():
    print(TABLE, flush=True)
    time.sleep(float(os.environ.get("PROBE_SLEEP", "0")))
'''


def partial_corpus(tmp_path):
    """The probe corpus plus an op that prints its table, then sleeps PROBE_SLEEP seconds."""
    corpus = tmp_path / "corpus"
    shutil.copytree(PROBE, corpus)
    rows = [("[torch.Size([8])]", 1.0, 0.5), ("[torch.Size([16])]", 1.0, 0.5)]
    (corpus / "benchmark" / "test_partial.py").write_text(
        PARTIAL_TEST.format(table=table("partial_scalar", "torch.float16", rows)))  # as test_pow prints pow_scalar
    return corpus


def batch(zl, corpus, out, sleep, *extra):
    # The timeout must fall after pytest started and printed the table: 3 s was too short for that
    # on two cores busy with the other tests (ctest -j), and a run with no sleep must end within it.
    return zl.run("batch", "--flaggems", str(corpus), "--ops", "partial", "--timeout-per-op", "10", "--python",
                  PYTHON, "--out", str(out), *extra, env={"PROBE_SLEEP": str(sleep)})


@pytest.fixture
def timed_out(zl, tmp_path):
    corpus = partial_corpus(tmp_path)
    out = tmp_path / "campaign"
    assert batch(zl, corpus, out, 60).returncode == 1
    assert "partial,timeout," in (out / "ops_status.csv").read_text()
    return corpus, out


def test_an_op_that_timed_out_is_not_shown_as_finished(zl, tmp_path, timed_out):
    corpus, out = timed_out
    proc = zl.run("summary", str(out), check_rc=0)
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("OP "))
    assert lines[header].split()[-1] == "STATUS"
    # The op's own failure (no dtype: not a row), then its partial rows, both with its status.
    assert lines[header + 1].split() == ["partial", "-", "0", "-", "-", "-", "1", "0", "timeout"]
    assert lines[header + 2].split() == ["partial_scalar", "torch.float16", "2", "2.000", "2.000", "2.000", "0", "0",
                                         "timeout"]
    assert lines[header + 3].split()[0] == "total" and lines[header + 3].split()[5] == "1"  # FAILED
    assert "did not finish ok: partial timeout" in proc.stdout
    data = summary_json(zl, out)
    assert data["version"] == 2 and data["total"]["failed"] == 1
    assert [(g["dtype"], g["status"]) for g in data["groups"]] == [("", "timeout"), ("torch.float16", "timeout")]
    assert data["ops"] == [{"campaign": str(out), "op": "partial", "status": "timeout"}]
    csv = zl.run("summary", str(out), "--format", "csv", check_rc=0).stdout.splitlines()
    assert csv[0].endswith(",status") and csv[1].endswith(",timeout") and csv[2].endswith(",timeout")
    # Named directly, the run folder still carries its campaign's status.
    groups = summary_json(zl, out / "partial")["groups"]
    assert [(g["op"], g["status"]) for g in groups] == [("partial", "timeout"), ("partial_scalar", "timeout")]

    finished = tmp_path / "finished"
    assert batch(zl, corpus, finished, 0).returncode == 0
    proc = zl.run("summary", "--ab", str(finished), str(out), check_rc=0)
    assert "did not finish ok: B: partial (timeout)" in proc.stdout
    data = zl.json("summary", "--ab", str(finished), str(out), "--format", "json")
    assert data["version"] == 2 and data["unfinished"] == [{"side": "B", "op": "partial", "status": "timeout"}]


def test_earlier_attempts_are_listed_not_counted(zl, tmp_path, timed_out):
    corpus, out = timed_out
    assert batch(zl, corpus, out, 0, "--resume").returncode == 0
    assert (out / "partial.attempt-1" / "run.log").exists()
    proc = zl.run("summary", str(out), check_rc=0)
    assert "1 run, 2 rows" in proc.stdout
    assert f"earlier attempts, not counted: {out / 'partial.attempt-1'}" in proc.stdout
    data = summary_json(zl, out)
    assert data["runs"] == 1 and data["attempts"] == [str(out / "partial.attempt-1")]
    assert data["groups"][0]["status"] == "ok" and data["total"]["failed"] == 0
    other = tmp_path / "other"
    assert batch(zl, corpus, other, 0).returncode == 0
    data = zl.json("summary", "--ab", str(out), str(other), "--format", "json")
    assert (data["runs_a"], data["rounds_a"]) == (1, 1)
    # Named on its own, an earlier attempt is what the user asked for.
    assert summary_json(zl, out / "partial.attempt-1")["runs"] == 1


# --- 13: pipes --------------------------------------------------------------------------------------

def test_a_log_read_from_a_pipe(zl, tmp_path):
    log = FIXTURES / "tflops.log"
    expected = summary_json(zl, log)["total"]["rows"]
    assert expected > 0
    proc = subprocess.run([ZL_BIN, "summary", "/dev/stdin", "--format", "json"], input=log.read_text(),
                          env=zl.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["total"]["rows"] == expected
    proc = subprocess.run(["/bin/bash", "-c", '"$0" summary <(cat "$1") --format json', ZL_BIN, str(log)],
                          env=zl.env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["total"]["rows"] == expected
    record = FIXTURES / "record.log"
    proc = subprocess.run([ZL_BIN, "summary", "/dev/stdin", "--format", "json"], input=record.read_text(),
                          env=zl.env, capture_output=True, text=True, timeout=60)
    assert json.loads(proc.stdout)["total"]["rows"] == summary_json(zl, record)["total"]["rows"]


# --- 15: any depth ------------------------------------------------------------------------------

def test_run_folders_at_any_depth(zl, tmp_path):
    deep = tmp_path / "c" / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h" / "i"
    write_run(deep / "abs")
    write_run(tmp_path / "c" / "shallow")
    assert summary_json(zl, tmp_path / "c")["runs"] == 2


# --- 16: nothing recognisable ------------------------------------------------------------------

def test_nothing_recognisable_is_an_error(zl, tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(16).randbytes(1 << 20))
    for path in (empty, noise):
        proc = zl.run("summary", str(path), check_rc=2)
        assert f"no FlagGems table or record log found in {path}" in proc.stderr
    proc = zl.run("summary", "--ab", str(FIXTURES / "tflops.log"), str(empty), "--force", check_rc=2)
    assert f"no FlagGems table or record log found in {empty}" in proc.stderr


# --- 17: record_log stays inside the run folder ---------------------------------------------------

def test_results_are_read_only_from_inside_the_run_folder(zl, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(FIXTURES / "record.log", other / "record.log")
    run = write_run(tmp_path / "runs" / "a", identity={"record_log": "../../other/record.log"})
    proc = zl.run("summary", str(run), "--format", "json", check_rc=0)
    assert json.loads(proc.stdout)["total"]["rows"] == 2
    assert "record_log ../../other/record.log resolves outside the run folder" in proc.stderr
    absolute = write_run(tmp_path / "runs" / "b", identity={"record_log": str(other / "record.log")})
    assert summary_json(zl, absolute)["total"]["rows"] == 2
    linked = write_run(tmp_path / "runs" / "c")
    os.symlink(other / "record.log", linked / "record.log")
    proc = zl.run("summary", str(linked), "--format", "json", check_rc=0)
    assert json.loads(proc.stdout)["total"]["rows"] == 2
    assert f"{linked / 'record.log'}: resolves outside the run folder" in proc.stderr


def test_records_another_run_wrote_into_a_record_log_are_named_not_counted(zl, tmp_path):
    """What a warm worker whose logging kept an earlier op's record log open left (issue 28.3):
    add's records in abs's record log."""
    out = tmp_path / "campaign"
    zl.run("batch", "--flaggems", str(SOURCE_DIR / "corpus"), "--ops", "abs,add", "--python", PYTHON,
           "--out", str(out), "--executor", "process", check_rc=0)
    clean = json.loads(zl.run("summary", "--format", "json", str(out), check_rc=0).stdout)
    with open(out / "abs" / "record.log", "a") as f:
        f.writelines(line for line in (out / "add" / "record.log").read_text().splitlines(keepends=True)
                     if line.startswith("[INFO] {"))
    proc = zl.run("summary", "--format", "json", str(out), check_rc=0)
    assert json.loads(proc.stdout)["total"] == clean["total"]  # nothing counted twice
    assert f"{out / 'abs' / 'record.log'}:" in proc.stderr and "record log entry add " in proc.stderr
    assert "of other runs (foreign) found and not counted" in proc.stderr
    db = tmp_path / "store.sqlite"
    ingest = zl.run("summary", "--db", str(db), str(out), check_rc=0)
    assert "record log entry add " in ingest.stderr
    page = zl.run("report", str(out), "-o", str(tmp_path / "page.html"), check_rc=0)
    assert "foreign" in page.stderr and "foreign record" in (tmp_path / "page.html").read_text()
