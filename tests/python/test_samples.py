"""zl_samples: the samples file, the median's interval, adaptive sampling, upstream statistics."""
import json
import struct
import sys
import types
import zlib

import pytest

import zl_samples
from zl_samples import Batch, Sampler, Sampling


def read_records(path):
    data = path.read_bytes()
    assert data[:8] == zl_samples.FILE_MAGIC
    at, out = 8, []
    while at < len(data):
        assert data[at:at + 4] == zl_samples.RECORD_TAG
        head_len, n = struct.unpack_from("<II", data, at + 4)
        body_len = 8 + head_len + 8 * n
        body = data[at + 4:at + 4 + body_len]
        (crc,) = struct.unpack_from("<I", data, at + 4 + body_len)
        assert crc == zlib.crc32(body)
        header = json.loads(body[8:8 + head_len])
        ms = struct.unpack_from(f"<{n}f", body, 8 + head_len)
        ends = struct.unpack_from(f"<{n}f", body, 8 + head_len + 4 * n)
        out.append((header, ms, ends))
        at += 4 + body_len + 4
    return out


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class Source:
    """Batches from a list; each batch advances the clock by `step` seconds."""

    stamps_measured = False

    def __init__(self, batches, clock, step=0.1):
        self.batches, self.clock, self.step, self.calls = list(batches), clock, step, 0

    def _next(self):
        start = self.clock()
        self.clock.now += self.step
        times = self.batches[min(self.calls, len(self.batches) - 1)]
        self.calls += 1
        return Batch(times, start, self.clock())

    first = more = _next

    def summarize(self, times):
        return zl_samples.statistics_summary(times, None, "median")


NAMES = {"op": "abs", "table_op": "abs", "dtype": "torch.float16", "shape": "[torch.Size([64])]"}


def test_median_rank_matches_zl():
    assert zl_samples.median_rank(10) == (2, pytest.approx(1 - 22 / 1024))
    assert zl_samples.median_rank(100)[0] == 40
    assert zl_samples.median_rank(5) == (0, 0.0)
    assert zl_samples.median_rank(2000)[0] == 956  # the normal approximation, as zl's


def test_fixed_sampling_is_one_call_and_is_kept(tmp_path):
    clock = Clock()
    path = tmp_path / "samples.bin"
    sampler = Sampler(str(path), Sampling(ci_width=0), clock)
    source = Source([[1.0, 3.0, 2.0]], clock)
    assert sampler.measure(NAMES, "direct", source) == 2.0
    sampler.close()
    (header, ms, ends), = read_records(path)
    assert source.calls == 1
    assert header["stop"] == "fixed" and header["calls"] == 1 and header["returned"] == 2.0
    assert header["stamps"] == "interpolated" and header["t0"] == 1000.0
    assert ms == (1.0, 3.0, 2.0)
    assert ends == pytest.approx((0.1 / 3, 0.2 / 3, 0.1))  # spread over the call
    assert {k: header[k] for k in NAMES} == NAMES


def test_adaptive_sampling_until_the_median_is_known(tmp_path):
    clock = Clock()
    sampler = Sampler(str(tmp_path / "s.bin"), Sampling(ci_width=0.01, min_samples=10), clock)
    wide = [1.0, 2.0, 3.0, 4.0, 5.0]
    tight = [2.0, 2.001, 1.999, 2.0, 2.0, 2.0, 2.001, 1.999, 2.0, 2.0] * 3
    source = Source([wide, tight], clock)
    sampler.measure(NAMES, "graph", source)
    sampler.close()
    (header, ms, _), = read_records(tmp_path / "s.bin")
    assert header["stop"] == "converged" and header["calls"] == source.calls >= 2
    assert len(ms) == 5 + 30 * (source.calls - 1)


@pytest.mark.parametrize("sampling,stop", [
    (Sampling(ci_width=0.0001, min_samples=10, max_samples=40, max_time_s=100), "max_samples"),
    (Sampling(ci_width=0.0001, min_samples=10, max_samples=10**6, max_time_s=0.35), "max_time"),
])
def test_caps_stop_a_row_that_does_not_converge(tmp_path, sampling, stop):
    clock = Clock()
    sampler = Sampler(str(tmp_path / "s.bin"), sampling, clock)
    sampler.measure(NAMES, "graph", Source([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]],
                                           clock))
    sampler.close()
    (header, ms, _), = read_records(tmp_path / "s.bin")
    assert header["stop"] == stop
    if stop == "max_samples":
        assert len(ms) == 40
    else:
        assert header["calls"] == 4  # 0.1 s a call: past 0.35 s after the fourth


def test_min_time_holds_sampling_on(tmp_path):
    clock = Clock()
    sampler = Sampler(str(tmp_path / "s.bin"), Sampling(ci_width=0.5, min_samples=1,
                                                        min_time_s=0.25), clock)
    source = Source([[2.0] * 10], clock)
    sampler.measure(NAMES, "graph", source)
    assert source.calls == 3


