#!/bin/sh
# SPDX-License-Identifier: MIT
# The shipped demo report opens under the current schema: every view
# prints, and `gpuhier demo --report` finds it. A schema change that
# forgets to re-record demo/demo.db (scripts/record-demo.sh) fails here.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
demo=$src/demo/demo.db
if [ ! -f "$demo" ]; then
  echo "skipped: demo/demo.db is not recorded yet (scripts/record-demo.sh on a GPU machine)"
  exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export LC_ALL=C.UTF-8
fail() { echo "t303: $*"; exit 1; }
[ -f "$src/demo/PROVENANCE.md" ] || fail "demo/PROVENANCE.md is missing"
for v in summary kernels configs findings copies; do
  "$bin" report "$demo" --view $v > $v.txt 2> err.txt || { cat err.txt; fail "--view $v failed on the demo report"; }
done
grep -q 'Launches' summary.txt || fail "summary has no totals"
[ "$(wc -l < kernels.txt)" -gt 1 ] || fail "the demo report has no kernels"
grep -q 'H200' summary.txt || fail "the demo report was not recorded on an H200"
! grep -q 'Synthetic' summary.txt || fail "the demo report must be a real recording"
GPUHIER_DATA_DIR=$src "$bin" demo --report --view kernels > demo-kernels.txt || fail "gpuhier demo --report"
cmp kernels.txt demo-kernels.txt || fail "gpuhier demo shows another report"
printf '2<Enter>\n:dump k.txt\n3<Enter>\n:dump f.txt\n' > keys
GPUHIER_DATA_DIR=$src GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$bin" demo || fail "gpuhier demo (tui)"
grep -q 'Memory hierarchy' k.txt || fail "demo kernel detail"
echo "t303: ok"
