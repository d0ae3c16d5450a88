#!/bin/sh
# SPDX-License-Identifier: MIT
# t213: one-time set-up found by the program's loop (docs/analyzer.md "One-time
# set-up") is counted in the summary. On test_analyzer's SYNTHETIC sample report
# (stride x 11, idle x 5, no correlation ids: they come first in API order),
# followed by 'cand' launched twice (an autotuning candidate) and a loop of 'fwd'
# and 'bwd' run 4 times: cand is one-time set-up (kernel_summary.one_time), its
# finding says so, and the summary has one Set-up line with its time, and the
# counters' coverage of the repeated work alone.
. "$(dirname "$0")/sample-report-lib.sh"

mk "$t/r.db"
loop="INSERT INTO kernel (id, mangled_name, short_name) VALUES (101, '_Z4candv', 'cand'), (102, '_Z3fwdv', 'fwd'),
  (103, '_Z3bwdv', 'bwd');
INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes,
  static_smem_bytes, registers_per_thread, threads_per_block, blocks) VALUES
  (101, 101, 0, 4096, 1, 1, 100, 1, 1, 0, 0, 32, 100, 4096), (102, 102, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32, 256, 4096),
  (103, 103, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32, 256, 4096);
INSERT INTO launch (kernel_id, config_id, device_id, correlation_id, start_ns, end_ns) VALUES
  (101, 101, 0, 1, 3000000000, 3000900000), (101, 101, 0, 2, 3001000000, 3001900000)"
i=0
while [ $i -lt 4 ]; do
    a=$((4000000000 + i * 2000000)); b=$((a + 1000000))
    loop="$loop, (102, 102, 0, $((3 + 2 * i)), $a, $((a + 100000))), (103, 103, 0, $((4 + 2 * i)), $b, $((b + 100000)))"
    i=$((i + 1))
done
"$helper" sql "$t/r.db" "$loop" > /dev/null || bad "sql"
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || { bad "analyze"; cat "$t/a"; }
[ "$("$helper" sql "$t/r.db" "SELECT group_concat(kernel_id || ':' || one_time, ' ') FROM (SELECT * FROM kernel_summary
  WHERE config_id IS NOT NULL AND kernel_id > 100 ORDER BY kernel_id)")" = "101:1 102:0 103:0" ] \
  && ok "kernel_summary: cand is set-up, the loop's kernels are not" \
  || bad "kernel_summary.one_time: $("$helper" sql "$t/r.db" "SELECT kernel_id, config_id, one_time FROM kernel_summary")"
"$bin" report "$t/r.db" --view summary > "$t/s" 2>&1
has "$t/s" "^Set-up  *1 configuration (1.80 ms, [0-9.]* % of the working GPU time) ran only before the program's repeated work" \
  "the summary counts the set-up once, with its time"
# cand's blocks of 100 threads get a block-shape note (no time lost: shown with --all). A set-up
# finding ranks after the repeated work's; the summary's list says why (2026-12-05: a JAX report
# listed 2.17 ms lost under 1.9 us with nothing to tell them apart).
"$bin" report "$t/r.db" --all --view summary > "$t/sa" 2>&1
has "$t/sa" "^ *[0-9]*  *note .* block-shape  *cand  (one-time set-up)\$" "the top findings tag cand's as one-time set-up"
if grep -E " (stride|fwd|bwd)( |\$)" "$t/sa" | grep -q "one-time"; then
    bad "a repeated kernel's finding tagged one-time: $(grep one-time "$t/sa")"
else
    ok "no repeated kernel's finding is tagged"
fi
# The counters' coverage of the repeated work alone: cand (set-up, no counters) left out, the share
# with counters rises (stride, profiled, is repeated work; fwd and bwd have no counters).
has "$t/s" "^ *repeated work alone (set-up left out): pattern [0-9.]* %, hardware [0-9.]* %" \
  "the summary gives the repeated work's coverage"
"$bin" export --raw "$t/r.db" --format json > "$t/r.json" || bad "json export"
python3 - "$t/r.json" <<'PY' && ok "the JSON export: the repeated work's pattern share above the run's" || bad "repeated coverage in the JSON export"
import json, sys
c = json.load(open(sys.argv[1]))["coverage"]
assert c["repeated_pattern_pct"] is not None and c["repeated_pattern_pct"] > c["pattern_pct"] + 1, c
PY
[ $fail = 0 ] && echo "t213: set-up summary ok"
exit $fail
