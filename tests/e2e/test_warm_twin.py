"""The warm worker is the process executor's twin: a differential test on hostile copies of the
sample corpus. Each variant has an op (ACTOR, the first) that leaves interpreter state behind the
way real benchmarks do (FlagGems' basicConfig record log up to v4.2.0, a logger never closed, a
flipped library flag, a thread, a umask...); the ops after it run in the worker it used. Every
record carries a probe of that state, so a leak shows as a record that a fresh process does not
write. `zl batch --executor warm` and `--executor process` must then agree op by op: record
logs (timings aside), ops_status.csv, `zl summary` counts and the run identities."""
import csv
import json
import os
import shutil
import subprocess

import pytest

from conftest import SOURCE_DIR, ZL_BIN, Zl

PYTHON = "/usr/bin/python3"
OPS = ("abs", "add", "sum")
ACTOR = OPS[0]
# Keys of a record's results that are timings or derive from them.
TIMINGS = {"latency_base", "latency", "speedup", "gbps_base", "gbps", "tflops", "utilization",
           "compared_speedup"}
# What a run identity says that both executors must say alike (not pids, paths, times, executor).
IDENTITY_KEYS = ("status", "exit_code", "pytest_exit_code", "signal", "node", "timer", "level",
                 "mode", "dtypes", "record_log", "tests")

# Appended to every variant's benchmark/conftest.py: each record gets the variant's probe, and
# the variant's twin.act(op) runs at the start of each test (it misbehaves for ACTOR only).
HOOKS = """

# -- zl's twin test (tests/e2e/test_warm_twin.py)
from . import twin as _twin

_plain_emit_record_logger = emit_record_logger


def emit_record_logger(message):
    record = json.loads(message)
    record["probe"] = _twin.probe()
    _plain_emit_record_logger(json.dumps(record))


def pytest_runtest_call(item):
    _twin.act(_op_id(item))
"""

NOTHING = """def act(op):
    pass


def probe():
    return {}
"""

# FlagGems up to v4.2.0: the root logger through basicConfig, never closed.
BASICCONFIG = [
    ("""        handler = logging.FileHandler(name, mode="w")
        handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
        LOGGER.handlers[:] = [handler]
        LOGGER.setLevel(logging.INFO)
        LOGGER.info("Benchmark record logger enabled")
""", """        logging.basicConfig(filename=name, filemode="w", level=logging.INFO,
                            format="[%(levelname)s] %(message)s")
"""),
    ("""    for handler in LOGGER.handlers:
        handler.close()
    LOGGER.handlers[:] = []
""", "    pass\n"),
    ("        LOGGER.info(message)\n", "        logging.info(message)\n"),
]

# A named logger that gets a handler per session, a level and propagate=False, and keeps them.
STICKY = [
    ("""        LOGGER.handlers[:] = [handler]
        LOGGER.setLevel(logging.INFO)
""", """        from . import twin
        sticky = logging.getLogger("twin_sticky")
        twin.BEFORE = [len(sticky.handlers), sticky.level, sticky.propagate]
        sticky.addHandler(handler)
        sticky.setLevel(logging.DEBUG)
        sticky.propagate = False
"""),
    ('        LOGGER.info("Benchmark record logger enabled")\n',
     '        sticky.info("Benchmark record logger enabled")\n'),
    ("""    for handler in LOGGER.handlers:
        handler.close()
    LOGGER.handlers[:] = []
""", "    pass\n"),
    ("        LOGGER.info(message)\n", '        logging.getLogger("twin_sticky").info(message)\n'),
]
STICKY_TWIN = """BEFORE = None


def act(op):
    pass


def probe():
    return {"sticky_logger_before": BEFORE}
"""

# base.py: every Benchmark made registers itself in a module-level list.
REGISTRY = [
    ("class Benchmark:\n", "REGISTRY = []\n\n\nclass Benchmark:\n"),
    ("        self.op_name = op_name\n",
     "        REGISTRY.append(op_name)\n        self.op_name = op_name\n"),
]
REGISTRY_TWIN = """def act(op):
    pass


def probe():
    from . import base  # not at import: conftest imports this module before base exists
    return {"registry": len(base.REGISTRY)}
"""

# A preloaded torch-like module (ZL_WARM_PRELOAD): a global flag and a function the ACTOR
# rebinds, as a benchmark sets torch.backends.cuda.matmul.allow_tf32 or patches torch.mm.
FAKE_FLAGS = """ALLOW_TF32 = False


def matmul(a, b):
    return a * b
"""
GLOBAL_FLAG_TWIN = """import fake_flags


def patched_matmul(a, b):
    return b * a


def act(op):
    if op == "{actor}":
        fake_flags.ALLOW_TF32 = True
        fake_flags.matmul = patched_matmul


def probe():
    return {"allow_tf32": fake_flags.ALLOW_TF32, "matmul": fake_flags.matmul.__name__}
"""

