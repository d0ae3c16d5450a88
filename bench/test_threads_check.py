#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/threads_check.py without a GPU, on SYNTHETIC reports
(schema/schema.sql's tables, made-up rows): a whole report passes; one that
lost a launch's reason (the writer race of 2026-12-04), lacks a
configuration's group-1 first profile, holds fewer launches than were made,
instruments a configuration twice or was never closed fails, each saying why; no stage is a usage error (2),
no GPU a skip (77)."""
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
import threads_check  # noqa: E402

tmp = tempfile.mkdtemp(prefix="threads-check-test.")
schema = open(os.path.join(here, "..", "schema", "schema.sql")).read()


def report(name, reasons=("first_of_config", "first_of_config", "sampled_out", "sampled_out"),
           groups=("group1/8", "group1/8"), closed=True):
    """Launches 1-4 of configurations 1, 2, 1, 2 with `reasons`; the first two profiled with `groups`."""
    p = os.path.join(tmp, name)
    c = sqlite3.connect(p)
    c.executescript(schema)
    c.execute("INSERT INTO kernel(id, mangled_name) VALUES (1, '_Z1kv')")
    for cfg in (1, 2):
        c.execute("INSERT INTO config(id, kernel_id) VALUES (?, 1)", (cfg,))
    for i, why in enumerate(reasons):
        c.execute("INSERT INTO launch(id, kernel_id, config_id, correlation_id, profile_reason) "
                  "VALUES (?, 1, ?, ?, ?)", (i + 1, i % 2 + 1, i + 1, why))
    for i, g in enumerate(groups):
        c.execute("INSERT INTO profile(launch_id, passes, metric_set) VALUES (?, 1, ?)", (i + 1, g))
    c.execute("INSERT INTO run(id, start_ns, end_ns) VALUES (1, 0, ?)", (10 if closed else None,))
    c.commit()
    c.close()
    return p


check(threads_check.check(report("whole.db"), 4) == "", "a whole report passes")
got = threads_check.check(report("race.db", reasons=("first_of_config", None, "sampled_out", "sampled_out")), 4)
check(got == "1 launches without a reason", "the race's loss: %r" % got)
got = threads_check.check(report("g2.db", groups=("group1/8", "group2/8")), 4)
check(got == "1 of 2 configurations with a first_of_config group-1 profile", "a group-1 first missing: %r" % got)
check(threads_check.check(report("count.db"), 5) == "4 launches in the report, 5 made", "fewer launches")
t = report("twice.db")
with sqlite3.connect(t) as c:
    c.execute("INSERT INTO inst_launch(launch_id, config_id, kernel_id, reason) VALUES (3, 1, 1, 'first_of_config')")
    c.execute("INSERT INTO inst_launch(launch_id, config_id, kernel_id, reason) VALUES (1, 1, 1, 'first_of_config')")
got = threads_check.check(t, 4)
check(got == "1 configurations instrumented more than once", "a configuration instrumented twice: %r" % got)
check(threads_check.gate(report("nogate.db")) == (0, 0, 0, 0), "no kernel_kind_swaps: zeros")
g = report("gate.db")
with sqlite3.connect(g) as c:
    c.execute("INSERT INTO meta(key, value) VALUES ('kernel_kind_swaps', '12, each with the launch gate closed; "
              "7 launches waited at it, 1 swaps went ahead with launches in flight')")
check(threads_check.gate(g) == (12, 7, 1, 0), "the gate's meta before 2026-12-05 read: %r" % (threads_check.gate(g),))
with sqlite3.connect(g) as c:
    c.execute("UPDATE meta SET value = value || ', 3 launches went ahead with the gate closed' WHERE key = 'kernel_kind_swaps'")
check(threads_check.gate(g) == (12, 7, 1, 3), "and since: %r" % (threads_check.gate(g),))
check(threads_check.check(report("open.db", closed=False), 4) == "the report was not closed", "not closed")
check(threads_check.check(os.path.join(tmp, "none.db"), 4).startswith("the report"), "no report")
with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
    check(threads_check.main([os.path.join(tmp, "nostage")]) == 2, "no stage: usage error")
stage = os.path.join(tmp, "stage")
os.makedirs(os.path.join(stage, "gpu"))
for f in ("libgpuhier-collector.so", os.path.join("gpu", "multistream")):
    open(os.path.join(stage, f), "w").close()
if not os.path.exists("/dev/nvidia0"):
    out = io.StringIO()
    with redirect_stdout(out):
        check(threads_check.main([stage]) == 77 and "skipped: no GPU" in out.getvalue(), "no GPU: skipped")
sys.exit(done("test_threads_check"))
