// SPDX-License-Identifier: MIT
// constant: constant memory read at one vs many addresses per warp (G §4.3: the cost grows linearly
// with the number of distinct addresses; rule 18).
// Built twice: tk_const (defect) and tk_const_fixed (-DFIXED); same kernel name.
// Case (argv): read -- kernel const_read: each thread accumulates 256 coefficients from a 1024-float
//   __constant__ table (grid = SMs x 8 blocks of 256 threads).
//   Defect: coefficient c[(lane * 32 + k) mod 1024]: 32 lanes, 32 different addresses per LDC.
//   FIXED: coefficient c[(warp * 32 + k) mod 1024]: one address per warp (a broadcast).
//   The index is a run-time value in both, so both compile to LDC.
// Findings: defect: must constant-divergent.  fixed: none.
// Key metric: constant-cache requests per LDC instruction, idc__requests.sum /
//   smsp__inst_executed_op_ldc.sum: defect 32 (one request per distinct address), fixed 1.
// Harness: the table goes to constant memory from a pinned buffer (4 KiB), the input is produced on
// the device (tk_fill); the check is SAMPLED: 4 slices of 2048 outputs (tk_sample, pinned).
#include "tk_common.h"

#define CN 1024
#define TERMS 256
#ifdef FIXED
#define TK_FIXED 1
#else
#define TK_FIXED 0
#endif

__constant__ float c[CN];

__global__ void const_read(float *__restrict__ out, const float *__restrict__ in)
{
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned base = (TK_FIXED ? warp : lane) * 32;
  float x = in[t], acc = 0;
#pragma unroll 1
  for (unsigned k = 0; k < TERMS; k++)
    acc += c[(base + k) & (CN - 1)] * x;
  out[t] = acc;
}

int main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "read"))
    tk_usage(argv[0], "read");
  float *hc;
  CK(cudaMallocHost((void **)&hc, CN * sizeof(float)));
  for (int i = 0; i < CN; i++)
    hc[i] = 1.0f / (1.0f + (float)i);
  CK(cudaMemcpyToSymbol(c, hc, CN * sizeof(float)));
  cudaDeviceProp p = tk_device();
  unsigned blocks = (unsigned)p.multiProcessorCount * 8;
  size_t n = (size_t)blocks * 256;
  float *in, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  tk_fill_dev(in, n);
  CK(cudaMemset(out, 0xff, n * 4));
  const char *r = getenv("TK_REPS");
  int reps = r ? atoi(r) : 10;
  auto go = [&] { const_read<<<blocks, 256>>>(out, in); };
  float ms = 0;
  if (reps <= 0) {
    go();
    CKL();
  } else {
    ms = tk_time(reps, go);
  }
  tk_sample(out, n, [&](size_t t, float got) {
    unsigned tid = (unsigned)(t % 256), lane = tid & 31, warp = tid >> 5;
    unsigned base = (TK_FIXED ? warp : lane) * 32;
    float x = tk_val(t), want = 0;
    for (unsigned k = 0; k < TERMS; k++)
      want += hc[(base + k) & (CN - 1)] * x;
    if (fabsf(got - want) > 1e-5f * fabsf(want))
      tk_fail("const_read", (long long)t, got, want);
  });
  CK(cudaFreeHost(hc));
  if (ms > 0)
    tk_report("read", "const_read", ms, 0);
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
}
