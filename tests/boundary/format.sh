#!/bin/sh
# Format check (STYLE.md §3): every tracked C file matches .clang-format.
# The CUDA testkernels are C++ and keep their own layout.
set -u
src=${GPUHIER_SOURCE_DIR:-$(dirname "$0")/../..}
command -v clang-format >/dev/null 2>&1 || { echo "skipped: clang-format not installed"; exit 77; }
cd "$src" || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^testkernels/')
[ -n "$files" ] || { echo "skipped: not a git checkout"; exit 77; }
bad=0
for f in $files; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || { echo "format: $f differs from .clang-format (run clang-format -i $f)"; bad=1; }
done
[ $bad = 0 ] && echo "format: $(echo "$files" | wc -l) files ok"
exit $bad
