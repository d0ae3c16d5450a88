#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/l2compress/device.sh STAGE: the L2 compression counters (lrc__, GH100)
# on plain cudaMalloc memory and on cuMemCreate memory with
# CU_MEM_ALLOCATION_COMP_GENERIC, read by ncu and by gpuhier's range profiler
# in one pass (issue 19, docs/suite.md "MemoryL2Compression"). Writes
# OUT/l2compress.txt (everything, short) and prints it. About 60 s on an H200.
set -u
S=${1:-.stage}
O=${OUT:-out}
W=$(mktemp -d /tmp/l2compress.XXXXXX)
P=$S/gpu/l2compress
C=lrc__ilc_input_sectors.sum,lrc__ilc_input_sectors_compressible.sum,lrc__ilc_output_sectors.sum
C2=$C,lts__t_sectors_op_write.sum,dram__bytes_write.sum,dram__bytes_read.sum
R=lrc__average_ilc_input_sector_success_rate.pct,lrc__average_ilc_output_sector_compression_achieved_rate.ratio
mkdir -p "$O"
{
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) stage $(cat "$S/COMMIT" 2>/dev/null)"
  echo "== native"; timeout 60 "$P"; echo "status $?"
  echo "== ncu counters: $C2"
  timeout 120 ncu --metrics "$C2" --csv "$P" > "$W/c.csv" 2> "$W/c.err"; echo "status $?"
  python3 "$(dirname "$0")/ncu_rows.py" "$W/c.csv"
  tail -3 "$W/c.err"
  echo "== ncu ratios: $R"
  timeout 120 ncu --metrics "$R" --csv "$P" > "$W/r.csv" 2> "$W/r.err"; echo "status $?"
  python3 "$(dirname "$0")/ncu_rows.py" "$W/r.csv"
  grep -iE 'error|not (found|supported)|invalid' "$W/r.csv" "$W/r.err" | head -5
  echo "== ncu --set full: MemoryL2Compression and the compression lines of its details page"
  timeout 180 ncu --set full --csv --page details -k 'regex:^(zeros|noise)_' -c 4 "$P" > "$W/f.csv" 2> "$W/f.err"
  echo "status $?"
  # raw lines: on 2026-12-04 a csv.DictReader of this page matched no header key, so print what ncu wrote
  grep -i 'compress' "$W/f.csv" | cut -c1-400 | head -40
  echo "== gpuhier --counters hardware --metric-set none --metrics $C,lts__t_sectors_op_write.sum --sample all"
  timeout 120 "$S/gpuhier" run -q -f -o "$W/gh.db" --no-analyze --counters hardware --metric-set none \
    --metrics "$C,lts__t_sectors_op_write.sum" --sample all -- "$P" > "$W/gh.out" 2>&1; echo "status $?"
  grep '==gpuhier==' "$W/gh.out" | grep -v profiled | head -8
  python3 - "$W/gh.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""SELECT l.id, k.short_name, p.passes, p.metric_set, n.name, m.value FROM launch l
  JOIN kernel k ON k.id = l.kernel_id JOIN profile p ON p.launch_id = l.id
  JOIN metric m ON m.launch_id = l.id JOIN metric_name n ON n.id = m.metric_id ORDER BY l.id, n.name""").fetchall()
for r in rows:
    print("gpuhier launch %d %s passes %s %s %s = %s" % r)
print("gpuhier: %d values" % len(rows))
PY
} > "$O/l2compress.txt" 2>&1
cat "$O/l2compress.txt"
rm -rf "$W"
