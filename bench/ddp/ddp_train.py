#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/ddp/ddp_train.py: a small DistributedDataParallel training loop (issue 22).

Started by torchrun (one process per GPU, NCCL). A two-layer MLP on random
data (fixed seed); every backward all-reduces the gradients through NCCL,
so each step launches NCCL kernels beside the GEMMs. Rank 0 prints one
line at the end: steps, world size, train_s (the timed steps, synchronized),
step_ms. Exits 77 ("skipped: ...") without torch, CUDA or torchrun's variables.
Usage: torchrun --nproc-per-node N ddp_train.py [--steps 300] [--dim 2048]
"""
import argparse
import os
import sys
import time

try:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
except ImportError:
    print("skipped: no torch", file=sys.stderr)
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--dim", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=256)
    a = ap.parse_args()
    if "LOCAL_RANK" not in os.environ or not torch.cuda.is_available():
        print("skipped: not started by torchrun, or no GPU", file=sys.stderr)
        return 77
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    # NCCL's watchdog ends the job when a collective waits past this timeout:
    # a profile that stalls one rank that long would show as a failure here
    dist.init_process_group("nccl", timeout=__import__("datetime").timedelta(seconds=120))
    torch.manual_seed(1234 + dist.get_rank())
    model = torch.nn.Sequential(torch.nn.Linear(a.dim, a.dim), torch.nn.GELU(),
                                torch.nn.Linear(a.dim, a.dim)).cuda()
    model = DDP(model, device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, a.dim, device="cuda")
    y = torch.randn(a.batch, a.dim, device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    dist.barrier()
    if dist.get_rank() == 0:
        print("steps=%d world=%d train_s=%.3f step_ms=%.3f loss=%.4f" % (
            a.steps, dist.get_world_size(), dt, 1e3 * dt / a.steps, loss.item()))
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
