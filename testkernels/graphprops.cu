// SPDX-License-Identifier: MIT
// graphprops: which kernel property breaks CUPTI's SASS-metric patching of graph kernel nodes
// (docs/sassprobe.md "Graph properties"). Not a manifest case. With SASS metrics enabled across a
// graph's instantiation, a graph holding one of cuBLAS's Hopper GEMMs (nvjet_sm90_..., sm90_xmma_...)
// dies with CUDA_ERROR_ILLEGAL_INSTRUCTION at its first launch; simple kernels, Triton's and cuBLAS's
// sm80 CUTLASS kernels do not. Each variant below isolates one property of those Hopper kernels, in
// a kernel that does real work through it, so a patched kernel that runs but computes wrongly is
// caught too.
// usage: tk_graphprops VARIANT MODE [LAUNCHES]  (tk_graphprops list: the variants, one per line)
//   MODE stream  the variant's kernel(s) launched LAUNCHES times on a non-blocking stream;
//   MODE graph   one stream execution of them captured (cudaStreamCaptureModeGlobal) into a graph,
//                instantiated once (cudaGraphInstantiate), launched LAUNCHES times (default 3).
// Variants (in[i] = i % 1000; N = 1 Mi floats, 256 threads per block, even grids):
//   plain         gp_plain: out[i] = in[i] + 1, the control;
//   cluster       gp_cluster: compile-time cluster of 2 (__cluster_dims__), one cluster.sync();
//                 out[i] = in[i] + 1;
//   cluster_attr  gp_cluster_attr: an ordinary kernel launched with cudaLaunchKernelEx and the
//                 cluster dimension attribute {2, 1, 1}, one cluster.sync(); out[i] = in[i] + 1;
//   dsmem         gp_dsmem: cluster of 2, distributed shared memory: each block stages its tile
//                 of in in shared memory and reads its neighbour's (map_shared_rank(.., rank ^ 1));
//                 out[i] = in[i ^ 256] + 1;
//   pdl           gp_pdl_producer then gp_pdl_consumer, programmatic dependent launch (the consumer
//                 launched with programmatic stream serialization, a programmatic edge in a graph):
//                 tmp[i] = in[i] + 1 before the trigger, out[i] = tmp[i] * 2 after
//                 cudaGridDependencySynchronize();
//   bulk          gp_bulk: 1-D TMA bulk copy without a tensor map (cp.async.bulk into shared memory,
//                 completion on an mbarrier), 4096-byte tile per block; out[i] = in[i] + 1;
//   tensormap     gp_tensormap: 2-D TMA through a CUtensorMap __grid_constant__ parameter
//                 (cp.async.bulk.tensor) over a 1024 x 1024 matrix, one 32 x 32 tile per block;
//                 out[i] = in[i] + 1;
//   gridconst     gp_gridconst: a 128-byte, 64-byte aligned __grid_constant__ struct parameter (a
//                 tensor map's size and CUDA 12's CUtensorMap alignment; CUDA 13's is 128, as
//                 gp_tensormap's parameter has), not a tensor map, read through its generic address;
//                 out[i] = in[i] + blob.v[i % 32], blob.v[k] = k + 1;
//   bigparam      gp_bigparam: a 4000-byte struct by value (4024 bytes of parameters);
//                 out[i] = in[i] + p.v[i % 1000], p.v[k] = 1000 - k;
//   bigsmem       gp_bigsmem: 160 KB (163840 bytes) of dynamic shared memory, above the 48 KB
//                 default (cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) before
//                 any launch or capture); each block fills all of it from its tile of in and reads it
//                 all back from the far end; out[i] = in[i] + 1;
//   bigsmem_tma   gp_bigsmem_tma: gp_tensormap's 2-D TMA copy into the top of 160 KB of dynamic
//                 shared memory (the same opt-in): the tile ends at the allocation's last byte, its
//                 mbarrier just below; out[i] = in[i] + 1;
//   maxnreg       gp_maxnreg: warp-specialized, 384 threads, __launch_bounds__(384, 1) (168 registers
//                 at entry): warpgroup 0 setmaxnreg.dec to 40 and stages in in shared memory,
//                 warpgroups 1-2 setmaxnreg.inc to 232 and keep 192 words each in registers;
//                 out[i] = in[i] + 1 + an 8-bit digest of them (mr_mix). Needs the sm_90a build
//                 (CMakeLists.txt compiles tk_graphprops for 90a-real only); other builds exit 2;
//   wgmma         gp_wgmma: one warpgroup (128 threads), one wgmma.mma_async m64n8k16 f16 x f16 ->
//                 f32 per block, A from registers, B from shared memory through a matrix descriptor
//                 (no swizzle), wgmma.fence / commit_group / wait_group 0; out[b * 512 + m * 8 + n]
//                 = sum_k in[(b * 1024 + m * 16 + k) % N] * B[k][n], B[k][n] = (3k + 5n) % 7 - 3
//                 (wg_b); sm_90a only, as maxnreg.
// Every output element is checked against the CPU after the launches (out is computed from in, so
// the same for any LAUNCHES). Prints "graphprops VARIANT MODE launches N ok" on success; exit 1 on a
// wrong value, 2 on a CUDA error or a usage error. Needs compute capability 9.0 (the build: sm_90a).
#include "tk_common.h"
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cudaTypedefs.h>
#include <cstdint>

