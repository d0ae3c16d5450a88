// SPDX-License-Identifier: MIT
// bank: shared-memory bank conflicts (H §4.3 "Les bancs", G §4.5, J "SMEM"; rule 3).
// Built twice: tk_bank (defect) and tk_bank_fixed (-DFIXED); same kernel names.
// 32 banks of 4 bytes: word w lives in bank w mod 32.
// Cases (argv, several allowed); every kernel loops 256 times over its shared-memory pattern so the
// shared traffic dominates; grid = SMs x 8 blocks of 256 threads:
//   column   kernel bank_column: __shared__ float m[32][32], each warp reads a column m[lane][k]
//            (word 32*lane + k: bank k for all lanes -> 32-way). FIXED: m[32][33] (word 33*lane + k:
//            bank (lane + k) mod 32, all distinct).
//   way=N    kernel bank_nway: lane reads word lane*N (N = 2, 4, 8, 16, 32): bank (lane*N) mod 32 is shared
//            by N lanes at N different addresses -> N-way. FIXED: word lane*N + lane*N/32 (one pad word
//            every 32) -> 32 distinct banks.
//   vec128   kernel smem_vec128: each lane reads one float4 (16 B) at float4 index lane: 512 B per warp
//            = 4 wavefronts of 128 B, without any conflict (negative in both builds).
// Findings:
//   column, way=N defects: must shared-bank-conflicts.  fixed twins: none.  vec128: none (negative:
//   4 wavefronts per request is the ideal for 128-bit accesses, not a conflict).
// Key metric: shared-load wavefronts per shared-load instruction =
//   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / smsp__inst_executed_op_shared_ld.sum
//   column: 32 (fixed 1); way=N: N (fixed 1); vec128: 4 (bank conflicts
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum = 0).
// Harness: the input is produced on the device (tk_fill; the CPU reference recomputes it with
// tk_val); the check is SAMPLED: 4 slices of 2048 outputs (8 blocks each; tk_sample, pinned).
#include "tk_common.h"

#define LOOPS 256

__global__ void bank_column(float *__restrict__ out, const float *__restrict__ in)
{
#ifdef FIXED
  __shared__ float m[32][33];
#else
  __shared__ float m[32][32];
#endif
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  size_t base = (size_t)blockIdx.x * 1024;
  // 256 threads fill the 32 x 32 tile row by row (conflict-free stores).
  for (unsigned r = warp; r < 32; r += 8)
    m[r][lane] = in[base + r * 32 + lane];
  __syncthreads();
  float s = 0;
  for (int it = 0; it < LOOPS; it++) {
    unsigned k = (warp + (unsigned)it) & 31;
    s += m[lane][k];
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void bank_nway(float *__restrict__ out, const float *__restrict__ in, int n)
{
  __shared__ float s[32 * 33 + 64];
  for (unsigned w = threadIdx.x; w < 32 * 33 + 64; w += blockDim.x)
    s[w] = in[(size_t)blockIdx.x * 1024 + (w & 1023)];
  __syncthreads();
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#ifdef FIXED
  unsigned word = lane * n + (lane * n) / 32;
#else
  unsigned word = lane * n;
#endif
  float acc = 0;
  for (int it = 0; it < LOOPS; it++) {
    // Offset by a warp-uniform amount each iteration: the bank pattern is unchanged.
    unsigned off = ((warp + (unsigned)it) & 1) * 32;
    acc += s[word + off];
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void smem_vec128(float *__restrict__ out, const float *__restrict__ in)
{
  __shared__ float4 v[64];
  if (threadIdx.x < 64) {
    const float *src = in + (size_t)blockIdx.x * 1024 + threadIdx.x * 4;
    v[threadIdx.x] = make_float4(src[0], src[1], src[2], src[3]);
  }
  __syncthreads();
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float acc = 0;
  for (int it = 0; it < LOOPS; it++) {
    float4 x = v[lane + (((warp + (unsigned)it) & 1) * 32)];
    acc += x.x + x.y + x.z + x.w;
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static int reps(void)
{
  const char *r = getenv("TK_REPS");
  return r ? atoi(r) : 10;
}

int main(int argc, char **argv)
{
  const char *cases = "column way=2|4|8|16|32 vec128";
  if (argc < 2)
    tk_usage(argv[0], cases);
  cudaDeviceProp p = tk_device();
  unsigned blocks = (unsigned)p.multiProcessorCount * 8;
  size_t nin = (size_t)blocks * 1024, nout = (size_t)blocks * 256;
  float *in, *out;
  CK(cudaMalloc(&in, nin * 4));
  CK(cudaMalloc(&out, nout * 4));
  tk_fill_dev(in, nin);
  for (int a = 1; a < argc; a++) {
    const char *c = argv[a];
    int nway = 0;
    const char *k;
    if (!strcmp(c, "column")) {
      k = "bank_column";
    } else if (!strncmp(c, "way=", 4)) {
      nway = atoi(c + 4);
      if (nway != 2 && nway != 4 && nway != 8 && nway != 16 && nway != 32)
        tk_usage(argv[0], cases);
      k = "bank_nway";
    } else if (!strcmp(c, "vec128")) {
      k = "smem_vec128";
    } else {
      tk_usage(argv[0], cases);
      return 2;
    }
    CK(cudaMemset(out, 0xff, nout * 4));
    auto go = [&] {
      if (k[5] == 'c')
        bank_column<<<blocks, 256>>>(out, in);
      else if (k[5] == 'n')
        bank_nway<<<blocks, 256>>>(out, in, nway);
      else
        smem_vec128<<<blocks, 256>>>(out, in);
    };
    float ms = 0;
    if (reps() <= 0) {
      go();
      CKL();
    } else {
      ms = tk_time(reps(), go);
    }
    tk_sample(out, nout, [&](size_t t, float got) {
      size_t b = t / 256;
      unsigned tid = (unsigned)(t % 256), lane = tid & 31, warp = tid >> 5;
      auto blk = [&](size_t j) { return tk_val(b * 1024 + j); }; // the block's input in[b * 1024 + j]
      float want = 0;
      for (int it = 0; it < LOOPS; it++) {
        unsigned sel = (warp + (unsigned)it) & 1;
        if (k[5] == 'c') {
          unsigned kk = (warp + (unsigned)it) & 31;
          want += blk(lane * 32 + kk);
        } else if (k[5] == 'n') {
#ifdef FIXED
          unsigned word = lane * nway + (lane * nway) / 32;
#else
          unsigned word = lane * nway;
#endif
          want += blk((word + sel * 32) & 1023);
        } else {
          size_t x = (lane + sel * 32) * 4;
          want += blk(x) + blk(x + 1) + blk(x + 2) + blk(x + 3);
        }
      }
      if (fabsf(got - want) > 1e-5f * fabsf(want))
        tk_fail(k, (long long)t, got, want);
    });
    if (ms > 0)
      tk_report(c, k, ms, 0);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
}
