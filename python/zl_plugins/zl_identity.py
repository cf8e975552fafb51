"""zl plugin: the versions a run was made with and how each test ended (`-p zl_identity`).

Outcomes: each test as passed, failed, error (setup, teardown or collection), skipped (with
pytest's reason) or unsupported: FlagGems refused a requested dtype (`ValueError: Given
dtype(s) '…' can't be supported by this op '…'`, raised by set_dtypes in every release since
v3.0), which pytest counts as a failure but is FlagGems' answer, not one. Written at the end of
the session to the plan's outcomes_file (docs/plan-file.md), atomically.

Versions: at the end of the session writes the plan's versions_file (JSON, atomically: a temporary file
in the same folder, then os.replace): python's version; torch's, triton's and flag_gems'
`__version__`. (FlagGems' commit is zl's to record: it reads the checkout itself.) A module already loaded reports its `__version__`. One
that is not loaded is never imported: on a backend with a device interface its installed
distribution's version is read from package metadata; on the cpu backend it is null.
"""
import importlib.metadata
import platform
import re
import sys
from pathlib import Path

import pytest

import zl_plan

MODULES = {"torch": ("torch",), "triton": ("triton",), "flag_gems": ("flag-gems", "flag_gems")}
# FlagGems' set_dtypes (benchmark/base.py, performance_utils.py before v5.3): no space before "can't".
REFUSED_DTYPES = re.compile(r"Given dtype\(s\) '(?P<dtypes>[^']*)'\s*can't be supported by this op")
OUTCOMES_PLUGIN = "zl_identity.outcomes"


def pytest_configure(config):
    zl_plan.plan_for(config)
    config.pluginmanager.register(Outcomes(), OUTCOMES_PLUGIN)


def pytest_unconfigure(config):
    plugin = config.pluginmanager.get_plugin(OUTCOMES_PLUGIN)
    if plugin is not None:
        config.pluginmanager.unregister(plugin)
    zl_plan.release(config)


def refused_dtypes(exc):
    """The dtypes FlagGems refused, when exc is its refusal; else None."""
    if not isinstance(exc, ValueError):
        return None
    found = REFUSED_DTYPES.search(str(exc))
    return found.group("dtypes") if found else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == "call" and call.excinfo is not None:
        refused = refused_dtypes(call.excinfo.value)
        if refused is not None:
            report.zl_unsupported = refused
            # In the log too: pytest cuts its own summary line at the terminal's width.
            if zl_plan.plan_for(item.config) is not None:
                zl_plan.marker("ZL_UNSUPPORTED", node=item.nodeid, dtypes=refused)


class Outcomes:
    """Each test's outcome in this session (one object per session: a warm worker runs many)."""

    def __init__(self):
        self.tests = {}

    def pytest_runtest_logreport(self, report):
        entry = self.tests.setdefault(report.nodeid,
                                      {"nodeid": report.nodeid, "outcome": "passed", "reason": None})
        if report.skipped and entry["outcome"] == "passed":
            entry.update(outcome="skipped", reason=_skip_reason(report))
        elif report.failed:
            unsupported = getattr(report, "zl_unsupported", None)
            if unsupported is not None:
                entry.update(outcome="unsupported", reason="dtype(s) " + unsupported)
            elif report.when == "call":
                entry.update(outcome="failed", reason=_first_line(report))
            else:
                entry.update(outcome="error", reason=f"{report.when}: {_first_line(report)}")

    def pytest_collectreport(self, report):
        if report.failed:
            self.tests[report.nodeid or "<collection>"] = {
                "nodeid": report.nodeid, "outcome": "error", "reason": "collection: " + _first_line(report)}

    def doc(self, exitstatus):
        counts = {k: 0 for k in ("passed", "failed", "error", "skipped", "unsupported")}
        for t in self.tests.values():
            counts[t["outcome"]] += 1
        return {"exit_status": int(exitstatus), "counts": counts, "tests": list(self.tests.values())}


def _skip_reason(report):
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        reason = str(report.longrepr[2])
        return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason
    return _first_line(report)


def _first_line(report):
    """The exception line pytest shows (E   ValueError: …), else the report's last line."""
    text = getattr(report, "longreprtext", "") or str(report.longrepr or "")
    lines = [line for line in text.splitlines() if line.startswith("E ")]
    line = (lines[0][1:] if lines else (text.strip().splitlines() or [""])[-1]).strip()
    return line[:400]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    plan = zl_plan.plan_for(session.config)
    if plan is None:
        return
    outcomes = session.config.pluginmanager.get_plugin(OUTCOMES_PLUGIN)
    for path, doc in ((plan.outcomes_file if outcomes else None, lambda: outcomes.doc(exitstatus)),
                      (plan.versions_file, lambda: collect(plan, session.config))):
        if not path:
            continue
        try:
            write_atomic(path, doc())
        except OSError as e:
            zl_plan.marker("ZL_IDENTITY_WRITE_FAILED", file=path, reason=e.strerror or str(e))


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
    zl_plan.write_json_atomic(path, doc, indent=2, sort_keys=True)
