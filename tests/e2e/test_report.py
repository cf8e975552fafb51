"""zl report end to end: pages of real campaigns, opened in headless Chromium (Debian's chromium,
chromium-driver, python3-selenium). Without them the browser tests skip, unless
ZL_REQUIRE_BROWSER=1 (CI), where they fail. Each view's screenshot is kept in
<build>/artifacts/report/."""
import json
import os
import shutil
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import SOURCE_DIR
from test_summary import side, table, write_run

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
ARTIFACTS = Path(os.environ.get("ZL_BUILD_DIR", "/tmp")) / "artifacts" / "report"
VERDICT = {"faster": "#0072B2", "slower": "#D55E00", "same": "#999999", "ambiguous": "#E69F00", "none": "#CCCCCC"}


def browser_missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "python3-selenium is not installed"
    for tool in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not Path(tool).exists():
            return f"{tool} is missing (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="module")
def browser():
    missing = browser_missing()
    if missing:
        if os.environ.get("ZL_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ZL_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def open_page(browser, page, shot):
    """Opens the page from disk, waits for its charts, asserts no console errors; keeps a screenshot."""
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get_log("browser")  # what an earlier page said
    browser.get(page.resolve().as_uri())
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return window.zlReady === true"))
    browser.execute_script("window.zlRenderAll()")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{shot}.png"))


def charts(browser, kind):
    return browser.execute_script(
        "return window.zlCharts.filter(c => c.$zl.kind === arguments[0]).map(c => ({"
        "labels: c.data.labels, colours: c.data.datasets[0].backgroundColor, sizes: c.data.datasets.length,"
        "points: c.data.datasets.map(d => d.data.length),"
        "triangles: c.data.datasets.map(d => [].concat(d.pointStyle).filter(s => s === 'triangle').length),"
        "op: c.$zl.op || null, dtype: c.$zl.dtype || null}))", kind)


# The latency charts as drawn: shapes and element counts in x order, whether a dataset joins its
# points, the boxes of samples drawn, and the tooltip of each dataset's first point.
LATENCY = """return window.zlCharts.filter(c => c.$zl.kind === 'latency').map(c => ({
  op: c.$zl.op, shapes: c.$zl.shapes, counts: c.$zl.counts, boxes: c.$zl.boxes,
  lines: c.data.datasets.map((d, i) => c.getDatasetMeta(i).controller.options.showLine),
  tips: c.data.datasets.map((d, i) => {
    if (d.data.length === 0) return null;
    c.tooltip.setActiveElements([{datasetIndex: i, index: 0}], {x: 0, y: 0});
    c.update();
    return {title: c.tooltip.title, body: c.tooltip.body.flatMap(b => b.lines)};
  })}))"""


def set_filter(browser, text):
    from selenium.webdriver.support.ui import WebDriverWait
    from selenium.webdriver.common.keys import Keys
    box = browser.find_element("id", "zl-filter")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)  # typed, so that the page hears it (clear() fires no input event)
    box.send_keys(text)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.filter") == text)


def text_of(browser):
    return browser.find_element("tag name", "body").text


class Attributes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found += [(tag, k, v) for k, v in attrs if k in ("src", "href")]


def report(zl, *args, out):
    proc = zl.run("report", *args, "-o", str(out), check_rc=0)
    assert f"zl report: wrote {out}" in proc.stderr
    parser = Attributes()
    parser.feed(out.read_text())
    assert parser.found == []  # one file: nothing fetched from anywhere
    return out


