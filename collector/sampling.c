/* SPDX-License-Identifier: MIT */
/*
 * sampling: per-configuration launch counting and the profile/skip
 * decision. Runs inside CUPTI launch callbacks: no allocation after init,
 * one short critical section per launch. The table stores a 64-bit hash
 * of the kernel name with the launch geometry instead of the name itself,
 * so deciding needs no string copies; a collision (two kernels whose
 * names hash alike with identical geometry) merges two configurations,
 * which at worst skips one profile.
 */
#include "collector/sampling.h"

#include "schema/hash.h"
#include "schema/optvalue.h"
#include "schema/severity.h"

#include <demangle.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sampling_slot {
    uint64_t hash;      /* 0 = empty */
    uint64_t name_hash; /* of the kernel's name alone: its other configurations share it */
    uint32_t grid[3], block[3], smem;
    long launches; /* launches seen (config_launch_index of the next) */
    long eligible; /* launches past filters and skip */
    long profiled;
    int64_t gpu_ns;   /* GPU time of its traced launches so far (sampling_add_gpu_time) */
    long timed;       /* the traced launches gpu_ns adds up */
    int64_t inst_ns;  /* what its instrumented launch cost (sampling_inst_cost), 0: none yet */
    int inst_waiting; /* with both engines: waited for the instrumentation engine's price */
    int inst_learned; /* inst_ns and its native time are in the learned slowdown */
    int inst_claimed; /* a launch chosen as "inst_deferred" not yet served or given back */
    unsigned extras;  /* groups requested, not yet collected */
    int extras_done;
    int instrumented; /* with both engines: the instrumentation engine served it */
    int has_order;    /* order[] set (sampling_set_group_order) */
    unsigned char order[SAMPLING_GROUPS_MAX]; /* one-pass groups, in the order to collect */
    unsigned done;                            /* the groups given (bit per group) */
    int first_inflight; /* its first group given to a launch (track_first) that has not ended */
    long last_seen;     /* `seen` at its last launch (group runs: the program's period) */
    int floor_held;     /* a later group of it was deferred by the severity floor */
};

int
sampling_parse_mode(const char *spec, struct sampling_opts *o, char *err, size_t n)
{
    enum optvalue_sample k = OPTVALUE_SAMPLE_CONFIG;
    long v = 1;
    if (spec && *spec && optvalue_sample(spec, &k, &v) != 0) {
        if (!strncmp(spec, "first:", 6) || !strncmp(spec, "every:", 6))
            snprintf(err, n, "bad --sample '%s': N must be a whole number >= 1", spec);
        else
            snprintf(err, n, "bad --sample '%s': expected config, all, first:N or every:N", spec);
        return -1;
    }
    static const enum sampling_mode modes[] = {
        [OPTVALUE_SAMPLE_CONFIG] = SAMPLING_CONFIG,
        [OPTVALUE_SAMPLE_ALL] = SAMPLING_ALL,
        [OPTVALUE_SAMPLE_FIRST] = SAMPLING_FIRST,
        [OPTVALUE_SAMPLE_EVERY] = SAMPLING_EVERY,
    };
    o->mode = modes[k];
    o->n = v;
    return 0;
}

/* NAME=milliseconds (>= 0) or "none" (-1) into *ns; unset leaves it. -1 with err on a bad value. */
static int
allowance_from_env(const char *name, int64_t *ns, char *err, size_t n)
{
    const char *v = getenv(name);
    long ms = 0;
    if (!v || !*v)
        return 0;
    if (!strcmp(v, "none"))
        *ns = -1;
    else if (optvalue_count(v, 0, &ms) == 0 && ms <= 1000L * 1000 * 1000)
        *ns = (int64_t)ms * 1000000LL;
    else {
        snprintf(err, n, "bad %s '%s': expected milliseconds >= 0 or none", name, v);
        return -1;
    }
    return 0;
}

/* A diagnosis switch: NAME set and not "0" turns *on to 1, "0" to 0; unset or empty leaves it. */
static void
switch_from_env(const char *name, int *on)
{
    *on = optvalue_switch(getenv(name), *on);
}

/* NAME=a percentage > 0, or "0" / "none" (0: off) into *pct; unset leaves it. -1 with err. */
static int
percent_from_env(const char *name, double *pct, char *err, size_t n)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    if (!strcmp(v, "0") || !strcmp(v, "none"))
        *pct = 0;
    else if (optvalue_percent(v, pct) != 0) {
        snprintf(err, n, "bad %s '%s': expected a percentage > 0 or none", name, v);
        return -1;
    }
    return 0;
}

