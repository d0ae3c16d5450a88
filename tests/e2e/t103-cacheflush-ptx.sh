#!/bin/sh
# The L2 flush kernels of --cache-control all (collector/cacheflush.c) are PTX
# text the driver compiles at run time: a typo in them would only show on a
# GPU. ptxas assembles them here for sm_90 (the H200) and sm_80, and the
# result must hold both kernels by name, a 128-bit load and the discard.
set -u
bin=${GPUHIER_BINARY_DIR:?}
ptxas=${PTXAS:-}
[ -n "$ptxas" ] && [ -x "$ptxas" ] || ptxas=$(command -v ptxas || true)
[ -n "$ptxas" ] || [ ! -x /usr/local/cuda/bin/ptxas ] || ptxas=/usr/local/cuda/bin/ptxas
[ -n "$ptxas" ] || { echo "skipped: no ptxas (CUDA toolkit) to assemble the flush kernel"; exit 77; }
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
"$bin/tests/test_collector_queue" --print-flush-ptx > "$t/flush.ptx" || { echo "cannot print the PTX"; exit 1; }
fail=0
for arch in sm_90 sm_80; do  # discard.global.L2 needs sm_80
  if ! "$ptxas" -arch=$arch "$t/flush.ptx" -o "$t/flush-$arch.cubin" 2> "$t/err"; then
    echo "ptxas -arch=$arch rejects the flush kernel:"; cat "$t/err"; fail=1; continue
  fi
  for k in gpuhier_l2_flush gpuhier_l2_discard; do
    grep -q $k "$t/flush-$arch.cubin" || { echo "$arch: no $k in the cubin"; fail=1; }
  done
done
grep -q 'ld.global.v4.u32' "$t/flush.ptx" || { echo "the flush kernel has no 128-bit load"; fail=1; }
grep -q 'discard.global.L2' "$t/flush.ptx" || { echo "the discard kernel has no discard"; fail=1; }
[ $fail = 0 ] && echo "t103: the flush kernels assemble for sm_90 and sm_80 ($(wc -c < "$t/flush-sm_90.cubin") bytes)"
exit $fail
