#!/bin/sh
# gpuhier diff on SYNTHETIC before/after reports: kernels matched by
# name (and --map), times and floor ratios with their change, findings
# fixed / new / unchanged, in text, JSON and Markdown.
. "$(dirname "$0")/t45-export-lib.sh"
"$MK" --make-report before.db before || exit 1
"$MK" --make-report after.db after || exit 1
"$MK" --make-report empty.db empty || exit 1
sb=$(cksum <before.db) sa=$(cksum <after.db)
expect_rc 0 "$G" diff before.db after.db --raw
grep -q '^transpose_naive  *matched  *350 µs -> 35 µs  *-90.0 %  *12.50× -> 1.25×' rc.out || bad "text: kernel row"
grep -q '^findings fixed: 1$' rc.out || bad "text: 1 fixed"
grep -q '^findings new: 1$' rc.out || bad "text: 1 new"
grep -q '^findings unchanged: 3$' rc.out || bad "text: 3 unchanged"
n=$(raw_controls rc.out); [ "$n" = 0 ] || bad "text: $n raw control bytes"
expect_rc 0 "$G" diff before.db after.db --raw --format json
cp rc.out diff.json
if command -v python3 >/dev/null; then
    python3 - diff.json <<'PY' || bad "json: content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpuhier-diff/1"
k = {x["short_name"]: x for x in d["kernels"]}
t = k["transpose_naive"]
assert t["status"] == "matched"
assert abs(t["change"]["mean_ns_pct"] + 90) < 1e-6
assert abs(t["change"]["floor_ratio_delta"] + 11.25) < 1e-6
assert [f["rule_id"] for f in d["findings"]["fixed"]] == ["uncoalesced-global-load"]
assert [f["kernel"] for f in d["findings"]["new"]] == ["good_kernel"]
assert len(d["findings"]["unchanged"]) == 3
PY
fi
expect_rc 0 "$G" diff before.db after.db --raw --format md
cp rc.out diff.md
grep -q '^# Before and after: 1 fixed, 1 new, 3 unchanged$' diff.md || bad "md: title"
grep -q '^| transpose\\_naive | 350 µs | 35 µs | \\-90\\.0 % | 12\\.50× | 1\\.25× |$' diff.md || bad "md: kernel row"
# "Fix verified" when something was fixed and nothing new appeared.
expect_rc 0 "$G" diff before.db empty.db --raw --format md
grep -q '^# Fix verified: 4 findings fixed$' rc.out || bad "md: fix verified title"
# --map: a renamed kernel pairs with its new name.
expect_rc 0 "$G" diff before.db after.db --raw --map transpose_naive=good_kernel
grep -q '^transpose_naive  *matched  *350 µs -> 100 µs' rc.out || bad "--map did not pair the renamed kernel"
grep -q 'added' rc.out || bad "--map: the unpaired kernel of after.db shows as added"
# Focused on one ticket's finding: --rule and --kernel.
expect_rc 0 "$G" diff before.db after.db --raw --rule uncoalesced-global-load --kernel '^transpose' --format md
grep -q '^# Fix verified: 1 finding fixed$' rc.out || bad "focused md: fix verified"
grep -q 'good\\_kernel' rc.out && bad "--kernel did not narrow the kernels"
expect_rc 2 "$G" diff before.db after.db --raw --kernel '(bad'
val=$SRC/tests/validators/node_modules/.bin/markdownlint
if [ -x "$val" ]; then
    "$val" -c "$SRC/tests/validators/markdownlint.json" diff.md || bad "md: markdownlint"
else
    echo "note: markdownlint not installed (tests/validators/install.sh); Markdown lint skipped"
fi
# A kernel with no traced time (its launches ran instrumented) reads "unknown", not "0 ns".
cp before.db untimed.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE kernel_summary SET total_ns = 0, mean_ns = NULL WHERE kernel_id = (SELECT id FROM kernel WHERE short_name = \x27transpose_naive\x27)"); c.commit()' untimed.db
expect_rc 0 "$G" diff untimed.db after.db --raw
grep -q '^transpose_naive  *matched  *unknown -> 35 µs' rc.out || bad "text: an untimed kernel: $(grep '^transpose_naive' rc.out)"
expect_rc 2 "$G" diff before.db --raw
expect_rc 2 "$G" diff before.db after.db --raw --format pdf
expect_rc 2 "$G" diff before.db after.db --raw --map nonsense
expect_rc 3 "$G" diff before.db missing.db --raw
[ "$(cksum <before.db)" = "$sb" ] && [ "$(cksum <after.db)" = "$sa" ] || bad "diff modified a report"
[ $fail = 0 ] && echo "t470: diff ok"
exit $fail
