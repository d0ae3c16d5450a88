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

__global__ void tk_fill(float *a, size_t n, unsigned long long seed)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    a[i] = tk_val(i + seed);
}

static inline void tk_fill_dev(float *a, size_t n, unsigned long long seed = 0)
{
  tk_fill<<<1024, 256>>>(a, n, seed);
  CKL();
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
