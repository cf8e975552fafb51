"""Shared fixtures for the tests of zl's Python plugins and sample corpus.

Run from the repository root: /usr/bin/python3 -m pytest tests/python
No real torch, triton or flag_gems is used: fakes.py builds stand-ins in sys.modules.
"""
import json
import shutil
import sys

import pytest

from .zl_testlib import CORPUS, PLUGIN_DIRS, plan_dict

for _d in PLUGIN_DIRS:
    if str(_d) not in sys.path:
        sys.path.insert(0, str(_d))


def pytest_configure(config):
    # The pytester fixture, also when this folder is collected as part of `pytest tests`
    # (pytest refuses `pytest_plugins` in a conftest below the rootdir).
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")


@pytest.fixture
def write_plan(tmp_path, monkeypatch):
    """write_plan(**overrides) writes plan.json, points ZL_PLAN at it, returns its path."""

    def write(**overrides):
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(plan_dict(**overrides)), encoding="utf-8")
        monkeypatch.setenv("ZL_PLAN", str(path))
        return path

    return write


@pytest.fixture
def corpus(pytester):
    """The sample corpus copied into the pytester folder (benchmark/ and pytest.ini)."""
    shutil.copytree(CORPUS / "benchmark", pytester.path / "benchmark",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CORPUS / "pytest.ini", pytester.path / "pytest.ini")
    return pytester


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    monkeypatch.delenv("ZL_PLAN", raising=False)
    monkeypatch.delenv("FLAGGEMS_PERF_CURRENT_OP", raising=False)
