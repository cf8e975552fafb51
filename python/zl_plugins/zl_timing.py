"""zl plugin: the kernel-mode timer (`-p zl_timing`).

In kernel mode a benchmark base times each call with a do_bench-like function:
FlagGems' base.py looks up `triton.testing.do_bench` at call time (`do_bench_npu` of
`triton.backends.ascend.testing` on Ascend); a base module may instead call a module-level
`do_bench` of its own (the sample corpus does). This plugin wraps whichever of those exist.
(performance_utils.py of v3.0–v5.0.2 calls `triton.musa_testing.do_bench` on musa: wrapped too
where it exists.)

- timer=direct: nothing is wrapped or imported; the upstream timer runs as it is.
- timer=graph: each call goes to zl_capture's engine (graph replay, per-shape fallback).
- timer=profiler: each call is timed from the device's own kernel times (torch.profiler).

The base module is a loaded module with a `Benchmark` class, named `base` or ending in
`benchmark.base` (FlagGems v5.3.0 on: benchmark/base.py), or named `performance_utils` or
ending in `.performance_utils` (v3.0–v5.0.2: benchmark/performance_utils.py, imported as
`benchmark.performance_utils`; those releases define subclasses such as
UnaryPointwiseBenchmark in the category test files themselves). Before each test function runs,
Benchmark and every subclass that exists by then (zl_patch.class_tree: the test modules were
imported at collection) get their own get_latency, get_input_iter and build_inputs wrapped; a
subclass created later inherits the wrapped methods of its bases, but a method it overrides
itself is wrapped only from the next test on.

Only calls made from the benchmark folder (the base module's directory) are taken over, and
never calls nested inside one (an autotuner's do_bench keeps the upstream timer). The op,
dtype and shape of a call come from the base module's Benchmark.get_latency, get_input_iter
and record_shapes, so markers name a row exactly as the table prints it.

Before every test function runs: `ZL_TIMER op=<FLAGGEMS_PERF_CURRENT_OP> timer=… reason=…`.
"""
import inspect
import os
import sys
import time
import warnings

import pytest

import zl_patch
import zl_plan

PROFILER_MAX_ITERS = 50
_HOOKED_METHODS = ("get_latency", "get_input_iter", "build_inputs")
BASE_MODULE_NAMES = ("base", "performance_utils")
BASE_MODULE_ENDS = ("benchmark.base", ".performance_utils")
_DTYPE_ATTR = "_zl_dtype"

_STATE = None


class TimingContext:
    """What a marker needs to name one timing call: op, the table's op, dtype and shape."""

    def __init__(self, op, refused_rows, bench=None, args=(), kwargs=None):
        self.op = op
        self.refused_rows = refused_rows
        self.table_op = getattr(bench, "op_name", None) or op
        dtype = getattr(bench, _DTYPE_ATTR, None)
        self.dtype = "" if dtype is None else str(dtype)
        self._bench, self._args, self._kwargs = bench, args, kwargs or {}

    @property
    def shape(self):
        """The row's Size Detail: str() of the base module's own record_shapes."""
        if self._bench is None or not hasattr(self._bench, "record_shapes"):
            return ""
        try:
            return str(self._bench.record_shapes(*self._args, **self._kwargs))
        except Exception as e:  # a marker must not fail the measurement it describes
            return f"<record_shapes failed: {type(e).__name__}>"


class _State:
    def __init__(self, plan):
        self.plan = plan
        self.patches = zl_patch.Patcher()
        self.base_dirs = set()
        self.frames = []  # (bench, args, kwargs) of the get_latency calls in progress
        self.busy = False
        self.item = None  # (op, refused_rows) of the test function running
        self.profiler = None
        self.needs_hook = plan.mode == "kernel" and plan.timer in ("graph", "profiler")

    def timer_for(self, op):
        plan = self.plan
        if plan.mode in ("operator", "wrapper"):
            return "host", f"mode_{plan.mode}"
        if plan.mode == "cudagraph":
            return "flaggems_graph", "mode_cudagraph"
        if self.needs_hook and not self.base_dirs:
            return "direct", "no_benchmark_base"
        if plan.timer == "graph":
            return _capture_engine().timer_for(op)
        return plan.timer, "plan"

    def called_from_benchmark(self, frame):
        path = os.path.abspath(frame.f_code.co_filename)
        return any(path.startswith(d + os.sep) for d in self.base_dirs)

    def context(self):
        op, refused_rows = self.item
        if self.frames:
            bench, args, kwargs = self.frames[0]
            return TimingContext(op, refused_rows, bench, args, kwargs)
        return TimingContext(op, refused_rows)

    def time(self, original, fn, args, kwargs):
        opts = _options(original, fn, args, kwargs)
        self.busy = True
        try:
            if self.plan.timer == "graph":
                return _capture_engine().bench(self.context(), fn, opts,
                                               lambda: original(fn, *args, **kwargs))
            return self.profiler(fn, opts)
        finally:
            self.busy = False


