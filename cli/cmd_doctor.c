/* SPDX-License-Identifier: MIT */
/*
 * gpuhier doctor: is this machine ready to profile, and if not, why.
 *
 * libcuda and libcupti are opened with dlopen and every call goes through
 * dlsym, so doctor runs (and says what is missing) on a machine with no
 * driver at all; that is the case it exists for. It declares the few
 * driver types and constants it needs instead of including cuda.h or the
 * CUPTI headers (the cli never links or includes them: STYLE.md §2); the
 * values are part of the driver's stable ABI.
 *
 * `--calibrate` measures a device-to-device copy with the driver API and
 * caches the bandwidth per device model, for the collector to store in
 * device.measured_copy_bw_bytes_per_s (docs/cmd-doctor.md).
 *
 * Test hooks (documented): GPUHIER_CUDA_PATH replaces libcuda.so.1,
 * GPUHIER_CUPTI_PATH libcupti (as in the collector), GPUHIER_NVIDIA_PARAMS
 * and GPUHIER_NVIDIA_VERSION the /proc/driver/nvidia files.
 */
#include "cli/cli.h"
#include "cli/run_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pwd.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What we tested on (DESIGN.md "Where it runs"). */
#define TESTED_CC_MAJOR 9
#define TESTED_CC_MINOR 0
#define TESTED_CUDA_API 13000 /* cuDriverGetVersion: 1000 * major + 10 * minor */
#define TESTED_DRIVER_MAJOR 580
#define MIN_CC 75 /* range profiler: compute capability 7.5 and newer */

/* Driver ABI (cuda.h): the values never change once released. */
#define CU_SUCCESS 0
#define CU_ERROR_STUB_LIBRARY 34
#define CU_ERROR_NO_DEVICE 100
#define CU_ATTR_SM_COUNT 16
#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76

typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_int_fn)(int *);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_device_get_name_fn)(char *, int, int);
typedef int (*cu_device_get_attribute_fn)(int *, int, int);
typedef int (*cu_device_total_mem_fn)(size_t *, int);
typedef int (*cu_error_fn)(int, const char **);
typedef int (*cu_ctx_retain_fn)(void **, int);
typedef int (*cu_ctx_release_fn)(int);
typedef int (*cu_ctx_set_fn)(void *);
typedef int (*cu_mem_alloc_fn)(unsigned long long *, size_t);
typedef int (*cu_mem_free_fn)(unsigned long long);
typedef int (*cu_memset_fn)(unsigned long long, unsigned char, size_t);
typedef int (*cu_memcpy_dtod_fn)(unsigned long long, unsigned long long, size_t);
typedef int (*cu_event_create_fn)(void **, unsigned int);
typedef int (*cu_event_record_fn)(void *, void *);
typedef int (*cu_event_fn)(void *);
typedef int (*cu_event_elapsed_fn)(float *, void *, void *);

/* CUPTI ABI (cupti_profiler_target.h), copied: the cli may not include CUPTI headers. */
struct cupti_device_supported {
    size_t struct_size;
    void *priv;
    int device;
    int is_supported, architecture, sli, vgpu, confidential_compute, cmp, wsl;
    int api;
};
#define CUPTI_DEVICE_SUPPORTED_SIZE (offsetof(struct cupti_device_supported, api) + sizeof(int))
struct cupti_profiler_init {
    size_t struct_size;
    void *priv;
};
enum { CUPTI_LEVEL_UNKNOWN, CUPTI_LEVEL_UNSUPPORTED, CUPTI_LEVEL_DISABLED, CUPTI_LEVEL_SUPPORTED };
#define CUPTI_INSUFFICIENT_PRIVILEGES 35 /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES */
/* cupti_profiler_target.h: the range profiler's permission probe (a size query, as the collector) */
struct cupti_counter_availability {
    size_t struct_size;
    void *priv;
    void *ctx;
    size_t image_size;
    unsigned char *image;
};
/* cupti_target.h */
struct cupti_chip_name {
    size_t struct_size;
    void *priv;
    size_t device;
    const char *chip;
};
/* cupti_sass_metrics.h: the instrumentation engine's API */
struct cupti_sass_num {
    size_t struct_size;
    void *priv;
    const char *chip;
    size_t n;
};
struct cupti_sass_details {
    unsigned long long id;
    const char *name, *description;
};
struct cupti_sass_list {
    size_t struct_size;
    void *priv;
    const char *chip;
    size_t n;
    struct cupti_sass_details *list;
};
struct cupti_sass_config {
    unsigned long long id;
    unsigned char granularity; /* 0: GPU */
};
struct cupti_sass_set_config {
    size_t struct_size;
    void *priv;
    size_t n;
    struct cupti_sass_config *configs;
    unsigned int device;
};
#define CUPTI_SASS_SET_CONFIG_SIZE (offsetof(struct cupti_sass_set_config, device) + sizeof(int))
struct cupti_sass_unset_config {
    size_t struct_size;
    void *priv;
    unsigned int device;
};
#define CUPTI_SASS_UNSET_CONFIG_SIZE                                                               \
    (offsetof(struct cupti_sass_unset_config, device) + sizeof(int))
