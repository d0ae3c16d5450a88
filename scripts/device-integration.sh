#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/device-integration.sh STAGE PART: the lead's integration check on
# the GPU machine, in one device call per PART, with a carried build.
#
#   STAGE  a build directory (or a staged copy of one: gpuhier,
#          libgpuhier-collector.so, testkernels/) built on the CPU machine
#   PART   1: quickstart's GPU branch, the testkernels end-to-end run
#             (bench/e2e_testkernels.sh), the demo recording
#             (scripts/record-demo.sh), trace overhead on the PyTorch
#             benchmark (bench/overhead_trace.sh)
#          2: agreement with Nsight Compute and cost (bench/agreement.sh),
#             gpuhier beside ncu's rules on PyTorch (bench/e2e_pytorch_vs_ncu.sh)
#          final: the one call left in a session's device time: diff of
#             testkernel twins (t471), the demo, trace overhead, the
#             testkernels end-to-end run, then agreement with what time is left
#          last: the few minutes left after that: t471 again, doctor
#             --calibrate (t441), the testkernels end-to-end run, and trace
#             overhead when OVERHEAD=1
#          gpu: the GPU tests ctest runs with -L gpu (t150, t151, t440, t441,
#             t471, testkernels.cases) on a stage made by scripts/stage.sh,
#             then what one profiled launch costs with the core set against
#             a one-pass list (GPUHIER_DEBUG phase times, multistream and
#             PyTorch)
#          overhead: trace overhead on the PyTorch benchmark with its cost
#             split (bench/overhead_trace.sh with DIAG=1)
#          closing: the end-to-end run again (allocation tracking), t151, and
#             the one-pass agreement probes (docs/agreement.md, A1 and A2, A2
#             also with CUPTI's record buffer in host memory and at 256 KB)
#          next-ncu: what the session of 2026-11-29 19:42 UTC could not run
#             (its device time ran out), ~8 min: gpuhier beside ncu's rules
#             on the PyTorch benchmark (the ncu side timed out in call 4),
#             the A2 probe with CUPTI's record buffer in host memory and small
#          next-agree: ~9 min: the PyTorch agreement, multi-pass and one
#             pass (AGREE_PARTS=agree-pt,single-pt)
#          next-cost: ~9 min: cost against ncu (AGREE_PARTS=cost)
#          ncu-c1: ~6.5 min: gpuhier beside ncu's rules with ncu on the first
#             launch of each configuration, then one native and one default
#             sampling run of the PyTorch benchmark (cost of the extras policy)
#          next-budget: ~8 min: bench/agreement.sh's cost part with native,
#             --profile-budget 30, default sampling and trace mode
#          replay-agree: ~7 min: kernel replay against user replay
#             (bench/replay_probe.sh), then the PyTorch agreement, multi-pass
#             and one pass (AGREE_PARTS=agree-pt,single-pt)
#          agree-keep: ~9 min: the PyTorch agreement again (ncu's names
#             mangled, so every launch pairs), then the cost part with native,
#             trace, default sampling, default sampling with the profiler kept
#             enabled (GPUHIER_DIAG_KEEP_ENABLED=1) and --profile-budget 30
#          verify: ~9 min: the testkernels end-to-end run, native and default
#             sampling on the PyTorch benchmark (the cost part,
#             AGREE_COST_MODES=native,default), then the collector's GPU tests
#             (t150, t151) and bench/kill_hazard.sh (counters left busy by a SIGKILL? no:
#             docs/gpu-runs.md, session of 2026-11-29 23:28 UTC)
#          extras-ab: ~3 min: an extras profile with the tie set against one
#             with the whole core (bench/profile_ab.sh with
#             GPUHIER_DIAG_EXTRAS_WITH_CORE), with the GPU's compute
#             processes listed before and after
#          next: ~9 min, for the session after 2026-11-29 22:11 UTC: the
#             GPU's compute processes, bench/profile_ab.sh with
#             GPUHIER_DIAG_SWITCH_KEEP (re-enable on an image switch: needed?), native, trace and default sampling
#             with the tie-set extras (cost part, 2 runs each), then t150
#             with GPUHIER_DIAG_KEEP_ENABLED=1 and t151 after it (call 3's
#             HARDWARE_BUSY), the compute processes again
#          clean: ~9 min: the trace overhead (bench/overhead_trace.sh, DIAG=1)
#             and the testkernels end-to-end run on a GPU nothing else uses,
#             then t150 and t151, t151 with GPUHIER_DIAG_KEEP_ENABLED=1 and
#             t151 after it (the measurements of calls that ran t150/t151
#             first shared the GPU with an orphaned gpu/sigkill)
#          reagree: ~8 min: the testkernels' agreement with ncu, one pass
#             (single-tk) and multi-pass (agree-tk), and the A1/A2 probes, on
#             a GPU nothing else uses
#          cache: ~9 min: t150 (its step 2c: --cache-control all), the A1 and A2
#             probes and the one-pass agreement (single-tk), all with both tools
#             flushing the L2 before each profiled launch (AGREE_CACHE=all)
#          cache2: ~8 min: the default set's agreement (agree-tk) and the PyTorch
#             one-pass groups (single-pt) with AGREE_CACHE=all, and PyTorch default
#             sampling with --cache-control none and all (what the flush costs)
#          diag-c: ~1 min: class C, spill_bounds' L1 hit rate in gpuhier as it is,
#             without CUPTI's kernel tracing and with its record buffer in host
#             memory, and in ncu (one pass, three launches each)
#          resume: ~4 min: t150, t151, diag-c, then PyTorch under --profile-budget 30
#             and the GPU time its profiles cover
#          lazy: ~3 min (ran 2026-11-30 as the diagnosis switch GPUHIER_DIAG_LAZY_DISABLE_MS,
#             now the default hold): t151, the A1 and A2 probes twice with
#             GPUHIER_DIAG_PREWARM=1, then bench/profile_ab.sh with no hold
#             (GPUHIER_PROFILER_HOLD_MS=0) against the default (PyTorch, one pair)
#          self: ~4 min: the testkernels' multi-pass agreement (agree-tk) twice,
#             then each tool against itself (bench/agreement/selfagree.py)
#          hold: ~7.5 min: every GPU test with the profiler hold as the default
#             (t160 is run 1 of the agreement), agree-tk again (run 2) and each
#             tool against itself, then native and default sampling on PyTorch
#          hold2: ~4.5 min: t150 and t151 after the hold's fix for
#             GPUHIER_DIAG_KEEP_ENABLED (t150 step 8b), then native, trace and
#             default sampling on PyTorch, two runs each (the cost part)
#          carveout: ~1.5 min: class C, spill_bounds' L1 hit rate with the preferred
#             carveout left alone, set to 0, 14 and 100 % (GPUHIER_DIAG_CARVEOUT), the
#             carveout each run's unprofiled launches got, and the range count
#             without CUPTI's kernel tracing (GPUHIER_DEBUG=1)
#          pad: ~1 min: class C, spill_bounds' L1 hit rate with 2, 64 and 1000 MB
#             taken before the first kernel (GPUHIER_DIAG_PAD_MB), beside ncu
#          collector: ~1.5 min: t150 and t151 (the collector's GPU tests) alone
#          gputests: ~9 min: every ctest of label gpu (t150, t151, t160 the
#             agreement gate, t440, t441, t471, testkernels.cases)
#          busy: ~5 min: t150 (a transient busy by fault injection, and a
#             real one: a process holding the counters), t151, then two
#             profiled PyTorch processes on the GPU at once (bench/two_procs.sh)
#          stack: ~2 min: spill-bounds' one-pass agreement with the context's
#             stack limit as it is, set to 1024 and to 4096
#             (GPUHIER_DIAG_STACK_LIMIT), and the limit each report recorded
#          prewarm: ~3 min: the A1 and A2 probes, each plain and with
#             GPUHIER_DIAG_PREWARM=1 (an empty range before the first launch),
#             twice
#          analyzer: the testkernels end-to-end run (precision, recall,
#             estimates against the twins) and gpuhier beside ncu's rules on
#             the PyTorch benchmark's 20 heaviest kernels; then the config
#             facts (local bytes, carveout) of the end-to-end reports
#
# Every step has its own time limit so the call ends inside the device's
# 10-minute limit; a step that runs out says so in its log. Everything the
# steps write goes into $OUT/bundle.tgz (the device returns at most 8
# files), with the Markdown summaries also copied to $OUT.
set -u
stage=$(cd "${1:?stage dir}" && pwd)
part=${2:?part}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
: "${OUT:=$root/out/integration}"
res=$OUT/res
mkdir -p "$res"
export GPUHIER_DATA_DIR="$root" PYTHONUNBUFFERED=1
t0=$(date +%s)
apps() { # the GPU's compute processes, ';'-joined ("" when none)
  nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null | tr '\n' ';'
}
step() { # step NAME LIMIT_S COMMAND...: run one step with a limit, log it
  name=$1 limit=$2; shift 2
  s=$(date +%s)
  # A measurement beside another process's kernels is not one (docs/gpu-runs.md, "Orphaned gpu/sigkill").
  busy=$(apps)
  [ -n "$busy" ] && echo "== WARNING: $name starts while the GPU runs other compute processes: $busy"
  echo "== $name (limit ${limit}s) at +$(( s - t0 ))s: $*"
  timeout -k 5 "$limit" "$@" > "$res/$name.log" 2>&1
  rc=$?
  echo "== $name: exit $rc after $(( $(date +%s) - s ))s"
  tail -15 "$res/$name.log"
}
{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  "$stage/gpuhier" --version
} > "$res/device.txt" 2>&1
cat "$res/device.txt"
gt() { # gt NAME LIMIT SCRIPT: one GPU test with the environment ctest gives it
  step "$1" "$2" env GPUHIER_BINARY_DIR="$stage" GPUHIER_SOURCE_DIR="$root" GPUHIER="$stage/gpuhier" \
    GPUHIER_COLLECTOR="$stage/libgpuhier-collector.so" GH_CLI_CHILD="$stage/tests/gh_cli_child" \
    GH_TEST_EXPORT=true OUT="$res/$1" sh -c 'mkdir -p "$OUT"; exec sh "$0"' "$3"
  # a test program left running would share the GPU with every later step
  pkill -9 -f "$stage/gpu/" 2>/dev/null && echo "== WARNING: $1 left test programs running; killed them"
}
# The agreement probes of docs/agreement.md, one pass, both tools, on one launch:
# a2 NAME LIMIT [VAR=VALUE...]: smem_big's second launch (class A2);
# a1 NAME LIMIT PROGRAMS [VAR=VALUE...]: the first launch after a traced fill (class A1).
a2() {
  n=$1 l=$2; shift 2
  step "$n" "$l" env "$@" AGREE_PARTS=single-tk AGREE_PROGRAMS='^optin-big-fixed$' AGREE_TK_SKIP=2 \
    AGREE_TK_LAUNCHES=1 OUT="$res/$n" sh bench/agreement.sh "$stage"
}
a1() {
  n=$1 l=$2 progs=$3; shift 3
  step "$n" "$l" env "$@" AGREE_PARTS=single-tk AGREE_PROGRAMS="$progs" AGREE_TK_SKIP=1 \
    AGREE_TK_LAUNCHES=1 OUT="$res/$n" sh bench/agreement.sh "$stage"
}
a1_three='^(transpose-tiled-4096|occupancy-regs-mem|reuse-stencil)$'
a2_buffers() { # the A2 probe with CUPTI's record buffer in host memory and at 256 KB
  for buf in host 262144; do
    a2 "agree_a2_$buf" 40 GPUHIER_DIAG_ACTIVITY_BUFFER=$buf
  done
}
# Class C probes (docs/agreement.md): spill_bounds' first three launches, one pass (the
# l1-l2hit group), the rest traced.
# c_gpuhier NAME [VAR=VALUE...]: under gpuhier, values printed (GPUHIER_DIAG_PRINT_METRICS);
# c_ncu NAME [EXTRA_METRICS]: under ncu with issue 3's options, CSV in NAME.log.
c_group() { sed -n 's/^l1-l2hit //p' bench/agreement/groups.txt; }
c_gpuhier() {
  n=$1; shift
  step "$n" 60 env GPUHIER_DIAG_PRINT_METRICS=1 "$@" "$stage/gpuhier" run --no-analyze -f \
    -o "$res/$n.db" -k '^spill_bounds' --sample all --launch-count 3 --metric-set none \
    --metrics "$(c_group)" "$stage/testkernels/tk_spill" bounds
}
c_ncu() {
  step "$1" 90 ncu -k regex:^spill_bounds --metrics "$(c_group)${2:+,$2}" --cache-control none \
    --clock-control none --replay-mode kernel --launch-count 3 --csv --page raw --print-units base \
    "$stage/testkernels/tk_spill" bounds
}
diag_c() {
  # Class C (docs/agreement.md): spill_bounds' L1 hit rate, one pass (the l1-l2hit group),
  # its first three launches: gpuhier as it is, without CUPTI's kernel tracing (no launch
  # rows then: GPUHIER_DIAG_PRINT_METRICS=1 prints the values), with CUPTI's record buffer
  # in host memory (no 3.2 MB device buffer moving the program's local memory); then ncu.
  for v in plain GPUHIER_DIAG_NO_KERNEL_ACTIVITY=1 GPUHIER_DIAG_ACTIVITY_BUFFER=host; do
    n=c_$(echo "$v" | sed 's/GPUHIER_DIAG_//; s/[^A-Za-z0-9]/_/g')
    if [ "$v" = plain ]; then set --; else set -- "$v"; fi
    c_gpuhier "$n" "$@"
  done
  c_ncu c_ncu
  echo "== class C: L1 hit rate of spill_bounds' first three launches"
  grep -H 'l1tex__t_sector_hit_rate.pct =' "$res"/c_*.log | sed 's|.*/||'
  python3 -c 'import csv,sys; r=[x for x in csv.reader(l for l in open(sys.argv[1]) if l.startswith("\""))]; i=r[0].index("l1tex__t_sector_hit_rate.pct"); [print("ncu", x[i]) for x in r[2:]]' "$res/c_ncu.log"
}
gpu_tests() { # every ctest of label gpu, in the order ctest runs them (t160 is the agreement gate, ~2 min)
  gt t150 110 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  gt t160 180 tests/gpu/t160-agreement.sh
  gt t440 60 tests/e2e/t440-run-gpu.sh
  gt t441 40 tests/e2e/t441-doctor-gpu.sh
  gt t471 60 tests/e2e/t471-diff-twins-gpu.sh
  step testkernels_cases 120 sh testkernels/run_cases.sh "$stage"
}
case $part in
1)
  step quickstart 60 env GPUHIER_NO_BUILD=1 BUILD="$stage" sh scripts/quickstart
  step e2e 250 env OUT="$res/e2e" E2E_BUDGET_S=210 sh bench/e2e_testkernels.sh "$stage"
  step demo 120 env OUT="$res" DEMO_STEPS=30 sh scripts/record-demo.sh "$stage"
  step overhead 110 env OUT="$res/overhead" RUNS=3 STEPS=150 LIMIT_S=90 sh bench/overhead_trace.sh "$stage"
  ;;
