#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/stage.sh BUILD STAGE: copies what a device call needs from a
# build made here (configured with -DGPUHIER_WERROR=ON
# -DGPUHIER_TESTKERNELS=ON) into STAGE, small enough to carry (the device
# tool carries at most 64 MiB): gpuhier, the collector, the testkernel
# binaries with binaries.txt, the collector's GPU test programs (gpu/) and
# gh_cli_child. STAGE then serves as GPUHIER_BINARY_DIR for the GPU tests
# (tests/gpu/t15x, tests/e2e/t44x and t471, testkernels/run_cases.sh) and as
# the BUILD argument of the bench/ scripts. Prints the commit and the size.
# The copies are stripped (strip --strip-unneeded: debug information and
# the symbols no relocation needs go; the dynamic symbols, among them the
# collector's InitializeInjection, and the CUDA fatbins with their -lineinfo
# stay): unstripped, the stage (46 MB on 2026-12-04; 29 MB stripped) and
# the tracked tree (20 MB) no longer fit the device's 64 MiB together.
set -eu
b=$(cd "${1:?build dir}" && pwd)
s=${2:?stage dir}
rm -rf "$s"
mkdir -p "$s/testkernels" "$s/gpu" "$s/tests"
cp "$b/gpuhier" "$b/libgpuhier-collector.so" "$s/"
cp "$b/testkernels/binaries.txt" "$s/testkernels/"
for t in $(cat "$b/testkernels/binaries.txt"); do cp "$b/testkernels/$t" "$s/testkernels/"; done
for p in "$b"/gpu/*; do [ -f "$p" ] && [ -x "$p" ] && cp "$p" "$s/gpu/"; done
cp "$b/tests/gh_cli_child" "$s/tests/"
find "$s" -type f ! -name '*.txt' -exec strip --strip-unneeded {} +
git -C "$(dirname "$0")/.." rev-parse --short HEAD > "$s/COMMIT"
echo "stage: $s from $b at $(cat "$s/COMMIT"), $(du -sh "$s" | cut -f1)"
