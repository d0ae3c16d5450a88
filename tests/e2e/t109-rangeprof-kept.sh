#!/bin/sh
# The kept range-profiler session (GPUHIER_DIAG_SESSION=kept, docs/collector.md
# "Kept session", issue 18 point 2) without a GPU: the real collector on the
# fake driver and CUPTI (tests/unit/collector_fake_cuda.c with FAKE_RANGEPROF=1,
# driven by collector_fake_host.c). The fake plays one-pass sessions of auto or
# user ranges and refuses what CUPTI refuses (fake_violations); its values are
# synthetic: every metric but sm__ctas_launched.sum is the number of kernels
# that ran in the range, so a launch whose range caught another launch's
# kernel reads 2, not 1. Nothing here is a measurement. The range profiler runs
# alone (GPUHIER_INSTRUMENT=0): its sessions are what is tested; both engines,
# the default, are t108's.
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
# run NAME [many|pause|replay FILE] VAR=VALUE...: the fake program under the collector with the fake range profiler
# (one session per profiled launch unless VAR=VALUE says GPUHIER_DIAG_SESSION=kept, the default: the
# cases compare the kept session with that reference; `dflt` checks the default is the kept session)
run() {
    n=$1; shift
    arg=
    case "${1:-}" in many | pause) arg=$1; shift ;; replay) arg="replay $2"; shift 2 ;; esac
    env -u GPUHIER_FAULT -u GPUHIER_SAMPLE GPUHIER_DIAG_SESSION=launch GPUHIER_INSTRUMENT=0 \
        CUDA_INJECTION64_PATH="$lib" GPUHIER_CUPTI_PATH="$FAKE_CUDA" GPUHIER_OUTPUT="$tmp/$n.db" \
        FAKE_RANGEPROF=1 GPUHIER_DEBUG=1 "$@" \
        timeout 20 "$FAKE_HOST" "$FAKE_CUDA" $arg > "$tmp/$n.out" 2> "$tmp/$n.err"
    rc=$?
    [ $rc = 0 ] || bad "$n: exit status $rc: $(cat "$tmp/$n.err")"
    grep -q '^fake_violations=0$' "$tmp/$n.out" || bad "$n: calls CUPTI refuses: $(cat "$tmp/$n.out"; grep 'fake CUPTI' "$tmp/$n.err")"
}
out() { sed -n "s/^$2=//p" "$tmp/$1.out"; }
expect() { # expect NAME WHAT GOT WANT
    [ "$3" = "$4" ] && echo "ok   $1: $2" || bad "$1: $2: got '$3', want '$4'"
}
like() { # like NAME WHAT GOT PATTERN
    case "$3" in $4) echo "ok   $1: $2" ;; *) bad "$1: $2: got '$3', want '$4'" ;; esac
}
# the profiled launches' correlation ids, and every value as corr:metric=value
profiled() { q "$1" "SELECT group_concat(correlation_id, ',') FROM (SELECT correlation_id FROM launch WHERE profiled = 1 ORDER BY correlation_id)"; }
# (the counts only: a kept session's duration and rates over the elapsed time are rescaled to the
# kernel's record, checked by `rescaled` below)
COUNTS="m.name <> 'gpu__time_duration.sum' AND m.name NOT LIKE '%_elapsed' AND m.name NOT LIKE '%.per_second'"
values() { q "$1" "SELECT group_concat(v, ',') FROM (SELECT l.correlation_id || ':' || m.name || '=' || v.value AS v FROM launch l JOIN metric v ON v.launch_id = l.id JOIN metric_name m ON m.id = v.metric_id WHERE $COUNTS ORDER BY l.correlation_id, m.name)"; }
not_one() { q "$1" "SELECT count(*) FROM metric v JOIN metric_name m ON m.id = v.metric_id WHERE m.name <> 'sm__ctas_launched.sum' AND $COUNTS AND v.value <> 1"; }
# the kept session's duration (the kernel record's), and each rate over the elapsed time times
# range / kernel (the fake's range reads 1 for each; its kernels take 10 us): "launches|rescaled"
rescaled() { q "$1" "SELECT count(*) || '|' || sum(d.value = l.end_ns - l.start_ns AND r.value = 1.0 / (l.end_ns - l.start_ns)) FROM launch l JOIN metric d ON d.launch_id = l.id AND d.metric_id = (SELECT id FROM metric_name WHERE name = 'gpu__time_duration.sum') JOIN metric r ON r.launch_id = l.id AND r.metric_id = (SELECT id FROM metric_name WHERE name = 'dram__bytes.sum.pct_of_peak_sustained_elapsed')"; }