2)
  step agreement 330 env OUT="$res/agreement" AGREE_PARTS=agree AGREE_BUDGET_S=300 sh bench/agreement.sh "$stage"
  step pytorch_vs_ncu 150 env OUT="$res/pytorch_vs_ncu" NCU_TIMEOUT_S=120 sh bench/e2e_pytorch_vs_ncu.sh "$stage"
  ;;
final)
  step t471 60 env GPUHIER="$stage/gpuhier" GH_TEST_EXPORT=true GPUHIER_SOURCE_DIR="$root" \
    GPUHIER_BINARY_DIR="$stage" OUT="$res/t471" sh -c 'mkdir -p "$OUT"; exec sh tests/e2e/t471-diff-twins-gpu.sh'
  step demo 140 env OUT="$res" DEMO_STEPS=10 sh scripts/record-demo.sh "$stage"
  step overhead 100 env OUT="$res/overhead" RUNS=3 STEPS=150 LIMIT_S=85 sh bench/overhead_trace.sh "$stage"
  step e2e 150 env OUT="$res/e2e" E2E_BUDGET_S=130 sh bench/e2e_testkernels.sh "$stage"
  left=$(( 530 - ($(date +%s) - t0) ))
  [ "$left" -gt 60 ] && step agreement "$left" env OUT="$res/agreement" AGREE_PARTS=agree \
    AGREE_BUDGET_S=$(( left - 15 )) sh bench/agreement.sh "$stage"
  ;;
