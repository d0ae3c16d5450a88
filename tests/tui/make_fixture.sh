#!/bin/sh
# SPDX-License-Identifier: MIT
# make_fixture.sh NAME OUT.db: the reports the TUI tests browse.
#   small      synthetic, analyzed (made-up findings), 12 kernels, 2,000 launches
#   raw        the same, never analyzed
#   rawhost    raw where every profile's all-unit system-memory sectors
#              (lts__t_sectors_aperture_sysmem.sum) read 25,000, the
#              chip's constant on the H200 whatever the kernel, and the
#              SMs' own (..._srcunit_tex_...) 0: no host traffic of the kernel
#   trace      no profiled launch (trace mode), never analyzed
#   empty      a run and a device, no kernel, no launch, no copy
#   hostile    small + kernels named with escape sequences, a 64 KB name,
#              invalid UTF-8, bidi controls and markup characters; secrets
#              and an escape sequence in the command line
#   profiles   small where the busiest kernel (synthetic::reread_kernel_12)
#              has, in configuration 24, a core profile (launch 12), an
#              extras profile of other work (launch 36: 'extra_metrics',
#              'tie+sass_bytes', 25 % more warp instructions) and a core
#              profile of the same work (launch 60, 'sample_every'); launch
#              48 was deferred ('counters_busy'); synthetic::stream_kernel_1
#              has no profiled launch ('filtered_name')
#   source     tests/fixtures/exact-patterns.sql: synthetic exact per-instruction
#              counts (made up) of nine kernels, never analyzed
#   nvtx       small with nested NVTX ranges: launches by id % 5 in 'step',
#              'step > forward', 'step > forward > attention',
#              'step > backward' or none, every launch of kernel 8 in
#              'eval'; nvtx_range holds 3 'step' calls with their children,
#              2 'eval' calls, a 'data > load' pair no launch ran in, and an
#              unnested start/end range (all synthetic, said in provenance)
#   after      small changed as a fix would (the TUI's before/after tests
#              pair it with small): synthetic::reread_kernel_12 four times
#              faster with its l2-reread-miss findings gone, a new
#              local-memory-traffic finding on kernel 9, kernel 1 renamed
#              (so it pairs with nothing: removed before, added after)
set -eu
name=$1 out=$2
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
gen=$src/bench/make_big_report.sh
rm -f "$out"
case $name in
  small|profiles|nvtx|after) "$gen" --analysis --kernels 12 "$out" 2000 40 2>/dev/null ;;
  raw|rawhost) "$gen" --kernels 12 "$out" 2000 40 2>/dev/null ;;
  trace) "$gen" --kernels 6 "$out" 600 0 2>/dev/null ;;
  empty) "$gen" --kernels 1 "$out" 0 0 2>/dev/null ;;
  source) GPUHIER_SOURCE_DIR=$src "${GPUHIER_BINARY_DIR:?}/tests/test_analyzer" mkfixture \
    "$src/tests/fixtures/exact-patterns.sql" "$out" ;;
  hostile) "$gen" --analysis --kernels 6 "$out" 600 12 2>/dev/null ;;
  *) echo "make_fixture: unknown fixture '$name'" >&2; exit 2 ;;
esac
sql=""
case $name in
  empty) sql="DELETE FROM config; DELETE FROM kernel;" ;;
  rawhost) sql="
INSERT OR IGNORE INTO metric_name (name) VALUES ('lts__t_sectors_aperture_sysmem.sum'),
  ('lts__t_sectors_srcunit_tex_aperture_sysmem.sum');
DELETE FROM metric WHERE metric_id IN (SELECT id FROM metric_name WHERE name IN
  ('lts__t_sectors_aperture_sysmem.sum', 'lts__t_sectors_srcunit_tex_aperture_sysmem.sum'));
INSERT INTO metric (launch_id, metric_id, value)
  SELECT p.launch_id, n.id, CASE WHEN n.name LIKE '%srcunit_tex%' THEN 0 ELSE 25000 END
  FROM profile p, metric_name n WHERE n.name IN
  ('lts__t_sectors_aperture_sysmem.sum', 'lts__t_sectors_srcunit_tex_aperture_sysmem.sum');
UPDATE meta SET value = value || '; system-memory sectors set by tests/tui/make_fixture.sh rawhost (synthetic)'
  WHERE key = 'provenance';
" ;;
  hostile) sql="
UPDATE kernel SET short_name = 'evil' || char(27) || '[2J' || char(27) || ']0;pwned' || char(7) || '_kernel',
  demangled_name = 'void evil' || char(27) || '[31mred' || char(27) || '[0m(int)' WHERE id = 1;
UPDATE kernel SET short_name = 'huge_' || replace(hex(zeroblob(32768)), '00', 'Ab') || '_end',
  demangled_name = 'void huge_' || replace(hex(zeroblob(32768)), '00', 'Ab') || '_end(float*)' WHERE id = 2;
UPDATE kernel SET short_name = CAST(X'626164FFFE5F757466385FC3285F6B' AS TEXT),
  demangled_name = CAST(X'626164FFFE5F75746638' AS TEXT) WHERE id = 3;
UPDATE kernel SET short_name = '<b>markup</b> & \"quotes\" | *md* [x](y) %s %n',
  demangled_name = '<script>alert(1)</script>' WHERE id = 4;
