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
# The default since issue 17 (both engines): each configuration's first launch
# is instrumented (exact per-instruction counts, inst_launch), and its later
# launches take the range profiler's one-pass groups, group 1 first, nothing
# replayed; a configuration launched once has pattern counters only, and
# v_config_groups (hardware groups) does not list it (docs/collector.md
# "Counter engines").
[ "$(q a.db "SELECT count(*) FROM profile WHERE passes <> 1 OR metric_set NOT LIKE 'group%/%'")" = 0 ] ||
  fail "default run: a profile not a one-pass group: $(q a.db "SELECT group_concat(DISTINCT passes || ' ' || metric_set) FROM profile")"
[ "$(q a.db "SELECT count(*) FROM config c WHERE NOT EXISTS (SELECT 1 FROM inst_launch i JOIN launch l ON l.id = i.launch_id WHERE i.config_id = c.id AND l.config_launch_index = 0)")" = 0 ] ||
  fail "default run: a configuration's first launch was not instrumented: $(q a.db "SELECT group_concat(l.config_id || ':' || l.profile_reason) FROM launch l WHERE l.config_launch_index = 0")"
[ "$(q a.db "SELECT count(*) FROM inst_launch i WHERE NOT EXISTS (SELECT 1 FROM inst_count c WHERE c.launch_id = i.launch_id) AND NOT EXISTS (SELECT 1 FROM inst_run r WHERE r.launch_id = i.launch_id)")" = 0 ] ||
  fail "default run: an instrumented launch without counts"
[ "$(q a.db "SELECT count(*) FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.profile_reason = 'first_of_config' AND p.metric_set NOT LIKE 'group1/%'")" = 0 ] ||
  fail "default run: a configuration's first range profile was not group 1"
once=$(q a.db "SELECT count(*) FROM config c WHERE c.launches = 1 AND EXISTS (SELECT 1 FROM inst_launch i WHERE i.config_id = c.id) AND NOT EXISTS (SELECT 1 FROM launch l JOIN profile p ON p.launch_id = l.id WHERE l.config_id = c.id)")
echo "v_config_groups: $(q a.db "SELECT group_concat(k.short_name || ' ' || c.launches || ' launches, ' || g.groups_collected || '/' || g.groups_total || ' groups, missing ' || ifnull(g.groups_missing, 'none'), '; ') FROM v_config_groups g JOIN config c ON c.id = g.config_id JOIN kernel k ON k.id = g.kernel_id")"
if [ "${prog##*/}" = tk_transpose ]; then
  # tk_fill runs once in tk_transpose: a launched-once configuration must be there,
  # instrumented, with no range profile.
  [ "$once" -ge 1 ] || fail "tk_transpose: no configuration launched once (tk_fill)"
  # The README's first session: the naive transpose's stores take 32 sectors per STG
  # against an ideal of 4 (the instrumentation engine's exact counts on its first launch).
  "$G" analyze a.db > an.txt 2>&1 || fail "analyze a.db: $(tail -3 an.txt)"
  contains an.txt "uncoalesced-global-store"
fi
echo "ok t440 ($(($(date +%s) - start)) s)"
