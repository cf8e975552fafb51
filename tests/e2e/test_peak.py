"""zl summary's share of the device's spec peak (%BW, %TFLOPS; issue 32), end to end.

The sample corpus runs on the cpu backend, which has no spec peak. So most run folders here are
CONSTRUCTED: the run_identity.json of a real `zl run` on the corpus, with its device.name rewritten
to an H100's, beside a FlagGems text log written here with a TFLOPS column and a GBPS pair
(docs/flaggems-facts.md §1). One test is a real run: the corpus' reduction, whose GBPS formula zl
asks for at --level core (zl_metrics.py).
"""
import json

from conftest import SOURCE_DIR
from test_report import browser, open_page, report  # noqa: F401 (browser is a fixture)

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
H100 = "NVIDIA H100 80GB HBM3"  # nvidia-smi's name for the SXM5 part: 3350 GB/s, 989.5 and 67 TFLOPS


def table(op, dtype, figures, gbps=False):
    """One FlagGems table with TFLOPS (or, with gbps, Torch and Gems GBPS): one row per figure."""
    extra = [f"{'Torch GBPS ':>20}", f"{'Gems GBPS ':>20}"] if gbps else [f"{'TFLOPS':>20}"]
    cols = [f"{'Status':<10}", f"{'Torch Latency (ms)':>20}", f"{'Gems Latency (ms)':>20}",
            f"{'Gems Speedup':>20}", *extra, f"{'Size Detail':>20}\n"]
    header = " ".join(cols)
    out = f"\nOperator: {op}  Performance Test (dtype={dtype}, mode=kernel,level=core)\n{header}{'-' * len(header)}\n"
    for i, v in enumerate(figures):
        cells = f"{v * 0.9:>20.3f}{v:>20.3f}" if gbps else f"{v:>20.3f}"
        out += f"{'SUCCESS':<10}{0.0011:>20.6f}{0.001:>20.6f}{1.1:>20.3f}{cells}{' ' * 10}[torch.Size([{i + 1}])]\n"
    return out + "\n"


def constructed_run(zl, tmp_path, device_name):
    """A run folder: a real run's identity naming device_name, and a log written here."""
    real = tmp_path / "real" / "abs"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(real), check_rc=0)
    identity = json.loads((real / "run_identity.json").read_text())
    identity["device"]["name"] = device_name
    # The log below is the run's one source: none of the real run's other files come along.
    for key in ("record_log", "samples_file", "telemetry_file"):
        identity[key] = None
    run = tmp_path / "campaign" / "mm"
    run.mkdir(parents=True)
    (run / "run_identity.json").write_text(json.dumps(identity))
    zl_run_line = (real / "run.log").read_text().splitlines()[0]
    log = (table("mm", "torch.float16", [247.375, 494.75, 742.125])  # 25%, 50%, 75% of 989.5
           + table("mm", "torch.float32", [33.5])  # 50% of FP32's 67, not of the tensor peak
           + table("add", "torch.float16", [1675, 2680], gbps=True))  # 50%, 80% of 3350 GB/s
    (run / "run.log").write_text(zl_run_line + "\n" + log)
    return run


