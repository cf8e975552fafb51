"""zl run and zl plan end to end: the real binary, real pytest, the sample corpus and a probe corpus."""
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


def probe_env(run_dir):
    for line in (run_dir / "run.log").read_text().splitlines():
        if line.startswith("PROBE_ENV "):
            return json.loads(line[len("PROBE_ENV "):])
    raise AssertionError("the probe printed nothing:\n" + (run_dir / "run.log").read_text())


def identity(run_dir):
    return json.loads((run_dir / "run_identity.json").read_text())


def test_sample_corpus_runs_on_the_host_backend(zl, tmp_path):
    out = tmp_path / "run"
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), check_rc=0)
    assert "Operator: abs  Performance Test (dtype=torch.float16, mode=kernel,level=core)" in proc.stdout
    assert sorted(p.name for p in out.iterdir()) == [
        "outcomes.json", "plan.json", "python_versions.json", "record.log", "run.log", "run_identity.json", "samples.bin",
        "shapes.yaml", "telemetry.jsonl"]
    ident = identity(out)
    assert ident["status"] == "ok" and ident["exit_code"] == 0 and ident["pytest_exit_code"] == 0
    assert ident["backend"]["name"] == "cpu"
    assert ident["backend"]["module"].endswith("libzl_backend_cpu.so")
    assert ident["backend"]["abi"] == "1.3"
    assert ident["device"]["uuid"].startswith("host-")
    assert ident["timer"] == {"effective": "direct", "requested": "auto"}
    assert ident["level"] == "core" and ident["mode"] == "kernel"
    assert ident["node"]["node"] == "benchmark/test_abs.py" and ident["node"]["marker"] == "abs"
    assert ident["autotune"] == {"mode": "off", "source": None, "records_dir": None}
    assert ident["tuner_cache"]["mode"] == "shared"
    assert ident["versions"]["python"].startswith("3.")
    assert ident["command"][0] == ZL_BIN and ident["command"][1] == "run"
    assert ident["record_log"] == "record.log"
    log = (out / "run.log").read_text()
    assert log.startswith("ZL_RUN zl_version=") and " timer=direct level=core " in log.splitlines()[0]
    assert (out / "shapes.yaml").read_text().startswith("# zl: shapes in force for this run: level=core ")
    assert (out / "record.log").read_text().startswith("[INFO] Benchmark record logger enabled")
    assert json.loads((out / "plan.json").read_text())["plugins"] == ["zl_device_setup", "zl_timing", "zl_identity"]


def test_level_is_core_or_comprehensive_only(zl, tmp_path):
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--level", "full", "--out", str(tmp_path / "r"),
                  check_rc=2)
    assert "--level full is not accepted; use one of: core, comprehensive" in proc.stderr
    assert not (tmp_path / "r").exists()
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", env={"BENCH_LEVEL": "fast"}, check_rc=2)
    assert "--level fast is not accepted" in proc.stderr


@pytest.mark.parametrize("args, check, text", [
    (["--flaggems", "/nonexistent/fg", "--op", "abs"], "flaggems_dir",
     "the FlagGems folder /nonexistent/fg (from --flaggems) does not exist"),
    (["--flaggems", str(SOURCE_DIR / "tests"), "--op", "abs"], "flaggems_dir", "has no benchmark/conftest.py"),
    (["--flaggems", str(CORPUS), "--op", "nosuchop"], "benchmark_file",
     "no benchmark/test_nosuchop.py and no module marks or names 'nosuchop'"),
    (["--flaggems", str(CORPUS), "--op", "abs", "--shape-file", "/nonexistent/shapes.yaml"], "shape_file",
     "the shape file /nonexistent/shapes.yaml does not exist"),
    (["--flaggems", str(CORPUS), "--op", "abs", "--replay-from", "/nonexistent/records"], "replay_from",
     "the replay folder /nonexistent/records does not exist"),
    (["--flaggems", str(CORPUS), "--op", "abs", "--python", "/bin/false"], "python",
     "/bin/false finds no module named pytest"),
])
def test_preflight_failures_exit_3_and_name_the_check(zl, tmp_path, args, check, text):
    proc = zl.run("run", *args, "--out", str(tmp_path / "r"), check_rc=3)
    assert proc.stdout.startswith(f"PREFLIGHT_FAILED check={check} ")
    assert text in proc.stderr
    assert not (tmp_path / "r").exists()


def test_preflight_runs_in_order(zl, tmp_path):
    # Everything is wrong at once: the first check in the order is the one reported.
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "nosuchop", "--shape-file", "/x", "--replay-from", "/y",
                  "--python", "/bin/false", check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=benchmark_file ")


