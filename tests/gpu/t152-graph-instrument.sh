#!/bin/sh
# The instrumentation engine on CUDA graph kernel nodes (issue 17 point 8;
# docs/collector.md "Graphs"): testkernels/graph.cu captures a stream of
# three kernel nodes (graph_strided, graph_copy twice) into a graph and
# launches it 3 times. With GPUHIER_INSTRUMENT=1 (and =both) the first
# graph launch is instrumented as a whole: its 3 nodes keep no times, and
# inst_launch holds one row per function keyed by its first node
# (graph_corr = the graph launch's correlation id, graph_nodes 1 and 2),
# with the load sectors against their ideal of the design (3.0 and 1.0, +-5 %).
# Whether CUPTI's lazy patching reaches graph nodes at all is what this
# test finds out on the device (not yet run there). Exit 77 without a GPU.
set -u
bin=${GPUHIER_BINARY_DIR:?}
lib=$bin/libgpuhier-collector.so
tk=$bin/testkernels/tk_graph
if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null || ! [ -x "$tk" ]; then
    echo "skipped: no GPU"; exit 77
fi
out=${OUT:-$(mktemp -d)}/t152
mkdir -p "$out" && cd "$out" || exit 1
fail=0
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
expect() { v=$(q "$2" "$3"); if [ "$v" = "$4" ]; then echo "ok   $1 = $v"; else echo "FAIL $1: '$v' want '$4'"; fail=1; fi; }
for mode in 1 both; do
    db=graph-$mode.db
    env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$db" GPUHIER_INSTRUMENT=$mode \
        timeout 120 "$tk" 3 > $mode.out 2> $mode.err
    rc=$?
    [ $rc = 0 ] && grep -q '^graph launches 3 nodes 3$' $mode.out && echo "ok   $mode: exit 0, output unchanged" ||
        { echo "FAIL $mode: exit $rc: $(cat $mode.out $mode.err | tail -5)"; fail=1; }
    expect "$mode: graph node launches traced" $db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL" 9
    expect "$mode: the first graph launch's nodes instrumented" $db \
        "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'instrumented' AND start_ns IS NULL" 3
    expect "$mode: graph rows per function" $db \
        "SELECT group_concat(k.short_name || '=' || i.graph_nodes, ',') FROM (SELECT * FROM inst_launch WHERE reason = 'graph' ORDER BY launch_id) i JOIN kernel k ON k.id = i.kernel_id" \
        "graph_strided=1,graph_copy=2"
    expect "$mode: keyed by the graph launch" $db \
        "SELECT count(*) FROM inst_launch i JOIN launch l ON l.id = i.launch_id WHERE i.graph_corr = l.correlation_id" 2
    for k in graph_strided:3.0 graph_copy:1.0; do
        name=${k%%:*} want=${k#*:}
        v=$(q $db "SELECT round(1.0 * sum(c.gld_sectors) / sum(c.gld_sectors_ideal), 3) FROM v_inst_config c JOIN kernel k ON k.id = c.kernel_id WHERE k.short_name = '$name'")
        python3 -c 'import sys; v, w = sys.argv[1], float(sys.argv[2]); sys.exit(0 if v and abs(float(v) - w) <= 0.05 * w else 1)' "$v" "$want" &&
            echo "ok   $mode: $name load sectors / ideal = $v (design $want)" ||
            { echo "FAIL $mode: $name load sectors / ideal '$v', design $want"; fail=1; }
    done
    q $db "SELECT 'meta ' || group_concat(key || '=' || value, '; ') FROM meta WHERE key LIKE 'engine%'"
    q $db "SELECT 'events ' || group_concat(code, ',') FROM event WHERE level <> 'info'"
done
[ $fail = 0 ] && echo "t152: graph kernel nodes instrumented" || echo "t152: FAILURES"
exit $fail
