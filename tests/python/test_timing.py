"""zl_timing: ZL_TIMER, and the hook on the base module's kernel-mode timer, run in real
inner pytest sessions over the sample corpus (its own do_bench) and over a FlagGems-like base
(triton.testing.do_bench), with fake device interfaces."""
import sys
import types

import pytest

from .fakes import install_flag_gems, install_torch, install_triton
from .zl_testlib import CUDA_BACKEND, MUSA_BACKEND, marker_lines, parse_marker

FAST = ("-s", "--level", "core", "--dtypes", "float32", "--warmup", "1", "--iter", "2")
GRAPH_PLUGINS = ("-p", "zl_device_setup", "-p", "zl_timing", "-p", "zl_capture")
REFUSED = "operation not permitted when stream is capturing"
CAPTURE = {"refused": [REFUSED], "device_fault": ["an illegal memory access was encountered"],
           "poisoned": ["MUSA error: unknown error"], "deny_ops": []}


def fields(result, name):
    return [parse_marker(line)[1] for line in marker_lines(result.outlines, name)]


@pytest.fixture
def musa(monkeypatch, write_plan):
    """A fake torch.musa and flag_gems(mthreads), and a graph-timer plan for the musa backend."""
    _, iface = install_torch(monkeypatch)
    install_flag_gems(monkeypatch, "mthreads")

    def plan(**capture):
        write_plan(backend=MUSA_BACKEND, timer="graph", capture=dict(CAPTURE, **capture))
        return iface

    return plan


def test_direct_timer_reports_and_imports_nothing(corpus, write_plan):
    write_plan()
    for name in ("torch", "triton", "flag_gems"):
        corpus.makepyfile(**{name: "raise ImportError('imported for timer=direct')"})
    result = corpus.runpytest("benchmark/test_abs.py", "benchmark/test_add.py", *FAST,
                              "-p", "zl_device_setup", "-p", "zl_timing", "-p", "zl_identity")
    result.assert_outcomes(passed=5)
    timers = fields(result, "ZL_TIMER")
    assert [t["op"] for t in timers] == ["abs", "abs_inplace", "add", "add_alpha", "add_alpha"]
    assert {t["timer"] for t in timers} == {"direct"}
    assert {t["reason"] for t in timers} == {"plan"}
    assert timers[3]["node"] == "benchmark/test_add.py::test_add_alpha[2]"
    # each ZL_TIMER precedes the tables of its test function
    first_table = result.outlines.index(
        "Operator: abs  Performance Test (dtype=torch.float32, mode=kernel,level=core)")
    assert result.outlines[first_table - 2].startswith("ZL_TIMER op=abs ")


def test_host_modes_report_the_host_clock(corpus, write_plan):
    write_plan(mode="operator")
    result = corpus.runpytest("benchmark/test_sum.py::test_sum", *FAST, "--mode", "operator",
                              "-p", "zl_timing")
    result.assert_outcomes(passed=1)
    assert fields(result, "ZL_TIMER") == [{"op": "sum", "timer": "host", "requested": "auto",
                                          "reason": "mode_operator",
                                          "node": "benchmark/test_sum.py::test_sum"}]


def test_graph_timer_captures_through_the_interface(corpus, musa):
    iface = musa()
    result = corpus.runpytest("benchmark/test_add.py::test_add", *FAST, *GRAPH_PLUGINS)
    result.assert_outcomes(passed=1)
    assert fields(result, "ZL_TIMER")[0]["timer"] == "graph"
    # 3 shapes x (torch side + gems side), each captured once
    assert iface.capture_attempts == ["add"] * 6
    assert not marker_lines(result.outlines, "BENCHMARK_DIRECT_NO_CUDAGRAPH")
    assert sum(line.startswith("SUCCESS") for line in result.outlines) == 3


def test_refused_shapes_fall_back_with_the_tables_names(corpus, musa):
    iface = musa()
    iface.capture_failure = lambda op, n: RuntimeError(REFUSED) if op == "abs" else None
    result = corpus.runpytest("benchmark/test_abs.py", *FAST, *GRAPH_PLUGINS)
    result.assert_outcomes(passed=2)
    refused = fields(result, "BENCHMARK_DIRECT_NO_CUDAGRAPH")
    assert refused == [
        {"op": "abs", "dtype": "torch.float32", "shape": shape, "reason": REFUSED}
        for shape in ("[torch.Size([1024])]", "[torch.Size([64, 64])]",
                      "[torch.Size([16, 32, 32])]")]
    table_shapes = [line.split("          ")[-1] for line in result.outlines
                    if line.startswith("SUCCESS")]
    assert [r["shape"] for r in refused] == table_shapes[:3]
    assert iface.capture_attempts.count("abs_inplace") == 6  # the other op captured


