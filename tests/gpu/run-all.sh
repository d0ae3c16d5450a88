#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/gpu/run-all.sh STAGE: the GPU tests (every ctest of label gpu that
# one H200 can run, docs/gpu-tests.md) in ONE device call, with the
# environment ctest gives them, on a stage made by scripts/stage.sh. Most
# telling first: the default's own test (t180), the default as a user meets
# it (t440, t151), the rule-pinned ones after. A test is not started when
# fewer than its limit's seconds are left before DEADLINE_S (default 540,
# inside the device's 600 s), and the summary says "not run". Each test's
# log and files go to $OUT/<test>/ (packed into $OUT/gpu-tests.tgz: the
# device returns at most 8 files); the summary (name, exit, seconds, ok and
# FAIL lines) to $OUT/gpu-tests.txt and stdout; the reports are not packed. Exit 1 when a test failed.
# GPU_TESTS=a,b runs only the tests of those names (t152-graph-instrument,...).
# Not here: gpu.t170-ddp (two GPUs: an nvidia-h200-x2 call), gpu.t160-agreement
# and gpu.suite-defects (ncu, ~3 and ~4 min: calls of their own).
set -u
stage=$(cd "${1:?usage: tests/gpu/run-all.sh STAGE}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/out/gpu-tests}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deadline=${DEADLINE_S:-540}
cd "$root" || exit 1
t0=$(date +%s)
sum=$out/gpu-tests.txt
: > "$sum"
fail=0
# run NAME LIMIT_S COMMAND...
run() {
    name=$1 limit=$2
    shift 2
    case ",${GPU_TESTS:-$name}," in *",$name,"*) ;; *) return ;; esac
    left=$((deadline - ($(date +%s) - t0)))
    if [ "$left" -lt "${MIN_LEFT_S:-20}" ]; then
        echo "$name: not run (${left} s left, limit ${limit} s)" | tee -a "$sum"
        return
    fi
    lim=$limit
    [ "$left" -lt "$limit" ] && lim=$left
    mkdir -p "$out/$name"
    s=$(date +%s)
    env GPUHIER_BINARY_DIR="$stage" GPUHIER_SOURCE_DIR="$root" GPUHIER_DATA_DIR="$root" \
        GPUHIER="$stage/gpuhier" GPUHIER_COLLECTOR="$stage/libgpuhier-collector.so" \
        GH_CLI_CHILD="$stage/tests/gh_cli_child" GH_TEST_EXPORT=true OUT="$out/$name" \
        timeout -k 5 "$lim" "$@" > "$out/$name/log.txt" 2>&1
    rc=$?
    case $rc in
    0) v=passed ;;
    77) v=skipped ;;
    124 | 137)
        if [ "$lim" -lt "$limit" ]; then
            v="not finished (the deadline left it ${lim} s of its ${limit} s limit)"
        else
            v="TIMED OUT"
            fail=1
        fi
        ;;
    *) v=FAILED; fail=1 ;;
    esac
    echo "$name: $v (exit $rc, $(($(date +%s) - s)) s, $(grep -c '^ok' "$out/$name/log.txt") ok, $(grep -c 'FAIL' "$out/$name/log.txt") FAIL lines)" |
        tee -a "$sum"
    grep 'FAIL' "$out/$name/log.txt" | head -8 | sed 's/^/    /' | tee -a "$sum"
    # a test program left running would share the GPU with every later test
    for p in $(pgrep -f "$stage/gpu/" 2>/dev/null); do
        kill -9 "$p" 2>/dev/null && echo "    $name left pid $p running: killed" | tee -a "$sum"
    done
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$sum"
echo "stage commit $(cat "$stage/COMMIT" 2>/dev/null)" | tee -a "$sum"
run t180-onepass-groups 60 sh tests/gpu/t180-onepass-groups.sh
run t440-run-gpu 60 sh tests/e2e/t440-run-gpu.sh
run t151-collector-quick 30 sh tests/gpu/t151-collector-quick.sh
run t471-diff-twins-gpu 60 sh tests/e2e/t471-diff-twins-gpu.sh
run t150-collector 120 sh tests/gpu/t150-collector.sh
run t152-graph-instrument 60 sh tests/gpu/t152-graph-instrument.sh
run t153-concurrent-kernels 60 sh tests/gpu/t153-concurrent-kernels.sh
run t175-nvtx-torch 60 sh tests/gpu/t175-nvtx-torch.sh
run t441-doctor-gpu 30 sh tests/e2e/t441-doctor-gpu.sh
run testkernels-cases 90 sh testkernels/run_cases.sh "$stage"
run sassprobe-cases 40 sh bench/sassprobe/test_gpu.sh
echo "run-all: $(($(date +%s) - t0)) s" | tee -a "$sum"
# logs and text only: the reports (t150 alone writes some 40) stay on the device
tar -czf "$out/gpu-tests.tgz" -C "$out" --exclude gpu-tests.tgz --exclude '*.db' --exclude '*.db-*' . 2>/dev/null
exit $fail
