/* SPDX-License-Identifier: MIT */
/*
 * onepass: the one-pass groups the range profiler collects by default
 * (issue 18; docs/metrics.md "One-pass groups").
 *
 * Each profiled launch collects ONE group, under CUPTI's user replay: one
 * pass, nothing replayed, no device memory saved or restored. Group k of
 * a configuration goes to that configuration's k-th profiled launch
 * (sampling.h, SAMPLING_GROUPS). The plan is built once per chip, at the
 * first profiled launch, from the state counters' bundles
 * (metrics_state_bundles()), the code-only counters of the core set
 * that the pattern rules read (onepass_code_bundles()) and the extra
 * groups' bundles (onepass_group_bundles(): every name of every
 * catalogue group, the compute roof's pipes first), packed first fit
 * by metrics_pack_one_pass() with the tie counters added to every group
 * they fit. A bundle is never split, so every ratio's numerator and
 * denominator come from one launch; the L2 hit rate is the exception
 * (hits and misses cannot share a pass on GH100: two bundles).
 *
 * Nothing here calls the GPU: the packing counts passes offline with
 * CUPTI's host API, so unit.onepass checks the plan on any machine.
 */
#ifndef GPUHIER_COLLECTOR_ONEPASS_H
#define GPUHIER_COLLECTOR_ONEPASS_H
#include "collector/metrics.h"

#include <stddef.h>

/* The most groups a plan holds (sampling.h's SAMPLING_GROUPS_MAX, the per-configuration order, agrees). */
#define ONEPASS_MAX_GROUPS 12
/* The most bundles a plan packs (state + code-only). */
#define ONEPASS_MAX_BUNDLES METRICS_PACK_MAX

/*
 * The code-only counters of the core set (pattern counters: they depend
 * only on the code and its inputs) that the pattern rules read, each
 * bundle with its denominators: global sectors with their instructions,
 * shared wavefronts and conflicts with their instructions, local sectors
 * with their instructions, ATOM/RED, LDC and LDGSTS instruction counts.
 * They stay in the groups so a run without the instrumentation engine
 * still has its sectors and requests. Static; never NULL.
 */
const struct metrics_bundle *onepass_code_bundles(size_t *n);

/*
 * The extra groups' bundles (docs/metrics.md "One-pass groups"): each
 * catalogue bundle holding no core name (the compute roof's pipes, TMA
 * bytes, LSU requests...), then per catalogue group its names that no
 * bundle holds (group sass_bytes, the atomic requests), in catalogue
 * order, each with the tie set but for SASS-patched names (which cannot
 * share a pass with it on GH100). Static; never NULL; thread-safe.
 */
const struct metrics_bundle *onepass_group_bundles(size_t *n);

/*
 * The bundles in packing order into b[] (at most `cap`): first the state
 * bundles that serve the floor, occupancy, the L1 hit rate and local
 * memory (whatever the catalogue calls them: picked by the names they
 * hold), then the code-only bundles, then the other state bundles holding
 * core names in their order, then onepass_group_bundles(). First fit
 * keeps that priority: group 1 gets what most rules read. Returns the
 * count. Pure.
 */
size_t onepass_bundles(struct metrics_bundle *b, size_t cap);

/*
 * Which bundles first fit meets first. ONEPASS_CODE_EARLY is the default
 * (onepass_bundles()). ONEPASS_ROOF_EARLY (a diagnosis plan,
 * GPUHIER_DIAG_PLAN_ORDER=roof; docs/metrics.md "The tensor roof in group
 * 1") puts the compute roof's bundles right after the floor's and the
 * code-only bundles after every state bundle holding a core name: group 1
 * then has the tensor pipe, and the sectors and requests that the
 * instrumentation engine counts exactly wait for a later group.
 */
enum onepass_order { ONEPASS_CODE_EARLY, ONEPASS_ROOF_EARLY };

/* onepass_bundles() in `order`. Pure. */
size_t onepass_bundles_ordered(enum onepass_order order, struct metrics_bundle *b, size_t cap);

/* The tie counters added to every group they fit (work done, time taken). */
const char *const *onepass_tie(size_t *n);

/* A packed plan for one chip. */
struct onepass_plan {
    char chip[32];
    size_t ngroups;                 /* groups, <= ONEPASS_MAX_GROUPS */
    size_t nbundles;                /* bundles packed */
    size_t left_out;                /* bundles that alone need more than one pass */
    struct metrics_packing packing; /* names per group (packing.names[g], .count[g]) */
    struct metrics_bundle bundles[ONEPASS_MAX_BUNDLES]; /* borrowed from the static tables */
    int from_cache; /* read back from the plan cache (onepass_plan_build()) */
};

/*
 * Packs the plan for `chip` (e.g. "GH100"): onepass_bundles() through
 * metrics_pack_one_pass() with onepass_tie(). Allocates and counts passes
 * (tens of ms per count, 190 ms in all on a 2-core build machine): call
 * once per chip. A packed plan is kept in the plan cache, a file named by
 * a hash of the chip, the bundles, the tie and the libcupti loaded (its
 * path, size and time), under GPUHIER_CACHE_DIR, else
 * $XDG_CACHE_HOME/gpuhier, else ~/.cache/gpuhier (GPUHIER_CACHE_DIR=""
 * turns the cache off); a later build reads it back and only checks that
 * each group is one pass (metrics_pack_restore(), about 14 ms), and packs
 * again when it cannot (from_cache says which). A cache that cannot be
 * written is not an error. 0, or -1 with err (no CUPTI, a name the chip
 * lacks, more groups than ONEPASS_MAX_GROUPS). Release with
 * onepass_plan_release().
 */
int onepass_plan_build(struct onepass_plan *p, const char *chip, char *err, size_t errlen);

/* onepass_plan_build() of onepass_bundles_ordered(order): its own cache entry. */
int onepass_plan_build_ordered(struct onepass_plan *p, const char *chip, enum onepass_order order,
                               char *err, size_t errlen);

/* Frees the plan's names; safe on a zeroed or released plan. */
void onepass_plan_release(struct onepass_plan *p);

/* The group (0-based) holding `name`, the first if several do (a tie); -1 if none. */
int onepass_group_of(const struct onepass_plan *p, const char *name);

/*
 * The order of a configuration's later groups from its first group's
 * values (names[i] -> values[i]; missing names are unknown) and the
 * local memory its function declares (local_bytes_per_thread, from
 * CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES; -1 unknown): order[0] is always
 * group 0; then, when the function has local memory (spills or a local
 * array), the groups holding the local-memory sectors (local-memory-
 * traffic's verdict; a function without local memory never moves any);
 * then the groups holding what metrics_extras_wanted() asks for (the
 * catalogue's triggers): first those holding group roof (the pipes: the
 * compute roof), then those holding any other group asked for (TMA,
 * atomic, host, const, requests names); then, when the first group saw
 * DRAM reads, the groups holding the L2 lookups (the hits' and misses'
 * groups next to each other), then the rest, each rank in group order.
 * Fills order[0..ngroups-1], a permutation; returns ngroups. Pure.
 */
size_t onepass_order(const struct onepass_plan *p, const char *const *names, const double *values,
                     size_t n, long local_bytes_per_thread, unsigned char *order);

#endif
