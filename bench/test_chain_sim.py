#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""unit.chain_sim: bench/chain_sim.py's two policies on made-up launch orders (synthetic)."""
import os
import sqlite3
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
import chain_sim  # noqa: E402
from checks import check, done  # noqa: E402


# kernels A=1, B=2; configs: A1=10, A2=11, B1=20
order = [(1, 10), (2, 20), (1, 10), (1, 11), (2, 20)]
now = chain_sim.simulate(order, "now")
ext = chain_sim.simulate(order, "ext")
# now: A1 enables, B1 chains, A1 again shuts, A2 enables, B1 again shuts
check(now == {"served": 3, "enables": 2, "chained": 1, "patched_repeats": 0}, "now: %s" % now)
# ext: A1 enables, B1 chains, A1 again runs patched in it, A2 (A served in it) enables anew, B1 shuts
check(ext == {"served": 3, "enables": 2, "chained": 1, "patched_repeats": 1}, "ext: %s" % ext)
# a repeat of a function served in the open enable keeps it open under ext only
order2 = [(1, 10), (2, 20), (1, 10), (3, 30)]
check(chain_sim.simulate(order2, "now")["enables"] == 2, "now: a repeat shuts the enable")
e2 = chain_sim.simulate(order2, "ext")
check(e2["enables"] == 1 and e2["chained"] == 2 and e2["patched_repeats"] == 1, "ext: it runs patched in it: %s" % e2)
# a repeat of a function not served in the open enable shuts it under both
order3 = [(5, 50), (6, 60), (5, 51), (6, 60), (7, 70)]
check(chain_sim.simulate(order3, "ext")["enables"] == 3, "ext: a repeat of a function not in the enable shuts it")
check(chain_sim.simulate(order3, "now")["enables"] == 3, "now: the same order, the same enables")

with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "r.db")
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE launch (id INTEGER PRIMARY KEY, kernel_id, config_id, correlation_id, graph_id)")
    db.executemany("INSERT INTO launch VALUES (?, ?, ?, ?, ?)",
                   [(1, 1, 10, 5, None), (2, 2, 20, 6, 7), (3, 2, 20, 7, None)])
    db.commit()
    db.close()
    check(chain_sim.launch_order(p) == [(1, 10), (2, 20)], "graph nodes are left out, order by correlation")
    check(chain_sim.main([os.path.join(d, "missing.db")]) == 2, "a report that cannot be read: exit 2")
sys.exit(done("unit.chain_sim"))
