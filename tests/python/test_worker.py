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


class Driver:
    def __init__(self, preload=""):
        self.req_r, self.req_w = os.pipe()
        self.rep_r, self.rep_w = os.pipe()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ZL_", "PYTEST_"))}
        env["PYTHONPATH"] = os.pathsep.join(str(d) for d in PLUGIN_DIRS)
        env["ZL_WORKER_FDS"] = "{},{}".format(self.req_r, self.rep_w)
        env["ZL_WORKER_PRELOAD"] = preload
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
    assert w.op(args, op_env(tmp_path, "one", ONLY_IN_OP1="1"), one) == {"exit": 0}
    assert w.op(args, op_env(tmp_path, "two"), two) == {"exit": 0}
    rc, out = w.close()
    assert rc == 0
    lines = (tmp_path / "out.txt").read_text().splitlines()
    # helper_mod imported afresh in each op, with that op's environment and folder
    assert lines == ["imported", "one {} one".format(one), "imported", "two {} two".format(two)]
    assert "2 passed" not in out and out.count("1 passed") == 2


def test_exit_status_passes_through_and_the_worker_goes_on(tmp_path):
    w = Driver()
    d = op_dir(tmp_path, "fails", "def test_no():\n    assert False\n")
    assert w.op(["test_it.py", "-q", "-p", "no:cacheprovider"], op_env(tmp_path, "x"), d) == {"exit": 1}
    assert w.op(["no_such_file.py", "-q", "-p", "no:cacheprovider"], op_env(tmp_path, "x"), d) == {"exit": 4}
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
    assert w.op(["test_it.py", "-q", "-p", "no:cacheprovider"], op_env(tmp_path, "x"), d) == {"exit": 0}
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
    assert w.op(["test_it.py", "-q", "-p", "no:cacheprovider"], op_env(tmp_path, "x"), d) == {"exit": 2}
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
