"""What `zl run` and `zl plan` record must be what ran (issue 10): pass-through arguments, modes,
the OP + OP_FILE pair, shape files, the tuner-cache path, long FlagGems paths, the timer reason."""
import json
import os
import pwd
import shlex
import shutil
import sqlite3

import pytest

from conftest import SOURCE_DIR

CORPUS = (SOURCE_DIR / "corpus").resolve()
PROBE = (SOURCE_DIR / "tests" / "fixtures" / "flaggems_probe").resolve()
PYTHON = "/usr/bin/python3"


def identity(run_dir):
    return json.loads((run_dir / "run_identity.json").read_text())


def tables(run_dir):
    return [line for line in (run_dir / "run.log").read_text().splitlines() if line.startswith("Operator: ")]


# --- 10.1: arguments after -- never touch what zl owns ------------------------------------

@pytest.mark.parametrize("extra, names", [
    (["--mode", "operator"], "--mode"),
    (["--mode=operator"], "--mode"),
    (["--fg_mode", "operator"], "--mode"),
    (["--level", "comprehensive"], "--level"),
    (["--level=comprehensive"], "--level"),
    (["--dtypes", "float32"], "--dtypes"),
    (["--dtypes=float32"], "--dtypes"),
    (["--shape_file", "/tmp/s.yaml"], "--shape-file"),
    (["--shape_file=/tmp/s.yaml"], "--shape-file"),
    (["--record", "json"], "record log"),
    (["-p", "no:zl_timing"], "-p"),
    (["-pno:zl_timing"], "-p"),
    (["-p=no:zl_timing"], "-p"),
    (["-m", "abs_"], "--test-node"),
    (["-mabs_"], "--test-node"),
    (["-k", "inplace"], "--test-node"),
    (["-xk", "inplace"], "--test-node"),
    (["-sxkinplace"], "--test-node"),
    (["--rootdir", "/tmp"], "--flaggems"),
    (["--rootdir=/tmp"], "--flaggems"),
    (["-c", "/dev/null"], "--flaggems"),
    (["--config-file=/dev/null"], "--flaggems"),
    (["-o", "python_files=*.py"], "--flaggems"),
    (["--override-ini=python_files=*.py"], "--flaggems"),
    (["--confcutdir", "/"], "--flaggems"),
    (["--noconftest"], "--flaggems"),
    (["benchmark/test_mm.py"], "--test-node"),
    (["-x", "--", "benchmark/test_mm.py"], "--test-node"),
    (["--query"], "measures nothing"),
    (["--parallel", "2"], "--device"),
    (["--capture=fd"], "run.log"),
])
def test_pass_through_options_zl_owns_are_refused(zl, tmp_path, extra, names):
    out = tmp_path / "r"
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), "--",
                  *extra, check_rc=2)
    assert names in proc.stderr, proc.stderr
    assert "after --" in proc.stderr
    assert not out.exists()
    zl.run("plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--", *extra, check_rc=2)


def test_pass_through_options_zl_leaves_alone_run_and_are_recorded(zl, tmp_path):
    out = tmp_path / "r"
    extra = ["-x", "--warmup=5", "--iter", "5", "-q"]
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), "--", *extra,
           check_rc=0)
    assert identity(out)["pytest_extra_args"] == extra
    assert json.loads((out / "plan.json").read_text())["pytest_extra_args"] == extra
    assert all("mode=kernel,level=core" in t for t in tables(out))


def test_ab_tells_runs_apart_by_their_pass_through_arguments(zl, tmp_path):
    # What a pass-through argument changed (FlagGems' --warmup, --iter) is part of the caliber.
    base = ["run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON]
    zl.run(*base, "--out", str(tmp_path / "a" / "abs"), check_rc=0)
    zl.run(*base, "--out", str(tmp_path / "b" / "abs"), "--", "--tb=short", check_rc=0)
    assert " extra_args=none " in (tmp_path / "a" / "abs" / "run.log").read_text().splitlines()[0] + " "
    proc = zl.run("summary", "--ab", str(tmp_path / "a"), str(tmp_path / "b"), check_rc=2)
    assert "pytest_extra_args: A=none B=--tb=short" in proc.stderr
    zl.run("summary", "--ab", str(tmp_path / "a"), str(tmp_path / "b"), "--force", check_rc=0)
    zl.run(*base, "--out", str(tmp_path / "c" / "abs"), check_rc=0)
    zl.run("summary", "--ab", str(tmp_path / "a"), str(tmp_path / "c"), check_rc=0)


def test_pytest_addopts_does_not_reach_pytest(zl, tmp_path):
    out = tmp_path / "r"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out),
           env={"PYTEST_ADDOPTS": "--mode operator", "PYTEST_PLUGINS": "nosuchplugin"}, check_rc=0)
    assert tables(out) and all("mode=kernel" in t for t in tables(out))
    plan = json.loads((out / "plan.json").read_text())
    # zl's own PYTEST_ADDOPTS (its pytest options, as the plan lists them) replaces the user's.
    assert "operator" not in plan["env_set"]["PYTEST_ADDOPTS"]
    assert shlex.split(plan["env_set"]["PYTEST_ADDOPTS"]) == plan["pytest_options"]
    assert "PYTEST_PLUGINS" in plan["env_unset"]


