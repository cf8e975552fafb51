"""zl ab: interleaved rounds over an environment switch, the liveness check, the layout summary reads."""
import json

from conftest import SOURCE_DIR

CORPUS = SOURCE_DIR / "corpus"
PROBE = SOURCE_DIR / "tests" / "fixtures" / "flaggems_probe"
PYTHON = "/usr/bin/python3"


def fake_compiler(tmp_path, names_the_switch=True):
    """A triton package the benchmark Python imports: it names the switch, or not."""
    pkg = tmp_path / "site" / "triton"
    pkg.mkdir(parents=True)
    text = 'import os\nRLC = os.environ.get("FLAGTREE_RLC_ENHANCE", "0")\n' if names_the_switch else "X = 1\n"
    (pkg / "__init__.py").write_text(text)
    return str(tmp_path / "site")


def probe_env(run_dir):
    for line in (run_dir / "run.log").read_text().splitlines():
        if line.startswith("PROBE_ENV "):
            return json.loads(line[len("PROBE_ENV "):])
    raise AssertionError((run_dir / "run.log").read_text())


def test_a_dead_axis_is_refused_before_any_round(zl, tmp_path):
    out = tmp_path / "ab"
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), check_rc=2)
    assert "the axis FLAGTREE_RLC_ENHANCE is read by nothing zl could find" in proc.stderr
    assert "imports no triton or flagtree package" in proc.stderr
    assert not (out / "A").exists()
    site = fake_compiler(tmp_path, names_the_switch=False)
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out),
                  env={"PYTHONPATH": site}, check_rc=2)
    assert f"searched {site}/triton (1 files)" in proc.stderr


def test_rounds_interleave_and_each_side_gets_its_value_and_caches(zl, tmp_path):
    out = tmp_path / "ab"
    site = fake_compiler(tmp_path)
    proc = zl.run("ab", "--flaggems", str(PROBE), "--op", "probe", "--rounds", "2", "--python", PYTHON,
                  "--out", str(out), env={"PYTHONPATH": site}, check_rc=0)
    assert "FLAGTREE_RLC_ENHANCE is live: named in" in proc.stderr
    order = [l.split(" side ")[1][0] for l in proc.stderr.splitlines() if l.startswith("zl ab: round ")]
    assert order == ["A", "B", "B", "A"]
    for side, value in (("A", "0"), ("B", "1")):
        for rnd in (1, 2):
            seen = probe_env(out / side / f"round-{rnd}")
            assert seen["FLAGTREE_RLC_ENHANCE"] == value
            assert seen["TRITON_CACHE_DIR"] == str(out / side / f"round-{rnd}" / ".triton-cache")
            assert seen["FLAGGEMS_CACHE_DIR"] == str(out / side / f"round-{rnd}" / ".tuner-cache")
    meta = json.loads((out / "ab.json").read_text())
    assert meta["axis"] == "FLAGTREE_RLC_ENHANCE" and meta["axis_live"] is True and meta["rounds"] == 2


def test_force_runs_a_dead_axis_under_a_banner_and_summary_reads_the_layout(zl, tmp_path):
    out = tmp_path / "ab"
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--axis", "ZL_TEST_NO_SUCH_SWITCH", "--values",
                  "off,on", "--rounds", "2", "--force", "--python", PYTHON, "--out", str(out), check_rc=0)
    tables = proc.stdout.split("== ")[1:]
    assert [t.splitlines()[0] for t in tables] == [
        "round 1 (ZL_TEST_NO_SUCH_SWITCH=off vs ZL_TEST_NO_SUCH_SWITCH=on)",
        "round 2 (ZL_TEST_NO_SUCH_SWITCH=off vs ZL_TEST_NO_SUCH_SWITCH=on)",
        "all rounds (ZL_TEST_NO_SUCH_SWITCH=off vs ZL_TEST_NO_SUCH_SWITCH=on)"]
    for t in tables:
        assert "!! --force: ZL_TEST_NO_SUCH_SWITCH was not found in the installed compiler" in t
    assert "abs" in tables[-1]
    zl.run("summary", "--ab", str(out / "A"), str(out / "B"), check_rc=0)


def test_bad_values_are_refused(zl, tmp_path):
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--values", "1,1", "--force", check_rc=2)
    assert "--values takes two different values" in proc.stderr
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--axis", "bad axis", "--force", check_rc=2)
    assert "an environment variable name is [A-Z0-9_]+" in proc.stderr
    proc = zl.run("ab", "--flaggems", str(CORPUS), "--op", "abs", "--rounds", "0", "--force", check_rc=2)
    assert "give 1 to 1000 rounds" in proc.stderr