def test_poisoned_op_fails_and_stops(corpus, musa):
    iface = musa()
    iface.capture_failure = lambda op, n: (
        RuntimeError("MUSA error: unknown error") if op == "add_alpha" else None)
    result = corpus.runpytest("benchmark/test_add.py", *FAST, *GRAPH_PLUGINS)
    result.assert_outcomes(passed=1, failed=2)
    assert fields(result, "BENCHMARK_CAPTURE_POISONED") == [
        {"op": "add_alpha", "reason": "MUSA error: unknown error"}]
    assert iface.capture_attempts.count("add_alpha") == 1  # the second item attempts nothing
    timers = {t["node"]: t for t in fields(result, "ZL_TIMER")}
    assert timers["benchmark/test_add.py::test_add_alpha[0.5]"]["timer"] == "none"
    assert timers["benchmark/test_add.py::test_add_alpha[0.5]"]["reason"] == "capture_poisoned"
    result.stdout.fnmatch_lines(["*add_alpha is capture-incompatible*"])


def test_deny_listed_op_is_timed_directly(corpus, musa):
    iface = musa(deny_ops=["abs_inplace"])
    result = corpus.runpytest("benchmark/test_abs.py", *FAST, *GRAPH_PLUGINS)
    result.assert_outcomes(passed=2)
    timers = {t["op"]: (t["timer"], t["reason"]) for t in fields(result, "ZL_TIMER")}
    assert timers == {"abs": ("graph", "plan"), "abs_inplace": ("direct", "capture_denied")}
    assert fields(result, "BENCHMARK_CAPTURE_DENIED") == [{"op": "abs_inplace"}]
    assert "abs_inplace" not in iface.capture_attempts
    assert sum(line.startswith("SUCCESS") for line in result.outlines) == 6


def test_device_fault_fails_the_test_without_a_table(corpus, musa):
    iface = musa()
    iface.capture_failure = lambda op, n: RuntimeError("an illegal memory access was encountered")
    result = corpus.runpytest("benchmark/test_sum.py::test_sum", *FAST, *GRAPH_PLUGINS)
    result.assert_outcomes(failed=1)
    assert not any(line.startswith("SUCCESS") for line in result.outlines)
    assert not marker_lines(result.outlines, "BENCHMARK_DIRECT_NO_CUDAGRAPH")
    result.stdout.fnmatch_lines(["*an illegal memory access was encountered*"])


def test_graph_timer_needs_zl_capture(corpus, musa):
    musa()
    result = corpus.runpytest("benchmark/test_sum.py", *FAST, "-p", "zl_timing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*timer=graph, but the zl_capture plugin is not loaded*"])


def test_profiler_timer_uses_device_kernel_time(corpus, write_plan, monkeypatch):
    torch, _ = install_torch(monkeypatch, device="cuda", graph_class="CUDAGraph")
    install_flag_gems(monkeypatch, "nvidia")
    write_plan(backend=CUDA_BACKEND, timer="profiler", timer_requested="profiler")
    result = corpus.runpytest("benchmark/test_sum.py::test_sum_dim", *FAST,
                              "-p", "zl_device_setup", "-p", "zl_timing")
    result.assert_outcomes(passed=1)
    assert fields(result, "ZL_TIMER")[0]["timer"] == "profiler"
    sessions = torch.profiler.sessions
    assert sessions and all(s.activities == ["CUDA"] for s in sessions)
    assert sum(line.startswith("SUCCESS") for line in result.outlines) == 2


def test_profiler_timer_without_an_activity_is_refused(corpus, write_plan, monkeypatch):
    install_torch(monkeypatch)
    install_flag_gems(monkeypatch, "mthreads")
    write_plan(backend=MUSA_BACKEND, timer="profiler")
    result = corpus.runpytest("benchmark/test_sum.py", *FAST, "-p", "zl_timing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*torch.profiler has no activity for device 'musa'*"])


FLAGGEMS_LIKE_BASE = """
import triton


class Benchmark:
    def __init__(self, op_name, torch_op, gems_op):
        self.op_name, self.torch_op, self.gems_op = op_name, torch_op, gems_op

    def record_shapes(self, *args, **kwargs):
        return [f"torch.Size([{a}])" for a in args]

    def get_input_iter(self, dtype):
        for n in (8, 16):
            yield (n,)

    def get_latency(self, op, *args, **kwargs):
        fn = lambda: op(*args, **kwargs)
        do_bench = triton.testing.do_bench  # looked up at call time, as FlagGems does
        return do_bench(fn, warmup=1, rep=7, return_mode="median")

    def run(self):
        for dtype in ("torch.float16",):
            for args in self.get_input_iter(dtype):
                self.get_latency(self.torch_op, *args)
                self.get_latency(self.gems_op, *args)
"""

TUNER = """
import triton


def autotuned(n):
    # an autotuner benchmarks its configs with do_bench from outside the benchmark folder
    triton.testing.do_bench(lambda: None, warmup=1, rep=1, quantiles=(0.5, 0.2, 0.8))
    return n
"""

FLAGGEMS_LIKE_TEST = """
from flaggems_src import tuner

from . import base


def test_mm():
    tuner.autotuned(1)  # outside any benchmark timing call
    base.Benchmark("mm", lambda n: n, tuner.autotuned).run()
"""


