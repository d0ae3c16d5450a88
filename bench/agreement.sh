#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/agreement.sh [BUILD_DIR]: issue 3 points 6 and 7 in one device call.
#
# 1. Agreement: every testkernel (testkernels/manifest.json, or every
#    binary of BUILD_DIR/testkernels/binaries.txt) and the PyTorch benchmark
#    (bench/pytorch_train.py) run under `gpuhier run --sample all` and under
#    `ncu --metrics <the names gpuhier collected> --cache-control none
#    --clock-control none --replay-mode kernel`, both on the same launch
#    window; per kernel and metric both values and their difference against
#    tolerances fixed here (counters +-1 %, rates +-2 points).
# 2. Cost: native, gpuhier trace, gpuhier default sampling, gpuhier every
#    launch (--launch-count W), ncu same metrics every launch
#    (--launch-count W) and ncu --filter-mode per-launch-config -c 1, on the
#    PyTorch benchmark, median of R runs, ratios, report bytes per profiled
#    launch.
# Writes $OUT/agreement.md (Markdown) plus raw outputs; prints its timing.
# Finishes within AGREE_BUDGET_S (default 450 s): steps that would not fit
# are skipped and the table says so.
#
# Environment: OUT (default ./out/agreement), GPUHIER (gpuhier binary),
# TK_DIR (testkernel binaries), AGREE_WINDOW (default 200), AGREE_REPS
# (default 3), AGREE_TK_LAUNCHES (launches per testkernel, default 10),
# BENCH_ARGS (arguments for bench/pytorch_train.py, default "--steps 20
# --warmup 3"), TK_REPS (testkernel repetitions, default 2), AGREE_PARTS
# ("agree,cost" by default; "agree" or "cost" to split the work over two
# device calls), AGREE_CASES ("binary": the first manifest case of each
# testkernel binary, default; "all": every case), NCU (default ncu),
# AGREE_REUSE (a previous run's tk/ folder: nothing is run, its reports and
# ncu CSVs are compared again, e.g. after a pairing fix; no GPU needed).
# Timing guide: ~26 binaries x ~8 s + PyTorch ~40 s for "agree"; the cost
# part is dominated by the ncu runs (3 x 2 runs): split the two parts over
# two calls unless the benchmark is short.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-${GPUHIER_BUILD:-$root/build}}
: "${OUT:=$root/out/agreement}"
mkdir -p "$OUT"
export OUT
exec python3 "$here/agreement/run.py" --root "$root" --build "$build" --out "$OUT"
