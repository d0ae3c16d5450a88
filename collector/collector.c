/* SPDX-License-Identifier: MIT */
/*
 * collector: the library gpuhier injects into the profiled program
 * (libgpuhier-collector.so).
 *
 * Entry points. CUDA calls InitializeInjection() from cuInit when
 * CUDA_INJECTION64_PATH names this library, so only processes that
 * initialize CUDA ever collect. Loaded with LD_PRELOAD instead, the
 * constructor does one thing: when CUDA_INJECTION64_PATH is unset it sets
 * it to this library's own path, so that the same InitializeInjection runs
 * if and when the program calls cuInit; a process that never touches CUDA
 * sees no other effect (no output, no thread, no file). A flag and
 * GPUHIER_COLLECTOR_ACTIVE=<pid> make a second initialization in the same
 * process (two copies of the library) a no-op.
 *
 * What it does inside the program: CUPTI callbacks record launch
 * configurations, sampling decisions, NVTX ranges, copy pointers and failed
 * launches into a bounded queue; activity records (CONCURRENT_KERNEL,
 * MEMCPY, MEMSET) arrive in buffers flushed at least every 500 ms; the
 * writer thread (writer.c) joins them into the report. Sampled launches
 * are profiled with the range profiler (auto range, kernel replay): Start
 * in the launch ENTER callback, Stop + decode + evaluate in its EXIT, one
 * range per batch, so a range can only belong to the launch it bracketed.
 *
 * What it never does: write to stdout, exit, abort, profile or synchronize
 * during stream capture, or profile graph kernels (they have no launch
 * callback). Every failure ends in one `==gpuhier==` line on stderr, a
 * `run.profiling_limited` text and an `event` row; the program runs on.
 *
 * This file holds the entry points and initialize(), which reads the
 * options, claims the report, starts the writer and the flusher,
 * subscribes to CUPTI and enables activity tracing; the rest of the
 * collector is one file per job (docs/collector.md "Source layout"):
 * options.c, callbacks.c, nvtx.c, activity.c, sampler.c, the counter
 * engines (engine.h), exit.c and notes.c, with writer.c writing the
 * report.
 */
#include "collector/activity.h"
#include "collector/callbacks.h"
#include "collector/collector_int.h"
#include "collector/diagprobe.h"
#include "collector/cupti_load.h"
#include "collector/exit.h"
#include "collector/notes.h"
#include "collector/options.h"
#include "collector/orphan.h"
#include "collector/sampler.h"
#include "collector/signals.h"
#include "collector/stacks.h"
#include "schema/optvalue.h"
#include "schema/outname.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#define GH_EXPORT __attribute__((visibility("default")))

#define QUEUE_SLOTS 16384

static struct {
    pthread_mutex_t init_lock;
    int initialized;     /* initialize() got the writer running */
    char image[64];      /* "<pid>:<token>": this program image (image_token) */
    char previous[4096]; /* the report of this process's previous image, if it exec'd us */
    pid_t pid;           /* the process that initialized (a forked child is another) */
    char path[4096];     /* the report, absolute */
    char session_file[4096];
} G = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void adopt_previous_image(void);

int
collector_initialized(void)
{
    return G.initialized;
}

pid_t
collector_pid(void)
{
    return G.pid;
}

const char *
collector_path(void)
{
    return G.path;
}

/*
 * Writes made on the program's threads (the session file, an exec'd
 * predecessor's report) must not let RLIMIT_FSIZE kill the program:
 * SIGXFSZ is blocked around them, and one they raised is taken back.
 */
static void
xfsz_block(sigset_t *old)
{
    sigset_t x;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &x, old);
}

static void
xfsz_restore(const sigset_t *old)
{
    sigset_t x, pending;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    struct timespec zero = {0, 0};
    if (!sigismember(old, SIGXFSZ) && sigpending(&pending) == 0 &&
        sigismember(&pending, SIGXFSZ) == 1)
        sigtimedwait(&x, NULL, &zero);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void
session_line(const char *line)
{
    if (!G.session_file[0])
        return;
    sigset_t old;
    xfsz_block(&old);
    int fd = open(G.session_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, strlen(line));
        (void)w;
        close(fd);
    }
    xfsz_restore(&old);
}

/* A child must not start with the loader's lock held by nvperf's open (cupti_load.c). */
static void
atfork_prepare(void)
{
    cupti_nvperf_join();
}

static void
atfork_child(void)
{
    /* A forked child has none of our threads; it must not write the parent's report. */
    callbacks_set_active(0);
}

/* ------------------------------------------------------------ init */