# A non-daemon thread that lives as long as the main thread: it ends when a fresh process
# exits, and runs on in a warm worker.
THREAD_TWIN = """import threading
import time


def _spin():
    while threading.main_thread().is_alive():
        time.sleep(0.05)


def act(op):
    if op == "{actor}":
        threading.Thread(target=_spin, name="twin-spinner").start()


def probe():
    return {"threads": threading.active_count()}
"""

UMASK_TWIN = """import os


def act(op):
    if op == "{actor}":
        os.umask(0o077)


def probe():
    mask = os.umask(0o022)
    os.umask(mask)
    return {"umask": oct(mask)}
"""

CWD_ENV_TWIN = """import os


def _run_dir():
    return os.path.dirname(os.environ["ZL_PLAN"])


def act(op):
    if op == "{actor}":
        elsewhere = os.path.join(_run_dir(), "elsewhere")
        os.makedirs(elsewhere, exist_ok=True)
        os.chdir(elsewhere)
        os.environ["TWIN_LEAK"] = "1"


def probe():
    return {"cwd": os.path.relpath(os.getcwd(), _run_dir()), "leak": os.environ.get("TWIN_LEAK")}
"""


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return oct(mask)


def _fresh(actor, others):
    return {op: actor if op == ACTOR else others for op in OPS}


# name: (twin.py, edits of conftest.py, edits of base.py, what each op's first record probes
# in a fresh process)
VARIANTS = {
    "basicconfig": (NOTHING, BASICCONFIG, [], _fresh({}, {})),
    "sticky_logger": (STICKY_TWIN, STICKY, [], _fresh(*[{"sticky_logger_before": [0, 0, True]}] * 2)),
    "registry": (REGISTRY_TWIN, [], REGISTRY, _fresh(*[{"registry": 1}] * 2)),
    "global_flag": (GLOBAL_FLAG_TWIN, [], [], _fresh({"allow_tf32": True, "matmul": "patched_matmul"},
                                                     {"allow_tf32": False, "matmul": "matmul"})),
    "thread": (THREAD_TWIN, [], [], _fresh({"threads": 2}, {"threads": 1})),
    "umask": (UMASK_TWIN, [], [], _fresh({"umask": "0o77"}, {"umask": _umask()})),
    "cwd_env": (CWD_ENV_TWIN, [], [], _fresh({"cwd": "elsewhere", "leak": "1"},
                                             {"cwd": ".", "leak": None})),
}


def edit(path, edits, append=""):
    text = path.read_text()
    for old, new in edits:
        assert text.count(old) == 1, f"{path.name} has changed: {old!r} is not there once"
        text = text.replace(old, new)
    path.write_text(text + append)


def build_variant(root, name):
    """A copy of the sample corpus at root/corpus made hostile as VARIANTS[name] says; the
    environment zl runs it with."""
    twin, conftest_edits, base_edits, _ = VARIANTS[name]
    corpus = root / "corpus"
    shutil.copytree(SOURCE_DIR / "corpus", corpus, ignore=shutil.ignore_patterns("__pycache__"))
    (corpus / "benchmark" / "twin.py").write_text(twin.replace("{actor}", ACTOR))
    edit(corpus / "benchmark" / "conftest.py", conftest_edits, append=HOOKS)
    edit(corpus / "benchmark" / "base.py", base_edits)
    env = {}
    if name == "global_flag":
        site = root / "site"
        site.mkdir()
        (site / "fake_flags.py").write_text(FAKE_FLAGS)
        env = {"PYTHONPATH": str(site), "ZL_WARM_PRELOAD": "fake_flags"}
    return corpus, env


class Campaigns:
    """Runs each (variant, executor) campaign once per module; the tests share them."""

    def __init__(self, factory):
        self.factory = factory
        self.zl = Zl(factory.mktemp("zl"))
        self.variants, self.outs = {}, {}

    def out(self, variant, executor):
        if variant not in self.variants:
            self.variants[variant] = build_variant(self.factory.mktemp(variant), variant)
        if (variant, executor) not in self.outs:
            corpus, env = self.variants[variant]
            out = corpus.parent / executor
            proc = subprocess.run([ZL_BIN, "batch", "--flaggems", str(corpus), "--ops", ",".join(OPS),
                                   "--python", PYTHON, "--out", str(out), "--executor", executor],
                                  env=dict(self.zl.env, **env), capture_output=True, text=True,
                                  timeout=300)
            assert (out / "ops_status.csv").is_file(), f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            self.outs[variant, executor] = out
        return self.outs[variant, executor]


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    if not ZL_BIN:
        pytest.fail("ZL_BIN is not set: run these tests through ctest")
    return Campaigns(tmp_path_factory)


