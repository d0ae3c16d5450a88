#!/bin/sh
# SPDX-License-Identifier: MIT
# t010: every reader (analyze, report, tui, export, check, diff) on
# damaged, foreign, unreadable and recoverable reports. Each bad input
# gets its documented exit code (docs/exit-codes.md: 3, or 4 for a newer
# schema, never 70, 6, 5 or 2) and one message naming the file and what
# is wrong; recoverable files are read without being modified; no byte
# of a hostile path or of the report's text reaches the terminal raw;
# nothing hangs. Built from the shipped demo report tk-transpose.db.
set -u
bin=${GPUHIER_BINARY_DIR:?}/gpuhier
helper=${GPUHIER_BINARY_DIR}/tests/test_store
src=${GPUHIER_SOURCE_DIR:?}
rules=$src/rules
t=$(mktemp -d /tmp/gh-t010-XXXXXX)
trap 'chmod -R u+w "$t" 2>/dev/null; rm -rf "$t"' EXIT
export LC_ALL=C.UTF-8
fail=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fail=1; }
esc=$(printf '\033') bel=$(printf '\007')
printf 'q\n' > "$t/keys"

# run_cmd CMD REPORT: one reader on REPORT; stdout in $t/out, stderr in $t/err, exit code in $rc.
run_cmd() {
  case $1 in
    analyze) set -- analyze "$2" --rules "$rules" ;;
    report) set -- report "$2" ;;
    tui) set -- tui "$2" ;;
    export) set -- export "$2" --format sarif ;;
    check) set -- check "$2" --fail-on error ;;
    diff) set -- diff "$good" "$2" ;;
  esac
  GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT="$t/keys" timeout 20 "$bin" "$@" >"$t/out" 2>"$t/err"
  rc=$?
}

no_raw_bytes() {
  if grep -q "$esc\|$bel" "$t/out" "$t/err"; then bad "$1: a raw escape reached the terminal"; return 1; fi
  return 0
}

# expect_all CASE FILE CODE PATTERN [SHOWN]: every reader exits CODE with one error line
# matching PATTERN and naming FILE (as SHOWN, when its name holds escapes).
expect_all() {
  name=$1 file=$2 code=$3 pat=$4 shown=${5:-$(basename "$2")}
  for c in analyze report tui export check diff; do
    run_cmd $c "$file"
    if [ "$rc" -ne "$code" ]; then bad "$name: $c exit $rc, want $code"; sed 's/^/    /' "$t/err"; continue; fi
    if [ "$(grep -c '^gpuhier: error: ' "$t/err")" -ne 1 ]; then bad "$name: $c: not one error line"; sed 's/^/    /' "$t/err"; continue; fi
    line=$(grep '^gpuhier: error: ' "$t/err")
    case $line in *"$shown"*) ;; *) bad "$name: $c: message does not name the file: $line"; continue ;; esac
    if ! printf '%s\n' "$line" | grep -q -- "$pat"; then bad "$name: $c: message lacks '$pat': $line"; continue; fi
    no_raw_bytes "$name: $c" || continue
    ok "$name: $c exits $code"
  done
}

# expect_ok CASE FILE: every reader reads it (exit 0 or, for check, 1).
expect_ok() {
  name=$1 file=$2
  for c in analyze report tui export check diff; do
    run_cmd $c "$file"
    case $c:$rc in check:1|*:0) ok "$name: $c reads it" ;; *) bad "$name: $c exit $rc"; sed 's/^/    /' "$t/err" ;; esac
  done
}

good=$t/good.db
cp "$src/demo/tk-transpose.db" "$good"
"$bin" report "$good" > /dev/null 2>&1 && ok "the demo report reads" || bad "the demo report reads"

# A sound report whose output cannot be written: 6 (the output), not 70 and not 3.
if [ -w /dev/full ]; then
  cp "$good" "$t/full.db"
  for f in text json; do
    "$bin" analyze "$t/full.db" --rules "$rules" --format $f > /dev/full 2> "$t/err"; rc=$?
    [ $rc = 6 ] && ok "analyze --format $f to a full disk exits 6" || { bad "analyze --format $f to a full disk: exit $rc"; cat "$t/err"; }
  done
fi

# A zeroed page (the launch table's root): damaged, with SQLite's reason.
cp "$good" "$t/zero.db"
page=$(sqlite3 "$t/zero.db" "SELECT rootpage FROM sqlite_master WHERE name = 'launch'")
dd if=/dev/zero of="$t/zero.db" bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
expect_all "zeroed page" "$t/zero.db" 3 "damaged"

