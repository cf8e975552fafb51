"""zl_patch: the Patcher and the subclass walk, and two pytest sessions in one process (as a
warm worker runs them) with nothing of the first left patched in the second."""
import json
import shutil
import sys
import types

import pytest

import zl_patch

from .fakes import install_torch
from .zl_testlib import CORPUS, CUDA_BACKEND, ROOT

TUNED = ROOT / "tests" / "fixtures" / "tuned_corpus"


class Base:
    def method(self):
        return "base"


def test_patch_and_restore_last_first():
    module = types.ModuleType("owner")
    module.f = original = lambda: "original"
    patches = zl_patch.Patcher()
    patches.patch(module, "f", lambda: "first")
    patches.patch(module, "f", lambda: "second")
    assert module.f() == "second" and patches.count == 2
    patches.restore()
    assert module.f is original and patches.count == 0
    patches.restore()  # a second restore has nothing left to do
    assert module.f is original


def test_restore_removes_what_the_owner_did_not_hold():
    class Derived(Base):
        pass

    patches = zl_patch.Patcher()
    patches.patch(Derived, "method", lambda self: "patched")
    patches.patch(Derived, "added", 1)
    assert Derived().method() == "patched"
    patches.restore()
    assert "method" not in vars(Derived) and not hasattr(Derived, "added")
    assert Derived().method() == "base"  # inherited again, not a copy of the base's


def test_a_refused_setattr_is_not_recorded():
    class ReadOnly:
        @property
        def cache(self):
            return {}

    patches = zl_patch.Patcher()
    with pytest.raises(AttributeError):
        patches.patch(ReadOnly(), "cache", {"proxy": True})
    assert patches.count == 0


def test_wrap_own_wraps_once_and_only_where_defined():
    class Derived(Base):
        def own(self):
            return "own"

    def wrap(original):
        @zl_patch.wraps(original)
        def wrapper(self):
            return "wrapped " + original(self)

        return wrapper

    patches = zl_patch.Patcher()
    for cls in (Derived, Base):
        for name in ("method", "own", "missing"):
            patches.wrap_own(cls, name, wrap)
    patches.wrap_own(Base, "method", wrap)  # already wrapped: left as it is
    assert Derived().method() == "wrapped base" and Derived().own() == "wrapped own"
    assert "method" not in vars(Derived) and patches.count == 2
    assert zl_patch.is_wrapped(Base.method) and Base.method.__name__ == "method"
    patches.wrap_own(Derived, "own", wrap, accept=lambda m: False)
    assert patches.count == 2
    patches.restore()
    assert not zl_patch.is_wrapped(Base.method) and Derived().own() == "own"


def test_class_tree_lists_each_subclass_once():
    class Root:
        pass

    class A(Root):
        pass

    class B(Root):
        pass

    class C(A, B):  # reached through A and through B
        pass

    tree = zl_patch.class_tree(Root)
    assert tree[0] is Root and sorted(c.__name__ for c in tree) == ["A", "B", "C", "Root"]

    class Late(C):  # a class defined later is found by the next walk
        pass

    assert Late in zl_patch.class_tree(Root) and len(zl_patch.class_tree(Root)) == 5


def test_unconfigure_restores_the_state_and_forgets_it():
    module = types.ModuleType("owner")
    module.f = original = object()
    state = types.SimpleNamespace(patches=zl_patch.Patcher())
    state.patches.patch(module, "f", object())
    assert zl_patch.unconfigure(object(), state) is None
    assert module.f is original
    assert zl_patch.unconfigure(object(), None) is None


# -- two sessions in one process ------------------------------------------------------------

GUARDED = """
import pytest


@pytest.mark.skipif(True, reason="CUDA is not available")
def test_guarded():
    pass


class TestGuarded:
    pytestmark = [pytest.mark.skipif(True, reason="CUDA is not available")]

    def test_method(self):
        pass
"""

RULE = {"file": "benchmark/test_guarded.py", "skip_reason": "CUDA is not available",
        "vendor": "nvidia", "action": "drop", "why": "dispatches through flag_gems.device"}


