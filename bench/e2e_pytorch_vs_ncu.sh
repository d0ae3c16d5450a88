#!/bin/sh
# SPDX-License-Identifier: MIT
#
# e2e_pytorch_vs_ncu.sh [BUILD_DIR]: gpuhier's findings beside Nsight
# Compute's rule results (UncoalescedGlobalAccess, SharedMemoryConflicts,
# TheoreticalOccupancy, AchievedOccupancy, LaunchConfiguration) for the 20
# kernels of bench/pytorch_train.py with the most GPU time, on the same
# launches (each kernel's heaviest configuration; ncu's first launch of it,
# --filter-mode per-launch-config --launch-count 1).
# Writes $OUT/pytorch-vs-ncu.md, ncu-details.csv, the report(s) and a log.
# Environment: OUT (default ./out/pytorch-vs-ncu), BENCH_ARGS (default
# "--steps 3 --warmup 1"), NCU (default ncu), NCU_TIMEOUT_S (default 400; the ncu run alone).
# Without a GPU, a recorded run compares again with this build's analyzer and rules:
#   python3 bench/e2e/pytorch_vs_ncu.py --root . --build build --out DIR --rescore REPORT NCU_CSV
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-${GPUHIER_BUILD:-$root/build}}
: "${OUT:=$root/out/pytorch-vs-ncu}"
mkdir -p "$OUT"
start=$(date +%s)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
python3 -c 'import torch' 2>/dev/null || { echo "skipped: no torch"; exit 77; }
[ -x "$build/gpuhier" ] || { echo "e2e_pytorch_vs_ncu: no gpuhier in '$build'" >&2; exit 1; }
python3 "$here/e2e/pytorch_vs_ncu.py" --root "$root" --build "$build" --out "$OUT"
rc=$?
echo "e2e_pytorch_vs_ncu: $(( $(date +%s) - start )) s"
exit $rc
