#!/bin/sh
# The documents' transpose table on this GPU (H §4.7 question 3): naive, tiled and padded transposes of
# N x N floats at N = 4096 and 16384; time (median of 20), bytes moved (2 N^2 x 4 B), floor at the
# datasheet 4.8 TB/s and at a measured device-to-device copy, ratio, and the document's expectation.
# usage: bench/transpose_table.sh [BUILD_DIR] [OUT_DIR]  -> prints and writes OUT_DIR/transpose_table.md
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-${OUT:-out}}
mkdir -p "$out"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
start=$(date +%s)
bin=$build/testkernels
raw=$out/transpose_raw.txt
: >"$raw"
TK_REPS=20 "$bin/tk_transpose" copybw n=4096 n=16384 | tee -a "$raw"
TK_REPS=20 "$bin/tk_transpose_tiled" n=4096 n=16384 | tee -a "$raw"
TK_REPS=20 "$bin/tk_transpose_fixed" n=4096 n=16384 | tee -a "$raw"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
python3 - "$raw" "$gpu" "$out/transpose_table.md" <<'PY'
import sys, datetime
raw, gpu, md = sys.argv[1:]
rows, copy = [], None
for line in open(raw):
    f = line.split()
    if not f or f[0] != "TABLE":
        continue
    kv = dict(x.split("=") for x in f[2:] if "=" in x)
    if f[1] == "copybw":
        copy = float(kv["bytes"]) / (float(kv["ms"]) * 1e-3)
    else:
        rows.append((f[2], int(kv["n"]), float(kv["ms"]), int(kv["bytes"])))
expect = {"naive": "4–8×", "tiled": "(not given)", "padded": "1.1–1.3×"}
order = {"naive": 0, "tiled": 1, "padded": 2}
rows.sort(key=lambda r: (r[1], order[r[0]]))
peak = 4.8e12
out = []
out.append(f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {gpu} (name, driver).")
out.append(f"Device-to-device copy (cudaMemcpy, 1 GiB, bytes read + written): {copy / 1e12:.2f} TB/s.")
out.append("")
out.append("| kernel | N | time (µs) | bytes moved (MB) | floor @4.8 TB/s (µs) | ratio | floor @copy (µs) | ratio | document |")
out.append("|---|---|---|---|---|---|---|---|---|")
for v, n, ms, b in rows:
    us = ms * 1e3
    f1 = b / peak * 1e6
    f2 = b / copy * 1e6
    out.append(f"| {v} | {n} | {us:.1f} | {b / 1e6:.1f} | {f1:.1f} | {us / f1:.2f}× | {f2:.1f} | {us / f2:.2f}× | {expect[v]} |")
text = "\n".join(out) + "\n"
open(md, "w").write(text)
print(text)
PY
echo "transpose_table: $(( $(date +%s) - start )) s"
