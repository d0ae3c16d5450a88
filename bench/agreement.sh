#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/agreement.sh [BUILD_DIR]: issue 3 points 6 and 7 (AGREE_PARTS splits the work over device calls).
#
# 1. Agreement: every testkernel (testkernels/manifest.json, or every
#    binary of BUILD_DIR/testkernels/binaries.txt) and the PyTorch benchmark
#    (bench/pytorch_train.py) run under `gpuhier run --sample all` and under
#    `ncu --metrics <the names gpuhier collected> --cache-control none
#    --clock-control none --replay-mode kernel`, both on the same launch
#    window; per kernel and metric both values and their difference against
#    tolerances fixed here (counters +-1 %, rates +-2 points).
# 2. Like for like (AGREE_PARTS "single"): each group of
#    bench/agreement/groups.txt, which fits in ONE pass on GH100 (checked
#    offline by ctest unit.agreement_groups), under `gpuhier run --sample
#    all --metric-set none --metrics G` and `ncu --metrics G` with the same
#    options: neither tool replays, so the cache- and timing-sensitive
#    counters see the launch as the program ran it. Same pairing, same
#    same-launch check, same tolerances; both tools' pass counts per launch
#    are in the table (gpuhier: profile.passes; ncu:
#    profiler__replayer_passes) and a pair that is not 1 and 1 fails the run.
# 3. Cost: native, gpuhier trace, gpuhier default sampling, gpuhier every
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
# (comma list, default "agree,cost": "agree" = agree-tk,agree-pt, the
# multi-pass comparison on the testkernels and the PyTorch benchmark;
# "single" = single-tk,single-pt, the like-for-like one; "cost"),
# AGREE_CASES ("binary": the first manifest case of each testkernel binary,
# default; "all": every case), AGREE_PROGRAMS (a regular expression: only
# the testkernel runs whose label matches), AGREE_TK_SKIP (launches skipped
# before each testkernel's window, --launch-skip in both tools, default 0),
# AGREE_COST_MODES (the cost part's modes, comma list of native, trace,
# default, budget, all, ncu-all, ncu-plc; default all but budget),
# AGREE_PROFILE_BUDGET (the budget mode's --profile-budget, default 30),
# AGREE_CACHE (none, the default, or all: both tools get --cache-control
# all, so each profiled launch starts from a flushed L2),
# NCU (default ncu), AGREE_REUSE (a previous
# run's tk/ folder: nothing is run, its reports and ncu CSVs, and those of
# the pt/ folder beside it, are compared again for the parts asked for;
# no GPU needed).
# Timing guide (H200, 2026-11-29 18:48 run: 26 binaries took 104 s for
# agree-tk, ~1.2 s gpuhier + ~2.7 s ncu each; the rest are estimates):
# agree-tk ~105 s, agree-pt ~45 s (measured 2026-11-29 22:23), single-tk
# ~26 x 3 groups x ~3.7 s = ~290 s, single-pt ~3 x 26 s (measured). "agree,single" (~570 s) does not fit one
# 9-minute device call with its ~90 s start: run AGREE_PARTS=agree
# (~165 s) and AGREE_PARTS=single (~410 s) as two calls. The cost part is
# dominated by the ncu runs (3 x 2 runs): give it its own call.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-${GPUHIER_BUILD:-$root/build}}
: "${OUT:=$root/out/agreement}"
mkdir -p "$OUT"
export OUT
exec python3 "$here/agreement/run.py" --root "$root" --build "$build" --out "$OUT"
