#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/instrument_check.sh [STAGE]: the instrumentation engine on the
# device (issue 17), one call. Under `gpuhier run` with GPUHIER_INSTRUMENT=1:
#   cases    bench/sassprobe/cases.cu: every configuration instrumented once
#            and range-profiled at its next launch; sectors and wavefronts
#            against their ideal per kernel (the design ratios beside), pcs
#            with a source line, the findings and the source view;
#   torch    bench/sassprobe/torch_ops.py, jax: jax_loop.py (default
#            preallocation): exit status, instrumented launches, functions;
#   cost     bench/pytorch_train.py --steps 20 natively, in the default
#            mode and instrumented: wall times, instrumented launches and
#            the added time per instrumented launch (median, p95).
# STAGE (default .stage): scripts/stage.sh output with gpu/cases. Writes
# $OUT/instrument.log (everything printed) and $OUT/cases.db.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=$(cd "${1:-.stage}" && pwd)
out=${OUT:-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
g=$stage/gpuhier
export GPUHIER_DATA_DIR=$root PYTHONUNBUFFERED=1
w=$(mktemp -d)
cd "$w" || exit 1
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(" | ".join(str(x) for x in r)) for r in c.execute(sys.argv[2])]' "$1" "$2" 2>&1; }
t() { s=$(date +%s.%N); "$@"; rc=$?; e=$(date +%s.%N); echo "  status $rc, $(echo "$s $e" | awk '{printf "%.1f", $2 - $1}') s: $*"; }
{
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), stage $(cat "$stage/COMMIT")"
echo "== cases"
GPUHIER_INSTRUMENT=1 t timeout 60 "$g" run -o cases.db --no-analyze -- "$stage/gpu/cases" > cases.out 2> cases.err
cat cases.out; grep -v '^==gpuhier==   ' cases.err | tail -5
q cases.db "SELECT profile_reason, config_launch_index, profiled, count(*) FROM launch GROUP BY 1, 2, 3 ORDER BY 2"
q cases.db "SELECT 'inst_launch', count(*), 'inst_count', (SELECT count(*) FROM inst_count), 'lines', (SELECT count(*) FROM sass_line WHERE line IS NOT NULL), 'pcs', (SELECT count(*) FROM sass_line) FROM inst_launch"
echo "kernel | sectors | ideal | ratio | wavefronts | ideal | ratio | local ld"
q cases.db "SELECT function, sum(global_sectors), sum(global_sectors_ideal), round(1.0 * sum(global_sectors) / max(1, sum(global_sectors_ideal)), 2), sum(shared_wavefronts), sum(shared_wavefronts_ideal), round(1.0 * sum(shared_wavefronts) / max(1, sum(shared_wavefronts_ideal)), 2), sum(lld_inst) FROM v_inst GROUP BY function ORDER BY function"
echo "expected (design): struct12_read 2.0, matvec_row 6.6, copies 1.0, smem_conflict wavefronts 16.5, smem_padded 1.0, local_array local loads > 0"
q cases.db "SELECT key, value FROM meta WHERE key LIKE 'instrument%'"
q cases.db "SELECT level, code, message FROM event WHERE code LIKE 'instrument%'"
t "$g" analyze cases.db > analyze.txt 2>&1; head -60 analyze.txt
t "$g" report cases.db --view source struct12_read > source.txt 2>&1; head -25 source.txt
cp cases.db "$out/"
for wl in torch:torch_ops.py jax:jax_loop.py; do
    n=${wl%%:*}; f=${wl#*:}
    echo "== $n"
    GPUHIER_INSTRUMENT=1 t timeout 150 "$g" run -o $n.db --no-analyze -- python3 "$root/bench/sassprobe/$f" > $n.out 2> $n.err
    tail -1 $n.out; grep -iE 'error|fail|instrument' $n.err | head -5
    q $n.db "SELECT 'launches', count(*), 'instrumented', sum(profile_reason = 'instrumented'), 'range-profiled', sum(profiled) FROM launch"
    q $n.db "SELECT 'inst_launch', count(*), 'functions', (SELECT count(DISTINCT function_id) FROM inst_count), 'counts', (SELECT count(*) FROM inst_count) FROM inst_launch"
    q $n.db "SELECT level, code, substr(message, 1, 160) FROM event WHERE level <> 'info' LIMIT 5"
done
echo "== cost: bench/pytorch_train.py --steps 20"
t timeout 100 python3 "$root/bench/pytorch_train.py" --steps 20 > n.out 2>&1; tail -1 n.out
t timeout 150 "$g" run -o d.db --no-analyze -- python3 "$root/bench/pytorch_train.py" --steps 20 > d.out 2> d.err; tail -1 d.out
GPUHIER_INSTRUMENT=1 t timeout 200 "$g" run -o i.db --no-analyze -- python3 "$root/bench/pytorch_train.py" --steps 20 > i.out 2> i.err; tail -1 i.out
q d.db "SELECT 'default: launches', count(*), 'range-profiled', sum(profiled) FROM launch"
q i.db "SELECT 'instrumented: launches', count(*), 'range-profiled', sum(profiled), 'instrumented', sum(profile_reason = 'instrumented') FROM launch"
python3 - i.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
v = sorted(r[0] for r in c.execute("SELECT overhead_ns FROM inst_launch WHERE overhead_ns IS NOT NULL"))
if v:
    print("instrumented launches %d: added time per launch median %.1f ms, p95 %.1f ms, max %.1f ms, sum %.2f s" % (
        len(v), v[len(v) // 2] / 1e6, v[min(len(v) - 1, int(0.95 * len(v)))] / 1e6, v[-1] / 1e6, sum(v) / 1e9))
print("functions with counts:", c.execute("SELECT count(DISTINCT function_id) FROM inst_count").fetchone()[0])
PY
q i.db "SELECT level, code, substr(message, 1, 160) FROM event WHERE level <> 'info' LIMIT 5"
} > "$out/instrument.log" 2>&1
cat "$out/instrument.log"
