# SPDX-License-Identifier: MIT
"""bench/suite/torch_library.py: library and framework kernels no rule was tuned on.

The suite's other PyTorch workloads run a model; this one calls, one after
another, operations whose kernels no gpuhier rule was written or tuned
against, the way a user's script calls them (random data, fixed seed, each
REPS times after one warm-up):

  fp32 GEMM 4096^3 with TF32 off     cuBLAS on the FMA pipe: compute-bound, not memory
  bf16 GEMM with K = 4095            an odd leading dimension (no 16-byte rows)
  fp16 batched GEMM 512 x (128x64 @ 64x128)
  bf16 matrix-vector 16384 x 8192    memory-bound by nature: at its floor or near it
  fp16 attention, forward and backward   F.scaled_dot_product_attention (flash kernels)
  bf16 3x3 convolution, channels_last    cuDNN without layout kernels
  fp16 depthwise 3x3 convolution         groups = channels
  embedding backward                 sort-based gradient of nn.Embedding (CUB, PyTorch)
  scatter_add into 64 bins           16 M atomics on 64 addresses: contention, a real defect
  transposed copy 8192^2 fp32        x.t().contiguous(): strided on one side, a real defect
  sort, cumsum, topk                 CUB's radix sort and scan, PyTorch's top-k
  softmax and layer norm             PyTorch's row kernels, 4096 x 32000 fp16 and 16384 x 4096 bf16

Not in the suite's default list: SUITE_WORKLOADS=torch_library runs it
(docs/suite.md "Library kernels no rule was tuned on"). What gpuhier should
make of each is written there: no warning or error on a library kernel that
ncu's full set does not support (target a), atomic-contention on the
scatter, an uncoalesced finding on the transposed copy, no error elsewhere.
Prints one line per operation with its time.
"""
# suite: class=PyTorch native=90 gpuhier=150 ncu=200
# suite-ncu: --kernel-name-base demangled --kernel-name regex:nvjet|gemm|gemv|cublas|cutlass|cudnn|xmma|conv|flash|fmha|attention|embedding|scatter|index|sort|radix|scan|[Ss]oft[Mm]ax|norm|copy|topk|gather --filter-mode per-launch-config --launch-count 1
import sys
import time

import torch
import torch.nn.functional as F

REPS = 5


def timed(name, fn, out):
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(REPS):
        r = fn()
    b.record()
    torch.cuda.synchronize()
    ms = a.elapsed_time(b) / REPS
    out.append((name, ms))
    return r


def main():
    t0 = time.time()
    dev = torch.device("cuda")
    torch.manual_seed(0)
    out = []
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    n = 4096
    a32 = torch.randn(n, n, device=dev)
    b32 = torch.randn(n, n, device=dev)
    timed("fp32 gemm 4096^3 (no TF32)", lambda: a32 @ b32, out)
    del a32, b32

    ak = torch.randn(n, n - 1, device=dev, dtype=torch.bfloat16)
    bk = torch.randn(n - 1, n, device=dev, dtype=torch.bfloat16)
    timed("bf16 gemm K=4095", lambda: ak @ bk, out)
    del ak, bk

    ab = torch.randn(512, 128, 64, device=dev, dtype=torch.float16)
    bb = torch.randn(512, 64, 128, device=dev, dtype=torch.float16)
    timed("fp16 bmm 512 x 128x64x128", lambda: torch.bmm(ab, bb), out)

    m = torch.randn(16384, 8192, device=dev, dtype=torch.bfloat16)
    v = torch.randn(8192, device=dev, dtype=torch.bfloat16)
    timed("bf16 gemv 16384x8192", lambda: m @ v, out)
    del m, v

    q, k, vv = (torch.randn(8, 16, 1024, 64, device=dev, dtype=torch.float16, requires_grad=True) for _ in range(3))
    go = torch.randn(8, 16, 1024, 64, device=dev, dtype=torch.float16)

    def attention():
        o = F.scaled_dot_product_attention(q, k, vv, is_causal=True)
        o.backward(go)
        return o

    timed("fp16 sdpa fwd+bwd 8x16x1024x64", attention, out)

    x = torch.randn(32, 128, 56, 56, device=dev, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = (torch.randn(128, 128, 3, 3, device=dev, dtype=torch.bfloat16) * 0.05).to(memory_format=torch.channels_last)
    timed("bf16 conv 3x3 channels_last", lambda: F.conv2d(x, w, padding=1), out)

    xd = torch.randn(32, 256, 56, 56, device=dev, dtype=torch.float16)
    wd = torch.randn(256, 1, 3, 3, device=dev, dtype=torch.float16) * 0.1
    timed("fp16 depthwise conv 3x3", lambda: F.conv2d(xd, wd, padding=1, groups=256), out)
    del x, w, xd, wd

    emb = torch.nn.Embedding(50000, 512, device=dev)
    idx = torch.randint(0, 2000, (16, 512), device=dev)  # many repeated rows

    def embedding_backward():
        emb.weight.grad = None
        r = emb(idx)
        r.sum().backward()
        return r

    timed("embedding backward 16x512 of 50000x512", embedding_backward, out)

    src = torch.randn(1 << 24, device=dev)
    bins = torch.randint(0, 64, (1 << 24,), device=dev)
    acc = torch.zeros(64, device=dev)
    timed("scatter_add 16M into 64 bins", lambda: acc.scatter_add_(0, bins, src), out)

    t = torch.randn(8192, 8192, device=dev)
    timed("transposed copy 8192^2 fp32", lambda: t.t().contiguous(), out)
    del t

    timed("sort 16M fp32", lambda: torch.sort(src)[0], out)
    timed("cumsum 16M fp32", lambda: torch.cumsum(src, 0), out)
    timed("topk 1024 of 16M", lambda: torch.topk(src, 1024)[0], out)
    del src, bins

    logits = torch.randn(4096, 32000, device=dev, dtype=torch.float16)
    timed("softmax 4096x32000 fp16", lambda: torch.softmax(logits, -1), out)
    del logits
    h = torch.randn(16384, 4096, device=dev, dtype=torch.bfloat16)
    ln = torch.nn.LayerNorm(4096, device=dev, dtype=torch.bfloat16)
    timed("layer norm 16384x4096 bf16", lambda: ln(h), out)

    torch.cuda.synchronize()
    for name, ms in out:
        print("  %-40s %8.3f ms" % (name, ms))
    print("torch_library ok: %d operations, %.1f s in all (checksum %.3f)" % (len(out), time.time() - t0,
                                                                              float(acc.sum())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
