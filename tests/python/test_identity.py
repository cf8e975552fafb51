"""zl_identity: the versions file, the FlagGems commit, nothing imported on the cpu backend."""
import importlib.metadata
import json
import platform
import sys

import pytest

import zl_identity
import zl_plan
from .fakes import install_flag_gems, install_torch
from .zl_testlib import MUSA_BACKEND, marker_lines, plan_dict

def test_cpu_run_writes_nulls_and_imports_nothing(pytester, write_plan, tmp_path):
    versions = tmp_path / "run" / "python_versions.json"
    write_plan(versions_file=str(versions))
    for name in ("torch", "triton", "flag_gems"):
        pytester.makepyfile(**{name: "raise ImportError('imported on the cpu backend')"})
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest("-p", "zl_identity")
    result.assert_outcomes(passed=1)
    doc = json.loads(versions.read_text())
    assert doc["python"] == platform.python_version()
    assert doc["torch"] is None and doc["triton"] is None and doc["flag_gems"] is None
    assert doc["version_sources"] == {"torch": None, "triton": None, "flag_gems": None}
    assert [p.name for p in versions.parent.iterdir()] == ["python_versions.json"]  # no tmp left


def test_loaded_modules_report_their_version(pytester, write_plan, tmp_path, monkeypatch):
    install_torch(monkeypatch)
    install_flag_gems(monkeypatch, "mthreads")
    versions = tmp_path / "versions.json"
    write_plan(backend=MUSA_BACKEND, versions_file=str(versions))
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    pytester.runpytest("-p", "zl_identity").assert_outcomes(passed=1)
    doc = json.loads(versions.read_text())
    assert doc["torch"] == "2.99.0+fake" and doc["flag_gems"] == "9.9.9+fake"
    assert doc["version_sources"]["torch"] == "module"


def test_metadata_is_read_only_where_the_backend_has_a_device_interface(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "triton", raising=False)

    def version(dist):
        if dist == "triton":
            return "3.3.1"
        raise importlib.metadata.PackageNotFoundError(dist)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert zl_identity.module_version("triton", ("triton",), True) == ("3.3.1", "metadata")
    assert zl_identity.module_version("triton", ("triton",), False) == (None, None)
    assert zl_identity.module_version("flag_gems", ("flag-gems", "flag_gems"), True) == (None,
                                                                                         None)


def test_write_failure_is_a_marker_not_a_crash(pytester, write_plan, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    write_plan(versions_file=str(blocker / "versions.json"))
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "zl_identity")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert len(marker_lines(result.outlines, "ZL_IDENTITY_WRITE_FAILED")) == 1


OUTCOME_TESTS = """
import pytest

def test_passes():
    pass

def test_refused():
    # FlagGems' own wording (benchmark/base.py set_dtypes): no space before "can't".
    raise ValueError("Given dtype(s) 'torch.float16, torch.bfloat16'can't be supported by this op 'abs'")

def test_other_value_error():
    raise ValueError("Given shapes are wrong")

def test_skipped():
    pytest.skip("needs CUDA graphs")

@pytest.mark.skipif(True, reason="CUDA is not available")
def test_skipif():
    pass

@pytest.fixture
def broken():
    raise RuntimeError("setup broke")

def test_setup_error(broken):
    pass
"""


def test_outcomes_tell_refusals_skips_failures_and_errors(pytester, write_plan, tmp_path):
    outcomes = tmp_path / "run" / "outcomes.json"
    write_plan(outcomes_file=str(outcomes))
    pytester.makepyfile(test_mix=OUTCOME_TESTS)
    pytester.runpytest("-p", "zl_identity").assert_outcomes(passed=1, failed=2, skipped=2, errors=1)
    doc = json.loads(outcomes.read_text())
    by_name = {t["nodeid"].split("::")[1]: t for t in doc["tests"]}
    assert by_name["test_passes"]["outcome"] == "passed"
    assert by_name["test_refused"] == {"nodeid": "test_mix.py::test_refused", "outcome": "unsupported",
                                       "reason": "dtype(s) torch.float16, torch.bfloat16"}
    assert by_name["test_other_value_error"]["outcome"] == "failed"
    assert "Given shapes are wrong" in by_name["test_other_value_error"]["reason"]
    assert by_name["test_skipped"] == {"nodeid": "test_mix.py::test_skipped", "outcome": "skipped",
                                       "reason": "needs CUDA graphs"}
    assert by_name["test_skipif"]["reason"] == "CUDA is not available"
    assert by_name["test_setup_error"]["outcome"] == "error"
    assert by_name["test_setup_error"]["reason"].startswith("setup: ")
    assert doc["counts"] == {"passed": 1, "failed": 1, "error": 1, "skipped": 2, "unsupported": 1}
    assert doc["exit_status"] == 1


def test_outcomes_of_a_collection_error(pytester, write_plan, tmp_path):
    outcomes = tmp_path / "outcomes.json"
    write_plan(outcomes_file=str(outcomes))
    pytester.makepyfile(test_broken="import no_such_module_here\n")
    pytester.runpytest("-p", "zl_identity")
    doc = json.loads(outcomes.read_text())
    assert doc["counts"]["error"] == 1 and doc["tests"][0]["reason"].startswith("collection: ")


def test_refused_dtypes_matches_flaggems_wording_only():
    assert zl_identity.refused_dtypes(
        ValueError("Given dtype(s) 'torch.int32'can't be supported by this op 'mm'")) == "torch.int32"
    assert zl_identity.refused_dtypes(ValueError("Given dtype(s) 'x' is odd")) is None
    assert zl_identity.refused_dtypes(TypeError("Given dtype(s) 'x'can't be supported by this op 'y'")) is None
