# Sourced by the t45x-t47x export/check/diff scripts: tools and helpers.
# GPUHIER (the binary) and GH_TEST_EXPORT (tests/unit/test_export, which
# writes the SYNTHETIC reports) come from tests/export.cmake.
set -u
G=${GPUHIER:?set by ctest}
MK=${GH_TEST_EXPORT:?set by ctest}
SRC=${GPUHIER_SOURCE_DIR:?set by ctest}
tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# expect_rc <want> <cmd...>: run, compare the exit status.
expect_rc() {
    want=$1; shift
    "$@" >rc.out 2>rc.err; got=$?
    [ "$got" = "$want" ] || { bad "'$*' exited $got, want $want"; sed 's/^/  | /' rc.err | head -5; }
}
# Bytes that are neither printable ASCII, UTF-8 (>= 0x80) nor \n (and \r when $2 = crlf).
raw_controls() {
    keep='\n\040-\176\200-\377'
    [ "${2:-}" = crlf ] && keep='\r\n\040-\176\200-\377'
    LC_ALL=C tr -d "$keep" <"$1" | wc -c
}
