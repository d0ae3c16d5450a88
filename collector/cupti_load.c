/* SPDX-License-Identifier: MIT */
/*
 * cupti_load: find and dlopen libcupti once per process.
 *
 * Why pre-open the nvperf libraries: libcupti dlopens "libnvperf_host.so"
 * and "libnvperf_target.so" by bare name. An injected library cannot rely
 * on LD_LIBRARY_PATH or the ld.so cache pointing at the toolkit, and
 * libcupti's own directory is not searched (CUPTI-NOTES §1). Once a
 * library with that soname is loaded, the bare-name dlopen finds it.
 *
 * Why off the application's thread: opening the two takes 0.1 s on the
 * H100 host and 0.55 s on a 2-core build machine (2026-12-06), nearly all
 * of it their static constructors touching ~120 MB of zeroed memory each
 * (perf: memset page faults), not relocation (RTLD_LAZY is no faster). The
 * collector's start runs inside the program's cuInit, so it starts the open
 * on a thread of its own (cupti_nvperf_start()) once its own dlsym calls
 * are done (glibc's dlsym waits for a dlopen in progress), and whatever
 * first needs the profiler joins it (cupti_nvperf_wait()).
 */
#include "collector/cupti_load.h"
#include "collector/clock.h"
#include "collector/signals.h"
#include "schema/optvalue.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void load_once(void);
static void *handle;
static char load_err[512];
static char load_path[PATH_MAX];

static int
is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir + "/" + name into out; -1 if it does not fit (the path is then skipped). */
static int
path_join(char *out, size_t n, const char *dir, const char *name)
{
    int len = snprintf(out, n, "%s/%s", dir, name);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* The directory libcupti was actually loaded from (dlinfo), into dir. */
static int
loaded_dir(void *h, char *dir, size_t n)
{
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name || !lm->l_name[0])
        return -1;
    char real[PATH_MAX];
    const char *p = realpath(lm->l_name, real) ? real : lm->l_name;
    snprintf(load_path, sizeof load_path, "%s", p);
    const char *slash = strrchr(p, '/');
    if (!slash)
        return -1;
    snprintf(dir, n, "%.*s", (int)(slash - p), p);
    return 0;
}

/*
 * nvperf's open: the directory it is opened from (libcupti's, found by
 * try_open()), and whether it is opened yet (NV_NONE: not asked for; NV_RUNNING:
 * on its thread; NV_DONE). The lock covers the state and the times, and is
 * held while joining, so a second waiter waits for the first.
 */
enum { NV_NONE, NV_RUNNING, NV_DONE };
static pthread_mutex_t nv_lock = PTHREAD_MUTEX_INITIALIZER;
static char nv_dir[PATH_MAX];
static int nv_state;
static pthread_t nv_thread;
static double nv_open_ms, nv_wait_ms;
static int nv_on_thread;

/*
 * Open nvperf from nv_dir. Missing files are not an error here: the host
 * API reports NOT_INITIALIZED later, and that message names nvperf.
 */
static void
nvperf_open(void)
{
    static const char *const libs[] = {"libnvperf_host.so", "libnvperf_target.so"};
    int64_t t0 = mono_ns();
    for (size_t i = 0; i < 2; i++) {
        char p[PATH_MAX];
        if (path_join(p, sizeof p, nv_dir, libs[i]) == 0 && is_file(p))
            dlopen(p, RTLD_NOW | RTLD_GLOBAL);
    }
    nv_open_ms = (double)(mono_ns() - t0) / 1e6;
}

static void *
nvperf_main(void *arg)
{
    (void)arg;
    nvperf_open();
    return NULL;
}

/*
 * Remember where nvperf is, for cupti_nvperf_start() or wait(). Trace mode
 * never starts the profiler, so it never opens nvperf (docs/collector.md,
 * "What tracing costs").
 */
static void
note_nvperf_dir(const char *dir)
{
    const char *mode = getenv("GPUHIER_MODE");
    if (mode && !strcmp(mode, "trace"))
        return;
    snprintf(nv_dir, sizeof nv_dir, "%s", dir);
}

void
cupti_nvperf_start(void)
{
    pthread_once(&once, load_once);
    pthread_mutex_lock(&nv_lock);
    if (nv_state == NV_NONE && nv_dir[0] &&
        optvalue_switch(getenv("GPUHIER_DIAG_NVPERF_SYNC"), 0)) {
        /* diagnosis: here, on the caller's thread, as before 2026-12-06 15:57 UTC */
        nvperf_open();
        nv_state = NV_DONE;
    } else if (nv_state == NV_NONE && nv_dir[0] &&
               signals_thread_start(&nv_thread, nvperf_main, NULL, 0) == 0) {
        nv_state = NV_RUNNING; /* the program's signals never reach this thread */
        nv_on_thread = 1;
    }
    pthread_mutex_unlock(&nv_lock);
}

