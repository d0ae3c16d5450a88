#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/sassprobe/test_cpu.sh LIB: what can be checked of libgh_sassprobe.so
# without a GPU. It exports InitializeInjection and no other function; loaded
# into a program (LD_PRELOAD, or dlopen and InitializeInjection called as the
# driver would) it leaves the exit status and stdout alone, writes its
# per-process JSON (valid, with the pattern asked for and the failed calls
# counted) and survives an output directory it cannot write.
set -u
lib=${1:?libgh_sassprobe.so}
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | grep -v -E '^_(init|fini)$')
[ "$syms" = "InitializeInjection" ] || bad "exported functions are '$syms', want InitializeInjection only"

out=$(LD_PRELOAD="$lib" sh -c 'echo hello; exit 7')
rc=$?
[ $rc -eq 7 ] || bad "LD_PRELOAD changed the exit status to $rc"
[ "$out" = "hello" ] || bad "LD_PRELOAD changed stdout: '$out'"

if ! command -v python3 >/dev/null; then
    echo "python3 missing: the InitializeInjection checks are skipped"
    exit $fail
fi
call='import ctypes, sys; r = ctypes.CDLL(sys.argv[1]).InitializeInjection(); sys.exit(5 if r == 1 else 9)'
out=$(SASSPROBE_OUT="$t/o" SASSPROBE_PATTERN=rearm python3 -c "$call" "$lib")
rc=$?
[ $rc -eq 5 ] || bad "InitializeInjection: exit status $rc, want 5 (it returned 1 and the host went on)"
[ -z "$out" ] || bad "InitializeInjection wrote to stdout: '$out'"
n=$(ls "$t/o" 2>/dev/null | grep -c '^sassprobe-[0-9]*\.json$')
[ "$n" = 1 ] || bad "want one sassprobe-PID.json in SASSPROBE_OUT, found $n"
for f in "$t"/o/sassprobe-*.json; do
    [ -f "$f" ] || continue
    python3 - "$f" <<'PY' || bad "output $f is wrong: $(cat "$f")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pattern"] == "rearm", d["pattern"]
assert d["lazy"] == 1
assert len(d["metrics"]) == 6
# without a GPU something must have failed, and the failure is counted by call
assert d["errors"] and all(e["count"] >= 1 and e["call"] for e in d["errors"]), d["errors"]
assert d["counts"]["launches"] == 0 and d["functions"] == []
PY
done
out=$(SASSPROBE_OUT=/proc/self/nonexistent/x python3 -c "$call" "$lib" 2>&1)
rc=$?
[ $rc -eq 5 ] || bad "an unwritable SASSPROBE_OUT changed the exit status to $rc ($out)"
# table.py on a synthetic run tree (labelled synthetic: these numbers are made up here)
r="$t/tab/runs"
mkdir -p "$r/native/cases" "$r/synthetic-a/cases" "$r/synthetic-a/torch" "$r/synthetic-skip"
echo budget > "$r/synthetic-skip/skipped"
for x in native synthetic-a; do echo 0 > "$r/$x/cases/rc"; echo 2.000 > "$r/$x/cases/wall"; done
echo 3.000 > "$r/synthetic-a/cases/wall"
cp "$t"/o/sassprobe-*.json "$r/synthetic-a/torch/" 2>/dev/null
cat > "$r/synthetic-a/cases/sassprobe-1.json" <<'JS'
{"pattern": "synthetic", "counts": {"launches": 3}, "errors": [], "metrics_missing": [],
 "source_lines": [{"function": "_Z13struct12_readPK3s12Pfi", "pc": 16, "inst": 9, "cubin": true,
   "file": "cases.cu", "dir": "/src", "line": 23}],
 "functions": [{"name": "_Z13struct12_readPK3s12Pfi", "launches": 3, "has_data": true,
   "records": 5, "sums": {"smsp__sass_sectors_mem_global": 16, "smsp__sass_sectors_mem_global_ideal": 8}},
  {"name": "_Z10matvec_rowPKfS0_Pfi", "launches": 3, "first_launch": 4, "has_data": false, "records": 0, "sums": {}}]}
JS
tab=$(python3 "$(dirname "$0")/table.py" "$t/tab")
rc=$?
[ $rc -eq 0 ] || bad "table.py failed ($rc): $tab"
echo "$tab" | grep -q '^| synthetic-a | cases | 0 | 3.000 | 2.000 | 1.50 | 3 | 2 | 1 | 4 |' ||
    bad "table.py: wrong summary row for the synthetic cases run"
echo "$tab" | grep -q '^| synthetic-a | struct12_read | 3 | yes | - | 16 | 8 | 2.00 | 2.0 |' ||
    bad "table.py: wrong per-kernel row"
echo "$tab" | grep -q '/src/cases.cu:23' || bad "table.py: source line missing"
echo "$tab" | grep -q '^| synthetic-skip | all | skipped' || bad "table.py: skipped round missing"
echo "$tab" | grep -q 'synthetic-a / cases: 1: _Z10matvec_row' || bad "table.py: function without data missing"
[ $fail -eq 0 ] && echo "ok: exports, preload, InitializeInjection without a GPU, table.py"
exit $fail
