"""The warm worker (python/zl_plugins/zl_worker.py) driven over its pipes, as zl drives it."""
import json
import os
import signal
import subprocess
import sys

import pytest

from .zl_testlib import PLUGIN_DIRS, PYTHON

TEST_FILE = """
import os, helper_mod

def test_env_and_cwd():
    with open(os.environ["OUT_FILE"], "a") as f:
        f.write("{} {} {}\\n".format(os.environ["OP_TAG"], os.getcwd(), helper_mod.TOKEN))
    assert "ONLY_IN_OP1" not in os.environ or os.environ["OP_TAG"] == "one"
"""
HELPER = """
import os
TOKEN = os.environ["OP_TAG"]  # the value at import: fresh per op only if re-imported
with open(os.environ["OUT_FILE"], "a") as f:
    f.write("imported\\n")
"""


ARGS = ["test_it.py", "-q", "-p", "no:cacheprovider"]
CLEAN = {"restored": [], "unrestorable": []}  # what a plain op leaves behind: nothing


def ok(code=0):
    return dict(CLEAN, exit=code)


class Driver:
    def __init__(self, preload="", pythonpath=(), **extra_env):
        self.req_r, self.req_w = os.pipe()
        self.rep_r, self.rep_w = os.pipe()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ZL_", "PYTEST_"))}
        env["PYTHONPATH"] = os.pathsep.join(str(d) for d in PLUGIN_DIRS + list(pythonpath))
        env["ZL_WORKER_FDS"] = "{},{}".format(self.req_r, self.rep_w)
        env["ZL_WORKER_PRELOAD"] = preload
        env.update(extra_env)
        self.proc = subprocess.Popen([PYTHON, "-m", "zl_worker"], env=env,
                                     pass_fds=(self.req_r, self.rep_w), process_group=0,  # as zl does
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        os.close(self.req_r)
        os.close(self.rep_w)
        self.requests = os.fdopen(self.req_w, "w")
        self.replies = os.fdopen(self.rep_r, "r")
        self.hello = self.read()

    def read(self):
        line = self.replies.readline()
        return json.loads(line) if line else None

    def op(self, args, env, cwd):
        self.requests.write(json.dumps({"args": args, "env": env, "cwd": str(cwd)}) + "\n")
        self.requests.flush()
        return self.read()

    def close(self):
        self.requests.close()
        out = self.proc.stdout.read().decode()
        return self.proc.wait(timeout=30), out


def op_env(tmp_path, tag, **extra):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OP_TAG": tag,
           "OUT_FILE": str(tmp_path / "out.txt"),
           "PYTHONPATH": os.pathsep.join(str(d) for d in PLUGIN_DIRS)}
    env.update(extra)
    return env


def op_dir(tmp_path, name, body=TEST_FILE):
    d = tmp_path / name
    d.mkdir()
    (d / "test_it.py").write_text(body)
    (d / "helper_mod.py").write_text(HELPER)
    return d


def test_two_ops_get_their_own_env_cwd_and_fresh_modules(tmp_path):
    w = Driver()
    assert w.hello["ready"] and w.hello["pid"] == w.proc.pid
    one, two = op_dir(tmp_path, "one"), op_dir(tmp_path, "two")
    args = ["test_it.py", "-q", "-p", "no:cacheprovider"]
    assert w.op(args, op_env(tmp_path, "one", ONLY_IN_OP1="1"), one) == ok()
    assert w.op(args, op_env(tmp_path, "two"), two) == ok()
    rc, out = w.close()
    assert rc == 0
    lines = (tmp_path / "out.txt").read_text().splitlines()
    # helper_mod imported afresh in each op, with that op's environment and folder
    assert lines == ["imported", "one {} one".format(one), "imported", "two {} two".format(two)]
    assert "2 passed" not in out and out.count("1 passed") == 2


BASIC_CONFIG = """
import logging, os

def pytest_configure(config):  # as FlagGems' benchmark conftest opens its record log (to v4.2.0)
    logging.basicConfig(filename="result_{}.log".format(os.environ["OP_TAG"]), filemode="w",
                        level=logging.INFO, format="%(message)s")
"""
LOG_A_RECORD = """
import logging, os

def test_record():
    logging.info("record of %s", os.environ["OP_TAG"])
"""


def lines_of(path):
    return path.read_text().splitlines() if path.exists() else None


