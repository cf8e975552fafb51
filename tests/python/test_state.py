"""What an op leaves behind in the warm worker (python/zl_plugins/zl_state.py): through the real
worker over its pipes, and zl_state's parts in this process."""
import atexit
import gc
import json
import logging
import sys
import threading
import types

import zl_state
import zl_state_items

from . import fakes
from .test_worker import ARGS, Driver, ok, op_dir, op_env

TENSOR = '''
class Tensor:
    """As a real tensor's, == is elementwise and has no truth value: torch.equal compares."""
    def __init__(self, data):
        self.data = data
    def __eq__(self, other):
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    __hash__ = object.__hash__

def equal(a, b):
    return a.data == b.data
'''
TORCH = '''
import os
from torch._tensor import Tensor, equal
from torch import backends, cuda, npu  # noqa: F401 (the real torch imports them too)

ENV_AT_IMPORT = sorted(k for k in os.environ if k.startswith("ZL_WORKER"))
class dtype:
    def __init__(self, name):
        self.name = name
    def __repr__(self):
        return "torch." + self.name
float32, float16 = dtype("float32"), dtype("float16")
_s = {"dtype": float32, "grad": True, "det": (False, False), "precision": "highest",
      "rng": Tensor("default seed")}
def get_default_dtype(): return _s["dtype"]
def set_default_dtype(d): _s["dtype"] = d
def is_grad_enabled(): return _s["grad"]
def set_grad_enabled(mode): _s["grad"] = bool(mode)
def are_deterministic_algorithms_enabled(): return _s["det"][0]
def is_deterministic_algorithms_warn_only_enabled(): return _s["det"][1]
def use_deterministic_algorithms(mode, *, warn_only=False): _s["det"] = (mode, warn_only)
def get_float32_matmul_precision(): return _s["precision"]
def set_float32_matmul_precision(p): _s["precision"] = p
def get_rng_state(): return Tensor(_s["rng"].data)
def set_rng_state(t): _s["rng"] = Tensor(t.data)
def manual_seed(seed): _s["rng"] = Tensor("seed {}".format(seed))
'''  # no get_num_threads: a function this "version" lacks is not watched
MATMUL = """
class _Matmul:  # no allow_bf16_reduced_precision_reduction: not watched
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
matmul = _Matmul()
"""
CUDNN = "enabled, benchmark, deterministic, allow_tf32 = True, False, False, True\n"
DEVICE = '''
from torch._tensor import Tensor
calls = []  # every call but is_initialized's: the worker must not touch a device nobody started
_s = {{"init": {initialized}, "device": 0, "rng": [Tensor("dev0"), Tensor("dev1")]}}
class Stream:
    def __init__(self, ident):
        self.ident = ident
    def __eq__(self, other):
        return isinstance(other, Stream) and other.ident == self.ident
    __hash__ = object.__hash__
    def __repr__(self):
        return "<Stream {{}}>".format(self.ident)
_s["stream"] = _default = Stream(0)
def is_initialized(): return _s["init"]
def _log(fn):
    def logged(*args):
        calls.append(fn.__name__)
        return fn(*args)
    return logged
@_log
def init(): _s["init"] = True
@_log
def current_device(): return _s["device"]
@_log
def set_device(d): _s["device"] = d
@_log
def current_stream(): return _s["stream"]
@_log
def default_stream(): return _default
@_log
def set_stream(s): _s["stream"] = s
@_log
def get_rng_state_all(): return [Tensor(t.data) for t in _s["rng"]]
@_log
def set_rng_state_all(states): _s["rng"] = [Tensor(t.data) for t in states]
@_log
def manual_seed_all(seed): _s["rng"] = [Tensor("seed {{}}".format(seed))] * 2
@_log
def empty_cache(): pass
@_log
def reset_peak_memory_stats(): pass
'''


