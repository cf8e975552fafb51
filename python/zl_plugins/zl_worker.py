"""zl's warm worker (`zl batch --executor warm`): one long-lived Python per device that pays
the imports once (pytest, the backend's torch module, flag_gems) and then runs op after op,
each in its own `pytest.main` session. Not a pytest plugin: zl starts it as
`python -m zl_worker` with this folder on PYTHONPATH, already pinned to its device.

Why pytest.main in-process and not a fork of a pre-imported parent: `import flag_gems`
initializes CUDA in the importing process, and a CUDA context does not survive fork, so a fork
server could only stop at torch and triton and would pay flag_gems' import (most of the cost)
per op. In-process keeps everything imported; its isolation is what this module resets per op
(environment, working folder, sys.path, sys.argv, the modules the op imported), what zl_state
puts back to the baseline it read right after the preload (logging, warnings, signal handlers,
sys hooks, torch's settings and RNG, rebound library functions...), and what zl records (the
worker's pid and how many ops it ran before, in run_identity.json). A worker that dies takes
only its current op with it: zl records that op as crashed and starts a new worker.

Protocol, one JSON object per line over two pipes named by ZL_WORKER_FDS="IN,OUT" (never
stdout or stderr: those carry the ops' output, which zl routes to the op's run.log and log):
  worker -> zl, once imported: {"ready": true, "pid": N, "preloaded": [...], "failed": {name: error}}
  zl -> worker, per op:        {"args": [pytest args], "env": {NAME: VALUE}, "cwd": DIR}
  worker -> zl, per op:        {"exit": pytest's exit status, "restored": [str...],
                                "unrestorable": [str...]}
"restored" names what the op changed and the worker put back (zl records it as
executor.restored); "unrestorable" what it could not put back, such as a thread still running
or an atexit callback (executor.recycled): zl ends the worker after such an op. Each string is
a short item, e.g. "logging: root handlers (1 added: FileHandler result_x.log)".
End of input: the worker exits 0. ZL_WORKER_PRELOAD is the comma list of modules to import
after pytest; one that fails to import is reported in "failed", never fatal.
ZL_WORKER_DEVICE_MODULE names the backend's device module (torch.cuda, torch.musa; empty: none),
whose RNG states, current device and stream zl_state restores and whose cache it empties.
"""
import contextlib
import faulthandler
import importlib
import json
import os
import signal
import sys
import sysconfig
import traceback

import zl_state


def _preload(names):
    import pytest  # noqa: F401  (the import is the point)
    import _pytest.config

    # pytest imports its built-in plugins per session; importing them now keeps them warm.
    for name in getattr(_pytest.config, "default_plugins", ()):
        try:
            importlib.import_module("_pytest." + name)
        except Exception:  # a plugin this pytest lacks: it is imported per session then
            pass
    _preload_installed_plugins()
    loaded, failed = [], {}
    for name in names:
        try:
            importlib.import_module(name)
            loaded.append(name)
        except BaseException as e:  # noqa: B036 an import may raise anything, even SystemExit
            failed[name] = "{}: {}".format(type(e).__name__, e)
    return loaded, failed


def _preload_installed_plugins():
    """The plugins pytest loads by entry point in every session (pytest-xdist, ...): importing
    them once here puts what their import registers (execnet's atexit callback) in the baseline,
    as their import in a fresh process would, not in the first op's changes."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return
    try:
        from importlib.metadata import entry_points
        plugins = entry_points(group="pytest11")
    except Exception:  # noqa: BLE001 broken package metadata: each session meets it alike
        return
    for plugin in plugins:
        with contextlib.suppress(Exception, SystemExit):  # a session fails on it alike
            importlib.import_module(plugin.value.split(":")[0])


def _library_dirs():
    """Where the interpreter's own and installed libraries live: modules from there are kept
    once imported (an extension module cannot be imported twice in one process)."""
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.realpath(path) + os.sep)
    return tuple(dirs)


class Worker:
    def __init__(self, preload, device_module=""):
        start_path = os.environ.get("PYTHONPATH", "")
        self.loaded, self.failed = _preload(preload)
        # sys.path as `python -m pytest` has it, less the folder and PYTHONPATH zl started us with.
        own = {os.path.realpath(p) for p in start_path.split(os.pathsep) if p}
        own.add(os.path.realpath(sys.path[0] or os.getcwd()))
        self.base_path = [p for p in sys.path[1:] if os.path.realpath(p) not in own]
        self.baseline = set(sys.modules)
        self.preloaded_roots = {name.split(".")[0] for name in self.baseline}
        self.library_dirs = _library_dirs()
        # Last: the state every op starts from, as a fresh process has it after these imports.
        self.state = zl_state.State(self.preloaded_roots, device_module,
                                    {name.split(".")[0] for name in self.loaded})

    def run(self, request):
        """Runs one op; its reply: pytest's exit status and what the op left behind."""
        code = self._session(request)
        return dict({"exit": code}, **self.state.restore())

    def _session(self, request):
        args, env, cwd = list(request["args"]), dict(request["env"]), request["cwd"]
        saved_env, saved_cwd = dict(os.environ), os.getcwd()
        saved_path, saved_argv = list(sys.path), list(sys.argv)
        _flush()
        try:
            os.environ.clear()
            os.environ.update(env)
            os.chdir(cwd)
            # A fresh `python -m pytest` in cwd: the folder first, then PYTHONPATH, then the rest.
            extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
            sys.path[:] = [cwd] + extra + self.base_path
            sys.argv = [sys.argv[0]] + args
            signal.signal(signal.SIGINT, signal.default_int_handler)
            return _pytest_main(args)
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            _flush()
            os.environ.clear()
            os.environ.update(saved_env)
            os.chdir(saved_cwd)
            sys.path[:] = saved_path
            sys.argv = saved_argv
            self._forget_modules()

    def _forget_modules(self):
        """Drops what the op imported (its benchmark modules, conftest, zl's plugins), so the
        next op imports them afresh; keeps packages preloaded whole and the libraries of the
        interpreter's own folders."""
        for name in [n for n in sys.modules if n not in self.baseline]:
            if name.split(".")[0] in self.preloaded_roots:
                continue
            path = getattr(sys.modules.get(name), "__file__", None) or ""
            if path and os.path.realpath(path).startswith(self.library_dirs):
                continue
            del sys.modules[name]
        importlib.invalidate_caches()


