// SPDX-License-Identifier: MIT
// reuse: data a block reads many times, from global memory vs staged once in shared memory
// (H §4.7 question 1, H §4.3 "Le motif canonique"; rule 6).
// Built twice: tk_reuse (defect) and tk_reuse_fixed (-DFIXED); same kernel name.
// Case (argv): stencil -- kernel stencil: out[i] = sum_{k=-16..16} w_k in[i+k] over 64 Mi floats
//   (clamped at the ends), blocks of 256 threads.
//   Defect: the 33 taps are 33 global loads per output (L1 catches most, but every warp asks for
//   33 x 128 B). FIXED: the block loads its 256 + 32 inputs into shared memory once (coalesced), then
//   reads the taps from shared memory.
// Findings: defect: must reread-not-staged; may uncoalesced-global-load (taps at offsets not a
//   multiple of 8 floats straddle 5 sectors instead of 4), floor-distance. fixed: none; may floor-distance.
// Key metric: global load requests per warp =
//   l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum / smsp__warps_launched.sum
//   defect: 33 (one request per tap); fixed: 9/8 = 1.125 (8 warps load 256 floats: 8 requests; warp 0
//   loads the 2 x 16 halo floats: 1 request).
// Harness: the input is produced on the device (tk_fill; the CPU reference recomputes it with tk_val),
// the 33 weights go to constant memory from a pinned buffer (132 B); the check is SAMPLED: 4 slices
// of 2048 outputs (tk_sample, pinned; the first and last slices hold both clamped ends).
#include "tk_common.h"

#define N ((size_t)64 << 20)
#define R 16

__constant__ float w[2 * R + 1];

__global__ void stencil(float *__restrict__ out, const float *__restrict__ in)
{
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
#ifdef FIXED
  __shared__ float t[256 + 2 * R];
  t[threadIdx.x + R] = in[i];
  if (threadIdx.x < 2 * R) {
    // lanes 0..15: the left halo, lanes 16..31: the right halo (one request for the warp)
    long long j = threadIdx.x < R ? i - R : i - R + 256;
    j = j < 0 ? 0 : (j >= (long long)N ? (long long)N - 1 : j);
    t[threadIdx.x < R ? threadIdx.x : threadIdx.x + 256] = in[j];
  }
  __syncthreads();
  float s = 0;
#pragma unroll
  for (int k = -R; k <= R; k++)
    s += w[k + R] * t[threadIdx.x + R + k];
#else
  float s = 0;
#pragma unroll
  for (int k = -R; k <= R; k++) {
    long long j = i + k;
    j = j < 0 ? 0 : (j >= (long long)N ? (long long)N - 1 : j);
    s += w[k + R] * in[j];
  }
#endif
  out[i] = s;
}

int main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "stencil"))
    tk_usage(argv[0], "stencil");
  float *hw;
  CK(cudaMallocHost((void **)&hw, (2 * R + 1) * sizeof(float)));
  for (int k = 0; k <= 2 * R; k++)
    hw[k] = 1.0f / (1.0f + (float)(k > R ? k - R : R - k));
  CK(cudaMemcpyToSymbol(w, hw, (2 * R + 1) * sizeof(float)));
  float *in, *out;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, N * 4));
  tk_fill_dev(in, N);
  CK(cudaMemset(out, 0xff, N * 4));
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 10;
  auto go = [&] { stencil<<<(unsigned)(N / 256), 256>>>(out, in); };
  float ms = 0;
  if (reps <= 0) {
    go();
    CKL();
  } else {
    ms = tk_time(reps, go);
  }
  tk_sample(out, N, [&](size_t ui, float got) {
    long long i = (long long)ui;
    float want = 0;
    for (int k = -R; k <= R; k++) {
      long long j = i + k;
      j = j < 0 ? 0 : (j >= (long long)N ? (long long)N - 1 : j);
      want += hw[k + R] * tk_val((size_t)j);
    }
    if (!std::isfinite(got) || fabsf(got - want) > 1e-5f * fabsf(want))
      tk_fail("stencil", i, got, want);
  });
  CK(cudaFreeHost(hw));
  if (ms > 0)
    tk_report("stencil", "stencil", ms, 8.0 * N);
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
}
