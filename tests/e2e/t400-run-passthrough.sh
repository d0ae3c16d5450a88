#!/bin/sh
# gpuhier run leaves a non-CUDA program's stdin, stdout, stderr, arguments
# and exit status untouched; its own lines go to stderr with ==gpuhier==,
# -q silences them, and the summary says no process initialized CUDA.
. "$(dirname "$0")/t4-cli-lib.sh"

# stdin -> stdout byte for byte (all 256 byte values), stderr separate.
i=0; : > in.bin
while [ $i -lt 256 ]; do printf "\\$(printf %o $i)" >> in.bin; i=$((i + 1)); done
printf 'line two\n' >> in.bin
expect_rc 0 "$G" run "$C" echo < in.bin > out.bin 2> err.txt
cmp in.bin out.bin || fail "stdout differs from stdin"
contains err.txt "to-stderr"
contains err.txt "==gpuhier== the program never initialized CUDA: no report written"
# Everything on stderr is the program's line or ours, prefixed.
grep -v '^to-stderr$' err.txt | grep -v '^==gpuhier== ' && fail "unprefixed gpuhier output on stderr"
# Nothing of gpuhier's on stdout.
expect_rc 0 "$G" run "$C" exit 0 > out2.txt 2>/dev/null
[ ! -s out2.txt ] || fail "gpuhier wrote to stdout"

# -q: stderr is exactly the program's.
expect_rc 0 "$G" run -q "$C" echo < in.bin > out.bin 2> err.txt
cmp in.bin out.bin || fail "stdout differs under -q"
[ "$(cat err.txt)" = "to-stderr" ] || { cat err.txt >&2; fail "-q left gpuhier lines"; }

# Exit statuses pass through, and gpuhier says when it is not 0.
for code in 0 1 3 255; do
  expect_rc $code "$G" run "$C" exit $code 2> err.txt
  if [ $code -ne 0 ]; then contains err.txt "the program exited with status $code"; fi
done
expect_rc 3 "$G" run -q sh -c 'exit 3'

# Arguments (spaces, empty, option-like, '--') reach the program unchanged.
"$G" run -q -- "$C" env GH_ARG_TEST > /dev/null
"$G" run -q sh -c 'for a in "$@"; do printf "[%s]" "$a"; done' sh "a b" "" "-o" "--" "%p" > args.txt
[ "$(cat args.txt)" = "[a b][][-o][--][%p]" ] || fail "arguments changed: $(cat args.txt)"

# PATH lookup works like a shell's; a program named like an option needs '--'.
expect_rc 0 "$G" run -q true
expect_rc 1 "$G" run -q false

# Options after the program are the program's.
"$G" run "$C" env GH_X -o -q > env.txt 2> err.txt
contains env.txt "GH_X unset"
contains env.txt "-o unset"
contains err.txt "==gpuhier=="
echo "ok t400"
