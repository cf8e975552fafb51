"""zl history on a store of real campaigns: ten nights of abs and add on the sample corpus, abs
made 10x slower and FlagGems' commit changed from the sixth on; the step found, named and gated."""
import json
import shutil

import pytest

from conftest import SLOW_ABS, SOURCE_DIR, Zl

PYTHON = "/usr/bin/python3"
# SLOW_ABS (conftest): CPU timings on a shared machine move by half between campaigns (load,
# clocks); a 10x step stands above that.
NIGHTS = 10
STEP = 6  # the first slow night


@pytest.fixture(scope="module")
def nights(tmp_path_factory):
    """The store of all ten nights, and one of the first nine (the step then among the last 4)."""
    root = tmp_path_factory.mktemp("history")
    zl = Zl(root)
    corpus = root / "flaggems"
    shutil.copytree(SOURCE_DIR / "corpus", corpus, ignore=shutil.ignore_patterns("__pycache__"))
    (corpus / "FLAGGEMS_COMMIT").write_text("aaaa1111\n")
    db = root / "store.sqlite"
    campaigns = []
    for night in range(1, NIGHTS + 1):
        if night == STEP:
            with open(corpus / "benchmark" / "host_ops.py", "a") as f:
                f.write(SLOW_ABS)
            (corpus / "FLAGGEMS_COMMIT").write_text("bbbb2222\n")
        out = root / f"night-{night:02d}"  # names sort as the nights: the order where starts tie
        zl.run("batch", "--flaggems", str(corpus), "--ops", "abs,add", "--dtypes", "float32", "--python", PYTHON,
               "--db", str(db), "--out", str(out), "--sampling", "fixed", check_rc=0)
        campaigns.append(out)
    nine = root / "nine.sqlite"
    zl.run("summary", "--db", str(nine), *map(str, campaigns[:-1]), check_rc=0)
    return {"db": db, "nine": nine, "campaigns": campaigns}


def test_lists_the_step_of_abs_and_names_the_commit(zl, nights):
    out = zl.run("history", "--db", str(nights["db"]), check_rc=0).stdout
    steps = [line for line in out.splitlines()
             if line.startswith("abs ") and f"night-{STEP:02d} (" in line and "slower, confirmed" in line]
    assert len(steps) == 3, out  # each of abs's three sizes
    for line in steps:
        assert line.endswith("; FlagGems commit aaaa1111 -> bbbb2222"), out
    # add's timings move with the machine's load: none of it may pass for a step of abs's size.
    assert not [line for line in out.splitlines() if line.startswith("add ") and "slower, confirmed" in line
                and float(line.split("% slower")[0].rsplit(" ", 1)[1]) > 200], out
    assert out.splitlines()[-1].startswith("zl history: ")


def test_json_parses_for_scripts(zl, nights):
    doc = zl.json("history", "--db", str(nights["db"]), "--format", "json", "--all")
    assert doc["version"] == 1 and doc["campaigns"] == NIGHTS
    changed = {(c["op"], c["shape"]) for c in doc["changes"]} | {(d["op"], d["shape"]) for d in doc["drifts"]}
    assert doc["series_checked"] == len(doc["unchanged"]) + len(changed)
    steps = [c for c in doc["changes"] if c["op"] == "abs" and c["confirmed"]]
    assert steps and all(c["campaign"].endswith(f"night-{STEP:02d}") for c in steps)
    for c in steps:
        assert c["direction"] == "slower" and c["relative"] > 2.0
        assert c["previous_campaign"].endswith(f"night-{STEP - 1:02d}") and not c["new"]
        assert {"field": "flaggems_commit", "module": None, "before": "aaaa1111", "after": "bbbb2222"} in c["changed"]
    assert not [c for c in doc["changes"] if c["op"] == "add" and c["confirmed"] and c["relative"] > 2.0]
    only_add = zl.json("history", "--db", str(nights["db"]), "--format", "json", "--op", "add", "--all")
    assert {s["op"] for s in only_add["unchanged"]} <= {"add"}


def test_fail_on_regression_only_while_the_step_is_new(zl, nights):
    # 300%: far above what load does to add, far below abs's +900%.
    proc = zl.run("history", "--db", str(nights["nine"]), "--fail-on-regression", "300", check_rc=6)
    assert "new regression" in proc.stderr and ", new;" in proc.stdout
    zl.run("history", "--db", str(nights["nine"]), "--fail-on-regression", "5000", check_rc=0)
    zl.run("history", "--db", str(nights["db"]), "--fail-on-regression", "300", check_rc=0)  # seen last night


def test_since_leaves_the_earlier_nights_out(zl, nights):
    doc = zl.json("history", "--db", str(nights["db"]), "--format", "json", "--since", f"night-{STEP:02d}")
    assert doc["campaigns"] == NIGHTS - STEP + 1
    assert not [c for c in doc["changes"] if c["op"] == "abs" and c["confirmed"]]


def test_bad_input_is_named(zl, nights, tmp_path):
    missing = tmp_path / "none.sqlite"
    proc = zl.run("history", "--db", str(missing), check_rc=2)
    assert str(missing) in proc.stderr and "zl batch --db" in proc.stderr
    text = tmp_path / "notes.txt"
    text.write_text("not a database, only words\n" * 100)
    proc = zl.run("history", "--db", str(text), check_rc=2)
    assert str(text) in proc.stderr
    proc = zl.run("history", "--db", str(nights["db"]), "--op", "nosuchop", check_rc=2)
    assert "nosuchop" in proc.stderr and "abs, add" in proc.stderr
    proc = zl.run("history", "--db", str(nights["db"]), "--since", "2999-01-01", check_rc=2)
    assert "2999-01-01" in proc.stderr
    proc = zl.run("history", "--db", str(nights["db"]), "--since", "night-99", check_rc=2)
    assert "night-99" in proc.stderr and "night-10" in proc.stderr
    proc = zl.run("history", check_rc=2)
    assert "--db FILE" in proc.stderr


def test_an_empty_store_says_so(zl, tmp_path):
    db = tmp_path / "empty.sqlite"
    zl.run("summary", "--db", str(db), check_rc=0)
    out = zl.run("history", "--db", str(db), check_rc=0).stdout
    assert "holds no runs" in out
    doc = zl.json("history", "--db", str(db), "--format", "json")
    assert doc["series_checked"] == 0 and doc["changes"] == []


def test_the_report_draws_the_step_where_zl_history_finds_it(zl, nights, tmp_path):
    page = tmp_path / "history.html"
    zl.run("report", "--db", str(nights["db"]), "--history", str(NIGHTS), "-o", str(page), check_rc=0)
    data = json.loads(page.read_text().split('id="zl-data">')[1].split("</script>")[0])
    (caliber,) = data["history"]["calibers"]
    abs_lines = [line for op, _, lines in caliber["charts"] if op == "abs" for line in lines]
    assert len(abs_lines) == 3  # abs's three sizes
    for size, values, changes in abs_lines:
        steps = [c for c in changes if c[1] == "slower" and c[3] and c[2] > 2.0]
        assert [c[0] for c in steps] == [STEP - 1], (size, changes)  # the drawn campaign's index
        assert "FlagGems commit aaaa1111 -> bbbb2222" in steps[0][4]
