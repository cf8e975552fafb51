"""zl run --record-autotune / --replay-from and zl sweep end to end: the real binary, real
pytest, the tuned corpus (tests/fixtures/tuned_corpus: fakes of Triton's Autotuner and
FlagGems' LibTuner) and two fake NVIDIA GPUs (tests/fixtures/fake_smi)."""
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import SOURCE_DIR

PYTHON = "/usr/bin/python3"
TUNED = SOURCE_DIR / "tests" / "fixtures" / "tuned_corpus"
SHAPES = SOURCE_DIR / "tests" / "fixtures" / "shapes_flaggems"
GPU0 = "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c"
GPU1 = "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c"
MM = "benchmark.tuned_ops.mm_kernel"


@pytest.fixture
def corpus():
    """The tuned corpus: the sample corpus' support modules under the fixture's own files.

    Under a short path: FlagGems (and the corpus) name the record log after every pytest
    argument, the node's absolute path among them, and a name over 255 bytes fails the run."""
    root = Path(tempfile.mkdtemp(prefix="zl-"))
    (root / "benchmark").mkdir(parents=True)
    for name in ("__init__", "base", "conftest", "consts", "host_ops", "timing"):
        shutil.copy(SOURCE_DIR / "corpus" / "benchmark" / f"{name}.py", root / "benchmark")
    for path in (TUNED / "benchmark").iterdir():
        shutil.copy(path, root / "benchmark")
    shutil.copy(TUNED / "pytest.ini", root)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def gpus(zl):
    zl.with_smi("nvidia-smi")
    zl.env["PYTHONPATH"] = str(TUNED / "pylib")
    return zl


def identity(run_dir):
    return json.loads((run_dir / "run_identity.json").read_text())


def entries(records):
    doc = json.loads((records / f"{MM}.json").read_text())
    return sorted((json.dumps(e["key"]), json.dumps(e["config"]["kwargs"])) for e in doc["entries"])


def sweep(zl, corpus, out, *args, env=None, check_rc=0):
    return zl.run("--backend", "cuda", "sweep", "--flaggems", str(corpus), "--op", "tuned_mm", "--python", PYTHON,
                  "--timer", "direct", "--dtypes", "float16", "--out", str(out), *args, env=env, check_rc=check_rc)


def test_record_then_replay_pins_every_key(zl, corpus, tmp_path):
    env = {"PYTHONPATH": str(TUNED / "pylib")}
    rec, rep, more = tmp_path / "rec", tmp_path / "rep", tmp_path / "more"
    base = ("run", "--flaggems", str(corpus), "--op", "tuned_mm", "--python", PYTHON, "--dtypes", "float16")
    proc = zl.run(*base, "--record-autotune", "--isolate-tuner-cache", "--out", str(rec), env=env, check_rc=0)
    assert " autotune=record " in proc.stdout.splitlines()[0]
    plan = json.loads((rec / "plan.json").read_text())
    assert plan["plugins"] == ["zl_device_setup", "zl_timing", "zl_autotune", "zl_identity"]
    assert plan["autotune"] == {"mode": "record", "source": None, "records_dir": str(rec / "autotune_records")}
    ident = identity(rec)["autotune"]
    assert ident["mode"] == "record" and ident["fallbacks"] == 0 and ident["tuned_keys"] == 6
    assert ident["configs_benchmarked"] == 96 and ident["summary"]["hooked"] is True
    assert (rec / "autotune_records" / "manifest.json").is_file()

    zl.run(*base, "--replay-from", str(rec), "--out", str(rep), env=env, check_rc=0)
    ident = identity(rep)["autotune"]
    assert ident["source"] == str(rec / "autotune_records")
    assert ident["fallbacks"] == 0 and ident["summary"]["pinned"] == 6 and ident["configs_benchmarked"] == 0

    # another dtype is another key: each self-tunes, and the identity counts it
    proc = zl.run(*base[:-1], "float16,float32", "--replay-from", str(rec / "autotune_records"), "--out", str(more),
                  env=env, check_rc=0)
    assert proc.stdout.count("AUTOTUNE_REPLAY_FALLBACK reason=key_missing kernel=" + MM) == 6
    assert identity(more)["autotune"]["fallbacks"] == 6


