"""zl_metrics: FlagGems' own gbps/tflops formulas asked for where the benchmark's class has them
(docs/plan-file.md, "Bandwidth and throughput")."""
import json
import types

import zl_metrics
import zl_patch

from .test_corpus import corpus_copy, run_corpus, tables  # noqa: F401 (a fixture)
from .zl_testlib import marker_lines, parse_marker, plan_dict, plugin_env

SHARED_DEFAULTS = ["latency_base", "latency", "speedup"]


def flaggems_like_module():
    """A base module shaped as FlagGems' base.py: set_metrics keeps the class's list itself
    (the shared DEFAULT_METRICS), the root's get_gbps raises, its get_tflops is a placeholder."""

    class Benchmark:
        DEFAULT_METRICS = SHARED_DEFAULTS

        def __init__(self, op_name):
            self.op_name = op_name
            self.metrics = self.DEFAULT_METRICS

        def set_metrics(self, user_desired_metrics):
            self.to_bench_metrics = user_desired_metrics or self.metrics

        def get_gbps(self, args, latency=None):
            raise NotImplementedError("Each Benchmark must implement its own input iterator.")

        def get_tflops(self, op, *args, **kwargs):
            return 1.0  # FlopCounterMode in FlagGems: not a formula

    class GenericBenchmark(Benchmark):
        pass

    class UnaryReductionBenchmark(Benchmark):
        def get_gbps(self, args, latency=None):
            return 2.0 / latency

    class UnaryPointwiseBenchmark(Benchmark):
        DEFAULT_METRICS = SHARED_DEFAULTS + ["tflops"]

        def get_tflops(self, op, *args, **kwargs):
            return 4.0

    class BrokenGbps(Benchmark):
        def get_gbps(self, args, latency=None):
            raise ZeroDivisionError("no bytes")

    return types.SimpleNamespace(Benchmark=Benchmark, GenericBenchmark=GenericBenchmark,
                                 UnaryReductionBenchmark=UnaryReductionBenchmark,
                                 UnaryPointwiseBenchmark=UnaryPointwiseBenchmark,
                                 BrokenGbps=BrokenGbps)


def hooked():
    module, patches = flaggems_like_module(), zl_patch.Patcher()
    zl_metrics.hook(patches, [module])
    return module, patches


def metrics_of(cls, desired=None):
    bench = cls(cls.__name__.lower())
    bench.set_metrics(desired)
    return bench


def test_a_class_with_its_own_formula_gets_that_metric_and_no_other(capsys):
    m, _ = hooked()
    assert metrics_of(m.UnaryReductionBenchmark).to_bench_metrics == SHARED_DEFAULTS + ["gbps"]
    assert metrics_of(m.UnaryPointwiseBenchmark).to_bench_metrics == SHARED_DEFAULTS + ["tflops"]
    assert metrics_of(m.GenericBenchmark).to_bench_metrics == SHARED_DEFAULTS
    added = [parse_marker(line) for line in marker_lines(capsys.readouterr().out.splitlines(),
                                                         "ZL_METRICS_ADDED")]
    assert added == [("ZL_METRICS_ADDED", {"op": "unaryreductionbenchmark",
                                           "benchmark": "UnaryReductionBenchmark",
                                           "added": "gbps"})]


def test_the_shared_default_list_is_never_appended_to():
    m, _ = hooked()
    metrics_of(m.UnaryReductionBenchmark)
    assert SHARED_DEFAULTS == ["latency_base", "latency", "speedup"]
    assert m.Benchmark.DEFAULT_METRICS is SHARED_DEFAULTS
    assert metrics_of(m.GenericBenchmark).to_bench_metrics == ["latency_base", "latency", "speedup"]


def test_a_users_own_metrics_are_left_as_given():
    m, _ = hooked()
    assert metrics_of(m.UnaryReductionBenchmark, ["latency"]).to_bench_metrics == ["latency"]


def test_a_failing_formula_gives_zero_and_one_marker(capsys):
    m, _ = hooked()
    bench = metrics_of(m.BrokenGbps)
    assert bench.to_bench_metrics[-1] == "gbps"
    assert bench.get_gbps([], latency=1.0) == 0.0
    assert bench.get_gbps([], latency=2.0) == 0.0
    failed = marker_lines(capsys.readouterr().out.splitlines(), "ZL_METRIC_FAILED")
    assert len(failed) == 1
    assert parse_marker(failed[0])[1] == {"op": "brokengbps", "metric": "gbps",
                                          "reason": "ZeroDivisionError: no bytes"}


def test_a_formula_zl_did_not_add_raises_as_upstream():
    m, _ = hooked()
    bench = metrics_of(m.BrokenGbps, ["latency", "gbps"])
    try:
        bench.get_gbps([], latency=1.0)
    except ZeroDivisionError:
        return
    raise AssertionError("the user's own --metrics gbps must fail as FlagGems does")


def test_restore_puts_every_class_back():
    m, patches = hooked()
    assert zl_patch.is_wrapped(m.Benchmark.__dict__["set_metrics"])
    patches.restore()
    for cls in (m.Benchmark, m.UnaryReductionBenchmark, m.UnaryPointwiseBenchmark):
        assert not any(zl_patch.is_wrapped(v) for v in vars(cls).values())
    assert metrics_of(m.UnaryReductionBenchmark).to_bench_metrics == SHARED_DEFAULTS


def run_sum(corpus, tmp_path, **plan):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_dict(op="sum", node="benchmark/test_sum.py", marker="sum",
                                         **plan)))
    return run_corpus(corpus, "benchmark/test_sum.py", "-s", "--level", "core",
                      "-p", "zl_device_setup", "-p", "zl_timing", "-p", "zl_identity",
                      env=plugin_env(ZL_PLAN=str(path)))


def test_the_corpus_reduction_prints_gbps_at_core_level(corpus_copy, tmp_path):  # noqa: F811
    proc = run_sum(corpus_copy, tmp_path, formula_metrics=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = tables(proc.stdout)
    assert "Gems GBPS" in found[("sum", "torch.float32", "core")][0]
    # sum_dim is a GenericBenchmark: no formula, so no column and no failure.
    assert "GBPS" not in found[("sum_dim", "torch.float32", "core")][0]
    added = marker_lines(proc.stdout.splitlines(), "ZL_METRICS_ADDED")
    assert [parse_marker(line)[1]["op"] for line in added] == ["sum"]


def test_without_formula_metrics_the_tables_are_flaggems_own(corpus_copy, tmp_path):  # noqa: F811
    proc = run_sum(corpus_copy, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "GBPS" not in tables(proc.stdout)[("sum", "torch.float32", "core")][0]
    assert not marker_lines(proc.stdout.splitlines(), "ZL_METRICS_ADDED")
