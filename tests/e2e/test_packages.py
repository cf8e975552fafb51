"""The packages: cpack run on the tested build tree makes one RPM and one DEB per component (zl,
zl-devel, zl-backend-<vendor>); their files and dependencies are read back with the tools' own
queries, and zl runs from a scratch root holding only some of them.

Run by the `packages` CTest test (not `e2e`), so it can be listed and timed on its own."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

BUILD_DIR = Path(os.environ.get("ZL_BUILD_DIR", ""))

# The vendor runtimes a backend opens with dlopen; no package may depend on them.
VENDOR_WORDS = re.compile(r"cuda|nvidia|nvml|musa|mthreads|mtml|rocm|hip|amd|rocm|ascend|cann|dcmi|npu", re.I)
# glibc's libraries: whatever needs libc.so.6 (zl does) gets them all, on RPM and DEB alike.
GLIBC = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1"}


def run(*cmd, check=True, **kw):
    proc = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, timeout=600, **kw)
    if check:
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


def cpack_setting(name):
    text = (BUILD_DIR / "CPackConfig.cmake").read_text()
    match = re.search(rf'^set\({name} "([^"]*)"\)$', text, re.M)
    assert match, f"{name} is not in CPackConfig.cmake"
    return match.group(1)


class Packages:
    def __init__(self, folder):
        self.folder = folder
        self.version = cpack_setting("CPACK_PACKAGE_VERSION")
        self.release = cpack_setting("CPACK_RPM_PACKAGE_RELEASE")
        assert cpack_setting("CPACK_DEBIAN_PACKAGE_RELEASE") == self.release
        self.full = f"{self.version}-{self.release}"
        components = cpack_setting("CPACK_COMPONENTS_ALL").split(";")
        self.vendors = sorted(c.removeprefix("zl-backend-") for c in components if c.startswith("zl-backend-"))
        assert sorted(components) == sorted(["zl", "zl-devel"] + [f"zl-backend-{v}" for v in self.vendors])
        self.rpm_arch = run("uname", "-m").stdout.strip()
        self.deb_arch = run("dpkg", "--print-architecture").stdout.strip()

    def names(self):
        return ["zl", "zl-devel"] + [f"zl-backend-{v}" for v in self.vendors]

    def rpm(self, name):
        arch = "noarch" if name == "zl-devel" else self.rpm_arch
        return self.folder / f"{name}-{self.full}.{arch}.rpm"

    def deb(self, name):
        arch = "all" if name == "zl-devel" else self.deb_arch
        return self.folder / f"{name}_{self.full}_{arch}.deb"


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    if not (BUILD_DIR / "CPackConfig.cmake").exists():
        pytest.fail("ZL_BUILD_DIR is not set to a configured build: run these tests through ctest")
    for tool in ("cpack", "rpmbuild", "rpm", "rpm2archive", "dpkg-deb", "dpkg-shlibdeps"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: scripts/install-deps.sh installs it (Debian packages rpm, dpkg-dev)")
    folder = tmp_path_factory.mktemp("packages")
    run("cpack", "--config", BUILD_DIR / "CPackConfig.cmake", "-B", folder)
    return Packages(folder)


def rpm_query(path, *what):
    return run("rpm", "-qp", *what, path).stdout.splitlines()


def rpm_files(path):
    """The files (not folders) `rpm -qpl` lists, man pages as named before brp-compress."""
    modes = {}
    for line in rpm_query(path, "--qf", "[%{FILEMODES:perms} %{FILENAMES}\n]"):
        mode, name = line.split(" ", 1)
        modes[name] = mode
    listing = rpm_query(path, "-l")
    assert set(listing) == set(modes)
    return {re.sub(r"\.gz$", "", f) for f in listing if not modes[f].startswith("d")}


def rpm_requires(path):
    return sorted(r for r in rpm_query(path, "-R") if not r.startswith("rpmlib("))


def deb_files(path):
    files = set()
    for line in run("dpkg-deb", "-c", path).stdout.splitlines():
        if not line.startswith("d"):
            files.add(line.split()[-1].removeprefix("."))
    return files


def deb_field(path, field):
    return run("dpkg-deb", "-f", path, field).stdout.strip()


ZL_FILES = {"/usr/bin/zl", "/usr/lib/zl/backends/libzl_backend_cpu.so", "/usr/share/man/man1/zl.1",
            "/usr/share/doc/zl/README.md", "/usr/share/doc/zl/LICENSE", "/usr/share/doc/zl/copyright",
            "/usr/share/zl/python/zl_plugins/zl_timing.py",
            "/usr/share/zl/python/zl_plugins/zl_compat.py", "/usr/share/zl/corpus/benchmark/conftest.py"}


DEVEL_FILES = {"/usr/include/zl/backend_abi.h", "/usr/include/zl/backend_sdk.hpp",
               "/usr/include/zl/backend_sdk_visibility.hpp", "/usr/lib/cmake/zl/zlConfig.cmake",
               *(f"/usr/include/zl/sdk/{h}.hpp"
                 for h in ("descriptor", "device", "library", "reason", "telemetry", "text", "tool", "visibility")),
               "/usr/lib/cmake/zl/zlConfigVersion.cmake", "/usr/lib/cmake/zl/zlTargets.cmake",
               "/usr/lib/cmake/zl/ZlBackend.cmake", "/usr/lib/cmake/zl/zl_backend.map"}


def test_one_rpm_and_one_deb_per_component_with_predictable_names(packages):
    assert "cuda" in packages.vendors and "cpu" not in packages.vendors
    made = sorted(p.name for p in packages.folder.iterdir() if p.suffix in (".rpm", ".deb"))
    expected = sorted([packages.rpm(n).name for n in packages.names()] + [packages.deb(n).name for n in packages.names()])
    assert made == expected


def test_rpm_files(packages):
    zl = rpm_files(packages.rpm("zl"))
    assert ZL_FILES <= zl
    assert not [f for f in zl if "/include/" in f or "/cmake/" in f]
    assert [f for f in zl if "libzl_backend_" in f] == ["/usr/lib/zl/backends/libzl_backend_cpu.so"]
    assert rpm_files(packages.rpm("zl-devel")) == DEVEL_FILES
    for vendor in packages.vendors:
        assert rpm_files(packages.rpm(f"zl-backend-{vendor}")) == {f"/usr/lib/zl/backends/libzl_backend_{vendor}.so"}


def test_rpm_license_is_apache_2(packages):
    for name in packages.names():
        assert rpm_query(packages.rpm(name), "--queryformat", "%{LICENSE}") == ["Apache-2.0"], name


def test_license_file_is_the_source_trees(packages, tmp_path):
    root = extract_debs(packages, tmp_path / "root", "zl")
    source = Path(os.environ["ZL_SOURCE_DIR"]) / "LICENSE"
    assert (root / "usr/share/doc/zl/LICENSE").read_bytes() == source.read_bytes()
    assert "License: Apache-2.0" in (root / "usr/share/doc/zl/copyright").read_text()


def test_rpm_requires(packages):
    for name in ["zl-devel"] + [f"zl-backend-{v}" for v in packages.vendors]:
        assert rpm_requires(packages.rpm(name)) == [f"zl = {packages.full}"], name
    # zl's own come from rpm's scan of the binary: the C and C++ runtimes and the libraries it links.
    requires = rpm_requires(packages.rpm("zl"))
    assert "libc.so.6()(64bit)" in requires and "libstdc++.so.6()(64bit)" in requires
    assert not [r for r in requires if VENDOR_WORDS.search(r) or r.startswith("zl")], requires


def test_deb_files(packages):
    zl = deb_files(packages.deb("zl"))
    assert ZL_FILES <= zl
    assert not [f for f in zl if "/include/" in f or "/cmake/" in f]
    assert [f for f in zl if "libzl_backend_" in f] == ["/usr/lib/zl/backends/libzl_backend_cpu.so"]
    assert deb_files(packages.deb("zl-devel")) == DEVEL_FILES
    for vendor in packages.vendors:
        assert deb_files(packages.deb(f"zl-backend-{vendor}")) == {f"/usr/lib/zl/backends/libzl_backend_{vendor}.so"}


def test_deb_control(packages):
    for name in packages.names():
        deb = packages.deb(name)
        assert deb_field(deb, "Package") == name
        assert deb_field(deb, "Version") == packages.full
    for name in ["zl-devel"] + [f"zl-backend-{v}" for v in packages.vendors]:
        assert deb_field(packages.deb(name), "Depends") == f"zl (= {packages.full})", name
    assert deb_field(packages.deb("zl-devel"), "Architecture") == "all"
    # zl's own come from dpkg-shlibdeps.
    depends = [d.strip().split()[0] for d in deb_field(packages.deb("zl"), "Depends").split(",")]
    assert "libc6" in depends and "libstdc++6" in depends
    assert not [d for d in depends if VENDOR_WORDS.search(d) or d.startswith("zl")], depends
    assert "python3" in deb_field(packages.deb("zl"), "Recommends")


def extract_debs(packages, root, *names):
    root.mkdir(mode=0o755)
    for name in names:
        run("dpkg-deb", "-x", packages.deb(name), root)
    return root


def extract_rpms(packages, root, *names):
    root.mkdir(mode=0o755)
    for name in names:
        with open(packages.rpm(name), "rb") as rpm:
            archive = subprocess.run(["rpm2archive", "-"], stdin=rpm, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-xz", "-C", str(root)], input=archive, check=True)
    return root


def needed(path):
    return {line.split("[")[1].rstrip("]") for line in run("readelf", "-d", path).stdout.splitlines()
            if "(NEEDED)" in line}


def test_backend_modules_need_nothing_zl_does_not(packages, tmp_path):
    """Why the backend packages have no automatic dependencies: what a module links, zl links too
    (and so its package already requires), and no vendor runtime is among it."""
    root = extract_debs(packages, tmp_path / "root", *packages.names())
    allowed = needed(root / "usr/bin/zl") | GLIBC
    for module in sorted((root / "usr/lib/zl/backends").glob("libzl_backend_*.so")):
        libs = needed(module)
        assert libs <= allowed, f"{module.name} needs {sorted(libs - allowed)}, which the zl package does not bring"
        assert not [lib for lib in libs if VENDOR_WORDS.search(lib)], (module.name, libs)


def backends_of(root):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZL_")}
    env["PATH"] = "/usr/bin:/bin"
    data = json.loads(run(root / "usr/bin/zl", "backends", "--json", env=env).stdout)
    assert data["search_path"] == [{"path": str(root / "usr/lib/zl/backends"), "origin": "install"}]
    assert all(b["state"] == "loaded" for b in data["backends"]), data
    return sorted(b["name"] for b in data["backends"])


def test_zl_alone_has_only_the_host_backend(packages, tmp_path):
    root = extract_debs(packages, tmp_path / "root", "zl")
    assert backends_of(root) == ["cpu"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZL_")}
    proc = run(root / "usr/bin/zl", "--backend", "cuda", "devices", env=env, check=False)
    assert proc.returncode == 2 and "no backend named 'cuda'" in proc.stderr


def test_each_vendor_package_adds_its_backend_only(packages, tmp_path):
    for vendor in packages.vendors:
        root = extract_debs(packages, tmp_path / vendor, "zl", f"zl-backend-{vendor}")
        assert backends_of(root) == sorted(["cpu", vendor]), vendor


def test_rpms_extracted_run_the_same(packages, tmp_path):
    assert backends_of(extract_rpms(packages, tmp_path / "zl", "zl")) == ["cpu"]
    assert backends_of(extract_rpms(packages, tmp_path / "cuda", "zl", "zl-backend-cuda")) == ["cpu", "cuda"]