def test_campaign_view_of_a_real_campaign(zl, tmp_path, browser):
    campaign = tmp_path / "campaign"
    zl.run("batch", "--flaggems", str(CORPUS), "--ops", "abs,add,mm", "--python", PYTHON, "--out", str(campaign),
           check_rc=0)
    page = report(zl, str(campaign), out=tmp_path / "campaign.html")
    summary = zl.json("summary", str(campaign), "--format", "json")
    measured = [g for g in summary["groups"] if g["geomean_speedup"] is not None]
    open_page(browser, page, "campaign")
    bars = charts(browser, "speedup")
    assert sum(len(c["labels"]) for c in bars) == len(measured) > 0
    assert "backend" in text_of(browser) and "executor" in text_of(browser)
    set_filter(browser, "ab")
    narrowed = sum(len(c["labels"]) for c in charts(browser, "speedup"))
    assert narrowed == len([g for g in measured if "ab" in g["op"]])
    assert 0 < narrowed < len(measured)
    set_filter(browser, "")
    latency = charts(browser, "latency")
    assert len(latency) == len({g["op"] for g in measured})
    # Sizes as points (shapes have no order to draw a line along), by element count.
    for c in browser.execute_script(LATENCY):
        assert c["lines"] == [False] * len(c["lines"])
        assert c["counts"] == sorted(c["counts"]) and None not in c["counts"]
    # It prints: every chart is drawn first (beforeprint), and the PDF is kept with the screenshots.
    import base64
    pdf = base64.b64decode(browser.print_page())
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    (ARTIFACTS / "campaign.pdf").write_bytes(pdf)
    # Each chart's table fallback is collapsed, and built when opened.
    fallbacks = browser.find_elements("css selector", "details.fallback:not(.unstable):not(.readings)")
    assert len(fallbacks) == 1 + len({g["op"] for g in measured}) and not fallbacks[0].get_attribute("open")
    fallbacks[0].find_element("tag name", "summary").click()
    # The toggle event that builds it is queued as a task after the click, so it is waited for.
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(browser, 10).until(lambda d: fallbacks[0].find_elements("css selector", "tbody tr"))
    assert len(fallbacks[0].find_elements("css selector", "tbody tr")) == len(summary["groups"])


def test_declined_ops_are_apart_from_failed_ones(zl, tmp_path, browser):
    campaign = tmp_path / "campaign"
    zl.run("batch", "--flaggems", str(CORPUS), "--ops", "abs,sum_dim,fft,nosuchop", "--dtypes", "float16",
           "--python", PYTHON, "--out", str(campaign), check_rc=1)
    page = report(zl, str(campaign), out=tmp_path / "declined.html")
    open_page(browser, page, "declined")
    declined = [li.text for li in browser.find_elements("css selector", "ul.declined li")]
    unfinished = [li.text for li in browser.find_elements("css selector", "ul.unfinished li")]
    assert sorted(declined) == ["fft: skipped", "sum_dim: unsupported"]
    assert unfinished == ["nosuchop: preflight_failed"]
    assert "Ops FlagGems declined, not failures" in text_of(browser)


def samples_bin(records):
    """samples.bin as python/zl_plugins/zl_samples.py writes it: b"ZLSAMPL1", then per record
    b"ZLR1", u32 header length, u32 count, the JSON header, the float32 ms, the float32 seconds
    after t0, and a CRC-32 of all after the tag; little-endian. records: (header, ms)."""
    out = b"ZLSAMPL1"
    for header, ms in records:
        head = json.dumps(header).encode()
        n = len(ms)
        body = struct.pack(f"<II{len(head)}s{n}f{n}f", len(head), n, head, *ms, *[0.001 * i for i in range(n)])
        out += b"ZLR1" + body + struct.pack("<I", zlib.crc32(body))
    return out


def sampled(shape, returned, ms, stop="converged", op="abs", dtype="torch.float16"):
    """A record of one side of a row: it goes to the row whose latency printed is `returned`."""
    return ({"op": op, "table_op": op, "dtype": dtype, "shape": shape, "timer": "graph", "stop": stop, "calls": 1,
             "returned": returned, "t0": 1.7e9, "stamps": "measured"}, ms)


def evenly(lo, hi, n):
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


SIZES = [("[torch.Size([1073741824])]", 2.0, 1.0), ("[torch.Size([64, 64])]", 0.2, 0.1),
         ("[torch.Size([])]", 0.1, 0.05), ("[torch.Size([8])]", 0.1, 0.05)]  # printed in no order of size


