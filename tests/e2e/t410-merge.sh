#!/bin/sh
# gpuhier merge on SYNTHETIC rank reports (schema.sql + tests/fixtures
# rule-base/rule-tail, made up, not measured): a 4-rank job with a
# constructed imbalance (rank 2's gemm takes 14 us instead of 10 us, so
# the others wait 4 us longer in their all-reduce) and an uncoalesced
# kernel on rank 1 only. Checks the merged layout, every reader on it,
# the cross-rank numbers, check failing on the worst rank, and bad inputs.
. "$(dirname "$0")/t4-cli-lib.sh"
S=${GPUHIER_SOURCE_DIR:?}
command -v sqlite3 >/dev/null || { echo "t410: no sqlite3 shell, skipped"; exit 77; }
# mkrank OUT RANK WORLD GEMM_NS NCCL_NS SCATTER(0|1) [PID]
mkrank() {
  { cat "$S/schema/schema.sql"
    echo "INSERT INTO meta VALUES ('schema_version','1'),('tool_version','0.1.0'),('created_by','synthetic'),('rank','$2'),('local_rank','$2'),('world_size','$3'),('rank_source','torchrun');"
    cat "$S/tests/fixtures/rule-base.sql"
    echo "UPDATE run SET host = 'node0', pid = ${7:-$((100 + $2))}, start_ns = 1000, end_ns = 3001000;"
    echo "INSERT INTO kernel (id, mangled_name, short_name) VALUES (1, '_Z4gemmv', 'gemm'), (2, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');"
    echo "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES (1, 1, 0, 1024, 1, 1, 256, 1, 1, 0, 0, 32), (2, 2, 0, 32, 1, 1, 512, 1, 1, 0, 0, 64);"
    echo "INSERT INTO fx_launch VALUES (1, 100, $4), (2, 100, $5);"
    if [ "$6" = 1 ]; then
      echo "INSERT INTO kernel (id, mangled_name, short_name) VALUES (3, '_Z7scatterv', 'scatter');"
      echo "INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES (3, 3, 0, 1024, 1, 1, 256, 1, 1, 0, 0, 32);"
      echo "INSERT INTO fx_launch VALUES (3, 20, 10000);"
      echo "INSERT INTO fx_metric VALUES (3, 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 1000000.0), (3, 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 0), (3, 'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum', 250000), (3, 'smsp__inst_executed_op_global_ld.sum', 250000), (3, 'smsp__sass_data_bytes_mem_global_op_ld.sum', 25568000.0);"
    fi
    cat "$S/tests/fixtures/rule-tail.sql"
  } | sqlite3 "$1"
}
q() { sqlite3 "$1" "$2"; }
mkrank r0.db 0 4 10000 6000 0
mkrank r1.db 1 4 10000 6000 1
mkrank r2.db 2 4 14000 2000 0
mkrank r3.db 3 4 10000 6000 0
sums=$(cksum r0.db r1.db r2.db r3.db)

# --- the merge
expect_rc 0 "$G" merge r3.db r1.db r0.db r2.db -o job.db 2> merge.err
contains merge.err "4 ranks (0..3), 821 launches -> job.db"
[ "$(cksum r0.db r1.db r2.db r3.db)" = "$sums" ] || fail "merge modified an input"
[ ! -e job.db-wal ] && [ -z "$(ls ./*.tmp 2>/dev/null)" ] || fail "merge left a -wal or a temporary file"
[ "$(q job.db "SELECT group_concat(rank) FROM (SELECT rank FROM job_rank ORDER BY rank)")" = "0,1,2,3" ] || fail "job_rank"
[ "$(q job.db "SELECT count(*) FROM launch")" = 821 ] || fail "launch rows"
[ "$(q job.db "SELECT count(*) FROM launch WHERE id >> 32 = 2")" = 200 ] || fail "rank 2's launches are not keyed by rank"
[ "$(q job.db "SELECT count(*) FROM launch l JOIN config c ON c.id = l.config_id WHERE c.id >> 32 <> l.id >> 32 OR l.device_id >> 32 <> l.id >> 32")" = 0 ] || fail "launch and config of different ranks"
[ "$(q job.db "SELECT count(*) FROM kernel")" = 3 ] || fail "kernels are one dictionary for the job"
[ "$(q job.db "SELECT count(*) FROM metric m JOIN metric_name n ON n.id = m.metric_id")" = 5 ] || fail "metric names remapped"
[ "$(q job.db "SELECT value FROM meta WHERE key = 'created_by'")" = merge ] || fail "created_by"
q job.db "SELECT value FROM meta WHERE key = 'provenance'" | grep -q '^synthetic' || fail "provenance says synthetic"
[ "$(q job.db "SELECT value FROM meta WHERE key = 'world_size'")" = 4 ] || fail "agreed meta kept"
[ "$(q job.db "SELECT count(*) FROM rank_meta WHERE key = 'rank'")" = 4 ] || fail "rank_meta"
[ "$(q job.db "SELECT count(*) FROM finding")" = 0 ] || fail "the inputs' analysis is not copied"
[ "$(q job.db "PRAGMA journal_mode")" = delete ] || fail "job report is not a single file"