static void
json_kv(struct strbuf *b, const char *k, const char *v, int *first)
{
    if (!v)
        return;
    strbuf_adds(b, *first ? "" : ",");
    jbuf_str(b, k, strlen(k));
    strbuf_adds(b, ":");
    jbuf_str(b, v, strlen(v));
    *first = 0;
}

static int
load_api(char *err, size_t n)
{
#define GH_LOAD(f) gh.f = (__typeof__(gh.f))cupti_sym(#f);
    GH_CUPTI_FNS(GH_LOAD)
#undef GH_LOAD
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda)
        cuda = dlopen("libcuda.so", RTLD_NOW | RTLD_NOLOAD);
#define GH_LOAD(f) gh.f = cuda ? (__typeof__(gh.f))dlsym(cuda, #f) : NULL;
    GH_CU_FNS(GH_LOAD)
#undef GH_LOAD
    if (!gh.cuptiSubscribe || !gh.cuptiEnableCallback || !gh.cuptiActivityEnable ||
        !gh.cuptiActivityRegisterCallbacks || !gh.cuptiActivityFlushAll || !gh.cuptiGetDeviceId ||
        !gh.cuptiActivityGetNextRecord) {
        snprintf(err, n, "the loaded libcupti lacks the activity/callback API");
        return -1;
    }
    return 0;
}

static char *
metric_set_json(void)
{
    if (opt.trace_only || !opt.metrics)
        return NULL;
    struct strbuf b = {0};
    strbuf_adds(&b, "[");
    for (size_t i = 0; i < opt.nmetrics; i++) {
        if (i)
            strbuf_adds(&b, ",");
        jbuf_str(&b, opt.metrics[i], strlen(opt.metrics[i]));
    }
    strbuf_adds(&b, "]");
    return b.oom ? (strbuf_release(&b), NULL) : b.p;
}

/*
 * The process's place in a parallel job, from its launcher's variables
 * (docs/collector.md "Jobs of several processes"): meta 'rank',
 * 'local_rank', 'world_size' and 'rank_source', the launcher whose
 * variables gave them. The first launcher whose rank variable is a whole
 * number wins; nothing is written outside a job.
 */
