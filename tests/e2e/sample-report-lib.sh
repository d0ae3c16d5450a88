# SPDX-License-Identifier: MIT
# Sourced by the analyzer's e2e scripts that edit test_analyzer's SYNTHETIC
# sample report (t210, t211, t212): paths, a temp dir $t removed at exit,
# and checks that print ok/FAIL lines and set $fail.
#   mk FILE              write the sample report to FILE
#   has FILE PATTERN WHAT / lacks FILE PATTERN WHAT   grep FILE (prints it on failure)
set -u
bin=${GPUHIER_BINARY_DIR:?}/gpuhier
helper=${GPUHIER_BINARY_DIR}/tests/test_analyzer
src=${GPUHIER_SOURCE_DIR:?}
t=$(mktemp -d /tmp/gh-t21x-XXXXXX)
trap 'rm -rf "$t"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
has() { grep -q -- "$2" "$1" && ok "$3" || { bad "$3"; cat "$1"; }; }
lacks() { grep -q -- "$2" "$1" && { bad "$3"; cat "$1"; } || ok "$3"; }
mk() { GPUHIER_SOURCE_DIR=$src "$helper" mkreport "$1" || { echo "cannot build report"; exit 1; }; }