def test_pytest_environment_pins_and_carries_no_zl_variable(zl, tmp_path):
    out = tmp_path / "run"
    env = {"ZL_BACKEND": "cpu", "OP": "probe", "BENCH_LEVEL": "comprehensive", "ZL_PYTHON": PYTHON}
    zl.run("run", "--flaggems", str(PROBE), "--out", str(out), env=env, check_rc=0)
    seen = probe_env(out)
    for name in ("ZL_BACKEND", "ZL_PYTHON", "OP", "BENCH_LEVEL", "TEST_NODE", "ZL_BACKEND_PATH"):
        assert seen[name] is None, name
    assert seen["ZL_PLAN"] == str(out / "plan.json")
    assert seen["FLAGGEMS_PERF_CURRENT_OP"] == "probe"
    assert seen["level"] == "comprehensive"  # BENCH_LEVEL is read by zl and passed as --level
    assert seen["cwd"] == str(out)
    assert identity(out)["level"] == "comprehensive"
    assert "level=comprehensive" in (out / "shapes.yaml").read_text().splitlines()[0]


def test_options_win_over_variables(zl, tmp_path):
    out = tmp_path / "run"
    zl.run("run", "--flaggems", str(PROBE), "--op", "probe", "--level", "core", "--python", PYTHON, "--out", str(out),
           env={"OP": "failing", "BENCH_LEVEL": "comprehensive"}, check_rc=0)
    assert probe_env(out)["level"] == "core"


def test_isolated_tuner_cache_is_recorded_and_removed(zl, tmp_path):
    out = tmp_path / "run"
    zl.run("run", "--flaggems", str(PROBE), "--op", "probe", "--isolate-tuner-cache", "--python", PYTHON,
           "--out", str(out), check_rc=0)
    seen = probe_env(out)
    assert seen["FLAGGEMS_CACHE_DIR"] == str(out / ".tuner-cache")
    assert seen["TRITON_CACHE_DIR"] == str(out / ".triton-cache")
    assert not (out / ".tuner-cache").exists() and not (out / ".triton-cache").exists()
    cache = identity(out)["tuner_cache"]
    assert cache["mode"] == "isolated" and cache["entries_before"] == 0 and cache["removed_after"] is True


def test_shared_tuner_cache_counts_what_it_holds(zl, tmp_path):
    cache_dir = tmp_path / "flaggems-cache"
    (cache_dir / "config_cache").mkdir(parents=True)
    db = sqlite3.connect(cache_dir / "config_cache" / "TunedConfig_nvidia_triton_3_3.db")
    db.execute('CREATE TABLE "mm_kernel_0123-ab" (key_0 INTEGER PRIMARY KEY, BLOCK_M INTEGER)')
    db.executemany('INSERT INTO "mm_kernel_0123-ab" VALUES (?, ?)', [(1, 64), (2, 64), (3, 128)])
    db.execute('CREATE TABLE "mm_kernel_x_benchmark_v2-cd" (key_0 INTEGER, p50 REAL)')
    db.execute('INSERT INTO "mm_kernel_x_benchmark_v2-cd" VALUES (1, 0.5)')
    db.commit()
    db.close()
    out = tmp_path / "run"
    zl.run("run", "--flaggems", str(PROBE), "--op", "probe", "--python", PYTHON, "--out", str(out),
           env={"FLAGGEMS_CACHE_DIR": str(cache_dir)}, check_rc=0)
    cache = identity(out)["tuner_cache"]
    assert cache == {"mode": "shared", "path": str(cache_dir), "entries_before": 3, "note": None,
                     "removed_after": False}
    assert "tuner_cache=shared tuner_entries_before=3" in (out / "run.log").read_text().splitlines()[0]


def test_pytest_exit_codes_pass_through_except_2_and_3(zl, tmp_path):
    proc = zl.run("run", "--flaggems", str(PROBE), "--op", "failing", "--python", PYTHON, "--out", str(tmp_path / "a"))
    assert proc.returncode == 1
    assert identity(tmp_path / "a")["status"] == "failed"
    proc = zl.run("run", "--flaggems", str(PROBE), "--op-file", "benchmark/test_uncollectable.py", "--python", PYTHON,
                  "--out", str(tmp_path / "b"))
    assert proc.returncode == 12, proc.stdout  # pytest's 2: collection error
    assert identity(tmp_path / "b")["pytest_exit_code"] == 2


