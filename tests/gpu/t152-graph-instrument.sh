#!/bin/sh
# The instrumentation engine and CUDA graph kernel nodes (issue 17 point 8;
# docs/collector.md "Graphs"): testkernels/graph.cu captures a stream of
# three kernel nodes (graph_strided, graph_copy twice) into a graph and
# launches it 3 times. Measured on the H200 on 2026-12-01: a graph launch
# between SassMetricsEnable and Disable gave 0 patched instruction records
# (lazy patching, and patching at Enable) and its nodes' kernel records
# never came. So with GPUHIER_INSTRUMENT=1 (and =both) graph launches are
# not instrumented: every node is traced with its times (kernels are traced
# concurrently but while an instrumented launch runs; under KIND_KERNEL for
# the whole run, GPUHIER_DIAG_SERIALIZED_KERNELS=1, the H200 timed each graph
# launch's first node only), no inst_launch row is a graph's, and one
# graphs_not_instrumented event says so. The
# probe part (GPUHIER_DIAG_SASS_GRAPHS=1, the old path) prints what CUPTI
# gives today and fails nothing, so a later CUPTI that patches graph nodes
# shows up here. Exit 77 without a GPU.
set -u
. "$(dirname "$0")/lib.sh"
tk=${GPUHIER_BINARY_DIR:?}/testkernels/tk_graph
gpu_setup t152 "$tk"
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
expect() { v=$(q "$2" "$3"); if [ "$v" = "$4" ]; then echo "ok   $1 = $v"; else echo "FAIL $1: '$v' want '$4'"; fail=1; fi; }
for mode in 1 both; do
    db=graph-$mode.db
    env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" GPUHIER_INSTRUMENT=$mode \
        timeout 120 "$tk" 3 > $mode.out 2> $mode.err
    rc=$?
    [ $rc = 0 ] && grep -q '^graph launches 3 nodes 3$' $mode.out && echo "ok   $mode: exit 0, output unchanged" ||
        { echo "FAIL $mode: exit $rc: $(cat $mode.out $mode.err | tail -5)"; fail=1; }
    expect "$mode: graph node launches traced" $db \
        "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'graph'" 9
    # concurrent-kernel tracing outside the served launches: every node timed (JAX's graphs on
    # the H200, 2026-12-04: 120 of 120 nodes, against 12 under KIND_KERNEL for the whole run)
    expect "$mode: every graph node timed" $db \
        "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND start_ns IS NOT NULL" 9
    expect "$mode: no untimed kernel" $db "SELECT count(*) FROM event WHERE code = 'kernels_untimed'" 0
    expect "$mode: no graph counts" $db "SELECT count(*) FROM inst_launch WHERE reason = 'graph'" 0
    expect "$mode: the event says so" $db \
        "SELECT substr(message, 1, 60) FROM event WHERE code = 'graphs_not_instrumented'" \
        "3 graph launches ran their kernel nodes without pattern coun"
    q $db "SELECT 'meta ' || group_concat(key || '=' || value, '; ') FROM meta WHERE key LIKE 'engine%'"
done
# the probe: what instrumenting a graph launch gives with this CUPTI (informational)
db=graph-probe.db
env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SASS_GRAPHS=1 \
    GPUHIER_DEBUG=1 timeout 120 "$tk" 3 > probe.out 2> probe.err
echo "probe (GPUHIER_DIAG_SASS_GRAPHS=1): exit $?, node launches $(q $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL") of 9, graph count rows $(q $db "SELECT count(*) FROM inst_launch WHERE reason = 'graph'")"
grep -E "instrumentation: graph launch" probe.err | head -3
[ $fail = 0 ] && echo "t152: graph kernel nodes traced, not instrumented, and the report says so" || echo "t152: FAILURES"
exit $fail
