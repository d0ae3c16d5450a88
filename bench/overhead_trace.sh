#!/bin/sh
# SPDX-License-Identifier: MIT
#
# overhead_trace.sh: what `gpuhier run --mode trace` costs on the committed
# PyTorch training benchmark (bench/pytorch_train.py), against the native
# run, in one device call.
#
#   bench/overhead_trace.sh [BUILD_DIR]          (default: build)
#
# Environment: RUNS (timed runs per variant, default 3, at least 3),
# STEPS (training steps per run, default 300), LIMIT_S (stop starting new
# runs after this many seconds, default 420), OUT (results directory;
# default ./overhead-out), PROFILE=1 to also time the default profile mode
# (sampled counters) with the same runs, DIAG=1 to split the tracing cost
# (variants trace-nocb, trace-noact and kineto, below).
#
# One untimed native run first (imports, cuDNN and the page cache warm up),
# then RUNS rounds of native and traced runs, interleaved so a drift of the
# machine hits both alike. Two figures per run: the wall time of the whole
# process (what the user waits for: Python start, CUDA init, the
# collector's start and its final flush and close of the report) and the
# script's own train_s (the timed training steps only, synchronized).
# Overhead = median(traced) / median(native) - 1, for each.
#
# Writes $OUT/overhead_trace.md (the table, with date, GPU, driver and the
# exact commands), $OUT/overhead_trace.csv (every run) and the logs; prints
# the table and its own timing.
set -eu
BUILD=${1:-build}
RUNS=${RUNS:-3}
STEPS=${STEPS:-300}
LIMIT_S=${LIMIT_S:-420}
OUT=${OUT:-$PWD/overhead-out}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
G=$(cd "$BUILD" 2>/dev/null && pwd)/gpuhier
PY=${PYTHON:-python3}
SCRIPT=$ROOT/bench/pytorch_train.py
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gh-overhead-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
t_start=$(date +%s)
now() { date +%s.%N; }
log() { echo "overhead_trace: $*" >&2; }

[ "$RUNS" -ge 3 ] || { log "RUNS must be at least 3"; exit 2; }
[ -x "$G" ] || { log "no gpuhier at '$G' (build first, or pass the build directory)"; exit 2; }
if ! nvidia-smi -L > /dev/null 2>&1; then log "skipped: no GPU"; exit 77; fi
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
  log "skipped: no torch with CUDA"; exit 77
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
torchv=$("$PY" -c 'import torch; print(torch.__version__)')
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
"$G" doctor > "$OUT/doctor.txt" 2>&1 || log "doctor is not happy (see doctor.txt); trace mode may still work"

# run_one VARIANT I: one run; appends "variant,i,wall_s,train_s,launches,report_bytes,dropped" to the csv.
run_one() {
  v=$1; i=$2; out=$WORK/$v-$i.out; err=$OUT/$v-$i.stderr.txt; rep=$WORK/$v-$i.db
  case $v in
    native) set -- "$PY" "$SCRIPT" --steps "$STEPS" ;;
    trace) set -- "$G" run --mode trace --no-analyze -f -o "$rep" "$PY" "$SCRIPT" --steps "$STEPS" ;;
    profile) set -- "$G" run --no-analyze -f -o "$rep" "$PY" "$SCRIPT" --steps "$STEPS" ;;
    trace-nocb) set -- env GPUHIER_DIAG_NO_LAUNCH_CALLBACKS=1 "$G" run --mode trace --no-analyze -f -o "$rep" "$PY" "$SCRIPT" --steps "$STEPS" ;;
    trace-noact) set -- env GPUHIER_DIAG_NO_KERNEL_ACTIVITY=1 "$G" run --mode trace --no-analyze -f -o "$rep" "$PY" "$SCRIPT" --steps "$STEPS" ;;
    kineto) set -- "$PY" "$SCRIPT" --steps "$STEPS" --torch-profiler ;;
  esac
  echo "$*" > "$WORK/cmd-$v"
  t0=$(now)
  if ! "$@" > "$out" 2> "$err"; then log "$v run $i failed (see $err)"; tail -5 "$err" >&2; return 1; fi
  t1=$(now)
  wall=$(echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }')
  train=$(sed -n 's/.*train_s=\([0-9.]*\).*/\1/p' "$out")
  launches=""; bytes=""; dropped=""
  if [ "$v" != native ] && [ "$v" != kineto ]; then
    [ -s "$rep" ] || { log "$v run $i wrote no report"; return 1; }
    bytes=$(wc -c < "$rep" | tr -d ' ')
    launches=$("$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM launch").fetchone()[0])' "$rep")
    dropped=$("$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT coalesce(sum(records_dropped),0)+coalesce(sum(activity_dropped),0) FROM run").fetchone()[0])' "$rep")
    [ "$i" = 1 ] && cp "$rep" "$OUT/$v-1.db" 2> /dev/null || true
  fi
  echo "$v,$i,$wall,$train,$launches,$bytes,$dropped" >> "$OUT/overhead_trace.csv"
  log "$v $i: wall ${wall} s, train ${train} s${launches:+, $launches launches}${bytes:+, $bytes bytes}"
}

