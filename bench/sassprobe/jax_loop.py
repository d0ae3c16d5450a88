# SPDX-License-Identifier: MIT
"""bench/sassprobe/jax_loop.py: the JAX workload of the SASS-metrics probe (issue 17).

A few jitted functions (elementwise, matmul, softmax, a gather), each run REPS times,
with JAX's default memory preallocation (75 % of the GPU). Prints one line at the end.
"""
import sys
import time

import jax
import jax.numpy as jnp

REPS = 3


@jax.jit
def elementwise(x):
    return jnp.tanh(x * 2.0 + 1.0)


@jax.jit
def matmul(a, b):
    return a @ b


@jax.jit
def softmax(s):
    return jax.nn.softmax(s, axis=-1)


@jax.jit
def gather(x, idx):
    return x[idx] * 3.0


def main():
    t0 = time.time()
    key = jax.random.PRNGKey(0)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    x = jax.random.normal(k1, (1 << 20,))
    a = jax.random.normal(k2, (512, 512))
    s = jax.random.normal(k3, (256, 1024))
    idx = jax.random.randint(k4, (1 << 18,), 0, 1 << 20)
    total = 0.0
    for _ in range(REPS):
        outs = (elementwise(x), matmul(a, a), softmax(s), gather(x, idx))
        for o in outs:
            o.block_until_ready()
        total += float(sum(o.ravel()[0] for o in outs))
    print(f"jax_loop ok: 4 functions x {REPS} in {time.time() - t0:.2f} s (checksum {total:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
