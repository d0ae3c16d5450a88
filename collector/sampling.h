/* SPDX-License-Identifier: MIT */
/*
 * sampling: which traced launches get hardware counters, and why not.
 *
 * Pure decisions (no CUDA, no CUPTI): the collector describes a launch in
 * a struct sampling_launch and sampling_decide() says whether to profile
 * it, returning the schema's launch.profile_reason vocabulary. It keeps a
 * count of launches per configuration (kernel, grid, block, dynamic shared
 * memory) in a table allocated at init, so deciding never allocates.
 *
 * Order of the checks (first match wins): stream capture, graph launch,
 * communication kernel (sampling_is_comm_kernel(), unless the kernel-name
 * filter names it), kernel-name filter, NVTX filter, --launch-skip, then the sampling mode,
 * --launch-count, and last the deferrals of a launch the mode chose:
 * --profile-budget ("profile_budget", profiling is over budget), then
 * busy counters ("counters_busy", another process or tool holds the
 * hardware counters), then, under --profile-budget, the GPU-time ranking
 * ("profile_budget": the budget goes to the configurations that took the
 * most GPU time so far, sampling_add_gpu_time()). A deferred launch leaves its configuration
 * eligible, so the configuration's next launch is chosen again. Skip and
 * count apply to launches that pass the filters, like Nsight Compute's
 * --launch-skip / --launch-count.
 */
#ifndef GPUHIER_COLLECTOR_SAMPLING_H
#define GPUHIER_COLLECTOR_SAMPLING_H
#include <pthread.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

enum sampling_mode {
    SAMPLING_CONFIG, /* first launch of each configuration (default) */
    SAMPLING_ALL,    /* every launch */
    SAMPLING_FIRST,  /* the first n launches of each configuration */
    SAMPLING_EVERY,  /* launches 0, n, 2n, ... of each configuration */
};