namespace cg = cooperative_groups;

static const size_t N = (size_t)1 << 20;
static const unsigned THREADS = 256;
static const unsigned BLOCKS = (unsigned)(N / THREADS); // 4096, even: clusters of 2
static const unsigned BULK_FLOATS = 1024;                // bulk: a 4096-byte tile per block
static const unsigned MAT = 1024, BOX = 32;             // tensormap: MAT x MAT floats, BOX x BOX tiles
static const unsigned BIG = 1000;                        // bigparam: floats in the by-value struct
static const unsigned BIG_SMEM = 163840;                 // bigsmem, bigsmem_tma: 160 KB of dynamic shared memory
static const unsigned BIG_ROWS = BIG_SMEM / (THREADS * sizeof(float)); // bigsmem: 160 rows of THREADS floats
static const unsigned MR_THREADS = 384;                  // maxnreg: 3 warpgroups, producer + 2 consumers
static const unsigned MR_TILE = 256;                     // maxnreg: floats per block, one per consumer thread
static const unsigned MR_LIVE = 192;                     // maxnreg: values each consumer keeps in registers
static const unsigned MR_ROUNDS = 2;                     // maxnreg: mixing rounds over them
static const unsigned MR_DEC = 40, MR_INC = 232;          // maxnreg: 168 x 384 = 40 x 128 + 232 x 256
static const unsigned WG_M = 64, WG_N = 8, WG_K = 16;    // wgmma: one m64n8k16 product per block
static const unsigned WG_THREADS = 128;                  // wgmma: one warpgroup

struct alignas(64) Blob {
  float v[32];
};
static_assert(sizeof(Blob) == sizeof(CUtensorMap), "Blob: a tensor map's size");

struct Big {
  float v[BIG];
};
static_assert(sizeof(Big) == 4000, "Big: 4000 bytes");

// ---- kernels --------------------------------------------------------------------------------

__global__ void gp_plain(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1.0f;
}

__global__ void __cluster_dims__(2, 1, 1) gp_cluster(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  cg::this_cluster().sync();
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1.0f;
}

// Launched with the cluster dimension attribute (launch_cluster_attr).
__global__ void gp_cluster_attr(float *__restrict__ out, const float *__restrict__ in, size_t n)
{
  cg::this_cluster().sync();
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1.0f;
}

// Block b (cluster rank b % 2) writes block b ^ 1's tile of in, + 1: out[i] = in[i ^ 256] + 1.
__global__ void __cluster_dims__(2, 1, 1) gp_dsmem(float *__restrict__ out, const float *__restrict__ in)
{
  __shared__ float tile[THREADS];
  cg::cluster_group cluster = cg::this_cluster();
  size_t base = blockIdx.x * (size_t)THREADS;
  tile[threadIdx.x] = in[base + threadIdx.x];
  cluster.sync();
  const float *peer = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
  float v = peer[threadIdx.x];
  cluster.sync(); // the neighbour's shared memory must outlive our read
  out[base + threadIdx.x] = v + 1.0f;
}

__global__ void gp_pdl_producer(float *__restrict__ tmp, const float *__restrict__ in, size_t n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = in[i] + 1.0f;
  cudaTriggerProgrammaticLaunchCompletion(); // after the store: the consumer may read tmp
}

