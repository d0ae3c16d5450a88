/* SPDX-License-Identifier: MIT */
/*
 * engine: the counter engines, behind one interface (STYLE.md
 * "Backends"; nvtop's struct gpu_vendor, include/nvtop/
 * extract_gpuinfo_common.h, is the model).
 *
 * A counter engine takes hardware counters for the launches the sampler
 * gives it and delivers them as records on the writer's queue
 * (writer_push), which the writer turns into rows. Its state belongs to
 * its own file (engine_<name>.c); the rest of the collector reaches it
 * only through its struct counter_engine, at these points:
 *
 *   launch ENTER, profile mode    prepare() of every engine, outside a
 *   (callbacks.c, sampler.c)      stream capture; then the sampler picks
 *                                 the engine for the launch, asks it
 *                                 deferring() and available(), and gives
 *                                 the launch to it (launch_begin()) or
 *                                 not; every engine that was not given
 *                                 the launch gets launch_other()
 *   launch EXIT                   launch_end() of the engine whose
 *                                 launch_begin() returned 0, same thread;
 *                                 launch_other_end() of every engine that
 *                                 got launch_other() at its ENTER
 *   cuGraphLaunch ENTER           graph_launch() of every engine, outside a
 *                                 capture; then the sampler may give the
 *                                 graph launch to one engine (graph_begin())
 *   cuGraphLaunch EXIT            graph_end() of that engine, same thread
 *   before a launch is given to   graph_launch() of every other engine
 *   one engine (GPUHIER_          (engine_quiesce()): nothing of theirs
 *   INSTRUMENT=both)              stays enabled while it serves
 *   the instrumentation window    retire() of the instrumentation engine,
 *   closes (GPUHIER_INSTRUMENT=   on the launching thread, before any range
 *   phased, sampler.c)            profiler call: done for the process
 *   CONTEXT_CREATED               context_created()
 *   CONTEXT_DESTROY_STARTING      context_destroying()
 *   the flusher, every 500 ms     flush()
 *   exit (finish())               exit_stop() once the flusher is
 *                                 joined, then the forced flush, then
 *                                 exit_notes() before the writer closes
 *   the end line, the budget      stats()
 *
 * A fatal signal calls no engine (the dying thread may hold an engine's
 * lock). Engines are listed in engine.c; the sampler (sampler.c) decides
 * which one serves a launch (docs/collector.md "Counter engines"): the
 * range profiler (engine_rangeprof.c) and the instrumentation engine
 * (engine_sass.c, CUPTI's SASS metrics API), alone or both
 * (GPUHIER_INSTRUMENT). At exit engine.c writes which engines were asked
 * for and what each did (meta 'engines', 'engine_range_profiler',
 * 'engine_instrumentation'; schema.sql).
 */
#ifndef GPUHIER_COLLECTOR_ENGINE_H
#define GPUHIER_COLLECTOR_ENGINE_H
#include "collector/clock.h"

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One launch, as the driver launch callback saw it at ENTER. Borrowed for the call. */
struct engine_launch {
    CUcontext ctx;
    CUfunction func;
    uint32_t corr;       /* driver API correlation id: the key of the launch's rows */
    const char *mangled; /* CUPTI's symbol name, may be NULL */
    uint32_t grid[3], block[3];
    uint32_t dynamic_smem_bytes;
    const char *nvtx_path; /* the thread's open NVTX push ranges, " > "-joined, or NULL */
};

/* One graph launch (cuGraphLaunch ENTER, outside a capture). Borrowed for the call. */
struct engine_graph {
    CUcontext ctx;
    CUgraphExec exec; /* the executable graph launched */
    uint32_t corr;    /* the cuGraphLaunch's correlation id: its kernel nodes' records carry it */
};

/* What the engines spent, for the session file's end line and --profile-budget. */
struct engine_stats {
    int64_t profiling_ns; /* time the served launches spent in the engine (CLOCK_MONOTONIC) */
    long profiles;        /* launches served to the end with a result */
    int64_t first_ns;     /* the range profiler's first profile (CUPTI's set-up), 0 before it */
    int max_passes;       /* the most replay passes one launch took */
};

