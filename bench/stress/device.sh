#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/stress/device.sh PART: issue 16's device runs in one call each.
# Needs .stage (scripts/stage.sh of the current build, with
# gpu/libgh_segvtrace.so) and, for 'diag', .stage-old (the same of the
# collector before the fix). Results under $OUT (or ./out).
#
#   diag   the crash at exit before the fix, with crash traces (60 runs of
#          'ret' in each mode, and 40 with the profiler hold off), then every
#          row 20 times with the fix
#   full   the stress table: RUNS (default 200) runs of every row in every
#          mode, compared with native runs in the same call
#   torch  the PyTorch one-liner row, RUNS times in every mode
#   hunt   the issue's crash looked for before the fix on other builds of the
#          program, the GPU tests t151 and t150, then the stress table round
#          by round until DEADLINE
set -u
part=${1:?part}
out=${OUT:-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=bench/stress/stress.py
case $part in
diag)
    mkdir -p /tmp/traces
    SEGVTRACE_DIR=/tmp/traces LD_PRELOAD=$PWD/.stage-old/gpu/libgh_segvtrace.so \
        python3 $S --stage .stage-old --runs 60 --jobs 4 --rows ret --modes native,default,trace \
        --title "before the fix (ec6f92e), crash traces on" --out "$out/old.md"
    SEGVTRACE_DIR=/tmp/traces-hold0 GPUHIER_PROFILER_HOLD_MS=0 LD_PRELOAD=$PWD/.stage-old/gpu/libgh_segvtrace.so \
        python3 $S --stage .stage-old --runs 40 --jobs 4 --rows ret --modes native,default \
        --title "before the fix, GPUHIER_PROFILER_HOLD_MS=0" --out "$out/old-hold0.md"
    python3 $S --stage .stage-old --runs 10 --jobs 4 --rows abort --modes native,default \
        --title "before the fix, 1000 kernels then abort()" --out "$out/old-abort.md"
    mkdir -p /tmp/traces-hold0
    (for f in /tmp/traces/* /tmp/traces-hold0/*; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done) > "$out/traces.txt"
    echo "traces: $(ls /tmp/traces | wc -l) with the hold, $(ls /tmp/traces-hold0 | wc -l) without"
    python3 $S --stage .stage --runs 20 --jobs 8 \
        --rows ret,exit,thread_exit,bg,devreset,nosync,fork,exec,abort,segv,bus,fpe,ill,term,int,hup,own_abort,own_term,torch \
        --title "after the fix, 20 runs" --out "$out/new.md" --json "$out/new.json"
    ;;
diag2)
    # the old collector without any preload, then with libgcc_s preloaded, then lazily traced
    python3 $S --stage .stage-old --runs 40 --jobs 4 --rows ret --modes native,default \
        --title "before the fix, no preload" --out "$out/old-plain.md"
    LD_PRELOAD=libgcc_s.so.1 python3 $S --stage .stage-old --runs 40 --jobs 4 --rows ret --modes default \
        --title "before the fix, libgcc_s.so.1 preloaded" --out "$out/old-gcc.md"
    mkdir -p /tmp/traces
    SEGVTRACE_LAZY=1 SEGVTRACE_DIR=/tmp/traces LD_PRELOAD=$PWD/.stage-old/gpu/libgh_segvtrace.so \
        python3 $S --stage .stage-old --runs 40 --jobs 4 --rows ret --modes default \
        --title "before the fix, traced lazily" --out "$out/old-lazy.md"
    (for f in /tmp/traces/*; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done) > "$out/traces.txt"
    echo "traces: $(ls /tmp/traces | wc -l)"
    cat "$out"/old-*.md | grep -E "^\| ret|failed"
    python3 $S --stage .stage --runs 25 --jobs 16 \
        --rows ret,exit,thread_exit,bg,devreset,nosync,fork,exec,abort,segv,term,own_abort,torch \
        --title "after the fix, 25 runs" --out "$out/new.md" --json "$out/new.json"
    ;;
final)
    # bg with CUPTI detached at exit and without; the issue's crash tried serially, with analysis
    python3 $S --stage .stage --runs 25 --jobs 16 --rows bg --modes native,default,trace \
        --title "bg, CUPTI detached at exit" --out "$out/bg.md"
    GPUHIER_DIAG_NO_DETACH=1 python3 $S --stage .stage --runs 25 --jobs 16 --rows bg --modes trace \
        --title "bg, CUPTI kept attached (GPUHIER_DIAG_NO_DETACH=1)" --out "$out/bg-attached.md"
    STRESS_ANALYZE=1 timeout 100 python3 $S --stage .stage-old --runs 30 --jobs 1 --rows ret --modes default \
        --title "before the fix, serial, with analysis" --out "$out/old-serial.md"
    python3 $S --stage .stage --runs "${RUNS:-15}" --jobs 12 \
        --rows ret,exit,thread_exit,devreset,nosync,fork,exec,abort,segv,torch \
        --title "after the fix, ${RUNS:-15} runs" --out "$out/final.md" --json "$out/final.json"
    ;;
full)
    python3 $S --stage .stage --runs "${RUNS:-200}" --jobs "${JOBS:-12}" \
        --rows ret,exit,thread_exit,bg,devreset,nosync,fork,exec \
        --title "stress table, ${RUNS:-200} runs" --out "$out/full.md" --json "$out/full.json"
    ;;
torch)
    python3 $S --stage .stage --runs "${RUNS:-200}" --jobs "${JOBS:-12}" --rows torch \
        --title "PyTorch one-liner, ${RUNS:-200} runs" --out "$out/torch.md" --json "$out/torch.json"
    ;;
signals)
    python3 $S --stage .stage --runs "${RUNS:-200}" --jobs "${JOBS:-12}" \
        --rows abort,segv,bus,fpe,ill,term,int,hup,own_abort,own_term --modes native,default,trace \
        --title "fatal signals, ${RUNS:-200} runs" --out "$out/signals.md" --json "$out/signals.json"
    ;;
hunt)
    # the issue's crash looked for with the collector before the fix (.stage-old,
    # ec6f92e), serially so that every run profiles, with the analysis as a
    # user runs it, on the program built as a new user may build it (PTX
    # only, compiled by the driver at load; the shared CUDA runtime); then the
    # stress table with the fix, round by round until DEADLINE seconds
    cp .stage/gpu/stress_app* .stage-old/gpu/
    STRESS_ANALYZE=1 python3 $S --stage .stage-old --runs "${HUNT_RUNS:-20}" --jobs 1 \
        --rows jit,rtshared,ret,nosync --modes default --deadline "${HUNT_DEADLINE:-110}" \
        --title "before the fix (ec6f92e), serial, with analysis: PTX-only and shared-runtime builds" \
        --out "$out/hunt.md" --json "$out/hunt.json"
    for t in t151-collector-quick t150-collector; do
        GPUHIER_BINARY_DIR=$PWD/.stage timeout 150 sh tests/gpu/$t.sh > "$out/$t.log" 2>&1
        echo "$t: status $? ($(grep -c -i 'ok\|pass' "$out/$t.log") ok lines, $(grep -c -i 'fail' "$out/$t.log") failure lines)"
        tail -3 "$out/$t.log"
    done
    python3 $S --stage .stage --runs "${RUNS:-200}" --native-runs "${NATIVE_RUNS:-30}" --jobs "${JOBS:-16}" \
        --rows ret,exit,thread_exit,bg,devreset,nosync,fork,exec,jit,rtshared \
        --deadline "${DEADLINE:-380}" \
        --title "stress table, up to ${RUNS:-200} runs, ${DEADLINE:-380} s" --out "$out/table.md" --json "$out/table.json"
    ;;
check)
    # after a change to the collector: its GPU tests (their files under
    # /tmp, the logs here), the stress rows round by round until DEADLINE,
    # and what a profile of issue 18's one-pass group 1 costs
    export GPUHIER_SOURCE_DIR=$PWD GPUHIER_BINARY_DIR=$PWD/.stage
    for t in t151-collector-quick t150-collector t175-nvtx-torch; do
        OUT=/tmp/gpu-tests timeout 200 sh tests/gpu/$t.sh > "$out/$t.log" 2>&1
        echo "$t: status $?; $(grep -c '^ok' "$out/$t.log") ok, $(grep -c '^FAIL' "$out/$t.log") FAIL"
        grep '^FAIL' "$out/$t.log" | head -5
    done
    SASSPROBE_PATTERN=outer SASSPROBE_KEEP=1 OUT=/tmp/gpu-tests timeout 100 sh bench/sassprobe/test_gpu.sh > "$out/sassprobe-cases.log" 2>&1
    echo "sassprobe-cases (outer, kept): status $?"; tail -2 "$out/sassprobe-cases.log"
    OUT="$out" timeout 150 python3 bench/rangeprof_cost.py .stage --steps 20 --timeout 70 \
        --variants native,group1-user,onepass-user > /dev/null 2>&1
    grep -E "^\| (native|group1|onepass)" "$out/rangeprof_cost.md"
    rm -f "$out"/rangeprof_cost-*.err
    python3 $S --stage .stage --runs "${RUNS:-200}" --native-runs "${NATIVE_RUNS:-10}" --jobs "${JOBS:-16}" \
        --rows ret,exit,thread_exit,bg,devreset,nosync,fork,exec,torch,abort,segv,term,own_abort \
        --deadline "${DEADLINE:-170}" \
        --title "stress rows after the collector's split, ${DEADLINE:-170} s" --out "$out/table.md" --json "$out/table.json" \
        | grep -E "runs in|^\| [a-z_]+ \| [a-z]+ \| [0-9]+ \| [1-9]"
    ;;
*) echo "unknown part $part"; exit 2 ;;
esac
