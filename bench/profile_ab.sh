#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/profile_ab.sh STAGE VAR [RUNS]: the collector as it is (A) against
# the collector with the diagnosis switch VAR=1 (B; VAR=VALUE sets a value), on the PyTorch
# benchmark's short run (--steps 2 --warmup 1: 145 core profiles of 3
# passes, 88 extras profiles of 2 to 7), under default sampling,
# interleaved A B A B (RUNS pairs, default 2), with GPUHIER_DEBUG phase
# times in the logs; then, per report and metric set, the profiles,
# passes, profiling time and profiles with a NULL value
# (bench/profile_sets.py). Uses:
#   VAR=GPUHIER_DIAG_EXTRAS_WITH_CORE  extras with the whole core instead of
#     the tie set (session of 2026-11-29 22:11 UTC, call 5: docs/gpu-runs.md)
#   VAR=GPUHIER_DIAG_SWITCH_KEEP  no re-enable when the config image changes:
#     which switches lose values, what the re-enables cost (docs/metrics.md)
#   VAR=GPUHIER_PROFILER_HOLD_MS=0  no profiler hold (the default is 100 ms
#     since 2026-11-30): what the hold saves (docs/collector.md "Profiler hold")
set -u
stage=$(cd "${1:?stage dir}" && pwd)
var=${2:?diagnosis variable}
runs=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:=/tmp/profile_ab}"
mkdir -p "$OUT"
t0=$(date +%s)
i=1
while [ "$i" -le "$runs" ]; do
  for mode in a b; do
    if [ $mode = a ]; then set -- GPUHIER_QUIET=0; else case $var in *=*) set -- "$var";; *) set -- "$var=1";; esac; fi
    s=$(date +%s)
    timeout -k 5 100 env "$@" GPUHIER_DEBUG=1 GPUHIER_DATA_DIR="$root" "$stage/gpuhier" run --no-analyze -f \
      -o "$OUT/$mode-$i-%p.db" python3 "$root/bench/pytorch_train.py" --steps 2 --warmup 1 \
      > "$OUT/$mode-$i.log" 2>&1
    rc=$?
    [ $mode = b ] && what="$*" || what=default
    echo "== $mode run $i ($what): exit $rc after $(( $(date +%s) - s ))s"
  done
  i=$((i + 1))
done
python3 "$root/bench/profile_sets.py" "$OUT" --by-set | tee "$OUT/profile-ab.md"
echo "profile_ab $var: $(( $(date +%s) - t0 ))s"
