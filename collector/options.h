/* SPDX-License-Identifier: MIT */
/*
 * options: the GPUHIER_* variables the collector reads when CUDA
 * initializes (collector/options.c; the table in docs/collector.md).
 *
 * initialize() calls options_read() and then init_profiling(), on the
 * thread that initializes CUDA, before any callback is enabled; `opt` is
 * read-only after that, and any thread reads it without a lock.
 */
#ifndef GPUHIER_COLLECTOR_OPTIONS_H
#define GPUHIER_COLLECTOR_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

/* Which counter engines serve sampled launches (opt.instrument). */
enum engine_mode {
    ENGINES_RANGEPROF,  /* the range profiler alone (GPUHIER_INSTRUMENT=0, --replay kernel,
                           --metric-set none) */
    ENGINES_INSTRUMENT, /* the instrumentation engine alone (GPUHIER_INSTRUMENT=1) */
    ENGINES_BOTH,       /* the default: instrumentation on each configuration's first launch,
                           the range profiler's one-pass groups on later ones */
    ENGINES_PHASED,     /* the instrumentation engine in a window at the start, then the range
                           profiler alone (GPUHIER_INSTRUMENT=phased; sampler.c, docs/collector.md
                           "The instrumentation window"; not yet run on the device) */
};

/* opt.prewarm: 1 at the first launch, PREWARM_BG on the flusher before it (engine_rangeprof.c) */
#define PREWARM_BG 2