last)
  step t471 60 env GPUHIER="$stage/gpuhier" GH_TEST_EXPORT=true GPUHIER_SOURCE_DIR="$root" \
    GPUHIER_BINARY_DIR="$stage" OUT="$res/t471" sh -c 'mkdir -p "$OUT"; exec sh tests/e2e/t471-diff-twins-gpu.sh'
  step t441 40 env GPUHIER_BINARY_DIR="$stage" GPUHIER_SOURCE_DIR="$root" sh tests/e2e/t441-doctor-gpu.sh
  step e2e 100 env OUT="$res/e2e" E2E_BUDGET_S=85 sh bench/e2e_testkernels.sh "$stage"
  [ "${OVERHEAD:-0}" = 1 ] && step overhead 100 env OUT="$res/overhead" RUNS=3 STEPS=150 LIMIT_S=85 \
    sh bench/overhead_trace.sh "$stage"
  ;;
gpu)
  gt t150 100 tests/gpu/t150-collector.sh
  gt t151 40 tests/gpu/t151-collector-quick.sh
  gt t440 60 tests/e2e/t440-run-gpu.sh
  gt t441 40 tests/e2e/t441-doctor-gpu.sh
  gt t471 60 tests/e2e/t471-diff-twins-gpu.sh
  step testkernels_cases 120 sh testkernels/run_cases.sh "$stage"
  one="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum"
  for set in core onepass; do
    case $set in core) m="";; onepass) m="--metric-set none --metrics $one";; esac
    step "cost-ms-$set" 30 env GPUHIER_DEBUG=1 GPUHIER_DATA_DIR="$root" "$stage/gpuhier" run --no-analyze -f \
      -o "$res/cost-ms-$set.db" --sample all $m "$stage/gpu/multistream" 20
    step "cost-pt-$set" 100 "$stage/gpuhier" run --no-analyze -f -o "$res/cost-pt-$set.db" $m \
      python3 bench/pytorch_train.py --steps 2 --warmup 1
  done
  ;;
