"""The device's state on record: telemetry.jsonl beside every run (read by zl through the cpu
backend here), its summary in the identity, `zl devices --telemetry`, and rows marked throttled
from readings constructed for the test (a throttle reason appearing mid-run, a sagging clock)."""
import json
import shutil

from conftest import SOURCE_DIR

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
QUICK = "ci=1%,min=10,max=3000,max-time=0.05"


def run_abs(zl, out, *options):
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), *options,
           check_rc=0)
    return out


def readings(run):
    return [json.loads(line) for line in (run / "telemetry.jsonl").read_text().splitlines()]


def rows(zl, run):
    return json.loads(zl.run("summary", "--rows", "--format", "json", str(run), check_rc=0).stdout)["rows"]


def rewrite(run, throttled_from, *, sag=False):
    """Replaces the run's readings by constructed ones every 2 ms from its first reading to its last:
    from `throttled_from` on, the device is power-capped (or its clock sags to 60%)."""
    real = readings(run)
    start, end = real[0]["at"], real[-1]["at"]
    lines, t = [], start
    while t <= end:
        r = {"at": t, "took_s": 0.0001, "phase": "during", "device": real[0]["device"], "status": 0,
             "source": "constructed", "sm_clock_mhz": 1980, "sm_clock_max_mhz": 1980, "throttle": 0}
        if t >= throttled_from:
            if sag:
                r["sm_clock_mhz"] = 1188
            else:
                r["throttle"], r["throttle_text"] = 4, "SwPowerCap"
        lines.append(json.dumps(r))
        t += 0.002
    (run / "telemetry.jsonl").write_text("\n".join(lines) + "\n")
    return start, end


def test_every_run_reads_the_device_before_during_and_after(zl, tmp_path):
    run = run_abs(zl, tmp_path / "abs", "--sampling", QUICK, "--telemetry", "every=0.05")
    got = readings(run)
    phases = [r["phase"] for r in got]
    assert phases[0] == "before" and phases[-1] == "after" and "during" in phases
    assert all(r["source"] == "Linux sysfs" and r["status"] == 0 and r["driver"] for r in got)
    assert [r["at"] for r in got] == sorted(r["at"] for r in got)
    identity = json.loads((run / "run_identity.json").read_text())
    assert identity["telemetry_spec"] == "every=0.05" and identity["telemetry_file"] == "telemetry.jsonl"
    summary = identity["telemetry"]
    assert summary["readings"] == len(got) and summary["failed"] == 0
    assert summary["driver"] == got[0]["driver"] and summary["throttle_seen"] == []
    assert json.loads((run / "plan.json").read_text())["telemetry"] == "every=0.05"
    out = zl.run("summary", str(run), check_rc=0).stdout
    assert "telemetry: 1 of 1 runs read the device's state; no row was timed on a throttled device." in out
    assert "THROTTLED" not in out


def test_telemetry_off_and_around(zl, tmp_path):
    off = run_abs(zl, tmp_path / "off", "--telemetry", "off")
    assert not (off / "telemetry.jsonl").exists()
    identity = json.loads((off / "run_identity.json").read_text())
    assert identity["telemetry"] is None and identity["telemetry_file"] == ""
    around = run_abs(zl, tmp_path / "around", "--telemetry", "around")
    assert [r["phase"] for r in readings(around)] == ["before", "after"]
    by_env = run_abs_env(zl, tmp_path / "env", {"ZL_TELEMETRY": "off"})
    assert not (by_env / "telemetry.jsonl").exists()


def run_abs_env(zl, out, env):
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(out), env=env,
           check_rc=0)
    return out


def test_a_bad_spec_is_refused_before_anything_runs(zl, tmp_path):
    for spec in ("on", "every=0", "every=1s"):
        proc = zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out",
                      str(tmp_path / "r"), "--telemetry", spec)
        assert proc.returncode == 2 and f"--telemetry '{spec}'" in proc.stderr, proc.stderr
        assert not (tmp_path / "r").exists()
    proc = zl.run("batch", "--flaggems", str(CORPUS), "--ops", "abs", "--out", str(tmp_path / "c"), "--telemetry",
                  "sometimes")
    assert proc.returncode == 2 and "--telemetry 'sometimes'" in proc.stderr


