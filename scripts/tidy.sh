#!/usr/bin/env bash
# Runs the pinned clang-tidy (major 14) with .clang-tidy on the tracked C/C++ sources that the
# build tree <build> compiles (its compile_commands.json), or on the FILEs named. Prints each
# finding once (a header's finding comes back from every file including it), a count per check,
# and exits 1 when there is any. Only findings located in the repository's own files count (see
# below). The build's `tidy` target runs it on the whole tree.
# CLANG_TIDY names the binary (default: clang-tidy-14, then clang-tidy); ZL_JOBS the parallelism.
set -euo pipefail
pinned=14
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
  echo "usage: scripts/tidy.sh <build folder> [FILE...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
shift
if [ ! -f "$build/compile_commands.json" ]; then
  echo "zl: '$build/compile_commands.json' is missing: configure that build with cmake" \
       "(zl's CMakeLists sets CMAKE_EXPORT_COMPILE_COMMANDS)" >&2
  exit 2
fi

tool=${CLANG_TIDY:-}
if [ -z "$tool" ]; then
  for candidate in "clang-tidy-$pinned" clang-tidy; do
    if command -v "$candidate" >/dev/null; then tool=$candidate; break; fi
  done
fi
if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
  echo "zl: clang-tidy-$pinned not found${tool:+ (CLANG_TIDY='$tool')}: install Debian's clang-tidy-$pinned," \
       "or set CLANG_TIDY to a clang-tidy $pinned binary" >&2
  exit 2
fi
if ! "$tool" --version | grep -q "LLVM version $pinned\."; then
  echo "zl: '$tool' is not clang-tidy $pinned ('$("$tool" --version | grep -m1 version)'): .clang-tidy's check" \
       "list is written for LLVM $pinned; install clang-tidy-$pinned, or set CLANG_TIDY to it" >&2
  exit 2
fi

cd "$root"
files=()
if [ $# -gt 0 ]; then
  files=("$@")
else
  # What the build compiles, among the files git tracks (not the generated ones, not /usr).
  while IFS= read -r file; do files+=("$file"); done < <(
    python3 - "$build/compile_commands.json" "$root" <<'EOF'
import json, os, subprocess, sys
root = sys.argv[2]
tracked = set(subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.cpp", "*.c"], check=True,
                             capture_output=True, text=True).stdout.split("\0"))
compiled = {os.path.relpath(os.path.join(e["directory"], e["file"]), root) for e in json.load(open(sys.argv[1]))}
print("\n".join(sorted(compiled & tracked)))
EOF
  )
fi

log="$build/tidy.log"
printf '%s\0' "${files[@]}" |
  xargs -0 -r -n 1 -P "${ZL_JOBS:-$(nproc)}" "$tool" -p "$build" --quiet >"$log" 2>&1 || true
if grep -q ': error: ' "$log"; then
  grep ': error: ' "$log" | sort -u >&2
  echo "zl: clang-tidy could not compile some files (errors above; the whole output is in $log)" >&2
  exit 2
fi
# Every check's name, the static analyzer's too (clang-analyzer-core.CallAndMessage: capitals).
all=$(grep -E ': warning: .* \[[A-Za-z0-9.,-]+\]$' "$log" | sort -u || true)
# Only a finding located in a file of this repository counts: one inside a system library's header
# (the analyzer's path through rapidjson's or doctest's code ends there) is not ours to fix, and the
# build's generated files are remade from their sources. clang-tidy names files by absolute path,
# as compile_commands.json does; the root and the build are taken both as given and resolved.
findings=$(r1="$root/" r2="$(pwd -P)/" b1="$build/" b2="$(cd "$build" && pwd -P)/" awk '
  function under(dir) { return index($0, ENVIRON[dir]) == 1 }
  (under("r1") || under("r2")) && !under("b1") && !under("b2")' <<<"$all")
outside=$(($(grep -c . <<<"$all" || true) - $(grep -c . <<<"$findings" || true)))
if [ "$outside" -gt 0 ]; then
  echo "zl: not counted: $outside findings located outside the repository's files (system headers," \
       "generated files; they are in $log)" >&2
fi
if [ -z "$findings" ]; then
  echo "zl: clang-tidy found nothing in ${#files[@]} files"
  exit 0
fi
echo "$findings"
echo
echo "findings per check (each once; the whole output, with the code, is in $log):"
sed -E 's/.*\[([A-Za-z0-9.,-]+)\]$/\1/' <<<"$findings" | sort | uniq -c | sort -rn
echo "zl: clang-tidy found $(wc -l <<<"$findings") things in ${#files[@]} files" >&2
exit 1
