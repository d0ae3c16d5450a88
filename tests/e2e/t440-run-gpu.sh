#!/bin/sh
# On a GPU: gpuhier run of a real CUDA program writes a report per CUDA
# process (a CUDA program run twice from one shell: two reports), the
# summary names them, and the program's status is kept.
. "$(dirname "$0")/t4-cli-lib.sh"
if ! nvidia-smi -L > /dev/null 2>&1; then echo "skipped: no GPU"; exit 77; fi
case ${GPUHIER_COLLECTOR:-} in *gh_cli_stub*) fail "the real collector is not built";; esac
# The naive transpose testkernel, else the collector's 8-thread test program.
prog=${GPUHIER_BINARY_DIR:?}/testkernels/tk_transpose; arg=n=4096
if [ ! -x "$prog" ]; then prog=$GPUHIER_BINARY_DIR/gpu/multistream; arg=50; fi
if [ ! -x "$prog" ]; then echo "skipped: no CUDA test program built (testkernels, tests/gpu)"; exit 77; fi

q() { # q DB SQL: one value, with the sqlite3 shell or python3
  if command -v sqlite3 > /dev/null 2>&1; then sqlite3 "$1" "$2"
  else python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; fi
}

start=$(date +%s)
expect_rc 0 "$G" run --no-analyze -o "$T/r-%i.db" sh -c "'$prog' $arg && '$prog' $arg" > out.txt 2> err.txt
cat err.txt
[ -s r-1.db ] && [ -s r-2.db ] || fail "expected r-1.db and r-2.db, got: $(ls)"
contains err.txt ": report r-1.db"
contains err.txt ": report r-2.db"
lacks err.txt "never initialized CUDA"
for r in r-1.db r-2.db; do
  n=$(q "$r" "SELECT count(*) FROM launch")
  [ "$n" -ge 1 ] || fail "$r holds no launch"
  echo "$r: $n launches"
done
# The shell that started them initialized no CUDA and wrote nothing.
[ "$(ls r-*.db | wc -l)" -eq 2 ] || fail "more reports than CUDA processes: $(ls)"
# With analysis (the default): findings or a clear line about them.
expect_rc 0 "$G" run -o "$T/a.db" "$prog" $arg > out.txt 2> err.txt
cat err.txt
contains err.txt ": report a.db"
echo "ok t440 ($(($(date +%s) - start)) s)"
