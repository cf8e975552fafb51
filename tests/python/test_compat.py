"""zl_compat: one file, one exact skip reason, only on the rule's vendor; checked in real inner
pytest sessions, since pytest evaluates skipif from the marks at setup time."""
import sys

import pytest

from .fakes import install_flag_gems
from .zl_testlib import MUSA_BACKEND, marker_lines, parse_marker

FFT = """
import pytest

CUDA = False


@pytest.mark.skipif(not CUDA, reason="CUDA is not available")
@pytest.mark.fft
def test_perf_fft():
    pass


@pytest.mark.skipif(not CUDA, reason="CUDA is not available")
@pytest.mark.parametrize("n", [1, 2])
def test_perf_fft_sizes(n):
    pass


@pytest.mark.skipif(not CUDA, reason="requires CUDA with Hopper architecture (SM90+)")
def test_hopper_only():
    pass
"""

DROP = {"file": "benchmark/test_fft.py", "skip_reason": "CUDA is not available",
        "vendor": "mthreads", "action": "drop", "why": "dispatches through flag_gems.device"}
KEEP = {"file": "benchmark/test_fft.py",
        "skip_reason": "requires CUDA with Hopper architecture (SM90+)", "vendor": "mthreads",
        "action": "keep", "why": "probed on an S5000: fp8 kernels need SM90"}


@pytest.fixture
def fft(pytester):
    pytester.mkpydir("benchmark")
    pytester.path.joinpath("benchmark", "test_fft.py").write_text(FFT)
    return pytester


def run(pytester, *extra):
    return pytester.runpytest("-s", "-rs", "-p", "zl_compat", *extra)


def test_right_vendor_drops_the_exact_skip(fft, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    write_plan(backend=MUSA_BACKEND, compat_rules=[DROP])
    result = run(fft)
    result.assert_outcomes(passed=3, skipped=1)  # the Hopper guard has another reason
    dropped = [parse_marker(line)[1] for line in marker_lines(result.outlines,
                                                              "ZL_COMPAT_DROPPED")]
    assert [d["node"] for d in dropped] == [
        "benchmark/test_fft.py::test_perf_fft", "benchmark/test_fft.py::test_perf_fft_sizes[1]",
        "benchmark/test_fft.py::test_perf_fft_sizes[2]"]
    assert dropped[0] == {"file": "benchmark/test_fft.py", "reason": "CUDA is not available",
                          "vendor": "mthreads", "node": "benchmark/test_fft.py::test_perf_fft"}


def test_wrong_vendor_keeps_the_skip_and_prints_nothing(fft, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "nvidia")
    write_plan(backend=MUSA_BACKEND, compat_rules=[DROP, KEEP])
    result = run(fft)
    result.assert_outcomes(skipped=4)
    assert not [line for line in result.outlines if line.startswith("ZL_COMPAT")]


def test_keep_rule_is_reported_once(fft, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    write_plan(backend=MUSA_BACKEND, compat_rules=[KEEP])
    result = run(fft)
    result.assert_outcomes(skipped=4)
    (line,) = marker_lines(result.outlines, "ZL_COMPAT_KEPT")
    assert parse_marker(line)[1] == {"file": "benchmark/test_fft.py",
                                     "reason": "requires CUDA with Hopper architecture (SM90+)",
                                     "why": "probed on an S5000: fp8 kernels need SM90"}


def test_other_files_are_untouched(fft, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    fft.path.joinpath("benchmark", "test_other.py").write_text(FFT)
    write_plan(backend=MUSA_BACKEND, compat_rules=[DROP])
    result = run(fft, "benchmark/test_other.py")
    result.assert_outcomes(skipped=4)
    assert not marker_lines(result.outlines, "ZL_COMPAT_DROPPED")


@pytest.mark.parametrize("through_link", [False, True])
def test_rule_file_is_relative_to_flaggems_dir(fft, write_plan, monkeypatch, tmp_path,
                                               through_link):
    """zl runs pytest in the run folder, with the checkout in the plan's flaggems_dir (which
    may be spelled through a symbolic link)."""
    install_flag_gems(monkeypatch, "mthreads")
    checkout = fft.path
    if through_link:
        checkout = tmp_path / "flaggems-link"
        checkout.symlink_to(fft.path)
    write_plan(backend=MUSA_BACKEND, compat_rules=[DROP], flaggems_dir=str(checkout))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    monkeypatch.chdir(run_dir)
    result = run(fft, str(fft.path / "benchmark" / "test_fft.py"), "--rootdir", str(run_dir))
    result.assert_outcomes(passed=3, skipped=1)


def test_module_and_class_level_guards(pytester, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    pytester.mkpydir("benchmark")
    pytester.path.joinpath("benchmark", "test_topk.py").write_text("""
import pytest

pytestmark = pytest.mark.skipif(True, reason="CUDA device required")


def test_top_k():
    pass


class TestTopK:
    pytestmark = [pytest.mark.skipif(True, reason="CUDA device required")]

    def test_in_class(self):
        pass
""")
    rule = dict(DROP, file="benchmark/test_topk.py", skip_reason="CUDA device required")
    write_plan(backend=MUSA_BACKEND, compat_rules=[rule])
    result = run(pytester)
    result.assert_outcomes(passed=2)
    assert len(marker_lines(result.outlines, "ZL_COMPAT_DROPPED")) == 2


def test_compat_runs_before_other_readers_of_the_item_list(fft, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    fft.makeconftest("""
        SEEN = []

        def pytest_collection_modifyitems(items):
            for item in items:
                if item.get_closest_marker("skipif") is not None:
                    SEEN.append(item.name)
            print("GUARDED_AT_COLLECTION", sorted(SEEN))
    """)
    write_plan(backend=MUSA_BACKEND, compat_rules=[DROP])
    result = run(fft)
    result.stdout.fnmatch_lines(["GUARDED_AT_COLLECTION ['test_hopper_only']"])


def test_no_rules_imports_no_flag_gems(fft, write_plan, monkeypatch):
    monkeypatch.delitem(sys.modules, "flag_gems", raising=False)
    fft.makepyfile(flag_gems="raise ImportError('flag_gems imported without compat rules')")
    write_plan()
    result = run(fft)
    result.assert_outcomes(skipped=4)


def test_rules_without_flag_gems_are_a_usage_error(fft, write_plan, monkeypatch):
    monkeypatch.delitem(sys.modules, "flag_gems", raising=False)
    plan = write_plan(backend=MUSA_BACKEND, compat_rules=[DROP])
    result = run(fft)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*plan {plan} has compat rules (key compat_rules)*"])


def test_corpus_fft_guard_is_dropped_on_the_rules_vendor(corpus, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    write_plan(backend=MUSA_BACKEND, compat_rules=[DROP])
    result = corpus.runpytest("benchmark/test_fft.py", "-s", "--level", "core", "--warmup", "1",
                              "--iter", "2", "-p", "zl_compat")
    result.assert_outcomes(passed=1)
    assert len(marker_lines(result.outlines, "ZL_COMPAT_DROPPED")) == 1
    result.stdout.fnmatch_lines(["Operator: fft  Performance Test (dtype=torch.complex64, "
                                 "mode=kernel,level=core)"])
