#!/bin/sh
# SPDX-License-Identifier: MIT
# gpuhier tui: usage errors, missing and newer reports, no terminal,
# a bad script; a never-analyzed report opens without --raw.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export LC_ALL=C.UTF-8
fail() { echo "t304: $*"; exit 1; }
"$src/tests/tui/make_fixture.sh" raw raw.db
set +e
"$bin" tui > /dev/null 2>&1; [ $? = 2 ] || fail "no report: want 2"
"$bin" tui --bogus raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "bad option: want 2"
"$bin" tui --view nope raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "bad view: want 2"
"$bin" tui missing.db > /dev/null 2>&1; [ $? = 3 ] || fail "missing report: want 3"
cp raw.db newer.db
sqlite3 newer.db 'PRAGMA user_version = 99' 2>/dev/null || python3 -c 'import sqlite3; c = sqlite3.connect("newer.db"); c.execute("PRAGMA user_version = 99"); c.commit()'
"$bin" tui newer.db > /dev/null 2>&1; [ $? = 4 ] || fail "newer report: want 4"
"$bin" tui --raw raw.db < /dev/null > out.txt 2> err.txt; rc=$?
[ $rc = 2 ] && grep -q 'needs a terminal' err.txt || fail "no terminal: rc $rc, $(cat err.txt)"
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=missing.keys "$bin" tui --raw raw.db 2> err.txt; rc=$?
[ $rc = 70 ] && grep -q "cannot read script 'missing.keys'" err.txt || fail "bad script: rc $rc"
# Two reports (the diff) and the NVTX filter.
"$bin" tui raw.db raw.db raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "three reports: want 2"
"$bin" tui --raw raw.db missing.db > /dev/null 2>&1; [ $? = 3 ] || fail "missing after report: want 3"
"$bin" tui --raw --map a=b raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "--map with one report: want 2"
"$bin" tui --raw --map nonsense raw.db raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "bad --map: want 2"
"$bin" tui --raw --nvtx step raw.db raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "--nvtx with two reports: want 2"
"$bin" tui --raw --nvtx '(' raw.db > /dev/null 2>&1; [ $? = 2 ] || fail "bad --nvtx: want 2"
"$bin" tui --raw raw.db raw.db < /dev/null > out.txt 2> err.txt; rc=$?
[ $rc = 2 ] && grep -q "gpuhier diff raw.db raw.db" err.txt || fail "two reports, no terminal: rc $rc, $(cat err.txt)"
set -e
# Never analyzed, no --raw: analyzed in memory (or shown raw with a warning); the file is untouched.
before=$(cksum < raw.db)
printf ':dump s.txt\n3\n:dump f.txt\n' > keys
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$bin" tui raw.db 2> err.txt || fail "never-analyzed report"
[ "$(cksum < raw.db)" = "$before" ] || fail "the TUI modified the report"
grep -q 'Findings' s.txt || fail "summary without a Findings line"
grep -q 'Findings (' f.txt || fail "findings view"
echo "t304: ok"
