#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make_big_report.sh: build a synthetic gpuhier report of any size, for
# benchmarks (TUI speed, analyzer and export timings) and tests.
#
#   bench/make_big_report.sh [--analysis] [--kernels N] [--allocs N] OUT.db LAUNCHES PROFILED
#
# Fills run, device, kernel, config, launch, profile, metric_name, metric
# and copy the way the collector would (one H200-like device, N kernels
# (default 40) with two launch configurations each, LAUNCHES traced
# launches spread over them, the first PROFILED launches profiled with
# the default metric set, LAUNCHES/100 copies). With --analysis it also
# writes analysis, rule_run, kernel_summary, finding and finding_evidence
# rows (made up by this script, NOT by the analyzer: they only give the
# readers something of the right shape to show). With --allocs N it also
# records device allocations as the collector's allocation tracking does:
# meta alloc_tracking = 'on', every profiled launch stamped with its API
# time (launch.api_ns), and N allocation rows (alloc/release pairs of
# 1 MiB spread over the run; every third allocation is never released).
#
# The report says it is synthetic: meta.created_by = 'synthetic' and
# meta.provenance names this script and its arguments. Values are
# deterministic (no random()): the same arguments give the same file.
#
# Needs the sqlite3 command-line shell (scripts/deps.sh installs it) or,
# failing that, python3 with its sqlite3 module. Plain SQL only, no dot
# commands, so either runs the same script.
set -eu

analysis=0
nk=40
nalloc=0
while [ $# -gt 0 ]; do
  case $1 in
    --analysis) analysis=1; shift ;;
    --kernels) nk=$2; shift 2 ;;
    --allocs) nalloc=$2; shift 2 ;;
    -h|--help) sed -n '4,22p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "make_big_report: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 3 ]; then
  echo "usage: make_big_report.sh [--analysis] [--kernels N] [--allocs N] OUT.db LAUNCHES PROFILED" >&2
  exit 2
fi
out=$1 n=$2 np=$3
for v in "$n" "$np" "$nk" "$nalloc"; do
  case $v in ''|*[!0-9]*) echo "make_big_report: '$v' is not a number" >&2; exit 2 ;; esac
done
[ "$nk" -ge 1 ] || { echo "make_big_report: --kernels must be at least 1" >&2; exit 2; }
[ "$np" -le "$n" ] || np=$n
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
schema=$src/schema/schema.sql
[ -r "$schema" ] || { echo "make_big_report: cannot read '$schema'" >&2; exit 1; }
if [ -e "$out" ]; then
  echo "make_big_report: '$out' exists; remove it first" >&2
  exit 1