# 1. Today's way (one auto range per profiled launch): the reference for the kept session.
run auto
expect auto "first launch of each configuration profiled" "$(profiled auto)" "1,4"
expect auto "no user range" "$(out auto fake_range_pushes)" 0
expect auto "each range holds its launch only" "$(not_one auto)" 0
[ -n "$(values auto)" ] || bad "auto: no values"

# 1b. The first groups' budget (default sampling): with 300 ms profiles and no allowance
#     (GPUHIER_FIRST_ALLOWANCE_MS=0), the second configuration's first launch comes when the
#     first profile has spent 30 % of the run: deferred, 'profile_budget'; within the default
#     allowance (2 s) both first launches are profiled, as before.
run firstbudget FAKE_RANGEPROF_START_MS=300 GPUHIER_FIRST_ALLOWANCE_MS=0
expect firstbudget "only the first configuration's first launch profiled" "$(profiled firstbudget)" "1"
expect firstbudget "the second's first launch deferred by the budget" \
    "$(q firstbudget "SELECT profile_reason FROM launch WHERE correlation_id = 4")" "profile_budget"
run allowance FAKE_RANGEPROF_START_MS=300
expect allowance "within the allowance, both first launches" "$(profiled allowance)" "1,4"

# 1c. A decode that fails (GPUHIER_FAULT=range_decode): each profile is discarded with an event that
#     names the call, the launches stay traced, the run ends as usual.
run nodecode GPUHIER_FAULT=range_decode:CUPTI_ERROR_UNKNOWN
expect nodecode "no profile kept" "$(q nodecode "SELECT count(*) FROM launch WHERE profiled = 1")" 0
expect nodecode "the first launches discarded" "$(q nodecode "SELECT count(*) FROM launch WHERE profile_reason = 'batch_dropped'")" 2
case "$(q nodecode "SELECT DISTINCT message FROM event WHERE code = 'batch_dropped'")" in
"profiled range discarded: cuptiRangeProfilerDecodeData: CUPTI_ERROR_"*) echo "ok   nodecode: the event names the call" ;;
*) bad "nodecode: the event names the call: $(q nodecode "SELECT message FROM event WHERE code = 'batch_dropped'")" ;;
esac
expect nodecode "counted in the run" "$(q nodecode "SELECT ranges_dropped FROM run")" 2
expect nodecode "every launch traced" "$(q nodecode "SELECT count(*) FROM launch")" "$(q auto "SELECT count(*) FROM launch")"

# 2. Kept: both launches are ranges of one session, the unsampled launches between them
#    (copy twice, strided twice) run outside every range, and the values are the same.
run kept GPUHIER_DIAG_SESSION=kept
run dflt GPUHIER_DIAG_SESSION=
expect dflt "the default is the kept session (since 2026-12-04)" "$(out dflt fake_range_pushes)" 2
expect kept "the same launches profiled" "$(profiled kept)" "$(profiled auto)"
expect kept "the same values on the same launches" "$(values kept)" "$(values auto)"
expect kept "one user range per profiled launch" "$(out kept fake_range_pushes)" 2
expect kept "the range's duration and rates rescaled to the kernel's record" "$(rescaled kept)" "2|2"
expect kept "profiles_rescaled" "$(q kept "SELECT value FROM meta WHERE key = 'profiles_rescaled'")" 2
expect kept "profile.duration_ns keeps the range's span" "$(q kept "SELECT group_concat(duration_ns) FROM profile")" "1,1"
expect auto "an auto range is not rescaled" "$(rescaled auto)|$(q auto "SELECT count(*) FROM meta WHERE key = 'profiles_rescaled'")" "2|0|0"
expect kept "unsampled kernels outside every range" "$(out kept fake_kernels_outside_ranges)" 4
expect kept "one session, decoded once (before the graph launch)" \
    "$(grep -c 'kept session drained: ranges 2 of 2 dropped 0 why -' "$tmp/kept.err")" 1
