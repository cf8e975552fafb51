"""The interpreter-wide state an op may leave behind in zl's warm worker, beyond what zl_worker
resets itself (environment, folder, sys.path, sys.argv, the modules the op imported).

`State(roots, device_module)` reads it once, right after the preload: the state a fresh
`python -m pytest` starts from. `restore()`, after each op, puts back what it can and names it
in "restored"; what cannot be undone (a thread still running, an atexit callback, a device the
op initialized) goes to "unrestorable", and zl ends the worker. A check that raises is reported
unrestorable, never fatal; a setting whose baseline cannot be read (a function this torch
lacks) is not watched. Done after every op, unreported as no op's doing: new
sys.path_importer_cache entries are dropped (each op adds its folder's), and the device module's
empty_cache() and reset_peak_memory_stats() run, so neither cached blocks nor peaks carry over.
"""
import atexit
import contextlib
import faulthandler
import functools
import gc
import locale
import logging
import os
import signal
import sys
import threading
import time
import types
import warnings

import zl_state_items as state_items

THREAD_GRACE_S = 0.5  # how long the threads an op started get to end, all of them together
MAX_REBOUND = 10  # rebound attributes named one by one; more are counted
_FATAL = {signal.SIGSEGV, signal.SIGFPE, signal.SIGABRT, signal.SIGBUS, signal.SIGILL}
# A module's own namespace: a lazy module's __dict__ property (apipkg's) imports what it names
_namespace = types.ModuleType.__dict__["__dict__"].__get__
# handlers, level, propagate, disabled, filters of a logger as getLogger makes it
_FRESH_LOGGER = ([], logging.NOTSET, True, False, [])

class State:
    def __init__(self, roots, device_module="", flag_roots=()):
        self.roots = frozenset(roots)  # top-level packages whose module attributes are watched
        # the preloaded libraries (torch, flag_gems, ZL_WARM_PRELOAD's): their public plain
        # values too (the standard library's and pytest's are caches: tempfile.tempdir)
        self.flag_roots = frozenset(flag_roots)
        self.device_module = device_module
        self.base = {}
        for name, take, _ in _SECTIONS:
            with contextlib.suppress(Exception):  # a part this Python cannot read: unwatched
                self.base[name] = take(self)

    def restore(self):
        """Back to the baseline; {"restored": [...], "unrestorable": [...]}."""
        report = state_items.Report()
        for name, _, check in _SECTIONS:
            if name in self.base:
                try:
                    check(self, self.base[name], report)
                except Exception as e:
                    report.failed(name, e)
        return {"restored": report.restored, "unrestorable": report.unrestorable}


# -- logging: FlagGems opens its record log with basicConfig, which a configured root ignores

def _loggers():
    found = {"": logging.root}
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):  # not a PlaceHolder
            found[name] = logger
    return found


def _logger_state(logger):
    return (list(logger.handlers), logger.level, logger.propagate, logger.disabled,
            list(logger.filters))


def _handler_name(handler):
    path = getattr(handler, "baseFilename", None)
    return type(handler).__name__ + (" " + os.path.basename(path) if path else "")


def _logger_changes(now, then):
    changes = []
    for i, what in enumerate(("handlers", "level", "propagate", "disabled", "filters")):
        if isinstance(now[i], list) and now[i] != then[i]:
            changes.append("{} ({})".format(what, state_items.diff(now[i], then[i], _handler_name)))
        elif now[i] != then[i]:
            show = logging.getLevelName if what == "level" else str
            changes.append("{} ({}, baseline {})".format(what, show(now[i]), show(then[i])))
    return changes


def _check_logging(state, base, report):
    kept = {id(h) for then in base.values() for h in then[0]}
    for name, logger in _loggers().items():
        then = base.get(name, _FRESH_LOGGER)  # a logger the op created: as getLogger makes it
        now = _logger_state(logger)
        if now == then:
            continue
        for handler in now[0]:
            if id(handler) not in kept:  # the op's: its file is closed, not left open
                handler.close()
        logger.handlers[:] = then[0]
        logger.setLevel(then[1])  # through setLevel: it clears the loggers' level caches
        logger.propagate, logger.disabled = then[2], then[3]
        logger.filters[:] = then[4]
        who = "root" if not name else "logger '{}'{}".format(name, "" if name in base else " (new)")
        report.restored.append("logging: {} {}".format(who, ", ".join(_logger_changes(now, then))))


# -- warnings and signals (SIGINT is the worker's own: Worker.run sets it around each op)

