#!/bin/sh
# Runs every case of testkernels/manifest.json once (TK_REPS=1) and fails if any program fails its
# own CPU-reference check. With --usage, only checks that each binary starts and prints its usage
# (exit 2) when given no case: that needs no GPU.
# usage: run_cases.sh [--usage] BUILD_DIR
set -u
usage_only=0
if [ "${1:-}" = "--usage" ]; then
  usage_only=1
  shift
fi
build=${1:?usage: run_cases.sh [--usage] BUILD_DIR}
src=$(cd "$(dirname "$0")" && pwd)
bindir=$build/testkernels
fail=0
if [ $usage_only = 1 ]; then
  for b in $(cat "$bindir/binaries.txt"); do
    "$bindir/$b" >/dev/null 2>"$bindir/$b.usage"
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q '^usage:' "$bindir/$b.usage"; then
      echo "FAIL $b: exit $rc, expected the usage message and exit 2"
      fail=1
    fi
  done
  [ $fail = 0 ] && echo "all testkernels start and print their usage"
  exit $fail
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
python3 - "$src/manifest.json" >"$bindir/cases.txt" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    print(c["id"], c["binary"], " ".join(c["args"]))
PY
while read -r id bin args; do
  start=$(date +%s)
  if TK_REPS=1 "$bindir/$bin" $args >"$bindir/$id.log" 2>&1; then
    echo "ok   $id ($(( $(date +%s) - start )) s)"
  else
    echo "FAIL $id: exit $?"; cat "$bindir/$id.log"
    fail=1
  fi
done <"$bindir/cases.txt"
exit $fail
