#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the libFuzzer target tests/fuzz/fuzz_report.c with clang, ASan
# and UBSan (in build-fuzz/ unless BUILD_DIR is set) and run it for
# SECONDS (default 60) on a corpus seeded from the shipped demo reports.
# Exit 0 when the run ended without a crash, hang, leak or sanitizer
# report; the last lines of libFuzzer's log give the exec count. New
# corpus entries stay in build-fuzz/corpus (not in the repository).
# usage: tests/fuzz/run.sh [SECONDS] [libFuzzer options...]
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}; [ $# -gt 0 ] && shift
build=${BUILD_DIR:-build-fuzz}
command -v clang > /dev/null || { echo "fuzz: clang is missing (scripts/deps.sh installs it)" >&2; exit 1; }
mkdir -p "$build/corpus" "$build/artifacts"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DGPUHIER_FUZZ=ON -DGPUHIER_SANITIZE=ON \
  -DGPUHIER_TESTKERNELS=OFF > "$build/fuzz-configure.log" 2>&1 || { cat "$build/fuzz-configure.log"; exit 1; }
cmake --build "$build" --target fuzz_report -j"$(nproc 2>/dev/null || echo 2)" > "$build/fuzz-build.log" 2>&1 \
  || { tail -50 "$build/fuzz-build.log"; exit 1; }
cp -n demo/*.db "$build/corpus/" 2> /dev/null || true
max=$(wc -c demo/*.db | sort -n | tail -2 | head -1 | awk '{print $1}')
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "fuzz: $build/tests/fuzz_report for ${secs}s on $build/corpus (seeds: demo/*.db)"
"$build/tests/fuzz_report" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
  -max_len="$max" -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$@" "$build/corpus" \
  2> "$build/fuzz.log" || { tail -60 "$build/fuzz.log"; echo "fuzz: FAILED (artifacts in $build/artifacts)"; exit 1; }
grep -E "^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::peak_rss|stat::new_units" "$build/fuzz.log" | tail -5
echo "fuzz: no crash, hang, leak or sanitizer report in ${secs}s"