__global__ void gp_pdl_consumer(float *__restrict__ out, const float *tmp, size_t n)
{
  cudaGridDependencySynchronize();
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tmp[i] * 2.0f;
}

// mbarrier helpers (inline PTX, 32-bit shared addresses) for bulk and tensormap: one arrival (thread
// 0, with the expected byte count), completion by the copy's complete_tx.
__device__ static inline void mbar_init(uint32_t bar, uint32_t count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
  // Make the initialised barrier visible to the async proxy (the TMA unit).
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ static inline void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ static inline bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
  uint32_t done;
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t"
               "}"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}

__device__ static inline void mbar_wait(uint32_t bar, uint32_t parity)
{
  while (!mbar_try_wait(bar, parity)) {
  }
}

// 1-D bulk copy of BULK_FLOATS floats (4096 bytes) per block, no tensor map.
__global__ void gp_bulk(float *__restrict__ out, const float *__restrict__ in)
{
  __shared__ alignas(128) float tile[BULK_FLOATS];
  __shared__ alignas(8) uint64_t mbar;
  const uint32_t bytes = BULK_FLOATS * sizeof(float);
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(&mbar);
  uint32_t dst = (uint32_t)__cvta_generic_to_shared(tile);
  size_t base = blockIdx.x * (size_t)BULK_FLOATS;
  if (threadIdx.x == 0)
    mbar_init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(bar, bytes);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(in + base), "r"(bytes), "r"(bar)
                 : "memory");
  }
  mbar_wait(bar, 0);
  for (unsigned k = threadIdx.x; k < BULK_FLOATS; k += blockDim.x)
    out[base + k] = tile[k] + 1.0f;
}

// Block (bx, by): the BOX x BOX tile at column bx * BOX, row by * BOX, loaded by one 2-D tensor copy
// through tm (the __grid_constant__ parameter's own address) into shared memory at dst (tile, its
// generic address), its mbarrier at bar; then out = tile + 1 in the same place.
__device__ __forceinline__ void tma_tile_plus_one(float *__restrict__ out, const CUtensorMap *tm,
                                                  uint32_t dst, uint32_t bar, const float *tile)
{
  const uint32_t bytes = BOX * BOX * sizeof(float);
  int x = (int)(blockIdx.x * BOX), y = (int)(blockIdx.y * BOX);
  if (threadIdx.x == 0)
    mbar_init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(bar, bytes);
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];" ::"r"(dst),
                 "l"((uint64_t)tm), "r"(x), "r"(y), "r"(bar)
                 : "memory");
  }
  mbar_wait(bar, 0);
  for (unsigned k = threadIdx.x; k < BOX * BOX; k += blockDim.x)
    out[(size_t)(y + k / BOX) * MAT + x + k % BOX] = tile[k] + 1.0f;
}

// 2-D tensor copy into a static shared tile.
__global__ void gp_tensormap(float *__restrict__ out, const __grid_constant__ CUtensorMap tm)
{
  __shared__ alignas(128) float tile[BOX * BOX];
  __shared__ alignas(8) uint64_t mbar;
  tma_tile_plus_one(out, &tm, (uint32_t)__cvta_generic_to_shared(tile),
                    (uint32_t)__cvta_generic_to_shared(&mbar), tile);
}

// Reads blob through its generic address (cvta.param, as a tensor map's address is taken for TMA),
// not through the constant bank: the empty asm hides where the pointer came from, so the compiler
// cannot turn the load back into a parameter load (and no call is added, unlike a noinline helper).
__global__ void gp_gridconst(float *__restrict__ out, const float *__restrict__ in, size_t n,
                             const __grid_constant__ Blob blob)
{
  const float *v = blob.v;
  asm("" : "+l"(v));
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + v[i % 32];
}

__global__ void gp_bigparam(float *__restrict__ out, const float *__restrict__ in, size_t n, Big p)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + p.v[i % BIG];
}