/* Options, as parsed from the command line / GPUHIER_* variables. */
struct sampling_opts {
    enum sampling_mode mode;
    long n;             /* for SAMPLING_FIRST / SAMPLING_EVERY, >= 1 */
    const char *kernel; /* regex (POSIX extended) on mangled or demangled name, or NULL */
    const char *nvtx;   /* regex on the launch's NVTX path, or NULL */
    long launch_skip;   /* filtered launches to skip before profiling, >= 0 */
    long launch_count;  /* profile at most this many launches, -1 = unlimited */
    double budget_pct;  /* --profile-budget: profiling may add at most this % to the rest of the
                           run's time; 0 = no budget */
    int groups;         /* one-pass groups (the default, --replay none): 1 = on, each profiled
                           launch collects one group of the plan (sampling_set_groups() gives
                           the count once known); 0 = off (--replay kernel: core + extras) */
    double group_budget_pct; /* in config mode with groups, without --profile-budget: a
                                configuration's later groups (not its first) may add at most
                                this % to the rest of the run; 0 = no limit. Default
                                SAMPLING_GROUP_BUDGET_PCT, GPUHIER_GROUP_BUDGET */
    int sticky_groups;       /* diagnosis (GPUHIER_DIAG_STICKY_GROUPS=1), config mode with groups:
                           a configuration's next later group is the one last given to any
                           configuration when it still lacks it (no config image switch:
                           docs/rangeprof-cost.md), else its first missing one in order */
    long run_floor;          /* config mode with groups: group runs (< 0 off, as in
                                SAMPLING_OPTS_DEFAULT; sampling_opts_from_env() sets
                                SAMPLING_RUN_FLOOR, the collector's default, unless
                                GPUHIER_DIAG_RP_RUNS=0): every profile of a run takes the run's one
                                group, so the config image changes once a run, not at nearly
                                every profile; the run moves to the next group (after the last,
                                back to the first) at a launch that would wait, once the
                                program's period (sampling_run_ends()) has passed with no
                                profile of it, at least run_floor launches */
    int rp_after_inst;       /* diagnosis (GPUHIER_DIAG_RP_AFTER_INST=1), group runs: a range
                                profile waits while the instrumentation engine served a launch
                                within the program's period (sampling_after_inst()), at most
                                SAMPLING_RUN_PERIOD_MAX launches in a row */
    int run_skip;            /* diagnosis (GPUHIER_DIAG_RP_RUN_SKIP=1), group runs: a run that
                                ends moves to the next group a configuration launched within
                                the period can take, not to one nobody can */
    long settle_first_floor; /* the floor of sampling_repeated() for a first group that waits
                                 (sampling_launch.first_wait). Default
                                 SAMPLING_SETTLE_FIRST_FLOOR */
    int64_t first_allowance_ns; /* in config mode with groups, without --profile-budget:
                                   the profiling time within which every group is taken
                                   when its launch comes; past it first and later groups
                                   share group_budget_pct of the program's own time,
                                   ranked by GPU time, the allowance not charged
                                   (sampling_first_slots()); < 0: no limit on first groups
                                   and the later ones under the plain budget. Default
                                   SAMPLING_FIRST_ALLOWANCE_NS, GPUHIER_FIRST_ALLOWANCE_MS */
    long settle_floor;          /* the floor of sampling_repeated() for a later group that
                                   waits (sampling_launch.groups_wait); < 0: later groups
                                   never wait for it. Default SAMPLING_SETTLE_FLOOR,
                                   GPUHIER_DIAG_GROUPS_SETTLE (N or "none") */
    int64_t inst_allowance_ns;  /* with both engines: the instrumentation engine's time
                                  within which it takes every configuration's first chosen
                                  launch; past it, a configuration's launch when its price
                                  fits (sampling_inst_pays(), sampler.c inst_budget()),
                                  else the range profiler takes the launch; < 0: no
                                  limit. Default
                                  SAMPLING_INST_ALLOWANCE_NS, GPUHIER_INSTRUMENT_ALLOWANCE_MS */
    double inst_budget_pct;     /* the share above; default SAMPLING_INST_BUDGET_PCT,
                                  GPUHIER_INSTRUMENT_BUDGET (a percentage > 0, or none) */
    double later_total_pct;     /* diagnosis (GPUHIER_DIAG_LATER_TOTAL_BUDGET=PCT), config mode
                                  with groups and both engines, without --profile-budget: past
                                  the allowance a later group is taken only while every
                                  engine's time so far is within PCT % of the program's own
                                  time (elapsed less every engine's time), on top of
                                  group_budget_pct; 0 = off (the default) */
    int first_waits_run;        /* diagnosis (GPUHIER_DIAG_RP_FIRST_WAITS=1), group runs: a
                                  configuration with no group yet waits for group 1's run, as
                                  before 2026-12-06; by default it takes its first group at once,
                                  and the run turns to group 1 (coverage before completeness) */
    int run_value;              /* group runs (the default since 2026-12-06; diagnosis
                                  GPUHIER_DIAG_RUN_VALUE=0 turns it off): a later group that
                                  would be its run's first profile (an image switch) waits
                                  under groups_wait unless its configuration's GPU time so far
                                  is at least the switch's cost (sampling_launch.switch_ns) */
    int no_floor;               /* diagnosis (GPUHIER_DIAG_GROUPS_FLOOR=0): a later group waiting
                                  under groups_wait is not held to the severity floor
                                  (sampling_can_warn()); 0 = the floor applies (the default) */
};
/*
 * The default budget of the one-pass groups: 30 % of the program's own
 * time, the --profile-budget that measured 1.14x native on the PyTorch
 * benchmark (docs/metrics.md). Every group is under it past
 * SAMPLING_FIRST_ALLOWANCE_NS of profiling, which is not charged to it
 * (docs/sampling.md "One-pass groups and the budget").
 */
#define SAMPLING_GROUP_BUDGET_PCT 30.0
/*
 * The first groups' allowance: 2 s of profiling. Measured on the H200
 * (2026-12-01, docs/rangeprof-cost.md): a first group costs about 60 ms,
 * and the PyTorch benchmark's 145 configurations took 8.6 s of first
 * groups on a 14 s run (1.57x native). A program whose first groups fit
 * in 2 s (about 30 configurations: every testkernel, a small script) gets
 * all of them at their first launch, as before; a larger one gets 2 s of
 * them in launch order, then the rest within the group budget (30 % of
 * the rest of the run), the configurations holding the most GPU time first
 * (docs/sampling.md "The first groups' budget").
 */
#define SAMPLING_FIRST_ALLOWANCE_NS (2000 * 1000000LL)
/*
 * Past half of the first groups' allowance, later groups wait until the
 * program repeats itself, with at least 8 launches of repeats
 * (sampling_repeated()). Measured on the H200 (2026-12-01 22:58 UTC,
 * docs/cost-vs-ncu.md): within the 2 s allowance the PyTorch benchmark's
 * first two configurations took 10 later groups (about 180 ms each, a
 * config image switch) before the configurations holding most of its GPU
 * time had been launched at all; those then found the allowance spent
 * (17.1 % of the GPU time covered).
 */
#define SAMPLING_SETTLE_FLOOR 8
/*
 * Under GPUHIER_DIAG_RP_SETTLE a first group waits for a repeat of at
 * least 1 launch (and as many as came before the last new configuration):
 * a program that launches one configuration 3 times settles at its second
 * launch; with the later groups' floor of 8 it never did, and a short
 * program would end with no hardware counters.
 */
