#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds zl, and runs the main job: list the backends found,
# then the devices of the backend zl selects (the host backend where no accelerator is present).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
zl="${BUILD_DIR:-$root/build}/bin/zl"
"$zl" backends
echo
"$zl" devices
