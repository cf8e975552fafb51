#!/usr/bin/env bash
# Measures zl report on a campaign the size of FlagGems' core set (OPS ops × 3 dtypes, SHAPES
# sizes each): the page's weight (target < 10 MB) and the time from opening it to its charts
# drawn in headless Chromium (target < 2 s), for the campaign view and an A/B of the campaign
# against a copy of itself. The run folders carry the run_identity.json and ZL_RUN header of a
# real `zl run` on the sample corpus, and FlagGems' tables for each op. A benchmark, not a test:
# it prints the figures and exits 0.
#   scripts/bench-report.sh [ZL_BINARY] [OPS] [SHAPES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
zl=${1:-$root/build/bin/zl}
ops=${2:-700}
shapes=${3:-12}
python=${ZL_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$zl" run --flaggems "$root/corpus" --op abs --python "$python" --out "$work/seed" >/dev/null 2>&1
"$python" - "$work" "$ops" "$shapes" <<'PY'
import json, math, random, sys
from pathlib import Path
work, n_ops, n_shapes = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
seed = work / "seed"
identity = json.loads((seed / "run_identity.json").read_text())
header = (seed / "run.log").read_text().splitlines()[0]  # ZL_RUN …
random.seed(7)
cols = ["Status".ljust(10), "Torch Latency (ms)".rjust(20), "Gems Latency (ms)".rjust(20), "Gems Speedup".rjust(20),
        "Size Detail".rjust(20)]
head = " ".join(cols)
for i in range(n_ops):
    op = f"op_{i:03d}_" + random.choice(["add", "mul", "softmax", "layer_norm", "mm", "sum", "where"])
    run = work / "campaign" / op
    run.mkdir(parents=True)
    identity["node"]["op"] = op
    identity["run_dir"] = str(run)
    (run / "run_identity.json").write_text(json.dumps(identity))
    log = [header]
    for dtype in ("torch.float16", "torch.bfloat16", "torch.float32"):
        log += ["", f"Operator: {op}  Performance Test (dtype={dtype}, mode=kernel,level=core)", head, "-" * len(head)]
        speed = math.exp(random.gauss(0, 0.4))
        for k in range(n_shapes):
            size = 2 ** (8 + k)
            torch_ms = 0.005 * size / 256 * random.uniform(0.9, 1.1)
            gems_ms = torch_ms / speed * random.uniform(0.95, 1.05)
            if random.random() < 0.003:
                log.append(f"{'FAILED':<10}{'N/A':>20}{'N/A':>20}{'N/A':>20}          [torch.Size([{size}, 1024])]")
            else:
                log.append(f"{'SUCCESS':<10}{torch_ms:>20.6f}{gems_ms:>20.6f}{torch_ms / gems_ms:>20.3f}"
                           f"          [torch.Size([{size}, 1024])]")
    (run / "run.log").write_text("\n".join(log) + "\n")
PY
cp -r "$work/campaign" "$work/copy"
# Thirty nights of the same campaign in one store, for the history view.
for i in $(seq 30); do
  cp -r "$work/campaign" "$work/night-$i"
  "$zl" summary --db "$work/store.sqlite" "$work/night-$i" >/dev/null 2>&1
done

measure() { # name, then zl report's arguments
  local name=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$zl" report "$@" -o "$work/$name.html" 2>/dev/null
  end=$(date +%s.%N)
  printf '%-9s zl report: %5.2f s; page: %5.2f MB; ' "$name" "$(echo "$end - $start" | bc)" \
    "$(echo "scale=2; $(stat -c %s "$work/$name.html") / 1000000" | bc)"
  "$python" - "$work/$name.html" <<'PY'
import sys, time
from pathlib import Path
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600"):
    options.add_argument(arg)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    times = []
    for _ in range(3):
        start = time.monotonic()
        driver.get(Path(sys.argv[1]).resolve().as_uri())
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return window.zlReady === true"))
        wall = time.monotonic() - start
        page = driver.execute_script("return window.zlReadyMs") / 1000
        bars = driver.execute_script("return window.zlCharts.filter(c => c.$zl.kind !== 'latency')"
                                     ".reduce((n, c) => n + c.data.labels.length, 0)")
        drawn = driver.execute_script("return window.zlCharts.length")
        times.append((page, wall))
    best = min(times)
    print(f"open to charts in view drawn: {best[0]:.2f} s in the page ({best[1]:.2f} s through WebDriver); "
          f"{drawn} charts, {bars} bars and points")
finally:
    driver.quit()
PY
}
echo "campaign: $ops ops × 3 dtypes × $shapes sizes"
measure campaign "$work/campaign"
measure ab --ab "$work/campaign" "$work/copy"
measure history --db "$work/store.sqlite" --history 30