def _filter_name(f):
    pattern = getattr(f[1], "pattern", None)
    return "{} {}{}".format(f[0], getattr(f[2], "__name__", f[2]),
                            " '{}'".format(pattern) if pattern else "")


def _set_filters(value):
    warnings.filters[:] = value
    if hasattr(warnings, "_filters_mutated"):  # drops the cached "once"/"default" decisions
        warnings._filters_mutated()
    elif hasattr(warnings, "_filters_mutated_lock_held"):  # Python 3.14
        with getattr(warnings, "_lock", None) or contextlib.nullcontext():
            warnings._filters_mutated_lock_held()


def _signal_name(sig):
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "signal {}".format(sig)


def _check_signals(state, base, report):
    fatal = False
    for sig, then in base.items():
        now = signal.getsignal(sig)
        if now == then:
            continue
        if then is None:  # installed by C code: Python cannot name it, so cannot put it back
            report.unrestorable.append("{}: handler replaced ({}); the one before was not set "
                                       "from Python".format(_signal_name(sig), state_items.short(now)))
            continue
        signal.signal(sig, then)
        fatal = fatal or sig in _FATAL
        report.restored.append("{}: handler ({}, baseline {})".format(
            _signal_name(sig), state_items.short(now), state_items.short(then)))
    if fatal and faulthandler.is_enabled():  # its handlers sit below Python's: install them again
        faulthandler.disable()
        faulthandler.enable()


# -- settings of sys, gc, os, locale, socket and friends

def _umask():
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _settings(state):
    items = [state_items.attr(sys, name, "sys: " + name) for name in (
        "excepthook", "displayhook", "unraisablehook", "breakpointhook", "stdin", "stdout",
        "stderr", "dont_write_bytecode")]
    items += [state_items.attr(threading, "excepthook", "threading: excepthook"),
              state_items.attr(warnings, "showwarning", "warnings: showwarning"),
              state_items.attr(warnings, "formatwarning", "warnings: formatwarning"),
              state_items.attr(logging, "raiseExceptions", "logging: raiseExceptions")]
    return state_items.take(items + [
        state_items.Item("warnings: filters", lambda: list(warnings.filters), _set_filters,
                         show=_filter_name),
        state_items.Item("sys: meta_path", lambda: list(sys.meta_path),
             lambda v: sys.meta_path.__setitem__(slice(None), v)),
        state_items.Item("sys: path_hooks", lambda: list(sys.path_hooks),
             lambda v: sys.path_hooks.__setitem__(slice(None), v)),
        state_items.Item("sys: recursion limit", sys.getrecursionlimit, sys.setrecursionlimit),
        state_items.Item("sys: switch interval", sys.getswitchinterval, sys.setswitchinterval),
        state_items.Item("sys: trace function", sys.gettrace, sys.settrace),
        state_items.Item("sys: profile function", sys.getprofile, sys.setprofile),
        state_items.call(sys, "sys: int max str digits", "get_int_max_str_digits", "set_int_max_str_digits"),
        state_items.call(threading, "threading: trace function", "gettrace", "settrace"),
        state_items.call(threading, "threading: profile function", "getprofile", "setprofile"),
        state_items.Item("gc: enabled", gc.isenabled, lambda on: gc.enable() if on else gc.disable()),
        state_items.Item("gc: thresholds", gc.get_threshold, lambda v: gc.set_threshold(*v)),
        state_items.Item("umask", _umask, os.umask, show=oct),
        state_items.Item("signal: blocked signals", lambda: signal.pthread_sigmask(signal.SIG_BLOCK, []),
             lambda v: signal.pthread_sigmask(signal.SIG_SETMASK, v)),
        state_items.Item("logging: disable level", lambda: logging.root.manager.disable, logging.disable),
        state_items.Item("locale", lambda: locale.setlocale(locale.LC_ALL),
             lambda v: locale.setlocale(locale.LC_ALL, v)),
        # tzset() reads TZ, which the worker has put back before this runs
        state_items.Item("time zone", lambda: (time.tzname, time.timezone, time.altzone, time.daylight),
             lambda v: time.tzset()),
        # only where the op or the preload imported socket; None is a fresh process's default
        state_items.Item("socket: default timeout", lambda: getattr(sys.modules.get("socket"),
                                                        "getdefaulttimeout", lambda: None)(),
             lambda v: sys.modules["socket"].setdefaulttimeout(v)),
    ])


def _check_importer_cache(state, base, report):
    for key in [k for k in sys.path_importer_cache if k not in base]:
        del sys.path_importer_cache[key]


# -- what cannot be undone: threads and atexit callbacks

