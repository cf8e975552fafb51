"""Every timed sample of a row, kept in samples.bin, and sampling until the median is known.

zl_timing and zl_capture time a row through a *source*: an object whose `first()` makes the
timing call the benchmark asked for and whose `more()` makes another on the warm device, each
returning a Batch of per-call times. The Sampler calls `first()`, then `more()` until the 95%
confidence interval of the median is as narrow as the plan asks (plan key `sampling`), or a cap
is reached, writes every sample with its timestamp to the run's samples.bin and returns the
statistic the benchmark asked for, computed over all samples as its own timer computes it.

samples.bin (docs/plan-file.md): the 8 bytes b"ZLSAMPL1", then one record per timing of a row:
b"ZLR1", u32 header length H, u32 sample count N, H bytes of UTF-8 JSON (the row's names, timer,
stop reason, calls, returned value, t0), N float32 milliseconds, N float32 seconds after t0 at
which each sample ended, and a u32 CRC-32 of everything after the 4-byte tag. All little-endian.
A record is written and flushed whole, so an interrupted run loses at most the row in progress,
and a reader tells a torn record by its length or CRC.
"""
import inspect
import json
import math
import statistics
import struct
import sys
import time
import zlib
from dataclasses import dataclass
from typing import Callable, List, Optional

FILE_MAGIC = b"ZLSAMPL1"
RECORD_TAG = b"ZLR1"
FIXED, CONVERGED, MAX_SAMPLES, MAX_TIME = "fixed", "converged", "max_samples", "max_time"
EXACT_RANK_LIMIT = 1000  # above: the normal approximation of the binomial


@dataclass(frozen=True)
class Sampling:
    """Plan key `sampling`: ci_width 0 means one timing call a row (the benchmark's own)."""

    ci_width: float = 0.0
    min_samples: int = 10
    max_samples: int = 10000
    min_time_s: float = 0.0
    max_time_s: float = 10.0


FIXED_SAMPLING = Sampling()


@dataclass
class Batch:
    """Per-call times of one timing call, in ms; `ends`: when each ended (Unix seconds), or
    None when the timer returned only the list (they are then spread over the call)."""

    times: List[float]
    start: float
    end: float
    ends: Optional[List[float]] = None


