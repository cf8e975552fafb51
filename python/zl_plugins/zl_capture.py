"""zl plugin: graph-capture timing through the device interface (`-p zl_capture`).

zl puts this plugin in the `-p` list only when the plan's timer is `graph`. It builds a
CaptureEngine at pytest_configure; zl_timing hands it every kernel-mode timing call of the
benchmark base. The engine captures through the device interface the plan names
(backend.torch_module: `torch.cuda`, `torch.musa`, `torch.npu`): its Stream, Event, synchronize
and graph, and the backend's graph class. On CUDA (torch.cuda with CUDAGraph) it calls
upstream `triton.testing.do_bench_cudagraph` unchanged, so CUDA numbers do not move.

A capture failure is classified by the backend's wording (plan key `capture`), most severe
first: device_fault re-raises; poisoned prints BENCHMARK_CAPTURE_POISONED, fails the test and
stops the op; refused prints BENCHMARK_DIRECT_NO_CUDAGRAPH and times that shape with the
upstream direct timer. Text that matches no list re-raises. Ops on the deny list are timed
directly with no capture attempt.
"""
import contextlib
import importlib
import inspect
import sys
import time
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import pytest

import zl_plan
import zl_samples

INTERFACE_CALLS = ("Stream", "Event", "synchronize", "graph")
ESTIMATE_CALLS = 5
REPLAYS = 10

_ENGINE = None


def engine():
    """The CaptureEngine of the current run, or None when timer is not graph."""
    return _ENGINE


def pytest_configure(config):
    global _ENGINE
    plan = zl_plan.plan_for(config)
    _ENGINE = None
    if plan is None or plan.timer != "graph" or plan.mode != "kernel":
        return
    di, graph_cls = resolve_interface(plan)
    upstream = None
    if is_cuda_upstream(plan):
        try:
            import triton.testing
        except ImportError as e:
            raise pytest.UsageError(
                f"zl: plan {plan.path} asks for timer=graph on torch.cuda, which calls "
                f"triton.testing.do_bench_cudagraph, but triton cannot be imported: {e}") from e
        upstream = triton.testing.do_bench_cudagraph
    _ENGINE = CaptureEngine(plan.capture, di, graph_cls, upstream)


def pytest_unconfigure(config):
    global _ENGINE
    _ENGINE = None
    zl_plan.release(config)


def is_cuda_upstream(plan):
    return plan.backend.torch_module == "torch.cuda" and plan.backend.graph_class == "CUDAGraph"


def resolve_interface(plan):
    """The device module (`torch.musa`, …) and its graph class; pytest.UsageError if absent."""
    name, graph_class = plan.backend.torch_module, plan.backend.graph_class
    where = f"plan {plan.path}"
    if not name or not graph_class:
        raise pytest.UsageError(
            f"zl: {where} asks for timer=graph, but backend '{plan.backend.name}' names no "
            f"device interface (keys backend.torch_module={name!r}, "
            f"backend.graph_class={graph_class!r})")
    try:
        importlib.import_module("torch")
    except ImportError as e:
        raise pytest.UsageError(f"zl: {where} asks for timer=graph through {name}, but torch "
                                f"cannot be imported: {e}") from e
    module = _find_module(name)
    if module is None:
        # A vendor's torch extension registers torch.<device> when imported; flag_gems
        # imports its vendor's extension.
        zl_plan.flag_gems_vendor()
        module = _find_module(name)
    if module is None:
        raise pytest.UsageError(
            f"zl: {where}: key backend.torch_module names {name}, which this torch does not "
            f"have (is the vendor's torch extension installed and imported?)")
    missing = [call for call in INTERFACE_CALLS if not hasattr(module, call)]
    if missing:
        raise pytest.UsageError(
            f"zl: {where}: the device interface {name} (key backend.torch_module) has no "
            f"{', '.join(missing)}, which graph capture needs")
    graph_cls = getattr(module, graph_class, None)
    if graph_cls is None:
        raise pytest.UsageError(
            f"zl: {where}: key backend.graph_class names {graph_class}, which {name} does "
            f"not have")
    return module, graph_cls


def _find_module(dotted):
    if dotted in sys.modules:
        return sys.modules[dotted]
    parts = dotted.split(".")
    obj = sys.modules.get(parts[0])
    for i, part in enumerate(parts[1:], start=2):
        nxt = getattr(obj, part, None)
        if nxt is None:
            try:
                nxt = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                return None
        obj = nxt
    return obj


@dataclass
class TimingOptions:
    """The arguments of one do_bench call that the graph and profiler timers honour."""

    rep: float = 100
    warmup: float = 25
    grad_to_none: Optional[Sequence[Any]] = None
    quantiles: Optional[Sequence[float]] = None
    return_mode: str = "mean"


# Statistics of per-call times in ms, as Triton's do_bench returns them (one implementation).
summarize = zl_samples.statistics_summary