#define SAMPLING_SETTLE_FIRST_FLOOR 1
/*
 * Group runs (sampling_opts.run_floor): a run ends at a launch that would
 * wait for another group, once the launches since the run's last profile
 * number the program's period (the longest gap seen between two launches
 * of one configuration, counted up to SAMPLING_RUN_PERIOD_MAX) and at
 * least this floor. With a floor of 1 a configuration launched many times
 * in a row takes a group at each launch, as without runs (tests/gpu
 * t180's testkernels; with a floor of 32 they got one group of 8).
 */
#define SAMPLING_RUN_FLOOR 1
#define SAMPLING_RUN_PERIOD_MAX 1024
/*
 * The instrumentation engine's allowance and budget, with both engines
 * (--counters both): the range profiler's rule (2 s, then 30 % of the
 * program's own time), applied to the instrumentation engine's own time
 * apart. A patched run costs about 0.5 ns per executed warp instruction
 * (30-100x native; docs/instrument-cost.md): a program that launches
 * many heavy configurations once (an autotuner: JAX's first step, 117
 * configurations instrumented in 10.3 s on the H200, 2026-12-03) would
 * otherwise pay 100x for each of them. Past the allowance a configuration
 * waits for its price (below) and meanwhile its launches go to the range
 * profiler; one that never pays has no exact per-instruction counts (the coverage says
 * how much GPU time that is). Each engine's rule charges the program's own
 * time, not the other engine's.
 */
#define SAMPLING_INST_ALLOWANCE_NS (2000 * 1000000LL)
#define SAMPLING_INST_BUDGET_PCT 30.0
/*
 * Within the allowance a configuration's first launch is instrumented
 * blind, unless another configuration of its kernel cost more than this
 * share of the allowance (a tenth: no single blind launch should take more)
 * to instrument: it then waits for its price (sampling_inst_sibling_dear()).
 */
#define SAMPLING_INST_BLIND_SHARE 10
/*
 * The instrumentation engine's price past its allowance (docs/sampling.md
 * "The instrumentation engine's price"): an instrumented launch costs a
 * fixed part (enable, lazy patching, flush, disable: 4.2-5.2 ms a launch at
 * the median on the PyTorch benchmark and GPT-2, whose kernels run 7-156 us,
 * on the H200, docs/instrument-cost.md) and its patched run, the kernel's
 * native time times a slowdown: about 100x before this process measured its
 * own (XLA's GEMM fusions 100-265x, the SASS probe 30-100x). The slowdown is
 * learned from the process's instrumented configurations whose native time
 * the traced launches after them gave (sampling_inst_slowdown()), counting
 * kernels of at least SAMPLING_INST_LEARN_MIN_NS, whose patched run is more
 * than the fixed part.
 */
#define SAMPLING_INST_FIXED_NS (5 * 1000000LL)
#define SAMPLING_INST_SLOWDOWN 100.0
#define SAMPLING_INST_LEARN_MIN_NS (100 * 1000LL)
/*
 * Past the allowance a configuration is instrumented from its third launch
 * on: the analyzer's loop repeats at least 3 times (analyzer/prepare.c
 * LOOP_MIN_REPEATS; docs/analyzer.md "One-time set-up"), and XLA's
 * autotuner launched each candidate twice (the JAX report of 2026-12-04
 * 19:32 UTC, docs/sampling.md "The instrumentation engine's price").
 */
#define SAMPLING_INST_REPEATS 3
/* The most one-pass groups a configuration is profiled in (collector/onepass.h agrees). */
#define SAMPLING_GROUPS_MAX 12
#define SAMPLING_OPTS_INIT                                                                         \
    {                                                                                              \
        .mode = SAMPLING_CONFIG, .n = 1, .launch_count = -1,                                       \
        .group_budget_pct = SAMPLING_GROUP_BUDGET_PCT,                                             \
        .first_allowance_ns = SAMPLING_FIRST_ALLOWANCE_NS, .settle_floor = SAMPLING_SETTLE_FLOOR,  \
        .settle_first_floor = SAMPLING_SETTLE_FIRST_FLOOR,                                         \
        .inst_allowance_ns = SAMPLING_INST_ALLOWANCE_NS,                                           \
        .inst_budget_pct = SAMPLING_INST_BUDGET_PCT, .run_floor = -1, .run_value = 1               \
    }

/*
 * Parses a --sample value: "config", "all", "first:N", "every:N" (N >= 1).
 * Returns 0 and fills mode/n, or -1 with a message in err.
 */
int sampling_parse_mode(const char *spec, struct sampling_opts *o, char *err, size_t n);