# --- 10.4: every mode FlagGems accepts ----------------------------------------------------

def test_mode_cudagraph_is_accepted_and_recorded(zl, tmp_path):
    zl.with_smi("nvidia-smi")
    plan = zl.json("--backend", "cuda", "plan", "--flaggems", str(CORPUS), "--op", "abs", "--mode", "cudagraph",
                   "--python", PYTHON, "--json")
    assert plan["mode"] == "cudagraph"
    assert plan["pytest_argv"][plan["pytest_argv"].index("--mode") + 1] == "cudagraph"
    out = tmp_path / "r"
    zl.run("--backend", "cuda", "run", "--flaggems", str(PROBE), "--op", "probe", "--mode", "cudagraph",
           "--python", PYTHON, "--out", str(out), check_rc=0)
    assert identity(out)["mode"] == "cudagraph"
    assert " mode=cudagraph " in (out / "run.log").read_text().splitlines()[0]


def test_mode_cudagraph_needs_graph_capture(zl):
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--mode", "cudagraph", "--python", PYTHON,
                  check_rc=2)
    assert "--mode cudagraph: backend cpu cannot capture device graphs" in proc.stderr


def test_help_names_every_mode(zl):
    text = zl.run("run", "--help", check_rc=0).stdout
    assert "kernel|operator|wrapper|cudagraph" in text


# --- 10.5: the OP + OP_FILE pair of the earlier harness -----------------------------------

def test_op_and_op_file_options_run_that_op_inside_that_file(zl, tmp_path):
    out = tmp_path / "r"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--op-file", "benchmark/test_abs.py", "--python", PYTHON,
           "--out", str(out), check_rc=0)
    node = identity(out)["node"]
    assert node["op"] == "abs" and node["node"] == "benchmark/test_abs.py" and node["marker"] == "abs"
    assert {t.split()[1] for t in tables(out)} == {"abs"}  # abs_ of the same file is not run


def test_op_and_op_file_variables_run_that_op_inside_that_file(zl, tmp_path):
    out = tmp_path / "r"
    zl.run("run", "--flaggems", str(CORPUS), "--python", PYTHON, "--out", str(out),
           env={"OP": "sum_dim", "OP_FILE": "benchmark/test_sum.py"}, check_rc=0)
    node = identity(out)["node"]
    assert node["op"] == "sum_dim" and node["node"] == "benchmark/test_sum.py" and node["marker"] == "sum_dim"
    assert {t.split()[1] for t in tables(out)} == {"sum_dim"}


def test_op_not_in_op_file_fails_preflight(zl, tmp_path):
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "mm", "--op-file", "benchmark/test_abs.py",
                  "--python", PYTHON, check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=benchmark_file ")
    assert "neither marks nor names op 'mm'" in proc.stderr


def test_test_node_still_excludes_op_and_op_file(zl):
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--test-node", "benchmark/test_abs.py",
                  check_rc=2)
    assert "--test-node" in proc.stderr


# --- 10.7: the shape file must resolve for the op -----------------------------------------

@pytest.mark.parametrize("text, missing", [
    ("", "is empty"),
    ("# nothing but a comment\n", "is empty"),
    ("- [64, 64]\n- [128]\n", "not a mapping"),
    ("other_op:\n  shapes:\n    - [8]\n", "abs, UnaryPointwiseBenchmark, Benchmark"),
    ("abs:\n  shape_desc: M\n", "no shapes list"),
])
def test_shape_file_that_does_not_resolve_fails_preflight(zl, tmp_path, text, missing):
    shapes = tmp_path / "shapes.yaml"
    shapes.write_text(text)
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--shape-file", str(shapes), "--python", PYTHON,
                  "--out", str(tmp_path / "r"), check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=shape_file ")
    assert str(shapes) in proc.stderr and missing in proc.stderr, proc.stderr
    assert not (tmp_path / "r").exists()


def test_shape_file_that_resolves_runs(zl, tmp_path):
    shapes = tmp_path / "shapes.yaml"
    shapes.write_text("UnaryPointwiseBenchmark:\n  shapes:\n    - [32, 32]\n")
    out = tmp_path / "r"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--shape-file", str(shapes), "--python", PYTHON,
           "--out", str(out), check_rc=0)
    assert "[torch.Size([32, 32])]" in (out / "run.log").read_text()
    assert identity(out)["shapes"]["keys"] == ["UnaryPointwiseBenchmark"]


