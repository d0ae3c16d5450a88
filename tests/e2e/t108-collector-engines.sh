#!/bin/sh
# The counter engines without a GPU (issue 17 points 2, 8, 9): the real
# collector in a program on a fake driver and CUPTI (FAKE_CUDA,
# tests/unit/collector_fake_cuda.c; FAKE_HOST, collector_fake_host.c),
# injected as the driver does it. The range profiler's permission probe
# is refused with GPUHIER_FAULT (docs/fault-injection.md); the SASS
# metrics the fake returns are synthetic counts, so these checks are
# about which engine served what and what the report says, never about
# values a GPU measured.
set -u
# GPUHIER_COLLECTOR: another build of the collector (the ThreadSanitizer twin, e2e.*-tsan)
lib=${GPUHIER_COLLECTOR:-${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so}
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
: "${FAKE_CUDA:?}" "${FAKE_HOST:?}"
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
q() { sqlite3 "$tmp/$1.db" "$2"; }
# run NAME [stuck|loop|longname|reset|bg|overlap|cluster|conditional|seen|again|hostarg] VAR=VALUE...: the fake program under the collector,
# 20 s at most (violations=RE before NAME: that many calls CUPTI refuses or hangs in, a grep pattern,
# not 0; soname=1 before NAME: the program opens the fake as libcuda.so.1, so the collector finds
# the driver calls it looks up by that name, as in a real program)
mkdir "$tmp/lib" && ln -s "$FAKE_CUDA" "$tmp/lib/libcuda.so.1"
run() {
    n=$1; shift
    arg=
    case "${1:-}" in
    stuck | loop | longname | reset | bg | threads | overlap | cluster | conditional | seen | again | hostarg) arg=$1; shift ;;
    replay) arg="replay $2"; shift 2 ;;
    esac
    driver=$FAKE_CUDA
    [ -n "${soname:-}" ] && driver=libcuda.so.1
    env -u GPUHIER_FAULT -u GPUHIER_INSTRUMENT CUDA_INJECTION64_PATH="$lib" \
        GPUHIER_CUPTI_PATH="$FAKE_CUDA" GPUHIER_OUTPUT="$tmp/$n.db" LD_LIBRARY_PATH="$tmp/lib" "$@" \
        timeout 20 "$FAKE_HOST" "$driver" $arg > "$tmp/$n.out" 2> "$tmp/$n.err"
    rc=$?
    [ $rc = 0 ] || bad "$n: exit status $rc: $(cat "$tmp/$n.err")"
    grep -q "^fake_violations=${violations:-0}\$" "$tmp/$n.out" || bad "$n: calls CUPTI refuses: $(cat "$tmp/$n.out" "$tmp/$n.err")"
}
meta() { q "$1" "SELECT value FROM meta WHERE key = '$2'"; }
expect() { # expect NAME WHAT GOT WANT
    [ "$3" = "$4" ] && echo "ok   $1: $2" || bad "$1: $2: got '$3', want '$4'"
}
like() { # like NAME WHAT GOT PATTERN
    case "$3" in $4) echo "ok   $1: $2" ;; *) bad "$1: $2: got '$3', want '$4'" ;; esac
}
perm=counter_availability:CUPTI_ERROR_INSUFFICIENT_PRIVILEGES

# 1. The range profiler alone (GPUHIER_INSTRUMENT=0), counters refused: traced, and the report
#    says which engine.
run norperm GPUHIER_INSTRUMENT=0 GPUHIER_FAULT=$perm
expect norperm "every launch traced (6 stream, 6 graph nodes)" "$(q norperm "SELECT count(*) FROM launch")" 12
expect norperm "engines" "$(meta norperm engines)" "range profiler"
like norperm "range profiler refused" "$(meta norperm engine_range_profiler)" \
    "refused: no permission to read GPU counters (ERR_NVGPUCTRPERM): cuptiProfilerGetCounterAvailability failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
like norperm "instrumentation not used" "$(meta norperm engine_instrumentation)" "not used: *"
expect norperm "no counts" "$(q norperm "SELECT count(*) FROM inst_launch")" 0
expect norperm "first launches profiler_unavailable" \
    "$(q norperm "SELECT count(*) FROM launch WHERE profile_reason = 'profiler_unavailable'")" 2
grep -q "tracing continues without hardware counters" "$tmp/norperm.err" || bad "norperm: stderr: $(cat "$tmp/norperm.err")"

# 2. Both engines (GPUHIER_INSTRUMENT=both, as unset: the default), counters refused: the instrumentation
#    engine takes each configuration's first launch and the first launch of the executable
#    graph, the range profiler (refused) the configuration's next one; tracing goes on. The
#    config stays set: the fake plays the H200, where a second SetConfig in a process fails
#    (CUPTI_ERROR_OUT_OF_MEMORY, case 2b); kept, there is one SetConfig. The graph is armed
#    while it is instantiated (GPUHIER_DIAG_SASS_GRAPHS=instantiate: the fake, like the H200,
#    patches a graph's nodes only then; case 4c has the launch-only arming).
run both GPUHIER_INSTRUMENT=both GPUHIER_DIAG_SASS_GRAPHS=instantiate GPUHIER_FAULT=$perm
expect both "one SetConfig, kept" "$(grep '^fake_sass_configs=' "$tmp/both.out")" "fake_sass_configs=1"
expect both "engines" "$(meta both engines)" "instrumentation + range profiler"
like both "range profiler refused" "$(meta both engine_range_profiler)" "refused: no permission*INSUFFICIENT_PRIVILEGES"
expect both "instrumentation ran" "$(meta both engine_instrumentation)" "ran: 2 launches, 1 graph launch"
expect both "every launch traced" "$(q both "SELECT count(*) FROM launch")" 12
expect both "which launch each engine got" \
    "$(q both "SELECT group_concat(profile_reason, ',') FROM (SELECT profile_reason FROM launch WHERE graph_id IS NULL ORDER BY id)")" \
    "instrumented,profiler_unavailable,sampled_out,instrumented,profiler_unavailable,sampled_out"
