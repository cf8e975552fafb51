"""pytest options and run configuration of the sample corpus, shaped like FlagGems'.

Options: --mode, --level (default comprehensive, as in FlagGems), --warmup and --iter (time
budgets in ms), --dtypes (repeatable), --shape_file, --record none|log|json, --output.
`--record log` writes `result_<args>.log` in the current folder under FlagGems' naming rule,
one `[INFO] ` line per (operator, dtype); `--record json` writes the --output report.
"""
import json
import logging
import os

import pytest

from . import consts

LOGGER = logging.getLogger("flag_gems_benchmark")
LOGGER.propagate = False
REPORT_FILE = "benchmark_result.json"
BUILTIN_MARKS = ("parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings",
                 "timeout", "tryfirst", "trylast")
SHAPE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "core_shapes.yaml")

Config = None  # a BenchConfig once pytest_configure has run
_report = {}
_details = {}


class BenchConfig:
    def __init__(self):
        self.mode = consts.BenchMode.KERNEL
        self.bench_level = consts.BenchLevel.COMPREHENSIVE
        self.warm_up = consts.DEFAULT_WARMUP_TIME
        self.repetition = consts.DEFAULT_ITER_TIME
        self.record_log = False
        self.record_json = False
        self.user_desired_dtypes = None
        self.user_desired_metrics = None
        self.shape_file = SHAPE_FILE
        self.output = REPORT_FILE
        self.query = False


def pytest_addoption(parser):
    parser.addoption("--mode", action="store", default="kernel",
                     choices=[m.value for m in consts.BenchMode],
                     help="'kernel' for device kernel, 'operator' for end2end operator, "
                          "'wrapper' for runtime wrapper, or 'cudagraph' for CUDA Graph "
                          "captured execution (not available in the sample corpus).")
    parser.addoption("--level", action="store", default="comprehensive",
                     choices=[level.value for level in consts.BenchLevel],
                     help="Specify the benchmark level: comprehensive, or core.")
    parser.addoption("--warmup", default=consts.DEFAULT_WARMUP_TIME,
                     help="Time(ms) of warmup runs before benchmark run.")
    parser.addoption("--iter", default=consts.DEFAULT_ITER_TIME,
                     help="Time(ms) of reps for each benchmark run.")
    parser.addoption("--dtypes", action="append", default=None,
                     choices=list(consts.DTYPES_BY_NAME),
                     help="Data types to benchmark (repeatable); default: each op's own.")
    parser.addoption("--shape_file", action="store", default=SHAPE_FILE,
                     help="Shapes file, looked up by op name first, then by class chain.")
    try:
        parser.addoption("--record", action="store", default="none",
                         choices=["none", "log", "json"],
                         help="Write results to a log file (log) or a JSON report (json).")
        parser.addoption("--output", action="store", default=REPORT_FILE,
                         help="Path of the JSON report written with --record json.")
    except ValueError:  # registered already by another conftest of the same session
        pass


def pytest_configure(config):
    global Config
    Config = BenchConfig()
    Config.mode = consts.BenchMode(config.getoption("--mode"))
    Config.bench_level = consts.BenchLevel(config.getoption("--level"))
    Config.warm_up = int(config.getoption("--warmup"))
    Config.repetition = int(config.getoption("--iter"))
    dtypes = config.getoption("--dtypes")
    if dtypes:
        Config.user_desired_dtypes = [consts.DTYPES_BY_NAME[name] for name in dtypes]
    Config.shape_file = os.path.abspath(config.getoption("--shape_file"))
    record = config.getoption("--record")
    Config.record_log = record == "log"
    Config.record_json = record == "json"
    Config.output = config.getoption("--output")
    if Config.record_log:
        args = [str(a).replace(".py", "").replace("=", "_").replace("/", "_")
                for a in config.invocation_params.args]
        name = "result_{}.log".format("_".join(args)).replace("_-", "-")
        handler = logging.FileHandler(name, mode="w")
        handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
        LOGGER.handlers[:] = [handler]
        LOGGER.setLevel(logging.INFO)
        LOGGER.info("Benchmark record logger enabled")


def pytest_unconfigure(config):
    for handler in LOGGER.handlers:
        handler.close()
    LOGGER.handlers[:] = []


def emit_record_logger(message):
    if Config is not None and Config.record_log:
        LOGGER.info(message)


def update_result(op_name, result):
    _details.setdefault(op_name, []).append(result)


def _op_id(item):
    for mark in item.iter_markers():
        if mark.name not in BUILTIN_MARKS:
            return mark.name
    return item.nodeid


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().opid = _op_id(item)


def pytest_runtest_logreport(report):
    if not (Config and Config.record_json):
        return
    if report.when == "call" or (report.when == "setup" and report.skipped):
        reason = None
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = report.longrepr[2]
        elif report.failed:
            reason = str(report.longrepr)
        _report[report.opid] = {"result": report.outcome, "test_case": report.nodeid,
                                "reason": reason}


def pytest_terminal_summary(terminalreporter):
    if not (Config and Config.record_json):
        return
    for op_id, entry in _report.items():
        entry["details"] = _details.get(op_id, [])
    merged = {}
    if os.path.isfile(Config.output):
        with open(Config.output, encoding="utf-8") as f:
            merged = json.load(f)
    merged.update(_report)
    with open(Config.output, "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=2, default=str)
