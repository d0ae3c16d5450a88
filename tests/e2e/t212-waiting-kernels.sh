#!/bin/sh
# SPDX-License-Identifier: MIT
# t212: a kernel that waits is labelled in the kernels view, counted once
# in the summary, and ranked nowhere. On test_analyzer's SYNTHETIC sample
# report, whose second kernel becomes a 1x1 grid named DelayKernel (no
# counters: the name and the grid decide, rules/idle-kernel.rule).
. "$(dirname "$0")/sample-report-lib.sh"

mk "$t/r.db"
"$helper" sql "$t/r.db" "UPDATE kernel SET short_name = 'DelayKernel', demangled_name = 'stream_executor::gpu::DelayKernel'
  WHERE id = 2; UPDATE config SET grid_x = 1, block_x = 32, blocks = 1, threads_per_block = 32 WHERE id = 2" >/dev/null
# and one of its launches profiled (kernel 1's counters scaled down), so that it has bytes a floor could be taken of
"$helper" sql "$t/r.db" "UPDATE launch SET profiled = 1, profile_reason = 'first_of_config' WHERE id = 11;
  INSERT INTO profile SELECT 11, passes, metric_set, duration_ns, overhead_ns FROM profile WHERE launch_id = 16;
  INSERT INTO metric SELECT 11, metric_id, value / 100 FROM metric WHERE launch_id = 16" >/dev/null
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || bad "analyze"
has "$t/a" "note: 1 kernel waits instead of working (0.1 ms)" "analyze says a kernel waits (its time to three significant digits)"
"$bin" report "$t/r.db" --view kernels > "$t/k" 2>&1
grep "DelayKernel" "$t/k" | grep -q "waiting" && ok "kernels view labels DelayKernel waiting" || { bad "kernels view label"; cat "$t/k"; }
# no distance to a floor for a kernel whose time is a wait (a JAX report's DelayKernel read 507x)
[ "$("$helper" sql "$t/r.db" "SELECT COUNT(*) FROM kernel_summary WHERE kernel_id = 2 AND bound_tier = 'waiting'
  AND floor_ratio IS NULL AND floor_ratio_measured IS NULL")" = 2 ] \
  && ok "no floor ratio for the waiting kernel" || bad "floor ratio of the waiting kernel:
  $("$helper" sql "$t/r.db" "SELECT config_id, floor_ratio, floor_ratio_measured FROM kernel_summary WHERE kernel_id = 2")"
"$bin" report "$t/r.db" --view summary > "$t/s" 2>&1
has "$t/s" "Waiting *1 kernel (100 µs) wait instead of working" "summary counts the waiting kernel once"
# the coverage shares leave it out too (XLA's DelayKernel made a JAX run read 83.7 % hardware coverage
# where its work had 18.5 %); store_counter_coverage's numbers: unit.store
has "$t/s" "^Counters .* of the working kernel time" "coverage is of the working kernel time"
# the summary's time split is of the run's GPU time, which leaves the waiting kernel out: listed
# there, its share was of a total it is not in (a JAX report of 2026-12-04 showed XLA's DelayKernel
# at 248.1 %)
sed -n '/^Time by kernel/,$p' "$t/s" > "$t/split"
lacks "$t/split" "DelayKernel" "the time split leaves the waiting kernel out, as the ranking does"
[ "$("$helper" sql "$t/r.db" "SELECT COUNT(*) FROM finding WHERE kernel_id = 2 AND rule_id <> 'idle-kernel'")" = 0 ] \
  && ok "no other finding on it" || bad "no other finding on it"
[ "$("$helper" sql "$t/r.db" "SELECT run_gpu_ns FROM analysis")" = 1100000 ] \
  && ok "its 100 us left out of the run's GPU time" || bad "run_gpu_ns: $("$helper" sql "$t/r.db" "SELECT run_gpu_ns FROM analysis")"
[ $fail = 0 ] && echo "t212: waiting kernels ok"
exit $fail
