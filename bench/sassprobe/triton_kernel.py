# SPDX-License-Identifier: MIT
"""bench/sassprobe/triton_kernel.py: the Triton workload of the SASS-metrics probe (issue 17).

Three small Triton kernels (add, strided read, row sum), each launched REPS times.
Prints one line at the end.
"""
import sys
import time

import torch
import triton
import triton.language as tl

REPS = 3


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def stride3_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * 3, mask=mask), mask=mask)


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, ncols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * ncols + cols, mask=cols < ncols, other=0.0)
    tl.store(out_ptr + row, tl.sum(v, axis=0))


def main():
    t0 = time.time()
    n = 1 << 20
    x = torch.randn(3 * n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty(n, device="cuda")
    m = torch.randn(1024, 1024, device="cuda")
    rs = torch.empty(1024, device="cuda")
    grid = (triton.cdiv(n, 1024),)
    for _ in range(REPS):
        add_kernel[grid](x, y, out, n, BLOCK=1024)
        stride3_kernel[grid](x, out, n, BLOCK=1024)
        rowsum_kernel[(1024,)](m, rs, 1024, BLOCK=1024)
    torch.cuda.synchronize()
    print(f"triton_kernel ok: 3 kernels x {REPS} in {time.time() - t0:.2f} s "
          f"(checksum {float(out[0] + rs[0]):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