/*
 * Fills `o` from GPUHIER_SAMPLE, GPUHIER_KERNEL, GPUHIER_NVTX_INCLUDE,
 * GPUHIER_LAUNCH_SKIP, GPUHIER_LAUNCH_COUNT, GPUHIER_PROFILE_BUDGET (a
 * percentage > 0), GPUHIER_GROUP_BUDGET (a percentage > 0, or 0 or "none"
 * for no limit on the later groups), GPUHIER_INSTRUMENT_ALLOWANCE_MS
 * (milliseconds or "none": no limit on the instrumentation engine) and
 * GPUHIER_INSTRUMENT_BUDGET (a percentage > 0); unset ones keep defaults.
 * The strings are borrowed from the environment. -1 with err on a bad value.
 */
int sampling_opts_from_env(struct sampling_opts *o, char *err, size_t n);

/* One launch as the collector sees it at its launch callback. */
struct sampling_launch {
    const char *mangled;   /* kernel symbol name (may be NULL) */
    const char *demangled; /* demangled name, or NULL: then a kernel regex is also tried on the
                              name sampling demangles itself (no allocation) */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dynamic_smem_bytes;
    const char *nvtx_path; /* NVTX ranges open on the thread, ' > '-joined, or NULL */
    int is_capturing;      /* launched while its stream (or the thread) is capturing */
    int is_graph;          /* a kernel node of a graph launch */
    int over_budget;       /* profiling has spent the --profile-budget so far
                              (sampling_budget_allows() said no): a launch chosen now is
                              deferred, "profile_budget" */
    int counters_busy;     /* the collector is backing off after CUPTI_ERROR_HARDWARE_BUSY
                              (sampling_busy_backoff_ns()): a launch chosen now is deferred,
                              "counters_busy" */
    long budget_slots;     /* under --profile-budget: how many profiles the budget buys now
                              (sampling_budget_slots(); values < 1 count as 1). A chosen
                              launch is profiled only if its configuration has GPU time
                              recorded and fewer than budget_slots configurations still
                              waiting for their first profile took more */
    int group_over_budget; /* with one-pass groups in config mode: profiling has spent the
                              later groups' budget (group_budget_pct, or budget_pct under
                              --profile-budget): a later group chosen now is deferred,
                              "profile_budget" */
    int first_budget;      /* default sampling with groups (the range profiler serves,
                              no --profile-budget): a configuration's first group is under
                              the first groups' budget (first_over_budget, first_slots) */
    int first_over_budget; /* with first_budget: the allowance and the group budget are
                              spent (sampling_first_slots() said 0): a first group chosen now
                              is deferred, "profile_budget" */
    long first_slots;      /* with first_budget: how many first groups the budget buys now;
                              a first group is profiled only if fewer than first_slots
                              configurations still waiting for one took more GPU time
                              (LONG_MAX within the allowance: no ranking) */
    long group_slots;      /* how many later-group profiles that budget buys now
                              (sampling_budget_slots()); a later group is profiled only if
                              fewer than group_slots configurations still waiting for one
                              took more GPU time; values < 1: no ranking */
    int groups_wait;       /* config mode with groups: a later group chosen now waits
                              ("profile_budget") while the program still shows new
                              configurations (sampling_repeated() with opts.settle_floor;
                              never with settle_floor < 0). The sampler sets it once half
                              of the first groups' allowance is spent: the other half is
                              kept for the first groups of configurations still to come */
    int64_t switch_ns;     /* with groups_wait: what a config image switch costs, taken as
                              the range profiler's first profile (enable, set-up, Start:
                              about 300 ms on the H100); 0: unknown (opts.run_value) */
    int64_t own_ns;        /* with groups_wait: the program's own time so far (elapsed less
                              every engine's time), against which sampling_can_warn() judges
                              a configuration's wall share; <= 0: unknown, the GPU share alone */
    int first_wait;        /* config mode with groups and first_budget: a first group chosen
                              now waits ("profile_budget") while the program still shows new
                              configurations (sampling_repeated() with opts.settle_floor), as a
                              later group does under groups_wait (GPUHIER_DIAG_RP_SETTLE) */
    int track_first;       /* config mode with groups: the caller says when the profile of a
                              configuration's first group ended (sampling_first_landed()) or
                              gives it back (sampling_undo()); meanwhile no later group of the
                              configuration is chosen ("sampled_out"), so a launch on another
                              thread cannot take group 2 while group 1 waits to be served and
                              may still be given back */
    int inst_later;        /* with both engines, config mode: the instrumentation engine asks
                              for this launch of a configuration whose first chosen launch came
                              past its allowance and whose price its traced time now pays
                              (sampling_inst_pays()): chosen ("inst_deferred") whatever the
                              range profiler took of the configuration */
    int for_inst;          /* with both engines: decided for the instrumentation engine; a
                              configuration another thread's launch had instrumented since
                              this one picked the engine is not chosen again ("sampled_out":
                              at most one instrumented launch a configuration) */
};

