# Shared by tests/e2e/t40*.sh (cli engineer): set -eu, a temp dir, the
# binaries, and tiny assertion helpers. Sourced, never run.
set -eu
: "${GPUHIER:=${GPUHIER_BINARY_DIR:?run through ctest}/gpuhier}"
: "${GH_CLI_CHILD:=${GPUHIER_BINARY_DIR}/tests/gh_cli_child}"
G=$GPUHIER
C=$GH_CLI_CHILD
# The real collector when this build has it (so every test also checks that
# it loads silently into non-CUDA programs), else a do-nothing stand-in.
if [ -z "${GPUHIER_COLLECTOR:-}" ] &&
   [ ! -e "$(dirname "$G")/libgpuhier-collector.so" ] &&
   [ ! -e "$(dirname "$G")/collector/libgpuhier-collector.so" ]; then
  export GPUHIER_COLLECTOR="${GH_CLI_STUB_COLLECTOR:?}"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/gh-t4-XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
# fail writes to fd 3 (the test's stderr) so a "2> file" on the command does not hide it.
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }
# expect_rc WANT CMD...: run CMD, its exit status must be WANT.
expect_rc() {
  want=$1; shift
  set +e; "$@"; rc=$?; set -e
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want"
}
# contains FILE TEXT / lacks FILE TEXT
contains() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 lacks '$2'"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 has '$2'"; }; }
