#!/bin/sh
# Install the Debian packages gpuhier needs to build and test, when they
# are missing and we can (root, or sudo without a password). Prints what
# it does; exits 0 when everything is present afterwards.
set -u
# clang and libclang-rt-dev: the libFuzzer target (tests/fuzz/run.sh).
# chromium: the HTML export opened in a real headless browser (tests/e2e/t454-export-html.sh).
pkgs="cmake make gcc g++ pkg-config libsqlite3-dev sqlite3 libncurses-dev libjansson-dev libxml2-dev libxml2-utils libiberty-dev tmux clang-format libjemalloc2 cmark-gfm clang libclang-rt-dev chromium"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Node.js and npm (for the export validators) may come from elsewhere than
# Debian (NodeSource ships npm inside its nodejs package, which conflicts
# with Debian's npm): ask for Debian's only when the commands are absent.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0
echo "gpuhier: installing missing packages:$missing" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
  echo "gpuhier: cannot install packages (not root, no sudo); install them yourself:$missing" >&2; exit 1; fi
$SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
