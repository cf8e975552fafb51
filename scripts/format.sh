#!/usr/bin/env bash
# Formats every tracked C and C++ source (git ls-files '*.cpp' '*.hpp' '*.h' '*.c') with the
# house style (.clang-format) and the pinned clang-format, or with --check rewrites nothing, lists
# the files it would change and exits 1. The build's `format` and `check-format` targets run it.
#
# Pinned to one major version because each major formats the same file differently: a newer one
# would rewrite files nobody touched. CLANG_FORMAT names the binary (default: clang-format-14,
# then clang-format); another major is refused.
set -euo pipefail
pinned=14
root=$(cd "$(dirname "$0")/.." && pwd)

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac

tool=${CLANG_FORMAT:-}
if [ -z "$tool" ]; then
  for candidate in "clang-format-$pinned" clang-format; do
    if command -v "$candidate" >/dev/null; then tool=$candidate; break; fi
  done
fi
if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
  echo "zl: clang-format-$pinned not found${tool:+ (CLANG_FORMAT='$tool')}: install Debian's clang-format-$pinned" \
       "(scripts/install-deps.sh does), or set CLANG_FORMAT to a clang-format $pinned binary" >&2
  exit 2
fi
version=$("$tool" --version | head -n 1)
major=$(sed -n 's/.*clang-format version \([0-9][0-9]*\)\..*/\1/p' <<<"$version")
if [ "$major" != "$pinned" ]; then
  echo "zl: '$tool' is clang-format ${major:-of unknown version} ('$version'); the house style is pinned to" \
       "clang-format $pinned, whose output differs: install clang-format-$pinned, or set CLANG_FORMAT to it" >&2
  exit 2
fi

if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "zl: '$root' is not a git checkout: format works on the files git tracks" >&2
  exit 2
fi
cd "$root"
files=()
while IFS= read -r -d '' file; do
  [ -f "$file" ] && files+=("$file")   # tracked but deleted in the work tree: nothing to format
done < <(git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.c')

if [ "$check" = 0 ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -r -n 16 -P "$(nproc)" "$tool" -i --style=file
  exit 0
fi

changed=()
for file in "${files[@]}"; do
  "$tool" --style=file "$file" | cmp -s - "$file" || changed+=("$file")
done
if [ ${#changed[@]} -gt 0 ]; then
  printf '%s\n' "${changed[@]}"
  echo "zl: clang-format $pinned would change the ${#changed[@]} files above (of ${#files[@]}):" \
       "run scripts/format.sh (or cmake --build <build> --target format)" >&2
  exit 1
fi
echo "zl: the ${#files[@]} C and C++ sources follow .clang-format"
