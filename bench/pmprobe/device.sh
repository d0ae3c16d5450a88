#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/pmprobe/device.sh [STAGE]: the PM sampling probe (docs/pmprobe.md), one device call.
#
#  1. bench/sassprobe's `cases` (7 kernels x 3 launches, synchronized after each round):
#     native, then under libgh_pmprobe.so at 20 µs samples, then `ncu --csv --page raw` with
#     the metrics both can read, for the per-kernel comparison;
#  2. tk_graph (the testkernel launched from a CUDA graph) under the probe;
#  3. the PyTorch benchmark (bench/pytorch_train.py --steps 20 --warmup 3) and the JAX loop
#     (bench/suite/jax_mlp.py with XLA's defaults: its steady state runs as command buffers,
#     CUDA graphs), native then under the probe at 100 µs and 50 µs, PyTorch also at 50 µs with
#     4 metrics: the wall-time cost, the samples, restarts after a full hardware buffer, decode
#     and evaluation time, the kernel time the samples reach, the time in graphs (2, 5 and 20 µs
#     overflowed the hardware buffer on 2026-12-05: docs/pmprobe.md "Measured");
#  4. the probe attached to gpuhier's collector (GPUHIER_DIAG_PMPROBE) under the instrumentation
#     engine alone (`cases`, the JAX loop): does PM sampling run while SASS metrics patch launches;
#  5. windows (docs/pmprobe.md "Windows"): `stress_app kernels 3000` under both engines with every
#     launch chosen, without the probe and with a 200 ms sampling window ended by Stop, or by Stop
#     and Disable: does the range profiler profile after the window.
# attribute.py runs on the device (a PyTorch run's samples are too large to bring back); what
# comes back into $OUT: pmprobe.md (the summary table, then each run's attribution) and
# pmprobe-runs.tar.gz (every run's meta and kernel files, the cases runs' samples, the ncu csv).
# Runs that would end past BUDGET_S (default 420) are skipped and listed as skipped.
set -u
stage=${1:-.stage}
out=${OUT:-out}
d=bench/pmprobe
lib=$(cd "$stage/gpu" && pwd)/libgh_pmprobe.so
cases=$(cd "$stage/gpu" && pwd)/cases
graph=$(cd "$stage/testkernels" && pwd)/tk_graph
budget=${BUDGET_S:-420}
t_start=$(date +%s)
runs="$out/pmprobe-runs"
mkdir -p "$runs"
export PYTHONUNBUFFERED=1
metrics="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,l1tex__t_sectors.sum,l1tex__t_sectors_lookup_hit.sum,sm__cycles_active.sum,gr__cycles_active.sum"

{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "commit $(cat "$stage/COMMIT" 2>/dev/null || echo '?')"
    ldd "$lib" | grep -E 'cupti|not found'
} > "$runs/env.txt" 2>&1
cat "$runs/env.txt"

# one NAME SECONDS CMD...: a run into runs/NAME (wall time, status, output), unless the budget is spent
one() {
    name=$1 limit=$2
    shift 2
    if [ $(($(date +%s) - t_start + limit)) -gt "$budget" ]; then
        echo "$name: skipped (budget)"
        mkdir -p "$runs/$name" && echo budget > "$runs/$name/skipped"
        return
    fi
    mkdir -p "$runs/$name"
    t0=$(date +%s.%N)
    timeout -k 5 "$limit" "$@" > "$runs/$name/stdout" 2> "$runs/$name/stderr"
    echo $? > "$runs/$name/rc"
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' > "$runs/$name/wall"
    echo "$name: status $(cat "$runs/$name/rc"), $(cat "$runs/$name/wall") s"
}
probe() { # probe NAME INTERVAL_NS SECONDS CMD...
    name=$1 iv=$2 limit=$3
    shift 3
    one "$name" "$limit" env CUDA_INJECTION64_PATH="$lib" PMPROBE_OUT="$runs/$name" PMPROBE_INTERVAL_NS="$iv" "$@"
}