/*
 * One counter engine. launch_begin and launch_end are required; any other
 * member may be NULL (nothing to do there). Every function may be called
 * from any of the program's threads unless it says otherwise, and must
 * not allocate or touch SQLite on the launch path (STYLE.md §5.6).
 */
struct counter_engine {
    /*
     * ENTER of every launch in profile mode outside a stream capture,
     * before the sampler decides: set-up that must come before the
     * program's kernels run (the range profiler: GPUHIER_DIAG_PREWARM's
     * empty range, once).
     */
    void (*prepare)(CUcontext ctx);
    /*
     * Whether launches chosen now must wait (counters refused as busy,
     * backing off): the sampler defers them with 'counters_busy' and
     * chooses their configuration's next launch again.
     */
    int (*deferring)(void);
    /* Whether the engine can serve at all (0: 'profiler_unavailable'). NULL: it can. */
    int (*available)(void);
    /*
     * ENTER of a launch given to the engine; `extras` are the metric
     * groups (enum metrics_group) the sampler asks for, 0 for a core
     * profile. 0: the engine serves it, and launch_end() follows on this
     * thread (what it holds until then is its own: the range profiler
     * holds its lock); -EBUSY: counters busy, the launch is deferred; -1:
     * the engine is done for the process (it said why).
     */
    int (*launch_begin)(const struct engine_launch *l, unsigned extras);
    /*
     * EXIT of the launch launch_begin() served (launch_ok: the launch API
     * succeeded): the result goes to the writer's queue. The engine may
     * ask for another launch of the configuration (sampler_request_extras()).
     */
    void (*launch_end)(int launch_ok);
    /*
     * ENTER of a launch not given to this engine (unsampled, or given to
     * another), in profile mode: keep its kernel out of the engine's
     * counters (the range profiler: disable after the hold, or wait for
     * another thread's range).
     */
    void (*launch_other)(int capturing);
    /*
     * EXIT of a launch this engine got launch_other() for (same thread; also
     * for a launch in a capture): the launch API has returned, its kernel is
     * queued.
     */
    void (*launch_other_end)(void);
    /* A launch given to this engine was deferred (deferring(), or launch_begin()'s -EBUSY). */
    void (*launch_deferred)(void);
    /*
     * ENTER of cuGraphLaunch outside a capture (graph kernels have no
     * launch callback), and before another engine serves a launch in a
     * process that runs both (engine_quiesce()): disable whatever is
     * enabled, so no kernel runs under it unasked.
     */
    void (*graph_launch)(void);
    /*
     * Before another engine serves a launch in a process that runs both
     * (engine_quiesce()): as graph_launch(), told apart only so that the
     * range profiler can count why it was disabled (meta
     * profiler_disables). NULL: graph_launch() is called instead.
     */
    void (*quiesce)(void);
    /*
     * ENTER of a graph launch the sampler gives this engine (after every
     * engine's graph_launch()): 0 when it serves it, and graph_end()
     * follows on this thread at its EXIT; -1 when it does not.
     */
    int (*graph_begin)(const struct engine_graph *g);
    /* EXIT of the graph launch graph_begin() served (launch_ok: cuGraphLaunch succeeded). */
    void (*graph_end)(int launch_ok);
    /* CONTEXT_CREATED (a resource callback), before any module of the context is loaded. */
    void (*context_created)(CUcontext ctx);
    /* CONTEXT_DESTROY_STARTING (a resource callback: CUPTI forbids flushing there). */
    void (*context_destroying)(CUcontext ctx);
    /* The flusher thread, every 500 ms: periodic work; never waits for a launch. */
    void (*flush)(void);
    /*
     * Work the engine wants done off the program's threads (NULL: none):
     * background_wanted() says so on the flusher thread, which then calls
     * background() holding what a served launch holds (sampler_flush()).
     */
    int (*background_wanted)(void);
    void (*background)(void);
    /*
     * Exit, once the flusher is joined and callbacks are off: stop for good,
     * from a thread that may never have used CUDA (push the context).
     */
    void (*exit_stop)(void);
    /* Exit, after the forced flush and before the writer closes: last notes and meta rows. */
    void (*exit_notes)(void);
    /* Adds the engine's spending to *s (max_passes: the larger). */
    void (*stats)(struct engine_stats *s);
    /*
     * Done for the process without having failed (GPUHIER_INSTRUMENT=phased:
     * the instrumentation window closed): release what CUPTI holds for the
     * engine, then available() says 0 for good; `note` (copied) ends the
     * engine's meta state, e.g. "window closed after 11 launches". Waits for
     * a launch the engine serves on another thread.
     */
    void (*retire)(const char *note);
};

