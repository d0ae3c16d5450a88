/* SPDX-License-Identifier: MIT */
/*
 * engine: the list of counter engines, and the calls that reach every
 * engine at once (engine.h says when each is made). Which engine serves
 * a launch is the sampler's choice (sampler.c), not the list's.
 */
#include "collector/engine.h"

#include <stddef.h>

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
engine_launch_other(const struct counter_engine *given, int capturing)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i] != given && engines[i]->launch_other)
            engines[i]->launch_other(capturing);
}

void
engine_graph_launch(void)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->graph_launch)
            engines[i]->graph_launch();
}

void
engine_context_destroying(CUcontext ctx)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->context_destroying)
            engines[i]->context_destroying(ctx);
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

void
engine_exit_notes(void)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->exit_notes)
            engines[i]->exit_notes();
}

void
engine_stats(struct engine_stats *s)
{
    *s = (struct engine_stats){0};
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->stats)
            engines[i]->stats(s);
}
