#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/candidate_check.sh [STAGE]: a collector variant judged as the
# default would be, in one device call (carry [".stage"]:
# `sh bench/candidate_check.sh .stage`). The variant is CANDIDATE, a list
# of VAR=VALUE words exported for every gpuhier run of the parts, or
# "none" (the default: nothing exported, so the parts judge the default
# itself; the kept session with group runs, docs/sampling.md "Group runs",
# was the candidate until it became the default on 2026-12-04):
#   tests   tests/gpu/run-all.sh: every GPU test (TESTS_BUDGET_S, 230);
#   stress  bench/stress/stress.py: nine rows, native and default, 12 jobs
#           (STRESS_BUDGET_S, 70);
#   cost    bench/cost_vs_ncu.py --runs 3, beside ncu unless
#           CANDIDATE_NO_NCU=1 (COST_BUDGET_S: the rest; COST_ARGS: more
#           arguments, e.g. "--parts every --runs 1");
#   threads bench/threads_check.py: gpu/multistream (8 launching threads)
#           THREADS_RUNS (20) times, each report checked for a launch
#           without its reason or a configuration without its group-1
#           first profile (THREADS_BUDGET_S, 90);
#   spread  bench/agreement/spread_agree.py: its values against ncu's on
#           the same launches (SPREAD_BUDGET_S, 130).
# CANDIDATE_PARTS (default tests,stress,cost) picks the parts, in that
# order; BUDGET_S (default 560) bounds the call: a part that would start
# with less than 30 s left is skipped, and each runs under timeout(1).
# Out ($OUT, default out/candidate), at most 12 files (the parts asked
# for: the device tool returns 8): candidate.log, gpu-tests.txt,
# gpu-tests.tgz (the tests' logs, no reports), stress.md, stress.json,
# cost_vs_ncu.md, spread-agree.md, cost-torch.db, cost-jax.db and their
# trace reports cost-torch-trace.db, cost-jax-trace.db (bench/policy_sim.py),
# and cost-variants.tgz (each COST_ARGS --variant's last report).
# Exit 77 without a GPU.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
stage=$(cd "${1:-.stage}" 2> /dev/null && pwd) || { echo "candidate_check: no stage ${1:-.stage}" >&2; exit 2; }
[ -x "$stage/gpuhier" ] || { echo "candidate_check: no $stage/gpuhier (scripts/stage.sh BUILD $stage)" >&2; exit 2; }
out=${OUT:-out/candidate}
mkdir -p "$out"
out=$(cd "$out" && pwd)
w=$(mktemp -d)
candidate=${CANDIDATE:-none}
parts=${CANDIDATE_PARTS:-tests,stress,cost}
budget=${BUDGET_S:-560}
t_start=$(date +%s)
envs=""
[ "$candidate" = none ] && candidate=""
for kv in $candidate; do
    # shellcheck disable=SC2163 # kv holds VAR=VALUE: that variable is exported
    case $kv in *=*) export "$kv"; envs="$envs --env $kv" ;; *) echo "candidate_check: not VAR=VALUE: $kv" >&2; exit 2 ;; esac
done
export PYTHONUNBUFFERED=1 GPUHIER_DATA_DIR="$root"
if ! command -v nvidia-smi > /dev/null 2>&1 || ! nvidia-smi > /dev/null 2>&1; then
    echo "skipped: no GPU"
    exit 77
