"""zl summary end to end: run folders made by zl run on the sample corpus, written run folders, fixtures."""
import json
import shutil
import sqlite3
import subprocess

import pytest

from conftest import SOURCE_DIR, ZL_BIN

CORPUS = SOURCE_DIR / "corpus"
FIXTURES = SOURCE_DIR / "tests" / "fixtures" / "flaggems_output"
PYTHON = "/usr/bin/python3"


def table(op, dtype, rows, level="core"):
    """One table as FlagGems prints it (no TFLOPS column); rows are (shape, torch_ms, gems_ms)."""
    cols = [f"{'Status':<10}", f"{'Torch Latency (ms)':>20}", f"{'Gems Latency (ms)':>20}", f"{'Gems Speedup':>20}",
            f"{'Size Detail':>20}\n"]
    header = " ".join(cols)
    out = f"\nOperator: {op}  Performance Test (dtype={dtype}, mode=kernel,level={level})\n{header}{'-' * len(header)}\n"
    for shape, base, lat in rows:
        out += f"{'SUCCESS':<10}{base:>20.6f}{lat:>20.6f}{base / lat:>20.3f}{' ' * 10}{shape}\n"
    return out + "\n"


def write_run(path, log, timer="graph", backend="cuda", level="core", tuner_cache="shared", op="abs"):
    path.mkdir(parents=True)
    (path / "run_identity.json").write_text(json.dumps({
        "schema": 1, "status": "ok", "duration_s": 3.0, "backend": {"name": backend},
        "timer": {"effective": timer, "requested": "auto"}, "level": level, "mode": "kernel",
        "tuner_cache": {"mode": tuner_cache}, "node": {"op": op}}))
    (path / "run.log").write_text(f"ZL_RUN zl_version=0.1.0 backend={backend} timer={timer} level={level}\n" + log)
    return path


def side(root, latencies, **kw):
    """A side of an A/B: one run folder per round, op abs at three shapes."""
    for i, lat in enumerate(latencies):
        rows = [(f"[torch.Size([{n}])]", 0.01, lat * n / 64) for n in (64, 128, 256)]
        write_run(root / f"round-{i + 1}" / "abs", table("abs", "torch.float16", rows), **kw)
    return root


def zl_run(zl, out):
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), check_rc=0)
    return out


def test_summary_of_zl_runs_on_the_corpus(zl, tmp_path):
    campaign = tmp_path / "campaign"
    zl_run(zl, campaign / "round-1" / "abs")
    zl_run(zl, campaign / "round-2" / "abs")
    proc = zl.run("summary", str(campaign), check_rc=0)
    assert proc.stderr == ""
    assert f"zl summary of {campaign}: 2 runs, 18 rows" in proc.stdout
    assert "caliber: backend=cpu level=core timer=direct mode=kernel tuner_cache=shared (2 runs)" in proc.stdout
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("OP "))
    assert lines[header].split() == ["OP", "DTYPE", "ROWS", "SPEEDUP", "MIN", "MAX", "FAILED", "FALLBACK",
                                     "SAMPLED", "NOISE", "WARNED", "CAPPED"]  # zl's runs keep samples
    assert [line.split()[:3] for line in lines[header + 1:header + 5]] == [
        ["abs", "torch.bfloat16", "6"], ["abs", "torch.float16", "6"], ["abs", "torch.float32", "6"],
        ["total", "18", lines[header + 4].split()[2]]]
    data = zl.json("summary", str(campaign), "--format", "json")
    assert data["total"]["rows"] == 18 and data["total"]["failed"] == 0
    assert data["markers"] == {}

    # The same two rounds against each other are refused (issue 10.11); copies of them pair every
    # row, and their samples (two rounds a side, which differ between them) call no difference.
    zl.run("summary", "--ab", str(campaign), str(campaign), check_rc=2)
    shutil.copytree(campaign, tmp_path / "copy")
    proc = zl.run("summary", "--ab", str(campaign), str(tmp_path / "copy"), check_rc=0)
    assert "abs        9  1.000  1.000  1.000      1.000" in proc.stdout
    assert "Verdicts from the samples of 9 pairings" in proc.stdout
    assert "abs        9  1.000  1.000  1.000      1.000       0       0" in proc.stdout


