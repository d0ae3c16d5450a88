#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/suite/device.sh [STAGE]: issue 19 point 8's suite in one device call.
# Six workloads (bench/suite/*.py, cuda_defects.sh: a Hugging Face GPT-2
# trained a few steps, torch.compile's Triton kernels, a JAX training loop,
# CuPy raw kernels, cuBLAS and cuDNN through PyTorch, testkernels with planted
# defects), each run natively, under `gpuhier run` (then `gpuhier analyze`)
# and under `ncu --set full` on the kernels its script names; then
# bench/suite/compare.py's table (stdout and $OUT/suite.md) and everything
# packed into at most 8 files under $OUT (bench/suite/run.py says which).
# STAGE (default .stage) is what scripts/stage.sh made here: gpuhier, the
# collector, the testkernels. BUDGET_S (default 540) bounds the whole call;
# each step has its own limit, so one hang cannot take the call.
# SUITE_WORKLOADS=a,b runs only those. Run it in one device call with
# carry [".stage"]: `sh bench/suite/device.sh .stage`.
set -u
stage=${1:-.stage}
out=${OUT:-out/suite}
if [ ! -x "$stage/gpuhier" ]; then
    echo "suite: no $stage/gpuhier (make the stage with scripts/stage.sh BUILD $stage)" >&2
    exit 2
fi
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi > /dev/null 2>&1; then
    echo "skipped: no GPU"
    exit 77
fi
export PYTHONUNBUFFERED=1
exec python3 "$(dirname "$0")/run.py" --stage "$stage" --out "$out" --budget "${BUDGET_S:-540}"
