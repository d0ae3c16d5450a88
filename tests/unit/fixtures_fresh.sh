#!/bin/sh
# SPDX-License-Identifier: MIT
# fixtures_fresh.sh FIXTURES SCRATCH: runs tests/fixtures/rule-fixtures.py
# into SCRATCH and fails while a committed rule-<id>.sql differs from what
# it makes of schema/metrics.catalogue (a metric renamed or dropped there).
set -eu
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
rm -rf "$2"
mkdir -p "$2"
python3 "$1/rule-fixtures.py" "$2"
bad=0
for f in "$2"/rule-*.sql; do
  name=$(basename "$f")
  if ! cmp -s "$f" "$1/$name"; then
    echo "FAIL: tests/fixtures/$name is not what rule-fixtures.py makes now; run it and review the diff" >&2
    diff -u "$1/$name" "$f" >&2 || true
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "ok: the generated rule fixtures are committed as generated"
exit $bad
