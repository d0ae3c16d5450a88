#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/delay_along.py on two SYNTHETIC reports (schema/schema.sql's
tables, made-up launches, no GPU): a trace run of 100 launches 1 ms apart and a
default run of the same launches held up 0.5 s before its first kernel, by an
instrumented launch of 0.2 s at launch 10 and a range profile of 0.3 s at launch
60, and 0.1 s longer at the exit. The delays, the growths and what the engines
spent between them must come out as built; an unreadable report is one message
and status 1."""
import io
import os
import sqlite3
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
from checks import check, done  # noqa: E402
import delay_along  # noqa: E402

tmp = tempfile.mkdtemp(prefix="delay-along-test.")
schema = open(os.path.join(here, "..", "schema", "schema.sql")).read()
S = 1000000000


def report(name, held):
    """A report of 100 launches (correlation ids 1..100, 1 ms apart, 0.1 ms each); `held` maps a
    correlation id to (seconds the default lost just before it, 'instrumented' or a group or None)."""
    p = os.path.join(tmp, name)
    c = sqlite3.connect(p)
    c.executescript(schema)
    c.execute("INSERT INTO kernel(id, mangled_name, short_name) VALUES (1, '_Z1kv', 'k')")
    lost = 0.0
    for corr in range(1, 101):
        extra, what = held.get(corr, (0.0, None))
        lost += extra
        start = int((1.0 + corr * 0.001 + lost) * S)
        c.execute("INSERT INTO launch(id, kernel_id, correlation_id, start_ns, end_ns) VALUES (?, 1, ?, ?, ?)",
                  (corr, corr, start, start + 100000))
        if what == "instrumented":
            c.execute("INSERT INTO inst_launch(launch_id, kernel_id, overhead_ns) VALUES (?, 1, ?)",
                      (corr, int(extra * S)))
        elif what:
            c.execute("INSERT INTO profile(launch_id, passes, metric_set, overhead_ns) VALUES (?, 1, ?, ?)",
                      (corr, what, int(extra * S)))
    last_end = start + 100000
    tail = held.get("exit", (0.2, None))[0]
    c.execute("INSERT INTO run(id, start_ns, end_ns) VALUES (1, 0, ?)", (last_end + int(tail * S),))
    c.commit()
    c.close()
    return p


trace = report("trace.db", {})
default = report("default.db", {1: (0.5, None), 10: (0.2, "instrumented"), 60: (0.3, "group2/8"),
                                "exit": (0.3, None)})
r = delay_along.along(trace, default, jumps=3)
check(r["matched"] == 100, "100 launches matched: %s" % r["matched"])
lv = {label: (c, d) for label, c, d in r["levels"]}
check(abs(lv["first kernel"][1] - 0.5) < 1e-6, "the delay at the first kernel is the set-up's 0.5 s: %s" % lv)
check(abs(lv["last kernel"][1] - 1.0) < 1e-6, "1.0 s at the last: %s" % lv)
check(abs(lv["50 % of the launches"][1] - 0.7) < 1e-6, "0.7 s halfway (before the profile at 60): %s" % lv)
top = r["jumps"][0]
check(top[:2] == (59, 60) and abs(top[2] - 0.3) < 1e-6 and top[5:] == (1, 0.3),
      "the largest growth is the profile at 60, with its 0.3 s: %s" % (top,))
second = r["jumps"][1]
check(second[:2] == (9, 10) and abs(second[2] - 0.2) < 1e-6 and second[3:5] == (1, 0.2),
      "then the instrumented launch at 10: %s" % (second,))
check(abs(r["tail"][0] - 0.2) < 1e-6 and abs(r["tail"][1] - 0.3) < 1e-6, "the exit tails: %s" % (r["tail"],))
check(r["before_first"] == (0, 0.0, 0, 0.0), "no engine work before the first kernel: %s" % (r["before_first"],))
md = delay_along.table(r)
check("| first kernel | 1 | 0.500 s |" in md and "| 59 to 60 | 0.300 s | 0 (0.000 s) | 1 (0.300 s) |" in md,
      "the table:\n%s" % md)

# an unreadable report: one message, status 1; wrong arguments: usage, status 2
bad = os.path.join(tmp, "bad.db")
open(bad, "w").write("not a database")
err = io.StringIO()
with redirect_stdout(io.StringIO()), redirect_stderr(err):
    rc = delay_along.main([trace, bad])
check(rc == 1 and err.getvalue().startswith("delay_along: cannot read the reports"), "bad report: %d %s" % (
    rc, err.getvalue()))
with redirect_stderr(io.StringIO()):
    check(delay_along.main([trace]) == 2, "one argument: usage")
sys.exit(done("test_delay_along"))