def test_flaggems_base_on_cuda_calls_upstream_cudagraph(pytester, write_plan, monkeypatch):
    testing = install_triton(monkeypatch, "3.2")
    original_do_bench = testing.do_bench
    install_torch(monkeypatch, device="cuda", graph_class="CUDAGraph")
    install_flag_gems(monkeypatch, "nvidia")
    write_plan(backend=CUDA_BACKEND, timer="graph", capture=CAPTURE)
    for package, name, text in (("benchmark", "base.py", FLAGGEMS_LIKE_BASE),
                                ("benchmark", "test_mm.py", FLAGGEMS_LIKE_TEST),
                                ("flaggems_src", "tuner.py", TUNER)):
        folder = pytester.path / package
        if not folder.exists():
            pytester.mkpydir(package)
        (folder / name).write_text(text)
    pytester.syspathinsert()
    result = pytester.runpytest("-s", *GRAPH_PLUGINS)
    result.assert_outcomes(passed=1)
    names = [name for name, _ in testing.calls]
    # the benchmark's 4 calls (2 shapes x 2 sides) go to do_bench_cudagraph, unchanged; the
    # autotuner's do_bench stays upstream: once outside, twice nested in the gems side's calls
    assert names.count("do_bench_cudagraph") == 4
    assert names.count("do_bench") == 1 + 2
    cudagraph_kwargs = [kw for name, kw in testing.calls if name == "do_bench_cudagraph"]
    assert all(kw["rep"] == 7 and kw["return_mode"] == "median" for kw in cudagraph_kwargs)
    assert testing.do_bench is original_do_bench  # unpatched after the session


# FlagGems v3.0–v5.0.2: Benchmark in benchmark/performance_utils.py, which raises for
# get_input_iter; the category test files define the subclasses (UnaryPointwiseBenchmark …).
OLD_PERFORMANCE_UTILS = FLAGGEMS_LIKE_BASE.replace('''    def get_input_iter(self, dtype):
        for n in (8, 16):
            yield (n,)
''', '''    def get_input_iter(self, dtype):
        raise NotImplementedError("Each Benchmark must implement its own input iterator.")
''')

OLD_CATEGORY_TEST = """
import pytest

{import_line}


class UnaryPointwiseBenchmark(Benchmark):
    def get_input_iter(self, cur_dtype):
        for n in (8, 16):
            yield (n,)


forward_operations = [("abs", abs)]


@pytest.mark.parametrize(
    "op_name, torch_op",
    [pytest.param(name, op, marks=getattr(pytest.mark, name, None))
     for name, op in forward_operations],
)
def test_general_unary_pointwise_perf(op_name, torch_op):
    UnaryPointwiseBenchmark(op_name, torch_op, torch_op).run()
"""


@pytest.mark.parametrize("package, import_line, musa", [
    (True, "from benchmark.performance_utils import Benchmark", False),  # v4.2.0, v5.0.2
    (False, "from performance_utils import Benchmark", False),
    (True, "from benchmark.performance_utils import Benchmark", True),  # their musa branch
])
def test_old_releases_performance_utils_base_is_hooked(pytester, write_plan, monkeypatch,
                                                       package, import_line, musa):
    testing = install_triton(monkeypatch, "3.2")
    utils = OLD_PERFORMANCE_UTILS
    if musa:  # v3.0-v5.0.2 time through triton.musa_testing.do_bench on musa
        musa_testing = types.ModuleType("triton.musa_testing")
        musa_testing.do_bench = testing.do_bench
        monkeypatch.setattr(sys.modules["triton"], "musa_testing", musa_testing, raising=False)
        monkeypatch.setitem(sys.modules, "triton.musa_testing", musa_testing)
        utils = utils.replace("triton.testing.do_bench", "triton.musa_testing.do_bench")
    attempts = []

    def refusing_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
        attempts.append(rep)
        raise RuntimeError(REFUSED)

    testing.do_bench_cudagraph = refusing_cudagraph
    install_torch(monkeypatch, device="cuda", graph_class="CUDAGraph")
    install_flag_gems(monkeypatch, "nvidia")
    write_plan(backend=CUDA_BACKEND, timer="graph", capture=CAPTURE)
    if package:
        pytester.mkpydir("benchmark")
    else:
        pytester.mkdir("benchmark")
    bench = pytester.path / "benchmark"
    (bench / "performance_utils.py").write_text(utils)
    (bench / "test_unary_pointwise_perf.py").write_text(
        OLD_CATEGORY_TEST.format(import_line=import_line))
    result = pytester.runpytest("-s", *GRAPH_PLUGINS)
    result.assert_outcomes(passed=1)
    assert [(t["timer"], t["reason"]) for t in fields(result, "ZL_TIMER")] == [("graph", "plan")]
    # each timing call is taken over: captured, refused, then timed by the upstream do_bench;
    # the dtype comes from the test file's subclass, the shape from the base's record_shapes
    assert attempts == [7] * 4
    assert [name for name, _ in testing.calls] == ["do_bench"] * 4
    assert fields(result, "BENCHMARK_DIRECT_NO_CUDAGRAPH") == [
        {"op": "abs", "dtype": "torch.float16", "shape": f"['torch.Size([{n}])']",
         "reason": REFUSED} for n in (8, 16)]
