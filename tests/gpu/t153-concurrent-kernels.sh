#!/bin/sh
# Kernel tracing beside the instrumentation engine (docs/collector.md "The
# instrumentation engine"): kernels are traced concurrently except while an
# instrumented launch runs. gpu/overlap launches one-block kernels of about
# 200 us on 4 streams (20 rounds). Under the default (both engines) and under
# GPUHIER_INSTRUMENT=1, kernels of different streams must overlap in the
# report (pairs whose times intersect); under GPUHIER_DIAG_SERIALIZED_KERNELS=1
# (KIND_KERNEL for the whole run) none may. The program's output and status
# pass through. Exit 77 without a GPU.
set -u
. "$(dirname "$0")/lib.sh"
prog=${GPUHIER_BINARY_DIR:?}/gpu/overlap
gpu_setup t153 "$prog"
overlaps() {
    python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("""SELECT count(*) FROM launch a JOIN launch b ON a.id < b.id
    AND a.stream_id <> b.stream_id AND a.start_ns < b.end_ns AND b.start_ns < a.end_ns
    WHERE a.start_ns IS NOT NULL AND b.start_ns IS NOT NULL""").fetchone()[0])
PY
}
for mode in default inst serial; do
    case $mode in
        default) set -- ;;
        inst) set -- GPUHIER_INSTRUMENT=1 ;;
        serial) set -- GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SERIALIZED_KERNELS=1 ;;
    esac
    env "$@" CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$mode.db" timeout 120 "$prog" 20 > $mode.out 2> $mode.err
    rc=$?
    if [ $rc = 0 ] && grep -q '^launched 80$' $mode.out; then echo "ok   $mode: exit 0, output unchanged"
    else echo "FAIL $mode: exit $rc: $(cat $mode.out $mode.err | tail -5)"; fail=1; fi
    n=$(overlaps $mode.db)
    case $mode in
        serial) [ "$n" = 0 ] && echo "ok   $mode: no overlapping kernels ($n)" ||
            { echo "FAIL $mode: $n overlapping pairs under serialized tracing"; fail=1; } ;;
        *) [ "${n:-0}" -gt 0 ] 2>/dev/null && echo "ok   $mode: $n overlapping pairs of kernels" ||
            { echo "FAIL $mode: no overlapping kernels ('$n')"; fail=1; } ;;
    esac
done
[ $fail = 0 ] && echo "t153: kernels of different streams overlap beside the instrumentation engine" || echo "t153: FAILURES"
exit $fail