analyzer)
  step e2e 230 env OUT="$res/e2e" E2E_BUDGET_S=200 sh bench/e2e_testkernels.sh "$stage"
  step pytorch_vs_ncu 280 env OUT="$res/pytorch_vs_ncu" NCU_TIMEOUT_S=170 sh bench/e2e_pytorch_vs_ncu.sh "$stage"
  step config_facts 30 python3 -c '
import glob, sqlite3, sys
for r in sorted(glob.glob(sys.argv[1] + "/*.db")):
    c = sqlite3.connect("file:%s?mode=ro" % r, uri=True)
    for row in c.execute("SELECT k.short_name, c.launches, c.registers_per_thread, c.local_bytes_per_thread, "
                         "c.carveout_bytes, c.static_smem_bytes, c.dynamic_smem_bytes, c.blocks_per_sm, "
                         "c.occupancy_limiter FROM config c JOIN kernel k ON k.id = c.kernel_id"):
        print(r.split("/")[-1], *row)
' "$res/e2e/reports"
  ;;
next-ncu)
  step pytorch_vs_ncu 470 env OUT="$res/pytorch_vs_ncu" NCU_TIMEOUT_S=380 sh bench/e2e_pytorch_vs_ncu.sh "$stage"
  a2_buffers
  ;;