def test_campaign_view_sizes_samples_and_warnings(zl, tmp_path, browser):
    campaign = tmp_path / "campaign"
    message = "ValueError: " + "the operand is out of range; " * 30 + "\n  at line two\n    and three"
    failure = f"\x1b[31mFAILED\x1b[0m: Operator=abs dtype=torch.float32 err=<<<{message}>>>\n"
    one = write_run(campaign / "round-1" / "abs", table("abs", "torch.float16", SIZES) + failure)
    two = write_run(campaign / "round-2" / "abs", table("abs", "torch.float16", SIZES))
    (one / "samples.bin").write_bytes(samples_bin([sampled(SIZES[1][0], 0.1, evenly(0.095, 0.105, 12))]))
    (two / "samples.bin").write_bytes(samples_bin([
        sampled(SIZES[1][0], 0.1, evenly(0.05, 0.15, 30), stop="max_time"),  # noisy, and the most samples
        sampled(SIZES[0][0], 2.0, evenly(1.99, 2.01, 8))]))  # torch's
    page = report(zl, str(campaign), out=tmp_path / "sampled.html")
    open_page(browser, page, "campaign-samples")
    (c,) = browser.execute_script(LATENCY)
    assert c["shapes"] == ["[torch.Size([8])]", "[torch.Size([64, 64])]", "[torch.Size([1073741824])]",
                           "[torch.Size([])]"]  # by element count; the one without a count last
    assert c["counts"] == [8, 4096, 1073741824, None]
    assert c["lines"] == [False, False]  # FlagGems and torch of one dtype: points only
    assert c["boxes"] == 2  # FlagGems at [64, 64] (round 2: 30 samples), torch at the largest size
    gems, torch = c["tips"]
    assert gems["title"] == ["[torch.Size([8])]: 8 elements"]
    assert torch["title"] == ["[torch.Size([8])]: 8 elements"]
    set_filter(browser, "abs")  # the tooltip of the sampled point, through the same callbacks
    tip = browser.execute_script("""const c = window.zlCharts.find(c => c.$zl.kind === 'latency');
      c.tooltip.setActiveElements([{datasetIndex: 0, index: 1}], {x: 0, y: 0}); c.update();
      return {title: c.tooltip.title, body: c.tooltip.body.flatMap(b => b.lines)};""")
    assert tip["title"] == ["[torch.Size([64, 64])]: 4,096 elements"]
    assert tip["body"][0] == "torch.float16 FlagGems: 0.100000 ms (median over rounds)"
    assert tip["body"][1] == "samples: 30 samples, median 0.100000 ms, noise 50.0% (IQR/median), warnings: noisy"
    # The warnings of the unstable run, and the share that stopped at a cap.
    text = text_of(browser)
    assert "1 of 3 rows with samples (33.3%) stopped sampling at a cap" in text
    assert "1 at the time limit" in text
    rows = [[td.text for td in tr.find_elements("tag name", "td")]
            for tr in browser.find_elements("css selector", "details.unstable tbody tr")]
    assert rows == [["abs", "torch.float16", "[torch.Size([64, 64])]", "FlagGems", "noisy", "50.0%", "30", "max_time",
                     f"{two / 'run.log'}:7"]]  # its row: the second of the table
    # The failure's message whole, wrapped as printed: never cut to its first characters.
    cell = browser.find_element("css selector", "details.issues tbody tr td:nth-child(5)")
    assert cell.get_attribute("textContent") == message
    assert cell.value_of_css_property("white-space") == "pre-wrap"
    assert cell.size["width"] < 1200  # wrapped inside the page


