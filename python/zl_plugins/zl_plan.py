"""The plan file that zl writes (docs/plan-file.md): loading, validation and marker lines.

Every zl plugin imports this module. It uses the standard library only (pytest is imported
lazily, inside the helpers that plugins call), so it never pulls in torch, triton or
flag_gems.
"""
import importlib
import importlib.util
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Optional, Tuple

import zl_samples

PLAN_ENV = "ZL_PLAN"
OP_ENV = "FLAGGEMS_PERF_CURRENT_OP"
SCHEMA = 1
TIMERS = ("graph", "direct", "profiler")
MODES = ("kernel", "operator", "wrapper", "cudagraph")
COMPAT_ACTIONS = ("drop", "keep")
AUTOTUNE_MODES = ("off", "record", "replay")

_NAME_RE = re.compile(r"[A-Z][A-Z0-9_]*\Z")
_KEY_RE = re.compile(r"[a-z_][a-z0-9_]*\Z")


class PlanError(Exception):
    """A plan file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Backend:
    name: str
    flaggems_vendor: str
    torch_module: str
    torch_device: str
    graph_class: str
    capabilities: Tuple[str, ...]


@dataclass(frozen=True)
class Capture:
    refused: Tuple[str, ...]
    device_fault: Tuple[str, ...]
    poisoned: Tuple[str, ...]
    deny_ops: Tuple[str, ...]


@dataclass(frozen=True)
class CompatRule:
    file: str
    skip_reason: str
    vendor: str
    action: str
    why: str


@dataclass(frozen=True)
class Autotune:
    mode: str  # off, record, replay
    source: Optional[str]  # replay: the autotune_records folder read
    records_dir: Optional[str]  # record: the autotune_records folder written


AUTOTUNE_OFF = Autotune("off", None, None)


@dataclass(frozen=True)
class Plan:
    path: str
    backend: Backend
    op: Optional[str]
    mode: str
    timer: str
    timer_requested: str
    capture: Capture
    compat_rules: Tuple[CompatRule, ...]
    plugins: Tuple[str, ...]
    versions_file: Optional[str]
    flaggems_dir: Optional[str]
    raw: dict
    autotune: Autotune = AUTOTUNE_OFF
    outcomes_file: Optional[str] = None
    sampling: zl_samples.Sampling = zl_samples.FIXED_SAMPLING
    samples_file: Optional[str] = None
    formula_metrics: bool = False


class _Reader:
    """Typed access to one JSON object of the plan, with errors that name file and key."""

    def __init__(self, path, obj, prefix=""):
        self.path, self.obj, self.prefix = path, obj, prefix

    def fail(self, key, problem):
        raise PlanError(f"plan file {self.path}: key '{self.prefix}{key}' {problem}")

    def get(self, key, kind, required=True, default=None, nullable=False):
        if key not in self.obj:
            if required:
                self.fail(key, "is missing")
            return default
        value = self.obj[key]
        if value is None and nullable:
            return None
        ok = type(value) is int if kind is int else isinstance(value, kind)
        if not ok:
            self.fail(key, f"must be {_kind_name(kind)}, not {json.dumps(value)}")
        return value

    def choice(self, key, choices, required=True, default=None):
        value = self.get(key, str, required=required, default=default)
        if value is not None and value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}, not {json.dumps(value)}")
        return value

    def strings(self, key, required=True):
        values = self.get(key, list, required=required, default=[])
        for i, value in enumerate(values):
            if not isinstance(value, str):
                self.fail(f"{key}[{i}]", f"must be a string, not {json.dumps(value)}")
        return tuple(values)

    def sub(self, key):
        return _Reader(self.path, self.get(key, dict), f"{self.prefix}{key}.")


def _kind_name(kind):
    return {int: "an integer", str: "a string", list: "a list", dict: "an object",
            bool: "true or false"}[kind]


def parse_plan(path, data):
    """Validates the decoded JSON `data` of the plan at `path` and returns a Plan."""
    top = _Reader(path, data)
    if not isinstance(data, dict):
        raise PlanError(f"plan file {path}: the top level must be a JSON object")
    schema = top.get("schema", int)
    if schema != SCHEMA:
        top.fail("schema", f"is {schema}; these plugins read schema {SCHEMA} (zl and its "
                           "Python plugins come from different versions)")
    b = top.sub("backend")
    backend = Backend(
        name=b.get("name", str),
        flaggems_vendor=b.get("flaggems_vendor", str),
        torch_module=b.get("torch_module", str),
        torch_device=b.get("torch_device", str),
        graph_class=b.get("graph_class", str),
        capabilities=b.strings("capabilities", required=False),
    )
    c = top.sub("capture")
    capture = Capture(c.strings("refused"), c.strings("device_fault"), c.strings("poisoned"),
                      c.strings("deny_ops"))
    rules = []
    for i, _ in enumerate(top.get("compat_rules", list)):
        r = _Reader(path, data["compat_rules"][i], f"compat_rules[{i}].")
        if not isinstance(r.obj, dict):
            top.fail(f"compat_rules[{i}]", "must be an object")
        rules.append(CompatRule(file=r.get("file", str), skip_reason=r.get("skip_reason", str),
                                vendor=r.get("vendor", str),
                                action=r.choice("action", COMPAT_ACTIONS),
                                why=r.get("why", str, required=False, default="")))
    timer = top.choice("timer", TIMERS)
    autotune = AUTOTUNE_OFF
    if "autotune" in data:
        a = top.sub("autotune")
        autotune = Autotune(mode=a.choice("mode", AUTOTUNE_MODES),
                            source=a.get("source", str, required=False, nullable=True),
                            records_dir=a.get("records_dir", str, required=False, nullable=True))
        if autotune.mode == "replay" and not autotune.source:
            a.fail("source", "must name the records folder when mode is replay")
        if autotune.mode == "record" and not autotune.records_dir:
            a.fail("records_dir", "must name the folder to write when mode is record")
    return Plan(
        path=str(path),
        backend=backend,
        op=top.get("op", str, required=False, nullable=True),
        mode=top.choice("mode", MODES),
        timer=timer,
        timer_requested=top.get("timer_requested", str, required=False, default=timer),
        capture=capture,
        compat_rules=tuple(rules),
        plugins=top.strings("plugins", required=False),
        versions_file=top.get("versions_file", str, required=False, nullable=True),
        flaggems_dir=top.get("flaggems_dir", str, required=False, nullable=True),
        raw=data,
        autotune=autotune,
        outcomes_file=top.get("outcomes_file", str, required=False, nullable=True),
        sampling=zl_samples.sampling_from_plan(data, top.fail),
        samples_file=top.get("samples_file", str, required=False, nullable=True) or None,
        formula_metrics=top.get("formula_metrics", bool, required=False, default=False),
    )


def load_plan(environ=None):
    """The plan named by ZL_PLAN, or None when ZL_PLAN is unset or empty (plugins inactive)."""
    environ = os.environ if environ is None else environ
    path = environ.get(PLAN_ENV, "")
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise PlanError(f"plan file {path} (from {PLAN_ENV}) cannot be read: "
                        f"{e.strerror or e}") from e
    try:
        data = json.loads(text)
    except ValueError as e:
        raise PlanError(f"plan file {path} (from {PLAN_ENV}) is not valid JSON: {e}") from e
    return parse_plan(path, data)


# --- pytest glue ----------------------------------------------------------------------------

_bound_config = None


def plan_for(config):
    """The plan of this pytest run, read once per config; pytest.UsageError when it is bad."""
    import pytest

    global _bound_config
    key = _stash_key()
    if key not in config.stash:
        try:
            config.stash[key] = load_plan()
        except PlanError as e:
            raise pytest.UsageError(f"zl: {e}") from e
    _bound_config = config
    return config.stash[key]


def release(config):
    """Forgets `config` (pytest_unconfigure): markers then print without pytest's help."""
    global _bound_config
    if _bound_config is config:
        _bound_config = None


