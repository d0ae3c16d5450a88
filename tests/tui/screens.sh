#!/bin/sh
# SPDX-License-Identifier: MIT
#
# screens.sh CASE: drive the TUI with a keystroke script and compare its
# screens with the expected ones (tig's test/tools/libtest.sh idea).
#
# tests/tui/CASE/ holds:
#   fixture     the report to build (tests/tui/make_fixture.sh NAME)
#   keys        the GPUHIER_TUI_SCRIPT: keys, <Name> for special keys,
#               ':dump FILE' writes the 80x24 screen, ':dump-types FILE'
#               its colours (a letter per cell: 'a' + enum line_type),
#               ':resize C R'
#   args        extra arguments for `gpuhier tui` (default: --raw)
#   before      a fixture name: the case browses the diff `gpuhier tui
#               $args before.db report.db` (before.db built from it)
#   env         extra VAR=value lines for the run (e.g. LC_ALL=C)
#   *.expected  each dumped screen, as it must be
#   check.sh    optional further checks, run in the work directory
# GPUHIER_TUI_UPDATE=1 rewrites the expected files from this run.
set -eu
case=$1
src=${GPUHIER_SOURCE_DIR:?}
bin=${GPUHIER_BINARY_DIR:?}/gpuhier
dir=$src/tests/tui/$case
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$src/tests/tui/make_fixture.sh" "$(cat "$dir/fixture")" "$tmp/report.db"
before=""
if [ -f "$dir/before" ]; then
  "$src/tests/tui/make_fixture.sh" "$(cat "$dir/before")" "$tmp/before.db"
  before=before.db
fi
args=--raw
[ -f "$dir/args" ] && args=$(cat "$dir/args")
extra=""
[ -f "$dir/env" ] && extra=$(cat "$dir/env")
cd "$tmp"
# shellcheck disable=SC2086
if ! env LC_ALL=C.UTF-8 TERM=xterm $extra GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT="$dir/keys" \
    "$bin" tui $args $before report.db >stdout.txt 2>stderr.txt; then
  echo "tui/$case: gpuhier tui failed:"; cat stderr.txt; exit 1
fi
fail=0
for f in $(sed -n 's/^:dump\(-types\)\{0,1\} //p' "$dir/keys"); do
  if [ "${GPUHIER_TUI_UPDATE:-0}" = 1 ]; then
    cp "$f" "$dir/${f%.txt}.expected"
    continue
  fi
  if [ ! -f "$f" ]; then
    echo "tui/$case: screen '$f' was not written"; fail=1; continue
  fi
  if ! diff -u "$dir/${f%.txt}.expected" "$f"; then
    echo "tui/$case: screen '$f' differs from ${f%.txt}.expected (above)"; fail=1
  fi
done
if [ -f "$dir/check.sh" ]; then
  GPUHIER="$bin" sh "$dir/check.sh" || { echo "tui/$case: check.sh failed"; fail=1; }
fi
[ $fail = 0 ] && echo "tui/$case: ok"
exit $fail
