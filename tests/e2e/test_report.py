"""zl report end to end: pages of real campaigns, opened in headless Chromium (Debian's chromium,
chromium-driver, python3-selenium). Without them the browser tests skip, unless
ZL_REQUIRE_BROWSER=1 (CI), where they fail. Each view's screenshot is kept in
<build>/artifacts/report/."""
import json
import os
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import SOURCE_DIR
from test_summary import side, table, write_run

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
ARTIFACTS = Path(os.environ.get("ZL_BUILD_DIR", "/tmp")) / "artifacts" / "report"
VERDICT = {"faster": "#0072B2", "slower": "#D55E00", "same": "#999999", "noisy": "#E69F00", "none": "#CCCCCC"}


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
    assert len(charts(browser, "latency")) == len({g["op"] for g in measured})
    # It prints: every chart is drawn first (beforeprint), and the PDF is kept with the screenshots.
    import base64
    pdf = base64.b64decode(browser.print_page())
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    (ARTIFACTS / "campaign.pdf").write_bytes(pdf)
    # Each chart's table fallback is collapsed, and built when opened.
    fallbacks = browser.find_elements("css selector", "details.fallback")
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
        verdict = next((v for v in ("slower", "faster", "noisy", "same") if op[v] > 0), "none")
        assert colours[op["op"]] == VERDICT[verdict]
    assert colours["abs"] == VERDICT["slower"] and colours["neg"] == VERDICT["faster"]
    # Per op, each pairing in its own verdict's colour, in zl summary's order.
    assert len(charts(browser, "ab-pairs")) == 2
    for detail in charts(browser, "ab-pairs"):
        verdicts = [p["verdict"] for p in expected["pairings"] if p["op"] == detail["op"]]
        assert detail["colours"] == [VERDICT[v] for v in verdicts] and len(verdicts) == 3
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


def night(root, latencies, **kw):
    """A nightly campaign of rounds: abs at three sizes, each round's latencies scaled."""
    return side(root, latencies, **kw)


def test_history_view_one_line_per_size(zl, tmp_path, browser):
    db = tmp_path / "store.sqlite"
    steady = [1.00, 1.01, 0.99, 1.02, 0.98]
    for i, lat in enumerate([steady, steady, [x * 1.3 for x in steady]]):
        zl.run("summary", "--db", str(db), str(night(tmp_path / f"night-{i + 1}", lat)), check_rc=0)
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
    by_points = sorted(lines, key=lambda c: c["points"][0])
    assert by_points[0]["points"] == [1, 1, 1] and by_points[1]["points"] == [3, 3, 3]
    # The third night is 30% slower at every size: the U test over five rounds calls it.
    assert by_points[1]["triangles"] == [1, 1, 1] and by_points[0]["triangles"] == [0, 0, 0]


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
