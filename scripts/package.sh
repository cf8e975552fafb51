#!/usr/bin/env bash
# Builds zl and makes its packages with cpack: one RPM and one DEB each for zl (the CLI, the host
# backend, the plugins, the man page, the docs), zl-devel (the SDK) and zl-backend-<vendor>, in
# <build>/packages/. BUILD_DIR as for build.sh (default build, so after scripts/test.sh nothing is
# rebuilt); extra arguments go to cmake's configure step, e.g. -DZL_PACKAGE_RELEASE=2.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$@"

out="$build/packages"
rm -rf "$out"
cpack --config "$build/CPackConfig.cmake" -B "$out" >"$build/cpack.log" 2>&1 || {
  cat "$build/cpack.log" >&2
  echo "zl: cpack failed (log above, also in $build/cpack.log)" >&2
  exit 1
}
rm -rf "$out/_CPack_Packages"
ls -1 "$out"
