/* SPDX-License-Identifier: MIT */
/*
 * metrics: which hardware metrics gpuhier collects, and the CUPTI Profiler
 * Host API wrapper that turns names into a config image and counter data
 * back into values.
 *
 * Metric sets. Every sampled launch pays for the core set
 * (metrics_default_set(), at most 3 replay passes on GH100). Extra groups
 * (enum metrics_group) cost more passes and are collected only where a
 * rule needs them, on a later launch of a configuration whose core profile
 * showed the symptom (metrics_extras_wanted()). docs/metrics.md has the
 * rule -> metric table and the measured pass count of every group.
 *
 * The host wrapper calls CUPTI through cupti_sym() (collector/cupti_load.h);
 * metrics_host_open() calls cupti_load() itself. It works without a GPU
 * for chips this CUPTI knows (chip "GH100"): no counter-availability image
 * is passed (CUPTI-NOTES §8: an image taken inside a callback crashed the
 * host initialization on the H200).
 */
#ifndef GPUHIER_COLLECTOR_METRICS_H
#define GPUHIER_COLLECTOR_METRICS_H
#include "schema/catalogue.h"

#include <stddef.h>

/*
 * Extra metric groups, as flags so a set of them fits in one unsigned.
 * They are schema/metrics.catalogue's groups, flag 1 << i for the i-th
 * declared there: these names are its first six (unit.metrics checks
 * that they match); a group added to the catalogue is reached by
 * metrics_group_from_name() or its flag, with no edit here.
 */
enum metrics_group {
    METRICS_GROUP_TMA = 1 << 0,      /* TMA / LDGSTS bytes, L2->L1 bytes */
    METRICS_GROUP_REQUESTS = 1 << 1, /* LSU global ld/st requests */
    METRICS_GROUP_HOST = 1 << 2,     /* L2 sectors to system memory */
    METRICS_GROUP_CONST = 1 << 3,    /* constant-cache requests, LDC instructions */
    METRICS_GROUP_ATOMIC = 1 << 4,   /* L2 atomic/reduction sectors, atom/red instructions */
    METRICS_GROUP_SASS_BYTES =
        1 << 5, /* requested bytes and instructions by width (SASS-instrumented) */
};
/* Every group of the catalogue (not a constant expression: the catalogue is data). */
#define METRICS_GROUP_ALL ((unsigned)((1u << catalogue_ngroups) - 1))
/* For metrics_list_build(): leave the core set out (GPUHIER_METRIC_SET=none). */
#define METRICS_NO_CORE (1u << 30)
/*
 * For metrics_list_build() with METRICS_NO_CORE: add the tie set, the
 * counters that tell whether two launches did the same work (warp
 * instructions, global load and store sectors) and the duration. An
 * extras profile carries them instead of the whole core, so the analyzer
 * can join it to the configuration's core profile or set it aside.
 */
#define METRICS_TIE (1u << 29)

/*
 * The core set every sampled launch pays. Returns a static array of
 * `*n` names (never NULL).
 */
const char *const *metrics_default_set(size_t *n);

/*
 * The names of one extra group (a single flag). Returns a static array of
 * `*n` names, or NULL with *n = 0 for an unknown flag.
 */
const char *const *metrics_group_set(enum metrics_group g, size_t *n);

/* Short name of a group flag (the catalogue's: "tma", "requests", "host",
 * "const", "atomic", "sass_bytes"), or NULL. */
const char *metrics_group_name(enum metrics_group g);

/*
 * profile.metric_set's name for a host object: `base` ("core", "metrics"
 * or "tie") then "+name" for each group of `mask` in flag order, into
 * buf (n bytes, always terminated, cut if too short). Returns the length
 * written. METRICS_SET_NAME_MAX holds every group at once.
 */
#define METRICS_SET_NAME_MAX 64
size_t metrics_set_name(const char *base, unsigned mask, char *buf, size_t n);

/* Group flag for a short name (as above), or 0 if unknown. */
enum metrics_group metrics_group_from_name(const char *name);

