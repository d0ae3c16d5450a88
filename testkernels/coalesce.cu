// SPDX-License-Identifier: MIT
// coalesce: global-memory access patterns (H §4.5 "La règle de coalescence", J "Memory coalescing").
// Built twice: tk_coalesce (defect) and tk_coalesce_fixed (-DFIXED); same kernel names.
// Cases (argv, several allowed), N = 16 Mi output floats (64 MB, > L2) unless said otherwise:
//   stride=S  kernel copy_strided: out[i] = in[i*S] (S = 1, 2, 4, 8, 32). FIXED: the data laid out
//             contiguously (out[i] = in[i]) -- the remedy "reorganise the layout".
//   gather    kernel gather: out[i] = in[perm[i]], perm[i] = (i * 2654435761) mod N, a permutation
//             (odd multiplier, N a power of two) that sends the 32 lanes of a warp >= 32 KB apart.
//             FIXED: out[i] = in[i] (data pre-permuted once, on the device by tk_fill).
//   vec       kernel copy_vec: a plain copy of N floats. Defect: one float per thread (LDG.32);
//             FIXED: one float4 per thread (LDG.128), the same bytes (H §4.5 "Les accès vectorisés").
// Findings:
//   stride=1: none (negative). stride=2,4: must uncoalesced-global-load; may floor-distance.
//   stride=8,32: must uncoalesced-global-load, floor-distance (>= 4.5x: 36 B moved per 8 useful B).
//   gather: must uncoalesced-global-load; may floor-distance.   fixed twins: none; may floor-distance.
//   vec defect: must scalar-access (float copy near the memory roof); may floor-distance.
//   vec fixed: none (negative: 16 B per lane, no uncoalescing finding either).
// Key metric: global load sectors per request =
//   l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
//   stride S: min(4*S, 32) (32 lanes x 4 B spread over 128*S bytes, 32 B sectors, at most one per lane)
//   -> 4, 8, 16, 32, 32; ideal 4.  gather: (4 + 32) / 2 = 18 (perm[i] coalesced: 4; in[perm[i]]: 32).
//   fixed: 4 (gather fixed: 4).  vec: 4 for float (ideal 4), 16 for float4 (ideal 512 B / 32 B = 16).
// Harness: inputs (and the permutation) are produced on the device (tk_fill, tk_fill_perm); the
// check is SAMPLED: 4 slices of 2048 outputs (tk_sample, pinned) against the CPU reference.
#include "tk_common.h"

static const size_t N = (size_t)16 << 20;

__global__ void copy_strided(float *__restrict__ out, const float *__restrict__ in, size_t n, int s)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) {
#ifdef FIXED
    (void)s;
    out[i] = in[i];
#else
    out[i] = in[i * s];
#endif
  }
}

__global__ void gather(float *__restrict__ out, const float *__restrict__ in,
                       const unsigned int *__restrict__ perm, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) {
#ifdef FIXED
    (void)perm;
    out[i] = in[i];
#else
    out[i] = in[perm[i]];
#endif
  }
}

__global__ void copy_vec(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
#ifdef FIXED
  if (i < n / 4)
    reinterpret_cast<float4 *>(out)[i] = reinterpret_cast<const float4 *>(in)[i];
#else
  if (i < n)
    out[i] = in[i];
#endif
}

static int reps(void)
{
  const char *r = getenv("TK_REPS");
  return r ? atoi(r) : 10;
}

template <typename F> static float launch(F fn)
{
  int r = reps();
  if (r <= 0) {
    fn();
    CKL();
    return 0;
  }
  return tk_time(r, fn);
}

static void check(const char *what, const float *d, size_t n, float (*want)(size_t))
{
  tk_sample(d, n, [&](size_t i, float v) {
    if (v != want(i))
      tk_fail(what, (long long)i, v, want(i));
  });
}

static size_t g_stride;
static float want_strided(size_t i)
{
#ifdef FIXED
  return tk_val(i + 0 * g_stride);
#else
  return tk_val(i * g_stride);
#endif
}

// A permutation of [0, N) that puts the 32 lanes of a warp 4 KB apart or more.
#define PERM_MUL 2654435761ull // odd multiplier: a bijection mod 2^k
static unsigned int perm_of(size_t i)
{
  return (unsigned int)((i * PERM_MUL) & (N - 1));
}
// Both builds produce out[i] = value of element perm[i]: the fixed build permuted the input once.
static float want_gather(size_t i) { return tk_val(perm_of(i)); }
static float want_copy(size_t i) { return tk_val(i); }

static void run_stride(int s)
{
  float *in, *out;
  size_t in_n = N * (size_t)s;
  CK(cudaMalloc(&in, in_n * 4));
  CK(cudaMalloc(&out, N * 4));
  tk_fill_dev(in, in_n);
  CK(cudaMemset(out, 0xff, N * 4));
  float ms = launch([&] { copy_strided<<<(unsigned)(N / 256), 256>>>(out, in, N, s); });
  g_stride = (size_t)s;
  check("copy_strided", out, N, want_strided);
  char c[32];
  snprintf(c, sizeof c, "stride=%d", s);
  if (ms > 0)
    tk_report(c, "copy_strided", ms, 8.0 * N);
  CK(cudaFree(in));
  CK(cudaFree(out));
}

static void run_gather(void)
{
  float *in, *out;
  unsigned int *perm;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, N * 4));
  CK(cudaMalloc(&perm, N * 4));
  tk_fill_perm_dev(perm, N, PERM_MUL, N - 1); // perm[i] = perm_of(i)
#ifdef FIXED
  tk_fill_dev(in, N, 0, PERM_MUL, N - 1); // in[i] = tk_val(perm_of(i))
#else
  tk_fill_dev(in, N);
#endif
  CK(cudaMemset(out, 0xff, N * 4));
  float ms = launch([&] { gather<<<(unsigned)(N / 256), 256>>>(out, in, perm, N); });
  check("gather", out, N, want_gather);
  if (ms > 0)
    tk_report("gather", "gather", ms, 8.0 * N);
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(perm));
}

static void run_vec(void)
{
  float *in, *out;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, N * 4));
  tk_fill_dev(in, N);
  CK(cudaMemset(out, 0xff, N * 4));
#ifdef FIXED
  unsigned blocks = (unsigned)(N / 4 / 256);
#else
  unsigned blocks = (unsigned)(N / 256);
#endif
  float ms = launch([&] { copy_vec<<<blocks, 256>>>(out, in, N); });
  check("copy_vec", out, N, want_copy);
  if (ms > 0)
    tk_report("vec", "copy_vec", ms, 8.0 * N);
  CK(cudaFree(in));
  CK(cudaFree(out));
}

int main(int argc, char **argv)
{
  const char *cases = "stride=1|2|4|8|32 gather vec";
  if (argc < 2)
    tk_usage(argv[0], cases);
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "stride=", 7)) {
      int s = atoi(argv[i] + 7);
      if (s < 1 || s > 64)
        tk_usage(argv[0], cases);
      run_stride(s);
    } else if (!strcmp(argv[i], "gather")) {
      run_gather();
    } else if (!strcmp(argv[i], "vec")) {
      run_vec();
    } else {
      tk_usage(argv[0], cases);
    }
  }
  return 0;
}
