#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/chain_sim.py REPORT...: how many enables the instrumentation engine
would pay in `inst` mode (each configuration's first launch instrumented) on a
report's launch order, under two chaining policies.

  now   the collector's (collector/engine_sass.c, sass_chain_takes()): a served
        launch runs in the enable left open by the one before when its
        function was not served in it yet; any launch the engine does not
        serve shuts the enable.
  ext   a candidate: a launch the engine does not serve leaves the enable open
        when its function was already served in it (CUPTI patched it there,
        so it costs its patched run and no new patching); any other shuts it.

Per report: stream launches (graph nodes left out), served launches, enables,
launches chained, and under `ext` the launches that would run patched without
being served (each costs its patched run, 30-100x its native time).
No GPU: reads the `launch` table only. Exit 0; 2 on a report it cannot read.
"""
import sqlite3
import sys


def simulate(rows, policy):
    """rows: (kernel_id, config_id) in launch order. Returns a dict of counts."""
    seen, chain = set(), None
    n = {"served": 0, "enables": 0, "chained": 0, "patched_repeats": 0}
    for kernel, config in rows:
        if config not in seen:
            seen.add(config)
            n["served"] += 1
            if chain is not None and kernel not in chain:
                chain.add(kernel)
                n["chained"] += 1
            else:
                chain = {kernel}
                n["enables"] += 1
        elif chain is not None:
            if policy == "ext" and kernel in chain:
                n["patched_repeats"] += 1
            else:
                chain = None
    return n


def launch_order(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return db.execute("SELECT kernel_id, config_id FROM launch WHERE COALESCE(graph_id, 0) = 0 "
                          "ORDER BY correlation_id, id").fetchall()
    finally:
        db.close()


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    print("| report | launches | served | enables (now) | chained (now) | enables (ext) | chained (ext) "
          "| patched repeats (ext) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in argv:
        try:
            rows = launch_order(path)
        except sqlite3.Error as e:
            print("chain_sim: %s: %s" % (path, e), file=sys.stderr)
            return 2
        a, b = simulate(rows, "now"), simulate(rows, "ext")
        print("| %s | %d | %d | %d | %d | %d | %d | %d |" % (path, len(rows), a["served"], a["enables"],
                                                             a["chained"], b["enables"], b["chained"],
                                                             b["patched_repeats"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
