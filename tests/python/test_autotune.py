"""zl_autotune: record and replay through fakes of Triton's Autotuner and FlagGems' LibTuner
(tests/fixtures/tuned_corpus/pylib), in real inner pytest sessions over the tuned corpus."""
import json
import shutil

import pytest

from .zl_testlib import CORPUS, ROOT, marker_lines, parse_marker

TUNED = ROOT / "tests" / "fixtures" / "tuned_corpus"
RUN = ("-s", "--level", "core", "--dtypes", "float16", "--warmup", "1", "--iter", "2",
       "-p", "zl_device_setup", "-p", "zl_timing", "-p", "zl_autotune")
MM = "benchmark.tuned_ops.mm_kernel"
SCALE = "benchmark.tuned_ops.scale_kernel"


def fields(result, name):
    return [parse_marker(line)[1] for line in marker_lines(result.outlines, name)]


@pytest.fixture
def tuned(pytester, monkeypatch):
    """The tuned corpus (corpus/benchmark's support files under the fixture's own) with the fake
    triton and flag_gems importable."""
    bench = pytester.path / "benchmark"
    bench.mkdir()
    for name in ("__init__", "base", "conftest", "consts", "host_ops", "timing"):
        shutil.copy(CORPUS / "benchmark" / f"{name}.py", bench)
    for path in (TUNED / "benchmark").iterdir():
        shutil.copy(path, bench)
    shutil.copy(TUNED / "pytest.ini", pytester.path)
    monkeypatch.syspath_prepend(str(TUNED / "pylib"))
    monkeypatch.delenv("FLAGGEMS_CACHE_DIR", raising=False)
    monkeypatch.delenv("FAKE_TUNER_FAIL_DEVICE", raising=False)
    return pytester


@pytest.fixture
def record(tuned, write_plan, tmp_path):
    """Runs a record session; returns (result, records folder)."""

    def run(*args):
        records = tmp_path / "rec" / "autotune_records"
        write_plan(autotune={"mode": "record", "source": None, "records_dir": str(records)})
        return tuned.runpytest("benchmark/test_tuned.py", *RUN, *args), records

    return run


def replay(tuned, write_plan, source, *args):
    write_plan(autotune={"mode": "replay", "source": str(source), "records_dir": None})
    return tuned.runpytest("benchmark/test_tuned.py", *RUN, *args)


def test_record_writes_one_file_per_kernel_with_named_key_fields(record):
    result, records = record()
    result.assert_outcomes(passed=2)
    assert fields(result, "AUTOTUNE_HOOK") == [{"mode": "record", "status": "hooked", "reason": ""}]
    tuned_keys = fields(result, "AUTOTUNE_BENCHMARKED")
    assert len(tuned_keys) == 8  # 6 mm shapes, 2 distinct scale lengths (64 twice, 100)
    assert tuned_keys[0] == {"kernel": MM, "configs": "16", "seconds": tuned_keys[0]["seconds"],
                             "key": "M:32,N:32,K:16,dtype_0:torch.float16,dtype_1:torch.float16"}
    manifest = json.loads((records / "manifest.json").read_text())
    assert manifest["kernels"] == {MM: {"file": f"{MM}.json", "keys": 6},
                                   SCALE: {"file": f"{SCALE}.json", "keys": 2}}
    assert manifest["summary"]["configs_benchmarked"] == 6 * 16 + 2 * 8
    mm = json.loads((records / f"{MM}.json").read_text())
    assert mm["key_fields"] == ["M", "N", "K"]
    assert mm["tuner"] == "flag_gems.utils.libentry.LibTunerDefault"
    assert mm["configs_in_space"] == 16
    first = mm["entries"][0]
    assert first["key"] == [32, 32, 16, "torch.float16", "torch.float16"]
    assert first["fields"] == {"M": 32, "N": 32, "K": 16, "dtype_0": "torch.float16",
                               "dtype_1": "torch.float16"}
    assert first["config"]["kwargs"] == {"BLOCK_M": 16, "BLOCK_N": 16}
    assert first["config"]["num_warps"] == 4 and first["config"]["num_stages"] == 2
    assert first["origin"] == "tuned" and first["configs_benchmarked"] == 16
    scale = json.loads((records / f"{SCALE}.json").read_text())
    assert scale["tuner"] == "triton.runtime.autotuner.Autotuner"
    assert [e["fields"] for e in scale["entries"]] == [
        {"N": 64, "dtype_0": "torch.float16"}, {"N": 100, "dtype_0": "torch.float16"}]
    summary = fields(result, "AUTOTUNE_SUMMARY")[0]
    assert summary["keys"] == "8" and summary["tuned"] == "8" and summary["fallbacks"] == "0"
    assert summary["records_dir"] == str(records)


def test_replay_pins_every_key_before_the_first_launch(record, tuned, write_plan):
    _, records = record()
    result = replay(tuned, write_plan, records.parent)  # a run folder is accepted too
    result.assert_outcomes(passed=2)
    assert fields(result, "AUTOTUNE_REPLAY_LOADED")[0]["keys"] == "8"
    assert fields(result, "AUTOTUNE_BENCHMARKED") == []
    assert fields(result, "AUTOTUNE_REPLAY_FALLBACK") == []
    summary = fields(result, "AUTOTUNE_SUMMARY")[0]
    assert summary["pinned"] == "8" and summary["configs_benchmarked"] == "0"
    assert summary["source"] == str(records)