def fake_torch(root):
    files = {"torch/__init__.py": TORCH, "torch/_tensor.py": TENSOR,
             "torch/backends/__init__.py": "from torch.backends import cuda, cudnn\n",
             "torch/backends/cuda.py": MATMUL, "torch/backends/cudnn.py": CUDNN,
             "torch/cuda.py": DEVICE.format(initialized=True),  # as `import flag_gems` leaves it
             "torch/npu.py": DEVICE.format(initialized=False)}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


CHANGE_TORCH = """
import torch

def test_change():
    torch.set_default_dtype(torch.float16)
    torch.set_grad_enabled(False)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_float32_matmul_precision("high")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(5)
    torch.cuda.set_device(1)
    torch.cuda.set_stream(torch.cuda.Stream(7))
    torch.cuda.manual_seed_all(3)
"""
REPORT_TORCH = """
import json, os, torch

def test_report():
    m, c = torch.backends.cuda.matmul, torch.cuda._s
    state = [repr(torch.get_default_dtype()), torch.is_grad_enabled(),
             torch.are_deterministic_algorithms_enabled(), torch.get_float32_matmul_precision(),
             m.allow_tf32, torch.backends.cudnn.benchmark, torch.get_rng_state().data,
             c["device"], c["stream"].ident, [t.data for t in c["rng"]], torch.ENV_AT_IMPORT]
    cleanups = [n for n in torch.cuda.calls if n in ("empty_cache", "reset_peak_memory_stats")]
    with open(os.environ["OUT_FILE"], "a") as f:
        f.write(json.dumps([state, len(cleanups), torch.npu.calls]) + "\\n")
"""


def test_torch_settings_rng_and_device_state_go_back_to_the_baseline(tmp_path):
    site = fake_torch(tmp_path / "site")
    w = Driver(preload="torch", pythonpath=[site], ZL_WORKER_DEVICE_MODULE="torch.cuda")
    env = op_env(tmp_path, "x")
    assert w.op(ARGS, env, op_dir(tmp_path, "before", REPORT_TORCH)) == ok()
    assert w.op(ARGS, env, op_dir(tmp_path, "change", CHANGE_TORCH)) == {"exit": 0, "restored": [
        "torch: default dtype (torch.float16, baseline torch.float32)",
        "torch: grad mode (False, baseline True)",
        "torch: float32 matmul precision ('high', baseline 'highest')",
        "torch: deterministic algorithms ((True, True), baseline (False, False))",
        "torch: host RNG state",
        "torch.backends.cuda.matmul.allow_tf32 (True, baseline False)",
        "torch.backends.cudnn.benchmark (True, baseline False)",
        "torch.cuda: RNG state of every device",
        "torch.cuda: current device (1, baseline 0)",
        "torch.cuda: current stream (<Stream 7>, baseline 'default')"], "unrestorable": []}
    assert w.op(ARGS, env, op_dir(tmp_path, "after", REPORT_TORCH)) == ok()
    assert w.close()[0] == 0
    (before, cleaned_before, npu_before), (after, cleaned_after, npu_after) = [
        json.loads(line) for line in (tmp_path / "out.txt").read_text().splitlines()]
    assert after == before  # the ZL_WORKER_ variables were gone before the preload, too
    assert before[-1] == [] and (cleaned_before, cleaned_after) == (0, 4)  # 2 per op before
    assert npu_before == npu_after == []  # not the worker's device module: never called


def test_a_device_the_op_initialized_cannot_be_put_back(tmp_path):
    w = Driver(preload="torch", pythonpath=[fake_torch(tmp_path / "site")],
               ZL_WORKER_DEVICE_MODULE="torch.npu")
    env = op_env(tmp_path, "x")
    report = REPORT_TORCH.replace("torch.cuda.calls", "torch.npu.calls")
    assert w.op(ARGS, env, op_dir(tmp_path, "idle", report)) == ok()  # never initialized: untouched
    init = op_dir(tmp_path, "init", "import torch\n\ndef test_init():\n    torch.npu.init()\n")
    assert w.op(ARGS, env, init) == dict(ok(), unrestorable=[
        "torch.npu: initialized by the op, not at the worker's start"])
    assert w.close()[0] == 0
    assert json.loads((tmp_path / "out.txt").read_text())[2] == []


