#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tui_speed.sh [LAUNCHES] [PROFILED]: how fast the TUI paints and answers
# keys on a big synthetic report (default 1,000,000 launches, 1,000
# profiled, 200 kernels, synthetic analysis rows).
#
# It runs `gpuhier tui --raw` (the report's own analysis rows, no
# re-analysis) with GPUHIER_TUI_NO_DISPLAY=1 and a key script that visits
# every view, sorts, filters, opens details and raw metrics, and reads
# GPUHIER_TUI_TIMING: microseconds to the first paint (from tui_main's
# start) and per key (handling + drawing). It also times the whole
# process for "open, paint, quit" and reads its peak RSS, and, when tmux
# is present, repeats the key script in a real 80x24 terminal.
# Budgets (issue 6): first paint <= 0.3 s, every key <= 50 ms.
#
# Environment: GPUHIER (the binary; default build-tui/gpuhier or build/gpuhier),
# REPORT (reuse this report instead of generating one), OUT (copy results there).
set -eu
n=${1:-1000000} np=${2:-1000}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${GPUHIER:-}
[ -n "$bin" ] || for b in "$src/build-tui/gpuhier" "$src/build/gpuhier"; do [ -x "$b" ] && { bin=$b; break; }; done
[ -x "$bin" ] || { echo "tui_speed: no gpuhier binary (set GPUHIER)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report=${REPORT:-}
if [ -z "$report" ]; then
  report=$tmp/big.db
  t0=$(date +%s%N)
  "$src/bench/make_big_report.sh" --analysis --kernels 200 "$report" "$n" "$np"
  echo "tui_speed: generated $n launches in $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
fi
cat > "$tmp/keys" <<'KEYS'
2jjjjjjjjjjjjjjjjjjjj<PgDn><PgDn><End><Home>
ssssssrr<F6>
/strided<Enter>nN
<Enter>
<PgDn>m<End><Home>m
<Esc>/<Backspace><Backspace><Backspace><Backspace><Backspace><Backspace><Backspace><Enter>
c<End>c
3jjj<Enter><Esc>tjtj
4s
1<End><Enter><Esc>
?<PgDn><Esc>
KEYS
export LC_ALL=C.UTF-8
rm -f "$tmp/timing"
cd "$tmp"
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT="$tmp/keys" GPUHIER_TUI_TIMING="$tmp/timing" "$bin" tui --raw "$report"
first=$(awk '/^first_paint_us/ {print $2}' "$tmp/timing")
keys=$(grep -c '^key ' "$tmp/timing")
maxk=$(awk '/^key / {if ($3 > m) {m = $3; k = $2}} END {print m, k}' "$tmp/timing")
p50=$(awk '/^key / {print $3}' "$tmp/timing" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
# Whole process: open the report, paint, quit.
echo q > "$tmp/q"
t0=$(date +%s%N)
GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT="$tmp/q" "$bin" tui --raw "$report"
whole=$(( ($(date +%s%N) - t0) / 1000 ))
rss=-
if [ -x /usr/bin/time ]; then
  rss=$(GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT="$tmp/keys" /usr/bin/time -f '%M' "$bin" tui --raw "$report" 2>&1 >/dev/null | tail -1)
fi
tmuxline="tmux: not installed"
if command -v tmux >/dev/null 2>&1; then
  rm -f "$tmp/timing2"

  tmux -S "$tmp/tmux.sock" new-session -d -x 80 -y 24 \
    "env LC_ALL=C.UTF-8 TERM=xterm-256color GPUHIER_TUI_SCRIPT=$tmp/keys GPUHIER_TUI_TIMING=$tmp/timing2 $bin tui --raw $report; touch $tmp/done"
  i=0
  while [ ! -f "$tmp/done" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null || true
  if [ -f "$tmp/timing2" ]; then
    f2=$(awk '/^first_paint_us/ {print $2}' "$tmp/timing2")
    m2=$(awk '/^key / {if ($3 > m) {m = $3; k = $2}} END {print m, k}' "$tmp/timing2")
    tmuxline="tmux 80x24 (curses drawing included): first paint ${f2} us, slowest key ${m2}"
  fi
fi
size=$(du -k "$report" | cut -f1)
cat > "$tmp/result" <<RES
report: $n launches, $np profiled, 200 kernels, $((size / 1024)) MB (synthetic, bench/make_big_report.sh --analysis)
first paint: $first us (budget 300000)
keys: $keys, median $p50 us, slowest $maxk (budget 50000 us each)
whole process (open + paint + quit): $whole us
peak RSS with the key script: $rss kB
$tmuxline
RES
cat "$tmp/result"
if [ -n "${OUT:-}" ]; then
  cp "$tmp/result" "$OUT/tui-speed.txt"
  cp "$tmp/timing" "$OUT/tui-timing.txt"
fi
ok=1
[ "$first" -le 300000 ] || ok=0
[ "$(echo "$maxk" | cut -d' ' -f1)" -le 50000 ] || ok=0
[ $ok = 1 ] && echo "tui_speed: within budget" || { echo "tui_speed: OVER BUDGET"; exit 1; }
