#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/extras_ab.sh STAGE: what an extras profile costs carrying the tie
# set (the default) against carrying the whole core
# (GPUHIER_DIAG_EXTRAS_WITH_CORE=1), on the PyTorch benchmark's short run
# (--steps 2 --warmup 1), interleaved A B A B, with GPUHIER_DEBUG phase
# times in the logs. The reports (OUT/tie-N-PID.db, OUT/core-N-PID.db)
# hold profile.overhead_ns per metric set; bench/profile_sets.py reads them.
set -u
stage=$(cd "${1:?stage dir}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:=/tmp/extras_ab}"
mkdir -p "$OUT"
t0=$(date +%s)
for i in 1 2; do
  for mode in tie core; do
    if [ $mode = core ]; then set -- GPUHIER_DIAG_EXTRAS_WITH_CORE=1; else set -- GPUHIER_DEBUG=1; fi
    s=$(date +%s)
    timeout -k 5 100 env "$@" GPUHIER_DEBUG=1 GPUHIER_DATA_DIR="$root" "$stage/gpuhier" run --no-analyze -f \
      -o "$OUT/$mode-$i-%p.db" python3 "$root/bench/pytorch_train.py" --steps 2 --warmup 1 \
      > "$OUT/$mode-$i.log" 2>&1
    echo "== $mode run $i: exit $? after $(( $(date +%s) - s ))s"
  done
done
python3 "$root/bench/profile_sets.py" "$OUT" | tee "$OUT/extras-ab.md"
echo "extras_ab: $(( $(date +%s) - t0 ))s"