int
sampling_opts_from_env(struct sampling_opts *o, char *err, size_t n)
{
    const char *v;
    if ((v = getenv("GPUHIER_SAMPLE")) && *v && sampling_parse_mode(v, o, err, n) != 0)
        return -1;
    if ((v = getenv("GPUHIER_KERNEL")) && *v)
        o->kernel = v;
    if ((v = getenv("GPUHIER_NVTX_INCLUDE")) && *v)
        o->nvtx = v;
    if ((v = getenv("GPUHIER_LAUNCH_SKIP")) && *v && optvalue_count(v, 0, &o->launch_skip) != 0) {
        snprintf(err, n, "bad GPUHIER_LAUNCH_SKIP '%s': expected a whole number >= 0", v);
        return -1;
    }
    if ((v = getenv("GPUHIER_LAUNCH_COUNT")) && *v && optvalue_count(v, 0, &o->launch_count) != 0) {
        snprintf(err, n, "bad GPUHIER_LAUNCH_COUNT '%s': expected a whole number >= 0", v);
        return -1;
    }
    if ((v = getenv("GPUHIER_PROFILE_BUDGET")) && *v && optvalue_percent(v, &o->budget_pct) != 0) {
        snprintf(err, n, "bad GPUHIER_PROFILE_BUDGET '%s': expected a percentage > 0", v);
        return -1;
    }
    switch_from_env("GPUHIER_DIAG_STICKY_GROUPS", &o->sticky_groups);
    /* group runs are the default since 2026-12-04 (docs/sampling.md "Group runs") */
    o->run_floor = SAMPLING_RUN_FLOOR;
    if ((v = getenv("GPUHIER_DIAG_RP_RUNS")) && *v) {
        if (!strcmp(v, "0"))
            o->run_floor = -1;
        else if (optvalue_count(v, 0, &o->run_floor) != 0) {
            snprintf(err, n, "bad GPUHIER_DIAG_RP_RUNS '%s': expected 0, 1 or a floor of launches",
                     v);
            return -1;
        }
    }
    switch_from_env("GPUHIER_DIAG_RP_AFTER_INST", &o->rp_after_inst);
    switch_from_env("GPUHIER_DIAG_RP_RUN_SKIP", &o->run_skip);
    if (allowance_from_env("GPUHIER_FIRST_ALLOWANCE_MS", &o->first_allowance_ns, err, n) ||
        allowance_from_env("GPUHIER_INSTRUMENT_ALLOWANCE_MS", &o->inst_allowance_ns, err, n))
        return -1;
    if ((v = getenv("GPUHIER_INSTRUMENT_BUDGET")) && *v) {
        if (!strcmp(v, "none"))
            o->inst_allowance_ns = -1;
        else if (optvalue_percent(v, &o->inst_budget_pct) != 0) {
            snprintf(err, n,
                     "bad GPUHIER_INSTRUMENT_BUDGET '%s': expected a percentage > 0 or none", v);
            return -1;
        }
    }
    if ((v = getenv("GPUHIER_DIAG_GROUPS_SETTLE")) && *v) {
        if (!strcmp(v, "none"))
            o->settle_floor = -1;
        else if (optvalue_count(v, 0, &o->settle_floor) != 0) {
            snprintf(err, n,
                     "bad GPUHIER_DIAG_GROUPS_SETTLE '%s': expected a whole number >= 0 or none",
                     v);
            return -1;
        }
    }
    switch_from_env("GPUHIER_DIAG_RP_FIRST_WAITS", &o->first_waits_run);
    switch_from_env("GPUHIER_DIAG_RUN_VALUE", &o->run_value);
    if ((v = getenv("GPUHIER_DIAG_GROUPS_FLOOR")) && *v)
        o->no_floor = !strcmp(v, "0");
    if (percent_from_env("GPUHIER_DIAG_LATER_TOTAL_BUDGET", &o->later_total_pct, err, n) ||
        percent_from_env("GPUHIER_GROUP_BUDGET", &o->group_budget_pct, err, n))
        return -1;
    return 0;
}

int
sampling_budget_allows(double budget_pct, int64_t profiling_ns, int64_t elapsed_ns)
{
    if (budget_pct <= 0 || profiling_ns <= 0)
        return 1;
    double rest = (double)(elapsed_ns - profiling_ns);
    return rest > 0 && (double)profiling_ns <= budget_pct / 100.0 * rest;
}

/*
 * How many profiles `slack_ns` of budget buys at the mean cost of the
 * `profiles` taken (SAMPLING_PROFILE_NS_GUESS before the first), at least 1.
 */
static long
slots_for(double slack_ns, int64_t profiling_ns, long profiles)
{
    double mean = profiles > 0 && profiling_ns > 0 ? (double)profiling_ns / (double)profiles
                                                   : (double)SAMPLING_PROFILE_NS_GUESS;
    double n = slack_ns / mean;
    return n >= 1 ? (n < 1e9 ? (long)n : 1000000000L) : 1;
}

long
sampling_budget_slots(double budget_pct, int64_t profiling_ns, int64_t elapsed_ns, long profiles)
{
    if (budget_pct <= 0)
        return LONG_MAX;
    if (!sampling_budget_allows(budget_pct, profiling_ns, elapsed_ns))
        return 0;
    double slack = budget_pct / 100.0 * (double)(elapsed_ns - profiling_ns) - (double)profiling_ns;
    return slots_for(slack, profiling_ns, profiles);
}

long
sampling_first_slots(double budget_pct, int64_t allowance_ns, int64_t profiling_ns,
                     int64_t elapsed_ns, long profiles)
{
    if (allowance_ns < 0 || budget_pct <= 0 || profiling_ns < allowance_ns)
        return LONG_MAX;
    double beyond = (double)(profiling_ns - allowance_ns);
    double own = (double)(elapsed_ns - profiling_ns); /* the program's own time */
    double slack = budget_pct / 100.0 * own - beyond;
    if (own <= 0 || slack < 0)
        return 0;
    return slots_for(slack, profiling_ns, profiles);
}

long
sampling_allowance_slots(double budget_pct, int64_t allowance_ns, int64_t profiling_ns,
                         int64_t elapsed_ns, long profiles)
{
    if (allowance_ns < 0 || profiling_ns >= allowance_ns)
        return sampling_first_slots(budget_pct, allowance_ns, profiling_ns, elapsed_ns, profiles);
    return slots_for((double)(allowance_ns - profiling_ns), profiling_ns, profiles);
}

int
sampling_repeated(long seen, long last_new, long floor)
{
    long need = last_new > floor ? last_new : floor;
    return seen - last_new >= need;
}

/* The program's period as the runs use it: capped at SAMPLING_RUN_PERIOD_MAX, at least `floor`. */
static long
period_within(long period, long floor)
{
    long p = period < SAMPLING_RUN_PERIOD_MAX ? period : SAMPLING_RUN_PERIOD_MAX;
    return p < floor ? floor : p;
}

