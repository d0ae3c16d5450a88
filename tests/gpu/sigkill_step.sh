# SPDX-License-Identifier: MIT
#
# Sourced by t150 and t151: sigkill_step REPORT SECONDS [VAR=VALUE...] runs gpu/sigkill
# (an endless launch loop) under the collector, SIGKILLs it SECONDS after
# it printed "started", and checks the program is gone. Sets sk_ok to 1
# when it is, 0 when it still runs (then it is killed here, by pid).
#
# The program is started as a plain background command, so $! is its own
# pid (env execs it). Until 2026-11-30 both tests started it through their
# shell function `gh ... &`: $! was the subshell's pid, the kill ended the
# subshell, and gpu/sigkill ran on for the life of the machine, sharing the
# GPU with every later step of the call (docs/gpu-runs.md, "Orphaned
# gpu/sigkill").
# Needs: lib, gpu (the stage's collector and test programs); cwd = output dir.

# sigkill_start NAME [VAR=VALUE...]: gpu/sigkill under the collector, report NAME.db,
# output NAME.out and NAME.err, in the background; returns once it printed "started"
# (10 s at most). Sets sk_pid, the program's own pid.
sigkill_start() {
    sk_name=$1
    shift
    env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$PWD/$sk_name.db" "$@" "$gpu/sigkill" \
        > "$sk_name.out" 2> "$sk_name.err" &
    sk_pid=$!
    i=0
    while [ $i -lt 100 ] && ! grep -q started "$sk_name.out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
}

# sigkill_kill PID: SIGKILL and reap it.
sigkill_kill() {
    kill -9 "$1"
    wait "$1" 2>/dev/null
}

sigkill_step() {
    sk_wait=$2
    sk_base=${1%.db}
    shift 2
    sigkill_start "$sk_base" "$@"
    sleep "$sk_wait"
    sigkill_kill "$sk_pid"
    sk_ok=1
    if kill -0 "$sk_pid" 2>/dev/null || pgrep -f "$gpu/sigkill" > /dev/null 2>&1; then
        sk_ok=0
        pkill -9 -f "$gpu/sigkill" 2>/dev/null
    fi
}
