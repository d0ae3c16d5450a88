#!/bin/sh
# Runs every testkernels case under Nsight Compute and checks each key metric of
# testkernels/manifest.json (claim, ncu value, pass/fail); see docs/testkernels-ncu.md.
# usage: bench/ncu_confirm.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, $OUT or ./out)
# Needs an NVIDIA GPU and ncu (PATH, /usr/local/cuda/bin or /opt/nvidia/nsight-compute/*).
# TK_NCU_BUDGET (seconds, default 300): binaries not started by then are reported "not run".
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-${OUT:-out}}
mkdir -p "$out"
start=$(date +%s)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -z "$ncu" ]; then
  echo "ncu_confirm: no ncu found" >&2
  exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
echo "ncu_confirm: $("$ncu" --version | tail -n 1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
python3 bench/ncu_confirm/confirm.py testkernels/manifest.json "$build/testkernels" "$out" \
  --budget "${TK_NCU_BUDGET:-300}" --ncu "$ncu"
rc=$?
echo "ncu_confirm: $(( $(date +%s) - start )) s, exit $rc"
exit $rc
