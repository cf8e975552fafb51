"""compat/: one page per backend, listing exactly the compat rules that backend's plan carries."""
import pytest

from conftest import SOURCE_DIR

COMPAT = SOURCE_DIR / "compat"
CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
# The fake SMI each backend needs to find a device for `zl plan`.
BACKEND_SMI = {"ascend": ("npu-smi",), "cpu": (), "cuda": ("nvidia-smi",), "musa": ("mthreads-gmi",),
               "rocm": ("amd-smi",)}
FIELDS = ("file", "skip_reason", "action", "why")


def documented_rules(page):
    """The rows of a page's rule table: | `file` | `skip reason` | action | why |."""
    rows = []
    for line in page.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == len(FIELDS):
            rows.append(dict(zip(FIELDS, (cells[0].strip("`"), cells[1].strip("`"), *cells[2:]))))
    return rows


def test_every_backend_has_a_page_named_in_the_readme():
    pages = {p.stem for p in COMPAT.glob("*.md")} - {"README"}
    assert pages == set(BACKEND_SMI)
    readme = (COMPAT / "README.md").read_text(encoding="utf-8")
    assert all(f"[{name}.md]({name}.md)" in readme for name in pages)


@pytest.mark.parametrize("backend", sorted(BACKEND_SMI))
def test_a_backends_page_lists_its_plans_rules(zl, backend):
    zl.with_smi(*BACKEND_SMI[backend])
    plan = zl.json("--backend", backend, "plan", "--flaggems", str(CORPUS), "--op", "fft", "--python", PYTHON,
                   "--json")
    rules = plan["compat_rules"]
    assert documented_rules(COMPAT / f"{backend}.md") == [{k: r[k] for k in FIELDS} for r in rules]
    assert all(r["vendor"] == plan["backend"]["flaggems_vendor"] for r in rules)
    assert ("zl_compat" in plan["plugins"]) == bool(rules)
