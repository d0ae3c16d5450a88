#!/bin/sh
# SPDX-License-Identifier: MIT
# t211: the figures the report views print agree with each other and with
# the hardware. On SYNTHETIC reports (test_analyzer's sample report, edited):
#   - a run whose every launch was profiled (the collector leaves their
#     traced times NULL and config.total_ns 0) still shows its kernel time;
#   - without a measured copy bandwidth no line says "measured copy bandwidth";
#   - bank conflicts are 1 to 32 ways, from the conflict counters; the
#     wavefronts per instruction are never called n-way;
#   - evidence is never printed in scientific notation.
. "$(dirname "$0")/sample-report-lib.sh"
sql() { "$helper" sql "$1" "$2" >/dev/null || bad "sql on $1"; }
# metric NAME VALUE: a metric of config 1's profiled launch
metric() {
  sql "$t/$1" "INSERT OR IGNORE INTO metric_name (name) VALUES ('$2');
    INSERT INTO metric (launch_id, metric_id, value) SELECT l.id, n.id, $3 FROM launch l, metric_name n
    WHERE l.config_id = 1 AND l.profiled = 1 AND n.name = '$2'"
}

# Every launch profiled: the kernel time comes from the replayed duration.
mk "$t/prof.db"
sql "$t/prof.db" "DELETE FROM launch WHERE profiled = 0; UPDATE launch SET start_ns = NULL, end_ns = NULL;
  UPDATE config SET launches = 0, total_ns = 0"
"$bin" report "$t/prof.db" --view summary > "$t/s" 2>&1
lacks "$t/s" "GPU time  *0 ns kernel time" "summary: kernel time is not 0 ns"
has "$t/s" "GPU time  *1.00 ms kernel time" "summary: kernel time is the profiled launch's replayed 1 ms"

# No measured copy bandwidth.
mk "$t/nocopy.db"
sql "$t/nocopy.db" "UPDATE device SET measured_copy_bw_bytes_per_s = NULL"
"$bin" report "$t/nocopy.db" --view kernel stride > "$t/k" 2>&1
lacks "$t/k" "at measured copy bandwidth" "kernel view: no measured-copy floor without a measurement"
has "$t/k" "copy bandwidth not measured" "kernel view: says the copy bandwidth was not measured"

# Bank conflicts beyond what 32 banks can do: clamped, with the reason.
mk "$t/bank.db"
metric bank.db l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 1000000
metric bank.db l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 990000
metric bank.db smsp__inst_executed_op_shared_ld.sum 250
"$bin" report "$t/bank.db" --view kernel stride > "$t/b" 2>&1
has "$t/b" "32-way conflicts (counters" "kernel view: conflicts clamped to 32 ways with the reason"
lacks "$t/b" "4000.0-way" "kernel view: no 4000-way conflicts"
# Wavefronts per instruction below 1 (no conflict counters): not an n-way.
mk "$t/wf.db"
metric wf.db l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 1000
metric wf.db smsp__inst_executed_op_shared_ld.sum 2000
"$bin" report "$t/wf.db" --view kernel stride > "$t/w" 2>&1
lacks "$t/w" "0.5-way" "kernel view: never a 0.5-way conflict"
has "$t/w" "0.5 wavefronts/instruction" "kernel view: the ratio under its own name"

# Evidence of 16384 blocks.
mk "$t/ev.db"
sql "$t/ev.db" "UPDATE config SET grid_x = 16384, blocks = 16384 WHERE id = 1"
mkdir "$t/rules"
cat > "$t/rules/grid.rule" <<'R'
id: grid
title: Grid
tier: dram
doc: test
rationale: test rule
query: SELECT config_id, blocks, blocks + 0.4 AS blocks_frac, 0.5 * mean_ns AS time_lost_ns FROM cfg WHERE config_id = 1
message: {blocks} blocks
remedy: none
evidence: blocks blocks
evidence: blocks_frac blocks
R
"$bin" analyze "$t/ev.db" --rules "$t/rules" > /dev/null 2>&1
"$bin" report "$t/ev.db" --raw --view finding 1 > "$t/e" 2>&1
has "$t/e" "16384 blocks" "finding view: 16384 blocks"
lacks "$t/e" "e+0" "finding view: no scientific notation"
# A recorded report (demo/tk-transpose.db, H200, demo/PROVENANCE.md), analyzed on a copy:
# a finding's tier is the tier its message names, and no message shows n/a or 1e+04.
cp "$src/demo/tk-transpose.db" "$t/tr.db" && chmod u+w "$t/tr.db"
"$bin" analyze "$t/tr.db" > "$t/an" 2>&1 || bad "analyze tk-transpose"
# analyze's header gives the GPU time to three significant digits, as every other figure
gpu=$(sed -n 's/.* kernels\{0,1\}, \([0-9.]*\) ms of GPU time;.*/\1/p' "$t/an")
digits=$(printf '%s' "$gpu" | tr -d . | sed 's/^0*//')
[ -n "$gpu" ] && [ ${#digits} -le 3 ] && ok "analyze header: GPU time $gpu ms, three significant digits" \
  || bad "analyze header: GPU time '$gpu' ms: $(head -1 "$t/an")"
"$helper" sql "$t/tr.db" "SELECT id FROM finding WHERE
    (message LIKE '%largest memory cost is l2%' OR message LIKE '%the busiest, l2,%') AND tier <> 'l2'
    OR (message LIKE '%largest memory cost is dram%' OR message LIKE '%the busiest, dram,%') AND tier <> 'dram'
    OR message LIKE '%bound by l2%' AND tier <> 'l2'" > "$t/tiers"
[ -s "$t/tiers" ] && bad "tk-transpose: findings filed under another tier than their message names: $(cat "$t/tiers")" \
  || ok "tk-transpose: tiers agree with messages"
"$helper" sql "$t/tr.db" "SELECT message FROM finding WHERE message LIKE '%n/a%' OR message GLOB '*[0-9]e[+-][0-9]*'" > "$t/texts"
[ -s "$t/texts" ] && bad "tk-transpose: $(cat "$t/texts")" || ok "tk-transpose: no n/a, no scientific notation"
"$helper" sql "$t/tr.db" "SELECT COUNT(*) FROM finding WHERE message LIKE '%at measured copy bandwidth%'
    AND (SELECT measured_copy_bw_bytes_per_s FROM device LIMIT 1) IS NULL" > "$t/copy"
[ "$(cat "$t/copy")" = 0 ] && ok "tk-transpose: no measured-copy floor on a device without one" \
  || bad "tk-transpose: $(cat "$t/copy") messages cite a copy bandwidth never measured"
[ $fail = 0 ] && echo "t211: numbers agree ok"
exit $fail