# -- zl_state's parts, in this process

def items_report(taken):
    report = zl_state_items.Report()
    zl_state_items.check(taken, report)
    return report.restored, report.unrestorable


def test_an_item_is_put_back_or_reported_when_it_does_not_take():
    box = {"a": 1, "stuck": 1, "fails": 1}

    def failing():
        if box["fails"] != 1:
            raise RuntimeError("boom")
        return 1

    taken = zl_state_items.take([
        zl_state_items.Item("a", lambda: box["a"], lambda v: box.update(a=v)),
        zl_state_items.Item("stuck", lambda: box["stuck"], lambda v: None),
        zl_state_items.Item("fails", failing, lambda v: None),
        zl_state_items.Item("unreadable", lambda: 1 / 0, lambda v: None),  # unwatched
        None])  # what _call gives for a function this version lacks
    assert [item.label for item, _ in taken] == ["a", "stuck", "fails"]
    box.update(a=2, stuck=2, fails=2)
    assert items_report(taken) == (["a (2, baseline 1)"], [
        "stuck (2, baseline 1): setting it back did not take",
        "fails: check failed (RuntimeError: boom)"])
    assert box["a"] == 1 and items_report(taken)[0] == []


def test_a_part_that_raises_is_reported_and_the_rest_still_restored(monkeypatch):
    state = zl_state.State(roots=())
    limit = sys.getrecursionlimit()
    monkeypatch.setattr(atexit, "_ncallbacks", lambda: 1 / 0)
    sys.setrecursionlimit(limit + 17)
    result = state.restore()
    assert sys.getrecursionlimit() == limit
    assert result["restored"] == ["sys: recursion limit ({}, baseline {})".format(limit + 17,
                                                                                   limit)]
    assert result["unrestorable"] == ["atexit: check failed (ZeroDivisionError: division by zero)"]


def test_sys_and_gc_settings_go_back():
    state = zl_state.State(roots=())
    hook, threshold = sys.excepthook, gc.get_threshold()
    sys.excepthook = lambda *a: None
    gc.set_threshold(1, 2, 3)
    restored = state.restore()["restored"]
    assert sys.excepthook is hook and gc.get_threshold() == threshold
    assert [r.split(" (")[0] for r in restored] == ["sys: excepthook", "gc: thresholds"]


def test_loggers_of_the_baseline_and_new_ones(tmp_path):
    old = logging.getLogger("zl_test.baseline")
    state = zl_state.State(roots=())
    old.disabled, old.propagate = True, False
    new = logging.getLogger("zl_test.new_{}".format(id(tmp_path)))
    handler = logging.FileHandler(tmp_path / "new.log")
    new.addHandler(handler)
    new.setLevel(logging.ERROR)
    assert state.restore()["restored"] == [
        "logging: logger 'zl_test.baseline' propagate (False, baseline True), "
        "disabled (True, baseline False)",
        "logging: logger '{}' (new) handlers (1 added: FileHandler new.log), "
        "level (ERROR, baseline NOTSET)".format(new.name)]
    assert new.level == logging.NOTSET
    assert (old.disabled, old.propagate) == (False, True)
    assert new.handlers == [] and handler.stream is None  # closed
    assert state.restore()["restored"] == []


def test_threads_that_end_in_the_grace_are_not_reported():
    state = zl_state.State(roots=())
    stop = threading.Event()
    threading.Thread(target=stop.wait, args=(0.05,), name="quick").start()
    stuck = threading.Thread(target=stop.wait, args=(30,), name="stuck", daemon=True)
    stuck.start()
    try:
        assert state.restore()["unrestorable"] == [
            "thread 'stuck' still running (target module threading)"]
    finally:
        stop.set()
        stuck.join()


