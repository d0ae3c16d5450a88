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
# shows up here. The last part arms the instantiation
# (GPUHIER_DIAG_SASS_GRAPHS=instantiate) and asks for the design's counts.
# Exit 77 without a GPU.
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
# GPUHIER_DIAG_SASS_GRAPHS=instantiate (a diagnosis switch): SASS metrics enabled while the
# graph is instantiated, which is when CUPTI patches its nodes (docs/sassprobe.md "Graph
# launches"; it crashed graphs holding cuBLAS Hopper GEMMs, so never the default): the first
# graph launch's counts, per function, with the design's ratios (graph_strided 12 sectors for
# 4 on the load, 4 for 4 on the store: 2.00; graph_copy 1.00).
db=graph-inst.db
env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" GPUHIER_INSTRUMENT=1 \
    GPUHIER_DIAG_SASS_GRAPHS=instantiate timeout 120 "$tk" 3 > inst.out 2> inst.err
rc=$?
[ $rc = 0 ] && grep -q '^graph launches 3 nodes 3$' inst.out && echo "ok   instantiate: exit 0, output unchanged" ||
    { echo "FAIL instantiate: exit $rc: $(cat inst.out inst.err | tail -5)"; fail=1; }
expect "instantiate: one graph row per function" $db "SELECT count(*) FROM inst_launch WHERE reason = 'graph'" 2
ratio() {
    echo "SELECT printf('%.2f', 1.0 * sum(CASE WHEN n.name = 'smsp__sass_sectors_mem_global' THEN c.value END)
      / sum(CASE WHEN n.name = 'smsp__sass_sectors_mem_global_ideal' THEN c.value END))
      FROM inst_count c JOIN metric_name n ON n.id = c.metric_id JOIN inst_launch i ON i.launch_id = c.launch_id
      JOIN kernel k ON k.id = i.kernel_id WHERE i.reason = 'graph' AND k.mangled_name LIKE '%$1%'"
}
expect "instantiate: graph_strided sectors for the ideal" $db "$(ratio graph_strided)" 2.00
expect "instantiate: graph_copy sectors for the ideal" $db "$(ratio graph_copy)" 1.00
echo "instantiate: node launches $(q $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL") of 9 listed, $(q $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND start_ns IS NOT NULL") timed (informational)"
[ $fail = 0 ] && echo "t152: graph kernel nodes traced, not instrumented by default, and the report says so; counted when armed at the instantiation" || echo "t152: FAILURES"
exit $fail