UPDATE kernel SET short_name = 'bidi_' || char(8238) || 'txet_desrever' || char(8236) || '_tab' || char(9) || 'nl' || char(10) || 'end' WHERE id = 5;
UPDATE run SET command_line = '[\"./app\",\"--api-key=sk-secret0123456789abcdef\",\"--token\",\"ghp_0123456789abcdefghijklmnopqrstuvwxyz\",\"\\u001b[31mx\"]';
UPDATE finding SET message = 'msg with ' || char(27) || '[5mblink' || char(27) || '[0m and ' || char(155) || 'C1' WHERE kernel_id = 1;
" ;;
  nvtx) sql="
UPDATE launch SET nvtx_path = CASE id % 5 WHEN 0 THEN 'step' WHEN 1 THEN 'step > forward'
  WHEN 2 THEN 'step > forward > attention' WHEN 3 THEN 'step > backward' END;
UPDATE launch SET nvtx_path = 'eval' WHERE kernel_id = 8;
INSERT INTO nvtx_range (id, thread_id, domain, name, start_ns, end_ns, depth, parent_id) VALUES
  (1, 100, NULL, 'step', 1700000000500000000, 1700000000510000000, 0, NULL),
  (2, 100, NULL, 'forward', 1700000000500000000, 1700000000504000000, 1, 1),
  (3, 100, NULL, 'attention', 1700000000501000000, 1700000000503000000, 2, 2),
  (4, 100, NULL, 'backward', 1700000000504000000, 1700000000510000000, 1, 1),
  (5, 100, NULL, 'step', 1700000000510000000, 1700000000520000000, 0, NULL),
  (6, 100, NULL, 'forward', 1700000000510000000, 1700000000514000000, 1, 5),
  (7, 100, NULL, 'attention', 1700000000511000000, 1700000000513000000, 2, 6),
  (8, 100, NULL, 'backward', 1700000000514000000, 1700000000520000000, 1, 5),
  (9, 100, NULL, 'step', 1700000000520000000, 1700000000530000000, 0, NULL),
  (10, 100, NULL, 'eval', 1700000000530000000, 1700000000535000000, 0, NULL),
  (11, 100, NULL, 'eval', 1700000000535000000, 1700000000540000000, 0, NULL),
  (12, 101, NULL, 'data', 1700000000500000000, 1700000000502000000, 0, NULL),
  (13, 101, NULL, 'load', 1700000000500000000, 1700000000501000000, 1, 12),
  (14, NULL, NULL, 'epoch', 1700000000500000000, 1700000000540000000, NULL, NULL);
UPDATE meta SET value = value || '; NVTX paths and ranges made up by tests/tui/make_fixture.sh nvtx (synthetic)'
  WHERE key = 'provenance';
" ;;
  after) sql="
UPDATE kernel_summary SET mean_ns = mean_ns / 4, total_ns = total_ns / 4, floor_ratio = floor_ratio / 4,
  time_lost_ns = 0, worst_severity = NULL, worst_rule_id = NULL WHERE kernel_id = 12;
UPDATE kernel SET demangled_name = 'void synthetic::stream_kernel_renamed(float const*, float*, int)',
  short_name = 'synthetic::stream_kernel_renamed' WHERE id = 1;
DELETE FROM finding_evidence WHERE finding_id IN (19, 20);
DELETE FROM finding WHERE id IN (19, 20);
INSERT INTO finding (id, rank, rule_id, title, tier, severity, kernel_id, config_id, message, remedy, doc_ref,
  time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns, share_pct, launches, profiled_launch_id)
  SELECT 100, 22, 'local-memory-traffic', title, 'registers', 'warning', 9, 17, message, remedy, doc_ref,
  time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns, share_pct, launches, profiled_launch_id
  FROM finding WHERE id = 13;
UPDATE meta SET value = value || '; after side of the TUI before/after tests, changed by tests/tui/make_fixture.sh after (synthetic)'
  WHERE key = 'provenance';
" ;;
  profiles) sql="
UPDATE launch SET profile_reason = 'extra_metrics' WHERE id = 36;
UPDATE profile SET metric_set = 'tie+sass_bytes', passes = 2 WHERE launch_id = 36;
DELETE FROM metric WHERE launch_id = 36 AND metric_id NOT IN (SELECT id FROM metric_name WHERE name IN
  ('gpu__time_duration.sum', 'smsp__inst_executed.sum', 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum',
   'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 'smsp__sass_data_bytes_mem_global_op_ld.sum',
   'smsp__sass_data_bytes_mem_global_op_st.sum'));
UPDATE metric SET value = value * 1.25 WHERE launch_id = 36
  AND metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__inst_executed.sum');
UPDATE launch SET profile_reason = 'counters_busy' WHERE id = 48;
UPDATE launch SET profiled = 1, profile_reason = 'sample_every' WHERE id = 60;
INSERT INTO profile (launch_id, passes, metric_set, duration_ns, overhead_ns)
  SELECT 60, passes, metric_set, duration_ns, overhead_ns + 1500000 FROM profile WHERE launch_id = 12;
INSERT INTO metric (launch_id, metric_id, value) SELECT 60, metric_id, value FROM metric WHERE launch_id = 12;
DELETE FROM metric WHERE launch_id IN (SELECT id FROM launch WHERE kernel_id = 1);
DELETE FROM profile WHERE launch_id IN (SELECT id FROM launch WHERE kernel_id = 1);
UPDATE launch SET profiled = 0, profile_reason = 'filtered_name' WHERE kernel_id = 1;
" ;;
esac
if [ -n "$sql" ]; then
  if command -v sqlite3 >/dev/null 2>&1; then
    printf '%s\n' "$sql" | sqlite3 -bail "$out"
  else
    printf '%s\n' "$sql" | python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.executescript(sys.stdin.read())' "$out"
  fi
fi
