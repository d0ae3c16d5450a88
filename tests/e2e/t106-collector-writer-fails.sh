#!/bin/sh
# t106 CASE: the collector's writer when its report fails for real, and
# the host program runs on unharmed with its own exit status. One ctest
# per case (tests/collector.cmake). No GPU needed:
#   ulimit, fsize, fsize-freed, readonly, removed, fd2, chdir, allocator
#     run tests/unit/writer_host.c (the real writer in a host program that
#     exits 42) on a report whose disk is full from the start (`ulimit -f`)
#     or fills up (RLIMIT_FSIZE; SIGXFSZ keeps its default action, which
#     kills), whose directory turns read-only or is removed,
#     after the program closed fd 2 and opened its own file there, after
#     it changed directory, and under another allocator (LD_PRELOAD);
#   py-fsize, py-fd2, py-chdir, py-allocator run the real collector in
#     python3 through InitializeInjection (what cuInit does; without a
#     driver CUPTI refuses the subscription, the writer still runs), as
#     t104 does, with the same failures.
# The writer must say the first failure once on stderr, count what it
# loses, leave a 'writer_error' event when the file still takes a write,
# and never block, kill or change the program.
set -u
case=${1:?usage: t106-collector-writer-fails.sh CASE}
host=${WRITER_HOST:-${GPUHIER_BINARY_DIR:?}/tests/writer_host}
lib=${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/a"
fail=0
ok() { echo "ok   $case: $*"; }
bad() { echo "FAIL $case: $*"; fail=1; }

# expect_rc WANT GOT
expect_rc() {
    [ "$2" = "$1" ] && ok "exit status $2" || bad "exit status $2, want $1 (the program's own)"
}

# field NAME: a field of writer_host's summary line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p;s/^$1=\([^ ]*\).*/\1/p" "$tmp/out" | head -n 1; }

# one_line TEXT: stderr has exactly one ==gpuhier== line naming the failure, and it says TEXT
one_line() {
    n=$(grep -c "^==gpuhier== cannot write report" "$tmp/err")
    [ "$n" = 1 ] && grep "^==gpuhier== cannot write report" "$tmp/err" | grep -q "$1" &&
        ok "one line: $(grep '^==gpuhier== cannot write report' "$tmp/err" | cut -c1-150)" ||
        bad "want one ==gpuhier== line naming '$1', got $n: $(cat "$tmp/err")"
}

# sql DB QUERY: one value, or ERROR
sql() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, sys
try:
    c = sqlite3.connect(sys.argv[1])
    print(c.execute(sys.argv[2]).fetchone()[0])
except Exception as e:
    print("ERROR %s" % e)
PY
}

# expect_sql DB QUERY WANT
expect_sql() {
    got=$(sql "$1" "$2")
    [ "$got" = "$3" ] && ok "$2: $got" || bad "$2: $got, want $3"
}

