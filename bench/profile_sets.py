#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/profile_sets.py DIR [--by-set]: profiles of each report in DIR
(*-*-*.db) by metric set: profiles, passes, profiling time
(profile.overhead_ns) and profiles with a NULL metric value (a value the
range profiler did not return). Without --by-set, the sets are "core" and
"extras". Used by bench/profile_ab.sh."""
import glob
import os
import sqlite3
import sys


def main():
    d = sys.argv[1]
    by_set = "--by-set" in sys.argv[2:]
    key = "p.metric_set" if by_set else "CASE WHEN p.metric_set = 'core' THEN 'core' ELSE 'extras' END"
    q = ("SELECT %s, count(*), max(p.passes), sum(p.overhead_ns) / 1e9, avg(p.overhead_ns) / 1e6, "
         "sum(EXISTS (SELECT 1 FROM metric m WHERE m.launch_id = p.launch_id AND m.value IS NULL)) "
         "FROM profile p GROUP BY 1 ORDER BY 1" % key)
    print("| report | metric set | profiles | passes | profiling s | mean ms | profiles with a NULL value |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(d, "*-*-*.db"))):
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
            rows = db.execute(q).fetchall()
            db.close()
        except sqlite3.Error as e:  # a run ended by its time limit leaves a report being written
            print("| %s | unreadable: %s | | | | | |" % (os.path.basename(path), e))
            continue
        for row in rows:
            print("| %s | %s | %d | %d | %.2f | %.1f | %d |" % ((os.path.basename(path),) + tuple(row)))


if __name__ == "__main__":
    main()
