#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/suite/cuda_defects.sh STAGE: the suite's CUDA C program with planted
# defects, from the testkernels (docs/testkernels.md): a naive transpose
# (uncoalesced stores), a stride-32 copy and a gather (uncoalesced loads),
# 8-way shared-memory bank conflicts, and a kernel whose __launch_bounds__
# make it spill to local memory. TK_REPS (default 3) timed repetitions each.
# The kernels ncu profiles: the first launch of each configuration of the
# five defect kernels (their helpers tk_fill and tk_fill_perm left out).
# suite: class=ours native=60 gpuhier=60 ncu=90
# suite-ncu: --kernel-name-base function --kernel-name regex:^(transpose|copy_strided|gather|bank_nway|spill_bounds)$ --filter-mode per-launch-config --launch-count 1
set -eu
tk=${1:?usage: cuda_defects.sh STAGE}/testkernels
export TK_REPS="${TK_REPS:-3}"
"$tk/tk_transpose" n=4096
"$tk/tk_coalesce" stride=32 gather
"$tk/tk_bank" way=8
"$tk/tk_spill" bounds