def two_ops(root, abs_latencies, neg_latencies):
    """A side of rounds holding two ops: abs and neg, at three sizes each."""
    side(root, abs_latencies)
    for i, lat in enumerate(neg_latencies):
        rows = [(f"[torch.Size([{n}])]", 0.01, lat * n / 64) for n in (64, 128, 256)]
        write_run(root / f"round-{i + 1}" / "neg", table("neg", "torch.float16", rows), op="neg")
    return root


def test_ab_view_colours_are_zl_summarys_verdicts(zl, tmp_path, browser):
    steady = [1.00, 1.01, 0.99, 1.02, 0.98]
    base = two_ops(tmp_path / "base", steady, steady)
    slower = two_ops(tmp_path / "slower", [1.20, 1.21, 1.19, 1.22, 1.18], [0.80, 0.81, 0.79, 0.82, 0.78])
    page = report(zl, "--ab", str(base), str(slower), out=tmp_path / "ab.html")
    expected = zl.json("summary", "--ab", str(base), str(slower), "--format", "json")
    open_page(browser, page, "ab")
    (chart,) = charts(browser, "ab")
    colours = dict(zip(chart["labels"], chart["colours"]))
    ops = expected["ops"][:-1]  # the last is the total
    assert set(colours) == {o["op"] for o in ops if o["pairs"] > 0}
    for op in ops:
        verdict = next((v for v in ("slower", "faster", "ambiguous", "same") if op[v] > 0), "none")
        assert colours[op["op"]] == VERDICT[verdict]
    assert colours["abs"] == VERDICT["slower"] and colours["neg"] == VERDICT["faster"]
    # Per op, each pairing in its own verdict's colour, in zl summary's order.
    assert len(charts(browser, "ab-pairs")) == 2
    for detail in charts(browser, "ab-pairs"):
        verdicts = [p["verdict"] for p in expected["pairings"] if p["op"] == detail["op"]]
        assert detail["colours"] == [VERDICT[v] for v in verdicts] and len(verdicts) == 3
    # No samples kept: no interval, the bar from 1 to B/A as ever.
    assert browser.execute_script(INTERVALS) == [0, 0]
    set_filter(browser, "ne")
    assert charts(browser, "ab")[0]["labels"] == ["neg"]

    # Calibers that differ: refused as zl summary refuses them; --force draws them under a banner.
    other = side(tmp_path / "direct", [1.0, 1.0], timer="direct")
    base = side(tmp_path / "base-abs", steady)
    proc = zl.run("report", "--ab", str(base), str(other), "-o", str(tmp_path / "x.html"), check_rc=2)
    assert "differ in caliber" in proc.stderr
    page = report(zl, "--ab", str(base), str(other), "--force", out=tmp_path / "forced.html")
    open_page(browser, page, "ab-forced")
    assert "The two sides differ in caliber (compared anyway with --force): timer: A=graph B=direct" in text_of(browser)


INTERVALS = "return window.zlCharts.filter(c => c.$zl.kind === 'ab-pairs').map(c => c.$zl.intervals)"


def night(root, latencies, **kw):
    """A nightly campaign of rounds: abs at three sizes, each round's latencies scaled."""
    return side(root, latencies, **kw)