/*
 * What a profile is taken to cost before one was measured: about 0.2 s of
 * CUPTI kernel replay on the H200, 0.8 s for a process's first
 * (docs/metrics.md); the budget's slots use the mean of those measured.
 */
#define SAMPLING_PROFILE_NS_GUESS (250 * 1000000LL)

/*
 * How many profiles the budget buys now, pure: 0 when
 * sampling_budget_allows() says no; else the slack (budget_pct % of the
 * rest of the run, less the profiling so far) over the mean cost of the
 * `profiles` taken (SAMPLING_PROFILE_NS_GUESS before the first), at least
 * 1. LONG_MAX when budget_pct <= 0 (no budget).
 */
long sampling_budget_slots(double budget_pct, int64_t profiling_ns, int64_t elapsed_ns,
                           long profiles);

/*
 * The first groups' budget, pure: LONG_MAX (no limit) while profiling_ns
 * is below allowance_ns, when allowance_ns < 0 or when budget_pct <= 0.
 * Past the allowance, the profiling beyond it may take budget_pct of the
 * program's own time (elapsed less all profiling): 0 when it has, else the
 * slack over the mean cost of the `profiles` taken, at least 1. The
 * allowance is on top of the budget, not charged to it: charged, it
 * starved every later first group of a run until the run was
 * allowance / budget long (the PyTorch benchmark on the H200, 2026-12-01:
 * 14 profiles in the first 2 s, none after, 8.8 % of the GPU time covered).
 */
long sampling_first_slots(double budget_pct, int64_t allowance_ns, int64_t profiling_ns,
                          int64_t elapsed_ns, long profiles);

/*
 * sampling_first_slots(), but within the allowance as well: the profiles
 * the rest of the allowance buys at the mean cost so far (at least 1), so
 * that the allowance too goes to the configurations with the most GPU time
 * instead of to the first launched (GPUHIER_DIAG_RP_SETTLE, sampler.c).
 * Past the allowance, as sampling_first_slots(). Pure.
 */
long sampling_allowance_slots(double budget_pct, int64_t allowance_ns, int64_t profiling_ns,
                              int64_t elapsed_ns, long profiles);

/*
 * The budget test, pure: may a profile start when `profiling_ns` of the
 * `elapsed_ns` the run has taken so far went to profiling? Yes when
 * profiling stays within budget_pct % of the rest (elapsed - profiling),
 * so a budget of 30 keeps a run within about 1.3x its time without
 * profiling. Always yes when budget_pct <= 0.
 */
int sampling_budget_allows(double budget_pct, int64_t profiling_ns, int64_t elapsed_ns);

/*
 * How long to leave the hardware counters alone after the
 * `consecutive`-th CUPTI_ERROR_HARDWARE_BUSY in a row: 10 ms after the
 * first, doubling with each refusal, at most 2 s (values < 1 count as 1;
 * no overflow for any count). A refused attempt is cheap (no kernel
 * replay), so a short collision, such as another profiled process on the
 * GPU between two of its ranges, costs a few launches; but counters held
 * for good (DCGM profiling) must not cost an enable and a start at every
 * launch, so the wait grows to one attempt per 2 s.
 */
int64_t sampling_busy_backoff_ns(int consecutive);

/*
 * Has the program repeated itself, pure? `seen` launches have reached the
 * decision (this one included), the last configuration not seen before
 * was first launched as the `last_new`-th: yes when the launches since it
 * (seen - last_new) number at least last_new and at least floor. A
 * training loop whose step launches every configuration has repeated
 * itself at the end of its second step; the floor keeps a start of two
 * configurations from counting as repeated after two more launches.
 * Used by the later groups' wait (settle_floor) and by
 * GPUHIER_INSTRUMENT=phased's window (collector/sampler.c).
 */
int sampling_repeated(long seen, long last_new, long floor);

/*
 * Group runs (sampling_opts.run_floor >= 0), pure: has the run whose last
 * profile (or start) came at launch `mark` ended at launch `seen`? Yes
 * once seen - mark is at least `floor` and at least the program's period
 * (the longest gap between two launches of one configuration so far),
 * that capped at SAMPLING_RUN_PERIOD_MAX: every configuration the program
 * launches once a period has then been offered the run's group.
 */
int sampling_run_ends(long seen, long mark, long period, long floor);

