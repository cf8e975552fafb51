"""zl plugin: pytest's own collection, as the authority on which tests an op's mark selects
(`-p zl_collect`).

FlagGems v3.0–v5.0.2 keep many ops in one `benchmark/test_*_perf.py` and mark some of them
through `pytest.param(name, …, marks=getattr(pytest.mark, name, None)) for name, … in …`, which
a static reader cannot be sure of. zl runs, in the FlagGems folder,

    ZL_COLLECT_OUT=<path> python -m pytest --collect-only -q -p zl_collect -p no:cacheprovider …

and this plugin writes, at the end of collection (pytest_collection_finish; at
pytest_sessionfinish when collection began but did not get there), one JSON document to
ZL_COLLECT_OUT, atomically (a temporary file in the same folder, then os.replace; the folder is
not created):

    {"format": 1,
     "items": [{"nodeid": …, "file": "benchmark/test_x.py", "function": "test_x", "marks": ["abs"]}],
     "errors": [{"file": "benchmark/test_y.py", "error": "<one paragraph, at most 500 chars>"}]}

- file: the item's (or the failed collector's) path relative to the invocation folder,
  `/`-separated; function: the test function's name without its parameter id.
- marks: the names of the item's marks (function, parameter, class and module `pytestmark`)
  that are op marks, in order of first appearance, once each. Not op marks: pytest's own
  (NOT_OP_MARKS) and every name registered through `config.addinivalue_line("markers", …)` by
  a plugin or conftest, except those the ini file itself registers (FlagGems v5.3+ registers
  `median` in pytest.ini's `markers =`, and it is an op mark).
- errors: every collector that failed (a syntax error, an import error, …).

A write that fails prints `ZL_COLLECT_WRITE_FAILED path=<p> error=<e>` on standard error and
leaves pytest's exit status as it is. Without ZL_COLLECT_OUT the plugin does nothing, so
loading it in a normal run is harmless. Standard library and pytest only.
"""
import os
import re
import sys
from pathlib import Path

import pytest

import zl_plan

OUT_ENV = "ZL_COLLECT_OUT"
FORMAT = 1
NOT_OP_MARKS = frozenset({"parametrize", "skip", "skipif", "xfail", "usefixtures",
                          "filterwarnings", "timeout", "tryfirst", "trylast"})
ERROR_MAX_CHARS = 500
COLLECTOR_PLUGIN = "zl_collect.collector"


def pytest_configure(config):
    path = os.environ.get(OUT_ENV)
    if path:
        config.pluginmanager.register(Collector(config, path), COLLECTOR_PLUGIN)


def pytest_unconfigure(config):
    plugin = config.pluginmanager.get_plugin(COLLECTOR_PLUGIN)
    if plugin is not None:
        config.pluginmanager.unregister(plugin)


class Collector:
    """One session's collection (one object per session: a warm worker runs many)."""

    def __init__(self, config, path):
        self.config = config
        self.path = path
        self.base = Path(config.invocation_params.dir)
        self.errors = []
        self.started = False
        self.written = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session):
        self.started = True

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        outcome = yield
        report = outcome.get_result()
        if report is not None and report.failed:
            self.errors.append({"file": self.relative(_node_path(collector)),
                                "error": self.summary(report)})

    @pytest.hookimpl(tryfirst=True)  # before another plugin's hook can raise
    def pytest_collection_finish(self, session):
        self.write(session)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        if self.started and not self.written:
            self.write(session)

    def write(self, session):
        self.written = True
        excluded = not_op_marks(self.config)
        items = [{"nodeid": item.nodeid,
                  "file": self.relative(_node_path(item)),
                  "function": getattr(item, "originalname", None) or item.name.split("[", 1)[0],
                  "marks": op_marks(item, excluded)}
                 for item in getattr(session, "items", None) or ()]
        doc = {"format": FORMAT, "items": items, "errors": self.errors}
        try:
            zl_plan.write_json_atomic(self.path, doc, indent=1)
        except OSError as e:
            line = zl_plan.format_marker("ZL_COLLECT_WRITE_FAILED", path=self.path,
                                         error=e.strerror or str(e))
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    def relative(self, path):
        if path is None:
            return None
        try:
            rel = os.path.relpath(os.path.abspath(path), os.path.abspath(self.base))
        except ValueError:  # another drive (Windows)
            rel = str(path)
        return rel.replace(os.sep, "/")

    def summary(self, report):
        return error_summary(getattr(report, "longreprtext", "") or str(report.longrepr or ""),
                             str(self.base))


def _node_path(node):
    path = getattr(node, "path", None)  # pytest >= 7
    if path is None:
        fspath = getattr(node, "fspath", None)
        path = str(fspath) if fspath is not None else None
    return path


def marker_name(line):
    """The name a `markers` line registers ("skipif(condition, …): text" -> "skipif")."""
    return line.split(":", 1)[0].split("(", 1)[0].strip()


def ini_markers(config):
    """The names the ini file's own `markers =` registers (or `-o markers=…`)."""
    value = None
    for override in getattr(config, "_override_ini", None) or ():
        key, sep, text = override.partition("=")
        if sep and key.strip() == "markers":
            value = text
    if value is None:
        value = (getattr(config, "inicfg", None) or {}).get("markers")
    if value is None:
        return set()
    lines = value.splitlines() if isinstance(value, str) else list(value)
    return {marker_name(line) for line in lines if str(line).strip()}


def not_op_marks(config):
    """pytest's own marks, and those a plugin registered that the ini file does not."""
    registered = {marker_name(line) for line in config.getini("markers")}
    return NOT_OP_MARKS | (registered - ini_markers(config))


def op_marks(item, excluded):
    names = []
    for mark in item.iter_markers():
        if mark.name not in excluded and mark.name not in names:
            names.append(mark.name)
    return names


def error_summary(text, base=None):
    """One paragraph from a collector's failure: the lines pytest marks `E` (else all), carets
    dropped, whitespace collapsed, the invocation folder left out of paths, at most
    ERROR_MAX_CHARS characters."""
    lines = text.splitlines()
    shown = [line[1:] for line in lines if line.startswith("E ")] or lines
    parts = [" ".join(line.split()) for line in shown]
    summary = " ".join(p for p in parts if p and not re.fullmatch(r"[\^~ ]+", p))
    prefix = (base or "").rstrip(os.sep) + os.sep
    if prefix != os.sep:  # pytest run in / keeps its paths whole
        summary = summary.replace(prefix, "")
    if len(summary) > ERROR_MAX_CHARS:
        summary = summary[:ERROR_MAX_CHARS - 1] + "…"
    return summary


