#!/usr/bin/env bash
# Installs what building and testing zl needs, from Debian's packages. Idempotent: does nothing
# when everything is present. Runs apt-get as root, or through sudo.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config file git
  libboost-dev libboost-filesystem-dev libboost-program-options-dev
  libfmt-dev libyaml-cpp-dev rapidjson-dev libsqlite3-dev sqlite3 libssl-dev doctest-dev
  python3 python3-pytest python3-yaml libbenchmark-dev
  rpm rpm2cpio dpkg-dev    # the packages: rpmbuild and rpm2archive for the RPMs, dpkg-shlibdeps for the DEBs
  clang-format-14 clang-tidy-14   # the house rules, pinned: the format, check-format and tidy targets
  clang-14 libclang-rt-14-dev     # the fuzz targets (scripts/fuzz.sh): libFuzzer and the sanitizers' runtimes
  libjs-chart.js                  # zl report: Chart.js, inlined into the binary at build time
  chromium chromium-driver python3-selenium   # zl report's browser tests (tests/e2e/test_report.py)
  python3-torch                   # zl calibrate's tests: a copy and a GEMM through torch on the host
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "zl: installing ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