expect kept "no range discarded" "$(q kept "SELECT count(*) FROM event WHERE code = 'batch_dropped'")" 0
# 2b. Concurrent-kernel tracing adds instructions to the kernels it traces on the H200 (8 warp
#     instructions per warp: docs/agreement.md); the fake counts the ranged kernels that ran while it
#     was on. By default a range-profiled launch is traced with CUPTI_ACTIVITY_KIND_KERNEL, in both
#     sessions; GPUHIER_DIAG_RP_KERNEL_SWAP=0 leaves concurrent tracing on (so the check can fail),
#     and every kernel keeps its record and its time either way.
run noswap GPUHIER_DIAG_SESSION=kept GPUHIER_DIAG_RP_KERNEL_SWAP=0
expect noswap "ranged kernels traced concurrently with GPUHIER_DIAG_RP_KERNEL_SWAP=0" "$(out noswap fake_ranged_kernels_traced_concurrently)" 2
expect kept "none by default (kept session)" "$(out kept fake_ranged_kernels_traced_concurrently)" 0
expect auto "none by default (one session per launch)" "$(out auto fake_ranged_kernels_traced_concurrently)" 0
expect kept "the same values on the same launches" "$(values kept)" "$(values noswap)"
expect kept "every kernel timed" "$(q kept "SELECT count(*) FROM launch WHERE start_ns IS NULL")" 0
expect noswap "every kernel timed" "$(q noswap "SELECT count(*) FROM launch WHERE start_ns IS NULL")" 0
expect kept "the same launches as without the swap" "$(q kept "SELECT count(*) FROM launch")" "$(q noswap "SELECT count(*) FROM launch")"

run all GPUHIER_DIAG_SESSION=kept GPUHIER_SAMPLE=all
expect all "six launches profiled" "$(profiled all)" "1,2,3,4,5,6"
expect all "six user ranges" "$(out all fake_range_pushes)" 6
expect all "one session of six ranges" \
    "$(grep -c 'kept session drained: ranges 6 of 6 dropped 0 why -' "$tmp/all.err")" 1
expect all "each range holds its launch only" "$(not_one all)" 0
run allauto GPUHIER_SAMPLE=all
expect all "the same values as one auto range per launch" "$(values all)" "$(values allauto)"

# 4. 76 launches, every one sampled: a batch is decoded at 32 ranges (KEPT_BATCH, half of what the
#    image holds: a full batch of 64 was discarded once on the H200), twice, then the rest.
run many many GPUHIER_DIAG_SESSION=kept GPUHIER_SAMPLE=all
expect many "76 launches profiled" "$(q many "SELECT count(*) FROM launch WHERE profiled = 1")" 76
expect many "two batches of 32, then the other 12" \
    "$(grep -o 'kept session drained: ranges [0-9]* of [0-9]*' "$tmp/many.err" | tr '\n' ',')" \
    "kept session drained: ranges 32 of 32,kept session drained: ranges 32 of 32,kept session drained: ranges 12 of 12,"
# 4.1 A kernel-kind swap flushes CUPTI's buffers twice per profiled launch, each flush handing over a
#     buffer however few records it holds: with 63 of the 64 buffers held (as CUPTI keeps one per
#     context and stream) the requests wait for the writer to give one back instead of leaving CUPTI
#     without one (before, the run's last records were lost in about 3 runs of 8 even without held
#     buffers), and the report says they waited.
run held many GPUHIER_DIAG_SESSION=kept GPUHIER_SAMPLE=all FAKE_HOLD_BUFFERS=63
expect held "every launch traced with one free buffer" "$(q held "SELECT count(*) FROM launch")|$(q held "SELECT count(*) FROM launch WHERE profiled = 1")" "82|76"
expect held "the waits are in the report" "$(q held "SELECT value LIKE '% requests found the 64 activity buffers out and waited for the writer' FROM meta WHERE key = 'activity_buffer_waits'")" 1
expect many "every launch traced" "$(q many "SELECT count(*) FROM launch")" 82
#     With all 64 held nothing ever comes back: one request waits, the later ones do not (a wait
#     each would cost the program 500 ms a flush).
run held64 many GPUHIER_DIAG_SESSION=kept GPUHIER_SAMPLE=all FAKE_HOLD_BUFFERS=64
expect held64 "one wait when no buffer comes back" "$(q held64 "SELECT value FROM meta WHERE key = 'activity_buffer_waits'")" \
    "1 requests found the 64 activity buffers out and waited for the writer"
# 4a. A kept session whose decode fails: the batch is discarded, its event names the call, the
#     error, the group and the batch's size (on the H200 it said only CUPTI_ERROR_UNKNOWN)
run keptfail many GPUHIER_DIAG_SESSION=kept GPUHIER_SAMPLE=all GPUHIER_FAULT=range_decode:CUPTI_ERROR_UNKNOWN
expect keptfail "the event names the call, the group and the batch" \
    "$(q keptfail "SELECT message FROM event WHERE code = 'batch_dropped' LIMIT 1")" \
    "profiled range discarded: cuptiRangeProfilerDecodeData: CUPTI_ERROR_FAKE (group1/1, 32 ranges)"