def _capture_engine():
    import zl_capture

    engine = zl_capture.engine()
    if engine is None:
        raise pytest.UsageError("zl: timer=graph, but the zl_capture plugin did not start "
                                "(zl must pass -p zl_capture with this plan)")
    return engine


def _options(original, fn, args, kwargs):
    from zl_capture import TimingOptions

    try:
        bound = inspect.signature(original).bind(fn, *args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
    except (TypeError, ValueError):
        values = dict(kwargs)
    return TimingOptions(rep=values.get("rep") or 100, warmup=values.get("warmup") or 25,
                         grad_to_none=values.get("grad_to_none"),
                         quantiles=values.get("quantiles"),
                         return_mode=values.get("return_mode") or "mean")


def pytest_configure(config):
    global _STATE
    plan = zl_plan.plan_for(config)
    _STATE = None
    if plan is None:
        return
    state = _STATE = _State(plan)  # set first: unconfigure restores what a failure left patched
    if state.needs_hook:
        if plan.timer == "graph" and config.pluginmanager.get_plugin("zl_capture") is None:
            raise pytest.UsageError(
                f"zl: plan {plan.path} has timer=graph, but the zl_capture plugin is not "
                f"loaded (key plugins must list it and zl must pass -p zl_capture)")
        if plan.timer == "profiler":
            state.profiler = ProfilerTimer.for_plan(plan)
        _hook_triton(state, plan)


def pytest_unconfigure(config):
    global _STATE
    _STATE = zl_patch.unconfigure(config, _STATE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    state = _STATE
    if state is None:
        yield
        return
    if state.needs_hook:
        _hook_base_modules(state)
    op = zl_plan.op_key(item)
    timer, reason = state.timer_for(op)
    zl_plan.marker("ZL_TIMER", op=op, timer=timer, requested=state.plan.timer_requested,
                   reason=reason, node=item.nodeid)
    if reason == "capture_denied":
        _capture_engine().announce_denied(op)
    state.item = (op, set())
    try:
        yield
    finally:
        state.item = None


def _hook_triton(state, plan):
    """Wraps triton.testing.do_bench (and Ascend's do_bench_npu) when triton is present."""
    try:
        import triton.testing
    except ImportError:
        return  # a base module with its own do_bench may still be hooked
    state.patches.patch(triton.testing, "do_bench", _wrap_timer(triton.testing.do_bench))
    try:  # FlagGems v3.0-v5.0.2 on musa call triton.musa_testing.do_bench instead
        import triton.musa_testing as musa
    except ImportError:
        musa = None
    if callable(getattr(musa, "do_bench", None)):
        state.patches.patch(musa, "do_bench", _wrap_timer(musa.do_bench))
    if plan.backend.flaggems_vendor == "ascend":
        try:
            import triton.backends.ascend.testing as ascend
        except ImportError:
            return
        if callable(getattr(ascend, "do_bench_npu", None)):
            state.patches.patch(ascend, "do_bench_npu", _wrap_timer(ascend.do_bench_npu))


def _wrap_timer(original):
    @zl_patch.wraps(original)
    def zl_do_bench(fn, *args, **kwargs):
        state = _STATE
        if (state is None or state.busy or state.item is None
                or not state.called_from_benchmark(sys._getframe(1))):
            return original(fn, *args, **kwargs)
        return state.time(original, fn, args, kwargs)

    return zl_do_bench


def base_modules():
    """Loaded benchmark base modules, with a Benchmark class: named `base` or `…benchmark.base`
    (FlagGems v5.3.0+), or `performance_utils` or `….performance_utils` (v3.0–v5.0.2)."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name in BASE_MODULE_NAMES or name.endswith(BASE_MODULE_ENDS)):
            continue
        if isinstance(getattr(module, "Benchmark", None), type):
            yield module


def _hook_base_modules(state):
    for module in base_modules():
        path = getattr(module, "__file__", None)
        if path:
            state.base_dirs.add(os.path.dirname(os.path.abspath(path)))
        state.patches.wrap_own(module, "do_bench", _wrap_timer)
        for cls in zl_patch.class_tree(module.Benchmark):
            for name in _HOOKED_METHODS:
                state.patches.wrap_own(cls, name, _METHOD_WRAPPERS[name], inspect.isfunction)


def _wrap_get_latency(original):
    @zl_patch.wraps(original)
    def get_latency(self, *args, **kwargs):
        state = _STATE
        if state is None:
            return original(self, *args, **kwargs)
        state.frames.append((self, args[1:], kwargs))  # args[0] is the op
        try:
            return original(self, *args, **kwargs)
        finally:
            state.frames.pop()

    return get_latency


def _dtype_recorder(original, dtype_of):
    @zl_patch.wraps(original)
    def recorder(self, *args, **kwargs):
        dtype = dtype_of(args, kwargs)
        if dtype is not None:
            try:
                setattr(self, _DTYPE_ATTR, dtype)
            except AttributeError:
                pass
        return original(self, *args, **kwargs)

    return recorder


_METHOD_WRAPPERS = {
    "get_latency": _wrap_get_latency,
    "get_input_iter": lambda m: _dtype_recorder(
        m, lambda a, k: a[0] if a else k.get("dtype", k.get("cur_dtype"))),
    "build_inputs": lambda m: _dtype_recorder(
        m, lambda a, k: getattr(a[0] if a else k.get("case"), "dtype", None)),
}


class ProfilerTimer:
    """The device's own kernel time per call: the sum of the self times of the device events
    torch.profiler records for one call, median (or the caller's statistic) over calls."""

    def __init__(self, torch, di, activity):
        self.torch, self.di, self.activity = torch, di, activity

    @classmethod
    def for_plan(cls, plan):
        from zl_capture import _find_module

        where = f"plan {plan.path} has timer=profiler"
        try:
            import torch
            import torch.profiler
        except ImportError as e:
            raise pytest.UsageError(f"zl: {where}, but torch cannot be imported: {e}") from e
        di = _find_module(plan.backend.torch_module) if plan.backend.torch_module else None
        if di is None or not hasattr(di, "synchronize"):
            raise pytest.UsageError(
                f"zl: {where}, but key backend.torch_module ({plan.backend.torch_module!r}) "
                f"names no device interface with synchronize")
        return cls(torch, di, profiler_activity(torch, plan.backend.torch_device, where))

    def __call__(self, fn, opts):
        fn()
        self.di.synchronize()
        start = time.perf_counter()
        for _ in range(5):
            fn()
        self.di.synchronize()
        estimate_ms = (time.perf_counter() - start) * 1000 / 5
        n_warmup = max(1, int(opts.warmup / estimate_ms)) if estimate_ms > 0 else 1
        n_iter = max(1, int(opts.rep / estimate_ms)) if estimate_ms > 0 else PROFILER_MAX_ITERS
        for _ in range(n_warmup):
            fn()
        self.di.synchronize()
        times = []
        for _ in range(min(n_iter, PROFILER_MAX_ITERS)):
            for x in opts.grad_to_none or ():
                x.grad = None
            with warnings.catch_warnings():
                # torch warns once that each profile() keeps only its own events: intended
                warnings.filterwarnings("ignore", message=".*Profiler clears events")
                with self.torch.profiler.profile(activities=[self.activity]) as prof:
                    fn()
                    self.di.synchronize()
            times.append(self.device_ms(prof))
        from zl_capture import summarize

        return summarize(times, opts.quantiles, opts.return_mode)

    def device_ms(self, prof):
        total_us, found = 0.0, False
        for event in prof.events():
            if str(getattr(event, "device_type", "CPU")).rsplit(".", 1)[-1] == "CPU":
                continue
            self_us = getattr(event, "self_device_time_total", None)
            if self_us is None:
                self_us = getattr(event, "self_cuda_time_total", 0)
            total_us += self_us
            found = True
        if not found:
            raise RuntimeError(f"zl: torch.profiler recorded no device activity for this call "
                               f"({self.activity}); timer=profiler cannot time it")
        return total_us / 1000.0


def profiler_activity(torch, device, where):
    """The ProfilerActivity that records `device`'s kernels; pytest.UsageError if torch has none."""
    activities = torch.profiler.ProfilerActivity
    names = ["CUDA"] if device == "cuda" else [device.upper()]
    get_pu1 = getattr(torch._C, "_get_privateuse1_backend_name", None) if hasattr(
        torch, "_C") else None
    if device != "cuda" and get_pu1 is not None and get_pu1() == device:
        names.append("PrivateUse1")
    for name in names:
        if hasattr(activities, name):
            return getattr(activities, name)
    raise pytest.UsageError(
        f"zl: {where}, but torch.profiler has no activity for device '{device}' (key "
        f"backend.torch_device; tried ProfilerActivity.{', ProfilerActivity.'.join(names)}): "
        f"use timer graph or direct on this backend")
