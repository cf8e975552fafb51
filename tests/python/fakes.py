"""Fake torch, triton and flag_gems module trees, installed into sys.modules by the tests.

FakeInterface plays a device module such as torch.musa: Stream, stream(), Event, synchronize,
graph() and a graph class. Events read the host clock plus an offset that a graph replay
advances by the time its capture took, so timings are real-looking and positive. A test
makes captures fail with `iface.capture_failure = lambda op, attempt: exception_or_None`.
"""
import contextlib
import os
import sys
import time
import types


class FakeState:
    def __init__(self, offset=0):
        self.offset = offset
        self.capturing = False


class FakeGenerator:
    """A generator with get_state/set_state only (snapshots of the offset)."""

    def __init__(self):
        self.state = FakeState()
        self.sets = []

    def get_state(self):
        return ("offset", self.state.offset)

    def set_state(self, snapshot):
        self.sets.append(snapshot)
        self.state.offset = snapshot[1]


class GraphSafeGenerator(FakeGenerator):
    """A generator with torch's graph-safe state API: the state is an object it points to."""

    def graphsafe_get_state(self):
        return self.state

    def graphsafe_set_state(self, state):
        self.state = state

    def clone_state(self):
        return FakeState(self.state.offset)


class FakeEvent:
    def __init__(self, iface, enable_timing=False):
        self.iface, self.t = iface, None

    def record(self, stream=None):
        self.t = time.perf_counter() * 1000 + self.iface.offset_ms

    def elapsed_time(self, end):
        return end.t - self.t


class FakeStream:
    pass


class FakeGraph:
    iface = None

    def __init__(self):
        self.captured_ms = 0.0
        self.replays = 0

    def replay(self):
        self.replays += 1
        self.iface.offset_ms += self.captured_ms


class FakeInterface(types.ModuleType):
    def __init__(self, name, graph_class="MUSAGraph", generators="graphsafe"):
        super().__init__(name)
        self.offset_ms = 0.0
        self.capture_attempts = []  # FLAGGEMS_PERF_CURRENT_OP of each capture
        self.capture_failure = None
        self.syncs = 0
        self.side_streams = 0  # distinct streams entered
        self._streams = []
        self.Stream = FakeStream
        setattr(self, graph_class, type(graph_class, (FakeGraph,), {"iface": self}))
        if generators:
            kind = GraphSafeGenerator if generators == "graphsafe" else FakeGenerator
            self.default_generators = [kind()]

    def Event(self, enable_timing=False):  # noqa: N802 (torch's name)
        return FakeEvent(self, enable_timing)

    def synchronize(self):
        self.syncs += 1

    @contextlib.contextmanager
    def stream(self, s):
        if not any(s is seen for seen in self._streams):
            self._streams.append(s)
            self.side_streams += 1
        yield s

    @contextlib.contextmanager
    def graph(self, g):
        """Like torch: the default generators' states are marked capturing (and advanced)
        from capture_begin to a successful capture_end; a failed capture leaves them marked."""
        op = os.environ.get("FLAGGEMS_PERF_CURRENT_OP", "")
        self.capture_attempts.append(op)
        states = [gen.state for gen in getattr(self, "default_generators", ())]
        for state in states:
            state.capturing = True
            state.offset += 4
        start = time.perf_counter()
        yield g
        g.captured_ms = (time.perf_counter() - start) * 1000
        if self.capture_failure is not None:
            exc = self.capture_failure(op, len(self.capture_attempts))
            if exc is not None:
                raise exc
        for state in states:
            state.capturing = False

    def random_op(self):
        """A random op: fails as torch does while a generator state is stuck capturing."""
        for gen in getattr(self, "default_generators", ()):
            if gen.state.capturing:
                raise RuntimeError("Offset increment outside graph capture encountered "
                                   "unexpectedly.")
            gen.state.offset += 4


