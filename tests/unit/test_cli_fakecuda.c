/* SPDX-License-Identifier: MIT */
/*
 * Stand-ins for libcuda.so.1 and libcupti (built twice: gh_cli_fake_cuda,
 * and gh_cli_fake_cupti with FAKE_CUPTI) so `gpuhier doctor` and
 * `doctor --calibrate` run their happy path in CI without a GPU
 * (GPUHIER_CUDA_PATH, GPUHIER_CUPTI_PATH; tests/e2e/t405-doctor-fake.sh).
 *
 * Two devices: 0 "NVIDIA H200", compute capability 9.0, 132 SMs, whose
 * device-to-device copies take exactly (bytes read + bytes written) /
 * 4e12 s of a virtual clock, so the calibration must find 4.00 TB/s; and
 * 1 "Fake GPU/Old 7.0", compute capability 7.0 (too old to profile).
 * Nothing is allocated or copied: pointers are handles.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_CUPTI

#define FAKE_BW_BYTES_PER_S 4e12

static double clock_s; /* virtual time, advanced by copies */
static unsigned long long next_ptr = 0x1000;

int
cuInit(unsigned int flags)
{
    (void)flags;
    return 0;
}

int
cuDriverGetVersion(int *v)
{
    *v = 13000;
    return 0;
}

int
cuDeviceGetCount(int *n)
{
    *n = 2;
    return 0;
}

int
cuDeviceGet(int *h, int i)
{
    if (i < 0 || i > 1)
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *h = i;
    return 0;
}

int
cuDeviceGetName(char *name, int len, int dev)
{
    snprintf(name, (size_t)len, "%s", dev == 0 ? "NVIDIA H200" : "Fake GPU/Old 7.0");
    return 0;
}

int
cuDeviceGetAttribute(int *v, int attr, int dev)
{
    switch (attr) {
    case 16: /* SM count */
        *v = dev == 0 ? 132 : 80;
        return 0;
    case 75: /* major */
        *v = dev == 0 ? 9 : 7;
        return 0;
    case 76: /* minor */
        *v = 0;
        return 0;
    default:
        *v = 0;
        return 0;
    }
}

int
cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
    *bytes = dev == 0 ? (size_t)143771 << 20 : (size_t)16 << 30;
    return 0;
}

int
cuGetErrorName(int rc, const char **s)
{
    *s = rc ? "CUDA_ERROR_FAKE" : "CUDA_SUCCESS";
    return 0;
}

int
cuGetErrorString(int rc, const char **s)
{
    *s = rc ? "fake error" : "no error";
    return 0;
}

int
cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    *ctx = (void *)(uintptr_t)(0x100 + dev);
    return 0;
}

int
cuDevicePrimaryCtxRelease_v2(int dev)
{
    (void)dev;
    return 0;
}

int
cuCtxSetCurrent(void *ctx)
{
    (void)ctx;
    return 0;
}

int
cuMemAlloc_v2(unsigned long long *p, size_t n)
{
    *p = next_ptr;
    next_ptr += n;
    return 0;
}

int
cuMemFree_v2(unsigned long long p)
{
    (void)p;
    return 0;
}

int
cuMemsetD8_v2(unsigned long long p, unsigned char v, size_t n)
{
    (void)p;
    (void)v;
    (void)n;
    return 0;
}

int
cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n)
{
    (void)dst;
    (void)src;
    clock_s += 2.0 * (double)n / FAKE_BW_BYTES_PER_S;
    return 0;
}

struct fake_event {
    double t;
};
static struct fake_event events[16];
static int n_events;

int
cuEventCreate(void **e, unsigned int flags)
{
    (void)flags;
    if (n_events == 16)
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    *e = &events[n_events++];
    return 0;
}

int
cuEventRecord(void *e, void *stream)
{
    (void)stream;
    ((struct fake_event *)e)->t = clock_s;
    return 0;
}

int
cuEventSynchronize(void *e)
{
    (void)e;
    return 0;
}