typedef int (*cupti_version_fn)(unsigned int *);
typedef int (*cupti_profiler_fn)(void *);
typedef int (*cupti_result_string_fn)(int, const char **);

#define MAX_DEVICES 64

struct device {
    int ordinal;
    char name[256];
    int cc_major, cc_minor, sm_count;
    size_t mem_bytes;
    int profiler_support; /* CUPTI_LEVEL_*, or -1 when not asked */
};

struct doctor {
    int is_calibrate;
    void *cuda;
    char cuda_why[512];
    int cuda_version; /* cuDriverGetVersion, 0 if unknown */
    char driver[64];  /* kernel module version, "" if unknown */
    struct device dev[MAX_DEVICES];
    int n_dev;
    void *cupti;
    char cupti_path[PATH_MAX];
    unsigned int cupti_version;
    int can_trace, can_profile;
};

/* ------------------------------------------------------------------ */
/* Output: "  TAG      message", and "           fix: ..." below a problem. */

static void say(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
say(const char *tag, const char *fmt, ...)
{
    va_list ap;
    printf("  %-8s ", tag);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static void fix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
fix(const char *fmt, ...)
{
    va_list ap;
    printf("           fix: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* ------------------------------------------------------------------ */
/* Driver                                                               */

static const char *
cu_error(struct doctor *d, int rc)
{
    static char buf[160];
    const char *name = NULL, *text = NULL;
    cu_error_fn en = d->cuda ? (cu_error_fn)dlsym(d->cuda, "cuGetErrorName") : NULL;
    cu_error_fn es = d->cuda ? (cu_error_fn)dlsym(d->cuda, "cuGetErrorString") : NULL;
    if (en)
        en(rc, &name);
    if (es)
        es(rc, &text);
    snprintf(buf, sizeof(buf), "%s%s%s (%d)", name ? name : "CUDA error", text ? ": " : "",
             text ? text : "", rc);
    return buf;
}

static void
read_driver_version(struct doctor *d)
{
    const char *path = getenv("GPUHIER_NVIDIA_VERSION");
    FILE *f = fopen(path ? path : "/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        const char *p = strstr(line, "Kernel Module");
        if (!p)
            continue;
        p += strlen("Kernel Module");
        /* "Kernel Module  580.95.05  Tue ..." or "... Kernel Module for x86_64  580.95.05 ..." */
        for (const char *q = p; *q; q++) {
            if (*q >= '0' && *q <= '9' && (q == p || q[-1] == ' ')) {
                size_t n = strspn(q, "0123456789.");
                if (n > 2 && memchr(q, '.', n)) {
                    snprintf(d->driver, sizeof(d->driver), "%.*s", (int)n, q);
                    break;
                }
            }
        }
        break;
    }
    fclose(f);
}

static int
check_driver(struct doctor *d)
{
    const char *path = getenv("GPUHIER_CUDA_PATH");
    if (!path || !*path)
        path = "libcuda.so.1";
    read_driver_version(d);
    d->cuda = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!d->cuda) {
        const char *why = dlerror();
        say("PROBLEM", "no NVIDIA driver: cannot load %s (%s)", path, why ? why : "not found");
        fix("install the NVIDIA driver (tested: %d); in a container, start it with the GPU "
            "passed through (docker --gpus all, NVIDIA container toolkit)",
            TESTED_DRIVER_MAJOR);
        return -1;
    }
    cu_init_fn init = (cu_init_fn)dlsym(d->cuda, "cuInit");
    cu_int_fn version = (cu_int_fn)dlsym(d->cuda, "cuDriverGetVersion");
    if (!init || !version) {
        say("PROBLEM", "'%s' is not a CUDA driver library (no cuInit)", path);
        fix("check the driver installation (nvidia-smi should work)");
        return -1;
    }
    int rc = init(0);
    if (rc != CU_SUCCESS) {
        if (rc == CU_ERROR_STUB_LIBRARY) {
            say("PROBLEM", "'%s' is the CUDA toolkit's stub library, not a driver", path);
            fix("install the NVIDIA driver; remove the toolkit's stubs/ directory from "
                "LD_LIBRARY_PATH");
        } else if (rc == CU_ERROR_NO_DEVICE) {
            say("PROBLEM", "the driver sees no CUDA device: %s", cu_error(d, rc));
            fix("check nvidia-smi; in a container, pass the GPU through; check "
                "CUDA_VISIBLE_DEVICES");
        } else {
            say("PROBLEM", "the driver does not initialize: %s", cu_error(d, rc));
            fix("check nvidia-smi and the kernel log (dmesg) for the driver's own message");
        }
        return -1;
    }
    version(&d->cuda_version);
    int major = d->cuda_version / 1000, minor = d->cuda_version % 1000 / 10;
    int is_tested = d->cuda_version == TESTED_CUDA_API && atoi(d->driver) == TESTED_DRIVER_MAJOR;
    say(is_tested ? "ok" : "untested", "driver %s, CUDA %d.%d driver API%s",
        d->driver[0] ? d->driver : "(version unknown)", major, minor,
        is_tested ? "" : " (tested: driver 580 with CUDA 13.0)");
    if (d->cuda_version < TESTED_CUDA_API) {
        say("PROBLEM", "the driver supports CUDA %d.%d; gpuhier's CUPTI needs CUDA 13.0 or newer",
            major, minor);
        fix("update the NVIDIA driver to %d or newer", TESTED_DRIVER_MAJOR);
        return -1;
    }
    return 0;
}

static int
check_devices(struct doctor *d)
{
    cu_int_fn count = (cu_int_fn)dlsym(d->cuda, "cuDeviceGetCount");
    cu_device_get_fn get = (cu_device_get_fn)dlsym(d->cuda, "cuDeviceGet");
    cu_device_get_name_fn name = (cu_device_get_name_fn)dlsym(d->cuda, "cuDeviceGetName");
    cu_device_get_attribute_fn attr =
        (cu_device_get_attribute_fn)dlsym(d->cuda, "cuDeviceGetAttribute");
    cu_device_total_mem_fn mem = (cu_device_total_mem_fn)dlsym(d->cuda, "cuDeviceTotalMem_v2");
    int n = 0;
    if (!count || !get || !name || !attr || count(&n) != CU_SUCCESS || n <= 0) {
        say("PROBLEM", "no CUDA device");
        fix("check nvidia-smi and CUDA_VISIBLE_DEVICES");
        return -1;
    }
    int n_ok = 0;
    for (int i = 0; i < n && d->n_dev < MAX_DEVICES; i++) {
        struct device *v = &d->dev[d->n_dev];
        memset(v, 0, sizeof(*v));
        v->profiler_support = -1;
        int h;
        if (get(&h, i) != CU_SUCCESS)
            continue;
        v->ordinal = h;
        if (name(v->name, (int)sizeof(v->name), h) != CU_SUCCESS)
            snprintf(v->name, sizeof(v->name), "device %d", i);
        attr(&v->cc_major, CU_ATTR_CC_MAJOR, h);
        attr(&v->cc_minor, CU_ATTR_CC_MINOR, h);
        attr(&v->sm_count, CU_ATTR_SM_COUNT, h);
        if (mem)
            mem(&v->mem_bytes, h);
        d->n_dev++;
        int cc = v->cc_major * 10 + v->cc_minor;
        int is_tested = v->cc_major == TESTED_CC_MAJOR && v->cc_minor == TESTED_CC_MINOR;
        if (cc < MIN_CC) {
            say("PROBLEM",
                "device %d: %s, compute capability %d.%d: too old for the CUPTI range "
                "profiler (needs 7.5 or newer)",
                i, v->name, v->cc_major, v->cc_minor);
            fix("profile on a Turing (sm_75) or newer GPU");
            continue;
        }
        n_ok++;
        say(is_tested ? "ok" : "untested",
            "device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB%s", i, v->name, v->cc_major,
            v->cc_minor, v->sm_count, (double)v->mem_bytes / (1024.0 * 1024 * 1024),
            is_tested ? "" : " (tested: sm_90; other architectures are unsupported until tested)");
    }
    return n_ok > 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* CUPTI                                                                */

static void *
try_cupti(struct doctor *d, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
        snprintf(d->cupti_path, sizeof(d->cupti_path), "%s", lm->l_name);
    else
        snprintf(d->cupti_path, sizeof(d->cupti_path), "%s", path);
    return h;
}

/*
 * The collector's search order (collector/cupti_load.h), so doctor finds
 * the library `gpuhier run` will use.
 */
static void *
load_cupti(struct doctor *d)
{
    char buf[PATH_MAX];
    void *h;
    const char *env = getenv("GPUHIER_CUPTI_PATH");
    if (env && *env) {
        struct stat st;
        if (stat(env, &st) == 0 && S_ISDIR(st.st_mode)) {
            const char *names[] = {"libcupti.so.13", "libcupti.so"};
            for (size_t i = 0; i < 2; i++) {
                snprintf(buf, sizeof(buf), "%s/%s", env, names[i]);
                if ((h = try_cupti(d, buf)))
                    return h;
            }
            return NULL;
        }
        return try_cupti(d, env);
    }
    const char *names[] = {"libcupti.so.13", "libcupti.so"};
    for (size_t i = 0; i < 2; i++)
        if ((h = try_cupti(d, names[i])))
            return h;
    const char *dirs[] = {"/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64",
                          "/usr/local/cuda/targets/x86_64-linux/lib"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        for (size_t j = 0; j < 2; j++) {
            snprintf(buf, sizeof(buf), "%s/%s", dirs[i], names[j]);
            if ((h = try_cupti(d, buf)))
                return h;
        }
    return NULL;
}

/* libcupti dlopens the nvperf libraries by bare name; open them from its directory first. */
static void
preload_nvperf(const struct doctor *d)
{
    char dir[PATH_MAX], buf[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", d->cupti_path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    const char *libs[] = {"libnvperf_host.so", "libnvperf_target.so"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(buf, sizeof(buf), "%s/%s", dir, libs[i]);
        dlopen(buf, RTLD_NOW | RTLD_GLOBAL);
    }
}

static const char *
level_name(int l)
{
    switch (l) {
    case CUPTI_LEVEL_SUPPORTED:
        return "supported";
    case CUPTI_LEVEL_DISABLED:
        return "disabled";
    case CUPTI_LEVEL_UNSUPPORTED:
        return "unsupported";
    default:
        return "unknown";
    }
}

static int
check_cupti(struct doctor *d, int has_device)
{
    d->cupti = load_cupti(d);
    if (!d->cupti) {
        say("PROBLEM", "CUPTI not found (libcupti.so.13 or libcupti.so)");
        fix("install the CUDA 13 CUPTI library (Debian/Ubuntu: cuda-cupti-13-0), or set "
            "GPUHIER_CUPTI_PATH to it");
        return -1;
    }
    cupti_version_fn ver = (cupti_version_fn)dlsym(d->cupti, "cuptiGetVersion");
    if (ver)
        ver(&d->cupti_version);
    say("ok", "CUPTI %s (API version %u)", d->cupti_path, d->cupti_version);
    if (!has_device)
        return 0;

    preload_nvperf(d);
    cupti_profiler_fn init = (cupti_profiler_fn)dlsym(d->cupti, "cuptiProfilerInitialize");
    cupti_profiler_fn deinit = (cupti_profiler_fn)dlsym(d->cupti, "cuptiProfilerDeInitialize");
    cupti_profiler_fn supported =
        (cupti_profiler_fn)dlsym(d->cupti, "cuptiProfilerDeviceSupported");
    cupti_result_string_fn rs = (cupti_result_string_fn)dlsym(d->cupti, "cuptiGetResultString");
    struct cupti_profiler_init ip = {.struct_size = sizeof(ip)};
    int rc = -1;
    /*
     * Failing to ask is not an answer: doctor's own process is not the
     * program's, and the collector says for certain when CUDA starts. Only
     * CUPTI's explicit "unsupported" / "disabled" makes a PROBLEM.
     */
    if (!init || !supported || (rc = init(&ip)) != 0) {
        const char *why = NULL;
        if (rs && rc > 0)
            rs(rc, &why);
        say("warning", "cannot ask CUPTI about profiler support: cuptiProfilerInitialize %s%s",
            why ? "failed: " : "is missing", why ? why : "");
        fix("none needed if gpuhier run profiles; if it reports counters missing, check that "
            "CUPTI matches the driver (CUDA 13) and that no other profiler runs");
        return 0;
    }
    int n_ok = 0, n_unknown = 0;
    for (int i = 0; i < d->n_dev; i++) {
        struct device *v = &d->dev[i];
        struct cupti_device_supported p = {.struct_size = CUPTI_DEVICE_SUPPORTED_SIZE,
                                           .device = v->ordinal};
        rc = supported(&p);
        if (rc != 0) {
            const char *why = NULL;
            if (rs)
                rs(rc, &why);
            say("warning", "device %d: cannot ask CUPTI about profiler support: %s", i,
                why ? why : "error");
            n_unknown++;
            continue;
        }
        v->profiler_support = p.is_supported;
        if (p.is_supported == CUPTI_LEVEL_SUPPORTED) {
            say("ok", "device %d: hardware counters supported by CUPTI's range profiler", i);
            n_ok++;
            continue;
        }
        say("PROBLEM",
            "device %d: CUPTI's range profiler is %s here (architecture %s, vGPU %s, "
            "SLI %s, confidential computing %s, CMP %s, WSL %s)",
            i, level_name(p.is_supported), level_name(p.architecture), level_name(p.vgpu),
            level_name(p.sli), level_name(p.confidential_compute), level_name(p.cmp),
            level_name(p.wsl));
        if (p.vgpu == CUPTI_LEVEL_DISABLED)
            fix("enable profiling for this vGPU on the host (vGPU profiling policy)");
        else if (p.confidential_compute == CUPTI_LEVEL_UNSUPPORTED)
            fix("counters are unavailable in confidential-computing mode; profile elsewhere");
        else
            fix("profile on a supported GPU; 'gpuhier run --mode trace' still traces launches and "
                "copies");
    }
    if (deinit) {
        struct cupti_profiler_init dp = {.struct_size = sizeof(dp)};
        deinit(&dp);
    }
    return n_ok > 0 || n_unknown > 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Counter permission                                                   */

/* 1 admin only, 0 everyone, -1 unknown. */
static int
profiling_admin_only(void)
{
    const char *path = getenv("GPUHIER_NVIDIA_PARAMS");
    FILE *f = fopen(path ? path : "/proc/driver/nvidia/params", "r");
    if (!f)
        return -1;
    char line[256];
    int v = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "RmProfilingAdminOnly: %d", &v) == 1)
            break;
    fclose(f);
    return v < 0 ? -1 : v != 0;
}

static int
check_permission(void)
{
    int admin = profiling_admin_only();
    if (admin < 0) {
        say("unknown",
            "counter permission: cannot read RmProfilingAdminOnly from /proc/driver/nvidia/params "
            "(no driver loaded?)");
        return 0;
    }
    if (!admin) {
        say("ok",
            "counter permission: every user may read hardware counters (RmProfilingAdminOnly=0)");
        return 0;
    }
    if (geteuid() == 0) {
        say("ok", "counter permission: admin only (RmProfilingAdminOnly=1), and you are root");
        return 0;
    }
    say("PROBLEM",
        "counter permission: only admins may read hardware counters (RmProfilingAdminOnly=1); "
        "CUPTI will answer CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    fix("run as root, or let every user profile: add 'options nvidia "
        "NVreg_RestrictProfilingToAdminUsers=0' "
        "to a file in /etc/modprobe.d/ and reboot; 'gpuhier run --mode trace' works meanwhile");
    return -1;
}

/* ------------------------------------------------------------------ */
/* Counter engines                                                      */

/* CUPTI's name for rc, or "error N". */
static const char *
cupti_error(const struct doctor *d, int rc)
{
    static char buf[64];
    cupti_result_string_fn rs = (cupti_result_string_fn)dlsym(d->cupti, "cuptiGetResultString");
    const char *s = NULL;
    if (rs && rs(rc, &s) == 0 && s)
        return s;
    snprintf(buf, sizeof(buf), "error %d", rc);
    return buf;
}

/*
 * The range profiler's own permission probe on device 0, as the collector
 * makes it (cuptiProfilerGetCounterAvailability, size query, on the
 * primary context): 1 answered, 0 refused for permission, -1 unknown.
 */
static int
check_rangeprof(struct doctor *d)
{
    cupti_profiler_fn avail =
        (cupti_profiler_fn)dlsym(d->cupti, "cuptiProfilerGetCounterAvailability");
    cu_ctx_retain_fn retain = (cu_ctx_retain_fn)dlsym(d->cuda, "cuDevicePrimaryCtxRetain");
    cu_ctx_set_fn set = (cu_ctx_set_fn)dlsym(d->cuda, "cuCtxSetCurrent");
    void *ctx = NULL;
    if (!avail || !retain || !set || retain(&ctx, d->dev[0].ordinal) != CU_SUCCESS ||
        set(ctx) != CU_SUCCESS) {
        say("unknown", "range profiler: cannot ask CUPTI for counter access on device 0");
        return -1;
    }
    struct cupti_counter_availability p = {.struct_size = sizeof(p), .ctx = ctx};
    int rc = avail(&p);
    if (rc == 0) {
        say("ok", "range profiler: counters readable on device 0 "
                  "(cuptiProfilerGetCounterAvailability answered)");
        return 1;
    }
    if (rc == CUPTI_INSUFFICIENT_PRIVILEGES) {
        say("PROBLEM",
            "range profiler: refused, no permission to read GPU counters (ERR_NVGPUCTRPERM: "
            "cuptiProfilerGetCounterAvailability returned %s)",
            cupti_error(d, rc));
        fix("run as root, or set NVreg_RestrictProfilingToAdminUsers=0 (see 'counter "
            "permission'); tracing works meanwhile");
        return 0;
    }
    say("warning", "range profiler: cuptiProfilerGetCounterAvailability returned %s on device 0",
        cupti_error(d, rc));
    return -1;
}

/*
 * The instrumentation engine's API (CUPTI's SASS metrics) on device 0:
 * the chip's metric list (cuptiSassMetricsGetNumOfMetrics, GetMetrics)
 * and a config set and unset, as the collector sets it. 1 answered, 0
 * refused, -1 unknown. Whether its patching then runs without counter
 * permission is not known from here (docs/collector.md).
 */
static int
check_instrumentation(struct doctor *d)
{
    cupti_profiler_fn chip = (cupti_profiler_fn)dlsym(d->cupti, "cuptiDeviceGetChipName");
    cupti_profiler_fn num = (cupti_profiler_fn)dlsym(d->cupti, "cuptiSassMetricsGetNumOfMetrics");
    cupti_profiler_fn get = (cupti_profiler_fn)dlsym(d->cupti, "cuptiSassMetricsGetMetrics");
    cupti_profiler_fn setc = (cupti_profiler_fn)dlsym(d->cupti, "cuptiSassMetricsSetConfig");
    cupti_profiler_fn unset = (cupti_profiler_fn)dlsym(d->cupti, "cuptiSassMetricsUnsetConfig");
    if (!chip || !num || !get || !setc || !unset) {
        say("PROBLEM", "instrumentation: this CUPTI has no SASS metrics API (CUDA 12.6 or newer)");
        fix("install the CUDA 13 CUPTI library, or set GPUHIER_CUPTI_PATH to it");
        return 0;
    }
    struct cupti_chip_name cn = {.struct_size = sizeof(cn), .device = (size_t)d->dev[0].ordinal};
    int rc = chip(&cn);
    if (rc != 0 || !cn.chip) {
        say("warning", "instrumentation: cuptiDeviceGetChipName returned %s", cupti_error(d, rc));
        return -1;
    }
    struct cupti_sass_num n = {.struct_size = sizeof(n), .chip = cn.chip};
    if ((rc = num(&n)) != 0 || !n.n) {
        say(rc == CUPTI_INSUFFICIENT_PRIVILEGES ? "PROBLEM" : "warning",
            "instrumentation: cuptiSassMetricsGetNumOfMetrics returned %s on %s",
            rc ? cupti_error(d, rc) : "no metrics", cn.chip);
        return rc == CUPTI_INSUFFICIENT_PRIVILEGES ? 0 : -1;
    }
    struct cupti_sass_details *list = n.n < 4096 ? calloc(n.n, sizeof(*list)) : NULL;
    if (!list) {
        say("warning", "instrumentation: %zu metrics on %s: too many to list", n.n, cn.chip);
        return -1;
    }
    struct cupti_sass_list l = {.struct_size = sizeof(l), .chip = cn.chip, .n = n.n, .list = list};
    unsigned long long sectors = 0;
    int has = 0;
    if ((rc = get(&l)) == 0)
        for (size_t i = 0; i < n.n; i++)
            if (list[i].name && !strcmp(list[i].name, "smsp__sass_sectors_mem_global")) {
                sectors = list[i].id;
                has = 1;
            }
    free(list);
    if (rc != 0 || !has) {
        say("warning", "instrumentation: %s on %s",
            rc ? "cuptiSassMetricsGetMetrics failed" : "no smsp__sass_sectors_mem_global metric",
            cn.chip);
        return -1;
    }
    struct cupti_sass_config c = {.id = sectors};
    struct cupti_sass_set_config sc = {.struct_size = CUPTI_SASS_SET_CONFIG_SIZE,
                                       .n = 1,
                                       .configs = &c,
                                       .device = (unsigned)d->dev[0].ordinal};
    rc = setc(&sc);
    if (rc == 0) {
        struct cupti_sass_unset_config uc = {.struct_size = CUPTI_SASS_UNSET_CONFIG_SIZE,
                                             .device = (unsigned)d->dev[0].ordinal};
        unset(&uc);
        say("ok",
            "instrumentation: CUPTI's SASS metrics API answered on device 0 (%zu metrics on %s; "
            "cuptiSassMetricsSetConfig accepted)",
            n.n, cn.chip);
        return 1;
    }
    say(rc == CUPTI_INSUFFICIENT_PRIVILEGES ? "PROBLEM" : "warning",
        "instrumentation: cuptiSassMetricsSetConfig returned %s on device 0 (%zu metrics on %s)",
        cupti_error(d, rc), n.n, cn.chip);
    return rc == CUPTI_INSUFFICIENT_PRIVILEGES ? 0 : -1;
}

/*
 * Each counter engine on its own (docs/cmd-doctor.md "Counter engines"):
 * *rangeprof and *instr get 1 (answered), 0 (refused) or -1 (unknown).
 */
static void
check_engines(struct doctor *d, int has_device, int *rangeprof, int *instr)
{
    *rangeprof = *instr = -1;
    if (!has_device || !d->cupti || !d->n_dev) {
        say("unknown", "counter engines: not checked (no device or no CUPTI)");
        return;
    }
    cupti_profiler_fn init = (cupti_profiler_fn)dlsym(d->cupti, "cuptiProfilerInitialize");
    struct cupti_profiler_init ip = {.struct_size = sizeof(ip)};
    int rc = init ? init(&ip) : -1;
    if (rc != 0) {
        say("unknown", "counter engines: not checked (cuptiProfilerInitialize %s)",
            init ? cupti_error(d, rc) : "is missing");
        return;
    }
    *rangeprof = check_rangeprof(d);
    *instr = check_instrumentation(d);
    if (*rangeprof == 0 && *instr == 1)
        say("note", "without counter permission the instrumentation engine's API still answers; "
                    "whether its launches then get counts is not yet measured on a device: try "
                    "gpuhier run --counters pattern (docs/collector.md \"Counter engines\")");
    cupti_profiler_fn deinit = (cupti_profiler_fn)dlsym(d->cupti, "cuptiProfilerDeInitialize");
    if (deinit) {
        struct cupti_profiler_init dp = {.struct_size = sizeof(dp)};
        deinit(&dp);
    }
}

/* ------------------------------------------------------------------ */
/* Calibration                                                          */

/*
 * $XDG_CACHE_HOME/gpuhier/calibration-<name>.txt, else
 * ~/.cache/gpuhier/calibration-<name>.txt, the name with ' ' and '/' as
 * '_'. The collector reads the same path (collector/writer.c,
 * docs/cmd-doctor.md).
 */
static int
calibration_path(const char *device, char *buf, size_t n)
{
    char name[256];
    snprintf(name, sizeof(name), "%s", device);
    for (char *p = name; *p; p++)
        if (*p == ' ' || *p == '/')
            *p = '_';
    const char *xdg = getenv("XDG_CACHE_HOME");
    int len;
    if (xdg && *xdg) {
        len = snprintf(buf, n, "%s/gpuhier/calibration-%s.txt", xdg, name);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home) {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home)
            return -1;
        len = snprintf(buf, n, "%s/.cache/gpuhier/calibration-%s.txt", home, name);
    }
    return len > 0 && (size_t)len < n ? 0 : -1;
}

/* Calibration is per device model: act on the first device of each name only. */
static int
first_of_model(const struct doctor *d, int i)
{
    for (int j = 0; j < i; j++)
        if (!strcmp(d->dev[j].name, d->dev[i].name))
            return 0;
    return 1;
}

static void
show_calibration(const struct doctor *d)
{
    for (int i = 0; i < d->n_dev; i++) {
        if (!first_of_model(d, i))
            continue;
        char path[PATH_MAX];
        if (calibration_path(d->dev[i].name, path, sizeof(path)))
            continue;
        FILE *f = fopen(path, "r");
        double bw = 0;
        if (f) {
            if (fscanf(f, "%lf", &bw) != 1)
                bw = 0;
            fclose(f);
        }
        if (bw > 0)
            say("ok", "%s: measured copy bandwidth %.2f TB/s (%s)", d->dev[i].name, bw / 1e12,
                path);
        else
            say("note",
                "%s: copy bandwidth not measured; 'gpuhier doctor --calibrate' measures it "
                "(floors then use the datasheet peak only)",
                d->dev[i].name);
    }
}

static int
cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

#define CAL_BYTES (256u << 20) /* per buffer: 256 MiB read + 256 MiB written per copy */
#define CAL_WARMUP 3
#define CAL_REPS 15

/* Median bandwidth (bytes/s, read + write) of a device-to-device copy on `dev`, or -1. */
static double
measure_copy(struct doctor *d, const struct device *v)
{
    void *h = d->cuda;
    cu_ctx_retain_fn retain = (cu_ctx_retain_fn)dlsym(h, "cuDevicePrimaryCtxRetain");
    cu_ctx_release_fn release = (cu_ctx_release_fn)dlsym(h, "cuDevicePrimaryCtxRelease_v2");
    cu_ctx_set_fn set = (cu_ctx_set_fn)dlsym(h, "cuCtxSetCurrent");
    cu_mem_alloc_fn alloc = (cu_mem_alloc_fn)dlsym(h, "cuMemAlloc_v2");
    cu_mem_free_fn mfree = (cu_mem_free_fn)dlsym(h, "cuMemFree_v2");
    cu_memset_fn memset8 = (cu_memset_fn)dlsym(h, "cuMemsetD8_v2");
    cu_memcpy_dtod_fn copy = (cu_memcpy_dtod_fn)dlsym(h, "cuMemcpyDtoD_v2");
    cu_event_create_fn ecreate = (cu_event_create_fn)dlsym(h, "cuEventCreate");
    cu_event_record_fn erecord = (cu_event_record_fn)dlsym(h, "cuEventRecord");
    cu_event_fn esync = (cu_event_fn)dlsym(h, "cuEventSynchronize");
    cu_event_fn edestroy = (cu_event_fn)dlsym(h, "cuEventDestroy_v2");
    cu_event_elapsed_fn elapsed = (cu_event_elapsed_fn)dlsym(h, "cuEventElapsedTime_v2");
    if (!elapsed)
        elapsed = (cu_event_elapsed_fn)dlsym(h, "cuEventElapsedTime");
    if (!retain || !release || !set || !alloc || !mfree || !memset8 || !copy || !ecreate ||
        !erecord || !esync || !edestroy || !elapsed) {
        error("doctor: the driver lacks a function the calibration needs");
        return -1;
    }
    double ret = -1;
    void *ctx = NULL, *e0 = NULL, *e1 = NULL;
    unsigned long long src = 0, dst = 0;
    float ms[CAL_REPS];
    int rc;
    if ((rc = retain(&ctx, v->ordinal)) || (rc = set(ctx)) || (rc = alloc(&src, CAL_BYTES)) ||
        (rc = alloc(&dst, CAL_BYTES)) || (rc = memset8(src, 1, CAL_BYTES)) ||
        (rc = memset8(dst, 0, CAL_BYTES)) || (rc = ecreate(&e0, 0)) || (rc = ecreate(&e1, 0))) {
        error("doctor: calibration on '%s' failed: %s", v->name, cu_error(d, rc));
        goto out;
    }
    for (int i = 0; i < CAL_WARMUP + CAL_REPS; i++) {
        if ((rc = erecord(e0, NULL)) || (rc = copy(dst, src, CAL_BYTES)) ||
            (rc = erecord(e1, NULL)) || (rc = esync(e1))) {
            error("doctor: calibration copy on '%s' failed: %s", v->name, cu_error(d, rc));
            goto out;
        }
        float t = 0;
        if ((rc = elapsed(&t, e0, e1))) {
            error("doctor: calibration timing on '%s' failed: %s", v->name, cu_error(d, rc));
            goto out;
        }
        if (i >= CAL_WARMUP)
            ms[i - CAL_WARMUP] = t;
    }
    qsort(ms, CAL_REPS, sizeof(ms[0]), cmp_float);
    float med = ms[CAL_REPS / 2];
    if (med <= 0) {
        error("doctor: calibration on '%s' measured no time", v->name);
        goto out;
    }
    ret = 2.0 * CAL_BYTES / (med / 1e3);
    printf("  %-8s %s: device-to-device copy of %u MiB, median of %d: %.3f ms, %.2f TB/s (min %.3f "
           "ms, max %.3f ms)\n",
           "measured", v->name, CAL_BYTES >> 20, CAL_REPS, med, ret / 1e12, ms[0],
           ms[CAL_REPS - 1]);
out:
    if (e0)
        edestroy(e0);
    if (e1)
        edestroy(e1);
    if (src)
        mfree(src);
    if (dst)
        mfree(dst);
    if (ctx)
        release(v->ordinal);
    return ret;
}

static int
mkdir_p(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int
calibrate(struct doctor *d)
{
    int ret = 0;
    for (int i = 0; i < d->n_dev; i++) {
        if (!first_of_model(d, i))
            continue;
        double bw = measure_copy(d, &d->dev[i]);
        char path[PATH_MAX], tmp[PATH_MAX + 16];
        if (bw <= 0 || calibration_path(d->dev[i].name, path, sizeof(path))) {
            ret = -1;
            continue;
        }
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", path);
        *strrchr(dir, '/') = '\0';
        snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
        FILE *f = NULL;
        if (mkdir_p(dir) || !(f = fopen(tmp, "w")) || fprintf(f, "%.0f\n", bw) < 0 ||
            fclose(f) != 0 || rename(tmp, path) != 0) {
            ret = error("doctor: cannot write '%s': %s", path, strerror(errno));
            unlink(tmp);
            continue;
        }
        say("saved", "%s", path);
    }
    return ret;
}

/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
    fprintf(f, "usage: gpuhier doctor [--calibrate]\n\n"
               "Checks that this machine can profile: NVIDIA driver, CUDA devices, CUPTI,\n"
               "profiler support, counter permission. Each problem comes with what to do.\n\n"
               "  --calibrate   also measure the device-to-device copy bandwidth of each\n"
               "                device model and cache it for gpuhier run\n\n"
               "Exit status: 0 ready to profile, 7 profiling is not possible here, 2 bad usage.\n"
               "See 'gpuhier help doctor'.\n");
}

int
cmd_doctor(int argc, const char **argv)
{
    struct doctor d = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--calibrate")) {
            d.is_calibrate = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return GH_EXIT_OK;
        } else {
            error("doctor: unknown argument '%s'; see 'gpuhier doctor --help'", argv[i]);
            return GH_EXIT_USAGE;
        }
    }

    printf("gpuhier doctor: is this machine ready to profile?\n\n");
    int has_driver = check_driver(&d) == 0;
    int has_device = has_driver && check_devices(&d) == 0;
    int has_cupti = check_cupti(&d, has_device) == 0;
    int has_permission = check_permission() == 0;
    int eng_rangeprof, eng_instr;
    check_engines(&d, has_device, &eng_rangeprof, &eng_instr);
    /* the range profiler's own probe overrides the module parameter's guess */
    if (eng_rangeprof == 0)
        has_permission = 0;
    char *collector = run_find_collector(1);
    if (collector) {
        say("ok", "collector %s", collector);
    } else {
        say("PROBLEM", "gpuhier run cannot find its collector library (%s)", COLLECTOR_NAME);
        fix("build it (cmake --build build), or set GPUHIER_COLLECTOR to its path");
    }
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj)
        say("note",
            "CUDA_INJECTION64_PATH is set (%s): another tool injects into CUDA programs here; "
            "gpuhier run replaces it for the program it runs",
            inj);
    say("note",
        "another profiler holding CUPTI (nsys, ncu, torch.profiler, DCGM profiling) cannot be "
        "detected in advance; gpuhier run says so when CUPTI refuses it");
    say("note",
        "the hardware counters serve one process at a time: while another process profiles this "
        "GPU (a second gpuhier run, ncu, DCGM profiling), gpuhier run defers its profiles "
        "(profile_reason counters_busy) and retries; profile one program at a time for full "
        "coverage");
    if (has_device && !d.is_calibrate)
        show_calibration(&d);

    d.can_trace = has_device && d.cupti != NULL && collector != NULL;
    free(collector);
    d.can_profile = d.can_trace && has_cupti && has_permission;
    int status = GH_EXIT_OK;
    if (d.is_calibrate) {
        putchar('\n');
        if (!has_device) {
            error("doctor: --calibrate needs a working driver and device");
            status = GH_EXIT_NO_GPU;
        } else if (calibrate(&d)) {
            status = GH_EXIT_NO_GPU;
        }
    }
    putchar('\n');
    if (d.can_profile)
        printf("ready to profile: gpuhier run ./your-program\n");
    else if (d.can_trace && eng_instr == 1)
        printf("not ready for the range profiler (see PROBLEM above); the instrumentation "
               "engine's API answered: 'gpuhier run --counters pattern' may still give pattern "
               "counts (not yet measured without permission); 'gpuhier run --mode trace' records "
               "launches and copies\n");
    else if (d.can_trace)
        printf("not ready: hardware counters are unavailable (see PROBLEM above); "
               "'gpuhier run --mode trace' still records launches and copies\n");
    else
        printf(
            "not ready: gpuhier run cannot collect anything on this machine (see PROBLEM above); "
            "reports from elsewhere can still be read here (analyze, tui, report, export)\n");
    if (!d.can_profile)
        status = GH_EXIT_NO_GPU;
    /* The driver and CUPTI stay loaded until exit: unloading CUDA libraries is not supported. */
    return status;
}