def records(run_dir):
    """The record log's lines; a record is its JSON less the timings."""
    lines = []
    for line in (run_dir / "record.log").read_text().splitlines():
        if line.startswith("[INFO] {"):
            record = json.loads(line[len("[INFO] "):])
            record["result"] = [{k: v for k, v in r.items() if k not in TIMINGS} for r in record["result"]]
            lines.append(record)
        else:
            lines.append(line)
    return lines


def identity(out, op):
    return json.loads((out / op / "run_identity.json").read_text())


def observed(zl, out):
    """What each op of a campaign left, timings aside: {op: {part: value}}."""
    with open(out / "ops_status.csv", newline="") as f:
        rows = {row["op"]: row for row in csv.DictReader(f)}
    summary = json.loads(zl.run("summary", "--format", "json", str(out), check_rc=0).stdout)
    seen = {}
    for op in OPS:
        ident = identity(out, op) if (out / op / "run_identity.json").is_file() else {}
        has_log = (out / op / "record.log").is_file()
        seen[op] = {
            "status": {k: rows.get(op, {}).get(k) for k in ("status", "exit_code", "rows")},
            "record_log": records(out / op) if has_log else "no record.log",
            "summary": sorted((g["op"], g["dtype"], g.get("rows"), g.get("measured"), g.get("failed"),
                               g.get("fallback"), g.get("status"))
                              for g in summary["groups"] if g["op"] == op or g["op"].startswith(op + "_")),
            "identity": {k: ident.get(k, "absent") for k in IDENTITY_KEYS},
        }
    return seen


def difference(process, warm):
    """Where two values first differ (for lists: the first line that does), short enough to read."""
    if isinstance(process, list) and isinstance(warm, list):
        n, m = len(process), len(warm)
        at = next((i for i, (p, w) in enumerate(zip(process, warm)) if p != w), min(n, m))
        process, warm = process[at] if at < len(process) else "end", warm[at] if at < len(warm) else "end"
        if isinstance(process, dict) and isinstance(warm, dict):  # a record: the keys that differ
            keys = [k for k in {**process, **warm} if process.get(k) != warm.get(k)]
            process, warm = {k: process.get(k) for k in keys}, {k: warm.get(k) for k in keys}
        return f"line {at + 1} (of {n} and {m}) differs:{difference(process, warm)}"
    return f"\n  process: {_short(process)}\n  warm:    {_short(warm)}"


def _short(value, limit=400):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def first_probes(seen):
    return {op: next((r["probe"] for r in parts["record_log"] if isinstance(r, dict)), "no record")
            for op, parts in seen.items()}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_warm_is_the_twin_of_process(campaigns, variant):
    process = observed(campaigns.zl, campaigns.out(variant, "process"))
    # The fresh process is the reference: every op ok with records that carry the probe, and
    # the ACTOR's misbehaviour on its own records only (else this test would compare nothing).
    for op, parts in process.items():
        assert parts["status"]["status"] == "ok", (op, parts["status"])
        assert any(isinstance(r, dict) for r in parts["record_log"]), (op, parts["record_log"])
        assert all("probe" in r for r in parts["record_log"] if isinstance(r, dict))
    assert first_probes(process) == VARIANTS[variant][3]
    warm = observed(campaigns.zl, campaigns.out(variant, "warm"))
    differences = [f"{op} {part}: {difference(process[op][part], warm[op][part])}"
                   for op in OPS for part in process[op] if warm[op][part] != process[op][part]]
    assert not differences, f"warm differs from process ({variant}):\n" + "\n".join(differences)


def test_an_op_that_leaves_a_thread_ends_its_worker(campaigns):
    out = campaigns.out("thread", "warm")
    ex = {op: identity(out, op)["executor"] for op in OPS}
    assert ex[ACTOR].get("recycled"), f"{ACTOR}'s executor: {ex[ACTOR]}"
    assert any("twin-spinner" in item for item in ex[ACTOR]["recycled"]), ex[ACTOR]["recycled"]
    after = OPS[1]
    assert ex[after]["ops_before"] == 0 and ex[after]["pid"] != ex[ACTOR]["pid"], ex
    assert not ex[after].get("recycled")  # that op left nothing: its worker goes on
    assert ex[OPS[2]]["pid"] == ex[after]["pid"] and ex[OPS[2]]["ops_before"] == 1, ex
