#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/sassprobe/test_gpu.sh: the probe on cases.cu with one pattern
# (SASSPROBE_PATTERN, default ctx-lazy): the program's exit status and output
# are unchanged, every kernel is launched 3 times and returns SASS data, and
# the sectors (and wavefronts) against their ideal match the kernels' design
# within 5 %. Exit 77 without a GPU.
set -u
bin=${GPUHIER_BINARY_DIR:?}
lib=$bin/gpu/libgh_sassprobe.so
cases=$bin/gpu/cases
if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null || ! [ -x "$cases" ]; then
    echo "skipped: no GPU"; exit 77
fi
out=${OUT:-$(mktemp -d)}/sassprobe-gpu
rm -rf "$out"; mkdir -p "$out"
fail=0
native=$("$cases")
probed=$(CUDA_INJECTION64_PATH="$lib" SASSPROBE_OUT="$out" SASSPROBE_PATTERN=${SASSPROBE_PATTERN:-ctx-lazy} "$cases")
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: cases exit $rc under the probe"; fail=1; }
[ "$probed" = "$native" ] || { echo "FAIL: stdout changed: '$probed' vs '$native'"; fail=1; }
python3 - "$out" <<'PY' || fail=1
import glob, json, sys
files = glob.glob(sys.argv[1] + "/sassprobe-*.json")
assert len(files) == 1, files
d = json.load(open(files[0]))
want = {"struct12_read": (2.0, None), "matvec_row": (6.6, None), "copy_coalesced": (1.0, None),
        "copy_float4": (1.0, None), "smem_conflict": (1.0, 16.5), "smem_padded": (1.0, 1.0),
        "local_array": (1.0, None)}
bad = 0
for k, (g, s) in want.items():
    f = next((f for f in d["functions"] if k in f["name"]), None)
    if f is None or f["launches"] != 3 or not f["has_data"]:
        print(f"FAIL {k}: {f and (f['launches'], f['has_data'])}")
        bad = 1
        continue
    m = f["sums"]
    r = m["smsp__sass_sectors_mem_global"] / max(1, m["smsp__sass_sectors_mem_global_ideal"])
    ok = abs(r - g) <= 0.05 * g
    if s is not None:
        w = m["smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"] / max(
            1, m["smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"])
        ok = ok and abs(w - s) <= 0.05 * s
    if k == "local_array":
        ok = ok and m["smsp__sass_inst_executed_op_local_ld"] > 0
    print(("ok  " if ok else "FAIL") + f" {k}: sectors/ideal {r:.2f} (want {g})")
    bad |= not ok
lines = [s for s in d["source_lines"] if s["file"].endswith("cases.cu") and s["line"] > 0]
print(("ok  " if lines else "FAIL") + f" {len(lines)} pcs mapped to cases.cu lines")
sys.exit(1 if bad or not lines else 0)
PY
exit $fail