def test_unsampled_rows_say_why(tmp_path):
    sampler = Sampler(str(tmp_path / "s.bin"), Sampling(ci_width=0.01), Clock())
    assert sampler.unsampled(NAMES, "direct", lambda: 0.5, "the timer gives no per-call list") == 0.5
    sampler.close()
    (header, ms, _), = read_records(tmp_path / "s.bin")
    assert ms == () and header["no_samples"] == "the timer gives no per-call list"


def test_no_path_keeps_nothing():
    assert Sampler(None).measure(NAMES, "graph", Source([[1.0]], Clock())) == 1.0


def test_a_timer_that_returns_no_list_is_named():
    clock = Clock()
    source = zl_samples.TimedCalls(lambda first: 0.25, lambda t: t)
    with pytest.raises(RuntimeError, match="returned float"):
        Sampler(None, Sampling(), clock).measure(NAMES, "direct", source)


def _triton_module(monkeypatch, summarize):
    module = types.ModuleType("triton.testing")
    module._summarize_statistics = summarize

    def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
        return [1.0]

    do_bench.__module__ = "triton.testing"
    module.do_bench = do_bench
    monkeypatch.setitem(sys.modules, "triton.testing", module)
    return do_bench


def test_upstream_statistics_come_from_triton_itself(monkeypatch):
    seen = []

    def summarize(times, quantiles, return_mode):  # Triton 3.4 on: pure Python, over a list
        seen.append((list(times), quantiles, return_mode))
        return "upstream"

    do_bench = _triton_module(monkeypatch, summarize)
    assert zl_samples.upstream_summarizer(do_bench, None, "median")([1.0, 2.0]) == "upstream"
    assert seen == [([1.0, 2.0], None, "median")]


def test_triton_without_summarize_statistics_keeps_no_samples(monkeypatch):
    do_bench = _triton_module(monkeypatch, None)
    assert zl_samples.upstream_summarizer(do_bench, None, "median") is None


def test_a_base_module_timer_with_return_mode_is_summarized_in_python():
    def do_bench(fn, warmup=25, rep=100, return_mode="mean"):
        return 0.0

    def no_list(fn, warmup=25, rep=100):
        return 0.0

    summarize = zl_samples.upstream_summarizer(do_bench, None, "median")
    assert summarize([1.0, 2.0, 10.0, 3.0]) == 2.5  # statistics.median: the two middle ones
    assert zl_samples.upstream_summarizer(do_bench, (0.5, 0.2), "mean")([1, 2, 3]) == [2, 1.4]
    assert zl_samples.upstream_summarizer(no_list, None, "median") is None


@pytest.mark.parametrize("raw,problem", [
    ({"sampling": []}, "must be an object"),
    ({"sampling": {"ci_width": 0.01}}, "sampling.min_samples' is missing"),
    ({"sampling": {"ci_width": -1, "min_samples": 1, "max_samples": 1, "min_time_s": 0,
                   "max_time_s": 0}}, "ci_width' must be a non-negative number"),
    ({"sampling": {"ci_width": 0.01, "min_samples": 1.5, "max_samples": 1, "min_time_s": 0,
                   "max_time_s": 0}}, "min_samples' must be a non-negative number"),
    ({"sampling": {"ci_width": 0.01, "min_samples": 1, "max_samples": 0, "min_time_s": 0,
                   "max_time_s": 0}}, "at least 1"),
])
def test_bad_sampling_in_the_plan_is_named(raw, problem):
    def fail(key, why):
        raise ValueError(f"key '{key}' {why}")

    with pytest.raises(ValueError, match=problem):
        zl_samples.sampling_from_plan(raw, fail)
    assert zl_samples.sampling_from_plan({}, fail) == zl_samples.FIXED_SAMPLING


def test_a_timer_not_known_to_list_is_probed_once():
    def no_all(first):
        raise KeyError("all")

    probe = zl_samples.TimedCalls(no_all, lambda t: t, probe=True)
    with pytest.raises(zl_samples.ListRefused, match="KeyError"):
        Sampler(None).measure(NAMES, "direct", probe)
    returns_float = zl_samples.TimedCalls(lambda first: 0.5, lambda t: t, probe=True)
    with pytest.raises(zl_samples.ListRefused, match="returned float"):
        Sampler(None).measure(NAMES, "direct", returns_float)
    sure = zl_samples.TimedCalls(no_all, lambda t: t)  # Triton's: its failure is the kernel's
    with pytest.raises(KeyError):
        Sampler(None).measure(NAMES, "direct", sure)


def test_a_failed_write_loses_the_samples_never_the_row(tmp_path, capsys):
    sampler = Sampler(str(tmp_path / "missing" / "samples.bin"), Sampling(ci_width=0), Clock())
    assert sampler.measure(NAMES, "direct", Source([[1.0, 2.0, 3.0]], Clock())) == 2.0
    assert sampler.measure(NAMES, "direct", Source([[4.0]], Clock())) == 4.0
    out = capsys.readouterr().out
    assert out.count("ZL_SAMPLES_WRITE_FAILED") == 1 and "No such file or directory" in out
