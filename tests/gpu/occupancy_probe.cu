// SPDX-License-Identifier: MIT
//
// occupancy_probe: reads cuOccupancyMaxActiveBlocksPerMultiprocessor on the
// GPU for kernels with different register counts (__maxnreg__), static and
// dynamic shared memory, carveout preferences and block sizes, and prints
// one line per configuration for tests/fixtures/occupancy-h200.txt, which
// the CPU unit test test_occupancy compares the calculator against.
// Lines: "device k=v ...", "occ k=v ...", "cluster k=v ...", '#' comments.
// Exits 77 with "skipped: no GPU" when there is no device.
//
// Build: nvcc -arch=sm_90 -O2 -o occupancy_probe tests/gpu/occupancy_probe.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// A kernel that wants many live registers; __maxnreg__ caps what it gets.
#define BODY(A)                                                             \
    float acc[A];                                                           \
    _Pragma("unroll") for (int i = 0; i < A; i++)                           \
        acc[i] = in[(threadIdx.x + i * 37) % n];                            \
    for (int it = 0; it < n; it++) {                                        \
        _Pragma("unroll") for (int i = 0; i < A; i++)                       \
            acc[i] = acc[i] * acc[(i + 7) % A] + in[(it + i) % n];          \
    }                                                                       \
    float s = 0;                                                            \
    _Pragma("unroll") for (int i = 0; i < A; i++) s += acc[i];              \
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;

#define KREG(R) \
    __global__ void __maxnreg__(R) kreg_##R(float *out, const float *in, int n) { BODY((R < 128 ? 48 : 200)) }
KREG(16)
KREG(24)
KREG(32)
KREG(40)
KREG(48)
KREG(56)
KREG(64)
KREG(72)
KREG(96)
KREG(128)
KREG(168)
KREG(255)

__global__ void ktiny(float *out) { out[threadIdx.x] = 1.0f; }

#define KSMEM(B)                                                            \
    __global__ void ksmem_##B(float *out, int n) {                          \
        __shared__ float buf[(B) / 4];                                      \
        for (int i = threadIdx.x; i < (B) / 4; i += blockDim.x) buf[i] = i; \
        __syncthreads();                                                    \
        out[blockIdx.x * blockDim.x + threadIdx.x] = buf[(threadIdx.x * 7 + n) % ((B) / 4)]; \
    }
KSMEM(4096)
KSMEM(12288)
KSMEM(20000)
KSMEM(40960)
KSMEM(49152)

__global__ void kdyn(float *out, int n)
{
    extern __shared__ float dbuf[];
    dbuf[threadIdx.x] = n;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = dbuf[(threadIdx.x + 1) % blockDim.x];
}

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = "?"; cuGetErrorName(r_, &s_); \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)

static CUfunction
fn_of(const void *sym)
{
    cudaFunction_t f;
    if (cudaGetFuncBySymbol(&f, sym) != cudaSuccess) {
        fprintf(stderr, "cudaGetFuncBySymbol failed\n");
        exit(1);
    }
    return (CUfunction)f;
}

static int
attr(CUfunction f, CUfunction_attribute a)
{
    int v = 0;
    CK(cuFuncGetAttribute(&v, a, f));
    return v;
}

static int n_lines;

static void
probe(const char *name, CUfunction f, int block, int dyn, int carveout_pct)
{
    if (carveout_pct >= -1)
        CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout_pct));
    int blocks = -1;
    CUresult r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, block, (size_t)dyn);
    const char *en = "CUDA_SUCCESS";
    if (r != CUDA_SUCCESS)
        cuGetErrorName(r, &en);
    printf("occ kernel=%s regs=%d static_smem=%d dyn_smem=%d block=%d carveout_pct=%d "
           "max_dyn_smem=%d blocks_per_sm=%d result=%s\n",
           name, attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS), attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), dyn,
           block, carveout_pct, attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
           r == CUDA_SUCCESS ? blocks : -1, en);
    n_lines++;
}