struct options {
    int trace_only;    /* GPUHIER_MODE=trace: no counters */
    int sampling_ok;   /* profile mode and every profiling option good: the sampler may choose
                        launches (0 after a bad option, which limit() said) */
    int user_replay;   /* GPUHIER_DIAG_REPLAY=user: CUPTI_UserReplay, one pass only (diagnosis) */
    int replay_kernel; /* GPUHIER_REPLAY=kernel (--replay kernel): the core set under kernel
                          replay, extras where a rule needs them (the default before issue 18) */
    int groups;        /* one-pass groups (the default: GPUHIER_REPLAY unset or none, the
                          default metric set, not the instrumentation engine alone): each
                          launch the range profiler serves
                          collects one group of the plan under user replay (collector/onepass.h) */
    int keep_enabled; /* GPUHIER_DIAG_KEEP_ENABLED=1: no disable at unsampled launches (diagnosis) */
    int switch_keep; /* GPUHIER_DIAG_SWITCH_KEEP=1: no re-enable when the image changes (diagnosis) */
    int session_kept;  /* GPUHIER_DIAG_SESSION=kept: one range-profiler session per one-pass group,
                         one user range per profiled launch (diagnosis, docs/collector.md) */
    int instrument;    /* which counter engines serve sampled launches (enum engine_mode,
                       GPUHIER_INSTRUMENT: unset or 'both' the two (the range profiler alone
                       under --replay kernel or --metric-set none), 0 the range profiler, 1
                       the instrumentation engine alone, 'phased' the two one after the other;
                       docs/collector.md "Counter engines") */
    long phase_repeat; /* GPUHIER_DIAG_PHASE_REPEAT=N: the instrumentation window's floor of
                          launches since the last new configuration (default 8; sampler.c) */
    int prewarm;       /* GPUHIER_DIAG_PREWARM=1: one empty range before the first launch; =bg
                    (PREWARM_BG): on the flusher thread before the first launch (diagnosis) */
    int extras_core; /* GPUHIER_DIAG_EXTRAS_WITH_CORE=1: extras carry the whole core (diagnosis) */
    int plan_roof_early; /* GPUHIER_DIAG_PLAN_ORDER=roof: the tensor roof in group 1 (diagnosis) */
    int print_metrics; /* GPUHIER_DIAG_PRINT_METRICS=1: each profile's values on stderr (diagnosis) */
    /* The instrumentation engine's diagnosis switches (docs/collector.md, engine_sass.c). */
    const char *sass_metrics; /* GPUHIER_DIAG_SASS_METRICS=a,b,...: only those; borrowed */
    int sass_eager;           /* GPUHIER_DIAG_SASS_EAGER=1: patch every function at Enable */
    /*
     * GPUHIER_DIAG_SASS_GRAPHS: 3 (unset or =scanned) arm a graph's instantiation for SASS
     * metrics when collector/graphscan.h finds it safe, and instrument each armed executable's
     * first launch; 0 (=off) never; 1 (=1) every executable's first launch, unarmed (no counts
     * on the H200); 2 (=instantiate) every instantiation armed (crashed graphs holding cuBLAS
     * Hopper GEMMs: docs/sassprobe.md).
     */
    int sass_graphs;
    /* GPUHIER_DIAG_GRAPH_NODES=1: each instantiated graph's kernel nodes on stderr (graphscan.c) */
    int graph_nodes;
    int sass_keep_config;  /* both engines: the config stays set (GPUHIER_DIAG_SASS_UNSET_CONFIG=1
                             unsets it after each served launch) */
    int sass_kernel_gate;  /* GPUHIER_DIAG_SASS_KERNEL_GATE=1: kernel tracing off while served */
    int concurrent_toggle; /* with the instrumentation engine, concurrent-kernel tracing but while
                              a launch is served (activity.c); 0 with
                              GPUHIER_DIAG_SERIALIZED_KERNELS=1 */
    /* instrumented launches in a row share an enable (engine_sass.c; GPUHIER_DIAG_SASS_CHAIN=0) */
    int sass_chain;
    long rp_settle_ms;   /* GPUHIER_DIAG_RP_SETTLE=MS: with both engines the range profiler's groups
                          wait for the program to repeat itself (at most MS of its own time) and
                          go by GPU time within the allowance too (diagnosis; sampler.c) */
    int rp_through_inst; /* GPUHIER_DIAG_RP_THROUGH_INST=1: with both engines an instrumented launch
                            leaves the range profiler enabled (never started), so the next profile
                            pays no new enable (diagnosis; sampler.c serve_lock()) */
    long rp_graphs;      /* GPUHIER_DIAG_RP_GRAPHS=N: the range profiler serves the second launch
                            of at most N executable graphs, one auto range per kernel node, and
                            says what each range measured (diagnosis; engine_rangeprof.c) */
    int rp_graph_user;   /* GPUHIER_DIAG_RP_GRAPHS_RANGE=user: one user range around the whole graph
                            launch instead of auto range (diagnosis) */
    int rp_kernel_swap;  /* a range-profiled launch is traced with CUPTI_ACTIVITY_KIND_KERNEL, as
                           an instrumented one (the default; GPUHIER_DIAG_RP_KERNEL_SWAP=0 leaves
                           concurrent-kernel tracing, which adds instructions, on: diagnosis) */
    /* GPUHIER_DIAG_LAUNCH_HOLD=N:MS (tests): the N-th launch is held MS ms (callbacks.c) */
    long diag_launch_hold_n, diag_launch_hold_ms;
    int diag_exit_no_wait; /* GPUHIER_DIAG_EXIT_NO_WAIT=1: the exit neither waits for another
                              thread's served launch nor lets its EXIT through (the collector
                              before 2026-12-03's fix; diagnosis, docs/collector.md "At exit") */
    int diag_stacks; /* GPUHIER_DIAG_STACKS=N: every thread's stack when a call is stuck, or N s
                       after the start (stacks.c) */
    const char *stack_limit_set; /* GPUHIER_DIAG_STACK_LIMIT=BYTES, set at the first launch
                                    (diagnosis); borrowed from the environment */
    int carveout_pct; /* GPUHIER_DIAG_CARVEOUT=PCT: preferred carveout of every launch; -1 = off */
    long pad_mb;      /* GPUHIER_DIAG_PAD_MB=N: N MB allocated at the first launch (diagnosis) */
    int64_t lazy_ns;  /* GPUHIER_PROFILER_HOLD_MS, in ns (default 100 ms); 0 = off */
    long watchdog_ms; /* GPUHIER_DIAG_ENGINE_WATCHDOG_MS (default 60000): an engine call that
                         has not returned after this long is reported stuck (sampler.h) */
    int cache_all;    /* GPUHIER_CACHE_CONTROL=all: flush the L2 before each profiled launch */
    int no_core;      /* GPUHIER_METRIC_SET=none: only GPUHIER_METRICS, no extras */
    char **metrics;   /* a core profile's metric names (metrics_list_build); never freed */
    size_t nmetrics;
};

/* Written by options_read() and init_profiling() only. */
extern struct options opt;

/* getenv(), with an empty value read as unset (NULL). The string is the environment's. */
const char *env(const char *name);

/*
 * Quiet and debug (gh_quiet, gh_debug), the diagnosis switches, the
 * profiler hold; one `==gpuhier==` line for each switch that is on and for
 * a hold that is not a whole number of milliseconds. Before the report
 * exists: nothing here can fail.
 */
void options_read(void);

/*
 * GPUHIER_MODE, the sampling options (sampler_init()), the metric set and
 * metrics, cache control. A bad value turns profiling off (limit(),
 * `bad_option` or `bad_metric`, opt.sampling_ok 0) and tracing goes on.
 * Under --profile-budget it also gives the writer the sampler's GPU-time
 * hook.
 */
void init_profiling(void);

#endif
