#!/bin/sh
# On a GPU: the testkernels' defect/fixed twins share kernel names, so
# `gpuhier diff` pairs them and must show the defect's finding fixed;
# `check --baseline` must accept the fix and reject the reverse change.
# Needs the testkernels (GPUHIER_TESTKERNELS=ON). When $OUT is set (a
# device run) the reports and outputs are copied there.
. "$(dirname "$0")/t45-export-lib.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no GPU"; exit 77; fi
tk=${GPUHIER_BINARY_DIR:?}/testkernels
[ -x "$tk/tk_coalesce" ] && [ -x "$tk/tk_spill_fixed" ] || { echo "skipped: testkernels not built"; exit 77; }
# --replay kernel: this test is about diff and check, so the defect's finding must be
# there to be fixed, and local-memory-traffic reads the local counters, which under
# the default (one one-pass group per profiled launch, since issue 18) are in group 3:
# whether spill_bounds gets group 3 depends on its launch count and on the later
# groups' budget (docs/sampling.md), not on diff. Kernel replay gives each
# configuration the whole core set on its first launch (as when this was written).
pair() { # pair <family> <case> <rule> <kernel short name>
    fam=$1 case=$2 rule=$3 kern=$4
    "$G" run -q --replay kernel -o "$fam-before.db" "$tk/$fam" "$case" >/dev/null 2>&1 || { bad "$fam $case: run failed"; return; }
    "$G" run -q --replay kernel -o "$fam-after.db" "$tk/${fam}_fixed" "$case" >/dev/null 2>&1 || { bad "${fam}_fixed $case: run failed"; return; }
    "$G" diff "$fam-before.db" "$fam-after.db" >"$fam-diff.txt" 2>&1 || bad "$fam: diff failed"
    "$G" diff "$fam-before.db" "$fam-after.db" --format md >"$fam-diff.md" 2>&1
    "$G" diff "$fam-before.db" "$fam-after.db" --format json >"$fam-diff.json" 2>&1
    sed -n '/^findings fixed/,/^findings new/p' "$fam-diff.txt" | grep -q "$rule  *$kern" ||
        bad "$fam: $rule on $kern not listed as fixed"
    grep -q "^$kern  *matched" "$fam-diff.txt" || bad "$fam: kernel $kern not matched by name"
    # The gate accepts the fix of the finding it is about. A fixed kernel
    # may show new findings of its own (the fixed spill kernel is fast
    # enough to be latency-bound: H200, 2026-11-29), and the gate rightly
    # reports those, so this check is per rule, like the reverse one.
    "$G" check "$fam-after.db" --baseline "$fam-before.db" --rule "$rule" --fail-on note >"$fam-check.txt" 2>&1 ||
        bad "$fam: check of the fix against the defect failed"
    "$G" check "$fam-before.db" --baseline "$fam-after.db" --rule "$rule" --fail-on note >/dev/null 2>&1
    [ $? = 1 ] || bad "$fam: check of the defect against the fix passed"
    cat "$fam-diff.txt"
}
pair tk_coalesce stride=32 uncoalesced-global-load copy_strided
pair tk_spill bounds local-memory-traffic spill_bounds
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then cp ./*.db ./*.txt ./*.md ./*.json "$OUT"/ 2>/dev/null; fi
[ $fail = 0 ] && echo "t471: twins diff as fixed"
exit $fail
