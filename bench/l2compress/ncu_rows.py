#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/l2compress/ncu_rows.py CSV: one line per metric row of `ncu --csv`
(--metrics, the raw page): launch id, kernel, metric, value."""
import csv
import sys

rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 5]
head = rows[0] if rows else []
for r in rows[1:]:
    d = dict(zip(head, r))
    if d.get("Metric Name"):
        print("%s %s %s = %s" % (d.get("ID"), d.get("Kernel Name", "").split("(")[0], d["Metric Name"],
                                 d.get("Metric Value")))
