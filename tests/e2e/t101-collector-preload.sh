#!/bin/sh
# The collector preloaded into programs that never initialize CUDA
# changes nothing: same stdout, same stderr, same exit status, no report
# file, whether or not the machine has a driver (issue 2 §4).
set -u
lib=${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
run_both() { # run_both <name> <cmd...>: compare plain and preloaded runs
    name=$1; shift
    "$@" >plain.out 2>plain.err; plain=$?
    LD_PRELOAD=$lib GPUHIER_OUTPUT="$tmp/r-%p.db" "$@" >pre.out 2>pre.err; pre=$?
    if [ $plain != $pre ]; then echo "$name: status $plain vs $pre"; fail=1; fi
    cmp -s plain.out pre.out || { echo "$name: stdout differs"; diff plain.out pre.out; fail=1; }
    cmp -s plain.err pre.err || { echo "$name: stderr differs"; diff plain.err pre.err; fail=1; }
}
run_both echo /bin/echo hi
run_both sh sh -c 'echo out; echo err >&2; exit 3'
run_both env sh -c 'env | grep -c "^GPUHIER_COLLECTOR_ACTIVE=" ; true'
run_both nested sh -c '/bin/echo a; sh -c "echo b >&2"; exit 0'
ls "$tmp"/r-*.db "$tmp"/gpuhier-*.db >/dev/null 2>&1 && { echo "a report was written"; fail=1; }
# No thread was started: a preloaded sleep has exactly one task.
LD_PRELOAD=$lib sleep 2 & pid=$!
sleep 0.5
n=$(ls /proc/$pid/task | wc -l)
wait $pid
[ "$n" = 1 ] || { echo "preloaded process has $n threads"; fail=1; }
[ $fail = 0 ] && echo "t101: preload into non-CUDA programs changes nothing"
exit $fail
