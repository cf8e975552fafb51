"""zl report end to end, continued: the history's gaps and its first campaign, the markers and the
caliber header, the A/B view's intervals, and hostile input (identities of the wrong shape, link
loops, FIFOs, -o that is not a file, concurrent and interrupted writes). The browser tests share
test_report's Chromium."""
import json
import os
import signal
import subprocess
import time

from conftest import SOURCE_DIR, ZL_BIN
from test_report import browser  # noqa: F401 (a fixture)
from test_report import INTERVALS, charts, evenly, open_page, report, sampled, samples_bin, text_of
from test_summary import side, table, write_run

STEADY = [1.00, 1.01, 0.99, 1.02, 0.98]


def data_of(page):
    return json.loads(page.read_text().split('id="zl-data">')[1].split("</script>")[0])


def history_points(browser, op):
    return browser.execute_script(
        "return window.zlCharts.filter(c => c.$zl.kind === 'history' && c.$zl.op === arguments[0])"
        ".map(c => ({labels: c.data.labels, sizes: c.data.datasets.map(d => d.label), data: c.data.datasets.map(d => d.data),"
        " spanGaps:"
        " c.data.datasets.map(d => d.spanGaps === true || c.options.spanGaps === true)}))", op)


def test_history_op_missing_from_a_campaign_and_the_campaign_before_the_window(zl, tmp_path, browser):
    db = tmp_path / "store.sqlite"
    # neg is in nights 1, 3 and 4, not in night 2; abs is 30% slower on night 3 alone.
    for i, (abs_scale, neg) in enumerate([(1.0, True), (1.0, False), (1.3, True), (1.0, True)]):
        root = side(tmp_path / f"night-{i + 1}", [x * abs_scale for x in STEADY])
        if neg:
            for r, lat in enumerate(STEADY):
                rows = [(f"[torch.Size([{n}])]", 0.01, lat * n / 32) for n in (64, 128)]
                write_run(root / f"round-{r + 1}" / "neg", table("neg", "torch.float16", rows), op="neg")
        zl.run("summary", "--db", str(db), str(root), check_rc=0)

    page = report(zl, "--db", str(db), "--history", "30", out=tmp_path / "history.html")
    open_page(browser, page, "history-gap")  # no console error: a missing point throws nothing
    (neg,) = history_points(browser, "neg")
    assert len(neg["data"]) == 2  # one line per size
    for line in neg["data"]:
        # The gap stays where night 2 is: a null, not the next night's value pulled to the left.
        assert len(line) == 4 and line[1] is None and None not in (line[0], line[2], line[3])
        assert line[2] == line[3] and line[0] == line[2]
    assert neg["spanGaps"] == [False, False]  # drawn with a gap, never a line across night 2
    (abs_,) = [c for c in charts(browser, "history") if c["op"] == "abs"]
    assert abs_["triangles"] == [0, 0, 0]  # one night's spike is no level change
    # One line per size, in the order the runs printed them (not sorted as text: 64 before 128).
    assert history_points(browser, "abs")[0]["sizes"] == [f"[torch.Size([{n}])]" for n in (64, 128, 256)]
    assert "the one just before #1" not in text_of(browser)

    # A window of the last two nights: night 2, just before it, is named (and looked at).
    page = report(zl, "--db", str(db), "--history", "2", out=tmp_path / "history-2.html")
    data = data_of(page)["history"]["calibers"][0]
    assert data["before"][0] == str(tmp_path / "night-2")
    open_page(browser, page, "history-window")
    assert f"the one just before #1 in the store: {tmp_path / 'night-2'}" in text_of(browser)
    (abs_,) = [c for c in charts(browser, "history") if c["op"] == "abs"]
    assert abs_["triangles"] == [0, 0, 0] and abs_["points"] == [2, 2, 2]
    (neg,) = history_points(browser, "neg")
    assert [len(line) for line in neg["data"]] == [2, 2]


