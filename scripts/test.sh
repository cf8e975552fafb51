#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds zl and runs every test: doctest units, the backend
# conformance suite, and end-to-end tests of the zl binary under pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure --no-tests=error
