#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/merge_gpu.sh STAGE [RANKS]: a real job for `gpuhier merge` and the
# cross-rank views. Profiles bench/ddp_imbalance.py under torchrun (RANKS
# processes, default 2; rank 1 made the straggler) with one report per
# rank, merges them, analyzes the job and prints the ranks view and the
# check. NCCL when the machine has a GPU per rank, else gloo on the GPUs
# there are (its all-reduce runs on the CPU: no straggler is expected
# then, only the per-kernel imbalance). Everything goes to $OUT
# (default /tmp/merge_gpu): the rank reports, job.db, ranks.txt,
# check.txt, the logs. STAGE holds a built gpuhier (and its collector).
set -u
stage=$(cd "${1:?stage dir}" && pwd)
n=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:=/tmp/merge_gpu}"
mkdir -p "$OUT"
G="$stage/gpuhier"
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)
backend=gloo
[ "$ngpu" -ge "$n" ] && backend=nccl
echo "GPUs: $ngpu, ranks: $n, backend: $backend" | tee "$OUT/setup.txt"
s=$(date +%s)
timeout -k 5 "${LIMIT_S:-300}" python3 -m torch.distributed.run --standalone --nproc-per-node "$n" \
  "$root/bench/ddp_imbalance.py" --backend "$backend" > "$OUT/native.log" 2>&1
echo "native: exit $? after $(( $(date +%s) - s )) s" | tee -a "$OUT/setup.txt"
s=$(date +%s)
timeout -k 5 "${LIMIT_S:-300}" env GPUHIER_DATA_DIR="$root" "$G" run --no-analyze -f \
  -o "$OUT/run-%q{RANK}.db" python3 -m torch.distributed.run --standalone --nproc-per-node "$n" \
  "$root/bench/ddp_imbalance.py" --backend "$backend" > "$OUT/profiled.log" 2>&1
echo "profiled: exit $? after $(( $(date +%s) - s )) s" | tee -a "$OUT/setup.txt"
ls -la "$OUT"/run-*.db | tee -a "$OUT/setup.txt"
GPUHIER_DATA_DIR="$root" "$G" merge "$OUT"/run-*.db -o "$OUT/job.db" -f 2>&1 | tee "$OUT/merge.txt"
GPUHIER_DATA_DIR="$root" "$G" analyze "$OUT/job.db" > "$OUT/analyze.txt" 2>&1
GPUHIER_DATA_DIR="$root" "$G" report "$OUT/job.db" --view ranks | tee "$OUT/ranks.txt"
GPUHIER_DATA_DIR="$root" "$G" check "$OUT/job.db" --fail-on warning > "$OUT/check.txt" 2>&1
echo "check: exit $?" | tee -a "$OUT/check.txt"
sqlite3 -header "$OUT/job.db" "SELECT * FROM rank_summary ORDER BY rank" | tee "$OUT/rank_summary.txt"
