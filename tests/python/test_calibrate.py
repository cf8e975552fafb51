"""zl_calibrate's own logic: its exit codes for what a user must fix, and that a round is timed
from one synchronize to the next. The measurement itself runs through the host's real torch in
tests/e2e/test_calibrate.py."""
import sys

import zl_calibrate


def test_torch_missing_is_exit_3(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert zl_calibrate.main(["--device-type", "cuda", "--copy-mib", "1", "--gemm-n", "8"]) == 3
    assert "torch cannot be imported" in capsys.readouterr().err


def test_a_device_that_cannot_be_used_is_exit_4(monkeypatch, capsys):
    class Torch:
        __version__ = "0"

    monkeypatch.setitem(sys.modules, "torch", Torch())
    args = ["--device-type", "cuda", "--device-module", "zl_no_such_device_module", "--copy-mib", "1", "--gemm-n", "8"]
    assert zl_calibrate.main(args) == 4
    err = capsys.readouterr().err
    assert "the device cuda cannot be used: ModuleNotFoundError" in err


def test_each_round_ends_with_a_synchronize_and_the_best_is_kept(monkeypatch):
    events = []
    clock = iter([0.0, 0.5, 1.0, 1.2, 2.0, 2.9, 3.0, 3.1, 4.0, 4.6])  # rounds of 0.5, 0.2, 0.9, 0.1, 0.6 s
    monkeypatch.setattr(zl_calibrate.time, "perf_counter", lambda: next(clock))
    best = zl_calibrate.timed_best(lambda: events.append("call"), lambda: events.append("sync"), 2)
    assert abs(best - 0.1 / 2) < 1e-12
    # a warm-up round, then five: each round's calls followed by one synchronize
    assert events == (["call", "call", "sync"] * 6)
