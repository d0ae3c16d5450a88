#!/bin/sh
# gpuhier check, the CI gate, on SYNTHETIC before/after reports: exit
# codes per --fail-on, one line per failing finding, --rule/--kernel,
# and --baseline failing only on new or worse findings.
. "$(dirname "$0")/t45-export-lib.sh"
"$MK" --make-report before.db before || exit 1
"$MK" --make-report after.db after || exit 1
"$MK" --make-report empty.db empty || exit 1
sum0=$(cksum <before.db)
# before.db: 1 error, 3 warnings, 1 note.
expect_rc 1 "$G" check before.db --raw --fail-on error
[ "$(wc -l <rc.out)" = 1 ] || bad "--fail-on error: want 1 line, got $(wc -l <rc.out)"
grep -q '^error uncoalesced-global-load transpose_naive' rc.out || bad "error line names severity, rule, kernel"
expect_rc 1 "$G" check before.db --raw --fail-on warning
[ "$(wc -l <rc.out)" = 4 ] || bad "--fail-on warning: want 4 lines"
expect_rc 1 "$G" check before.db --raw
[ "$(wc -l <rc.out)" = 4 ] || bad "default --fail-on is warning"
expect_rc 1 "$G" check before.db --raw --fail-on note
[ "$(wc -l <rc.out)" = 5 ] || bad "--fail-on note: want 5 lines"
n=$(raw_controls rc.out); [ "$n" = 0 ] || bad "check printed $n raw control bytes"
expect_rc 0 "$G" check before.db --raw --fail-on error --rule local-memory-traffic
expect_rc 0 "$G" check before.db --raw --fail-on note --kernel '^good_kernel'
expect_rc 0 "$G" check empty.db --raw --fail-on note
[ -s rc.out ] && bad "a clean check prints no finding lines"
# Baseline: after.db fixed the uncoalesced loads, made the spill worse
# (400 -> 600 us lost) and has a new bank-conflict warning.
expect_rc 1 "$G" check after.db --raw --baseline before.db
[ "$(wc -l <rc.out)" = 2 ] || bad "--baseline: want 2 lines (worse + new), got $(wc -l <rc.out)"
grep -q 'local-memory-traffic.*\[worse: time lost' rc.out || bad "worse finding not flagged"
grep -q 'shared-bank-conflicts good_kernel.*\[new\]' rc.out || bad "new finding not flagged"
# Within tolerance (50 % > +50 % worse) only the new one fails.
expect_rc 1 "$G" check after.db --raw --baseline before.db --tolerance 60
[ "$(wc -l <rc.out)" = 1 ] || bad "--tolerance 60: want 1 line"
# A report against itself is clean; the fixed report against after.db too at error level.
expect_rc 0 "$G" check before.db --raw --baseline before.db --fail-on note
expect_rc 0 "$G" check after.db --raw --baseline before.db --fail-on error
# Usage and report errors.
expect_rc 2 "$G" check before.db --raw --fail-on fatal
expect_rc 2 "$G" check before.db --raw --kernel '(bad'
expect_rc 2 "$G" check before.db --raw --tolerance -1
expect_rc 2 "$G" check
expect_rc 3 "$G" check missing.db --raw
expect_rc 3 "$G" check before.db --raw --baseline missing.db
echo "not a report" >junk.db
expect_rc 3 "$G" check junk.db --raw
[ "$(cksum <before.db)" = "$sum0" ] || bad "check modified the report"
[ $fail = 0 ] && echo "t460: check ok"
exit $fail