next-agree)
  step agreement_pt 500 env OUT="$res/agreement_pt" AGREE_PARTS=agree-pt,single-pt AGREE_BUDGET_S=480 \
    sh bench/agreement.sh "$stage"
  ;;
next-cost)
  step agreement_cost 540 env OUT="$res/agreement_cost" AGREE_PARTS=cost AGREE_BUDGET_S=520 \
    sh bench/agreement.sh "$stage"
  ;;
closing)
  step e2e 160 env OUT="$res/e2e" E2E_BUDGET_S=150 sh bench/e2e_testkernels.sh "$stage"
  gt t151 30 tests/gpu/t151-collector-quick.sh
  a2 agree_a2 40
  a1 agree_a1 60 "$a1_three"
  # A2 with CUPTI's record buffer in host memory and small (next-ncu's try ran after
  # an ncu left behind by its timeout and met CUPTI_ERROR_HARDWARE_BUSY)
  a2_buffers
  ;;
ncu-c1)
  # gpuhier beside ncu's rules with ncu on the first launch of each configuration (-c 1), then
  # default sampling's cost with the extras asked for only on their symptom (one run each)
  step pytorch_vs_ncu 260 env OUT="$res/pytorch_vs_ncu" NCU_TIMEOUT_S=170 sh bench/e2e_pytorch_vs_ncu.sh "$stage"
  step cost_default 130 env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,default AGREE_REPS=1 \
    AGREE_BUDGET_S=120 sh bench/agreement.sh "$stage"
  ;;
next-budget)
  # --profile-budget on the PyTorch benchmark beside native and default sampling (~8 min)
  step cost_budget 520 env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,budget,default,trace \
    AGREE_PROFILE_BUDGET=30 AGREE_BUDGET_S=500 sh bench/agreement.sh "$stage"
  ;;
replay-agree)
  step replay_probe 200 env OUT="$res/replay_probe" sh bench/replay_probe.sh "$stage"
  left=$(( 540 - ($(date +%s) - t0) ))
  step agreement_pt "$left" env OUT="$res/agreement_pt" AGREE_PARTS=agree-pt,single-pt \
    AGREE_BUDGET_S=$(( left - 20 )) sh bench/agreement.sh "$stage"
  ;;
agree-keep)
  step agreement_pt 200 env OUT="$res/agreement_pt" AGREE_PARTS=agree-pt,single-pt AGREE_BUDGET_S=190 \
    sh bench/agreement.sh "$stage"
  left=$(( 545 - ($(date +%s) - t0) ))
  step cost_keep "$left" env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,trace,keep,default,budget \
    AGREE_REPS=2 AGREE_PROFILE_BUDGET=30 AGREE_BUDGET_S=$(( left - 15 )) sh bench/agreement.sh "$stage"
  ;;
verify)
  # measurements first, the GPU tests after them (each may leave a program behind: gt kills it)
  step e2e 200 env OUT="$res/e2e" E2E_BUDGET_S=180 sh bench/e2e_testkernels.sh "$stage"
  left=$(( 390 - ($(date +%s) - t0) ))
  [ "$left" -gt 60 ] && step cost "$left" env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,default \
    AGREE_REPS=2 AGREE_BUDGET_S=$(( left - 10 )) sh bench/agreement.sh "$stage"
  gt t150 100 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  step kill_hazard 40 env OUT="$res/kill_hazard" sh bench/kill_hazard.sh "$stage"
  ;;
