"""zl plugin: autotune record and replay (`-p zl_autotune`).

Triton's Autotuner and FlagGems' LibTuner (a subclass) both pick a config per key inside
run(): `if key not in self.cache: <benchmark every pruned config>; self.cache[key] = best`,
then `config = self.cache[key]`. The key is computed by the tuner itself (LibTuner applies its
strategies and appends tensor dtypes), so this plugin never recomputes it: it wraps the
tuner's `cache` (a dict for Triton, LibCache's sqlite-backed ConfigCache for LibTuner) in a
proxy at the start of every run() and watches the key go by.

- record: every key a tuner settles is stored with the config in force (`origin` tuned, or
  cached when the winner came from a cache without benchmarking) and written at the end of the
  session to the plan's records_dir, one JSON file per kernel (zl_autotune_records).
- replay: a key found in the records answers "in cache" with the recorded config (the tuner's
  own Config object, so pre-hooks stay), before the first launch; nothing is benchmarked and
  the tuner's cache is not written. A key that is not there, or whose config is not in the
  tuner's config space, self-tunes under AUTOTUNE_REPLAY_FALLBACK.

_bench calls are counted per key: AUTOTUNE_BENCHMARKED kernel= key= configs= when a key was
tuned, AUTOTUNE_SUMMARY at the end of the session. Triton is imported only when the plan's
autotune mode is record or replay; flag_gems never is (LibTuner is found as a subclass of
Autotuner once the benchmark has imported it).
"""
import time

import pytest

import zl_autotune_records as records
import zl_patch
import zl_plan

_STATE = None


class CacheProxy:
    """Stands in for a tuner's cache; delegates storage to the tuner's own cache.

    Triton's Autotuner consults its cache on every launch, so the per-launch path is two dict
    lookups on the key tuple itself; the JSON key identity is computed once per key."""

    def __init__(self, state, tuner, inner):
        self._zl_state, self._zl_tuner, self._zl_inner = state, tuner, inner
        self._zl_kernel = state.kernel_of(tuner)
        self._zl_replay = state.mode == "replay"
        self._zl_pins = {}  # key -> recorded Config or None (replay)
        self._zl_settled = set()  # keys already recorded
        self._zl_missed = {}  # key id -> (bench_count, time) at the miss
        self.bench_count = 0

    def _zl_pinned(self, key):
        if not self._zl_replay:
            return None
        try:
            return self._zl_pins[key]
        except (KeyError, TypeError):  # TypeError: an unhashable key, looked up every time
            pass
        config = self._zl_state.pinned(self, key)
        try:
            self._zl_pins[key] = config
        except TypeError:
            pass
        return config

    def __contains__(self, key):
        if self._zl_pinned(key) is not None:
            return True
        found = key in self._zl_inner
        if not found:
            self._zl_missed[records.key_id(key)] = (self.bench_count, time.perf_counter())
        return found

    def __getitem__(self, key):
        config = self._zl_pinned(key)
        if config is not None:
            return config
        config = self._zl_inner[key]
        try:
            done = key in self._zl_settled
        except TypeError:
            done = False
        if not done:
            self._zl_state.settled(self, key, config)
            self._zl_remember(key)
        return config

    def __setitem__(self, key, config):
        self._zl_inner[key] = config
        self._zl_state.settled(self, key, config, tuned_now=True)
        self._zl_remember(key)

    def _zl_remember(self, key):
        try:
            self._zl_settled.add(key)
        except TypeError:
            pass

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __len__(self):
        return len(self._zl_inner)

    def __iter__(self):
        return iter(self._zl_inner)

    def __delitem__(self, key):
        del self._zl_inner[key]
        self._zl_settled.discard(key)

    def __getattr__(self, name):  # anything else a tuner asks of its cache
        return getattr(self._zl_inner, name)


class _Kernel:
    def __init__(self, kernel_id, tuner):
        self.id = kernel_id
        self.name = getattr(_base_fn(tuner), "__name__", kernel_id)
        self.tuner = f"{type(tuner).__module__}.{type(tuner).__qualname__}"
        self.keys = [str(k) for k in (getattr(tuner, "keys", None) or ())]
        self.space = len(getattr(tuner, "configs", None) or ())
        self.entries = {}  # key id -> entry


