#!/bin/sh
# SPDX-License-Identifier: MIT
#
# merge_speed.sh: time `gpuhier merge` on SYNTHETIC rank reports and print
# one table row per job size: ranks, launches, input and output size, wall
# time, CPU time, peak memory, launches merged per second.
#
#   bench/merge_speed.sh [BUILD_DIR] [LAUNCHES_PER_RANK] [RANKS...]
#
# Defaults: build (or $GPUHIER_BINARY_DIR), 1000000 launches per rank,
# ranks 2 8 64. One report is made with bench/make_big_report.sh
# (LAUNCHES_PER_RANK traced launches, 1 % profiled, 40 kernels; labelled
# synthetic in its meta) and copied once per rank, each copy given its
# rank, world size and pid in meta and run (the ranks are otherwise the
# same: merge's work depends on the rows, not on their values).
# ANALYZE_UP_TO=N (default 8) also times `gpuhier analyze` of the merged
# report for jobs of at most N ranks. Needs about
# 2 x RANKS x 96 MB of disk per million launches per rank under $TMPDIR.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${GPUHIER_BINARY_DIR:-$src/build}}
n=${2:-1000000}
[ $# -ge 2 ] && shift 2 || shift $#
ranks=${*:-2 8 64}
bin=$build/gpuhier
[ -x "$bin" ] || { echo "merge_speed: no gpuhier in '$build' (build it first)" >&2; exit 1; }
analyze_up_to=${ANALYZE_UP_TO:-8}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gh-merge-speed-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
np=$((n / 100))
sh "$src/bench/make_big_report.sh" "$tmp/base.db" "$n" "$np" > /dev/null
echo "rank report: $n traced launches, $np profiled ($(du -h "$tmp/base.db" | cut -f1)), synthetic"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo
echo "| ranks | launches | inputs | output | merge wall | merge CPU | peak RSS | launches/s | analyze wall | analyze peak RSS |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for r in $ranks; do
  rm -f "$tmp"/rank-*.db "$tmp/job.db"
  i=0
  while [ "$i" -lt "$r" ]; do
    cp "$tmp/base.db" "$tmp/rank-$i.db"
    sqlite3 "$tmp/rank-$i.db" "INSERT INTO meta VALUES ('rank', '$i'), ('local_rank', '$((i % 8))'),
      ('world_size', '$r'), ('rank_source', 'synthetic');
      UPDATE run SET pid = pid + $i, host = 'synthetic-node-$((i / 8))'"
    i=$((i + 1))
  done
  cat "$tmp"/rank-*.db > /dev/null # the same page-cache state for every size
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$bin" merge "$tmp"/rank-*.db -o "$tmp/job.db" \
    2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
  read -r wall user sys rss < "$tmp/time"
  total=$((n * r))
  in_mb=$(du -cm "$tmp"/rank-*.db | tail -1 | cut -f1)
  out_mb=$(du -m "$tmp/job.db" | cut -f1)
  rate=$(echo "$total / $wall" | bc)
  got=$(sqlite3 "$tmp/job.db" "SELECT count(*) FROM launch")
  [ "$got" = "$total" ] || { echo "merge_speed: $got launches merged, want $total" >&2; exit 1; }
  awall=- arss=-
  if [ "$r" -le "$analyze_up_to" ]; then
    /usr/bin/time -f "%e %M" -o "$tmp/atime" "$bin" analyze "$tmp/job.db" --rules "$src/rules" \
      --top 0 > /dev/null 2> "$tmp/aerr" || { cat "$tmp/aerr"; exit 1; }
    read -r awall arss < "$tmp/atime"
    awall="$awall s" arss="$((arss / 1024)) MB"
  fi
  echo "| $r | $total | $in_mb MB | $out_mb MB | $wall s | $(echo "$user + $sys" | bc) s | $((rss / 1024)) MB | $rate | $awall | $arss |"
done
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
