# SPDX-License-Identifier: MIT
"""bench/suite/jax_mlp.py: the suite's JAX workload, a training loop with default preallocation.

A two-layer MLP (1024 -> 4096 -> 1024, GELU) trained by plain SGD on a mean
squared error: one jitted step (forward, gradients, update), compiled and run
once as a warm-up (XLA autotunes its GEMMs then, timing candidates behind
stream_executor's delay kernel), then STEPS times. JAX keeps its default
memory preallocation (75 % of the GPU). Random data, fixed key.

After the warm-up the program calls cuProfilerStart (driver API, on JAX's
primary context): the suite runs ncu with --profile-from-start off, so ncu
profiles the steady-state step's kernels, not the autotuner's candidates.
gpuhier profiles the first launch of each configuration wherever it falls.
Prints one line at the end.

ncu alone runs it with XLA_PYTHON_CLIENT_PREALLOCATE=false: its kernel replay
saves and restores the memory a kernel can reach, all 75 % of the GPU under
preallocation (about 65 s a profile, docs/cost-vs-ncu.md). The kernels are
the same programs either way (configurations are matched by function and
launch shape); gpuhier keeps the preallocation, the case issue 18 asks for.
That was not enough: on 2026-12-04 ncu still profiled nothing in 300 s, the
program stuck in XLA's compilation and autotuning under ncu (docs/suite.md).

So every step (native, gpuhier, ncu) runs with XLA_FLAGS (the `# suite-env:`
line): `--xla_gpu_autotune_level=0`, XLA's default GEMM configurations
without timing candidates, which let ncu through the compilation (session of
2026-12-04 12:35 UTC: 16 launches profiled in 52 s), and
`--xla_gpu_enable_command_buffer=` (empty: no command buffers), so that the
steady-state step runs as stream launches, not as a CUDA graph whose kernel
nodes neither gpuhier engine serves (docs/collector.md "Graphs"; with
command buffers on and autotuning off, gpuhier's coverage of that step was 0 %). Both tools see
the same kernels; what JAX's command buffers do to profiling is measured
elsewhere (docs/sassprobe.md "Graph launches"). The cost benches that run
this script (bench/cost_vs_ncu.py, bench/instrument_cost.py) do not read the
`# suite-env:` line: there it runs with XLA's defaults unless XLA_FLAGS is
exported, as issue 18's JAX target (a JAX loop as a user runs it) wants.
"""
# suite: class=JAX-XLA native=90 gpuhier=120 ncu=300
# suite-env: XLA_FLAGS="--xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer="
# suite-ncu-env: XLA_PYTHON_CLIENT_PREALLOCATE=false
# suite-ncu: --profile-from-start off --kernel-name-base demangled --kernel-name regex:. --filter-mode per-launch-config --launch-count 1
import ctypes
import sys
import time

import jax
import jax.numpy as jnp

STEPS = 5
BATCH = 8192
D_IN, D_HID = 1024, 4096


def profiler_start():
    """cuProfilerStart on device 0's primary context (the one XLA uses); returns the CUresult."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return "no libcuda: %s" % e
    dev = ctypes.c_int()
    ctx = ctypes.c_void_p()
    rc = cuda.cuInit(0)
    if rc == 0:
        rc = cuda.cuDeviceGet(ctypes.byref(dev), 0)
    if rc == 0:
        rc = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    if rc == 0:
        rc = cuda.cuCtxPushCurrent_v2(ctx)
    if rc == 0:
        rc = cuda.cuProfilerStart()
        cuda.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    return rc


def init(key):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (D_IN, D_HID)) * 0.02, "b1": jnp.zeros(D_HID),
            "w2": jax.random.normal(k2, (D_HID, D_IN)) * 0.02, "b2": jnp.zeros(D_IN)}


def loss_fn(p, x, y):
    h = jax.nn.gelu(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


@jax.jit
def step(p, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    return jax.tree_util.tree_map(lambda w, d: w - 0.1 * d, p, g), loss


def main():
    t0 = time.time()
    kp, kx, ky = jax.random.split(jax.random.PRNGKey(0), 3)
    p = init(kp)
    x = jax.random.normal(kx, (BATCH, D_IN))
    y = jax.random.normal(ky, (BATCH, D_IN))
    p, loss = step(p, x, y)
    loss.block_until_ready()
    t_compile = time.time() - t0
    started = profiler_start()
    t1 = time.time()
    for _ in range(STEPS):
        p, loss = step(p, x, y)
    loss.block_until_ready()
    print("jax_mlp ok: %d steps, loss %.4f, %.1f ms per step, compile %.1f s, cuProfilerStart %s (jax %s, %s)" % (
        STEPS, float(loss), (time.time() - t1) * 1e3 / STEPS, t_compile, started, jax.__version__,
        jax.devices()[0].device_kind))
    return 0


if __name__ == "__main__":
    sys.exit(main())
