/* SPDX-License-Identifier: MIT */
/*
 * occupancy: a C port of the arithmetic in CUDA's cuda_occupancy.h for
 * Volta and later, restricted to what gpuhier knows from trace records
 * (registers, static/dynamic shared memory, block size, carveout, cluster).
 * It ignores partitioned global caching (sm_5x/6x only), barriers (sm_90
 * has two per block slot, never binding for one barrier per block) and
 * virtual resources (sm_100+).
 */
#include "collector/occupancy.h"

#include <limits.h>
#include <stddef.h>

void
occupancy_device_sm90(struct occupancy_device *d)
{
    *d = (struct occupancy_device){
        .warp_size = 32,
        .max_threads_per_block = 1024,
        .max_warps_per_sm = 64,
        .max_blocks_per_sm = 32,
        .regs_per_sm = 65536,
        .regs_per_block = 65536,
        .max_regs_per_thread = 255,
        .reg_alloc_unit = 256,
        .smem_per_sm_bytes = 233472,
        .smem_per_block_optin_bytes = 232448,
        .smem_reserved_per_block_bytes = 1024,
        .smem_alloc_unit_bytes = 128,
        .max_cluster_size = 8,
    };
}

static int
round_up(int x, int unit)
{
    return unit > 0 ? (x + unit - 1) / unit * unit : x;
}

/*
 * sm_90 configures shared memory per SM in fixed steps; a request (or a
 * carveout preference) maps to the next step (cudaOccAlignUpShmemSizeVoltaPlus).
 */
int
occupancy_align_carveout(int bytes)
{
    static const int kb[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    for (size_t i = 0; i < sizeof kb / sizeof kb[0]; i++)
        if (bytes <= kb[i] * 1024)
            return kb[i] * 1024;
    return -1;
}

int
occupancy_carveout_from_pct(const struct occupancy_device *d, int pct)
{
    if (pct < 0 || pct > 100)
        return d->smem_per_sm_bytes;
    int b = occupancy_align_carveout((int)((long long)pct * d->smem_per_sm_bytes / 100));
    /* 0 bytes means "default" in struct occupancy_launch; 1 byte gives
     * the same result as 0 (any block needs more, so the step that fits
     * it is taken) */
    return b > 0 ? b : 1;
}

int
occupancy_compute(const struct occupancy_device *d, const struct occupancy_launch *l,
                  struct occupancy_result *r)
{
    *r = (struct occupancy_result){
        .limit_warps = INT_MAX,
        .limit_registers = INT_MAX,
        .limit_shared_memory = INT_MAX,
        .limit_blocks = d->max_blocks_per_sm,
        .limit_clusters = INT_MAX,
    };
    int threads = l->threads_per_block;
    if (threads <= 0 || threads > d->max_threads_per_block) {
        r->limit_warps = 0;
        r->limiter = "warps";
        return -1;
    }
    int warps = (threads + d->warp_size - 1) / d->warp_size;
    r->limit_warps = d->max_warps_per_sm / warps;

    /*
     * Registers live in the SM's 4 sub-partitions: a warp's allocation
     * (rounded to 256) must fit inside one, so the SM holds
     * 4 * floor(regs_per_sm / 4 / per_warp) warps, fewer than
     * regs_per_sm / per_warp when the division is uneven. The per-block
     * check rounds the warp count up to the 4 sub-partitions, as the
     * hardware does.
     */
    const int subparts = 4;
    int per_warp = round_up(l->regs_per_thread * d->warp_size, d->reg_alloc_unit);
    if (l->regs_per_thread > d->max_regs_per_thread || per_warp * warps > d->regs_per_block ||
        per_warp * round_up(warps, subparts) > d->regs_per_block) {
        r->limit_registers = 0;
    } else if (per_warp > 0) {
        int warps_per_sub = d->regs_per_sm / subparts / per_warp;
        r->limit_registers = warps_per_sub * subparts / warps;
    }

    /*
     * Shared memory: the driver reserves smem_reserved_per_block_bytes per
     * block on sm_8x+, and allocates in 128-byte units. The carveout is
     * what the driver configured (sharedMemoryExecuted); 0 means "take the
     * maximum", which is what the driver does without a preference. A
     * block that does not fit the preferred carveout makes the driver pick
     * the next step that fits it.
     */
    int per_block =
        round_up(l->static_smem_bytes + l->dynamic_smem_bytes + d->smem_reserved_per_block_bytes,
                 d->smem_alloc_unit_bytes);
    int carveout = l->carveout_bytes > 0 ? l->carveout_bytes : d->smem_per_sm_bytes;
    if (per_block > d->smem_per_block_optin_bytes + d->smem_reserved_per_block_bytes ||
        (l->max_dynamic_smem_bytes > 0 && l->dynamic_smem_bytes > l->max_dynamic_smem_bytes)) {
        r->limit_shared_memory = 0;
    } else {
        if (carveout < per_block) {
            carveout = occupancy_align_carveout(per_block);
            if (carveout < 0)
                carveout = d->smem_per_sm_bytes;
        }
        r->limit_shared_memory = per_block > 0 ? carveout / per_block : INT_MAX;
    }
    r->carveout_bytes = carveout;

    /*
     * Clusters: all blocks of a cluster are co-scheduled on one GPC. Per
     * SM that changes nothing we can compute without the GPC layout
     * (cuOccupancyMaxActiveClusters knows it); what we can say is that a
     * cluster larger than the device allows never launches.
     * NEEDSWORK: model GPC sizes to predict max active clusters.
     */
    if (l->cluster_size > 1 && l->cluster_size > d->max_cluster_size)
        r->limit_clusters = 0;

    /*
     * The binding limit is the smallest; ties go to the first in this
     * order. "warps" first: when the warp slots bind too, the SM is as
     * full as this block size allows and blaming registers would send the
     * user after a change that gains nothing. Then registers, which the
     * user controls, before the fixed block slots. Shared memory comes
     * last: the driver sizes the carveout it executes to the smallest step
     * that reaches the other limits, so at the executed carveout a tie
     * means the carveout fits the other limit, not that shared memory
     * binds (32-thread blocks with no shared memory get a 32 KB carveout
     * on the H200: 32 blocks by block slots, 32 by 1 KB reserved each).
     */
    struct {
        int v;
        const char *name;
    } lim[] = {
        {r->limit_warps, "warps"},       {r->limit_registers, "registers"},
        {r->limit_blocks, "blocks"},     {r->limit_shared_memory, "shared_memory"},
        {r->limit_clusters, "clusters"},
    };
    int best = 0;
    for (int i = 1; i < 5; i++)
        if (lim[i].v < lim[best].v)
            best = i;
    r->blocks_per_sm = lim[best].v;
    r->limiter = lim[best].name;
    r->active_warps = r->blocks_per_sm * warps;
    r->occupancy_pct = 100.0 * r->active_warps / d->max_warps_per_sm;
    return r->blocks_per_sm > 0 ? 0 : -1;
}

double
occupancy_waves(long blocks, int blocks_per_sm, int sm_count)
{
    if (blocks_per_sm <= 0 || sm_count <= 0)
        return -1;
    return (double)blocks / ((double)blocks_per_sm * sm_count);
}