fi
ncfg=$((nk * 2))
ncopy=$((n / 100))
mode=profile
[ "$np" -eq 0 ] && mode=trace
ver=$(sed -n 's/^project(gpuhier VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
aflag=""
[ $analysis = 1 ] && aflag=" --analysis"
[ "$nalloc" -gt 0 ] && aflag="$aflag --allocs $nalloc"
prov="synthetic report from bench/make_big_report.sh$aflag --kernels $nk $n $np; made-up values, not measured; analysis rows (if any) made up by the script, not by the analyzer"

sql() {
cat "$schema"
cat <<EOF
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO meta VALUES ('schema_version', '1'), ('tool_version', '$ver'),
  ('created_by', 'synthetic'), ('provenance', '$prov');
INSERT INTO run (id, command_line, program, cwd, env, host, pid, ppid, start_ns, end_ns, tool_version,
  cuda_driver_version, cupti_version, mode, options, metric_set, profiling_limited, clean_exit)
VALUES (1, '["./synthetic_app","--size","4096"]', '/opt/synthetic/synthetic_app', '/tmp', '{"CUDA_VISIBLE_DEVICES":"0"}',
  'synthetic-host', 4242, 4241, 1700000000000000000, 1700000000000000000 + $n * 20000 + 1000000000, '$ver',
  13000, 130000, '$mode', '{"sample":"config"}', '[]', NULL, 1);
INSERT INTO device VALUES (0, 'NVIDIA H200 (synthetic)', 'GH100', 'GPU-00000000-0000-0000-0000-000000000000', 9, 0,
  132, 32, 1024, 2048, 64, 32, 65536, 65536, 256, 233472, 49152, 232448, 1024, 262144, 52428800,
  150754820096, 1980000, 2619000, 6144, 4.8e12, 4.3e12, 5, 16, 0);

-- Kernels: kind = (id-1) % 6 decides the behaviour the metrics show:
-- 0 coalesced streaming, 1 strided loads, 2 shared bank conflicts,
-- 3 register spills, 4 low occupancy (shared memory), 5 L2 re-reads.
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $nk)
INSERT INTO kernel (id, mangled_name, demangled_name, short_name, source_file, source_line)
SELECT i,
  CASE WHEN i % 7 = 0 THEN 'synthetic_c_kernel_' || i
       ELSE '_ZN9synthetic6kernel' || i || 'ILi' || (i * 32) || 'EEEvPKfPfi' END,
  CASE WHEN i % 7 = 0 THEN 'synthetic_c_kernel_' || i
       WHEN i % 9 = 0 THEN 'void synthetic::' || (CASE (i - 1) % 6 WHEN 0 THEN 'stream' WHEN 1 THEN 'strided'
             WHEN 2 THEN 'transpose_naive' WHEN 3 THEN 'spill' WHEN 4 THEN 'big_smem' ELSE 'reread' END)
             || '_kernel_' || i || '<cutlass::gemm::GemmShape<128, 128, 32>, cutlass::epilogue::thread::LinearCombination<float, 4, float, float>, ' || (i * 32) || '>(float const*, float*, int)'
       ELSE 'void synthetic::' || (CASE (i - 1) % 6 WHEN 0 THEN 'stream' WHEN 1 THEN 'strided'
             WHEN 2 THEN 'transpose_naive' WHEN 3 THEN 'spill' WHEN 4 THEN 'big_smem' ELSE 'reread' END)
             || '_kernel_' || i || '<' || (i * 32) || '>(float const*, float*, int)' END,
  CASE WHEN i % 7 = 0 THEN 'synthetic_c_kernel_' || i
       ELSE 'synthetic::' || (CASE (i - 1) % 6 WHEN 0 THEN 'stream' WHEN 1 THEN 'strided'
             WHEN 2 THEN 'transpose_naive' WHEN 3 THEN 'spill' WHEN 4 THEN 'big_smem' ELSE 'reread' END)
             || '_kernel_' || i END,
  CASE WHEN i % 3 = 0 THEN NULL ELSE 'synthetic/kernels_' || (i % 4) || '.cu' END,
  CASE WHEN i % 3 = 0 THEN NULL ELSE 10 + i * 17 END
FROM k;

-- Two configurations per kernel: config id = 2*kernel - j, j in {0,1}.
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $ncfg)
INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,
  cluster_x, cluster_y, cluster_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread,
  local_bytes_per_thread, carveout_bytes, threads_per_block, blocks, theoretical_occupancy_pct,
  blocks_per_sm, occupancy_limiter, waves)
SELECT i, (i + 1) / 2, 0, 1024 * (1 + i % 2), 1, 1, 256, 1, 1, 1, 1, 1,
  CASE WHEN ((i + 1) / 2 - 1) % 6 = 4 THEN 100000 ELSE 0 END,
  CASE WHEN ((i + 1) / 2 - 1) % 6 = 2 THEN 4224 ELSE 0 END,
  CASE WHEN ((i + 1) / 2 - 1) % 6 = 3 THEN 255 ELSE 32 END,
  CASE WHEN ((i + 1) / 2 - 1) % 6 = 3 THEN 512 ELSE 0 END,
  CASE WHEN ((i + 1) / 2 - 1) % 6 = 4 THEN 233472 ELSE 102400 END,
  256, 1024 * (1 + i % 2),
  CASE ((i + 1) / 2 - 1) % 6 WHEN 3 THEN 25.0 WHEN 4 THEN 25.0 ELSE 100.0 END,
  CASE ((i + 1) / 2 - 1) % 6 WHEN 3 THEN 2 WHEN 4 THEN 2 ELSE 8 END,
  CASE ((i + 1) / 2 - 1) % 6 WHEN 3 THEN 'registers' WHEN 4 THEN 'shared_memory' ELSE 'warps' END,
  1024.0 * (1 + i % 2) / (CASE ((i + 1) / 2 - 1) % 6 WHEN 3 THEN 2 WHEN 4 THEN 2 ELSE 8 END * 132)
FROM c;