expect keptfail "every launch discarded, none lost from the trace" \
    "$(q keptfail "SELECT count(*) FROM launch WHERE profile_reason = 'batch_dropped'")|$(q keptfail "SELECT count(*) FROM launch WHERE profiled = 1")" "76|0"
expect many "each range holds its launch only" "$(not_one many)" 0

# 4b. Group runs (GPUHIER_DIAG_RP_RUNS=N, docs/sampling.md "Group runs"): every profile of a
#     run takes the run's one-pass group (two here: the plan's and --metrics' own); the run
#     moves on after N launches with no profile of it (the program's period is 1 launch), the
#     groups taking turns. copy's group 2 comes in the second run, not at its second launch;
#     strided's first launch falls in a run of group 1 and its next two in the same run, so it
#     gets group 1 alone; the image changed twice (copy 1 -> 2, then strided's 1).
run runs many GPUHIER_DIAG_SESSION=kept GPUHIER_DIAG_RP_RUNS=4 GPUHIER_METRICS=dram__bytes_read.sum
expect runs "profiles in runs of one group" \
    "$(q runs "SELECT group_concat(correlation_id || '=' || metric_set || '=' || profile_reason, ',') FROM (SELECT l.correlation_id, p.metric_set, l.profile_reason FROM launch l JOIN profile p ON p.launch_id = l.id ORDER BY l.correlation_id)")" \
    "1=group1/2=first_of_config,4=group2/2=metric_group,74=group1/2=first_of_config"
expect runs "launches waiting for their group's run" \
    "$(q runs "SELECT group_concat(correlation_id) FROM launch WHERE profile_reason = 'profile_budget'")" "2,3,75,76"
expect runs "the image changed twice" "$(q runs "SELECT value FROM meta WHERE key = 'profiler_disables'")" "switch=2 graph=1"
run norun many GPUHIER_DIAG_SESSION=kept GPUHIER_METRICS=dram__bytes_read.sum
expect norun "without runs, the image changes at every profile" \
    "$(q norun "SELECT value FROM meta WHERE key = 'profiler_disables'")" "switch=3 graph=1"
run nobudget many GPUHIER_DIAG_SESSION=kept GPUHIER_DIAG_RP_RUNS=4 GPUHIER_GROUP_BUDGET=none \
    GPUHIER_METRICS=dram__bytes_read.sum
expect nobudget "the later groups' budget lifted: no runs, as without them" \
    "$(q nobudget "SELECT value FROM meta WHERE key = 'profiler_disables'")" "switch=3 graph=1"

# 4c. --metric-set none with a one-pass list under the kept session: user replay, one user range
#     a launch, the same values as one session per launch (which keeps kernel replay for it).
run mnone GPUHIER_DIAG_SESSION=kept GPUHIER_SAMPLE=all GPUHIER_METRIC_SET=none GPUHIER_METRICS=dram__bytes_read.sum
run mnoneauto GPUHIER_SAMPLE=all GPUHIER_METRIC_SET=none GPUHIER_METRICS=dram__bytes_read.sum
expect mnone "every launch profiled, each a user range" "$(out mnone fake_range_pushes) $(q mnone "SELECT count(*) FROM launch WHERE profiled = 1")" "6 6"
expect mnone "profiled as --metrics alone" "$(q mnone "SELECT DISTINCT metric_set || ' ' || passes FROM profile")" "metrics 1"
expect mnone "the same values as one session a launch" "$(values mnone)" "$(values mnoneauto)"
expect mnoneauto "one session a launch: no user range" "$(out mnoneauto fake_range_pushes)" 0

# 5. A pause of 1.2 s with a hold longer than the run: the flusher decodes the session of
#    the first launch (its range 500 ms old), the second launch opens a new one.
run pause pause GPUHIER_DIAG_SESSION=kept GPUHIER_PROFILER_HOLD_MS=3600000
expect pause "two sessions of one range each" \
    "$(grep -o 'kept session drained: ranges [0-9]* of [0-9]*' "$tmp/pause.err" | tr '\n' ',')" \
    "kept session drained: ranges 1 of 1,kept session drained: ranges 1 of 1,"
expect pause "the same values" "$(values pause)" "$(values auto)"