// 160 KB of dynamic shared memory (opt-in): BIG_ROWS rows of THREADS floats, row r of column c
// holding in[base + c] + r; each thread then checks, from the allocation's last element down, every
// row of the column mirrored to its own (written by another thread), so all 160 KB are read back.
// out[i] = in[i] + 1, NaN where any row was wrong.
__global__ void gp_bigsmem(float *__restrict__ out, const float *__restrict__ in)
{
  extern __shared__ float bsm[]; // BIG_SMEM bytes
  const unsigned floats = BIG_SMEM / sizeof(float);
  size_t base = blockIdx.x * (size_t)THREADS;
  float v = in[base + threadIdx.x];
  for (unsigned r = 0; r < BIG_ROWS; r++)
    bsm[r * THREADS + threadIdx.x] = v + (float)r;
  __syncthreads();
  unsigned col = THREADS - 1 - threadIdx.x;
  float first = bsm[floats - 1 - threadIdx.x] - (float)(BIG_ROWS - 1); // the last row
  bool same = true;
  for (unsigned k = threadIdx.x; k < floats; k += THREADS) {
    unsigned idx = floats - 1 - k; // row idx / THREADS, column col
    same = same && bsm[idx] - (float)(idx / THREADS) == first;
  }
  out[base + col] = same ? first + 1.0f : __int_as_float(0x7fffffff);
}

// gp_tensormap's 2-D TMA copy, but into the top of 160 KB of dynamic shared memory (opt-in): the
// BOX x BOX tile ends at the allocation's last byte, its mbarrier just below it.
__global__ void gp_bigsmem_tma(float *__restrict__ out, const __grid_constant__ CUtensorMap tm)
{
  extern __shared__ __align__(128) unsigned char tsm[]; // BIG_SMEM bytes
  const uint32_t bytes = BOX * BOX * sizeof(float);
  uint32_t base = (uint32_t)__cvta_generic_to_shared(tsm);
  uint32_t dst = (base + BIG_SMEM - bytes) & ~127u; // 128-byte aligned for the tensor copy
  tma_tile_plus_one(out, &tm, dst, dst - 8, (const float *)(tsm + (dst - base)));
}

// maxnreg's register-heavy work, the same on the host: MR_ROUNDS rounds over MR_LIVE words (the
// bits of tile values); each round folds all of them into s, then updates each with s, so all
// MR_LIVE stay live in registers across the fold. The result is an 8-bit digest.
__host__ __device__ static inline uint32_t mr_mix(uint32_t (&a)[MR_LIVE])
{
#pragma unroll
  for (unsigned r = 0; r < MR_ROUNDS; r++) {
    uint32_t s = r;
#pragma unroll
    for (unsigned j = 0; j < MR_LIVE; j++)
      s = (s ^ a[j]) * 0x01000193u;
#pragma unroll
    for (unsigned j = 0; j < MR_LIVE; j++)
      a[j] = (a[j] ^ ((s << (j % 31 + 1)) | (s >> (31 - j % 31)))) * 0x9E3779B1u + j;
  }
  uint32_t h = 0;
#pragma unroll
  for (unsigned j = 0; j < MR_LIVE; j++)
    h = (h ^ a[j]) * 0x01000193u;
  return (h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & 0xffu;
}

// 1 if the device code was compiled for sm_90a (setmaxnreg in gp_maxnreg, wgmma in gp_wgmma), else 0.
__device__ int gp_sm90a_built =
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    1;
#else
    0;
#endif

// Warp-specialized, cuBLAS/CUTLASS-style register reallocation: warpgroup 0 (producer) gives
// registers back (setmaxnreg.dec to MR_DEC) and stages the block's MR_TILE floats of in in shared
// memory; warpgroups 1 and 2 (consumers) take them (setmaxnreg.inc to MR_INC), then each keeps
// MR_LIVE tile values in registers through mr_mix: out[i] = in[i] + 1 + mr_mix(a), a[j] = bits of
// in[base + (t + j) % 256] + j (j < 192), t = i % 256, base = i - t. 168 registers at entry
// (__launch_bounds__(384, 1)), and 168 x 384 = 40 x 128 + 232 x 256: the consumers' increase is met
// by the producer's release. As in CUTLASS, the two roles never rejoin: they meet at named barrier 1
// (bar.sync 1, 384) from their own branches, so ptxas allocates each branch under its own limit; the
// consumers' 192 live words need more than the 168 registers of the entry (ptxas -v: no spill for
// sm_90a, where the branch has 232; without setmaxnreg, for sm_90, the same code spills).
static_assert(MR_DEC % 8 == 0 && MR_INC % 8 == 0 && MR_DEC >= 24 && MR_INC <= 256, "setmaxnreg counts");
static_assert(MR_DEC <= 168 && MR_INC >= 168 && MR_DEC * 128 + MR_INC * 256 <= 168 * MR_THREADS,
              "maxnreg: the register pool of 168 x 384 covers the reallocation");
__global__ void __launch_bounds__(MR_THREADS, 1) gp_maxnreg(float *__restrict__ out, const float *__restrict__ in)
{
  __shared__ float tile[MR_TILE];
  // The warpgroup, warp-uniform for the compiler (setmaxnreg is .aligned: whole warpgroups).
  unsigned wg = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0);
  size_t base = blockIdx.x * (size_t)MR_TILE;
  if (wg == 0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(MR_DEC));
#endif
    for (unsigned k = threadIdx.x; k < MR_TILE; k += 128)
      tile[k] = in[base + k];
    asm volatile("bar.sync 1, %0;" ::"n"(MR_THREADS) : "memory"); // tile written
  } else {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(MR_INC));
