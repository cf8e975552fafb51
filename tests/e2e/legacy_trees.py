"""The FlagGems v3.0-shaped corpus, derived at test time from tests/fixtures/legacy_v4 (v4.2.0-shaped).

v3.0's benchmark/ differs from v4.2.0's in a few systematic points (docs/flaggems-releases.md §0–§5):
package-relative imports; `--mode` names the device (choices [device, "cpu"], default device) and there
is no BenchMode, so records and titles say `mode=cuda`; backward op names take a space (`gelu backward`,
also a core_shapes.yaml key); BlasBenchmark's shape order and its `llama_shapes()` extras; BLAS node ids
without the bench class parameter; a device-conditional starred entry; no test_tensor_concat_perf.py.
legacy_v4 marks each of these spots with a `v3.0 differs here` comment; v3_tree() copies legacy_v4 and
rewrites exactly those spots. A target that is missing (or found twice) fails the build with an
AssertionError naming it: when legacy_v4 changes, V3_EDITS must change with it.
"""
import shutil
from pathlib import Path

LEGACY_V4 = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_v4"

MARK = "# v3.0 differs here: "

# {file: [(old, new) or (old, new, count)]}: exact strings, each found `count` (default 1) times.
V3_EDITS = {
    "benchmark/attri_util.py": [
        (MARK + "no BenchMode (its --mode names the device, see conftest.py).\n"
         "class BenchMode(enum.Enum):  # no CUDAGRAPH before v5.3.1\n"
         '    KERNEL = "kernel"\n    OPERATOR = "operator"\n    WRAPPER = "wrapper"\n\n\n', ""),
        (MARK + "llama_shapes(), (bs, n, k, None), yielded in BlasBenchmark.get_input_iter.\n"
         "def model_shapes():\n"
         '    """BlasBenchmark\'s comprehensive extras, (4, bs, n, k) (tiny here)."""\n'
         "    return [(4, bs, n, k) for bs in (1, 8) for n, k in ((16, 8), (8, 16))]\n",
         "def llama_shapes():\n"
         '    """BlasBenchmark\'s comprehensive extras in v3.0, (bs, n, k, None) (tiny here)."""\n'
         "    return [(bs, n, k, None) for bs in (1, 8) for n, k in ((16, 8), (8, 16))]\n"),
    ],
    "benchmark/conftest.py": [
        ("BenchLevel, BenchMode)  " + MARK + "no BenchMode\n", "BenchLevel)\n"),
        ("self.mode = BenchMode.KERNEL  " + MARK + "self.cpu_mode = False\n", "self.cpu_mode = False\n"),
        ("    " + MARK + "--mode (--fg_mode on kunlunxin) names the device: default device, choices [device, cpu].\n"
         "    parser.addoption(\n"
         '        "--mode" if vendor_name != "kunlunxin" else "--fg_mode",\n'
         '        action="store",\n'
         '        default="kernel",\n'
         "        required=False,\n"
         "        choices=[m.value for m in BenchMode],\n"
         "        # v4.2.0 passes these two strings as a tuple, which pytest < 8.1 cannot format\n"
         "        # (AttributeError at argument parsing); joined here, see README.md.\n"
         "        help=\"Specify how to measure latency, 'kernel' for device kernel, \"\n"
         "        \"'operator' for end2end operator or 'wrapper' for python runtime wrapper.\",\n"
         "    )\n",
         "    parser.addoption(\n"
         '        ("--mode" if vendor_name != "kunlunxin" else "--fg_mode"),\n'
         '        action="store",\n'
         "        default=device,\n"
         "        required=False,\n"
         '        choices=[device, "cpu"],\n'
         "        help=(\n"
         '            "Specify how to measure latency, "\n'
         "            f\"'cpu' for CPU-side measurement or {device} for GPU-side measurement.\"\n"
         "        ),\n"
         "    )\n"),
        ('Config.mode = BenchMode(config.getoption("--mode"))  ' + MARK + "Config.cpu_mode\n",
         'Config.cpu_mode = config.getoption("--mode") == "cpu"  # read as --mode even on kunlunxin\n'),
    ],
    "benchmark/performance_utils.py": [
        ("BenchmarkResult, BenchMode)  " + MARK + "no BenchMode\n", "BenchmarkResult)\n"),
        ('if is_backward and "_backward" not in self.op_name:  ' + MARK + '+= " backward"\n'
         '            self.op_name += "_backward"\n',
         "if is_backward:\n"
         '            self.op_name += " backward"\n'),
        ("self.mode = Config.mode  " + MARK + "self.cpu_mode = Config.cpu_mode\n",
         "self.cpu_mode = Config.cpu_mode\n"),
        ("if Config.mode == BenchMode.KERNEL:  " + MARK + "if not Config.cpu_mode\n",
         "if not Config.cpu_mode:\n"),
        ("mode=Config.mode.value)  " + MARK + 'the device or "cpu"\n',
         'mode="cpu" if Config.cpu_mode else device)\n'),
    ],
    "benchmark/core_shapes.yaml": [
        (MARK + "BlasBenchmark's order (the big shape first), and a \"gelu backward\" op key.\n"
         "BlasBenchmark:\n"
         "  shapes: [[2, 8, 8, 8], [2, 24, 24, 24], [16, 16, 16, 16]]\n",
         '"gelu backward":\n'
         "  shapes: [[512], [32, 32]]\n"
         "BlasBenchmark:\n"
         "  shapes: [[2, 24, 24, 24], [16, 8, 8, 8], [16, 16, 16, 16]]\n"),
    ],
    "benchmark/test_blas_perf.py": [
        ("from benchmark.attri_util import DEFAULT_METRICS, FLOAT_DTYPES, model_shapes  " + MARK + "llama_shapes\n",
         "from .attri_util import DEFAULT_METRICS, FLOAT_DTYPES, BenchLevel, llama_shapes\n"
         "from .conftest import Config\n"),
        ("    " + MARK + "no set_more_shapes; get_input_iter yields llama_shapes() itself.\n"
         "    def set_more_shapes(self):\n"
         "        return model_shapes()\n\n", ""),
        ("            yield from self.input_fn(b, m, n, k, cur_dtype, self.device)\n",
         "            yield from self.input_fn(b, m, n, k, cur_dtype, self.device)\n"
         "        if Config.bench_level == BenchLevel.COMPREHENSIVE:  # v3.0: here, not set_more_shapes\n"
         "            for m, n, k, _ in llama_shapes():\n"
         "                yield from self.input_fn(1, m, n, k, cur_dtype, self.device)\n"),
        (MARK + "no bench_cls parameter (ids `[mm-<lambda>-mm_input_fn]`), BlasBenchmark named in the test.\n"
         '@pytest.mark.parametrize(\n    "op_name, torch_op, input_fn, bench_cls",\n',
         '@pytest.mark.parametrize(\n    "op_name, torch_op, input_fn",\n'),
        ("_input_fn, BlasBenchmark,\n", "_input_fn,\n", 2),
        ("def test_blas_benchmark(op_name, torch_op, input_fn, bench_cls):\n    bench = bench_cls(",
         "def test_blas_benchmark(op_name, torch_op, input_fn):\n    bench = BlasBenchmark("),
    ],
    "benchmark/test_unary_pointwise_perf.py": [
        ("import Benchmark  " + MARK + "and device\n", "import Benchmark, device\n"),
        ('    ("exp", ops.exp, FLOAT_DTYPES),  ' + MARK + 'only if device != "musa", as v3.0\'s angle\n',
         '    *([] if device == "musa" else [("exp", ops.exp, FLOAT_DTYPES)]),  # as v3.0\'s angle\n'),
    ],
}
V3_REMOVED = ["benchmark/test_tensor_concat_perf.py"]  # v3.0 differs here: no tensor_concat file
# Rewritten in every file: the release named in its header (once), and every `from benchmark.x import`
# -> `from .x import` (v3.0's package-relative imports).
V3_HEADER = ("shaped like FlagGems v4.2.0's", "shaped like FlagGems v3.0's")
V3_IMPORT = ("from benchmark.", "from .")
# None of these may survive in the v3.0 tree: a leftover means a v4 spot that V3_EDITS missed.
V3_ABSENT = [MARK.strip(), "v4.2.0", "BenchMode", "model_shapes", "bench_cls", "from benchmark", "import benchmark",
             '"kernel"']

