#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/inst_hang.py on SYNTHETIC runs (made-up statuses and
times, no GPU): the outcome of a status, the per-mode counts and medians,
the stack lines kept from a run's output, the table and the --reuse path."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
from checks import check, check_reuse, done  # noqa: E402
import inst_hang as ih  # noqa: E402

check(ih.outcome(0) == "ended" and ih.outcome(124) == "hung" and ih.outcome(139) == "failed",
      "outcome of 0, 124, 139")

runs = [
    {"mode": "inst", "round": 0, "job": 0, "rc": 0, "wall_s": 13.0},
    {"mode": "inst", "round": 0, "job": 1, "rc": 124, "wall_s": 45.0},
    {"mode": "inst", "round": 0, "job": 2, "rc": 124, "wall_s": 45.1},
    {"mode": "inst", "round": 1, "job": 0, "rc": 0, "wall_s": 15.0},
    {"mode": "kern-only", "round": 0, "job": 0, "rc": 0, "wall_s": 12.0},
    {"mode": "kern-only", "round": 0, "job": 1, "rc": 1, "wall_s": 2.0},
    {"mode": "kern-only", "round": 1, "job": 0, "skipped": "budget"},
]
rows = {r["mode"]: r for r in ih.summarise(runs)}
check(list(rows) == ["inst", "kern-only"], "modes in MODES order, only those run: %s" % list(rows))
i = rows["inst"]
check((i["runs"], i["ended"], i["hung"], i["failed"], i["skipped"]) == (4, 2, 2, 0, 0), "inst counts: %s" % i)
check(i["median_s"] == 14.0, "median of the ended runs only (13, 15): %s" % i["median_s"])
k = rows["kern-only"]
check((k["runs"], k["ended"], k["hung"], k["failed"], k["skipped"]) == (2, 1, 0, 1, 1), "kern-only counts: %s" % k)
none = ih.summarise([{"mode": "phased", "round": 0, "job": 0, "rc": 124, "wall_s": 45.0}])[0]
check(none["median_s"] is None and none["hung"] == 1, "a mode whose every run hung has no median")

out = ("program line\n==gpuhier== every thread's stack (35 s after the collector started):\n"
       "==gpuhier== stack of thread 7:\n/lib/libc.so.6(pthread_mutex_lock+0x1)[0x1]\nprogram noise\n"
       "==gpuhier==   summary line\n[timed out]")
st = ih.stack_lines(out)
check(st == ["==gpuhier== every thread's stack (35 s after the collector started):",
             "==gpuhier== stack of thread 7:", "/lib/libc.so.6(pthread_mutex_lock+0x1)[0x1]"],
      "stack lines kept, the rest left: %s" % st)
check(ih.stack_lines("no stacks here\n") == [], "no stacks, nothing kept")

text = ih.markdown(ih.summarise(runs), ["- synthetic"])
check("| inst | 4 | 2 | **2** | 0 | 0 | 14.0 |" in text, "table row of inst:\n" + text)
check("| kern-only | 2 | 1 | 0 | 1 | 1 | 12.0 |" in text, "table row of kern-only:\n" + text)

check_reuse(ih.main, "inst_hang.py", runs, "inst-hang.md")

sys.exit(done("unit.inst_hang"))
