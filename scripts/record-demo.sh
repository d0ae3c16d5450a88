#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/record-demo.sh [BUILD_DIR]: record the demo reports that ship
# with gpuhier, on a GPU machine (the H200 of the integration call), with
# the real collector:
#   demo/demo.db           the PyTorch training benchmark (bench/pytorch_train.py)
#   demo/tk-<name>.db      a few testkernels with one clear behaviour each
# each analyzed (`gpuhier analyze`), vacuumed, and described in
# demo/PROVENANCE.md (date, GPU, driver, commands, gpuhier version,
# sizes, checksums, row counts). Paths of the recording machine are
# rewritten relative to the source tree (scripts/relative-paths.sh).
#
# The files are written to $OUT/demo/ when OUT is set (the device call
# brings $OUT back; copy them into demo/ and commit), else to demo/.
# Exits 77 with "skipped: no GPU" where there is no GPU.
#
# Environment: GPUHIER (binary, default BUILD_DIR/gpuhier), TK_DIR
# (testkernel binaries, default BUILD_DIR/testkernels), DEMO_STEPS
# (training steps, default 30), DEMO_KERNELS (testkernel families,
# default "transpose coalesce bank spill host"), GIT_COMMIT (shown in
# the provenance when the tree has no .git).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
G=${GPUHIER:-$build/gpuhier}
TK=${TK_DIR:-$build/testkernels}
steps=${DEMO_STEPS:-30}
kernels=${DEMO_KERNELS:-transpose coalesce bank spill host}
dest=${OUT:+$OUT/demo}
dest=${dest:-$root/demo}
t0=$(date +%s)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
[ -x "$G" ] || { echo "record-demo: no gpuhier at '$G'" >&2; exit 1; }
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log.txt
cmds=""
record() { # record NAME.db COMMAND...: run, analyze, vacuum
  name=$1; shift
  rm -f "$work/$name"
  echo "record-demo: $name: gpuhier run -o $name $*" >&2
  s=$(date +%s)
  "$G" run -q --no-analyze -o "$work/$name" "$@" >> "$log" 2>&1 || {
    echo "record-demo: '$*' failed; log:" >&2; tail -30 "$log" >&2; return 1; }
  "$G" analyze "$work/$name" > /dev/null 2>> "$log" || {
    echo "record-demo: analyze $name failed; log:" >&2; tail -30 "$log" >&2; return 1; }
  python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA journal_mode=DELETE"); c.execute("VACUUM"); c.close()' "$work/$name"
  # No directory of this machine ships: paths become relative to the source tree.
  sh "$root/scripts/relative-paths.sh" "$work/$name" "$root" "$build" "$work" "${TMPDIR:-/tmp}" >> "$log"
  cmds="$cmds
| \`$name\` | \`gpuhier run -o $name $(echo "$*" | sed "s#$root/##g; s#$build/##g")\` then \`gpuhier analyze $name\` | $(( $(date +%s) - s )) s |"
}
record demo.db python3 "$root/bench/pytorch_train.py" --steps "$steps"
for k in $kernels; do
  # Each testkernel binary takes its cases as arguments (see
  # testkernels/manifest.json): run all of the binary's cases.
  args=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(" ".join(a for c in m["cases"] if c["binary"] == sys.argv[2] for a in c.get("args", [])))' \
    "$root/testkernels/manifest.json" "tk_$k")
  if [ -x "$TK/tk_$k" ] && [ -n "$args" ]; then
    # shellcheck disable=SC2086 # one word per case
    record "tk-$k.db" "$TK/tk_$k" $args
  else
    echo "record-demo: no testkernel '$TK/tk_$k'; skipped" >&2
  fi
done
rows() { python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = lambda s: c.execute(s).fetchone()[0]
print("%d launches, %d profiled, %d kernels, %d copies, %d findings" % (q("select count(*) from launch"),
      q("select count(*) from profile"), q("select count(*) from kernel"), q("select count(*) from copy"),
      q("select count(*) from finding")))' "$1"; }
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
commit=${GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
torchv=$(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)
{
  echo "# Demo reports: provenance"
  echo
  echo "Recorded by \`scripts/record-demo.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); re-record with the same script on a GPU machine."
  echo "These are real recordings made by the gpuhier collector, analyzed by \`gpuhier analyze\`; nothing in them is synthetic."
  echo "Paths of the recording machine (the source tree, the build, temporary directories) were rewritten relative to the source tree by \`scripts/relative-paths.sh\`; nothing else was changed."
  echo
  echo "- GPU, driver, memory: $gpu"
  echo "- CUDA (driver API version reported by nvidia-smi): $cuda"
  echo "- gpuhier: $("$G" --version) at commit $commit"
  echo "- PyTorch: $torchv"
  echo "- host: $(uname -srm)"
  echo
  echo "| file | command | took |"
  echo "| --- | --- | --- |$cmds"
  echo
  echo "| file | bytes | sha256 | contents |"
  echo "| --- | --- | --- | --- |"
  for f in "$work"/*.db; do
    b=$(basename "$f")
    echo "| \`$b\` | $(wc -c < "$f") | $(sha256sum "$f" | cut -c1-16)… | $(rows "$f") |"
  done
  echo
  echo "\`gpuhier demo\` opens \`demo.db\`; \`gpuhier demo --name transpose\` opens \`tk-transpose.db\`."
} > "$work/PROVENANCE.md"
cp "$work"/*.db "$work/PROVENANCE.md" "$dest/"
cat "$work/PROVENANCE.md"
echo "record-demo: wrote $(ls "$dest" | wc -l) files to $dest in $(( $(date +%s) - t0 )) s"