int
sampling_run_ends(long seen, long mark, long period, long floor)
{
    return seen - mark >= period_within(period, floor);
}

int
sampling_after_inst(long seen, long last_inst, long wait, long period)
{
    if (last_inst <= 0 || seen - last_inst >= period_within(period, 1))
        return 1;
    return wait >= 0 && seen - wait >= SAMPLING_RUN_PERIOD_MAX;
}

int
sampling_groups_wait(int64_t allowance_ns, int64_t profiling_ns, int64_t first_ns)
{
    return allowance_ns >= 0 && profiling_ns - first_ns >= allowance_ns / 2;
}

int
sampling_can_warn(int64_t cfg_ns, int64_t gpu_ns, int64_t own_ns)
{
    if (cfg_ns <= 0)
        return 0;
    if ((double)cfg_ns * 100.0 < SEV_WARNING_GPU_PCT * (double)gpu_ns)
        return 0;
    return own_ns <= 0 || (double)cfg_ns * 100.0 >= SEV_WARNING_WALL_PCT * (double)own_ns;
}

int64_t
sampling_busy_backoff_ns(int consecutive)
{
    const int64_t first_ns = 10 * 1000000LL, max_ns = 2000 * 1000000LL;
    int64_t ns = first_ns;
    for (int i = 1; i < consecutive && ns < max_ns; i++)
        ns *= 2;
    return ns < max_ns ? ns : max_ns;
}

static int
compile(regex_t *re, const char *pat, const char *what, char *err, size_t n)
{
    int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[128];
        regerror(rc, re, msg, sizeof msg);
        snprintf(err, n, "bad %s regex '%s': %s", what, pat, msg);
        return -1;
    }
    return 0;
}

int
sampling_init(struct sampling *s, const struct sampling_opts *o, size_t cap, char *err, size_t n)
{
    memset(s, 0, sizeof *s);
    s->opts = *o;
    s->last_group = -1;
    s->inst_wait = -1;
    if (s->opts.n < 1)
        s->opts.n = 1;
    if (o->kernel && compile(&s->kernel_re, o->kernel, "kernel", err, n) != 0)
        return -1;
    s->has_kernel_re = o->kernel != NULL;
    if (o->nvtx && compile(&s->nvtx_re, o->nvtx, "NVTX", err, n) != 0)
        goto fail;
    s->has_nvtx_re = o->nvtx != NULL;
    /* power of two for cheap probing */
    size_t c = 1024;
    while (c < (cap ? cap : 65536))
        c <<= 1;
    s->slots = calloc(c, sizeof *s->slots);
    s->order = calloc(c, sizeof *s->order);
    if (!s->slots || !s->order) {
        free(s->slots);
        free(s->order);
        snprintf(err, n, "out of memory for %zu configurations", c);
        goto fail;
    }
    s->cap = c;
    pthread_mutex_init(&s->lock, NULL);
    /* the strings are only needed for compiling */
    s->opts.kernel = s->opts.nvtx = NULL;
    return 0;
fail:
    if (s->has_kernel_re)
        regfree(&s->kernel_re);
    if (s->has_nvtx_re)
        regfree(&s->nvtx_re);
    memset(s, 0, sizeof *s);
    return -1;
}

void
sampling_release(struct sampling *s)
{
    if (!s)
        return;
    if (s->has_kernel_re)
        regfree(&s->kernel_re);
    if (s->has_nvtx_re)
        regfree(&s->nvtx_re);
    if (s->slots)
        pthread_mutex_destroy(&s->lock);
    free(s->slots);
    free(s->order);
    memset(s, 0, sizeof *s);
}

static uint64_t
name_hash(const struct sampling_launch *l)
{
    const char *name = l->mangled ? l->mangled : l->demangled ? l->demangled : "";
    return gh_fnv1a(GH_FNV1A_BASIS, name, strlen(name));
}

uint64_t
sampling_config_hash(const struct sampling_launch *l)
{
    uint64_t h = name_hash(l);
    h = gh_fnv1a(h, l->grid, sizeof l->grid);
    h = gh_fnv1a(h, l->block, sizeof l->block);
    h = gh_fnv1a(h, &l->dynamic_smem_bytes, sizeof l->dynamic_smem_bytes);
    return h ? h : 1;
}

/* Finds or inserts the slot of l's configuration; NULL if the table is full. Lock held. */
static struct sampling_slot *
slot_of(struct sampling *s, const struct sampling_launch *l, int insert)
{
    uint64_t h = sampling_config_hash(l);
    size_t mask = s->cap - 1;
    for (size_t i = 0; i < s->cap; i++) {
        struct sampling_slot *e = &s->slots[(h + i) & mask];
        if (e->hash == h && !memcmp(e->grid, l->grid, sizeof e->grid) &&
            !memcmp(e->block, l->block, sizeof e->block) && e->smem == l->dynamic_smem_bytes)
            return e;
        if (e->hash == 0) {
            /* keep a quarter free so probes stay short */
            if (!insert || s->used + 1 > s->cap - s->cap / 4)
                return NULL;
            e->hash = h;
            e->name_hash = name_hash(l);
            memcpy(e->grid, l->grid, sizeof e->grid);
            memcpy(e->block, l->block, sizeof e->block);
            e->smem = l->dynamic_smem_bytes;
            s->order[s->used++] = (uint32_t)(e - s->slots);
            return e;
        }
    }
    return NULL;
}

struct dm_buf {
    char *p;
    size_t len, cap;
};

static void
dm_append(const char *piece, size_t n, void *opaque)
{
    struct dm_buf *b = opaque;
    size_t room = b->cap - 1 - b->len;
    if (n > room)
        n = room;
    memcpy(b->p + b->len, piece, n);
    b->len += n;
    b->p[b->len] = 0;
}

