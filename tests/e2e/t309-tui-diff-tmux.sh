#!/bin/sh
# SPDX-License-Identifier: MIT
# Before/after and NVTX in a real terminal (tmux, 80x24), on SYNTHETIC
# reports (tests/tui/make_fixture.sh small, after and nvtx): what tmux
# shows is what the scripted no-display run dumps; a fixed finding is
# green; Enter on a removed kernel opens it in before.db; the NVTX view's
# Enter filters the kernels.
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
"$src/tests/tui/make_fixture.sh" small before.db
"$src/tests/tui/make_fixture.sh" after after.db
"$src/tests/tui/make_fixture.sh" nvtx nvtx.db
fail() { echo "t309: $*"; exit 1; }
t() { tmux -S "$tmp/$sock" "$@"; }
wait_for() { # wait_for TEXT: until the pane shows TEXT
  i=0
  while ! t capture-pane -p | grep -qF -- "$1"; do
    i=$((i + 1)); [ $i -lt 100 ] || { t capture-pane -p; fail "timeout waiting for '$1'"; }
    sleep 0.1
  done
}
# until the pane, captured into OUT with tmux's OPTIONS, passes CMD (10 s):
# a loaded machine may draw later than any fixed sleep
settle() { # settle OUT "OPTIONS" CMD...
  out=$1 opts=$2; shift 2
  i=0
  while :; do
    # shellcheck disable=SC2086 # OPTIONS are words on purpose
    t capture-pane $opts -p > "$out"
    "$@" && return 0
    i=$((i + 1)); [ $i -lt 100 ] || return 1
    sleep 0.1
  done
}
green_fixed() { grep 'fixed ' "$1" | grep -q "$(printf '\033')\\[[0-9;]*[39]2m"; }
wait_done() {
  i=0; while [ ! -f done ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
  [ -f done ] || fail "$1"
  rm -f done
}
printf ':dump k.txt\n3\n:dump f.txt\n' > keys
LC_ALL=C.UTF-8 GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$bin" tui --raw before.db after.db
t -f /dev/null new-session -d -x 80 -y 24 \
  "cd $tmp && env LC_ALL=C.UTF-8 TERM=xterm-256color $bin tui --raw before.db after.db; touch done"
wait_for "Before/after: kernels (11 matched, 1 removed, 1 added)"
settle pane-k.txt "" cmp -s k.txt pane-k.txt || { diff -u k.txt pane-k.txt; fail "terminal and dump differ (diff kernels)"; }
t send-keys 3
wait_for "Before/after: findings (1 fixed, 1 new, 10 unchanged)"
settle pane-f.txt "" cmp -s f.txt pane-f.txt || { diff -u f.txt pane-f.txt; fail "terminal and dump differ (diff findings)"; }
# The fixed finding (second line; the cursor is on the first) is green: SGR 32 or 92.
t send-keys j
settle pane-colour.txt -e green_fixed pane-colour.txt || fail "the fixed finding is not green"
# Enter on the removed kernel: its detail comes from before.db (after.db renamed it).
t send-keys 1 G k Enter
wait_for "Kernel synthetic::stream_kernel_1<"
t send-keys Escape q
wait_done "q did not quit (diff)"
# NVTX: v, then Enter on 'eval' keeps the one kernel that ran there.
sock=tmux2.sock
t -f /dev/null new-session -d -x 80 -y 24 \
  "cd $tmp && env LC_ALL=C.UTF-8 TERM=xterm-256color $bin tui --raw nvtx.db; touch done"
wait_for "Summary"
t send-keys v
wait_for "NVTX ranges (8)"
t send-keys j j j Enter
wait_for "Kernels in NVTX /^eval( > |\$)/ (1)"
t capture-pane -p | grep -q 'synthetic::strided_ke' || fail "the eval filter does not show kernel 8"
t send-keys q
wait_done "q did not quit (nvtx)"
echo "t309: ok"
