#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/readme-example.sh STAGE: re-records the README's "A first session"
# on a machine with a GPU (issue 21 point 7). STAGE is a scripts/stage.sh
# copy of the build that holds testkernels/tk_transpose and
# tk_transpose_fixed. Runs, in an empty directory so every path printed is
# relative: the naive transpose under `gpuhier run`, `analyze`, `check`, the
# fixed kernel under `gpuhier run`, and `diff`; writes each command with
# what it printed (stdout and stderr, as a terminal shows them) to
# $OUT/readme-example.txt, with the date, GPU, driver and commit on top.
set -u
stage=$(cd "${1:?stage}" && pwd)
out=${OUT:-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
w=$(mktemp -d)
cd "$w" || exit 1
cp "$stage/testkernels/tk_transpose" "$stage/testkernels/tk_transpose_fixed" .
PATH=$stage:$PATH
export PATH
f=$out/readme-example.txt
{
    echo "recorded $(date -u '+%Y-%m-%d %H:%M UTC') on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), gpuhier at $(cat "$stage/COMMIT")"
    for c in "gpuhier run -o transpose-%i.db ./tk_transpose n=4096" \
             "gpuhier analyze transpose-1.db" \
             "gpuhier check transpose-1.db --fail-on warning" \
             "gpuhier run -o transpose-%i.db ./tk_transpose_fixed n=4096" \
             "gpuhier diff transpose-1.db transpose-2.db"; do
        echo
        echo "\$ $c"
        sh -c "$c" 2>&1
        echo "[exit $?]"
    done
} > "$f"
ls "$w" >> "$f"
cp "$w"/*.db "$out/" 2>/dev/null
echo "readme example: $f"