# PMPROBE_PART=byconfig: only the per-configuration deconvolution against ncu (attribute.py
# --by-config); PMPROBE_BYCONFIG lists the workloads (default torch,cases): torch (the PyTorch
# benchmark under the probe at 100 µs and under ncu --filter-mode per-launch-config -c 1 with the
# sampled metrics that add up), torchwarm (the same ncu run with --cache-control none, for DRAM bytes
# like for like with the warm sampled run), jax (the JAX loop, XLA's defaults, the same two runs),
# cases (`cases` at 20 µs and under ncu). Brings back byconfig.md and byconfig-runs.tar.gz.
if [ "${PMPROBE_PART:-all}" = byconfig ]; then
    sums="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,l1tex__t_sectors.sum,l1tex__t_sectors_lookup_hit.sum,sm__cycles_active.sum,gr__cycles_active.sum"
    ncu_raw() { # ncu_raw NAME SECONDS [ncu options] CMD...: the sums' raw page, base units
        name=$1 limit=$2
        shift 2
        one "$name" "$limit" ncu --csv --page raw --print-units base --print-kernel-base mangled \
            --metrics "$sums" "$@"
    }
    ncu_cfg() { # ncu_cfg NAME SECONDS [ncu options] CMD...: each configuration's first launch
        name=$1 limit=$2
        shift 2
        ncu_raw "$name" "$limit" --filter-mode per-launch-config -c 1 "$@"
    }
    sections=
    for w in $(echo "${PMPROBE_BYCONFIG:-torch,cases}" | tr ',' ' '); do
        case $w in
        torch)
            probe torch-100us 100000 120 python3 bench/pytorch_train.py --steps 20 --warmup 3
            ncu_cfg torch-ncu 150 python3 bench/pytorch_train.py --steps 20 --warmup 3
            sections="$sections torch-100us:torch-ncu" ;;
        torchwarm)
            [ -d "$runs/torch-100us" ] || probe torch-100us 100000 120 python3 bench/pytorch_train.py --steps 20 --warmup 3
            ncu_cfg torchwarm-ncu 150 --cache-control none python3 bench/pytorch_train.py --steps 20 --warmup 3
            sections="$sections torch-100us:torchwarm-ncu" ;;
        jax)
            probe jax-100us 100000 120 env -u XLA_FLAGS python3 bench/suite/jax_mlp.py
            # ncu without JAX's preallocation: kernel replay saves and restores the memory a
            # kernel can reach, 75 % of the GPU with it (issue 18: 65 s a profile); the kernels
            # are XLA's either way.
            ncu_cfg jax-ncu 180 env -u XLA_FLAGS XLA_PYTHON_CLIENT_PREALLOCATE=false python3 bench/suite/jax_mlp.py
            sections="$sections jax-100us:jax-ncu" ;;
        cases)
            probe cases-20us 20000 60 "$cases"
            ncu_raw cases-ncu 120 "$cases"
            sections="$sections cases-20us:cases-ncu" ;;
        esac
    done
    {
        echo "# PM sampling per configuration, $(date -u '+%Y-%m-%d %H:%M UTC'), $(sed -n 2p "$runs/env.txt"), stage $(cat "$stage/COMMIT" 2>/dev/null)"
        for s in $sections; do
            p=${s%%:*} n=${s#*:}
            echo
            echo "## $p against $n: status $(cat "$runs/$p/rc" 2>/dev/null), ncu status $(cat "$runs/$n/rc" 2>/dev/null)"
            python3 "$d/attribute.py" "$runs/$p" --by-config --ncu "$runs/$n/stdout" --top 40 2>&1
        done
    } > "$out/byconfig.md" 2>&1
    tar czf "$out/byconfig-runs.tar.gz" -C "$out" pmprobe-runs && rm -rf "$runs"
    grep -A12 '^## \|Against ncu per configuration' "$out/byconfig.md" | grep -v '^$'
    echo "total $(($(date +%s) - t_start)) s"
    exit 0
fi

one cases-native 30 "$cases"
probe cases-20us 20000 60 "$cases"
one cases-ncu 120 ncu --csv --page raw --print-units base --print-kernel-base mangled --metrics "$metrics" "$cases"
probe graph-20us 20000 60 "$graph" 20
one torch-native 120 python3 bench/pytorch_train.py --steps 20 --warmup 3
# the decode thread's pace: 2 µs and 5 µs (session of 2026-12-05 21:12 UTC) and 20 µs overflowed
# the hardware buffer on PyTorch (decoding and evaluating took about 40 µs of CPU a sample with
# 13 metrics); 50 and 100 µs, and 50 µs with the 4 metrics of a DRAM and L2 reading
probe torch-100us 100000 120 python3 bench/pytorch_train.py --steps 20 --warmup 3
probe torch-50us 50000 120 python3 bench/pytorch_train.py --steps 20 --warmup 3
probe torch-50us-4m 50000 120 env PMPROBE_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,gr__cycles_active.sum \
    python3 bench/pytorch_train.py --steps 20 --warmup 3
one jax-native 90 env -u XLA_FLAGS python3 bench/suite/jax_mlp.py
probe jax-100us 100000 120 env -u XLA_FLAGS python3 bench/suite/jax_mlp.py
probe jax-50us 50000 120 env -u XLA_FLAGS python3 bench/suite/jax_mlp.py
# beside the collector (GPUHIER_DIAG_PMPROBE), with the instrumentation engine alone (with the
# range profiler too, its Start is refused: CUPTI_ERROR_HARDWARE_BUSY, the counters are PM sampling's)
gh() { # gh NAME COUNTERS SECONDS CMD...: gpuhier run with the probe attached
    name=$1 counters=$2 limit=$3
    shift 3
    one "$name" "$limit" env GPUHIER_DIAG_PMPROBE="$lib" PMPROBE_OUT="$runs/$name" PMPROBE_INTERVAL_NS=20000 \
        "$stage/gpuhier" run --counters "$counters" -o "$runs/$name/report.db" -f -- "$@"
}
gh cases-gh-pattern pattern 60 "$cases"
# windows: sampling for 200 ms from the first launch, then Stop (and Disable): does the range
# profiler, refused while sampling runs, profile the launches after the window? `stress_app kernels
# 3000` (one configuration, 0.1 ms kernels), every launch chosen (--sample all), both engines
app=$(cd "$stage/gpu" && pwd)/stress_app
win() { # win NAME DISABLE
    one "$1" 90 env GPUHIER_DIAG_PMPROBE="$lib" PMPROBE_OUT="$runs/$1" PMPROBE_INTERVAL_NS=100000 \
        PMPROBE_WINDOW_MS=200 PMPROBE_WINDOW_DISABLE="$2" \
        "$stage/gpuhier" run --counters both --sample all -o "$runs/$1/report.db" -f -- "$app" kernels 3000
}
one win-none 90 "$stage/gpuhier" run --counters both --sample all -o "$runs/win-none/report.db" -f -- "$app" kernels 3000
win win-stop 0
win win-disable 1
gh jax-gh-pattern pattern 150 env -u XLA_FLAGS python3 bench/suite/jax_mlp.py

# each window run: range profiles, launches refused as busy, the probe's window meta
for r in win-none win-stop win-disable; do
    [ -f "$runs/$r/report.db" ] || continue
    python3 - "$runs/$r/report.db" "$r" > "$runs/$r/summary.txt" 2>&1 <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = lambda s: c.execute(s).fetchall()
# api_ns: the launch call's time (a profiled launch has no GPU times)
prof = q("SELECT count(*), min(l.api_ns) FROM profile p JOIN launch l ON l.id = p.launch_id")[0]
first = q("SELECT min(api_ns) FROM launch")[0][0] or 0
reasons = q("SELECT profile_reason, count(*) FROM launch GROUP BY 1 ORDER BY 2 DESC")
busy = q("SELECT count(*) FROM event WHERE code LIKE '%busy%'")[0][0]
eng = q("SELECT key, value FROM meta WHERE key IN ('engine_range_profiler', 'profiler_enables', 'profiler_disables')")
print(f"{sys.argv[2]}: {prof[0]} range profiles, first at {((prof[1] or first) - first) / 1e6:.1f} ms after the first launch; "
      f"launches by reason {reasons}; busy events {busy}; {eng}")
PY
done

# the runs of the table and of the attributions, in this order
table_runs="cases-20us graph-20us torch-100us torch-50us torch-50us-4m jax-100us jax-50us cases-gh-pattern jax-gh-pattern"
{
    echo "# PM sampling probe, $(date -u '+%Y-%m-%d %H:%M UTC'), $(sed -n 2p "$runs/env.txt"), stage $(cat "$stage/COMMIT" 2>/dev/null)"
    echo
    echo "| run | status | wall s | native s | ratio | samples | overflow | restarts | decode ms | evaluate ms | errors |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for r in $table_runs; do
        [ -f "$runs/$r/skipped" ] && { echo "| $r | skipped | | | | | | | | | |"; continue; }
        nat=$(cat "$runs/${r%%-*}-native/wall" 2>/dev/null || echo -)
        w=$(cat "$runs/$r/wall" 2>/dev/null || echo -)
        m=$(ls "$runs/$r"/pm-*-meta.tsv 2>/dev/null | head -1)
        s=$( [ -n "$m" ] && awk -F'\t' '$1 == "samples" { n += $2 } END { print n }' "$m")
        o=$( [ -n "$m" ] && awk -F'\t' '$1 == "overflow" { print $2 }' "$m" | paste -sd' ')
        e=$( [ -n "$m" ] && cat "$runs/$r"/pm-*-meta.tsv | grep -c '^error')
        rs=$( [ -n "$m" ] && awk -F'\t' '$1 == "restarts" { split($2, a, " "); print a[1] }' "$m")
        dm=$( [ -n "$m" ] && awk -F'\t' '$1 == "decode" { split($2, a, " "); print a[3] }' "$m")
        em=$( [ -n "$m" ] && awk -F'\t' '$1 == "evaluate_ms" { print $2 }' "$m")
        ratio=$(echo "$w $nat" | awk '$1 + 0 > 0 && $2 + 0 > 0 { printf "%.2f", $1 / $2 }')
        echo "| $r | $(cat "$runs/$r/rc" 2>/dev/null) | $w | $nat | ${ratio:--} | ${s:--} | ${o:--} | ${rs:--} | ${dm:--} | ${em:--} | ${e:--} |"
    done
    echo
    cat "$runs"/win-*/summary.txt 2>/dev/null
    grep -h '^window\|^clock\|Disable\|Stop' "$runs"/win-*/pm-*-meta.tsv 2>/dev/null
    for r in $table_runs; do
        [ -f "$runs/$r/skipped" ] && continue
        echo
        rep=
        [ -f "$runs/$r/report.db" ] && rep="--report $runs/$r/report.db"
        if [ "${r%%-*}" = cases ]; then
            # shellcheck disable=SC2086 # rep is empty or two words
            python3 "$d/attribute.py" "$runs/$r" $rep --ncu "$runs/cases-ncu/stdout" --top 25 2>&1
        else
            # shellcheck disable=SC2086
            python3 "$d/attribute.py" "$runs/$r" $rep --top 25 2>&1
        fi
        grep -h '^error\|^metric_refused\|^base_metrics\|^call_ms' "$runs/$r"/pm-*-meta.tsv 2>/dev/null | sort | uniq -c | head -40
    done
} > "$out/pmprobe.md" 2>&1
# the large runs' samples and reports stay on the device; the cases runs' come back
rm -f "$runs"/torch-*/pm-*-samples.tsv "$runs"/jax-*/pm-*-samples.tsv "$runs"/torch-*/report.db
tar czf "$out/pmprobe-runs.tar.gz" -C "$out" pmprobe-runs && rm -rf "$runs"
head -20 "$out/pmprobe.md"
echo "total $(($(date +%s) - t_start)) s"