class FakeProfilerEvent:
    def __init__(self, device_type, self_us):
        self.device_type = device_type
        self.self_device_time_total = self_us


class FakeDeviceType:
    """Prints like torch's pybind enum: DeviceType.CPU, DeviceType.CUDA."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"DeviceType.{self.name}"


def _profiler_module(torch):
    profiler = types.ModuleType("torch.profiler")
    profiler.ProfilerActivity = types.SimpleNamespace(CPU="CPU", CUDA="CUDA")
    profiler.sessions = []

    class profile:  # noqa: N801 (torch's name)
        def __init__(self, activities=()):
            self.activities = list(activities)
            self._events = []

        def __enter__(self):
            self.start = time.perf_counter()
            return self

        def __exit__(self, *exc):
            wall_us = (time.perf_counter() - self.start) * 1e6
            # one host op and two kernels: only the kernels count
            self._events = [FakeProfilerEvent(FakeDeviceType("CPU"), wall_us),
                            FakeProfilerEvent(FakeDeviceType("CUDA"), wall_us * 0.25),
                            FakeProfilerEvent(FakeDeviceType("CUDA"), wall_us * 0.25)]
            profiler.sessions.append(self)
            return False

        def events(self):
            return self._events

    profiler.profile = profile
    torch.profiler = profiler
    return profiler


def install_torch(monkeypatch, device="musa", graph_class="MUSAGraph", generators="graphsafe"):
    """A fake torch with torch.<device> as a FakeInterface; returns (torch, interface)."""
    torch = types.ModuleType("torch")
    torch.__version__ = "2.99.0+fake"
    iface = FakeInterface(f"torch.{device}", graph_class, generators)
    setattr(torch, device, iface)
    profiler = _profiler_module(torch)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, f"torch.{device}", iface)
    monkeypatch.setitem(sys.modules, "torch.profiler", profiler)
    return torch, iface


def install_triton(monkeypatch, era="3.2"):
    """A fake triton with testing.do_bench (host clock) and testing.do_bench_cudagraph in the
    signature of Triton `era` ("3.1": no quantiles). Calls are recorded in testing.calls."""
    triton = types.ModuleType("triton")
    triton.__version__ = era + ".0"
    testing = types.ModuleType("triton.testing")
    testing.calls = []

    def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None,
                 return_mode="mean"):
        testing.calls.append(("do_bench", {"warmup": warmup, "rep": rep,
                                           "return_mode": return_mode}))
        start = time.perf_counter()
        for _ in range(3):
            fn()
        return (time.perf_counter() - start) * 1000 / 3

    if era == "3.1":
        def do_bench_cudagraph(fn, rep=20, grad_to_none=None, return_mode="mean"):
            testing.calls.append(("do_bench_cudagraph", {"rep": rep, "return_mode": return_mode,
                                                         "grad_to_none": grad_to_none}))
            fn()
            return 0.25
    else:
        def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None,
                               return_mode="mean"):
            testing.calls.append(("do_bench_cudagraph", {"rep": rep, "return_mode": return_mode,
                                                         "grad_to_none": grad_to_none,
                                                         "quantiles": quantiles}))
            fn()
            return 0.25

    # As Triton before 3.2: no _summarize_statistics, so zl keeps no samples of these (a test
    # that wants them adds one: install_triton_lists).
    do_bench.__module__ = do_bench_cudagraph.__module__ = "triton.testing"
    testing.do_bench = do_bench
    testing.do_bench_cudagraph = do_bench_cudagraph
    triton.testing = testing
    monkeypatch.setitem(sys.modules, "triton", triton)
    monkeypatch.setitem(sys.modules, "triton.testing", testing)
    return testing


def install_flag_gems(monkeypatch, vendor):
    flag_gems = types.ModuleType("flag_gems")
    flag_gems.vendor_name = vendor
    flag_gems.__version__ = "9.9.9+fake"
    monkeypatch.setitem(sys.modules, "flag_gems", flag_gems)
    return flag_gems
