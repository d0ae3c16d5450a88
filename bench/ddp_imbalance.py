# SPDX-License-Identifier: MIT
"""A small DDP training loop with a chosen straggler, for bench/merge_gpu.sh.

Every rank trains the same MLP on random data and all-reduces its
gradients (DistributedDataParallel); the rank given by --slow-rank also
runs --extra matrix products per step before its backward pass, so the
others wait for it in each all-reduce. Run it under torchrun:

    torchrun --standalone --nproc-per-node 2 bench/ddp_imbalance.py --backend nccl

--backend nccl needs one GPU per rank; gloo shares one GPU between the
ranks (its all-reduce runs on the CPU, so no rank waits on the GPU).
Prints one line per rank: rank, backend, steps, seconds.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--extra", type=int, default=8, help="extra 2048x2048 products per step on the slow rank")
    a = ap.parse_args()
    rank = int(os.environ["RANK"])
    local = int(os.environ.get("LOCAL_RANK", "0"))
    ngpu = torch.cuda.device_count()
    dev = torch.device("cuda", local % ngpu)
    torch.cuda.set_device(dev)
    dist.init_process_group(a.backend)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 1024)).to(dev)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index])
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device=dev)
    w = torch.randn(2048, 2048, device=dev)
    torch.cuda.synchronize()
    t0 = time.time()
    for _ in range(a.steps):
        loss = ddp(x).square().mean()
        if rank == a.slow_rank:
            y = w
            for _ in range(a.extra):
                y = torch.tanh(y @ w)
            loss = loss + 0 * y.mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print("rank %d backend %s steps %d seconds %.3f" % (rank, a.backend, a.steps, time.time() - t0),
          flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
