#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/two_procs.sh STAGE: two profiled processes on one GPU at once. Both
# run the PyTorch benchmark's short run (bench/pytorch_train.py --steps 2
# --warmup 1, 145 configurations) under `gpuhier run` with default
# sampling, started together. The range profiler serves one process at a
# time: a start while the other process profiles is refused with
# CUPTI_ERROR_HARDWARE_BUSY. Since 2026-11-30 the collector defers such a
# launch (profile_reason 'counters_busy') and retries with backoff (before,
# the first refusal ended profiling for the process). Prints, per process:
# exit status, wall time, configurations, core profiles, deferred launches,
# profiling_limited. Diagnosis and demonstration; no threshold.
set -u
stage=$(cd "${1:?stage dir}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:=/tmp/two_procs}"
mkdir -p "$OUT"
t0=$(date +%s)
for p in 1 2; do
  (s=$(date +%s)
   timeout -k 5 "${LIMIT_S:-140}" env GPUHIER_DATA_DIR="$root" "$stage/gpuhier" run --no-analyze -f \
     -o "$OUT/p$p.db" python3 "$root/bench/pytorch_train.py" --steps 2 --warmup 1 > "$OUT/p$p.log" 2>&1
   echo "p$p exit $? after $(( $(date +%s) - s ))s" > "$OUT/p$p.rc") &
done
wait
cat "$OUT"/p1.rc "$OUT"/p2.rc
python3 - "$OUT" <<'PY'
import sqlite3, sys, os
print("| process | configurations | core profiles | extras profiles | counters_busy launches | profiling s | profiling_limited |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for p in (1, 2):
    f = os.path.join(sys.argv[1], "p%d.db" % p)
    try:
        c = sqlite3.connect(f)
        one = lambda q: c.execute(q).fetchone()[0]
        print("| p%d | %s | %s | %s | %s | %.2f | %s |" % (
            p, one("SELECT count(*) FROM config"),
            one("SELECT count(*) FROM launch WHERE profiled = 1 AND profile_reason = 'first_of_config'"),
            one("SELECT count(*) FROM launch WHERE profiled = 1 AND profile_reason = 'extra_metrics'"),
            one("SELECT count(*) FROM launch WHERE profile_reason = 'counters_busy'"),
            (one("SELECT sum(overhead_ns) FROM profile") or 0) / 1e9,
            one("SELECT ifnull(profiling_limited, '-') FROM run")))
    except Exception as e:
        print("| p%d | %s |" % (p, e))
PY
echo "two_procs: $(( $(date +%s) - t0 ))s"
