/* SPDX-License-Identifier: MIT */
/*
 * cupti_load: find and dlopen libcupti once per process.
 *
 * Why pre-open the nvperf libraries: libcupti dlopens "libnvperf_host.so"
 * and "libnvperf_target.so" by bare name. An injected library cannot rely
 * on LD_LIBRARY_PATH or the ld.so cache pointing at the toolkit, and
 * libcupti's own directory is not searched (CUPTI-NOTES §1). Once a
 * library with that soname is loaded, the bare-name dlopen finds it.
 */
#include "collector/cupti_load.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
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
 * Pre-open nvperf from `dir`. Missing files are not an error here: the
 * host API reports NOT_INITIALIZED later, and that message names nvperf.
 */
static void
preload_nvperf(const char *dir)
{
    static const char *const libs[] = {"libnvperf_host.so", "libnvperf_target.so"};
    /*
     * Trace mode never starts the profiler, and opening libnvperf_host
     * (32 MB, RTLD_NOW) took 0.5 s on a loaded CPU: skip it there
     * (docs/collector.md, "What tracing costs").
     */
    const char *mode = getenv("GPUHIER_MODE");
    if (mode && !strcmp(mode, "trace"))
        return;
    for (size_t i = 0; i < 2; i++) {
        char p[PATH_MAX];
        if (path_join(p, sizeof p, dir, libs[i]) == 0 && is_file(p))
            dlopen(p, RTLD_NOW | RTLD_GLOBAL);
    }
}

/*
 * Try one candidate: open it RTLD_LAZY|RTLD_LOCAL just to learn its
 * directory, pre-open nvperf from there, then keep the handle. Opening
 * libcupti before nvperf is fine: it loads nvperf only when the profiler
 * initializes.
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
        preload_nvperf(dir);
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
