#!/bin/sh
# SPDX-License-Identifier: MIT
# t215: a configuration with only some of the one-pass counter groups is named
# by `gpuhier analyze`'s note, which gives the three reasons a group can be
# missing: launched fewer times than there are groups, deferred by the
# budget, or still waiting for its group's run (group runs, the default since
# 2026-12-04: docs/sampling.md "Group runs"). On test_analyzer's SYNTHETIC
# sample report with its one profile relabelled as group 1 of a plan of 8.
# And a configuration with no hardware counter at all, a launch of which was
# deferred ('profile_budget'), is named by a note of its own once such
# configurations hold 10 % of the kernel time (STORE_DEFERRED_HINT_PCT): the
# sample's second configuration, at 8.3 % of the time and then, its five launches
# made 400 µs each, at 64.5 % (2 ms of 3.1).
. "$(dirname "$0")/sample-report-lib.sh"

mk "$t/r.db"
"$helper" sql "$t/r.db" "UPDATE profile SET metric_set = 'group1/8'" > /dev/null || bad "sql"
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || { bad "analyze"; cat "$t/a"; }
has "$t/a" "^note: 1 configuration (.* kernel time) got only some of the one-pass counter groups" \
  "the note counts the configuration"
has "$t/a" "launched fewer times than there are groups, deferred by the budget, waiting for their group's run, or too small a share of the time for a warning" \
  "the note names group runs and the severity floor among the reasons"
lacks "$t/a" "got no hardware counters" "no deferred note without deferred launches"
"$helper" sql "$t/r.db" "UPDATE launch SET profile_reason = 'profile_budget' WHERE id = 11" > /dev/null || bad "sql"
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || { bad "analyze"; cat "$t/a"; }
lacks "$t/a" "got no hardware counters" "no deferred note under 10 % of the kernel time"
"$helper" sql "$t/r.db" "UPDATE launch SET end_ns = start_ns + 400000 WHERE config_id = 2;
  UPDATE config SET total_ns = 2000000 WHERE id = 2" > /dev/null || bad "sql"
"$bin" analyze "$t/r.db" > "$t/a" 2>&1 || { bad "analyze"; cat "$t/a"; }
has "$t/a" "^note: 1 configuration (64.5 % of the traced kernel time) got no hardware counters: its launches were deferred" \
  "the deferred note counts the configuration and its share"
has "$t/a" "gpuhier run --sample all. profiles every launch" "the deferred note says what gives it counters"
"$bin" analyze "$t/r.db" --format json > "$t/j" 2>&1 || { bad "analyze json"; cat "$t/j"; }
has "$t/j" '"hardware_deferred": {' "the JSON document holds them"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["hardware_deferred"]; assert d["configurations"] == 1 and abs(d["gpu_pct"] - 64.5) < 0.1, d' "$t/j" \
  && ok "JSON hardware_deferred: 1 configuration, 64.5 %" || bad "JSON hardware_deferred"
"$bin" report "$t/r.db" > "$t/rep" 2>&1 || { bad "report"; cat "$t/rep"; }
has "$t/rep" "64.5 % in 1 configuration without hardware counters, their launches deferred" \
  "the report's summary says the same"
[ $fail = 0 ] && echo "t215: groups note ok"
exit $fail