def test_record_and_replay_exclude_each_other_and_replay_needs_records(zl, tmp_path):
    corpus = SOURCE_DIR / "corpus"
    proc = zl.run("run", "--flaggems", str(corpus), "--op", "abs", "--record-autotune", "--replay-from", str(tmp_path),
                  check_rc=2)
    assert "--record-autotune and --replay-from (or REPLAY_FROM) exclude each other" in proc.stderr
    proc = zl.run("run", "--flaggems", str(corpus), "--op", "abs", "--replay-from", str(tmp_path), check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=replay_from ")
    assert "holds no autotune records" in proc.stderr


def test_resolve_only_prints_keys_and_shapes_and_a_miss_lists_the_candidates(zl, tmp_path):
    proc = zl.run("sweep", "--flaggems", str(SHAPES), "--op", "mm", "--resolve-only", check_rc=0)
    assert proc.stdout.startswith("SWEEP_RESOLVED op=mm module=benchmark/test_mm.py class=BlasBenchmark "
                                  "call=benchmark/test_mm.py:13 key=BlasBenchmark shapes=3 tried=mm,BlasBenchmark ")
    assert "    [16, 1024, 1024, 1024]\n" in proc.stdout
    other = tmp_path / "other.yaml"
    other.write_text("abs:\n  shapes: [[4]]\n")
    proc = zl.run("sweep", "--flaggems", str(SHAPES), "--op", "mm", "--resolve-only", "--shape-file", str(other),
                  check_rc=1)
    assert "SWEEP_UNRESOLVED op=mm " in proc.stdout
    assert "tried mm, BlasBenchmark, Benchmark, object" in proc.stderr


def test_sharded_sweep_publishes_the_merge_and_a_replay_finds_every_key(gpus, corpus, tmp_path):
    out = tmp_path / "sweep"
    proc = sweep(gpus, corpus, out)
    assert f"SWEEP_WORKER_START worker=shard-1 device=1 uuid={GPU1} shapes=" in proc.stdout
    assert "SWEEP_PUBLISHED mode=sharded " in proc.stdout
    report = json.loads((out / "sweep.json").read_text())
    assert report["mode"] == "sharded" and report["serial"] is None
    assert [s["exit_code"] for s in report["shards"]] == [0, 0]
    assert sum(s["shapes"] for s in report["shards"]) == 6
    assert report["published"] == str(out / "autotune_records") and report["keys"] == 6
    for i in (0, 1):  # each worker pinned to its device, with its own shape file and tuner cache
        plan = json.loads((out / f"shard-{i}" / "plan.json").read_text())
        assert plan["env_set"]["CUDA_VISIBLE_DEVICES"] == (GPU0, GPU1)[i]
        assert plan["shape_file"] == str(out / f"shard-{i}" / "shapes.yaml")
        assert plan["tuner_cache"]["mode"] == "isolated"
    assert (out / "shapes" / "shard-1.yaml").read_text().startswith("# zl sweep: shard 1 of 2 for op tuned_mm")
    assert len(entries(out / "autotune_records")) == 6

    rep = tmp_path / "replay"
    gpus.run("--backend", "cuda", "run", "--flaggems", str(corpus), "--op", "tuned_mm", "--python", PYTHON,
             "--timer", "direct", "--dtypes", "float16", "--replay-from", str(out), "--out", str(rep), check_rc=0)
    assert identity(rep)["autotune"]["fallbacks"] == 0


def test_a_failed_shard_discards_the_sharded_result_and_the_serial_sweep_runs(gpus, corpus, tmp_path):
    good, out = tmp_path / "good", tmp_path / "sweep"
    sweep(gpus, corpus, good)
    proc = sweep(gpus, corpus, out, env={"FAKE_TUNER_FAIL_DEVICE": GPU1})
    assert f"SWEEP_SHARD_FAILED worker=shard-1 device=1 rc=1 run_dir={out}/shard-1 log={out}/logs/shard-1.log" \
        in proc.stdout
    assert "the sharded result is discarded whole; running the serial sweep instead" in proc.stderr
    assert "SWEEP_PUBLISHED mode=serial reason=shard_failed " in proc.stdout
    assert "told to fail on device" in (out / "logs" / "shard-1.log").read_text()
    assert (out / "shard-1" / "run.log").is_file()  # the failed worker's run folder stays
    report = json.loads((out / "sweep.json").read_text())
    assert report["mode"] == "serial" and report["serial_reason"] == "shard_failed"
    assert report["serial"]["exit_code"] == 0 and report["serial"]["uuid"] == GPU0
    assert entries(out / "autotune_records") == entries(good / "autotune_records")  # same caliber


def test_when_the_serial_sweep_fails_too_nothing_is_published(gpus, corpus, tmp_path):
    out = tmp_path / "sweep"
    proc = sweep(gpus, corpus, out, env={"FAKE_TUNER_FAIL_DEVICE": "any"}, check_rc=1)
    assert "SWEEP_FAILED reason=serial_failed rc=1 " in proc.stdout
    assert not (out / "autotune_records").exists()
    assert json.loads((out / "sweep.json").read_text())["published"] is None


def test_comprehensive_is_not_sharded(gpus, corpus, tmp_path):
    out = tmp_path / "sweep"
    proc = sweep(gpus, corpus, out, "--level", "comprehensive")
    assert "--level comprehensive is not sharded" in proc.stderr
    assert "5 of mm's 29 shapes" in proc.stderr
    assert "SWEEP_SERIAL reason=comprehensive device=0" in proc.stdout
    assert not (out / "shard-0").exists()
    assert (out / "autotune_records" / "manifest.json").is_file()


def test_shards_that_disagree_on_a_key_fall_back_to_the_serial_sweep(gpus, corpus, tmp_path):
    # M=9 and M=31 share the align32 key 32, but each shape has another best block
    shapes = tmp_path / "shared.yaml"
    shapes.write_text("BlasBenchmark:\n  shapes: [[1, 9, 16, 8], [1, 31, 16, 8]]\n")
    out = tmp_path / "sweep"
    proc = sweep(gpus, corpus, out, "--shape-file", str(shapes))
    assert f"SWEEP_MERGE_CONFLICT kernel={MM} " in proc.stdout
    assert "SWEEP_PUBLISHED mode=serial reason=merge_conflict " in proc.stdout


def test_parallel_warmup_gpus_chooses_the_devices(gpus, corpus, tmp_path):
    proc = sweep(gpus, corpus, tmp_path / "one", env={"PARALLEL_WARMUP_GPUS": "1"})
    assert f"SWEEP_SERIAL reason=one_device device=1" in proc.stdout
    proc = sweep(gpus, corpus, tmp_path / "twice", "--devices", f"0,{GPU0}", check_rc=2)
    assert "device GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c is listed twice" in proc.stderr