int
cuEventDestroy_v2(void *e)
{
    (void)e;
    return 0;
}

int
cuEventElapsedTime_v2(float *ms, void *a, void *b)
{
    *ms = (float)((((struct fake_event *)b)->t - ((struct fake_event *)a)->t) * 1e3);
    return 0;
}

#else /* FAKE_CUPTI */

int
cuptiGetVersion(unsigned int *v)
{
    *v = 130001;
    return 0;
}

/* FAKE_CUPTI_INIT_FAIL=1: the profiler refuses to initialize. */
int
cuptiProfilerInitialize(void *p)
{
    (void)p;
    const char *f = getenv("FAKE_CUPTI_INIT_FAIL");
    return f && *f == '1' ? 17 : 0;
}

int
cuptiProfilerDeInitialize(void *p)
{
    (void)p;
    return 0;
}

/* The layout of CUpti_Profiler_DeviceSupported_Params in CUPTI 13. */
struct params {
    size_t struct_size;
    void *priv;
    int device;
    int is_supported, architecture, sli, vgpu, confidential_compute, cmp, wsl;
    int api;
};

int
cuptiProfilerDeviceSupported(struct params *p)
{
    if (p->struct_size != offsetof(struct params, api) + sizeof(int))
        return 3; /* CUPTI_ERROR_INVALID_PARAMETER */
    int ok = p->device == 0;
    p->is_supported = ok ? 3 : 1;
    p->architecture = ok ? 3 : 1;
    p->sli = p->vgpu = p->confidential_compute = p->cmp = p->wsl = 3;
    return 0;
}

int
cuptiGetResultString(int rc, const char **s)
{
    *s = rc == 35 ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
         : rc     ? "CUPTI_ERROR_FAKE"
                  : "CUPTI_SUCCESS";
    return 0;
}

static int
env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v == '1';
}

/* The range profiler's permission probe. FAKE_CUPTI_NO_PERM=1: refused, as for a non-admin. */
int
cuptiProfilerGetCounterAvailability(void *p)
{
    (void)p;
    return env_on("FAKE_CUPTI_NO_PERM") ? 35 : 0;
}

struct chip_name {
    size_t struct_size;
    void *priv;
    size_t device;
    const char *chip;
};

int
cuptiDeviceGetChipName(struct chip_name *p)
{
    p->chip = "GH100";
    return 0;
}

/* The SASS metrics API: 60 metrics (as GH100 lists); FAKE_CUPTI_NO_SASS=1: not supported. */
struct sass_num {
    size_t struct_size;
    void *priv;
    const char *chip;
    size_t n;
};

int
cuptiSassMetricsGetNumOfMetrics(struct sass_num *p)
{
    if (env_on("FAKE_CUPTI_NO_SASS"))
        return 27; /* CUPTI_ERROR_NOT_SUPPORTED */
    p->n = 60;
    return 0;
}

struct sass_details {
    unsigned long long id;
    const char *name, *description;
};
struct sass_list {
    size_t struct_size;
    void *priv;
    const char *chip;
    size_t n;
    struct sass_details *list;
};

int
cuptiSassMetricsGetMetrics(struct sass_list *p)
{
    static char names[60][40];
    for (size_t i = 0; i < p->n && i < 60; i++) {
        snprintf(names[i], sizeof(names[i]),
                 i == 0 ? "smsp__sass_sectors_mem_global" : "smsp__sass_fake_%zu", i);
        p->list[i] = (struct sass_details){.id = 1000 + i, .name = names[i], .description = ""};
    }
    return 0;
}

/* FAKE_CUPTI_SASS_NO_PERM=1: SetConfig refused for permission (what a device may answer). */
int
cuptiSassMetricsSetConfig(void *p)
{
    (void)p;
    return env_on("FAKE_CUPTI_SASS_NO_PERM") ? 35 : 0;
}

int
cuptiSassMetricsUnsetConfig(void *p)
{
    (void)p;
    return 0;
}

#endif
