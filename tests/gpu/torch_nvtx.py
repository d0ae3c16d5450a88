# NVTX ranges from PyTorch, for tests/gpu/t175-nvtx-torch.sh: three steps
# of nested torch.cuda.nvtx.range_push/pop ranges (step > forward >
# attention, step > backward), then one pass under
# torch.autograd.profiler.emit_nvtx() inside an 'emit' range.
import torch

x = torch.randn(512, 512, device="cuda")
torch.cuda.synchronize()
for step in range(3):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("forward")
    y = x @ x
    torch.cuda.nvtx.range_push("attention")
    z = torch.softmax(y, dim=-1)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    w = z * 2 + 1
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
a = torch.randn(256, 256, device="cuda", requires_grad=True)
with torch.autograd.profiler.emit_nvtx():
    torch.cuda.nvtx.range_push("emit")
    b = (a @ a).relu().sum()
    b.backward()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("sum", float(w.sum()), float(a.grad.sum()))
