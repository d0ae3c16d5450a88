#!/bin/sh
# The collector exports only its entry point and needs no CUDA, CUPTI,
# SQLite or ncurses library (STYLE.md §2; issue 2 §4).
set -u
lib=${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
fail=0
allow='^(InitializeInjection)$'
syms=$(nm -D --defined-only "$lib" | awk '{print $3}')
extra=$(echo "$syms" | grep -Ev "$allow")
[ -n "$extra" ] && { echo "unexpected exported symbols:"; echo "$extra"; fail=1; }
echo "$syms" | grep -qx InitializeInjection || { echo "InitializeInjection not exported"; fail=1; }
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
bad=$(echo "$needed" | grep -E 'libcuda|libcupti|libnvperf|curses|tinfo|sqlite|iberty|jansson')
[ -n "$bad" ] && { echo "collector needs $bad"; fail=1; }
[ $fail = 0 ] && echo "t102: exports {$(echo $syms)}; needs {$(echo $needed)}"
exit $fail