_plan_key = None


def _stash_key():
    global _plan_key
    if _plan_key is None:
        import pytest

        _plan_key = pytest.StashKey()
    return _plan_key


def op_key(item):
    """FLAGGEMS_PERF_CURRENT_OP for a test item: the function name minus a leading `test_`."""
    name = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
    return name[len("test_"):] if name.startswith("test_") else name


def flag_gems_vendor():
    """flag_gems.vendor_name, importing flag_gems if needed.

    Returns (vendor, None); (None, None) when flag_gems is not installed; (None, reason) when
    it fails to import or has no vendor_name.
    """
    module = sys.modules.get("flag_gems")
    if module is None:
        if importlib.util.find_spec("flag_gems") is None:
            return None, None
        try:
            module = importlib.import_module("flag_gems")
        except Exception as e:  # flag_gems raises RuntimeError when it finds no device
            return None, f"importing flag_gems failed: {type(e).__name__}: {e}"
    vendor = getattr(module, "vendor_name", None)
    if not isinstance(vendor, str):
        return None, "flag_gems has no vendor_name"
    return vendor, None


# --- marker lines ---------------------------------------------------------------------------

def format_value(value):
    """A marker value: bare, or a JSON string literal when it holds whitespace, '"' or '='."""
    if value is None:
        text = ""
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    if any(ch.isspace() or ch in '"=' for ch in text):
        return json.dumps(text, ensure_ascii=False)
    return text


def format_marker(name, **fields):
    if not _NAME_RE.match(name):
        raise ValueError(f"marker name {name!r} must be upper case letters, digits and _")
    parts = [name]
    for key, value in fields.items():
        if not _KEY_RE.match(key):
            raise ValueError(f"marker key {key!r} must be lower case letters, digits and _")
        parts.append(f"{key}={format_value(value)}")
    return " ".join(parts)


def marker(name, **fields):
    """Writes one marker line on standard output, at the start of a line, and flushes it.

    Inside a pytest run the line goes through pytest's terminal writer (which writes to
    standard output), so that it never lands after a file name or a progress letter that
    pytest left on the current line.
    """
    line = format_marker(name, **fields)
    writer = _terminal_writer()
    if writer is None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        return line
    if writer.width_of_current_line:
        writer.line()
    writer.line(line)
    writer.flush()
    return line


def _terminal_writer():
    config = _bound_config
    if config is None:
        return None
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    writer = getattr(reporter, "_tw", None)
    if writer is None or not hasattr(writer, "width_of_current_line"):
        return None
    # pytest re-prints the file name before the next test's progress letter
    reporter.ensure_newline()
    return writer


def write_json_atomic(path, doc, **dump_args):
    """doc as JSON at path, through a temporary file in its folder (which must exist) and a
    rename, so a reader never sees half a document. mkstemp makes the file 0600; it gets the
    mode its siblings get (0666 less the umask), so that another user can read the run folder."""
    fd, tmp = tempfile.mkstemp(prefix=".{}.".format(os.path.basename(path)), suffix=".tmp",
                               dir=os.path.dirname(os.path.abspath(path)))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, **dump_args)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
