/* SPDX-License-Identifier: MIT */
/*
 * options: the GPUHIER_* variables the collector reads when CUDA
 * initializes, parsed once into `opt` (options.h), which nothing else
 * writes. A bad profiling option turns profiling off with one line and a
 * `bad_option` note (limit()); tracing goes on. The few diagnosis
 * switches that act at one place (the activity buffer, kernel activity,
 * launch callbacks) are read there, so their line comes when they act.
 */
#include "collector/options.h"
#include "collector/collector_int.h"
#include "collector/metrics.h"
#include "collector/notes.h"
#include "collector/sampler.h"
#include "collector/sampling.h"
#include "schema/optvalue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options opt;

const char *
env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/*
 * The options initialize() reads before it claims the report: the
 * diagnosis switches of the range profiler and of the launch path, the
 * profiler hold, and whether to be quiet or verbose. Each switch that is
 * on says so in one line.
 */
void
options_read(void)
{
    gh_quiet = optvalue_switch(getenv("GPUHIER_QUIET"), 0);
    gh_debug = env("GPUHIER_DEBUG") != NULL;
    /*
     * Diagnosis only (docs/metrics.md, cost): CUPTI_UserReplay instead of
     * kernel replay. Nothing is replayed, so only a configuration whose
     * metrics fit one pass gives values; others are dropped and counted.
     */
    const char *rp = env("GPUHIER_DIAG_REPLAY");
    opt.user_replay = rp && !strcmp(rp, "user");
    /* Diagnosis only (docs/collector.md): the profiler stays enabled across unsampled launches. */
    opt.keep_enabled = env("GPUHIER_DIAG_KEEP_ENABLED") != NULL;
    /*
     * GPUHIER_INSTRUMENT: unset or 'both' both engines (the default since
     * issue 17: pattern counters on each configuration's first launch, the
     * range profiler's one-pass groups on later ones), 0 the range profiler
     * alone, 'phased' both one after the other, any other value the
     * instrumentation alone. Unset, the range profiler's own options
     * (GPUHIER_REPLAY=kernel, GPUHIER_METRIC_SET=none) choose the range
     * profiler alone: kernel replay beside a set SASS metrics config was
     * never run on the device, and a metric list of the user's is asked of
     * the range profiler. A program whose main returns while another
     * thread still launches died by SIGSEGV under both engines on the H200
     * until the range profiler's host objects were built at the first
     * launch and the exit waited for a served launch (2026-12-03,
     * docs/collector.md "Both engines in one process").
     */
    const char *ins = env("GPUHIER_INSTRUMENT");
    const char *rp_replay = env("GPUHIER_REPLAY"), *rp_set = env("GPUHIER_METRIC_SET");
    int rp_only =
        (rp_replay && !strcmp(rp_replay, "kernel")) || (rp_set && !strcmp(rp_set, "none"));
    opt.instrument = !ins                     ? (rp_only ? ENGINES_RANGEPROF : ENGINES_BOTH)
                     : !strcmp(ins, "0")      ? ENGINES_RANGEPROF
                     : !strcmp(ins, "both")   ? ENGINES_BOTH
                     : !strcmp(ins, "phased") ? ENGINES_PHASED
                                              : ENGINES_INSTRUMENT;
    if (opt.instrument == ENGINES_BOTH && rp_only) {
        gh_say("GPUHIER_INSTRUMENT=both with %s: the range profiler alone (kernel replay and "
               "a metric list of yours are the range profiler's)",
               rp_set && !strcmp(rp_set, "none") ? "GPUHIER_METRIC_SET=none"
                                                 : "GPUHIER_REPLAY=kernel");
        opt.instrument = ENGINES_RANGEPROF;
    }
    opt.phase_repeat = 8;
    long rep;
    if (env("GPUHIER_DIAG_PHASE_REPEAT") &&
        optvalue_count(env("GPUHIER_DIAG_PHASE_REPEAT"), 0, &rep) == 0)
        opt.phase_repeat = rep;
    opt.switch_keep = env("GPUHIER_DIAG_SWITCH_KEEP") != NULL;
    const char *se = env("GPUHIER_DIAG_SESSION");
    /*
     * the kept session is the default since 2026-12-04 (docs/collector.md
     * "Kept session"): =launch restores one session per profiled launch
     */
    opt.session_kept = !se || strcmp(se, "launch") != 0;
    opt.extras_core = env("GPUHIER_DIAG_EXTRAS_WITH_CORE") != NULL;
    /* docs/metrics.md "The tensor roof in group 1": the roof early, the code-only bundles late */
    const char *po = env("GPUHIER_DIAG_PLAN_ORDER");
    opt.plan_roof_early = po && !strcmp(po, "roof");
    if (po && !opt.plan_roof_early)
        gh_say("GPUHIER_DIAG_PLAN_ORDER=%s: not 'roof'; the default plan is used", po);
    opt.prewarm = !env("GPUHIER_DIAG_PREWARM")                 ? 0
                  : !strcmp(env("GPUHIER_DIAG_PREWARM"), "bg") ? PREWARM_BG
                                                               : 1;
    opt.print_metrics = env("GPUHIER_DIAG_PRINT_METRICS") != NULL;
    opt.sass_metrics = env("GPUHIER_DIAG_SASS_METRICS");
    opt.sass_eager = env("GPUHIER_DIAG_SASS_EAGER") != NULL;
    /*
     * Graph kernel nodes (docs/collector.md "Graphs"): by default a graph's
     * instantiation is armed for SASS metrics when graph_scan() finds it
     * safe (3), and each armed executable's first launch is instrumented;
     * =off never (0); =1 the first launch of every executable, unarmed (the
     * 2026-12-01 path, no counts on the H200); =instantiate every
     * instantiation armed (2: crashed graphs holding cuBLAS Hopper GEMMs).
     */
    const char *sg = env("GPUHIER_DIAG_SASS_GRAPHS");
    opt.sass_graphs = !sg || !strcmp(sg, "scanned") ? 3
                      : !strcmp(sg, "off")          ? 0
                      : !strcmp(sg, "instantiate")  ? 2
                                                    : 1;
    opt.graph_nodes = env("GPUHIER_DIAG_GRAPH_NODES") != NULL;
    /*
     * With both engines the SASS metrics config stays set from the first
     * instrumented launch to a context's destruction or the exit (one
     * SetConfig a device: a second one in a process fails with
     * CUPTI_ERROR_OUT_OF_MEMORY on the H200); GPUHIER_DIAG_SASS_UNSET_CONFIG=1
     * (diagnosis) unsets it after every served launch, as `both` did before
     * 2026-12-03.
     */
    opt.sass_keep_config = env("GPUHIER_DIAG_SASS_UNSET_CONFIG") == NULL;
    /*
     * Chained instrumented launches (the default since 2026-12-05, after the
     * H100's candidate check: docs/collector.md "Chained instrumented
     * launches"): an instrumented launch's enable stays open past its EXIT,
     * so that the next launch, if the engine serves it too (another
     * function, same context), pays no synchronize, swap, Enable or Disable;
     * any other launch shuts it first. GPUHIER_DIAG_SASS_CHAIN=0
     * (diagnosis) gives every instrumented launch its own enable.
     */
    opt.sass_chain = optvalue_switch(getenv("GPUHIER_DIAG_SASS_CHAIN"), 1);
    opt.sass_kernel_gate = env("GPUHIER_DIAG_SASS_KERNEL_GATE") != NULL;
    /*
     * With the instrumentation engine, kernels are traced concurrently and
     * serialized only while a launch is served (activity.c; measured on the
     * H200 on 2026-12-04, docs/collector.md "Kernel tracing beside the
     * instrumentation engine"). GPUHIER_DIAG_SERIALIZED_KERNELS=1
     * (diagnosis) keeps the whole run serialized, as before.
     */
    opt.concurrent_toggle = env("GPUHIER_DIAG_SERIALIZED_KERNELS") == NULL;
    if (!opt.concurrent_toggle)
        gh_say("GPUHIER_DIAG_SERIALIZED_KERNELS: with the instrumentation engine, kernels are "
               "traced serialized for the whole run (diagnosis)");
    opt.diag_exit_no_wait = env("GPUHIER_DIAG_EXIT_NO_WAIT") != NULL;
    /* GPUHIER_DIAG_LAUNCH_HOLD=N:MS (tests): the N-th launch waits MS ms after the engines' look */
    if (env("GPUHIER_DIAG_LAUNCH_HOLD") &&
        sscanf(env("GPUHIER_DIAG_LAUNCH_HOLD"), "%ld:%ld", &opt.diag_launch_hold_n,
               &opt.diag_launch_hold_ms) != 2)
        opt.diag_launch_hold_n = opt.diag_launch_hold_ms = 0;
    if (env("GPUHIER_DIAG_RP_SETTLE") &&
        optvalue_count(env("GPUHIER_DIAG_RP_SETTLE"), 1, &opt.rp_settle_ms) == 0)
        gh_say("GPUHIER_DIAG_RP_SETTLE: with both engines the range profiler's groups wait for "
               "the program to repeat itself (at most %ld ms) and go by GPU time (diagnosis)",
               opt.rp_settle_ms);
    if (!optvalue_switch(getenv("GPUHIER_DIAG_RP_RUNS"), 1))
        gh_say("GPUHIER_DIAG_RP_RUNS=0: no group runs, each configuration's groups in its own "
               "order (diagnosis: the default before 2026-12-04)");
    if (optvalue_switch(getenv("GPUHIER_DIAG_RP_AFTER_INST"), 0))
        gh_say("GPUHIER_DIAG_RP_AFTER_INST: range profiles wait while the instrumentation engine "
               "served a launch within the program's period (diagnosis)");
    if (optvalue_switch(getenv("GPUHIER_DIAG_RP_RUN_SKIP"), 0))
        gh_say("GPUHIER_DIAG_RP_RUN_SKIP: a group run moves to a group a recent configuration can "
               "take (diagnosis)");
    opt.rp_graph_user =
        env("GPUHIER_DIAG_RP_GRAPHS_RANGE") && !strcmp(env("GPUHIER_DIAG_RP_GRAPHS_RANGE"), "user");
    if (env("GPUHIER_DIAG_RP_GRAPHS") &&
        optvalue_count(env("GPUHIER_DIAG_RP_GRAPHS"), 1, &opt.rp_graphs) == 0 && opt.rp_graphs)
        gh_say("GPUHIER_DIAG_RP_GRAPHS: the range profiler serves the second launch of at most "
               "%ld executable graphs, %s (diagnosis)",
               opt.rp_graphs,
               opt.rp_graph_user ? "one user range around the whole launch"
                                 : "one auto range per kernel node");
    opt.rp_through_inst = env("GPUHIER_DIAG_RP_THROUGH_INST") != NULL;
    if (opt.rp_through_inst)
        gh_say("GPUHIER_DIAG_RP_THROUGH_INST: with both engines the range profiler stays enabled "
               "through instrumented launches (diagnosis; it crashed PyTorch by SIGSEGV in 1 of 2 "
               "runs on the H200, docs/sampling.md)");
    /*
     * Concurrent-kernel tracing runs code in every kernel it traces on the
     * H200 (8 warp instructions per warp and a host-memory write: docs/
     * agreement.md), so a range-profiled launch is traced with KIND_KERNEL
     * (since 2026-12-04); GPUHIER_DIAG_RP_KERNEL_SWAP=0 (diagnosis) leaves
     * concurrent tracing on through ranges, as before.
     */
    opt.rp_kernel_swap = optvalue_switch(getenv("GPUHIER_DIAG_RP_KERNEL_SWAP"), 1);
    if (!opt.rp_kernel_swap)
        gh_say("GPUHIER_DIAG_RP_KERNEL_SWAP=0: range-profiled launches traced concurrently, "
               "their counts include concurrent-kernel tracing's instructions (diagnosis)");
    long stacks_s;
    opt.diag_stacks =
        env("GPUHIER_DIAG_STACKS") && optvalue_count(env("GPUHIER_DIAG_STACKS"), 0, &stacks_s) == 0
            ? (int)stacks_s
            : 0;
    opt.lazy_ns = 100 * 1000000LL;
    long hold_ms;
    if (env("GPUHIER_PROFILER_HOLD_MS")) {
        if (optvalue_count(env("GPUHIER_PROFILER_HOLD_MS"), 0, &hold_ms) == 0 && hold_ms <= 3600000)
            opt.lazy_ns = hold_ms * 1000000LL;
        else
            gh_say("GPUHIER_PROFILER_HOLD_MS: '%s' is not a whole number of milliseconds "
                   "(0-3600000); keeping %.0f ms",
                   env("GPUHIER_PROFILER_HOLD_MS"), opt.lazy_ns / 1e6);
    }
    opt.stack_limit_set = env("GPUHIER_DIAG_STACK_LIMIT");
    opt.watchdog_ms = 60000;
    long wd;
    if (env("GPUHIER_DIAG_ENGINE_WATCHDOG_MS") &&
        optvalue_count(env("GPUHIER_DIAG_ENGINE_WATCHDOG_MS"), 1, &wd) == 0)
        opt.watchdog_ms = wd;
    opt.carveout_pct = -1;
    if (env("GPUHIER_DIAG_PAD_MB") && optvalue_count(env("GPUHIER_DIAG_PAD_MB"), 1, &opt.pad_mb))
        opt.pad_mb = 0;
    long pct;
    if (env("GPUHIER_DIAG_CARVEOUT") &&
        optvalue_count(env("GPUHIER_DIAG_CARVEOUT"), 0, &pct) == 0 && pct <= 100) {
        opt.carveout_pct = (int)pct;
        gh_say("GPUHIER_DIAG_CARVEOUT: every launch prefers a %d %% shared-memory carveout "
               "(diagnosis)",
               opt.carveout_pct);
    }
    if (opt.switch_keep)
        gh_say("GPUHIER_DIAG_SWITCH_KEEP: no re-enable when the config image changes (diagnosis "
               "only: values may be lost)");
    if (opt.keep_enabled)
        gh_say("GPUHIER_DIAG_KEEP_ENABLED: range profiler stays enabled across unsampled launches "
               "(diagnosis only)");
    if (!opt.session_kept)
        gh_say("GPUHIER_DIAG_SESSION=launch: one range-profiler session per profiled launch "
               "(diagnosis: the default before 2026-12-04)");
    if (opt.user_replay)
        gh_say("GPUHIER_DIAG_REPLAY=user: CUPTI user replay, one pass per range (diagnosis only)");
}

