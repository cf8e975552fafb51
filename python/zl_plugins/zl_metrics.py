"""Not a plugin: zl_timing's request for a benchmark's own bandwidth and throughput formulas.

FlagGems computes a row's `gbps` (the benchmark's get_gbps) and `tflops` (get_tflops) only when
the metric is in the benchmark's list: `tflops` is there by default for the pointwise and BLAS
classes, `gbps` only for UnaryReductionBenchmark at --level comprehensive. Asking for them with
`--metrics gbps` fails every benchmark whose class has no formula: the root Benchmark.get_gbps
raises NotImplementedError, and its get_tflops is a placeholder that counts FLOPs with torch's
FlopCounterMode (flaggems.md §2.4).

With the plan's `formula_metrics` true, zl adds to one benchmark's own list each metric whose
formula its class defines itself, that is, overrides the root Benchmark's. The list is a new
one: FlagGems' classes share their DEFAULT_METRICS list, and appending to it would ask every
later benchmark of the session for the metric. A user's own `--metrics` is left as given. A
formula that zl asked for and that raises gives 0 for that row (no value: zl's readers leave it
out) and one ZL_METRIC_FAILED marker per op and metric; zl never turns a row into a failure.
Latencies are measured before the formulas run and are unchanged.

Each benchmark whose list grew writes `ZL_METRICS_ADDED op= benchmark= added=`.
"""
import inspect

import zl_patch
import zl_plan

FORMULAS = (("gbps", "get_gbps"), ("tflops", "get_tflops"))
_ADDED_ATTR = "_zl_added_metrics"
_FAILED_ATTR = "_zl_failed_metrics"


def hook(patches, modules):
    """Wraps set_metrics of each base module's Benchmark and the formulas of its class tree."""
    for module in modules:
        root = module.Benchmark
        patches.wrap_own(root, "set_metrics", lambda m, root=root: _wrap_set_metrics(m, root),
                         inspect.isfunction)
        for cls in zl_patch.class_tree(root):
            for metric, method in FORMULAS:
                patches.wrap_own(cls, method, lambda m, metric=metric: _guard(m, metric),
                                 inspect.isfunction)


def _unwrapped(fn):
    return getattr(fn, zl_patch.ORIGINAL, fn)


def defines_own(cls, root, method):
    """Whether `cls` has a `method` other than the root Benchmark's (its own or a base's)."""
    mine = getattr(cls, method, None)
    return mine is not None and _unwrapped(mine) is not _unwrapped(getattr(root, method, None))


def add_formulas(bench, root):
    """Adds the metrics whose formula `bench`'s class defines to its list; returns them."""
    listed = getattr(bench, "to_bench_metrics", None)
    if not isinstance(listed, list):
        return []
    added = [metric for metric, method in FORMULAS
             if metric not in listed and defines_own(type(bench), root, method)]
    if added:
        bench.to_bench_metrics = listed + added
        setattr(bench, _ADDED_ATTR, frozenset(added))
        zl_plan.marker("ZL_METRICS_ADDED", op=getattr(bench, "op_name", ""),
                       benchmark=type(bench).__name__, added=",".join(added))
    return added


def _wrap_set_metrics(original, root):
    @zl_patch.wraps(original)
    def set_metrics(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        desired = args[0] if args else kwargs.get("user_desired_metrics")
        if not desired:
            add_formulas(self, root)
        return result

    return set_metrics


def _guard(original, metric):
    @zl_patch.wraps(original)
    def formula(self, *args, **kwargs):
        if metric not in getattr(self, _ADDED_ATTR, ()):
            return original(self, *args, **kwargs)
        try:
            return original(self, *args, **kwargs)
        except Exception as e:  # noqa: BLE001 (any error of a formula zl asked for)
            failed = getattr(self, _FAILED_ATTR, set())
            if metric not in failed:
                setattr(self, _FAILED_ATTR, failed | {metric})
                zl_plan.marker("ZL_METRIC_FAILED", op=getattr(self, "op_name", ""),
                               metric=metric, reason=f"{type(e).__name__}: {e}")
            return 0.0

    return formula