def test_ab_view_draws_each_pairings_interval(zl, tmp_path, browser):
    steady = [1.00, 1.01, 0.99, 1.02, 0.98]
    page = report(zl, "--ab", str(side(tmp_path / "a", steady)), str(side(tmp_path / "b", steady)),
                  out=tmp_path / "ab.html")
    # The page draws what the data says: the first pairing given an interval as compare gives one
    # from samples (B 20% faster, [-25%, -15%]), the others left without, as rounds alone give.
    data = data_of(page)
    first = data["ab"]["pairings"][0]
    first[6:12] = ["faster", 0.001, -0.2, -0.25, -0.15, 0.002]
    head, rest = page.read_text().split('id="zl-data">')
    patched = tmp_path / "ab-interval.html"
    patched.write_text(head + 'id="zl-data">' + json.dumps(data).replace("<", "\\u003c") + "</script>" +
                       rest.split("</script>", 1)[1])
    open_page(browser, patched, "ab-interval")
    assert browser.execute_script(INTERVALS) == [1]
    bars = browser.execute_script("""const c = window.zlCharts.find(c => c.$zl.kind === 'ab-pairs');
      c.tooltip.setActiveElements([{datasetIndex: 0, index: 0}], {x: 0, y: 0}); c.update();
      return {estimate: c.data.datasets[0].data, interval: c.data.datasets[1].data,
              tip: c.tooltip.body.flatMap(b => b.lines)};""")
    assert bars["estimate"][0] == [1, 0.8] and bars["interval"][0] == [0.75, 0.85]
    assert bars["interval"][1:] == [None, None]
    assert "B vs A -20.0% [-25.0%, -15.0%], faster, p 0.0010, q 0.0020" in bars["tip"][0]
    table = browser.find_elements("css selector", "section.op details.fallback")[0]
    table.find_element("tag name", "summary").click()
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(browser, 10).until(lambda d: table.find_elements("css selector", "tbody tr"))
    rows = [[td.text for td in tr.find_elements("tag name", "td")]
            for tr in table.find_elements("css selector", "tbody tr")]
    assert rows[0][5:] == ["-20.0%", "[-25.0%, -15.0%]", "faster", "0.0010", "0.0020"]
    assert rows[1][5:7] == ["-", "-"]  # no samples: as before, B/A and the rounds' verdict only


def test_ab_view_intervals_from_samples(zl, tmp_path, browser):
    """Both sides kept samples: each pairing comes with the interval of B/A that compare computes."""
    def sampled_side(root, scale):
        side(root, [scale] * 3)
        for r in range(3):
            (root / f"round-{r + 1}" / "abs" / "samples.bin").write_bytes(samples_bin([
                sampled(f"[torch.Size([{n}])]", scale * n / 64, [x * scale * n / 64 for x in evenly(0.95, 1.05, 20)])
                for n in (64, 128, 256)]))
        return root
    page = report(zl, "--ab", str(sampled_side(tmp_path / "a", 1.0)), str(sampled_side(tmp_path / "b", 1.2)),
                  out=tmp_path / "ab.html")
    pairings = data_of(page)["ab"]["pairings"]
    assert len(pairings) == 3
    for p in pairings:
        assert p[9] <= p[8] <= p[10] and p[9] < 0.2 < p[10] and p[6] == "slower"
    open_page(browser, page, "ab-samples")
    assert browser.execute_script(INTERVALS) == [3]
    tip = browser.execute_script("""const c = window.zlCharts.find(c => c.$zl.kind === 'ab-pairs');
      c.tooltip.setActiveElements([{datasetIndex: 0, index: 0}], {x: 0, y: 0}); c.update();
      return c.tooltip.body[0].lines[0];""")
    assert "B vs A +20.0% [" in tip and ", slower, p " in tip and ", q " in tip


