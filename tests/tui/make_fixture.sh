#!/bin/sh
# SPDX-License-Identifier: MIT
# make_fixture.sh NAME OUT.db: the reports the TUI tests browse.
#   small      synthetic, analyzed (made-up findings), 12 kernels, 2,000 launches
#   raw        the same, never analyzed
#   trace      no profiled launch (trace mode), never analyzed
#   empty      a run and a device, no kernel, no launch, no copy
#   hostile    small + kernels named with escape sequences, a 64 KB name,
#              invalid UTF-8, bidi controls and markup characters; secrets
#              and an escape sequence in the command line
set -eu
name=$1 out=$2
src=${GPUHIER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
gen=$src/bench/make_big_report.sh
rm -f "$out"
case $name in
  small) "$gen" --analysis --kernels 12 "$out" 2000 40 2>/dev/null ;;
  raw) "$gen" --kernels 12 "$out" 2000 40 2>/dev/null ;;
  trace) "$gen" --kernels 6 "$out" 600 0 2>/dev/null ;;
  empty) "$gen" --kernels 1 "$out" 0 0 2>/dev/null ;;
  hostile) "$gen" --analysis --kernels 6 "$out" 600 12 2>/dev/null ;;
  *) echo "make_fixture: unknown fixture '$name'" >&2; exit 2 ;;
esac
sql=""
case $name in
  empty) sql="DELETE FROM config; DELETE FROM kernel;" ;;
  hostile) sql="
UPDATE kernel SET short_name = 'evil' || char(27) || '[2J' || char(27) || ']0;pwned' || char(7) || '_kernel',
  demangled_name = 'void evil' || char(27) || '[31mred' || char(27) || '[0m(int)' WHERE id = 1;
UPDATE kernel SET short_name = 'huge_' || replace(hex(zeroblob(32768)), '00', 'Ab') || '_end',
  demangled_name = 'void huge_' || replace(hex(zeroblob(32768)), '00', 'Ab') || '_end(float*)' WHERE id = 2;
UPDATE kernel SET short_name = CAST(X'626164FFFE5F757466385FC3285F6B' AS TEXT),
  demangled_name = CAST(X'626164FFFE5F75746638' AS TEXT) WHERE id = 3;
UPDATE kernel SET short_name = '<b>markup</b> & \"quotes\" | *md* [x](y) %s %n',
  demangled_name = '<script>alert(1)</script>' WHERE id = 4;
UPDATE kernel SET short_name = 'bidi_' || char(8238) || 'txet_desrever' || char(8236) || '_tab' || char(9) || 'nl' || char(10) || 'end' WHERE id = 5;
UPDATE run SET command_line = '[\"./app\",\"--api-key=sk-secret0123456789abcdef\",\"--token\",\"ghp_0123456789abcdefghijklmnopqrstuvwxyz\",\"\\u001b[31mx\"]';
UPDATE finding SET message = 'msg with ' || char(27) || '[5mblink' || char(27) || '[0m and ' || char(155) || 'C1' WHERE kernel_id = 1;
" ;;
esac
if [ -n "$sql" ]; then
  if command -v sqlite3 >/dev/null 2>&1; then
    printf '%s\n' "$sql" | sqlite3 -bail "$out"
  else
    printf '%s\n' "$sql" | python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.executescript(sys.stdin.read())' "$out"
  fi
fi