# --- 10.8: the tuner-cache path is the one Python uses ------------------------------------

def test_tuner_cache_without_home_is_the_passwd_home(zl, tmp_path):
    env = {k: v for k, v in zl.env.items() if k not in ("HOME", "FLAGGEMS_CACHE_DIR", "FLAGGEMS_DB_URL")}
    zl.env = env
    plan = zl.json("plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--json")
    assert plan["tuner_cache"]["path"] == os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".flaggems")


@pytest.mark.parametrize("name", ["cache#1", "cache%41", "cache?x", "a b#%?c"])
def test_tuner_cache_folder_with_uri_characters_is_read(zl, tmp_path, name):
    cache_dir = tmp_path / name
    (cache_dir / "config_cache").mkdir(parents=True)
    db = sqlite3.connect(cache_dir / "config_cache" / "TunedConfig_cpu_triton_3_3.db")
    db.execute('CREATE TABLE "k-ab" (key_0 INTEGER PRIMARY KEY, BLOCK INTEGER)')
    db.executemany('INSERT INTO "k-ab" VALUES (?, ?)', [(1, 64), (2, 128)])
    db.commit()
    db.close()
    plan = zl.json("plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--json",
                   env={"FLAGGEMS_CACHE_DIR": str(cache_dir)})
    assert plan["tuner_cache"]["entries_before"] == 2, plan["tuner_cache"]
    assert plan["tuner_cache"]["note"] is None


# --- 10.19: a long FlagGems path ----------------------------------------------------------

def deep_copy_of_corpus(tmp_path, length):
    deep = tmp_path
    while len(str(deep)) < length - 40:
        deep = deep / ("d" * 40)
    deep = deep / ("f" * (length - len(str(deep)) - 1))
    assert len(str(deep)) == length
    deep.parent.mkdir(parents=True)
    shutil.copytree(CORPUS, deep)
    return deep


def test_long_flaggems_path_runs(zl, tmp_path):
    fg = deep_copy_of_corpus(tmp_path, 240)
    out = tmp_path / "r"
    zl.run("run", "--flaggems", str(fg), "--op", "abs", "--dtypes", "float16,float32", "--python", PYTHON,
           "--out", str(out), check_rc=0)
    assert (out / "record.log").read_text().startswith("[INFO] Benchmark record logger enabled")
    assert len(tables(out)) == 2
    assert sorted(p.name for p in out.iterdir()) == [
        "outcomes.json", "plan.json", "python_versions.json", "record.log", "run.log", "run_identity.json", "samples.bin",
        "shapes.yaml", "telemetry.jsonl"]


def test_record_log_name_over_the_limit_fails_preflight(zl, tmp_path):
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(tmp_path / "r"),
                  "--", "--junitxml=" + "j" * 200 + ".xml", check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=record_log ")
    assert "255" in proc.stderr


# --- 10.24: zl plan says why the timer was chosen -----------------------------------------

def test_plan_prints_the_timer_reason(zl):
    text = zl.run("plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, check_rc=0).stdout
    assert "timer    direct (auto: backend cpu has no graph capture)" in text
    data = zl.json("plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--timer", "direct", "--json")
    assert data["timer_reason"] == "--timer direct given"
    zl.with_smi("nvidia-smi")
    data = zl.json("--backend", "cuda", "plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--json")
    assert data["timer"] == "graph" and data["timer_reason"] == "auto: backend cuda supports graph capture"


# --- 11.15: an absolute --test-node ---------------------------------------------------------

def test_absolute_test_node_inside_flaggems_is_made_relative(zl, tmp_path):
    out = tmp_path / "r"
    zl.run("run", "--flaggems", str(CORPUS), "--test-node", f"{CORPUS}/benchmark/test_abs.py::test_abs",
           "--python", PYTHON, "--out", str(out), check_rc=0)
    assert identity(out)["node"]["node"] == "benchmark/test_abs.py::test_abs"
    assert {t.split()[1] for t in tables(out)} == {"abs"}


def test_absolute_test_node_outside_flaggems_is_refused(zl, tmp_path):
    other = tmp_path / "elsewhere" / "test_abs.py"
    other.parent.mkdir()
    other.write_text("def test_abs():\n    pass\n")
    proc = zl.run("run", "--flaggems", str(CORPUS), "--test-node", f"{other}::test_abs", "--python", PYTHON,
                  check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=benchmark_file ")
    assert "outside the FlagGems folder" in proc.stderr