int
main(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    cudaSetDevice(0);
    cudaFree(0);
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    char name[256];
    CK(cuDeviceGetName(name, sizeof name, dev));
    int drv = 0;
    cuDriverGetVersion(&drv);
    int a[16];
    CUdevice_attribute ids[] = {
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, CU_DEVICE_ATTRIBUTE_WARP_SIZE,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    };
    for (int i = 0; i < 13; i++)
        CK(cuDeviceGetAttribute(&a[i], ids[i], dev));
    printf("# cuOccupancyMaxActiveBlocksPerMultiprocessor, read by tests/gpu/occupancy_probe.cu\n");
    printf("device name=\"%s\" driver_api=%d cc=%d.%d sms=%d max_threads_per_sm=%d max_blocks_per_sm=%d "
           "regs_per_sm=%d regs_per_block=%d smem_per_sm=%d smem_per_block=%d smem_per_block_optin=%d "
           "smem_reserved_per_block=%d warp_size=%d max_threads_per_block=%d\n",
           name, drv, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12]);

    struct { const char *n; const void *s; } regk[] = {
        {"kreg_16", (const void *)kreg_16}, {"kreg_24", (const void *)kreg_24},
        {"kreg_32", (const void *)kreg_32}, {"kreg_40", (const void *)kreg_40},
        {"kreg_48", (const void *)kreg_48}, {"kreg_56", (const void *)kreg_56},
        {"kreg_64", (const void *)kreg_64}, {"kreg_72", (const void *)kreg_72},
        {"kreg_96", (const void *)kreg_96}, {"kreg_128", (const void *)kreg_128},
        {"kreg_168", (const void *)kreg_168}, {"kreg_255", (const void *)kreg_255},
        {"ktiny", (const void *)ktiny},
    };
    int blocks[] = {32, 64, 96, 100, 128, 192, 256, 384, 512, 640, 768, 1024};
    for (size_t k = 0; k < sizeof regk / sizeof regk[0]; k++)
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
            probe(regk[k].n, fn_of(regk[k].s), blocks[b], 0, -2);

    struct { const char *n; const void *s; } smk[] = {
        {"ksmem_4096", (const void *)ksmem_4096}, {"ksmem_12288", (const void *)ksmem_12288},
        {"ksmem_20000", (const void *)ksmem_20000}, {"ksmem_40960", (const void *)ksmem_40960},
        {"ksmem_49152", (const void *)ksmem_49152},
    };
    int sblocks[] = {32, 128, 256, 1024};
    for (size_t k = 0; k < sizeof smk / sizeof smk[0]; k++)
        for (size_t b = 0; b < sizeof sblocks / sizeof sblocks[0]; b++)
            probe(smk[k].n, fn_of(smk[k].s), sblocks[b], 0, -2);

    /* dynamic shared memory: default limit (48 KB) first, then opted in to the maximum */
    CUfunction fd = fn_of((const void *)kdyn);
    int dyns[] = {0, 1024, 3072, 10000, 20480, 48128, 49152};
    for (size_t d = 0; d < sizeof dyns / sizeof dyns[0]; d++)
        probe("kdyn", fd, 128, dyns[d], -2);
    int optin = a[9] - attr(fd, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    CK(cuFuncSetAttribute(fd, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin));
    int dyns2[] = {0, 1024, 20480, 49152, 50000, 76800, 101376, 115712, 116736, 150000, 200000, 232448};
    int dblocks[] = {128, 512};
    for (size_t d = 0; d < sizeof dyns2 / sizeof dyns2[0]; d++)
        for (size_t b = 0; b < 2; b++)
            probe("kdyn", fd, dblocks[b], dyns2[d], -2);
    /* carveout preferences (percent of the maximum shared memory per SM) */
    int pcts[] = {0, 10, 25, 50, 75, 100, -1};
    int cdyn[] = {0, 4096, 30000};
    for (size_t p = 0; p < sizeof pcts / sizeof pcts[0]; p++)
        for (size_t d = 0; d < 3; d++)
            probe("kdyn", fd, 256, cdyn[d], pcts[p]);
    probe("ksmem_12288", fn_of((const void *)ksmem_12288), 128, 0, 25);
    probe("ksmem_12288", fn_of((const void *)ksmem_12288), 128, 0, 50);
    probe("ksmem_12288", fn_of((const void *)ksmem_12288), 128, 0, -1);

    /* clusters: cuOccupancyMaxActiveClusters for the whole GPU */
    int csz[] = {1, 2, 4, 8};
    int cblk[] = {128, 1024};
    for (size_t c = 0; c < 4; c++)
        for (size_t b = 0; b < 2; b++) {
            CUlaunchAttribute la;
            la.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            la.value.clusterDim.x = csz[c];
            la.value.clusterDim.y = 1;
            la.value.clusterDim.z = 1;
            CUlaunchConfig cfg = {};
            cfg.gridDimX = csz[c] * 132;
            cfg.gridDimY = cfg.gridDimZ = 1;
            cfg.blockDimX = cblk[b];
            cfg.blockDimY = cfg.blockDimZ = 1;
            cfg.sharedMemBytes = 0;
            cfg.attrs = &la;
            cfg.numAttrs = 1;
            int nc = -1;
            CUfunction f = fn_of((const void *)kreg_32);
            CUresult r = cuOccupancyMaxActiveClusters(&nc, f, &cfg);
            const char *en = "CUDA_SUCCESS";
            if (r != CUDA_SUCCESS)
                cuGetErrorName(r, &en);
            printf("cluster kernel=kreg_32 regs=%d block=%d cluster=%d max_active_clusters=%d result=%s\n",
                   attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS), cblk[b], csz[c], nc, en);
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("# %d occupancy lines in %.3f s\n", n_lines,
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return 0;
}
