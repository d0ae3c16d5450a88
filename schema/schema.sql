-- SPDX-License-Identifier: MIT
--
-- gpuhier report schema, version 4 (PRAGMA user_version = 4).
--
-- This file is the contract between the collector (writer of the raw
-- tables), the analyzer (writer of the analysis tables) and every reader
-- (tui, report, export, check, diff). It is compiled into libgh_store and
-- applied by store_create(). Every table, view and column is documented
-- here: a user must be able to answer their own questions with
-- `sqlite3 report.db`.
--
-- Conventions
--   * times are nanoseconds (`_ns`), on CUPTI's timestamp clock
--     (CLOCK_REALTIME-based on Linux) unless the column says otherwise;
--   * sizes are bytes (`_bytes`), bandwidths bytes per second (`_bytes_per_s`);
--   * percentages are 0..100 (`_pct`);
--   * strings that come from the profiled program (kernel names, command
--     lines, NVTX names) are untrusted: readers pass them through the
--     export module's sanitizer before printing;
--   * a NULL means "not known / not collected", never zero.
--
-- Compatibility: PRAGMA user_version changes only when a reader of one
-- version would misread a report of the other (a column removed, renamed
-- or given a new meaning). Additions keep the version: a table or column
-- marked "(added: ...)" below is absent from reports written before it,
-- readers test for it (sqlite_master, pragma_table_info) and treat its
-- absence as "not recorded", and older readers ignore it. An explicit
-- migration would only add empty tables to an old report, which a reader
-- must still tell apart from "recorded, nothing happened": the meta key
-- naming what was recorded (e.g. 'alloc_tracking') does that instead.
--
-- Version 2 (2026-12-01) adds the per-instruction counts of instrumented
-- launches, the cubins' line tables and what the analyzer derives from
-- them (every statement marked "(version 2)" below). It removes and
-- renames nothing, so a version-1 report still means what it meant; but a
-- version-2 reader must tell "no instrumented launch" from "recorded
-- before instrumentation existed", hence the new version rather than an
-- "(added: ...)" mark. Version-1 reports (every shipped demo report) open
-- in every reader, read-only and unchanged: store_open() creates the
-- version-2 tables and views as empty TEMP objects on a version-1
-- connection (they vanish with it; the file is never written), so readers
-- query them without testing for them, and find them empty. A version-2
-- table is never "(added: ...)": every version-2 report holds it.
-- The mark is read from the comment lines right above a statement and
-- names the version that created it (schema/store.c version_of()): a
-- later change to it is written "since version N" there, never in the
-- mark's form, or readers would take the statement for a new one and
-- shadow an older report's own table with an empty one
-- (test_store_earlier_versions_keep_counts).
--
-- Version 3 (2026-12-05) stores the two per-instruction counts that are
-- the same for every instruction of a basic block (executed warp and
-- thread instructions) as runs (inst_run), not one inst_count row per
-- instruction: on the H200's PyTorch benchmark those rows were 90 % of
-- inst_count, and the instrumentation's tables fell from 14.95 to 2.92 KB
-- per instrumented launch (docs/collector.md "Report size: executed
-- instructions as runs"). A version-2 reader would read a
-- version-3 report's executed instructions as 0, hence the new version.
-- Versions 1 and 2 open as before: the "(version 3)" objects are created
-- empty as TEMP objects (and, for version 1, the "(version 2)" ones), and
-- v_inst reads both forms, so any report's counts read the same.
--
-- Version 4 (2026-12-07) leaves implied an instrumented instruction's
-- kind and access-width counts that equal its executed warp instructions,
-- and its ideal sectors or wavefronts that equal its sectors or
-- wavefronts (no bank conflict, a fully used sector): one inst_count row
-- of the pseudo-metric 'gpuhier_inst_implied', a bit mask, stands for
-- them (inst_count below). They were 65-73 % of inst_count's rows on the
-- suite's reports of 2026-12-07 (docs/collector.md "Implied counts"). A
-- version-3 reader would read those counts as 0, hence the new version.
-- Reports of versions 1-3 have no mask rows and read as before; v_inst
-- expands the masks, so every report's counts read the same through it.
--
-- Version 5 (2026-12-07) moves into each mask row the instruction's
-- sectors or wavefronts (inst_count below), so that a memory instruction
-- at its ideal is one row. A version-4 reader would read a mask's value
-- as bits it does not know, hence the new version. A version-4 mask is
-- below 2^15 and carries nothing, so v_inst reads every version the same.
--
-- Ownership: the collector writes the tables of section 1-3; the analyzer
-- writes only the tables of section 4 (analysis, rule_run, finding,
-- finding_evidence, finding_launch, kernel_summary, finding_line, and for
-- a merged job report rank_summary, rank_kernel, rank_finding); `gpuhier
-- merge` writes a new report only, with sections 1-3 of its inputs plus
-- job_rank and rank_meta; readers write nothing.

PRAGMA user_version = 5;

-- ===================================================================
-- 1. The run
-- ===================================================================

-- One key/value bag describing the file itself.
-- Keys used: 'schema_version', 'created_by' ('collector', 'synthetic',
-- 'test'), 'provenance' (free text: where, when, how a report was
-- recorded or built; synthetic reports say so here), 'tool_version'.
-- 'alloc_tracking' (added: allocation footprint): 'on' when the collector
-- recorded every device memory allocation and release of the process
-- (CUPTI MEMORY2 enabled before the first one), so `allocation` and
-- v_launch_footprint can be trusted; absent or any other value (the reason)
-- when it did not, or when the program later used memory MEMORY2 may not
-- report (virtual-memory mappings, IPC, graph memory nodes: 'off: the
-- program called <api>, ...'): readers then treat allocations as unknown.
-- 'host_args' (added: host arguments): 'on' when the collector looked
-- for pointer arguments into page-locked host memory (launch_host_arg).
-- 'stack_limit_bytes' (added: 2026-11-30): the context's per-thread stack
-- limit (CU_LIMIT_STACK_SIZE) at the first launch and, when it changed, at
-- the last profiled launch: the local memory the context reserves per
-- thread, which shapes where spills land (Nsight Compute's
-- launch__stack_size).
-- 'cache_control' (added: 2026-11-30, profiling runs only): 'all' when the
-- collector flushed the L2 before every profiled launch (`gpuhier run
-- --cache-control all`: counters of a cold, clean L2, like Nsight Compute's
-- default), 'none' when it did not (the L2 as the program left it, ncu's
-- --cache-control none); 'none: <reason>' when a flush failed and the
-- later profiled launches ran without one. Absent: recorded before the
-- option existed (no flush). 'cache_flushes': '<n> flushes, <ms> ms', the
-- flushes done and their time (inside profile.overhead_ns).
-- 'profiler_hold_ms' and 'profiler_enables' (added: 2026-11-30, written
-- when anything was profiled): how long the range profiler stayed enabled
-- after each profile (GPUHIER_PROFILER_HOLD_MS, default 100; 0 before that
-- date's default) and how many times the process enabled it, each enable
-- costing CUPTI's set-up again (docs/collector.md "Profiler hold").
-- 'profiler_disables' (added: 2026-12-04, written when anything was
-- profiled and the profiler was disabled): why, as 'WHY=N' words
-- ('hold=3 quiesce=10 switch=2'): hold (an unsampled launch after the
-- hold), idle (the flusher after the hold), quiesce (the instrumentation
-- engine served a launch), switch (another one-pass group's config image),
-- graph, context, busy, failure, prewarm, exit.
-- 'profiles_rescaled' (added: 2026-12-04): profiles of a kept session's
-- user ranges whose gpu__time_duration.sum metric was set to the kernel
-- record's duration and whose rates over the elapsed time
-- (*.pct_of_peak_sustained_elapsed, *.per_second) were multiplied by the
-- range's span over it: a user range spans the gap from its push to the
-- kernel (docs/collector.md "Kept session").
-- 'rank', 'local_rank', 'world_size' and 'rank_source' (added: 2026-12-01):
-- the process's place in a parallel job, from its launcher's variables
-- (rank_source 'torchrun': RANK/LOCAL_RANK/WORLD_SIZE; 'Open MPI':
-- OMPI_COMM_WORLD_*; 'PMIx': PMIX_RANK; 'MPICH (PMI)': PMI_RANK/PMI_SIZE;
-- 'Slurm': SLURM_PROCID/SLURM_LOCALID/SLURM_NTASKS; the first launcher in
-- that order whose rank is a whole number). Absent outside a job; the host
-- is run.host.
-- 'engines', 'engine_range_profiler' and 'engine_instrumentation' (added:
-- 2026-12-02, written at a clean exit): which counter engines the run asked
-- for ('range profiler', the default; 'instrumentation', GPUHIER_INSTRUMENT=1;
-- 'instrumentation + range profiler', GPUHIER_INSTRUMENT=both;
-- 'instrumentation, then range profiler', GPUHIER_INSTRUMENT=phased; 'none (trace
-- mode)') and what each did, as '<state>: <detail>': 'ran: <n> launches'
-- (the instrumentation adds '<m> graph launches'), 'refused: no permission
-- to read GPU counters (ERR_NVGPUCTRPERM): <the collector's message>' (and
-- 'refused: MIG instance', 'refused: device not supported', 'off: bad
-- option', 'failed: ...' for the other causes), 'failed: <CUPTI call>
-- failed: <error>' (the instrumentation engine stopped), 'stuck: <call> had
-- not returned after <s> s (launch correlation id <n>)' (an engine call
-- that never returned, the 'engine_stuck' event), 'idle: no launch was
-- given to it', 'not used: <why>'; with GPUHIER_INSTRUMENT=phased the
-- instrumentation's state ends ' (window closed after <m> launches)' once
-- the window closed (docs/collector.md "The instrumentation window"). Which engine served a launch: an
-- inst_launch row (instrumentation; launch.profile_reason 'instrumented')
-- or a profile row (range profiler). Absent from older reports and from a
-- run that did not exit cleanly: readers then tell the engines from those
-- rows and run.profiling_limited.
-- 'instrumented_launches' (instrumentation engine runs, written at a clean
-- exit): '<n> launches, <ms> ms (waiting for queued work <ms>, kernel
-- tracing swaps <ms>, enable <ms>, patched run <ms>, flush <ms>, disable
-- <ms>)': the launches it served and the time it added to them in all (the
-- sum of inst_launch.overhead_ns), split by phase (the phases since
-- 2026-12-02): the context synchronize before Enable, kernel tracing's
-- swap to CUPTI_ACTIVITY_KIND_KERNEL and back (a flush of CUPTI's buffers
-- each; since 2026-12-04, before then counted in enable and disable),
-- SetConfig and Enable, the launch and the patched kernel up to the
-- synchronize after it, reading the counts, Disable.
-- 'instrumented_launch_calls' (added: 2026-12-06, beside it): '<ms> ms of
-- the patched run in the launch calls (lazy patching), <ms> ms in the
-- synchronize after them (the patched kernels' execution)': the patched
-- run split where the launch call returns.
-- 'instrumentation_setup' (added: 2026-12-06): '<ms> ms initializing the
-- profiler at the context's creation' (cuptiProfilerInitialize, outside
-- the launches' phases). 'instrumentation_rows' (added: 2026-12-06,
-- written by the writer at a clean exit when it wrote instrumented
-- launches): '<ms> ms writing <n> inst_launch rows and their counts; the
-- last batch at exit <ms> ms': the writer thread's time on inst_launch,
-- inst_count, inst_run and sass_line rows, and its last batch, which the
-- program's exit waits for.
-- 'instrumentation_metrics_missing' (added: 2026-12-02, written at a clean
-- exit once the engine resolved its metrics): the engine's SASS metrics the
-- chip refused (cuptiSassMetricsGetProperties failed), comma-joined, or
-- 'none'. v_inst's columns of a missing metric read 0: this key tells
-- that 0 from a count of 0.
-- 'instrumentation_price' (added: 2026-12-05, written at a clean exit with
-- both engines under their allowance): '<ms> ms and <x>x the native time
-- (learned from <n> configurations | default, 0 configurations); <n>
-- launches instrumented past the allowance, <n> configurations waited to
-- the end': the price of an instrumented launch the engine charged past
-- its allowance (a fixed part and a slowdown of the kernel's native time,
-- the slowdown learned from the run's instrumented configurations), the
-- launches it bought (inst_launch.reason 'inst_deferred') and the
-- configurations that waited for it and have no exact per-instruction counts (event
-- instrumentation_budget); docs/sampling.md "The instrumentation engine's
-- price".
-- 'collector_init_ms' (added: 2026-12-04): how long the collector's
-- initialization inside cuInit took (options, the report, CUPTI's
-- subscription and activity set-up), in ms: part of what the program waits
-- before its first kernel (bench/delay_along.py).
-- 'collector_init_parts' (added: 2026-12-06): where collector_init_ms went:
-- 'loading CUPTI <ms> ms, profiling options <ms> ms, the writer's start
-- <ms> ms, subscribing <ms> ms, activity set-up <ms> ms'; and
-- 'collector_init_between' (added: 2026-12-06 17:25 UTC) the steps between
-- the writer's start and the subscription: 'the flusher's and watchdog's
-- threads <ms> ms, signal handlers <ms> ms, notes and the session file <ms>
-- ms, exit hooks <ms> ms' (the rest of collector_init_ms is the report's
-- name and path, before both); docs/instrument-cost.md.
-- 'nvperf_open' (added: 2026-12-06, written at a clean exit where the
-- profiler's libraries were opened, i.e. in every mode but trace): 'opened
-- in <ms> ms on its own thread | on the caller's thread; waited for <ms>
-- ms': libnvperf_host and libnvperf_target, opened from libcupti's
-- directory on a thread the collector starts once CUPTI is loaded (before
-- 2026-12-06 15:57 UTC on the program's thread, in 'loading CUPTI'), and
-- how long the first caller that needed them (cuptiProfilerInitialize, the
-- host API, or the exit) waited for the open to end
-- (collector/cupti_load.c; docs/instrument-cost.md).
-- 'profiler_setup' (added: 2026-12-04, written at a clean exit when the
-- range profiler profiled): 'plan <ms> ms at the first launch; first profile
-- <ms> ms (enable <ms>, set-up <ms>, start <ms>)': building the one-pass
-- plan's host objects on the program's first launch (both engines), and the
-- first profile's time with its enable (CUPTI's profiler set-up on the
-- device), SetConfig with the images, and Start (with the first push of a
-- kept session).
-- 'kernel_kind_swaps' (added: 2026-12-05, written at a clean exit when a
-- served launch swapped kernel tracing kinds): '<n>, each with the launch
-- gate closed; <n> launches waited at it, <n> swaps went ahead with
-- launches in flight': a kernel launched while neither kernel kind is on
-- gets no record (and no launch row), so each swap waits for the launch
-- calls in flight and holds new ones at their ENTER (at most 100 ms and
-- 1 s); a swap that went ahead may have lost a launch of another thread
-- (docs/collector.md "Kernel tracing beside the instrumentation engine").
-- 'activity_buffer_waits' (added: 2026-12-04, written at a clean exit when
-- it happened): '<n> requests found the 64 activity buffers out and waited
-- for the writer': CUPTI asked for a buffer while all of the collector's
-- were queued for the writer; each request waited (at most 500 ms) for one
-- to come back rather than leave CUPTI without one (which drops records,
-- run.activity_dropped); after a wait that ran out none waits again until a
-- buffer comes back. Each kernel-kind swap flushes a buffer however few
-- records it holds (docs/collector.md).
-- 'activity_buffer' (added: 2026-12-02, profile mode): where CUPTI kept the
-- activity records the device writes: 'host-pinned' when the
-- instrumentation engine may run (with device buffers it deadlocked about
-- one framework run in two, docs/collector.md "A hang of the
-- instrumentation engine"), 'device' (CUPTI's default) otherwise.
-- 'metric_groups' (added: one-pass groups): N, the groups of the one-pass
-- plan the collector packed for the device's chip (profile.metric_set
-- 'groupK/N'; docs/metrics.md "One-pass groups"). Absent under --replay
-- kernel, --metric-set none, and in reports recorded before issue 18.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,  -- name of the property
    value TEXT               -- its value
);

-- One row per profiled process (one report = one process; id is 1).
CREATE TABLE run (
    id                 INTEGER PRIMARY KEY,
    command_line       TEXT,     -- JSON array of argv strings, as seen in /proc/self/cmdline
    program            TEXT,     -- argv[0] resolved to a path when possible
    cwd                TEXT,     -- working directory at start
    env                TEXT,     -- JSON object: allowlisted variables only (CUDA_*, NVIDIA_*, LD_*, OMP_*, GPUHIER_*)
    host               TEXT,     -- gethostname()
    pid                INTEGER,  -- process id of the profiled process
    ppid               INTEGER,  -- its parent's process id
    start_ns           INTEGER,  -- when the collector started (CLOCK_REALTIME ns)
    end_ns             INTEGER,  -- when the collector finished (NULL if it never finished cleanly)
    tool_version       TEXT,     -- gpuhier version that wrote the report
    cuda_driver_version INTEGER, -- cuDriverGetVersion(), e.g. 13000
    cupti_version      INTEGER,  -- cuptiGetVersion()
    mode               TEXT,     -- 'trace' (no counters) or 'profile' (counters on sampled launches)
    options            TEXT,     -- JSON object of the collector options in force (sampling, filters, metrics)
    metric_set         TEXT,     -- JSON array of the metric names requested for profiled launches
    profiling_limited  TEXT,     -- NULL when counters worked; else why they are missing or partial (human readable)
    clean_exit         INTEGER,  -- 1 when the collector flushed and closed at exit; 0/NULL after a crash or kill, 0 when the writer lost records ('writer_error' event)
    records_dropped    INTEGER DEFAULT 0, -- records dropped because the collector's queue was full
    activity_dropped   INTEGER DEFAULT 0, -- records CUPTI itself reported dropped (cuptiActivityGetNumDroppedRecords)
    ranges_dropped     INTEGER DEFAULT 0  -- profiled ranges discarded because CUPTI's ranges and our launches disagreed
);

-- Notable events of the collector: why something was not done.
-- The analyzer and `doctor` read it; `gpuhier run` prints warnings from it.
CREATE TABLE event (
    id        INTEGER PRIMARY KEY,
    time_ns   INTEGER,  -- when it happened
    level     TEXT,     -- 'info', 'warning', 'error'
    code      TEXT,     -- stable machine-readable code, e.g. 'cupti_subscribe_failed', 'no_counter_permission', 'capture_skip'
                        -- (the collector's codes are listed in docs/collector.md); 'writer_error': the report
                        -- stopped taking writes (message: the first SQLite failure and how many records
                        -- after it are not in the report; docs/collector.md "When the writer fails")
    message   TEXT      -- human-readable explanation
);

-- (added: merge) The ranks of a job report: `gpuhier merge` combines the
-- reports of a job's processes (one per rank, docs/collector.md "Jobs of
-- several processes") into one report with every table of sections 1-3.
-- Why this shape, rather than a `rank` column in every table:
--   * every table is keyed by rank through its ids: a row of rank R that
--     has an id (run, event, device, config, launch, launch_failure,
--     nvtx_range, copy, allocation) gets id R * 4294967296 + its id in its
--     own report, so `id >> 32` is its rank in any query, and the ids of
--     different ranks never meet. Columns that point at those rows
--     (launch_id, config_id, device_id, nvtx_range.parent_id; kernel_id
--     and metric_id excepted, below) are moved by the same amount:
--     launch.id >> 32, config.id >> 32, copy.id >> 32 and device.id >> 32
--     all give the rank. Rank 0 keeps its own ids unchanged. CUPTI's
--     per-process numbers (context_id, stream_id, correlation_id,
--     grid_id, graph_id, graph_node_id) and OS thread ids keep their
--     values: they are meaningful with the row's rank (stream 7 of rank 3
--     is (id >> 32, stream_id)), and moving them would cost each launch
--     about 20 bytes.
--   * kernel and metric_name are dictionaries shared by all ranks (one row
--     per mangled name, one per metric name): a kernel that runs on every
--     rank is one kernel of the job, so every reader (analyze, tui,
--     report, export, check, diff) reads a merged report as it reads one
--     process's, unchanged: per-kernel totals are the job's, and
--     configurations, being per device, stay per rank. The code tables of
--     version 2 (cubin, sass_function, source_file, sass_line) are
--     dictionaries too: ranks that ran one cubin share its functions and
--     line table; inst_launch and inst_count stay per rank.
--   * the schema's tables keep their columns, so a merged report opens
--     with every reader of this schema version, and readers of version-1
--     reports (the demo) need nothing new; only the cross-rank views
--     (rank_summary, rank_kernel, rank_finding) are new.
-- meta of a merged report: created_by 'merge'; 'provenance' says how many
-- reports were merged and what they were (inputs that were synthetic say
-- so: the provenance then starts with 'synthetic'); 'merged_ranks' the
-- number of ranks; every other key of the inputs is kept when all inputs
-- agree on it, else its value is 'varies by rank' (each rank's own value
-- is in rank_meta), so e.g. 'alloc_tracking' is 'on' only when it was on
-- in every rank. The inputs' analysis tables are not copied: a merged
-- report is analyzed as a whole.
CREATE TABLE job_rank (
    rank          INTEGER PRIMARY KEY, -- the process's rank in the job (its report's meta 'rank')
    local_rank    INTEGER,  -- its rank on its host (meta 'local_rank'), NULL if not recorded
    world_size    INTEGER,  -- processes in the job (meta 'world_size'), NULL if not recorded
    rank_source   TEXT,     -- the launcher the rank came from (meta 'rank_source')
    host          TEXT,     -- run.host of the rank's report
    pid           INTEGER,  -- run.pid of the rank's report
    run_id        INTEGER,  -- its run row (rank * 4294967296 + 1)
    source_path   TEXT,     -- the report it was merged from, as named on merge's command line
    source_schema INTEGER,  -- that report's PRAGMA user_version
    launches      INTEGER   -- launch rows merged from it
);

-- (added: merge) Every meta row of every merged report, by rank.
CREATE TABLE rank_meta (
    rank   INTEGER NOT NULL, -- job_rank.rank
    key    TEXT NOT NULL,    -- the meta key in that rank's report
    value  TEXT,             -- its value there
    PRIMARY KEY (rank, key)
) WITHOUT ROWID;

-- ===================================================================
-- 2. Devices, kernels, launches, metrics
-- ===================================================================

-- One row per CUDA device the process used (id = CUDA device ordinal).
CREATE TABLE device (
    id                            INTEGER PRIMARY KEY, -- CUDA device ordinal (CUPTI deviceId)
    name                          TEXT,     -- marketing name, e.g. 'NVIDIA H200'
    chip                          TEXT,     -- profiler chip name, e.g. 'GH100'
    uuid                          TEXT,     -- device UUID (hex)
    cc_major                      INTEGER,  -- compute capability major
    cc_minor                      INTEGER,  -- compute capability minor
    sm_count                      INTEGER,  -- streaming multiprocessors
    warp_size                     INTEGER,  -- threads per warp (32)
    max_threads_per_block         INTEGER,
    max_threads_per_sm            INTEGER,
    max_warps_per_sm              INTEGER,
    max_blocks_per_sm             INTEGER,
    regs_per_sm                   INTEGER,  -- 32-bit registers per SM
    regs_per_block                INTEGER,  -- 32-bit registers per block
    reg_alloc_unit                INTEGER,  -- registers allocated per warp in units of this many (256 on sm_90)
    smem_per_sm_bytes             INTEGER,  -- shared memory per SM (maximum carveout)
    smem_per_block_bytes          INTEGER,  -- shared memory per block without opt-in (48 KB)
    smem_per_block_optin_bytes    INTEGER,  -- shared memory per block with cudaFuncSetAttribute opt-in
    smem_reserved_per_block_bytes INTEGER,  -- shared memory the driver reserves per block (1 KB on sm_90)
    l1_smem_per_sm_bytes          INTEGER,  -- combined L1 + shared memory per SM (256 KB on sm_90), NULL if unknown
    l2_bytes                      INTEGER,  -- L2 cache size
    global_mem_bytes              INTEGER,  -- device memory size
    sm_clock_khz                  INTEGER,  -- SM clock (max)
    mem_clock_khz                 INTEGER,  -- memory clock (peak)
    mem_bus_width_bits            INTEGER,  -- memory bus width
    peak_dram_bw_bytes_per_s      REAL,     -- datasheet formula: 2 * mem_clock * bus_width / 8
    measured_copy_bw_bytes_per_s  REAL,     -- device-to-device copy bandwidth (read + write bytes / time), from `doctor --calibrate`
    pcie_gen                      INTEGER,  -- host link generation, NULL if unknown
    pcie_width                    INTEGER,  -- host link lanes, NULL if unknown
    is_mig                        INTEGER   -- 1 if a MIG instance
);

-- One row per distinct kernel function (by mangled name).
CREATE TABLE kernel (
    id              INTEGER PRIMARY KEY,
    mangled_name    TEXT NOT NULL UNIQUE, -- name as in the cubin (may be unmangled for extern "C")
    demangled_name  TEXT,                 -- full demangled signature (or mangled_name when not a C++ name)
    short_name      TEXT,                 -- demangled name without parameter list and template arguments
    source_file     TEXT,                 -- file of the function's first instruction (needs -lineinfo), NULL otherwise
    source_line     INTEGER               -- its line
);

-- One row per launch configuration: (kernel, grid, block, dynamic shared
-- memory) as DESIGN.md defines it, plus the function attributes seen with it.
-- Written by the collector; `launches` and `total_ns` are maintained as
-- launches arrive.
CREATE TABLE config (
    id                        INTEGER PRIMARY KEY,
    kernel_id                 INTEGER NOT NULL REFERENCES kernel(id),
    device_id                 INTEGER REFERENCES device(id),
    grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,      -- grid dimensions (blocks)
    block_x INTEGER, block_y INTEGER, block_z INTEGER,   -- block dimensions (threads)
    cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER, -- cluster dimensions (1,1,1 or 0 when none)
    dynamic_smem_bytes        INTEGER,  -- dynamic shared memory per block
    static_smem_bytes         INTEGER,  -- static shared memory per block
    registers_per_thread      INTEGER,
    local_bytes_per_thread    INTEGER,  -- local memory per thread as the compiler declared it (may be 0 while local traffic exists); NULL while only replayed (profiled) launches of the configuration were recorded: their activity record reads 0
    carveout_bytes            INTEGER,  -- shared memory per SM the driver configured for these launches (sharedMemoryExecuted of the first complete kernel record); NULL when every launch of the configuration was replayed by the profiler (incomplete records read 0)
    threads_per_block         INTEGER,  -- block_x*block_y*block_z
    blocks                    INTEGER,  -- grid_x*grid_y*grid_z
    theoretical_occupancy_pct REAL,     -- active warps per SM / max warps per SM, from the occupancy calculator
    blocks_per_sm             INTEGER,  -- resident blocks per SM the calculator allows
    occupancy_limiter         TEXT,     -- 'registers', 'shared_memory', 'warps', 'blocks', 'clusters' (the binding limit)
    waves                     REAL,     -- blocks / (blocks_per_sm * sm_count)
    launches                  INTEGER DEFAULT 0, -- traced launches of this configuration
    total_ns                  INTEGER DEFAULT 0, -- sum of their durations (traced launches only)
    UNIQUE (kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes)
);

-- One row per traced kernel launch (CUPTI CONCURRENT_KERNEL record).
CREATE TABLE launch (
    id                INTEGER PRIMARY KEY,
    kernel_id         INTEGER NOT NULL REFERENCES kernel(id),
    config_id         INTEGER REFERENCES config(id),
    device_id         INTEGER,
    context_id        INTEGER,   -- CUPTI context id
    stream_id         INTEGER,   -- CUPTI stream id
    correlation_id    INTEGER,   -- CUPTI correlation id (driver or runtime API call that launched it)
    grid_id           INTEGER,   -- CUPTI gridId (unique per launch within a context)
    start_ns          INTEGER,   -- kernel start on the GPU
    end_ns            INTEGER,   -- kernel end on the GPU
    graph_id          INTEGER,   -- CUDA graph id when launched from a graph, else NULL
    graph_node_id     INTEGER,   -- graph node id, else NULL
    launch_type       INTEGER,   -- CUpti_ActivityLaunchType (0 regular, 1 cooperative single, 2 cooperative multi, 3 CBL commandlist)
    is_device_launched INTEGER,  -- 1 for dynamic-parallelism launches
    config_launch_index INTEGER, -- 0-based index of this launch among launches of its configuration
    nvtx_path         TEXT,      -- NVTX ranges open on the launching thread, outermost first, joined by ' > '
    profiled          INTEGER DEFAULT 0, -- 1 if hardware counters were collected for this launch (kernel replay)
    profile_reason    TEXT,      -- why it was or wasn't profiled: 'first_of_config', 'sample_every', 'sample_all', 'sampled_out', 'filtered_name', 'filtered_nvtx', 'skip_count', 'stream_capture', 'graph', 'comm_kernel' (waits on other ranks: NCCL, NVSHMEM kernels; traced, not profiled unless --kernel names it, docs/sampling.md), 'not_replayable', 'profiler_unavailable', 'mode_trace', 'batch_dropped', 'profile_budget' (deferred by the profiling budget to a later launch of its configuration: --profile-budget, the one-pass groups' allowance and budget, a later group waiting while the program still shows new configurations, or a group waiting for its run (group runs, the default since 2026-12-04); docs/sampling.md), 'counters_busy' (chosen while the hardware counters were held by another process or tool: deferred, retried at a later launch of its configuration), 'instrumented' (GPUHIER_INSTRUMENT=1 or both: given to the instrumentation engine, or a kernel node of a graph launch it served, its exact per-instruction counts in inst_count; no start_ns/end_ns, its code ran patched), 'extra_metrics' (--replay kernel: a later launch of a configuration profiled again for the extra metric groups its first profile asked for, see docs/metrics.md), 'metric_group' (a later launch of a configuration profiled for the next one-pass group of the plan; the first group's launch is 'first_of_config'; docs/metrics.md "One-pass groups"), 'instrumentation_window' (GPUHIER_INSTRUMENT=phased: chosen while the instrumentation window was open, for a configuration already instrumented; given back, its configuration chosen again after the window, docs/collector.md "The instrumentation window")
    api_ns            INTEGER    -- (added: allocation footprint) when the launching driver API call was entered, CUPTI clock (host side); set for profiled launches only, whose start_ns/end_ns stay NULL under replay; NULL otherwise
);
CREATE INDEX launch_by_kernel ON launch(kernel_id);
CREATE INDEX launch_by_config ON launch(config_id);
CREATE INDEX launch_by_api ON launch(api_ns) WHERE api_ns IS NOT NULL; -- (added: allocation footprint) the few stamped launches, for v_launch_footprint

-- Dictionary of metric names (keeps per-launch metric rows small).
CREATE TABLE metric_name (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE  -- full Perfworks metric name, e.g. 'dram__bytes_read.sum'
);

-- Per profiled launch: how it was profiled.
CREATE TABLE profile (
    launch_id   INTEGER PRIMARY KEY REFERENCES launch(id),
    passes      INTEGER,  -- replay passes the config image needed (1 for a one-pass group: nothing replayed)
    metric_set  TEXT,     -- what was collected: 'groupK/N' (the default since issue 18: one-pass group K of a plan of N, one per profiled launch under user replay, no kernel replay; v_config_groups), 'core' (--replay kernel: the core set), 'metrics' (--metric-set none: only --metrics), or 'tie+GROUP[+GROUP...]' (--replay kernel's extras profile: the extra groups with the tie set, duration, warp instructions and global load/store sectors, that joins it to the configuration's core profile; see docs/metrics.md)
    duration_ns INTEGER,  -- gpu__time_duration.sum as the range measured it (serialized; not used for time estimates when traced launches exist); for a kept session's user range (GPUHIER_DIAG_SESSION=kept) the range's span from its push to its pop, while the metric row holds the kernel's own duration (meta profiles_rescaled)
    overhead_ns INTEGER   -- wall time the profiler spent on this launch (replay + decode), CPU clock
);

-- Metric values of profiled launches, one row per (launch, metric).
CREATE TABLE metric (
    launch_id  INTEGER NOT NULL REFERENCES launch(id),
    metric_id  INTEGER NOT NULL REFERENCES metric_name(id),
    value      REAL,      -- value as EvaluateToGpuValues returned it, in the metric's own unit
    PRIMARY KEY (launch_id, metric_id)
) WITHOUT ROWID;

-- Launches the driver refused (e.g. > 48 KB dynamic shared memory without opt-in).
CREATE TABLE launch_failure (
    id                 INTEGER PRIMARY KEY,
    time_ns            INTEGER,  -- host time of the failed call
    api                TEXT,     -- 'cuLaunchKernel', 'cuLaunchKernelEx', 'cudaLaunchKernel', ...
    kernel_name        TEXT,     -- mangled name of the kernel it tried to launch
    kernel_id          INTEGER REFERENCES kernel(id), -- when the kernel is known
    error_code         INTEGER,  -- CUresult / cudaError_t value returned
    error_name         TEXT,     -- e.g. 'CUDA_ERROR_INVALID_VALUE'
    grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
    block_x INTEGER, block_y INTEGER, block_z INTEGER,
    dynamic_smem_bytes INTEGER,  -- dynamic shared memory requested
    max_dynamic_smem_bytes INTEGER, -- the function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES when known
    thread_id          INTEGER   -- OS thread id of the caller
);

-- NVTX ranges (push/pop and start/end) per thread.
CREATE TABLE nvtx_range (
    id         INTEGER PRIMARY KEY,
    thread_id  INTEGER,  -- OS thread id (push/pop) or NULL for start/end ranges
    domain     TEXT,     -- NVTX domain name, NULL for the default domain
    name       TEXT,     -- range message
    start_ns   INTEGER,
    end_ns     INTEGER,  -- NULL if never closed
    depth      INTEGER,  -- nesting depth (0 = outermost) for push/pop
    parent_id  INTEGER   -- enclosing range
);

-- ===================================================================
-- 2b. Per-instruction counts (version 2; runs: version 3): the instrumentation engine
-- ===================================================================
--
-- The instrumentation engine (CUPTI's SASS metrics API, docs/collector.md)
-- counts, for one launch of a configuration, every SASS instruction's
-- pattern metrics: executed instructions, global sectors against their
-- ideal, shared wavefronts against their ideal, local traffic, access
-- widths, divergent branch targets. The counts are exact (no sampling, no
-- replay) and depend only on the code and its inputs, not on what the
-- caches held. The report keeps:
--   * the counts in one long table (inst_count: launch, function, pc,
--     metric, value), not one column per metric: CUPTI offers 60 SASS
--     metrics on GH100 and the collector may ask for any of them (the
--     range profiler's `metric` table made the same choice); a long table
--     of small integers, WITHOUT ROWID and with zero counts left out, is
--     as compact as fixed columns for the dozen metrics most instructions
--     have, and v_inst pivots the ones rules read into named columns;
--     executed warp and thread instructions, which every instruction of a
--     basic block shares, are kept as runs of equal counts (inst_run);
--   * the line table of every cubin an instrumented function came from,
--     keyed by the cubin's CRC (sass_function, sass_line, source_file):
--     the (function, pc) -> (file, line) map and the SASS text, not the
--     cubin itself. A report read on another machine, without the program,
--     its cubins or CUDA, still maps every pc to its line and instruction;
--     the cubin (megabytes, the program's code) is not needed for that and
--     is not the profiler's to copy;
--   * never the source files' text: readers show it when the file is
--     readable under the working directory or run.cwd, else file:line.

-- (version 2) One row per cubin (module image) an instrumented function
-- came from, captured by the collector at module load.
CREATE TABLE cubin (
    crc           INTEGER PRIMARY KEY, -- CUPTI's cubin CRC (cuptiGetCubinCrc), the key of the line table
    bytes         INTEGER,             -- size of the cubin, bytes
    sm_arch       INTEGER,             -- the SASS architecture it holds, e.g. 90
    has_lineinfo  INTEGER              -- 1 when built with -lineinfo or -G (sass_line has file and line), 0 without, NULL when unknown
);

-- (version 2) One row per device function (kernel or non-inlined device
-- function) of a cubin that instrumented counts name.
CREATE TABLE sass_function (
    id         INTEGER PRIMARY KEY,
    cubin_crc  INTEGER NOT NULL REFERENCES cubin(crc), -- the cubin holding it
    name       TEXT NOT NULL,                           -- mangled function name as in the cubin (untrusted)
    kernel_id  INTEGER REFERENCES kernel(id),           -- the kernel when the function is one, NULL for a device function
    UNIQUE (cubin_crc, name)
);

-- (version 2) Source files the line table names.
CREATE TABLE source_file (
    id    INTEGER PRIMARY KEY,
    path  TEXT NOT NULL UNIQUE -- as the compiler recorded it (absolute, or relative to the build directory; untrusted)
);

-- (version 2) The line table and the SASS text, per cubin (through the
-- function): one row per instruction of an instrumented function whose
-- line is known. An instruction without line info (a library built
-- without -lineinfo) has no row from the collector (reports written
-- before this change of 2026-12-03 have one with file_id and line NULL; readers take a
-- missing row and NULLs alike: v_inst joins with LEFT JOIN); sass is
-- NULL when the collector could not disassemble it (it never can: no
-- disassembler), and set only by synthetic reports.
CREATE TABLE sass_line (
    function_id  INTEGER NOT NULL REFERENCES sass_function(id),
    pc           INTEGER NOT NULL,             -- byte offset of the instruction from the function's start (CUPTI pcOffset)
    file_id      INTEGER REFERENCES source_file(id), -- source file of the instruction (cuptiGetSassToSourceCorrelation), NULL without line info
    line         INTEGER,                      -- its line, 1-based
    sass         TEXT,                         -- the instruction's SASS text, e.g. 'LDG.E R4, desc[UR4][R2.64]' (untrusted)
    PRIMARY KEY (function_id, pc)
) WITHOUT ROWID;

-- (version 2) One row per instrumented launch: which launch and
-- configuration the counts of inst_count came from.
-- A graph launch (cuGraphLaunch) is instrumented as a whole: CUPTI's
-- counts come per function, not per kernel node, so each function's
-- counts go to one row keyed by the launch row of the first kernel node
-- of that function in the graph launch (reason 'graph', graph_corr the
-- cuGraphLaunch's correlation id, which every node's launch row carries
-- as launch.correlation_id; graph_nodes the nodes of that function whose
-- counts are summed); a function no node names (a device function) is
-- counted under the launch's first node. A graph launch's overhead_ns is
-- on its first row, NULL on the others.
CREATE TABLE inst_launch (
    launch_id    INTEGER PRIMARY KEY REFERENCES launch(id), -- the instrumented launch
    config_id    INTEGER REFERENCES config(id),             -- its configuration
    kernel_id    INTEGER REFERENCES kernel(id),             -- its kernel
    reason       TEXT,     -- why this launch: 'first_of_config' (the default), 'inst_deferred' (added: 2026-12-05; the third or a later launch of a configuration whose first came past the engine's allowance, instrumented when its price fit what the budget had left: docs/sampling.md "The instrumentation engine's price"), 'sample_every', 'sample_all', 'graph' (a kernel node of a CUDA graph)
    overhead_ns  INTEGER,  -- wall time instrumentation added to the launch (enable, run, flush, decode), CPU clock, ns
    graph_corr   INTEGER,  -- (added: graph instrumentation) the cuGraphLaunch's correlation id when the counts are a graph launch's, NULL for a stream launch
    graph_nodes  INTEGER   -- (added: graph instrumentation) kernel nodes of this row's kernel in that graph launch, whose counts inst_count sums; NULL for a stream launch
);
CREATE INDEX inst_launch_by_config ON inst_launch(config_id);

-- (version 2) Per-instruction counts of instrumented launches, one row
-- per (launch, function, pc, metric) with a non-zero value: a missing row
-- of an instrumented launch reads 0, not unknown (executed warp and
-- thread instructions: inst_run's runs instead, version 3, unless the
-- writer left them here). metric_id names a CUPTI
-- SASS metric in metric_name without a rollup suffix (e.g.
-- 'smsp__sass_sectors_mem_global'); docs/metrics.md lists those the
-- collector asks for, v_inst the ones rules read. Values are exact counts
-- over the whole launch, in the metric's unit: warp instructions
-- ('smsp__sass_inst_executed'), thread instructions
-- ('smsp__sass_thread_inst_executed'; not asked since 2026-12-06, so
-- v_inst's thread_inst_executed is NULL in later reports), 32-byte sectors
-- ('smsp__sass_sectors_mem_global', '..._ideal': the fewest sectors the
-- bytes the warp requested could take), shared-memory wavefronts
-- ('smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared', '..._ideal'),
-- instructions by access width ('smsp__sass_inst_executed_op_memory_32b'),
-- branch targets ('smsp__sass_branch_targets_threads_divergent').
-- Since version 4, a row of metric 'gpuhier_inst_implied' (not a CUPTI metric)
-- holds a bit mask: bit b set means the instruction's count of metric b
-- below equals its count of that metric's base at the same pc and has no
-- row of its own (the writer's store_inst_implied(), schema/store_inst.c).
-- The bits, fixed for every report:
--    0 ..._op_global_ld    1 ..._op_global_st    2 ..._op_shared_ld
--    3 ..._op_shared_st    4 ..._op_local_ld     5 ..._op_local_st
--    6 ..._op_memory_8b    7 ..._op_memory_16b   8 ..._op_memory_32b
--    9 ..._op_memory_64b  10 ..._op_memory_128b 11 ..._op_ldgsts
--   12 ..._op_tma (each 'smsp__sass_inst_executed...', base
--      'smsp__sass_inst_executed': the instruction's executed warp
--      instructions, in inst_run or here);
--   13 'smsp__sass_sectors_mem_global_ideal', base
--      'smsp__sass_sectors_mem_global';
--   14 'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal', base
--      'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared'.
-- A kind count is at most the executed count (a warp whose every thread
-- the predicate turned off executes the instruction without a load), so
-- one that is smaller keeps its row. v_inst adds the implied counts; a
-- reader summing inst_count itself adds, for each mask row and bit, the
-- base's count at that pc.
-- Since version 5, a mask row also carries one count of its instruction, the
-- first it has of: 1 'smsp__sass_sectors_mem_global', 2
-- 'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared', 3
-- 'smsp__sass_sectors_mem_local'; that count then has no row of its own.
-- The value is mask | k << 15 | count << 17: value & 32767 is the mask,
-- (value >> 15) & 3 is k (0: nothing carried), value >> 17 the count. A
-- count of 2^46 or more keeps its row (the writer's store_inst_implied()).
-- So a memory instruction at its ideal is one row, its mask, where
-- version 4 wrote two (docs/collector.md "Implied counts"). A reader summing
-- inst_count itself reads the mask and the carried count out of the value
-- as v_inst does.
CREATE TABLE inst_count (
    launch_id    INTEGER NOT NULL REFERENCES inst_launch(launch_id),
    function_id  INTEGER NOT NULL REFERENCES sass_function(id),
    pc           INTEGER NOT NULL,  -- as sass_line.pc
    metric_id    INTEGER NOT NULL REFERENCES metric_name(id),
    value        INTEGER NOT NULL,  -- the count, in the metric's unit
    PRIMARY KEY (launch_id, function_id, pc, metric_id)
) WITHOUT ROWID;

-- (version 3) Runs of equal per-instruction counts: the form inst_count's
-- rows of 'smsp__sass_inst_executed' and 'smsp__sass_thread_inst_executed'
-- take once a launch's counts are written (the collector's writer turns
-- them into runs, store_inst_runs(); docs/collector.md "Report size"). A
-- row says: every instruction from pc up to, not including, the pc of
-- the next row of the same launch, function and metric executed `value`
-- times. SASS instructions are 16 bytes (sm_70 and later, every
-- architecture the SASS metrics API serves), so a run from pc a to b
-- covers the (b - a) / 16 instructions a, a + 16, ... The last row of a
-- (launch, function, metric) has value 0 and only ends the run before
-- it; a run of value 0 is instructions that never executed (inst_count
-- has no row for them either). Expanded, the runs are exactly the
-- inst_count rows they replace: v_inst reads both tables and sums the
-- two, so a launch whose counts a writer left per instruction (a report
-- of version 2, or one whose pcs were not all multiples of 16) reads the
-- same. On the H200's PyTorch benchmark (2026-12-05) the 145 instrumented
-- launches' executed instructions made 3,613 runs of warp and 3,622 of
-- thread instructions, where version 2 wrote about 52,000 rows of each.
CREATE TABLE inst_run (
    launch_id    INTEGER NOT NULL REFERENCES inst_launch(launch_id),
    function_id  INTEGER NOT NULL REFERENCES sass_function(id),
    metric_id    INTEGER NOT NULL REFERENCES metric_name(id),
    pc           INTEGER NOT NULL,  -- the run's first instruction (as sass_line.pc)
    value        INTEGER NOT NULL,  -- the count of each of its instructions, in the metric's unit
    PRIMARY KEY (launch_id, function_id, metric_id, pc)
) WITHOUT ROWID;

-- ===================================================================
-- 3. Host <-> device copies
-- ===================================================================

-- One row per memcpy or memset (CUPTI MEMCPY/MEMSET records, joined with
-- the pointers seen in the API callback).
CREATE TABLE copy (
    id              INTEGER PRIMARY KEY,
    op              TEXT,     -- 'memcpy' or 'memset'
    copy_kind       TEXT,     -- 'HtoD', 'DtoH', 'DtoD', 'HtoH', 'PtoP', 'HtoA', 'AtoH', ... ; NULL for memset
    src_kind        TEXT,     -- 'pageable', 'pinned', 'device', 'managed', 'array', 'unknown'
    dst_kind        TEXT,     -- same vocabulary
    src_ptr         INTEGER,  -- source address from the API call (NULL when unknown)
    dst_ptr         INTEGER,  -- destination address
    bytes           INTEGER,
    start_ns        INTEGER,  -- GPU clock, ns; NULL (with end_ns) when CUPTI's record had no times (event 'copies_untimed')
    end_ns          INTEGER,
    device_id       INTEGER,
    context_id      INTEGER,
    stream_id       INTEGER,
    correlation_id  INTEGER,
    graph_id        INTEGER,
    is_async        INTEGER,  -- 1 when issued by an async API
    api             TEXT      -- API name when known, e.g. 'cudaMemcpy'
);
CREATE INDEX copy_by_start ON copy(start_ns);

-- (added: allocation footprint) One row per device memory allocation or
-- release the process made (CUPTI MEMORY2 records: cudaMalloc/cuMemAlloc,
-- cudaMallocManaged, cudaMallocAsync and other memory-pool allocations,
-- cudaHostAlloc, arrays, and the module-level __device__ variables CUPTI
-- reports as static). Meaningful only when meta 'alloc_tracking' = 'on'.
-- Never here: the driver's local-memory (spill) reservation. Maybe not
-- here: memory mapped with the virtual-memory API (cuMemMap), opened from
-- another process (IPC) or from graph memory nodes; a program that uses
-- those gets meta 'alloc_tracking' = 'off: ...'.
CREATE TABLE allocation (
    id              INTEGER PRIMARY KEY,
    op              TEXT,     -- 'alloc' or 'release'
    memory_kind     TEXT,     -- 'device', 'device_static' (a module's __device__ variable), 'managed', 'managed_static', 'pinned', 'pageable', 'array', 'unknown'
    address         INTEGER,  -- virtual address of the allocation (a release names the address it frees)
    bytes           INTEGER,  -- size of the allocation, bytes (a release carries the size of what it frees)
    time_ns         INTEGER,  -- when the operation happened, CUPTI clock (same clock as launch.api_ns)
    device_id       INTEGER,  -- device of the memory
    context_id      INTEGER,  -- CUPTI context id
    stream_id       INTEGER,  -- stream of a stream-ordered (async) operation, NULL otherwise
    correlation_id  INTEGER,  -- CUPTI correlation id of the API call that made it
    is_async        INTEGER,  -- 1 for stream-ordered APIs (cudaMallocAsync, cudaFreeAsync)
    pool            TEXT,     -- memory pool: NULL (none), 'local', 'imported'
    name            TEXT      -- variable name for static allocations, else NULL (untrusted)
);
CREATE INDEX allocation_by_time ON allocation(device_id, time_ns);

-- (added: host arguments) One row per pointer argument of a launch that
-- points into page-locked host memory, which a kernel reaches over the
-- host link at every access (zero-copy: cudaHostAlloc/cuMemHostAlloc,
-- cudaMallocHost, cudaHostRegister; the driver's
-- CU_POINTER_ATTRIBUTE_MEMORY_TYPE says CU_MEMORYTYPE_HOST). The
-- collector looks at the launches the engines serve (launch.profiled or
-- an inst_launch row), outside stream capture, at each 8-byte word of
-- the parameters (cuFuncGetParamInfo): a pointer passed directly or a
-- pointer field of a structure passed by value (param_index is then the
-- structure's, range_bytes the sum of the distinct allocations it points
-- into), up to 2 KB of parameters a launch. Meta 'host_args' = 'on' when
-- it looked.
CREATE TABLE launch_host_arg (
    launch_id    INTEGER NOT NULL REFERENCES launch(id),
    param_index  INTEGER NOT NULL,  -- the kernel's parameter, from 0
    range_bytes  INTEGER,           -- size of the host allocation it points into (CU_POINTER_ATTRIBUTE_RANGE_SIZE), NULL unknown
    PRIMARY KEY (launch_id, param_index)
) WITHOUT ROWID;

-- (added: unified memory) One row per unified-memory event the driver
-- reported for managed memory (CUPTI UNIFIED_MEMORY_COUNTER records): page
-- migrations between host and device, CPU page faults, and the thrashing
-- and throttling the driver detected. GPU page faults are not asked for
-- (their records cost the faulting program most; Nsight Systems leaves them
-- off by default too): a kernel that faults shows as the host-to-device
-- migrations its faults caused, inside its own time. Meaningful only when
-- meta 'um_tracking' starts with 'on' (it says which kinds were asked);
-- 'off: ...' says why not (an older CUPTI, or a platform without the
-- driver's unified-memory events).
CREATE TABLE um_event (
    id          INTEGER PRIMARY KEY,
    kind        TEXT,     -- 'htod' / 'dtoh' (a migration), 'cpu_fault', 'thrashing', 'throttling', 'remote_map', 'dtod'
    start_ns    INTEGER,  -- CUPTI clock (as launch.start_ns): a migration's start on the GPU, the driver's start for the others
    end_ns      INTEGER,  -- a migration's end on the GPU, a throttling's end; NULL for the instantaneous kinds
    value       INTEGER,  -- bytes: of a migration, or of the region a 'thrashing' or 'remote_map' concerns; NULL for the others (one row is one CPU fault)
    address     INTEGER,  -- virtual address of the first page concerned
    src_id      INTEGER,  -- the source processor (device id, or CPU), as CUPTI numbers it
    dst_id      INTEGER,  -- the destination processor of a migration or remote map
    cause       TEXT      -- a migration's cause: 'user' (an explicit prefetch or copy), 'coherence' (a page fault or access), 'prefetch' (the driver's), 'eviction', 'access_counters'; else NULL
);
CREATE INDEX um_event_by_start ON um_event(start_ns);

-- ===================================================================
-- 4. Analysis (written only by `gpuhier analyze`)
-- ===================================================================

-- One row per analysis: which rule set produced the findings in this file.
CREATE TABLE analysis (
    id               INTEGER PRIMARY KEY,
    ruleset_version  TEXT,    -- hash/version of the rule files used
    tool_version     TEXT,
    analyzed_ns      INTEGER, -- when (CLOCK_REALTIME ns)
    run_gpu_ns       INTEGER, -- GPU time of the run, ns: traced kernel time (profiled launches counted at their configuration's traced mean) plus copy and memset time; the denominator of every share_pct and of severity; kernels that wait (kernel_summary.bound_tier 'waiting') are left out
    rules_dir        TEXT     -- where rules were read from
);

-- One row per rule per analysis: did it run, and if not why.
CREATE TABLE rule_run (
    rule_id   TEXT PRIMARY KEY, -- rule identifier, e.g. 'spill-local-traffic'
    title     TEXT,
    tier      TEXT,
    status    TEXT,   -- 'ran', 'skipped'
    note      TEXT,   -- why skipped, e.g. "metric 'lts__t_sectors_aperture_sysmem.sum' not in report"
    findings  INTEGER -- how many findings it produced
);

-- Findings, ranked. One row per (rule, kernel configuration) or per run-level object.
CREATE TABLE finding (
    id                 INTEGER PRIMARY KEY,
    rank               INTEGER,  -- 1 = most time lost across the run
    rule_id            TEXT NOT NULL,
    title              TEXT,     -- rule title
    tier               TEXT,     -- 'registers', 'shared', 'l1', 'l2', 'dram', 'host'
    severity           TEXT,     -- 'error', 'warning', 'note'
    kernel_id          INTEGER REFERENCES kernel(id), -- NULL for run-level findings (copies)
    config_id          INTEGER REFERENCES config(id), -- NULL when it concerns the whole kernel
    message            TEXT,     -- one-sentence statement with the numbers
    remedy             TEXT,     -- what to change
    doc_ref            TEXT,     -- references behind the rule, e.g. 'CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory"'
    time_lost_ns_per_launch REAL, -- estimated time lost per launch (after capping)
    time_lost_ns       REAL,     -- estimated over all traced launches concerned (after capping)
    time_lost_raw_ns   REAL,     -- the rule's estimate before per-kernel capping
    share_pct          REAL,     -- time_lost_ns / run GPU time * 100
    launches           INTEGER,  -- traced launches concerned
    profiled_launch_id INTEGER   -- the profiled launch whose counters are the evidence
);

-- Evidence of a finding: metric values against the rule's thresholds.
CREATE TABLE finding_evidence (
    finding_id  INTEGER NOT NULL REFERENCES finding(id),
    seq         INTEGER NOT NULL,  -- display order
    name        TEXT NOT NULL,     -- evidence name, e.g. 'sectors_per_request'
    value       REAL,
    text_value  TEXT,              -- for non-numeric evidence
    unit        TEXT,              -- e.g. 'sectors', '%', 'ns', 'bytes'
    threshold   REAL,              -- the rule threshold it was compared with, NULL if informative
    op          TEXT,              -- comparison that fires: '>', '>=', '<', '<='
    PRIMARY KEY (finding_id, seq)
) WITHOUT ROWID;

-- Per-kernel (config_id NULL) and per-configuration summaries: the floor,
-- bytes per tier, occupancy. Readers (TUI, exports, diff) use these
-- instead of scanning launches.
CREATE TABLE kernel_summary (
    id                        INTEGER PRIMARY KEY,
    kernel_id                 INTEGER NOT NULL REFERENCES kernel(id),
    config_id                 INTEGER REFERENCES config(id), -- NULL: all configurations of the kernel
    launches                  INTEGER,  -- traced launches
    profiled_launches         INTEGER,
    total_ns                  INTEGER,  -- sum of traced durations
    mean_ns                   REAL,
    min_ns                    INTEGER,
    max_ns                    INTEGER,
    share_pct                 REAL,     -- total_ns / run GPU time * 100; NULL for a kernel that waits (bound_tier 'waiting'), whose time is not in the run's GPU time
    shared_bytes              REAL,     -- shared-memory bytes moved (wavefronts * 128), per launch
    l1_bytes                  REAL,     -- L1 (LSU global+local) sector bytes, per launch
    l2_bytes                  REAL,     -- L2 sector bytes (L1<->L2 traffic incl. TMA/LDGSTS), per launch
    dram_bytes                REAL,     -- device-memory bytes read + written, per launch
    host_bytes                REAL,     -- system-memory (host link) bytes seen by L2, per launch
    local_bytes               REAL,     -- local-memory (spill) sector bytes, per launch
    requested_bytes           REAL,     -- bytes requested by global load/store instructions, per launch (an atomic's or reduction's twice, read and written: since 2026-12-07)
    useful_bytes              REAL,     -- the floor's numerator: min(requested (+ TMA/LDGSTS) bytes, dram_bytes), or the DRAM bytes when most traffic was unseen (docs/analyzer.md "The floor")
    floor_ns                  REAL,     -- useful_bytes / peak_dram_bw (datasheet)
    floor_measured_ns         REAL,     -- useful_bytes / measured copy bandwidth
    floor_ratio               REAL,     -- mean_ns / floor_ns; NULL for a kernel that waits (bound_tier 'waiting'): its time is the wait's
    floor_ratio_measured      REAL,     -- mean_ns / floor_measured_ns; NULL for a kernel that waits
    bound_tier                TEXT,     -- tier whose traffic bounds the kernel: 'registers','shared','l1','l2','dram','host', or 'compute' (instruction issue), 'tensor'/'fma'/'alu'/'fp64' (that pipe's work at its peak: the compute roof binds, when the report has the pipe counters), 'latency'; 'waiting' when a rule with `marks: waiting` (idle-kernel) found it waits instead of working
    theoretical_occupancy_pct REAL,
    achieved_occupancy_pct    REAL,
    occupancy_limiter         TEXT,
    findings                  INTEGER,  -- number of findings on this kernel/config
    worst_severity            TEXT,     -- 'error','warning','note' or NULL
    worst_rule_id             TEXT,     -- rule of the finding with most time lost
    time_lost_ns              REAL,     -- sum of capped time lost of its findings
    one_time                  INTEGER   -- (added: set-up by the program's loop) 1: one-time set-up, every launch before the program's repeated work (docs/analyzer.md "One-time set-up"); a kernel row is 1 when all its configurations are; NULL in reports analyzed before the column existed, where the analyzer adds it at the next analysis
);
CREATE INDEX kernel_summary_by_kernel ON kernel_summary(kernel_id, config_id);

-- (version 2) The worst source lines of a pattern finding (a rule with
-- `lines:`, docs/rules.md), from the exact per-instruction counts of the
-- finding's configuration (v_inst_line): the lines that carry most of its
-- excess, worst first. A line is a file:line where the cubin has line
-- info, else one instruction (function and pc).
CREATE TABLE finding_line (
    finding_id  INTEGER NOT NULL REFERENCES finding(id),
    seq         INTEGER NOT NULL,  -- 1 = the line with most excess
    location    TEXT NOT NULL,     -- 'file:line', or 'function+0xPC' without line info (untrusted: from the program)
    file        TEXT,              -- source file as the compiler recorded it, NULL without line info
    line        INTEGER,           -- its line, NULL without line info
    function    TEXT,              -- mangled function of the line's worst instruction
    pc          INTEGER,           -- that instruction's pc (sass_line.pc)
    sass        TEXT,              -- its SASS text, NULL when unknown
    excess      REAL,              -- the line's excess in `unit`: sectors or wavefronts beyond the ideal, local sectors, narrow instructions
    unit        TEXT,              -- 'sectors', 'wavefronts', 'instructions'
    share_pct   REAL,              -- the line's share of the configuration's excess of that kind, %
    PRIMARY KEY (finding_id, seq)
) WITHOUT ROWID;

-- Launches a finding concerns (optional; only run-level and copy findings
-- use it to point at copies or launches).
CREATE TABLE finding_object (
    finding_id  INTEGER NOT NULL REFERENCES finding(id),
    kind        TEXT NOT NULL,   -- 'launch', 'copy', 'launch_failure'
    object_id   INTEGER NOT NULL,
    PRIMARY KEY (finding_id, kind, object_id)
) WITHOUT ROWID;

-- (added: merge) Per rank of a merged report (job_rank), written by the
-- analyzer: where the rank's GPU time went and whether the others wait
-- for it. Empty for a report of one process. docs/analyzer.md "Across
-- ranks" explains the straggler test.
-- A communication kernel is one that waits on other ranks: its name
-- contains 'nccl' or 'nvshmem' (any case), or a rule found it waiting
-- (kernel_summary.bound_tier 'waiting').
CREATE TABLE rank_summary (
    rank            INTEGER PRIMARY KEY, -- job_rank.rank
    gpu_ns          REAL,    -- the rank's part of analysis.run_gpu_ns: its kernel time (waiting kernels excepted) and copy time, ns
    work_ns         REAL,    -- of that, the time not in communication kernels (kernels + copies), ns
    comm_ns         REAL,    -- time in communication kernels, waiting ones included, ns
    launches        INTEGER, -- traced launches of the rank
    comm_launches   INTEGER, -- of them, launches of communication kernels (each a collective: the steps the ranks meet at)
    wall_ns         REAL,    -- the rank's run span minus its profiler time, ns; NULL when unknown
    lag_ns          REAL,    -- work_ns minus the median work_ns of the ranks: how far it is behind the typical rank, ns (negative: ahead)
    is_straggler    INTEGER, -- 1 for the straggler: the rank with the most work, at least 5 % and 1 us more than the median, while the other ranks spend more time in communication than it does; else 0
    findings        INTEGER, -- findings of the rank (rank_finding rows)
    worst_severity  TEXT     -- its worst severity ('error','warning','note') judged against its own GPU and wall time, NULL when none
);

-- (added: merge) Per kernel and rank of a merged report: the kernel's
-- traced time on that rank (the analyzer's per-configuration totals,
-- summed over the rank's configurations); a rank that never ran the
-- kernel has no row, and counts as 0 in v_rank_imbalance.
CREATE TABLE rank_kernel (
    kernel_id   INTEGER NOT NULL REFERENCES kernel(id),
    rank        INTEGER NOT NULL, -- job_rank.rank
    launches    INTEGER,          -- traced launches of the kernel on the rank
    total_ns    REAL,             -- their time, ns (profiled launches at their configuration's traced mean)
    is_comm     INTEGER,          -- 1 when the kernel is a communication kernel (rank_summary)
    PRIMARY KEY (kernel_id, rank)
) WITHOUT ROWID;

-- (added: merge) The findings of a merged report, by rank: a finding on a
-- configuration belongs to that configuration's rank; one on a whole
-- kernel is shared among the ranks by the kernel's time on each; a
-- run-level one by the launches or copies it names (finding_object), else
-- by each rank's GPU time. Each rank's share is graded on the scale of
-- docs/severity.md against that rank's own GPU and wall time, so a problem
-- of one rank out of 64 is judged as the rank's user sees it, not diluted
-- by the others ('check' gates on the worst rank).
CREATE TABLE rank_finding (
    finding_id    INTEGER NOT NULL REFERENCES finding(id),
    rank          INTEGER NOT NULL, -- job_rank.rank
    time_lost_ns  REAL,    -- the rank's part of finding.time_lost_ns, ns
    share_pct     REAL,    -- time_lost_ns / rank_summary.gpu_ns * 100
    severity      TEXT,    -- 'error','warning','note' on the rank (the rule's or the row's override when it has one)
    PRIMARY KEY (finding_id, rank)
) WITHOUT ROWID;

-- ===================================================================
-- 5. Documented views (what rules and readers query)
-- ===================================================================

-- Metric values with their names.
CREATE VIEW v_metric AS
SELECT m.launch_id, n.name AS metric, m.value
FROM metric m JOIN metric_name n ON n.id = m.metric_id;

-- Launch with its kernel, configuration and duration.
CREATE VIEW v_launch AS
SELECT l.id AS launch_id, l.kernel_id, l.config_id, k.mangled_name, k.demangled_name, k.short_name,
       l.device_id, l.stream_id, l.start_ns, l.end_ns, (l.end_ns - l.start_ns) AS duration_ns,
       l.profiled, l.profile_reason, l.nvtx_path, l.graph_id, l.config_launch_index
FROM launch l JOIN kernel k ON k.id = l.kernel_id;

-- Configuration with its kernel and the device limits: one row per
-- configuration; the base of occupancy and launch-shape rules.
CREATE VIEW v_config AS
SELECT c.*, k.mangled_name, k.demangled_name, k.short_name,
       d.sm_count, d.max_warps_per_sm, d.max_threads_per_sm, d.max_blocks_per_sm, d.warp_size,
       d.regs_per_sm, d.smem_per_sm_bytes, d.smem_per_block_bytes, d.l2_bytes,
       d.peak_dram_bw_bytes_per_s, d.measured_copy_bw_bytes_per_s,
       CASE WHEN c.launches > 0 THEN CAST(c.total_ns AS REAL) / c.launches END AS mean_ns
FROM config c JOIN kernel k ON k.id = c.kernel_id LEFT JOIN device d ON d.id = c.device_id;

-- One row per profiled launch with every metric of the catalogue that has
-- a column (NULL when the report lacks it). Rules query this view; the
-- column names are stable, the metric names behind them are the GH100
-- Perfworks names the collector collects (docs/metrics.md maps rule ->
-- metrics). Generated from schema/metrics.catalogue, with each column's
-- unit and meaning: edit the catalogue, never this view (the build embeds
-- the catalogue's; `cmake --build build --target catalogue-update` writes
-- it here, and unit.catalogue fails until it is). A metric without a
-- column is read by name from v_metric (the analyzer's cfg_metric).
CREATE VIEW v_profiled AS
SELECT l.id AS launch_id, l.kernel_id, l.config_id, l.device_id,
       p.passes,
       MAX(CASE WHEN n.name = 'gpu__time_duration.sum' THEN m.value END) AS duration_ns, -- ns: kernel time under replay
       MAX(CASE WHEN n.name = 'smsp__inst_executed.sum' THEN m.value END) AS inst_executed, -- inst: warp instructions executed
       MAX(CASE WHEN n.name = 'sm__warps_active.avg.pct_of_peak_sustained_active' THEN m.value END) AS achieved_occupancy_pct, -- pct: achieved occupancy
       MAX(CASE WHEN n.name = 'sm__cycles_active.avg' THEN m.value END) AS sm_cycles_active, -- cycles: cycles an SM had work (average over SMs)
       MAX(CASE WHEN n.name = 'dram__bytes_read.sum' THEN m.value END) AS dram_read_bytes, -- bytes: device-memory bytes read
       MAX(CASE WHEN n.name = 'dram__bytes_write.sum' THEN m.value END) AS dram_write_bytes, -- bytes: device-memory bytes written
       MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' THEN m.value END) AS gld_sectors, -- sectors: global load sectors (32 B) through the LSU
       MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum' THEN m.value END) AS gst_sectors, -- sectors: global store sectors (32 B) through the LSU
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_global_ld.sum' THEN m.value END) AS gld_inst, -- inst: LDG warp instructions (= requests)
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_global_st.sum' THEN m.value END) AS gst_inst, -- inst: STG warp instructions (= requests)
       MAX(CASE WHEN n.name = 'lts__t_sectors_lookup_hit.sum' THEN m.value END) AS l2_hit_sectors, -- sectors: L2 sector lookups that hit
       MAX(CASE WHEN n.name = 'lts__t_sectors_lookup_miss.sum' THEN m.value END) AS l2_miss_sectors, -- sectors: L2 sector lookups that missed
       MAX(CASE WHEN n.name = 'l1tex__t_sector_hit_rate.pct' THEN m.value END) AS l1_hit_rate_pct, -- pct: L1 sector hit rate
       MAX(CASE WHEN n.name = 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum' THEN m.value END) AS shld_wavefronts, -- wavefronts: shared-memory load wavefronts
       MAX(CASE WHEN n.name = 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum' THEN m.value END) AS shst_wavefronts, -- wavefronts: shared-memory store wavefronts
       MAX(CASE WHEN n.name = 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum' THEN m.value END) AS shld_conflicts, -- conflicts: shared-memory load bank conflicts reported by the hardware
       MAX(CASE WHEN n.name = 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum' THEN m.value END) AS shst_conflicts, -- conflicts: shared-memory store bank conflicts reported by the hardware
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_shared_ld.sum' THEN m.value END) AS shld_inst, -- inst: LDS warp instructions
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_shared_st.sum' THEN m.value END) AS shst_inst, -- inst: STS warp instructions
       MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum' THEN m.value END) AS lld_sectors, -- sectors: local-memory (spill) load sectors
       MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum' THEN m.value END) AS lst_sectors, -- sectors: local-memory (spill) store sectors
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_local_ld.sum' THEN m.value END) AS lld_inst, -- inst: LDL warp instructions
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_local_st.sum' THEN m.value END) AS lst_inst, -- inst: STL warp instructions
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_generic_atom.sum' THEN m.value END) AS gatom_inst, -- inst: ATOM warp instructions (global atomics are counted as generic)
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_global_red.sum' THEN m.value END) AS gred_inst, -- inst: RED warp instructions
       MAX(CASE WHEN n.name = 'smsp__inst_executed_op_ldc.sum' THEN m.value END) AS const_inst, -- inst: LDC (indexed constant) warp instructions
       MAX(CASE WHEN n.name = 'lts__t_sectors_srcunit_tex.sum' THEN m.value END) AS l2_sectors_from_l1, -- sectors: L2 sectors requested by L1TEX
       MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum' THEN m.value END) AS lld_sectors_miss, -- sectors: local load sectors that missed L1
       MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum' THEN m.value END) AS lst_sectors_miss, -- sectors: local store sectors that missed L1
       MAX(CASE WHEN n.name = 'lts__t_sectors_op_atom.sum' THEN m.value END) AS l2_atom_sectors, -- sectors: L2 atomic sectors
       MAX(CASE WHEN n.name = 'lts__t_sectors_op_red.sum' THEN m.value END) AS l2_red_sectors, -- sectors: L2 reduction sectors
       MAX(CASE WHEN n.name = 'idc__requests.sum' THEN m.value END) AS const_requests, -- requests: constant-cache requests
       MAX(CASE WHEN n.name = 'lts__t_sectors_srcunit_tex_aperture_sysmem.sum' THEN m.value END) AS sm_sysmem_sectors, -- sectors: L2 sectors to system memory that the SMs asked for
       MAX(CASE WHEN n.name = 'l1tex__m_xbar2l1tex_read_bytes.sum' THEN m.value END) AS l2_to_l1_bytes, -- bytes: bytes read from L2 into L1 (group tma)
       MAX(CASE WHEN n.name = 'l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum' THEN m.value END) AS tma_load_bytes, -- bytes: TMA load bytes (group tma)
       MAX(CASE WHEN n.name = 'l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum' THEN m.value END) AS tma_store_bytes, -- bytes: TMA store bytes (group tma)
       MAX(CASE WHEN n.name = 'l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum' THEN m.value END) AS ldgsts_access_bytes, -- bytes: LDGSTS bytes through L1 (group tma)
       MAX(CASE WHEN n.name = 'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum' THEN m.value END) AS gld_requests, -- requests: LSU global load requests (group requests)
       MAX(CASE WHEN n.name = 'l1tex__t_requests_pipe_lsu_mem_global_op_st.sum' THEN m.value END) AS gst_requests, -- requests: LSU global store requests (group requests)
       MAX(CASE WHEN n.name = 'lts__t_sectors_aperture_sysmem.sum' THEN m.value END) AS sysmem_sectors, -- sectors: L2 sectors to system memory, every L2 client (zero-copy, managed)
       MAX(CASE WHEN n.name = 'smsp__sass_data_bytes_mem_global_op_ld.sum' THEN m.value END) AS gld_requested_bytes, -- bytes: global load bytes the instructions requested (group sass_bytes)
       MAX(CASE WHEN n.name = 'smsp__sass_data_bytes_mem_global_op_st.sum' THEN m.value END) AS gst_requested_bytes, -- bytes: global store bytes the instructions requested (group sass_bytes)
       MAX(CASE WHEN n.name = 'smsp__sass_inst_executed_op_memory_32b.sum' THEN m.value END) AS mem_inst_32b, -- inst: 32-bit memory warp instructions (group sass_bytes)
       MAX(CASE WHEN n.name = 'smsp__sass_inst_executed_op_memory_64b.sum' THEN m.value END) AS mem_inst_64b, -- inst: 64-bit memory warp instructions (group sass_bytes)
       MAX(CASE WHEN n.name = 'smsp__sass_inst_executed_op_memory_128b.sum' THEN m.value END) AS mem_inst_128b, -- inst: 128-bit memory warp instructions (group sass_bytes)
       MAX(CASE WHEN n.name = 'sm__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum' THEN m.value END) AS ldgsts_bypass_bytes -- bytes: LDGSTS bytes that bypassed L1 (group sass_bytes)
FROM launch l
JOIN profile p ON p.launch_id = l.id
LEFT JOIN metric m ON m.launch_id = l.id
LEFT JOIN metric_name n ON n.id = m.metric_id
GROUP BY l.id;

-- (added: profiles view) One row per profiled launch: how it was
-- profiled, its tie counters, and whether the analyzer sets it aside.
-- A configuration (kernel, grid, block, dynamic shared memory) does not
-- fix the work: PyTorch's TensorIterator kernels take their strides as
-- arguments, so one configuration copies contiguously at one launch and
-- with a stride at the next (recorded on the H200,
-- docs/analyzer-vs-ncu.md). Averaging the two describes a launch that
-- never ran, so the analyzer leaves out of a configuration's counters
-- every later profile that did other work than the configuration's first
-- profile with tie counters: warp instructions, or global load + store
-- sectors, more than 1 % apart (the counters' agreement tolerance; the
-- same work repeats them exactly, up to a sector per request of
-- alignment). Profiles without those counters cannot be told apart and
-- are kept. The report keeps every profile; `gpuhier report --view
-- profiles NAME` prints this view for one kernel. The analyzer and the
-- readers run this build's definition of the view (store_view_sql()), so
-- a report recorded before it was added gets the same answer.
CREATE VIEW v_profile AS
WITH t AS (
    SELECT p.launch_id, l.kernel_id, l.config_id, l.config_launch_index, l.profile_reason,
           p.metric_set, p.passes, p.overhead_ns,
           MAX(CASE WHEN n.name = 'smsp__inst_executed.sum' THEN m.value END) AS inst_executed,
           MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum' THEN m.value END) AS gld_sectors,
           MAX(CASE WHEN n.name = 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum' THEN m.value END) AS gst_sectors,
           MAX(CASE WHEN n.name = 'gpu__time_duration.sum' THEN m.value END) AS duration_ns,
           SUM(CASE WHEN n.name <> 'smsp__inst_executed.sum' AND n.name <> 'gpu__time_duration.sum'
                    THEN m.value END) AS sectors,
           COUNT(CASE WHEN n.name <> 'gpu__time_duration.sum' THEN m.metric_id END) > 0 AS has_tie
    FROM profile p
    JOIN launch l ON l.id = p.launch_id
    LEFT JOIN metric_name n ON n.name IN ('smsp__inst_executed.sum',
        'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum',
        'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 'gpu__time_duration.sum')
    LEFT JOIN metric m ON m.launch_id = p.launch_id AND m.metric_id = n.id
    GROUP BY p.launch_id
),
ref AS (
    SELECT config_id, MIN(launch_id) AS launch_id FROM t
    WHERE has_tie AND config_id IS NOT NULL GROUP BY config_id
)
SELECT t.launch_id,
       t.kernel_id,
       t.config_id,
       t.config_launch_index, -- the launch's index among its configuration's launches (launch)
       t.profile_reason,      -- why it was profiled (launch)
       t.metric_set,          -- what it collected: 'core', 'metrics', 'tie+GROUP...' (profile)
       t.passes,              -- replay passes (profile)
       t.overhead_ns,         -- wall time the profiler spent on it, CPU clock (profile)
       t.inst_executed,       -- tie counter smsp__inst_executed.sum, warp instructions
       t.gld_sectors,         -- tie counter l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
       t.gst_sectors,         -- tie counter l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
       t.duration_ns,         -- tie counter gpu__time_duration.sum, ns under replay (not compared)
       f.launch_id AS tie_launch_id, -- the profile it is compared with: its configuration's first with tie counters (itself for that one); NULL without tie counters or configuration
       CASE WHEN t.launch_id <> f.launch_id
                 AND (ABS(t.inst_executed - r.inst_executed) > 0.01 * r.inst_executed
                      OR ABS(t.sectors - r.sectors) > 0.01 * r.sectors)
            THEN 1 ELSE 0 END AS set_aside -- 1: other work than tie_launch_id; the analyzer leaves it out of the configuration's counters
FROM t
LEFT JOIN ref f ON f.config_id = t.config_id AND t.has_tie
LEFT JOIN t r ON r.launch_id = f.launch_id;

-- (added: one-pass groups) Per configuration profiled in one-pass
-- groups (profile.metric_set 'groupK/N', the default since issue 18:
-- each profiled launch collects one group of a plan of N, docs/metrics.md
-- "One-pass groups"): how many of the N groups its profiles hold and
-- which it did not get. A configuration launched fewer times than N (or
-- whose later groups the budget deferred) misses groups: the counters of
-- the missing groups are NULL in its row of v_profiled, and the rules that
-- read them do not judge it. Profiles that v_profile sets aside (other
-- work than the configuration's first) do not count. Readers run this
-- build's definition with this build's v_profile (store_groups_query()).
CREATE VIEW v_config_groups AS
WITH g AS (
    SELECT config_id, kernel_id,
           CAST(substr(metric_set, 6, instr(metric_set, '/') - 6) AS INTEGER) AS k,
           CAST(substr(metric_set, instr(metric_set, '/') + 1) AS INTEGER) AS n
    FROM v_profile
    WHERE metric_set LIKE 'group%/%' AND set_aside = 0 AND config_id IS NOT NULL
),
seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 64)
SELECT c.config_id,
       c.kernel_id,
       c.groups_total,     -- N: the groups of the plan its profiles were taken in
       c.groups_collected, -- distinct groups among its kept profiles
       (SELECT group_concat(i, ',') FROM seq
         WHERE i <= c.groups_total AND i NOT IN (SELECT k FROM g WHERE g.config_id = c.config_id))
           AS groups_missing -- the groups it did not get, e.g. '2,3,4'; NULL when none
FROM (SELECT config_id, MIN(kernel_id) AS kernel_id, MAX(n) AS groups_total,
             COUNT(DISTINCT k) AS groups_collected
      FROM g GROUP BY config_id) c;

-- (added: allocation footprint) Per launch with a known API time, the
-- device memory live on its device when the launch was issued: every
-- allocation before it minus every release before it, host memory
-- (pinned, pageable) excluded. An upper bound of the bytes the kernel can
-- touch in device memory, apart from what `allocation` cannot see (its
-- comment lists it). Compares the launch's API time with the operations'
-- times: a kernel runs after its launch call, and memory it uses must be
-- allocated before that call and released after it (module variables,
-- 'device_static', count from the start: lazy loading allocates them in
-- the launch call itself). Rows only when meta
-- 'alloc_tracking' = 'on' and CUPTI dropped no activity record (a dropped
-- buffer may have held an allocation).
CREATE VIEW v_launch_footprint AS
WITH ev AS (
    -- one sweep over allocations and launches in time order (not a sum per
    -- launch: 10,000 profiled launches x 100,000 allocations took minutes);
    -- an operation at a launch's very time sorts before it and counts
    SELECT a.device_id AS dev,
           -- a module's __device__ variables may be allocated inside the
           -- launch call that loads the module lazily (after api_ns): they
           -- count from the start
           CASE WHEN a.op = 'alloc' AND a.memory_kind IN ('device_static', 'managed_static')
                THEN 0 ELSE a.time_ns END AS t,
           0 AS is_launch, NULL AS launch_id,
           CASE a.op WHEN 'alloc' THEN a.bytes ELSE -a.bytes END AS delta_bytes
    FROM allocation a
    WHERE a.memory_kind NOT IN ('pinned', 'pageable')
    UNION ALL
    SELECT l.device_id, l.api_ns, 1, l.id, 0
    FROM launch l
    WHERE l.api_ns IS NOT NULL
      AND EXISTS (SELECT 1 FROM meta WHERE key = 'alloc_tracking' AND value = 'on')
      AND NOT EXISTS (SELECT 1 FROM run WHERE COALESCE(activity_dropped, 0) > 0)
)
SELECT l.id AS launch_id, l.kernel_id, l.config_id, l.device_id, l.api_ns, w.live_device_bytes
FROM (SELECT launch_id, is_launch,
             SUM(delta_bytes) OVER (PARTITION BY dev ORDER BY t, is_launch) AS live_device_bytes
      FROM ev) w
JOIN launch l ON l.id = w.launch_id
WHERE w.is_launch = 1;

-- Copies with achieved bandwidth.
CREATE VIEW v_copy AS
SELECT c.*, (c.end_ns - c.start_ns) AS duration_ns,
       CASE WHEN c.end_ns > c.start_ns THEN c.bytes * 1e9 / (c.end_ns - c.start_ns) END AS bw_bytes_per_s
FROM copy c;

-- Findings with kernel names, for readers.
CREATE VIEW v_finding AS
SELECT f.*, k.mangled_name, k.demangled_name, k.short_name, k.source_file, k.source_line,
       c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, c.dynamic_smem_bytes
FROM finding f LEFT JOIN kernel k ON k.id = f.kernel_id LEFT JOIN config c ON c.id = f.config_id;

-- (version 2) One row per instruction of each instrumented configuration
-- (its first instrumented launch, inst_launch): the per-instruction
-- counts the rules read, pivoted into named columns, with the
-- instruction's source line and SASS. Counts a launch has no row for are
-- 0 (inst_count keeps non-zero counts only); an ideal the collector did
-- not record is NULL. Units: warp instructions (`_inst`,
-- inst_executed), thread instructions, 32-byte sectors (`_sectors`),
-- shared-memory wavefronts (`_wavefronts`). Load and store sectors are
-- told apart by the instruction: a pc that executed global loads is a
-- load (LDG), one that executed global stores a store (STG); since
-- 2026-12-07 one that moved global sectors and executed neither (nor an
-- LDGSTS or TMA copy) an atomic or reduction (atomic_*). Metrics are
-- matched by id (one lookup of each name), not by name per row. The
-- counts are inst_count's rows and inst_run's runs expanded to one row per
-- instruction (since version 3), summed per instruction.
-- global_bytes and branch_targets (changed: 2026-12-03) are always NULL,
-- not collected: the collector no longer asks for their metrics,
-- 'smsp__sass_data_bytes_mem_global' and 'smsp__sass_branch_targets',
-- which the H200 refuses (meta 'instrumentation_metrics_missing'; they
-- read 0 on every launch, docs/agreement.md). The columns stay, so that
-- a reader of either definition finds them, and the version stays 2: no
-- rule, reader or export reads them, and NULL is "not collected"
-- (Conventions). The bytes a global load or store requested come from
-- the range profiler (v_profiled's gld_requested_bytes, gst_requested_bytes).
CREATE VIEW v_inst AS
WITH RECURSIVE src AS (
    SELECT config_id, MIN(launch_id) AS launch_id FROM inst_launch GROUP BY config_id
),
runs AS ( -- (version 3) inst_run's runs with the pc each ends before
    SELECT launch_id, function_id, metric_id, pc, value,
           LEAD(pc) OVER (PARTITION BY launch_id, function_id, metric_id ORDER BY pc) AS end_pc
    FROM inst_run WHERE launch_id IN (SELECT launch_id FROM src)
),
run_pc(launch_id, function_id, metric_id, pc, value, end_pc) AS ( -- one row per instruction of a run
    SELECT launch_id, function_id, metric_id, pc, value, end_pc FROM runs WHERE value <> 0 AND end_pc IS NOT NULL
    UNION ALL
    SELECT launch_id, function_id, metric_id, pc + 16, value, end_pc FROM run_pc WHERE pc + 16 < end_pc
),
mask_id AS (SELECT id FROM metric_name WHERE name = 'gpuhier_inst_implied'),
counts AS ( -- (version 5) a mask row's value is its mask (bits 0-14) and the count it carries (bits 15-16 name it, 17 up)
    SELECT launch_id, function_id, pc, metric_id,
           CASE WHEN metric_id IN (SELECT id FROM mask_id) THEN value & 32767 ELSE value END AS value
    FROM inst_count WHERE launch_id IN (SELECT launch_id FROM src)
    UNION ALL
    SELECT c.launch_id, c.function_id, c.pc, n.id, c.value >> 17
    FROM inst_count c JOIN metric_name n ON n.name = CASE (c.value >> 15) & 3
             WHEN 1 THEN 'smsp__sass_sectors_mem_global'
             WHEN 2 THEN 'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared'
             WHEN 3 THEN 'smsp__sass_sectors_mem_local' END
    WHERE c.launch_id IN (SELECT launch_id FROM src) AND c.metric_id IN (SELECT id FROM mask_id) AND c.value >= 32768
    UNION ALL
    SELECT launch_id, function_id, pc, metric_id, value FROM run_pc
),
p0 AS (
    SELECT c.launch_id, c.function_id, c.pc,
           MAX(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'gpuhier_inst_implied') THEN c.value END) AS implied,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed') THEN c.value END) AS inst_executed,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_thread_inst_executed') THEN c.value END) AS thread_inst_executed,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_global_ld') THEN c.value END) AS gld_inst,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_global_st') THEN c.value END) AS gst_inst,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_sectors_mem_global') THEN c.value END) AS global_sectors,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_sectors_mem_global_ideal') THEN c.value END) AS global_sectors_ideal,
           SUM(CASE WHEN c.metric_id IN (SELECT id FROM metric_name WHERE name IN ('smsp__sass_inst_executed_op_shared_ld', 'smsp__sass_inst_executed_op_shared_st'))
                    THEN c.value END) AS shared_inst,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared') THEN c.value END) AS shared_wavefronts,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal') THEN c.value END) AS shared_wavefronts_ideal,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_local_ld') THEN c.value END) AS lld_inst,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_local_st') THEN c.value END) AS lst_inst,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_sectors_mem_local') THEN c.value END) AS local_sectors,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_memory_8b') THEN c.value END) AS mem_8b,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_memory_16b') THEN c.value END) AS mem_16b,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_memory_32b') THEN c.value END) AS mem_32b,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_memory_64b') THEN c.value END) AS mem_64b,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_inst_executed_op_memory_128b') THEN c.value END) AS mem_128b,
           SUM(CASE WHEN c.metric_id IN (SELECT id FROM metric_name WHERE name IN ('smsp__sass_inst_executed_op_ldgsts', 'smsp__sass_inst_executed_op_tma'))
                    THEN c.value END) AS async_inst,
           SUM(CASE WHEN c.metric_id = (SELECT id FROM metric_name WHERE name = 'smsp__sass_branch_targets_threads_divergent') THEN c.value END) AS branch_targets_divergent
    FROM counts c
    GROUP BY c.launch_id, c.function_id, c.pc),
p AS ( -- (version 4) the counts a 'gpuhier_inst_implied' mask stands for, added to any row of the same metric
    SELECT launch_id, function_id, pc, inst_executed, thread_inst_executed,
           CASE WHEN implied & 1 THEN COALESCE(gld_inst, 0) + inst_executed ELSE gld_inst END AS gld_inst,
           CASE WHEN implied & 2 THEN COALESCE(gst_inst, 0) + inst_executed ELSE gst_inst END AS gst_inst,
           global_sectors,
           CASE WHEN implied & 8192 THEN COALESCE(global_sectors_ideal, 0) + global_sectors ELSE global_sectors_ideal END
             AS global_sectors_ideal,
           CASE WHEN implied & 12 THEN COALESCE(shared_inst, 0) + ((implied >> 2) & 1) * inst_executed
                                       + ((implied >> 3) & 1) * inst_executed ELSE shared_inst END AS shared_inst,
           shared_wavefronts,
           CASE WHEN implied & 16384 THEN COALESCE(shared_wavefronts_ideal, 0) + shared_wavefronts
                ELSE shared_wavefronts_ideal END AS shared_wavefronts_ideal,
           CASE WHEN implied & 16 THEN COALESCE(lld_inst, 0) + inst_executed ELSE lld_inst END AS lld_inst,
           CASE WHEN implied & 32 THEN COALESCE(lst_inst, 0) + inst_executed ELSE lst_inst END AS lst_inst,
           local_sectors,
           CASE WHEN implied & 64 THEN COALESCE(mem_8b, 0) + inst_executed ELSE mem_8b END AS mem_8b,
           CASE WHEN implied & 128 THEN COALESCE(mem_16b, 0) + inst_executed ELSE mem_16b END AS mem_16b,
           CASE WHEN implied & 256 THEN COALESCE(mem_32b, 0) + inst_executed ELSE mem_32b END AS mem_32b,
           CASE WHEN implied & 512 THEN COALESCE(mem_64b, 0) + inst_executed ELSE mem_64b END AS mem_64b,
           CASE WHEN implied & 1024 THEN COALESCE(mem_128b, 0) + inst_executed ELSE mem_128b END AS mem_128b,
           CASE WHEN implied & 6144 THEN COALESCE(async_inst, 0) + ((implied >> 11) & 1) * inst_executed
                                         + ((implied >> 12) & 1) * inst_executed ELSE async_inst END AS async_inst,
           branch_targets_divergent
    FROM p0
),
q AS ( -- since 2026-12-07: a global instruction that moved sectors and neither loads nor stores (the load
       -- count covers LDG and generic LD, the store count STG and ST) nor copies asynchronously is an
       -- atomic or a reduction (ATOM, ATOMG, RED): its sectors are judged against their ideal as a load's
    SELECT p.*, p.global_sectors > 0 AND COALESCE(p.gld_inst, 0) = 0 AND COALESCE(p.gst_inst, 0) = 0
                AND COALESCE(p.async_inst, 0) = 0 AS is_atomic
    FROM p
)
SELECT il.config_id, il.kernel_id, p.launch_id, p.function_id,
       f.name AS function,            -- mangled function (sass_function.name)
       p.pc,                          -- byte offset in the function
       sf.path AS file, sl.line,      -- source line, NULL without line info
       sl.sass,                       -- SASS text, NULL when unknown
       COALESCE(p.inst_executed, 0) AS inst_executed,               -- warp instructions executed
       CASE WHEN p.thread_inst_executed IS NULL AND p.inst_executed > 0 THEN NULL  -- not collected (reports since 2026-12-06)
            ELSE COALESCE(p.thread_inst_executed, 0) END AS thread_inst_executed, -- thread instructions executed
       COALESCE(p.gld_inst, 0) AS gld_inst,                         -- global load warp instructions
       COALESCE(p.gst_inst, 0) AS gst_inst,                         -- global store warp instructions
       COALESCE(p.global_sectors, 0) AS global_sectors,             -- global sectors (loads, stores, atomics)
       CASE WHEN COALESCE(p.global_sectors, 0) = 0 THEN 0 ELSE p.global_sectors_ideal END
         AS global_sectors_ideal,                                   -- their ideal for the bytes requested
       NULL AS global_bytes,                                        -- (changed: 2026-12-03) always NULL, see above
       CASE WHEN p.gld_inst > 0 THEN COALESCE(p.global_sectors, 0) ELSE 0 END AS gld_sectors,
       CASE WHEN p.gld_inst > 0 AND p.global_sectors > 0 THEN p.global_sectors_ideal
            ELSE 0 END AS gld_sectors_ideal,
       CASE WHEN p.gld_inst > 0 THEN MAX(0, COALESCE(p.global_sectors, 0) - COALESCE(p.global_sectors_ideal, 0))
            ELSE 0 END AS gld_excess,                               -- load sectors beyond the ideal
       CASE WHEN p.gst_inst > 0 AND COALESCE(p.gld_inst, 0) = 0 THEN COALESCE(p.global_sectors, 0) ELSE 0 END AS gst_sectors,
       CASE WHEN p.gst_inst > 0 AND COALESCE(p.gld_inst, 0) = 0 AND p.global_sectors > 0 THEN p.global_sectors_ideal
            ELSE 0 END AS gst_sectors_ideal,
       CASE WHEN p.gst_inst > 0 AND COALESCE(p.gld_inst, 0) = 0
            THEN MAX(0, COALESCE(p.global_sectors, 0) - COALESCE(p.global_sectors_ideal, 0)) ELSE 0 END AS gst_excess,
       -- since 2026-12-07: global atomics and reductions (q.is_atomic)
       CASE WHEN p.is_atomic THEN COALESCE(p.inst_executed, 0) ELSE 0 END AS atomic_inst,
       CASE WHEN p.is_atomic THEN p.global_sectors ELSE 0 END AS atomic_sectors,
       CASE WHEN p.is_atomic THEN p.global_sectors_ideal ELSE 0 END AS atomic_sectors_ideal,
       CASE WHEN p.is_atomic THEN MAX(0, p.global_sectors - COALESCE(p.global_sectors_ideal, 0))
            ELSE 0 END AS atomic_excess,
       COALESCE(p.shared_inst, 0) AS shared_inst,                   -- shared load/store warp instructions
       COALESCE(p.shared_wavefronts, 0) AS shared_wavefronts,       -- shared-memory wavefronts
       CASE WHEN COALESCE(p.shared_wavefronts, 0) = 0 THEN 0 ELSE p.shared_wavefronts_ideal END
         AS shared_wavefronts_ideal,                                -- their ideal without bank conflicts
       MAX(0, COALESCE(p.shared_wavefronts, 0) - COALESCE(p.shared_wavefronts_ideal, 0)) AS shared_excess,
       COALESCE(p.lld_inst, 0) AS lld_inst, COALESCE(p.lst_inst, 0) AS lst_inst, -- local load/store warp instructions
       COALESCE(p.local_sectors, 0) AS local_sectors,               -- local (spill) sectors
       COALESCE(p.mem_8b, 0) AS mem_8b, COALESCE(p.mem_16b, 0) AS mem_16b, COALESCE(p.mem_32b, 0) AS mem_32b,
       COALESCE(p.mem_64b, 0) AS mem_64b, COALESCE(p.mem_128b, 0) AS mem_128b, -- memory instructions by access width
       CASE WHEN COALESCE(p.gld_inst, 0) + COALESCE(p.gst_inst, 0) > 0
            THEN MIN(COALESCE(p.gld_inst, 0) + COALESCE(p.gst_inst, 0),
                     COALESCE(p.mem_8b, 0) + COALESCE(p.mem_16b, 0) + COALESCE(p.mem_32b, 0))
            ELSE 0 END AS narrow_inst,                              -- global load/store instructions of 32 bits or less
       COALESCE(p.async_inst, 0) AS async_inst,                     -- LDGSTS and TMA instructions (their traffic is not in global_sectors)
       NULL AS branch_targets,                                      -- (changed: 2026-12-03) always NULL, see above
       COALESCE(p.branch_targets_divergent, 0) AS branch_targets_divergent -- branch targets taken by part of a warp
FROM q AS p
JOIN inst_launch il ON il.launch_id = p.launch_id
JOIN sass_function f ON f.id = p.function_id
LEFT JOIN sass_line sl ON sl.function_id = p.function_id AND sl.pc = p.pc
LEFT JOIN source_file sf ON sf.id = sl.file_id;

-- (version 2) One row per instrumented configuration: v_inst summed.
-- An ideal is NULL when an instruction that moved sectors or wavefronts
-- has none recorded (the rules then do not judge against it).
-- `instructions` counts the instructions with counts, `lines` those with
-- a source line.
CREATE VIEW v_inst_config AS
SELECT config_id, kernel_id, launch_id,
       COUNT(*) AS instructions, COUNT(line) AS lines,
       SUM(inst_executed) AS inst_executed, SUM(thread_inst_executed) AS thread_inst_executed,
       SUM(gld_inst) AS gld_inst, SUM(gst_inst) AS gst_inst,
       SUM(gld_sectors) AS gld_sectors,
       CASE WHEN COUNT(CASE WHEN gld_sectors > 0 AND gld_sectors_ideal IS NULL THEN 1 END) = 0
            THEN SUM(gld_sectors_ideal) END AS gld_sectors_ideal,
       SUM(gld_excess) AS gld_excess,
       SUM(gst_sectors) AS gst_sectors,
       CASE WHEN COUNT(CASE WHEN gst_sectors > 0 AND gst_sectors_ideal IS NULL THEN 1 END) = 0
            THEN SUM(gst_sectors_ideal) END AS gst_sectors_ideal,
       SUM(gst_excess) AS gst_excess,
       SUM(atomic_inst) AS atomic_inst, SUM(atomic_sectors) AS atomic_sectors, -- since 2026-12-07: global atomics and reductions
       CASE WHEN COUNT(CASE WHEN atomic_sectors > 0 AND atomic_sectors_ideal IS NULL THEN 1 END) = 0
            THEN SUM(atomic_sectors_ideal) END AS atomic_sectors_ideal,
       SUM(atomic_excess) AS atomic_excess,
       SUM(global_sectors) AS global_sectors, NULL AS global_bytes, -- (changed: 2026-12-03) NULL, as in v_inst
       SUM(shared_inst) AS shared_inst, SUM(shared_wavefronts) AS shared_wavefronts,
       CASE WHEN COUNT(CASE WHEN shared_wavefronts > 0 AND shared_wavefronts_ideal IS NULL THEN 1 END) = 0
            THEN SUM(shared_wavefronts_ideal) END AS shared_wavefronts_ideal,
       SUM(shared_excess) AS shared_excess,
       SUM(lld_inst) AS lld_inst, SUM(lst_inst) AS lst_inst, SUM(local_sectors) AS local_sectors,
       SUM(mem_8b) AS mem_8b, SUM(mem_16b) AS mem_16b, SUM(mem_32b) AS mem_32b,
       SUM(mem_64b) AS mem_64b, SUM(mem_128b) AS mem_128b,
       SUM(narrow_inst) AS narrow_inst, SUM(async_inst) AS async_inst,
       NULL AS branch_targets, -- (changed: 2026-12-03) NULL, as in v_inst
       SUM(branch_targets_divergent) AS branch_targets_divergent
FROM v_inst
GROUP BY config_id;

-- (version 2) One row per source line of each instrumented configuration
-- (per instruction where the cubin has no line info): v_inst summed over
-- the line's instructions, with the line's excess and its share of the
-- configuration's excess of each kind (the source view and the findings'
-- worst lines read it). location is 'file:line', or 'function+0xPC'
-- without line info; function, pc and sass are those of the line's
-- instruction with the most excess (else the most executed).
-- Shares are % of the configuration's total: gld_share_pct of its load
-- excess sectors, gst_share_pct of its store excess sectors,
-- shared_share_pct of its excess wavefronts, local_share_pct of its local
-- sectors, narrow_share_pct of its narrow global instructions
-- (NULL when the configuration has none of that kind).
CREATE VIEW v_inst_line AS
WITH i AS (
    SELECT v.*,
           CASE WHEN v.file IS NOT NULL THEN v.file || ':' || v.line
                ELSE v.function || '+0x' || printf('%x', v.pc) END AS location,
           ROW_NUMBER() OVER (PARTITION BY v.config_id,
                                  CASE WHEN v.file IS NOT NULL THEN v.file || ':' || v.line
                                       ELSE v.function || '+0x' || printf('%x', v.pc) END
                              ORDER BY v.gld_excess + v.gst_excess + v.atomic_excess + v.shared_excess + v.local_sectors DESC,
                                       v.inst_executed DESC, v.pc) AS rank_in_line
    FROM v_inst v
),
l AS (
    SELECT config_id, kernel_id, location, MIN(file) AS file, MIN(line) AS line,
           COUNT(*) AS instructions,
           SUM(inst_executed) AS inst_executed, SUM(thread_inst_executed) AS thread_inst_executed,
           SUM(gld_sectors) AS gld_sectors, SUM(gld_sectors_ideal) AS gld_sectors_ideal, SUM(gld_excess) AS gld_excess,
           SUM(gst_sectors) AS gst_sectors, SUM(gst_sectors_ideal) AS gst_sectors_ideal, SUM(gst_excess) AS gst_excess,
           SUM(atomic_sectors) AS atomic_sectors, SUM(atomic_sectors_ideal) AS atomic_sectors_ideal,
           SUM(atomic_excess) AS atomic_excess,
           SUM(shared_wavefronts) AS shared_wavefronts, SUM(shared_wavefronts_ideal) AS shared_wavefronts_ideal,
           SUM(shared_excess) AS shared_excess,
           SUM(local_sectors) AS local_sectors, SUM(local_sectors) AS local_excess,
           SUM(narrow_inst) AS narrow_inst, SUM(narrow_inst) AS narrow_excess,
           SUM(branch_targets_divergent) AS branch_targets_divergent
    FROM i GROUP BY config_id, location
)
SELECT l.*,
       w.function, w.pc, w.sass,
       l.gld_excess + l.gst_excess + l.atomic_excess AS global_excess, -- load, store and (since 2026-12-07) atomic sectors beyond the ideal
       100.0 * l.gld_excess / NULLIF(SUM(l.gld_excess) OVER (PARTITION BY l.config_id), 0) AS gld_share_pct,
       100.0 * l.gst_excess / NULLIF(SUM(l.gst_excess) OVER (PARTITION BY l.config_id), 0) AS gst_share_pct,
       100.0 * l.atomic_excess / NULLIF(SUM(l.atomic_excess) OVER (PARTITION BY l.config_id), 0) AS atomic_share_pct,
       100.0 * l.shared_excess / NULLIF(SUM(l.shared_excess) OVER (PARTITION BY l.config_id), 0) AS shared_share_pct,
       100.0 * l.local_excess / NULLIF(SUM(l.local_excess) OVER (PARTITION BY l.config_id), 0) AS local_share_pct,
       100.0 * l.narrow_excess / NULLIF(SUM(l.narrow_excess) OVER (PARTITION BY l.config_id), 0) AS narrow_share_pct
FROM l
JOIN i w ON w.config_id = l.config_id AND w.location = l.location AND w.rank_in_line = 1;
-- (added: merge) Load imbalance per kernel across the ranks of a merged
-- report: one row per kernel that ran on any rank. Ranks that never ran
-- it count as 0. imbalance_pct is the percent imbalance
-- (max - mean) / max * 100: 0 when every rank spends the same time in the
-- kernel, 100 * (1 - 1/ranks) when one rank does it all; wait_ns =
-- max - mean is the time the average rank would wait for the slowest at
-- the next collective, were the kernel the only work.
CREATE VIEW v_rank_imbalance AS
WITH n AS (SELECT COUNT(*) AS ranks FROM job_rank),
k AS (SELECT kernel_id, SUM(total_ns) AS sum_ns, MAX(total_ns) AS max_ns, MIN(total_ns) AS min_ns,
             COUNT(*) AS on_ranks, MAX(is_comm) AS is_comm
      FROM rank_kernel GROUP BY kernel_id)
SELECT k.kernel_id,
       k.on_ranks,                                    -- ranks that ran it
       n.ranks,                                       -- ranks in the job
       k.sum_ns / n.ranks AS mean_ns,                 -- mean time per rank, ns
       k.max_ns,                                      -- the most any rank spent, ns
       CASE WHEN k.on_ranks < n.ranks THEN 0 ELSE k.min_ns END AS min_ns, -- the least, ns
       (SELECT rank FROM rank_kernel r WHERE r.kernel_id = k.kernel_id
        ORDER BY total_ns DESC, rank LIMIT 1) AS max_rank, -- the rank that spent the most
       k.max_ns - k.sum_ns / n.ranks AS wait_ns,
       CASE WHEN k.max_ns > 0 THEN 100.0 * (k.max_ns - k.sum_ns / n.ranks) / k.max_ns END AS imbalance_pct,
       k.is_comm
FROM k, n;

-- (added: merge) Findings that appear on some ranks of a merged report
-- only: one row per (rule, kernel) found on fewer ranks than the job has,
-- with the ranks that have it ('2,5') and the worst severity among them.
CREATE VIEW v_rank_partial AS
WITH n AS (SELECT COUNT(*) AS ranks FROM job_rank),
g AS (SELECT f.rule_id, f.kernel_id, COUNT(DISTINCT rf.rank) AS on_ranks,
             GROUP_CONCAT(DISTINCT rf.rank) AS ranks_list,
             MIN(CASE rf.severity WHEN 'error' THEN 1 WHEN 'warning' THEN 2 ELSE 3 END) AS worst,
             SUM(rf.time_lost_ns) AS time_lost_ns
      FROM rank_finding rf JOIN finding f ON f.id = rf.finding_id
      WHERE rf.time_lost_ns > 0 OR f.time_lost_ns IS NULL OR f.time_lost_ns = 0
      GROUP BY f.rule_id, f.kernel_id)
SELECT g.rule_id, g.kernel_id, g.on_ranks, n.ranks,
       g.ranks_list,   -- the ranks it was found on, comma-separated
       CASE g.worst WHEN 1 THEN 'error' WHEN 2 THEN 'warning' ELSE 'note' END AS worst_severity,
       g.time_lost_ns  -- summed over those ranks, ns
FROM g, n WHERE g.on_ranks < n.ranks;
