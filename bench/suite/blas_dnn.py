# SPDX-License-Identifier: MIT
"""bench/suite/blas_dnn.py: the suite's cuBLAS and cuDNN workload, through PyTorch.

A bf16 matrix product 4096 x 4096 x 4096 (cuBLAS, on Hopper an nvjet or CUTLASS
kernel) and a bf16 3 x 3 convolution, 32 x 256 x 56 x 56 images and 256 filters,
NCHW as a new user writes it (cuDNN, with its layout kernels). Each runs REPS
times after one warm-up; random data with a fixed seed. Prints the rates.
"""
# suite: class=cuBLAS native=60 gpuhier=90 ncu=120
# suite-ncu: --kernel-name-base demangled --kernel-name regex:nvjet|gemm|cublas|cutlass|cudnn|xmma|conv2d|[Cc]onvolution|fprop|[Nn]chw|[Nn]hwc --filter-mode per-launch-config --launch-count 1
import sys
import time

import torch
import torch.nn.functional as F

REPS = 20


def timed(fn):
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(REPS):
        out = fn()
    b.record()
    torch.cuda.synchronize()
    return out, a.elapsed_time(b) / REPS


def main():
    t0 = time.time()
    dev = torch.device("cuda")
    torch.manual_seed(0)
    n = 4096
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    c, ms_mm = timed(lambda: a @ b)
    x = torch.randn(32, 256, 56, 56, device=dev, dtype=torch.bfloat16)
    w = torch.randn(256, 256, 3, 3, device=dev, dtype=torch.bfloat16) * 0.05
    y, ms_conv = timed(lambda: F.conv2d(x, w, padding=1))
    flop_mm = 2 * n ** 3
    flop_conv = 2 * 32 * 256 * 256 * 9 * 56 * 56
    print("blas_dnn ok: gemm %.3f ms (%.0f TFLOP/s), conv %.3f ms (%.0f TFLOP/s), %.1f s in all (checksum %.3f)" % (
        ms_mm, flop_mm / ms_mm / 1e9, ms_conv, flop_conv / ms_conv / 1e9, time.time() - t0,
        float(c[0, 0]) + float(y[0, 0, 0, 0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