-- Launches: launch i (0-based) runs kernel 1 + i % nk, configuration
-- j = (i / nk) % 2; its index within its configuration is i / (2 nk).
-- Kernel k's duration is about (2 + k^2/8) us, jittered deterministically.
WITH RECURSIVE l(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM l WHERE i < $n - 1)
INSERT INTO launch (id, kernel_id, config_id, device_id, context_id, stream_id, correlation_id, grid_id,
  start_ns, end_ns, launch_type, is_device_launched, config_launch_index, nvtx_path, profiled, profile_reason)
SELECT i + 1, 1 + i % $nk, 2 * (1 + i % $nk) - (i / $nk) % 2, 0, 1, 7 + i % 2, 2 * i + 1, i + 1,
  1700000000500000000 + i * 20000,
  1700000000500000000 + i * 20000 + 2000 + ((1 + i % $nk) * (1 + i % $nk) * 125) + (i * 2654435761) % 997,
  0, 0, i / (2 * $nk),
  CASE WHEN i % 3 = 0 THEN 'train > step' ELSE NULL END,
  CASE WHEN i < $np THEN 1 ELSE 0 END,
  CASE WHEN '$mode' = 'trace' THEN 'mode_trace' WHEN i < $np AND i < 2 * $nk THEN 'first_of_config'
       WHEN i < $np THEN 'sample_all' ELSE 'sampled_out' END
FROM l WHERE $n > 0;

UPDATE config SET (launches, total_ns) = (SELECT count(*), sum(end_ns - start_ns) FROM launch WHERE config_id = config.id);

-- --allocs: allocation i (0-based) at time 0.5 s + i * (run length / N);
-- pairs alloc (even i) / release (odd i) of the same 1 MiB block, except
-- every third pair, which is never released (live memory grows).
INSERT INTO meta SELECT 'alloc_tracking', 'on' WHERE $nalloc > 0;
UPDATE launch SET api_ns = start_ns - 1000 WHERE profiled = 1 AND $nalloc > 0;
WITH RECURSIVE a(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM a WHERE i < $nalloc - 1)
INSERT INTO allocation (op, memory_kind, address, bytes, time_ns, device_id, context_id, correlation_id, is_async)
SELECT CASE WHEN i % 2 = 0 THEN 'alloc' ELSE 'release' END, 'device', 140000000000 + (i / 2) * 1048576,
  1048576, 1700000000500000000 + i * (($n * 20000) / $nalloc), 0, 1, 0, 0
FROM a WHERE $nalloc > 0 AND NOT (i % 2 = 1 AND (i / 2) % 3 = 0);

INSERT INTO profile (launch_id, passes, metric_set, duration_ns, overhead_ns)
SELECT id, 3, 'core', (end_ns - start_ns) + 500, 40000000 FROM launch WHERE profiled = 1;

-- The default metric set's names (those v_profiled reads).
INSERT INTO metric_name (id, name) VALUES
 (1,'gpu__time_duration.sum'),(2,'smsp__inst_executed.sum'),(3,'sm__warps_active.avg.pct_of_peak_sustained_active'),
 (4,'sm__cycles_active.avg'),(5,'dram__bytes_read.sum'),(6,'dram__bytes_write.sum'),
 (7,'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'),(8,'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum'),
 (9,'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum'),(10,'l1tex__t_requests_pipe_lsu_mem_global_op_st.sum'),
 (11,'smsp__inst_executed_op_global_ld.sum'),(12,'smsp__inst_executed_op_global_st.sum'),
 (13,'smsp__sass_data_bytes_mem_global_op_ld.sum'),(14,'smsp__sass_data_bytes_mem_global_op_st.sum'),
 (15,'l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum'),(16,'l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum'),
 (17,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'),(18,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'),
 (19,'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'),(20,'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum'),
 (21,'smsp__inst_executed_op_shared_ld.sum'),(22,'smsp__inst_executed_op_shared_st.sum'),
 (23,'l1tex__t_sector_hit_rate.pct'),(24,'lts__t_sectors_lookup_hit.sum'),(25,'lts__t_sectors_lookup_miss.sum'),
 (26,'lts__t_sectors_srcunit_tex.sum'),(27,'lts__t_sectors_aperture_sysmem.sum'),
 (28,'smsp__sass_inst_executed_op_memory_32b.sum'),(29,'smsp__sass_inst_executed_op_memory_128b.sum');