fi
left() { echo $((budget - ($(date +%s) - t_start))); }
# want NAME LIMIT: prints the part's limit (capped by what is left), or nothing when it is skipped
want() {
    case ",$parts," in *",$1,"*) ;; *) echo "== $1: not asked for (CANDIDATE_PARTS=$parts)" >&2; return 1 ;; esac
    l=$(left)
    [ "$l" -lt 30 ] && { echo "== $1: skipped, $l s left of BUDGET_S=$budget" >&2; return 1; }
    lim=$2
    [ "$lim" -gt $((l - 20)) ] && lim=$((l - 20))
    echo "== $1: budget $lim s, $(date -u '+%H:%M:%S')" >&2
    echo "$lim"
}
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), stage $(cat "$stage/COMMIT" 2> /dev/null); candidate: ${candidate:-none (the default)}"
    if lim=$(want tests "${TESTS_BUDGET_S:-230}"); then
        OUT="$w/tests" DEADLINE_S=$lim timeout -k 5 $((lim + 20)) sh "$root/tests/gpu/run-all.sh" "$stage" > "$w/tests.log" 2>&1
        echo "== tests: status $?"
        cat "$w/tests/gpu-tests.txt" 2> /dev/null
    fi
    if lim=$(want stress "${STRESS_BUDGET_S:-70}"); then
        timeout -k 5 $((lim + 20)) python3 "$root/bench/stress/stress.py" --stage "$stage" --runs 20 --jobs 12 \
            --rows ret,exit,thread_exit,bg,nosync,fork,segv,abort,torch --modes native,default \
            --deadline $((lim - 15)) --timeout 60 --out "$w/stress.md" --json "$w/stress.json" \
            --title "candidate: ${candidate:-none (the default)}, stage $(cat "$stage/COMMIT" 2> /dev/null)" > "$w/stress.log" 2>&1
        echo "== stress: status $?"
        grep '^- \|^| ' "$w/stress.md" 2> /dev/null
    fi
    if lim=$(want cost "${COST_BUDGET_S:-$budget}"); then
        ncu=""
        [ "${CANDIDATE_NO_NCU:-0}" = 1 ] && ncu="--no-ncu"
        # shellcheck disable=SC2086 # envs is a list of --env words, COST_ARGS of arguments
        OUT="$w/cost" timeout -k 5 $((lim + 20)) python3 "$root/bench/cost_vs_ncu.py" "$stage" --runs 3 --ncu-runs 1 \
            --keep-reports --deadline $((lim - 60)) $ncu $envs ${COST_ARGS:-} > "$w/cost.log" 2>&1
        echo "== cost: status $?"
        grep '^| \|run [0-9]:' "$w/cost/cost_vs_ncu.md" "$w/cost.log" 2> /dev/null | sed 's/^[^:]*://'
    fi
    if lim=$(want threads "${THREADS_BUDGET_S:-90}"); then
        timeout -k 5 $((lim + 20)) python3 "$root/bench/threads_check.py" "$stage" --runs "${THREADS_RUNS:-20}" \
            --out "$w/threads.md" > "$w/threads.log" 2>&1
        echo "== threads: status $?"
        tail -40 "$w/threads.log"
    fi
    if lim=$(want spread "${SPREAD_BUDGET_S:-130}"); then
        timeout -k 5 $((lim + 20)) python3 "$root/bench/agreement/spread_agree.py" --stage "$stage" --root "$root" \
            --out "$w/spread" --budget "$lim" > "$w/spread.log" 2>&1
        echo "== spread: status $?"
        tail -5 "$w/spread.log"
    fi
    echo "== done in $(($(date +%s) - t_start)) s"
} > "$out/candidate.log" 2>&1
cat "$out/candidate.log"
cp "$w/tests/gpu-tests.txt" "$w/tests/gpu-tests.tgz" "$w/stress.md" "$w/stress.json" "$w/cost/cost_vs_ncu.md" \
    "$w/spread/spread-agree.md" "$w/cost/cost-torch.db" "$w/cost/cost-jax.db" "$w/cost/cost-torch-trace.db" \
    "$w/cost/cost-jax-trace.db" "$out/" 2> /dev/null
# the variants' last reports (cost_vs_ncu.py --variant with --keep-reports), one archive: the
# device returns at most 8 files, and what a variant's findings lose is read from its report
variants=$(cd "$w/cost" 2> /dev/null && find . -maxdepth 1 -name 'cost-*-*.db' ! -name 'cost-*-trace.db' | sort)
[ -n "$variants" ] && (cd "$w/cost" && echo "$variants" | xargs tar czf "$out/cost-variants.tgz")
ls -l "$out"
