#!/bin/sh
# Module boundaries (STYLE.md §2): a module may include only what its row
# of the table allows. A forbidden include fails this test with file:line.
set -u
src=${GPUHIER_SOURCE_DIR:-$(dirname "$0")/../..}
fail=0
forbid() { # forbid <dir> <pattern> <why>
  [ -d "$src/$1" ] || return 0
  hits=$(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($2)" -r "$src/$1" --include='*.c' --include='*.h' 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "boundary: $1 must not include $3:"; echo "$hits"; fail=1
  fi
}
forbid schema    'cupti|cuda|curses|ncurses|analyzer/|export/|tui/|collector/|cli/' 'anything but sqlite3'
forbid collector 'curses|ncurses|analyzer/|export/|tui/|cli/'                        'ncurses, analyzer, export, tui or cli'
forbid analyzer  'cupti|cuda\.h|cuda_runtime|curses|ncurses|tui/|collector/|cli/'    'CUPTI, CUDA, ncurses, tui, collector or cli'
forbid export    'cupti|cuda\.h|cuda_runtime|curses|ncurses|tui/|collector/|cli/|analyzer/' 'CUPTI, CUDA, ncurses, tui, collector, analyzer or cli'
forbid tui       'cupti|cuda\.h|cuda_runtime|analyzer/|collector/|cli/'              'CUPTI, CUDA, analyzer, collector or cli'
forbid cli       'cupti|collector/'                                                  'CUPTI headers or the collector'
forbid man       'cupti|cuda|curses|sqlite|schema/|collector/|analyzer/|export/|tui/|cli/' 'anything: md2man is a build tool'
[ $fail = 0 ] && echo "boundary: includes ok"
exit $fail
