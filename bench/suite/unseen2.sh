#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/suite/unseen2.sh STAGE: a second set of memory-hierarchy pathologies
# that no rule was written or tuned against, written after the first set
# (unseen.sh) had been judged (testkernels/unseen2.cu: a random gather and
# its identity twin, a copy one float off alignment, a transpose of doubles
# through an unpadded tile and its padded twin, a streaming kernel holding
# 120 KB of shared memory, a kernel of 170 registers, per-lane and per-block
# constant coefficients, a byte-wise XOR, a row sum with one thread per row,
# coalesced atomics on distinct addresses, a kernel polling a flag, managed
# memory the host rewrites before each launch, and host-side copies:
# pageable, small and a round trip). What each should get is written beside
# it in the source; the suite's table says what gpuhier and ncu made of it
# (docs/suite.md "A second set of pathologies"). Not in the suite's default
# list: SUITE_WORKLOADS=unseen2 runs it.
# suite: class=ours native=60 gpuhier=120 ncu=180
# suite-ncu: --kernel-name-base function --kernel-name regex:^(gather_random|gather_identity|copy_offset1|transpose_f64_tile|transpose_f64_tile_padded|axpy_smem_reserved|normalize_held|scale_by_lane_coef|scale_by_block_coef|xor_bytes|row_sum_thread_per_row|accumulate_distinct|poll_flag|scale_managed)$ --filter-mode per-launch-config --launch-count 1
set -eu
export TK_REPS="${TK_REPS:-3}"
"${1:?usage: unseen2.sh STAGE}/testkernels/tk_unseen2" all
