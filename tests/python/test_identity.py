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