def test_a_key_the_records_lack_self_tunes_under_a_fallback_marker(record, tuned, write_plan):
    _, records = record("-k", "tuned_mm")
    shapes = tuned.path / "more.yaml"
    shapes.write_text("BlasBenchmark:\n  shapes: [[1, 16, 16, 16], [1, 16, 16, 17]]\n"
                      "UnaryPointwiseBenchmark:\n  shapes: [[64]]\n")
    result = replay(tuned, write_plan, records, "--shape_file", str(shapes))
    result.assert_outcomes(passed=2)
    fallbacks = fields(result, "AUTOTUNE_REPLAY_FALLBACK")
    assert fallbacks[0] == {"reason": "key_missing", "kernel": MM, "recorded_kernel": "true",
                            "key": "M:32,N:32,K:17,dtype_0:torch.float16,dtype_1:torch.float16"}
    # the scale kernel was never recorded (-k tuned_mm): each of its keys falls back too
    assert [f["recorded_kernel"] for f in fallbacks[1:]] == ["false"]
    assert [b["key"] for b in fields(result, "AUTOTUNE_BENCHMARKED")][0].endswith(
        "K:17,dtype_0:torch.float16,dtype_1:torch.float16")
    summary = fields(result, "AUTOTUNE_SUMMARY")[0]
    assert summary["pinned"] == "1" and summary["fallbacks"] == "2"


def test_a_recorded_config_outside_the_tuners_space_is_not_pinned(record, tuned, write_plan):
    _, records = record("-k", "tuned_scale")
    path = records / f"{SCALE}.json"
    doc = json.loads(path.read_text())
    doc["entries"][0]["config"]["kwargs"]["BLOCK"] = 7
    path.write_text(json.dumps(doc))
    result = replay(tuned, write_plan, records, "-k", "tuned_scale")
    result.assert_outcomes(passed=1)
    assert [(f["reason"], f["key"]) for f in fields(result, "AUTOTUNE_REPLAY_FALLBACK")] == [
        ("config_unknown", "N:64,dtype_0:torch.float16")]


def test_a_shared_tuner_cache_hands_over_winners_recorded_as_cached(record, monkeypatch, tmp_path):
    monkeypatch.setenv("FLAGGEMS_CACHE_DIR", str(tmp_path / "shared-cache"))
    first, _ = record("-k", "tuned_mm")
    assert len(fields(first, "AUTOTUNE_BENCHMARKED")) == 6
    shutil.rmtree(tmp_path / "rec")
    second, records = record("-k", "tuned_mm")
    assert fields(second, "AUTOTUNE_BENCHMARKED") == []
    entries = json.loads((records / f"{MM}.json").read_text())["entries"]
    assert {e["origin"] for e in entries} == {"cached"}
    assert {e["configs_benchmarked"] for e in entries} == {0}


def test_replay_never_writes_the_tuners_cache(record, tuned, write_plan, monkeypatch, tmp_path):
    _, records = record("-k", "tuned_mm")
    monkeypatch.setenv("FLAGGEMS_CACHE_DIR", str(tmp_path / "cache"))
    replay(tuned, write_plan, records, "-k", "tuned_mm").assert_outcomes(passed=1)
    assert not (tmp_path / "cache").exists()


def test_off_imports_nothing_and_prints_nothing(corpus, write_plan):
    write_plan()
    corpus.makepyfile(triton="raise ImportError('imported with autotune off')")
    result = corpus.runpytest("benchmark/test_abs.py", "-s", "--level", "core", "-p", "zl_autotune")
    result.assert_outcomes(passed=2)
    assert not [line for line in result.outlines if line.startswith("AUTOTUNE_")]


def test_record_without_triton_says_so_and_still_writes_a_manifest(corpus, write_plan, tmp_path):
    records = tmp_path / "autotune_records"
    write_plan(autotune={"mode": "record", "source": None, "records_dir": str(records)})
    corpus.makepyfile(triton="raise ImportError('no triton here')")
    result = corpus.runpytest("benchmark/test_abs.py", "-s", "--level", "core", "-p", "zl_autotune")
    result.assert_outcomes(passed=2)
    hook = fields(result, "AUTOTUNE_HOOK")[0]
    assert hook["status"] == "unavailable" and "no triton here" in hook["reason"]
    manifest = json.loads((records / "manifest.json").read_text())
    assert manifest["kernels"] == {} and manifest["summary"]["hooked"] is False


@pytest.mark.parametrize("autotune, message", [
    ({"mode": "sometimes"}, "key 'autotune.mode' must be one of off, record, replay"),
    ({"mode": "replay", "source": None}, "key 'autotune.source' must name the records folder"),
    ({"mode": "record"}, "key 'autotune.records_dir' must name the folder to write"),
    ({"mode": "replay", "source": "/nonexistent/records"},
     "the records folder /nonexistent/records does not exist"),
])
def test_bad_autotune_plans_stop_with_a_usage_error(pytester, write_plan, autotune, message):
    write_plan(autotune=autotune)
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest("-p", "zl_autotune")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in "\n".join(result.errlines)
