#!/bin/sh
# gpuhier run's own failures: one clear line on stderr and a documented
# exit code (docs/exit-codes.md); the program is not started.
. "$(dirname "$0")/t4-cli-lib.sh"

expect_rc 127 "$G" run ./no-such-program 2> err.txt
contains err.txt "cannot run './no-such-program': no such file"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_rc 127 "$G" run gpuhier-no-such-command-xyz 2> err.txt
contains err.txt "command not found in PATH"
printf 'echo hi\n' > notexec.sh
expect_rc 126 "$G" run ./notexec.sh 2> err.txt
contains err.txt "not executable"
mkdir adir
expect_rc 126 "$G" run ./adir 2> err.txt
contains err.txt "it is a directory"
# A script without #! runs through /bin/sh, as with a shell.
printf 'exit 7\n' > noshebang && chmod +x noshebang
expect_rc 7 "$G" run -q ./noshebang

# Bad options: exit 2, one line, nothing run.
expect_rc 2 "$G" run -k '(' "$C" cuda "$T/r.db" 2> err.txt
contains err.txt "bad regular expression '('"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_rc 2 "$G" run --mode turbo true 2> err.txt
expect_rc 2 "$G" run --sample every:0 true 2> err.txt
expect_rc 2 "$G" run --launch-count -3 true 2> err.txt
expect_rc 2 "$G" run --metric-set tiny --metrics a.sum true 2> err.txt
contains err.txt "--metric-set: 'tiny' is not default or none"
expect_rc 2 "$G" run --metric-set none true 2> err.txt
contains err.txt "collects only --metrics, and none were given"
expect_rc 0 "$G" run -q --metric-set none --metrics dram__bytes_read.sum true
expect_rc 2 "$G" run --cache-control some true 2> err.txt
contains err.txt "--cache-control: 'some' is not all or none"
expect_rc 2 "$G" run --cache-control all --mode trace true 2> err.txt
contains err.txt "--mode trace profiles none"
expect_rc 0 "$G" run -q --cache-control all true
expect_rc 0 "$G" run -q --cache-control none --mode trace true
# --replay: none (one-pass groups, the default) or kernel; kernel replay with no profile is a typo
expect_rc 2 "$G" run --replay user true 2> err.txt
contains err.txt "--replay: 'user' is not none or kernel"
expect_rc 2 "$G" run --replay kernel --mode trace true 2> err.txt
contains err.txt "--replay kernel replays profiled launches"
expect_rc 0 "$G" run -q --replay kernel true
expect_rc 0 "$G" run -q --replay=none --mode trace true
# --counters: both (the default), hardware (the range profiler) or pattern (the
# instrumentation engine, which profiles, and never under kernel replay, the range profiler's)
expect_rc 2 "$G" run --counters sass true 2> err.txt
contains err.txt "--counters: 'sass' is not both, hardware or pattern"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_rc 2 "$G" run --counters pattern --mode trace true 2> err.txt
contains err.txt "--counters pattern"
contains err.txt "--mode trace profiles none"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_rc 2 "$G" run --replay kernel --counters=pattern true 2> err.txt
contains err.txt "--replay kernel"
contains err.txt "--counters pattern"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_rc 2 "$G" run --counters 2> err.txt
contains err.txt "option '--counters' needs a value (both|hardware|pattern)"
expect_rc 2 "$G" run --counters both --replay kernel true 2> err.txt
contains err.txt "use --counters hardware"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "more than one line: $(cat err.txt)"
expect_rc 0 "$G" run -q --counters pattern --replay none true
expect_rc 0 "$G" run -q --counters hardware --replay kernel true
expect_rc 0 "$G" run -q --counters hardware --mode trace true
expect_rc 2 "$G" run --bogus true 2> err.txt
contains err.txt "unknown option '--bogus'"
expect_rc 2 "$G" run 2> err.txt
contains err.txt "no program given"
expect_rc 0 "$G" run --help > help.txt
contains help.txt "usage: gpuhier run"

# An existing report with a fixed name: refused before the run unless -f.
: > fixed.db
expect_rc 6 "$G" run -o fixed.db "$C" cuda "$T/x" 2> err.txt
contains err.txt "already exists; use -f"
[ ! -e x ] || fail "program ran"
expect_rc 0 "$G" run -q -f -o fixed.db true
# %i never collides, so no check is needed.
expect_rc 0 "$G" run -q -o 'fixed%i.db' true
# A directory that does not exist (root may write anywhere, so no permission case).
expect_rc 6 "$G" run -o nodir/gpuhier-%i.db true 2> err.txt
contains err.txt "cannot write reports in '$T/nodir'"
# The collector cannot be found.
expect_rc 70 env GPUHIER_COLLECTOR=/nonexistent/lib.so "$G" run true 2> err.txt
contains err.txt "GPUHIER_COLLECTOR"
echo "ok t402"
