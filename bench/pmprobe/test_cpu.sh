#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/pmprobe/test_cpu.sh LIB: what can be checked of libgh_pmprobe.so
# without a GPU, and attribute.py on a synthetic run. The library exports
# InitializeInjection and the collector's two entry points (GPUHIER_DIAG_PMPROBE),
# no other function; loaded into a program
# (LD_PRELOAD, or InitializeInjection called as the driver would) it leaves
# the exit status and stdout alone and writes its meta file at exit, with
# the failed call named; attribute.py reads such a run without failing.
set -u
lib=${1:?libgh_pmprobe.so}
here=$(dirname "$0")
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | grep -v -E '^_(init|fini)$')
[ "$(echo $syms | tr ' ' '\n' | sort | tr '\n' ' ')" = "InitializeInjection pmprobe_attached_start pmprobe_attached_stop " ] ||
    bad "exported functions are '$syms', want InitializeInjection and pmprobe_attached_start/stop only"

out=$(LD_PRELOAD="$lib" sh -c 'echo hello; exit 7')
rc=$?
[ $rc -eq 7 ] || bad "LD_PRELOAD changed the exit status to $rc"
[ "$out" = "hello" ] || bad "LD_PRELOAD changed stdout: '$out'"

command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
call='import ctypes, sys; r = ctypes.CDLL(sys.argv[1]).InitializeInjection(); sys.exit(5 if r == 1 else 9)'
out=$(PMPROBE_OUT="$t/o" PMPROBE_WINDOW_MS=200 PMPROBE_WINDOW_DISABLE=1 python3 -c "$call" "$lib")
rc=$?
[ $rc -eq 5 ] || bad "InitializeInjection: exit status $rc, want 5 (it returned 1 and the host went on)"
[ -z "$out" ] || bad "InitializeInjection wrote to stdout: '$out'"
m=$(ls "$t"/o/pm-*-meta.tsv 2>/dev/null | head -1)
if [ -z "$m" ]; then
    bad "no pm-PID-meta.tsv in PMPROBE_OUT"
else
    grep -q '^pid	[0-9]' "$m" || bad "meta file without its pid: $(cat "$m")"
    grep -q '^samples	0$' "$m" || bad "meta file: samples should be 0 without a GPU: $(cat "$m")"
    grep -q '^error	' "$m" || bad "meta file: no failed call named without a GPU: $(cat "$m")"
    grep -q '^window	200 ms, then Stop and Disable$' "$m" || bad "meta file: the window not said: $(cat "$m")"
    a=$(python3 "$here/attribute.py" "$t/o" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || bad "attribute.py on a run without samples: exit $rc: $a"
    echo "$a" | grep -q "nothing to attribute" || bad "attribute.py did not say there was nothing: $a"
fi
out=$(PMPROBE_OUT=/proc/self/nonexistent/x python3 -c "$call" "$lib" 2>&1)
rc=$?
[ $rc -eq 5 ] || bad "an unwritable PMPROBE_OUT changed the exit status to $rc ($out)"

python3 "$here/test_attribute.py" || fail=1
[ $fail -eq 0 ] && echo "ok: exports, preload, InitializeInjection without a GPU, attribute.py"
exit $fail