run_host() { # run_host CASE [FILE]: writer_host on $tmp/a/r.db
    "$host" "$tmp/a/r.db" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

run_py() { # run_py PYTHON-CODE: the real collector, report $tmp/p.db; the program exits 5
    GPUHIER_OUTPUT="$tmp/p.db" python3 -c "import ctypes, os, sys, resource
ctypes.CDLL(sys.argv[1]).InitializeInjection()
$1
sys.exit(5)" "$lib" "$tmp" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# a full disk that stays full: the host is not killed (SIGXFSZ), every
# record after the failure is counted, the report keeps what it had
check_fsize() {
    expect_rc 42 $rc
    [ "$(field lost)" = 4000 ] && [ "$(field after)" = 4000 ] && ok "4000 records lost, counted" ||
        bad "lost $(field lost) of $(field after) pushed after the failure: $(cat "$tmp/out")"
    [ "$(field dropped)" = 0 ] && [ "$(field refused)" = 0 ] && ok "no push refused (the queue drained)" ||
        bad "pushes refused: $(cat "$tmp/out")"
    one_line "File too large"
    [ "$(field idle_cpu_ms)" -lt 100 ] && ok "idle after the failure ($(field idle_cpu_ms) ms CPU in 500 ms)" ||
        bad "the writer spins: $(field idle_cpu_ms) ms CPU in 500 ms of idle"
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'test'" 600
}

preload_lib() { # another allocator, from Debian (scripts/deps.sh)
    for f in /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/lib/*/libtcmalloc_minimal.so.4; do
        [ -f "$f" ] && { echo "$f"; return; }
    done
}

case $case in
fsize)
    run_host fsize
    check_fsize
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'writer_error'" 0
    ;;
ulimit)
    # `ulimit -f` before the start: the report cannot even be created (on
    # the writer thread, so the program is not killed); nothing collected
    (cd "$tmp/a" && ulimit -f 64 && exec "$host" "$tmp/a/r.db" ulimit >"$tmp/out" 2>"$tmp/err")
    rc=$?
    expect_rc 42 $rc
    grep -q "^writer_host: nothing collected: .*File too large" "$tmp/err" && ok "writer_start says why: $(cut -c1-150 "$tmp/err")" ||
        bad "writer_start's error: $(cat "$tmp/err")"
    [ ! -e "$tmp/a/r.db" ] && ok "the half-made report is removed" || bad "left: $(ls "$tmp/a")"
    ;;
fsize-freed)
    # the space comes back before the exit: the note fits, the file is whole again
    run_host fsize-freed
    check_fsize
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'writer_error' AND level = 'error'
        AND message LIKE '%File too large%; 4000 records after it are not in the report'" 1
    expect_sql "$tmp/a/r.db" "SELECT clean_exit FROM run" 0
    expect_sql "$tmp/a/r.db" "PRAGMA journal_mode" delete
    ;;
readonly)
    # as root the directory's mode does not stop writes: the host runs as nobody
    cp "$host" "$tmp/writer_host" && chmod 755 "$tmp" "$tmp/writer_host" || exit 1
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null || { echo "skipped: root without setpriv"; exit 77; }
        chown 65534:65534 "$tmp/a" || exit 1
        setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/writer_host" "$tmp/a/r.db" readonly \
            >"$tmp/out" 2>"$tmp/err"
    else
        "$tmp/writer_host" "$tmp/a/r.db" readonly >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
    grep -q "Operation not permitted" "$tmp/err" && { echo "skipped: cannot make the directory read-only"; exit 77; }
    chmod 755 "$tmp/a"
    expect_rc 42 $rc
    [ "$(field lost)" = 0 ] && ok "nothing lost (the WAL was already there)" || bad "lost: $(cat "$tmp/out")"
    one_line "leave WAL mode.*directory is read-only"
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'test'" 4600
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'writer_error' AND message LIKE '%; 0 records after it%'" 1
    ;;
removed)
    run_host removed
    expect_rc 42 $rc
    [ "$(field lost)" = 4000 ] && ok "4000 records lost, counted" || bad "lost: $(cat "$tmp/out")"
    [ "$(field refused)" = 0 ] && ok "no push refused" || bad "pushes refused: $(cat "$tmp/out")"
    one_line "removed or replaced while the program ran"
    [ ! -e "$tmp/a" ] && ok "the directory stays removed" || bad "the directory came back: $(ls -la "$tmp/a")"
    ;;
fd2)
    run_host fd2 "$tmp/data"
    expect_rc 42 $rc
    [ "$(cat "$tmp/data")" = "program data" ] && ok "the program's file on fd 2 holds only its data" ||
        bad "the program's file on fd 2 holds: $(cat "$tmp/data")"
    one_line "removed"
    ;;
chdir)
    # a relative report name, then the program changes directory: the report stays where it was claimed
    (cd "$tmp/a" && exec "$host" r.db chdir >"$tmp/out" 2>"$tmp/err")
    rc=$?
    expect_rc 42 $rc
    [ "$(field error)" = none ] && [ "$(field lost)" = 0 ] && ok "no failure" || bad "$(cat "$tmp/out") $(cat "$tmp/err")"
    [ "$(field path)" = "$tmp/a/r.db" ] && ok "writer_path() absolute" || bad "writer_path() $(field path)"
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'test'" 4600
    [ ! -e "$tmp/a/r.db-wal" ] && ok "no -wal left" || bad "-wal left"
    ;;
allocator)
    so=$(preload_lib)
    [ -n "$so" ] || { echo "skipped: no jemalloc or tcmalloc (scripts/deps.sh installs libjemalloc2)"; exit 77; }
    ok "LD_PRELOAD=$so"
    LD_PRELOAD=$so "$host" "$tmp/a/r.db" fsize-freed >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check_fsize
    expect_sql "$tmp/a/r.db" "SELECT count(*) FROM event WHERE code = 'writer_error'" 1
    ;;
py-fsize | py-allocator)
    [ -f "$lib" ] || { echo "missing $lib"; exit 1; }
    if [ $case = py-allocator ]; then
        so=$(preload_lib)
        [ -n "$so" ] || { echo "skipped: no jemalloc or tcmalloc (scripts/deps.sh installs libjemalloc2)"; exit 77; }
        ok "LD_PRELOAD=$so"
        export LD_PRELOAD=$so
    fi
    # the disk fills up after the start: the exit's commit fails past RLIMIT_FSIZE
    run_py "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))"
    unset LD_PRELOAD
    expect_rc 5 $rc
    one_line "File too large"
    expect_sql "$tmp/p.db" "SELECT count(*) FROM run" 1
    ;;
py-fd2)
    [ -f "$lib" ] || { echo "missing $lib"; exit 1; }
    # the exit's summary line must not land in the program's file on fd 2
    run_py "os.close(2)
fd = os.open(sys.argv[2] + '/data', os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
assert fd == 2
os.write(fd, b'program data\n')"
    expect_rc 5 $rc
    [ "$(cat "$tmp/data")" = "program data" ] && ok "the program's file on fd 2 holds only its data" ||
        bad "the program's file on fd 2 holds: $(cat "$tmp/data")"
    grep -q "^==gpuhier== pid .*launches traced" "$tmp/err" && ok "the summary line is on the original stderr" ||
        bad "no summary line on stderr: $(cat "$tmp/err")"
    ;;
py-chdir)
    [ -f "$lib" ] || { echo "missing $lib"; exit 1; }
    mkdir "$tmp/elsewhere"
    (cd "$tmp/a" && GPUHIER_OUTPUT=r.db python3 -c "import ctypes, os, sys
ctypes.CDLL(sys.argv[1]).InitializeInjection()
os.chdir(sys.argv[2])
sys.exit(5)" "$lib" "$tmp/elsewhere" >"$tmp/out" 2>"$tmp/err")
    rc=$?
    expect_rc 5 $rc
    grep -q "cannot write report" "$tmp/err" && bad "a failure: $(cat "$tmp/err")"
    expect_sql "$tmp/a/r.db" "SELECT clean_exit FROM run" 1
    expect_sql "$tmp/a/r.db" "PRAGMA journal_mode" delete
    [ -z "$(ls "$tmp/elsewhere")" ] && ok "nothing in the new directory" || bad "in the new directory: $(ls "$tmp/elsewhere")"
    ;;
*)
    echo "unknown case $case"
    exit 2
    ;;
esac
[ $fail = 0 ] && echo "t106 $case: the program ran on, the writer said why"
exit $fail
