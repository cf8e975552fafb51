"""Fixtures for end-to-end tests of the real zl binary (paths come from CTest's environment)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ZL_BIN = os.environ.get("ZL_BIN", "")
# The same for the tests that build their environment from this one (see Zl).
os.environ.setdefault("ZL_SAMPLING", "fixed")
SOURCE_DIR = Path(os.environ.get("ZL_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BROKEN_DIR = Path(os.environ.get("ZL_BROKEN_MODULE_DIR", ""))
FAKE_SMI_BIN = SOURCE_DIR / "tests" / "fixtures" / "fake_smi" / "bin"


def corpus_with(root, modules, shapes):
    """A copy of the sample corpus at root plus benchmark modules {file name: source} and the
    core_shapes.yaml entries {op: shape}: the corpus with ops that misbehave on purpose."""
    shutil.copytree(SOURCE_DIR / "corpus", root, ignore=shutil.ignore_patterns("__pycache__"))
    for name, source in modules.items():
        (root / "benchmark" / name).write_text(source)
    with open(root / "benchmark" / "core_shapes.yaml", "a") as f:
        for op, shape in shapes.items():
            f.write(f"\n{op}:\n  shapes:\n    - {shape}\n")
    return root


# Appended to a copy of the corpus's benchmark/host_ops.py: the gems op of abs made ten times as
# slow, spinning for nine times as long as it ran (test_samples.py, test_history.py).
SLOW_ABS = """

import time as _zl_time

_zl_gems_abs = gems_abs


def gems_abs(x):
    start = _zl_time.perf_counter()
    out = _zl_gems_abs(x)
    took = _zl_time.perf_counter() - start
    while _zl_time.perf_counter() - start < 10 * took:
        pass
    return out
"""

class Zl:
    """Runs zl with a controlled environment: no inherited ZL_* variables, a PATH of our choosing."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ZL_", "FAKE_SMI"))}
        # Only the basic tools: no vendor SMI unless a test puts one there.
        self.env["PATH"] = "/usr/bin:/bin"
        # One timing call a row, as the benchmark makes it: adaptive sampling (up to 1 s a row)
        # has tests of its own, which say --sampling.
        self.env["ZL_SAMPLING"] = "fixed"

    def with_smi(self, *tools):
        """Puts the named fake SMI tools (and nothing else of the fixtures) on PATH."""
        bin_dir = self.tmp_path / "smi-bin"
        bin_dir.mkdir(exist_ok=True)
        for tool in tools:
            # A forwarding script, not a link: the fake tools find their fixtures from $0.
            wrapper = bin_dir / tool
            wrapper.write_text(f'#!/bin/sh\nexec "{FAKE_SMI_BIN / tool}" "$@"\n')
            wrapper.chmod(0o755)
        self.env["PATH"] = f"{bin_dir}:/usr/bin:/bin"
        return self

    def run(self, *args, env=None, check_rc=None):
        full_env = dict(self.env, **(env or {}))
        proc = subprocess.run([ZL_BIN, *args], env=full_env, capture_output=True, text=True, timeout=60)
        if check_rc is not None:
            assert proc.returncode == check_rc, f"rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        return proc

    def json(self, *args, env=None):
        proc = self.run(*args, env=env, check_rc=0)
        return json.loads(proc.stdout)


@pytest.fixture
def zl(tmp_path):
    if not ZL_BIN:
        pytest.fail("ZL_BIN is not set: run these tests through ctest")
    return Zl(tmp_path)


class ModuleDir:
    """A private backends folder; add() copies a test module (tests/broken_module) into it."""

    def __init__(self, path):
        self.path = path
        path.mkdir(mode=0o755)

    def __str__(self):
        return str(self.path)

    def __truediv__(self, name):
        return self.path / name

    def add(self, name, as_name=None):
        target = self.path / f"libzl_backend_{as_name or name}.so"
        shutil.copy(BROKEN_DIR / f"libzl_backend_{name}.so", target)
        target.chmod(0o755)
        return target


@pytest.fixture
def module_dir(tmp_path):
    return ModuleDir(tmp_path / "modules")
