#!/bin/sh
# The instrumentation engine and CUDA graph kernel nodes (issue 17 point 8;
# docs/collector.md "Graphs"): testkernels/graph.cu captures a stream of
# three kernel nodes (graph_strided, graph_copy twice) into a graph and
# launches it 3 times. CUPTI patches a graph's kernel nodes only when SASS
# metrics are enabled while the graph is instantiated (measured on the H200,
# 2026-12-04, docs/sassprobe.md "Graph launches"), so by default the
# collector arms the instantiation of a graph its scan finds safe (no kernel
# node in thread-block clusters: collector/graphscan.h) and instruments the
# executable's first launch. Parts:
#   default (GPUHIER_INSTRUMENT unset: both engines): the first graph launch's
#     counts per function with the design's ratios (graph_strided 12 sectors
#     for 4 on the load, 4 for 4 on the store: 2.00; graph_copy 1.00), the
#     later launches' nodes timed, one graph_instantiations_armed event;
#   off (GPUHIER_DIAG_SASS_GRAPHS=off, GPUHIER_INSTRUMENT=1 and both): what an
#     unarmed graph gets: every node traced with its times (kernels are traced
#     concurrently but while an instrumented launch runs), no graph counts,
#     one graphs_not_instrumented event;
#   probe (GPUHIER_DIAG_SASS_GRAPHS=1, the 2026-12-01 path: armed at the
#     launch only): prints what CUPTI gives and fails nothing;
#   instantiate (GPUHIER_DIAG_SASS_GRAPHS=instantiate, every instantiation
#     armed, no scan): the same counts as the default.
# Exit 77 without a GPU.
set -u
. "$(dirname "$0")/lib.sh"
tk=${GPUHIER_BINARY_DIR:?}/testkernels/tk_graph
gpu_setup t152 "$tk"
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
expect() { v=$(q "$2" "$3"); if [ "$v" = "$4" ]; then echo "ok   $1 = $v"; else echo "FAIL $1: '$v' want '$4'"; fail=1; fi; }
ratio() { # per instruction: sectors (a row, or carried by the mask: schema versions 4-5), their ideal (a row, or bit 13)
    echo "WITH i AS (SELECT
        SUM(CASE WHEN n.name = 'smsp__sass_sectors_mem_global' THEN c.value
                 WHEN n.name = 'gpuhier_inst_implied' AND (c.value >> 15) & 3 = 1 THEN c.value >> 17 ELSE 0 END) AS s,
        SUM(CASE WHEN n.name = 'smsp__sass_sectors_mem_global_ideal' THEN c.value ELSE 0 END) AS ideal,
        MAX(CASE WHEN n.name = 'gpuhier_inst_implied' THEN (c.value >> 13) & 1 ELSE 0 END) AS implied
      FROM inst_count c JOIN metric_name n ON n.id = c.metric_id JOIN inst_launch l ON l.launch_id = c.launch_id
      JOIN kernel k ON k.id = l.kernel_id WHERE l.reason = 'graph' AND k.mangled_name LIKE '%$1%'
      GROUP BY c.launch_id, c.function_id, c.pc)
      SELECT printf('%.2f', 1.0 * sum(s) / sum(ideal + implied * s)) FROM i"
}
db=graph-default.db
env -u GPUHIER_INSTRUMENT CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" \
    timeout 120 "$tk" 3 > default.out 2> default.err
rc=$?
[ $rc = 0 ] && grep -q '^graph launches 3 nodes 3$' default.out && echo "ok   default: exit 0, output unchanged" ||
    { echo "FAIL default: exit $rc: $(cat default.out default.err | tail -5)"; fail=1; }
expect "default: the instantiation armed" $db \
    "SELECT substr(message, 1, 40) FROM event WHERE code = 'graph_instantiations_armed'" \
    "1 graph instantiations ran with SASS met"
expect "default: one graph row per function" $db "SELECT count(*) FROM inst_launch WHERE reason = 'graph'" 2
expect "default: graph_strided sectors for the ideal" $db "$(ratio graph_strided)" 2.00
expect "default: graph_copy sectors for the ideal" $db "$(ratio graph_copy)" 1.00
expect "default: graph node launches listed" $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL" 9
# the instrumented launch's nodes ran patched (no times); the two later launches' were timed
expect "default: the later launches' nodes timed" $db \
    "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND start_ns IS NOT NULL" 6
for mode in 1 both; do
    db=graph-$mode.db
    env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" GPUHIER_INSTRUMENT=$mode \
        GPUHIER_DIAG_SASS_GRAPHS=off timeout 120 "$tk" 3 > $mode.out 2> $mode.err
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
# GPUHIER_DIAG_SASS_GRAPHS=instantiate (a diagnosis switch: every instantiation armed, no scan;
# it crashed graphs holding cuBLAS Hopper GEMMs): the same counts as the default.
db=graph-inst.db
env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" GPUHIER_INSTRUMENT=1 \
    GPUHIER_DIAG_SASS_GRAPHS=instantiate timeout 120 "$tk" 3 > inst.out 2> inst.err
rc=$?
[ $rc = 0 ] && grep -q '^graph launches 3 nodes 3$' inst.out && echo "ok   instantiate: exit 0, output unchanged" ||
    { echo "FAIL instantiate: exit $rc: $(cat inst.out inst.err | tail -5)"; fail=1; }
expect "instantiate: one graph row per function" $db "SELECT count(*) FROM inst_launch WHERE reason = 'graph'" 2
expect "instantiate: graph_strided sectors for the ideal" $db "$(ratio graph_strided)" 2.00
expect "instantiate: graph_copy sectors for the ideal" $db "$(ratio graph_copy)" 1.00
echo "instantiate: node launches $(q $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL") of 9 listed, $(q $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND start_ns IS NOT NULL") timed (informational)"
[ $fail = 0 ] && echo "t152: graph kernel nodes counted by default (the instantiation armed), traced and said so when off" || echo "t152: FAILURES"
exit $fail