def test_history_view_one_line_per_size(zl, tmp_path, browser):
    db = tmp_path / "store.sqlite"
    steady = [1.00, 1.01, 0.99, 1.02, 0.98]
    # Four nights, then four 30% slower: a level change that held four campaigns (confirmed).
    for i, scale in enumerate([1.0] * 4 + [1.3] * 4):
        zl.run("summary", "--db", str(db), str(night(tmp_path / f"night-{i + 1}", [x * scale for x in steady])),
               check_rc=0)
    # Another caliber in the same store: its own section, never on these lines.
    zl.run("summary", "--db", str(db), str(night(tmp_path / "night-direct", steady, timer="direct")), check_rc=0)
    # Without --history, the store's runs are a campaign view: its two calibers apart.
    page = report(zl, "--db", str(db), out=tmp_path / "store.html")
    data = json.loads(page.read_text().split('id="zl-data">')[1].split("</script>")[0])
    assert len(data["campaign"]["calibers"]) == 2
    page = report(zl, "--db", str(db), "--history", "30", out=tmp_path / "history.html")
    data = json.loads(page.read_text().split('id="zl-data">')[1].split("</script>")[0])
    assert len(data["history"]["calibers"]) == 2
    open_page(browser, page, "history")
    lines = charts(browser, "history")
    assert len(lines) == 2  # abs float16 of each caliber
    for c in lines:
        assert c["sizes"] == 3  # one line per size
    # Log: an op's sizes span decades of latency, which a linear axis flattens.
    assert browser.execute_script(
        "return window.zlCharts.filter(c => c.$zl.kind === 'history').map(c => c.scales.y.type)") == ["logarithmic"] * 2
    by_points = sorted(lines, key=lambda c: c["points"][0])
    assert by_points[0]["points"] == [1, 1, 1] and by_points[1]["points"] == [8, 8, 8]
    # zl history's change point at the fifth night, on every size; none on the other caliber.
    assert by_points[1]["triangles"] == [1, 1, 1] and by_points[0]["triangles"] == [0, 0, 0]
    graph = next(c for c in data["history"]["calibers"] if len(c["campaigns"]) == 8)
    for size, values, changes in graph["charts"][0][2]:
        assert [c[:2] + [c[3]] for c in changes] == [[4, "slower", True]], size
        assert abs(changes[0][2] - 0.3) < 0.01
    from selenium.webdriver.support.ui import WebDriverWait
    browser.execute_script("document.querySelectorAll('details.fallback').forEach(d => { d.open = true; })")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.querySelectorAll('details.fallback table').length > 0"))
    table = browser.execute_script("return document.body.textContent")
    assert "#5 +30.0% slower: nothing recorded changed" in table
    # --history 3: the three drawn follow the night before them, where the level changed.
    data = json.loads(report(zl, "--db", str(db), "--history", "3", out=tmp_path / "h3.html").read_text()
                      .split('id="zl-data">')[1].split("</script>")[0])
    graph = next(c for c in data["history"]["calibers"] if c["before"])
    assert len(graph["campaigns"]) == 3 and graph["before"][0].endswith("night-5")


def test_bad_input_gives_a_clear_page_or_error(zl, tmp_path, browser):
    proc = zl.run("report", str(SOURCE_DIR / "tests/fixtures/flaggems_output/tflops.log"), "-o",
                  str(tmp_path / "no" / "such.html"), check_rc=2)
    assert f"cannot write {tmp_path / 'no' / 'such.html'}" in proc.stderr

    empty = tmp_path / "empty"
    empty.mkdir()
    proc = zl.run("report", str(empty), "-o", str(tmp_path / "empty.html"), check_rc=2)
    assert "empty" in proc.stderr and not (tmp_path / "empty.html").exists()

    proc = zl.run("report", "--db", str(tmp_path / "none.sqlite"), "--history", "5", "-o", str(tmp_path / "n.html"),
                  check_rc=2)
    assert "no results store at" in proc.stderr and not (tmp_path / "none.sqlite").exists()
    (tmp_path / "empty.sqlite").write_bytes(b"")  # SQLite's empty database: a store with no runs
    page = report(zl, "--db", str(tmp_path / "empty.sqlite"), "--history", "5", out=tmp_path / "none.html")
    open_page(browser, page, "history-empty")
    assert "The store holds no runs: there is no history to draw." in text_of(browser)

    mixed = tmp_path / "mixed"
    write_run(mixed / "abs", table("abs", "torch.float16", [("[torch.Size([64])]", 1.0, 0.5)]))
    write_run(mixed / "add", table("add", "torch.float16", [("[torch.Size([64])]", 1.0, 2.0)]), timer="direct",
              op="add")
    page = report(zl, str(mixed), out=tmp_path / "mixed.html")
    open_page(browser, page, "campaign-mixed")
    assert "These runs are of 2 different calibers" in text_of(browser)
    assert len(charts(browser, "speedup")) == 2  # one per caliber: never one chart of both

    failed = tmp_path / "failed"
    write_run(failed / "abs", table("abs", "torch.float16", []).replace("-\n", "-\n" + f"{'FAILED':<10}{'N/A':>20}"
                                                                   f"{'N/A':>20}{'N/A':>20}          [torch.Size([64])]\n"))
    page = report(zl, str(failed), out=tmp_path / "failed.html")
    open_page(browser, page, "campaign-all-failed")
    assert "No row of this caliber was measured" in text_of(browser)
    assert "failed: 1" in text_of(browser)
    assert "[torch.Size([64])]" in text_of(browser)  # a few failures are listed open, with their rows

    hostile = tmp_path / "hostile"
    name = "</script><!--<script>abs"
    write_run(hostile / "abs", table(name, "torch.float16", [("[torch.Size([64])]", 1.0, 0.5)]))
    page = report(zl, str(hostile), out=tmp_path / "hostile.html")
    open_page(browser, page, "campaign-hostile-name")
    assert charts(browser, "speedup")[0]["labels"] == [name]  # data, never markup

    huge = tmp_path / "huge"
    name = "x" * (10 * 1024 * 1024)
    write_run(huge / "abs", table(name, "torch.float16", [("[torch.Size([64])]", 1.0, 0.5)]))
    page = report(zl, str(huge), out=tmp_path / "huge.html")
    assert page.stat().st_size < 2_000_000
    open_page(browser, page, "campaign-huge-name")
    assert "Labels longer than 512 bytes (op names, Size Details, …) are shortened on this page" in text_of(browser)
    assert "(10485760 bytes)" in text_of(browser)
    assert len(charts(browser, "speedup")[0]["labels"]) == 1