-- Per profiled launch: n = blocks * 256 threads; each thread loads and
-- stores one float. Kind decides the waste: strided loads use 32 sectors
-- per request instead of 4, kind 2 has 8-way shared conflicts, kind 3
-- spills, kind 5 re-reads from DRAM what L2 should have kept.
CREATE TEMP TABLE pl AS
SELECT l.id AS launch_id, (l.kernel_id - 1) % 6 AS kind, c.blocks * 256.0 AS thr, p.duration_ns AS dur
FROM launch l JOIN config c ON c.id = l.config_id JOIN profile p ON p.launch_id = l.id;
INSERT INTO metric (launch_id, metric_id, value)
SELECT launch_id, m, CASE m
  WHEN 1 THEN dur
  WHEN 2 THEN thr / 32 * 20
  WHEN 3 THEN CASE kind WHEN 3 THEN 22.0 WHEN 4 THEN 23.5 ELSE 78.0 END
  WHEN 4 THEN dur * 1.98
  WHEN 5 THEN thr * 4 * (CASE kind WHEN 1 THEN 8 WHEN 5 THEN 3 ELSE 1 END)
  WHEN 6 THEN thr * 4
  WHEN 7 THEN thr / 32 * (CASE kind WHEN 1 THEN 32 ELSE 4 END)
  WHEN 8 THEN thr / 32 * 4
  WHEN 9 THEN thr / 32
  WHEN 10 THEN thr / 32
  WHEN 11 THEN thr / 32
  WHEN 12 THEN thr / 32
  WHEN 13 THEN thr * 4
  WHEN 14 THEN thr * 4
  WHEN 15 THEN CASE kind WHEN 3 THEN thr / 32 * 16 ELSE 0 END
  WHEN 16 THEN CASE kind WHEN 3 THEN thr / 32 * 16 ELSE 0 END
  WHEN 17 THEN CASE kind WHEN 2 THEN thr / 32 * 7 ELSE 0 END
  WHEN 18 THEN 0
  WHEN 19 THEN CASE kind WHEN 2 THEN thr / 32 * 8 ELSE thr / 32 END
  WHEN 20 THEN thr / 32
  WHEN 21 THEN thr / 32
  WHEN 22 THEN thr / 32
  WHEN 23 THEN CASE kind WHEN 5 THEN 12.0 ELSE 45.0 END
  WHEN 24 THEN thr / 8 * (CASE kind WHEN 5 THEN 0.2 ELSE 0.6 END)
  WHEN 25 THEN thr / 8 * (CASE kind WHEN 5 THEN 0.8 ELSE 0.4 END)
  WHEN 26 THEN thr / 8
  WHEN 27 THEN 0
  WHEN 28 THEN thr / 32 * 2
  WHEN 29 THEN 0 END
FROM pl, (WITH RECURSIVE mm(m) AS (SELECT 1 UNION ALL SELECT m + 1 FROM mm WHERE m < 29) SELECT m FROM mm);
DROP TABLE pl;

-- Copies: alternating HtoD/DtoH, every third one from pageable memory.
WITH RECURSIVE cp(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM cp WHERE i < $ncopy - 1)
INSERT INTO copy (id, op, copy_kind, src_kind, dst_kind, src_ptr, dst_ptr, bytes, start_ns, end_ns,
  device_id, context_id, stream_id, correlation_id, graph_id, is_async, api)
SELECT i + 1, 'memcpy', CASE i % 2 WHEN 0 THEN 'HtoD' ELSE 'DtoH' END,
  CASE WHEN i % 2 = 1 THEN 'device' WHEN i % 3 = 0 THEN 'pageable' ELSE 'pinned' END,
  CASE WHEN i % 2 = 0 THEN 'device' WHEN i % 3 = 0 THEN 'pageable' ELSE 'pinned' END,
  140000000000 + i * 4096, 140737488355328 + i * 4096, 1048576 * (1 + i % 8),
  1700000000500000000 + i * 2000000 + 7000,
  1700000000500000000 + i * 2000000 + 7000 + (1048576 * (1 + i % 8)) / (CASE WHEN i % 3 = 0 THEN 9 ELSE 25 END),
  0, 1, 7, 2 * i + 2, NULL, i % 3 <> 0, CASE WHEN i % 3 = 0 THEN 'cudaMemcpy' ELSE 'cudaMemcpyAsync' END