/*
 * Demangles into a caller's buffer with libiberty's callback demangler,
 * which allocates nothing (launch callbacks must not), so -k can match
 * demangled names even when the caller passes only the mangled one.
 * Names longer than the buffer are cut: a regex on their start still works.
 */
static int
demangle_into(const char *mangled, char *buf, size_t n)
{
    struct dm_buf b = {buf, 0, n};
    buf[0] = 0;
    if (!mangled || mangled[0] != '_' || mangled[1] != 'Z')
        return -1;
    return cplus_demangle_v3_callback(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES, dm_append, &b)
               ? 0
               : -1;
}

static int
name_matches(const struct sampling *s, const struct sampling_launch *l)
{
    if (!s->has_kernel_re)
        return 1;
    if (l->mangled && regexec(&s->kernel_re, l->mangled, 0, NULL, 0) == 0)
        return 1;
    if (l->demangled)
        return regexec(&s->kernel_re, l->demangled, 0, NULL, 0) == 0;
    char buf[2048];
    return demangle_into(l->mangled, buf, sizeof buf) == 0 &&
           regexec(&s->kernel_re, buf, 0, NULL, 0) == 0;
}

/*
 * Under --profile-budget (lock held): may e's chosen launch take one of the
 * `slots` profiles the budget buys now? Only when its configuration has
 * GPU time recorded and fewer than `slots` configurations that still wait
 * for their first profile (eligible, not profiled) took more GPU time. A
 * configuration that has a profile already (extras, --sample all, first:N)
 * ranks behind every waiting one with GPU time: first profiles first.
 * Always yes without a budget.
 */
static int
budget_ranks(const struct sampling *s, const struct sampling_slot *e, long slots)
{
    if (s->opts.budget_pct <= 0 || !e)
        return 1;
    if (e->gpu_ns <= 0)
        return 0;
    long above = 0, want = slots < 1 ? 1 : slots;
    int64_t bar = e->profiled > 0 ? 0 : e->gpu_ns;
    for (size_t i = 0; i < s->used && above < want; i++) {
        const struct sampling_slot *f = &s->slots[s->order[i]];
        if (f != e && f->eligible > 0 && f->profiled == 0 && f->gpu_ns > bar)
            above++;
    }
    return above < want;
}

/*
 * The first groups' budget (lock held): may e's first group take one of
 * the `slots` profiles the budget buys now? Only when fewer than `slots`
 * configurations still waiting for their first group (eligible, not
 * profiled) took more GPU time; one without GPU time yet ranks behind
 * every one with some. Always yes when slots is LONG_MAX (the allowance).
 */
static int
first_ranks(const struct sampling *s, const struct sampling_slot *e, long slots)
{
    if (slots == LONG_MAX || !e)
        return 1;
    long above = 0, want = slots < 1 ? 1 : slots;
    for (size_t i = 0; i < s->used && above < want; i++) {
        const struct sampling_slot *f = &s->slots[s->order[i]];
        if (f != e && f->eligible > 0 && f->profiled == 0 && f->gpu_ns > e->gpu_ns)
            above++;
    }
    return above < want;
}

/*
 * One-pass groups (lock held): may e's later group take one of the
 * `slots` profiles their budget buys now? Only when fewer than `slots`
 * configurations that still wait for a group took more GPU time: those
 * waiting for a later one (profiled, not yet every group) and those that
 * have none yet (deferred by the first groups' budget). Coverage before
 * completeness: a configuration with no group is not counted in the
 * coverage by GPU time at all, a later group only completes one that is.
 * A configuration without GPU time yet ranks behind every one with some.
 * Always yes when slots < 1.
 */
static int
group_ranks(const struct sampling *s, const struct sampling_slot *e, long slots)
{
    if (slots < 1 || !e)
        return 1;
    long above = 0;
    for (size_t i = 0; i < s->used && above < slots; i++) {
        const struct sampling_slot *f = &s->slots[s->order[i]];
        if (f != e && f->eligible > 0 && f->profiled < s->ngroups && f->gpu_ns > e->gpu_ns)
            above++;
    }
    return above < slots;
}

/*
 * Group runs (lock held): on (opts.run_floor >= 0) in config mode with a
 * plan, and only within a budget. Runs spend a budget on fewer image
 * switches at the price of launches that wait for their group's run; with
 * the later groups' budget lifted (GPUHIER_GROUP_BUDGET=none: every group
 * of every configuration asked for) each configuration takes its groups
 * in its own order, in the fewest of its launches (tests/gpu t180's
 * multistream under both engines missed groups with runs on the H200).
 */
static int
runs_on(const struct sampling *s)
{
    return s->opts.run_floor >= 0 && s->opts.mode == SAMPLING_CONFIG && s->ngroups > 0 &&
           (s->opts.group_budget_pct > 0 || s->opts.budget_pct > 0);
}

/*
 * The plan group of e's next profile (lock held). In config mode: its
 * order (with sticky_groups, the group last given to any configuration
 * when e's first group is in and it still lacks that one, else its first
 * missing group in order). With all, every:N and first:N, which profile
 * many launches of a configuration, sticky always, and a configuration
 * that has every group takes the group last given: the config image then
 * changes only when a configuration needs a group it lacks. Cycling
 * through the groups at every launch changed the image at nearly every
 * profile of an interleaved program, and a profile after a change cost
 * about 3x one without (SetConfig 13 ms, Start ~150 ms on the H200,
 * docs/rangeprof-cost.md; --sample all on PyTorch: 128 ms a launch,
 * docs/cost-vs-ncu.md).
 */