extras-ab)
  step apps_before 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  step extras_ab 200 env OUT="$res/extras_ab" sh bench/profile_ab.sh "$stage" GPUHIER_DIAG_EXTRAS_WITH_CORE
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
next)
  step apps_before 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  step switch_probe 150 env OUT="$res/switch_probe" sh bench/profile_ab.sh "$stage" GPUHIER_DIAG_SWITCH_KEEP 1
  step cost 260 env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,trace,default AGREE_REPS=2 \
    AGREE_BUDGET_S=250 sh bench/agreement.sh "$stage"
  # last: call 3 left the counters busy for every later process
  export GPUHIER_DIAG_KEEP_ENABLED=1
  gt t150_keep 100 tests/gpu/t150-collector.sh
  unset GPUHIER_DIAG_KEEP_ENABLED
  gt t151_after 40 tests/gpu/t151-collector-quick.sh
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
clean)
  # measurements first, then the GPU tests (fixed 2026-11-30: their SIGKILL step left gpu/sigkill running)
  step overhead 250 env OUT="$res/overhead" RUNS=3 STEPS=150 LIMIT_S=200 DIAG=1 sh bench/overhead_trace.sh "$stage"
  step e2e 160 env OUT="$res/e2e" E2E_BUDGET_S=150 sh bench/e2e_testkernels.sh "$stage"
  gt t150 100 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  # the profiler kept enabled, with the program really killed: does HARDWARE_BUSY follow?
  export GPUHIER_DIAG_KEEP_ENABLED=1
  gt t151_keep 20 tests/gpu/t151-collector-quick.sh
  unset GPUHIER_DIAG_KEEP_ENABLED
  gt t151_after 20 tests/gpu/t151-collector-quick.sh
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
reagree)
  # the testkernels' agreement on a GPU nothing else uses (the one-pass run of
  # 2026-11-29 20:02 and the A1/A2 probes followed calls that ran t150/t151)
  step agree_single_tk 280 env OUT="$res/agree_single_tk" AGREE_PARTS=single-tk AGREE_BUDGET_S=270 \
    sh bench/agreement.sh "$stage"
  a2 agree_a2 40
  a1 agree_a1 60 "$a1_three"
  step agree_tk 110 env OUT="$res/agree_tk" AGREE_PARTS=agree-tk AGREE_BUDGET_S=100 sh bench/agreement.sh "$stage"
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
stack)
  # class C (docs/agreement.md): spill_bounds' L1 hit rate against the context's stack limit.
  for lim in none 1024 4096; do
    if [ $lim = none ]; then unset GPUHIER_DIAG_STACK_LIMIT; else export GPUHIER_DIAG_STACK_LIMIT=$lim; fi
    step "c_$lim" 40 env AGREE_PARTS=single-tk AGREE_PROGRAMS='^spill-bounds$' AGREE_TK_LAUNCHES=3 \
      OUT="$res/c_$lim" sh bench/agreement.sh "$stage"
    python3 - "$res/c_$lim" <<'PY'
import glob, json, sqlite3, sys
d = sys.argv[1]
for f in sorted(glob.glob(d + "/tk/*.db")):
    r = sqlite3.connect(f).execute("SELECT value FROM meta WHERE key = 'stack_limit_bytes'").fetchone()
    print("stack_limit_bytes", f.split("/")[-1], r[0] if r else None)
j = json.load(open(d + "/agreement.json"))
for c in j["single"]["comparisons"]:
    if c["kernel"].startswith("spill_bounds") and c["metric"] in (
            "l1tex__t_sector_hit_rate.pct", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
            "gpu__time_duration.sum"):
        print(c["index"], c["metric"], c["gpuhier"], c["ncu"])
PY
  done
  unset GPUHIER_DIAG_STACK_LIMIT
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
prewarm)
  # A1/A2 (docs/agreement.md): does the range profiler's first start pollute the L2 right
  # before the first profiled launch? Each probe plain, then with GPUHIER_DIAG_PREWARM=1, twice.
  for rep in 1 2; do
    for pw in 0 1; do
      if [ $pw = 1 ]; then set -- GPUHIER_DIAG_PREWARM=1; else set --; fi
      a1 "a1_pw${pw}_$rep" 30 '^transpose-tiled-4096$' "$@"
      a2 "a2_pw${pw}_$rep" 30 "$@"
    done
  done
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
cache)
  # --cache-control all (collector/cacheflush.c, docs/collector.md "Cache control"): t150,
  # whose step 2c checks the flush; the A1 and A2 probes with both tools flushing the L2
  # before each profiled launch; then the whole one-pass agreement the same way.
  gt t150 100 tests/gpu/t150-collector.sh
  a1 a1_all 40 "$a1_three" AGREE_CACHE=all
  a2 a2_all 30 AGREE_CACHE=all
  left=$(( 545 - ($(date +%s) - t0) ))
  [ "$left" -gt 60 ] && step single_tk_all "$left" env OUT="$res/single_tk_all" AGREE_PARTS=single-tk \
    AGREE_CACHE=all AGREE_BUDGET_S=$(( left - 15 )) sh bench/agreement.sh "$stage"
  ;;
