#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds zl, and runs the main job: the backends found, the
# devices of the backend zl selects, and one benchmark of the bundled sample corpus through
# pytest. With no accelerator that is the host backend; the run folder lands in runs/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
zl="${BUILD_DIR:-$root/build}/bin/zl"

# Debian's python3-pytest lives in /usr/bin/python3, which need not be the python3 first on PATH.
if [ -z "${ZL_PYTHON:-}" ] && ! python3 -c 'import pytest' 2>/dev/null && [ -x /usr/bin/python3 ]; then
  export ZL_PYTHON=/usr/bin/python3
fi

"$zl" backends
echo
"$zl" devices
echo
"$zl" run --flaggems "$root/corpus" --op abs