echo "variant,run,wall_s,train_s,launches,report_bytes,dropped" > "$OUT/overhead_trace.csv"
log "GPU: $gpu; torch $torchv; $RUNS runs of $STEPS steps each"
run_one native 0 || { log "the native warm-up run failed"; exit 1; }   # not counted
sed -i '/^native,0,/d' "$OUT/overhead_trace.csv"
variants="native trace"
[ "${PROFILE:-0}" = 1 ] && variants="$variants profile"
# DIAG=1: where tracing's cost goes. trace-nocb: no launch callbacks (CUPTI's kernel
# tracing alone); trace-noact: no kernel activity (the callbacks alone); kineto: the same
# script under torch.profiler with CUDA activities only, PyTorch's own CUPTI tracer.
[ "${DIAG:-0}" = 1 ] && variants="$variants trace-nocb trace-noact kineto"
done_runs=0
i=1
while [ $i -le "$RUNS" ]; do
  for v in $variants; do run_one "$v" "$i" || log "$v run $i left out of the medians"; done
  done_runs=$i
  if [ $(( $(date +%s) - t_start )) -gt "$LIMIT_S" ] && [ $i -ge 3 ]; then log "time limit reached after $i rounds"; break; fi
  i=$((i + 1))
done

median() { # median VARIANT COLUMN
  awk -F, -v v="$1" -v c="$2" '$1 == v && $c != "" { print $c }' "$OUT/overhead_trace.csv" | sort -g |
    awk '{ a[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.4f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%+.1f %%", (a / b - 1) * 100 }'; }

nw=$(median native 3); nt=$(median native 4)
md=$OUT/overhead_trace.md
{
  echo "# Trace-mode overhead on the PyTorch training benchmark"
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $gpu (GPU, driver), torch $torchv, gpuhier commit $commit, by \`bench/overhead_trace.sh\`."
  echo "Workload: \`bench/pytorch_train.py --steps $STEPS\` (conv stem + 2 transformer blocks, AdamW, bf16 autocast, NVTX ranges)."
  echo "Native: \`$(cat "$WORK/cmd-native" | sed "s|$ROOT/||g")\`."
  echo "Traced: \`$(cat "$WORK/cmd-trace" | sed "s|$ROOT/||g; s|$WORK/||g")\`."
  for v in $variants; do
    case $v in native|trace) ;; *) echo "Variant $v: \`$(sed "s|$ROOT/||g; s|$WORK/||g" "$WORK/cmd-$v")\`." ;; esac
  done
  echo "$done_runs timed runs per variant after one untimed native warm-up run, interleaved; medians; overhead = median(variant) / median(native) - 1."
  echo "*wall* is the whole process as the user waits for it (Python start, CUDA init, collector start, final flush and report close); *train* is the script's own synchronized time of the timed steps."
  echo
  echo "| variant | runs | wall s (median) | wall overhead | train s (median) | train overhead | launches traced | report bytes | records dropped |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for v in $variants; do
    w=$(median "$v" 3); t=$(median "$v" 4); l=$(median "$v" 5); b=$(median "$v" 6); d=$(median "$v" 7)
    n=$(awk -F, -v v="$v" '$1 == v' "$OUT/overhead_trace.csv" | wc -l | tr -d ' ')
    if [ "$v" = native ]; then ow="—"; ot="—"; else ow=$(pct "$w" "$nw"); ot=$(pct "$t" "$nt"); fi
    echo "| $v | $n | $w | $ow | $t | $ot | ${l:-—} | ${b:-—} | ${d:-—} |"
  done
  echo
  echo "Target (issue 2, point 10): trace overhead ≤ 5 %."
  echo "Every run is in \`overhead_trace.csv\`; each run's stderr (gpuhier's summary) is beside it."
} > "$md"
cat "$md"
log "done in $(( $(date +%s) - t_start )) s; results in $OUT"
