#!/bin/sh
# The L2 flush kernel of --cache-control all (collector/cacheflush.c) is PTX
# text the driver compiles at run time: a typo in it would only show on a
# GPU. ptxas assembles it here for sm_90 (the H200) and sm_80, and the
# result must hold the kernel by its name and a 128-bit global load.
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
for arch in sm_90 sm_80; do
  if ! "$ptxas" -arch=$arch "$t/flush.ptx" -o "$t/flush-$arch.cubin" 2> "$t/err"; then
    echo "ptxas -arch=$arch rejects the flush kernel:"; cat "$t/err"; fail=1; continue
  fi
  grep -q gpuhier_l2_flush "$t/flush-$arch.cubin" || { echo "$arch: no gpuhier_l2_flush in the cubin"; fail=1; }
done
grep -q 'ld.global.v4.u32' "$t/flush.ptx" || { echo "the flush kernel has no 128-bit load"; fail=1; }
[ $fail = 0 ] && echo "t103: the flush kernel assembles for sm_90 and sm_80 ($(wc -c < "$t/flush-sm_90.cubin") bytes)"
exit $fail
