# SPDX-License-Identifier: MIT
"""bench/threads_check.py: many launching threads under the collector, counted.

gpu.t151 failed once on the H200 (2026-12-04, docs/gpu-runs.md, session of
20:20 UTC): `gpu/multistream` (8 threads x 4 streams, two kernels in turns)
left one of its two configurations without a first-of-configuration group-1
profile. Its likely cause, found on the CPU, was the writer parsing a
launch's kernel record before its launch record (docs/collector.md "Launch
records before kernel records"). One run proves little: this runs the
program RUNS times under the default (or the variables the environment
sets) and checks each report for what that race loses.

Usage: threads_check.py STAGE [--runs N] [--count LAUNCHES] [--out FILE.md]
(STAGE from scripts/stage.sh: STAGE/libgpuhier-collector.so and
STAGE/gpu/multistream). Prints one line per failing run and a summary; exit
status 0 when every run passed, 1 otherwise, 77 without a GPU.

A run passes when the program exits 0 and its report (check()) is closed,
has as many launches as the program made, every launch a profile_reason,
each configuration a first_of_config launch with a group-1 profile, and
no configuration more than one instrumented stream launch (two threads'
launches could both be instrumented before 2026-12-05, docs/sampling.md).

The summary also adds up the launch gate's meta `kernel_kind_swaps` over the
runs (gate()): the kind swaps, the launches that waited at the gate, the
swaps that went ahead with launches in flight and the launches that went
ahead with the gate still closed (counted since 2026-12-05; a report
without it reads 0), either of which could lose one (a launch between a
swap's disable and enable got no kernel record: 2 of 60 runs lost one on
the H200 on 2026-12-05, before the gate).
"""
import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile


def gate(db):
    """(swaps, launches that waited, swaps with launches in flight, launches past a closed gate) from
    report `db`'s meta kernel_kind_swaps; zeros without it (the last, 0 in a report that predates it)."""
    try:
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        row = c.execute("SELECT value FROM meta WHERE key = 'kernel_kind_swaps'").fetchone()
        c.close()
    except sqlite3.Error:
        return (0, 0, 0, 0)
    nums = [int(n) for n in re.findall(r"\d+", row[0])] if row else []
    return tuple((nums + [0])[:4]) if len(nums) >= 3 else (0, 0, 0, 0)


def check(db, launched):
    """'' when report `db` of a program that made `launched` launches holds what the race would lose,
    else why not."""
    try:
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        end = c.execute("SELECT end_ns FROM run").fetchone()
        n, no_reason = c.execute("SELECT count(*), coalesce(sum(profile_reason IS NULL), 0) FROM launch").fetchone()
        configs = c.execute("SELECT count(DISTINCT config_id) FROM launch WHERE config_id IS NOT NULL").fetchone()[0]
        first = c.execute("SELECT count(DISTINCT l.config_id) FROM launch l JOIN profile p ON p.launch_id = l.id "
                          "WHERE l.profile_reason = 'first_of_config' AND p.metric_set LIKE 'group1/%'").fetchone()[0]
        twice = c.execute("SELECT count(*) FROM (SELECT config_id FROM inst_launch WHERE graph_corr IS NULL "
                          "GROUP BY config_id HAVING count(*) > 1)").fetchone()[0]
        c.close()
    except (sqlite3.Error, TypeError) as e:
        return "the report does not open: %s" % e
    if not end or end[0] is None:
        return "the report was not closed"
    if launched is not None and n != launched:
        return "%d launches in the report, %d made" % (n, launched)
    if no_reason:
        return "%d launches without a reason" % no_reason
    if first != configs:
        return "%d of %d configurations with a first_of_config group-1 profile" % (first, configs)
    if twice:
        return "%d configurations instrumented more than once" % twice
    return ""


def reasons(db):
    """Per configuration, its launches' reasons with their launch indexes and correlation ids: what
    a failing run's report says about the path it took, printed so that a device call needs no
    second call to fetch the report."""
    try:
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        rows = c.execute("SELECT config_id, profile_reason, count(*), min(config_launch_index), "
                         "max(config_launch_index), min(correlation_id), max(correlation_id) FROM launch "
                         "GROUP BY 1, 2 ORDER BY 1, 4").fetchall()
        meta = c.execute("SELECT key, value FROM meta WHERE key IN ('profiler_enables', 'profiler_disables', "
                         "'instrumented_launches', 'kernel_kind_swaps')").fetchall()
        c.close()
    except sqlite3.Error as e:
        return ["  (the report does not open: %s)" % e]
    out = ["  config %s %s: %d launches, index %s-%s, correlation id %s-%s" % r for r in rows]
    return out + ["  meta %s: %s" % m for m in meta]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stage")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--count", type=int, default=200, help="launches a thread makes (multistream's argument)")
    ap.add_argument("--out", help="write the summary there too (Markdown)")
    a = ap.parse_args(argv)
    lib = os.path.join(os.path.abspath(a.stage), "libgpuhier-collector.so")
    prog = os.path.join(os.path.abspath(a.stage), "gpu", "multistream")
    for p in (lib, prog):
        if not os.path.exists(p):
            print("threads_check: no %s (scripts/stage.sh BUILD STAGE)" % p, file=sys.stderr)
            return 2
    if not os.path.exists("/dev/nvidia0"):
        print("skipped: no GPU")
        return 77
    work = tempfile.mkdtemp(prefix="threads_check.")
    bad = []
    totals = [0, 0, 0, 0]
    for i in range(1, a.runs + 1):
        db = os.path.join(work, "m%d.db" % i)
        env = dict(os.environ, CUDA_INJECTION64_PATH=lib, GPUHIER_OUTPUT=db)
        r = subprocess.run([prog, str(a.count)], env=env, capture_output=True, text=True, timeout=120)
        made = None
        for line in r.stdout.splitlines():
            if line.startswith("launched "):
                made = int(line.split()[1])
        why = "exit status %d" % r.returncode if r.returncode else check(db, made)
        totals = [t + g for t, g in zip(totals, gate(db))]
        if why:
            bad.append((i, why))
            print("run %d: %s (report %s)" % (i, why, db))
            print("\n".join(reasons(db)))
    summary = "%d of %d runs of `gpu/multistream %d` whole under the collector%s" % (
        a.runs - len(bad), a.runs, a.count,
        "" if not bad else "; failing: " + "; ".join("run %d: %s" % b for b in bad))
    summary += ("\nthe launch gate over the runs: %d kind swaps, %d launches waited at it, %d swaps went "
                "ahead with launches in flight, %d launches went ahead with it closed" % tuple(totals))
    print(summary)
    if a.out:
        with open(a.out, "w") as f:
            f.write(summary + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