def fake_library(monkeypatch):
    lib = types.ModuleType("zl_fake_lib")
    sub = types.ModuleType("zl_fake_lib.sub")
    lib.sub, lib.flag = sub, False
    exec("def run():\n    return 'run'\nclass Kernel:\n    pass\n", sub.__dict__)
    monkeypatch.setitem(sys.modules, "zl_fake_lib", lib)
    monkeypatch.setitem(sys.modules, "zl_fake_lib.sub", sub)
    return lib, sub


def test_rebound_functions_classes_and_modules_of_watched_roots_are_put_back(monkeypatch):
    lib, sub = fake_library(monkeypatch)
    run, kernel = sub.run, sub.Kernel
    state = zl_state.State(roots={"zl_fake_lib"})
    sub.run, lib.sub, lib.flag, lib.added = len, None, True, len
    del sub.Kernel
    monkeypatch.setattr(json, "dumps", len)  # not a watched root
    assert state.restore()["restored"] == ["monkeypatch: zl_fake_lib.sub",
                                           "monkeypatch: zl_fake_lib.sub.run",
                                           "monkeypatch: zl_fake_lib.sub.Kernel"]
    assert (sub.run, sub.Kernel, lib.sub, lib.flag, lib.added) == (run, kernel, sub, True, len)


def test_a_module_dropped_from_sys_modules_is_put_back(monkeypatch):
    lib, sub = fake_library(monkeypatch)
    state = zl_state.State(roots={"zl_fake_lib"})
    del sys.modules["zl_fake_lib.sub"]
    assert state.restore()["restored"] == ["sys.modules: 'zl_fake_lib.sub' replaced or dropped"]
    assert sys.modules["zl_fake_lib.sub"] is sub


def test_a_device_module_not_imported_or_not_initialized_is_left_alone(monkeypatch):
    assert zl_state.State(roots=(), device_module="zl_no_such.device").restore() == {
        "restored": [], "unrestorable": []}
    torch, iface = fakes.install_torch(monkeypatch)
    calls = []
    iface.is_initialized = lambda: False
    iface.empty_cache = lambda: calls.append("empty_cache")
    iface.get_rng_state_all = lambda: calls.append("get_rng_state_all")
    state = zl_state.State(roots=(), device_module="torch.musa")
    assert state.restore() == {"restored": [], "unrestorable": []} and calls == []


def test_a_torch_lacking_settings_skips_them_and_a_failing_one_is_reported(monkeypatch):
    torch, _ = fakes.install_torch(monkeypatch)  # none of the settings functions
    assert zl_state._take_torch(None) == []
    box = {"dtype": "float32", "grad": True}
    torch.get_default_dtype = lambda: box["dtype"]
    torch.set_default_dtype = lambda d: box.update(dtype=d)
    torch.is_grad_enabled = lambda: box["grad"] if box["grad"] != "broken" else 1 / 0
    torch.set_grad_enabled = lambda mode: box.update(grad=mode)
    state = zl_state.State(roots=())
    box.update(dtype="float16", grad="broken")
    assert state.restore() == {"restored": ["torch: default dtype ('float16', baseline 'float32')"],
                               "unrestorable": ["torch: grad mode: check failed "
                                                "(ZeroDivisionError: division by zero)"]}


def test_torch_imported_by_the_op_is_unrestorable(monkeypatch):
    state = zl_state.State(roots=())
    fakes.install_torch(monkeypatch)
    assert state.restore()["unrestorable"] == [
        "torch: imported by the op, not preloaded: its settings at the worker's start are unknown"]


def test_new_importer_cache_entries_are_dropped_unreported(tmp_path):
    state = zl_state.State(roots=())
    sys.path_importer_cache[str(tmp_path)] = None  # as importing from the op's folder leaves it
    assert state.restore() == {"restored": [], "unrestorable": []}
    assert str(tmp_path) not in sys.path_importer_cache