class _State:
    def __init__(self, plan):
        self.plan = plan
        self.mode = plan.autotune.mode
        self.patches = zl_patch.Patcher()
        self.base = None
        self.kernels = {}  # kernel id -> _Kernel
        self.ids = {}  # id(tuner) -> kernel id
        self.replay, self.source = {}, None
        self.pins = {}  # (kernel, key id) -> Config, or None when it cannot be pinned
        self.fallbacks = {}  # (kernel, key id) -> reason
        self.benchmarked = 0
        self.can_count = False  # some class of the tree has _bench: configs can be counted

    # -- hooking -------------------------------------------------------------------------
    def find_base(self):
        try:
            import triton.runtime.autotuner as autotuner
        except Exception as e:  # no triton (the host backend), or one that fails to import
            return f"{type(e).__name__}: {e}"
        base = getattr(autotuner, "Autotuner", None)
        if not isinstance(base, type) or not callable(getattr(base, "run", None)):
            return "triton.runtime.autotuner has no Autotuner class with run()"
        self.base = base
        return None

    def hook_tree(self):
        """Wraps run and _bench of Autotuner and of every subclass that defines its own
        (LibTuner and its policies appear when the benchmark imports flag_gems)."""
        if self.base is None:
            return
        for cls in zl_patch.class_tree(self.base):
            self.can_count = self.can_count or callable(cls.__dict__.get("_bench"))
            self.patches.wrap_own(cls, "run", _wrap_run)
            self.patches.wrap_own(cls, "_bench", _wrap_bench)

    def attach(self, tuner):
        cache = getattr(tuner, "cache", None)
        if cache is None or (isinstance(cache, CacheProxy) and cache._zl_tuner is tuner):
            return
        try:  # the tuner gets its own cache back at unconfigure
            self.patches.patch(tuner, "cache", CacheProxy(self, tuner, cache))
        except AttributeError:  # a read-only cache: this tuner cannot be followed
            zl_plan.marker("AUTOTUNE_HOOK", status="unavailable", kernel=self.kernel_of(tuner),
                           reason="the tuner's cache cannot be replaced")

    def kernel_of(self, tuner):
        kid = self.ids.get(id(tuner))
        if kid is None:
            fn = _base_fn(tuner)
            kid = (f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}"
                   if fn is not None else type(tuner).__qualname__).lstrip(".")
            base, n = kid, 2
            # two tuners of one function with other key names must not share a file
            while kid in self.kernels and self.kernels[kid].keys != \
                    [str(k) for k in (getattr(tuner, "keys", None) or ())]:
                kid, n = f"{base}#{n}", n + 1
            self.ids[id(tuner)] = kid
            self.kernels.setdefault(kid, _Kernel(kid, tuner))
        return kid

    # -- replay ----------------------------------------------------------------------------
    def load(self):
        try:
            self.source, self.replay, _ = records.load_records(self.plan.autotune.source)
        except records.RecordsError as e:
            raise pytest.UsageError(f"zl: --replay-from (plan {self.plan.path}, key "
                                    f"autotune.source): {e}") from e
        zl_plan.marker("AUTOTUNE_REPLAY_LOADED", source=self.source, kernels=len(self.replay),
                       keys=sum(len(t) for t in self.replay.values()))

    def pinned(self, proxy, key):
        """The recorded Config for key (replay), else None; a key that cannot be pinned
        prints its fallback once."""
        if self.mode != "replay":
            return None
        kid, key_id = proxy._zl_kernel, records.key_id(key)
        if (kid, key_id) in self.pins:
            return self.pins[(kid, key_id)]
        entry = self.replay.get(kid, {}).get(key_id)
        config, reason = None, "key_missing"
        if entry is not None:
            config = _find_config(proxy._zl_tuner, entry["config"])
            reason = "config_unknown"
        self.pins[(kid, key_id)] = config
        if config is None:
            self.fallbacks[(kid, key_id)] = reason
            zl_plan.marker("AUTOTUNE_REPLAY_FALLBACK", reason=reason, kernel=kid,
                           key=records.key_text(self.kernels[kid].keys, key),
                           recorded_kernel=kid in self.replay)
        return config

    # -- record ----------------------------------------------------------------------------
    def settled(self, proxy, key, config, tuned_now=False):
        kernel = self.kernels[proxy._zl_kernel]
        key_id = records.key_id(key)
        missed = proxy._zl_missed.pop(key_id, None)
        entry = kernel.entries.get(key_id)
        if entry is not None and not tuned_now:
            return
        configs, seconds = 0, None
        if missed is not None:
            configs = proxy.bench_count - missed[0]
            seconds = round(time.perf_counter() - missed[1], 6)
        if tuned_now and configs:
            self.benchmarked += configs
            zl_plan.marker("AUTOTUNE_BENCHMARKED", kernel=kernel.id,
                           key=records.key_text(kernel.keys, key), configs=configs,
                           seconds=seconds)
        kernel.entries[key_id] = {
            "key": records.jsonable(list(key) if isinstance(key, tuple) else key),
            "fields": records.key_fields(kernel.keys, key),
            "config": records.config_dict(config),
            # without a _bench to count, a key the tuner stored now counts as tuned
            "origin": "tuned" if configs or (tuned_now and not self.can_count) else "cached",
            "configs_benchmarked": configs if self.can_count else None,
            "tune_seconds": seconds,
        }

    def summary(self):
        keys = [e for k in self.kernels.values() for e in k.entries.values()]
        pinned = sum(1 for c in self.pins.values() if c is not None)
        return {"mode": self.mode, "hooked": self.base is not None,
                "kernels": sum(1 for k in self.kernels.values() if k.entries),
                "keys": len(keys), "tuned": sum(e["origin"] == "tuned" for e in keys),
                "cached": sum(e["origin"] == "cached" for e in keys), "pinned": pinned,
                "fallbacks": len(self.fallbacks), "configs_benchmarked": self.benchmarked}

    def write(self, summary):
        plan = self.plan
        docs = {}
        for kernel in self.kernels.values():
            if kernel.entries:
                docs[kernel.id] = {"schema": records.SCHEMA, "kernel": kernel.id,
                                   "name": kernel.name, "tuner": kernel.tuner,
                                   "key_fields": kernel.keys, "configs_in_space": kernel.space,
                                   "entries": list(kernel.entries.values())}
        raw = plan.raw
        manifest = {"kind": "zl-autotune-records", "op": plan.op, "backend": plan.backend.name,
                    "device": raw.get("device"), "run_dir": raw.get("run_dir"),
                    "tuner_cache": (raw.get("tuner_cache") or {}).get("mode"),
                    "triton": _triton_version(), "summary": summary}
        return records.write_records(plan.autotune.records_dir, docs, manifest)