/*
 * GPUHIER_DIAG_RP_AFTER_INST, pure: may a range profile be taken at launch
 * `seen` when the instrumentation engine last took launch `last_inst` (0:
 * never) and range profiles have waited since `wait` (-1: not waiting)?
 * Not while the last instrumented launch is within the program's period
 * (capped at SAMPLING_RUN_PERIOD_MAX, at least 1): an instrumented launch
 * disables the range profiler, and each profile between two of them pays a
 * re-enable (about 0.26 s on the H200, against 1.5 ms within a session),
 * so the run waits until the program stops showing new configurations and
 * then takes them in one session. A wait ends after
 * SAMPLING_RUN_PERIOD_MAX launches all the same (a program that never
 * stops showing new configurations). A configuration launched again and
 * again right after its instrumented first launch (a period of 1) waits
 * one launch.
 */
int sampling_after_inst(long seen, long last_inst, long wait, long period);

/*
 * Do later groups wait for the program to repeat itself now
 * (sampling_launch.groups_wait), pure? When the profiling so far, less
 * the process's first profile (first_ns: CUPTI's set-up, 0.5-1.0 s on the
 * H200, 1,043 ms in the README's run), has spent half the allowance; never
 * when allowance_ns < 0. Counting the first profile, the wait began at the
 * first launch of nearly every program (docs/sampling.md).
 */
int sampling_groups_wait(int64_t allowance_ns, int64_t profiling_ns, int64_t first_ns);

/*
 * The severity floor of later one-pass groups (docs/sampling.md "Later
 * groups only where a warning can come"): could a configuration that took
 * cfg_ns of the gpu_ns GPU time traced so far, in own_ns of the program's
 * own time (<= 0: unknown), still carry a finding of warning severity?
 * A finding's time lost is at most its configurations' time, and a warning
 * needs SEV_WARNING_GPU_PCT of the GPU time and SEV_WARNING_WALL_PCT of
 * the wall time (schema/severity.h); below either, every finding on it is
 * a note, which group 1 already gives. No GPU time yet: no.
 */
int sampling_can_warn(int64_t cfg_ns, int64_t gpu_ns, int64_t own_ns);

/*
 * Does this kernel wait on other ranks or devices? NCCL's collectives and
 * point-to-point kernels (names containing "ncclDevKernel_" or
 * "ncclKernel_"), NVSHMEM's own kernels ("nvshmemi_", "nvshmem_").
 * (Cooperative launches on several devices, cuLaunchCooperativeKernelMultiDevice,
 * never reach the decision: the collector does not take that API as a launch
 * to profile, only its kernels' activity records.) Profiling one with kernel
 * replay serializes it: its passes run while the peers wait, and a peer
 * that waits past its timeout (NCCL's watchdog) ends the job. Such a
 * launch is traced and not profiled ("comm_kernel") unless the kernel-name
 * filter (--kernel) matches it: a user who names it asks for it.
 * Pure; the name is matched as given (mangled or demangled).
 */
int sampling_is_comm_kernel(const struct sampling_launch *l);

/* Decision state. Embed it and use sampling_init()/sampling_release(). */
struct sampling {
    struct sampling_opts opts;
    regex_t kernel_re, nvtx_re;
    int has_kernel_re, has_nvtx_re;
    pthread_mutex_t lock;
    struct sampling_slot *slots; /* open-addressing table, `cap` entries */
    uint32_t *order;             /* indices of the `used` occupied slots, in insertion order */
    size_t cap, used;
    long filtered_seen; /* launches that passed the filters */
    long profiled;      /* launches sampling_decide() chose to profile */
    int ngroups;        /* one-pass groups of the plan, 0 until sampling_set_groups() */
    int last_group;     /* the group last given (sticky_groups), -1 none */
    long table_full;    /* launches whose configuration found no slot */
    long seen;          /* launches that reached the decision (not those captured) */
    long last_new;      /* `seen` at the last first launch of a configuration (or one the
                           full table could not hold) */
    /* group runs (opts.run_floor >= 0) */
    int run_group;  /* the group every profile of the current run takes */
    long run_mark;  /* `seen` at the run's start or its last profile */
    long period;    /* the longest gap in launches between two launches of a configuration */
    long runs;      /* runs ended (the group moved on) */
    long last_inst; /* `seen` at the last launch the instrumentation engine took, 0: none */
    long inst_wait; /* `seen` when range profiles began to wait for it (rp_after_inst), -1 */
    /* the instrumentation engine's learned slowdown (sampling_inst_slowdown()) */
    double learn_extra_ns;  /* instrumented launches' cost beyond the fixed part */
    double learn_native_ns; /* their configurations' native mean times */
    long learn_n;
    int64_t gpu_ns;    /* GPU time of every configuration's traced launches so far */
    long preempts;     /* group runs: later groups' runs a configuration's first group ended */
    long run_profiles; /* group runs: profiles taken in the current run */
};