def _target_module(thread):
    target = getattr(thread, "_target", None)
    target = getattr(target, "func", target)  # a functools.partial's function
    module = getattr(target, "__module__", None) if target is not None else None
    if module is None and type(thread).run is not threading.Thread.run:
        module = type(thread).__module__
    return " (target module {})".format(module) if module else ""


def _check_threads(state, base, report):
    new = [t for t in threading.enumerate() if t not in base]
    deadline = time.monotonic() + THREAD_GRACE_S
    for thread in new:
        with contextlib.suppress(Exception):  # a dummy thread (started by C code) cannot be joined
            thread.join(max(0.0, deadline - time.monotonic()))
    for thread in new:
        if thread.is_alive():
            report.unrestorable.append("thread '{}' still running{}".format(
                thread.name, _target_module(thread)))


# atexit cannot list its callbacks, so the worker's register is wrapped to name them.
_REGISTERED = []


def _named_register(register):
    def named(func, *args, **kwargs):
        _REGISTERED.append("{}.{}".format(getattr(func, "__module__", None) or "?",
                                          getattr(func, "__qualname__", type(func).__name__)))
        return register(func, *args, **kwargs)
    return named


def _take_atexit(state):
    if not hasattr(atexit.register, "__wrapped__"):
        atexit.register = functools.wraps(atexit.register)(_named_register(atexit.register))
    del _REGISTERED[:]
    return atexit._ncallbacks()


def _check_atexit(state, base, report):
    count = atexit._ncallbacks() - base  # nor unregistered: the process's exit runs them
    names = " ({})".format(", ".join(_REGISTERED)) if count > 0 and _REGISTERED else ""
    del _REGISTERED[:]
    if count:
        report.unrestorable.append("atexit: {} callback{} {}registered{}".format(
            abs(count), "" if abs(count) == 1 else "s", "" if count > 0 else "un", names))


# -- torch and its device module; never imported, nor a device initialized, from here

def _same_state(a, b):
    """RNG states: tensors (torch.equal), or lists of them (one per device)."""
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b))
    torch = sys.modules.get("torch")
    tensor = getattr(torch, "Tensor", ())  # () matches nothing
    return bool(torch.equal(a, b)) if isinstance(a, tensor) else state_items.same(a, b)


def _deterministic(torch, value=None):
    """(enabled, warn_only) read, or set when value is given; warn_only came in torch 1.11."""
    warn_only = getattr(torch, "is_deterministic_algorithms_warn_only_enabled", None)
    if value is None:
        return torch.are_deterministic_algorithms_enabled(), bool(warn_only and warn_only())
    torch.use_deterministic_algorithms(value[0], **({"warn_only": value[1]} if warn_only else {}))


_TORCH_FLAGS = (  # module, object in it ("": the module), flags
    ("torch.backends.cuda", "matmul", ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                                       "allow_bf16_reduced_precision_reduction")),
    ("torch.backends.cudnn", "", ("enabled", "benchmark", "deterministic", "allow_tf32")))


def _torch_items(torch):
    items = [state_items.call(torch, "torch: default dtype", "get_default_dtype", "set_default_dtype"),
             state_items.call(torch, "torch: grad mode", "is_grad_enabled", "set_grad_enabled"),
             state_items.call(torch, "torch: float32 matmul precision", "get_float32_matmul_precision",
                   "set_float32_matmul_precision"),
             state_items.call(torch, "torch: intra-op threads", "get_num_threads", "set_num_threads"),
             state_items.Item("torch: deterministic algorithms", functools.partial(_deterministic, torch),
                  functools.partial(_deterministic, torch)),
             state_items.call(torch, "torch: host RNG state", "get_rng_state", "set_rng_state",
                   same=_same_state, show=False)]
    for module, holder, names in _TORCH_FLAGS:
        obj = sys.modules.get(module)  # from sys.modules: getattr on torch may import lazily
        obj = getattr(obj, holder, None) if holder else obj
        path = module + ("." + holder if holder else "")
        items += [state_items.attr(obj, name, path + "." + name) for name in names if hasattr(obj, name)]
    return items


def _take_torch(state):
    torch = sys.modules.get("torch")
    with warnings.catch_warnings():  # a deprecated flag's warning is not the op's output
        warnings.simplefilter("ignore")
        return None if torch is None else state_items.take(_torch_items(torch))


def _check_torch(state, base, report):
    if base is None and "torch" in sys.modules:
        report.unrestorable.append("torch: imported by the op, not preloaded: its settings at "
                                   "the worker's start are unknown")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state_items.check(base or [], report)


