# SPDX-License-Identifier: MIT
"""bench/suite/hf_gpt2.py: the suite's Hugging Face workload, GPT-2 small trained a few steps.

The model is built from transformers' GPT2Config (GPT-2 small: 12 layers, 768
wide, 12 heads, 50257 tokens), with random weights on the CPU and then moved to
the GPU, as a user's script does: the upload is the program's one-time set-up.
STEPS AdamW steps under bf16 autocast (cuBLAS or nvjet GEMMs, the scaled-dot-
product attention's flash or cuDNN kernels, PyTorch's own kernels) on random
token ids with a fixed seed. Nothing is downloaded (HF_HUB_OFFLINE).
Prints the loss and the step time at the end.
"""
# suite: class=PyTorch native=90 gpuhier=120 ncu=150
# suite-ncu: --kernel-name-base demangled --kernel-name regex:nvjet|gemm|cublas|cutlass|flash|fmha|sdpa|attention|[Ss]oft[Mm]ax|layer_norm|nll_loss --filter-mode per-launch-config --launch-count 1
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

STEPS = 4       # the first is the warm-up
BATCH = 8
SEQ = 256


def main():
    t0 = time.time()
    torch.manual_seed(0)
    try:
        cfg = GPT2Config(attn_implementation="sdpa")   # GPT-2 small, PyTorch's fused attention
    except (TypeError, ValueError):
        cfg = GPT2Config()
    model = GPT2LMHeadModel(cfg)
    model.to("cuda")
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, cfg.vocab_size, (BATCH, SEQ), device="cuda")
    t1 = None
    for i in range(STEPS):
        if i == 1:
            torch.cuda.synchronize()
            t1 = time.time()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    step_ms = (time.time() - t1) * 1e3 / (STEPS - 1)
    print("hf_gpt2 ok: %d steps, loss %.3f, %.1f ms per step, %.1f s in all (attention: %s)" % (
        STEPS, float(loss), step_ms, time.time() - t0, getattr(model.config, "_attn_implementation", "?")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
