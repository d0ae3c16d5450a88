#!/bin/sh
# A short subset of t150 for re-checking a build on the device in a few
# seconds: 8 threads x 4 streams under profiling, cudaDeviceReset, stream
# capture + graphs, pointers into host memory in structures, SIGKILL. Exit 77 without a GPU. The collector's default
# (no GPUHIER_REPLAY): each configuration's first launch instrumented (the
# instrumentation engine, issue 17), then one one-pass group per profiled
# launch, group 1 first (first_of_config), on 8 threads at once;
# t150 pins kernel replay, t180 checks the groups in full.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${GPUHIER_BINARY_DIR:?}
lib=$bin/libgpuhier-collector.so
gpu=$bin/gpu
if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null || ! [ -x "$gpu/multistream" ]; then
    echo "skipped: no GPU"; exit 77
fi
out=${OUT:-$(mktemp -d)}/t151
mkdir -p "$out" && cd "$out" || exit 1
fail=0
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
expect() { v=$(q "$2" "$3"); if [ "$v" = "$4" ]; then echo "ok   $1 = $v"; else echo "FAIL $1: '$v' want '$4'"; fail=1; fi; }
gh() { r=$1; shift; env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$r" "$@"; }
gh ms.db "$gpu/multistream" 200 > ms.out 2> ms.err || { echo "FAIL multistream exit"; fail=1; }
expect "launches" ms.db "SELECT count(*) FROM launch" "$(sed -n 's/launched //p' ms.out)"
expect "each configuration instrumented once" ms.db "SELECT count(*) || ':' || count(DISTINCT config_id) FROM inst_launch" "2:2"
expect "default: one pass each, no replay" ms.db "SELECT count(*) FROM profile WHERE passes <> 1 OR metric_set NOT LIKE 'group%/%'" 0
expect "default: group 1 of each configuration, first_of_config" ms.db "SELECT count(DISTINCT l.config_id) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.profile_reason = 'first_of_config' AND p.metric_set LIKE 'group1/%'" 2
expect "no later group before group 1" ms.db "SELECT count(*) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE p.metric_set NOT LIKE 'group1/%' AND l.id < (SELECT min(l1.id) FROM launch l1 JOIN profile p1 ON p1.launch_id = l1.id WHERE l1.config_id = l.config_id AND p1.metric_set LIKE 'group1/%')" 0
expect "no drops" ms.db "SELECT records_dropped + activity_dropped + ranges_dropped FROM run" 0
expect "clean" ms.db "SELECT clean_exit FROM run" 1
expect "alloc tracking" ms.db "SELECT value FROM meta WHERE key = 'alloc_tracking'" on
expect "buffers recorded" ms.db "SELECT count(*) FROM allocation WHERE op = 'alloc' AND memory_kind = 'device' AND bytes = 262144" 4
expect "profiled launches stamped" ms.db "SELECT count(*) FROM launch WHERE profiled = 1 AND api_ns IS NULL" 0
expect "footprint covers the buffers" ms.db "SELECT min(f.live_device_bytes) >= 1048576 FROM v_launch_footprint f JOIN launch l ON l.id = f.launch_id WHERE l.profiled = 1" 1
gh dr.db "$gpu/devreset" > /dev/null 2>&1
expect "devreset launches" dr.db "SELECT count(*) FROM launch" 300
gh cg.db "$gpu/capture" > /dev/null 2>&1 || { echo "FAIL capture exit"; fail=1; }
# every node of every graph launch listed; since 2026-12-04 the first launch of an armed graph is
# instrumented (its nodes 'instrumented', the others 'graph': docs/collector.md "Graphs")
expect "graph kernels" cg.db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL" 15
expect "graph kernels not range-profiled" cg.db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profiled = 1" 0
# pointers into mapped host memory: passed directly, as a structure's field, in a structure's array
# (collector/hostargs.c): each kernel's served launches record the parameter holding it, 4 MB
gh ha.db "$gpu/hostargs" > ha.out 2> ha.err || { echo "FAIL hostargs exit"; fail=1; }
grep -q "sum ok" ha.out || { echo "FAIL hostargs result"; fail=1; }
expect "host pointer arguments" ha.db "SELECT group_concat(x, ' ') FROM (SELECT DISTINCT k.short_name || ':' || a.param_index || ':' || a.range_bytes AS x FROM launch_host_arg a JOIN launch l ON l.id = a.launch_id JOIN kernel k ON k.id = l.kernel_id ORDER BY x)" "read_array:0:4194304 read_direct:0:4194304 read_struct:1:4194304"
. "$here/sigkill_step.sh"
sigkill_step sk.db 1.5
[ "$sk_ok" = 1 ] && echo "ok   killed program gone (pid $sk_pid)" || { echo "FAIL killed program still ran after SIGKILL (pid $sk_pid)"; fail=1; }
v=$(q sk.db "SELECT count(*) FROM launch"); [ "${v:-0}" -ge 100 ] 2>/dev/null && echo "ok   killed report launches = $v" || { echo "FAIL killed report launches '$v'"; fail=1; }
[ $fail = 0 ] && echo "t151: all checks passed" || echo "t151: FAILURES"
exit $fail