/*
 * Compiles the regexes and allocates the configuration table (`cap`
 * configurations, 0 = 65536). Copies nothing from `o` but the pointers'
 * targets are only read here. Returns 0 or -1 with a message in err
 * (e.g. "bad kernel regex '(': ..."); on failure `s` needs no release.
 */
int sampling_init(struct sampling *s, const struct sampling_opts *o, size_t cap, char *err,
                  size_t n);

/* Frees the table and regexes; safe after a failed init if zeroed. */
void sampling_release(struct sampling *s);

/*
 * Decides for one launch. Returns NULL when the launch should be profiled,
 * with *why set to the reason it was chosen ("first_of_config",
 * "sample_every", "sample_all"); otherwise returns the reason it is not
 * ("stream_capture", "graph", "comm_kernel", "filtered_name", "filtered_nvtx",
 * "skip_count", "sampled_out", "profile_budget", "counters_busy") and
 * sets *why to the same string.
 * Modes count eligible launches (those past the filters and the skip), so
 * "config" profiles the first eligible launch of each configuration.
 * *config_index (may be NULL) gets the 0-based index of this launch among
 * launches of its configuration (-1 if the table was full). Every call
 * counts the launch. Strings are static. Thread-safe (one mutex, no
 * allocation).
 */
const char *sampling_decide(struct sampling *s, const struct sampling_launch *l, const char **why,
                            long *config_index);

/*
 * As sampling_decide(), and in config mode also serves the extras policy:
 * once sampling_request_extras() asked for groups on a configuration, its
 * next eligible launch is profiled with *why = "extra_metrics" and
 * *extras set to the groups (enum metrics_group flags); otherwise *extras
 * is 0. `extras` may be NULL (then extras are never handed out).
 */
const char *sampling_decide_ex(struct sampling *s, const struct sampling_launch *l,
                               const char **why, long *config_index, unsigned *extras);

/*
 * Gives back a choice sampling_decide_ex() just made for `l`, whose
 * profile could not start (the counters were busy): `chosen` is the *why
 * it returned ("first_of_config", "extra_metrics", ...), `group` the
 * one-pass group sampling_decide_group() gave it (-1: none), given back
 * so the configuration's next chosen launch collects it. The launch stops
 * counting as profiled, in total (so --launch-count counts only profiles
 * that ran) and in its configuration, so config and first:N modes choose
 * the configuration's next eligible launch again; an "extra_metrics"
 * choice hands the extras out again. In every:N mode the next sample is
 * the next multiple of N, as after a budget deferral. Thread-safe, no
 * allocation.
 */
void sampling_undo(struct sampling *s, const struct sampling_launch *l, const char *chosen,
                   int group);

/*
 * With l->track_first: the profile of l's configuration's first group,
 * chosen for this launch, has ended (collected or failed): its later
 * groups may be chosen. Thread-safe, no allocation.
 */
void sampling_first_landed(struct sampling *s, const struct sampling_launch *l);

/*
 * With both engines (sampler.c): whether the instrumentation engine has
 * served l's configuration, and marking that it has, in the
 * configuration's own slot. A configuration without a slot reads as not
 * served: at its first launch sampling_decide() has not made one yet; when
 * the table is full (65,536 configurations) none is made, and only
 * --sample all profiles such a configuration, each of its launches then
 * instrumented. Marking a configuration without a slot does nothing.
 */
/*
 * Whether l's configuration has a slot: a launch of it reached
 * sampling_decide() before (GPUHIER_INSTRUMENT=phased: 0 is a new
 * configuration). A full table reads as 0. Thread-safe, no allocation.
 */
int sampling_known(struct sampling *s, const struct sampling_launch *l);
int sampling_instrumented(struct sampling *s, const struct sampling_launch *l);
void sampling_mark_instrumented(struct sampling *s, const struct sampling_launch *l);
/* The instrumentation engine served the launch just decided (GPUHIER_DIAG_RP_AFTER_INST). */
void sampling_inst_served(struct sampling *s);

/*
 * The instrumentation engine's price, pure: an instrumented launch of a
 * kernel whose native time is mean_ns costs fixed_ns + slowdown x mean_ns.
 */
int64_t sampling_inst_price(int64_t fixed_ns, double slowdown, int64_t mean_ns);

/*
 * With both engines, past the instrumentation engine's allowance: may l's
 * configuration be instrumented at this launch? Yes when this launch is at
 * least its SAMPLING_INST_REPEATS-th (the configuration repeats: XLA's
 * autotuning candidates, launched twice, never do) and its price is at
 * most `slack_ns`, what the program-wide budget has left: the fixed part
 * and the learned slowdown times its native time (sampling_inst_price()),
 * the fixed part alone while no traced launch of it has given its time.
 * No means the configuration waits (counted by sampling_inst_unserved()
 * until it is instrumented). *price gets the price. Thread-safe, may
 * allocate its slot.
 */
