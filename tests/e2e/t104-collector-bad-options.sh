#!/bin/sh
# A collector option that is wrong when the collector reads it (set by hand:
# `gpuhier run` refuses these before the program starts) disables profiling
# with one line, and the report says so: run.profiling_limited and a
# bad_option event. These checks are made before the report's writer starts,
# and until 2026-11-30 their note was lost (the line was printed, the report
# had nothing). No GPU needed: InitializeInjection is called directly (what
# cuInit does), and without a driver CUPTI then refuses the subscription,
# which the report also says. Also: a bad GPUHIER_PROFILER_HOLD_MS keeps the
# default with one line, and an existing report is refused and left alone.
set -u
lib=${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
case_() { # case_ NAME VAR=VALUE EXPECTED-TEXT
    name=$1 var=$2 want=$3
    env "$var" GPUHIER_OUTPUT="$tmp/$name.db" python3 -c \
        'import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()' "$lib" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    python3 - "$tmp/$name.db" "$want" "$name" <<'PY' || fail=1
import sqlite3, sys
db, want, name = sys.argv[1:]
try:
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    limited = c.execute("SELECT profiling_limited FROM run").fetchone()[0] or ""
    events = c.execute("SELECT count(*) FROM event WHERE code = 'bad_option' AND message LIKE ?",
                       ("%" + want + "%",)).fetchone()[0]
except sqlite3.Error as e:
    print("FAIL %s: report: %s" % (name, e)); sys.exit(1)
ok = want in limited and events == 1
print("%s %s: profiling_limited %r, bad_option events naming it %d" % ("ok  " if ok else "FAIL", name, limited[:120], events))
sys.exit(0 if ok else 1)
PY
    grep -q "$want" "$tmp/$name.err" || { echo "FAIL $name: no line on stderr: $(cat "$tmp/$name.err")"; fail=1; }
}
case_ mode GPUHIER_MODE=bogus "GPUHIER_MODE='bogus' is not trace or profile"
case_ metric_set GPUHIER_METRIC_SET=tiny "GPUHIER_METRIC_SET='tiny' is not default or none"
case_ cache GPUHIER_CACHE_CONTROL=some "GPUHIER_CACHE_CONTROL='some' is not all or none"
case_ sample GPUHIER_SAMPLE=sometimes "sometimes"
case_ replay GPUHIER_REPLAY=user "GPUHIER_REPLAY='user' is not none or kernel"
# A hold that is not a whole number of milliseconds: one line, the default kept, profiling on.
GPUHIER_PROFILER_HOLD_MS=soon GPUHIER_OUTPUT="$tmp/hold.db" python3 -c \
    'import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()' "$lib" 2>"$tmp/hold.err" >/dev/null
grep -q "GPUHIER_PROFILER_HOLD_MS: 'soon' is not a whole number of milliseconds (0-3600000); keeping 100 ms" \
    "$tmp/hold.err" && echo "ok   hold: one line, default kept" || { echo "FAIL hold: $(cat "$tmp/hold.err")"; fail=1; }
grep -q "bad_option\|profiling disabled" "$tmp/hold.err" && { echo "FAIL hold: profiling disabled"; fail=1; }
# An existing report is refused without GPUHIER_FORCE and left as it was.
printf 'keep me' > "$tmp/old.db"
GPUHIER_OUTPUT="$tmp/old.db" python3 -c \
    'import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()' "$lib" 2>"$tmp/old.err" >/dev/null
[ "$(cat "$tmp/old.db")" = "keep me" ] && grep -q "old.db" "$tmp/old.err" && echo "ok   existing report refused and kept" ||
    { echo "FAIL existing report: $(cat "$tmp/old.err")"; fail=1; }
[ $fail = 0 ] && echo "t104: bad collector options are in the report"
exit $fail
