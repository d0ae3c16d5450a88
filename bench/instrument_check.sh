#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/instrument_check.sh [STAGE]: the instrumentation engine on the
# device (issue 17), one call. Under `gpuhier run` with GPUHIER_INSTRUMENT=1:
#   cases    bench/sassprobe/cases.cu: every configuration instrumented once
#            (=1: the range profiler is not used in the process); sectors and wavefronts
#            against their ideal per kernel (the design ratios beside), pcs
#            with a source line, the findings and the source view;
#   torch    bench/sassprobe/torch_ops.py, jax: jax_loop.py (default
#            preallocation): exit status, instrumented launches, functions;
#   both     the two engines in one process, GPUHIER_INSTRUMENT=$BOTH_MODES
#            (default 'phased', the instrumentation window; 'both' is the
#            diagnosis mode that failed on the device on 2026-12-01): cases,
#            torch, jax and the PyTorch benchmark (bench/pytorch_train.py
#            --steps 20) each under a timeout, the engine watchdog at 20 s and
#            every thread's stack at 40 s (GPUHIER_DIAG_STACKS); a timeout
#            (status 124) or an 'engine_stuck' event is the deadlock of
#            docs/collector.md coming back;
#   graph    tests/gpu/t152-graph-instrument.sh: graph kernel nodes;
#   noperm   without counter permission: as a non-root user when the
#            driver restricts counters to admins (RmProfilingAdminOnly=1),
#            else (the device's counters are open to every user) the fault
#            path for the range profiler's refusal (GPUHIER_FAULT), which
#            cannot tell what the instrumentation engine does without
#            permission; and `gpuhier doctor`'s engine lines;
#   cost     bench/pytorch_train.py --steps 20 natively, in the default
#            mode, instrumented and phased: wall times, instrumented
#            launches and the added time per instrumented launch (median,
#            p95), and per report where the time went: the range
#            profiler's time (profile.overhead_ns), the instrumentation
#            engine's (inst_launch.overhead_ns), the untimed kernel records.
# A section that would start past BUDGET_S seconds (default 540) is
# skipped and says so; SECTIONS="cases torch both graph noperm cost" (the
# default: all) names the sections to run. STAGE (default .stage): scripts/stage.sh output
# with gpu/cases and testkernels/tk_graph. Writes $OUT/instrument.log
# (everything printed), $OUT/cases.db and, from cost, $OUT/cost-{d,i,p}.db.
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
t_start=$(date +%s)
budget=${BUDGET_S:-540}
# budget_ok SECONDS NAME: whether a section of at most SECONDS still fits
# (and is named in SECTIONS)
sections=" ${SECTIONS:-cases torch both graph noperm cost} "
wanted() { case $sections in *" $1 "*) return 0 ;; esac; echo "== $1: skipped (not in SECTIONS)"; return 1; }
budget_ok() {
    wanted "${2%% *}" || return 1
    [ $(( $(date +%s) - t_start + $1 )) -le "$budget" ] && return 0
    echo "== $2: skipped (would pass BUDGET_S=$budget)"; return 1
}
{
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), stage $(cat "$stage/COMMIT")"
if wanted cases; then
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
fi
if wanted torch; then
for wl in torch:torch_ops.py jax:jax_loop.py; do
    n=${wl%%:*}; f=${wl#*:}
    echo "== $n"
    GPUHIER_INSTRUMENT=1 t timeout 150 "$g" run -o $n.db --no-analyze -- python3 "$root/bench/sassprobe/$f" > $n.out 2> $n.err
    tail -1 $n.out; grep -iE 'error|fail|instrument' $n.err | head -5
    q $n.db "SELECT 'launches', count(*), 'instrumented', sum(profile_reason = 'instrumented'), 'range-profiled', sum(profiled) FROM launch"
    q $n.db "SELECT 'inst_launch', count(*), 'functions', (SELECT count(DISTINCT function_id) FROM inst_count), 'counts', (SELECT count(*) FROM inst_count) FROM inst_launch"
    q $n.db "SELECT level, code, substr(message, 1, 160) FROM event WHERE level <> 'info' LIMIT 5"
done
fi
for mode in ${BOTH_MODES:-phased}; do
if budget_ok 240 "both ($mode)"; then
echo "== both engines (GPUHIER_INSTRUMENT=$mode; watchdog 20 s, stacks at 40 s)"
for wl in cases:60 torch:60 jax:60 train:120; do
    n=${wl%%:*} lim=${wl#*:}
    case $n in
        cases) cmd="$stage/gpu/cases" ;;
        torch) cmd="python3 $root/bench/sassprobe/torch_ops.py" ;;
        jax) cmd="python3 $root/bench/sassprobe/jax_loop.py" ;;
        train) cmd="python3 $root/bench/pytorch_train.py --steps 20 --warmup 1" ;;
    esac
    echo "-- $mode: $n (timeout $lim s)"
    GPUHIER_INSTRUMENT=$mode GPUHIER_DIAG_ENGINE_WATCHDOG_MS=20000 GPUHIER_DIAG_STACKS=40 t timeout -k 5 $lim "$g" run -o both-$n.db --no-analyze -- $cmd > both-$n.out 2> both-$n.err
    [ $rc = 124 ] || [ $rc = 137 ] && { echo "  TIMED OUT: the combination hung; the stacks' CUPTI and gpuhier frames:"; grep -E 'stack of thread|libcupti|libgpuhier|libnvperf|pthread_mutex' both-$n.err | head -40; }
    tail -1 both-$n.out; grep '==gpuhier==' both-$n.err | grep -iE 'stuck|instrument|counter|fail|coverage' | head -5
    q both-$n.db "SELECT 'launches', count(*), 'instrumented', sum(profile_reason = 'instrumented'), 'range-profiled', sum(profiled) FROM launch"
    q both-$n.db "SELECT 'configs instrumented', count(DISTINCT i.config_id), 'of them range-profiled too', count(DISTINCT CASE WHEN l.profiled = 1 THEN l.config_id END) FROM inst_launch i LEFT JOIN launch l ON l.config_id = i.config_id"
    q both-$n.db "SELECT key, value FROM meta WHERE key LIKE 'engine%'"
    q both-$n.db "SELECT level, code, substr(message, 1, 200) FROM event WHERE level <> 'info' OR code = 'instrumentation_window' LIMIT 6"
