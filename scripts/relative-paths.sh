#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/relative-paths.sh REPORT PREFIX...: rewrite the recording
# machine's paths in a report that ships (the demo): in every text column
# of every table, PREFIX/x becomes x and PREFIX alone becomes '.', the
# longest prefix first. scripts/record-demo.sh runs it with the source
# tree, the build directory and its temporary directories, so a shipped
# report names files relative to the source tree (bench/pytorch_train.py,
# testkernels/bank.cu) and no directory of the machine it was recorded on.
# The report is vacuumed afterwards; nothing but those strings changes.
set -eu
[ $# -ge 2 ] || { echo "usage: scripts/relative-paths.sh REPORT PREFIX..." >&2; exit 2; }
report=$1; shift
python3 - "$report" "$@" <<'PY'
import sqlite3, sys
path, prefixes = sys.argv[1], sorted({p.rstrip("/") for p in sys.argv[2:] if p.rstrip("/")}, key=len, reverse=True)
c = sqlite3.connect(path)
tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
changed = 0
for t in tables:
    cols = [r[1] for r in c.execute('SELECT * FROM pragma_table_info(?)', (t,))]
    for col in cols:
        for p in prefixes:
            # PREFIX/ first, then PREFIX itself (a working directory).
            cur = c.execute('UPDATE "%s" SET "%s" = replace("%s", ?, \'\') WHERE typeof("%s") = \'text\' AND instr("%s", ?) > 0'
                            % (t, col, col, col, col), (p + "/", p + "/"))
            changed += cur.rowcount
            cur = c.execute('UPDATE "%s" SET "%s" = replace("%s", ?, \'.\') WHERE typeof("%s") = \'text\' AND instr("%s", ?) > 0'
                            % (t, col, col, col, col), (p, p))
            changed += cur.rowcount
c.commit()
c.execute("VACUUM")
c.close()
print("relative-paths: %s: %d values rewritten" % (path, changed))
PY
