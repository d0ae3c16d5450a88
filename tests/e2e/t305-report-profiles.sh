#!/bin/sh
# SPDX-License-Identifier: MIT
# gpuhier report --view profiles NAME: every profiled launch of a kernel,
# the one the analyzer sets aside marked, the metric sets, the launches
# counted by reason; the same name errors as --view kernel, and a note
# for a kernel none of whose launches was profiled.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export LC_ALL=C.UTF-8
"$src/tests/tui/make_fixture.sh" profiles p.db
fail() { echo "t305: $*"; cat out.txt 2>/dev/null; exit 1; }
"$bin" report --raw p.db --view profiles reread_kernel_12 > out.txt || fail "--view profiles failed"
grep -q '^Kernel       synthetic::reread_kernel_12<…>$' out.txt || fail "kernel name"
grep -q '^Profiles     4 of 166 launches profiled, in 2 configurations; 1 set aside$' out.txt ||
  fail "profiles summary"
grep -q '^Config 24: grid 1024x1x1, block 256x1x1, 0 B dynamic shared memory; 83 launches$' out.txt ||
  fail "configuration line"
# Tie, launch, index, reason, warp instructions, ld and st sectors, duration, set, passes, overhead.
row() { grep -E "^  $1 +$2 +$3 +$4 +$5 +32,768 +32,768 +[0-9.]+ µs +$6 +$7 +[0-9.]+ ms" out.txt; }
row ref 12 0 first_of_config 163,840 core 3 > /dev/null || fail "core profile row"
row aside 36 1 extra_metrics 204,800 'tie\+sass_bytes' 2 > aside.txt || fail "extras profile row, set aside"
grep -q ' instructions +25.0%, sectors +0.0%$' aside.txt || fail "extras row: its difference from ref"
row same 60 2 sample_every 163,840 core 3 > /dev/null || fail "profile of the same work"
[ "$(grep -c '^  aside ' out.txt)" = 1 ] || fail "want exactly one profile set aside"
grep -q '^launches: 161 sampled_out, 2 first_of_config, 1 counters_busy, 1 extra_metrics, 1 sample_every$' \
  out.txt || fail "launches by reason"
grep -Eq '^  ref +24 +0 +first_of_config ' out.txt || fail "the other configuration's profile"
# The analyzer sets aside the same profile (one profile, one configuration).
cp p.db a.db
"$bin" analyze --format json a.db > a.json || fail "analyze"
tr -d ' \n' < a.json | grep -q '"profiles_set_aside":{"profiles":1,"configurations":1}' ||
  fail "analyzer's count of profiles set aside"
# Not analyzed first (no --raw): the same rows.
"$bin" report p.db --view profiles synthetic::reread_kernel_12 > analyzed.txt || fail "without --raw"
cmp out.txt analyzed.txt || fail "the analysis changed the profiles view"
# A kernel none of whose launches was profiled: header, no table, a note with the reasons.
"$bin" report --raw p.db --view profiles stream_kernel_1 > out.txt || fail "kernel never profiled: rc"
[ "$(sed -n 1p out.txt)" = "Kernel       synthetic::stream_kernel_1<…>" ] || fail "never profiled: header"
[ "$(sed -n 2p out.txt)" = "note: none of the 167 launches of this kernel was profiled: 167 filtered_name" ] ||
  fail "never profiled: note"
[ "$(wc -l < out.txt)" -eq 2 ] || fail "never profiled: nothing but the header and the note"
# One launch, in the singular ("none of the 1 launches" before).
cp p.db one.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect("one.db"); c.execute(sys.argv[1]); c.commit()' \
  "DELETE FROM launch WHERE id IN (SELECT l.id FROM launch l JOIN kernel k ON k.id = l.kernel_id
     WHERE k.short_name = 'synthetic::stream_kernel_1' ORDER BY l.id LIMIT -1 OFFSET 1)" || fail "one.db"
"$bin" report --raw one.db --view profiles stream_kernel_1 > one.txt || fail "one launch: rc"
[ "$(sed -n 2p one.txt)" = "note: the one launch of this kernel was not profiled: 1 filtered_name" ] ||
  fail "one launch: $(sed -n 2p one.txt)"
# Untrusted reasons are sanitized like every other string.
sql="UPDATE launch SET profile_reason = 'evil' || char(27) || '[31m' WHERE id = 84;"
sqlite3 p.db "$sql" 2>/dev/null ||
  python3 -c 'import sqlite3, sys; c = sqlite3.connect("p.db"); c.execute(sys.argv[1]); c.commit()' "$sql"
"$bin" report --raw p.db --view profiles reread_kernel_12 > out.txt || fail "hostile reason"
! grep -q "$(printf '\033')" out.txt || fail "an escape sequence reached the output"
grep -q ', 1 evil' out.txt || fail "hostile reason: not counted"
set +e
"$bin" report --raw p.db --view profiles strided 2> err.txt; rc=$?
[ $rc = 2 ] && grep -q 'matches [0-9]* kernels: .* (id [0-9]*)' err.txt || fail "ambiguous name: rc $rc"
"$bin" report --raw p.db --view profiles nosuchkernel 2> err.txt; rc=$?
[ $rc = 2 ] && grep -q "no kernel matches 'nosuchkernel'" err.txt || fail "unknown kernel: rc $rc"
"$bin" report --raw p.db --view profiles 2> err.txt; rc=$?
[ $rc = 2 ] && grep -q -- '--view profiles needs a kernel name' err.txt || fail "no name: rc $rc"
set -e
echo "t305: ok"
