#!/usr/bin/env bash
# Configures and builds zl. BUILD_DIR (default build) and ZL_SANITIZE=1 (ASan+UBSan) choose the
# flavour; extra arguments go to cmake's configure step. Warnings are errors (-DZL_WERROR=ON, also
# in a release tarball, where CMake's own default is OFF); ZL_WERROR=OFF turns that off.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
sanitize=OFF
[ "${ZL_SANITIZE:-0}" = 1 ] && sanitize=ON
cmake -S "$root" -B "$build" -G Ninja -DZL_SANITIZE="$sanitize" -DZL_WERROR="${ZL_WERROR:-ON}" "$@" >/dev/null
# Two jobs: the reference machine has two cores and 24 GiB.
cmake --build "$build" -j "${ZL_JOBS:-2}"
