#!/bin/sh
# Issue 22 points 1 and 2 on a machine with two or more GPUs: a torchrun DDP
# job (NCCL, bench/ddp/ddp_train.py, 300 steps) under default profiling
# finishes with no NCCL timeout, writes one report per rank named by rank
# and host, records each rank, and traces the NCCL kernels without
# profiling them ('comm_kernel'). Prints native and profiled wall times.
# Exit 77 ("skipped: ...") without two GPUs, torch or torchrun.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${GPUHIER_BINARY_DIR:?}
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${n:-0}" -lt 2 ]; then echo "skipped: no GPU (fewer than 2 GPUs: ${n:-0})"; exit 77; fi
if ! python3 -c 'import torch.distributed.run' 2>/dev/null; then echo "skipped: no torch"; exit 77; fi
out=${OUT:-$(mktemp -d)}/t170
mkdir -p "$out" && cd "$out" || exit 1
fail=0
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
expect() { v=$(q "$2" "$3"); if [ "$v" = "$4" ]; then echo "ok   $1 = $v"; else echo "FAIL $1: '$v' want '$4'"; fail=1; fi; }
tr="python3 -m torch.distributed.run --standalone --nproc-per-node $n $root/bench/ddp/ddp_train.py --steps ${STEPS:-300}"
t0=$(date +%s.%N)
$tr > native.out 2> native.err || { echo "FAIL native run exit $?"; fail=1; }
t1=$(date +%s.%N)
timeout 900 "$bin/gpuhier" run --no-analyze -o 'ddp-%q{RANK}-%h.db' -- $tr > prof.out 2> prof.err
rc=$?
t2=$(date +%s.%N)
[ $rc = 0 ] && echo "ok   profiled job exit 0" || { echo "FAIL profiled job exit $rc"; tail -20 prof.err; fail=1; }
grep -qi "watchdog\|timeout\|timed out" prof.err && { echo "FAIL NCCL timeout in the profiled job"; fail=1; }
reports=$(ls ddp-*.db 2>/dev/null | wc -l)
[ "$reports" = "$n" ] && echo "ok   $reports reports" || { echo "FAIL $reports reports, want $n"; fail=1; }
for r in $(seq 0 $((n - 1))); do
    f=$(ls ddp-$r-*.db 2>/dev/null | head -1)
    [ -n "$f" ] || { echo "FAIL no report of rank $r"; fail=1; continue; }
    expect "rank $r recorded" "$f" "SELECT value FROM meta WHERE key = 'rank'" "$r"
    expect "rank $r world size" "$f" "SELECT value FROM meta WHERE key = 'world_size'" "$n"
    expect "rank $r clean" "$f" "SELECT clean_exit FROM run" 1
    expect "rank $r NCCL kernels never profiled" "$f" \
        "SELECT count(*) FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE k.mangled_name LIKE '%nccl%Kernel%' AND l.profiled = 1" 0
    v=$(q "$f" "SELECT count(*) FROM launch WHERE profile_reason = 'comm_kernel'")
    [ "${v:-0}" -gt 0 ] 2>/dev/null && echo "ok   rank $r comm_kernel launches = $v" || { echo "FAIL rank $r: no comm_kernel launches ('$v')"; fail=1; }
done
python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); print('native %.1f s, profiled %.1f s, ratio %.2f' % (b-a, c-b, (c-b)/(b-a)))" "$t0" "$t1" "$t2"
[ $fail = 0 ] && echo "t170: all checks passed" || echo "t170: FAILURES"
exit $fail
