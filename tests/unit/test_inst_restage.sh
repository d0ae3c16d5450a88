#!/bin/sh
# bench/inst_restage on a SYNTHETIC report (bench/agreement/synth.py, the
# real schema, counts made up) in the form of schema version 3 (runs, one
# row per count, no masks): v_inst reads every column the same after it,
# inst_count has fewer rows and mask rows, some carrying a count (version
# 5), the meta row says the report was re-written, and a report with
# masks already, or a missing one, fails with a message.
set -eu
tool=${1:?inst_restage}
root=${2:?source dir}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
PYTHONPATH="$root/bench/agreement" python3 - "$t/r.db" <<'PY'
import sys
import synth
r = synth.Report(sys.argv[1])
G, GI = "smsp__sass_sectors_mem_global", "smsp__sass_sectors_mem_global_ideal"
LD, W32 = "smsp__sass_inst_executed_op_global_ld", "smsp__sass_inst_executed_op_memory_32b"
SH, WF, WFI = ("smsp__sass_inst_executed_op_shared_ld", "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
               "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal")
# pc 0 an LDG at its ideal, pc 1 an uncoalesced one, pc 2 no memory, pc 3 a conflicted LDS, pc 4 one at its ideal
r.instrumented("_Z1fv", {G: [40, 320, 0, 0, 0], GI: [40, 40, 0, 0, 0], LD: [10, 10, 0, 0, 0],
                         W32: [10, 10, 0, 10, 10], SH: [0, 0, 0, 10, 10], WF: [0, 0, 0, 80, 10],
                         WFI: [0, 0, 0, 10, 10]},
               runs={"smsp__sass_inst_executed": [10, 10, 10, 10, 10]})
r.instrumented("_Z1fv", {G: [4, 4], GI: [4, 4], LD: [1, 1]}, (2, 1, 1), runs={"smsp__sass_inst_executed": [1, 1]})
r.close()
PY
cp "$t/r.db" "$t/before.db"
"$tool" "$t/r.db"
rows() { python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print("\n".join(repr(r) for r in c.execute("SELECT * FROM v_inst ORDER BY launch_id, function_id, pc")))' "$1"; }
q() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }
fail=0
b=$(rows "$t/before.db"); a=$(rows "$t/r.db")
[ -n "$b" ] && [ "$a" = "$b" ] && echo "ok   v_inst reads the same ($(echo "$b" | wc -l) rows)" ||
    { echo "FAIL v_inst differs"; echo "before:"; echo "$b"; echo "after:"; echo "$a"; fail=1; }
nb=$(q "$t/before.db" "SELECT count(*) FROM inst_count"); na=$(q "$t/r.db" "SELECT count(*) FROM inst_count")
[ "$na" -lt "$nb" ] && echo "ok   inst_count rows $nb -> $na" || { echo "FAIL inst_count rows $nb -> $na"; fail=1; }
masks="SELECT count(*) || ':' || sum((c.value >> 15) & 3 > 0) FROM inst_count c JOIN metric_name n ON n.id = c.metric_id WHERE n.name = 'gpuhier_inst_implied'"
# masks: pcs 0, 1, 3, 4 of launch 1, pcs 0 and 1 of launch 2; all carry their sectors or wavefronts
[ "$(q "$t/r.db" "$masks")" = "6:6" ] && echo "ok   6 masks, 6 carrying a count" ||
    { echo "FAIL masks: $(q "$t/r.db" "$masks")"; fail=1; }
[ "$(q "$t/r.db" "SELECT value LIKE 'bench/inst_restage%' FROM meta WHERE key = 'inst_restaged'")" = 1 ] &&
    echo "ok   meta inst_restaged" || { echo "FAIL meta inst_restaged"; fail=1; }
if "$tool" "$t/r.db" 2> "$t/err"; then echo "FAIL a report with masks re-written again"; fail=1
else grep -q "masks already" "$t/err" && echo "ok   a report with masks refused: $(cat "$t/err")" ||
    { echo "FAIL message: $(cat "$t/err")"; fail=1; }; fi
if "$tool" "$t/none.db" 2> "$t/err"; then echo "FAIL a missing report"; fail=1
else echo "ok   a missing report refused: $(cat "$t/err")"; fi
exit $fail