def test_summary_shows_the_share_of_the_spec_peak(zl, tmp_path):
    run = constructed_run(zl, tmp_path, H100)
    proc = zl.run("summary", str(run), check_rc=0)
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("OP "))
    assert lines[header].split()[-2:] == ["%BW", "%TFLOPS"]
    rows = {" ".join(line.split()[:2]): line.split() for line in lines[header + 1:header + 5]}
    assert rows["add torch.float16"][-2:] == ["65.0", "-"]
    assert rows["mm torch.float16"][-2:] == ["-", "50.0"]
    assert rows["mm torch.float32"][-2:] == ["-", "50.0"]
    assert (f'peak: "{H100}" is the NVIDIA H100 SXM5 80GB (3350 GB/s, 989.5 TFLOPS dense FP16/BF16 tensor, '
            "67 FP32), from NVIDIA H100 Tensor Core GPU Datasheet, https://") in proc.stdout

    doc = json.loads(zl.run("summary", "--format", "json", str(run), check_rc=0).stdout)
    groups = {f"{g['op']} {g['dtype']}": g for g in doc["groups"]}
    assert groups["mm torch.float16"]["pct_tflops"] == 50.0
    assert groups["mm torch.float16"]["pct_bandwidth"] is None
    assert abs(groups["add torch.float16"]["pct_bandwidth"] - 65.0) < 1e-9
    assert doc["peaks"] == [{"device_name": H100, "rows": 6, "sku": "NVIDIA H100 SXM5 80GB",
                             "source": doc["peaks"][0]["source"]}]
    csv = zl.run("summary", "--format", "csv", str(run), check_rc=0).stdout
    assert csv.splitlines()[0].endswith(",pct_bandwidth,pct_tflops")

    rows_doc = json.loads(zl.run("summary", "--rows", "--format", "json", str(run), check_rc=0).stdout)["rows"]
    shares = [(r["op"], r["pct_bandwidth"], r["pct_tflops"]) for r in rows_doc]
    assert ("mm", None, 25.0) in shares
    assert ("add", 50.0, None) in shares


def test_a_share_above_the_peak_is_named_and_left_out(zl, tmp_path):
    """FlagGems' reductions count their input twice: on the H100, sum of 2 GiB read at 3.02 TB/s
    printed 6049 GB/s (scripts/device/samples_h100.sh, p30). Such a row is no share of the peak."""
    run = constructed_run(zl, tmp_path, H100)
    log = run / "run.log"
    log.write_text(log.read_text() + table("sum", "torch.float16", [1675, 6049], gbps=True))
    out = zl.run("summary", str(run), check_rc=0).stdout
    rows = {" ".join(line.split()[:2]): line.split() for line in out.splitlines() if line.startswith("sum ")}
    assert rows["sum torch.float16"][-2:] == ["50.0", "-"]  # the 181% row is not in the median
    assert ("over peak: 1 row above 100% of the spec peak, left out of %BW and %TFLOPS (first: sum torch.float16 "
            "[torch.Size([2])]: 181%)") in out
    doc = json.loads(zl.run("summary", "--format", "json", str(run), check_rc=0).stdout)
    assert doc["over_peak_rows"] == 1
    rows = json.loads(zl.run("summary", "--rows", "--format", "json", str(run), check_rc=0).stdout)["rows"]
    assert [r["over_peak"] for r in rows if r["op"] == "sum"] == [False, True]


def test_a_mig_instance_has_no_peak(zl, tmp_path):
    run = constructed_run(zl, tmp_path, "NVIDIA H100 80GB HBM3 MIG 1g.10gb")
    proc = zl.run("summary", str(run), check_rc=0)
    assert "%TFLOPS  " not in proc.stdout and "FALLBACK  %BW" not in proc.stdout
    assert 'peak: no spec peak known for device "NVIDIA H100 80GB HBM3 MIG 1g.10gb"' in proc.stdout