/* Join the thread when it runs; with open_here, open nvperf here when it never started. */
static void
settle(int open_here)
{
    if (open_here)
        pthread_once(&once, load_once); /* a join alone never loads CUPTI */
    pthread_mutex_lock(&nv_lock);
    int64_t t0 = mono_ns();
    int ends = 1;
    if (nv_state == NV_RUNNING)
        pthread_join(nv_thread, NULL);
    else if (nv_state == NV_NONE && nv_dir[0] && open_here)
        nvperf_open(); /* never started (or could not be): here, on the caller's thread */
    else
        ends = 0; /* done already, never needed, or a join with nothing started */
    if (ends) {
        nv_wait_ms = (double)(mono_ns() - t0) / 1e6;
        nv_state = NV_DONE;
    }
    pthread_mutex_unlock(&nv_lock);
}

void
cupti_nvperf_wait(void)
{
    settle(1);
}

void
cupti_nvperf_join(void)
{
    settle(0);
}

int
cupti_nvperf_times(double *open_ms, double *waited_ms, int *on_thread)
{
    pthread_mutex_lock(&nv_lock);
    int done = nv_state == NV_DONE && nv_dir[0];
    *open_ms = nv_open_ms;
    *waited_ms = nv_wait_ms;
    *on_thread = nv_on_thread;
    pthread_mutex_unlock(&nv_lock);
    return done;
}

/*
 * Try one candidate: open it to learn its directory, note nvperf there
 * (opened later), then keep the handle. Opening libcupti before nvperf is
 * fine: it loads nvperf only when the profiler initializes.
 */
static void *
try_open(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_err, sizeof load_err, "%s", e ? e : name);
        return NULL;
    }
    if (!dlsym(h, "cuptiGetVersion")) {
        snprintf(load_err, sizeof load_err, "'%s' is not libcupti (no cuptiGetVersion)", name);
        dlclose(h);
        return NULL;
    }
    char dir[PATH_MAX];
    if (loaded_dir(h, dir, sizeof dir) == 0)
        note_nvperf_dir(dir);
    return h;
}

static void
load_once(void)
{
    const char *env = getenv("GPUHIER_CUPTI_PATH");
    if (env && *env) {
        char p[PATH_MAX];
        struct stat st;
        if (stat(env, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (path_join(p, sizeof p, env, "libcupti.so.13") != 0 || !is_file(p))
                path_join(p, sizeof p, env, "libcupti.so");
        } else {
            snprintf(p, sizeof p, "%s", env);
        }
        handle = try_open(p);
        if (!handle) {
            /* an explicit override that fails must not silently pick another CUPTI */
            char e[sizeof load_err];
            snprintf(e, sizeof e, "%s", load_err);
            snprintf(load_err, sizeof load_err,
                     "cannot load CUPTI from GPUHIER_CUPTI_PATH='%.200s': %.250s", env, e);
        }
        return;
    }
    static const char *const dirs[] = {
        "/usr/local/cuda/extras/CUPTI/lib64",
        "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib",
    };
    /* toolkit directories first when they exist, so the nvperf next to
     * libcupti is the one pre-opened; then the loader's own search */
    char first_err[sizeof load_err] = "";
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && !handle; i++) {
        static const char *const names[] = {"libcupti.so.13", "libcupti.so"};
        for (size_t j = 0; j < 2 && !handle; j++) {
            char p[PATH_MAX];
            if (path_join(p, sizeof p, dirs[i], names[j]) == 0 && is_file(p))
                handle = try_open(p);
        }
    }
    if (!handle)
        handle = try_open("libcupti.so.13");
    if (!handle) {
        snprintf(first_err, sizeof first_err, "%s", load_err);
        handle = try_open("libcupti.so");
    }
    if (!handle) {
        if (!first_err[0])
            snprintf(first_err, sizeof first_err, "%s", load_err);
        snprintf(load_err, sizeof load_err,
                 "cannot find libcupti (tried /usr/local/cuda and the loader's path): %.400s",
                 first_err);
    }
}

void *
cupti_load(char *err, size_t n)
{
    pthread_once(&once, load_once);
    if (!handle && err && n)
        snprintf(err, n, "%s", load_err);
    return handle;
}

void *
cupti_sym(const char *name)
{
    pthread_once(&once, load_once);
    return handle ? dlsym(handle, name) : NULL;
}

const char *
cupti_load_path(void)
{
    return handle ? load_path : "";
}