def test_a_throttle_appearing_mid_run_marks_the_rows_after_it(zl, tmp_path):
    run = run_abs(zl, tmp_path / "abs", "--sampling", QUICK)
    start, end = rewrite(run, float("inf"))
    assert not any(r["throttled"] for r in rows(zl, run))
    # The throttle begins part way through the rows; where they lie in the run depends on how long
    # pytest took to start (a loaded machine), so later and later starts are tried until it falls
    # among them.
    for share in (0.5, 0.65, 0.8, 0.9, 0.95, 0.98):
        rewrite(run, start + share * (end - start))
        marks = [r["throttled"] for r in rows(zl, run)]
        if 0 < sum(marks) < len(marks):
            break
    # Rows are timed one after another: those after the throttle began, and only they, are marked.
    assert 0 < sum(marks) < len(marks) and marks == sorted(marks), marks
    out = zl.run("summary", str(run), check_rc=0).stdout
    header = next(line for line in out.splitlines() if line.startswith("OP "))
    assert "THROTTLED" in header.split()
    assert f"telemetry: {sum(marks)} rows were timed while the device was throttled (first: throttle reason " \
           "power (SwPowerCap))" in out
    doc = json.loads(zl.run("summary", "--format", "json", str(run), check_rc=0).stdout)
    assert doc["total"]["throttled"] == sum(marks)
    # The store keeps the marks: a summary from it alone says the same.
    db = tmp_path / "store.sqlite"
    zl.run("summary", "--db", str(db), str(run), check_rc=0)
    stored = json.loads(zl.run("summary", "--db", str(db), "--format", "json", check_rc=0).stdout)
    assert stored["total"]["throttled"] == sum(marks)


def test_a_sagging_clock_marks_rows_too(zl, tmp_path):
    run = run_abs(zl, tmp_path / "abs", "--sampling", QUICK)
    start, _ = rewrite(run, 0, sag=True)
    assert all(r["throttled"] for r in rows(zl, run))
    out = zl.run("summary", str(run), check_rc=0).stdout
    assert "SM clock 1188 MHz under 90% of its maximum 1980 MHz" in out


def test_ab_gives_throttled_pairings_no_verdict_unless_kept(zl, tmp_path):
    a = run_abs(zl, tmp_path / "a", "--sampling", QUICK)
    b = run_abs(zl, tmp_path / "b", "--sampling", QUICK)
    rewrite(b, 0)
    args = ("summary", "--ab", str(a), str(b), "--format", "json", "--process-noise", "5")
    doc = json.loads(zl.run(*args, check_rc=0).stdout)
    assert doc["throttled_pairings"] == len(doc["pairings"]) == 9 and not doc["keep_throttled"]
    assert all(p["throttled"] and p["verdict"] == "-" for p in doc["pairings"])
    kept = json.loads(zl.run(*args, "--keep-throttled", check_rc=0).stdout)
    assert all(p["verdict"] != "-" for p in kept["pairings"])
    text = zl.run("summary", "--ab", str(a), str(b), check_rc=0).stdout
    assert "9 pairings: a row was timed while the device was throttled (telemetry.jsonl); no verdict" in text
    proc = zl.run("summary", str(a), "--keep-throttled")
    assert proc.returncode == 2 and "--keep-throttled goes with --ab A B" in proc.stderr


def test_a_torn_telemetry_file_loses_only_its_bad_lines(zl, tmp_path):
    run = run_abs(zl, tmp_path / "abs", "--sampling", QUICK)
    rewrite(run, 0)
    text = (run / "telemetry.jsonl").read_text()
    (run / "telemetry.jsonl").write_text("not json\n" + text[:-15])  # as a run killed mid-line
    proc = zl.run("summary", "--rows", "--format", "json", str(run), check_rc=0)
    assert "telemetry.jsonl:1: not a JSON line" in proc.stderr and "(cut short)" in proc.stderr
    assert any(r["throttled"] for r in json.loads(proc.stdout)["rows"])
    (run / "telemetry.jsonl").unlink()
    (run / "telemetry.jsonl").mkdir()  # not a file: the rows stand, unmarked, with a warning
    proc = zl.run("summary", str(run), check_rc=0)
    assert "telemetry.jsonl" in proc.stderr and "THROTTLED" not in proc.stdout
    shutil.rmtree(run / "telemetry.jsonl")


def test_devices_and_backends_say_what_telemetry_reads(zl):
    out = zl.run("devices", "--telemetry", check_rc=0).stdout
    assert "(Linux sysfs)" in out and "driver " in out
    doc = json.loads(zl.run("devices", "--telemetry", "--json", check_rc=0).stdout)
    assert len(doc) == 1 and doc[0]["phase"] == "now" and doc[0]["source"] == "Linux sysfs"
    backends = json.loads(zl.run("backends", "--json", check_rc=0).stdout)["backends"]
    assert {b["name"]: b["telemetry"] for b in backends}["cpu"] is True
    assert "TELEMETRY" in zl.run("backends", check_rc=0).stdout