def test_campaign_view_draws_the_device_timeline(zl, tmp_path, browser):
    """A real campaign whose readings are replaced by constructed ones (a clock, a rising
    temperature, a power cap from the middle of abs on): the timeline and the throttled rows."""
    campaign = tmp_path / "campaign"
    zl.run("batch", "--flaggems", str(CORPUS), "--ops", "abs,add", "--python", PYTHON, "--out", str(campaign),
           "--sampling", "ci=1%,min=10,max=3000,max-time=0.05", check_rc=0)
    run = campaign / "abs"
    real = [json.loads(line) for line in (run / "telemetry.jsonl").read_text().splitlines()]
    start, end = real[0]["at"], real[-1]["at"]
    lines, t = [], start
    while t <= end:
        capped = t >= (start + end) / 2
        lines.append(json.dumps({"at": t, "phase": "during", "sm_clock_mhz": 1980, "sm_clock_max_mhz": 1980,
                                 "temperature_c": 40 + int(20 * (t - start) / (end - start)),
                                 "throttle": 4 if capped else 0, "throttle_text": "SwPowerCap" if capped else ""}))
        t += 0.005
    (run / "telemetry.jsonl").write_text("\n".join(lines) + "\n")
    throttled = zl.json("summary", str(campaign), "--format", "json")["total"]["throttled"]
    assert throttled > 0
    page = report(zl, str(campaign), out=tmp_path / "timeline.html")
    open_page(browser, page, "timeline")
    (chart,) = browser.execute_script(
        "return window.zlCharts.filter(c => c.$zl.kind === 'timeline').map(c => ({"
        "labels: c.data.datasets.map(d => d.label), points: c.data.datasets.map(d => d.data.length),"
        "throttled: c.$zl.throttled}))")
    assert chart["labels"] == ["SM clock (MHz)", "temperature (°C)", "throttled"]
    assert chart["points"][0] > 10 and chart["points"][1] > 10 and 0 < chart["points"][2] < chart["points"][0]
    assert chart["throttled"] == throttled
    assert f"{throttled} rows were timed while the device was throttled (first: throttle reason power " \
           "(SwPowerCap))" in text_of(browser)
