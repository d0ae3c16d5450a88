#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/graph_arming.py on SYNTHETIC runs and a SYNTHETIC report
(made-up statuses, times and events, no GPU): what a report's events say, the
per-workload counts, the verdict (a run that ends unlike the native one, a scan
that decided otherwise), the table and the --reuse path."""
import os
import sqlite3
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
from checks import check, check_reuse, done  # noqa: E402
import graph_arming as ga  # noqa: E402

tmp = tempfile.mkdtemp()
db = os.path.join(tmp, "r.db")
c = sqlite3.connect(db)
c.executescript("""
CREATE TABLE event (code TEXT, message TEXT);
CREATE TABLE inst_launch (launch_id INTEGER, reason TEXT);
INSERT INTO event VALUES ('graph_instantiations_armed', '2 graph instantiations ran with SASS metrics enabled'),
  ('graph_instantiations_unarmed', '1 graph instantiations were not armed'), ('other', '9 things'),
  ('graph_instantiations_known', '4 graph instantiations were not armed: every kernel function');
INSERT INTO inst_launch VALUES (1, 'graph'), (2, 'graph'), (3, 'graph'), (4, 'first_of_config');
""")
c.commit()
c.close()
check(ga.report_facts(db) == (2, 1, 3, 4), "armed, unarmed, graph rows and known of a report: %s" % (
    ga.report_facts(db),))
check(ga.report_facts(os.path.join(tmp, "none.db")) is None, "a report that cannot be read gives None")

F = (1, 0, 2)
runs = [
    {"workload": "tk_graph", "mode": "native", "run": -1, "rc": 0, "wall_s": 1.0, "ok": True},
    {"workload": "tk_graph", "mode": "gpuhier", "run": 0, "rc": 0, "wall_s": 2.0, "ok": True, "facts": F},
    {"workload": "tk_graph", "mode": "gpuhier", "run": 1, "rc": 0, "wall_s": 4.0, "ok": True, "facts": F},
    {"workload": "torch_matmul", "mode": "native", "run": -1, "rc": 0, "wall_s": 8.0, "ok": True},
    {"workload": "torch_matmul", "mode": "gpuhier", "run": 0, "rc": 1, "wall_s": 9.0, "ok": False,
     "facts": (1, 0, 0), "tail": "illegal instruction"},
    {"workload": "torch_matmul", "mode": "gpuhier", "run": 1, "rc": 0, "wall_s": 10.0, "ok": True,
     "facts": (0, 1, 0)},
    {"workload": "jax_default", "mode": "gpuhier", "skipped": "budget"},
]
rows = {r["workload"]: r for r in ga.summarise(runs)}
check(list(rows) == ["tk_graph", "torch_matmul"], "workloads in WORKLOADS order, those run only: %s" % list(rows))
t = rows["tk_graph"]
check((t["runs"], t["same_status"], t["checked_ok"], t["armed_runs"], t["graph_rows"], t["median_s"]) ==
      (2, 2, 2, 2, 2, 3.0), "tk_graph counts: %s" % t)
check(ga.verdict(t) == "as expected", "a clean armed workload: %s" % ga.verdict(t))
m = rows["torch_matmul"]
v = ga.verdict(m)
check("**1 of 2 runs ended unlike the native run**" in v and "1 runs without the program's ok line" in v and
      "scan decided otherwise in 1 runs" in v, "the crash, the missing ok line and the arming named: %s" % v)
text = ga.markdown(ga.summarise(runs), ["- synthetic"])
check("| tk_graph | armed | 0 | 2 | 2 | 2 | 2 | 0 | 0 | 2 | 1.0 | 3.0 | as expected |" in text, "tk_graph row:\n" + text)
known = ga.summarise([
    {"workload": "torch_elementwise", "mode": "gpuhier", "run": 0, "rc": 0, "wall_s": 1.0, "ok": True,
     "facts": (0, 0, 0, 1)}])[0]
check(known["known_runs"] == 1 and "scan decided otherwise" not in ga.verdict(known),
      "a workload expected known, known: %s" % ga.verdict(known))
old = ga.summarise([
    {"workload": "torch_elementwise", "mode": "gpuhier", "run": 0, "rc": 0, "wall_s": 1.0, "ok": True,
     "facts": (0, 0, 0)}])[0]
check(old["known_runs"] == 0, "facts of three (runs recorded before 'known' existed) read as not known")
check("4 runs under gpuhier, 1 ended unlike their native run." in text, "the total line:\n" + text)

check_reuse(ga.main, "graph_arming.py", runs, "graph-arming.md")

sys.exit(done("unit.graph_arming"))
