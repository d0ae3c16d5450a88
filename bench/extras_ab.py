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
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        q = ("SELECT CASE WHEN metric_set = 'core' THEN 'core' ELSE 'extras' END, count(*), "
             "max(passes), sum(overhead_ns) / 1e9, avg(overhead_ns) / 1e6 FROM profile GROUP BY 1")
        for row in db.execute(q):
            print("| %s | %s | %d | %d | %.2f | %.1f |" % ((os.path.basename(path),) + row))
        db.close()


if __name__ == "__main__":
    main()
