#!/bin/sh
# The manual pages (man/md2man.c from docs/): one per command of
# `gpuhier --help` and gpuhier.1, each a valid page whose NAME line is the
# command's summary and which names every long option of `CMD --help`, so
# a new option without its docs line fails here.
. "$(dirname "$0")/t4-cli-lib.sh"
M=${GPUHIER_BINARY_DIR:?}/man
S=${GPUHIER_SOURCE_DIR:?}
export LC_ALL=C.UTF-8
"$G" --help > help.txt
cmds=$(sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' help.txt)
[ -n "$cmds" ] || fail "no commands in gpuhier --help"
[ -f "$M/gpuhier.1" ] || fail "no gpuhier.1"
render() {
  if command -v groff > /dev/null 2>&1; then
    # -ww: every warning; a page with a bad request or character warns.
    groff -man -Tutf8 -ww -rLL=200n -P-cbou "$1" 2> warn.txt > page.txt
    [ ! -s warn.txt ] || { cat warn.txt >&3; fail "groff warns on $1"; }
  else
    # No formatter: the source still has the words, with roff escapes.
    sed 's/\\-/-/g; s/\\f[BIR]//g' "$1" > page.txt
  fi
}
for c in $cmds; do
  [ -f "$S/docs/cmd-$c.md" ] || fail "no docs/cmd-$c.md for '$c'"
  page=$M/gpuhier-$c.1
  [ -f "$page" ] || fail "no man page for '$c'"
  head -3 "$page" | grep -q "^\.TH \"GPUHIER\\\\-$(echo "$c" | tr a-z A-Z)\" 1 " || fail "$page: bad .TH"
  render "$page"
  summary=$(sed -n "s/^  $c  *//p" help.txt)
  grep -qF -- "gpuhier-$c - $summary" page.txt || { cat page.txt >&3; fail "$c: NAME is not '$summary'"; }
  for o in $("$G" "$c" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -qF -- "$o" page.txt || fail "gpuhier-$c.1 does not document $o"
  done
  # The docs' cross references became page references.
  ! grep -q 'docs/cmd-[a-z]*\.md' page.txt || fail "gpuhier-$c.1 still points at docs/cmd-*.md"
done
render "$M/gpuhier.1"
for c in $cmds; do
  grep -q "gpuhier-$c(1)" page.txt || fail "gpuhier.1 does not list gpuhier-$c(1)"
done
# Escapes: an option in the page is ASCII '-' (copyable), and no stray markup survives.
render "$M/gpuhier-run.1"
grep -q -- '--profile-budget PCT' page.txt || fail "run page: --profile-budget not ASCII"
! grep -q '`\|\*\*\|\\|' page.txt || { grep -n '`\|\*\*\|\\|' page.txt >&3; fail "markup left in the run page"; }
# Non-ASCII text survives: docs/cmd-run.md's "N ≥ 1" is a groff \[u2265] in the page, not "N  1"
grep -qF 'N \[u2265] 1' "$M/gpuhier-run.1" || fail "run page: '≥' lost (md2man dropped a UTF-8 character)"
echo "t406: ok"
