#!/bin/sh
# The end of gpuhier run: one summary per CUDA process from the session
# file the collectors append to, the environment the collector reads,
# and the analysis of each closed report. A stand-in program
# (gh_cli_child cuda REPORT) writes the lines a CUDA process would.
. "$(dirname "$0")/t4-cli-lib.sh"

# Summary of one process; --no-analyze prints no findings.
expect_rc 0 "$G" run --no-analyze "$C" cuda "$T/r1.db" 2> err.txt
contains err.txt "==gpuhier== process "
contains err.txt ": report r1.db"
contains err.txt "launches: 1234 traced, 17 profiled, 1217 not profiled, 0 records dropped"
contains err.txt "profiling: 3 passes at most per launch, 2.50 s"
lacks err.txt "never initialized CUDA"
lacks err.txt "top findings"

# A process that did not close its report, and two processes in one run.
expect_rc 0 "$G" run "$C" cuda "$T/r2.db" noend 2> err.txt
contains err.txt ": report r2.db (not closed"
contains err.txt "not analyzed: r2.db was not closed"
expect_rc 0 "$G" run --no-analyze sh -c "'$C' cuda '$T/a.db' && '$C' cuda '$T/b.db'" 2> err.txt
contains err.txt ": report a.db"
contains err.txt ": report b.db"
[ "$(grep -c 'launches: ' err.txt)" -eq 2 ] || fail "expected two process summaries"

# The session file is removed afterwards.
"$G" run -q "$C" env GPUHIER_SESSION_FILE > env.txt
session=$(sed -n 's/^GPUHIER_SESSION_FILE=//p' env.txt)
[ -n "$session" ] && [ ! -e "$session" ] || fail "session file '$session' left behind"

# Analysis of a closed report, in place (synthetic report: bench/make_big_report.sh).
sh "${GPUHIER_SOURCE_DIR:?}/bench/make_big_report.sh" --kernels 3 "$T/r.db" 60 6 > /dev/null 2>&1
expect_rc 0 "$G" run "$C" cuda "$T/r.db" 2> err.txt
contains err.txt "==gpuhier== top findings of r.db"
n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM analysis').fetchone()[0])" "$T/r.db")
[ "$n" -ge 1 ] || fail "the report was not analyzed in place"
expect_rc 0 "$G" run -q "$C" cuda "$T/r.db" 2> err.txt
[ ! -s err.txt ] || { cat err.txt >&2; fail "-q printed findings"; }
# A broken rules directory: a line about it, the program's status unchanged.
mkdir badrules && printf 'this is not a rule\n' > badrules/x.rule
expect_rc 4 "$G" run --rules badrules sh -c "'$C' cuda '$T/r.db'; exit 4" 2> err.txt
contains err.txt "==gpuhier== cannot analyze r.db"
# What the collector recorded about its limits is repeated at the end.
sh "$GPUHIER_SOURCE_DIR/bench/make_big_report.sh" --kernels 2 "$T/ev.db" 20 2 > /dev/null 2>&1
python3 - "$T/ev.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executemany("INSERT INTO event(time_ns, level, code, message) VALUES (?, ?, ?, ?)",
              [(1, "warning", "cupti_subscribe_failed", "CUPTI refused: another subscriber"),
               (2, "warning", "capture_skip", "launch during stream capture not profiled"),
               (3, "warning", "capture_skip", "launch during stream capture not profiled"),
               (4, "info", "quiet", "an info line is not repeated"),
               (5, "error", "evil", "kernel \x1b]0;pwned\x07 failed")])
c.execute("UPDATE run SET profiling_limited = 'no counter permission'")
c.commit()
PY
expect_rc 0 "$G" run --no-analyze "$C" cuda "$T/ev.db" 2> err.txt
contains err.txt "==gpuhier==   ev.db: counters limited: no counter permission"
contains err.txt "==gpuhier==   ev.db: warning: CUPTI refused: another subscriber"
contains err.txt "==gpuhier==   ev.db: warning: launch during stream capture not profiled (2 times)"
lacks err.txt "an info line"
# The report's text is not ours: an escape sequence in an event is shown escaped.
contains err.txt 'ev.db: error: kernel \e]0;pwned\x07 failed'
lacks err.txt "$(printf '\033')"
# --rules with a directory of no rules still runs the program and keeps its status.
mkdir norules
expect_rc 5 "$G" run -q --rules norules "$C" exit 5

