/* SPDX-License-Identifier: MIT */
/*
 * sampler: which launches the counter engines serve, in profile mode.
 *
 * At a launch's ENTER the sampling decision (sampling.h: the options'
 * filters and mode, --profile-budget, busy counters) says whether to
 * profile it and why not; a launch it chooses is given to one counter
 * engine (engine.h), which starts on it there and ends at its EXIT, and
 * every other engine is told the launch is not theirs. Today every chosen
 * launch goes to the range profiler (engine_rangeprof.c; the NEEDSWORK in
 * sampler_launch_enter() is where the instrumentation engine will plug
 * in). A launch whose start is refused as busy is given back to the
 * decision, so its configuration's next launch is chosen again. Under
 * --profile-budget the writer hands each traced kernel's GPU time to the
 * decision's configurations (sampler_gpu_time()).
 */
#include "collector/sampler.h"
#include "collector/collector_int.h"
#include "collector/engine.h"
#include "collector/notes.h"
#include "collector/options.h"
#include "collector/sampling.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

static struct {
    struct sampling sampling; /* the decisions (sampling.h) */
    int64_t start_mono_ns;    /* when profiling was set up: the budget's elapsed time starts here */
    atomic_long budget_unmatched; /* traced kernels whose configuration sampling never saw */
} S;

static __thread struct sampling_launch tls_launch; /* the decided launch, for the extras request */
/* the engine serving this thread's launch, from its ENTER to its EXIT; NULL: none */
static __thread const struct counter_engine *tls_served;

int
sampler_init(const struct sampling_opts *o, char *err, size_t n)
{
    if (sampling_init(&S.sampling, o, 0, err, n))
        return -1;
    S.start_mono_ns = mono_ns();
    return 0;
}

/*
 * The writer's GPU-time hook under --profile-budget (writer thread): each
 * traced kernel's duration goes to its configuration, which the budget
 * ranks by (sampling_add_gpu_time).
 */
void
sampler_gpu_time(const char *mangled, const uint32_t grid[3], const uint32_t block[3],
                 uint32_t dynamic_smem, int64_t ns)
{
    struct sampling_launch l = {.mangled = mangled, .dynamic_smem_bytes = dynamic_smem};
    memcpy(l.grid, grid, sizeof(l.grid));
    memcpy(l.block, block, sizeof(l.block));
    if (sampling_add_gpu_time(&S.sampling, &l, ns))
        atomic_fetch_add_explicit(&S.budget_unmatched, 1, memory_order_relaxed);
}

/*
 * The sampling decision of on_launch (profile mode), then the start of the
 * engine the launch is given to; what the engine holds (the range
 * profiler: its lock) is held from here to sampler_launch_exit().
 */
int
sampler_launch_enter(const struct engine_launch *el, int capturing, const char **whyp,
                     long *config_index)
{
    /*
     * Which engine a chosen launch goes to: the range profiler, or with
     * GPUHIER_INSTRUMENT=1 the instrumentation engine, for every launch of
     * the process. Never both in one process: on the H200 (2026-12-01,
     * docs/collector.md "The instrumentation engine") the range
     * profiler's Start deadlocked inside CUPTI once the SASS metrics API
     * had served launches in the process. So an instrumentation engine
     * that failed is not replaced by the range profiler either.
     */
    const struct counter_engine *e = opt.instrument ? &engine_sass : &engine_rangeprof;
    const char *why = NULL;
    int sample = 0, deferred = 0, served = 0;
    unsigned extras = 0;
    int group = -1;
    if (opt.sampling_ok) {
        struct sampling_launch sl = {
            .mangled = el->mangled,
            .grid = {el->grid[0], el->grid[1], el->grid[2]},
            .block = {el->block[0], el->block[1], el->block[2]},
            .dynamic_smem_bytes = el->dynamic_smem_bytes,
            .nvtx_path = el->nvtx_path,
            .is_capturing = capturing,
        };
        double budget = S.sampling.opts.budget_pct;
        if (budget > 0) {
            struct engine_stats st;
            engine_stats(&st);
            sl.budget_slots = sampling_budget_slots(budget, st.profiling_ns,
                                                    mono_ns() - S.start_mono_ns, st.profiles);
            sl.over_budget = sl.budget_slots == 0;
        }
        /* one-pass groups: the later groups' budget (--profile-budget's, when given) */
        double gpct = budget > 0 ? budget : S.sampling.opts.group_budget_pct;
        if (opt.groups && gpct > 0) {
            struct engine_stats st;
            engine_stats(&st);
            sl.group_slots = sampling_budget_slots(gpct, st.profiling_ns,
                                                   mono_ns() - S.start_mono_ns, st.profiles);
            sl.group_over_budget = sl.group_slots == 0;
        }
        sl.counters_busy = e->deferring && e->deferring();
        sample =
            sampling_decide_group(&S.sampling, &sl, &why, config_index, &extras,
                                  opt.groups && e == &engine_rangeprof ? &group : NULL) == NULL;
        if (sample && group >= 0)
            extras = ENGINE_GROUP | ((unsigned)group & ENGINE_GROUP_MASK);
        deferred = sl.counters_busy && !sample && !strcmp(why, "counters_busy");
        tls_launch = sl;
        if (sample && ((e->available && !e->available()) || capturing)) {
            sample = 0;
            why = capturing ? "stream_capture" : "profiler_unavailable";
        }
    } else {
        why = "profiler_unavailable";
    }
    if (sample) {
        int rc = e->launch_begin(el, extras);
        if (rc == 0) {
            tls_served = e;
            served = 1;
            if (e == &engine_sass) {
                /* the row says which engine; inst_launch.reason keeps the sampling's reason */
                sass_launch_reason(why);
                why = "instrumented";
            }
        } else if (rc == -EBUSY) {
            /* give the choice back: the configuration's next launch is chosen again */
            sampling_undo(&S.sampling, &tls_launch, why);
            why = "counters_busy";
            deferred = 1;
        } else {
            why = "profiler_unavailable";
        }
    }
    engine_launch_other(sample ? e : NULL, capturing);
    if (deferred && e->launch_deferred)
        e->launch_deferred();
    *whyp = why;
    return served;
}

void
sampler_launch_exit(int launch_ok)
{
    const struct counter_engine *e = tls_served;
    if (e) {
        tls_served = NULL;
        e->launch_end(launch_ok);
    }
}

int
sampler_request_extras(unsigned groups)
{
    return sampling_request_extras(&S.sampling, &tls_launch, groups);
}

void
sampler_set_groups(int n)
{
    sampling_set_groups(&S.sampling, n);
}

int
sampler_set_group_order(const unsigned char *order, int n)
{
    return sampling_set_group_order(&S.sampling, &tls_launch, order, n);
}

void
sampler_at_exit(void)
{
    if (atomic_load(&S.budget_unmatched))
        /* the kernel records' names or geometry did not match the launch callbacks' */
        push_event("warning", "budget_time_unmatched",
                   "--profile-budget: %ld traced kernels matched no configuration of the "
                   "launch callbacks; their GPU time did not count",
                   atomic_load(&S.budget_unmatched));
}