# 6. A range whose name is not its launch's (faulted): the session's ranges are discarded.
run badname GPUHIER_DIAG_SESSION=kept GPUHIER_FAULT=kept_range_info:CUPTI_ERROR_UNKNOWN
expect badname "no launch profiled" "$(q badname "SELECT count(*) FROM launch WHERE profiled = 1")" 0
expect badname "a batch_dropped event" \
    "$(q badname "SELECT count(*) > 0 FROM event WHERE code = 'batch_dropped' AND message LIKE '%range names differ%'")" 1
expect badname "every launch still traced" "$(q badname "SELECT count(*) FROM launch")" 12

# The watchdog is off under the range profiler alone: a call that takes longer than its
# bound (a long kernel's replay) is no "stuck" engine (it was reported as one before
# 2026-12-01 15:10 UTC).
run slowstart GPUHIER_DIAG_ENGINE_WATCHDOG_MS=300 FAKE_RANGEPROF_START_MS=1500
expect slowstart "no engine_stuck event" "$(q slowstart "SELECT count(*) FROM event WHERE code = 'engine_stuck'")" 0
expect slowstart "profiled all the same" "$(profiled slowstart)" "$(profiled auto)"

# 7. GPUHIER_DIAG_PREWARM=bg (diagnosis): with 1.5 s between the context's creation and the
#    first launch, the flusher enables the range profiler before the program launches, so the
#    process's first enable (priced at 600 ms by the fake's cost model) is paid there, and the
#    first profile pays a later enable (50 ms). Without the switch the first profile pays it.
printf 'start 1500000000\n' > "$tmp/replay.txt"
for i in 1 2 3 4; do
    printf '_Z4copyPfPKf 4 1 1 128 1 1 0 10000 1000000\n_Z7stridedPfPKf 8 1 1 256 1 1 0 10000 1000000\n' >> "$tmp/replay.txt"
done
run prewarm0 replay "$tmp/replay.txt" GPUHIER_DIAG_SESSION=kept FAKE_COST=rp_enable_first=600,rp_enable=50
run prewarmbg replay "$tmp/replay.txt" GPUHIER_DIAG_SESSION=kept GPUHIER_DIAG_PREWARM=bg \
    FAKE_COST=rp_enable_first=600,rp_enable=50
