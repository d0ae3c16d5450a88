#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/kill_hazard.sh STAGE: does a program SIGKILLed under the collector
# leave the GPU's counters busy for later processes? (docs/collector.md:
# with the range profiler kept enabled across unsampled launches, every
# process after tests/gpu/t150's SIGKILL step met CUPTI_ERROR_HARDWARE_BUSY
# on 2026-11-29.) For each mode, the collector's default (the profiler
# disabled at unsampled launches) first, then GPUHIER_DIAG_KEEP_ENABLED=1:
# kill -9 the endless test program gpu/sigkill two seconds after it
# started, then profile gpu/multistream and print its profiled launches and
# profiling_limited; once more 10 s later. Diagnosis; prints a table.
# Answered on 2026-11-29 (docs/gpu-runs.md, session of 23:28 UTC): a SIGKILL
# leaves nothing behind; t150's step never killed gpu/sigkill (its kill
# reached a subshell), and a process with an enabled profiler holds the
# counters while it runs.
set -u
stage=$(cd "${1:?stage dir}" && pwd)
: "${OUT:=/tmp/kill_hazard}"
mkdir -p "$OUT"
cd "$OUT" || exit 1
lib=$stage/libgpuhier-collector.so
gpu=$stage/gpu
probe() { # probe TAG: a profiled multistream run, then its profiled launches and limit
  rm -f "$1.db"
  env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$OUT/$1.db" "$gpu/multistream" 5 > /dev/null 2>&1
  # python3's sqlite3: the GPU machine has no sqlite3 command (2026-11-29, call 4)
  python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1] + ".db")
print("| %s | %s | %s |" % (sys.argv[1], c.execute("SELECT count(*) FROM launch WHERE profiled = 1").fetchone()[0],
      c.execute("SELECT ifnull(profiling_limited, \"-\") FROM run").fetchone()[0]))' "$1" 2>&1 | tail -1
}
echo "| step | profiled launches | profiling_limited |"
echo "| --- | --- | --- |"
probe before
for mode in default keep; do
  rm -f "sk-$mode.db" "sk-$mode.out"
  if [ $mode = keep ]; then set -- GPUHIER_DIAG_KEEP_ENABLED=1; else set -- GPUHIER_QUIET=1; fi
  env "$@" CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$OUT/sk-$mode.db" "$gpu/sigkill" > "sk-$mode.out" 2>&1 &
  pid=$!
  i=0; while [ $i -lt 100 ] && ! grep -q started "sk-$mode.out" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
  sleep 2; kill -9 $pid; wait $pid 2>/dev/null
  probe "after-kill-$mode"
  sleep 10
  probe "after-kill-$mode-10s"
done