def exception_texts(exc):
    """(exception, text) for `exc`, its causes and contexts, and group members, outermost first."""
    seen, stack, out = set(), [exc], []
    while stack:
        e = stack.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        out.append((e, str(e) or type(e).__name__))
        stack.extend(getattr(e, "exceptions", None) or ())
        stack.extend((e.__cause__, e.__context__))
    return out


def classify(exc, capture):
    """(verdict, reason): verdict is device_fault, poisoned, refused or None (no list matched).

    The lists are substrings, matched case-sensitively against the text of the exception and of
    everything chained to it; the most severe verdict wins. reason is the first line of the
    innermost text that matched, the root cause (a failed capture_end wraps the refusal that
    invalidated the capture), or of the outer exception when nothing matched.
    """
    texts = exception_texts(exc)
    for verdict, needles in (("device_fault", capture.device_fault),
                             ("poisoned", capture.poisoned), ("refused", capture.refused)):
        matched = [text for _, text in texts if any(n and n in text for n in needles)]
        if matched:
            return verdict, first_line(matched[-1])
    return None, first_line(texts[0][1])


def first_line(text):
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else ""


class CaptureEngine:
    """Graph timing with per-shape fallback, poisoning and the deny list, for one run."""

    def __init__(self, capture, di, graph_cls, upstream=None):
        self.capture = capture
        self.di = di
        self.graph_cls = graph_cls
        self.upstream = upstream
        self.poisoned_ops = set()
        self._denied_announced = set()

    def timer_for(self, op):
        """(timer, reason) that ZL_TIMER reports for a test function of op."""
        if op in self.poisoned_ops:
            return "none", "capture_poisoned"
        if op in self.capture.deny_ops:
            return "direct", "capture_denied"
        return "graph", "plan"

    def announce_denied(self, op):
        if op in self.capture.deny_ops and op not in self._denied_announced:
            self._denied_announced.add(op)
            zl_plan.marker("BENCHMARK_CAPTURE_DENIED", op=op)

    def bench(self, ctx, fn, opts, direct, sampler=None):
        """Times fn by graph replay; `direct()` is the upstream direct timer for fallback.

        ctx: op (FLAGGEMS_PERF_CURRENT_OP), table_op, dtype, shape (as the table prints
        them) and refused_rows (a set, one per test function). sampler: a zl_samples.Sampler
        that keeps the samples and samples again as its plan asks (none: one timing, kept
        nowhere).
        """
        sampler = sampler or zl_samples.Sampler(None)
        op = ctx.op
        if op in self.poisoned_ops:
            raise pytest.fail.Exception(
                f"zl: {op} is capture-incompatible: an earlier capture attempt of it left the "
                f"device context unusable (BENCHMARK_CAPTURE_POISONED); nothing more of it is "
                f"timed in this run. Add it to the backend's capture-deny ops.", pytrace=False)
        if op in self.capture.deny_ops:
            self.announce_denied(op)
            return direct()
        source = self._source(fn, opts)
        try:
            with self._rng_guard():
                if source is None:
                    return sampler.unsampled(zl_samples.row_names(ctx), "graph",
                                             self._upstream_call(fn, opts),
                                             "this Triton's do_bench_cudagraph gives no list")
                return sampler.measure(zl_samples.row_names(ctx), "graph", source)
        except Exception as exc:
            verdict, reason = classify(exc, self.capture)
            if verdict == "poisoned":
                self.poisoned_ops.add(op)
                zl_plan.marker("BENCHMARK_CAPTURE_POISONED", op=op, reason=reason)
                raise pytest.fail.Exception(
                    f"zl: {op} is capture-incompatible: its capture attempt left the device "
                    f"context unusable ({reason}); the op stops here, and no fallback latency "
                    f"is reported.", pytrace=False) from exc
            if verdict != "refused":
                raise  # a device fault, or wording no list knows: never a silent fallback
        row = (ctx.table_op, ctx.dtype, ctx.shape)
        if row not in ctx.refused_rows:
            ctx.refused_rows.add(row)
            zl_plan.marker("BENCHMARK_DIRECT_NO_CUDAGRAPH", op=ctx.table_op, dtype=ctx.dtype,
                           shape=ctx.shape, reason=reason)
        return direct()

    def _source(self, fn, opts):
        """A zl_samples source of graph timings; None where upstream cannot list its times."""
        if self.upstream is None:
            return _PortSource(self, fn, opts)
        summarize = zl_samples.upstream_summarizer(self.upstream, opts.quantiles,
                                                   opts.return_mode)
        if summarize is None:
            return None
        listing = TimingOptions(rep=opts.rep, warmup=opts.warmup, grad_to_none=opts.grad_to_none,
                                quantiles=None, return_mode="all")
        call = self._upstream_call(fn, listing)
        return zl_samples.TimedCalls(lambda first: call(), summarize)

    def _upstream_call(self, fn, opts):
        """upstream do_bench_cudagraph, called as the installed Triton expects it."""
        bench = self.upstream
        try:
            params = inspect.signature(bench).parameters
        except (TypeError, ValueError):
            params = {"rep": 1, "grad_to_none": 1, "quantiles": 1, "return_mode": 1}
        kwargs = {"rep": opts.rep}
        if "return_mode" in params:
            kwargs["return_mode"] = opts.return_mode
        elif opts.return_mode != "mean":
            raise RuntimeError("zl: this Triton's do_bench_cudagraph has no return_mode; "
                               "timer=graph needs Triton 3.1 or later")
        if opts.grad_to_none is not None:
            kwargs["grad_to_none"] = opts.grad_to_none
        if opts.quantiles is not None:
            if "quantiles" not in params:
                raise RuntimeError("zl: this Triton's do_bench_cudagraph takes no quantiles")
            kwargs["quantiles"] = opts.quantiles
        if "quantiles" in params:
            return lambda: bench(fn, **kwargs)  # 3.2+: opens its own side stream

        def on_side_stream():  # 3.1: refuses to capture on the default stream
            with self.di.stream(self.di.Stream()):
                return bench(fn, **kwargs)

        return on_side_stream

    def port(self, fn, opts):
        """do_bench_cudagraph's method through the device interface: estimate over 5 calls,
        capture n_repeat unrolled calls in one graph, replay, per-call statistics."""
        source = _PortSource(self, fn, opts)
        return summarize(source.first().times, opts.quantiles, opts.return_mode)

    def capture_graph(self, fn, opts):
        """(graph, n_repeat, side stream): n_repeat calls of fn unrolled in one graph."""
        di = self.di
        side = di.Stream() if hasattr(di, "stream") else None
        with di.stream(side) if side is not None else contextlib.nullcontext():
            fn()
            for x in opts.grad_to_none or ():
                x.detach_()
                x.requires_grad_(True)
                x.grad = None
            start, end = di.Event(enable_timing=True), di.Event(enable_timing=True)
            start.record()
            for _ in range(ESTIMATE_CALLS):
                fn()
            end.record()
            di.synchronize()
            estimate_ms = start.elapsed_time(end) / ESTIMATE_CALLS
            n_repeat = 1000 if estimate_ms <= 0 else max(1, int(opts.rep / estimate_ms))
            graph = self.graph_cls()
            with di.graph(graph):
                for _ in range(n_repeat):
                    for x in opts.grad_to_none or ():
                        x.grad = None
                    fn()
            di.synchronize()
        return graph, n_repeat, side

    def replay(self, graph, n_repeat, side, count):
        """count replays, each timed on its own: per-call ms and when each ended."""
        di = self.di
        times, ends = [], []
        with di.stream(side) if side is not None else contextlib.nullcontext():
            for _ in range(count):
                start, end = di.Event(enable_timing=True), di.Event(enable_timing=True)
                start.record()
                graph.replay()
                end.record()
                di.synchronize()
                ends.append(time.time())
                times.append(start.elapsed_time(end) / n_repeat)
        return times, ends

    @contextlib.contextmanager
    def _rng_guard(self):
        """Captures on scratch copies of the default generators' states.

        A capture registers the current device's default generator with the graph and marks
        its state as capturing until capture_end; a capture that fails before capture_end
        leaves that state marked, and every later random op of the process then fails
        ("Offset increment outside graph capture encountered unexpectedly" on CUDA). So each
        default generator gets a clone of its state for the attempt, and its own state object
        is put back afterwards, failed or not: the benchmark's random stream neither advances
        nor breaks. Where generators have no graph-safe state API the states are only saved
        and restored. Skipped where the interface has no default_generators.
        """
        generators = tuple(getattr(self.di, "default_generators", None) or ())
        if not generators:
            yield
            return
        if all(_has_graphsafe_state(g) for g in generators):
            saved = [(g, g.graphsafe_get_state()) for g in generators]
            for g in generators:
                g.graphsafe_set_state(g.clone_state())
            put_back = "graphsafe_set_state"
        else:
            saved = [(g, g.get_state()) for g in generators]
            put_back = "set_state"
        try:
            yield
        except BaseException:
            _restore(saved, put_back, quiet=True)  # the capture's own error is the one to report
            raise
        _restore(saved, put_back, quiet=False)


class _PortSource:
    """Graph timings through the device interface: the first batch captures the graph and
    replays it REPLAYS times; each further batch replays the same graph REPLAYS times more."""

    stamps_measured = True

    def __init__(self, engine, fn, opts):
        self.engine, self.fn, self.opts = engine, fn, opts
        self.graph = None

    def first(self):
        self.graph = self.engine.capture_graph(self.fn, self.opts)
        return self.more()

    def more(self):
        start = time.time()
        times, ends = self.engine.replay(*self.graph, REPLAYS)
        return zl_samples.Batch(times, start, ends[-1], ends)

    def summarize(self, times):
        return summarize(times, self.opts.quantiles, self.opts.return_mode)


def _has_graphsafe_state(generator):
    return all(hasattr(generator, name)
               for name in ("graphsafe_get_state", "graphsafe_set_state", "clone_state"))


def _restore(saved, put_back, quiet):
    for generator, state in saved:
        try:
            getattr(generator, put_back)(state)
        except Exception:
            if not quiet:
                raise
