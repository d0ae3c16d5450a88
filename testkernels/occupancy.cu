// SPDX-License-Identifier: MIT
// occupancy: resident warps limited by registers or by shared memory (H §4.2, H §4.3; rules 2 and 4),
// in a memory-bound kernel (latency exposed: a positive) and a compute-bound one (a note only).
// Built twice: tk_occupancy (defect) and tk_occupancy_fixed (-DFIXED); same kernel names.
// All blocks have 256 threads (8 warps); an SM holds 64 warps, 65536 registers, 228 KB shared memory.
// Cases (argv, several allowed):
//   regs_mem      kernel occ_regs_mem: y = a*x + b over 64 Mi floats, one element per thread. A cold
//                 branch (never taken: flag = 0) keeps 96 values live, so ptxas allocates R registers with
//                 85 <= R <= 128 for the whole kernel (the program checks this range and fails outside
//                 it): R rounds up to a multiple of 8, and 65536 / (R x 256) < 3 -> 2 blocks = 16 warps
//                 = 25 %. No spill, no stack frame: the hot path has no local traffic.
//                 FIXED: the cold branch moved out of the kernel (to a kernel of its own, not launched
//                 here) -> about 16 registers -> 8 blocks (thread limit) = 64 warps = 100 %.
//   regs_compute  kernel occ_regs_compute: same register story; the hot path is 4 independent FMA
//                 chains of 2048 steps per thread: compute-bound, 4 warps x 4 chains per scheduler keep
//                 the FMA pipe busy at 25 %.
//   smem_mem      kernel occ_smem_mem: the y = a*x + b stream, each block also using dynamic shared
//                 memory. Defect: 100 KB per block: (100 + 1 reserved) KB x 2 <= 228 KB < 3 x 101 KB
//                 -> 2 blocks = 25 %. FIXED: 4 KB per block -> 8 blocks (thread limit) = 100 %.
//   smem_compute  kernel occ_smem_compute: the FMA chains with the same shared-memory sizes.
// Findings:
//   regs_mem defect: must occupancy-registers (warning: memory-bound, far from floor);
//                    may latency-not-hidden, floor-distance.
//   regs_compute defect: must occupancy-registers with severity note (no time lost).
//   smem_mem defect: must occupancy-shared-memory; may latency-not-hidden, floor-distance.
//   smem_compute defect: must occupancy-shared-memory with severity note.
//   fixed twins: none; may floor-distance.
// Key metric: theoretical occupancy sm__maximum_warps_per_active_cycle_pct (Nsight Compute's
//   occupancy calculator; the collector's own calculator must agree): defect 25, fixed 100.
//   Achieved occupancy is at most that (ncu 2026-11-29: 18.9 % for regs_mem, 21.0 % for smem_mem,
//   22-23.5 % for the compute kernels: short blocks lose warps to block turnover).
// Harness: the input is produced on the device (tk_fill); the check is SAMPLED: 4 slices of 2048
// outputs (tk_sample, pinned), every sampled value against the CPU reference.
#include "tk_common.h"

#define MEM_N ((size_t)64 << 20)
#define CHAIN 2048
#define COLD 96

#ifdef FIXED
#define SMEM_BYTES (4 * 1024)
#else
#define SMEM_BYTES (100 * 1024)
#endif

// Register-hungry code that only runs when flag != 0 (never, here): it sets the allocation.
__device__ __forceinline__ float cold_path(const float *__restrict__ in, unsigned i)
{
  float acc[COLD];
#pragma unroll
  for (int j = 0; j < COLD; j++)
    acc[j] = in[(i + j * 977u) & (MEM_N - 1)];
  for (int k = 0; k < 64; k++) {
#pragma unroll
    for (int j = 0; j < COLD; j++)
      acc[j] = acc[j] * acc[(j + 1) % COLD] + 1.0f;
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < COLD; j++)
    s += acc[j];
  return s;
}

__device__ __forceinline__ float chains(float x)
{
  float a = x, b = x + 1.f, c = x + 2.f, d = x + 3.f;
  for (int k = 0; k < CHAIN; k++) {
    a = a * 0.999f + 0.001f;
    b = b * 0.999f + 0.001f;
    c = c * 0.999f + 0.001f;
    d = d * 0.999f + 0.001f;
  }
  return a + b + c + d;
}

#ifdef FIXED
// The rare work in a kernel of its own: it no longer sets the hot kernels' register allocation.
__global__ void occ_cold(float *__restrict__ out, const float *__restrict__ in)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] += cold_path(in, i);
}
#define COLD_CALL(in, i) 0.0f
#else
#define COLD_CALL(in, i) cold_path(in, i)
#endif

__global__ void occ_regs_mem(float *__restrict__ out, const float *__restrict__ in, int flag)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float y = in[i] * 2.0f + 1.0f;
  if (flag)
    y += COLD_CALL(in, i);
  out[i] = y;
}

__global__ void occ_regs_compute(float *__restrict__ out, const float *__restrict__ in, int flag)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float y = chains(in[i]);
  if (flag)
    y += COLD_CALL(in, i);
  out[i] = y;
}