static int
next_group(const struct sampling *s, const struct sampling_slot *e)
{
    if (!e || s->ngroups <= 0)
        return 0;
    if (runs_on(s) && s->run_group < s->ngroups)
        return s->run_group; /* group runs: sampling_decide_group() chose it for the run */
    int many = s->opts.mode != SAMPLING_CONFIG;
    int last = s->last_group;
    int last_ok = e->profiled > 0 && last >= 0 && last < s->ngroups;
    if ((many || s->opts.sticky_groups) && last_ok && last > 0 && !(e->done & (1u << last)))
        return last;
    /*
     * the first group in the configuration's order it was not given (in
     * config mode too: with two of its launches in flight and the first
     * given back, sampling_undo(), the count of its profiles no longer
     * tells which)
     */
    for (int k = 0; k < s->ngroups; k++) {
        int g = e->has_order ? e->order[k] : k;
        if (!(e->done & (1u << g)))
            return g;
    }
    if (many && last_ok)
        return last; /* every group in: no change of image */
    int k = (int)(e->profiled % s->ngroups);
    return e->has_order ? e->order[k] : k;
}

/*
 * Lock held: e's instrumented launch and native time, once both are known,
 * into the learned slowdown (kernels of at least SAMPLING_INST_LEARN_MIN_NS).
 */
static void
inst_learn(struct sampling *s, struct sampling_slot *e)
{
    if (e->inst_learned || e->inst_ns <= 0 || e->timed <= 0)
        return;
    e->inst_learned = 1;
    int64_t mean = e->gpu_ns / e->timed;
    if (mean < SAMPLING_INST_LEARN_MIN_NS)
        return;
    int64_t extra = e->inst_ns - SAMPLING_INST_FIXED_NS;
    s->learn_extra_ns += (double)(extra > 0 ? extra : 0);
    s->learn_native_ns += (double)mean;
    s->learn_n++;
}

static double
slowdown_locked(const struct sampling *s)
{
    return s->learn_n > 0 && s->learn_native_ns > 0 ? s->learn_extra_ns / s->learn_native_ns
                                                    : SAMPLING_INST_SLOWDOWN;
}

int64_t
sampling_inst_price(int64_t fixed_ns, double slowdown, int64_t mean_ns)
{
    double p = (double)fixed_ns + slowdown * (double)(mean_ns > 0 ? mean_ns : 0);
    return p < 9e18 ? (int64_t)p : INT64_MAX;
}

int
sampling_inst_pays(struct sampling *s, const struct sampling_launch *l, double slack_ns,
                   int64_t *price)
{
    int pays = 0;
    *price = 0;
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 1);
    /* e->launches: the launches before this one (sampling_decide() counts it after) */
    if (e && !e->instrumented && e->launches + 1 >= SAMPLING_INST_REPEATS) {
        *price = sampling_inst_price(SAMPLING_INST_FIXED_NS, slowdown_locked(s),
                                     e->timed > 0 ? e->gpu_ns / e->timed : 0);
        pays = (double)*price <= slack_ns;
    }
    if (e && !pays)
        e->inst_waiting = 1;
    pthread_mutex_unlock(&s->lock);
    return pays;
}

void
sampling_inst_cost(struct sampling *s, const struct sampling_launch *l, int64_t ns)
{
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (e && ns > 0 && e->inst_ns <= 0) {
        e->inst_ns = ns;
        inst_learn(s, e);
    }
    pthread_mutex_unlock(&s->lock);
}

int
sampling_inst_sibling_dear(struct sampling *s, const struct sampling_launch *l, int64_t bar_ns)
{
    int dear = 0;
    uint64_t nh = name_hash(l);
    pthread_mutex_lock(&s->lock);
    const struct sampling_slot *self = slot_of(s, l, 0);
    for (size_t i = 0; i < s->used && !dear; i++) {
        const struct sampling_slot *e = &s->slots[s->order[i]];
        dear = e != self && e->name_hash == nh && e->instrumented && e->inst_ns > bar_ns;
    }
    pthread_mutex_unlock(&s->lock);
    return dear;
}

double
sampling_inst_slowdown(struct sampling *s, long *n)
{
    pthread_mutex_lock(&s->lock);
    double v = slowdown_locked(s);
    if (n)
        *n = s->learn_n;
    pthread_mutex_unlock(&s->lock);
    return v;
}