def _device(state):
    """The device module when it is imported and initialized, else None."""
    dev = sys.modules.get(state.device_module) if state.device_module else None
    initialized = getattr(dev, "is_initialized", None)
    return dev if initialized is not None and initialized() else None


def _stream(dev, value=None):
    """The current stream ("default" for the default one) read, or set when value is given."""
    if value is None:
        current = dev.current_stream()
        return "default" if current == dev.default_stream() else current
    dev.set_stream(dev.default_stream() if isinstance(value, str) else value)


def _take_device(state):
    dev, name = _device(state), state.device_module
    streams = all(hasattr(dev, f) for f in ("current_stream", "default_stream", "set_stream"))
    return None if dev is None else state_items.take([
        state_items.call(dev, name + ": RNG state of every device", "get_rng_state_all", "set_rng_state_all",
              same=_same_state, show=False),
        state_items.call(dev, name + ": current device", "current_device", "set_device"),  # before the stream
        state_items.Item(name + ": current stream", functools.partial(_stream, dev),
             functools.partial(_stream, dev)) if streams else None])


def _check_device(state, base, report):
    dev = _device(state)
    if dev is not None and base is None:
        report.unrestorable.append(state.device_module + ": initialized by the op, not at the "
                                   "worker's start")
    state_items.check(base or [], report)
    for name in ("empty_cache", "reset_peak_memory_stats") if dev is not None else ():
        try:
            getattr(dev, name, lambda: None)()
        except Exception as e:
            report.failed("{}.{}".format(state.device_module, name), e)


# -- monkeypatches and global flags: a function, class, method or module of a preloaded library
# rebound, or one of its public plain values (ALLOW_TF32 = True) set

_SCALARS = (bool, int, float, str, type(None))


def _watched(key, value, flags):
    # Private plain values are a library's own bookkeeping (_initialized): left alone.
    return isinstance(value, state_items.KINDS) or (flags and type(value) in _SCALARS
                                                    and not key.startswith("_"))


def _unchanged(then, value):
    if value is then:
        return True
    return type(then) in _SCALARS and type(value) is type(then) and value == then


def _take_modules(state):
    bindings = []
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in state.roots and isinstance(module, types.ModuleType):
            flags = name.partition(".")[0] in state.flag_roots
            pairs = [(k, v) for k, v in list(_namespace(module).items()) if _watched(k, v, flags)]
            if pairs:
                bindings.append((name, module) + tuple(zip(*pairs)))  # name, module, keys, values
    return dict(sys.modules), bindings


def _check_modules(state, base, report):
    entries, bindings = base
    for name, module in entries.items():
        if sys.modules.get(name) is not module:
            sys.modules[name] = module
            report.restored.append("sys.modules: '{}' replaced or dropped".format(name))
    rebound = []
    for name, module, keys, values in bindings:
        now = tuple(map(_namespace(module).get, keys))  # one pass in C: mostly, nothing changed
        with contextlib.suppress(Exception):
            if now == values:
                continue
        for key, then, value in zip(keys, values, now):
            if not _unchanged(then, value):
                patched = isinstance(then, state_items.KINDS)
                what = ("monkeypatch: {}.{}" if patched else "global: {}.{}").format(name, key)
                try:
                    setattr(module, key, then)
                    rebound.append(what if patched else
                                   "{} ({!r}, baseline {!r})".format(what, value, then)[:200])
                except Exception as e:
                    report.failed(what, e)
    report.restored += rebound[:MAX_REBOUND]
    if len(rebound) > MAX_REBOUND:
        report.restored.append("monkeypatch: {} more attributes".format(len(rebound) - MAX_REBOUND))


# Checked in this order: settings before the module scan, so a hook put back by its own item
# (sys.excepthook) is not reported again as a rebound attribute of sys.
_SECTIONS = (
    ("logging", lambda state: {n: _logger_state(g) for n, g in _loggers().items()}, _check_logging),
    ("signals", lambda state: {sig: signal.getsignal(sig) for sig in signal.valid_signals()
                               - {signal.SIGKILL, signal.SIGSTOP}}, _check_signals),
    ("settings", _settings, lambda state, base, report: state_items.check(base, report)),
    ("importer cache", lambda state: dict(sys.path_importer_cache), _check_importer_cache),
    ("threads", lambda state: set(threading.enumerate()), _check_threads),
    ("atexit", _take_atexit, _check_atexit),
    ("torch", _take_torch, _check_torch),
    ("device", _take_device, _check_device),
    ("modules", _take_modules, _check_modules),
)
