#!/bin/sh
# gpuhier help CMD opens the command's manual page as git help does:
# `man -l PAGE` when man is installed, else the page's Markdown on stdout.
# Unknown commands are usage errors.
. "$(dirname "$0")/t4-cli-lib.sh"
mkdir bin
# A stand-in man that records how it was called.
cat > bin/man <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$MAN_ARGS"
SH
chmod +x bin/man
MAN_ARGS=$T/args PATH=$T/bin:$PATH "$G" help run > out.txt
[ "$(sed -n 1p args)" = "-l" ] || { cat args >&3; fail "help run did not call man -l"; }
page=$(sed -n 2p args)
case $page in */gpuhier-run.1) ;; *) fail "help run opened '$page'";; esac
[ -f "$page" ] || fail "help run opened a missing page '$page'"
# No man on PATH: the page as text.
mkdir empty
PATH=$T/empty "$G" help export > out.txt
contains out.txt "# gpuhier export"
contains out.txt "--format"
# A command name, help's own page, and errors.
PATH=$T/empty "$G" help > out.txt
contains out.txt "usage: gpuhier <command>"
PATH=$T/empty "$G" help gpuhier > out.txt
contains out.txt "# gpuhier"
expect_rc 2 "$G" help frobnicate 2> err.txt
contains err.txt "'frobnicate' is not a gpuhier command"
expect_rc 2 "$G" help run tui 2> err.txt
# --help of the dispatcher points at help, not at a source-tree file.
"$G" --help > out.txt
contains out.txt "gpuhier help <command>"
lacks out.txt "docs/cmd-"
# run --help: every option's text starts in one column, however long its left part
# (--counters hardware|pattern once ran into its text)
"$G" run --help > out.txt
starts=$(grep -E '^  +-' out.txt | awk '{ match($0, /^ +(-[a-z], )?--[a-z-]+( [^ ]+)? +/); print RLENGTH }' | sort -u | wc -l)
[ "$starts" = 1 ] || { grep -E '^  +-' out.txt >&3; fail "run --help: option texts start in $starts columns"; }
echo "t407: ok"
