#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/report_bytes.py on a SYNTHETIC report (schema/schema.sql's
tables, made-up rows, no GPU): the instrumentation tables' pages, indexes
included, go to the instrumented launches, the range profiler's to the
profiles, and a report without either gives no ratio."""
import os
import sqlite3
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
from checks import check, done  # noqa: E402
import report_bytes  # noqa: E402

tmp = tempfile.mkdtemp(prefix="report-bytes-test.")
schema = open(os.path.join(here, "..", "schema", "schema.sql")).read()


def report(name, profiles, metrics_each, inst_launches, insts_each):
    p = os.path.join(tmp, name)
    c = sqlite3.connect(p)
    c.executescript(schema)
    c.execute("INSERT INTO metric_name(id, name) VALUES (1, 'dram__bytes_read.sum')")
    for i in range(profiles):
        c.execute("INSERT INTO profile(launch_id, passes, metric_set) VALUES (?, 1, 'group1/8')", (i + 1,))
        for m in range(metrics_each):
            c.execute("INSERT INTO metric(launch_id, metric_id, value) VALUES (?, ?, ?)", (i + 1, m + 1, 1.5 * m))
    for i in range(inst_launches):
        c.execute("INSERT INTO inst_launch(launch_id, reason) VALUES (?, 'first_of_config')", (100000 + i,))
        for pc in range(insts_each):
            c.execute("INSERT INTO inst_count(launch_id, function_id, pc, metric_id, value) VALUES (?, 1, ?, 1, ?)",
                      (100000 + i, pc * 16, 1000 + pc))
    c.commit()
    c.close()
    return p


both = report("both.db", 100, 20, 50, 400)
s = report_bytes.split(both)
tb = report_bytes.table_bytes(sqlite3.connect(both))
check(tb is not None, "dbstat is compiled into this python's sqlite3")
check(s["profiles"] == 100 and s["inst_launches"] == 50, "counts %r" % s)
inst = sum(tb.get(t, 0) for t in report_bytes.INST_TABLES)
check(s["inst_bytes"] == inst and inst > 0, "instrumentation bytes %r, tables %r" % (s["inst_bytes"], inst))
check(abs(s["per_inst"] - inst / 50) < 1e-9, "per instrumented launch %r" % s["per_inst"])
rp = sum(tb.get(t, 0) for t in report_bytes.RP_TABLES)
check(abs(s["per_profile"] - rp / 100) < 1e-9, "per range profile %r" % s["per_profile"])
# 20,000 counts of 400 instructions a launch take more than 20 values a profile
check(s["per_inst"] > 10 * s["per_profile"], "per inst %r against per profile %r" % (s["per_inst"],
                                                                                     s["per_profile"]))
# both engines' tables over both engines' launches: issue 18's "per profiled launch"
check(abs(s["per_launch"] - (inst + rp) / 150) < 1e-9, "per profiled launch %r" % s["per_launch"])
# the analysis output apart (gpuhier analyze writes it again), not in any of the three
ana = sum(tb.get(t, 0) for t in report_bytes.ANALYSIS_TABLES)
check(s["analysis_bytes"] == ana and ana > 0, "analysis bytes %r, tables %r" % (s["analysis_bytes"], ana))
check(not set(report_bytes.ANALYSIS_TABLES) & set(report_bytes.INST_TABLES + report_bytes.RP_TABLES),
      "an analysis table counted for an engine")
# every index's pages count for its table: no index name is left as a table of its own
owner = dict(sqlite3.connect(both).execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'"))
check(all(n not in tb for n in owner), "index names left in %r" % sorted(tb))
# a trace-only report: no profile, no instrumented launch, no ratio
none = report_bytes.split(report("trace.db", 0, 0, 0, 0))
check(none["per_profile"] is None and none["per_inst"] is None and none["per_launch"] is None,
      "trace-only report %r" % none)
sys.exit(done("report_bytes"))
