"""The sample corpus, run end to end through real pytest (/usr/bin/python3, Debian packages
only): FlagGems' table and record-log formats byte for byte (docs/flaggems-facts.md
§1, §3), its log file naming rule, and shape resolution by op key, then class chain."""
import importlib.util
import json
import re
import shutil
import subprocess

import pytest

from .zl_testlib import CORPUS, PYTHON, marker_lines, plan_dict, plugin_env

# FlagGems' table format (docs/flaggems-facts.md §1), verbatim; the numbers are made up.
ABS_TABLE = """
Operator: abs  Performance Test (dtype=torch.float16, mode=kernel,level=core)
Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup               TFLOPS          Size Detail
--------------------------------------------------------------------------------------------------------------------
SUCCESS               0.001100            0.001000               1.100            1073.742          [torch.Size([1073741824])]
SUCCESS               0.001100            0.001000               1.100               0.004          [torch.Size([64, 64])]
"""
SUM_DIM_OUT_TABLE = """
Operator: sum_dim_out  Performance Test (dtype=torch.float16, mode=kernel,level=core)
Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup          Size Detail
-----------------------------------------------------------------------------------------------
SUCCESS               0.001100            0.001000               1.100          ([torch.Size([1073741824]), 0], {'out': torch.Size([])})
"""
SUM_GBPS_TABLE = """
Operator: sum  Performance Test (dtype=torch.float32, mode=kernel,level=comprehensive)
Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup          Torch GBPS            Gems GBPS           Size Detail
-----------------------------------------------------------------------------------------------------------------------------------------
SUCCESS               0.010000            0.009000               1.111             419.400             466.000          [torch.Size([1048576])]
"""
FAILED_ROW = "FAILED                     N/A                 N/A                 N/A          [torch.Size([4096, 4096])]\n"  # noqa: E501
TFLOPS_HEADER = ABS_TABLE.splitlines()[2]
PLAIN_HEADER = SUM_DIM_OUT_TABLE.splitlines()[2]
GBPS_HEADER = SUM_GBPS_TABLE.splitlines()[2]


@pytest.fixture(scope="module")
def consts():
    """The corpus' consts module, loaded under its own name (not as `benchmark.consts`, which
    would shadow the corpus copies that other tests run in inner sessions)."""
    spec = importlib.util.spec_from_file_location("zl_corpus_consts",
                                                  CORPUS / "benchmark" / "consts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table(consts, op, dtype, level, rows):
    metrics = [consts.BenchmarkMetrics(**row) for row in rows]
    return str(consts.BenchmarkResult(op_name=op, dtype=dtype, mode="kernel", level=level,
                                      result=metrics))


def test_table_format_is_flaggems_byte_for_byte(consts):
    size = consts.Size
    assert table(consts, "abs", "torch.float16", "core", [
        dict(latency_base=0.0011, latency=0.001, speedup=1.1, tflops=1073.742,
             shape_detail=[size([1073741824])]),
        dict(latency_base=0.0011, latency=0.001, speedup=1.1, tflops=0.004,
             shape_detail=[size([64, 64])])]) == ABS_TABLE
    assert table(consts, "sum_dim_out", "torch.float16", "core", [
        dict(latency_base=0.0011, latency=0.001, speedup=1.1,
             shape_detail=([size([1073741824]), 0], {"out": size([])}))]) == SUM_DIM_OUT_TABLE
    assert table(consts, "sum", "torch.float32", "comprehensive", [
        dict(latency_base=0.01, latency=0.009, speedup=1.111, gbps_base=419.4, gbps=466.0,
             shape_detail=[size([1048576])])]) == SUM_GBPS_TABLE
    failed = table(consts, "abs", "torch.float16", "core", [
        dict(error_msg="boom", shape_detail=[size([4096, 4096])])])
    assert failed.endswith(FAILED_ROW)
    assert [len(h) + 1 for h in (PLAIN_HEADER, TFLOPS_HEADER, GBPS_HEADER)] == [95, 116, 137]


def test_record_json_line_keys(consts):
    result = consts.BenchmarkResult(op_name="mm", dtype="torch.float16", mode="kernel",
                                    level="core", result=[consts.BenchmarkMetrics(
                                        shape_detail=[consts.Size([384, 384])] * 2)])
    doc = json.loads(result.to_json())
    assert list(doc) == ["op_name", "dtype", "mode", "level", "result"]
    assert list(doc["result"][0]) == [
        "legacy_shape", "shape_detail", "latency_base", "latency", "gbps_base", "gbps",
        "speedup", "accuracy", "tflops", "utilization", "compared_speedup", "error_msg"]
    assert doc["result"][0]["shape_detail"] == [[384, 384], [384, 384]]


@pytest.fixture
def corpus_copy(tmp_path):
    """A copy of the corpus to run in, so that record logs never land in the repository."""
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root, ignore=shutil.ignore_patterns("__pycache__", "result_*"))
    return root


def run_corpus(cwd, *args, env=None):
    proc = subprocess.run([PYTHON, "-m", "pytest", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env or plugin_env())
    return proc


def tables(stdout):
    """{(op, dtype, level): (header line, [rows])} of every table printed."""
    found, lines = {}, stdout.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"Operator: (\S+)  Performance Test \(dtype=(\S+), mode=kernel,level=(\w+)\)$",
                     line)
        if m:
            header, dashes = lines[i + 1], lines[i + 2]
            assert dashes == "-" * (len(header) + 1)
            rows = []
            for row in lines[i + 3:]:
                if not row.startswith(("SUCCESS", "FAILED")):
                    break
                rows.append(row)
            found[m.groups()] = (header, rows)
    return found


