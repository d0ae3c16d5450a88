#!/bin/sh
# Issue 3 point 9 on the GPU: every default metric present and plausible on
# every profiled launch of every testkernel, and gpuhier's values within the
# tolerances fixed before the first run (counters +-1 %, rates +-2 points)
# of Nsight Compute's on the same launches (bench/agreement.sh, part
# agree-tk: the first manifest case of each testkernel binary, ~105 s on the
# H200). Exit 77 without a GPU, without ncu or without the testkernels.
# It fails on the H200 as of 2026-11-30 (349-353 of 3,600 values):
# docs/agreement.md classifies every miss (L2 state without cache control,
# replay, other L2 clients' traffic, bank conflict and timing variation,
# class C still open), and shows that ncu itself misses these tolerances
# against a second run of itself on 184 of 3,500 values
# (bench/agreement/selfagree.py); issue 3 stays open until it passes. The
# outputs go to $OUT (or a temp dir).
set -u
bin=${GPUHIER_BINARY_DIR:?}
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null; then
    echo "skipped: no GPU"; exit 77
fi
command -v "${NCU:-ncu}" >/dev/null 2>&1 || { echo "skipped: no ncu (NCU) to compare with"; exit 77; }
[ -s "$bin/testkernels/binaries.txt" ] || { echo "skipped: no testkernels built (GPUHIER_TESTKERNELS=ON)"; exit 77; }
out=${OUT:-$(mktemp -d)}/t160
mkdir -p "$out"
OUT=$out AGREE_PARTS=agree-tk AGREE_BUDGET_S=${AGREE_BUDGET_S:-300} GPUHIER=${GPUHIER:-$bin/gpuhier} \
    sh "$src/bench/agreement.sh" "$bin"
st=$?
echo "t160: bench/agreement.sh exit $st; table: $out/agreement.md"
exit $st
