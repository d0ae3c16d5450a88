#!/bin/sh
# Fatal signals keep the record and end the program as without gpuhier
# (issue 16; docs/collector.md "Fatal signals"). No GPU needed: the child
# loads the collector as cuInit would. For each signal and each way a
# program may hold it, the run with the collector is compared with the same
# program without it: exit status (the signal; cores are off), stdout and
# stderr byte for byte (stderr without the collector's ==gpuhier== lines);
# and the report opens, is closed (end_ns, no -wal beside it), and records
# the death (clean_exit = 0 and one 'signal' event naming it) when the
# program died, or a clean exit when it survived.
set -u
b=$(cd "${GPUHIER_BINARY_DIR:?}" && pwd)
lib=$b/libgpuhier-collector.so
child=$b/tests/collector_signal_child
[ -f "$lib" ] && [ -x "$child" ] || { echo "missing $lib or $child"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0
fail=0
run() { # run NAME LIB MODE SIG: status in $tmp/NAME.rc
    ( cd "$tmp" && GPUHIER_OUTPUT="$tmp/$1.db" "$child" "$2" "$3" "$4" >"$tmp/$1.out" 2>"$tmp/$1.err"
      echo $? >"$tmp/$1.rc" )
    grep -v '^==gpuhier==' "$tmp/$1.err" >"$tmp/$1.err2"
}
check() { # check MODE SIG DIES(1/0)
    n=$1-$2
    run "$n-native" none "$1" "$2"
    run "$n" "$lib" "$1" "$2"
    for x in rc out err2; do
        cmp -s "$tmp/$n-native.$x" "$tmp/$n.$x" ||
            { echo "FAIL $n: $x differs: native '$(cat "$tmp/$n-native.$x")', collector '$(cat "$tmp/$n.$x")'"; fail=1; }
    done
    python3 - "$tmp/$n.db" "$2" "$3" "$n" <<'PY' || fail=1
import os, sqlite3, sys
db, sig, dies, name = sys.argv[1], sys.argv[2].upper().replace("ABORT", "ABRT"), sys.argv[3] == "1", sys.argv[4]
if os.path.exists(db + "-wal"):
    print("FAIL %s: -wal left beside the report" % name); sys.exit(1)
try:
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    end, clean = c.execute("SELECT end_ns, clean_exit FROM run").fetchone()
    ev = c.execute("SELECT count(*) FROM event WHERE code = 'signal' AND message LIKE ?",
                   ("%%SIG%s%%" % sig,)).fetchone()[0]
except (sqlite3.Error, TypeError) as e:
    print("FAIL %s: report: %s" % (name, e)); sys.exit(1)
ok = end is not None and ((clean == 0 and ev == 1) if dies else (clean == 1 and ev == 0))
print("%s %s: end_ns %s, clean_exit %s, signal events %d" % ("ok  " if ok else "FAIL", name,
      "set" if end else "NULL", clean, ev))
sys.exit(0 if ok else 1)
PY
}
for s in abort segv bus fpe ill term int hup quit; do check die $s 1; done
for s in abort segv term; do check own $s 1; done
check survive term 0
check survive int 0
# a handler installed without SA_RESTART still interrupts a blocking read (Python's SIGINT)
for s in int term; do
    run eintr-$s-native none eintr $s
    GPUHIER_OUTPUT="$tmp/eintr-$s.db" timeout -s KILL 10 "$child" "$lib" eintr $s >"$tmp/eintr-$s.out" 2>/dev/null
    cmp -s "$tmp/eintr-$s-native.out" "$tmp/eintr-$s.out" && grep -q "read interrupted" "$tmp/eintr-$s.out" &&
        echo "ok   eintr-$s: the blocking read was interrupted, as natively" ||
        { echo "FAIL eintr-$s: '$(cat "$tmp/eintr-$s.out")', native '$(cat "$tmp/eintr-$s-native.out")'"; fail=1; }
done
# a handler installed after the collector replaces it, as it would replace any earlier one
run late-native none late term
run late "$lib" late term
for x in rc out err2; do
    cmp -s "$tmp/late-native.$x" "$tmp/late.$x" || { echo "FAIL late: $x differs"; fail=1; }
done
[ "$(cat "$tmp/late.rc")" = 3 ] && echo "ok   late: the program's later handler ran (status 3)" ||
    { echo "FAIL late: status $(cat "$tmp/late.rc")"; fail=1; }
# the readers say why the report ended, and analyze it
if [ -x "$b/gpuhier" ]; then
    "$b/gpuhier" report "$tmp/die-abort.db" >"$tmp/rep.txt" 2>&1 &&
        grep -q "ended by SIGABRT (signal 6)" "$tmp/rep.txt" &&
        echo "ok   report: says the program was ended by SIGABRT" ||
        { echo "FAIL report: $(cat "$tmp/rep.txt")"; fail=1; }
    "$b/gpuhier" analyze "$tmp/die-segv.db" >"$tmp/an.txt" 2>&1 &&
        echo "ok   analyze: the interrupted report is analyzed" || { echo "FAIL analyze: $(cat "$tmp/an.txt")"; fail=1; }
fi
[ $fail = 0 ] && echo "t105: fatal signals keep the record and end the program as natively"
exit $fail
