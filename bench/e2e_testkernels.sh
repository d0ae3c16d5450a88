#!/bin/sh
# SPDX-License-Identifier: MIT
#
# e2e_testkernels.sh [BUILD_DIR]: the analyzer end to end on the H200
# (issue 5, points 4 and 6). Runs every case of testkernels/manifest.json
# under `gpuhier run`, analyzes each report, and writes to $OUT:
#   e2e-testkernels.md    precision, recall, per-case verdicts, false
#                         positives/negatives, and the table of estimated
#                         time lost vs the saving measured on the fixed twin;
#   e2e-testkernels.json  the headline numbers;
#   reports/<case>.db     every report (analyzed);
#   e2e-testkernels.log   every command and its output.
# Needs the build with testkernels (BUILD_DIR/testkernels/tk_*), python3.
# Stops starting cases after E2E_BUDGET_S (default 330 s) so the whole call
# stays under 6 minutes; cases not run are listed as such.
# Environment: OUT (default ./out/e2e), TK_REPS (default 10),
# E2E_CASES (comma-separated case ids; default all), E2E_REPLAY (kernel,
# the default here: the rules' table, every configuration with the core set
# and the extras named with --metrics on its first launch, the mode of the
# recorded tables; none: the collector's default, one-pass groups, no extra
# names, and the per-case table lists the groups each case's kernels lack),
# E2E_METRICS (the extra names; default the catalogue's tma, requests and
# sass_bytes groups plus the evict-first counters, kernel mode only).
# Offline (no GPU): E2E_REPORTS=DIR re-scores recorded reports DIR/<case>.db:
# each is copied to $OUT/reports, analyzed again with the current rules
# (gpuhier analyze on the copy) and scored; the originals are not modified.
# E2E_RECORDED says where and when they were recorded (for the page).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-${GPUHIER_BUILD:-$root/build}}
: "${OUT:=$root/out/e2e}"
mkdir -p "$OUT"
start=$(date +%s)
if [ -n "${E2E_REPORTS:-}" ]; then
  [ -x "$build/gpuhier" ] || { echo "e2e_testkernels: no gpuhier in '$build'" >&2; exit 1; }
  python3 "$here/e2e/testkernels.py" --root "$root" --build "$build" --out "$OUT" \
    --reports "$E2E_REPORTS" --recorded "${E2E_RECORDED:-}"
  exit $?
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
[ -x "$build/gpuhier" ] || { echo "e2e_testkernels: no gpuhier in '$build'" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
python3 "$here/e2e/testkernels.py" --root "$root" --build "$build" --out "$OUT" \
  --budget "${E2E_BUDGET_S:-330}" --reps "${TK_REPS:-10}"
rc=$?
echo "e2e_testkernels: $(( $(date +%s) - start )) s, device $(cat "$OUT/device.txt")"
exit $rc
