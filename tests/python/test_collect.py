"""zl_collect: pytest's own collection of a FlagGems-like benchmark folder (the three ways old
releases mark an op, module and class `pytestmark`, the ini's `median`, a plugin's mark, a
broken file), run in a subprocess as zl runs it."""
import json
import subprocess

import pytest

import zl_collect
from .zl_testlib import PYTHON, parse_marker, plugin_env

PYTEST_INI = """[pytest]
filterwarnings = ignore::pytest.PytestUnknownMarkWarning
markers =
    median: Median operator tests
"""

CONFTEST = """
def pytest_configure(config):
    config.addinivalue_line("markers", "gpu_only(reason): registered by a plugin, not an op")
"""

UNARY = """
import operator

import pytest

forward_operations = [
    ("abs", abs, ["float32"]),
    ("neg", operator.neg, ["float32"]),
]
backward_operations = [("gelu", None, ["float32"])]


@pytest.mark.parametrize(
    "op_name, torch_op, dtypes",
    [
        pytest.param(name, op, dtype, marks=getattr(pytest.mark, name, None))
        for name, op, dtype in forward_operations
    ],
)
def test_general_unary_pointwise_perf(op_name, torch_op, dtypes):
    pass


@pytest.mark.parametrize(
    "op_name, torch_op, dtypes",
    [
        pytest.param(name, op, dtype, marks=getattr(pytest.mark, name + "_backward", None))
        for name, op, dtype in backward_operations
    ],
)
def test_general_unary_pointwise_backward_perf(op_name, torch_op, dtypes):
    pass


@pytest.mark.isin
@pytest.mark.gpu_only
@pytest.mark.skipif(False, reason="never")
def test_isin_perf():
    pass
"""

BLAS = """
import pytest


@pytest.mark.parametrize(
    "op_name, n",
    [
        pytest.param("mm", 1, marks=pytest.mark.mm),
        pytest.param("addmm", 2, marks=[pytest.mark.addmm, pytest.mark.skipif(False, reason="x")]),
    ],
)
def test_blas_benchmark(op_name, n):
    pass


class TestDot:
    pytestmark = pytest.mark.dot

    def test_dot(self):
        pass
"""

MEDIAN = """
import pytest


@pytest.mark.median
def test_median():
    pass
"""

VLLM = """
import pytest

pytestmark = [pytest.mark.fused_moe, pytest.mark.gpu_only]


@pytest.mark.fused_moe_int8
def test_fused_moe_int8():
    pass


@pytest.mark.fused_moe
def test_fused_moe():
    pass
"""

BROKEN = "import pytest\n\n\ndef test_broken(:\n    pass\n"


def item(file, test_id, function, marks):
    return {"nodeid": f"{file}::{test_id}", "file": file, "function": function, "marks": marks}


UNARY_FILE = "benchmark/test_unary_pointwise_perf.py"
EXPECTED_ITEMS = [
    item("benchmark/test_blas_perf.py", "test_blas_benchmark[mm-1]", "test_blas_benchmark", ["mm"]),
    item("benchmark/test_blas_perf.py", "test_blas_benchmark[addmm-2]", "test_blas_benchmark",
         ["addmm"]),
    item("benchmark/test_blas_perf.py", "TestDot::test_dot", "test_dot", ["dot"]),
    item("benchmark/test_median.py", "test_median", "test_median", ["median"]),
    item(UNARY_FILE, "test_general_unary_pointwise_perf[abs-abs-dtypes0]",
         "test_general_unary_pointwise_perf", ["abs"]),
    item(UNARY_FILE, "test_general_unary_pointwise_perf[neg-neg-dtypes1]",
         "test_general_unary_pointwise_perf", ["neg"]),
    item(UNARY_FILE, "test_general_unary_pointwise_backward_perf[gelu-None-dtypes0]",
         "test_general_unary_pointwise_backward_perf", ["gelu_backward"]),
    item(UNARY_FILE, "test_isin_perf", "test_isin_perf", ["isin"]),
    item("benchmark/test_vllm_perf.py", "test_fused_moe_int8", "test_fused_moe_int8",
         ["fused_moe_int8", "fused_moe"]),
    item("benchmark/test_vllm_perf.py", "test_fused_moe", "test_fused_moe", ["fused_moe"]),
]


@pytest.fixture
def flaggems(tmp_path):
    """A FlagGems-like checkout: pytest.ini, benchmark/conftest.py and four category files."""
    root = tmp_path / "FlagGems"
    bench = root / "benchmark"
    bench.mkdir(parents=True)
    (root / "pytest.ini").write_text(PYTEST_INI)
    for name, text in (("__init__.py", ""), ("conftest.py", CONFTEST),
                       ("test_unary_pointwise_perf.py", UNARY), ("test_blas_perf.py", BLAS),
                       ("test_median.py", MEDIAN), ("test_vllm_perf.py", VLLM)):
        (bench / name).write_text(text)
    return root


