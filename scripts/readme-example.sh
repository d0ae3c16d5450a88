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
# $OUT/readme-example.txt, with the date, GPU, driver and commit on top,
# the run directory written as <tmpdir>.
#
# The runs take the collector's default, as a new user does (no --replay):
# since issue 18 one one-pass group per profiled launch, so a configuration
# launched once (tk_fill) has group 1 only, and the transpose (21 launches:
# a warm-up and TK_REPS=20) has group 1 on its first launch and the later
# groups as far as their budget allows (docs/sampling.md). The transpose's
# uncoalesced-global-store finding needs only group 1 (its global store
# sectors and STG count). `gpuhier report` shows what the run covered; after
# the README's commands, the file ends with each configuration's groups
# (v_config_groups), which the README does not show.
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
             "gpuhier report transpose-1.db" \
             "gpuhier analyze transpose-1.db" \
             "gpuhier check transpose-1.db --fail-on warning" \
             "gpuhier run -o transpose-%i.db ./tk_transpose_fixed n=4096" \
             "gpuhier diff transpose-1.db transpose-2.db"; do
        echo
        echo "\$ $c"
        sh -c "$c" 2>&1
        echo "[exit $?]"
    done
    echo
    echo "--- not in the README: one-pass groups per configuration (v_config_groups)"
    for r in transpose-1.db transpose-2.db; do
        python3 - "$r" <<'PY' 2>&1
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for row in db.execute("SELECT k.short_name, c.launches, g.groups_collected, g.groups_total, ifnull(g.groups_missing, 'none')"
                      " FROM v_config_groups g JOIN config c ON c.id = g.config_id JOIN kernel k ON k.id = g.kernel_id"
                      " ORDER BY g.config_id"):
    print("%s: %s %s launches, groups %s of %s, missing %s" % ((sys.argv[1],) + row))
PY
    done
} > "$f.raw"
ls "$w" >> "$f.raw"
# the recording machine's temporary directory (gpuhier report's Program line) is no shipped path
sed "s|$w|<tmpdir>|g" "$f.raw" > "$f" && rm -f "$f.raw"
cp "$w"/*.db "$out/" 2>/dev/null
echo "readme example: $f"
