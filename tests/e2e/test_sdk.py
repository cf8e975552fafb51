"""The SDK: a backend built out of tree against a staged install of zl, found and selected by zl."""
import json
import os
import subprocess

import pytest

from conftest import SOURCE_DIR

BUILD_DIR = os.environ.get("ZL_BUILD_DIR", "")


def run(*cmd, **kw):
    proc = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, timeout=600, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    if not BUILD_DIR:
        pytest.fail("ZL_BUILD_DIR is not set: run these tests through ctest")
    stage = tmp_path_factory.mktemp("stage")
    run("cmake", "--install", BUILD_DIR, "--prefix", stage)
    return stage


def test_install_layout(staged):
    for path in ("bin/zl", "include/zl/backend_abi.h", "include/zl/backend_sdk.hpp", "lib/cmake/zl/zlConfig.cmake",
                 "lib/cmake/zl/ZlBackend.cmake", "lib/zl/backends/libzl_backend_cpu.so",
                 "lib/zl/backends/libzl_backend_cuda.so", "share/zl/python/zl_plugins/zl_timing.py",
                 "share/zl/python/compat/zl_compat.py", "share/zl/corpus/benchmark/conftest.py"):
        assert (staged / path).exists(), path


def test_installed_zl_finds_its_backends_beside_it(staged):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZL_")}
    data = json.loads(run(staged / "bin/zl", "backends", "--json", env=env).stdout)
    assert data["search_path"] == [{"path": str(staged / "lib/zl/backends"), "origin": "install"}]
    assert {b["name"] for b in data["backends"]} >= {"cpu", "cuda", "musa", "rocm", "ascend"}


def test_backend_cpu_builds_out_of_tree_and_is_selected(staged, tmp_path):
    build = tmp_path / "build-cpu"
    run("cmake", "-S", SOURCE_DIR / "backend_cpu", "-B", build, "-G", "Ninja",
        f"-Dzl_DIR={staged / 'lib/cmake/zl'}")
    run("cmake", "--build", build)
    module = build / "libzl_backend_cpu.so"
    assert module.exists()
    exported = run("nm", "-D", "--defined-only", module).stdout.split()
    assert "zl_backend_get_descriptor" in exported
    assert [s for s in exported if s.startswith("zl_") or s.startswith("_Z")] == ["zl_backend_get_descriptor"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZL_")}
    data = json.loads(run(staged / "bin/zl", "--backend-path", build, "backends", "--json", env=env).stdout)
    cpu = [b for b in data["backends"] if b["name"] == "cpu"]
    assert cpu[0]["path"] == str(module) and cpu[0]["state"] == "loaded"
    assert cpu[1]["state"] == "shadowed"
    devices = json.loads(run(staged / "bin/zl", "--backend-path", build, "--backend", "cpu", "devices", "--json",
                             env=env).stdout)
    assert devices["module"] == str(module)