V3_README = """\
# legacy_v3: constructed for zl's tests, shaped like FlagGems v3.0 (not copied from FlagGems)

Built at test time from `tests/fixtures/legacy_v4` by `tests/e2e/legacy_trees.py` (`v3_tree`), which
rewrites the spots legacy_v4 marks `v3.0 differs here`. Pure Python (no torch, triton or flag_gems), as
legacy_v4. Run it from its folder, e.g.

    python3 -m pytest benchmark/test_unary_pointwise_perf.py -m gelu_backward --level core --record log -s

Facts of `docs/flaggems-releases.md` that it mirrors:

- §0: category layout, `performance_utils.py` + `attri_util.py`, category classes defined in the
  category files, **package-relative imports** (`from .performance_utils import …`).
- §1: the three mark forms as in legacy_v4 (`isin`; `pad` with op_name `"padding"`; `mm`/`addmm` params;
  `getattr(pytest.mark, …)` comprehensions), and a device-conditional starred entry
  (`*([] if device == "musa" else [("exp", …)])`, as v3.0's `angle`). No tensor_concat file.
  Node ids: `test_general_unary_pointwise_perf[abs-abs-dtypes0]`,
  `test_blas_benchmark[mm-<lambda>-mm_input_fn]` (3 params in v3.0).
- §2: **`--mode` default `"cuda"` (the device), choices `["cuda", "cpu"]`**, no BenchMode: `--mode kernel`
  exits 4 with `invalid choice: 'kernel' (choose from 'cuda', 'cpu')`. The other options as v4.2.0.
  `--fg_mode` on kunlunxin (`("--mode" if … else "--fg_mode")`), while `pytest_configure` reads `--mode`.
- §3: root `logging.basicConfig` record log, `logging.info(result.to_json())`, **`"mode": "cuda"`** (or
  `"cpu"`: `mode="cpu" if Config.cpu_mode else device`).
- §4: table byte-identical to the corpus's; title `mode=cuda`; **backward op name with a space**:
  `Operator: gelu backward  Performance Test …` (the mark stays `gelu_backward`).
- §5: shape keys include the op key **`gelu backward`**; v3.0's BlasBenchmark order (the big shape
  first); comprehensive BlasBenchmark extras from `llama_shapes()` `(bs, n, k, None)` inside
  `get_input_iter`; `set_more_shapes()` returns None.
- §6: refusal wording without a space before `can't`, with the `gelu backward`-style name.
- §7: `--mode cuda` times with `do_bench`; `--mode cpu` loops `warm_up`/`repetition` times.

Not mirrored, or changed on purpose: as in legacy_v4's README (no `pythonpath = src`, tiny shapes, host
timing scaled by `HOST_MS_SCALE`, cpu-mode counts capped at `HOST_MAX_COUNT`, `ops` standing for `torch`
(it keeps `repeat_interleave`, unused here), `max` refusing float16 constructed, the inline list placed
in the reduction file). Only 10 items (the release has ≈156 marks).
"""


