"""zl_device_setup: FLAGGEMS_PERF_CURRENT_OP and the vendor check."""
import sys

import pytest

from .fakes import install_flag_gems
from .zl_testlib import MUSA_BACKEND, marker_lines, parse_marker

OBSERVER = """
import os
import pytest

SEEN = []


@pytest.fixture(autouse=True)
def _record_op():
    # fixtures run after pytest_runtest_setup's wrapper has set the variable
    SEEN.append(os.environ.get("FLAGGEMS_PERF_CURRENT_OP"))


def test_abs():
    assert os.environ["FLAGGEMS_PERF_CURRENT_OP"] == "abs"


def test_unique2():
    assert os.environ["FLAGGEMS_PERF_CURRENT_OP"] == "unique2"


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_add_alpha(dtype):
    assert os.environ["FLAGGEMS_PERF_CURRENT_OP"] == "add_alpha"


class TestBlas:
    @pytest.mark.parametrize("m", [1, 2])
    def test_blas_benchmark(self, m):
        assert os.environ["FLAGGEMS_PERF_CURRENT_OP"] == "blas_benchmark"


# skipif conditions are evaluated during setup: the variable is already set
@pytest.mark.skipif("os.environ['FLAGGEMS_PERF_CURRENT_OP'] != 'perf_fft'", reason="unset")
def test_perf_fft():
    pass
"""


def test_current_op_for_plain_and_parametrized_functions(pytester, write_plan):
    write_plan()
    pytester.makepyfile(test_ops=OBSERVER)
    result = pytester.runpytest("-p", "zl_device_setup")
    result.assert_outcomes(passed=7)


def test_current_op_is_set_without_a_plan(pytester):
    pytester.makepyfile(test_ops=OBSERVER)
    result = pytester.runpytest("-p", "zl_device_setup")
    result.assert_outcomes(passed=7)


def test_cpu_backend_imports_nothing(pytester, write_plan):
    write_plan()
    for name in ("torch", "triton", "flag_gems"):
        pytester.makepyfile(**{name: "raise ImportError('imported on the cpu backend')"})
    pytester.makepyfile(test_one="""
        import sys

        def test_nothing_imported():
            assert not {"torch", "triton", "flag_gems"} & set(sys.modules)
    """)
    result = pytester.runpytest("-p", "zl_device_setup", "-p", "zl_timing", "-p", "zl_identity")
    result.assert_outcomes(passed=1)


def test_matching_vendor_passes(pytester, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "mthreads")
    write_plan(backend=MUSA_BACKEND)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "zl_device_setup")
    result.assert_outcomes(passed=1)
    assert not marker_lines(result.outlines, "ZL_DEVICE_MISMATCH")


def test_vendor_mismatch_is_a_usage_error(pytester, write_plan, monkeypatch):
    install_flag_gems(monkeypatch, "nvidia")
    plan = write_plan(backend=MUSA_BACKEND)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "zl_device_setup")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    (line,) = marker_lines(result.outlines, "ZL_DEVICE_MISMATCH")
    assert parse_marker(line) == ("ZL_DEVICE_MISMATCH", {"expected": "mthreads",
                                                         "found": "nvidia"})
    error = "\n".join(result.errlines)
    assert "expects flag_gems to dispatch to vendor 'mthreads'" in error
    assert "flag_gems.vendor_name is 'nvidia'" in error
    assert str(plan) in error and "backend.flaggems_vendor" in error
    assert "GEMS_VENDOR=mthreads" in error and "--backend" in error


def test_flag_gems_import_failure_is_explained(pytester, write_plan, monkeypatch):
    monkeypatch.delitem(sys.modules, "flag_gems", raising=False)
    write_plan(backend=MUSA_BACKEND)
    pytester.makepyfile(flag_gems="raise RuntimeError('No device were detected on your machine')")
    pytester.makepyfile("def test_x():\n    pass\n")
    pytester.syspathinsert()
    result = pytester.runpytest("-s", "-p", "zl_device_setup")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = "\n".join(result.errlines)
    assert "importing flag_gems failed: RuntimeError: No device were detected" in error
    assert "GEMS_VENDOR=mthreads" in error


def test_flag_gems_not_installed_is_left_to_flaggems(pytester, write_plan, monkeypatch):
    monkeypatch.delitem(sys.modules, "flag_gems", raising=False)
    write_plan(backend=MUSA_BACKEND)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "zl_device_setup")
    result.assert_outcomes(passed=1)
