"""Old FlagGems layouts end to end (issue 29): constructed corpora shaped like v4.2.0
(tests/fixtures/legacy_v4) and v3.0 (derived from it by legacy_trees.v3_tree): category files, marks
computed through getattr(pytest.mark, name, None), a root basicConfig record log, v3.0's --mode named
after the device; run by the real zl with real pytest: run, plan, batch with both executors, summary,
report and sweep's shape resolution."""
import csv
import json
import shutil
import subprocess

import pytest

from conftest import SOURCE_DIR, ZL_BIN, Zl
from legacy_trees import v3_tree

PYTHON = "/usr/bin/python3"
FIXTURES = SOURCE_DIR / "tests" / "fixtures"
TIMINGS = {"latency", "latency_base", "speedup", "gbps", "gbps_base", "tflops", "utilization",
           "compared_speedup"}
V4_OPS = ["abs", "addmm", "exp", "gelu_backward", "isin", "max", "mm", "neg", "pad", "repeat_interleave", "sum"]


@pytest.fixture
def tree(tmp_path):
    """A fresh copy of a fixture (pytest writes nothing into the source tree); "legacy_v3" is built
    from legacy_v4 (legacy_trees.py)."""
    def copy(name):
        root = tmp_path / name
        if name == "legacy_v3":
            return v3_tree(root, FIXTURES / "legacy_v4")
        shutil.copytree(FIXTURES / name, root, ignore=shutil.ignore_patterns("__pycache__", "result*.log"))
        return root
    return copy


@pytest.fixture
def lzl(zl, tmp_path):
    zl.env["ZL_CACHE_DIR"] = str(tmp_path / "cache")
    return zl


def run(lzl, fg, op, out, *args, check_rc=0):
    return lzl.run("--backend", "cpu", "run", "--flaggems", str(fg), "--op", op, "--level", "core",
                   "--python", PYTHON, "--out", str(out), *args, check_rc=check_rc)


def identity(run_dir):
    return json.loads((run_dir / "run_identity.json").read_text())


def records(run_dir):
    lines = []
    for line in (run_dir / "record.log").read_text().splitlines():
        record = json.loads(line[len("[INFO] "):])
        record["result"] = [{k: v for k, v in r.items() if k not in TIMINGS} for r in record["result"]]
        lines.append(record)
    return lines


@pytest.mark.parametrize("op, form", [("neg", "computed"), ("mm", "explicit"), ("isin", "decorator")])
def test_v4_an_op_in_a_category_file_runs_by_its_mark(lzl, tree, tmp_path, op, form):
    fg = tree("legacy_v4")
    run(lzl, fg, op, tmp_path / op)
    plan = json.loads((tmp_path / op / "plan.json").read_text())
    assert plan["marker"] == op
    assert plan["flaggems_release"]["layout"] == "category"
    assert plan["flaggems_release"]["modes"] == ["kernel", "operator", "wrapper"]
    # In category files pytest's collection decides, whatever form the mark has.
    assert "pytest's collection" in plan["node_resolution"]
    found = identity(tmp_path / op)
    assert found["status"] == "ok" and found["tests"]["passed"] >= 1
    assert found["flaggems_release"] == {"version": None, "layout": "category"}
    # v4.2.0 opens its record log with the root logger's basicConfig: zl's plugins leave it free.
    assert {r["op_name"] for r in records(tmp_path / op)} == {"padding" if op == "pad" else op}


def test_v4_the_collection_is_cached_per_tree_and_redone_when_a_file_changes(lzl, tree, tmp_path):
    fg = tree("legacy_v4")
    args = ("--backend", "cpu", "plan", "--flaggems", str(fg), "--op", "neg", "--python", PYTHON, "--json")
    first = lzl.json(*args)["node_resolution"]
    assert "cached in " + str(tmp_path / "cache" / "collect") in first
    assert lzl.json(*args)["node_resolution"].startswith(
        "no benchmark/test_neg.py; benchmark/test_unary_pointwise_perf.py marks it (pytest's collection, cached in")
    with open(fg / "benchmark" / "test_unary_pointwise_perf.py", "a") as f:
        f.write("\n# edited\n")
    again = lzl.json(*args)["node_resolution"]
    assert "cached in" in again and again.split("/")[-1] != first.split("/")[-1]
    assert len(list((tmp_path / "cache" / "collect").iterdir())) == 2


def test_v4_a_refused_dtype_is_unsupported_and_a_missing_option_is_refused(lzl, tree, tmp_path):
    fg = tree("legacy_v4")
    run(lzl, fg, "max", tmp_path / "max", "--dtypes", "float16", check_rc=1)
    assert identity(tmp_path / "max")["status"] == "unsupported"
    proc = run(lzl, fg, "neg", tmp_path / "cg", "--mode", "cudagraph", check_rc=2)
    assert "cudagraph" in proc.stderr
    proc = run(lzl, fg, "neg", tmp_path / "co", "--", "--output", "x.json", check_rc=2)
    assert "has no option --output" in proc.stderr


