"""zl plugin: the kernel-mode timer (`-p zl_timing`).

In kernel mode a benchmark base times each call with a do_bench-like function:
FlagGems' base.py looks up `triton.testing.do_bench` at call time (`do_bench_npu` of
`triton.backends.ascend.testing` on Ascend); a base module may instead call a module-level
`do_bench` of its own (the sample corpus does). This plugin wraps whichever of those exist.
(performance_utils.py of v3.0–v5.0.2 calls `triton.musa_testing.do_bench` on musa: wrapped too
where it exists.)

- timer=direct: the upstream timer runs as it is, asked for its list of per-call times
  (return_mode="all"), and the statistic the caller asked for is computed from that list as the
  upstream computes it (the same number); where the plan names no samples_file (an older zl),
  nothing is wrapped or imported.
- timer=graph: each call goes to zl_capture's engine (graph replay, per-shape fallback).
- timer=profiler: each call is timed from the device's own kernel times (torch.profiler).

Every timer's samples go to the run's samples.bin through zl_samples' Sampler, which also
samples a row again until its median is known as closely as the plan's `sampling` asks.

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

import zl_metrics
import zl_patch
import zl_plan
import zl_samples

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
        self.sampler = zl_samples.Sampler(zl_samples.path_from_plan(plan), plan.sampling)
        self.unlisted = {}  # a base module's timer that refused return_mode="all": why
        self.needs_hook = plan.mode == "kernel" and (plan.timer in ("graph", "profiler")
                                                     or self.sampler.path is not None)

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
        ctx = self.context()
        self.busy = True
        try:
            direct = lambda: self.direct(ctx, original, fn, args, kwargs, opts)  # noqa: E731
            if self.plan.timer == "graph":
                return _capture_engine().bench(ctx, fn, opts, direct, self.sampler)
            if self.plan.timer == "profiler":
                return self.sampler.measure(zl_samples.row_names(ctx), "profiler",
                                            self.profiler.source(fn, opts))
            return direct()
        finally:
            self.busy = False

    def direct(self, ctx, original, fn, args, kwargs, opts):
        """The upstream timer, asked for its per-call list where it can give one."""
        names = zl_samples.row_names(ctx)
        summarize = zl_samples.upstream_summarizer(original, opts.quantiles, opts.return_mode)
        plain = lambda: original(fn, *args, **kwargs)  # noqa: E731
        if summarize is None or original in self.unlisted:
            return self.sampler.unsampled(names, "direct", plain, self.unlisted.get(
                original, "the timer gives no per-call list"))
        bound = _bound(original, fn, args, kwargs)
        if bound is None or "return_mode" not in bound.arguments:
            return self.sampler.unsampled(names, "direct", lambda: original(fn, *args, **kwargs),
                                          "the timer's arguments cannot be bound by name")

        def call(first):
            values = bound.arguments
            saved = dict(values)
            values["return_mode"] = "all"
            if "quantiles" in values:
                values["quantiles"] = None
            if not first and "warmup" in values:
                values["warmup"] = 0  # the device is warm: the first call warmed it
            try:
                return original(*bound.args, **bound.kwargs)
            finally:
                values.update(saved)

        probe = not zl_samples.is_triton(original)
        try:
            return self.sampler.measure(names, "direct",
                                        zl_samples.TimedCalls(call, summarize, probe=probe))
        except zl_samples.ListRefused as e:  # asked once per timer and process
            self.unlisted[original] = f"the timer refused return_mode='all' ({e})"
            return self.sampler.unsampled(names, "direct", plain, self.unlisted[original])


def _capture_engine():
    import zl_capture

    engine = zl_capture.engine()
    if engine is None:
        raise pytest.UsageError("zl: timer=graph, but the zl_capture plugin did not start "
                                "(zl must pass -p zl_capture with this plan)")
    return engine


def _bound(original, fn, args, kwargs):
    """The call's inspect.BoundArguments, defaults applied; None where they cannot be bound."""
    try:
        bound = inspect.signature(original).bind(fn, *args, **kwargs)
    except (TypeError, ValueError):
        return None
    bound.apply_defaults()
    return bound


def _options(original, fn, args, kwargs):
    from zl_capture import TimingOptions

    bound = _bound(original, fn, args, kwargs)
    values = dict(bound.arguments) if bound is not None else dict(kwargs)
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
    if _STATE is not None:
        _STATE.sampler.close()
    _STATE = zl_patch.unconfigure(config, _STATE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    state = _STATE
    if state is None:
        yield
        return
    if state.needs_hook:
        _hook_base_modules(state)
    if state.plan.formula_metrics:
        zl_metrics.hook(state.patches, base_modules())
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
        """One timing as the benchmark asked, without keeping samples (tests, old plans)."""
        source = self.source(fn, opts)
        return source.summarize(source.first().times)

    def source(self, fn, opts):
        """A zl_samples source: the first batch warms up and profiles up to PROFILER_MAX_ITERS
        calls (as many as fit the rep budget); each further batch as many again."""
        return _ProfiledCalls(self, fn, opts)

    def warm_up(self, fn, opts):
        """Warms the device up; returns how many calls to profile per batch."""
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
        return min(n_iter, PROFILER_MAX_ITERS)

    def profile(self, fn, opts):
        """The device time of one call of fn, in ms."""
        for x in opts.grad_to_none or ():
            x.grad = None
        with warnings.catch_warnings():
            # torch warns once that each profile() keeps only its own events: intended
            warnings.filterwarnings("ignore", message=".*Profiler clears events")
            with self.torch.profiler.profile(activities=[self.activity]) as prof:
                fn()
                self.di.synchronize()
        return self.device_ms(prof)

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


class _ProfiledCalls:
    stamps_measured = True

    def __init__(self, timer, fn, opts):
        self.timer, self.fn, self.opts = timer, fn, opts
        self.count = 0

    def first(self):
        self.count = self.timer.warm_up(self.fn, self.opts)
        return self.more()

    def more(self):
        start = time.time()
        times, ends = [], []
        for _ in range(self.count):
            times.append(self.timer.profile(self.fn, self.opts))
            ends.append(time.time())
        return zl_samples.Batch(times, start, ends[-1], ends)

    def summarize(self, times):
        from zl_capture import summarize

        return summarize(times, self.opts.quantiles, self.opts.return_mode)


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