def test_markers_and_fallbacks_are_listed_with_their_rows(zl, tmp_path, browser):
    log = SOURCE_DIR / "tests/fixtures/flaggems_output/markers.log"
    page = report(zl, str(log), out=tmp_path / "markers.html")
    (caliber,) = data_of(page)["campaign"]["calibers"]
    issues = {(i[0], i[1]): i for i in caliber["issues"]}
    # [kind, op, dtype, Size Detail, detail, FILE:LINE]
    fallback = issues[("BENCHMARK_DIRECT_NO_CUDAGRAPH", "dropout")]
    assert fallback[2:4] == ["torch.float16", "[torch.Size([64, 64])]"] and fallback[5] == f"{log}:12"
    poisoned = issues[("BENCHMARK_CAPTURE_POISONED", "unique2")]
    assert "MUSA error: unknown error" in poisoned[4] and poisoned[5] == f"{log}:16 (its row: line 27)"
    replay = issues[("AUTOTUNE_REPLAY_FALLBACK", "dropout")]
    assert "kernel=dropout_kernel" in replay[4] and "key=(64, 64)" in replay[4] and replay[5] == f"{log}:6"
    assert issues[("failed", "unique2")][5] == f"{log}:27"  # the failure the poisoned capture left
    # rand's BENCHMARK_DIRECT_NO_CUDAGRAPH is cut off inside its JSON string: it matches no row.
    open_page(browser, page, "campaign-markers")
    text = text_of(browser)
    for what in ("BENCHMARK_CAPTURE_POISONED: 1", "AUTOTUNE_REPLAY_FALLBACK: 1", "BENCHMARK_DIRECT_NO_CUDAGRAPH: 1",
                 "dropout_kernel", "MUSA error: unknown error", f"{log}:16 (its row: line 27)"):
        assert what in text


def identity(path, **fields):
    doc = json.loads((path / "run_identity.json").read_text())
    doc.update(fields)
    (path / "run_identity.json").write_text(json.dumps(doc))


def test_caliber_header_devices_executor_and_slurm(zl, tmp_path, browser):
    campaign = tmp_path / "slurm"
    for task, op in enumerate(("abs", "neg", "exp")):
        run = write_run(campaign / op, table(op, "torch.float16", [("[torch.Size([64])]", 1.0, 0.5)]), op=op)
        identity(run, device={"name": "NVIDIA H200", "uuid": f"GPU-{task}"}, executor={"name": "warm"},
                 tuner_cache={"mode": "isolated"}, flaggems_commit="abc123",
                 slurm={"job_id": "4242", "array_job_id": "4241", "array_task_id": str(task), "node": f"gpu-{task % 2}",
                        "job_gpus": "0"})
    page = report(zl, str(campaign), out=tmp_path / "slurm.html")
    open_page(browser, page, "campaign-slurm")
    text = text_of(browser)
    for what in ("NVIDIA H200 (GPU-0) | NVIDIA H200 (GPU-1) | NVIDIA H200 (GPU-2)", "tuner cache\nisolated",
                 "executor\nwarm", "Slurm job\n4241", "Slurm array tasks\n0-2 (3 tasks)", "Slurm node\ngpu-0 | gpu-1",
                 "FlagGems commit\nabc123"):
        assert what in text


def test_identities_of_the_wrong_shape(zl, tmp_path, browser):
    campaign = tmp_path / "odd"
    shapes = [
        {},
        {"backend": 3, "timer": "graph", "device": [1], "executor": "warm", "slurm": 5, "versions": "x",
         "pytest_extra_args": {"a": 1}, "started_at": 7, "duration_s": "x", "node": None, "tuner_cache": [],
         "level": {"x": 1}, "mode": 2, "flaggems_commit": 4, "zl_version": None, "status": 1},
        {"slurm": {"job_id": 7, "array_task_id": None, "node": ["x"]}, "versions": {"torch": 2, "fmt": None},
         "device": {"name": 1, "uuid": None}, "executor": {"name": []}, "backend": {"name": None, "version": 12}},
        [],
        "not json {",
    ]
    for i, doc in enumerate(shapes):
        op = f"op{i}"
        run = write_run(campaign / op, table(op, "torch.float16", [("[torch.Size([64])]", 1.0, 0.5)]), op=op)
        (run / "run_identity.json").write_text(doc if isinstance(doc, str) else json.dumps(doc))
    proc = zl.run("report", str(campaign), "-o", str(tmp_path / "odd.html"), check_rc=0)
    assert "wrote" in proc.stderr
    open_page(browser, tmp_path / "odd.html", "campaign-odd-identities")
    assert sum(len(c["labels"]) for c in charts(browser, "speedup")) == len(shapes)
    db = tmp_path / "odd.sqlite"
    zl.run("summary", "--db", str(db), str(campaign), check_rc=0)
    report(zl, "--db", str(db), "--history", "3", out=tmp_path / "odd-history.html")