def test_each_op_s_basicconfig_log_holds_its_own_records(tmp_path):
    # basicConfig does nothing once the root logger has a handler: op two's records went into
    # op one's log when the worker left op one's handler on the root logger.
    w = Driver()
    replies = []
    for tag in ("one", "two"):
        d = op_dir(tmp_path, tag, LOG_A_RECORD)
        (d / "conftest.py").write_text(BASIC_CONFIG)
        replies.append(w.op(ARGS, op_env(tmp_path, tag), d))
    assert w.close()[0] == 0
    assert lines_of(tmp_path / "one" / "result_one.log") == ["record of one"]
    assert lines_of(tmp_path / "two" / "result_two.log") == ["record of two"]
    assert replies[0] == dict(ok(), restored=["logging: root handlers (1 added: FileHandler "
                                              "result_one.log), level (INFO, baseline WARNING)"])


NAMED_LOGGER = """
import logging, os

def test_named():
    log = logging.getLogger("zl_test.leaky")
    if os.environ["OP_TAG"] == "one":
        log.addHandler(logging.FileHandler("named.log"))
        log.setLevel(logging.DEBUG)
        log.propagate = False
    log.debug("debug of %s", os.environ["OP_TAG"])
    with open(os.environ["OUT_FILE"], "a") as f:
        f.write("{} {} {} {}\\n".format(len(log.handlers), log.level, log.propagate, log.disabled))
"""


def open_files(pid):
    fds = "/proc/{}/fd".format(pid)
    return {os.path.basename(os.readlink(os.path.join(fds, fd))) for fd in os.listdir(fds)}


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_handler_an_op_leaves_on_a_named_logger_is_closed_and_removed(tmp_path):
    w = Driver()
    one, two = op_dir(tmp_path, "one", NAMED_LOGGER), op_dir(tmp_path, "two", NAMED_LOGGER)
    assert w.op(ARGS, op_env(tmp_path, "one"), one)["restored"] == [
        "logging: logger 'zl_test.leaky' (new) handlers (1 added: FileHandler named.log), "
        "level (DEBUG, baseline NOTSET), propagate (False, baseline True)"]
    assert "named.log" not in open_files(w.proc.pid)
    assert w.op(ARGS, op_env(tmp_path, "two"), two) == ok()
    assert w.close()[0] == 0
    assert lines_of(one / "named.log") == ["debug of one"]
    # op two saw the logger as a fresh process makes it
    assert lines_of(tmp_path / "out.txt") == ["1 10 False False", "0 0 True False"]


CHANGE_PROCESS = """
import os, signal, warnings

def handler(signum, frame):
    pass

def test_change():
    warnings.filterwarnings("ignore", category=UserWarning, message="zl probe")
    signal.signal(signal.SIGUSR1, handler)
    os.umask(0o077)
"""
REPORT_PROCESS = """
import os, signal, warnings

def test_report():
    mask = os.umask(0)
    os.umask(mask)
    leaked = [f for f in warnings.filters if getattr(f[1], "pattern", "") == "zl probe"]
    with open(os.environ["OUT_FILE"], "a") as f:
        f.write("{} {} {}\\n".format(oct(mask), signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL,
                                    len(leaked)))
"""


def test_warnings_filters_signal_handlers_and_umask_go_back(tmp_path):
    w = Driver()
    umask = os.umask(0o022)
    os.umask(umask)
    args = ARGS + ["-p", "no:warnings"]  # pytest's own catch_warnings would undo the filter
    assert w.op(args, op_env(tmp_path, "x"), op_dir(tmp_path, "change", CHANGE_PROCESS)) == dict(
        ok(), restored=["SIGUSR1: handler (test_it.handler, baseline <Handlers.SIG_DFL: 0>)",
                        "warnings: filters (1 added: ignore UserWarning 'zl probe')",
                        "umask (0o77, baseline {})".format(oct(umask))])
    assert w.op(args, op_env(tmp_path, "x"), op_dir(tmp_path, "report", REPORT_PROCESS)) == ok()
    assert w.close()[0] == 0
    assert (tmp_path / "out.txt").read_text() == "{} True 0\n".format(oct(umask))


