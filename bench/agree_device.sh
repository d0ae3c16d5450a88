#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/agree_device.sh [STAGE]: issue 17 points 6-7 and issue 18 point 5
# in one device call (carry [".stage"]: `sh bench/agree_device.sh .stage`).
#   inst    bench/agreement/inst_agree.py: the instrumentation engine's
#           exact counts against ncu's on the same launches, +-0.5 %;
#   spread  bench/agreement/spread_agree.py: the default's spread one-pass
#           groups against ncu collecting the same group on the same
#           launch, gates (a) and (b);
#   cost    bench/instrument_cost.py: native, default, GPUHIER_INSTRUMENT=1
#           and =both on four workloads, median of COST_REPS runs.
# AGREE_DEVICE_PARTS (default inst,spread,cost) picks parts; each part has
# its own limit (INST_BUDGET_S 120, SPREAD_BUDGET_S 130, COST_BUDGET_S: the
# rest), enforced twice: the part's own budget guard skips what would not
# fit, and timeout(1) ends it 20 s after. BUDGET_S (default 560) bounds the
# whole call: a part that would start with less than 30 s left is skipped.
# Out ($OUT, default out/agree-device), at most 8 files:
#   agree-device.log, inst-agree.md, spread-agree.md, instrument-cost.md,
#   inst-agree.json.gz, spread-agree.json.gz, instrument-cost.json,
#   raw.tar.gz (reports, ncu CSVs and logs; the largest left out past 12 MB).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=$(cd "${1:-.stage}" 2> /dev/null && pwd) || { echo "agree_device: no stage ${1:-.stage}" >&2; exit 2; }
[ -x "$stage/gpuhier" ] || { echo "agree_device: no $stage/gpuhier (scripts/stage.sh BUILD $stage)" >&2; exit 2; }
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi > /dev/null 2>&1; then
    echo "skipped: no GPU"
    exit 77
fi
out=${OUT:-out/agree-device}
mkdir -p "$out"
out=$(cd "$out" && pwd)
w=$(mktemp -d)
export PYTHONUNBUFFERED=1 GPUHIER_DATA_DIR=$root
budget=${BUDGET_S:-560}
parts=${AGREE_DEVICE_PARTS:-inst,spread,cost}
t_start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t_start) )); }
# part NAME LIMIT CMD...: runs CMD with its budget LIMIT (capped by what is left) under timeout LIMIT+20
part() {
    name=$1 lim=$2
    shift 2
    case ",$parts," in *",$name,"*) ;; *) echo "== $name: not asked for (AGREE_DEVICE_PARTS=$parts)"; return 0 ;; esac
    l=$(left)
    [ "$l" -lt 30 ] && { echo "== $name: skipped, ${l} s left of BUDGET_S=$budget"; return 0; }
    [ "$lim" -gt $((l - 20)) ] && lim=$((l - 20))
    echo "== $name: budget ${lim} s, $(date -u '+%H:%M:%S')"
    s=$(date +%s)
    timeout -k 5 $((lim + 20)) "$@" --budget "$lim"
    echo "== $name: status $?, $(( $(date +%s) - s )) s"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), stage $(cat "$stage/COMMIT" 2> /dev/null), $(ncu --version 2> /dev/null | tail -1)"
    part inst "${INST_BUDGET_S:-120}" python3 "$root/bench/agreement/inst_agree.py" --stage "$stage" --root "$root" --out "$w/inst"
    part spread "${SPREAD_BUDGET_S:-130}" python3 "$root/bench/agreement/spread_agree.py" --stage "$stage" --root "$root" --out "$w/spread"
    part cost "${COST_BUDGET_S:-$budget}" python3 "$root/bench/instrument_cost.py" --stage "$stage" --root "$root" --out "$w/cost"
    echo "== done in $(( $(date +%s) - t_start )) s"
} > "$out/agree-device.log" 2>&1
cat "$out/agree-device.log"
for f in inst/inst-agree.md spread/spread-agree.md cost/instrument-cost.md cost/instrument-cost.json; do
    [ -f "$w/$f" ] && cp "$w/$f" "$out/"
done
for f in inst/inst-agree.json spread/spread-agree.json; do
    [ -f "$w/$f" ] && gzip -c "$w/$f" > "$out/$(basename "$f").gz"
done
# raw data: the smallest files first, up to 12 MB before compression
(cd "$w" && find . -type f ! -name '*.md' ! -name '*-agree.json' ! -name 'instrument-cost.json' -printf '%s %p\n' \
    | sort -n | awk '{ s += $1; if (s <= 12000000) print $2 }' > "$w/.list"
    tar -czf "$out/raw.tar.gz" -T "$w/.list")
ls -l "$out"