# The finding table's root page zeroed, read --raw by rank (a NAN id converted to an integer:
# UBSan in the sanitized build, found by tests/fuzz).
cp "$good" "$t/zerof.db"
page=$(sqlite3 "$t/zerof.db" "SELECT rootpage FROM sqlite_master WHERE name = 'finding'")
dd if=/dev/zero of="$t/zerof.db" bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
"$bin" report --raw "$t/zerof.db" --view finding 1 > "$t/out" 2> "$t/err"; rc=$?
[ $rc = 3 ] && grep -q "zerof.db.*damaged" "$t/err" && ok "finding table zeroed: report --view finding exits 3" \
  || { bad "finding table zeroed: report --view finding exit $rc"; cat "$t/err"; }
"$bin" report --raw "$t/zerof.db" --view findings > "$t/out" 2> "$t/err"; rc=$?
[ $rc = 3 ] && grep -q "zerof.db.*damaged" "$t/err" && ok "finding table zeroed: report --view findings exits 3" \
  || { bad "finding table zeroed: report --view findings exit $rc"; cat "$t/err"; }

# Only empty meta and run tables: damaged (a table is missing), not "no such table" and 70.
sqlite3 "$t/metarun.db" "CREATE TABLE meta(key, value); CREATE TABLE run(id); PRAGMA user_version = 1"
expect_all "meta and run only" "$t/metarun.db" 3 "damaged (table '.*' is missing)"

# user_version -1: damaged, with a message (it was empty).
cp "$good" "$t/minus.db"; sqlite3 "$t/minus.db" "PRAGMA user_version = -1"
expect_all "user_version -1" "$t/minus.db" 3 "schema version -1"

cp "$good" "$t/newer.db"; sqlite3 "$t/newer.db" "PRAGMA user_version = 99"
expect_all "newer schema" "$t/newer.db" 4 "newer than this gpuhier"

echo "not a database, just text that is long enough to look like a header" > "$t/text.db"
expect_all "text file" "$t/text.db" 3 "not a gpuhier report"
sqlite3 "$t/foreign.db" "CREATE TABLE t(x)"
expect_all "foreign database" "$t/foreign.db" 3 "not a gpuhier report"

# A FIFO: refused at once (it hung every reader).
mkfifo "$t/fifo.db"
expect_all "FIFO" "$t/fifo.db" 3 "not a regular file"
expect_all "directory" "$t" 3 "is a directory"

# A view whose text holds OSC sequences (tmux title, OSC 52 clipboard) and a syntax error:
# SQLite's message quotes it; it is shown escaped.
cp "$good" "$t/osc.db"
sqlite3 "$t/osc.db" "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE VIEW v_copy AS SELECT $esc]0;pwned$bel $esc]52;c;cm0gLXJmIH4K$bel FROM copy' WHERE name = 'v_copy'"
expect_all "OSC in view text" "$t/osc.db" 3 'damaged.*unrecognized token: "\\e"'

# A report path holding escapes, missing and damaged: echoed escaped.
evil="$t/$(printf 'e\033]0;pwned\007\033[2J').db"
shown='e\e]0;pwned\x07\e[2J.db'
expect_all "escapes in a missing path" "$evil" 3 'No such file' "$shown"
cp "$t/zero.db" "$evil"
expect_all "escapes in a damaged path" "$evil" 3 'damaged' "$shown"
rm -f "$evil"

# A view that names a column with OSC sequences: the reader using it fails, and SQLite's
# "no such column" quoting it is shown escaped.
cp "$good" "$t/osccol.db"
sqlite3 "$t/osccol.db" "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE VIEW v_copy AS SELECT \`$esc]52;c;cm0gLXJmIH4K$bel\` FROM copy' WHERE name = 'v_copy'"
"$bin" report "$t/osccol.db" --view copies > "$t/out" 2> "$t/err"; rc=$?
if [ $rc = 0 ] || grep -q "view 'v_copy' is broken: no such column: \\\\e]52" "$t/err"; then no_raw_bytes "OSC in a view's column" && ok "OSC in a view's column: exit $rc, escaped"; else bad "OSC in a view's column: exit $rc"; cat "$t/err"; fi

# An environment value holding escapes (the TUI's script file) is echoed escaped too.
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT="$t/k$esc]0;pwned$bel" "$bin" tui "$good" > "$t/out" 2> "$t/err"
grep -q "cannot read script '.*k\\\\e]0;pwned\\\\x07'" "$t/err" && no_raw_bytes "escapes in GPUHIER_TUI_SCRIPT" \
  && ok "escapes in GPUHIER_TUI_SCRIPT: shown escaped" || { bad "escapes in GPUHIER_TUI_SCRIPT"; cat "$t/err"; }

# A hot journal left by a writer killed mid-transaction: readers roll it back in a
# private copy (report and journal unchanged), analyze rolls it back in place, with a note.
# (2000 padded events, so that the killed writer's pages spill into the file)
pad="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
  INSERT INTO event(time_ns, level, code, message) SELECT i, 'info', 'pad', printf('%0200d', i) FROM n"