def _swap(text, where, old, new, count=1):
    found = text.count(old)
    assert found == count, (f"legacy_v3 from legacy_v4: {where} holds {found} of {old!r} (wanted {count}); "
                            "legacy_v4 changed, so update V3_EDITS in tests/e2e/legacy_trees.py")
    return text.replace(old, new)


def v3_tree(root, legacy_v4=LEGACY_V4):
    """Builds the v3.0-shaped tree at `root` (which must not exist) from legacy_v4; returns `root`."""
    root = Path(root)
    shutil.copytree(legacy_v4, root, ignore=shutil.ignore_patterns("__pycache__", "result*.log"))
    for name in V3_REMOVED:
        assert (root / name).is_file(), f"legacy_v3 from legacy_v4: {name} is gone from legacy_v4"
        (root / name).unlink()
    for name, edits in V3_EDITS.items():
        path = root / name
        text = path.read_text()
        for edit in edits:
            text = _swap(text, name, *edit)
        path.write_text(text)
    (root / "README.md").write_text(V3_README)
    imports = 0
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "README.md"):
        name, text = str(path.relative_to(root)), path.read_text()
        text = _swap(text, name, *V3_HEADER)
        imports += text.count(V3_IMPORT[0])
        text = text.replace(*V3_IMPORT)
        for word in V3_ABSENT:
            assert word not in text, f"legacy_v3 from legacy_v4: {name} still says {word!r}: update V3_EDITS"
        path.write_text(text)
    assert imports, f"legacy_v3 from legacy_v4: no {V3_IMPORT[0]!r} import to rewrite"
    return root
