#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/replay_probe.sh STAGE: what one profiled launch costs under CUPTI's
# kernel replay against user replay (GPUHIER_DIAG_REPLAY=user), with a
# one-pass metric list, on the multistream test program and the PyTorch
# benchmark (docs/metrics.md, "What a profiled launch costs"). Prints the
# median phase times of GPUHIER_DEBUG's per-launch lines, the profiles kept
# and dropped, whether the profiled launches' own kernel records completed,
# and how the two modes' values compare per configuration. Diagnosis only:
# user replay replays nothing, so it is valid for one-pass lists alone.
set -u
stage=$(cd "${1:?stage dir}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:=/tmp/replay_probe}"
mkdir -p "$OUT"
one=$(sed -n 's/^dram-l2miss //p' "$root/bench/agreement/groups.txt")
t0=$(date +%s)
run() { # run TAG LIMIT REPLAY ARGS...
  tag=$1 limit=$2 rp=$3; shift 3
  s=$(date +%s)
  timeout -k 5 "$limit" env GPUHIER_DEBUG=1 GPUHIER_DIAG_REPLAY="$rp" GPUHIER_DATA_DIR="$root" \
    "$stage/gpuhier" run --no-analyze -f -o "$OUT/$tag.db" "$@" > "$OUT/$tag.log" 2>&1
  echo "== $tag: exit $? after $(( $(date +%s) - s ))s"
}
for rp in kernel user; do
  run "ms-$rp" 40 "$rp" --sample all --metric-set none --metrics "$one" "$stage/gpu/multistream" 5
done
run ms-user-core 30 user --sample all "$stage/gpu/multistream" 2
for rp in kernel user; do
  run "pt-$rp" 120 "$rp" --metric-set none --metrics "$one" \
    python3 "$root/bench/pytorch_train.py" --steps 2 --warmup 1
done
python3 "$root/bench/replay_probe.py" "$OUT" | tee "$OUT/replay-probe.md"
echo "replay probe: $(( $(date +%s) - t0 ))s"
