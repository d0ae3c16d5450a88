#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/suite/unseen.sh STAGE: memory-hierarchy pathologies that no rule was
# written or tuned against (testkernels/unseen.cu: a field of a 32-byte
# record, half-precision stores at a stride of two, a reduction with strided
# shared indices and its sequential twin, an 8-bin histogram of global
# atomics, a data-indexed per-thread array, 48-thread blocks, a float4 copy
# and a broadcast as clean kernels, a grid of 8 blocks streaming the array,
# a kernel reading mapped host memory). What each should get is written
# beside it in the source; the suite's table says what gpuhier and ncu made
# of it (docs/suite.md "Pathologies no rule was tuned on"). Not in the
# suite's default list: SUITE_WORKLOADS=unseen runs it.
# suite: class=ours native=60 gpuhier=90 ncu=120
# suite-ncu: --kernel-name-base function --kernel-name regex:^(aos_mass|half_stride2_store|reduce_strided_index|reduce_sequential|hist8_global|local_lookup|copy_block48|copy_float4|broadcast_scale|sum_few_blocks|read_host_mapped)$ --filter-mode per-launch-config --launch-count 1
set -eu
export TK_REPS="${TK_REPS:-3}"
"${1:?usage: unseen.sh STAGE}/testkernels/tk_unseen" all