__global__ void __launch_bounds__(256, 8) occ_smem_mem(float *__restrict__ out, const float *__restrict__ in)
{
  extern __shared__ float s[];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = s[threadIdx.x ^ 1] * 2.0f + 1.0f;
}

__global__ void __launch_bounds__(256, 8) occ_smem_compute(float *__restrict__ out, const float *__restrict__ in)
{
  extern __shared__ float s[];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = chains(s[threadIdx.x ^ 1]);
}

static float cpu_chains(float x)
{
  float a = x, b = x + 1.f, c = x + 2.f, d = x + 3.f;
  for (int k = 0; k < CHAIN; k++) {
    a = a * 0.999f + 0.001f;
    b = b * 0.999f + 0.001f;
    c = c * 0.999f + 0.001f;
    d = d * 0.999f + 0.001f;
  }
  return a + b + c + d;
}

static int reps(void)
{
  const char *r = getenv("TK_REPS");
  return r ? atoi(r) : 10;
}

static void run(const char *kase)
{
  cudaDeviceProp p = tk_device();
  bool compute = strstr(kase, "compute") != NULL, smem = !strncmp(kase, "smem", 4);
  size_t n = compute ? (size_t)p.multiProcessorCount * 16 * 256 : MEM_N;
  unsigned blocks = (unsigned)(n / 256);
  float *in, *out;
  CK(cudaMalloc(&in, MEM_N * 4));
  CK(cudaMalloc(&out, n * 4));
  tk_fill_dev(in, MEM_N);
  CK(cudaMemset(out, 0xff, n * 4));
  if (smem) {
    CK(cudaFuncSetAttribute(occ_smem_mem, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    CK(cudaFuncSetAttribute(occ_smem_compute, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  }
  const char *kname = smem ? (compute ? "occ_smem_compute" : "occ_smem_mem")
                           : (compute ? "occ_regs_compute" : "occ_regs_mem");
  int flag = getenv("TK_NEVER_SET") ? 1 : 0; // 0: the compiler cannot prove it
  auto go = [&] {
    if (smem && compute)
      occ_smem_compute<<<blocks, 256, SMEM_BYTES>>>(out, in);
    else if (smem)
      occ_smem_mem<<<blocks, 256, SMEM_BYTES>>>(out, in);
    else if (compute)
      occ_regs_compute<<<blocks, 256>>>(out, in, flag);
    else
      occ_regs_mem<<<blocks, 256>>>(out, in, flag);
  };
  float ms = 0;
  if (reps() <= 0) {
    go();
    CKL();
  } else {
    ms = tk_time(reps(), go);
  }
  tk_sample(out, n, [&](size_t i, float got) {
    float x = (smem) ? tk_val(i ^ 1) : tk_val(i);
    if (compute) {
      float want = cpu_chains(x);
      if (fabsf(got - want) > 1e-4f * fabsf(want))
        tk_fail(kname, (long long)i, got, want);
    } else if (got != x * 2.0f + 1.0f) {
      tk_fail(kname, (long long)i, got, x * 2.0f + 1.0f);
    }
  });
  int regs = 0;
  cudaFuncAttributes fa;
  if (smem)
    CK(cudaFuncGetAttributes(&fa, compute ? (const void *)occ_smem_compute : (const void *)occ_smem_mem));
  else
    CK(cudaFuncGetAttributes(&fa, compute ? (const void *)occ_regs_compute : (const void *)occ_regs_mem));
  regs = fa.numRegs;
#ifndef FIXED
  if (!smem && (regs < 85 || regs > 128)) {
    fprintf(stderr, "FAIL %s: %d registers, outside 85..128: the 25 %% claim does not hold\n", kname, regs);
    exit(1);
  }
#endif
  if (!smem && fa.localSizeBytes != 0) {
    fprintf(stderr, "FAIL %s: %zu bytes of local memory per thread, expected none\n", kname, fa.localSizeBytes);
    exit(1);
  }
  int nb = 0;
  if (smem)
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, compute ? (const void *)occ_smem_compute : (const void *)occ_smem_mem, 256, SMEM_BYTES));
  else
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, compute ? (const void *)occ_regs_compute : (const void *)occ_regs_mem, 256, 0));
  printf("%s %s %s: %d registers, %d blocks/SM, theoretical occupancy %d %%\n", TK_VARIANT, kase, kname,
         regs, nb, nb * 8 * 100 / (p.maxThreadsPerMultiProcessor / 32));
  if (ms > 0)
    tk_report(kase, kname, ms, compute ? 0 : 8.0 * n);
  CK(cudaFree(in));
  CK(cudaFree(out));
}

int main(int argc, char **argv)
{
  const char *cases = "regs_mem regs_compute smem_mem smem_compute";
  if (argc < 2)
    tk_usage(argv[0], cases);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "regs_mem") && strcmp(argv[i], "regs_compute") && strcmp(argv[i], "smem_mem") &&
        strcmp(argv[i], "smem_compute"))
      tk_usage(argv[0], cases);
    run(argv[i]);
  }
  return 0;
}
