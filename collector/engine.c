/* SPDX-License-Identifier: MIT */
/*
 * engine: the list of counter engines, the calls that reach every engine
 * at once (engine.h says when each is made), and at exit the report's
 * word on which engines ran. Which engine serves a launch is the
 * sampler's choice (sampler.c), not the list's.
 */
#include "collector/engine.h"
#include "collector/collector_int.h"
#include "collector/notes.h"
#include "collector/options.h"
#include "collector/sampler.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/*
 * In the order their members are called.
 */
static const struct counter_engine *const engines[] = {
    &engine_rangeprof,
    &engine_sass,
};

#define NENGINES (sizeof(engines) / sizeof(engines[0]))

void
engine_prepare(CUcontext ctx)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->prepare)
            engines[i]->prepare(ctx);
}

void
engine_quiesce(const struct counter_engine *except)
{
    for (size_t i = 0; i < NENGINES; i++) {
        if (engines[i] == except)
            continue;
        if (engines[i]->quiesce)
            engines[i]->quiesce();
        else if (engines[i]->graph_launch)
            engines[i]->graph_launch();
    }
}

void
engine_launch_other(const struct counter_engine *given, int capturing)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i] != given && engines[i]->launch_other)
            engines[i]->launch_other(capturing);
}

void
engine_launch_other_end(const struct counter_engine *given)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i] != given && engines[i]->launch_other_end)
            engines[i]->launch_other_end();
}

void
engine_graph_launch(void)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->graph_launch)
            engines[i]->graph_launch();
}

void
engine_context_created(CUcontext ctx)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->context_created)
            engines[i]->context_created(ctx);
}

void
engine_context_destroying(CUcontext ctx)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->context_destroying)
            engines[i]->context_destroying(ctx);
}

void
engine_background(int (*hold)(const struct counter_engine *e), void (*release)(void))
{
    for (size_t i = 0; i < NENGINES; i++) {
        const struct counter_engine *e = engines[i];
        if (!e->background_wanted || !e->background_wanted() || hold(e))
            continue;
        e->background();
        release();
    }
}

void
engine_flush(void)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->flush)
            engines[i]->flush();
}

void
engine_exit_stop(void)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->exit_stop)
            engines[i]->exit_stop();
}

/*
 * Why the range profiler was off, from limit()'s code (notes.c): the
 * words the report's readers print before the collector's message.
 */
static const char *
refusal(const char *code)
{
    static const struct {
        const char *code, *words;
    } w[] = {
        {"no_counter_permission", "refused: no permission to read GPU counters (ERR_NVGPUCTRPERM)"},
        {"mig_unsupported", "refused: MIG instance"},
        {"device_unsupported", "refused: device not supported"},
        {"bad_option", "off: bad option"},
        {"bad_metric", "off: bad metric"},
        {"metric_config_failed", "failed: metric configuration"},
    };
    for (size_t i = 0; code && i < sizeof(w) / sizeof(w[0]); i++)
        if (!strcmp(code, w[i].code))
            return w[i].words;
    return "failed";
}

/* meta 'engine_range_profiler' (schema.sql) into buf. */
static void
rangeprof_state(char *buf, size_t n)
{
    struct engine_stats st = {0};
    engine_rangeprof.stats(&st);
    const char *code = NULL, *msg = limited_reason(&code);
    char stuck[200];
    if (opt.trace_only)
        snprintf(buf, n, "not used: trace mode");
    else if (opt.instrument == ENGINES_INSTRUMENT)
        snprintf(buf, n, "not used: GPUHIER_INSTRUMENT=1 (instrumentation only)");
    else if (sampler_stuck(&engine_rangeprof, stuck, sizeof(stuck)))
        snprintf(buf, n, "stuck: %.190s", stuck);
    else if (msg) {
        /* the call and CUPTI's error; the remedy stays in profiling_limited */
        const char *pre = "hardware counters unavailable: ";
        if (!strncmp(msg, pre, strlen(pre)))
            msg += strlen(pre);
        const char *hint = strstr(msg, " (");
        snprintf(buf, n, "%s: %.*s", refusal(code), hint ? (int)(hint - msg) : (int)strlen(msg),
                 msg);
    } else if (st.profiles > 0)
        snprintf(buf, n, "ran: %ld launch%s", st.profiles, st.profiles == 1 ? "" : "es");
    else
        snprintf(buf, n, "idle: no launch was given to it");
}

/* meta 'engine_instrumentation' (schema.sql) into buf. */
static void
instrumentation_state(char *buf, size_t n)
{
    long launches = 0, graphs = 0;
    char s[160], stuck[200];
    const char *note = "";
    sass_state(s, sizeof(s), &launches, &graphs, &note);
    /* retired when the instrumentation window closed (=phased): ' (window closed after M launches)' */
    char tail[112] = "";
    if (note[0])
        snprintf(tail, sizeof(tail), " (%s)", note);
    if (opt.trace_only)
        snprintf(buf, n, "not used: trace mode");
    else if (opt.instrument == ENGINES_RANGEPROF)
        snprintf(buf, n, "not used: GPUHIER_INSTRUMENT unset (range profiler only)");
    else if (sampler_stuck(&engine_sass, stuck, sizeof(stuck)))
        snprintf(buf, n, "stuck: %.190s", stuck);
    else if (!strcmp(s, "ran") && graphs)
        snprintf(buf, n, "ran: %ld launch%s, %ld graph launch%s%s", launches, PLURAL_ES(launches),
                 graphs, PLURAL_ES(graphs), tail);
    else if (!strcmp(s, "ran"))
        snprintf(buf, n, "ran: %ld launch%s%s", launches, PLURAL_ES(launches), tail);
    else
        snprintf(buf, n, "%s%s", s, strncmp(s, "failed", 6) ? tail : "");
}

void
engine_exit_notes(void)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->exit_notes)
            engines[i]->exit_notes();
    char v[sizeof(((struct rec *)0)->u.meta.value)];
    push_meta("engines", opt.trace_only                     ? "none (trace mode)"
                         : opt.instrument == ENGINES_BOTH   ? "instrumentation + range profiler"
                         : opt.instrument == ENGINES_PHASED ? "instrumentation, then range profiler"
                         : opt.instrument == ENGINES_INSTRUMENT ? "instrumentation"
                                                                : "range profiler");
    rangeprof_state(v, sizeof(v));
    push_meta("engine_range_profiler", v);
    instrumentation_state(v, sizeof(v));
    push_meta("engine_instrumentation", v);
}

void
engine_stats(struct engine_stats *s)
{
    *s = (struct engine_stats){0};
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->stats)
            engines[i]->stats(s);
}