cache2)
  # --cache-control all beyond one pass: the default set (3 passes, flush before the first)
  # against ncu (flush before each of its passes), the PyTorch benchmark's one-pass groups,
  # and what the flush costs on the PyTorch benchmark's default sampling.
  step agree_tk_all 200 env OUT="$res/agree_tk_all" AGREE_PARTS=agree-tk AGREE_CACHE=all \
    AGREE_BUDGET_S=185 sh bench/agreement.sh "$stage"
  step single_pt_all 200 env OUT="$res/single_pt_all" AGREE_PARTS=single-pt AGREE_CACHE=all \
    AGREE_BUDGET_S=185 sh bench/agreement.sh "$stage"
  for cc in none all; do
    step "cost_pt_$cc" 80 "$stage/gpuhier" run -q --no-analyze -f -o "$res/cost_pt_$cc.db" \
      --cache-control $cc python3 bench/pytorch_train.py --steps 2 --warmup 1
  done
  ;;
diag-c)
  diag_c
  ;;
resume)
  # The next stop's first call: the collector tests after this stop's last commits
  # (option parsing through schema/optvalue, GPUHIER_DIAG_PRINT_METRICS), then class C.
  gt t150 100 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  diag_c
  # --profile-budget by GPU time (docs/sampling.md): the real run against bench/budget_sim's
  # model; gpuhier run's end summary says how much of the traced GPU time the profiles cover
  # and prints any budget_time_unmatched warning
  step budget_pt 90 "$stage/gpuhier" run --no-analyze -f -o "$res/budget_pt.db" --profile-budget 30 \
    python3 bench/pytorch_train.py --steps 20 --warmup 3
  ;;
lazy)
  # The profiler hold (docs/collector.md): with the profiler warmed at the first launch
  # (GPUHIER_DIAG_PREWARM), do A1/A2 agree under --cache-control none, and what does the
  # hold save on PyTorch default sampling (profile_ab: A is the default 100 ms hold, B none)?
  gt t151_nohold 20 env GPUHIER_PROFILER_HOLD_MS=0 sh tests/gpu/t151-collector-quick.sh
  for rep in 1 2; do
    a1 "a1_hold_$rep" 40 '^transpose-tiled-4096$' GPUHIER_DIAG_PREWARM=1
    a2 "a2_hold_$rep" 30 GPUHIER_DIAG_PREWARM=1
  done
  step hold_ab 240 env OUT="$res/hold_ab" sh bench/profile_ab.sh "$stage" GPUHIER_PROFILER_HOLD_MS=0 1
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
self)
  # Issue 3 point 6's tolerances applied to each tool against itself (docs/agreement.md
  # "Each tool against itself"): the same launches, both tools, twice in one call.
  for r in 1 2; do
    step "self_$r" 200 env OUT="$res/self_$r" AGREE_PARTS=agree-tk AGREE_BUDGET_S=190 sh bench/agreement.sh "$stage"
  done
  step self_cmp 60 python3 bench/agreement/selfagree.py "$res/self_1" "$res/self_2" "$res/selfagree.md"
  ;;
hold)
  # The profiler hold as the default (GPUHIER_PROFILER_HOLD_MS, docs/collector.md): every GPU
  # test, t160's agreement as run 1 and one more agree-tk as run 2 (each tool against itself),
  # then the cost of default sampling against native on PyTorch (one run each).
  gpu_tests
  step self_2 170 env OUT="$res/self_2" AGREE_PARTS=agree-tk AGREE_BUDGET_S=160 sh bench/agreement.sh "$stage"
  step self_cmp 60 python3 bench/agreement/selfagree.py "$res/t160/t160" "$res/self_2" "$res/selfagree.md"
  left=$(( 560 - ($(date +%s) - t0) ))
  [ "$left" -gt 100 ] && step cost "$left" env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,default \
    AGREE_REPS=1 AGREE_BUDGET_S=$(( left - 10 )) sh bench/agreement.sh "$stage"
  ;;
hold2)
  gt t150 110 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  step cost 300 env OUT="$res/cost" AGREE_PARTS=cost AGREE_COST_MODES=native,trace,default \
    AGREE_REPS=2 AGREE_BUDGET_S=290 sh bench/agreement.sh "$stage"
  ;;