static void
push_rank(void)
{
    static const struct {
        const char *source, *rank, *local, *size;
    } launchers[] = {
        {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
        {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
        {"PMIx", "PMIX_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
        {"MPICH (PMI)", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
        {"Slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    };
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        long v;
        if (!env(launchers[i].rank) || optvalue_count(env(launchers[i].rank), 0, &v))
            continue;
        push_meta("rank", env(launchers[i].rank));
        if (env(launchers[i].local) && optvalue_count(env(launchers[i].local), 0, &v) == 0)
            push_meta("local_rank", env(launchers[i].local));
        if (env(launchers[i].size) && optvalue_count(env(launchers[i].size), 1, &v) == 0)
            push_meta("world_size", env(launchers[i].size));
        push_meta("rank_source", launchers[i].source);
        return;
    }
}

static int
initialize(void)
{
    char err[1024] = "";
    G.pid = getpid();
    options_read();
    stacks_arm(opt.diag_stacks);
    if (env("GPUHIER_SESSION_FILE"))
        snprintf(G.session_file, sizeof(G.session_file), "%s", env("GPUHIER_SESSION_FILE"));
    const char *pattern = env("GPUHIER_OUTPUT") ? env("GPUHIER_OUTPUT") : OUTNAME_DEFAULT;
    int force = optvalue_switch(getenv("GPUHIER_FORCE"), 0);
    char *path = outname_claim(pattern, (long)G.pid, NULL, force);
    if (!path) {
        if (errno == EEXIST) {
            char *name = outname_expand(pattern, (long)G.pid, NULL, 1);
            gh_say("report '%s' exists; not overwriting it (use -f / GPUHIER_FORCE=1); "
                   "nothing collected in pid %ld",
                   name ? name : pattern, (long)G.pid);
            free(name);
        } else {
            gh_say("bad report name '%s': %s; nothing collected in pid %ld", pattern,
                   strerror(errno), (long)G.pid);
        }
        return -1;
    }
    /*
     * The report's absolute path: a program that changes its working
     * directory still gets its report where it was claimed, and the next
     * program image (exec) can find it.
     */
    char abs[PATH_MAX];
    snprintf(G.path, sizeof(G.path), "%s", realpath(path, abs) ? abs : path);
    free(path);
    adopt_previous_image();
    char act[sizeof(G.path) + 64];
    snprintf(act, sizeof(act), "%s:%s", G.image, G.path);
    setenv("GPUHIER_COLLECTOR_ACTIVE", act, 1);

    /* where the start's time goes (meta collector_init_parts; docs/instrument-cost.md) */
    int64_t t_start = mono_ns();
    void *cupti = cupti_load(err, sizeof(err));
    int api_ok = cupti && load_api(err, sizeof(err)) == 0;
    /*
     * nvperf's open, on its own thread while the start goes on; after our
     * own dlsym calls (load_api()), which would wait for it: glibc's dlsym
     * takes the loader's lock
     */
    if (api_ok)
        cupti_nvperf_start();
    int64_t t_cupti = mono_ns();
    init_profiling();
    int64_t t_options = mono_ns();

    struct strbuf opts = {0};
    int first = 1;
    strbuf_adds(&opts, "{");
    json_kv(&opts, "mode", opt.trace_only ? "trace" : "profile", &first);
    json_kv(&opts, "sample", env("GPUHIER_SAMPLE"), &first);
    json_kv(&opts, "kernel", env("GPUHIER_KERNEL"), &first);
    json_kv(&opts, "launch_skip", env("GPUHIER_LAUNCH_SKIP"), &first);
    json_kv(&opts, "launch_count", env("GPUHIER_LAUNCH_COUNT"), &first);
    json_kv(&opts, "nvtx_include", env("GPUHIER_NVTX_INCLUDE"), &first);
    json_kv(&opts, "metrics", env("GPUHIER_METRICS"), &first);
    json_kv(&opts, "metric_set", env("GPUHIER_METRIC_SET"), &first);
    json_kv(&opts, "profile_budget", env("GPUHIER_PROFILE_BUDGET"), &first);
    json_kv(&opts, "cache_control", env("GPUHIER_CACHE_CONTROL"), &first);
    json_kv(&opts, "replay", env("GPUHIER_REPLAY"), &first);
    json_kv(&opts, "fault", env("GPUHIER_FAULT"), &first);
    strbuf_adds(&opts, "}");
    char *mjson = metric_set_json();
    uint32_t cv = 0;
    int dv = 0;
    if (api_ok && gh.cuptiGetVersion)
        gh.cuptiGetVersion(&cv);
    if (api_ok && gh.cuDriverGetVersion)
        gh.cuDriverGetVersion(&dv);
    struct writer_run_info ri = {
        .mode = opt.trace_only ? "trace" : "profile",
        .options_json = opts.oom ? NULL : opts.p,
        .metric_set_json = mjson,
        .cupti_version = (int)cv,
        .driver_version = dv,
    };
    char werr[512] = "";
    if (writer_start(G.path, &ri, QUEUE_SLOTS, werr, sizeof(werr))) {
        gh_say("cannot write report '%s': %s; nothing collected in pid %ld", G.path, werr,
               (long)G.pid);
        strbuf_release(&opts);
        free(mjson);
        return -1;
    }
    strbuf_release(&opts);
    free(mjson);
    int64_t t_writer = mono_ns();
    callbacks_set_active(1);
    G.initialized = 1;
    start_flusher();
    sampler_watchdog_start();
    int64_t t_threads = mono_ns();
    signals_install(on_death);
    int64_t t_signals = mono_ns();
    push_pending_note();
    push_rank();
    if (opt.sampling_ok)
        push_meta("cache_control", opt.cache_all ? "all" : "none");
    if (api_ok)
        diagprobe_init(); /* GPUHIER_DIAG_PMPROBE: nothing without it */

    char line[8192];
    snprintf(line, sizeof(line), "start\t%ld\t%s\n", (long)G.pid, G.path);
    session_line(line);
    int64_t t_session = mono_ns();
    exit_hook_refresh();
    pthread_atfork(atfork_prepare, NULL, atfork_child);

    if (!api_ok) {
        char msg[1100];
        snprintf(msg, sizeof(msg), "cannot use CUPTI: %s; the report has no trace", err);
        gh_say("%s", msg);
        push_limited(msg);
        push_event("error", "cupti_unavailable", "%s", msg);
        return 0;
    }
    /* NVTX ranges reach CUPTI only through NVTX's injection hook. */
    if (!getenv("NVTX_INJECTION64_PATH") && cupti_load_path()[0])
        setenv("NVTX_INJECTION64_PATH", cupti_load_path(), 0);
    int64_t t_subscribe = mono_ns();
    if (subscribe())
        return 0;
    enable_callbacks();
    int64_t t_callbacks = mono_ns();
    init_activity();
    exit_hook_refresh(); /* after CUPTI's subscription and activity set-up */
    char parts[200];
    snprintf(parts, sizeof(parts),
             "loading CUPTI %.1f ms, profiling options %.1f ms, the writer's start %.1f ms, "
             "subscribing %.1f ms, activity set-up %.1f ms",
             (t_cupti - t_start) / 1e6, (t_options - t_cupti) / 1e6, (t_writer - t_options) / 1e6,
             (t_callbacks - t_subscribe) / 1e6, (mono_ns() - t_callbacks) / 1e6);
    push_meta("collector_init_parts", parts);
    /* the steps between the writer's start and the subscription (a meta value holds 200 bytes) */
    snprintf(parts, sizeof(parts),
             "the flusher's and watchdog's threads %.1f ms, signal handlers %.1f ms, notes and the "
             "session file %.1f ms, exit hooks %.1f ms",
             (t_threads - t_writer) / 1e6, (t_signals - t_threads) / 1e6,
             (t_session - t_signals) / 1e6, (t_subscribe - t_session) / 1e6);
    push_meta("collector_init_between", parts);
    return 0;
}

/*
 * "<pid>:<token>", the token from the 16 random bytes the kernel gives each
 * program image (AT_RANDOM): the same for every copy of this library in one
 * image, different after exec(), which keeps the pid.
 */
static void
image_token(char *out, size_t n)
{
    const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
    unsigned long long t = 0;
    for (int i = 0; r && i < 8; i++)
        t = t << 8 | r[i];
    snprintf(out, n, "%ld:%016llx", (long)getpid(), t);
}

/*
 * This process ran another program image with the collector before it
 * exec'd this one (GPUHIER_COLLECTOR_ACTIVE names our pid with another
 * token): close that image's report, which its exit handlers never did
 * (collector/orphan.h), and write its end line to the session file.
 */
static void
adopt_previous_image(void)
{
    if (!G.previous[0])
        return;
    long long launches = 0, profiled = 0;
    char err[512];
    sigset_t old;
    xfsz_block(&old);
    int rc = orphan_close(G.previous, G.path, &launches, &profiled, err, sizeof(err));
    xfsz_restore(&old);
    if (rc) {
        gh_say("the report of the program this one replaced (exec), '%s', could not be closed: "
               "%s",
               G.previous, err);
        return;
    }
    char line[8400];
    snprintf(line, sizeof(line), "end\t%ld\t%s\t%lld\t%lld\t%lld\t0\t0\t0\n", (long)G.pid,
             G.previous, launches, profiled, launches > profiled ? launches - profiled : 0);
    session_line(line);
}

/* CUDA_INJECTION64_PATH entry point, called by cuInit. Returns 1 (success) always. */
GH_EXPORT int
InitializeInjection(void)
{
    pthread_mutex_lock(&G.init_lock);
    /* GPUHIER_COLLECTOR_ACTIVE=<pid>:<token>:<report> (initialize) */
    const char *act = getenv("GPUHIER_COLLECTOR_ACTIVE");
    char self[64];
    image_token(self, sizeof(self));
    size_t len = strlen(self);
    int same_image = act && !strncmp(act, self, len) && (act[len] == ':' || !act[len]);
    int again = G.initialized || G.pid == getpid() || same_image;
    if (!again) {
        /* the same pid, another image: exec() replaced the program that wrote act's report */
        const char *colon = act ? strchr(act, ':') : NULL;
        const char *rep = colon ? strchr(colon + 1, ':') : NULL;
        if (rep && (size_t)(colon - act) == strcspn(self, ":") && !strncmp(act, self, colon - act))
            snprintf(G.previous, sizeof(G.previous), "%s", rep + 1);
        snprintf(G.image, sizeof(G.image), "%s", self);
        G.pid = getpid();
        setenv("GPUHIER_COLLECTOR_ACTIVE", self, 1);
        pthread_mutex_unlock(&G.init_lock);
        int64_t t0 = mono_ns();
        initialize();
        if (G.initialized) {
            /* what cuInit cost the program (docs/cost-vs-ncu.md: the time before the first kernel) */
            char v[32];
            snprintf(v, sizeof(v), "%.1f", (mono_ns() - t0) / 1e6);
            push_meta("collector_init_ms", v);
        }
        return 1;
    }
    pthread_mutex_unlock(&G.init_lock);
    return 1;
}

/*
 * LD_PRELOAD path: point CUDA at this library so InitializeInjection runs
 * at cuInit, and only then. Nothing else happens in a process that never
 * initializes CUDA. If CUDA_INJECTION64_PATH is already set (by `gpuhier
 * run`, or by another tool), it is left alone.
 */
__attribute__((constructor)) static void
preload_constructor(void)
{
    if (getenv("CUDA_INJECTION64_PATH"))
        return;
    Dl_info di;
    if (!dladdr((void *)preload_constructor, &di) || !di.dli_fname || !*di.dli_fname)
        return;
    char buf[PATH_MAX];
    if (!realpath(di.dli_fname, buf))
        return;
    setenv("CUDA_INJECTION64_PATH", buf, 0);
}