def _pytest_main(args):
    import pytest

    try:
        return int(pytest.main(args))
    except SystemExit as e:  # what `python -m pytest` would exit with
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: B036 as an uncaught exception ends `python -m pytest`
        traceback.print_exc()
        return 1


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def _become_subreaper():
    """What an op double-forks away (setsid, `cmd &` in a shell) is reparented to the worker, not
    to init, so zl finds it among the worker's children and ends it after the op, as `zl run`
    does as a subreaper (core/util/process.hpp, become_subreaper)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap():
    """Collects what zl ended after the last op (orphans the worker adopted), so no zombie stays."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _descendants(root):
    """Every process below root, from /proc (children of children included)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
                # The name in parentheses may hold spaces and ')': the fields follow the last ')'.
                ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            found.append(pid)
            todo.append(pid)
    return found


def _on_parent_death(signum, frame):
    """zl starts the worker with SIGHUP as its parent-death signal (core/exec/worker.cpp): the
    thread of zl batch that started it has ended, so the campaign is over or zl died (SIGKILL
    included). Nobody else will end what the op started: the worker kills every process below
    it, then its group and itself, as `zl run` ends pytest's tree when zl batch dies under the
    process executor. (zl stops an op with SIGINT, SIGTERM or SIGKILL, never SIGHUP, and the
    worker's group is never a terminal's foreground group.)"""
    for _ in range(3):  # again: a process may have forked while the last pass ran
        for pid in _descendants(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    os.killpg(os.getpgrp(), signal.SIGKILL)


def serve(in_fd, out_fd, preload, device_module=""):
    # Ctrl-C reaches the worker only through zl (its own process group), and only during an op.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, _on_parent_death)
    _become_subreaper()
    # A segfault prints the Python stack: zl quotes what a dead worker last printed.
    faulthandler.enable()
    for fd in (in_fd, out_fd):  # not for what the benchmark starts: a child must not hold them open
        os.set_inheritable(fd, False)
    requests = os.fdopen(in_fd, "r", encoding="utf-8")
    replies = os.fdopen(out_fd, "w", encoding="utf-8")

    def reply(obj):
        replies.write(json.dumps(obj) + "\n")
        replies.flush()

    worker = Worker(preload, device_module)  # after the signals above: they are its baseline
    reply({"ready": True, "pid": os.getpid(), "preloaded": worker.loaded, "failed": worker.failed})
    for line in requests:
        if line.strip():
            _reap()  # between ops: every child left is one zl has ended
            reply(worker.run(json.loads(line)))
    return 0


def main():
    try:
        in_fd, out_fd = (int(x) for x in os.environ["ZL_WORKER_FDS"].split(","))
    except (KeyError, ValueError):
        print("zl_worker: ZL_WORKER_FDS must name the request and reply descriptors (IN,OUT); "
              "zl starts this module itself", file=sys.stderr)
        return 2
    preload = [m for m in os.environ.get("ZL_WORKER_PRELOAD", "").split(",") if m]
    device_module = os.environ.get("ZL_WORKER_DEVICE_MODULE", "")
    for name in ("ZL_WORKER_FDS", "ZL_WORKER_PRELOAD", "ZL_WORKER_DEVICE_MODULE"):
        os.environ.pop(name, None)
    return serve(in_fd, out_fd, preload, device_module)


if __name__ == "__main__":
    sys.exit(main())