LEAKS = """
import atexit, threading, time

stop = threading.Event()

def spin():
    stop.wait(60)

def test_leak():
    threading.Thread(target=spin, name="spinner", daemon=True).start()
    threading.Thread(target=time.sleep, args=(0.05,), name="short").start()  # ends in the grace
    atexit.register(print, "atexit ran")
"""


def test_a_thread_still_running_and_an_atexit_callback_are_unrestorable(tmp_path):
    w = Driver()
    assert w.op(ARGS, op_env(tmp_path, "x"), op_dir(tmp_path, "leaks", LEAKS)) == dict(
        ok(), unrestorable=["thread 'spinner' still running (target module test_it)",
                            "atexit: 1 callback registered (builtins.print)"])
    rc, out = w.close()
    assert rc == 0 and "atexit ran" in out


def test_an_installed_plugins_import_time_atexit_is_in_the_baseline(tmp_path):
    # pytest-xdist's import registers execnet's atexit callback, once per process: a fresh
    # process for each op registers it too, so it is not a change the op made.
    site = tmp_path / "site"
    (site / "zlprobe_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "zlprobe_plugin-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: zlprobe-plugin\nVersion: 1.0\n")
    (site / "zlprobe_plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[pytest11]\nzlprobe = zlprobe_plugin\n")
    (site / "zlprobe_plugin.py").write_text("import atexit\natexit.register(print, 'plugin atexit')\n")
    w = Driver(pythonpath=[site])
    env = op_env(tmp_path, "one", PYTHONPATH=os.pathsep.join(str(d) for d in PLUGIN_DIRS + [site]))
    assert w.op(ARGS, env, op_dir(tmp_path, "plain", TEST_FILE.replace("helper_mod.TOKEN", "0")
                                  .replace("import os, helper_mod", "import os"))) == ok()
    rc, out = w.close()
    assert rc == 0 and out.count("plugin atexit") == 1
    w = Driver(pythonpath=[site], PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")  # then no session loads it
    assert w.op(ARGS, op_env(tmp_path, "two"), op_dir(tmp_path, "plain2", "def test_x():\n    pass\n")) == ok()
    assert w.close()[0] == 0


PATCH = """
import json, email.utils

def test_patch():
    json.dumps = lambda obj, **kw: "patched"
    del email.utils.parseaddr
    json.__version__ = "flipped"  # a data attribute: libraries flip their own flags
    json.zl_added = len  # not there at the baseline: left alone
"""
USE = """
import json, os, email.utils

def test_use():
    with open(os.environ["OUT_FILE"], "a") as f:
        f.write("{} {} {} {}\\n".format(json.dumps({"a": 1}), hasattr(email.utils, "parseaddr"),
                                       json.__version__, hasattr(json, "zl_added")))
"""


def test_a_preloaded_library_s_rebound_functions_are_put_back(tmp_path):
    w = Driver(preload="json,email.utils")
    reply = w.op(ARGS, op_env(tmp_path, "x"), op_dir(tmp_path, "patch", PATCH))
    assert sorted(reply["restored"]) == ["monkeypatch: email.utils.parseaddr",
                                         "monkeypatch: json.dumps"]
    assert w.op(ARGS, op_env(tmp_path, "x"), op_dir(tmp_path, "use", USE)) == ok()
    assert w.close()[0] == 0
    assert (tmp_path / "out.txt").read_text() == '{"a": 1} True flipped True\n'


FLAGS = "ALLOW_TF32 = False\nMODE = None\n_initialized = False\n"
FLIP = """
import zl_fake_flags

def test_flip():
    zl_fake_flags.ALLOW_TF32 = True
    zl_fake_flags.MODE = "fast"
    zl_fake_flags._initialized = True  # the library's own bookkeeping: left alone
"""
SEE = """
import os, zl_fake_flags

def test_see():
    with open(os.environ["OUT_FILE"], "a") as f:
        f.write("{} {} {}\\n".format(zl_fake_flags.ALLOW_TF32, zl_fake_flags.MODE, zl_fake_flags._initialized))
"""


def test_a_preloaded_library_s_public_flags_are_put_back(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "zl_fake_flags.py").write_text(FLAGS)
    w = Driver(preload="zl_fake_flags", pythonpath=[lib])
    env = op_env(tmp_path, "x", PYTHONPATH=os.pathsep.join(str(d) for d in PLUGIN_DIRS + [lib]))
    reply = w.op(ARGS, env, op_dir(tmp_path, "flip", FLIP))
    assert sorted(reply["restored"]) == ["global: zl_fake_flags.ALLOW_TF32 (True, baseline False)",
                                         "global: zl_fake_flags.MODE ('fast', baseline None)"]
    assert w.op(ARGS, env, op_dir(tmp_path, "see", SEE)) == ok()
    assert w.close()[0] == 0
    assert (tmp_path / "out.txt").read_text() == "False None True\n"


def test_exit_status_passes_through_and_the_worker_goes_on(tmp_path):
    w = Driver()
    d = op_dir(tmp_path, "fails", "def test_no():\n    assert False\n")
    assert w.op(ARGS, op_env(tmp_path, "x"), d) == ok(1)
    assert w.op(["no_such_file.py"] + ARGS[1:], op_env(tmp_path, "x"), d) == ok(4)
    assert w.close()[0] == 0


def test_an_op_that_kills_the_worker_ends_the_reply_stream(tmp_path):
    w = Driver()
    d = op_dir(tmp_path, "dies", "import os\n\ndef test_die():\n    print('last words', flush=True)\n"
                                  "    os._exit(7)\n")
    assert w.op(["test_it.py", "-s", "-p", "no:cacheprovider"], op_env(tmp_path, "x"), d) is None
    rc, out = w.close()
    assert rc == 7 and "last words" in out


def test_a_preload_that_fails_is_reported_not_fatal(tmp_path):
    w = Driver(preload="json,zl_no_such_module")
    assert w.hello["preloaded"] == ["json"]
    assert "ModuleNotFoundError" in w.hello["failed"]["zl_no_such_module"]
    d = op_dir(tmp_path, "ok")
    assert w.op(ARGS, op_env(tmp_path, "x"), d) == ok()
    assert w.close()[0] == 0


def test_without_its_descriptors_it_refuses(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZL_")}
    env["PYTHONPATH"] = os.pathsep.join(str(d) for d in PLUGIN_DIRS)
    r = subprocess.run([PYTHON, "-m", "zl_worker"], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "ZL_WORKER_FDS" in r.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="signals as on Linux")
def test_sigint_during_an_op_is_pytest_interrupted(tmp_path):
    w = Driver()
    d = op_dir(tmp_path, "hangs", "import os, signal\n\ndef test_hang():\n"
                                   "    os.kill(os.getpid(), signal.SIGINT)\n")
    assert w.op(ARGS, op_env(tmp_path, "x"), d) == ok(2)
    assert w.close()[0] == 0


def test_descendants_finds_children_of_children():
    sys.path[:0] = [str(d) for d in PLUGIN_DIRS]
    import zl_worker

    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30; wait"])
    try:
        for _ in range(100):  # until the shell has started both sleeps
            found = zl_worker._descendants(os.getpid())
            if len(found) >= 3:
                break
            import time
            time.sleep(0.05)
        assert shell.pid in found
        assert len(found) >= 3  # the shell and its two sleeps
    finally:
        for pid in zl_worker._descendants(shell.pid):
            os.kill(pid, 9)
        shell.kill()
        shell.wait()


def test_sigterm_from_zl_ends_the_worker_as_before(tmp_path):
    w = Driver()
    w.proc.terminate()
    assert w.proc.wait(timeout=30) == -15


def test_the_parent_death_signal_ends_what_the_op_started(tmp_path):
    # SIGHUP is what the worker gets when zl batch dies: the op's stubborn child dies with it.
    w = Driver()
    pid_file = tmp_path / "child.pid"
    d = op_dir(tmp_path, "leaves", "import os, signal, subprocess, sys, time\n\ndef test_leave():\n"
               "    c = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
               "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])\n"
               "    open(os.environ['PID_FILE'], 'w').write(str(c.pid))\n"
               "    time.sleep(60)\n")
    w.requests.write(json.dumps({"args": ["test_it.py", "-q", "-p", "no:cacheprovider"],
                                 "env": op_env(tmp_path, "x", PID_FILE=str(pid_file)), "cwd": str(d)}) + "\n")
    w.requests.flush()
    import time
    for _ in range(300):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    child = int(pid_file.read_text())
    w.proc.send_signal(signal.SIGHUP)
    assert w.proc.wait(timeout=30) == -9
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the op's child {child} outlived the worker")