expect both "stream launches instrumented: the configurations' first" \
    "$(q both "SELECT group_concat(l.config_launch_index || ':' || i.reason, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id WHERE i.graph_corr IS NULL")" \
    "0:first_of_config,0:first_of_config"
expect both "instrumented launches keep no times" \
    "$(q both "SELECT count(*) FROM launch WHERE profile_reason = 'instrumented' AND start_ns IS NOT NULL")" 0
# graph: the first launch of the executable only; each function's counts on its first node
expect both "graph nodes of the first graph launch instrumented" \
    "$(q both "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'instrumented'")" 3
expect both "the second graph launch not" \
    "$(q both "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'graph'")" 3
expect both "graph rows keyed by the graph launch's correlation id, one per function" \
    "$(q both "SELECT group_concat(k.mangled_name || '=' || i.graph_nodes, ',') FROM inst_launch i JOIN kernel k ON k.id = i.kernel_id JOIN launch l ON l.id = i.launch_id WHERE i.reason = 'graph' AND i.graph_corr = l.correlation_id ORDER BY i.launch_id")" \
    "_Z4copyPfPKf=1,_Z4nodePf=2"
# the fake counts 16 warp instructions per node at pc 0x10: two nodes of _Z4nodePf sum 32
expect both "a function's counts sum its nodes" \
    "$(q both "SELECT inst_executed FROM v_inst WHERE function = '_Z4nodePf' AND pc = 16")" 32
# executed instructions are written as runs (schema.sql inst_run): none left per instruction
expect both "executed instructions as runs" \
    "$(q both "SELECT (SELECT count(*) FROM inst_count c JOIN metric_name m ON m.id = c.metric_id WHERE m.name IN ('smsp__sass_inst_executed', 'smsp__sass_thread_inst_executed')) || ':' || (SELECT count(*) > 0 FROM inst_run)")" 0:1
# the runs failing (GPUHIER_FAULT=inst_runs): the counts stay per instruction, read the same, and the
# report says so
run bothnoruns GPUHIER_INSTRUMENT=both GPUHIER_DIAG_SASS_GRAPHS=instantiate GPUHIER_FAULT=$perm,inst_runs:UNKNOWN
vi="SELECT group_concat(function || ':' || pc || '=' || inst_executed || '/' || COALESCE(thread_inst_executed, '-') || '/' || global_sectors, ',') FROM (SELECT * FROM v_inst ORDER BY function, pc)"
like both "v_inst has counts to compare" "$(q both "$vi")" "*_Z4nodePf:16=32/*"
# the thread instruction count is not asked (2026-12-06): NULL, not 0, on an executed instruction
expect both "thread instructions read as not collected" \
    "$(q both "SELECT count(*) FROM v_inst WHERE inst_executed > 0 AND thread_inst_executed IS NOT NULL")" 0
expect bothnoruns "the counts per instruction read as the runs do" "$(q bothnoruns "$vi")" "$(q both "$vi")"
expect bothnoruns "no run written, the rows kept" \
    "$(q bothnoruns "SELECT (SELECT count(*) FROM inst_run) || ':' || (SELECT count(*) > 0 FROM inst_count c JOIN metric_name m ON m.id = c.metric_id WHERE m.name = 'smsp__sass_inst_executed')")" 0:1
like bothnoruns "the event says so" "$(q bothnoruns "SELECT message FROM event WHERE code = 'inst_runs_failed'")" \
    "*instrumented launches' counts stayed one row per instruction and metric (writing their compact form failed: injected*"
# with a count (inst_runs:UNKNOWN:1) only the first launch row's runs fail: the others are runs
run bothruns1 GPUHIER_INSTRUMENT=both GPUHIER_DIAG_SASS_GRAPHS=instantiate GPUHIER_FAULT=$perm,inst_runs:UNKNOWN:1
expect bothruns1 "the counts read as the runs do" "$(q bothruns1 "$vi")" "$(q both "$vi")"
expect bothruns1 "one launch row per instruction, the others as runs" \
    "$(q bothruns1 "SELECT (SELECT count(DISTINCT c.launch_id) FROM inst_count c JOIN metric_name m ON m.id = c.metric_id WHERE m.name = 'smsp__sass_inst_executed') || ':' || (SELECT count(*) > 0 FROM inst_run)")" 1:1
like bothruns1 "the event counts one launch" "$(q bothruns1 "SELECT message FROM event WHERE code = 'inst_runs_failed'")" "1 instrumented launches'*"
expect both "the graph's overhead on its first row only" \
    "$(q both "SELECT count(overhead_ns) FROM inst_launch WHERE reason = 'graph'")" 1
grep -q "the instrumentation engine still tries its launches" "$tmp/both.err" || bad "both: stderr: $(cat "$tmp/both.err")"

# The readers: the summary (TUI and `gpuhier report`) and the JSON export say which engine ran.
G=$GPUHIER_BINARY_DIR/gpuhier
if [ -x "$G" ]; then
    "$G" report "$tmp/both.db" > "$tmp/both.summary" 2>&1 || bad "both: gpuhier report failed: $(cat "$tmp/both.summary")"
    tr '\n' ' ' < "$tmp/both.summary" | tr -s ' ' > "$tmp/both.flat"
    for want in "Engines range profiler: refused: no permission to read GPU counters (ERR_NVGPUCTRPERM): cuptiProfilerGetCounterAvailability failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" \
        "instrumentation: ran on 2 launches and 1 graph launch (3 configurations)"; do
        grep -qF "$want" "$tmp/both.flat" && echo "ok   both: summary says '$want'" || bad "both: summary lacks '$want': $(cat "$tmp/both.summary")"
    done
    "$G" export --format json "$tmp/both.db" > "$tmp/both.json" 2> "$tmp/both.jerr" || bad "both: export failed: $(cat "$tmp/both.jerr")"
    got=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["engines"]; r, i = e["range_profiler"], e["instrumentation"]; print(e["asked"], e["derived"], r["state"].split(":")[0], r["launches"], i["state"].split(":")[0], i["launches"], i["graph_launches"], sep="|")' "$tmp/both.json" 2>&1)
    expect both "JSON engines" "$got" "instrumentation + range profiler|False|refused|0|ran|2|1"
fi

# 2b. Both engines with the config unset after every instrumented launch
#     (GPUHIER_DIAG_SASS_UNSET_CONFIG=1, as `both` did before 2026-12-03):
#     the second configuration's SetConfig fails with CUPTI_ERROR_OUT_OF_MEMORY, as on the H200
#     (always, docs/collector.md "Both engines in one process"); the instrumentation engine
#     stops after the first configuration and the range profiler takes the rest.
run bothoom GPUHIER_INSTRUMENT=both GPUHIER_DIAG_SASS_UNSET_CONFIG=1 GPUHIER_DIAG_SASS_GRAPHS=1 GPUHIER_FAULT=$perm
expect bothoom "instrumentation failed at the second SetConfig" "$(meta bothoom engine_instrumentation)" \
    "failed: cuptiSassMetricsSetConfig failed: CUPTI_ERROR_OUT_OF_MEMORY"
expect bothoom "the first configuration instrumented, no other" \
    "$(q bothoom "SELECT group_concat(l.config_launch_index || ':' || i.reason, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id")" \
    "0:first_of_config"
expect bothoom "SetConfig twice, UnsetConfig once" \
    "$(grep '^fake_sass_' "$tmp/bothoom.out" | tr '\n' ' ')" "fake_sass_configs=2 fake_sass_unsets=1 "
expect bothoom "every launch traced" "$(q bothoom "SELECT count(*) FROM launch")" 12

# 2c. The instrumentation window (GPUHIER_INSTRUMENT=phased, docs/collector.md "The
#     instrumentation window"): on a loop of 20 rounds of three configurations, each
#     configuration's first launch is instrumented under one SetConfig; the window closes at
#     the 11th launch (8 launches, the floor, since the last new configuration at launch 3),
#     the instrumentation engine unsets its config once and retires, and only then does the
#     (fake) range profiler profile launches; never a Start while a SASS config is set
#     (run's fake_violations=0: the fake counts that as the H200's deadlock).
run phased loop GPUHIER_INSTRUMENT=phased FAKE_RANGEPROF=1
expect phased "one SetConfig, one UnsetConfig" \
    "$(grep '^fake_sass_' "$tmp/phased.out" | tr '\n' ' ')" "fake_sass_configs=1 fake_sass_unsets=1 "
expect phased "engines" "$(meta phased engines)" "instrumentation, then range profiler"
expect phased "every launch traced" "$(q phased "SELECT count(*) FROM launch")" 60
expect phased "every configuration's first launch instrumented" \
    "$(q phased "SELECT count(*) || ':' || group_concat(l.config_launch_index, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id")" \
    "3:0,0,0"
expect phased "launches chosen in the window given back, up to the close" \
    "$(q phased "SELECT count(*) || ':' || min(id) || '-' || max(id) FROM launch WHERE profile_reason = 'instrumentation_window'")" \
    "7:4-10"
np=$(q phased "SELECT count(*) FROM launch WHERE profiled = 1")
[ "${np:-0}" -gt 0 ] 2>/dev/null && echo "ok   phased: $np launches range-profiled" || bad "phased: profiled launches '$np'"
expect phased "every range-profiled launch after the last instrumented one" \
    "$(q phased "SELECT count(*) FROM launch WHERE profiled = 1 AND id <= (SELECT max(launch_id) FROM inst_launch)")" 0
# after the window the range profiler takes one-pass groups, as alone (it fell back to the
# core set under kernel replay, 3 passes a profile, until 2026-12-01)
expect phased "range profiles are one-pass groups" \
    "$(q phased "SELECT count(*) FROM profile WHERE metric_set NOT LIKE 'group%/%' OR passes <> 1")" 0
expect phased "the first range-profiled launch is the one that closed the window" \
    "$(q phased "SELECT min(id) FROM launch WHERE profiled = 1")" 11
expect phased "instrumentation state" "$(meta phased engine_instrumentation)" \
    "ran: 3 launches (window closed after 10 launches)"
like phased "range profiler ran" "$(meta phased engine_range_profiler)" "ran: *"
expect phased "the window's event" "$(q phased "SELECT message FROM event WHERE code = 'instrumentation_window'")" \
    "pattern counters on 3 configurations during the first 10 launches; 0 configurations first launched after the window have none"

#     Both engines on a loop with a range profiler that runs: each configuration's first launch
#     instrumented under one SetConfig, kept; later launches take the range profiler's
#     one-pass groups while the config is set, which the H200 ran with activity records in
#     pinned host memory (2026-12-03: 8 of 8 PyTorch benchmark runs ended, bench/inst_hang.py,
#     docs/gpu-runs.md): no violation.
run bothloop loop GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1
expect bothloop "one SetConfig, never unset" \
    "$(grep '^fake_sass_' "$tmp/bothloop.out" | tr '\n' ' ')" "fake_sass_configs=1 fake_sass_unsets=0 "
expect bothloop "engines" "$(meta bothloop engines)" "instrumentation + range profiler"
expect bothloop "activity records in pinned host memory" "$(meta bothloop activity_buffer)" "host-pinned"
expect bothloop "every configuration's first launch instrumented" \
    "$(q bothloop "SELECT count(*) || ':' || group_concat(l.config_launch_index, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id")" \
    "3:0,0,0"
np=$(q bothloop "SELECT count(*) FROM launch WHERE profiled = 1")
[ "${np:-0}" -gt 0 ] 2>/dev/null && echo "ok   bothloop: $np launches range-profiled" || bad "bothloop: profiled launches '$np'"
expect bothloop "range profiles are one-pass groups" \
    "$(q bothloop "SELECT count(*) FROM profile WHERE metric_set NOT LIKE 'group%/%' OR passes <> 1")" 0
expect bothloop "no launch both instrumented and range-profiled" \
    "$(q bothloop "SELECT count(*) FROM launch WHERE profiled = 1 AND id IN (SELECT launch_id FROM inst_launch)")" 0

#     GPUHIER_DIAG_RP_SETTLE (diagnosis): the range profiler's groups wait for the loop to
#     repeat itself (3 configurations, then as many launches of repeats: launch 6 on) and then
#     go by GPU time; every configuration is still instrumented at its first launch.
run settle loop GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_RP_SETTLE=60000
expect settle "every configuration's first launch instrumented" \
    "$(q settle "SELECT count(*) FROM inst_launch")" 3
np=$(q settle "SELECT count(*) FROM launch WHERE profiled = 1")
[ "${np:-0}" -gt 0 ] 2>/dev/null && echo "ok   settle: $np launches range-profiled" || bad "settle: profiled launches '$np'"
expect settle "no range profile before the repeat" \
    "$(q settle "SELECT count(*) FROM launch WHERE profiled = 1 AND id < 6")" 0
expect settle "launches deferred meanwhile" \
    "$(q settle "SELECT count(*) > 0 FROM launch WHERE profile_reason = 'profile_budget' AND id < 6")" 1

#     The three switches the next device A/B runs together (docs/gpu-runs.md, session of
#     2026-12-04 07:36 UTC): the kept session, the settle wait, sticky groups. On the fake's
#     one-group plan this checks that they combine: every configuration instrumented at its
#     first launch, the range profiles after the repeat, as user ranges of one kept session
#     (one enable, one drain of 3 ranges), no call CUPTI refuses.
run batched loop GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DEBUG=1 GPUHIER_DIAG_SESSION=kept \
    GPUHIER_DIAG_RP_SETTLE=60000 GPUHIER_DIAG_STICKY_GROUPS=1
expect batched "instrumented, then profiled after the repeat" \
    "$(q batched "SELECT (SELECT group_concat(launch_id) FROM inst_launch) || ' ' || (SELECT group_concat(launch_id) FROM profile)")" "1,2,3 6,7,8"
expect batched "one enable" "$(meta batched profiler_enables)" 1
expect batched "kept ranges" "$(grep -c 'profiled: kept range' "$tmp/batched.err")" 3
grep -q "kept session drained: ranges 3 of 3 dropped 0" "$tmp/batched.err" || bad "batched: the drain: $(grep kept "$tmp/batched.err")"

#     GPUHIER_DIAG_RP_THROUGH_INST (diagnosis): the range profiler stays enabled through the
#     strided configuration's instrumented first launch (launch 4, between the profiles of
#     launches 2 and 5), so the profiles pay one enable, not two; with hold 0 the hold still
#     ends it at that launch. The fake refuses a Disable of a started range, so a range left
#     started across the instrumented launch would fail the run; and it counts the one SASS
#     Enable while the range profiler is enabled, the combination that crashed the H200 (the
#     switch's own doing; every other case, the graph arming's among them, must never do it).
violations=1 run through GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_RP_THROUGH_INST=1 GPUHIER_DIAG_SASS_GRAPHS=off
run throughq GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1
run through0 GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_RP_THROUGH_INST=1 GPUHIER_PROFILER_HOLD_MS=0
expect through "instrumented, then profiled" \
    "$(q through "SELECT (SELECT group_concat(launch_id) FROM inst_launch) || ' ' || (SELECT group_concat(launch_id) FROM profile)")" "1,4 2,5"
expect through "one enable" "$(meta through profiler_enables)" 1
expect throughq "two enables without the switch" "$(meta throughq profiler_enables)" 2
#     ... and in the default the graph's instantiation, which comes within the profiler hold of
#     launch 5's profile, is armed through the sampler: the range profiler quiesced first (the
#     fake counts a SASS Enable beside an enabled range profiler), the graph counted.
expect throughq "the graph armed after the profiles" \
    "$(q throughq "SELECT substr(message, 1, 2) FROM event WHERE code = 'graph_instantiations_armed'")" "1 "
expect throughq "its first launch counted" \
    "$(q throughq "SELECT count(*) > 0 FROM inst_launch WHERE reason = 'graph'")" 1
expect through0 "two enables with hold 0" "$(meta through0 profiler_enables)" 2
# meta profiler_disables says why each enable was needed again: without the switch the
# instrumented launch 4 quiesced the range profiler (the second enable), then the graph's arming;
# with the switch and hold 0 the instrumented launch disables it by the hold's rule instead
expect throughq "why the profiler was disabled" "$(meta throughq profiler_disables)" "quiesce=2"
expect through0 "why the profiler was disabled" "$(meta through0 profiler_disables)" "hold=2"
grep -q "GPUHIER_DIAG_RP_THROUGH_INST" "$tmp/through.err" || bad "through: the switch not said: $(cat "$tmp/through.err")"

#     cudaDeviceReset under both engines (the config kept set): the engine
#     retires at CONTEXT_DESTROY_STARTING (Disable, the one UnsetConfig), so no config
#     outlives its context (the fake counts that as a violation: on the H200 every such run
#     died by SIGSEGV at exit, 2026-12-03), and the meta says why it stopped.
run reset reset GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1
expect reset "one SetConfig, unset at the reset" \
    "$(grep '^fake_sass_' "$tmp/reset.out" | tr '\n' ' ')" "fake_sass_configs=1 fake_sass_unsets=1 "
like reset "the meta says why" "$(meta reset engine_instrumentation)" "ran: 2 launches (a context was destroyed*"
#     ... and the range profiler's host objects were built at the first launch, though it never
#     profiled (rangeprof_prepare(): nvperf's first build must not wait for a later launch that
#     may come on another thread while the program exits; bench/stress bg on the H200)
like reset "host objects built at the first launch" "$(meta reset metric_groups):$(q reset "SELECT count(*) FROM profile")" "[1-9]*:0"
#     ... and with chained launches (GPUHIER_DIAG_SASS_CHAIN=1) strided runs in copy's enable,
#     left open to the reset: the reset's API ENTER shuts it, so the context's destruction never
#     begins with SASS metrics enabled (a Disable in the resource callback: the fake counts that
#     as a violation), and both launches keep their counts
run resetchain reset GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_SASS_CHAIN=1
expect resetchain "one enable, both instrumented with counts, unset at the reset" \
    "$(grep '^fake_enables=' "$tmp/resetchain.out"):$(q resetchain "SELECT count(DISTINCT launch_id) FROM inst_count"):$(grep '^fake_sass_unsets=' "$tmp/resetchain.out")" \
    "fake_enables=1:2:fake_sass_unsets=1"
#     main returns while another thread launches (bench/stress's bg row), every launch chosen
#     (--sample all) and a slow range-profiler Start (20 ms), so the exit begins while that
#     thread's launch is being profiled: the
#     launch's EXIT still reaches the engine, and the exit waits for it before it stops the
#     engines. Before 2026-12-03's fix the EXIT was dropped once the collector was off: the
#     range stayed started, the exit unset the SASS config under it (a violation), and on the
#     H200 every such run under both engines died by SIGSEGV (GPUHIER_DIAG_EXIT_NO_WAIT=1
#     plays that collector: `bgold` below must fail the fake's checks; it plays it with that
#     day's session per profiled launch, whose 20 ms Start at every launch makes the exit land
#     in one: under the kept session a Start comes once a session, and the exit fell between
#     ranges in 1 of 3 loaded runs here, so the check passed by chance).
for m in both 0; do
    run bg$m bg GPUHIER_INSTRUMENT=$m GPUHIER_SAMPLE=all FAKE_RANGEPROF=1 FAKE_RANGEPROF_START_MS=20
    expect bg$m "no range left started" "$(grep '^fake_rangeprof_started=' "$tmp/bg$m.out")" "fake_rangeprof_started=0"
    expect bg$m "clean exit" "$(q bg$m "SELECT clean_exit FROM run")" 1
    np=$(q bg$m "SELECT count(*) FROM launch WHERE profiled = 1")
    [ "${np:-0}" -gt 0 ] 2>/dev/null && echo "ok   bg$m: $np launches range-profiled" || bad "bg$m: profiled launches '$np'"
done
expect bgboth "the SASS config unset once, at the exit" \
    "$(grep '^fake_sass_' "$tmp/bgboth.out" | tr '\n' ' ')" "fake_sass_configs=1 fake_sass_unsets=1 "
#     Whether that exit lands in a started range is timing (the fake's Start sleeps 20 ms before
#     the range starts): on a loaded machine a run can land between ranges (a clean-clone
#     .ci/run of 2026-12-05 16:03 UTC: 7 launches traced, no range started at the exit). The check is
#     that the old collector can be caught, so it gets up to 3 runs and passes at the first
#     caught; a fake that never catches it fails all 3.
caught=0
for a in 1 2 3; do
    env -u GPUHIER_FAULT -u GPUHIER_INSTRUMENT CUDA_INJECTION64_PATH="$lib" GPUHIER_CUPTI_PATH="$FAKE_CUDA" \
        GPUHIER_OUTPUT="$tmp/bgold$a.db" LD_LIBRARY_PATH="$tmp/lib" GPUHIER_INSTRUMENT=both GPUHIER_SAMPLE=all \
        GPUHIER_DIAG_EXIT_NO_WAIT=1 GPUHIER_DIAG_SESSION=launch FAKE_RANGEPROF=1 FAKE_RANGEPROF_START_MS=20 \
        timeout 20 "$FAKE_HOST" "$FAKE_CUDA" bg > "$tmp/bgold.out" 2> "$tmp/bgold.err"
    if grep -q '^fake_violations=[1-9]' "$tmp/bgold.out" && grep -q '^fake_rangeprof_started=1$' "$tmp/bgold.out" &&
        grep -q 'cuptiSassMetricsUnsetConfig while the range profiler is started' "$tmp/bgold.err"; then
        caught=$a
        break
    fi
    echo "bgold: run $a not caught: $(tr '\n' ' ' < "$tmp/bgold.out")$(tail -1 "$tmp/bgold.err")"
done
[ "$caught" != 0 ] && echo "ok   bgold: the check can fail: a range left started, the fake says why (run $caught of 3)" ||
    bad "bgold: the old exit was not caught in 3 runs: $(cat "$tmp/bgold.out" "$tmp/bgold.err")"

#     The instrumentation engine's budget (GPUHIER_INSTRUMENT_ALLOWANCE_MS, _BUDGET): with no
#     allowance and a budget no instrumented launch fits, the first configuration is
#     instrumented (nothing spent yet), the other two go to the range profiler and stay its,
#     and the event counts them.
run instbudget loop GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_INSTRUMENT_ALLOWANCE_MS=0 GPUHIER_INSTRUMENT_BUDGET=0.000001
expect instbudget "only the first configuration instrumented" \
    "$(q instbudget "SELECT count(*) || ':' || group_concat(l.config_launch_index, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id")" \
    "1:0"
expect instbudget "the other two range-profiled from their first launch" \
    "$(q instbudget "SELECT count(DISTINCT l.config_id) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.config_launch_index = 0")" 2
like instbudget "the event" "$(q instbudget "SELECT message FROM event WHERE code = 'instrumentation_budget'")" \
    "2 configurations have no exact per-instruction counts: *"
# 2c'. Past the allowance a configuration waits until its third launch and until its price fits
#      what the budget has left (docs/sampling.md "The instrumentation engine's price"): a
#      replayed program (1 ms kernels on the fake's clock, the patched run 100x the kernel by
#      FAKE_COST, a budget of 1000 % so that the slack holds a price at once): `a` twice
#      (instrumented at its first launch, within the allowance of 0 ms; its second launch's time
#      teaches the slowdown), `b` twice (an autotuner's candidate: never instrumented), `c` 40
#      times 50 ms apart (instrumented at its third launch). The slowdown is learned from a, then
#      c: (100 - 5 ms) / 1 ms, and what the engine adds (more under a sanitizer).
printf 'start 0\n' > "$tmp/price.txt"
for i in 1 2; do printf '_Z1aPf 4 1 1 128 1 1 0 1000000 10000000\n' >> "$tmp/price.txt"; done
for i in 1 2; do printf '_Z1bPf 4 1 1 128 1 1 0 1000000 10000000\n' >> "$tmp/price.txt"; done
i=0; while [ $i -lt 40 ]; do printf '_Z1cPf 4 1 1 128 1 1 0 1000000 50000000\n' >> "$tmp/price.txt"; i=$((i + 1)); done
run instprice replay "$tmp/price.txt" GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 FAKE_COST=sass_run_x=100 \
    GPUHIER_INSTRUMENT_ALLOWANCE_MS=0 GPUHIER_INSTRUMENT_BUDGET=1000
expect instprice "a at its first launch, c at its third, b never" \
    "$(q instprice "SELECT group_concat(k.mangled_name || ':' || l.config_launch_index || ':' || i.reason, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id JOIN kernel k ON k.id = i.kernel_id")" \
    "_Z1aPf:0:first_of_config,_Z1cPf:2:inst_deferred"
like instprice "the event counts b" "$(q instprice "SELECT message FROM event WHERE code = 'instrumentation_budget'")" \
    "1 configuration has no exact per-instruction counts: *"
like instprice "the price learned from a" "$(meta instprice instrumentation_price)" \
    "5.0 ms and 9[5-9]x the native time (learned from 2 configurations); 1 launch instrumented past the allowance, 1 configuration waited to the end"
# ... and `gpuhier run` says so under its coverage line, in the collector's words (its own
# collector: not under a sanitizer twin's GPUHIER_COLLECTOR).
if [ -z "${GPUHIER_COLLECTOR:-}" ]; then
    env -u GPUHIER_FAULT -u GPUHIER_INSTRUMENT GPUHIER_CUPTI_PATH="$FAKE_CUDA" FAKE_RANGEPROF=1 \
        FAKE_COST=sass_run_x=100 GPUHIER_INSTRUMENT_ALLOWANCE_MS=0 GPUHIER_INSTRUMENT_BUDGET=1000 \
        timeout 30 "$GPUHIER_BINARY_DIR/gpuhier" run -o "$tmp/runprice.db" -f -- \
        "$FAKE_HOST" "$FAKE_CUDA" replay "$tmp/price.txt" > "$tmp/runprice.out" 2> "$tmp/runprice.err" ||
        bad "runprice: gpuhier run failed: $(cat "$tmp/runprice.err")"
    like runprice "gpuhier run's summary says which configurations waited" \
        "$(grep 'per-instruction' "$tmp/runprice.err")" \
        "==gpuhier==   *runprice.db: 1 configuration has no exact per-instruction counts: they came after *"
fi
# 2c''. Within the allowance a first launch is taken blind, unless another configuration of the
#      same kernel cost more than a tenth of the allowance to instrument (XLA's autotuning
#      candidates of one fusion, docs/sampling.md "Siblings of a dear configuration"): `a` at grid 4
#      (3 ms, patched 300 ms) twice, instrumented at its first launch; `d` twice, another kernel,
#      instrumented at its first; `a` at grid 8 twice, a sibling: never; `a` at grid 16 40 times:
#      at its third launch, as past the allowance.
printf 'start 0\n' > "$tmp/sibling.txt"
for i in 1 2; do printf '_Z1aPf 4 1 1 128 1 1 0 3000000 10000000\n' >> "$tmp/sibling.txt"; done
for i in 1 2; do printf '_Z1dPf 4 1 1 128 1 1 0 1000000 10000000\n' >> "$tmp/sibling.txt"; done
for i in 1 2; do printf '_Z1aPf 8 1 1 128 1 1 0 1000000 10000000\n' >> "$tmp/sibling.txt"; done
i=0; while [ $i -lt 40 ]; do printf '_Z1aPf 16 1 1 128 1 1 0 1000000 50000000\n' >> "$tmp/sibling.txt"; i=$((i + 1)); done
run sibling replay "$tmp/sibling.txt" GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 FAKE_COST=sass_run_x=100
expect sibling "a at grid 4 and d at their first launch, a at grid 16 at its third, a at grid 8 never" \
    "$(q sibling "SELECT group_concat(k.mangled_name || ':' || c.grid_x || ':' || l.config_launch_index || ':' || i.reason, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id JOIN kernel k ON k.id = i.kernel_id JOIN config c ON c.id = l.config_id")" \
    "_Z1aPf:4:0:first_of_config,_Z1dPf:4:0:first_of_config,_Z1aPf:16:2:inst_deferred"
#      Chained instrumented launches (GPUHIER_DIAG_SASS_CHAIN=1, docs/collector.md "Chained
#      instrumented launches"): a program's new configurations in a row share one enable. a, b, c
#      new; a again (the range profiler: the enable is shut before it); d at grid 4, d at grid 8
#      (the same function: an enable of its own, as CUPTI collects a function at its first run in
#      an enable), e new; b again; f new, left enabled at the exit (the default since
#      2026-12-05). With GPUHIER_DIAG_SASS_CHAIN=0 every instrumented launch has its own enable.
#      The fake counts the launches that ran patched, and a range profiler's Start while SASS
#      metrics are enabled as a violation.
printf 'start 0\n' > "$tmp/chain.txt"
for l in a:4 b:4 c:4 a:4 d:4 d:8 e:4 b:4 f:4; do
    printf '_Z1%sPf %s 1 1 128 1 1 0 100000 1000000\n' "${l%:*}" "${l#*:}" >> "$tmp/chain.txt"
done
for c in chain nochain; do
    sw=GPUHIER_DIAG_SASS_CHAIN=0; [ $c = chain ] && sw=GPUHIER_DIAG_SASS_CHAIN=1
    run $c replay "$tmp/chain.txt" GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 $sw
    expect $c "every new configuration instrumented at its first launch" \
        "$(q $c "SELECT group_concat(k.mangled_name || ':' || c.grid_x || ':' || l.config_launch_index, ',') FROM inst_launch i JOIN launch l ON l.id = i.launch_id JOIN kernel k ON k.id = i.kernel_id JOIN config c ON c.id = l.config_id ORDER BY l.id")" \
        "_Z1aPf:4:0,_Z1bPf:4:0,_Z1cPf:4:0,_Z1dPf:4:0,_Z1dPf:8:0,_Z1ePf:4:0,_Z1fPf:4:0"
    expect $c "only they ran patched" "$(grep '^fake_patched_runs=' "$tmp/$c.out")" "fake_patched_runs=7"
    # the fake counts 4 warps a block at pc 0x10: each launch's own counts, none summed with another's
    expect $c "each launch's counts its own" \
        "$(q $c "SELECT count(*) FROM v_inst v JOIN config c ON c.id = v.config_id WHERE v.pc = 16 AND v.inst_executed = c.grid_x * 4")" 7
    expect $c "the second launches range-profiled" \
        "$(q $c "SELECT group_concat(profile_reason, ',') FROM launch WHERE config_launch_index = 1 ORDER BY id")" \
        "first_of_config,first_of_config"
done
expect chain "four enables: a (b, c), d at grid 4, d at grid 8 (e), f" \
    "$(grep '^fake_enables=' "$tmp/chain.out")" "fake_enables=4"
expect nochain "an enable an instrumented launch" "$(grep '^fake_enables=' "$tmp/nochain.out")" \
    "fake_enables=7"
like chain "the meta counts the chain" "$(meta chain instrumented_launches)|$(meta chain instrumentation_chain)" \
    "7 launches, *|3 launches ran in the enable of the launch before, 2 enables were shut for a kernel the engine did not serve"
#      With 8 threads (every thread's first launch before any second): each configuration
#      instrumented once, no call CUPTI refuses. (Which launches ran patched is the deterministic
#      case `overlap` below: here it depended on the threads' timing, 2 and 3 of 30 runs of the
#      ASan build before the arming waited for them, 0 of 60 after.)
run chainthreads threads GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_SASS_CHAIN=1 FAKE_THREADS_BARRIER=1
expect chainthreads "8 threads: two configurations, each instrumented once" \
    "$(q chainthreads "SELECT count(*), count(DISTINCT config_id) FROM inst_launch")" "2|2"
#      A launch held between the engines' look and its kernel (GPUHIER_DIAG_LAUNCH_HOLD: the
#      second copy, on another thread, 100 ms) while the instrumentation engine arms for strided
#      (20 ms later; its patched run 200 ms): the arming waits for it before its Enable, so only
#      the two instrumented launches run patched. Before 2026-12-05 the held copy ran under
#      strided's enable (3 patched, in every run; 2 and 3 of 30 runs of `threads` in the ASan
#      build). With and without the chain.
for c in overlap overlapchain; do
    sw=GPUHIER_DIAG_SASS_CHAIN=0; [ $c = overlapchain ] && sw=GPUHIER_DIAG_SASS_CHAIN=1
    run $c overlap GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_LAUNCH_HOLD=2:100 FAKE_COST=sass_run=200 $sw
    expect $c "the held launch ran unpatched" \
        "$(q $c "SELECT count(*) FROM inst_launch")|$(grep '^fake_patched_runs=' "$tmp/$c.out")" \
        "2|fake_patched_runs=2"
done
run instbudgetbad loop GPUHIER_INSTRUMENT=both GPUHIER_INSTRUMENT_BUDGET=lots 2>/dev/null || true
like instbudgetbad "a bad budget is refused" "$(cat "$tmp/instbudgetbad.err")" "*bad GPUHIER_INSTRUMENT_BUDGET 'lots'*"

#     The fake's check can fail: the same with activity records in device memory
#     (GPUHIER_DIAG_ACTIVITY_BUFFER=device) starts the range profiler while the SASS config is
#     set, the H200's deadlock: counted as a violation.
violations="[1-9][0-9]*" run bothkept loop GPUHIER_INSTRUMENT=both GPUHIER_DIAG_ACTIVITY_BUFFER=device FAKE_RANGEPROF=1
like bothkept "the fake says why" "$(cat "$tmp/bothkept.err")" "*cuptiRangeProfilerStart while a SASS metrics config is set*"

# 2d. A configuration first launched after the window (the default program, the floor 1 by
#     GPUHIER_DIAG_PHASE_REPEAT: the second copy launch closes the window): strided gets no
#     pattern counters, is range-profiled, and the event counts it.
run late GPUHIER_INSTRUMENT=phased GPUHIER_DIAG_PHASE_REPEAT=1 FAKE_RANGEPROF=1
expect late "one SetConfig, one UnsetConfig" \
    "$(grep '^fake_sass_' "$tmp/late.out" | tr '\n' ' ')" "fake_sass_configs=1 fake_sass_unsets=1 "
expect late "only copy instrumented" \
    "$(q late "SELECT group_concat(k.mangled_name, ',') FROM inst_launch i JOIN kernel k ON k.id = i.kernel_id")" "_Z4copyPfPKf"
expect late "strided range-profiled at its first launch" \
    "$(q late "SELECT l.config_launch_index || ':' || l.profile_reason FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE k.mangled_name = '_Z7stridedPfPKf' AND l.profiled = 1 ORDER BY l.id LIMIT 1")" \
    "0:first_of_config"
expect late "the window's event" "$(q late "SELECT message FROM event WHERE code = 'instrumentation_window'")" \
    "pattern counters on 1 configuration during the first 1 launch; 1 configuration first launched after the window has none"
expect late "instrumentation state" "$(meta late engine_instrumentation)" \
    "ran: 1 launch (window closed after 1 launch)"

# 2e. The instrumentation engine fails in the window (Enable refused): the window closes then,
#     as 'both' after a failure; the config set is unset, the range profiler takes over.
run phasedfail loop GPUHIER_INSTRUMENT=phased FAKE_RANGEPROF=1 GPUHIER_FAULT=sass_enable:INSUFFICIENT_PRIVILEGES
expect phasedfail "one SetConfig, one UnsetConfig" \
    "$(grep '^fake_sass_' "$tmp/phasedfail.out" | tr '\n' ' ')" "fake_sass_configs=1 fake_sass_unsets=1 "
like phasedfail "the event says it closed by the failure" \
    "$(q phasedfail "SELECT message FROM event WHERE code = 'instrumentation_window'")" \
    "pattern counters on 0 configurations during the first 1 launch (closed when the instrumentation engine failed)*"
np=$(q phasedfail "SELECT count(*) FROM launch WHERE profiled = 1")
[ "${np:-0}" -gt 0 ] 2>/dev/null && echo "ok   phasedfail: $np launches range-profiled" || bad "phasedfail: profiled launches '$np'"

# 3. Both engines, the instrumentation refused too (the fault path for what the device may answer).
run bothfail GPUHIER_INSTRUMENT=both GPUHIER_FAULT=$perm,sass_enable:INSUFFICIENT_PRIVILEGES
expect bothfail "instrumentation failed" "$(meta bothfail engine_instrumentation)" \
    "failed: cuptiSassMetricsEnable failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
expect bothfail "every launch traced" "$(q bothfail "SELECT count(*) FROM launch")" 12
expect bothfail "an instrumentation_failed event" \
    "$(q bothfail "SELECT count(*) FROM event WHERE code = 'instrumentation_failed'")" 1

# 4. Instrumentation only: every configuration's first launch, the range profiler never asked.
run inst GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SASS_GRAPHS=instantiate GPUHIER_FAULT=$perm
expect inst "the instantiation armed, and said" \
    "$(q inst "SELECT message FROM event WHERE code = 'graph_instantiations_armed'")" \
    "1 graph instantiations ran with SASS metrics enabled, so that their kernel nodes run patched"
like inst "range profiler not used" "$(meta inst engine_range_profiler)" "not used: GPUHIER_INSTRUMENT=1*"
expect inst "instrumentation ran" "$(meta inst engine_instrumentation)" "ran: 2 launches, 1 graph launch"
like inst "kernels traced concurrently, serialized while served (the SASS counts need it)" "$(meta inst kernel_activity)" "concurrent, serialized*only while a launch was served (instrumented or range-profiled)"
like norperm "the range profiler alone: concurrent, serialized while a launch is profiled (concurrent tracing adds instructions)" "$(meta norperm kernel_activity)" "concurrent, serialized*only while a launch was served*"
like inst "instrumentation time split by phase" "$(meta inst instrumented_launches)" "3 launches, * ms (waiting for queued work *, kernel tracing swaps *, enable *, patched run *, flush *, disable *)"
like inst "the patched run split at the launch call's return" "$(meta inst instrumented_launch_calls)" "* ms of the patched run in the launch calls (lazy patching), * ms in the synchronize after them (the patched kernels' execution)"
like inst "the profiler's initialization timed" "$(meta inst instrumentation_setup)" "* ms initializing the profiler at the context's creation"
like inst "the writer's instrumentation rows timed" "$(meta inst instrumentation_rows)" "* ms writing * inst_launch rows and their counts; the last batch at exit * ms"
expect inst "activity records in pinned host memory (device buffers hung the engine)" "$(meta inst activity_buffer)" "host-pinned"
expect norperm "the default keeps CUPTI's device buffers" "$(meta norperm activity_buffer)" "device"
# A function whose mangled name is longer than a record's copy (256 bytes): its counts are its own
run long longname GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm
expect long "the 300-byte name's configuration instrumented" "$(q long "SELECT count(*) FROM inst_launch i JOIN kernel k ON k.id = i.kernel_id WHERE length(k.mangled_name) = 300")" 1
expect long "every metric of the engine's list known to the chip" "$(meta long instrumentation_metrics_missing)" "none"
# GPUHIER_DIAG_SASS_METRICS=-a,b (diagnosis): every metric of the list but those
run drop GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm GPUHIER_DIAG_SASS_METRICS=-smsp__sass_sectors_mem_global_ideal,smsp__sass_inst_executed_op_global_ld
sass_rows() { q "$1" "SELECT count(*) FROM inst_count c JOIN metric_name m ON m.id = c.metric_id WHERE m.name = '$2'"; }
expect drop "the first metric left out not asked" "$(sass_rows drop smsp__sass_sectors_mem_global_ideal)" 0
expect drop "the second neither" "$(sass_rows drop smsp__sass_inst_executed_op_global_ld)" 0
expect drop "a metric whose name begins the same still asked" "$([ "$(sass_rows drop smsp__sass_sectors_mem_global)" -gt 0 ] && echo yes)" yes
expect inst "the full list asks the first" "$([ "$(sass_rows inst smsp__sass_sectors_mem_global_ideal)" -gt 0 ] && echo yes)" yes
# schema version 4: the store's kind (equal to its executed count) and ideal (equal to its sectors) left
# implied by a mask row, and v_inst reading them back
expect inst "counts equal to their base implied, read back by v_inst" "$(q inst "SELECT (SELECT count(*) > 0 FROM inst_count c JOIN metric_name m ON m.id = c.metric_id WHERE m.name = 'gpuhier_inst_implied') || ':' || (SELECT count(*) FROM inst_count c JOIN metric_name m ON m.id = c.metric_id WHERE m.name = 'smsp__sass_inst_executed_op_global_st') || ':' || (SELECT sum(gst_inst) > 0 AND sum(gst_inst) = sum(CASE WHEN gst_inst > 0 THEN inst_executed END) AND sum(gst_sectors_ideal) = sum(gst_sectors) FROM v_inst)")" 1:0:1
run unknown GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm FAKE_SASS_UNKNOWN=smsp__sass_inst_executed_op_tma
expect unknown "a metric the chip refused is named" "$(meta unknown instrumentation_metrics_missing)" "smsp__sass_inst_executed_op_tma"
expect unknown "the others still counted" "$(q unknown "SELECT count(*) > 0 FROM inst_count")" 1
expect long "no record of it left out" "$(q long "SELECT count(*) FROM event WHERE code = 'instrumentation_overlap'")" 0
expect inst "no no_counter_permission event" "$(q inst "SELECT count(*) FROM event WHERE code = 'no_counter_permission'")" 0

# 4c. GPUHIER_DIAG_SASS_GRAPHS=1: the graph launch armed at its launch only, as on 2026-12-01:
#     the nodes were not patched when the graph was made, so no counts (the H200 gave 0 records;
#     docs/sassprobe.md "Graph launches"), and no instantiation armed.
run graphlaunch GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SASS_GRAPHS=1 GPUHIER_FAULT=$perm
expect graphlaunch "no graph counts when armed at the launch only" \
    "$(q graphlaunch "SELECT count(*) FROM inst_launch WHERE reason = 'graph'")" 0
expect graphlaunch "the stream launches still counted" \
    "$(q graphlaunch "SELECT count(*) FROM inst_launch WHERE graph_corr IS NULL")" 2
expect graphlaunch "no instantiation armed" \
    "$(q graphlaunch "SELECT count(*) FROM event WHERE code = 'graph_instantiations_armed'")" 0

# 4d. The default (GPUHIER_DIAG_SASS_GRAPHS unset, or =scanned): the instantiation armed only when
#     the graph scan finds no kernel node in thread-block clusters, as every kernel was whose
#     patched graph crashed on the H200 (collector/graphscan.h), and each armed executable's first
#     launch instrumented.
soname=1
run scanned GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm
expect scanned "a graph of plain kernels armed" \
    "$(q scanned "SELECT count(*) FROM event WHERE code = 'graph_instantiations_armed'")" 1
expect scanned "its first launch counted" \
    "$(q scanned "SELECT count(*) > 0 FROM inst_launch WHERE reason = 'graph'")" 1
expect scanned "nothing kept unarmed" \
    "$(q scanned "SELECT count(*) FROM event WHERE code = 'graph_instantiations_unarmed'")" 0
run scannedcl cluster GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SASS_GRAPHS=scanned GPUHIER_FAULT=$perm
expect scannedcl "a graph with a cluster node not armed" \
    "$(q scannedcl "SELECT count(*) FROM event WHERE code = 'graph_instantiations_armed'")" 0
like scannedcl "the event names the node and why" \
    "$(q scannedcl "SELECT message FROM event WHERE code = 'graph_instantiations_unarmed'")" \
    "1 graph instantiations were not armed for pattern counters: *the first: _Z7clusterPf (clusters)*"
expect scannedcl "its launches not instrumented (no patched nodes to count)" \
    "$(q scannedcl "SELECT count(*) FROM inst_launch WHERE reason = 'graph'")" 0
like scannedcl "and said so" \
    "$(q scannedcl "SELECT message FROM event WHERE code = 'graphs_not_instrumented'")" "2 graph launches ran*"
expect scannedcl "the stream launches still counted" \
    "$(q scannedcl "SELECT count(*) FROM inst_launch WHERE graph_corr IS NULL")" 2
#     A graph with a conditional node: its bodies cannot be read, so it is not armed either.
run scannedcond conditional GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm
like scannedcond "a graph with a conditional node not armed, and why" \
    "$(q scannedcond "SELECT message FROM event WHERE code = 'graph_instantiations_unarmed'")" \
    "1 graph instantiations were not armed*the first: a conditional node (its body graphs are not readable through the driver)*"
#     A graph whose every function has counts already is not armed: its functions launched on
#     the stream before (seen), or the same graph instantiated again (again).
run seen seen GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm
expect seen "a graph of counted functions not armed" \
    "$(q seen "SELECT count(*) FROM event WHERE code = 'graph_instantiations_armed'")" 0
like seen "and said so" "$(q seen "SELECT message FROM event WHERE code = 'graph_instantiations_known'")" \
    "1 graph instantiations were not armed: every kernel function in them had pattern counters already*"
expect seen "no graph counts" "$(q seen "SELECT count(*) FROM inst_launch WHERE reason = 'graph'")" 0
run again again GPUHIER_INSTRUMENT=1 GPUHIER_FAULT=$perm
expect again "the first instantiation armed" \
    "$(q again "SELECT substr(message, 1, 2) FROM event WHERE code = 'graph_instantiations_armed'")" "1 "
expect again "the second not: nothing new in it" \
    "$(q again "SELECT substr(message, 1, 2) FROM event WHERE code = 'graph_instantiations_known'")" "1 "
expect again "the first executable's first launch counted, once" \
    "$(q again "SELECT count(DISTINCT graph_corr) FROM inst_launch WHERE reason = 'graph'")" 1
soname=

# 4b. GPUHIER_DIAG_SASS_GRAPHS=off: graph launches are not instrumented (what a graph the scan
#     keeps unarmed gets, docs/collector.md "Graphs"): every node traced, and one event says so.
run nographs GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SASS_GRAPHS=off GPUHIER_FAULT=$perm
expect nographs "instrumentation ran" "$(meta nographs engine_instrumentation)" "ran: 2 launches"
expect nographs "graph nodes traced, not instrumented" \
    "$(q nographs "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'graph'")" 6
#    kernels are traced concurrently but while a launch is served: every node timed (under
#    KIND_KERNEL for the whole run the device timed a graph launch's first node only, t152)
expect nographs "every graph node timed" \
    "$(q nographs "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND start_ns IS NOT NULL")" 6
expect nographs "no untimed kernel" "$(q nographs "SELECT count(*) FROM event WHERE code = 'kernels_untimed'")" 0
like nographs "the event says so" "$(q nographs "SELECT message FROM event WHERE code = 'graphs_not_instrumented'")" \
    "2 graph launches ran their kernel nodes without pattern counters*"

# 4c. GPUHIER_DIAG_SERIALIZED_KERNELS=1 (diagnosis): KIND_KERNEL for the whole run, as before
#     2026-12-04. The fake counts nothing while CONCURRENT_KERNEL is on and, like the device,
#     leaves a graph launch's later nodes untimed under KIND_KERNEL: the default's counts
#     (above) need the swap there and back, and this run shows the untimed nodes listed and
#     counted in one event.
run serial GPUHIER_INSTRUMENT=1 GPUHIER_DIAG_SERIALIZED_KERNELS=1 GPUHIER_DIAG_SASS_GRAPHS=off GPUHIER_FAULT=$perm
like serial "kernels traced serialized" "$(meta serial kernel_activity)" "serialized: CUPTI_ACTIVITY_KIND_KERNEL*"
expect serial "the instrumented launches counted" "$(q serial "SELECT count(DISTINCT launch_id) FROM inst_count")" 2
expect serial "the first node of each graph launch timed" \
    "$(q serial "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND start_ns IS NOT NULL")" 2
like serial "the untimed nodes counted" "$(q serial "SELECT message FROM event WHERE code = 'kernels_untimed'")" \
    "4 kernel records (4 of them graph kernel nodes) came from CUPTI without start and end times*"
expect nographs "the default's instrumented launches counted" "$(q nographs "SELECT count(DISTINCT launch_id) FROM inst_count")" 2
expect nographs "no failed enable" "$(q nographs "SELECT count(*) FROM event WHERE code = 'activity_enable_failed'")" 0

# 5. The watchdog: an engine call that takes longer than the bound is reported, and the run
#    still ends cleanly when it returns.
run slow GPUHIER_INSTRUMENT=1 FAKE_SASS_HANG_MS=2000 GPUHIER_DIAG_ENGINE_WATCHDOG_MS=300
like slow "stuck, then returned" "$(meta slow engine_instrumentation)" \
    "stuck: its launch start had not returned after * s (launch correlation id 1), it returned later"
expect slow "one engine_stuck event" "$(q slow "SELECT count(*) FROM event WHERE code = 'engine_stuck'")" 1
expect slow "clean exit" "$(q slow "SELECT clean_exit FROM run")" 1
like slow "profiling_limited says so" "$(q slow "SELECT profiling_limited FROM run")" "*stuck inside CUPTI*"
#    the same with the flusher held in cuptiActivityFlushAll for as long (a CUPTI lock the stuck
#    call holds, as on the H200; the bound past the flusher's 500 ms period, so the flusher is
#    inside the flush first): the watchdog's own thread still says so while the call hangs
run slowflush GPUHIER_INSTRUMENT=1 FAKE_SASS_HANG_MS=3000 FAKE_FLUSH_WAITS=1 GPUHIER_DIAG_ENGINE_WATCHDOG_MS=1200
like slowflush "stuck, said while it hung" "$(grep -c 'seems stuck inside CUPTI' "$tmp/slowflush.err")" "[1-9]*"
expect slowflush "one engine_stuck event" "$(q slowflush "SELECT count(*) FROM event WHERE code = 'engine_stuck'")" 1
#    GPUHIER_DIAG_STACKS=1: the stuck thread's stack (inside the fake's Enable) goes to stderr
run slowstacks GPUHIER_INSTRUMENT=1 FAKE_SASS_HANG_MS=2000 GPUHIER_DIAG_ENGINE_WATCHDOG_MS=300 GPUHIER_DIAG_STACKS=1
expect slowstacks "one stack header" "$(grep -c "every thread's stack (its launch start had not returned" "$tmp/slowstacks.err")" 1
like slowstacks "a thread's frames name the fake CUPTI's library" "$(grep -A40 '==gpuhier== stack of thread' "$tmp/slowstacks.err" | grep -c "$(basename "$FAKE_CUDA")")" "[1-9]*"

# 6. A call that never returns on another thread: the program's exit does not wait for it.
t0=$(date +%s)
run stuck stuck GPUHIER_INSTRUMENT=1 FAKE_SASS_HANG_MS=-1 GPUHIER_DIAG_ENGINE_WATCHDOG_MS=300
t1=$(date +%s)
[ $((t1 - t0)) -le 10 ] && echo "ok   stuck: exit in $((t1 - t0)) s" || bad "stuck: exit took $((t1 - t0)) s"
like stuck "still stuck at exit" "$(meta stuck engine_instrumentation)" "stuck: *still inside at exit"
expect stuck "clean exit" "$(q stuck "SELECT clean_exit FROM run")" 1

# 7. A kernel CUPTI runs under a profiled launch's correlation id (WaitNs under user replay,
#    the default's groups; the fake records every second one before the launch's own): not
#    a launch of the program, and it takes no launch's profile.
run waitns GPUHIER_INSTRUMENT=0 FAKE_RANGEPROF=1 FAKE_WAITNS=1 GPUHIER_GROUP_BUDGET=none
np=$(q waitns "SELECT count(*) FROM launch WHERE profiled = 1")
[ "${np:-0}" -ge 2 ] 2>/dev/null && echo "ok   waitns: $np profiled launches" || bad "waitns: profiled launches '$np'"
expect waitns "every launch traced, none added" "$(q waitns "SELECT count(*) FROM launch")" 12
expect waitns "no WaitNs kernel" "$(q waitns "SELECT count(*) FROM kernel WHERE mangled_name = 'WaitNs'")" 0
expect waitns "each profiled launch holds its own profile" \
    "$(q waitns "SELECT count(*) FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE l.profiled = 1 AND l.id NOT IN (SELECT launch_id FROM profile)")" 0
like waitns "the event counts them" "$(q waitns "SELECT message FROM event WHERE code = 'profiler_kernels'")" \
    "$np kernel records ran another function than their launch (first: WaitNs)*of the $np launches the counter engines served*"

# multistream's shape (8 threads launching two functions in turns, tests/gpu/multistream.cu): a
# producer that claimed a queue slot and had not yet written its launch record let the writer parse
# that launch's kernel record first, which then joined nothing: the launch lost its reason and its
# profile (8 of 300 runs on this machine before the fix; t151 failed once on the H200 so). 20 runs:
# every launch keeps its reason, and both functions' first range profile is group 1. Every second
# run starts the way the H200's run 36 did (2026-12-05): every thread's first launch (copy) before
# any strided one (FAKE_THREADS_BARRIER=1), so strided's instrumented launches and its range profiles
# come while copy's are being served; and no function is instrumented twice (a thread that picked the
# instrumentation engine before another thread's launch of the function was served, and decided
# after, instrumented it again: 1 run in 6 with the barrier before the fix).
# The gate's waits are bounded (docs/collector.md "Kernel tracing beside the instrumentation
# engine"): a swap goes ahead after 100 ms with launches still in flight, a launch after 1 s at a
# closed gate, and a launch in a swap's gap then loses its record. Under ThreadSanitizer on a loaded
# two-core machine the bound was hit (1 run in 20, 2026-12-05), so a run that lost a launch fails
# only when its report does not say the bound was hit (meta kernel_kind_swaps: a swap that went
# ahead with launches in flight, or a launch that went ahead past a closed gate): a loss is never
# silent.
bound_hit() { # bound_hit NAME: 1 when meta kernel_kind_swaps counts a swap or a launch past a bound
    meta "$1" kernel_kind_swaps | awk -F', ' '{ for (i = 1; i <= NF; i++) if ($i ~ /went ahead/ && $i !~ /^0 /) hit = 1 } END { print hit ? 1 : 0 }'
}
lost=0
for i in $(seq 1 20); do
    run "threads$i" threads FAKE_RANGEPROF=1 FAKE_SASS_HANG_MS=5 FAKE_THREADS_BARRIER=$((i % 2))
    got=$(q "threads$i" "SELECT count(*) || '|' || sum(profile_reason IS NULL) || '|' || (SELECT count(DISTINCT l.config_id) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.profile_reason = 'first_of_config' AND p.metric_set LIKE 'group1/%') || '|' || (SELECT count(*) FROM inst_launch) FROM launch")
    [ "$got" = "1600|0|2|2" ] && continue
    echo "threads$i: launches|without a reason|functions with group 1 first|instrumented launches: $got; kernel_kind_swaps: $(meta "threads$i" kernel_kind_swaps); $(grep '^fake_untraced_kernels=' "$tmp/threads$i.out"); profiles (launch, reason, set): $(q "threads$i" "SELECT group_concat(l.correlation_id || ':' || l.profile_reason || ':' || p.metric_set, ' ') FROM profile p JOIN launch l ON l.id = p.launch_id"); instrumented: $(q "threads$i" "SELECT group_concat(l.correlation_id || ':' || i.reason, ' ') FROM inst_launch i LEFT JOIN launch l ON l.id = i.launch_id"); events: $(q "threads$i" "SELECT group_concat(code, ' ') FROM event")"
    [ "$(bound_hit "threads$i")" = 1 ] || lost=$((lost + 1))
done
expect threads "runs where a launch lost its launch record's reason or profile, the gate's bounds not hit" "$lost" 0
# A served launch swaps concurrent-kernel tracing for KIND_KERNEL and back (docs/collector.md "Kernel
# tracing beside the instrumentation engine"): a launch of another thread between the swap's disable
# and enable got no kernel record, so no launch row (1 launch in 2 of 60 runs of gpu/multistream on
# the H200, 2026-12-05). The fake widens that gap to 2 ms (FAKE_SWAP_GAP_US): other threads' launches
# wait at the gate while a swap is under way, so every launch keeps its row.
lost=0
for i in 1 2 3; do
    run "swapgap$i" threads FAKE_RANGEPROF=1 FAKE_SASS_HANG_MS=5 FAKE_SWAP_GAP_US=2000
    got=$(q "swapgap$i" "SELECT count(*) FROM launch")
    [ "$got" = 1600 ] && continue
    echo "swapgap$i: $got launches of 1600; kernel_kind_swaps: $(meta "swapgap$i" kernel_kind_swaps); $(grep '^fake_untraced_kernels=' "$tmp/swapgap$i.out"); events: $(q "swapgap$i" "SELECT group_concat(code, ' ') FROM event")"
    [ "$(bound_hit "swapgap$i")" = 1 ] || lost=$((lost + 1))
done
expect swapgap "runs where a launch in a kind swap's gap lost its row, the gate's bounds not hit" "$lost" 0
# bound_hit can say yes: the meta of a run whose swap went ahead with a launch in flight
expect swapgap "bound_hit reads a late swap" "$(sqlite3 "$tmp/swapgap1.db" "UPDATE meta SET value = '3, each with the launch gate closed; 0 launches waited at it, 1 swaps went ahead with launches in flight, 0 launches went ahead with the gate closed' WHERE key = 'kernel_kind_swaps'" && bound_hit swapgap1)" 1
expect swapgap "and no bound hit when none was" "$(sqlite3 "$tmp/swapgap1.db" "UPDATE meta SET value = '3, each with the launch gate closed; 2 launches waited at it, 0 swaps went ahead with launches in flight, 0 launches went ahead with the gate closed' WHERE key = 'kernel_kind_swaps'" && bound_hit swapgap1)" 0
# what the set-up cost before the first kernel (docs/cost-vs-ncu.md "Where along the run"): cuInit's
# share, and the range profiler's plan and first profile by phase
like threads1 "collector_init_ms" "$(meta threads1 collector_init_ms)" "[0-9]*.[0-9]"
like threads1 "collector_init_parts" "$(meta threads1 collector_init_parts)" \
    "loading CUPTI *.* ms, profiling options *.* ms, the writer's start *.* ms, subscribing *.* ms, activity set-up *.* ms"
like threads1 "collector_init_between" "$(meta threads1 collector_init_between)" \
    "the flusher's and watchdog's threads *.* ms, signal handlers *.* ms, notes and the session file *.* ms, exit hooks *.* ms"
like threads1 "profiler_setup" "$(meta threads1 profiler_setup)" \
    "plan *.* ms at the first launch; first profile *.* ms (enable *.*, set-up *.*, start *.*)"

# GPUHIER_DIAG_RP_GRAPHS with both engines (docs/collector.md "Graphs"): the graph's first launch
# instrumented (its instantiation armed), its second served by the range profiler after the
# instrumentation engine is quiesced; under auto range the fake fails the Stop as the H200 did,
# under one user range it gives one range of the three nodes. No call CUPTI refuses either way.
run bothrpgraphs GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_RP_GRAPHS=4
run bothrpgraphsu GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_DIAG_RP_GRAPHS=4 \
    GPUHIER_DIAG_RP_GRAPHS_RANGE=user
for n in bothrpgraphs bothrpgraphsu; do
    expect $n "the first graph launch instrumented" \
        "$(q $n "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profile_reason = 'instrumented'")" 3
done
like bothrpgraphs "the second served under auto range: the Stop's failure said" \
    "$(q bothrpgraphs "SELECT group_concat(message, '|') FROM event WHERE code = 'graph_profile'")" \
    "graph launch * under auto range (*): 0 ranges, 0 dropped, * ms: cuptiRangeProfilerStop: *"
like bothrpgraphsu "the second served under one user range: one range" \
    "$(q bothrpgraphsu "SELECT group_concat(message, '|') FROM event WHERE code = 'graph_profile'")" \
    "graph launch * under one user range (*): 1 ranges, 0 dropped, * ms"

# nvperf's open off the program's thread (collector/cupti_load.c): the fake libnvperf_host.so
# beside the fake CUPTI sleeps 600 ms in its constructor. The collector's start inside cuInit does
# not wait for it (it did, synchronously, before 2026-12-06 15:57 UTC: this check failed then),
# the open runs on its own thread, and the profiler's first call waits for what is left. In trace
# mode nvperf is never opened.
run nvslow GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 FAKE_NVPERF_SLEEP_MS=600
expect nvslow "every launch traced" "$(q nvslow "SELECT count(*) FROM launch")" 12
expect nvslow "the collector's start did not wait for nvperf (under 600 ms)" \
    "$(q nvslow "SELECT CAST(value AS REAL) < 600 FROM meta WHERE key = 'collector_init_ms'")" 1
like nvslow "nvperf opened on its own thread, and the wait said" "$(meta nvslow nvperf_open)" \
    "opened in [6-9][0-9][0-9].* ms on its own thread; waited for *.* ms"
# the form before, kept for diagnosis (GPUHIER_DIAG_NVPERF_SYNC=1): the start waits for the open
run nvsync GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 FAKE_NVPERF_SLEEP_MS=600 GPUHIER_DIAG_NVPERF_SYNC=1
expect nvsync "the start waited for nvperf (600 ms or more)" \
    "$(q nvsync "SELECT CAST(value AS REAL) >= 600 FROM meta WHERE key = 'collector_init_ms'")" 1
like nvsync "nvperf opened on the program's thread" "$(meta nvsync nvperf_open)" \
    "opened in [6-9][0-9][0-9].* ms on the caller's thread; waited for 0.0 ms"
# =0 is off, as for the other switches (it opened on the program's thread, H100 2026-12-07)
run nvsync0 GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 FAKE_NVPERF_SLEEP_MS=600 GPUHIER_DIAG_NVPERF_SYNC=0
like nvsync0 "GPUHIER_DIAG_NVPERF_SYNC=0: nvperf opened on its own thread" "$(meta nvsync0 nvperf_open)" \
    "opened in [6-9][0-9][0-9].* ms on its own thread; waited for *.* ms"
run nvtrace GPUHIER_MODE=trace FAKE_NVPERF_SLEEP_MS=600
expect nvtrace "trace mode: nvperf never opened" "$(meta nvtrace nvperf_open)" ""
expect nvtrace "trace mode: the start short" \
    "$(q nvtrace "SELECT CAST(value AS REAL) < 600 FROM meta WHERE key = 'collector_init_ms'")" 1

# Unified-memory events (collector/activity.c um_configure(), schema.sql um_event): configured once, by the
# flusher after the first context (the fake counts a configuration inside a callback as a violation),
# all five kinds; the migrations alone where the platform refuses the others; none where it refuses all,
# and GPUHIER_UM_TRACKING=off asks nothing. The program goes on in each.
run umon GPUHIER_MODE=trace
expect umon "five kinds asked" "$(meta umon um_tracking)" "on (htod, dtoh, cpu_fault, thrashing, throttling)"
run umpartial GPUHIER_MODE=trace FAKE_UM=partial
expect umpartial "the migrations alone" "$(meta umpartial um_tracking)" "on (htod, dtoh)"
run umrefuse GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_FAULT=$perm FAKE_UM=refuse
like umrefuse "refused, said" "$(meta umrefuse um_tracking)" "off: cuptiActivityConfigureUnifiedMemoryCounter failed: *"
expect umrefuse "traced as before" "$(q umrefuse "SELECT count(*) > 0 FROM launch")" 1
run umoff GPUHIER_MODE=trace GPUHIER_UM_TRACKING=off
expect umoff "off by the variable" "$(meta umoff um_tracking)" "off: GPUHIER_UM_TRACKING=off"
run ummig GPUHIER_MODE=trace GPUHIER_UM_TRACKING=migrations FAKE_UM=two
expect ummig "the migrations alone, asked for" "$(meta ummig um_tracking)" "on (htod, dtoh)"
run ummigrefuse GPUHIER_MODE=trace GPUHIER_UM_TRACKING=migrations FAKE_UM=refuse
like ummigrefuse "the migrations alone, refused" "$(meta ummigrefuse um_tracking)" "off: cuptiActivityConfigureUnifiedMemoryCounter failed: *"

# Pointer arguments into page-locked host memory (collector/hostargs.c, schema.sql launch_host_arg):
# the fake's `hostarg` kernel, launched twice, takes a host pointer (parameter 0), a device pointer
# and an int, its parameters given as a CUkernel's (cuKernelGetParamInfo; the fake has no
# cuFuncGetParamInfo); the served launches record parameter 0 with its 1 MB allocation, nothing else
soname=1 run hostarg hostarg GPUHIER_INSTRUMENT=both FAKE_RANGEPROF=1 GPUHIER_FAULT=$perm
expect hostarg "the collector looked" "$(meta hostarg host_args)" on
expect hostarg "served launches of hostarg: parameter 0, 1 MB" "$(q hostarg "SELECT group_concat(DISTINCT a.param_index || ':' || a.range_bytes) FROM launch_host_arg a JOIN launch l ON l.id = a.launch_id JOIN kernel k ON k.id = l.kernel_id WHERE k.mangled_name = '_Z7hostargPKfPfi'")" 0:1048576
expect hostarg "rows only for served launches of hostarg" "$(q hostarg "SELECT count(*) FROM launch_host_arg a JOIN launch l ON l.id = a.launch_id JOIN kernel k ON k.id = l.kernel_id WHERE k.mangled_name <> '_Z7hostargPKfPfi' OR l.profile_reason = 'sampled_out'")" 0
expect hostarg "at least one row" "$(q hostarg "SELECT count(*) > 0 FROM launch_host_arg")" 1

[ $fail = 0 ] && echo "t108: the engines' choices, graphs, refusals and the watchdog hold"
exit $fail