#endif
    asm volatile("bar.sync 1, %0;" ::"n"(MR_THREADS) : "memory"); // tile written
    unsigned t = threadIdx.x - 128;
    uint32_t a[MR_LIVE];
#pragma unroll
    for (unsigned j = 0; j < MR_LIVE; j++)
      a[j] = __float_as_uint(tile[(t + j) % MR_TILE]) + j;
    uint32_t m = mr_mix(a);
    out[base + t] = tile[t] + 1.0f + (float)m;
  }
}

// wgmma's B (WG_K x WG_N), the same on the host: small integers, so every product and sum is exact.
__host__ __device__ static inline float wg_b(unsigned k, unsigned n) { return (float)((k * 3 + n * 5) % 7) - 3.0f; }

// One warpgroup, one wgmma.mma_async m64n8k16 (f16 x f16 -> f32) per block: A (64 x 16) from
// registers, A[m][k] = in[(b * 1024 + m * 16 + k) % N] (integers <= 999, exact in f16), B (16 x 8,
// wg_b) from shared memory through a matrix descriptor (no swizzle, K-major: two 8 x 8 core
// matrices of 8 rows of 16 bytes, n the row, the second (k 8..15) 128 bytes after the first; LBO and
// SBO both 128, as the one core matrix along N leaves SBO unused either way). Fragments per thread
// (warp w, lane l; r = 16w + l / 4, c = 2 (l % 4)): A {(r, c..c+1), (r+8, c..c+1), (r, c+8..c+9),
// (r+8, c+8..c+9)}, D {(r, c), (r, c+1), (r+8, c), (r+8, c+1)} (CUTLASS's ALayout_64x16 and
// CLayout_64x8). out[b * 512 + m * 8 + n] = sum_k A[m][k] * B[k][n].
__global__ void __launch_bounds__(WG_THREADS) gp_wgmma(float *__restrict__ out, const float *__restrict__ in)
{
  __shared__ alignas(128) __half bs[WG_K * WG_N];
  unsigned tid = threadIdx.x;
  size_t abase = blockIdx.x * (size_t)(WG_M * WG_K);
  for (unsigned e = tid; e < WG_K * WG_N; e += WG_THREADS) {
    unsigned kc = e / 64, n = e / 8 % 8, k8 = e % 8; // e: byte offset / 2 = kc * 64 + n * 8 + k8
    bs[e] = __float2half(wg_b(kc * 8 + k8, n));
  }
  // The generic-proxy stores must be visible to wgmma's (async proxy) reads of bs.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  unsigned w = tid / 32, l = tid % 32, r = 16 * w + l / 4, c = 2 * (l % 4);
  auto a_at = [&](unsigned m, unsigned k) { return __float2half(in[(abase + m * WG_K + k) % N]); };
  auto pack = [&](unsigned m, unsigned k) {
    __half2 h = __halves2half2(a_at(m, k), a_at(m, k + 1)); // k in the low half
    return *reinterpret_cast<uint32_t *>(&h);
  };
  uint32_t a0 = pack(r, c), a1 = pack(r + 8, c), a2 = pack(r, c + 8), a3 = pack(r + 8, c + 8);
  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
  uint32_t baddr = (uint32_t)__cvta_generic_to_shared(bs);
  uint64_t desc = (uint64_t)((baddr >> 4) & 0x3fff) // start address, bits 0-13
                  | (uint64_t)(128 >> 4) << 16       // leading byte offset, bits 16-29
                  | (uint64_t)(128 >> 4) << 32;      // stride byte offset, bits 32-45; swizzle (62-63) none
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, 1, 1, 1, 0;"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc)
               : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#else
  // Not sm_90a (setup_sm90a refuses the variant): NaN, which fails the check.
  d0 = d1 = d2 = d3 = __int_as_float(0x7fffffff) + (float)(a0 ^ a1 ^ a2 ^ a3 ^ (uint32_t)desc);
#endif
  float *o = out + blockIdx.x * (size_t)(WG_M * WG_N);
  o[r * WG_N + c] = d0;
  o[r * WG_N + c + 1] = d1;
  o[(r + 8) * WG_N + c] = d2;
  o[(r + 8) * WG_N + c + 1] = d3;
}

