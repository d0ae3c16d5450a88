#!/bin/sh
# SPDX-License-Identifier: MIT
# t214: GPU time that ran only as kernel nodes of CUDA graphs without counters
# (graphs the instrumentation engine could not arm; docs/collector.md "Graphs") is named in the summary's
# counter coverage and carried by the JSON export. On test_analyzer's
# SYNTHETIC sample report, plus 'node' launched 3 times, every time as a
# graph's kernel node (launch.graph_id set), with no counters (3 ms), and
# 'both' launched once in a graph and once on a stream (1 ms): only 'node'
# counts, with a share above 0. Then the same report with no profile at all
# (a program whose kernels all ran in graphs): the line is still there.
. "$(dirname "$0")/sample-report-lib.sh"

mk "$t/r.db"
"$helper" sql "$t/r.db" "INSERT INTO kernel (id, mangled_name, short_name) VALUES (201, '_Z4nodev', 'node'),
  (202, '_Z4bothv', 'both');
INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes,
  static_smem_bytes, registers_per_thread, threads_per_block, blocks, launches, total_ns) VALUES
  (201, 201, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32, 256, 4096, 3, 3000000),
  (202, 202, 0, 4096, 1, 1, 256, 1, 1, 0, 0, 32, 256, 4096, 2, 1000000);
INSERT INTO launch (kernel_id, config_id, device_id, correlation_id, graph_id, start_ns, end_ns) VALUES
  (201, 201, 0, 900, 7, 5000000000, 5001000000), (201, 201, 0, 901, 7, 5002000000, 5003000000),
  (201, 201, 0, 902, 7, 5004000000, 5005000000), (202, 202, 0, 903, 7, 5006000000, 5006500000),
  (202, 202, 0, 904, NULL, 5007000000, 5007500000)" > /dev/null || bad "sql"
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || { bad "analyze"; cat "$t/a"; }
"$bin" report "$t/r.db" --view summary > "$t/s" 2>&1
has "$t/s" "^ *[1-9][0-9.]* % ran only in CUDA graphs, without counters (1 configuration): graphs the instrumentation engine could not arm" \
  "the summary names the time that ran only in graphs, one configuration ('both' also ran on a stream)"
"$bin" export --raw "$t/r.db" --format json > "$t/r.json" || bad "json export"
python3 - "$t/r.json" <<'PY' && ok "the JSON export's coverage carries the same share" || bad "graph_only_pct in the JSON export"
import json, sys
c = json.load(open(sys.argv[1]))["coverage"]
assert c["graph_only_pct"] > 0, c
PY
"$helper" sql "$t/r.db" "DELETE FROM metric; DELETE FROM profile; UPDATE launch SET profiled = 0" > /dev/null || bad "sql"
"$bin" report "$t/r.db" --view summary > "$t/s2" 2>&1
has "$t/s2" "^ *[1-9][0-9.]* % ran only in CUDA graphs, without counters (1 configuration)" \
  "with no counters at all, the summary still says the graphs are why"
[ $fail = 0 ] && echo "t214: graph coverage ok"
exit $fail