long
sampling_inst_unserved(struct sampling *s)
{
    long n = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->used; i++) {
        const struct sampling_slot *e = &s->slots[s->order[i]];
        /* eligible: a launch of it passed the filters (not only captured or filtered out) */
        n += e->inst_waiting && !e->instrumented && e->eligible > 0;
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

int
sampling_add_gpu_time(struct sampling *s, const struct sampling_launch *l, int64_t ns)
{
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (e) {
        e->gpu_ns += ns;
        e->timed++;
        s->gpu_ns += ns;
        inst_learn(s, e);
    }
    pthread_mutex_unlock(&s->lock);
    return e ? 0 : -1;
}

int
sampling_is_comm_kernel(const struct sampling_launch *l)
{
    static const char *const marks[] = {"ncclDevKernel_", "ncclKernel_", "nvshmemi_", "nvshmem_"};
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        if ((l->mangled && strstr(l->mangled, marks[i])) ||
            (l->demangled && strstr(l->demangled, marks[i])))
            return 1;
    return 0;
}

/* Group runs (lock held): does e lack group g, and may take it in g's run (its first is in, or g
 * is group 1)? */
static int
group_wanted(const struct sampling_slot *e, int g)
{
    return !(e->done & (1u << g)) && ((e->done & 1u) || g == 0);
}

static int
run_wants(const struct sampling *s, const struct sampling_slot *e)
{
    return group_wanted(e, s->run_group);
}

/* Group runs (lock held): the run turns to group g from this launch on. */
static void
run_turn(struct sampling *s, int g)
{
    s->run_group = g;
    s->run_mark = s->seen;
    s->runs++;
    s->run_profiles = 0;
}

/*
 * Group runs (lock held): does e, which has no group yet, end a later
 * group's run? A configuration without any group is not in the coverage
 * by GPU time at all, a later group only completes one that is (coverage
 * before completeness, as group_ranks() ranks them). Waiting for group 1's
 * run instead cost the suite's blas_dnn its cuDNN convolutions' counters
 * (H100, 2026-12-06: 34 % of its GPU time, 20 launches each, none
 * profiled): the runs of groups 5 to 8, which no configuration could
 * take, waited a period each until the program ended. Only within the
 * first groups' allowance, which promises a short program every first
 * group at once (past it the budget ranks them, and the runs keep the
 * image switches few: in the CPU model, preempting there too took the
 * PyTorch benchmark from 1.58x to 1.73x, docs/sampling.md); and not while the
 * instrumentation engine served a launch within the program's period
 * (sampling_after_inst()): each range profile between instrumented
 * launches pays a new enable (about 220 ms on the H100), and in the CPU
 * model preempting there took the PyTorch benchmark from 1.57x to 1.93x
 * and its hardware coverage from 100 % to 46.6 % (docs/sampling.md).
 */
static int
first_preempts(const struct sampling *s, const struct sampling_slot *e,
               const struct sampling_launch *l)
{
    return !s->opts.first_waits_run && e && !(e->done & 1u) && s->run_group != 0 &&
           l->first_budget && l->first_slots == LONG_MAX &&
           sampling_after_inst(s->seen, s->last_inst, -1, s->period);
}

/*
 * Group runs, the run ending (lock held): the next group in turn, or with
 * GPUHIER_DIAG_RP_RUN_SKIP the next in turn that a configuration launched
 * within the program's period can take (the run's group when none can):
 * without it a run of a group no configuration can take yet (a later group
 * before any configuration has its first) waits a whole period for nothing,
 * and on the PyTorch benchmark the runs of groups 2 to 8 took the launches
 * from 66 to 4,453 of 6,333 with no profile (docs/sampling.md).
 */
static int
next_run_group(const struct sampling *s)
{
    int next = (s->run_group + 1) % s->ngroups;
    if (!s->opts.run_skip)
        return next;
    long p = period_within(s->period, 1);
    for (int k = 1; k <= s->ngroups; k++) {
        int g = (s->run_group + k) % s->ngroups;
        for (size_t i = 0; i < s->used; i++) {
            const struct sampling_slot *e = &s->slots[s->order[i]];
            if (s->seen - e->last_seen <= p && group_wanted(e, g))
                return g;
        }
    }
    return s->run_group;
}

/*
 * Group runs (lock held): is l not chosen in config mode only because
 * another launch of its configuration is being served? Its first group
 * (track_first) has not ended, or, decided for the instrumentation engine
 * (for_inst), its instrumented launch is chosen and not yet served or
 * given back (waiting for the counters: a range profile's start takes
 * ~300 ms on the H200).
 */
static int
waits_in_flight(const struct sampling *s, const struct sampling_slot *e,
                const struct sampling_launch *l, int groups)
{
    if (!e || s->opts.mode != SAMPLING_CONFIG)
        return 0;
    if (groups)
        return l->track_first && e->first_inflight && e->profiled < s->ngroups;
    return l->for_inst && s->opts.groups && e->profiled > 0 && !e->instrumented && !(e->done & 1u);
}

const char *
sampling_decide_group(struct sampling *s, const struct sampling_launch *l, const char **why,
                      long *config_index, unsigned *extras, int *group)
{
    const char *skip = NULL, *chosen = NULL;
    int groups = group && s->opts.groups;
    int later = 0;   /* a later one-pass group of a configuration in config mode */
    int held = 0;    /* chosen, then held back until the program settles (not by a budget) */
    int first = 0;   /* a first one-pass group in config mode, under the first groups' budget */
    int preempt = 0; /* group runs: its first group ends a later group's run (first_preempts()) */
    if (extras)
        *extras = 0;
    if (group)
        *group = -1;
    if (groups)
        extras = NULL; /* the later groups are the extras */
    if (config_index)
        *config_index = -1;
    /* launches captured into a graph do not execute: not counted */
    if (l->is_capturing) {
        *why = "stream_capture";
        return *why;
    }
    /* regexec needs no lock: compiled patterns are read-only here */
    int name_ok = name_matches(s, l);
    int comm = sampling_is_comm_kernel(l) && !(s->has_kernel_re && name_ok);
    int nvtx_ok =
        !s->has_nvtx_re || regexec(&s->nvtx_re, l->nvtx_path ? l->nvtx_path : "", 0, NULL, 0) == 0;

    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 1);
    s->seen++;
    if (!e || e->launches == 0)
        s->last_new = s->seen;
    if (!e)
        s->table_full++;
    else if (config_index)
        *config_index = e->launches;
    if (e)
        e->launches++;
    int runs = groups && runs_on(s) && e;
    /*
     * NEEDSWORK: a launch the instrumentation engine takes is decided without
     * a group and does not count here, so a configuration's first
     * range-profiled launch measures its gap from the program's start and the
     * period reads high (up to 1,024 launches). Counting them reads the period
     * right but lets group 1's run resume among the first step's instrumented
     * launches, each of which disables the range profiler: in the CPU model
     * the PyTorch benchmark went from 1.63x to 1.74x (docs/cost-vs-ncu.md
     * "The policies in a model"). Left until the runs wait for the
     * instrumentation engine by design, not by this accident.
     */
    if (runs) {
        if (e->launches > 1 && s->seen - e->last_seen > s->period)
            s->period = s->seen - e->last_seen;
        e->last_seen = s->seen;
    }
    if (l->is_graph)
        skip = "graph";
    else if (comm)
        skip = "comm_kernel";
    else if (!name_ok)
        skip = "filtered_name";
    else if (!nvtx_ok)
        skip = "filtered_nvtx";
    else if (s->filtered_seen++ < s->opts.launch_skip)
        skip = "skip_count";
    if (skip)
        goto out;
    long k = e ? e->eligible++ : 0;
    switch (s->opts.mode) {
    case SAMPLING_ALL:
        chosen = "sample_all";
        break;
    case SAMPLING_FIRST:
        if (e && e->profiled < s->opts.n)
            chosen = "first_of_config";
        break;
    case SAMPLING_EVERY:
        if (e && k % s->opts.n == 0)
            chosen = "sample_every";
        break;
    case SAMPLING_CONFIG:
        /* instrumented on another thread between this launch's engine pick and now: not twice */
        if (e && l->for_inst && e->instrumented)
            break;
        /* with groups, the first is group 1's launch: given back, it is chosen again */
        if (e && l->inst_later && !groups && !e->instrumented && !e->inst_claimed) {
            chosen = "inst_deferred";
        } else if (e && (groups && s->ngroups > 0 ? !(e->done & 1u) : e->profiled == 0)) {
            chosen = "first_of_config";
            first = groups && l->first_budget && s->opts.budget_pct <= 0;
        } else if (e && groups && e->profiled < s->ngroups &&
                   !(l->track_first && e->first_inflight)) {
            chosen = "metric_group";
            later = 1;
        } else if (e && extras && e->extras && !e->extras_done) {
            chosen = "extra_metrics";
        }
        break;
    }
    if (chosen && runs && s->opts.rp_after_inst && (later || !strcmp(chosen, "first_of_config"))) {
        /* GPUHIER_DIAG_RP_AFTER_INST: not while the instrumentation engine is still busy */
        if (!sampling_after_inst(s->seen, s->last_inst, s->inst_wait, s->period)) {
            if (s->inst_wait < 0)
                s->inst_wait = s->seen;
            chosen = NULL;
            skip = "profile_budget";
            held = 1;
            goto out;
        }
        s->inst_wait = -1;
    }
    if (chosen && runs && (later || !strcmp(chosen, "first_of_config")) && !run_wants(s, e)) {
        /*
         * group runs: the configuration has the run's group, or lacks its
         * first and the run is another's. A run that had no profile for
         * the program's period ends here, and this launch is asked again
         * for the next run's group: a configuration launched many times in
         * a row takes a group at each launch, as without runs. Otherwise
         * what it lacks comes in its own run (a configuration with every
         * group is "sampled_out" above).
         */
        if (sampling_run_ends(s->seen, s->run_mark, s->period, s->opts.run_floor))
            run_turn(s, next_run_group(s));
        if (!run_wants(s, e) && !(preempt = first_preempts(s, e, l))) {
            chosen = NULL;
            skip = "profile_budget";
        }
    }
    if (!chosen) {
        if (!skip) {
            skip = "sampled_out";
            /*
             * the run goes on while a configuration that wants its group
             * waits for another of its launches (gpu/multistream on the
             * H200, 2026-12-05: b's launches were sampled out while its
             * instrumented launch waited, the run moved on from group 1
             * without it and did not come back before the program ended)
             */
            if (runs_on(s) && waits_in_flight(s, e, l, groups) && group_wanted(e, s->run_group))
                s->run_mark = s->seen;
        }
    } else if (s->opts.launch_count >= 0 && s->profiled >= s->opts.launch_count) {
        /* --launch-count caps profiled launches, as in Nsight Compute */
        chosen = NULL;
        skip = "skip_count";
    } else if (l->over_budget || l->counters_busy || !budget_ranks(s, e, l->budget_slots)) {
        /*
         * Deferred, by --profile-budget or by counters another process
         * holds: the configuration stays eligible (profiled, extras_done
         * untouched), so its next launch is chosen again
         */
        chosen = NULL;
        skip = l->counters_busy && !l->over_budget ? "counters_busy" : "profile_budget";
    } else if (first && l->first_wait && s->opts.settle_floor >= 0 &&
               !sampling_repeated(s->seen, s->last_new, s->opts.settle_first_floor)) {
        /* GPUHIER_DIAG_RP_SETTLE: first groups too wait for the program to repeat itself */
        chosen = NULL;
        skip = "profile_budget";
        held = 1;
    } else if (first && (l->first_over_budget || !first_ranks(s, e, l->first_slots))) {
        /* the first groups' budget: the configuration's next launch is chosen again */
        chosen = NULL;
        skip = "profile_budget";
    } else if (later && l->groups_wait && s->opts.settle_floor >= 0 &&
               !sampling_repeated(s->seen, s->last_new, s->opts.settle_floor)) {
        /* coverage before completeness: configurations may still come that have no group */
        chosen = NULL;
        skip = "profile_budget";
        held = 1;
    } else if (later && l->groups_wait && !s->opts.no_floor &&
               !sampling_can_warn(e->gpu_ns, s->gpu_ns, l->own_ns)) {
        /*
         * the severity floor: every finding on this configuration would be
         * a note, which its first group already gives; deferred, so a
         * configuration whose share grows takes it at a later launch
         */
        chosen = NULL;
        skip = "profile_budget";
        e->floor_held = 1;
    } else if (later && runs && l->groups_wait && s->opts.run_value && s->run_profiles == 0 &&
               l->switch_ns > 0 && e->gpu_ns < l->switch_ns) {
        /*
         * the run's value (GPUHIER_DIAG_RUN_VALUE=0 lifts it): the run's first
         * profile pays an image switch, more than this configuration's whole
         * GPU time so far, which no finding on it can win back; another
         * configuration may open it
         */
        chosen = NULL;
        skip = "profile_budget";
    } else if (later && (l->group_over_budget || !group_ranks(s, e, l->group_slots))) {
        /* the later groups' budget: the configuration's next launch is chosen again */
        chosen = NULL;
        skip = "profile_budget";
    }
out:
    /*
     * the run goes on while its group is taken, or held back only until the
     * program settles: a run that moved on while every profile waited would
     * come back to group 1 only a cycle of runs later (2026-12-04 16:56 UTC:
     * the PyTorch benchmark's first groups came from launch 4,569 of 6,333)
     */
    if (runs && (chosen || held))
        s->run_mark = s->seen;
    if (chosen && preempt) {
        /* the first group ends the later group's run: group 1's run from here */
        run_turn(s, 0);
        s->preempts++;
    }
    if (chosen && runs)
        s->run_profiles++;
    if (chosen && groups) {
        *group = next_group(s, e);
        s->last_group = *group;
        if (e && *group >= 0 && *group < SAMPLING_GROUPS_MAX) {
            e->done |= 1u << *group;
            if (*group == 0 && l->track_first)
                e->first_inflight = 1;
        }
    }
    if (chosen) {
        s->profiled++;
        if (e)
            e->profiled++;
        if (e && !strcmp(chosen, "extra_metrics")) {
            *extras = e->extras;
            e->extras_done = 1;
        }
        /* another thread's launch of it is not chosen too before this one is served */
        if (e && !strcmp(chosen, "inst_deferred"))
            e->inst_claimed = 1;
    }
    pthread_mutex_unlock(&s->lock);
    *why = chosen ? chosen : skip;
    return chosen ? NULL : skip;
}