def test_v4_a_conftest_that_cannot_load_is_said_not_guessed(lzl, tree, tmp_path):
    fg = tree("legacy_v4")
    with open(fg / "benchmark" / "conftest.py", "a") as f:
        f.write("\nimport torch_that_is_not_here\n")
    proc = run(lzl, fg, "neg", tmp_path / "neg", check_rc=3)
    assert proc.stdout.startswith("PREFLIGHT_FAILED check=benchmark_file ")
    assert "only pytest's collection can tell" in proc.stderr
    assert "torch_that_is_not_here" in proc.stderr
    assert not (tmp_path / "cache" / "collect").exists() or not any((tmp_path / "cache" / "collect").iterdir())


def test_v3_runs_kernel_mode_without_a_mode_and_refuses_the_modes_it_lacks(lzl, tree, tmp_path):
    fg = tree("legacy_v3")
    run(lzl, fg, "gelu_backward", tmp_path / "gelu")
    plan = json.loads((tmp_path / "gelu" / "plan.json").read_text())
    assert "--mode" not in plan["pytest_argv"] and plan["flaggems_release"]["modes"] == []
    rows = records(tmp_path / "gelu")
    assert {(r["op_name"], r["mode"]) for r in rows} == {("gelu backward", "cuda")}
    summary = json.loads(lzl.run("summary", "--format", "json", str(tmp_path / "gelu"), check_rc=0).stdout)
    assert json.dumps(summary).count("gelu backward") >= 1
    proc = run(lzl, fg, "neg", tmp_path / "op", "--mode", "operator", check_rc=2)
    assert "has no --mode operator" in proc.stderr and "names the device" in proc.stderr
    proc = run(lzl, fg, "neg", tmp_path / "w", "--", "--warmup", "3", check_rc=0)


def campaign(lzl, fg, out, executor):
    proc = lzl.run("--backend", "cpu", "batch", "--flaggems", str(fg), "--all", "--level", "core", "--python", PYTHON,
                   "--executor", executor, "--out", str(out))
    assert (out / "ops_status.csv").is_file(), f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    with open(out / "ops_status.csv", newline="") as f:
        return {row["op"]: row["status"] for row in csv.DictReader(f)}


@pytest.mark.parametrize("name, ops", [("legacy_v4", V4_OPS),
                                       ("legacy_v3", [op for op in V4_OPS if op != "repeat_interleave"])])
def test_all_lists_the_marks_and_warm_and_process_agree(lzl, tree, tmp_path, name, ops):
    fg = tree(name)
    warm = campaign(lzl, fg, tmp_path / "warm", "warm")
    process = campaign(lzl, fg, tmp_path / "process", "process")
    assert sorted(warm) == ops
    assert warm == process
    assert set(warm.values()) == {"ok"}
    for op in ops:  # the root basicConfig record log of each op is its own, in both executors
        assert records(tmp_path / "warm" / op) == records(tmp_path / "process" / op), op
        assert records(tmp_path / "warm" / op), op
    summary = json.loads(lzl.run("summary", "--format", "json", str(tmp_path / "warm"), check_rc=0).stdout)
    assert summary["runs"] == len(ops) and '"status": "failed"' not in json.dumps(summary)
    html = tmp_path / "report.html"
    lzl.run("report", str(tmp_path / "warm"), "-o", str(html), check_rc=0)
    assert "gelu" in html.read_text() and "addmm" in html.read_text()


def test_sweep_resolves_shapes_through_performance_utils(lzl, tree):
    fg = tree("legacy_v4")
    proc = lzl.run("sweep", "--flaggems", str(fg), "--op", "neg", "--resolve-only", "--python", PYTHON, check_rc=0)
    assert "key=UnaryPointwiseBenchmark" in proc.stdout
    proc = lzl.run("sweep", "--flaggems", str(fg), "--op", "isin", "--resolve-only", "--python", PYTHON, check_rc=0)
    assert "class=GenericBenchmark" in proc.stdout, proc.stdout
    assert "chain: GenericBenchmark (benchmark/performance_utils.py:" in proc.stdout
    # v3.0 looks a backward op's shapes up by "<op> backward", as it names the benchmark
    v3 = tree("legacy_v3")
    proc = lzl.run("sweep", "--flaggems", str(v3), "--op", "gelu_backward", "--resolve-only", "--python", PYTHON,
                   check_rc=0)
    assert 'key="gelu backward" shapes=2' in proc.stdout
