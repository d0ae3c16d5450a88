#!/bin/sh
# SPDX-License-Identifier: MIT
# The TUI in a real terminal (tmux, 80x24): what tmux shows is what the
# scripted no-display run dumps, key for key; resize redraws.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
command -v tmux >/dev/null 2>&1 || { echo "skipped: tmux not installed"; exit 77; }
tmp=$(mktemp -d)

# one tmux server (socket) per session: a session whose program ended takes its server down
# with it, and a new-session on that socket can race the server's exit ("server exited
# unexpectedly", seen under load)
sock=tmux1.sock
trap 'for s in "$tmp"/tmux*.sock; do tmux -S "$s" kill-server 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
cd "$tmp"
"$src/tests/tui/make_fixture.sh" small report.db
fail() { echo "t302: $*"; exit 1; }
printf '2\n:dump k.txt\n<Enter>\n:dump d.txt\n' > keys
LC_ALL=C.UTF-8 GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$bin" tui --raw report.db
tmux -S "$tmp/$sock" -f /dev/null new-session -d -x 80 -y 24 \
  "cd $tmp && env LC_ALL=C.UTF-8 TERM=xterm-256color $bin tui --raw report.db; touch done"
wait_for() { # wait_for TEXT: until the pane shows TEXT
  i=0
  while ! tmux -S "$tmp/$sock" capture-pane -p | grep -qF -- "$1"; do
    i=$((i + 1)); [ $i -lt 100 ] || { tmux -S "$tmp/$sock" capture-pane -p; fail "timeout waiting for '$1'"; }
    sleep 0.1
  done
}
# until the pane, captured into OUT with tmux's OPTIONS, passes `test CMD`
# (10 s): the screen is drawn asynchronously, and a loaded machine (CI)
# may be slower than any fixed sleep
settle() { # settle OUT "OPTIONS" CMD...
  out=$1 opts=$2; shift 2
  i=0
  while :; do
    # shellcheck disable=SC2086 # OPTIONS are words on purpose
    tmux -S "$tmp/$sock" capture-pane $opts -p > "$out"
    "$@" && return 0
    i=$((i + 1)); [ $i -lt 100 ] || return 1
    sleep 0.1
  done
}
wide() { [ "$(head -1 "$1" | awk '{print length($0)}')" -gt 80 ]; }
red_error() { grep '2.10 ms' "$1" | grep -q "$(printf '\033')\\[[0-9;]*[39]1m"; }
reverse() { grep -q "$(printf '\033')\\[[0-9;]*7m" "$1"; }
quit_wait() { i=0; while [ ! -f done ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; }
wait_for "Summary"
tmux -S "$tmp/$sock" send-keys 2
wait_for "Kernels (12)"
settle pane-k.txt "" cmp -s k.txt pane-k.txt || { diff -u k.txt pane-k.txt; fail "terminal and dump differ (kernels)"; }
tmux -S "$tmp/$sock" send-keys Enter
wait_for "Memory hierarchy"
settle pane-d.txt "" cmp -s d.txt pane-d.txt || { diff -u d.txt pane-d.txt; fail "terminal and dump differ (kernel detail)"; }
tmux -S "$tmp/$sock" resize-window -x 100 -y 30 2>/dev/null || tmux -S "$tmp/$sock" resize-pane -x 100 -y 30
settle pane-r.txt "" wide pane-r.txt
head -1 pane-r.txt | grep -q '^ gpuhier Kernel synthetic::reread_kernel_12<…> - report.db .* 1/24 *$' || fail "no redraw at 100 columns: $(head -1 pane-r.txt)"
[ "$(head -1 pane-r.txt | awk '{print length($0)}')" -gt 80 ] || fail "title not widened after resize"
# Colours by severity: the error finding is drawn red (SGR 31 or 91).
tmux -S "$tmp/$sock" send-keys 3 j
wait_for "Findings (21)"
settle pane-colour.txt -e red_error pane-colour.txt || fail "the error row is not red"
tmux -S "$tmp/$sock" send-keys Escape q
quit_wait
[ -f done ] || fail "q did not quit"
# NO_COLOR (and -C): attributes only, no colour at all.
rm -f done
sock=tmux2.sock
tmux -S "$tmp/$sock" -f /dev/null new-session -d -x 80 -y 24 \
  "cd $tmp && env LC_ALL=C.UTF-8 TERM=xterm-256color NO_COLOR=1 $bin tui --raw --view findings report.db; touch done"
wait_for "Findings (21)"
tmux -S "$tmp/$sock" send-keys j
settle pane-mono.txt -e reverse pane-mono.txt
! grep -q "$(printf '\033')\\[[0-9;]*\\(3[0-7]\\|9[0-7]\\|38;5\\)" pane-mono.txt || fail "colours despite NO_COLOR"
grep -q "$(printf '\033')\\[[0-9;]*7m" pane-mono.txt || fail "no reverse video for the cursor without colours"
tmux -S "$tmp/$sock" send-keys q
quit_wait
[ -f done ] || fail "q did not quit (NO_COLOR)"
# --mouse: a click selects the line under it, the wheel scrolls (xterm SGR mouse reports).
rm -f done
sock=tmux3.sock
tmux -S "$tmp/$sock" -f /dev/null new-session -d -x 80 -y 24 \
  "cd $tmp && env LC_ALL=C.UTF-8 TERM=xterm-256color $bin tui --raw --mouse --view kernels report.db; touch done"
wait_for "Kernels (12)"
tmux -S "$tmp/$sock" send-keys -l "$(printf '\033[<0;5;6M')"
tmux -S "$tmp/$sock" send-keys -l "$(printf '\033[<0;5;6m')"
wait_for " 4/12"
tmux -S "$tmp/$sock" send-keys -l "$(printf '\033[<65;5;6M')"
wait_for " 7/12"
tmux -S "$tmp/$sock" send-keys q
quit_wait
[ -f done ] || fail "q did not quit (mouse)"
echo "t302: ok"
