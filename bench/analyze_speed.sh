#!/bin/sh
# SPDX-License-Identifier: MIT
#
# analyze_speed.sh: time `gpuhier analyze` on a synthetic report with
# 1,000,000 traced and 10,000 profiled launches (bench/make_big_report.sh,
# labelled synthetic), print wall time, CPU time and peak memory, and
# fail if the wall time exceeds the 2 s budget of issue 5.
#
#   bench/analyze_speed.sh [BUILD_DIR] [LAUNCHES] [PROFILED] [RUNS]
#
# ALLOCS (default 100000) allocation records come with it, as allocation
# tracking records them (bench/make_big_report.sh --allocs; 0: none).
# Defaults: build-an (or $GPUHIER_BINARY_DIR), 1000000, 10000, 3 runs;
# the best run counts (the machine is shared; the others are printed too).
# GPUHIER_ANALYZE_TIMING=1 GPUHIER_ANALYZE_TIMING_CPU=1 are set on the last run to print each
# step's CPU time (the wall time of a step depends on the machine's load).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${GPUHIER_BINARY_DIR:-$src/build-an}}
n=${2:-1000000}
np=${3:-10000}
runs=${4:-3}
bin=$build/gpuhier
[ -x "$bin" ] || { echo "analyze_speed: no gpuhier in '$build' (build it first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/gh-analyze-speed-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
allocs=${ALLOCS:-100000}
sh "$src/bench/make_big_report.sh" --allocs "$allocs" "$tmp/big0.db" "$n" "$np" >/dev/null
echo "report: $n traced launches, $np profiled, $allocs allocation records ($(du -h "$tmp/big0.db" | cut -f1)), synthetic"
best=
i=1
while [ "$i" -le "$runs" ]; do
  cp "$tmp/big0.db" "$tmp/big.db"
  cat "$tmp/big.db" > /dev/null   # same page-cache state for every run
  [ "$i" -eq "$runs" ] && export GPUHIER_ANALYZE_TIMING=1 GPUHIER_ANALYZE_TIMING_CPU=1
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$bin" analyze "$tmp/big.db" --rules "$src/rules" --top 0 \
    > "$tmp/out" 2> "$tmp/steps" || { cat "$tmp/steps"; exit 1; }
  read -r wall user sys rss < "$tmp/time"
  echo "run $i: wall ${wall} s, cpu $(echo "$user + $sys" | bc) s (user $user, sys $sys), peak RSS ${rss} KB"
  if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc)" = 1 ]; then best=$wall; fi
  i=$((i + 1))
done
echo "steps of the last run (CPU time):"
grep '^analyze:' "$tmp/steps" | sed 's/^/  /'
head -1 "$tmp/out"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "best wall time: $best s (budget 2 s)"
[ "$(echo "$best <= 2" | bc)" = 1 ]
