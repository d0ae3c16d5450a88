#!/bin/sh
# Linked dependencies (STYLE.md §2): gpuhier never needs libcuda/libcupti
# (doctor dlopens them); the collector never needs libcuda, libcupti or
# ncurses (it must load into any process on any machine).
set -u
bin=${GPUHIER_BINARY_DIR:?}
fail=0
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
if [ -f "$bin/gpuhier" ]; then
  bad=$(needed "$bin/gpuhier" | grep -E 'libcuda|libcupti|libnvperf') && { echo "boundary: gpuhier links $bad"; fail=1; }
fi
col="$bin/libgpuhier-collector.so"
if [ -f "$col" ]; then
  bad=$(needed "$col" | grep -E 'libcuda|libcupti|libnvperf|curses|libsqlite3|libtinfo') && { echo "boundary: collector links $bad"; fail=1; }
fi
[ $fail = 0 ] && echo "boundary: linked libraries ok"
exit $fail
