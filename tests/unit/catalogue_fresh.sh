#!/bin/sh
# SPDX-License-Identifier: MIT
# catalogue_fresh.sh COMMITTED GENERATED HOW: fails, with the difference,
# while a committed file differs from what the build generated from
# schema/metrics.catalogue. HOW says how to refresh it.
set -eu
if cmp -s "$1" "$2"; then
  echo "ok: $1 is what the catalogue generates"
  exit 0
fi
echo "FAIL: $1 differs from the catalogue's $2; refresh it with: $3" >&2
diff -u "$1" "$2" >&2 || true
exit 1