def test_summary_shows_the_share_of_the_measured_peak(zl, tmp_path):
    """A calibration kept for the run's device and driver (written here, as zl calibrate keeps
    one: CONSTRUCTED figures) adds %BW(M) and %TFLOPS(M); one for another driver does not."""
    run = constructed_run(zl, tmp_path, H100)
    identity = json.loads((run / "run_identity.json").read_text())
    uuid, driver = identity["device"]["uuid"], identity["telemetry"]["driver"]
    cal = tmp_path / "cal"
    cal.mkdir()
    kept = {"schema": 1, "backend": "cpu", "uuid": uuid, "name": H100, "driver": driver,
            "measured_at": "2026-12-06T03:00:00Z", "torch": "x", "method": "constructed", "copy_bytes": 1 << 30,
            "copy_gbps": 2680, "gemm_n": 8192, "gemm_dtype": "float16", "gemm_tflops": 494.75}
    (cal / f"{uuid}--other-driver.json").write_text(json.dumps(dict(kept, driver="other-driver")))
    env = {"ZL_CALIBRATION_DIR": str(cal)}
    assert "%BW(M)" not in zl.run("summary", str(run), env=env, check_rc=0).stdout
    (cal / f"{uuid}--{driver}.json").write_text(json.dumps(kept))
    out = zl.run("summary", str(run), env=env, check_rc=0).stdout.splitlines()
    header = next(i for i, line in enumerate(out) if line.startswith("OP "))
    assert out[header].split()[-4:] == ["%BW", "%TFLOPS", "%BW(M)", "%TFLOPS(M)"]
    rows = {" ".join(line.split()[:2]): line.split() for line in out[header + 1:header + 5]}
    assert rows["add torch.float16"][-2:] == ["81.2", "-"]  # the median of 62.5% and 100%: 81.25
    assert rows["mm torch.float16"][-2:] == ["-", "100.0"]
    assert rows["mm torch.float32"][-2:] == ["-", "-"]  # the GEMM measured float16: no float32 peak
    text = "\n".join(out)
    assert f"measured: device {uuid} (driver {driver}) reached 2680.0 GB/s copying and 494.750 TFLOPS" in text
    doc = json.loads(zl.run("summary", "--rows", "--format", "json", str(run), env=env, check_rc=0).stdout)
    add = [r for r in doc["rows"] if r["op"] == "add"]
    assert [round(r["pct_bandwidth_measured"], 2) for r in add] == [62.5, 100.0]


def test_a_real_run_carries_the_benchmarks_own_bandwidth(zl, tmp_path):
    """sum's class defines get_gbps: zl asks for it at core level, where FlagGems would not."""
    run = tmp_path / "sum"
    zl.run("run", "--flaggems", str(CORPUS), "--op", "sum", "--python", PYTHON, "--out", str(run), check_rc=0)
    assert "ZL_METRICS_ADDED op=sum benchmark=UnaryReductionBenchmark added=gbps" in (run / "run.log").read_text()
    rows = json.loads(zl.run("summary", "--rows", "--format", "json", str(run), check_rc=0).stdout)["rows"]
    assert len(rows) == 9
    assert all(r["gems_gbps"] > 0 and r["torch_gbps"] > 0 and r["tflops"] is None for r in rows)
    identity = json.loads((run / "run_identity.json").read_text())
    uuid, driver = identity["device"]["uuid"], identity["telemetry"]["driver"]
    cal = tmp_path / "cal"
    cal.mkdir()  # a CONSTRUCTED calibration of the host: 10 GB/s
    (cal / f"{uuid}--{driver}.json").write_text(json.dumps({
        "schema": 1, "backend": "cpu", "uuid": uuid, "name": "host", "driver": driver,
        "measured_at": "2026-12-06T03:00:00Z", "torch": "x", "method": "constructed", "copy_bytes": 1 << 30,
        "copy_gbps": 10, "gemm_n": 8192, "gemm_dtype": "float16", "gemm_tflops": 1}))
    env = {"ZL_CALIBRATION_DIR": str(cal)}
    measured = json.loads(zl.run("summary", "--rows", "--format", "json", str(run), env=env, check_rc=0).stdout)
    for r in measured["rows"]:
        assert abs(r["pct_bandwidth_measured"] - r["gems_gbps"] * 10) < 1e-6  # of 10 GB/s, in percent


def test_report_ranks_ops_by_headroom(zl, tmp_path, browser):  # noqa: F811 (the fixture, imported)
    run = constructed_run(zl, tmp_path, H100)
    page = report(zl, str(run.parent), out=tmp_path / "peak.html")
    open_page(browser, page, "headroom")
    rows = browser.execute_script(
        "return [...document.querySelectorAll('table.headroom tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
    # mm float16 and float32 reach 50% of their peaks, add 65% of the bandwidth: furthest first.
    assert [r[0] for r in rows] == ["mm", "mm", "add"]
    assert rows[-1] == ["add", "torch.float16", "65.0", "-", "35.0%"]
    assert rows[0][3] == "50.0" and rows[0][4] == "50.0%"
