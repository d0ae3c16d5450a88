#!/bin/sh
# Readers, not writers: export, check and diff on a SYNTHETIC report that
# was never analyzed (bench/make_big_report.sh without --analysis) analyze
# an in-memory copy with the real rules, and leave the file as it was.
. "$(dirname "$0")/t45-export-lib.sh"
if ! command -v sqlite3 >/dev/null && ! command -v python3 >/dev/null; then
    echo "skipped: bench/make_big_report.sh needs the sqlite3 shell or python3"
    exit 77
fi
sh "$SRC/bench/make_big_report.sh" raw.db 2000 200 >/dev/null || exit 1
sum0=$(cksum <raw.db)
expect_rc 0 "$G" export raw.db --format json -o raw.json
grep -q '"ruleset_version": null' raw.json && bad "export did not analyze the report"
grep -q '"rule_id"' raw.json || bad "the analyzed copy gave no findings"
expect_rc 0 "$G" export raw.db --format sarif -o raw.sarif
grep -q '"fullDescription"' raw.sarif || bad "SARIF rules lack descriptions"
"$G" check raw.db --fail-on note >/dev/null 2>&1
rc=$?
[ $rc = 1 ] || bad "check on the analyzed copy exited $rc, want 1 (it has findings)"
expect_rc 0 "$G" diff raw.db raw.db
grep -q '^findings new: 0$' rc.out || bad "a report against itself has no new findings"
# --raw reads the findings as stored: none, since it was never analyzed.
expect_rc 0 "$G" check raw.db --raw --fail-on note
[ "$(cksum <raw.db)" = "$sum0" ] || bad "a reader modified the report"
ls raw.db-* 2>/dev/null && bad "a reader left a journal beside the report"
# A broken rule directory is an error, not a clean report.
mkdir badrules && printf 'this is not a rule\n' >badrules/broken.rule
"$G" check raw.db --rules badrules >/dev/null 2>&1
rc=$?
[ $rc = 5 ] || bad "check with a broken rule set exited $rc, want 5"
[ $fail = 0 ] && echo "t452: readers analyze in memory and never write"
exit $fail