def test_ctrl_c_stops_pytest_and_leaves_the_identity(zl, tmp_path):
    out = tmp_path / "run"
    env = dict(zl.env, ZL_PYTHON=PYTHON)
    proc = subprocess.Popen([ZL_BIN, "run", "--flaggems", str(PROBE), "--op", "sleeper", "--out", str(out)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        log = out / "run.log"
        if log.exists() and "SLEEPER_STARTED" in log.read_text():
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the sleeper never started")
    pid = int(log.read_text().split("SLEEPER_STARTED pid=")[1].split()[0])
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130
    ident = identity(out)
    assert ident["status"] == "interrupted" and ident["exit_code"] == 130
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_run_never_writes_over_a_run_folder(zl, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "precious.txt").write_text("keep me")
    proc = zl.run("run", "--flaggems", str(PROBE), "--op", "probe", "--python", PYTHON, "--out", str(out), check_rc=2)
    assert "already holds files" in proc.stderr
    assert (out / "precious.txt").read_text() == "keep me"


def test_plan_runs_nothing_and_prints_the_decisions(zl, tmp_path):
    data = zl.json("plan", "--flaggems", str(CORPUS), "--op", "mm", "--python", PYTHON, "--out", str(tmp_path / "r"),
                   "--json")
    assert not (tmp_path / "r").exists()
    assert data["node"] == "benchmark/test_mm.py" and data["timer"] == "direct"
    assert data["plugins"] == ["zl_device_setup", "zl_timing", "zl_identity"]
    assert data["pytest_argv"][:3] == [PYTHON, "-m", "pytest"]
    assert data["env_set"]["ZL_PLAN"] == str(tmp_path / "r" / "plan.json")
    text = zl.run("plan", "--flaggems", str(CORPUS), "--op", "mm", "--python", PYTHON, check_rc=0).stdout
    assert "plugins  -p zl_device_setup -p zl_timing -p zl_identity" in text


def test_compat_rules_reach_only_their_backends_plan(zl, tmp_path):
    zl.with_smi("mthreads-gmi")
    musa = zl.json("--backend", "musa", "plan", "--flaggems", str(CORPUS), "--op", "fft", "--python", PYTHON,
                   "--json")
    assert musa["plugins"][0] == "zl_compat"
    assert [r["file"] for r in musa["compat_rules"]] == ["benchmark/test_fft.py"]
    assert musa["env_set"]["MUSA_VISIBLE_DEVICES"] == "0"
    assert musa["timer"] == "graph" and "zl_capture" in musa["plugins"]
    assert musa["capture"]["deny_ops"] == ["unique2"]
    host = zl.json("--backend", "cpu", "plan", "--flaggems", str(CORPUS), "--op", "fft", "--python", PYTHON, "--json")
    assert host["compat_rules"] == [] and "zl_compat" not in host["plugins"]


def test_timer_the_backend_cannot_give_is_refused(zl):
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--timer", "graph", "--python", PYTHON, check_rc=2)
    assert "--timer graph: backend cpu cannot capture device graphs" in proc.stderr


def test_flaggems_commit_is_the_checkouts_own(zl, tmp_path):
    # The corpus sits inside zl's own checkout: it has no commit of its own.
    out = tmp_path / "a"
    zl.run("run", "--flaggems", str(PROBE), "--op", "probe", "--python", PYTHON, "--out", str(out), check_rc=0)
    assert identity(out)["flaggems_commit"] is None
    # A checkout of its own reports its HEAD; a bundle reports its FLAGGEMS_COMMIT file.
    fg = tmp_path / "fg"
    subprocess.run(["cp", "-r", str(PROBE), str(fg)], check=True)
    (fg / "FLAGGEMS_COMMIT").write_text("ed2508bcb5a03000e9774734201d840ba362cd11\n")
    zl.run("run", "--flaggems", str(fg), "--op", "probe", "--python", PYTHON, "--out", str(tmp_path / "b"), check_rc=0)
    assert identity(tmp_path / "b")["flaggems_commit"] == "ed2508bcb5a03000e9774734201d840ba362cd11"
    git = ["git", "-C", str(fg), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "probe"], check=True)
    head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    zl.run("run", "--flaggems", str(fg), "--op", "probe", "--python", PYTHON, "--out", str(tmp_path / "c"), check_rc=0)
    assert identity(tmp_path / "c")["flaggems_commit"] == head


def test_an_op_whose_dtype_flaggems_refuses_is_unsupported(zl, tmp_path):
    """The corpus's sum_dim takes float32 alone and refuses float16 in FlagGems' words."""
    out = tmp_path / "run"
    proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "sum_dim", "--dtypes", "float16", "--python", PYTHON,
                  "--out", str(out))
    assert proc.returncode == 1  # pytest's own, passed through
    ident = identity(out)
    assert ident["status"] == "unsupported" and ident["tests"]["unsupported_dtypes"] == ["torch.float16"]
    assert "ZL_UNSUPPORTED node=benchmark/test_sum.py::test_sum_dim" in (out / "run.log").read_text()
    summary = json.loads(zl.run("summary", "--format", "json", str(out), check_rc=0).stdout)
    assert [(g["op"], g["rows"], g["failed"], g["status"]) for g in summary["groups"]] == [
        ("sum_dim", 0, 0, "unsupported")]