FROM cp WHERE $ncopy > 0;
EOF
if [ $analysis = 1 ]; then
cat <<EOF
-- Made-up analysis rows (see the header): one analysis, per-kernel and
-- per-configuration summaries, one finding per wasteful kernel plus one
-- pageable-copy finding, with evidence against the rule thresholds.
INSERT INTO analysis VALUES (1, 'synthetic', '$ver', 1700000100000000000,
  (SELECT sum(total_ns) FROM config), 'synthetic');
CREATE TEMP TABLE gpu AS SELECT CAST(sum(total_ns) AS REAL) AS t FROM config;
CREATE TEMP TABLE ks AS
SELECT k.id AS kernel_id, c.id AS config_id, (k.id - 1) % 6 AS kind, c.launches, c.total_ns,
  CASE WHEN c.launches > 0 THEN CAST(c.total_ns AS REAL) / c.launches END AS mean_ns,
  c.blocks * 256.0 AS thr, c.theoretical_occupancy_pct, c.occupancy_limiter
FROM kernel k JOIN config c ON c.kernel_id = k.id;
INSERT INTO finding (rank, rule_id, title, tier, severity, kernel_id, config_id, message, remedy, doc_ref,
  time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns, share_pct, launches, profiled_launch_id)
SELECT NULL,
  CASE kind WHEN 1 THEN 'uncoalesced-global-load' WHEN 2 THEN 'shared-bank-conflicts' WHEN 3 THEN 'local-memory-traffic'
            WHEN 4 THEN 'occupancy-shared-memory' ELSE 'l2-reread-miss' END,
  CASE kind WHEN 1 THEN 'Global loads are not coalesced' WHEN 2 THEN 'Shared-memory bank conflicts'
            WHEN 3 THEN 'Registers spill to local memory' WHEN 4 THEN 'Shared memory limits occupancy'
            ELSE 'Data re-read from DRAM instead of L2' END,
  CASE kind WHEN 1 THEN 'l1' WHEN 2 THEN 'shared' WHEN 3 THEN 'registers' WHEN 4 THEN 'shared' ELSE 'l2' END,
  'note', kernel_id, config_id,
  CASE kind WHEN 1 THEN '32.0 sectors per request where 4.0 would do (synthetic)'
            WHEN 2 THEN '8.0-way bank conflicts on shared loads (synthetic)'
            WHEN 3 THEN '16 local sectors per request from spilled registers (synthetic)'
            WHEN 4 THEN 'theoretical occupancy 25% limited by shared memory (synthetic)'
            ELSE 'L2 hit rate 20% while the kernel re-reads its input (synthetic)' END,
  CASE kind WHEN 1 THEN 'Make consecutive threads read consecutive addresses.'
            WHEN 2 THEN 'Pad the shared array by one element per row.'
            WHEN 3 THEN 'Reduce register pressure or raise the register limit.'
            WHEN 4 THEN 'Use less shared memory per block.'
            ELSE 'Tile the loop so the reused data stays in L2.' END,
  CASE kind WHEN 1 THEN 'H §4.5' WHEN 2 THEN 'H §5.3' WHEN 3 THEN 'H §3.2' WHEN 4 THEN 'H §6.1' ELSE 'H §4.8' END,
  mean_ns * (CASE kind WHEN 1 THEN 0.6 WHEN 2 THEN 0.4 WHEN 3 THEN 0.3 WHEN 4 THEN 0.2 ELSE 0.25 END),
  total_ns * (CASE kind WHEN 1 THEN 0.6 WHEN 2 THEN 0.4 WHEN 3 THEN 0.3 WHEN 4 THEN 0.2 ELSE 0.25 END),
  total_ns * (CASE kind WHEN 1 THEN 0.7 WHEN 2 THEN 0.5 WHEN 3 THEN 0.35 WHEN 4 THEN 0.2 ELSE 0.3 END),
  0, launches,
  (SELECT min(id) FROM launch WHERE config_id = ks.config_id AND profiled = 1)
FROM ks WHERE kind <> 0 AND launches > 0;
INSERT INTO finding (rank, rule_id, title, tier, severity, kernel_id, config_id, message, remedy, doc_ref,
  time_lost_ns_per_launch, time_lost_ns, time_lost_raw_ns, share_pct, launches, profiled_launch_id)