// ---- host -----------------------------------------------------------------------------------

struct Ctx {
  std::vector<float> h; // the input, in[i] = i % 1000
  float *in = nullptr, *out = nullptr, *tmp = nullptr;
  CUtensorMap tm;
  Blob blob;
  Big big;
};

static void launch_plain(Ctx &c, cudaStream_t s) { gp_plain<<<BLOCKS, THREADS, 0, s>>>(c.out, c.in, N); }

static void launch_cluster(Ctx &c, cudaStream_t s) { gp_cluster<<<BLOCKS, THREADS, 0, s>>>(c.out, c.in, N); }

// kernel(out, in, N) on BLOCKS x THREADS with one launch attribute (cudaLaunchKernelEx).
static void launch_with(cudaLaunchAttribute attr, cudaStream_t s,
                        void (*kernel)(float *, const float *, size_t), float *out, const float *in)
{
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(BLOCKS);
  cfg.blockDim = dim3(THREADS);
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, kernel, out, in, N));
}

static void launch_cluster_attr(Ctx &c, cudaStream_t s)
{
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  launch_with(attr, s, gp_cluster_attr, c.out, c.in);
}

static void launch_dsmem(Ctx &c, cudaStream_t s) { gp_dsmem<<<BLOCKS, THREADS, 0, s>>>(c.out, c.in); }

static void launch_pdl(Ctx &c, cudaStream_t s)
{
  gp_pdl_producer<<<BLOCKS, THREADS, 0, s>>>(c.tmp, c.in, N);
  CK(cudaGetLastError());
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  launch_with(attr, s, gp_pdl_consumer, c.out, c.tmp);
}

static void launch_bulk(Ctx &c, cudaStream_t s)
{
  gp_bulk<<<(unsigned)(N / BULK_FLOATS), THREADS, 0, s>>>(c.out, c.in);
}

static void launch_tensormap(Ctx &c, cudaStream_t s)
{
  gp_tensormap<<<dim3(MAT / BOX, MAT / BOX), THREADS, 0, s>>>(c.out, c.tm);
}

static void launch_gridconst(Ctx &c, cudaStream_t s)
{
  gp_gridconst<<<BLOCKS, THREADS, 0, s>>>(c.out, c.in, N, c.blob);
}

static void launch_bigparam(Ctx &c, cudaStream_t s) { gp_bigparam<<<BLOCKS, THREADS, 0, s>>>(c.out, c.in, N, c.big); }

static void launch_bigsmem(Ctx &c, cudaStream_t s) { gp_bigsmem<<<BLOCKS, THREADS, BIG_SMEM, s>>>(c.out, c.in); }

static void launch_bigsmem_tma(Ctx &c, cudaStream_t s)
{
  gp_bigsmem_tma<<<dim3(MAT / BOX, MAT / BOX), THREADS, BIG_SMEM, s>>>(c.out, c.tm);
}

static void launch_wgmma(Ctx &c, cudaStream_t s)
{
  gp_wgmma<<<(unsigned)(N / (WG_M * WG_N)), WG_THREADS, 0, s>>>(c.out, c.in);
}