/*
 * The policy for extras: given the core set's values of one profiled
 * launch (names[i] -> values[i], in any order, only core names are read;
 * missing names count as unknown), returns the groups a later launch of
 * the same configuration should collect (a mask of enum metrics_group).
 * Pure function. The conditions are the catalogue's triggers
 * (schema/metrics.catalogue; docs/metrics.md states each).
 */
unsigned metrics_extras_wanted(const char *const *names, const double *values, size_t n);

/*
 * Builds the list to configure: the core set (unless `groups` has
 * METRICS_NO_CORE; the tie set instead with METRICS_TIE), then each group
 * in `groups`,
 * then the comma-separated `added` (GPUHIER_METRICS, may be NULL), without
 * duplicates. Returns a malloc'd array of `*n` borrowed static/heap names;
 * free with metrics_list_free(). NULL on allocation failure or an empty
 * name in `added` (message in err).
 */
char **metrics_list_build(unsigned groups, const char *added, size_t *n, char *err, size_t errlen);
void metrics_list_free(char **list, size_t n);

/* ---------------------------------------------------------------- host */

struct metrics_host;

/*
 * Initializes the Profiler Host API for `chip` (e.g. "GH100", from
 * cuptiDeviceGetChipName), validates every name with
 * cuptiProfilerHostGetMetricProperties, adds them to a config and builds
 * the config image. On a bad name fails with "unknown metric 'NAME' for
 * chip 'CHIP'" in err. Copies `names`. Returns 0 and *out (free with
 * metrics_host_free()), or -1 with a message. Not thread-safe per object;
 * separate objects may be used from separate threads.
 */
int metrics_host_open(const char *chip, const char *const *names, size_t n,
                      struct metrics_host **out, char *err, size_t errlen);

/* The config image for cuptiRangeProfilerSetConfig; *size gets its size.
 * Owned by `h`. */
const void *metrics_host_config_image(const struct metrics_host *h, size_t *size);

/* Replay passes the config image needs (cuptiProfilerHostGetNumOfPasses). */
int metrics_host_passes(const struct metrics_host *h);

/* The metric names of `h`, in configuration order (owned by `h`). */
const char *const *metrics_host_names(const struct metrics_host *h, size_t *n);

/*
 * Evaluates range `range_index` of a counter-data image into values[]
 * (one double per name of metrics_host_names(), same order). Returns 0 or
 * -1 (CUPTI's error name in the message of metrics_host_error()).
 */
int metrics_host_evaluate(struct metrics_host *h, const void *counter_data, size_t size,
                          size_t range_index, double *values);

/*
 * Names that may be dropped (comma-separated, copied; NULL clears): the
 * metrics a rule asked for (GPUHIER_RULE_METRICS). metrics_host_open()
 * leaves out one the chip does not know instead of failing, unless it is
 * the only name. Call before opening host objects; not thread-safe.
 */
void metrics_set_optional(const char *csv);

/* The optional names `h` left out, quoted and comma-separated ("" if none). Owned by `h`. */
const char *metrics_host_dropped(const struct metrics_host *h);

/* Last error message of `h` ("" if none). Owned by `h`. */
const char *metrics_host_error(const struct metrics_host *h);

/* Deinitializes and frees; NULL is a no-op. */
void metrics_host_free(struct metrics_host *h);

/*
 * One host object per extras mask, opened when first asked for, so a
 * launch chosen with sampling_decide_ex()'s extras can be configured with
 * core + those groups (+ the user's added names) while other launches keep
 * the core. Usage: metrics_hosts_init() once per chip; metrics_hosts_get()
 * at each profiled launch (its config image goes to
 * cuptiRangeProfilerSetConfig, its names to GetCounterDataSize and to
 * evaluation); metrics_hosts_release() at exit. Host objects stay alive
 * until release, so records may keep pointing at their names.
 */