@pytest.fixture
def one_process(tmp_path, monkeypatch, write_plan):
    """The tuned corpus (a FlagGems-like base, Triton's Autotuner and FlagGems' LibTuner as
    fakes) plus a guarded test file; session(n, **plan) runs pytest.main in this process with
    the plan and returns (exit code, the records folder). Modules the sessions import stay
    loaded between them, as in a warm worker, and are unloaded at the end."""
    root = tmp_path / "flaggems"
    bench = root / "benchmark"
    bench.mkdir(parents=True)
    for name in ("__init__", "base", "conftest", "consts", "host_ops", "timing"):
        shutil.copy(CORPUS / "benchmark" / f"{name}.py", bench)
    for path in (TUNED / "benchmark").iterdir():
        shutil.copy(path, bench)
    shutil.copy(TUNED / "pytest.ini", root)
    (bench / "test_guarded.py").write_text(GUARDED)
    install_torch(monkeypatch, device="cuda", graph_class="CUDAGraph")
    monkeypatch.syspath_prepend(str(TUNED / "pylib"))
    monkeypatch.delenv("GEMS_VENDOR", raising=False)
    monkeypatch.delenv("FLAGGEMS_CACHE_DIR", raising=False)
    monkeypatch.chdir(root)
    modules, path = dict(sys.modules), list(sys.path)

    def session(n, plugins, **plan):
        records = tmp_path / f"rec{n}" / "autotune_records"
        write_plan(backend=CUDA_BACKEND, timer="profiler", timer_requested="profiler",
                   autotune={"mode": "record", "source": None, "records_dir": str(records)},
                   **plan)
        args = ["benchmark/test_tuned.py", "benchmark/test_guarded.py", "-q", "-s",
                "-p", "no:cacheprovider", "--level", "core", "--dtypes", "float16",
                "--warmup", "1", "--iter", "2"]
        for plugin in plugins:
            args += ["-p", plugin]
        outcomes = Outcomes()
        assert pytest.main(args, plugins=[outcomes]) == pytest.ExitCode.OK
        return outcomes.by_node, records

    yield session
    for name in [n for n in sys.modules if n not in modules]:
        del sys.modules[name]
    sys.modules.update(modules)
    sys.path[:] = path


class Outcomes:
    def __init__(self):
        self.by_node = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            self.by_node[report.nodeid] = report.outcome


def left_patched():
    """What zl left in the modules the session loaded: wrappers, cache proxies, changed marks."""
    import zl_autotune

    found = []
    for name, module in list(sys.modules.items()):
        if not name.startswith(("benchmark", "triton", "flag_gems")):
            continue
        for key, value in vars(module).items():
            own_class = isinstance(value, type) and value.__module__ == name
            attrs = vars(value).items() if own_class else [(key, value)]
            found += [f"{name}.{key}.{a}" for a, v in attrs if zl_patch.is_wrapped(v)]
            if isinstance(getattr(value, "cache", None), zl_autotune.CacheProxy):
                found.append(f"{name}.{key}.cache")
    guarded = sys.modules.get("benchmark.test_guarded")
    if guarded is not None and not (guarded.test_guarded.pytestmark
                                    and guarded.TestGuarded.pytestmark):
        found.append("benchmark.test_guarded pytestmark")
    return found


def test_a_second_session_in_the_process_starts_clean(one_process):
    torch = sys.modules["torch"]
    guarded = {"benchmark/test_guarded.py::test_guarded",
               "benchmark/test_guarded.py::TestGuarded::test_method"}
    outcomes, records = one_process(1, ("zl_compat", "zl_timing", "zl_autotune"),
                                    compat_rules=[RULE])
    assert {outcomes[n] for n in guarded} == {"passed"}  # the rule dropped both guards
    assert left_patched() == []
    first = len(torch.profiler.sessions)
    manifest = json.loads((records / "manifest.json").read_text())
    assert first > 0 and manifest["summary"]["keys"] == 8

    # The modules stay loaded; without the compat rule the guard skips again, and the timer
    # and the autotune proxies work for the second session's own state.
    outcomes, records = one_process(2, ("zl_timing", "zl_autotune"))
    assert {outcomes[n] for n in guarded} == {"skipped"}
    assert left_patched() == []
    assert len(torch.profiler.sessions) > first
    summary = json.loads((records / "manifest.json").read_text())["summary"]
    assert summary["keys"] == 8 and summary["cached"] == 8  # the tuners' caches kept them
    assert sys.modules["benchmark.test_guarded"].test_guarded.pytestmark[0].kwargs == {
        "reason": "CUDA is not available"}