SELECT NULL, 'pageable-copy', 'Copies from pageable host memory', 'host', 'note', NULL, NULL,
  count(*) || ' copies used pageable memory (synthetic)', 'Allocate host buffers with cudaMallocHost.', 'H §2.3',
  NULL, sum(end_ns - start_ns) * 0.6, sum(end_ns - start_ns) * 0.6, 0, NULL, NULL
FROM copy WHERE src_kind = 'pageable' OR dst_kind = 'pageable' HAVING count(*) > 0;
UPDATE finding SET share_pct = time_lost_ns * 100.0 / (SELECT t FROM gpu);
UPDATE finding SET severity = CASE WHEN share_pct >= 10 THEN 'error' WHEN share_pct >= 1 THEN 'warning' ELSE 'note' END;
UPDATE finding SET rank = (SELECT count(*) FROM finding f2 WHERE f2.time_lost_ns > finding.time_lost_ns
  OR (f2.time_lost_ns = finding.time_lost_ns AND f2.id < finding.id)) + 1;
INSERT INTO finding_evidence (finding_id, seq, name, value, text_value, unit, threshold, op)
SELECT id, 1, CASE rule_id WHEN 'uncoalesced-global-load' THEN 'sectors_per_request'
  WHEN 'shared-bank-conflicts' THEN 'conflict_ways' WHEN 'local-memory-traffic' THEN 'local_sectors_per_request'
  WHEN 'occupancy-shared-memory' THEN 'theoretical_occupancy_pct' WHEN 'pageable-copy' THEN 'pageable_copies'
  ELSE 'l2_hit_rate_pct' END,
  CASE rule_id WHEN 'uncoalesced-global-load' THEN 32.0 WHEN 'shared-bank-conflicts' THEN 8.0
  WHEN 'local-memory-traffic' THEN 16.0 WHEN 'occupancy-shared-memory' THEN 25.0
  WHEN 'pageable-copy' THEN (SELECT count(*) FROM copy WHERE src_kind = 'pageable' OR dst_kind = 'pageable')
  ELSE 20.0 END, NULL,
  CASE rule_id WHEN 'uncoalesced-global-load' THEN 'sectors' WHEN 'shared-bank-conflicts' THEN 'ways'
  WHEN 'local-memory-traffic' THEN 'sectors' WHEN 'pageable-copy' THEN 'copies' ELSE '%' END,
  CASE rule_id WHEN 'uncoalesced-global-load' THEN 8.0 WHEN 'shared-bank-conflicts' THEN 2.0
  WHEN 'local-memory-traffic' THEN 0.0 WHEN 'occupancy-shared-memory' THEN 50.0 WHEN 'pageable-copy' THEN 0.0
  ELSE 50.0 END,
  CASE rule_id WHEN 'occupancy-shared-memory' THEN '<' WHEN 'l2-reread-miss' THEN '<' ELSE '>' END
FROM finding;
INSERT INTO finding_evidence (finding_id, seq, name, value, text_value, unit, threshold, op)
SELECT id, 2, 'time_lost_share', share_pct, NULL, '%', NULL, NULL FROM finding;
INSERT INTO rule_run (rule_id, title, tier, status, note, findings)
SELECT rule_id, min(title), min(tier), 'ran', 'synthetic', count(*) FROM finding GROUP BY rule_id;
-- Summaries per configuration, then per kernel (config_id NULL).
INSERT INTO kernel_summary (kernel_id, config_id, launches, profiled_launches, total_ns, mean_ns, min_ns, max_ns,
  share_pct, shared_bytes, l1_bytes, l2_bytes, dram_bytes, host_bytes, local_bytes, requested_bytes, useful_bytes,
  floor_ns, floor_measured_ns, floor_ratio, floor_ratio_measured, bound_tier, theoretical_occupancy_pct,
  achieved_occupancy_pct, occupancy_limiter, findings, worst_severity, worst_rule_id, time_lost_ns)
