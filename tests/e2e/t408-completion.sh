#!/bin/sh
# Bash completion (cli/gpuhier.bash): commands, options read from the
# binary's --help, value lists, report views, rule ids, demo names, and
# the program after `gpuhier run`'s options. Skipped without bash.
. "$(dirname "$0")/t4-cli-lib.sh"
command -v bash > /dev/null 2>&1 || { echo "skipped: no bash"; exit 77; }
S=${GPUHIER_SOURCE_DIR:?}
touch a.db b.db notes.txt
mkdir sub
# complete WORDS...: the candidates for the last word, one per line, sorted.
cat > complete.bash <<SH
. "$S/cli/gpuhier.bash"
COMP_WORDS=("\$@")
COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1))
_gpuhier
printf '%s\n' "\${COMPREPLY[@]}" | sort
SH
complete() { GPUHIER_DATA_DIR=$S bash complete.bash "$@"; }
has() { grep -qx -- "$2" "$1" || { echo "--- candidates:" >&3; cat "$1" >&3; fail "no '$2'"; }; }
hasnt() { ! grep -qx -- "$2" "$1" || { cat "$1" >&3; fail "unexpected '$2'"; }; }

complete "$G" "" > c.txt
for c in run analyze tui report export check diff rules doctor demo help; do has c.txt "$c"; done
complete "$G" ex > c.txt
has c.txt export
[ "$(wc -l < c.txt)" -eq 1 ] || fail "'ex' completes to more than export"
complete "$G" help r > c.txt
has c.txt run; has c.txt report; has c.txt rules
complete "$G" export --f > c.txt
has c.txt --format
complete "$G" export r.db --format "" > c.txt
for f in md json csv sarif junit html; do has c.txt $f; done
complete "$G" check r.db --fail-on "" > c.txt
for s in note warning error; do has c.txt $s; done
complete "$G" report a.db --view "" > c.txt
for v in summary kernels configs kernel profiles source findings finding copies nvtx; do
  has c.txt $v
  # Every view offered is one report --help names.
  "$G" report --help | grep -qw -- "$v" || fail "view '$v' is not in report --help"
done
complete "$G" analyze "" > c.txt
has c.txt a.db; has c.txt b.db; has c.txt sub/; hasnt c.txt notes.txt
complete "$G" rules explain "" > c.txt
has c.txt floor-distance
complete "$G" demo --name "" > c.txt
has c.txt transpose
complete "$G" run --mode "" > c.txt
has c.txt trace; has c.txt profile
complete "$G" run --replay "" > c.txt
has c.txt none; has c.txt kernel
complete "$G" run --counters "" > c.txt
has c.txt both; has c.txt hardware; has c.txt pattern
[ "$(wc -l < c.txt)" -eq 3 ] || fail "--counters offers more than both, hardware and pattern"
complete "$G" run --co > c.txt
has c.txt --counters
# The word after --counters is its value, not the program.
complete "$G" run --counters pattern ./app --sa > c.txt
hasnt c.txt --sample
complete "$G" run -o x.db --sa > c.txt
has c.txt --sample
# After the options, the program: a command name, then the program's own words.
complete "$G" run -o x.db --sample all ech > c.txt
has c.txt echo
complete "$G" run --mode trace ./app --sa > c.txt
hasnt c.txt --sample
echo "t408: ok"