static void launch_maxnreg(Ctx &c, cudaStream_t s)
{
  gp_maxnreg<<<(unsigned)(N / MR_TILE), MR_THREADS, 0, s>>>(c.out, c.in);
}

// The tensor map over in as a MAT x MAT row-major float matrix, BOX x BOX boxes, encoded through
// the driver entry point the runtime hands out (no link against libcuda).
static void setup_tensormap(Ctx &c)
{
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
    fprintf(stderr, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled, 12000): %s, query result %d\n",
            cudaGetErrorString(e), (int)q);
    exit(2);
  }
  PFN_cuTensorMapEncodeTiled_v12000 encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
  const cuuint64_t dims[2] = {MAT, MAT};               // innermost first: columns, rows
  const cuuint64_t strides[1] = {MAT * sizeof(float)}; // bytes between rows
  const cuuint32_t box[2] = {BOX, BOX};
  const cuuint32_t estrides[2] = {1, 1};
  CUresult r = encode(&c.tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, c.in, dims, strides, box, estrides,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled failed: CUresult %d\n", (int)r);
    exit(2);
  }
}

static void setup_gridconst(Ctx &c)
{
  for (unsigned k = 0; k < 32; k++)
    c.blob.v[k] = (float)(k + 1);
}

static void setup_bigparam(Ctx &c)
{
  for (unsigned k = 0; k < BIG; k++)
    c.big.v[k] = (float)(BIG - k);
}

// The opt-in for more than 48 KB of dynamic shared memory, before any launch or capture.
static void setup_bigsmem(Ctx &)
{
  CK(cudaFuncSetAttribute(gp_bigsmem, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BIG_SMEM));
}

static void setup_bigsmem_tma(Ctx &c)
{
  setup_tensormap(c);
  CK(cudaFuncSetAttribute(gp_bigsmem_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BIG_SMEM));
}

// maxnreg and wgmma: the device code must be sm_90a's.
static void setup_sm90a(Ctx &)
{
  int built = 0;
  CK(cudaMemcpyFromSymbol(&built, gp_sm90a_built, sizeof(built)));
  if (!built) {
    fprintf(stderr, "tk_graphprops: this variant needs sm_90a (setmaxnreg, wgmma); this build's device code is "
                    "not for it\n");
    exit(2);
  }
}

static float want_plus1(const Ctx &c, size_t i) { return c.h[i] + 1.0f; }
static float want_dsmem(const Ctx &c, size_t i) { return c.h[i ^ THREADS] + 1.0f; }
static float want_pdl(const Ctx &c, size_t i) { return (c.h[i] + 1.0f) * 2.0f; }
static float want_gridconst(const Ctx &c, size_t i) { return c.h[i] + c.blob.v[i % 32]; }
static float want_bigparam(const Ctx &c, size_t i) { return c.h[i] + c.big.v[i % BIG]; }
static float want_wgmma(const Ctx &c, size_t i)
{
  size_t b = i / (WG_M * WG_N);
  unsigned m = (unsigned)(i % (WG_M * WG_N) / WG_N), n = (unsigned)(i % WG_N);
  float sum = 0.0f;
  for (unsigned k = 0; k < WG_K; k++)
    sum += c.h[(b * WG_M * WG_K + m * WG_K + k) % N] * wg_b(k, n);
  return sum;
}
static float want_maxnreg(const Ctx &c, size_t i)
{
  size_t base = i - i % MR_TILE;
  unsigned t = (unsigned)(i % MR_TILE);
  uint32_t a[MR_LIVE];
  for (unsigned j = 0; j < MR_LIVE; j++) {
    memcpy(&a[j], &c.h[base + (t + j) % MR_TILE], sizeof(uint32_t));
    a[j] += j;
  }
  return c.h[i] + 1.0f + (float)mr_mix(a); // about 1.4 s for the 1 Mi elements at -O2
}

struct Variant {
  const char *name;
  const char *kernel; // for the failure message
  void (*setup)(Ctx &);
  void (*launch)(Ctx &, cudaStream_t);
  float (*want)(const Ctx &, size_t);
};

