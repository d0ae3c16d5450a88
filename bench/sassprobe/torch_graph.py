# SPDX-License-Identifier: MIT
"""bench/sassprobe/torch_graph.py: a PyTorch CUDA graph for the SASS-metrics probe's graph arming.

One graph captured with torch.cuda.graph (the warm-up runs on a side stream first, as PyTorch's
CUDA-graph documentation asks): a bf16 matmul (cuBLAS on the H200), a bias add, a GELU and a
row sum. Replayed REPS times; the output is checked against the same ops run eagerly. With
TORCH_GRAPH_OPS=elementwise the matmul is an elementwise product (no cuBLAS kernel in the graph:
PyTorch's elementwise and reduction kernels only); with TORCH_GRAPH_WARMUP=0 the side-stream
warm-up is skipped, so the graph's kernels run in the graph before any stream launch of them.
Prints one line; exit 1 on a wrong result.
"""
import os
import sys
import time

import torch

REPS = 3


def main():
    t0 = time.time()
    dev = torch.device("cuda")
    torch.manual_seed(0)
    n = 1024
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    bias = torch.randn(n, device=dev, dtype=torch.bfloat16)

    elementwise = os.environ.get("TORCH_GRAPH_OPS") == "elementwise"

    def step():
        return torch.nn.functional.gelu((a * b if elementwise else a @ b) + bias).float().sum(dim=1)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    warmup = 0 if os.environ.get("TORCH_GRAPH_WARMUP") == "0" else 2
    with torch.cuda.stream(side):
        for _ in range(warmup):
            step()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = step()
    for _ in range(REPS):
        g.replay()
    torch.cuda.synchronize()
    want = step()
    torch.cuda.synchronize()
    ok = torch.allclose(out, want, rtol=1e-2, atol=1e-1)
    ops = "elementwise" if elementwise else "matmul"
    print(f"torch_graph {'ok' if ok else 'WRONG'}: {ops}, n {n}, {REPS} replays in {time.time() - t0:.2f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