cp "$good" "$t/hot.db"
sqlite3 "$t/hot.db" "PRAGMA journal_mode = DELETE; $pad" > /dev/null
"$helper" kill-writer "$t/hot.db" || bad "cannot make a hot journal"
if [ -s "$t/hot.db-journal" ]; then
  sum=$(cat "$t/hot.db" "$t/hot.db-journal" | cksum)
  for c in report tui export check diff; do
    run_cmd $c "$t/hot.db"
    case $c:$rc in check:1|*:0) ;; *) bad "hot journal: $c exit $rc"; sed 's/^/    /' "$t/err"; continue ;; esac
    grep -q "note: .*hot.db.*hot journal" "$t/err" || { bad "hot journal: $c: no note"; continue; }
    [ "$(cat "$t/hot.db" "$t/hot.db-journal" | cksum)" = "$sum" ] || { bad "hot journal: $c modified the report"; continue; }
    ok "hot journal: $c reads a private copy"
  done
  run_cmd analyze "$t/hot.db"
  [ $rc = 0 ] && grep -q "note: .*rolled" "$t/err" && [ ! -s "$t/hot.db-journal" ] \
    && ok "hot journal: analyze rolls back in place, with a note" || { bad "hot journal: analyze exit $rc"; cat "$t/err"; }
  [ "$(sqlite3 "$t/hot.db" 'PRAGMA integrity_check')" = ok ] && ok "hot journal: integrity ok after" || bad "hot journal: integrity"
fi

# A WAL report read through a symbolic link while its -wal exists (it was "truncated").
cp "$good" "$t/wal.db"
sqlite3 "$t/wal.db" "PRAGMA journal_mode = WAL" > /dev/null
"$helper" kill-writer "$t/wal.db" wal || bad "cannot leave a WAL"
mkdir "$t/ro" "$t/ro1"
cp "$t/wal.db" "$t/wal.db-wal" "$t/ro/"
cp "$good" "$t/ro1/wal.db"; sqlite3 "$t/ro1/wal.db" "PRAGMA journal_mode = WAL" > /dev/null
ln -s wal.db "$t/link.db"
[ -s "$t/wal.db-wal" ] && expect_ok "symlink to a WAL report" "$t/link.db"

# WAL reports on a read-only mount (no -shm can be made), with and without a -wal left
# behind, and on a full disk: read through a private copy.
# ns_read CASE SETUP FILE CMD...: in a user and mount namespace, run SETUP (a mount), then
# each reader CMD on FILE there; each must read it (0, or 1 for check).
ns_read() {
  name=$1 setup=$2 file=$3; shift 3
  for c in "$@"; do
    unshare -rm sh -c "$setup && GPUHIER_TUI_NO_DISPLAY=1 timeout 20 '$bin' $c '$file' > '$t/out' 2> '$t/err'"
    rc=$?
    case $c:$rc in check:1|*:0) ok "$name: $c reads it" ;; *) bad "$name: $c exit $rc"; sed 's/^/    /' "$t/err" ;; esac
  done
}
if command -v unshare > /dev/null && unshare -rm true 2> /dev/null; then
  for d in ro ro1; do
    ns_read "WAL on a read-only mount ($d)" \
      "{ mount --bind -o ro '$t/$d' '$t/$d' 2>/dev/null || mount -o remount,bind,ro '$t/$d' '$t/$d'; }" \
      "$t/$d/wal.db" analyze report export check
  done
  # The same WAL report on a full disk (a tmpfs filled up): the -shm cannot grow.
  mkdir "$t/full"
  ns_read "WAL on a full disk" "mount -t tmpfs -o size=256k tmpfs '$t/full' && cp '$t/wal.db' '$t/wal.db-wal' '$t/full/' && \
    { dd if=/dev/zero of='$t/full/fill' bs=4k 2>/dev/null; true; }" "$t/full/wal.db" report check
else
  echo "skip WAL on a read-only mount and on a full disk: no user namespaces here"
fi

# analyze beside a live writer: a snapshot in memory, with a note; never "locked".
cp "$good" "$t/live.db"
sqlite3 "$t/live.db" "PRAGMA journal_mode = WAL" > /dev/null
"$helper" hold "$t/live.db" 8 > "$t/hold.out" &
hold=$!
for i in 1 2 3 4 5 6 7 8 9 10; do grep -q ready "$t/hold.out" 2>/dev/null && break; sleep 0.2; done
run_cmd analyze "$t/live.db"
if [ $rc = 0 ] && grep -q "note: .*snapshot" "$t/err" && ! grep -q locked "$t/err"; then ok "analyze beside a live writer"; else bad "analyze beside a live writer: exit $rc"; cat "$t/err"; fi
run_cmd check "$t/live.db"
case $rc in 0|1) ok "check beside a live writer" ;; *) bad "check beside a live writer: exit $rc"; cat "$t/err" ;; esac
kill "$hold" 2>/dev/null; wait "$hold" 2>/dev/null

exit $fail