static const Variant VARIANTS[] = {
    {"plain", "gp_plain", nullptr, launch_plain, want_plus1},
    {"cluster", "gp_cluster", nullptr, launch_cluster, want_plus1},
    {"cluster_attr", "gp_cluster_attr", nullptr, launch_cluster_attr, want_plus1},
    {"dsmem", "gp_dsmem", nullptr, launch_dsmem, want_dsmem},
    {"pdl", "gp_pdl_consumer(gp_pdl_producer)", nullptr, launch_pdl, want_pdl},
    {"bulk", "gp_bulk", nullptr, launch_bulk, want_plus1},
    {"tensormap", "gp_tensormap", setup_tensormap, launch_tensormap, want_plus1},
    {"gridconst", "gp_gridconst", setup_gridconst, launch_gridconst, want_gridconst},
    {"bigparam", "gp_bigparam", setup_bigparam, launch_bigparam, want_bigparam},
    {"bigsmem", "gp_bigsmem", setup_bigsmem, launch_bigsmem, want_plus1},
    {"bigsmem_tma", "gp_bigsmem_tma", setup_bigsmem_tma, launch_bigsmem_tma, want_plus1},
    {"maxnreg", "gp_maxnreg", setup_sm90a, launch_maxnreg, want_maxnreg},
    {"wgmma", "gp_wgmma", setup_sm90a, launch_wgmma, want_wgmma},
};
static const size_t NVARIANTS = sizeof(VARIANTS) / sizeof(VARIANTS[0]);

static void usage(void)
{
  fprintf(stderr, "usage: tk_graphprops VARIANT MODE [LAUNCHES]   (or: tk_graphprops list)\nvariants:");
  for (size_t v = 0; v < NVARIANTS; v++)
    fprintf(stderr, " %s", VARIANTS[v].name);
  fprintf(stderr, "\nmodes: stream (LAUNCHES stream launches), graph (one captured execution, instantiated "
                  "once, launched LAUNCHES times); LAUNCHES >= 1, default 3\n");
  exit(2);
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "list")) {
    for (size_t v = 0; v < NVARIANTS; v++)
      printf("%s\n", VARIANTS[v].name);
    return 0;
  }
  if (argc < 3 || argc > 4)
    usage();
  const Variant *var = nullptr;
  for (size_t v = 0; v < NVARIANTS; v++)
    if (!strcmp(argv[1], VARIANTS[v].name))
      var = &VARIANTS[v];
  const char *mode = argv[2];
  bool graph = !strcmp(mode, "graph");
  int launches = argc > 3 ? atoi(argv[3]) : 3;
  if (!var || (!graph && strcmp(mode, "stream")) || launches < 1)
    usage();

  cudaDeviceProp p = tk_device();
  if (p.major < 9) {
    fprintf(stderr, "tk_graphprops: needs compute capability 9.0, device 0 is %d.%d\n", p.major, p.minor);
    return 2;
  }
  Ctx c;
  c.h.resize(N);
  for (size_t i = 0; i < N; i++)
    c.h[i] = (float)(i % 1000);
  CK(cudaMalloc(&c.in, N * sizeof(float)));
  CK(cudaMalloc(&c.out, N * sizeof(float)));
  CK(cudaMalloc(&c.tmp, N * sizeof(float)));
  CK(cudaMemcpy(c.in, c.h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(c.out, 0xff, N * sizeof(float))); // NaN: an element never written fails the check
  CK(cudaMemset(c.tmp, 0xff, N * sizeof(float)));
  if (var->setup)
    var->setup(c);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    var->launch(c, s);
    CK(cudaGetLastError());
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int k = 0; k < launches; k++)
      CK(cudaGraphLaunch(exec, s));
  } else {
    for (int k = 0; k < launches; k++) {
      var->launch(c, s);
      CK(cudaGetLastError());
    }
  }
  CK(cudaStreamSynchronize(s));
  CK(cudaGetLastError());

  std::vector<float> got(N);
  CK(cudaMemcpy(got.data(), c.out, N * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < N; i++) {
    float want = var->want(c, i);
    if (got[i] != want)
      tk_fail(var->kernel, (long long)i, got[i], want);
  }

  if (graph) {
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
  }
  CK(cudaStreamDestroy(s));
  CK(cudaFree(c.in));
  CK(cudaFree(c.out));
  CK(cudaFree(c.tmp));
  printf("graphprops %s %s launches %d ok\n", var->name, mode, launches);
  return 0;
}
