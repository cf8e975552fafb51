"""The SDK: backends built out of tree against a staged install of zl, found and selected by zl.

backend_cpu (an in-tree backend, built on its own) and tests/sdk_example (a third-party backend
written against the installed headers only) are both built with find_package(zl) from the
staged install's lib/cmake/zl."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SOURCE_DIR

BUILD_DIR = os.environ.get("ZL_BUILD_DIR", "")
EXAMPLE_DIR = SOURCE_DIR / "tests" / "sdk_example"
# A third-party author's flags: the SDK headers must compile cleanly under them.
STRICT_FLAGS = "-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast -Werror"


def run(*cmd, check=True, **kw):
    proc = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, timeout=600, **kw)
    if check:
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith(("ZL_", "EXAMPLE_"))}


def exported_symbols(module):
    return run("nm", "-D", "--defined-only", module).stdout.split()


def build_backend(source, build, zl_dir, *extra):
    run("cmake", "-S", source, "-B", build, "-G", "Ninja", f"-Dzl_DIR={zl_dir}", *extra)
    return run("cmake", "--build", build, check=False)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    if not BUILD_DIR:
        pytest.fail("ZL_BUILD_DIR is not set: run these tests through ctest")
    stage = tmp_path_factory.mktemp("stage")
    run("cmake", "--install", BUILD_DIR, "--prefix", stage)
    return stage


@pytest.fixture(scope="module")
def example_module(staged, tmp_path_factory):
    """tests/sdk_example built out of tree against the staged install, with strict warnings."""
    build = tmp_path_factory.mktemp("build-example")
    proc = build_backend(EXAMPLE_DIR, build, staged / "lib/cmake/zl", f"-DCMAKE_CXX_FLAGS={STRICT_FLAGS}")
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    module = build / "libzl_backend_example.so"
    assert module.exists()
    return module


def test_install_layout(staged):
    for path in ("bin/zl", "include/zl/backend_abi.h", "include/zl/backend_sdk.hpp", "include/zl/sdk/text.hpp",
                 "lib/cmake/zl/zlConfig.cmake",
                 "lib/cmake/zl/zlConfigVersion.cmake", "lib/cmake/zl/zlTargets.cmake",
                 "lib/cmake/zl/ZlBackend.cmake", "lib/cmake/zl/zl_backend.map",
                 "lib/zl/backends/libzl_backend_cpu.so", "lib/zl/backends/libzl_backend_cuda.so",
                 "share/zl/python/zl_plugins/zl_timing.py", "share/zl/python/zl_plugins/zl_compat.py",
                 "share/zl/corpus/benchmark/conftest.py", "share/man/man1/zl.1", "share/doc/zl/README.md",
                 "share/doc/zl/plan-file.md"):
        assert (staged / path).exists(), path
    # The core is linked into zl: no shared library of it to install.
    assert not list((staged / "lib").glob("libzl*.so*"))


def test_man_page_is_zl_help(staged):
    page = (staged / "share/man/man1/zl.1").read_text()
    assert '.\\" Generated from `zl --help`' in page.splitlines()[1]
    assert ".TH ZL 1" in page and ".SH NAME\nzl \\- " in page
    help_text = run(staged / "bin/zl", "--help", env=clean_env()).stdout
    commands = help_text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    for line in commands.splitlines():
        command = line.split()[0]
        assert f'.SS "zl {command}"' in page, command
    assert "\\-\\-backend\\-path DIR" in page


def test_installed_zl_finds_its_backends_beside_it(staged):
    data = json.loads(run(staged / "bin/zl", "backends", "--json", env=clean_env()).stdout)
    assert data["search_path"] == [{"path": str(staged / "lib/zl/backends"), "origin": "install"}]
    assert {b["name"] for b in data["backends"]} >= {"cpu", "cuda", "musa", "rocm", "ascend"}


def test_backend_cpu_builds_out_of_tree_and_is_selected(staged, tmp_path):
    build = tmp_path / "build-cpu"
    proc = build_backend(SOURCE_DIR / "backend_cpu", build, staged / "lib/cmake/zl")
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    module = build / "libzl_backend_cpu.so"
    assert module.exists()
    exported = exported_symbols(module)
    assert "zl_backend_get_descriptor" in exported
    assert [s for s in exported if s.startswith("zl_") or s.startswith("_Z")] == ["zl_backend_get_descriptor"]
    env = clean_env()
    data = json.loads(run(staged / "bin/zl", "--backend-path", build, "backends", "--json", env=env).stdout)
    cpu = [b for b in data["backends"] if b["name"] == "cpu"]
    assert cpu[0]["path"] == str(module) and cpu[0]["state"] == "loaded"
    assert cpu[1]["state"] == "shadowed"
    devices = json.loads(run(staged / "bin/zl", "--backend-path", build, "--backend", "cpu", "devices", "--json",
                             env=env).stdout)
    assert devices["module"] == str(module)


def test_example_backend_exports_only_its_entry_point(example_module):
    exported = exported_symbols(example_module)
    assert [s for s in exported if s.startswith("zl_") or s.startswith("_Z")] == ["zl_backend_get_descriptor"]
    # Nothing of zl, and no vendor library: only the C and C++ runtimes.
    needed = [line.split("[")[1].rstrip("]") for line in run("readelf", "-d", example_module).stdout.splitlines()
              if "(NEEDED)" in line]
    assert set(needed) <= {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1"}, needed


def test_example_backend_dropped_into_the_install_is_listed_and_selected(staged, example_module):
    backends = staged / "lib/zl/backends"
    dropped = backends / example_module.name
    shutil.copy(example_module, dropped)
    try:
        env = clean_env()
        data = json.loads(run(staged / "bin/zl", "backends", "--json", env=env).stdout)
        example = [b for b in data["backends"] if b["name"] == "example"]
        assert len(example) == 1, data
        assert example[0]["path"] == str(dropped) and example[0]["state"] == "loaded"
        listing = run(staged / "bin/zl", "backends", env=env).stdout
        assert "example" in listing

        for name in ("example", "demo"):
            devices = json.loads(run(staged / "bin/zl", "--backend", name, "devices", "--json", env=env).stdout)
            assert devices["module"] == str(dropped)
            assert devices["backend"] == "example" and devices["selected_by"] == "--backend"
            assert devices["visibility_var"] == "EXAMPLE_VISIBLE_DEVICES"
            assert [d["uuid"] for d in devices["devices"]] == ["EXAMPLE-1000", "EXAMPLE-1001"]

        # Read through the host's get_env, as a vendor's variables are.
        devices = json.loads(run(staged / "bin/zl", "--backend", "example", "devices", "--json",
                                 env=dict(env, EXAMPLE_DEVICES="3")).stdout)
        assert len(devices["devices"]) == 3
    finally:
        dropped.unlink()


def test_example_backend_passes_conformance(example_module, tmp_path):
    conformance = Path(BUILD_DIR) / "bin" / "zl_conformance"
    if not conformance.exists():
        pytest.fail(f"{conformance} is missing: build the tree (ZL_BUILD_TESTS=ON) before running the tests")
    modules = tmp_path / "modules"
    modules.mkdir(mode=0o755)
    shutil.copy(example_module, modules)
    proc = run(conformance, "--modules", modules, check=False, env=clean_env())
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"


def test_zl_add_backend_refuses_a_header_of_another_abi(staged, tmp_path):
    """The build-time stamp: a CMake package that says ABI 1.7 with headers of ABI 1.0 fails to
    build, naming both."""
    fake = tmp_path / "fake"
    shutil.copytree(staged / "include", fake / "include")
    shutil.copytree(staged / "lib/cmake", fake / "lib/cmake")
    config = fake / "lib/cmake/zl/zlConfig.cmake"
    text = config.read_text()
    assert "set(zl_ABI_MINOR 3)" in text
    config.write_text(text.replace("set(zl_ABI_MINOR 3)", "set(zl_ABI_MINOR 7)"))
    proc = build_backend(EXAMPLE_DIR, tmp_path / "build", fake / "lib/cmake/zl")
    assert proc.returncode != 0
    assert "backend_abi.h is not ABI 1.7" in proc.stdout + proc.stderr
