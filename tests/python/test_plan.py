"""zl_plan: loading and validating plan.json, FLAGGEMS_PERF_CURRENT_OP keys, marker lines."""
import json

import pytest

import zl_plan
from .zl_testlib import parse_marker, plan_dict


def load(tmp_path, data, text=None):
    path = tmp_path / "plan.json"
    path.write_text(text if text is not None else json.dumps(data), encoding="utf-8")
    return zl_plan.load_plan({"ZL_PLAN": str(path)}), path


def test_unset_plan_means_inactive():
    assert zl_plan.load_plan({}) is None
    assert zl_plan.load_plan({"ZL_PLAN": ""}) is None


def test_valid_plan_is_read(tmp_path):
    plan, path = load(tmp_path, plan_dict(
        timer="graph", backend={"torch_module": "torch.musa", "graph_class": "MUSAGraph"},
        capture={"refused": ["not permitted"], "deny_ops": ["unique2"]},
        compat_rules=[{"file": "benchmark/test_fft.py", "skip_reason": "CUDA is not available",
                       "vendor": "mthreads", "action": "drop", "why": "dispatches"}]))
    assert plan.path == str(path)
    assert plan.timer == "graph" and plan.timer_requested == "auto"
    assert plan.backend.torch_module == "torch.musa"
    assert plan.capture.refused == ("not permitted",)
    assert plan.capture.deny_ops == ("unique2",)
    assert plan.compat_rules[0].vendor == "mthreads"
    assert plan.compat_rules[0].action == "drop"
    assert plan.versions_file is None and plan.flaggems_dir is None


def test_unknown_keys_are_ignored(tmp_path):
    plan, _ = load(tmp_path, plan_dict(something_new={"a": 1}))
    assert plan.raw["something_new"] == {"a": 1}


@pytest.mark.parametrize("mutate, key, problem", [
    (lambda p: p.pop("timer"), "timer", "is missing"),
    (lambda p: p["backend"].pop("torch_module"), "backend.torch_module", "is missing"),
    (lambda p: p["capture"].update(refused="x"), "capture.refused", "must be a list"),
    (lambda p: p["capture"].update(deny_ops=[1]), "capture.deny_ops[0]", "must be a string"),
    (lambda p: p.update(timer="auto"), "timer", "must be one of graph, direct, profiler"),
    (lambda p: p.update(mode="fast"), "mode", "must be one of kernel"),
    (lambda p: p.update(schema=2), "schema", "is 2; these plugins read schema 1"),
    (lambda p: p.update(schema=True), "schema", "must be an integer"),
    (lambda p: p.update(compat_rules=[{"file": "f", "skip_reason": "r", "vendor": "v",
                                       "action": "remove"}]),
     "compat_rules[0].action", "must be one of drop, keep"),
    (lambda p: p.update(compat_rules=[{"file": "f", "vendor": "v", "action": "drop"}]),
     "compat_rules[0].skip_reason", "is missing"),
    (lambda p: p.update(versions_file=3), "versions_file", "must be a string"),
])
def test_bad_plan_names_file_and_key(tmp_path, mutate, key, problem):
    data = plan_dict()
    mutate(data)
    with pytest.raises(zl_plan.PlanError) as info:
        load(tmp_path, data)
    message = str(info.value)
    assert str(tmp_path / "plan.json") in message
    assert f"key '{key}'" in message
    assert problem in message


def test_unreadable_and_invalid_json(tmp_path):
    with pytest.raises(zl_plan.PlanError, match="cannot be read"):
        zl_plan.load_plan({"ZL_PLAN": str(tmp_path / "missing.json")})
    with pytest.raises(zl_plan.PlanError, match=r"plan\.json \(from ZL_PLAN\) is not valid JSON"):
        load(tmp_path, None, text="{not json")
    with pytest.raises(zl_plan.PlanError, match="top level must be a JSON object"):
        load(tmp_path, [1, 2])


def test_bad_plan_is_a_usage_error_in_pytest(pytester, tmp_path, monkeypatch):
    bad = tmp_path / "plan.json"
    bad.write_text(json.dumps(plan_dict(timer="fast")))
    monkeypatch.setenv("ZL_PLAN", str(bad))
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "zl_timing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: zl: plan file {bad}: key 'timer' must be one of*"])


class _Item:
    def __init__(self, name, originalname=None):
        self.name = name
        if originalname is not None:
            self.originalname = originalname


@pytest.mark.parametrize("item, op", [
    (_Item("test_abs", "test_abs"), "abs"),
    (_Item("test_unique2", "test_unique2"), "unique2"),
    (_Item("test_perf_fft", "test_perf_fft"), "perf_fft"),
    (_Item("test_add_alpha[2]", "test_add_alpha"), "add_alpha"),
    (_Item("test_blas[mm-float16]"), "blas"),
    (_Item("check_thing"), "check_thing"),
])
def test_op_key_is_function_name_minus_test(item, op):
    assert zl_plan.op_key(item) == op


@pytest.mark.parametrize("value, written", [
    ("abs", "abs"),
    ("torch.float16", "torch.float16"),
    ("[torch.Size([64])]", "[torch.Size([64])]"),
    ("[torch.Size([64, 64])]", '"[torch.Size([64, 64])]"'),
    ("a=b", '"a=b"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("two\nlines", '"two\\nlines"'),
    ("tab\there", '"tab\\there"'),
    ("", ""),
    (None, ""),
    (True, "true"),
    (3, "3"),
    (0.5, "0.5"),
    ("ünïcode", "ünïcode"),
])
def test_marker_values_bare_or_json(value, written):
    assert zl_plan.format_value(value) == written


def test_marker_line_round_trips(capsys):
    line = zl_plan.marker("BENCHMARK_DIRECT_NO_CUDAGRAPH", op="abs", dtype="torch.float16",
                          shape="[torch.Size([64, 64])]",
                          reason="operation not permitted when stream is capturing")
    assert line == ('BENCHMARK_DIRECT_NO_CUDAGRAPH op=abs dtype=torch.float16 '
                    'shape="[torch.Size([64, 64])]" '
                    'reason="operation not permitted when stream is capturing"')
    assert capsys.readouterr().out == line + "\n"
    name, fields = parse_marker(line)
    assert name == "BENCHMARK_DIRECT_NO_CUDAGRAPH"
    assert fields["shape"] == "[torch.Size([64, 64])]"
    assert fields["reason"] == "operation not permitted when stream is capturing"


def test_marker_names_and_keys_are_checked():
    with pytest.raises(ValueError):
        zl_plan.format_marker("zl_timer", op="abs")
    with pytest.raises(ValueError):
        zl_plan.format_marker("ZL_TIMER", Op="abs")
    assert zl_plan.format_marker("ZL_RUN") == "ZL_RUN"


@pytest.mark.parametrize("verbosity", [(), ("-q",), ("-v",)])
def test_marker_starts_its_own_line(pytester, write_plan, verbosity):
    """Never after pytest's file name, progress letter or test id on the same line."""
    write_plan()
    pytester.makepyfile("def test_one():\n    assert False\n\n"
                        "def test_two():\n    print('no newline', end='')\n\n"
                        "def test_three():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "zl_timing", *verbosity)
    lines = [line for line in result.outlines if "ZL_TIMER" in line]
    assert len(lines) == 3
    assert all(line.startswith("ZL_TIMER op=") for line in lines[:2])