/*
 * launch_begin()'s `extras` with this bit set: not extra groups but the
 * one-pass group (extras & ENGINE_GROUP_MASK, 0-based) of the range
 * profiler's plan (collector/onepass.h) that the launch collects.
 */
#define ENGINE_GROUP (1u << 28)
#define ENGINE_GROUP_MASK 0xffu

/* The range profiler (engine_rangeprof.c). */
extern const struct counter_engine engine_rangeprof;
/*
 * Whether the range profiler wants this graph launch (GPUHIER_DIAG_RP_GRAPHS=N:
 * an executable's second launch, N executables at most; docs/collector.md "Graphs").
 */
int rangeprof_graph_wanted(CUgraphExec exec);
/* The instrumentation engine (engine_sass.c); the sampling reason of the launch it serves now. */
extern const struct counter_engine engine_sass;
void sass_launch_reason(const char *why);
/* Whether the instrumentation engine wants this graph launch (the executable's first). */
int sass_graph_wanted(CUgraphExec exec);
/*
 * The instantiation arming (docs/collector.md "Graphs"), served by the
 * sampler like a launch (sampler_instantiate_enter()): wanted() scans the
 * graph (graphscan.h) and says whether its instantiation should run with
 * SASS metrics enabled, so that CUPTI patches its kernel nodes (the
 * default, =scanned: a safe graph with a function not counted yet;
 * GPUHIER_DIAG_SASS_GRAPHS=instantiate: every graph; =off or =1: none);
 * arm() enables them on this thread until exit(), which disables them
 * (nothing flushed) and takes note of the new executable (NULL when the
 * instantiation failed) for sass_graph_wanted().
 */
int sass_instantiate_wanted(CUgraph graph);
int sass_instantiate_arm(CUcontext ctx);
void sass_instantiate_exit(CUgraphExec exec);
/*
 * A graph's instantiation ENTER: shuts an enable left open for a chain
 * (GPUHIER_DIAG_SASS_CHAIN), so a graph is patched only when armed.
 */
void sass_window_shut(void);
/*
 * What the instrumentation engine did, for meta 'engine_instrumentation'
 * (engine.c): "ran", "failed: CALL: ERROR", "idle" (never served), into
 * buf; *launches and *graphs get the stream and graph launches it served.
 * After retire(), *note gets its note (else ""; may be NULL).
 */
void sass_state(char *buf, size_t n, long *launches, long *graphs, const char **note);

/*
 * Each of these calls the member of every listed engine that has one, in
 * the list's order, at the point the table above names.
 * engine_launch_other() skips `given`, the engine the launch was given to
 * (NULL: none). engine_stats() fills *s from zero.
 */
void engine_prepare(CUcontext ctx);
/* graph_launch() of every engine but `except`: before `except` serves (engine.h's table). */
void engine_quiesce(const struct counter_engine *except);
void engine_launch_other(const struct counter_engine *given, int capturing);
/* launch_other_end() of every engine but `given` (the launch's ENTER gave it to `given`). */
void engine_launch_other_end(const struct counter_engine *given);
void engine_graph_launch(void);
void engine_context_created(CUcontext ctx);
void engine_context_destroying(CUcontext ctx);
void engine_flush(void);
/*
 * Each engine's background() that background_wanted(), between hold(e)
 * (0: held; else put off) and release(): the sampler's served-launch hold.
 */
void engine_background(int (*hold)(const struct counter_engine *e), void (*release)(void));
void engine_exit_stop(void);
/*
 * Each engine's exit_notes(), then meta 'engines' (which were asked for),
 * 'engine_range_profiler' and 'engine_instrumentation' (what each did:
 * "ran: N launches", "refused: ...", "not used: ...", schema.sql), and a
 * watchdog's "stuck" when an engine call never returned (sampler.h).
 */
void engine_exit_notes(void);
void engine_stats(struct engine_stats *s);

#endif