/*
 * A GPUHIER_* option that takes one word of `choices`: the word's index,
 * `unset` when the variable is not set, or -1 after saying once that
 * profiling is off (bad_option).
 */
static int
env_word(const char *var, const char *choices, int unset)
{
    const char *v = env(var);
    if (!v)
        return unset;
    int i = optvalue_choice(v, choices);
    if (i < 0) {
        char words[64];
        limit("bad_option", "profiling disabled: %s='%s' is not %s", var, v,
              optvalue_choices_text(choices, words, sizeof(words)));
    }
    return i;
}

void
init_profiling(void)
{
    char err[512] = "";
    /* the CLI refuses a bad mode; set by hand, it used to profile silently */
    int m = env_word("GPUHIER_MODE", OPTVALUE_MODES, 1);
    if (m == 0)
        opt.trace_only = 1;
    if (m != 1)
        return;
    /*
     * One-pass groups unless --replay kernel, --metric-set none (a list of
     * the user's, collected as given) or the instrumentation engine alone
     * (=1: no range profiler). Both engines (the default) take them for the
     * range profiler's launches. With =phased
     * the range profiler runs alone after the window, so it takes the
     * groups as by default: without them it fell back to the core set
     * under kernel replay (3 passes a profile; the PyTorch benchmark took
     * 72.9 s and then more than 200 s on the H200, 2026-12-01).
     */
    int r = env_word("GPUHIER_REPLAY", OPTVALUE_REPLAYS, 0);
    if (r < 0)
        return;
    opt.replay_kernel = r == 1;
    const char *set = env("GPUHIER_METRIC_SET");
    opt.groups = !opt.replay_kernel && opt.instrument != ENGINES_INSTRUMENT &&
                 !(set && !strcmp(set, "none"));
    struct sampling_opts o = SAMPLING_OPTS_INIT;
    o.groups = opt.groups;
    if (sampling_opts_from_env(&o, err, sizeof(err)) || sampler_init(&o, err, sizeof(err))) {
        limit("bad_option", "profiling disabled: %s", err);
        return;
    }
    opt.sampling_ok = 1;
    int ms = env_word("GPUHIER_METRIC_SET", OPTVALUE_METRIC_SETS, 0);
    if (ms < 0) {
        opt.sampling_ok = 0;
        return;
    }
    opt.no_core = ms == 1; /* none */
    if (opt.no_core && !env("GPUHIER_METRICS")) {
        limit("bad_option", "profiling disabled: GPUHIER_METRIC_SET=none and no GPUHIER_METRICS");
        opt.sampling_ok = 0;
        return;
    }
    /* the rules' names (gpuhier run) are dropped, not fatal, on a chip that lacks them */
    metrics_set_optional(env("GPUHIER_RULE_METRICS"));
    opt.metrics = metrics_list_build(opt.no_core ? METRICS_NO_CORE : 0, env("GPUHIER_METRICS"),
                                     &opt.nmetrics, err, sizeof(err));
    int c = env_word("GPUHIER_CACHE_CONTROL", OPTVALUE_CACHE_CONTROLS, 1);
    if (c < 0) {
        opt.sampling_ok = 0;
        return;
    }
    opt.cache_all = c == 0; /* all */
    /*
     * the budgets rank configurations by the GPU time of their traced
     * launches; the instrumentation engine's price past its allowance is
     * paid from it
     */
    if (o.budget_pct > 0 || (o.groups && o.group_budget_pct > 0) ||
        (opt.instrument == ENGINES_BOTH && o.inst_allowance_ns >= 0))
        writer_set_gpu_time_hook(sampler_gpu_time);
    if (!opt.metrics) {
        limit("bad_metric", "profiling disabled: %s", err);
        opt.sampling_ok = 0;
    }
}