def collect(cwd, *args, out=None, plugin=True):
    """`python -m pytest --collect-only -q -p zl_collect -p no:cacheprovider ARGS` as zl runs it."""
    env = plugin_env(**({"ZL_COLLECT_OUT": str(out)} if out is not None else {}))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    load = ("-p", "zl_collect") if plugin else ()
    return subprocess.run([PYTHON, "-m", "pytest", "--collect-only", "-q", *load,
                           "-p", "no:cacheprovider", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_items_carry_their_op_marks(flaggems, tmp_path):
    out = tmp_path / "collect.json"
    proc = collect(flaggems, "benchmark", out=out)
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout + proc.stderr
    assert json.loads(out.read_text()) == {"format": 1, "items": EXPECTED_ITEMS, "errors": []}
    assert proc.stderr == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FlagGems", "collect.json"]  # no tmp


def test_files_are_relative_to_the_invocation_folder(flaggems, tmp_path):
    """Node ids are relative to the rootdir (the ini's folder); `file` to where pytest ran."""
    out = tmp_path / "collect.json"
    proc = collect(tmp_path, "FlagGems/benchmark/test_median.py", out=out)
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout + proc.stderr
    assert json.loads(out.read_text())["items"] == [
        {"nodeid": "benchmark/test_median.py::test_median",
         "file": "FlagGems/benchmark/test_median.py", "function": "test_median",
         "marks": ["median"]}]


def test_collection_errors_are_listed_with_pytests_exit_status(flaggems, tmp_path):
    (flaggems / "benchmark" / "test_bad_perf.py").write_text(BROKEN)
    (flaggems / "benchmark" / "test_import_perf.py").write_text("import no_such_module_zl\n")
    out = tmp_path / "collect.json"
    proc = collect(flaggems, "benchmark", out=out)
    plain = collect(flaggems, "benchmark", plugin=False)
    assert proc.returncode == plain.returncode == pytest.ExitCode.INTERRUPTED
    with pytest.raises(SyntaxError) as syntax:
        compile(BROKEN, "test_bad_perf.py", "exec")
    doc = json.loads(out.read_text())
    assert doc["items"] == EXPECTED_ITEMS
    assert doc["errors"] == [
        {"file": "benchmark/test_bad_perf.py",
         "error": f'File "benchmark/test_bad_perf.py", line {syntax.value.lineno} '
                  f'{syntax.value.text.strip()} SyntaxError: {syntax.value.msg}'},
        {"file": "benchmark/test_import_perf.py",
         "error": "ModuleNotFoundError: No module named 'no_such_module_zl'"}]


def test_no_tests_keeps_pytests_exit_status(tmp_path):
    (tmp_path / "benchmark").mkdir()
    out = tmp_path / "collect.json"
    proc = collect(tmp_path, "benchmark", out=out)
    assert proc.returncode == pytest.ExitCode.NO_TESTS_COLLECTED
    assert json.loads(out.read_text()) == {"format": 1, "items": [], "errors": []}


def test_written_at_session_end_when_collection_did_not_finish(flaggems, tmp_path):
    """A plugin's hook wrapper raises before any pytest_collection_finish runs: the session
    ends with an internal error, and the file is still written at pytest_sessionfinish."""
    (flaggems / "benchmark" / "conftest.py").write_text(CONFTEST + """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_finish(session):
    raise RuntimeError("a plugin broke")
    yield
""")
    out = tmp_path / "collect.json"
    proc = collect(flaggems, "benchmark/test_median.py", out=out)
    assert proc.returncode == pytest.ExitCode.INTERNAL_ERROR
    assert json.loads(out.read_text())["items"] == [EXPECTED_ITEMS[3]]


def test_nothing_is_written_when_collection_never_began(flaggems, tmp_path):
    (flaggems / "benchmark" / "conftest.py").write_text(CONFTEST + """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    raise RuntimeError("a plugin broke")
    yield
""")
    out = tmp_path / "collect.json"
    proc = collect(flaggems, "benchmark/test_median.py", out=out)
    assert proc.returncode == pytest.ExitCode.INTERNAL_ERROR
    assert "a plugin broke" in proc.stdout + proc.stderr
    assert not out.exists()


def test_without_zl_collect_out_nothing_is_written_or_printed(flaggems, tmp_path):
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    proc = collect(flaggems, "benchmark")
    plain = collect(flaggems, "benchmark", plugin=False)
    assert proc.returncode == plain.returncode == pytest.ExitCode.OK
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    # the same output as without the plugin, but for the summary line's time
    assert proc.stdout.splitlines()[:-1] == plain.stdout.splitlines()[:-1]
    assert proc.stdout.splitlines()[-1].startswith(f"{len(EXPECTED_ITEMS)} tests collected")
    assert proc.stderr == plain.stderr == ""


def test_write_failure_is_a_marker_not_a_crash(flaggems, tmp_path):
    out = tmp_path / "missing" / "collect.json"
    proc = collect(flaggems, "benchmark/test_median.py", out=out)
    assert proc.returncode == pytest.ExitCode.OK
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("ZL_")]
    assert parse_marker(line) == ("ZL_COLLECT_WRITE_FAILED",
                                  {"path": str(out), "error": "No such file or directory"})
    assert not (tmp_path / "missing").exists()


def test_error_summary_is_one_short_paragraph():
    text = "E   RuntimeError: " + "x" * 600 + "\nE   \n  File x\nE     ^^^\n"
    summary = zl_collect.error_summary(text)
    assert len(summary) == zl_collect.ERROR_MAX_CHARS and summary.endswith("…")
    assert summary.startswith("RuntimeError: xxx") and "\n" not in summary
    assert zl_collect.error_summary("ImportError while importing\nTraceback:\n  a.py:1") == (
        "ImportError while importing Traceback: a.py:1")
    text = 'E     File "/work/fg/benchmark/test_x.py", line 3\nE   SyntaxError: invalid syntax'
    assert zl_collect.error_summary(text, "/work/fg") == (
        'File "benchmark/test_x.py", line 3 SyntaxError: invalid syntax')
    assert zl_collect.error_summary(text, "/") == (
        'File "/work/fg/benchmark/test_x.py", line 3 SyntaxError: invalid syntax')