def test_link_loops_and_fifos_as_input(zl, tmp_path):
    campaign = tmp_path / "campaign"
    write_run(campaign / "abs", table("abs", "torch.float16", [("[torch.Size([64])]", 1.0, 0.5)]))
    (campaign / "loop").symlink_to(campaign)  # a link back into the campaign: not followed
    (campaign / "abs" / "again").symlink_to(campaign)
    page = report(zl, str(campaign), out=tmp_path / "loop.html")
    assert len(data_of(page)["campaign"]["calibers"][0]["groups"]) == 1

    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    proc = zl.run("report", str(tmp_path / "a"), "-o", str(tmp_path / "a.html"), check_rc=2)
    assert str(tmp_path / "a") in proc.stderr and not (tmp_path / "a.html").exists()

    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    # No writer: zl does not wait for one (it reads what is there: nothing), and says so.
    proc = zl.run("report", str(fifo), "-o", str(tmp_path / "fifo.html"), check_rc=2)
    assert f"no FlagGems table or record log found in {fifo}" in proc.stderr
    assert not (tmp_path / "fifo.html").exists()
    # A writer waiting on it (as `zl report <(…)` has): read as a stream, as it is given.
    log = SOURCE_DIR / "tests/fixtures/flaggems_output/markers.log"
    writer = subprocess.Popen(["/bin/sh", "-c", 'exec cat "$0" > "$1"', str(log), str(fifo)])
    time.sleep(0.5)  # the writer is then blocked in open() until zl opens the other end
    page = report(zl, str(fifo), out=tmp_path / "fifo.html")
    assert writer.wait(timeout=30) == 0
    assert {g[0] for g in data_of(page)["campaign"]["calibers"][0]["groups"]} == {"dropout", "rand", "unique2"}


def test_output_that_is_not_a_file(zl, tmp_path):
    log = str(SOURCE_DIR / "tests/fixtures/flaggems_output/markers.log")
    folder = tmp_path / "folder"
    folder.mkdir()
    proc = zl.run("report", log, "-o", str(folder), check_rc=2)
    assert f"-o {folder} is a folder" in proc.stderr and list(folder.iterdir()) == []
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    proc = zl.run("report", log, "-o", str(fifo), check_rc=2)
    assert f"-o {fifo} is a FIFO, not a regular file" in proc.stderr
    assert os.path.exists(fifo) and not os.path.isfile(fifo)  # still the FIFO: never replaced by a file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "out.fifo"]  # no temporary file left


def big_campaign(root, ops=300):
    for k in range(ops):
        rows = [(f"[torch.Size([{n}, {k + 1}])]", 0.01 * n, 0.009 * n) for n in (64, 128, 256, 512)]
        write_run(root / f"op{k}", table(f"op{k}", "torch.float16", rows), op=f"op{k}")
    return root


def complete(path):
    text = path.read_text()
    return text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")


def test_concurrent_and_interrupted_writes(zl, tmp_path):
    campaign = big_campaign(tmp_path / "campaign")
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    command = [ZL_BIN, "report", str(campaign), "-o", str(out)]
    procs = [subprocess.Popen(command, env=zl.env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=60) == 0, p.stderr.read()
    assert complete(out) and os.listdir(out.parent) == ["report.html"]

    # SIGINT at moments spread over a run: the page is whole or absent, and no temporary file stays.
    start = time.monotonic()
    subprocess.run(command, env=zl.env, capture_output=True, check=True)
    took = time.monotonic() - start
    for k in range(12):
        out.unlink(missing_ok=True)
        proc = subprocess.Popen(command, env=zl.env, stderr=subprocess.DEVNULL)
        time.sleep(took * (0.4 + k * 0.06))
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
        assert rc in (0, -signal.SIGINT)
        left = os.listdir(out.parent)
        assert left in ([], ["report.html"]), left
        assert rc != 0 or left == ["report.html"]
        if left:
            assert complete(out)

