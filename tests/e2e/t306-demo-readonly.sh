#!/bin/sh
# Showing the demo never changes a shipped file: the quickstart's demo
# branch (no GPU), `gpuhier demo` in the TUI and as text, every testkernel
# demo, and `gpuhier demo` on a read-only copy of the demo directory all
# leave demo/*.db byte for byte as they were, with no -wal, -shm or
# -journal file beside them; with git, `git status` of demo/ does not change.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}
G=$bin/gpuhier
[ -f "$src/demo/demo.db" ] || { echo "skipped: demo/demo.db is not recorded yet"; exit 77; }
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp"
export LC_ALL=C.UTF-8
fail() { echo "t306: $*"; exit 1; }
sums() { (cd "$1" && ls -a | LC_ALL=C sort && cksum *.db); }
sums "$src/demo" > before.txt
has_git=0
if command -v git > /dev/null 2>&1 && git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  has_git=1
  git -C "$src" status --porcelain -- demo > status-before.txt
fi
for f in "$src"/demo/*.db; do
  [ "$(sqlite3 "$f" 'PRAGMA journal_mode' 2> /dev/null || echo delete)" != wal ] ||
    fail "$f is in WAL mode: a reader would need to write its -shm beside it"
done
# The quickstart's branch without a GPU (doctor fails here; on a GPU machine the
# quickstart would profile instead, so only its demo commands run there).
if ! GPUHIER_CUDA_PATH=/nonexistent "$G" doctor > /dev/null 2>&1 && ! nvidia-smi -L > /dev/null 2>&1; then
  GPUHIER_NO_BUILD=1 BUILD=$bin sh "$src/scripts/quickstart" > qs.txt 2>&1 < /dev/null ||
    { cat qs.txt; fail "scripts/quickstart failed"; }
  grep -q "the demo report recorded on an H200" qs.txt || { cat qs.txt; fail "quickstart did not show the demo"; }
fi
GPUHIER_DATA_DIR=$src "$G" demo --report > /dev/null || fail "demo --report"
printf '2<Enter>\n:dump k.txt\n3<Enter>\n<Enter>\nq\n' > keys
GPUHIER_DATA_DIR=$src GPUHIER_TUI_NO_DISPLAY=1 GPUHIER_TUI_SCRIPT=keys "$G" demo > /dev/null || fail "demo (tui)"
for n in $(GPUHIER_DATA_DIR=$src "$G" demo --list | grep -v '^demo$'); do
  GPUHIER_DATA_DIR=$src "$G" demo --name "${n#tk-}" --report --view findings > /dev/null || fail "demo --name $n"
done
sums "$src/demo" > after.txt
diff before.txt after.txt || fail "showing the demo changed demo/"
# git status of demo/ is what it was (clean in a checkout nobody is editing).
if [ $has_git = 1 ]; then
  git -C "$src" status --porcelain -- demo > status-after.txt
  diff status-before.txt status-after.txt || fail "git status of demo/ changed"
fi
# A demo installed where the user cannot write opens all the same.
mkdir ro && cp -r "$src/demo" ro/demo && chmod -R a-w ro
GPUHIER_RULES_DIR=$src/rules GPUHIER_DATA_DIR=$tmp/ro "$G" demo --report --view kernels > /dev/null || fail "demo from a read-only directory"
echo "t306: ok"
