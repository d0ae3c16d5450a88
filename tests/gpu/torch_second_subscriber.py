# torch.profiler holds CUPTI before CUDA initializes; gpuhier's collector,
# injected at cuInit, must then say who holds CUPTI and let the program run.
import torch
from torch.profiler import profile, ProfilerActivity

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    x = torch.ones(1024, device="cuda")
    y = (x * 2).sum()
    torch.cuda.synchronize()
print("sum", float(y))
print("torch.profiler cuda events", sum(1 for e in prof.events() if e.device_type.name == "CUDA"))