struct metrics_hosts {
    char chip[64];
    char *added; /* GPUHIER_METRICS copy, or NULL */
    struct metrics_host *by_mask[1u << CATALOGUE_MAX_GROUPS];
};

/* Opens the core host (mask 0) for `chip`; -1 with err (e.g. a bad added name). */
int metrics_hosts_init(struct metrics_hosts *c, const char *chip, const char *added, char *err,
                       size_t errlen);

/* The host for core + the groups in `mask` (opened on first use; it
 * allocates). NULL with err on failure; the caller may fall back to mask 0. */
struct metrics_host *metrics_hosts_get(struct metrics_hosts *c, unsigned mask, char *err,
                                       size_t errlen);

/* Frees every host object; safe on a zeroed or released struct. */
void metrics_hosts_release(struct metrics_hosts *c);

/*
 * Passes `n` names would need on `chip`, without keeping a host object
 * (for docs and `gpuhier doctor`). Returns the pass count or -1 with err.
 */
int metrics_count_passes(const char *chip, const char *const *names, size_t n, char *err,
                         size_t errlen);

/*
 * One-pass groups (issue 18, docs/metrics.md "One-pass groups"). A
 * bundle is a set of names that must be collected on the same launch:
 * the numerator and denominator of every ratio it serves (a hit rate's
 * hits and misses, bytes and the duration they took). A group is what one
 * profiled launch collects with no replay: its bundles together fit one
 * pass. Bundles come in priority order: the first groups serve the rules
 * whose data matters first (the floor and the tier that binds).
 */
struct metrics_bundle {
    const char *what; /* what it serves, for docs and tests */
    const char *const *names;
    size_t n;
};

/* The state counters' bundles (those that depend on cache state and
 * timing), in priority order: the catalogue's bundles. Static; never
 * NULL; thread-safe. */
const struct metrics_bundle *metrics_state_bundles(size_t *n);

#define METRICS_PACK_MAX 32
struct metrics_packing {
    size_t ngroups;
    int group_of[METRICS_PACK_MAX];     /* per bundle: its group, -1 when alone it needs
                                           more than one pass (passes_alone says how many) */
    int passes_alone[METRICS_PACK_MAX]; /* per bundle */
    char **names[METRICS_PACK_MAX];     /* per group: its names, deduplicated, in order */
    size_t count[METRICS_PACK_MAX];
    unsigned char tied[METRICS_PACK_MAX]; /* per group: the tie counters were added */
};

/*
 * Packs `nb` (<= METRICS_PACK_MAX) bundles into one-pass groups on `chip`,
 * first fit in the order given, so earlier bundles land in earlier
 * groups; then adds `tie` (the counters that tell two launches did the
 * same work, may be NULL) to each group it still fits in one pass. Counts
 * passes offline (metrics_count_passes(): no GPU needed for a chip this
 * CUPTI knows). Returns 0 and fills *out (free with
 * metrics_packing_free()), or -1 with err (a bad name, no CUPTI).
 */
int metrics_pack_one_pass(const char *chip, const struct metrics_bundle *b, size_t nb,
                          const char *const *tie, size_t ntie, struct metrics_packing *out,
                          char *err, size_t errlen);

/*
 * Rebuilds the packing metrics_pack_one_pass() made of the same bundles and
 * tie from what it decided (a plan read back from a cache): `ngroups`
 * groups, each bundle's group_of and passes_alone, each group's tied. No
 * pass is counted for a candidate; each group is then counted once, and
 * must be one pass. Returns 0 and fills *out, or -1 with err when the
 * arrays do not describe a packing of these bundles or a group is not one
 * pass (the caller packs again).
 */
int metrics_pack_restore(const char *chip, const struct metrics_bundle *b, size_t nb,
                         const char *const *tie, size_t ntie, size_t ngroups, const int *group_of,
                         const int *passes_alone, const unsigned char *tied,
                         struct metrics_packing *out, char *err, size_t errlen);

/* Frees the names of a packing; safe on a zeroed one. */
void metrics_packing_free(struct metrics_packing *p);

#endif
