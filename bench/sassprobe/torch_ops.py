# SPDX-License-Identifier: MIT
"""bench/sassprobe/torch_ops.py: the PyTorch workload of the SASS-metrics probe (issue 17).

Six distinct kinds of kernel, each run REPS times: elementwise, an x[idx] gather,
matmul (cuBLAS), softmax, conv2d (cuDNN) and layer_norm. Prints one line at the end.
"""
import sys
import time

import torch

REPS = 3


def main():
    t0 = time.time()
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(1 << 20, device=dev)
    idx = torch.randint(0, x.numel(), (1 << 18,), device=dev)
    a = torch.randn(512, 512, device=dev)
    b = torch.randn(512, 512, device=dev)
    s = torch.randn(256, 1024, device=dev)
    img = torch.randn(8, 16, 32, 32, device=dev)
    w = torch.randn(32, 16, 3, 3, device=dev)
    ln = torch.nn.LayerNorm(1024).to(dev)
    total = 0.0
    for _ in range(REPS):
        e = x * 2.0 + 1.0
        g = x[idx]
        m = a @ b
        sm = torch.softmax(s, dim=-1)
        c = torch.nn.functional.conv2d(img, w, padding=1)
        n = ln(s)
        torch.cuda.synchronize()
        total += float(e[0] + g[0] + m[0, 0] + sm[0, 0] + c[0, 0, 0, 0] + n[0, 0])
    print(f"torch_ops ok: 6 ops x {REPS} in {time.time() - t0:.2f} s (checksum {total:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