def _base_fn(tuner):
    fn = getattr(tuner, "base_fn", None) or getattr(tuner, "fn", None)
    for _ in range(16):  # Heuristics and JITFunction wrap one another through .fn
        if fn is None or not hasattr(fn, "fn") or getattr(fn, "__code__", None) is not None:
            break
        fn = fn.fn
    return fn


def _find_config(tuner, recorded):
    for config in getattr(tuner, "configs", None) or ():
        if records.same_config(config, recorded):
            return config
    return None


def _triton_version():
    import sys

    module = sys.modules.get("triton")
    return getattr(module, "__version__", None) if module is not None else None


def _wrap_run(original):
    @zl_patch.wraps(original)
    def run(self, *args, **kwargs):
        if _STATE is not None:
            _STATE.attach(self)
        return original(self, *args, **kwargs)

    return run


def _wrap_bench(original):
    @zl_patch.wraps(original)
    def _bench(self, *args, **kwargs):
        cache = getattr(self, "cache", None)
        if isinstance(cache, CacheProxy):
            cache.bench_count += 1
        return original(self, *args, **kwargs)

    return _bench


def pytest_configure(config):
    global _STATE
    plan = zl_plan.plan_for(config)
    _STATE = None
    if plan is None or plan.autotune.mode == "off":
        return
    state = _STATE = _State(plan)  # set first: unconfigure restores what a failure left patched
    if state.mode == "replay":
        state.load()
    reason = state.find_base()
    zl_plan.marker("AUTOTUNE_HOOK", mode=state.mode, status="unavailable" if reason else "hooked",
                   reason=reason)
    state.hook_tree()


def pytest_unconfigure(config):
    global _STATE
    _STATE = zl_patch.unconfigure(config, _STATE)


def pytest_collection_finish(session):
    if _STATE is not None:
        _STATE.hook_tree()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if _STATE is not None:
        _STATE.hook_tree()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    state = _STATE
    if state is None:
        return
    summary = state.summary()
    where = None
    if state.mode == "record":
        try:
            where = state.write(summary)
        except OSError as e:
            zl_plan.marker("AUTOTUNE_RECORD_WRITE_FAILED", dir=state.plan.autotune.records_dir,
                           reason=e.strerror or str(e))
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
    zl_plan.marker("AUTOTUNE_SUMMARY", **summary, records_dir=where,
                   source=state.source if state.mode == "replay" else None)
