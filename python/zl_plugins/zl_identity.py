"""zl plugin: the versions a run was made with (`-p zl_identity`).

At the end of the session writes the plan's versions_file (JSON, atomically: a temporary file
in the same folder, then os.replace): python's version; torch's, triton's and flag_gems'
`__version__`. (FlagGems' commit is zl's to record: it reads the checkout itself.) A module already loaded reports its `__version__`. One
that is not loaded is never imported: on a backend with a device interface its installed
distribution's version is read from package metadata; on the cpu backend it is null.
"""
import importlib.metadata
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

import pytest

import zl_plan

MODULES = {"torch": ("torch",), "triton": ("triton",), "flag_gems": ("flag-gems", "flag_gems")}


def pytest_configure(config):
    zl_plan.plan_for(config)


def pytest_unconfigure(config):
    zl_plan.release(config)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    plan = zl_plan.plan_for(session.config)
    if plan is None or not plan.versions_file:
        return
    identity = collect(plan, session.config)
    try:
        write_atomic(plan.versions_file, identity)
    except OSError as e:
        zl_plan.marker("ZL_IDENTITY_WRITE_FAILED", file=plan.versions_file,
                       reason=e.strerror or str(e))


def collect(plan, config=None):
    """The versions document (docs/plan-file.md, versions_file)."""
    use_metadata = bool(plan.backend.torch_module)
    doc = {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "pytest": pytest.__version__,
    }
    sources = {}
    for name, distributions in MODULES.items():
        doc[name], sources[name] = module_version(name, distributions, use_metadata)
    doc["version_sources"] = sources
    return doc


def module_version(name, distributions, use_metadata):
    """(version, source): source is module, metadata or null."""
    module = sys.modules.get(name)
    if module is not None:
        version = getattr(module, "__version__", None)
        if version is not None:
            return str(version), "module"
    if use_metadata:
        for dist in distributions:
            try:
                return importlib.metadata.version(dist), "metadata"
            except importlib.metadata.PackageNotFoundError:
                continue
    return None, None


def write_atomic(path, doc):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file 0600; give it the mode its siblings get (0666 less the umask),
        # so that another user can read and verify the run folder.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
