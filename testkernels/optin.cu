// SPDX-License-Identifier: MIT
// optin: a launch asking for more than 48 KB of dynamic shared memory (H §4.3, "un piège classique";
// rule 5; HOPPER.md).
// Built twice: tk_optin (defect) and tk_optin_fixed (-DFIXED); same kernel name.
// Case (argv): big -- kernel smem_big reverses 16 Ki floats per block through 64 KiB of dynamic shared
//   memory (grid = SMs x 2 blocks of 256 threads).
//   Defect: launches without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize): the
//   launch must fail with cudaErrorInvalidValue. The program checks exactly that: it exits 0 when the
//   launch failed that way (the trap, reproduced), 1 if the launch succeeded or failed otherwise.
//   FIXED: raises the limit to 64 KiB first; the launch runs and its result is checked.
// Findings: defect: must smem-optin-48k (a failed launch, from the launch callback's return value).
//   fixed: none; may occupancy-shared-memory (64 KiB + 1 KiB per block: 3 blocks = 24 warps = 37.5 %),
//   floor-distance.
// Key metric: defect: launches that fail with cudaErrorInvalidValue = 1 (launch callback; Nsight
//   Compute profiles nothing); fixed: dynamic shared memory per block
//   launch__shared_mem_per_block_dynamic = 65 536 B.
// Harness (FIXED): the launch is repeated TK_REPS times (default 10; 0: the one launch), timed, as in
// the other programs, so the run's kernel time is measured; the input is produced on the device
// (tk_fill); the check is SAMPLED: 4 slices of 2048 outputs (tk_sample, pinned).
#include "tk_common.h"

#define SMEM (64 * 1024)
#define PER_BLOCK (SMEM / 4)

__global__ void smem_big(float *__restrict__ out, const float *__restrict__ in)
{
  extern __shared__ float s[];
  const float *src = in + (size_t)blockIdx.x * PER_BLOCK;
  for (unsigned j = threadIdx.x; j < PER_BLOCK; j += blockDim.x)
    s[j] = src[j];
  __syncthreads();
  for (unsigned j = threadIdx.x; j < PER_BLOCK; j += blockDim.x)
    out[(size_t)blockIdx.x * PER_BLOCK + j] = s[PER_BLOCK - 1 - j];
}

int main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "big"))
    tk_usage(argv[0], "big");
  cudaDeviceProp p = tk_device();
  unsigned blocks = (unsigned)p.multiProcessorCount * 2;
  size_t n = (size_t)blocks * PER_BLOCK;
  float *in, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  tk_fill_dev(in, n);
  CK(cudaMemset(out, 0xff, n * 4));
#ifdef FIXED
  CK(cudaFuncSetAttribute(smem_big, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
#endif
  smem_big<<<blocks, 256, SMEM>>>(out, in);
  cudaError_t e = cudaGetLastError();
#ifndef FIXED
  CK(cudaDeviceSynchronize());
  if (e == cudaErrorInvalidValue) {
    printf("defect big smem_big: launch with %d B of dynamic shared memory failed as expected: %s\n", SMEM,
           cudaGetErrorString(e));
    return 0;
  }
  fprintf(stderr, "FAIL smem_big: expected cudaErrorInvalidValue, got %s\n", cudaGetErrorString(e));
  return 1;
#else
  if (e != cudaSuccess) {
    fprintf(stderr, "FAIL smem_big: launch failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  CK(cudaDeviceSynchronize());
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 10;
  float ms = 0;
  if (reps > 0)
    ms = tk_time(reps, [&] { smem_big<<<blocks, 256, SMEM>>>(out, in); });
  tk_sample(out, n, [&](size_t i, float v) {
    size_t b = i / PER_BLOCK, j = i % PER_BLOCK;
    float want = tk_val(b * PER_BLOCK + PER_BLOCK - 1 - j);
    if (v != want)
      tk_fail("smem_big", (long long)i, v, want);
  });
  printf("fixed big smem_big: ok with %d B of dynamic shared memory\n", SMEM);
  if (ms > 0)
    tk_report("big", "smem_big", ms, 8.0 * n);
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
#endif
}