def median_rank(n, level=0.95):
    """(c, coverage): [x(c), x(n+1-c)] is the distribution-free interval of the median of n
    samples, c from Binomial(n, 1/2); c == 0 when n is too small for one."""
    tail = (1 - level) / 2
    if n > EXACT_RANK_LIMIT:
        sd = math.sqrt(n) / 2
        c = int(math.floor(n / 2 + statistics.NormalDist().inv_cdf(tail) * sd + 0.5))
        return c, 1 - 2 * statistics.NormalDist().cdf((c - 0.5 - n / 2) / sd)
    best, cdf = (0, 0.0), 0.0
    log_norm = math.lgamma(n + 1) - n * math.log(2)
    for c in range(1, n // 2 + 1):
        k = c - 1
        cdf += math.exp(log_norm - math.lgamma(k + 1) - math.lgamma(n - k + 1))
        if cdf > tail:
            break
        best = (c, 1 - 2 * cdf)
    return best


def ci_width(times):
    """The relative width of the median's 95% interval; inf when n is too small to tell."""
    ordered = sorted(times)
    c, _ = median_rank(len(ordered))
    med = statistics.median(ordered) if ordered else 0
    if c == 0 or med <= 0:
        return math.inf
    return (ordered[len(ordered) - c] - ordered[c - 1]) / med


class Sampler:
    """Samples rows through sources and keeps what it timed in one samples.bin."""

    def __init__(self, path, sampling=FIXED_SAMPLING, clock=time.time):
        self.path, self.sampling, self.clock = path, sampling, clock
        self._file = None

    def measure(self, names, timer, source):
        """names: op, table_op, dtype, shape (what the row's table prints). Returns the
        statistic `source.summarize` computes over every sample."""
        times, ends, calls, stop, t0 = self._sample(source)
        value = source.summarize(times)
        self._write(dict(names, timer=timer, stop=stop, calls=calls,
                         returned=value if _is_number(value) else None,
                         stamps="measured" if source.stamps_measured else "interpolated",
                         t0=t0), times, [e - t0 for e in ends])
        return value

    def unsampled(self, names, timer, call, why):
        """Times the row with call() as it is, keeping no samples, and says why on record."""
        t0 = self.clock()
        value = call()
        self._write(dict(names, timer=timer, stop=FIXED, calls=1,
                         returned=value if _is_number(value) else None, stamps="none", t0=t0,
                         no_samples=why), [], [])
        return value

    def _sample(self, source):
        s = self.sampling
        begin = self.clock()
        times, ends, calls = [], [], 0
        while True:
            batch = source.first() if calls == 0 else source.more()
            calls += 1
            times.extend(batch.times)
            ends.extend(batch.ends if batch.ends is not None else _spread(batch))
            elapsed = self.clock() - begin
            if s.ci_width <= 0:
                stop = FIXED
            elif (len(times) >= s.min_samples and elapsed >= s.min_time_s
                  and ci_width(times) <= s.ci_width):
                stop = CONVERGED
            elif len(times) >= s.max_samples:
                stop = MAX_SAMPLES
            elif elapsed >= s.max_time_s:
                stop = MAX_TIME
            else:
                continue
            return times, ends, calls, stop, begin

    def _write(self, header, times, offsets):
        if self.path is None:
            return
        head = json.dumps(header, ensure_ascii=False, allow_nan=False).encode("utf-8")
        n = len(times)
        body = struct.pack(f"<II{len(head)}s{n}f{n}f", len(head), n, head, *times, *offsets)
        try:
            if self._file is None:
                self._file = open(self.path, "ab")
                if self._file.tell() == 0:
                    self._file.write(FILE_MAGIC)
            self._file.write(RECORD_TAG + body + struct.pack("<I", zlib.crc32(body)))
            self._file.flush()
        except OSError as e:
            # The row was measured and the benchmark gets its number; only its samples are lost
            # (a full disk): said once, and nothing more is written.
            import zl_plan

            zl_plan.marker("ZL_SAMPLES_WRITE_FAILED", file=self.path, reason=e.strerror or str(e))
            self.path = None

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None


def _spread(batch):
    k = len(batch.times)
    span = batch.end - batch.start
    return [batch.start + span * (i + 1) / k for i in range(k)]


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def sampling_from_plan(raw, fail):
    """Sampling from the plan's `sampling` object; fail(key, problem) raises for a bad value."""
    obj = raw.get("sampling")
    if obj is None:
        return FIXED_SAMPLING
    if not isinstance(obj, dict):
        fail("sampling", "must be an object")
    values = {}
    for key, kind in (("ci_width", float), ("min_samples", int), ("max_samples", int),
                      ("min_time_s", float), ("max_time_s", float)):
        if key not in obj:
            fail(f"sampling.{key}", "is missing")
        v = obj[key]
        ok = (type(v) is int) if kind is int else (isinstance(v, (int, float))
                                                   and not isinstance(v, bool))
        if not ok or v < 0 or (kind is float and not math.isfinite(v)):
            fail(f"sampling.{key}", f"must be a non-negative number, not {json.dumps(v)}")
        values[key] = kind(v)
    if values["max_samples"] < 1:
        fail("sampling.max_samples", "must be at least 1")
    return Sampling(**values)


class ListRefused(Exception):
    """A timer that is not certain to list its times refused return_mode="all"."""


class TimedCalls:
    """A source over a timer that returns its per-call list: the first call as the benchmark
    made it, later ones without warm-up (the device is warm by then). probe: the timer is not
    known to list its times (a benchmark base's own do_bench); if its first call fails or
    returns no list, ListRefused says so and the caller times the row as it is."""

    stamps_measured = False

    def __init__(self, call: Callable[[bool], list], summarize, clock=time.time, probe=False):
        self._call, self.summarize, self.clock, self.probe = call, summarize, clock, probe

    def first(self):
        return self._batch(True)

    def more(self):
        return self._batch(False)

    def _batch(self, first):
        start = self.clock()
        try:
            times = self._call(first)
        except Exception as e:
            if self.probe and first:
                raise ListRefused(f"{type(e).__name__}: {e}") from e
            raise
        if not isinstance(times, (list, tuple)) or not all(_is_number(t) for t in times) or \
                not times:
            if self.probe and first:
                raise ListRefused(f"it returned {type(times).__name__}")
            raise RuntimeError(f"zl: the timer returned {type(times).__name__} where it was "
                               f"asked for its list of per-call times (return_mode='all')")
        return Batch([float(t) for t in times], start, self.clock())


def statistics_summary(times, quantiles=None, return_mode="mean"):
    """Triton's statistic over per-call times, in pure Python: quantiles interpolated linearly,
    the median averaged for an even count (statistics.median)."""
    if quantiles:
        ordered = sorted(times)
        values = []
        for q in quantiles:
            pos = (len(ordered) - 1) * q
            low = int(pos)
            high = min(low + 1, len(ordered) - 1)
            values.append(ordered[low] + (ordered[high] - ordered[low]) * (pos - low))
        return values[0] if len(values) == 1 else values
    if return_mode == "all":
        return list(times)
    pick = {"min": min, "max": max, "mean": statistics.mean, "median": statistics.median}
    if return_mode not in pick:
        raise ValueError(f"return_mode must be min, max, mean, median or all, not {return_mode!r}")
    return pick[return_mode](times)


def path_from_plan(plan):
    """Where this run keeps its samples: plan key samples_file, or None (an older plan)."""
    return getattr(plan, "samples_file", None)


def is_triton(original):
    return (getattr(original, "__module__", "") or "").split(".")[0] == "triton"


def upstream_summarizer(original, quantiles, return_mode):
    """What turns per-call times into the value `original` would have returned, exactly as it
    computes it; None when that timer cannot hand out its list (zl keeps no samples of it).

    Triton's timers (module triton.testing) list their times from 3.2 on, where the module has
    _summarize_statistics: over a float32 tensor in 3.2-3.3, over a list in pure Python later.
    Another timer (a benchmark base's own do_bench) is asked when it takes return_mode."""
    module_name = getattr(original, "__module__", "") or ""
    if is_triton(original):
        summarize = getattr(sys.modules.get(module_name), "_summarize_statistics", None)
        if not callable(summarize) or not hasattr(summarize, "__code__"):
            return None
        if "torch" in summarize.__code__.co_names:
            import torch

            return lambda times: summarize(torch.tensor(times, dtype=torch.float), quantiles,
                                           return_mode)
        return lambda times: summarize(list(times), quantiles, return_mode)
    try:
        if "return_mode" not in inspect.signature(original).parameters:
            return None
    except (TypeError, ValueError):
        return None
    return lambda times: statistics_summary(times, quantiles, return_mode)


def row_names(ctx):
    """The names a sample record gives its row: what the benchmark's table prints."""
    return {"op": ctx.op, "table_op": getattr(ctx, "table_op", ctx.op),
            "dtype": getattr(ctx, "dtype", ""), "shape": getattr(ctx, "shape", "")}
