"""zl_capture: classification, fallback, poisoning, deny list, RNG guard, upstream on CUDA."""
import json
import struct

import pytest

import zl_capture
import zl_plan
import zl_samples
from .fakes import FakeInterface, install_triton
from .zl_testlib import parse_marker

CAPTURE = zl_plan.Capture(
    refused=("operation not permitted when stream is capturing", "during MUSA graph capture",
             "operation failed due to a previous error during capture"),
    device_fault=("an illegal memory access was encountered",),
    poisoned=("MUSA error: unknown error",),
    deny_ops=("unique2",))


class Ctx:
    def __init__(self, op="abs", table_op="abs", dtype="torch.float16",
                 shape="[torch.Size([64, 64])]"):
        self.op, self.table_op, self.dtype, self.shape = op, table_op, dtype, shape
        self.refused_rows = set()


class Direct:
    """The upstream direct timer, counting its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return 1.5


def make_engine(generators="graphsafe", failure=None):
    iface = FakeInterface("torch.musa", "MUSAGraph", generators)
    iface.capture_failure = failure
    return zl_capture.CaptureEngine(CAPTURE, iface, iface.MUSAGraph), iface


def fn():
    return sum(range(200))


OPTS = zl_capture.TimingOptions(rep=2, warmup=1, return_mode="median")


def markers(capsys):
    return [parse_marker(line) for line in capsys.readouterr().out.splitlines() if line]


# --- classification -------------------------------------------------------------------------

@pytest.mark.parametrize("text, verdict", [
    ("CUDA error: operation not permitted when stream is capturing", "refused"),
    ("Cannot call MUSAGeneratorImpl::current_seed during MUSA graph capture", "refused"),
    ("CUDA error: an illegal memory access was encountered", "device_fault"),
    ("MUSA error: unknown error", "poisoned"),
    ("something else entirely", None),
    ("Operation Not Permitted When Stream Is Capturing", None),  # case-sensitive
])
def test_classify_by_wording(text, verdict):
    assert zl_capture.classify(RuntimeError(text), CAPTURE)[0] == verdict


def test_classify_reads_chained_causes_and_reports_the_root_cause():
    try:
        try:
            raise RuntimeError("operation not permitted when stream is capturing\nmore detail")
        except RuntimeError:
            # torch's graph __exit__ calls capture_end, which fails in turn
            raise RuntimeError("CUDA error: operation failed due to a previous error during "
                               "capture")
    except RuntimeError as outer:
        assert zl_capture.classify(outer, CAPTURE) == (
            "refused", "operation not permitted when stream is capturing")


def test_most_severe_verdict_wins_anywhere_in_the_chain():
    exc = RuntimeError("operation not permitted when stream is capturing")
    exc.__context__ = RuntimeError("an illegal memory access was encountered")
    assert zl_capture.classify(exc, CAPTURE)[0] == "device_fault"


def test_exception_groups_are_searched():
    group = ExceptionGroup("errors", [ValueError("x"), RuntimeError("MUSA error: unknown error")])
    assert zl_capture.classify(group, CAPTURE) == ("poisoned", "MUSA error: unknown error")


# --- the engine -----------------------------------------------------------------------------

def test_capture_succeeds_without_markers(capsys):
    engine, iface = make_engine()
    direct = Direct()
    latency = engine.bench(Ctx(), fn, OPTS, direct)
    assert latency > 0 and direct.calls == 0
    assert len(iface.capture_attempts) == 1 and iface.side_streams == 1
    assert markers(capsys) == []


def test_refused_capture_falls_back_once_per_row(capsys):
    engine, iface = make_engine(failure=lambda op, n: RuntimeError(
        "CUDA error: operation not permitted when stream is capturing"))
    ctx, direct = Ctx(), Direct()
    assert engine.bench(ctx, fn, OPTS, direct) == 1.5  # the torch side of the row
    assert engine.bench(ctx, fn, OPTS, direct) == 1.5  # the gems side: same row
    assert direct.calls == 2
    assert markers(capsys) == [("BENCHMARK_DIRECT_NO_CUDAGRAPH", {
        "op": "abs", "dtype": "torch.float16", "shape": "[torch.Size([64, 64])]",
        "reason": "CUDA error: operation not permitted when stream is capturing"})]
    other_row = Ctx(shape="[torch.Size([1024])]")
    other_row.refused_rows = ctx.refused_rows
    engine.bench(other_row, fn, OPTS, direct)
    assert [m[1]["shape"] for m in markers(capsys)] == ["[torch.Size([1024])]"]


def test_device_fault_is_re_raised_without_fallback(capsys):
    engine, _ = make_engine(failure=lambda op, n: RuntimeError(
        "CUDA error: an illegal memory access was encountered"))
    direct = Direct()
    with pytest.raises(RuntimeError, match="illegal memory access"):
        engine.bench(Ctx(), fn, OPTS, direct)
    assert direct.calls == 0
    assert markers(capsys) == []


def test_unknown_wording_is_re_raised(capsys):
    engine, _ = make_engine(failure=lambda op, n: RuntimeError("graph too large"))
    direct = Direct()
    with pytest.raises(RuntimeError, match="graph too large"):
        engine.bench(Ctx(), fn, OPTS, direct)
    assert direct.calls == 0 and markers(capsys) == []


def test_poisoned_capture_fails_the_op_and_later_shapes_attempt_nothing(capsys):
    engine, iface = make_engine(failure=lambda op, n: RuntimeError("MUSA error: unknown error"))
    direct = Direct()
    with pytest.raises(pytest.fail.Exception, match="abs is capture-incompatible") as info:
        engine.bench(Ctx(), fn, OPTS, direct)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert markers(capsys) == [("BENCHMARK_CAPTURE_POISONED",
                                {"op": "abs", "reason": "MUSA error: unknown error"})]
    attempts = len(iface.capture_attempts)
    with pytest.raises(pytest.fail.Exception, match="nothing more of it is timed"):
        engine.bench(Ctx(shape="[torch.Size([1024])]"), fn, OPTS, direct)
    assert len(iface.capture_attempts) == attempts and direct.calls == 0
    assert markers(capsys) == []
    assert engine.timer_for("abs") == ("none", "capture_poisoned")
    iface.capture_failure = None  # other ops still capture
    assert engine.bench(Ctx(op="exp", table_op="exp"), fn, OPTS, Direct()) > 0
    assert iface.capture_attempts[-1:] == [""]


def test_deny_listed_op_is_never_captured(capsys):
    engine, iface = make_engine()
    iface.capture_failure = lambda op, n: pytest.fail("a capture was attempted")
    direct = Direct()
    ctx = Ctx(op="unique2", table_op="unique2")
    assert engine.timer_for("unique2") == ("direct", "capture_denied")
    for _ in range(3):
        assert engine.bench(ctx, fn, OPTS, direct) == 1.5
    assert iface.capture_attempts == [] and direct.calls == 3
    assert markers(capsys) == [("BENCHMARK_CAPTURE_DENIED", {"op": "unique2"})]


def test_rng_guard_captures_on_a_scratch_state(capsys):
    engine, iface = make_engine()
    generator = iface.default_generators[0]
    original = generator.state
    engine.bench(Ctx(), fn, OPTS, Direct())
    assert generator.state is original and original.offset == 0  # the stream did not move
    iface.random_op()


def test_rng_guard_unsticks_a_failed_capture(capsys):
    engine, iface = make_engine(failure=lambda op, n: RuntimeError(
        "operation not permitted when stream is capturing"))
    generator = iface.default_generators[0]
    original = generator.state
    assert engine.bench(Ctx(), fn, OPTS, Direct()) == 1.5
    assert generator.state is original and not original.capturing
    iface.random_op()  # without the guard: "Offset increment outside graph capture ..."


def test_rng_guard_without_graph_safe_state_restores_snapshots():
    engine, iface = make_engine(generators="plain")
    generator = iface.default_generators[0]
    engine.bench(Ctx(), fn, OPTS, Direct())
    assert generator.sets == [("offset", 0)] and generator.state.offset == 0


def test_failed_capture_without_the_guard_breaks_later_random_ops():
    """What the guard is for (the fake reproduces torch's behaviour seen on an H200)."""
    iface = FakeInterface("torch.musa", "MUSAGraph")
    iface.capture_failure = lambda op, n: RuntimeError("refused")
    with pytest.raises(RuntimeError):
        with iface.graph(iface.MUSAGraph()):
            pass
    with pytest.raises(RuntimeError, match="Offset increment outside graph capture"):
        iface.random_op()


def test_rng_guard_is_skipped_without_default_generators():
    engine, iface = make_engine(generators=None)
    assert not hasattr(iface, "default_generators")
    assert engine.bench(Ctx(), fn, OPTS, Direct()) > 0
    assert len(iface.capture_attempts) == 1


def test_port_statistics_follow_return_mode():
    engine, _ = make_engine()
    times = engine.port(fn, zl_capture.TimingOptions(rep=1, return_mode="all"))
    assert len(times) == zl_capture.REPLAYS and all(t >= 0 for t in times)
    assert zl_capture.summarize([1, 2, 3, 10], return_mode="median") == 2.5
    assert zl_capture.summarize([1, 2, 3, 4, 5], quantiles=[0.5, 0.2, 0.8]) == [3, 1.8, 4.2]
    assert zl_capture.summarize([4, 5], quantiles=[0.5]) == 4.5
    with pytest.raises(ValueError):
        zl_capture.summarize([1], return_mode="avg")


# --- CUDA: upstream do_bench_cudagraph, unchanged ---------------------------------------------

@pytest.mark.parametrize("era, side_streams", [("3.2", 0), ("3.1", 1)])
def test_cuda_calls_upstream_do_bench_cudagraph(monkeypatch, era, side_streams):
    testing = install_triton(monkeypatch, era)
    iface = FakeInterface("torch.cuda", "CUDAGraph")
    engine = zl_capture.CaptureEngine(CAPTURE, iface, iface.CUDAGraph,
                                      upstream=testing.do_bench_cudagraph)
    grads = ["x"]
    opts = zl_capture.TimingOptions(rep=100, return_mode="median", grad_to_none=grads)
    assert engine.bench(Ctx(), fn, opts, Direct()) == 0.25
    ((name, kwargs),) = testing.calls
    assert name == "do_bench_cudagraph"
    assert kwargs["rep"] == 100 and kwargs["return_mode"] == "median"
    assert kwargs["grad_to_none"] is grads
    assert iface.side_streams == side_streams  # 3.1 refuses the default stream
    assert iface.capture_attempts == []  # the port was not used


def test_cuda_upstream_refusal_is_classified(monkeypatch, capsys):
    testing = install_triton(monkeypatch, "3.2")

    def refusing(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
        raise RuntimeError("CUDA error: operation not permitted when stream is capturing")

    testing.do_bench_cudagraph = refusing
    iface = FakeInterface("torch.cuda", "CUDAGraph")
    engine = zl_capture.CaptureEngine(CAPTURE, iface, iface.CUDAGraph, upstream=refusing)
    direct = Direct()
    assert engine.bench(Ctx(), fn, OPTS, direct) == 1.5
    assert markers(capsys)[0][0] == "BENCHMARK_DIRECT_NO_CUDAGRAPH"


def test_quantiles_need_a_triton_that_takes_them(monkeypatch):
    testing = install_triton(monkeypatch, "3.1")
    iface = FakeInterface("torch.cuda", "CUDAGraph")
    engine = zl_capture.CaptureEngine(CAPTURE, iface, iface.CUDAGraph,
                                      upstream=testing.do_bench_cudagraph)
    with pytest.raises(RuntimeError, match="takes no quantiles"):
        engine.bench(Ctx(), fn, zl_capture.TimingOptions(quantiles=[0.5]), Direct())


# --- resolving the device interface -----------------------------------------------------------

def _plan(tmp_path, **backend):
    import json

    from .zl_testlib import MUSA_BACKEND, plan_dict

    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_dict(timer="graph", backend=dict(MUSA_BACKEND, **backend))))
    return zl_plan.load_plan({"ZL_PLAN": str(path)})