const char *
sampling_decide_ex(struct sampling *s, const struct sampling_launch *l, const char **why,
                   long *config_index, unsigned *extras)
{
    return sampling_decide_group(s, l, why, config_index, extras, NULL);
}

void
sampling_set_groups(struct sampling *s, int n)
{
    pthread_mutex_lock(&s->lock);
    s->ngroups = n < 1 ? 1 : n > SAMPLING_GROUPS_MAX ? SAMPLING_GROUPS_MAX : n;
    pthread_mutex_unlock(&s->lock);
}

int
sampling_set_group_order(struct sampling *s, const struct sampling_launch *l,
                         const unsigned char *order, int n)
{
    unsigned seen = 0;
    if (n < 1 || n > SAMPLING_GROUPS_MAX || order[0] != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (order[i] >= n || (seen & (1u << order[i])))
            return -1;
        seen |= 1u << order[i];
    }
    int ret = -1;
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (e && n == s->ngroups) {
        memcpy(e->order, order, (size_t)n);
        e->has_order = 1;
        ret = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return ret;
}

const char *
sampling_decide(struct sampling *s, const struct sampling_launch *l, const char **why,
                long *config_index)
{
    return sampling_decide_ex(s, l, why, config_index, NULL);
}

void
sampling_undo(struct sampling *s, const struct sampling_launch *l, const char *chosen, int group)
{
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (s->profiled > 0)
        s->profiled--;
    if (e && e->profiled > 0)
        e->profiled--;
    /*
     * the group this launch was given, not the configuration's last: with
     * two launches of it in flight (both engines: a chosen launch waits for
     * another thread's served one) the last may be the other's
     */
    if (e && group >= 0 && group < SAMPLING_GROUPS_MAX)
        e->done &= ~(1u << group);
    /* a run's profile given back paid no image switch: the run's value is judged again */
    if (group >= 0 && group == s->run_group && s->run_profiles > 0)
        s->run_profiles--;
    if (e && group == 0)
        e->first_inflight = 0;
    if (e && chosen && !strcmp(chosen, "extra_metrics"))
        e->extras_done = 0;
    /* served (marked instrumented first) or not, the claim ends */
    if (e && chosen && !strcmp(chosen, "inst_deferred"))
        e->inst_claimed = 0;
    pthread_mutex_unlock(&s->lock);
}

void
sampling_first_landed(struct sampling *s, const struct sampling_launch *l)
{
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (e)
        e->first_inflight = 0;
    pthread_mutex_unlock(&s->lock);
}

int
sampling_known(struct sampling *s, const struct sampling_launch *l)
{
    pthread_mutex_lock(&s->lock);
    int v = slot_of(s, l, 0) != NULL;
    pthread_mutex_unlock(&s->lock);
    return v;
}

int
sampling_instrumented(struct sampling *s, const struct sampling_launch *l)
{
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    int v = e && e->instrumented;
    pthread_mutex_unlock(&s->lock);
    return v;
}

void
sampling_inst_served(struct sampling *s)
{
    pthread_mutex_lock(&s->lock);
    s->last_inst = s->seen;
    pthread_mutex_unlock(&s->lock);
}

void
sampling_mark_instrumented(struct sampling *s, const struct sampling_launch *l)
{
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (e)
        e->instrumented = 1;
    pthread_mutex_unlock(&s->lock);
}

int
sampling_request_extras(struct sampling *s, const struct sampling_launch *l, unsigned groups)
{
    int ret = -1;
    pthread_mutex_lock(&s->lock);
    struct sampling_slot *e = slot_of(s, l, 0);
    if (e && !e->extras_done && groups) {
        e->extras |= groups;
        ret = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return ret;
}

void
sampling_floor_left(struct sampling *s, long *n, int64_t *ns)
{
    *n = 0;
    *ns = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->used; i++) {
        const struct sampling_slot *e = &s->slots[s->order[i]];
        if (e->floor_held && e->profiled < s->ngroups) {
            (*n)++;
            *ns += e->gpu_ns;
        }
    }
    pthread_mutex_unlock(&s->lock);
}
