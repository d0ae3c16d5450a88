/* SPDX-License-Identifier: MIT */
/*
 * occupancy: the CUDA occupancy calculator, in C, with no driver call.
 *
 * Resident blocks per SM are the minimum of five limits: warps, registers
 * (allocated per warp in units of `reg_alloc_unit`, and capped per block),
 * shared memory (static + dynamic + the per-block reservation, rounded to
 * the allocation unit, against the carveout), the block-slot limit, and
 * for cluster launches the cluster limit. The binding one is the limiter.
 * Tested against cuOccupancyMaxActiveBlocksPerMultiprocessor values read
 * on an H200 (tests/fixtures/occupancy-h200.txt).
 */
#ifndef GPUHIER_COLLECTOR_OCCUPANCY_H
#define GPUHIER_COLLECTOR_OCCUPANCY_H

/* Per-SM limits of a device. */
struct occupancy_device {
    int warp_size;                     /* threads per warp (32) */
    int max_threads_per_block;         /* 1024 */
    int max_warps_per_sm;              /* 64 on sm_90 */
    int max_blocks_per_sm;             /* 32 on sm_90 */
    int regs_per_sm;                   /* 65536 */
    int regs_per_block;                /* 65536: registers one block may hold */
    int max_regs_per_thread;           /* 255 */
    int reg_alloc_unit;                /* registers, per warp (256) */
    int smem_per_sm_bytes;             /* largest carveout (233472 = 228 KB on sm_90) */
    int smem_per_block_optin_bytes;    /* 232448 (227 KB) on sm_90 */
    int smem_reserved_per_block_bytes; /* 1024 on sm_90 */
    int smem_alloc_unit_bytes;         /* 128 */
    int max_cluster_size;              /* 8 portable (16 with opt-in) */
};

/* Fills `d` with the sm_90 (H100/H200) limits. */
void occupancy_device_sm90(struct occupancy_device *d);

/* One launch configuration. */
struct occupancy_launch {
    int threads_per_block;
    int regs_per_thread;
    int static_smem_bytes;
    int dynamic_smem_bytes;
    int carveout_bytes; /* shared memory per SM the driver configured; 0 = default (the maximum);
                             a value a block does not fit in is raised to the step that fits it */
    int max_dynamic_smem_bytes; /* the function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 0 = unknown */
    int cluster_size; /* blocks per cluster, 0 or 1 = no cluster */
};

struct occupancy_result {
    int blocks_per_sm;    /* resident blocks per SM (0: cannot launch) */
    int active_warps;     /* blocks_per_sm * warps per block */
    double occupancy_pct; /* active_warps / max_warps_per_sm * 100 */
    const char *limiter;  /* "warps", "registers", "shared_memory", "blocks", "clusters" (static) */
    int limit_warps;      /* blocks allowed by each limit (INT_MAX when unlimited) */
    int limit_registers;
    int limit_shared_memory;
    int limit_blocks;
    int limit_clusters;
    int carveout_bytes; /* carveout the calculation used */
};

/*
 * Computes occupancy. Returns 0, or -1 when the configuration cannot
 * launch at all (block too large, too many registers or too much shared
 * memory per block); then r->blocks_per_sm is 0 and r->limiter names the
 * cause. Ties between limits are broken in the order warps, registers,
 * blocks, shared_memory, clusters (occupancy.c says why). Pure function.
 */
int occupancy_compute(const struct occupancy_device *d, const struct occupancy_launch *l,
                      struct occupancy_result *r);

/* Waves of a grid: blocks / (blocks_per_sm * sm_count); -1 when either is 0. */
double occupancy_waves(long blocks, int blocks_per_sm, int sm_count);

/*
 * The shared-memory size per SM the driver configures for a request of
 * `bytes`: the next sm_90 step (0, 8, 16, 32, 64, 100, 132, 164, 196,
 * 228 KB). -1 if larger than the largest.
 */
int occupancy_align_carveout(int bytes);

/*
 * Carveout for a CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
 * percentage (0..100; anything else = default = the maximum). Returns 1
 * for a 0 % preference (0 would mean "default" in struct occupancy_launch).
 */
int occupancy_carveout_from_pct(const struct occupancy_device *d, int pct);

#endif