expect prewarmbg "the flusher's prewarm" \
    "$(grep -c "GPUHIER_DIAG_PREWARM: empty range before the first launch (the flusher's thread): ok" "$tmp/prewarmbg.err")" 1
expect prewarmbg "the same launches profiled" "$(profiled prewarmbg)" "$(profiled prewarm0)"
expect prewarmbg "the first profile without the first enable" \
    "$(q prewarmbg "SELECT MIN(overhead_ns) < 400000000 FROM profile p JOIN launch l ON l.id = p.launch_id WHERE l.correlation_id = (SELECT MIN(l2.correlation_id) FROM launch l2 JOIN profile p2 ON p2.launch_id = l2.id)")" 1
expect prewarm0 "without it, the first profile pays it" \
    "$(q prewarm0 "SELECT MIN(overhead_ns) >= 600000000 FROM profile p JOIN launch l ON l.id = p.launch_id WHERE l.correlation_id = (SELECT MIN(l2.correlation_id) FROM launch l2 JOIN profile p2 ON p2.launch_id = l2.id)")" 1

# 8. GPUHIER_DIAG_RP_GRAPHS=N (diagnosis, docs/collector.md "Graphs"): an executable graph's
#    second launch under auto range and user replay. On the H200 (2026-12-05) CUPTI's Stop failed
#    with CUPTI_ERROR_UNKNOWN and nothing decodable for every graph tried (tk_graph's three nodes,
#    JAX's twenty); the fake answers the same. The collector says so in one graph_profile event,
#    writes no range, and profiles the next stream launch as before. The replay: copy twice, a
#    graph of three nodes twice, then strided twice (a configuration first seen after the graph).
printf 'start 0\n' > "$tmp/graphs.txt"
printf '_Z4copyPfPKf 4 1 1 128 1 1 0 10000 1000000\n' >> "$tmp/graphs.txt"
printf '_Z4copyPfPKf 4 1 1 128 1 1 0 10000 1000000\n' >> "$tmp/graphs.txt"
for i in 1 2; do
    printf 'graph 1 3 10000 1000000\n_Z4copyPfPKf\n_Z4nodePf\n_Z4nodePf\n' >> "$tmp/graphs.txt"
done
printf '_Z7stridedPfPKf 8 1 1 256 1 1 0 10000 1000000\n' >> "$tmp/graphs.txt"
printf '_Z7stridedPfPKf 8 1 1 256 1 1 0 10000 1000000\n' >> "$tmp/graphs.txt"
# the correlation id of report NAME's second graph launch
second_graph() { q "$1" "SELECT correlation_id FROM launch WHERE graph_id IS NOT NULL GROUP BY correlation_id ORDER BY correlation_id LIMIT 1 OFFSET 1"; }
run graphs0 replay "$tmp/graphs.txt" GPUHIER_DIAG_SESSION=kept
for s in kept launch; do
    run "graphs$s" replay "$tmp/graphs.txt" GPUHIER_DIAG_SESSION=$s GPUHIER_DIAG_RP_GRAPHS=4
    second=$(second_graph "graphs$s")
    expect "graphs$s" "the graph's second launch served, CUPTI's failure said" \
        "$(q "graphs$s" "SELECT count(*) FROM event WHERE code = 'graph_profile' AND message LIKE 'graph launch $second under auto range (%): 0 ranges, 0 dropped, % ms: cuptiRangeProfilerStop: %'")" 1
    expect "graphs$s" "no range said" "$(q "graphs$s" "SELECT count(*) FROM event WHERE code = 'graph_range'")" 0
    expect "graphs$s" "nothing attributed to the nodes" \
        "$(q "graphs$s" "SELECT count(*) FROM launch WHERE graph_id IS NOT NULL AND profiled = 1")" 0
    expect "graphs$s" "the stream launches profiled as without it (strided after the graph too)" \
        "$(profiled "graphs$s")" "$(profiled graphs0)"
    expect "graphs$s" "with values" "$(values "graphs$s")" "$(values graphs0)"
done
expect graphs0 "the launch after the graph profiled (else the case tests nothing)" "$(profiled graphs0)" "1,6"
# GPUHIER_DIAG_RP_GRAPHS_RANGE=user: one user range around the whole graph launch instead (not yet
# run on a device): one range holding the three nodes' counts (the fake's values: 3 kernels).
run graphsuser replay "$tmp/graphs.txt" GPUHIER_DIAG_RP_GRAPHS=4 GPUHIER_DIAG_RP_GRAPHS_RANGE=user
second=$(second_graph graphsuser)
expect graphsuser "one user range around the graph's second launch" \
    "$(q graphsuser "SELECT count(*) FROM event WHERE code = 'graph_profile' AND message LIKE 'graph launch $second under one user range (%): 1 ranges, 0 dropped, % ms'")" 1
expect graphsuser "it holds the three nodes" \
    "$(q graphsuser "SELECT count(*) FROM event WHERE code = 'graph_range' AND message = 'graph launch $second: range 1 of 1 (\"graph\"): gpu__time_duration.sum=3, smsp__inst_executed.sum=3, dram__bytes_read.sum=3, dram__bytes_write.sum=3'")" 1
expect graphsuser "the stream launches profiled as without it" "$(profiled graphsuser)" "$(profiled graphs0)"
# CUPTI's WaitNs after the graph launch (FAKE_WAITNS: under user replay, as on the H200 on
# 2026-12-05, docs/graph-ranges/2026-12-05-1231-f204357-h200.md) is no node of it and no launch of the
# program: the writer leaves it out, as it does after a profiled stream launch
run graphsuserw replay "$tmp/graphs.txt" GPUHIER_DIAG_RP_GRAPHS=4 GPUHIER_DIAG_RP_GRAPHS_RANGE=user FAKE_WAITNS=1
expect graphsuserw "no launch row of CUPTI's WaitNs" \
    "$(q graphsuserw "SELECT count(*) FROM launch l JOIN kernel k ON k.id = l.kernel_id WHERE k.mangled_name = 'WaitNs'")" 0
expect graphsuserw "the program's launches, as without WaitNs" \
    "$(q graphsuserw "SELECT count(*) FROM launch")" "$(q graphsuser "SELECT count(*) FROM launch")"
like graphsuserw "the event counts what was left out" \
    "$(q graphsuserw "SELECT message FROM event WHERE code = 'profiler_kernels'")" "*(first: WaitNs)*"
expect auto "without it, no graph launch is range-profiled" \
    "$(q auto "SELECT count(*) FROM event WHERE code LIKE 'graph_%'")" 0

[ $fail = 0 ] && echo "t109: the kept session gives each profiled launch its own range and the same values"
exit $fail
