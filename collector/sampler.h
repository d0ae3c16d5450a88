/* SPDX-License-Identifier: MIT */
/*
 * sampler: which launches the counter engines serve (collector/sampler.c).
 */
#ifndef GPUHIER_COLLECTOR_SAMPLER_H
#define GPUHIER_COLLECTOR_SAMPLER_H
#include "collector/engine.h"

#include <stddef.h>
#include <stdint.h>

struct sampling_opts;

/*
 * init_profiling(): the decision table for the options `o` (sampling_init).
 * 0, or -1 with the reason in err. Once, before any launch.
 */
int sampler_init(const struct sampling_opts *o, char *err, size_t n);

/*
 * The writer's GPU-time hook under --profile-budget (writer_gpu_time_fn,
 * writer thread): a traced kernel's duration goes to its configuration.
 */
void sampler_gpu_time(const char *mangled, const uint32_t grid[3], const uint32_t block[3],
                      uint32_t dynamic_smem, int64_t ns);

/*
 * A launch's ENTER in profile mode (not in trace mode). Decides whether to
 * profile it: *why gets launch.profile_reason (static string),
 * *config_index the launch's index in its configuration. Returns 1 when
 * an engine serves the launch (it started: sampler_launch_exit() must
 * follow on this thread), 0 when none does.
 */
int sampler_launch_enter(const struct engine_launch *el, int capturing, const char **why,
                         long *config_index);

/* The launch's EXIT (launch_ok: the launch API succeeded): the serving engine ends. */
void sampler_launch_exit(int launch_ok);

/*
 * From an engine serving the calling thread's launch: one more profile of
 * that launch's configuration, collecting `groups` (enum metrics_group),
 * at its next launch (sampling_request_extras). 0 or -1.
 */
int sampler_request_extras(unsigned groups);

/*
 * cuGraphLaunch ENTER outside a capture, after engine_graph_launch(): the
 * instrumentation engine may serve the graph launch (GPUHIER_INSTRUMENT=1
 * or both; the first launch of each executable graph, engine_sass.c);
 * sampler_graph_exit() must follow at its EXIT on this thread.
 */
void sampler_graph_enter(const struct engine_graph *g);
void sampler_graph_exit(int launch_ok);
/*
 * A cuGraphInstantiate* ENTER outside a capture (graph: the CUgraph made
 * executable) and its EXIT (exec: the new executable, NULL on failure):
 * the instrumentation engine arms it when it wants to (engine.h), served
 * like a launch; sampler_instantiate_exit() must follow on this thread.
 */
void sampler_instantiate_enter(CUcontext ctx, CUgraph graph);
void sampler_instantiate_exit(CUgraphExec exec);

/*
 * The flusher, every 500 ms, and the exit: 1 while an engine call (a
 * launch's start or end in an engine) has run longer than
 * GPUHIER_DIAG_ENGINE_WATCHDOG_MS (default 60 s). The first time for an
 * engine it says so (one `==gpuhier==` line, run.profiling_limited, event
 * 'engine_stuck') and the writer commits; the call itself cannot be ended
 * from outside CUPTI. While it returns 1 the caller must not call CUPTI
 * (the stuck call may hold CUPTI's locks).
 */
int sampler_watchdog(void);

/*
 * The flusher's turn, before engine_flush(): each engine that wants work
 * done off the program's threads (background_wanted()) gets background(),
 * held as a served launch is (it counts for the exit and, with both
 * engines, holds serve_lock with every other engine disabled), but only
 * when that is free at once: a launch being served puts it off to the
 * next turn.
 */
void sampler_flush(void);
/* The watchdog's own thread, with the instrumentation engine on (never calls CUPTI). */
void sampler_watchdog_start(void);
void sampler_watchdog_stop(void);

/* 1 and what it found into buf once the watchdog found engine `e` stuck; else 0. */
int sampler_stuck(const struct counter_engine *e, char *buf, size_t n);

/*
 * From the range profiler, once its one-pass plan is packed: the plan has
 * `n` groups (sampling_set_groups()). Any thread.
 */
void sampler_set_groups(int n);

/*
 * From the range profiler serving the calling thread's launch (its first
 * group): the order of that configuration's groups (sampling_set_group_order()).
 * 0 or -1.
 */
int sampler_set_group_order(const unsigned char *order, int n);

/*
 * 1 while the calling thread's launch was given to an engine and its EXIT
 * has not come: the callbacks deliver that EXIT even after the collector
 * stopped collecting (callbacks_set_active(0)), so an engine never stays
 * started with its locks held when the exit stops it.
 */
int sampler_thread_serving(void);

/*
 * At exit, after the callbacks are off: waits at most `ms` until no launch
 * on any thread is between its serving and its EXIT (a launch another
 * thread was profiling when main returned). 1 when none is left, 0 when
 * the wait ended with one still in an engine.
 */
int sampler_exit_wait(int ms);

/* At exit, before the writer closes: the sampler's own note (budget_time_unmatched). */
void sampler_at_exit(void);

#endif