done
[ -f both-cases.db ] && cp both-cases.db "$out/$mode-cases.db"
fi
done
if budget_ok 60 graph; then
echo "== graph: tests/gpu/t152-graph-instrument.sh"
GPUHIER_BINARY_DIR=$stage OUT=$w t timeout 300 sh "$root/tests/gpu/t152-graph-instrument.sh"
fi
if budget_ok 60 noperm; then
echo "== without counter permission"
adm=$(sed -n 's/^RmProfilingAdminOnly: //p' /proc/driver/nvidia/params 2>/dev/null)
echo "RmProfilingAdminOnly=${adm:-unknown}, uid $(id -u)"
if [ "${adm:-0}" = 1 ] && command -v setpriv > /dev/null; then
    echo "-- as uid 65534: the real refusal"
    nd=$(mktemp -d) && chmod 777 "$nd"
    (cd "$nd" && GPUHIER_INSTRUMENT=both t timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$nd" "$g" run -o "$nd/noperm.db" --no-analyze -- "$stage/gpu/cases" > "$nd/o" 2> "$nd/e"; grep '==gpuhier==' "$nd/e" | head -5)
    q "$nd/noperm.db" "SELECT key, value FROM meta WHERE key LIKE 'engine%'"
    q "$nd/noperm.db" "SELECT 'instrumented', count(*), 'functions with counts', (SELECT count(DISTINCT function_id) FROM inst_count) FROM inst_launch"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$g" doctor 2>&1 | grep -E 'range profiler|instrumentation|ready'
else
    echo "-- counters are open to every user here: the range profiler's refusal through the fault path;"
    echo "   what the instrumentation engine does without permission stays unknown on this device"
    GPUHIER_INSTRUMENT=both GPUHIER_FAULT=counter_availability:CUPTI_ERROR_INSUFFICIENT_PRIVILEGES t timeout 60 "$g" run -o noperm.db --no-analyze -- "$stage/gpu/cases" > noperm.out 2> noperm.err
    grep '==gpuhier==' noperm.err | head -3
    q noperm.db "SELECT key, value FROM meta WHERE key LIKE 'engine%'"
    q noperm.db "SELECT 'instrumented', count(*) FROM inst_launch"
fi
"$g" doctor 2>&1 | grep -E 'range profiler|instrumentation|ready'
fi
if budget_ok 250 cost; then
echo "== cost: bench/pytorch_train.py --steps 20"
t timeout 100 python3 "$root/bench/pytorch_train.py" --steps 20 > n.out 2>&1; tail -1 n.out
t timeout 150 "$g" run -o d.db --no-analyze -- python3 "$root/bench/pytorch_train.py" --steps 20 > d.out 2> d.err; tail -1 d.out
GPUHIER_INSTRUMENT=1 t timeout 200 "$g" run -o i.db --no-analyze -- python3 "$root/bench/pytorch_train.py" --steps 20 > i.out 2> i.err; tail -1 i.out
GPUHIER_INSTRUMENT=phased t timeout 200 "$g" run -o p.db --no-analyze -- python3 "$root/bench/pytorch_train.py" --steps 20 > p.out 2> p.err; tail -1 p.out
q d.db "SELECT 'default: launches', count(*), 'range-profiled', sum(profiled) FROM launch"
q i.db "SELECT 'instrumented: launches', count(*), 'range-profiled', sum(profiled), 'instrumented', sum(profile_reason = 'instrumented') FROM launch"
q p.db "SELECT 'phased: launches', count(*), 'range-profiled', sum(profiled), 'instrumented', sum(profile_reason = 'instrumented') FROM launch"
python3 - i.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
v = sorted(r[0] for r in c.execute("SELECT overhead_ns FROM inst_launch WHERE overhead_ns IS NOT NULL"))
if v:
    print("instrumented launches %d: added time per launch median %.1f ms, p95 %.1f ms, max %.1f ms, sum %.2f s" % (
        len(v), v[len(v) // 2] / 1e6, v[min(len(v) - 1, int(0.95 * len(v)))] / 1e6, v[-1] / 1e6, sum(v) / 1e9))
print("functions with counts:", c.execute("SELECT count(DISTINCT function_id) FROM inst_count").fetchone()[0])
PY
echo "report | wall s (run) | range profiler s | instrumentation s | kernels timed | untimed | GPU s timed"
python3 - d.db i.db p.db <<'PY'
import sqlite3, sys
def one(c, sql):
    try:
        return c.execute(sql).fetchone()[0]
    except sqlite3.Error:
        return None
for f in sys.argv[1:]:
    try:
        c = sqlite3.connect(f)
    except sqlite3.Error:
        print(f, "| not readable"); continue
    wall = one(c, "SELECT (end_ns - start_ns) / 1e9 FROM run")
    rp = one(c, "SELECT sum(overhead_ns) / 1e9 FROM profile")
    ins = one(c, "SELECT sum(overhead_ns) / 1e9 FROM inst_launch")
    timed = one(c, "SELECT count(*) FROM launch WHERE end_ns > start_ns")
    untimed = one(c, "SELECT count(*) FROM launch WHERE start_ns IS NULL OR end_ns IS NULL OR end_ns <= start_ns")
    gpu = one(c, "SELECT sum(end_ns - start_ns) / 1e9 FROM launch WHERE end_ns > start_ns")
    print(" | ".join(str(round(x, 2) if isinstance(x, float) else x) for x in (f, wall, rp, ins, timed, untimed, gpu)))
PY
for f in d i p; do q $f.db "SELECT '$f', key, substr(value, 1, 120) FROM meta WHERE key LIKE 'engine%' OR key LIKE 'profil%' OR key LIKE 'instrument%' OR key LIKE 'sampling%'"; done
for f in i p; do q $f.db "SELECT '$f', level, code, substr(message, 1, 160) FROM event WHERE level <> 'info' LIMIT 5"; done
for f in d i p; do cp $f.db "$out/cost-$f.db" 2> /dev/null; done # where the time went, read here afterwards
fi
} > "$out/instrument.log" 2>&1
cat "$out/instrument.log"