def check_row(row, cells):
    """SUCCESS, `cells` right-aligned 20-wide numbers, ten spaces, the Size Detail."""
    assert row[:10] == "SUCCESS   "
    for i in range(cells):
        cell = row[10 + 20 * i:30 + 20 * i]
        assert re.fullmatch(r" +\d+\.\d{3}(\d{3})?", cell), (row, cell)
    assert row[10 + 20 * cells:20 + 20 * cells] == " " * 10
    return row[20 + 20 * cells:]


def test_corpus_prints_flaggems_tables(corpus_copy):
    proc = run_corpus(corpus_copy, "benchmark/test_abs.py", "-s", "--level", "core",
                      "--mode", "kernel")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    first = lines.index("benchmark/test_abs.py ")
    assert lines[first + 1] == ("Operator: abs  Performance Test (dtype=torch.float16, "
                                "mode=kernel,level=core)")
    found = tables(proc.stdout)
    assert set(found) == {(op, f"torch.{d}", "core") for op in ("abs", "abs_")
                          for d in ("float16", "float32", "bfloat16")}
    header, rows = found[("abs", "torch.float16", "core")]
    assert header == TFLOPS_HEADER
    assert [check_row(row, 4) for row in rows] == [
        "[torch.Size([1024])]", "[torch.Size([64, 64])]", "[torch.Size([16, 32, 32])]"]


def test_shapes_resolve_by_op_key_then_class_chain(corpus_copy):
    proc = run_corpus(corpus_copy, "benchmark/test_mm.py", "benchmark/test_sum.py",
                      "benchmark/test_add.py::test_add", "-s", "--level", "core",
                      "--dtypes", "float32", "--warmup", "1", "--iter", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = tables(proc.stdout)

    def details(op, cells):
        header, rows = found[(op, "torch.float32", "core")]
        return [check_row(row, cells) for row in rows]

    # mm has no key of its own: BlasBenchmark's shapes (B, M, N, K), B not shown
    assert details("mm", 4) == ["[torch.Size([16, 16]), torch.Size([16, 16])]",
                                "[torch.Size([32, 32]), torch.Size([32, 32])]",
                                "[torch.Size([24, 32]), torch.Size([32, 40])]"]
    assert details("sum_dim", 3) == ["[torch.Size([64, 64]), 1]", "[torch.Size([32, 128]), 1]"]
    assert details("sum", 3) == ["[torch.Size([4096])]", "[torch.Size([64, 64])]",
                                 "[torch.Size([8, 32, 32])]"]  # UnaryReductionBenchmark key
    assert details("sum_dim_out", 3)[0] == "([torch.Size([1024]), 0], {'out': torch.Size([])})"
    assert details("add", 4)[1] == "[torch.Size([64, 64]), torch.Size([64, 64])]"  # Benchmark
    assert found[("sum_dim_out", "torch.float32", "core")][0] == PLAIN_HEADER


def test_comprehensive_level_adds_shapes_layouts_and_gbps(corpus_copy):
    proc = run_corpus(corpus_copy, "benchmark/test_mm.py", "benchmark/test_sum.py::test_sum",
                      "-s", "--dtypes", "float32", "--warmup", "1", "--iter", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = tables(proc.stdout)
    header, rows = found[("mm", "torch.float32", "comprehensive")]
    assert len(rows) == 2 * (3 + 2)  # YAML + set_more_shapes, then again with B column-major
    header, rows = found[("sum", "torch.float32", "comprehensive")]
    assert header == GBPS_HEADER and len(rows) == 3 + 2
    check_row(rows[0], 5)


def test_record_log_name_and_lines(corpus_copy):
    proc = run_corpus(corpus_copy, "benchmark/test_abs.py", "--level", "core", "--record", "log")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = corpus_copy / "result_benchmark_test_abs--level_core--record_log.log"
    lines = log.read_text().splitlines()
    assert lines[0] == "[INFO] Benchmark record logger enabled"
    assert len(lines) == 1 + 2 * 3  # one line per (operator, dtype)
    doc = json.loads(lines[1][len("[INFO] "):])
    assert list(doc) == ["op_name", "dtype", "mode", "level", "result"]
    assert (doc["op_name"], doc["dtype"], doc["mode"], doc["level"]) == (
        "abs", "torch.float16", "kernel", "core")
    assert [r["shape_detail"] for r in doc["result"]] == [[[1024]], [[64, 64]], [[16, 32, 32]]]
    assert doc["result"][0]["error_msg"] is None and doc["result"][0]["tflops"] > 0


def test_whole_corpus_with_zl_plugins_on_the_cpu_backend(corpus_copy, tmp_path):
    versions = tmp_path / "run" / "python_versions.json"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(plan_dict(versions_file=str(versions),
                                         flaggems_dir=str(corpus_copy))))
    proc = run_corpus(corpus_copy, "benchmark", "-s", "-rs", "--level", "core",
                      "-p", "zl_device_setup", "-p", "zl_timing", "-p", "zl_identity",
                      env=plugin_env(ZL_PLAN=str(plan)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "9 passed, 1 skipped" in proc.stdout
    assert re.search(r"SKIPPED \[1\] benchmark/test_fft.py:\d+: CUDA is not available",
                     proc.stdout)
    timers = marker_lines(proc.stdout.splitlines(), "ZL_TIMER")
    assert len(timers) == 9 and all(" timer=direct " in line for line in timers)
    doc = json.loads(versions.read_text())
    assert doc["torch"] is None and doc["flag_gems"] is None
