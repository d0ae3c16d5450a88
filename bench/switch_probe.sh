#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/switch_probe.sh STAGE: does the range profiler need re-enabling
# when the config image changes? (docs/metrics.md "Where default
# sampling's time goes": each re-enable makes the next range cost ~150 ms
# more, and every extras profile pays it.) Runs the PyTorch benchmark's
# short run (--steps 2 --warmup 1: 145 core profiles of 3 passes, 88
# extras profiles of 2 to 7 passes) under default sampling, as the
# collector is and with GPUHIER_DIAG_SWITCH_KEEP=1 (no re-enable), and
# prints per metric set the profiles, passes, profiling time and the
# profiles with a NULL value (a value the range profiler did not return:
# what the re-enable was added against). Diagnosis; ~2 min on the H200.
set -u
stage=$(cd "${1:?stage dir}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:=/tmp/switch_probe}"
mkdir -p "$OUT"
t0=$(date +%s)
for mode in reenable keep; do
  if [ $mode = keep ]; then set -- GPUHIER_DIAG_SWITCH_KEEP=1; else set -- GPUHIER_QUIET=0; fi
  s=$(date +%s)
  timeout -k 5 100 env "$@" GPUHIER_DATA_DIR="$root" "$stage/gpuhier" run --no-analyze -f \
    -o "$OUT/$mode-1-%p.db" python3 "$root/bench/pytorch_train.py" --steps 2 --warmup 1 > "$OUT/$mode.log" 2>&1
  echo "== $mode: exit $? after $(( $(date +%s) - s ))s"
done
python3 "$root/bench/profile_sets.py" "$OUT" --by-set | tee "$OUT/switch-probe.md"
echo "switch_probe: $(( $(date +%s) - t0 ))s"