# --- every reader
"$G" analyze job.db --format json > an.json || fail "analyze"
"$G" report job.db --view summary > /dev/null || fail "report summary"
"$G" report job.db --view kernels > kernels.txt || fail "report kernels"
contains kernels.txt "scatter"
"$G" report job.db --view findings > /dev/null || fail "report findings"
for f in md json csv sarif junit; do "$G" export job.db --format $f -o job.$f || fail "export $f"; done
expect_rc 0 "$G" diff job.db job.db
printf ':dump tui.txt\nq\n' > keys
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$G" tui job.db || fail "tui"
printf '5\n:dump ranks-tui.txt\nq\nq\n' > keys5
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys5 "$G" tui job.db || fail "tui ranks view"
contains ranks-tui.txt "Ranks"
contains ranks-tui.txt "straggler"

# --- the cross-rank numbers of the constructed imbalance
"$G" analyze job.db > /dev/null
[ "$(q job.db "SELECT CAST(SUM(gpu_ns) AS INTEGER) = (SELECT run_gpu_ns FROM analysis) FROM rank_summary")" = 1 ] || fail "ranks' GPU time does not add up to the run's"
[ "$(q job.db "SELECT group_concat(CAST(work_ns AS INTEGER)) FROM (SELECT work_ns FROM rank_summary ORDER BY rank)")" = "1000000,1210000,1400000,1000000" ] || fail "work per rank"
[ "$(q job.db "SELECT group_concat(CAST(comm_ns AS INTEGER)) FROM (SELECT comm_ns FROM rank_summary ORDER BY rank)")" = "600000,600000,200000,600000" ] || fail "comm per rank"
[ "$(q job.db "SELECT rank FROM rank_summary WHERE is_straggler")" = 2 ] || fail "the straggler is rank 2"
[ "$(q job.db "SELECT CAST(lag_ns AS INTEGER) FROM rank_summary WHERE rank = 2")" = 295000 ] || fail "lag = 1.4 ms - median 1.105 ms"
[ "$(q job.db "SELECT printf('%.1f %d', imbalance_pct, max_rank) FROM v_rank_imbalance WHERE kernel_id = (SELECT id FROM kernel WHERE short_name = 'gemm')")" = "21.4 2" ] || fail "gemm imbalance (1.4 - 1.1) / 1.4"
[ "$(q job.db "SELECT rule_id || ' ' || ranks_list || ' ' || worst_severity FROM v_rank_partial")" = "uncoalesced-global-load 1 warning" ] || fail "finding on rank 1 only"
"$G" report job.db --view ranks > ranks.txt
contains ranks.txt "Straggler: rank 2"
contains ranks.txt "uncoalesced-global-load scatter"
"$G" report job.db --view summary > summary.txt
contains summary.txt "4 ranks (0..3) on 1 host; straggler: rank 2"
contains summary.txt "3 more on the other ranks"
"$G" report r0.db --view ranks > ranks1.txt
contains ranks1.txt "Not a job report"

# A balanced job has no straggler.
mkrank b0.db 0 2 10000 6000 0
mkrank b1.db 1 2 10000 6000 0
"$G" merge b0.db b1.db -o balanced.db 2>/dev/null
"$G" analyze balanced.db > /dev/null
[ "$(q balanced.db "SELECT count(*) FROM rank_summary WHERE is_straggler")" = 0 ] || fail "straggler in a balanced job"

# --- check gates on the worst rank: a note for the job (0.5 % of its
# GPU time) is a warning on rank 1 (1.9 % of rank 1's GPU time, 1.1 % of
# its 3 ms wall time)
[ "$(q job.db "SELECT severity FROM finding WHERE rule_id = 'uncoalesced-global-load'")" = note ] || fail "job severity"
expect_rc 1 "$G" check job.db --fail-on warning > check.out
contains check.out "[rank 1: warning]"
expect_rc 0 "$G" check job.db --fail-on error
expect_rc 0 "$G" check balanced.db --fail-on warning

