#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/sassprobe/device.sh [STAGE]: issue 17's SASS-metrics probe, one device call.
# Runs every arming pattern of libgh_sassprobe.so (docs/sassprobe.md) on the
# four workloads (cases, torch_ops.py, triton_kernel.py, jax_loop.py), after a
# native round of the same, and prints the table (also $OUT/sassprobe.md).
# STAGE (default .stage) holds gpu/libgh_sassprobe.so and gpu/cases, as
# scripts/stage.sh copies them. Each round runs its four workloads at once
# (one GPU; JAX preallocates 75 % of it, the others need little), each under
# `timeout`; a round that would end past the budget (BUDGET_S, default 400 s
# for the whole call) is skipped and listed as skipped.
set -u
stage=${1:-.stage}
out=${OUT:-out}
mkdir -p "$out/runs"
d=bench/sassprobe
lib=$(cd "$stage/gpu" && pwd)/libgh_sassprobe.so
cases=$(cd "$stage/gpu" && pwd)/cases
budget=${BUDGET_S:-400}
per=${PER_RUN_S:-60}
t_start=$(date +%s)
export PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/sassprobe-triton-cache

{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "commit $(cat "$stage/COMMIT" 2>/dev/null || echo '?')"
    ldd "$lib" | grep -E 'cupti|not found'
    python3 -c 'import torch, triton, jax; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__, "jax", jax.__version__)' 2>&1 | tail -1
} > "$out/env.txt" 2>&1
cat "$out/env.txt"

workload_cmd() {
    case $1 in
    cases) echo "$cases" ;;
    torch) echo "python3 $d/torch_ops.py" ;;
    triton) echo "python3 $d/triton_kernel.py" ;;
    jax) echo "python3 $d/jax_loop.py" ;;
    esac
}

# run_one NAME WORKLOAD [VAR=VALUE...]: one process (and its children) into runs/NAME/WORKLOAD
run_one() {
    name=$1 w=$2
    shift 2
    r="$out/runs/$name/$w"
    mkdir -p "$r"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046 # the command is split into words on purpose
    env "$@" SASSPROBE_OUT="$r" timeout -k 5 "$per" $(workload_cmd "$w") > "$r/stdout" 2> "$r/stderr"
    echo $? > "$r/rc"
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' > "$r/wall"
}

# round NAME [VAR=VALUE...]: the four workloads at once
round() {
    name=$1
    shift
    now=$(date +%s)
    if [ $((now - t_start + per + 10)) -gt "$budget" ]; then
        echo "$name: skipped (budget)"
        mkdir -p "$out/runs/$name"
        echo "budget" > "$out/runs/$name/skipped"
        return
    fi
    for w in cases torch triton jax; do
        run_one "$name" "$w" "$@" &
    done
    wait
    echo "$name: done at $(($(date +%s) - t_start)) s"
}

I="CUDA_INJECTION64_PATH=$lib"
# warm the Triton cache so that no probed run pays for compiling (native runs neither)
timeout 60 python3 $d/triton_kernel.py > /dev/null 2>&1
round native NATIVE=1
round a-ctx-lazy "$I" SASSPROBE_PATTERN=ctx-lazy
round b-ctx-eager "$I" SASSPROBE_PATTERN=ctx-eager
round h-outer "$I" SASSPROBE_PATTERN=outer
round h-outer-keep "$I" SASSPROBE_PATTERN=outer SASSPROBE_KEEP=1
round g-rearm "$I" SASSPROBE_PATTERN=rearm
round f-exit-only "$I" SASSPROBE_PATTERN=exit-only
round e-thread "$I" SASSPROBE_PATTERN=thread
round d-module "$I" SASSPROBE_PATTERN=module
round c-per-launch "$I" SASSPROBE_PATTERN=per-launch
round a-init-ctx "$I" SASSPROBE_PATTERN=ctx-lazy SASSPROBE_INIT=ctx
round a-every8 "$I" SASSPROBE_PATTERN=ctx-lazy SASSPROBE_FLUSH_EVERY=8
round h-outer-keep-eager "$I" SASSPROBE_PATTERN=outer SASSPROBE_KEEP=1 SASSPROBE_LAZY=0

python3 $d/table.py "$out" | tee "$out/sassprobe.md"
echo "total $(($(date +%s) - t_start)) s"