carveout)
  # Class C (docs/agreement.md): does the L1 size explain spill_bounds' higher L1 hit rate
  # in gpuhier? A profiled launch's own kernel record never completes, so its carveout is
  # unknown; ncu reports 32 KB for its own. Each run profiles the first three launches (one
  # pass, the l1-l2hit group) and traces the rest, whose complete records give the carveout
  # the driver chose for them.
  for v in plain 0 14 100; do
    if [ "$v" = plain ]; then set --; else set -- GPUHIER_DIAG_CARVEOUT=$v; fi
    c_gpuhier "cv_$v" "$@"
  done
  c_gpuhier cv_nokernel GPUHIER_DEBUG=1 GPUHIER_DIAG_NO_KERNEL_ACTIVITY=1
  grep -h 'profiled: ranges' "$res/cv_nokernel.log" | head -3
  c_ncu cv_ncu launch__shared_mem_config_size
  echo "== class C: L1 hit rate of spill_bounds' first three launches, and the carveout of the rest"
  for v in plain 0 14 100; do
    printf '%s: %s; carveout of unprofiled launches: %s\n' "$v" \
      "$(sed -n 's/.*l1tex__t_sector_hit_rate.pct = //p' "$res/cv_$v.log" | cut -c1-6 | tr '\n' ' ')" \
      "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT group_concat(c.carveout_bytes) FROM config c JOIN kernel k ON k.id = c.kernel_id WHERE k.short_name = ?", ("spill_bounds",)).fetchone()[0])' "$res/cv_$v.db")"
  done
  python3 -c 'import csv,sys; r=[x for x in csv.reader(l for l in open(sys.argv[1]) if l.startswith("\""))]; i=r[0].index("l1tex__t_sector_hit_rate.pct"); j=r[0].index("launch__shared_mem_config_size"); [print("ncu", x[i], "carveout", x[j]) for x in r[2:]]' "$res/cv_ncu.log"
  ;;
pad)
  # Class C (docs/agreement.md): does where the context's memory lands move spill_bounds'
  # L1 hit rate? Each run takes N MB before the program's first kernel, so the local memory
  # reserved at the first launch (and everything after it) moves by N MB.
  for v in 0 2 64 1000; do
    if [ "$v" = 0 ]; then set --; else set -- GPUHIER_DIAG_PAD_MB=$v; fi
    c_gpuhier "pad_$v" "$@"
  done
  c_ncu pad_ncu
  echo "== class C: L1 hit rate and duration of spill_bounds' first three launches"
  for v in 0 2 64 1000; do
    printf 'pad %s MB: %s / %s\n' "$v" \
      "$(sed -n 's/.*l1tex__t_sector_hit_rate.pct = //p' "$res/pad_$v.log" | cut -c1-6 | tr '\n' ' ')" \
      "$(sed -n 's/.*gpu__time_duration.sum = //p' "$res/pad_$v.log" | tr '\n' ' ')"
    grep -h 'PAD_MB' "$res/pad_$v.log"
  done
  python3 -c 'import csv,sys; r=[x for x in csv.reader(l for l in open(sys.argv[1]) if l.startswith("\""))]; i=r[0].index("l1tex__t_sector_hit_rate.pct"); j=r[0].index("gpu__time_duration.sum"); [print("ncu", x[i], "/", x[j]) for x in r[2:]]' "$res/pad_ncu.log"
  ;;
collector)
  gt t150 110 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  ;;
gputests)
  gpu_tests
  ;;
busy)
  # the collector that defers and retries on busy counters (commit 157dc84)
  gt t150 100 tests/gpu/t150-collector.sh
  gt t151 20 tests/gpu/t151-collector-quick.sh
  step two_procs 160 env OUT="$res/two_procs" LIMIT_S=150 sh bench/two_procs.sh "$stage"
  step apps_after 10 nvidia-smi --query-compute-apps=pid,name,used_memory --format=csv
  ;;
overhead)
  gt t150 100 tests/gpu/t150-collector.sh
  g0=$(sed -n 's/^group 0: //p' "${PASS_GROUPS:-/dev/null}" | tr ' ' ',')
  [ -n "$g0" ] && step cost-pt-group0 100 env GPUHIER_DEBUG=1 "$stage/gpuhier" run --no-analyze -f \
    -o "$res/cost-pt-group0.db" --metric-set none --metrics "$g0" python3 bench/pytorch_train.py --steps 2 --warmup 1
  step overhead 330 env OUT="$res/overhead" RUNS=3 STEPS=150 LIMIT_S=240 DIAG=1 sh bench/overhead_trace.sh "$stage"
  ;;
esac
find "$res" -name '*.md' -maxdepth 3 -exec cp {} "$OUT/" \; 2>/dev/null
# Reports of the GPU tests reach hundreds of MB (a killed program's): bring back what is small.
(cd "$res" && find . -type f -size -8M ! -name '*-wal' ! -name '*-shm' > "$OUT/bundle.list" &&
  tar czf "$OUT/bundle.tgz" -T "$OUT/bundle.list")
ls -la "$OUT"
echo "device-integration part $part: $(( $(date +%s) - t0 ))s"