# --- bad inputs
expect_rc 2 "$G" merge r0.db r1.db 2> e.txt
expect_rc 2 "$G" merge -o x.db 2> e.txt
expect_rc 3 "$G" merge r0.db missing.db -o x.db 2> e.txt
contains e.txt "missing.db"
echo "not a report" > junk.db
expect_rc 3 "$G" merge r0.db junk.db -o x.db 2> e.txt
cp r1.db newer.db && sqlite3 newer.db "PRAGMA user_version = 99"
expect_rc 4 "$G" merge r0.db newer.db -o x.db 2> e.txt
cp r1.db dup.db && sqlite3 dup.db "UPDATE run SET pid = 999"
expect_rc 2 "$G" merge r1.db dup.db -o x.db 2> e.txt
contains e.txt "both hold rank 1"
expect_rc 2 "$G" merge r1.db r1.db -o x.db 2> e.txt
contains e.txt "same process"
cp r1.db same.db && sqlite3 same.db "UPDATE meta SET value = '3' WHERE key = 'rank'"
expect_rc 2 "$G" merge r1.db same.db -o x.db 2> e.txt
contains e.txt "same process"
cp r0.db norank.db && sqlite3 norank.db "DELETE FROM meta WHERE key = 'rank'"
expect_rc 2 "$G" merge norank.db r1.db -o x.db 2> e.txt
contains e.txt "records no rank"
expect_rc 2 "$G" merge job.db r0.db -o x.db 2> e.txt
contains e.txt "already a merged job report"
mkrank w0.db 0 8 10000 6000 0
expect_rc 2 "$G" merge w0.db r1.db -o x.db 2> e.txt
contains e.txt "world size"
[ ! -e x.db ] || fail "a failed merge left its output"
# A report still being written: a process holds it open in WAL mode.
cp r3.db live.db && sqlite3 live.db "PRAGMA journal_mode = WAL" > /dev/null
python3 -c "import sqlite3, time; c = sqlite3.connect('live.db'); c.execute('SELECT count(*) FROM launch').fetchall(); open('held', 'w').close(); time.sleep(60)" &
holder=$!
i=0
while [ ! -e held ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e held ] || fail "the holder never opened live.db"
set +e; "$G" merge r0.db live.db -o x.db 2> e.txt; rc=$?; set -e
kill $holder 2> /dev/null || true
wait 2> /dev/null || true
[ $rc = 3 ] || { cat e.txt; fail "a live report: exit $rc"; }
contains e.txt "still being written"
# A rank killed mid-write: its WAL is read in place, its hot journal
# through a private copy as every reader does; neither file changes.
cp r3.db wal.db
python3 -c "
import os, signal, sqlite3
c = sqlite3.connect('wal.db'); c.execute('PRAGMA journal_mode = WAL'); c.execute('PRAGMA wal_autocheckpoint = 0')
c.execute(\"INSERT INTO event (level, code, message) VALUES ('info', 'x', 'only in the wal')\"); c.commit()
os.kill(os.getpid(), signal.SIGKILL)" 2> /dev/null || true
[ -s wal.db-wal ] || fail "no WAL left to read"
w=$(cksum < wal.db)
expect_rc 0 "$G" merge r0.db wal.db -o jw.db 2> /dev/null
[ "$(q jw.db "SELECT count(*) FROM event WHERE message = 'only in the wal'")" = 1 ] || fail "the WAL's rows were not merged"
[ "$(cksum < wal.db)" = "$w" ] || fail "merge wrote a WAL report"
cp r3.db hot.db
python3 -c "
import os, signal, sqlite3
c = sqlite3.connect('hot.db', isolation_level=None); c.execute('PRAGMA cache_size = 1'); c.execute('BEGIN')
c.execute(\"UPDATE launch SET nvtx_path = 'never committed' || hex(zeroblob(300))\")
os.kill(os.getpid(), signal.SIGKILL)" 2> /dev/null || true
[ -s hot.db-journal ] || fail "no hot journal left"
h=$(cksum < hot.db)
expect_rc 0 "$G" merge r0.db hot.db -o jh.db 2> e.txt
contains e.txt "hot journal"
[ "$(q jh.db "SELECT count(*) FROM launch WHERE nvtx_path LIKE 'never committed%'")" = 0 ] || fail "uncommitted rows merged"
[ "$(cksum < hot.db)" = "$h" ] && [ -s hot.db-journal ] || fail "merge rolled a hot journal back in place"
# The output: exists without -f, then -f replaces it atomically.
expect_rc 6 "$G" merge r0.db r1.db -o job.db 2> e.txt
contains e.txt "exists"
expect_rc 2 "$G" merge r0.db r1.db -o r0.db -f 2> e.txt
expect_rc 0 "$G" merge r0.db r1.db -o job.db -f 2> /dev/null
[ "$(q job.db "SELECT count(*) FROM job_rank")" = 2 ] || fail "-f did not replace the output"
# A merge ended by a signal leaves no temporary file and no partial output
# (or, when it finished first, the whole job).
sh "$S/bench/make_big_report.sh" big0.db 200000 100 > /dev/null
cp big0.db big1.db
sqlite3 big0.db "INSERT INTO meta VALUES ('rank', '0')"
sqlite3 big1.db "INSERT INTO meta VALUES ('rank', '1'); UPDATE run SET pid = pid + 1"
"$G" merge big0.db big1.db -o bigjob.db 2> /dev/null &
m=$!
sleep 0.5
kill -TERM $m 2> /dev/null || true
wait $m 2> /dev/null || true
[ -z "$(ls ./*.tmp 2>/dev/null)" ] || fail "a merge ended by SIGTERM left its temporary file"
[ ! -e bigjob.db ] || [ "$(q bigjob.db "SELECT count(*) FROM launch")" = 400000 ] || fail "partial output"
# --- per-instruction counts (schema version 2): two ranks ran the same
# cubin; its function, source file and line table are one each in the job,
# each rank's counts keep their own launch and map to the shared function.
for r in 0 1; do
  sqlite3 r$r.db "INSERT INTO cubin VALUES (43981, 1000, 90, 1);
    INSERT INTO sass_function (id, cubin_crc, name, kernel_id) VALUES (5, 43981, '_Z4gemmv', 1);
    INSERT INTO source_file (id, path) VALUES (3, 'gemm.cu');
    INSERT INTO sass_line VALUES (5, 0, 3, 10, NULL), (5, 16, 3, 11, NULL);
    INSERT INTO metric_name (name) VALUES ('smsp__sass_sectors_mem_global');
    INSERT INTO inst_launch (launch_id, config_id, kernel_id, reason, overhead_ns)
      SELECT min(id), 1, 1, 'first_of_config', 5000 FROM launch WHERE config_id = 1;
    INSERT INTO inst_count SELECT (SELECT launch_id FROM inst_launch), 5, 0,
      (SELECT id FROM metric_name WHERE name = 'smsp__sass_sectors_mem_global'), 100 + $r;
    INSERT INTO metric_name (name) VALUES ('smsp__sass_inst_executed');
    INSERT INTO inst_run SELECT (SELECT launch_id FROM inst_launch), 5,
      (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed'), pc, v
      FROM (SELECT 0 AS pc, 7 + $r AS v UNION ALL SELECT 32, 0);"
done
expect_rc 0 "$G" merge r0.db r1.db -o code.db 2> code.err
[ "$(q code.db "SELECT count(*) FROM cubin")|$(q code.db "SELECT count(*) FROM sass_function")|$(q code.db "SELECT count(*) FROM source_file")|$(q code.db "SELECT count(*) FROM sass_line")" = "1|1|1|2" ] ||
  fail "shared code tables: $(cat code.err)"
[ "$(q code.db "SELECT group_concat(c.value || '@' || (c.launch_id >> 32)) FROM (SELECT * FROM inst_count ORDER BY value) c JOIN sass_function f ON f.id = c.function_id")" = "100@0,101@1" ] ||
  fail "per-rank counts on the shared function"
[ "$(q code.db "SELECT count(*) FROM inst_launch i JOIN launch l ON l.id = i.launch_id AND l.config_id = i.config_id")" = 2 ] || fail "inst_launch keyed by rank"
[ "$(q code.db "SELECT count(*) FROM v_inst WHERE file = 'gemm.cu' AND line = 10")" = 2 ] || fail "v_inst on the merged report"
# executed instructions as runs (schema version 3): each rank's run, its metric id mapped, expands
# to its two instructions
[ "$(q code.db "SELECT group_concat(pc || '=' || inst_executed || '@' || (launch_id >> 32), ',') FROM (SELECT * FROM v_inst ORDER BY launch_id, pc)")" = "0=7@0,16=7@0,0=8@1,16=8@1" ] ||
  fail "runs on the merged report: $(q code.db "SELECT group_concat(pc || '=' || inst_executed, ',') FROM v_inst")"
"$G" report code.db --view source gemm > src.txt 2>&1 || fail "source view of a merged report: $(cat src.txt)"

echo "t410: merge ok"
