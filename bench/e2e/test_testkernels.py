#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CPU test of bench/e2e/testkernels.py's pieces that need no GPU (ctest
unit.e2e_testkernels): the extra metric names it reads from the catalogue,
the gpuhier run options of each mode, and the groups-missing reader on a
SYNTHETIC report (a few rows written here, not a measurement)."""
import os
import re
import sqlite3
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)
import testkernels as tk  # noqa: E402

failed = 0


def check(cond, what):
    global failed
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed = 1


names = tk.extra_metrics(root)
# The H200 table of 2026-11-29 23:44 UTC was taken with these names (its page says which):
# the script must still name the same ones, read from the catalogue now.
page = open(os.path.join(root, "docs", "e2e-testkernels-latest.md")).read()
m = re.search(r"Extra metrics named with --metrics: `([^`]*)`", page)
recorded = m.group(1).split(",") if m else []
check(len(names) == 14, "14 extra names (tma, requests, sass_bytes groups + 2 evict-first): %d" % len(names))
check(names == recorded, "the names of the recorded table, in its order")
check(len(set(names)) == len(names), "no name twice")

k = tk.run_options("kernel", ",".join(names))
check(k[:2] == ["--replay", "kernel"] and k[2] == "--metrics" and k[3] == ",".join(names),
      "kernel mode: --replay kernel --metrics NAMES: %s" % " ".join(k[:3]))
check(tk.run_options("kernel", "") == ["--replay", "kernel"], "kernel mode without names")
n = tk.run_options("none", ",".join(names))
check(n == ["--replay", "none"], "default mode: --replay none and no extra name (every added name lands in every group)")

with tempfile.TemporaryDirectory() as t:
    rep = os.path.join(t, "synthetic.db")
    db = sqlite3.connect(rep)
    # SYNTHETIC: the two tables groups_missing() reads, as a groups report has them.
    db.executescript("""
        CREATE TABLE kernel (id INTEGER PRIMARY KEY, short_name TEXT, demangled_name TEXT, mangled_name TEXT);
        CREATE TABLE v_config_groups (config_id INTEGER, kernel_id INTEGER, groups_total INTEGER,
                                      groups_collected INTEGER, groups_missing TEXT);
        INSERT INTO kernel VALUES (1, 'transpose', 'transpose(float*, float const*, int)', '_Z9transposePfPKfi'),
                                  (2, 'tk_fill', 'tk_fill(float*, unsigned long)', '_Z7tk_fillPfm');
        INSERT INTO v_config_groups VALUES (10, 1, 6, 6, NULL), (11, 2, 6, 1, '2,3,4,5,6');
    """)
    db.commit()
    db.close()
    check(tk.groups_missing(rep, [re.compile(r"^transpose\b")]) == [], "a configuration with every group: none missing")
    check(tk.groups_missing(rep, [re.compile("tk_fill")]) == ["2,3,4,5,6"], "a configuration launched once: groups 2-6 missing")
    open(os.path.join(t, "old.db"), "w").close()
    check(tk.groups_missing(os.path.join(t, "old.db"), [re.compile("x")]) is None, "a report without the view: unknown")

print("test_testkernels: %s" % ("FAIL" if failed else "ok"))
sys.exit(failed)
