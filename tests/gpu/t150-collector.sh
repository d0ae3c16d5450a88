#!/bin/sh
# GPU integration of the collector (issue 2 §5, §8, §9; issue 3 §1, §3, §8):
# the small programs of tests/gpu/ run with CUDA_INJECTION64_PATH set and
# their reports are checked with python3's sqlite3. Exit 77 without a GPU.
# Results and reports go to $OUT (or a temp dir) for docs/gpu-runs.md.
set -u
bin=${GPUHIER_BINARY_DIR:?}
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
lib=$bin/libgpuhier-collector.so
gpu=$bin/gpu
if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null; then
    echo "skipped: no GPU"; exit 77
fi
[ -x "$gpu/multistream" ] || { echo "skipped: no GPU test programs (nvcc missing at build time)"; exit 77; }
out=${OUT:-$(mktemp -d)}/t150
mkdir -p "$out" && cd "$out" || exit 1
t0=$(date +%s.%N)
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
expect() { # expect <name> <db> <sql> <value>
    v=$(q "$2" "$3")
    if [ "$v" = "$4" ]; then ok "$1 ($3 = $v)"; else bad "$1: $3 gave '$v', want '$4'"; fi
}
expect_ge() {
    v=$(q "$2" "$3")
    if [ -n "$v" ] && [ "$v" -ge "$4" ] 2>/dev/null; then ok "$1 ($3 = $v)"; else bad "$1: $3 gave '$v', want >= $4"; fi
}
gh() { # gh <report> <prog> args...: run under the collector
    r=$1; shift
    # kernel replay: what these checks were written for (one-pass groups: t180-onepass-groups.sh)
    env CUDA_INJECTION64_PATH="$lib" GPUHIER_OUTPUT="$out/$r" GPUHIER_SESSION_FILE="$out/session.txt" \
        GPUHIER_REPLAY="${GPUHIER_REPLAY:-kernel}" "$@"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > gpu.txt 2>&1
echo "device: $(cat gpu.txt)"

# 1. 8 threads x 4 streams, default (profile) mode.
gh ms.db "$gpu/multistream" 200 > ms.out 2> ms.err; st=$?
[ $st = 0 ] && ok "multistream exit 0" || bad "multistream exit $st: $(cat ms.err)"
n=$(sed -n 's/launched //p' ms.out)
expect "multistream launches" ms.db "SELECT count(*) FROM launch" "$n"
expect "multistream configs" ms.db "SELECT count(*) FROM config" 2
# Allocations (MEMORY2): the 4 buffers of 256 KiB, live when the profiled launches were issued.
expect "multistream alloc tracking" ms.db "SELECT value FROM meta WHERE key = 'alloc_tracking'" on
expect "multistream buffers recorded" ms.db "SELECT count(*) FROM allocation WHERE op = 'alloc' AND memory_kind = 'device' AND bytes = 262144" 4
expect "profiled launches stamped" ms.db "SELECT count(*) FROM launch WHERE profiled = 1 AND api_ns IS NULL" 0
expect "footprint covers the buffers" ms.db "SELECT min(f.live_device_bytes) >= 1048576 FROM v_launch_footprint f JOIN launch l ON l.id = f.launch_id WHERE l.profiled = 1" 1
expect "first of config profiled" ms.db "SELECT count(*) FROM launch WHERE profile_reason = 'first_of_config' AND profiled = 1" 2
expect "config index of first" ms.db "SELECT count(*) FROM launch WHERE profile_reason = 'first_of_config' AND config_launch_index = 0" 2
expect "only sampled profiled" ms.db "SELECT count(*) FROM launch WHERE profiled = 1 AND profile_reason NOT IN ('first_of_config','extra_metrics')" 0
expect "extras are the tie set + groups" ms.db "SELECT count(*) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.profile_reason = 'extra_metrics' AND p.metric_set NOT LIKE 'tie+%'" 0
expect "extras carry the tie set" ms.db "SELECT count(*) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.profile_reason = 'extra_metrics' AND (SELECT count(*) FROM v_metric v WHERE v.launch_id = l.id AND v.metric IN ('smsp__inst_executed.sum', 'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 'gpu__time_duration.sum') AND v.value IS NOT NULL) <> 4" 0
q ms.db "SELECT 'extras: ' || count(*) || ' launches, sets ' || ifnull(group_concat(DISTINCT p.metric_set), '-') FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.profile_reason = 'extra_metrics'"
expect_ge "metric rows" ms.db "SELECT count(*) FROM metric" 2
expect "passes recorded" ms.db "SELECT count(*) FROM profile WHERE passes >= 1" "$(q ms.db 'SELECT count(*) FROM profile')"
expect "duration metric" ms.db "SELECT count(*) FROM v_profiled WHERE duration_ns > 0" "$(q ms.db 'SELECT count(*) FROM profile')"
expect "unprofiled keep times" ms.db "SELECT count(*) FROM launch WHERE profiled = 0 AND (start_ns IS NULL OR end_ns <= start_ns)" 0
expect "demangled" ms.db "SELECT count(*) FROM kernel WHERE short_name IN ('add','scale')" 2
expect "device" ms.db "SELECT count(*) FROM device WHERE sm_count > 0 AND peak_dram_bw_bytes_per_s > 0" 1
expect "occupancy" ms.db "SELECT count(*) FROM config WHERE theoretical_occupancy_pct > 0" 2
expect "config launches" ms.db "SELECT sum(launches) FROM config" "$n"
expect "copy pointers" ms.db "SELECT count(*) FROM copy WHERE copy_kind = 'DtoH' AND src_ptr IS NOT NULL AND dst_ptr IS NOT NULL" 1
expect "streams" ms.db "SELECT count(DISTINCT stream_id) FROM launch" 4
expect "clean exit" ms.db "SELECT clean_exit FROM run" 1
expect "no drops" ms.db "SELECT records_dropped + activity_dropped + ranges_dropped FROM run" 0
[ -e ms.db-wal ] && bad "ms.db-wal left behind" || ok "single file after exit"
grep -q "==gpuhier== profiled" ms.err && ok "progress lines" || bad "no progress line"
q ms.db "SELECT 'profiled launches: ' || group_concat(passes || ' passes ' || (overhead_ns / 1000000) || ' ms', '; ') FROM profile"
python3 -c 'import sqlite3; c=sqlite3.connect("ms.db"); print("metrics of one profiled launch:"); [print("   ", *r) for r in c.execute("SELECT metric, value FROM v_metric WHERE launch_id = (SELECT min(launch_id) FROM profile)")]'

# 2. Trace mode: same counts, nothing profiled.
GPUHIER_MODE=trace gh mt.db "$gpu/multistream" 200 > mt.out 2> mt.err
expect "trace launches" mt.db "SELECT count(*) FROM launch" "$n"
expect "trace profiled" mt.db "SELECT count(*) FROM launch WHERE profiled = 1 OR profile_reason <> 'mode_trace'" 0

# 2'. A mode that is neither trace nor profile (set by hand; the CLI refuses it): traced,
# nothing profiled, and the report says why (before 2026-11-30 it profiled silently).
GPUHIER_MODE=bogus gh mx.db "$gpu/multistream" 20 > mx.out 2> mx.err || bad "bad mode exit: $(tail -3 mx.err)"
expect "bad mode: all traced" mx.db "SELECT count(*) FROM launch" "$(sed -n 's/launched //p' mx.out)"
expect "bad mode: nothing profiled" mx.db "SELECT count(*) FROM launch WHERE profiled = 1" 0
expect "bad mode: said" mx.db "SELECT profiling_limited LIKE '%GPUHIER_MODE=''bogus'' is not trace or profile%' FROM run" 1

# 2a. Cost of profiling every launch (information, not a gate): 40 launches, 2 configurations.
GPUHIER_DEBUG=1 GPUHIER_SAMPLE=all gh ma.db "$gpu/multistream" 5 > ma.out 2> ma.err
grep 'profiled: ranges' ma.err | sed -n '1,3p;20p;40p'
expect "sample all profiles every launch" ma.db "SELECT count(*) FROM launch WHERE profiled = 1" 40
q ma.db "SELECT 'sample all: ' || count(*) || ' profiled, median-ish ' || (SELECT overhead_ns / 1000 FROM profile ORDER BY overhead_ns LIMIT 1 OFFSET 20) || ' us per launch, max ' || (max(overhead_ns) / 1000) || ' us, bytes per profiled launch ' || ((SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()) / count(*)) FROM profile"

# 2b. Kernel-name filter (regex on the demangled name).
GPUHIER_KERNEL='^scale' gh mk.db "$gpu/multistream" 20 > mk.out 2> mk.err
expect "filter profiles scale only" mk.db "SELECT count(*) FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE l.profiled = 1 AND k.short_name <> 'scale'" 0
expect "filter reason" mk.db "SELECT count(*) > 0 FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE k.short_name = 'add' AND l.profile_reason = 'filtered_name'" 1
expect "filter profiled scale" mk.db "SELECT count(*) >= 1 FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE l.profiled = 1 AND k.short_name = 'scale'" 1

# 2c. --cache-control all (GPUHIER_CACHE_CONTROL=all): the L2 is flushed before every
# profiled launch. multistream's kernels read and write one 256 KB buffer each (1 MB
# in all), which stays in the 60 MB L2 between launches: without the flush a repeat
# reads (almost) nothing from DRAM, with it every launch reads its whole buffer.
# One pass (bench/agreement/groups.txt dram-l2miss), so no replay, 40 launches each way.
g1=$(sed -n 's/^dram-l2miss //p' "$src/bench/agreement/groups.txt")
GPUHIER_CACHE_CONTROL=all GPUHIER_SAMPLE=all GPUHIER_METRIC_SET=none GPUHIER_METRICS=$g1 \
  gh mc.db "$gpu/multistream" 5 > mc.out 2> mc.err || bad "cache-control all exit: $(tail -3 mc.err)"
GPUHIER_SAMPLE=all GPUHIER_METRIC_SET=none GPUHIER_METRICS=$g1 \
  gh mn.db "$gpu/multistream" 5 > mn.out 2> mn.err || bad "cache-control none exit: $(tail -3 mn.err)"
expect "cache control recorded" mc.db "SELECT value FROM meta WHERE key = 'cache_control'" all
expect "cache control none recorded" mn.db "SELECT value FROM meta WHERE key = 'cache_control'" none
expect "one flush per profiled launch" mc.db "SELECT value LIKE '40 flushes,%' FROM meta WHERE key = 'cache_flushes'" 1
expect "flushed: all launches profiled" mc.db "SELECT count(*) FROM launch WHERE profiled = 1" 40
expect "flush kernel not traced" mc.db "SELECT count(*) FROM kernel WHERE mangled_name LIKE '%l2_flush%'" 0
expect "flush launches not traced" mc.db "SELECT count(*) FROM launch" 40
expect "flush buffer not in the footprint" mc.db "SELECT count(*) FROM allocation WHERE bytes >= (SELECT min(l2_bytes) FROM device)" 0
expect "flushed: no range dropped" mc.db "SELECT ranges_dropped + (SELECT count(*) FROM event WHERE code = 'batch_dropped') FROM run" 0
expect "flushed: every launch reads its buffer from DRAM" mc.db "SELECT count(*) FROM v_metric WHERE metric = 'dram__bytes_read.sum' AND (value IS NULL OR value < 0.9 * 262144)" 0
expect "not flushed: most repeats read from L2" mn.db "SELECT count(*) >= 20 FROM v_metric WHERE metric = 'dram__bytes_read.sum' AND value < 0.5 * 262144" 1
q mc.db "SELECT 'cache-control all: ' || (SELECT value FROM meta WHERE key = 'cache_flushes') || '; DRAM read per launch min ' || min(value) || ' median-ish ' || (SELECT value FROM v_metric WHERE metric = 'dram__bytes_read.sum' ORDER BY value LIMIT 1 OFFSET 20) || ' B' FROM v_metric WHERE metric = 'dram__bytes_read.sum'"
q mn.db "SELECT 'cache-control none: DRAM read per launch min ' || min(value) || ' median-ish ' || (SELECT value FROM v_metric WHERE metric = 'dram__bytes_read.sum' ORDER BY value LIMIT 1 OFFSET 20) || ' B' FROM v_metric WHERE metric = 'dram__bytes_read.sum'"
# The default set (3 passes) with the flush: every value present.
GPUHIER_CACHE_CONTROL=all GPUHIER_SAMPLE=all gh mcc.db "$gpu/multistream" 1 > mcc.out 2> mcc.err || bad "cache-control all, core: $(tail -3 mcc.err)"
expect "flushed core: 8 profiles" mcc.db "SELECT count(DISTINCT launch_id) FROM v_metric" 8
nul="SELECT round(sum(value IS NULL) * 1.0 / count(DISTINCT launch_id), 3) FROM v_metric"
[ "$(q mcc.db "$nul")" = "$(q ma.db "$nul")" ] && ok "flushed core: as many values as without the flush" ||
  bad "flushed core: NULL values per launch $(q mcc.db "$nul"), without the flush $(q ma.db "$nul")"
# A flush that fails: profiling goes on without cache control, and the report says so.
GPUHIER_FAULT=cache_flush:UNKNOWN GPUHIER_CACHE_CONTROL=all GPUHIER_SAMPLE=all \
  gh mf.db "$gpu/multistream" 5 > mf.out 2> mf.err || bad "cache_flush fault exit: $(tail -3 mf.err)"
expect "flush failure recorded" mf.db "SELECT value LIKE 'none: injected%' FROM meta WHERE key = 'cache_control'" 1
expect "flush failure event" mf.db "SELECT count(*) FROM event WHERE code = 'cache_control_failed'" 1
expect "flush failure: still profiled" mf.db "SELECT count(*) FROM launch WHERE profiled = 1" 40
grep -q "cache control off" mf.err && ok "flush failure line" || bad "no cache control line: $(cat mf.err)"

# 2d. --profile-budget (docs/sampling.md): the profiles go to configurations whose GPU time
# the traced kernel records brought in, never to a configuration's first launch; every
# kernel record must find its configuration (a name or geometry mismatch between the
# activity records and the launch callbacks would leave the budget nothing to rank).
GPUHIER_PROFILE_BUDGET=30 gh mb.db "$gpu/multistream" 10000 > mb.out 2> mb.err || bad "budget exit: $(tail -3 mb.err)"
expect "budget: kernel records matched their configurations" mb.db "SELECT count(*) FROM event WHERE code = 'budget_time_unmatched'" 0
expect "budget: profiled" mb.db "SELECT count(*) >= 1 FROM launch WHERE profiled = 1" 1
expect "budget: no first launch profiled" mb.db "SELECT count(*) FROM launch WHERE profiled = 1 AND config_launch_index = 0" 0
expect "budget: deferrals" mb.db "SELECT count(*) > 0 FROM launch WHERE profile_reason = 'profile_budget'" 1
q mb.db "SELECT 'budget 30: ' || (SELECT count(*) FROM launch WHERE profiled = 1) || ' profiled, first at launch ' || (SELECT min(config_launch_index) FROM launch WHERE profiled = 1) || ' of its configuration, ' || (SELECT count(*) FROM launch) || ' launches'"

# 2e. The profiler hold (GPUHIER_PROFILER_HOLD_MS, docs/collector.md): every second launch of
# each configuration profiled, so unsampled launches come between the profiles. Without a hold
# each of them disables the range profiler and the next profile enables it again; with a hold
# longer than the run the profiles share one enable. No value may be lost either way.
for h in 0 60000; do
  GPUHIER_PROFILER_HOLD_MS=$h GPUHIER_SAMPLE=every:2 gh mh$h.db "$gpu/multistream" 5 > mh$h.out 2> mh$h.err ||
    bad "hold $h exit: $(tail -3 mh$h.err)"
  expect "hold $h: recorded" mh$h.db "SELECT value FROM meta WHERE key = 'profiler_hold_ms'" $h
  expect "hold $h: every second launch profiled" mh$h.db "SELECT count(*) FROM launch WHERE profiled = 1" 20
done
[ "$(q mh60000.db "$nul")" = "$(q mh0.db "$nul")" ] && ok "long hold: as many values as without a hold" ||
  bad "long hold: NULL values per launch $(q mh60000.db "$nul"), without a hold $(q mh0.db "$nul")"
expect_ge "no hold: the profiles re-enable" mh0.db "SELECT value FROM meta WHERE key = 'profiler_enables'" 5
expect "long hold: one enable" mh60000.db "SELECT value FROM meta WHERE key = 'profiler_enables'" 1
expect "default hold recorded" ms.db "SELECT value FROM meta WHERE key = 'profiler_hold_ms'" 100
q mh0.db "SELECT 'hold 0: ' || (SELECT value FROM meta WHERE key = 'profiler_enables') || ' enables, profiling ' || (sum(overhead_ns) / 1000000) || ' ms for ' || count(*) || ' profiles' FROM profile"
q mh60000.db "SELECT 'hold 60000: ' || (SELECT value FROM meta WHERE key = 'profiler_enables') || ' enables, profiling ' || (sum(overhead_ns) / 1000000) || ' ms for ' || count(*) || ' profiles' FROM profile"

# 3. cudaDeviceReset before exit loses nothing.
gh dr.db "$gpu/devreset" > dr.out 2> dr.err || bad "devreset exit"
expect "devreset launches" dr.db "SELECT count(*) FROM launch" 300
expect "memset traced" dr.db "SELECT count(*) FROM copy WHERE op = 'memset'" 1

# 4. Failed launch: > 48 KB dynamic shared memory without opt-in.
gh sf.db "$gpu/smemfail" > sf.out 2> sf.err; st=$?
[ $st = 0 ] && ok "smemfail exit 0" || bad "smemfail exit $st: $(cat sf.out sf.err)"
expect "launch_failure" sf.db "SELECT count(*) FROM launch_failure WHERE dynamic_smem_bytes = 65536 AND block_x = 256 AND error_code <> 0" 1
q sf.db "SELECT api || ' ' || error_name || ' max=' || ifnull(max_dynamic_smem_bytes,'?') FROM launch_failure"
expect "opt-in launch traced" sf.db "SELECT count(*) FROM launch WHERE config_id IN (SELECT id FROM config WHERE dynamic_smem_bytes = 65536)" 1
expect "source line (-lineinfo)" sf.db "SELECT count(*) FROM kernel WHERE source_file LIKE '%smemfail.cu' AND source_line > 0" 1

# 5. Stream capture + graph launch under profiling.
gh cg.db "$gpu/capture" > cg.out 2> cg.err; st=$?
[ $st = 0 ] && ok "capture exit 0 under profiling" || bad "capture exit $st: $(cat cg.out cg.err)"
expect "graph kernels" cg.db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL" 15
expect "graph reason" cg.db "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'graph' AND profiled = 0" 15
expect "plain launches" cg.db "SELECT count(*) FROM launch WHERE graph_id IS NULL" 2

# 6. NVTX ranges and paths.
gh nv.db "$gpu/nvtx" > nv.out 2> nv.err || bad "nvtx exit"
expect "nvtx ranges" nv.db "SELECT count(*) FROM nvtx_range WHERE name IN ('outer','inner') AND end_ns >= start_ns" 2
expect "nvtx start/end" nv.db "SELECT count(*) FROM nvtx_range WHERE name = 'whole'" 1
expect "nvtx path" nv.db "SELECT count(*) FROM launch WHERE nvtx_path = 'outer > inner'" 1
expect "nvtx registered string" nv.db "SELECT count(*) FROM nvtx_range WHERE name = 'registered_range' AND domain = 'gh_domain'" 1
expect "nvtx registered path" nv.db "SELECT count(*) FROM launch WHERE nvtx_path = 'registered_range'" 1

# 7. SIGKILL mid-run: the report opens and holds what was committed.
. "$src/tests/gpu/sigkill_step.sh"
# (kernel replay as in gh(): sigkill_start sets its own environment; the default's
# SIGKILL is t151's)
sigkill_step sk.db 2 GPUHIER_SESSION_FILE="$out/session.txt" GPUHIER_REPLAY="${GPUHIER_REPLAY:-kernel}"
[ "$sk_ok" = 1 ] && ok "killed program gone (pid $sk_pid)" || bad "killed program still ran after SIGKILL (pid $sk_pid)"
cp sk.db sk-copy.db 2>/dev/null; [ -e sk.db-wal ] && cp sk.db-wal sk-copy.db-wal
expect "killed report opens" sk-copy.db "PRAGMA integrity_check" ok
expect_ge "killed report launches" sk-copy.db "SELECT count(*) FROM launch" 100
expect "killed report not clean" sk-copy.db "SELECT clean_exit FROM run" 0

# 8. Fault injection: the program runs on, the report says why.
for f in subscribe:CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED counter_availability:CUPTI_ERROR_INSUFFICIENT_PRIVILEGES \
         device_supported:CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED range_enable:CUPTI_ERROR_INSUFFICIENT_PRIVILEGES \
         range_start:CUPTI_ERROR_HARDWARE_BUSY; do
    site=${f%%:*}
    GPUHIER_FAULT=$f gh f-$site.db "$gpu/multistream" 20 > f.out 2> f-$site.err; st=$?
    [ $st = 0 ] && ok "fault $site: exit 0" || bad "fault $site: exit $st"
    [ "$(grep -c '==gpuhier==' f-$site.err)" -ge 1 ] && ok "fault $site: $(grep '==gpuhier==' f-$site.err | head -1)" || bad "fault $site: no message"
    expect "fault $site limited" f-$site.db "SELECT profiling_limited IS NOT NULL FROM run" 1
    expect "fault $site event" f-$site.db "SELECT count(*) > 0 FROM event WHERE level IN ('warning','error')" 1
    expect "fault $site not profiled" f-$site.db "SELECT count(*) FROM launch WHERE profiled = 1" 0
    [ $site != subscribe ] && expect "fault $site still traced" f-$site.db "SELECT count(*) FROM launch" 160
done

# 8a. Busy counters are transient: the first start is refused, the launches after it are deferred
# (counters_busy) and both configurations are profiled later. 5000 launches a thread, so the
# program still launches when the first backoff (10 ms) has passed.
GPUHIER_FAULT=range_start:CUPTI_ERROR_HARDWARE_BUSY:1 gh fb.db "$gpu/multistream" 5000 > fb.out 2> fb.err; st=$?
[ $st = 0 ] && ok "busy once: exit 0" || bad "busy once: exit $st: $(cat fb.err)"
grep '==gpuhier== hardware counters busy' fb.err | head -2
expect "busy once: both configs profiled later" fb.db "SELECT count(*) FROM launch WHERE profiled = 1 AND profile_reason = 'first_of_config'" 2
expect "busy once: deferred launches" fb.db "SELECT count(*) >= 1 FROM launch WHERE profile_reason = 'counters_busy' AND profiled = 0" 1
expect "busy once: said once" fb.db "SELECT count(*) FROM event WHERE code = 'hardware_busy'" 1
expect "busy once: limited says busy" fb.db "SELECT profiling_limited LIKE '%busy%' FROM run" 1
expect "busy once: all traced" fb.db "SELECT count(*) FROM launch" "$(sed -n 's/launched //p' fb.out)"
q fb.db "SELECT 'busy once: ' || profiling_limited FROM run"

# 8b. Counters really held by another process: gpu/sigkill with the profiler kept enabled
# (GPUHIER_DIAG_KEEP_ENABLED=1) holds them while it runs (docs/gpu-runs.md, session of
# 23:28 UTC); a second gpu/sigkill under the default collector is refused, defers, and
# profiles its configuration once the holder is gone. Both are killed by pid.
# Kernel replay for both, as in gh() and as recorded (docs/gpu-runs.md, session of 23:28 UTC).
sigkill_start hold GPUHIER_DIAG_KEEP_ENABLED=1 GPUHIER_REPLAY="${GPUHIER_REPLAY:-kernel}"; hold=$sk_pid
sigkill_start held GPUHIER_REPLAY="${GPUHIER_REPLAY:-kernel}"; held=$sk_pid
sleep 1; sigkill_kill $hold
sleep 4; sigkill_kill $held
kill -0 $hold 2>/dev/null || kill -0 $held 2>/dev/null && bad "busy held: a program still runs" || ok "busy held: both killed"
grep '==gpuhier==' held.err | head -3
expect_ge "busy held: deferred while held" held.db "SELECT count(*) FROM launch WHERE profile_reason = 'counters_busy'" 1
expect "busy held: profiled after" held.db "SELECT count(*) FROM launch WHERE profiled = 1 AND profile_reason = 'first_of_config'" 1
expect "busy held: limited says busy" held.db "SELECT profiling_limited LIKE '%busy%' FROM run" 1
q held.db "SELECT 'busy held: refused then profiled at launch ' || (SELECT min(id) FROM launch WHERE profiled = 1) || ' of ' || count(*) FROM launch"

# 9. Quiet, refusing to overwrite, forcing, session file.
GPUHIER_QUIET=1 gh ms.db "$gpu/multistream" 10 > qo.out 2> qo.err
grep -q '==gpuhier==' qo.err && bad "quiet still prints" || ok "quiet"
grep -q "exists" qo.err && bad "quiet printed refusal" || true
gh ms.db "$gpu/multistream" 10 > ow.out 2> ow.err
grep -q "exists" ow.err && ok "refuses to overwrite: $(grep exists ow.err)" || bad "no refusal: $(cat ow.err)"
expect "report unchanged" ms.db "SELECT count(*) FROM launch" "$n"
GPUHIER_FORCE=1 gh ms.db "$gpu/multistream" 10 > fo.out 2> fo.err
expect "forced overwrite" ms.db "SELECT count(*) FROM launch" 80
grep -c "^start" session.txt > /dev/null && ok "session file: $(grep -c '^start' session.txt) start, $(grep -c '^end' session.txt) end lines" || bad "no session file"
tail -1 session.txt

# 10. A second CUPTI subscriber for real: torch.profiler started before CUDA.
if python3 -c 'import torch' 2>/dev/null; then
    gh tp.db python3 "$src/tests/gpu/torch_second_subscriber.py" > tp.out 2> tp.err; st=$?
    [ $st = 0 ] && ok "torch.profiler program exit 0: $(tr '\n' ' ' < tp.out)" || bad "torch.profiler program exit $st: $(tail -3 tp.err)"
    grep '==gpuhier==' tp.err | head -2
    if [ -f tp.db ]; then q tp.db "SELECT 'profiling_limited: ' || ifnull(profiling_limited, 'NULL') || '; launches ' || (SELECT count(*) FROM launch) FROM run"; fi
fi

t1=$(date +%s.%N)
echo "t150: $(python3 -c "print(round($t1-$t0,1))") s"
[ $fail = 0 ] && echo "t150: all checks passed" || echo "t150: FAILURES"
exit $fail
