#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/extras_ab.py DIR: the table of bench/extras_ab.sh: per report,
profiles, passes and profiling time by metric set (profile.overhead_ns)."""
import glob
import os
import sqlite3
import sys


def main():
    d = sys.argv[1]
    print("| report | metric set | profiles | passes | profiling s | mean ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(d, "*-*-*.db"))):
        q = ("SELECT CASE WHEN metric_set = 'core' THEN 'core' ELSE 'extras' END, count(*), "
             "max(passes), sum(overhead_ns) / 1e9, avg(overhead_ns) / 1e6 FROM profile GROUP BY 1")
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
            rows = db.execute(q).fetchall()
            db.close()
        except sqlite3.Error as e:  # a run ended by its time limit leaves a report being written
            print("| %s | unreadable: %s | | | | |" % (os.path.basename(path), e))
            continue
        for row in rows:
            print("| %s | %s | %d | %d | %.2f | %.1f |" % ((os.path.basename(path),) + row))


if __name__ == "__main__":
    main()
