#!/bin/bash
# Installs the build tree's zl into DEST (default .dev/zl) with the shared libraries it needs that
# the accelerator machine's image lacks (fmt, yaml-cpp, Boost), in DEST/deps: that machine can
# install nothing. Run here, after a build; then name .dev in the device tool's carry list.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$root/.dev/zl}
rm -rf "$dest"
cmake --install "${BUILD_DIR:-$root/build}" --prefix "$dest" >/dev/null
mkdir -p "$dest/deps"
for f in "$dest/bin/zl" "$dest"/lib/zl/backends/*.so; do
  ldd "$f" | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -E 'libfmt|libyaml-cpp|libboost|libsqlite3|libcrypto|libstdc\+\+|libgcc_s' |
  while read -r lib; do cp -L "$lib" "$dest/deps/"; done
# Debug info is most of the size; the device tool carries 64 MiB in all.
strip --strip-debug "$dest/bin/zl" "$dest"/lib/zl/backends/*.so "$dest"/deps/*
du -sh "$dest"