# The environment the collector reads.
export GPUHIER_KERNEL=stale GPUHIER_COLLECTOR_ACTIVE=1 GPUHIER_FAULT=test:x LD_PRELOAD=
"$G" run -q "$C" env GPUHIER_OUTPUT GPUHIER_KERNEL GPUHIER_MODE GPUHIER_FORCE GPUHIER_QUIET \
  GPUHIER_COLLECTOR_ACTIVE GPUHIER_FAULT GPUHIER_LAUNCH_SKIP CUDA_INJECTION64_PATH LD_PRELOAD > env.txt
contains env.txt "GPUHIER_OUTPUT=$T/gpuhier-%i.db"
contains env.txt "GPUHIER_KERNEL unset"
contains env.txt "GPUHIER_MODE unset"
contains env.txt "GPUHIER_FORCE unset"
contains env.txt "GPUHIER_QUIET=1"
contains env.txt "GPUHIER_COLLECTOR_ACTIVE unset"
contains env.txt "GPUHIER_FAULT=test:x"
contains env.txt "GPUHIER_LAUNCH_SKIP unset"
inj=$(sed -n 's/^CUDA_INJECTION64_PATH=//p' env.txt)
[ -f "$inj" ] && case $inj in /*) true;; *) false;; esac || fail "CUDA_INJECTION64_PATH='$inj' is not an absolute file"
contains env.txt "LD_PRELOAD=$inj"
unset GPUHIER_KERNEL GPUHIER_COLLECTOR_ACTIVE GPUHIER_FAULT

# --counters sets GPUHIER_INSTRUMENT (pattern 1, hardware 0, both 'both'); without it the
# user's value (GPUHIER_INSTRUMENT=1 by hand, or the diagnosis mode 'phased') reaches the
# collector, and unset the collector takes both engines.
"$G" run -q --counters pattern "$C" env GPUHIER_INSTRUMENT > env.txt
contains env.txt "GPUHIER_INSTRUMENT=1"
GPUHIER_INSTRUMENT=both "$G" run -q --counters=pattern "$C" env GPUHIER_INSTRUMENT > env.txt
contains env.txt "GPUHIER_INSTRUMENT=1"
GPUHIER_INSTRUMENT=1 "$G" run -q --counters hardware "$C" env GPUHIER_INSTRUMENT > env.txt
contains env.txt "GPUHIER_INSTRUMENT=0"
GPUHIER_INSTRUMENT=0 "$G" run -q --counters both "$C" env GPUHIER_INSTRUMENT > env.txt
contains env.txt "GPUHIER_INSTRUMENT=both"
GPUHIER_INSTRUMENT=phased "$G" run -q "$C" env GPUHIER_INSTRUMENT > env.txt
contains env.txt "GPUHIER_INSTRUMENT=phased"
env -u GPUHIER_INSTRUMENT "$G" run -q "$C" env GPUHIER_INSTRUMENT > env.txt
contains env.txt "GPUHIER_INSTRUMENT unset"

"$G" run -o "$T/x-%p.db" -f -q --mode trace --metrics a__b.sum,c.max --sample first:2 -k 'gemm|conv' \
  --launch-skip 2 --launch-count 3 --nvtx-include '^train' --profile-budget 30 \
  "$C" env GPUHIER_OUTPUT GPUHIER_FORCE GPUHIER_MODE GPUHIER_METRICS GPUHIER_SAMPLE GPUHIER_KERNEL \
  GPUHIER_LAUNCH_SKIP GPUHIER_LAUNCH_COUNT GPUHIER_NVTX_INCLUDE GPUHIER_PROFILE_BUDGET > env.txt 2>/dev/null || true
for kv in "GPUHIER_OUTPUT=$T/x-%p.db" GPUHIER_FORCE=1 GPUHIER_MODE=trace GPUHIER_METRICS=a__b.sum,c.max \
  GPUHIER_SAMPLE=first:2 "GPUHIER_KERNEL=gemm|conv" GPUHIER_LAUNCH_SKIP=2 GPUHIER_LAUNCH_COUNT=3 \
  "GPUHIER_NVTX_INCLUDE=^train" GPUHIER_PROFILE_BUDGET=30; do
  contains env.txt "$kv"
done

# LD_PRELOAD of the user is kept after the collector's.
# (gpuhier gets it too: under ASan, tell the runtime it need not come first.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
  LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 "$G" run -q "$C" env LD_PRELOAD > env.txt
contains env.txt ":/lib/x86_64-linux-gnu/libm.so.6"

# A relative -o is anchored to gpuhier's directory, '%' in it escaped.
mkdir 'a%b' && cd 'a%b'
"$G" run -q -o 'r-%i.db' "$C" env GPUHIER_OUTPUT > ../env.txt
contains ../env.txt "GPUHIER_OUTPUT=$T/a%%b/r-%i.db"
echo "ok t403"
