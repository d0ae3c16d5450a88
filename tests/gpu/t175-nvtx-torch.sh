#!/bin/sh
# SPDX-License-Identifier: MIT
# NVTX from PyTorch on the GPU: `gpuhier run` on tests/gpu/torch_nvtx.py
# (torch.cuda.nvtx.range_push/pop nested three deep, then
# torch.autograd.profiler.emit_nvtx()), then `gpuhier report --view nvtx`,
# `--nvtx` and the TUI's NVTX view must show those ranges. Exit 77 without
# a GPU or without torch. Results (reports, views, logs) go to $OUT/t175.
set -u
src=${GPUHIER_SOURCE_DIR:?}
bin=${GPUHIER_BINARY_DIR:?}
if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null || ! python3 -c 'import torch' 2>/dev/null; then
    echo "skipped: no GPU"; exit 77
fi
out=${OUT:-$(mktemp -d)}/t175
mkdir -p "$out" && cd "$out" || exit 1
export LC_ALL=C.UTF-8 GPUHIER_DATA_DIR=${GPUHIER_DATA_DIR:-$src}
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); print("" if r is None or r[0] is None else r[0])' "$1" "$2" 2>&1; }
"$bin/gpuhier" run -f -o nvtx.db python3 "$src/tests/gpu/torch_nvtx.py" > run.out 2> run.err; st=$?
[ $st = 0 ] && ok "program exit 0: $(tr '\n' ' ' < run.out)" || { bad "program exit $st: $(tail -3 run.err)"; exit 1; }
[ -f nvtx.db ] || { bad "no report"; exit 1; }
"$bin/gpuhier" report nvtx.db --view nvtx > nvtx.txt 2> nvtx.err || bad "report --view nvtx: $(cat nvtx.err)"
cat nvtx.txt | head -40
for p in "step" "step > forward" "step > forward > attention" "step > backward"; do
    grep -q "^$p  " nvtx.txt && ok "row '$p'" || bad "no row '$p'"
done
# Launch counts of the view against the launch table.
n=$(q nvtx.db "SELECT count(*) FROM launch WHERE nvtx_path = 'step' OR nvtx_path LIKE 'step > %'")
[ "${n:-0}" -gt 0 ] && ok "$n launches inside 'step'" || bad "no launch inside 'step'"
v=$(awk 'index($0, "step  ") == 1 { sub("^step +", ""); print $6 }' nvtx.txt | tr -d ,)
[ "$v" = "$n" ] && ok "view's step launches = $v" || bad "view's step launches '$v', table $n"
c=$(awk 'index($0, "step  ") == 1 { print $NF }' nvtx.txt)
[ "$c" = 3 ] && ok "3 'step' calls" || bad "'step' calls '$c', want 3"
# The softmax of 'attention' is found by the range filter.
"$bin/gpuhier" report nvtx.db --view kernels --nvtx '^step > forward > attention( > |$)' > att.txt 2>&1
cat att.txt
grep -qi softmax att.txt && ok "softmax kernel inside attention" || bad "no softmax kernel inside attention"
# emit_nvtx: operator ranges ('aten::...') inside 'emit'.
e=$(q nvtx.db "SELECT count(*) FROM launch WHERE nvtx_path LIKE 'emit > aten::%'")
[ "${e:-0}" -gt 0 ] && ok "$e launches under emit_nvtx operator ranges" || bad "no launch under 'emit > aten::...'"
grep -q '^emit > aten::' nvtx.txt && ok "emit_nvtx rows in the view" || bad "no 'emit > aten::' row in the view"
q nvtx.db "SELECT count(*) || ' nvtx_range rows, ' || count(DISTINCT name) || ' names' FROM nvtx_range"
# The TUI's NVTX view, scripted.
printf 'v\n:dump tui-nvtx.txt\n' > keys
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$bin/gpuhier" tui nvtx.db > tui.out 2>&1 || bad "tui: $(cat tui.out)"
# The screen shows the first rows of the sorted paths ('(no range)', then
# 'autograd::...', 'emit...'; 'step' comes later): the title's row count
# must be the report view's, and the first row the report's first.
rows=$(($(wc -l < nvtx.txt) - 1))
first=$(sed -n 2p nvtx.txt | cut -c1-20)
grep -q "NVTX ranges ($rows)" tui-nvtx.txt && grep -qF "$first" tui-nvtx.txt &&
    ok "TUI NVTX view: $rows ranges, first '$first'" || bad "TUI NVTX view (want $rows ranges, first '$first'): $(head -3 tui-nvtx.txt)"
[ $fail = 0 ] && echo "t175: all checks passed" || echo "t175: FAILURES"
exit $fail
