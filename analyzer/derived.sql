-- SPDX-License-Identifier: MIT
--
-- analyzer/derived.sql: temp.cfg, one row per configuration with every
-- quantity the rules and the kernel summaries derive from its counters
-- (docs/analyzer.md "Derived columns"; docs/rules.md lists what rules may
-- use). The build embeds this file (analyzer/CMakeLists.txt, as the schema
-- is embedded); analyzer/prepare.c runs it once per analysis, after it has
-- built the tables read here:
--   temp.lstat2     launch statistics per (kernel, configuration): traced
--                   launches, mean/min/max/total time (prepare.c lstat2_sql);
--   temp.phase      steady_start_ns, where the program's repeated work starts,
--                   and loop_found, whether its loop was found by repetition
--                   (temp.loop_cfg: the configurations launched in it or after;
--                   temp.setup_cfg: the set-up before it);
--   temp.pagg       the configuration's v_profiled columns (schema.sql, from
--                   schema/metrics.catalogue), each metric averaged over the
--                   profiled launches that did the same work as the first;
--   temp.cfg_metric every metric of the report by name, averaged the same way
--                   (the counters v_profiled has no column for);
--   temp.footprint  device memory live at the profiled launch;
--   v_inst_config   the instrumented launch's exact counts (temp.v_inst_config
--                   when the report has any, else the schema's view, empty).
-- One statement, read step by step (each step's columns are the next one's
-- input): base (the inputs), tiers (bytes, bandwidths, per-limit blocks),
-- useful (what the useful bytes are), work (useful bytes, issue time,
-- occupancy), floor, times (per tier), and
-- the bound tier. Units are in each comment; NULL means "not measured",
-- never 0. Hardware facts used here (not thresholds: rules own those):
--   - L1/shared: 128 bytes per cycle per SM (one 128-byte wavefront);
--   - L2: twice the DRAM bandwidth (the HBM -> L2 ratio of the memory
--     hierarchy on Hopper);
--   - host link: PCIe per-lane rate x width, else 64 GB/s;
--   - issue: 4 warp-instructions per cycle per SM (4 SMSPs);
--   - registers: allocated per warp in reg_alloc_unit units, per SMSP
--     quarter of the register file (the occupancy calculator's rule);
--   - shared memory: per block rounded up to 128 bytes, plus the per-block
--     reservation, against the SM's largest carveout; ties between limits
--     named in collector/occupancy.h's order.
-- Editing this file changes findings: the golden tests (tests/fixtures)
-- and the e2e tests must pass unchanged, or the change be reviewed as one.
CREATE TEMP TABLE cfg AS
WITH base AS (
  SELECT c.id AS config_id, c.kernel_id, c.device_id,
  k.short_name, k.demangled_name, k.mangled_name,
  c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,
  c.cluster_x, c.cluster_y, c.cluster_z,
  -- bytes; 0 when the collector did not record them
  COALESCE(c.dynamic_smem_bytes, 0) AS dynamic_smem_bytes, COALESCE(c.static_smem_bytes, 0) AS static_smem_bytes,
  c.registers_per_thread, c.local_bytes_per_thread, c.carveout_bytes,
  -- threads per block, blocks in the grid (from the grid and block when not recorded)
  COALESCE(c.threads_per_block, c.block_x * c.block_y * c.block_z) AS threads_per_block,
  COALESCE(c.blocks, c.grid_x * c.grid_y * c.grid_z) AS blocks,
  -- warps per block, rounded up
  (COALESCE(c.threads_per_block, c.block_x * c.block_y * c.block_z) + COALESCE(d.warp_size, 32) - 1)
    / COALESCE(d.warp_size, 32) AS warps_per_block,
  -- the collector's occupancy calculation (collector/occupancy.c), when it made one
  c.theoretical_occupancy_pct AS collector_occupancy_pct, c.occupancy_limiter AS collector_limiter,
  c.blocks_per_sm AS collector_blocks_per_sm, c.waves AS collector_waves,
  -- the device's limits (schema.sql, device)
  d.sm_count, COALESCE(d.warp_size, 32) AS warp_size, d.max_threads_per_block, d.max_threads_per_sm,
  d.max_warps_per_sm, d.max_blocks_per_sm, d.regs_per_sm, d.regs_per_block,
  COALESCE(d.reg_alloc_unit, 256) AS reg_unit, d.smem_per_sm_bytes, d.smem_per_block_bytes,
  d.smem_per_block_optin_bytes, d.smem_reserved_per_block_bytes, d.l2_bytes AS l2_size_bytes,
  d.sm_clock_khz, d.peak_dram_bw_bytes_per_s, d.measured_copy_bw_bytes_per_s, d.pcie_gen, d.pcie_width,
  -- traced launches and their time, ns (unprofiled launches when there are any)
  COALESCE(s.launches, 0) AS launches, COALESCE(s.profiled_launches, 0) AS profiled_launches,
  s.mean_ns, s.min_ns, s.max_ns, COALESCE(s.total_ns, 0) AS total_ns,
  -- first start and last end of its launches, ns; one_time 1: every launch ended before the steady
  -- state, or set-up before the program's loop (temp.setup_cfg: launched fewer times than a loop
  -- repeats, or repeated by that set-up; docs/analyzer.md "One-time set-up")
  s.first_ns, s.last_ns, CASE WHEN s.last_ns < (SELECT steady_start_ns FROM temp.phase)
    OR c.id IN (SELECT config_id FROM temp.setup_cfg)
    THEN 1 ELSE 0 END AS one_time,
  -- bytes of device memory live at its profiled launch (NULL: allocations not recorded)
  fp.live_device_bytes,
  -- managed memory migrated to the device while its launches ran, unasked (temp.um_wait,
  -- managed-migration): launches that waited, migrations, bytes, the waits' total and per traced
  -- launch (um_wait_ns: 0 without such migrations or without the report's um_event), and the ids
  COALESCE(um.um_launches, 0) AS um_launches, um.um_migrations, um.um_bytes,
  COALESCE(um.um_wait_total_ns, 0) AS um_wait_total_ns,
  COALESCE(um.um_wait_total_ns * 1.0 / NULLIF(s.launches, 0), 0) AS um_wait_ns, um.um_launch_ids,
  -- pct of the elapsed cycles each pipe was busy (the compute roof), when the report has the counter
  (SELECT value FROM temp.cfg_metric m WHERE m.config_id = c.id AND m.metric =
    'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed') AS pipe_tensor_pct,
  (SELECT value FROM temp.cfg_metric m WHERE m.config_id = c.id AND m.metric =
    'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed') AS pipe_fma_pct,
  (SELECT value FROM temp.cfg_metric m WHERE m.config_id = c.id AND m.metric =
    'sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed') AS pipe_alu_pct,
  (SELECT value FROM temp.cfg_metric m WHERE m.config_id = c.id AND m.metric =
    'sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed') AS pipe_fp64_pct,
  -- the instrumentation engine's exact counts of its instrumented launch (v_inst_config; NULL when
  -- it has none): global load and store sectors, their ideal (the fewest sectors the requested bytes
  -- fit: NULL when an instruction that moved sectors has none), every global sector (atomics too),
  -- local sectors, the asynchronous copy instructions (LDGSTS, TMA), whose bytes no sector counts,
  -- and the atomics' and reductions' sectors and their ideal
  ic.launch_id AS ic_launch_id, ic.gld_sectors AS ic_gld_sectors, ic.gst_sectors AS ic_gst_sectors,
  ic.gld_sectors_ideal AS ic_gld_ideal, ic.gst_sectors_ideal AS ic_gst_ideal,
  ic.global_sectors AS ic_global_sectors, ic.local_sectors AS ic_local_sectors,
  ic.async_inst AS ic_async_inst, ic.atomic_sectors AS ic_atomic_sectors, ic.atomic_sectors_ideal AS ic_atomic_ideal,
  -- every v_profiled column (pagg_config_id, profiled_launch_id, then the catalogue's columns)
  p.*
  FROM main.config c JOIN main.kernel k ON k.id = c.kernel_id LEFT JOIN main.device d ON d.id = c.device_id
  LEFT JOIN temp.lstat2 s ON s.config_id = c.id AND s.kernel_id = c.kernel_id
  LEFT JOIN temp.pagg p ON p.pagg_config_id = c.id
  LEFT JOIN temp.footprint fp ON fp.fp_config_id = c.id
  LEFT JOIN temp.um_wait um ON um.um_config_id = c.id
  LEFT JOIN v_inst_config ic ON ic.config_id = c.id
),
tiers AS (
  SELECT base.*,
  -- ns: the mean launch's time less its wait for managed memory, what the rules' time models share
  -- out (a kernel that waits for pages to arrive does not wait on its access pattern or its
  -- occupancy meanwhile)
  MAX(0, mean_ns - um_wait_ns) AS work_ns,
  -- ns: the compute roof, the busiest pipe's share of the elapsed cycles times the duration
  CASE WHEN COALESCE(pipe_tensor_pct, pipe_fma_pct, pipe_alu_pct, pipe_fp64_pct) IS NULL THEN NULL
       ELSE MAX(COALESCE(pipe_tensor_pct, 0), COALESCE(pipe_fma_pct, 0), COALESCE(pipe_alu_pct, 0),
                COALESCE(pipe_fp64_pct, 0)) / 100.0 * mean_ns END AS t_pipe_ns,
  -- 'tensor', 'fma', 'alu' or 'fp64': the busiest pipe (NULL: no pipe counter)
  CASE MAX(COALESCE(pipe_tensor_pct, -1), COALESCE(pipe_fma_pct, -1), COALESCE(pipe_alu_pct, -1),
           COALESCE(pipe_fp64_pct, -1))
    WHEN pipe_tensor_pct THEN 'tensor' WHEN pipe_fma_pct THEN 'fma' WHEN pipe_alu_pct THEN 'alu'
    WHEN pipe_fp64_pct THEN 'fp64' END AS roof_pipe,
  -- bytes the global loads and stores requested (gld_/gst_requested_bytes, group sass_bytes); else
  -- the instrumented launch's ideal sectors, 32 bytes each (exact to the sector: a load of 4 bytes a
  -- lane is 4 sectors a warp either way), when every instruction that moved sectors has its ideal
  -- and the DRAM bytes were measured (requested bytes served by the caches are no floor: the useful
  -- bytes below take the fewer of the two). An atomic or a reduction reads its destination and
  -- writes it back (in the L2, which fetches the line and writes it back to DRAM), so its ideal
  -- bytes count as loaded and as stored (since 2026-12-07: before, a kernel of reductions alone
  -- needed 0 bytes, and tk_atomic scatter's fixed twin ran at 9.5x a floor of 0 B on an H100)
  CASE WHEN gld_requested_bytes IS NOT NULL OR gst_requested_bytes IS NOT NULL
         THEN COALESCE(gld_requested_bytes, 0) + COALESCE(gst_requested_bytes, 0)
       WHEN ic_launch_id IS NOT NULL AND COALESCE(dram_read_bytes, dram_write_bytes) IS NOT NULL
            AND (ic_gld_ideal IS NOT NULL OR ic_gld_sectors = 0)
            AND (ic_gst_ideal IS NOT NULL OR ic_gst_sectors = 0)
            AND (ic_atomic_ideal IS NOT NULL OR COALESCE(ic_atomic_sectors, 0) = 0)
         THEN 32.0 * (COALESCE(ic_gld_ideal, 0) + COALESCE(ic_gst_ideal, 0) + 2.0 * COALESCE(ic_atomic_ideal, 0))
       END AS requested_bytes,
  -- bytes read and written in device memory (dram_read_bytes + dram_write_bytes)
  CASE WHEN dram_read_bytes IS NULL AND dram_write_bytes IS NULL THEN NULL
       ELSE COALESCE(dram_read_bytes, 0) + COALESCE(dram_write_bytes, 0) END AS dram_bytes,
  -- bytes through shared memory: 128 per wavefront (shld_ + shst_wavefronts)
  CASE WHEN shld_wavefronts IS NULL AND shst_wavefronts IS NULL THEN NULL
       ELSE 128.0 * (COALESCE(shld_wavefronts, 0) + COALESCE(shst_wavefronts, 0)) END AS shared_bytes,
  -- bytes of local-memory (spill) traffic: 32 per sector (lld_ + lst_sectors)
  CASE WHEN lld_sectors IS NULL AND lst_sectors IS NULL THEN NULL
       ELSE 32.0 * (COALESCE(lld_sectors, 0) + COALESCE(lst_sectors, 0)) END AS local_bytes,
  -- bytes through L1: global and local sectors, 32 bytes each; without the range profiler's, the
  -- instrumented launch's (exact, the same quantity)
  CASE WHEN COALESCE(gld_sectors, gst_sectors, lld_sectors, lst_sectors) IS NOT NULL
         THEN 32.0 * (COALESCE(gld_sectors, 0) + COALESCE(gst_sectors, 0) + COALESCE(lld_sectors, 0) + COALESCE(lst_sectors, 0))
       WHEN ic_launch_id IS NOT NULL
         THEN 32.0 * (COALESCE(ic_global_sectors, 0) + COALESCE(ic_local_sectors, 0)) END AS l1_bytes,
  -- bytes looked up in L2: hit + miss sectors, 32 bytes each; without either (they take later
  -- groups than the floor's: docs/metrics.md), the sectors the SMs asked the L2 for (group 1's
  -- l2_sectors_from_l1: L1TEX's loads, stores, atomics and TMA, not the copy engines')
  CASE WHEN l2_hit_sectors IS NOT NULL OR l2_miss_sectors IS NOT NULL
         THEN 32.0 * (COALESCE(l2_hit_sectors, 0) + COALESCE(l2_miss_sectors, 0))
       ELSE 32.0 * l2_sectors_from_l1 END AS l2_bytes,
  -- bytes the asynchronous copies moved (TMA loads and stores, LDGSTS through or around L1, group
  -- tma / sass_bytes): traffic no LDG or STG sector counts
  CASE WHEN COALESCE(tma_load_bytes, tma_store_bytes, ldgsts_access_bytes, ldgsts_bypass_bytes) IS NULL THEN NULL
       ELSE COALESCE(tma_load_bytes, 0) + COALESCE(tma_store_bytes, 0) + COALESCE(ldgsts_access_bytes, 0)
            + COALESCE(ldgsts_bypass_bytes, 0) END AS async_bytes,
  -- the same, reads (TMA loads, LDGSTS) and writes (TMA stores) apart
  COALESCE(tma_load_bytes, 0) + COALESCE(ldgsts_access_bytes, 0) + COALESCE(ldgsts_bypass_bytes, 0)
    AS async_ld_bytes,
  COALESCE(tma_store_bytes, 0) AS async_st_bytes,
  -- bytes every counted SM access could have moved: global and local sectors, atomics and
  -- reductions at L2, 32 bytes each (NULL when no sector counter was collected); without the range
  -- profiler's sector counters, the instrumented launch's global (atomics too) and local sectors
  CASE WHEN COALESCE(gld_sectors, gst_sectors) IS NOT NULL
         THEN 32.0 * (COALESCE(gld_sectors, 0) + COALESCE(gst_sectors, 0) + COALESCE(lld_sectors, 0)
                      + COALESCE(lst_sectors, 0) + COALESCE(l2_atom_sectors, 0) + COALESCE(l2_red_sectors, 0))
       WHEN ic_launch_id IS NOT NULL
         THEN 32.0 * (COALESCE(ic_global_sectors, 0) + COALESCE(ic_local_sectors, 0)
                      + COALESCE(l2_atom_sectors, 0) + COALESCE(l2_red_sectors, 0)) END AS counted_access_bytes,
  -- bytes the SMs moved to or from system memory (sm_sysmem_sectors)
  32.0 * sm_sysmem_sectors AS host_bytes,
  -- pct of L2 lookups that hit (hits and misses may come from two launches: docs/metrics.md)
  100.0 * l2_hit_sectors / NULLIF(COALESCE(l2_hit_sectors, 0) + COALESCE(l2_miss_sectors, 0), 0) AS l2_hit_rate_pct,
  -- bytes/s: device memory (datasheet), as a copy measured it, L2, L1/shared, the host link
  peak_dram_bw_bytes_per_s AS bw_dram,
  COALESCE(measured_copy_bw_bytes_per_s, peak_dram_bw_bytes_per_s) AS bw_copy,
  2.0 * peak_dram_bw_bytes_per_s AS bw_l2,
  128.0 * sm_count * sm_clock_khz * 1e3 AS bw_l1,
  COALESCE(pcie_width * CASE pcie_gen WHEN 1 THEN 0.25e9 WHEN 2 THEN 0.5e9 WHEN 3 THEN 0.985e9
    WHEN 4 THEN 1.969e9 WHEN 5 THEN 3.938e9 WHEN 6 THEN 7.563e9 END, 64e9) AS bw_host,
  -- blocks per SM each limit allows: warps, blocks, registers, shared memory (1e9: no limit)
  max_warps_per_sm / warps_per_block AS lim_warps,
  max_blocks_per_sm AS lim_blocks,
  CASE WHEN registers_per_thread > 0 THEN
    4 * ((regs_per_sm / 4) / (((registers_per_thread * warp_size + reg_unit - 1) / reg_unit) * reg_unit))
      / warps_per_block
    ELSE 1000000000 END AS lim_regs,
  CASE WHEN COALESCE(static_smem_bytes, 0) + COALESCE(dynamic_smem_bytes, 0) > 0 THEN
    smem_per_sm_bytes / ((COALESCE(static_smem_bytes, 0) + COALESCE(dynamic_smem_bytes, 0) + 127) / 128 * 128
      + COALESCE(smem_reserved_per_block_bytes, 0))
    ELSE 1000000000 END AS lim_smem
  FROM base
),
useful AS (
  SELECT tiers.*,
  -- requested_bytes' loads and stores apart (NULL where it is), from the same source
  CASE WHEN requested_bytes IS NULL THEN NULL
       WHEN gld_requested_bytes IS NOT NULL OR gst_requested_bytes IS NOT NULL THEN COALESCE(gld_requested_bytes, 0)
       ELSE 32.0 * (COALESCE(ic_gld_ideal, 0) + COALESCE(ic_atomic_ideal, 0)) END AS requested_ld_bytes,
  CASE WHEN requested_bytes IS NULL THEN NULL
       WHEN gld_requested_bytes IS NOT NULL OR gst_requested_bytes IS NOT NULL THEN COALESCE(gst_requested_bytes, 0)
       ELSE 32.0 * (COALESCE(ic_gst_ideal, 0) + COALESCE(ic_atomic_ideal, 0)) END AS requested_st_bytes,
  -- without requested bytes, the global loads' and stores' sectors, at most 16 per warp instruction
  32.0 * COALESCE(MIN(gld_sectors, 16.0 * COALESCE(gld_inst, gld_sectors)), 0) AS sector_ld_bytes,
  32.0 * COALESCE(MIN(gst_sectors, 16.0 * COALESCE(gst_inst, gst_sectors)), 0) AS sector_st_bytes,
  -- what the useful bytes (next step) are: 'requested' (the instructions' own bytes), 'sectors'
  -- (bounded by the global sectors, no requested bytes), 'dram' (the DRAM bytes: no requested
  -- bytes either, or traffic the run's counters did not see). The DRAM bytes stand for the useful
  -- ones when they are more than twice what every counted access could have moved, plus 1 MiB:
  -- most of the traffic then came from accesses no counter of the run saw (TMA or LDGSTS without
  -- their group: a cuBLAS or CUTLASS GEMM loads its tiles so), a conservative floor (a higher floor
  -- claims less). The factor 2 is DRAM's access granularity: 64 bytes against L2's 32-byte
  -- sectors, so scattered sector accesses may read twice their bytes (the suite's gather: 1.6x);
  -- the 1 MiB leaves room for traffic no SM instruction makes (instruction and constant fetches,
  -- page-table walks). Only with the local sectors measured: otherwise the unseen traffic may be
  -- spills, which are no useful bytes (the instrumented launch's local sectors count them exactly).
  -- And when the instrumented launch executed asynchronous copies (LDGSTS, TMA) whose bytes were not
  -- measured, traffic no sector counts is known to exist: the DRAM bytes stand for the useful ones
  -- whenever they exceed what the counted accesses could move.
  CASE WHEN dram_bytes IS NOT NULL AND counted_access_bytes IS NOT NULL AND async_bytes IS NULL
            AND ((ic_async_inst > 0 AND dram_bytes > counted_access_bytes)
                 OR ((COALESCE(lld_sectors, lst_sectors) IS NOT NULL OR ic_launch_id IS NOT NULL)
                     AND dram_bytes > 2.0 * counted_access_bytes + 1048576.0)) THEN 'dram'
       WHEN requested_bytes IS NOT NULL THEN 'requested'
       WHEN dram_bytes IS NOT NULL AND COALESCE(gld_sectors, gst_sectors) IS NOT NULL THEN 'sectors'
       WHEN dram_bytes IS NOT NULL THEN 'dram' END AS useful_basis
  FROM tiers
),
work AS (
  SELECT useful.*,
  -- bytes the kernel needed at least (DESIGN.md "The two numbers"), by useful_basis: the requested
  -- bytes, or the DRAM bytes if fewer (reuse through the caches). Without the requested bytes
  -- (group sass_bytes, absent from a default run) they are bounded by the global LSU sectors, at
  -- most 16 per warp instruction (32 lanes x 16 B, the widest access), so neither the DRAM bytes
  -- of local spills nor the sectors a strided pattern drags in count as useful. The asynchronous
  -- copies' bytes (TMA, LDGSTS) are requested bytes too, when measured (added where the DRAM bytes
  -- bound the sum: without them, requested bytes that hit in L2 would already make the floor too
  -- high, and the copies' would make it more so).
  -- With the DRAM's reads and writes apart, each direction is bounded by its own: a load's bytes by
  -- the bytes read, a store's by the bytes written, so the write-backs of local memory (a spill's
  -- stores evicted to DRAM) or of an earlier kernel's dirty lines do not make a kernel's loads
  -- look useful, nor L1 rereads its stores.
  CASE useful_basis
       WHEN 'dram' THEN dram_bytes
       WHEN 'requested' THEN CASE WHEN dram_read_bytes IS NOT NULL AND dram_write_bytes IS NOT NULL
                                  THEN MIN(requested_ld_bytes + async_ld_bytes, dram_read_bytes)
                                       + MIN(requested_st_bytes + async_st_bytes, dram_write_bytes)
                                  WHEN dram_bytes IS NOT NULL
                                  THEN MIN(requested_bytes + COALESCE(async_bytes, 0), dram_bytes)
                                  ELSE requested_bytes END
       WHEN 'sectors'
         THEN CASE WHEN dram_read_bytes IS NOT NULL AND dram_write_bytes IS NOT NULL
                   THEN MIN(sector_ld_bytes + async_ld_bytes, dram_read_bytes)
                        + MIN(sector_st_bytes + async_st_bytes, dram_write_bytes)
                   ELSE MIN(sector_ld_bytes + sector_st_bytes + COALESCE(async_bytes, 0), dram_bytes) END
       END AS useful_bytes,
  -- ns: the warp instructions other than memory ones (global, shared, local: the memory roof's
  -- business, and spills are not the work) at 4 per SM per cycle. Executed, not necessary: a fix
  -- that removes arithmetic can beat it.
  COALESCE((inst_executed - COALESCE(lld_inst, 0) - COALESCE(lst_inst, 0) - COALESCE(gld_inst, 0)
            - COALESCE(gst_inst, 0) - COALESCE(shld_inst, 0) - COALESCE(shst_inst, 0))
           * 1e9 / (4.0 * sm_count * sm_clock_khz * 1e3), 0) AS t_issue_ns,
  -- blocks per SM and the occupancy they give, pct (the calculator's, docs/occupancy.md)
  MIN(lim_warps, lim_blocks, lim_regs, lim_smem) AS blocks_per_sm_calc,
  100.0 * MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * warps_per_block / max_warps_per_sm AS occupancy_calc_pct,
  -- pct: the collector's theoretical occupancy, else the calculation above
  COALESCE(collector_occupancy_pct,
    100.0 * MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * warps_per_block / max_warps_per_sm) AS theoretical_occupancy_pct,
  -- 'warps', 'registers', 'shared_memory' or 'blocks': the limit that binds
  COALESCE(collector_limiter, CASE MIN(lim_warps, lim_blocks, lim_regs, lim_smem)
    WHEN lim_warps THEN 'warps' WHEN lim_regs THEN 'registers'
    WHEN lim_smem THEN 'shared_memory' ELSE 'blocks' END) AS occupancy_limiter,
  -- pct: the occupancy without the register limit, without the shared-memory limit
  100.0 * MIN(lim_warps, lim_blocks, lim_smem) * warps_per_block / max_warps_per_sm AS occ_without_regs_pct,
  100.0 * MIN(lim_warps, lim_blocks, lim_regs) * warps_per_block / max_warps_per_sm AS occ_without_smem_pct,
  -- waves of blocks over the SMs
  COALESCE(collector_waves, blocks * 1.0 / (MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * sm_count)) AS waves,
  -- pct: the occupancy a grid of less than one wave allows: each SM with work gets blocks / SMs
  -- blocks (at least one), so the grid's warps, not the per-SM limits, cap what can be achieved
  -- (64 blocks of 16 warps on 132 SMs: 25 %); NULL for a wave or more (latency-not-hidden)
  CASE WHEN blocks < MIN(lim_warps, lim_blocks, lim_regs, lim_smem) * sm_count
       THEN 100.0 * MAX(1.0, blocks * 1.0 / sm_count) * warps_per_block / max_warps_per_sm
       END AS grid_occupancy_pct
  FROM useful
),
floors AS (
  SELECT work.*,
  -- ns: the floor, the roofline's roofs (useful bytes at the datasheet DRAM bandwidth, instruction
  -- issue, the busiest pipe) plus 2000 ns, the time any kernel takes on the GPU whatever its work
  -- (launch, block dispatch, drain): a floor without it cannot be reached by a kernel of a few
  -- microseconds. 2 us is below every kernel duration recorded on the H200 (smallest: 2.8 us, a
  -- one-wave grid of 1024 blocks), so the floor stays a lower bound. docs/analyzer.md "The floor".
  CASE WHEN useful_bytes IS NULL THEN NULL
       ELSE MAX(useful_bytes * 1e9 / bw_dram, t_issue_ns, COALESCE(t_pipe_ns, 0)) + 2000.0 END AS floor_ns,
  -- ns: the same at the measured copy bandwidth (the datasheet's when none was measured)
  CASE WHEN useful_bytes IS NULL THEN NULL
       ELSE MAX(useful_bytes * 1e9 / bw_copy, t_issue_ns, COALESCE(t_pipe_ns, 0)) + 2000.0 END AS floor_measured_ns
  FROM work
),
times AS (
  SELECT floors.*,
  -- x: the kernel's time over its floor
  mean_ns / floor_ns AS floor_ratio,
  mean_ns / floor_measured_ns AS floor_ratio_measured,
  -- ns: what findings on the kernel may claim together lies above this (0 without a floor)
  COALESCE(floor_measured_ns, 0) AS floor_cap_ns,
  MAX(0, mean_ns - COALESCE(floor_measured_ns, 0)) AS gap_ns,
  -- ns: each tier's bytes at its bandwidth, and the instructions at the issue rate
  dram_bytes * 1e9 / bw_dram AS t_dram_ns, l2_bytes * 1e9 / bw_l2 AS t_l2_ns,
  l1_bytes * 1e9 / bw_l1 AS t_l1_ns, shared_bytes * 1e9 / bw_l1 AS t_shared_ns,
  host_bytes * 1e9 / bw_host AS t_host_ns,
  inst_executed * 1e9 / (4.0 * sm_count * sm_clock_khz * 1e3) AS t_compute_ns,
  -- ns: the largest of them (NULL when nothing was measured)
  CASE WHEN COALESCE(dram_bytes, l2_bytes, l1_bytes, shared_bytes, host_bytes, inst_executed,
    t_pipe_ns) IS NULL THEN NULL ELSE
  MAX(COALESCE(dram_bytes * 1e9 / bw_dram, 0), COALESCE(l2_bytes * 1e9 / bw_l2, 0),
      COALESCE(l1_bytes * 1e9 / bw_l1, 0), COALESCE(shared_bytes * 1e9 / bw_l1, 0),
      COALESCE(host_bytes * 1e9 / bw_host, 0),
      COALESCE(inst_executed * 1e9 / (4.0 * sm_count * sm_clock_khz * 1e3), 0),
      COALESCE(t_pipe_ns, 0)) END AS max_t_ns,
  -- pct of the kernel's time each tier would be busy at its bandwidth, at most 100: the bytes are
  -- the profiled launch's and the time the traced launches' mean, and a profiled launch that began
  -- from another cache state can move more than a mean launch could at the peak (tk_unseen's
  -- aos_mass on an H100, 2026-12-07: 170 MB of DRAM traffic in its profiled launch's 58.8 us read
  -- "101.9% busy" over the traced 49.8 us); no tier is busier than all the time
  MIN(100.0, 100.0 * dram_bytes * 1e9 / bw_dram / mean_ns) AS util_dram_pct,
  MIN(100.0, 100.0 * l2_bytes * 1e9 / bw_l2 / mean_ns) AS util_l2_pct,
  MIN(100.0, 100.0 * l1_bytes * 1e9 / bw_l1 / mean_ns) AS util_l1_pct,
  MIN(100.0, 100.0 * shared_bytes * 1e9 / bw_l1 / mean_ns) AS util_shared_pct,
  MIN(100.0, 100.0 * host_bytes * 1e9 / bw_host / mean_ns) AS util_host_pct,
  -- pct: the busiest memory tier's (at most 100, as above); NULL, not 0, for a configuration never
  -- profiled (nothing says its pipes are idle)
  CASE WHEN COALESCE(dram_bytes, l2_bytes, l1_bytes, shared_bytes) IS NOT NULL THEN
  MIN(100.0, 100.0 * MAX(COALESCE(dram_bytes * 1e9 / bw_dram, 0), COALESCE(l2_bytes * 1e9 / bw_l2, 0),
      COALESCE(l1_bytes * 1e9 / bw_l1, 0), COALESCE(shared_bytes * 1e9 / bw_l1, 0)) / mean_ns) END AS util_mem_pct
  FROM floors
)
SELECT times.*,
  -- what binds: 'latency' when no tier is busy half the time, else the tier (or the pipe) whose
  -- time is the largest, 'compute' for instruction issue
  CASE WHEN max_t_ns IS NULL OR mean_ns IS NULL THEN NULL
       WHEN max_t_ns < 0.5 * mean_ns THEN 'latency'
       WHEN max_t_ns = t_host_ns THEN 'host' WHEN max_t_ns = t_dram_ns THEN 'dram'
       WHEN max_t_ns = t_l2_ns THEN 'l2' WHEN max_t_ns = t_l1_ns THEN 'l1'
       WHEN max_t_ns = t_shared_ns THEN 'shared' WHEN max_t_ns = t_pipe_ns THEN roof_pipe
       ELSE 'compute' END AS bound_tier,
  -- the busiest tier or pipe, latency-bound or not (NULL when nothing was measured)
  CASE WHEN max_t_ns IS NULL OR max_t_ns = 0 THEN NULL
       WHEN max_t_ns = t_host_ns THEN 'host' WHEN max_t_ns = t_dram_ns THEN 'dram'
       WHEN max_t_ns = t_l2_ns THEN 'l2' WHEN max_t_ns = t_l1_ns THEN 'l1'
       WHEN max_t_ns = t_shared_ns THEN 'shared' WHEN max_t_ns = t_pipe_ns THEN roof_pipe
       ELSE 'compute' END AS top_tier
FROM times;
