#!/bin/sh
# SPDX-License-Identifier: MIT
# make_fixture.sh NAME OUT.db: the reports the TUI tests browse.
#   small      synthetic, analyzed (made-up findings), 12 kernels, 2,000 launches
#   raw        the same, never analyzed
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
set -eu
name=$1 out=$2
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
gen=$src/bench/make_big_report.sh
rm -f "$out"
case $name in
  small|profiles) "$gen" --analysis --kernels 12 "$out" 2000 40 2>/dev/null ;;
  raw) "$gen" --kernels 12 "$out" 2000 40 2>/dev/null ;;
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