def test_ab_verdicts_and_the_regression_gate(zl, tmp_path):
    base = side(tmp_path / "base", [1.00, 1.01, 0.99, 1.02, 0.98])
    slower = side(tmp_path / "slower", [1.20, 1.21, 1.19, 1.22, 1.18])
    same = side(tmp_path / "same", [1.005, 0.995, 1.015, 0.985, 1.0])

    proc = zl.run("summary", "--ab", str(base), str(slower), check_rc=0)
    assert "A: %s (5 runs, 5 rounds; backend=cuda level=core timer=graph mode=kernel tuner_cache=shared)" % base \
        in proc.stdout
    assert "abs        3  1.200  1.200  1.200      1.000       0       3     0          0" in proc.stdout

    proc = zl.run("summary", "--ab", str(base), str(slower), "--fail-on-regression", "5")
    assert proc.returncode == 6, proc.stderr
    assert "zl summary: 3 regressions above 5% (listed above)" in proc.stderr
    assert "regressions (B/A above 1.050, slower by the U test): 3" in proc.stdout

    zl.run("summary", "--ab", str(base), str(same), "--fail-on-regression", "5", check_rc=0)
    # 25% slower is under a 30% bar.
    zl.run("summary", "--ab", str(base), str(slower), "--fail-on-regression", "30", check_rc=0)

    data = zl.json("summary", "--ab", str(base), str(slower), "--format", "json")
    assert [p["verdict"] for p in data["pairings"]] == ["slower"] * 3
    assert all(abs(p["p_value"] - 2 / 252) < 1e-9 for p in data["pairings"])
    csv = zl.run("summary", "--ab", str(base), str(slower), "--format", "csv", check_rc=0).stdout
    assert csv.splitlines()[0].startswith("op,pairs,geomean_ratio,min_ratio,max_ratio,fallback_pairs")


def test_nothing_paired_fails_the_gate(zl, tmp_path):
    a = write_run(tmp_path / "a", table("abs", "torch.float16", [("[torch.Size([1])]", 1, 1)]))
    b = write_run(tmp_path / "b", table("neg", "torch.float16", [("[torch.Size([1])]", 1, 1)]))
    proc = zl.run("summary", "--ab", str(a), str(b), "--fail-on-regression", "5")
    assert proc.returncode == 6
    assert "nothing paired" in proc.stderr
    assert "unpaired: 2 (only in A: 1, only in B: 1)" in proc.stdout


def test_caliber_mismatch_is_refused_unless_forced(zl, tmp_path):
    a = side(tmp_path / "a", [1.0], timer="graph")
    b = side(tmp_path / "b", [1.0], timer="direct", tuner_cache="isolated")
    proc = zl.run("summary", "--ab", str(a), str(b), check_rc=2)
    assert "the two sides differ in caliber:\n  timer: A=graph B=direct\n  tuner_cache: A=shared B=isolated" in proc.stderr
    assert "--force" in proc.stderr
    assert proc.stdout == ""
    proc = zl.run("summary", "--ab", str(a), str(b), "--force", check_rc=0)
    banner = proc.stdout.index("CALIBER DIFFERS, compared anyway (--force):\n  timer: A=graph B=direct\n")
    assert banner < proc.stdout.index("OP ")


def test_bare_logs_take_their_caliber_from_the_table_titles(zl, tmp_path):
    core = tmp_path / "core.log"
    core.write_text(table("sum", "torch.float32", [("[torch.Size([1048576])]", 0.01, 0.009)]))
    proc = zl.run("summary", "--ab", str(core), str(FIXTURES / "gbps.log"), check_rc=2)
    assert "level: A=core B=comprehensive" in proc.stderr
    proc = zl.run("summary", "--ab", str(FIXTURES / "tflops.log"), str(FIXTURES / "garbage.log"), "--force",
                  check_rc=0)  # backend, timer and tuner cache unknown on both: never checked
    assert "abs        5  1.000" in proc.stdout  # the junk stands between rows, none is lost


