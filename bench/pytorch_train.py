#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The committed PyTorch training benchmark: a small but real training loop.

A convolutional stem (conv + batch norm + GELU + pooling, cuDNN) feeds a
transformer block (layer norm, multi-head attention with softmax, MLP;
cuBLAS GEMMs) and a classifier; AdamW updates the weights. Data is random
(fixed seed), so the run needs no data set and is the same every time:
same shapes, same kernels, the same launch count for a given --steps.

Every step is wrapped in NVTX ranges (torch.cuda.nvtx): "step" containing
"forward", "backward" and "optimizer", so gpuhier's --nvtx-include and the
launches' NVTX paths can be checked on it.

It prints, on stdout, one line of key=value pairs at the end:
  steps, warmup, batch, loss (after the last step), train_s (wall time of
  the timed steps, synchronized), step_ms (mean), total_s (whole process
  until then, imports included).
Used by bench/overhead_trace.sh (trace-mode overhead) and the agreement
scripts. Exits 77 printing "skipped: ..." without torch or a GPU.

Usage: pytorch_train.py [--steps N] [--warmup N] [--batch N] [--amp|--no-amp]
"""
import argparse
import sys
import time

T0 = time.perf_counter()

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("skipped: no torch", file=sys.stderr)
    sys.exit(77)


class Block(nn.Module):
    """Pre-norm transformer block: attention (softmax) + MLP."""

    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        # need_weights=False lets PyTorch pick its fused attention kernels;
        # the explicit softmax below keeps a plain softmax kernel in the mix.
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        return x + self.mlp(self.norm2(x))


class Net(nn.Module):
    def __init__(self, channels=64, dim=256, heads=8, classes=100):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.GELU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.GELU(),
            nn.MaxPool2d(2),
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.BatchNorm2d(2 * channels), nn.GELU(),
            nn.MaxPool2d(2),
        )
        self.proj = nn.Conv2d(2 * channels, dim, 1)
        self.blocks = nn.Sequential(Block(dim, heads), Block(dim, heads))
        self.norm = nn.LayerNorm(dim)
        self.gate = nn.Linear(dim, 1)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.proj(self.stem(x))                  # B, dim, H/4, W/4
        x = x.flatten(2).transpose(1, 2)             # B, tokens, dim
        x = self.norm(self.blocks(x))
        w = torch.softmax(self.gate(x), dim=1)       # attention pooling over tokens
        return self.head((w * x).sum(dim=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300, help="timed training steps (default 300)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed steps first (default 10)")
    ap.add_argument("--batch", type=int, default=64, help="images per step (default 64)")
    ap.add_argument("--size", type=int, default=64, help="image side in pixels (default 64)")
    ap.add_argument("--amp", dest="amp", action="store_true", default=True,
                    help="bfloat16 autocast (default)")
    ap.add_argument("--no-amp", dest="amp", action="store_false", help="float32 throughout")
    ap.add_argument("--torch-profiler", action="store_true",
                    help="run the whole script under torch.profiler with CUDA activities only "
                         "(PyTorch's own CUPTI tracer, Kineto): the reference for tracing overhead")
    args = ap.parse_args()

    if not torch.cuda.is_available():
        print("skipped: no GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 77
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    # Deterministic kernels: the same launches every run, so runs compare.
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    dev = torch.device("cuda")

    model = Net().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    gen = torch.Generator(device=dev)
    gen.manual_seed(0)
    # A few fixed batches, cycled: random data, made once (no host-side cost per step).
    batches = [(torch.randn(args.batch, 3, args.size, args.size, device=dev, generator=gen),
                torch.randint(0, 100, (args.batch,), device=dev, generator=gen)) for _ in range(4)]

    def step(i):
        x, y = batches[i % len(batches)]
        torch.cuda.nvtx.range_push("step")
        torch.cuda.nvtx.range_push("forward")
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp):
            loss = F.cross_entropy(model(x), y)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("backward")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("optimizer")
        opt.step()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
        return loss

    prof = None
    if args.torch_profiler:
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
        prof.__enter__()
    for i in range(args.warmup):
        step(i)
    torch.cuda.synchronize()
    t = time.perf_counter()
    loss = None
    for i in range(args.steps):
        loss = step(args.warmup + i)
    torch.cuda.synchronize()
    train_s = time.perf_counter() - t
    if prof is not None:
        prof.__exit__(None, None, None)
        n = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        print(f"torch.profiler: {n} CUDA events", file=sys.stderr, flush=True)
    print(f"steps={args.steps} warmup={args.warmup} batch={args.batch} loss={loss.item():.6f} "
          f"train_s={train_s:.4f} step_ms={1e3 * train_s / max(args.steps, 1):.3f} "
          f"total_s={time.perf_counter() - T0:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
