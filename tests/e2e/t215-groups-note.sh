#!/bin/sh
# SPDX-License-Identifier: MIT
# t215: a configuration with only some of the one-pass counter groups is named
# by `gpuhier analyze`'s note, which gives the three reasons a group can be
# missing: launched fewer times than there are groups, deferred by the
# budget, or still waiting for its group's run (group runs, the default since
# 2026-12-04: docs/sampling.md "Group runs"). On test_analyzer's SYNTHETIC
# sample report with its one profile relabelled as group 1 of a plan of 8.
. "$(dirname "$0")/sample-report-lib.sh"

mk "$t/r.db"
"$helper" sql "$t/r.db" "UPDATE profile SET metric_set = 'group1/8'" > /dev/null || bad "sql"
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || { bad "analyze"; cat "$t/a"; }
has "$t/a" "^note: 1 configuration (.* kernel time) got only some of the one-pass counter groups" \
  "the note counts the configuration"
has "$t/a" "launched fewer times than there are groups, deferred by the budget, waiting for their group's run, or too small a share of the time for a warning" \
  "the note names group runs and the severity floor among the reasons"
[ $fail = 0 ] && echo "t215: groups note ok"
exit $fail