SELECT kernel_id, config_id, launches,
  (SELECT count(*) FROM profile p JOIN launch l ON l.id = p.launch_id WHERE l.config_id = ks.config_id),
  total_ns, mean_ns, CAST(mean_ns * 0.8 AS INTEGER), CAST(mean_ns * 1.2 AS INTEGER),
  total_ns * 100.0 / (SELECT t FROM gpu),
  thr / 32 * (CASE kind WHEN 2 THEN 10 ELSE 3 END) * 128,
  thr / 32 * (CASE kind WHEN 1 THEN 36 WHEN 3 THEN 40 ELSE 8 END) * 32,
  thr / 8 * 32, thr * 4 * (CASE kind WHEN 1 THEN 9 WHEN 5 THEN 4 ELSE 2 END),
  0, CASE kind WHEN 3 THEN thr * 32 ELSE 0 END, thr * 8, thr * 8,
  thr * 8 / 4.8e12 * 1e9, thr * 8 / 4.3e12 * 1e9,
  mean_ns / (thr * 8 / 4.8e12 * 1e9), mean_ns / (thr * 8 / 4.3e12 * 1e9),
  CASE kind WHEN 0 THEN 'dram' WHEN 1 THEN 'l1' WHEN 2 THEN 'shared' WHEN 3 THEN 'l1' WHEN 4 THEN 'latency' ELSE 'dram' END,
  theoretical_occupancy_pct, CASE kind WHEN 3 THEN 22.0 WHEN 4 THEN 23.5 ELSE 78.0 END, occupancy_limiter,
  (SELECT count(*) FROM finding f WHERE f.config_id = ks.config_id),
  (SELECT severity FROM finding f WHERE f.config_id = ks.config_id ORDER BY time_lost_ns DESC LIMIT 1),
  (SELECT rule_id FROM finding f WHERE f.config_id = ks.config_id ORDER BY time_lost_ns DESC LIMIT 1),
  (SELECT sum(time_lost_ns) FROM finding f WHERE f.config_id = ks.config_id)
FROM ks;
INSERT INTO kernel_summary (kernel_id, config_id, launches, profiled_launches, total_ns, mean_ns, min_ns, max_ns,
  share_pct, shared_bytes, l1_bytes, l2_bytes, dram_bytes, host_bytes, local_bytes, requested_bytes, useful_bytes,
  floor_ns, floor_measured_ns, floor_ratio, floor_ratio_measured, bound_tier, theoretical_occupancy_pct,
  achieved_occupancy_pct, occupancy_limiter, findings, worst_severity, worst_rule_id, time_lost_ns)
SELECT kernel_id, NULL, sum(launches), sum(profiled_launches), sum(total_ns),
  CASE WHEN sum(launches) > 0 THEN CAST(sum(total_ns) AS REAL) / sum(launches) END, min(min_ns), max(max_ns),
  sum(share_pct), avg(shared_bytes), avg(l1_bytes), avg(l2_bytes), avg(dram_bytes), avg(host_bytes), avg(local_bytes),
  avg(requested_bytes), avg(useful_bytes), avg(floor_ns), avg(floor_measured_ns),
  (CAST(sum(total_ns) AS REAL) / max(sum(launches), 1)) / avg(floor_ns),
  (CAST(sum(total_ns) AS REAL) / max(sum(launches), 1)) / avg(floor_measured_ns),
  min(bound_tier), min(theoretical_occupancy_pct), min(achieved_occupancy_pct), min(occupancy_limiter),
  sum(findings), (SELECT severity FROM finding f WHERE f.kernel_id = kernel_summary.kernel_id ORDER BY time_lost_ns DESC LIMIT 1),
  (SELECT rule_id FROM finding f WHERE f.kernel_id = kernel_summary.kernel_id ORDER BY time_lost_ns DESC LIMIT 1),
  sum(time_lost_ns)
FROM kernel_summary GROUP BY kernel_id;
DROP TABLE ks;
DROP TABLE gpu;
EOF
fi
cat <<EOF
COMMIT;
PRAGMA journal_mode = DELETE;
ANALYZE;
EOF
}

if command -v sqlite3 >/dev/null 2>&1; then
  sql | sqlite3 -bail "$out" >/dev/null
elif command -v python3 >/dev/null 2>&1; then
  sql | python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.executescript(sys.stdin.read())
c.close()' "$out"
else
  echo "make_big_report: needs the sqlite3 shell or python3 (scripts/deps.sh installs sqlite3)" >&2
  exit 1
fi
echo "make_big_report: wrote '$out' ($n launches, $np profiled, $nk kernels, $nalloc allocation records$( [ $analysis = 1 ] && echo ", synthetic analysis"))" >&2
