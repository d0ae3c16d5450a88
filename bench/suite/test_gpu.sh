#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/suite/test_gpu.sh (ctest gpu.suite-defects): the suite's driver on the GPU with its quickest
# workload only (cuda_defects.sh, the testkernels), from the build tree as the stage: gpuhier run and
# analyze, ncu --set full, the details export, the table and the packing. Checks that the stride-32
# copy got a row with an ncu rule result and a verdict. Skips (77) without a GPU or without ncu.
# Not yet run on the device.
set -u
bin=${GPUHIER_BINARY_DIR:?}
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi > /dev/null 2>&1; then
    echo "skipped: no GPU"; exit 77
fi
command -v ncu > /dev/null 2>&1 || { echo "skipped: no ncu"; exit 77; }
[ -x "$bin/testkernels/tk_coalesce" ] || { echo "skipped: testkernels not built"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/suite-gpu-XXXXXX")
trap 'rm -rf "$out"' EXIT
OUT=$out SUITE_WORKLOADS=cuda_defects BUDGET_S=${BUDGET_S:-240} sh "$src/bench/suite/device.sh" "$bin"
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: device.sh exited $rc"; exit 1; }
for f in suite.md suite-rows.json logs.tar.gz ncu-csv.tar.gz reports.tar.gz; do
    [ -s "$out/$f" ] || { echo "FAIL: no $f"; exit 1; }
done
grep -q '| cuda_defects | copy_strided | ours |' "$out/suite.md" || { echo "FAIL: no copy_strided row"; exit 1; }
grep '| cuda_defects | copy_strided | ours |' "$out/suite.md" | grep -q 'not profiled' &&
    { echo "FAIL: ncu did not profile copy_strided"; exit 1; }
echo "ok: suite driver on the GPU"
