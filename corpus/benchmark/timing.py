"""The corpus' kernel-mode timer: Triton's do_bench method on the host clock.

Same signature and budgets as triton.testing.do_bench: `warmup` and `rep` are milliseconds,
not counts. Five calls estimate one call's time; warm-up and measured repetitions follow from
the budgets; each measured call is timed on its own and the statistic is taken over them.
"""
import statistics
import time

ESTIMATE_CALLS = 5


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    fn()
    start = time.perf_counter()
    for _ in range(ESTIMATE_CALLS):
        fn()
    estimate_ms = (time.perf_counter() - start) * 1000 / ESTIMATE_CALLS
    n_warmup = max(1, int(warmup / estimate_ms)) if estimate_ms > 0 else 1000
    n_repeat = max(1, int(rep / estimate_ms)) if estimate_ms > 0 else 1000
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_repeat):
        for x in grad_to_none or ():
            x.grad = None
        begin = time.perf_counter()
        fn()
        times.append((time.perf_counter() - begin) * 1000)
    if quantiles:
        ordered = sorted(times)
        values = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in quantiles]
        return values[0] if len(values) == 1 else values
    if return_mode == "all":
        return times
    pick = {"min": min, "max": max, "mean": statistics.mean, "median": statistics.median}
    return pick[return_mode](times)