def test_resolve_interface(monkeypatch, tmp_path):
    from .fakes import install_torch

    _, iface = install_torch(monkeypatch)
    module, graph_cls = zl_capture.resolve_interface(_plan(tmp_path))
    assert module is iface and graph_cls is iface.MUSAGraph


@pytest.mark.parametrize("backend, message", [
    ({"torch_module": "torch.npu", "graph_class": "NPUGraph"},
     "key backend.torch_module names torch.npu, which this torch does not have"),
    ({"graph_class": "NPUGraph"},
     "key backend.graph_class names NPUGraph, which torch.musa does not have"),
    ({"torch_module": "", "graph_class": ""}, "names no device interface"),
])
def test_resolve_interface_errors_name_the_key(monkeypatch, tmp_path, backend, message):
    from .fakes import install_torch

    install_torch(monkeypatch)
    plan = _plan(tmp_path, **backend)
    with pytest.raises(pytest.UsageError) as info:
        zl_capture.resolve_interface(plan)
    assert message in str(info.value) and plan.path in str(info.value)


def test_resolve_interface_names_missing_calls(monkeypatch, tmp_path):
    from .fakes import install_torch

    _, iface = install_torch(monkeypatch)
    monkeypatch.delattr(iface, "Stream")
    with pytest.raises(pytest.UsageError, match="has no Stream, which graph capture needs"):
        zl_capture.resolve_interface(_plan(tmp_path))


# --- samples ----------------------------------------------------------------------------------

def test_adaptive_sampling_replays_the_one_captured_graph(tmp_path):
    engine, iface = make_engine()
    graphs = []
    real_cls = iface.MUSAGraph

    def recording_graph():
        g = real_cls()
        graphs.append(g)
        return g

    engine.graph_cls = recording_graph
    sampler = zl_samples.Sampler(str(tmp_path / "samples.bin"),
                                 zl_samples.Sampling(ci_width=1e-9, min_samples=10, max_samples=30,
                                                     max_time_s=60))
    latency = engine.bench(Ctx(), fn, OPTS, Direct(), sampler)
    sampler.close()
    assert latency > 0
    assert len(iface.capture_attempts) == 1 and len(graphs) == 1
    assert graphs[0].replays == 30  # 10 a batch, three batches, one capture
    data = (tmp_path / "samples.bin").read_bytes()
    head_len, n = struct.unpack_from("<II", data, 12)
    header = json.loads(data[20:20 + head_len])
    assert n == 30 and header["stop"] == "max_samples" and header["stamps"] == "measured"
    assert header["timer"] == "graph" and header["calls"] == 3
