"""Helpers for the tests: plan dictionaries and marker-line parsing."""
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLUGIN_DIRS = [ROOT / "python" / "zl_plugins"]
CORPUS = ROOT / "corpus"
PYTHON = "/usr/bin/python3"


def plugin_env(**extra):
    """The environment for a pytest subprocess that loads zl's plugins (as zl sets it up)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ZL_", "FLAGGEMS_PERF", "PYTEST_"))}
    paths = [str(d) for d in PLUGIN_DIRS]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(extra)
    return env


def plan_dict(**overrides):
    """A valid plan (cpu backend, timer direct); keyword arguments replace top-level keys,
    and `backend`/`capture` dicts are merged into the defaults."""
    plan = {
        "schema": 1,
        "zl_version": "0.1.0",
        "run_dir": "/tmp/run",
        "backend": {"name": "cpu", "module": "/x/libzl_backend_cpu.so", "abi": "1.0",
                    "version": "0.1.0", "flaggems_vendor": "cpu", "torch_module": "",
                    "torch_device": "cpu", "graph_class": "", "capabilities": [],
                    "visibility_var": ""},
        "device": {"index": 0, "uuid": "host", "name": "host", "visibility_id": ""},
        "op": "abs", "node": "benchmark/test_abs.py", "marker": "abs",
        "level": "core", "mode": "kernel", "dtypes": ["float32"],
        "timer": "direct", "timer_requested": "auto",
        "capture": {"refused": [], "device_fault": [], "poisoned": [], "deny_ops": []},
        "compat_rules": [],
        "plugins": ["zl_device_setup", "zl_timing", "zl_identity"],
        "shape_file": None,
        "autotune": {"mode": "off", "source": None},
        "tuner_cache": {"mode": "shared", "path": "/root/.flaggems", "entries_before": 0},
        "versions_file": None,
    }
    for key in ("backend", "capture"):
        if key in overrides:
            plan[key] = dict(plan[key], **overrides.pop(key))
    plan.update(overrides)
    return plan


MUSA_BACKEND = {"name": "musa", "flaggems_vendor": "mthreads", "torch_module": "torch.musa",
                "torch_device": "musa", "graph_class": "MUSAGraph",
                "capabilities": ["graph_capture"]}
CUDA_BACKEND = {"name": "cuda", "flaggems_vendor": "nvidia", "torch_module": "torch.cuda",
                "torch_device": "cuda", "graph_class": "CUDAGraph",
                "capabilities": ["graph_capture", "profiler_timer"]}


def marker_lines(outlines, name):
    return [line for line in outlines if line.startswith(name + " ") or line == name]


def parse_marker(line):
    """Splits a marker line into (name, fields): bare values, or JSON string literals."""
    name, _, rest = line.partition(" ")
    fields = {}
    decoder = json.JSONDecoder()
    i = 0
    while i < len(rest):
        key_end = rest.index("=", i)
        key = rest[i:key_end]
        i = key_end + 1
        if rest.startswith('"', i):
            value, i = decoder.raw_decode(rest, i)
        else:
            end = rest.find(" ", i)
            end = len(rest) if end < 0 else end
            value, i = rest[i:end], end
        fields[key] = value
        while i < len(rest) and rest[i] == " ":
            i += 1
    return name, fields
