#!/bin/sh
# gpuhier run ends as the program ended: killed by a signal, it dies by
# the same signal (not merely exit 128+N); signals sent to gpuhier are
# forwarded to the program.
. "$(dirname "$0")/t4-cli-lib.sh"

# The helper's "status" mode is not available in sh, so ask the shell
# through a subshell that reports kill -l of 128+N and check with the
# child helper that gpuhier itself died by a signal: a parent that waits
# for gpuhier sees WIFSIGNALED. $C status prints "signal N" or "exit N".
ulimit -c 0 2>/dev/null || true
for sig in 15 9 11 6; do
  "$C" status "$G" run -q "$C" raise $sig > st.txt 2> err.txt || true
  [ "$(cat st.txt)" = "signal $sig" ] || { cat err.txt >&2; fail "program raised $sig; gpuhier ended with '$(cat st.txt)'"; }
done
"$C" status "$G" run "$C" raise 15 > st.txt 2> err.txt || true
[ "$(cat st.txt)" = "signal 15" ] || fail "SIGTERM: $(cat st.txt)"
contains err.txt "==gpuhier== the program was killed by signal 15"
# A plain exit of 143 stays an exit, not a signal.
"$C" status "$G" run -q "$C" exit 143 > st.txt
[ "$(cat st.txt)" = "exit 143" ] || fail "exit 143 came back as '$(cat st.txt)'"
# With core dumps allowed, the program's crash dumps core, gpuhier's does not
# (it would overwrite the program's core file in the same directory).
if (ulimit -c unlimited) 2>/dev/null; then
  mkdir cores && cd cores
  (ulimit -c unlimited; "$C" status "$G" run "$C" raise 11 > ../st.txt 2> ../err.txt) || true
  cd ..
  if grep -q "killed by signal 11 (Segmentation fault), core dumped" err.txt; then
    [ "$(cat st.txt)" = "signal 11" ] || fail "gpuhier dumped core too: '$(cat st.txt)'"
  else
    echo "note: the program dumped no core here (core_pattern: $(cat /proc/sys/kernel/core_pattern 2>/dev/null)); core check skipped"
  fi
  rm -rf cores
fi

# Forwarding: the program catches the signal gpuhier received and exits 40+N.
for sig in INT TERM HUP QUIT USR1 USR2; do
  rm -f ready out.txt
  "$G" run -q "$C" wait "$T/ready" > out.txt 2>&1 &
  pid=$!
  n=0
  while [ ! -e ready ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n + 1)); done
  [ -e ready ] || fail "child never got ready"
  kill -$sig $pid
  set +e; wait $pid; rc=$?; set -e
  case $sig in INT) num=2;; TERM) num=15;; HUP) num=1;; QUIT) num=3;; USR1) num=10;; USR2) num=12;; esac
  [ $rc -eq $((40 + num)) ] || { cat out.txt >&2; fail "SIG$sig to gpuhier: exit $rc, expected $((40 + num))"; }
  contains out.txt "got $num"
done
echo "ok t401"