int sampling_inst_pays(struct sampling *s, const struct sampling_launch *l, double slack_ns,
                       int64_t *price);

/*
 * At exit: the configurations still short of a later group that the
 * severity floor deferred (*n), and their GPU time (*ns).
 */
void sampling_floor_left(struct sampling *s, long *n, int64_t *ns);

/*
 * What instrumenting l's configuration's launch added to the run (the
 * engine's time for it, ns): with its native time, once the traced
 * launches give one, it teaches the slowdown. Thread-safe, no allocation.
 */
void sampling_inst_cost(struct sampling *s, const struct sampling_launch *l, int64_t ns);

/*
 * Did another configuration of l's kernel (the same name, another
 * geometry) cost more than bar_ns to instrument? Within the allowance a
 * first launch is taken blind, except where a sibling says it is dear:
 * an autotuner's candidates of one fusion (XLA's gemm_fusion_dot_1 at 966,
 * 482 and 262 ms on the H200, 2026-12-05) then wait for their price, which
 * candidates launched twice never pay. Thread-safe; scans the table (called
 * only for configurations not yet instrumented, within the allowance).
 */
int sampling_inst_sibling_dear(struct sampling *s, const struct sampling_launch *l, int64_t bar_ns);

/*
 * The slowdown of a patched run the prices use: what this process's
 * instrumented configurations of kernels of at least
 * SAMPLING_INST_LEARN_MIN_NS cost beyond the fixed part, over their native
 * time (a ratio of sums, so the long kernels weigh most), or
 * SAMPLING_INST_SLOWDOWN before any; *n (may be NULL) gets how many
 * configurations it was learned from. Thread-safe.
 */
double sampling_inst_slowdown(struct sampling *s, long *n);

/*
 * Configurations that waited for the instrumentation engine's price and
 * never got it, among those a launch of which passed the filters.
 */
long sampling_inst_unserved(struct sampling *s);

/*
 * Asks for one more profile of l's configuration collecting `groups`
 * (from metrics_extras_wanted()). Returns 0, or -1 if the configuration
 * is unknown (never decided) or already had its extras.
 */
int sampling_request_extras(struct sampling *s, const struct sampling_launch *l, unsigned groups);

/*
 * Adds `ns` of GPU time (a traced, unprofiled launch's duration) to l's
 * configuration, which --profile-budget ranks by. 0, or -1 when the
 * configuration was never decided. Thread-safe, no allocation.
 */
int sampling_add_gpu_time(struct sampling *s, const struct sampling_launch *l, int64_t ns);

/*
 * As sampling_decide_ex(), with one-pass groups (opts.groups): *group
 * (may be NULL: then no group is handed out, as without groups) gets
 * the 0-based plan group a chosen launch collects, -1 for a launch not
 * chosen or without groups. In config mode a configuration is chosen at
 * its first eligible launch ("first_of_config", group 0) and then at
 * each next one ("metric_group") until it has had every group of the
 * plan, in the order sampling_set_group_order() gave (plan order until
 * then); later groups are deferred ("profile_budget") when
 * l->group_over_budget, or when as many configurations still waiting for
 * a later group took more GPU time than this one (sampling_add_gpu_time())
 * as there are slots: the hardware groups go first to the configurations
 * that hold the most GPU time so far, and, with l->groups_wait, while
 * the program still shows new configurations (sampling_repeated() says
 * no): an early configuration's later groups would otherwise spend the
 * first groups' allowance before the configurations launched after it
 * have any. In all, first:N and every:N modes
 * the chosen launches cycle through the groups. The extras policy is off
 * with groups (the later groups are the extras). Thread-safe, no allocation.
 */
const char *sampling_decide_group(struct sampling *s, const struct sampling_launch *l,
                                  const char **why, long *config_index, unsigned *extras,
                                  int *group);

/*
 * The plan has `n` groups (1..SAMPLING_GROUPS_MAX; larger is cut): set
 * once the range profiler packed it, at the first profiled launch. Until
 * then only first groups are handed out. Thread-safe.
 */
void sampling_set_groups(struct sampling *s, int n);

/*
 * The order of l's configuration's groups from its first group's values
 * (onepass_order()): order[0..n-1], a permutation of the plan's groups
 * starting with 0. -1 if the configuration is unknown or n is not a
 * permutation of 0..n-1 within the plan. Thread-safe, no allocation.
 */
int sampling_set_group_order(struct sampling *s, const struct sampling_launch *l,
                             const unsigned char *order, int n);

/* Hash of a configuration (kernel name, grid, block, dynamic smem). */
uint64_t sampling_config_hash(const struct sampling_launch *l);

#endif
