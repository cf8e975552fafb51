#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds zl and runs every test: doctest units, the backend
# conformance suite, and end-to-end tests of the zl binary under pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
# ZL_TEST_JOBS tests side by side (default: twice the cores, as the end-to-end tests, one per
# file, spend much of their time waiting; ZL_TEST_JOBS=1 runs them one at a time).
ctest --output-on-failure --no-tests=error -j "${ZL_TEST_JOBS:-$(($(nproc) * 2))}"
