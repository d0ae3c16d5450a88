# SPDX-License-Identifier: MIT
"""bench/suite/torch_compile.py: the suite's torch.compile workload (Inductor's Triton kernels).

Two compiled programs, default mode: a pre-norm MLP block (layer norm, linear,
GELU, linear, residual) trained STEPS AdamW steps, whose layer norms, GELUs and
residual adds and their gradients Inductor fuses into Triton kernels (the GEMMs
stay cuBLAS); and layer norm + GELU alone on a 16384 x 4096 float tensor, a
memory-bound Triton reduction, called REPS times. Random data, fixed seed.
The driver points TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR at one folder,
so the native run compiles and the profiled runs load what it compiled.
Prints one line at the end.
"""
# suite: class=Triton native=150 gpuhier=90 ncu=90
# suite-ncu: --kernel-name-base demangled --kernel-name regex:^triton_ --filter-mode per-launch-config --launch-count 1
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 4
REPS = 5
DIM = 1024
BATCH = 8192


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def ln_gelu(x, w, b):
    return F.gelu(F.layer_norm(x, (x.shape[-1],), w, b))


def main():
    t0 = time.time()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = Block(DIM).to(dev)
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(BATCH, DIM, device=dev)
    target = torch.randn(BATCH, DIM, device=dev)
    for _ in range(STEPS):
        loss = F.mse_loss(cmodel(x), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    f = torch.compile(ln_gelu)
    big = torch.randn(16384, 4096, device=dev)
    w = torch.ones(4096, device=dev)
    b = torch.zeros(4096, device=dev)
    for _ in range(REPS):
        y = f(big, w, b)
    torch.cuda.synchronize()
    print("torch_compile ok: %d training steps (loss %.4f), ln_gelu x %d, %.1f s in all (checksum %.3f)" % (
        STEPS, float(loss), REPS, time.time() - t0, float(y[0, 0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
