// SPDX-License-Identifier: MIT
// async: a copy staged through shared memory with cp.async (LDGSTS), the path Hopper library kernels
// use (with TMA) and that the LSU global-load counters do not see (rule 9's caveat).
// Built twice: tk_async (cp.async, LDGSTS.128) and tk_async_fixed (-DFIXED: plain LDG.128 + STS.128).
// Neither is a defect. First claim: the LSU global-load counters miss LDGSTS. Nsight Compute
// contradicted it (2026-11-29): l1tex__t_requests_pipe_lsu_mem_global_op_ld counts one request per
// LDGSTS warp instruction, as for LDG.128; the instruction counters tell them apart.
// Case (argv): copy -- kernel staged_copy: out = 2 * in over 64 Mi floats; each block of 256 threads
//   stages 1024 floats (16 B per thread) in shared memory, waits, then writes them out.
// Findings: none in either build (negative: uncoalesced-global-load must not be judged from the LSU
//   slice when LDGSTS carries the loads); may floor-distance.
// Key metric: LDGSTS warp instructions smsp__inst_executed_op_ldgsts.sum = 64 Mi / 4 / 32 = 524 288
//   and no LDG (smsp__inst_executed_op_global_ld.sum = 0) in the cp.async build; fixed: global load
//   requests l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum = 524 288 and no LDGSTS.
// Harness: the input is produced on the device (tk_fill); the check is SAMPLED: 4 slices of 2048
// outputs (tk_sample, pinned) against the CPU reference.
#include "tk_common.h"
#include <cuda_pipeline.h>

#define N ((size_t)64 << 20)

__global__ void staged_copy(float *__restrict__ out, const float *__restrict__ in)
{
  __shared__ float4 t[256];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const float4 *src = reinterpret_cast<const float4 *>(in) + i;
#ifdef FIXED
  t[threadIdx.x] = *src;
#else
  __pipeline_memcpy_async(&t[threadIdx.x], src, sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
#endif
  __syncthreads();
  float4 v = t[(threadIdx.x + 32) & 255];
  v.x *= 2.f;
  v.y *= 2.f;
  v.z *= 2.f;
  v.w *= 2.f;
  size_t o = blockIdx.x * (size_t)blockDim.x + ((threadIdx.x + 32) & 255);
  reinterpret_cast<float4 *>(out)[o] = v;
}

int main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "copy"))
    tk_usage(argv[0], "copy");
  float *in, *out;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, N * 4));
  tk_fill_dev(in, N);
  CK(cudaMemset(out, 0xff, N * 4));
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 10;
  auto go = [&] { staged_copy<<<(unsigned)(N / 4 / 256), 256>>>(out, in); };
  float ms = 0;
  if (reps <= 0) {
    go();
    CKL();
  } else {
    ms = tk_time(reps, go);
  }
  tk_sample(out, N, [&](size_t i, float v) {
    if (v != 2.0f * tk_val(i))
      tk_fail("staged_copy", (long long)i, v, 2.0f * tk_val(i));
  });
  if (ms > 0)
    tk_report("copy", "staged_copy", ms, 8.0 * N);
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
}
