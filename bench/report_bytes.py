# SPDX-License-Identifier: MIT
"""bench/report_bytes.py: where a report's bytes go, engine by engine.

Issue 18 point 4 asks a report of <= 1 KB per profiled launch. The figure
cost_vs_ncu.py printed, (default report - trace-only report) / profiled
launches, mixed two engines since both became the default: the range
profiler's profiles (a few metric rows each) and the instrumentation
engine's per-instruction counts with the line tables of the code they ran
(schema.sql's version-2 tables), which grow with the size of the kernels, not
with the number of profiles. split() measures each part in the report
itself, with SQLite's dbstat table (the pages each table and its indexes
hold: whole pages, so an upper bound for a small table), so the two can be
judged apart:

  per range profile          the range profiler's tables (`profile`, `metric`)
                             / range profiles (rows of `profile`)
  per instrumented launch    the instrumentation tables / rows of `inst_launch`
  per profiled launch        both engines' tables / both counts: the issue's
                             figure, a launch profiled by either engine
  analysis                   the findings and summaries `gpuhier analyze`
                             wrote (derived, written again by every analyze),
                             in none of the three

Usage: report_bytes.py REPORT prints all four.
"""
import os
import sqlite3
import sys

# the instrumentation engine's tables (schema.sql, "(version 2)"): its launches, its counts per
# instruction, and the code dictionaries they are read with
INST_TABLES = ("inst_launch", "inst_count", "inst_run", "sass_function", "sass_line", "source_file", "cubin")
# the range profiler's: a profile per profiled range and its metric values (metric_name is a dictionary
# both engines share, a few pages whatever the run)
RP_TABLES = ("profile", "metric")
# what `gpuhier analyze` writes (schema.sql's analysis tables): derived from the others and written again by
# every analyze, so counted apart from what the collector stored
ANALYSIS_TABLES = ("analysis", "rule_run", "finding", "finding_evidence", "finding_line", "finding_object",
                   "kernel_summary", "rank_summary", "rank_kernel", "rank_finding")


def table_bytes(c):
    """{table: bytes of its pages and its indexes' pages} of connection `c`, or None where dbstat is not
    compiled in."""
    try:
        owner = dict(c.execute("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')"))
        pages = c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.Error:
        return None
    out = {}
    for name, size in pages:
        t = owner.get(name, name)
        out[t] = out.get(t, 0) + size
    return out


def count(c, table):
    try:
        return c.execute("SELECT count(*) FROM %s" % table).fetchone()[0]
    except sqlite3.Error:
        return 0


def split(db):
    """{'profiles', 'inst_launches', 'inst_bytes', 'per_profile', 'per_inst', 'per_launch',
    'analysis_bytes'} of report `db`.

    A ratio is None where its count is 0 or dbstat is missing."""
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        tb = table_bytes(c)
        profiles, inst = count(c, "profile"), count(c, "inst_launch")
    finally:
        c.close()
    r = {"profiles": profiles, "inst_launches": inst, "inst_bytes": None, "per_profile": None,
         "per_inst": None, "per_launch": None, "analysis_bytes": None}
    if tb is None:
        return r
    r["inst_bytes"] = sum(tb.get(t, 0) for t in INST_TABLES)
    rp = sum(tb.get(t, 0) for t in RP_TABLES)
    r["analysis_bytes"] = sum(tb.get(t, 0) for t in ANALYSIS_TABLES)
    if inst:
        r["per_inst"] = r["inst_bytes"] / inst
    if profiles:
        r["per_profile"] = rp / profiles
    if inst or profiles:
        r["per_launch"] = (r["inst_bytes"] + rp) / (inst + profiles)
    return r


def kb(x):
    return "-" if x is None else "%.2f KB" % (x / 1024)


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.exists(sys.argv[1]):
        sys.exit("usage: report_bytes.py REPORT")
    s = split(sys.argv[1])
    print("range profiles %d, %s each; instrumented launches %d, %s each (%s in all); %s per profiled launch; "
          "analysis output %s"
          % (s["profiles"], kb(s["per_profile"]), s["inst_launches"], kb(s["per_inst"]), kb(s["inst_bytes"]),
             kb(s["per_launch"]), kb(s["analysis_bytes"])))
