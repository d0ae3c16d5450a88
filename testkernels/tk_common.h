// SPDX-License-Identifier: MIT
// Shared helpers for the testkernels: checked CUDA calls, timing, case selection.
// Each testkernel is one source per behaviour family; argv[1] picks the case and
// the build defines FIXED for the twin, which keeps every kernel name.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
              cudaGetErrorString(e_));                                                  \
      exit(2);                                                                          \
    }                                                                                   \
  } while (0)

// After every launch: the launch error, then the execution error.
#define CKL()                                                                           \
  do {                                                                                  \
    CK(cudaGetLastError());                                                             \
    CK(cudaDeviceSynchronize());                                                        \
  } while (0)

#ifdef FIXED
#define TK_VARIANT "fixed"
#else
#define TK_VARIANT "defect"
#endif

static inline void tk_fail(const char *what, long long idx, double got, double want)
{
  fprintf(stderr, "FAIL %s: element %lld is %.9g, expected %.9g\n", what, idx, got, want);
  exit(1);
}

static inline cudaDeviceProp tk_device(void)
{
  cudaDeviceProp p;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&p, dev));
  return p;
}

// Times `reps` runs of fn (after one warm-up run) with events; returns the median in ms.
template <typename F> static float tk_time(int reps, F fn)
{
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  fn();
  CKL();
  std::vector<float> t;
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a));
    fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Deterministic value for index i: not zero, not repeating with small periods.
__host__ __device__ static inline float tk_val(unsigned long long i)
{
  unsigned int x = (unsigned int)(i * 2654435761ull) ^ (unsigned int)(i >> 32);
  return (float)(x & 0xffff) * (1.0f / 65536.0f) + 0.5f;
}

// Harness rule (docs/testkernels.md "Harness"): only host.cu's cases are about the host link, so
// every other program keeps its host traffic far below its kernels' time at TK_REPS=10:
//   - inputs are produced on the device (tk_fill, tk_fill_perm: store-only, 16-byte stores, coalesced);
//   - results come back through pinned memory (cudaMallocHost), either whole when they are small
//     (tk_host_copy) or as a sample of slices (tk_sample) checked against the CPU reference.

// Fills a[0..n) with tk_val(((i * mul) & mask) + seed); mul = 1, mask = ~0: tk_val(i + seed).
// One float4 store per thread per step (a must be 16-byte aligned: a cudaMalloc base pointer).
__global__ void tk_fill(float *__restrict__ a, size_t n, unsigned long long seed, unsigned long long mul,
                        unsigned long long mask)
{
  size_t n4 = n / 4, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float4 *a4 = reinterpret_cast<float4 *>(a);
  for (size_t i = t; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long j = 4 * (unsigned long long)i;
    a4[i] = make_float4(tk_val(((j * mul) & mask) + seed), tk_val((((j + 1) * mul) & mask) + seed),
                        tk_val((((j + 2) * mul) & mask) + seed), tk_val((((j + 3) * mul) & mask) + seed));
  }
  if (t < n - 4 * n4)
    a[4 * n4 + t] = tk_val((((4 * n4 + t) * mul) & mask) + seed);
}

// Fills p[0..n) with (i * mul) & mask, four indices (one uint4 store) per thread per step.
__global__ void tk_fill_perm(unsigned int *__restrict__ p, size_t n, unsigned long long mul,
                             unsigned long long mask)
{
  size_t n4 = n / 4, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  uint4 *p4 = reinterpret_cast<uint4 *>(p);
  for (size_t i = t; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long j = 4 * (unsigned long long)i;
    p4[i] = make_uint4((unsigned)((j * mul) & mask), (unsigned)(((j + 1) * mul) & mask),
                       (unsigned)(((j + 2) * mul) & mask), (unsigned)(((j + 3) * mul) & mask));
  }
  if (t < n - 4 * n4)
    p[4 * n4 + t] = (unsigned)(((4 * n4 + t) * mul) & mask);
}

static inline void tk_aligned(const void *a)
{
  if ((size_t)a % 16) {
    fprintf(stderr, "tk_fill: %p is not 16-byte aligned\n", a);
    exit(2);
  }
}

static inline void tk_fill_dev(float *a, size_t n, unsigned long long seed = 0, unsigned long long mul = 1,
                               unsigned long long mask = ~0ull)
{
  tk_aligned(a);
  tk_fill<<<1024, 256>>>(a, n, seed, mul, mask);
  CKL();
}

static inline void tk_fill_perm_dev(unsigned int *p, size_t n, unsigned long long mul, unsigned long long mask)
{
  tk_aligned(p);
  tk_fill_perm<<<1024, 256>>>(p, n, mul, mask);
  CKL();
}

// The whole of d[0..n) in a pinned host buffer (free it with tk_free_host); for small results only.
template <typename T> static T *tk_host_copy(const T *d, size_t n)
{
  T *h = NULL;
  CK(cudaMallocHost((void **)&h, n * sizeof(T)));
  CK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <typename T> static void tk_free_host(T *h) { CK(cudaFreeHost(h)); }

// Sampled check: `slices` slices of `len` elements of d[0..n) (the first, the last and evenly spaced
// ones between; all of d when it is shorter), each copied into one pinned buffer; fn(i, value) is
// called for every sampled element i and checks it against the CPU reference (tk_fail on a mismatch).
// Returns the number of elements checked. Defaults: 4 slices of 2048 elements (4 copies, 32 KiB of
// floats, a few microseconds).
#define TK_SLICES 4
#define TK_SLICE 2048
template <typename T, typename F>
static size_t tk_sample(const T *d, size_t n, F fn, int slices = TK_SLICES, size_t len = TK_SLICE)
{
  size_t m = len < n ? len : n, last = n - m, checked = 0;
  T *h = NULL;
  CK(cudaMallocHost((void **)&h, m * sizeof(T)));
  for (int s = 0; s < slices; s++) {
    size_t off = slices > 1 ? last / (size_t)(slices - 1) * (size_t)s : last / 2;
    if (slices > 1 && s == slices - 1)
      off = last;
    CK(cudaMemcpy(h, d + off, m * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < m; i++)
      fn(off + i, h[i]);
    checked += m;
    if (m == n)
      break;
  }
  CK(cudaFreeHost(h));
  return checked;
}

static inline void tk_usage(const char *prog, const char *cases)
{
  fprintf(stderr, "usage: %s CASE [args]\ncases: %s\n", prog, cases);
  exit(2);
}

static inline void tk_report(const char *kase, const char *kernel, float ms, double bytes)
{
  printf("%s %s %s: %.4f ms", TK_VARIANT, kase, kernel, ms);
  if (bytes > 0)
    printf(", %.1f MB, %.1f GB/s", bytes / 1e6, bytes / (ms * 1e-3) / 1e9);
  printf("\n");
}