def test_fallback_rows_mark_the_range(zl, tmp_path):
    shape = "[torch.Size([64])]"
    a = write_run(tmp_path / "a", table("abs", "torch.float16", [(shape, 1, 1), ("[torch.Size([8])]", 1, 1)]))
    b = write_run(tmp_path / "b", "ZL_TIMER op=abs timer=graph node=benchmark/test_abs.py::test_abs\n"
                  f"BENCHMARK_DIRECT_NO_CUDAGRAPH op=abs dtype=torch.float16 shape={json.dumps(shape)} reason=x\n"
                  + table("abs", "torch.float16", [(shape, 1, 1.5), ("[torch.Size([8])]", 1, 1)]))
    proc = zl.run("summary", "--ab", str(a), str(b), check_rc=0)
    assert "1.500*" in proc.stdout
    assert "the range includes 1 pairing with rows timed directly after graph capture was refused" in proc.stdout
    assert "FALLBACK" in zl.run("summary", str(b), check_rc=0).stdout


@pytest.mark.parametrize("name, expected", [
    ("garbage.log", ":8: not a row of the table abs torch.float16"),
    ("truncated_row.log", ":8: malformed row of the table abs torch.float16 (a Size Detail cut off"),
    ("record_bad.log", ":2: record log line is not JSON"),
])
def test_bad_lines_are_reported_with_file_and_line(zl, name, expected):
    proc = zl.run("summary", str(FIXTURES / name), check_rc=0)
    assert f"{FIXTURES / name}{expected}" in proc.stderr
    assert "malformed line" in proc.stderr.splitlines()[-1]
    assert "total" in proc.stdout


def test_every_fixture_is_read_without_a_crash(zl):
    for path in sorted(FIXTURES.glob("*.log")):
        for fmt in ("text", "json"):
            proc = zl.run("summary", str(path), "--format", fmt)
            assert proc.returncode == 0, (path, proc.stderr)


def test_db_parallel_writers_lose_nothing(zl, tmp_path):
    runs = [write_run(tmp_path / f"r{i}", table(f"op{i}", "torch.float16",
                                                [(f"[torch.Size([{n}])]", 1, 1) for n in range(1, 11)]))
            for i in range(8)]
    db = tmp_path / "results.sqlite"
    env = {k: v for k, v in zl.env.items()}
    procs = [subprocess.Popen([ZL_BIN, "summary", str(r), "--db", str(db)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for r in runs]
    for p in procs:
        assert p.wait(timeout=60) == 0, p.stderr.read()
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 8
        assert con.execute("SELECT count(*) FROM rows").fetchone()[0] == 80
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert con.execute("PRAGMA user_version").fetchone()[0] == 3
    # The store alone, without the folders.
    data = zl.json("summary", "--db", str(db), "--format", "json")
    assert data["runs"] == 8 and data["total"]["rows"] == 80
    # Ingesting a run again replaces it.
    zl.run("summary", str(runs[0]), "--db", str(db), check_rc=0)
    assert zl.json("summary", "--db", str(db), "--format", "json")["total"]["rows"] == 80


def test_db_that_zl_cannot_use(zl, tmp_path):
    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as con:
        con.execute("PRAGMA user_version = 7")
    proc = zl.run("summary", "--db", str(newer), check_rc=2)
    assert "has schema version 7, newer than this zl knows (3)" in proc.stderr
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"x" * 4096)
    assert "is not a zl results store" in zl.run("summary", "--db", str(junk), check_rc=2).stderr


@pytest.mark.parametrize("args, text", [
    ([], "zl summary needs a PATH"),
    (["--ab", "a"], "--ab compares two sides"),
    (["x", "--fail-on-regression", "5"], "--fail-on-regression goes with --ab A B"),
    (["x", "--format", "html"], "--format html is not known"),
    (["/nonexistent/campaign"], "/nonexistent/campaign does not exist"),
    (["--ab", "a", "b", "--alpha", "2"], "--alpha 2 is out of range"),
])
def test_usage_errors_exit_2(zl, args, text):
    proc = zl.run("summary", *args, check_rc=2)
    assert text in proc.stderr


def test_help_teaches(zl):
    out = zl.run("summary", "--help", check_rc=0).stdout
    for text in ("Usage: zl summary PATH...", "zl summary --ab A B", "--fail-on-regression", "Mann-Whitney U test",
                 "--force", "Exit codes:", "6 --fail-on-regression tripped", "Examples:", "--db FILE"):
        assert text in out
    assert "summary" in zl.run("--help", check_rc=0).stdout
