#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/replay_probe.py DIR: the table of bench/replay_probe.sh.

Reads DIR/<tag>.log (GPUHIER_DEBUG's "profiled: ... ms: ..." lines) and
DIR/<tag>.db (the reports) of the runs ms-kernel, ms-user, ms-user-core,
pt-kernel, pt-user, and prints in Markdown: per run the profiles kept and
dropped, the median of each phase, whether profiled launches have GPU
timestamps; then, for the kernel/user pairs, each metric's values on the
first profile of every configuration both runs profiled.
"""
import os
import re
import sqlite3
import statistics
import sys

PHASE = re.compile(r"profiled: ranges (\d+) dropped (\d+) why (.*?); ms: (.*)$")


def phases(log):
    rows = []
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return rows
    for line in text.splitlines():
        m = PHASE.search(line)
        if m:
            ms = dict((k, float(v)) for k, v in re.findall(r"([a-z+]+) ([0-9.]+)", m.group(4)))
            rows.append((m.group(3), ms))
    return rows


def first_profiles(db):
    """{(mangled, grid, block, smem): {metric: value}} of each configuration's first profile."""
    out = {}
    if not os.path.exists(db):
        return out
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    q = """SELECT k.mangled_name, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,
                  c.dynamic_smem_bytes, l.id, n.name, m.value
           FROM profile p JOIN launch l ON l.id = p.launch_id JOIN config c ON c.id = l.config_id
           JOIN kernel k ON k.id = l.kernel_id JOIN metric m ON m.launch_id = l.id
           JOIN metric_name n ON n.id = m.metric_id ORDER BY l.config_launch_index, l.id"""
    seen = {}
    for row in c.execute(q):
        key, lid = tuple(row[:8]), row[8]
        if seen.setdefault(key, lid) != lid:
            continue
        out.setdefault(key, {})[row[9]] = row[10]
    return out


def facts(db):
    if not os.path.exists(db):
        return None
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    one = lambda q: c.execute(q).fetchone()[0]
    return {
        "launches": one("SELECT count(*) FROM launch"),
        "profiles": one("SELECT count(*) FROM profile"),
        "profiled_timed": one("SELECT count(*) FROM launch l JOIN profile p ON p.launch_id = l.id "
                              "WHERE l.start_ns IS NOT NULL AND l.end_ns > l.start_ns"),
        "dropped": one("SELECT count(*) FROM event WHERE code = 'batch_dropped'"),
    }


def main():
    d = sys.argv[1]
    print("## Kernel replay against user replay (bench/replay_probe.sh)\n")
    print("| run | launches | profiles | with GPU times | dropped | median ms: launch | stop+decode | total | mean total |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for tag in ("ms-kernel", "ms-user", "ms-user-core", "pt-kernel", "pt-user"):
        f = facts(os.path.join(d, tag + ".db"))
        ph = phases(os.path.join(d, tag + ".log"))
        kept = [ms for why, ms in ph if why == "-"]
        med = lambda k: "%.1f" % statistics.median(x[k] for x in kept) if kept else "-"
        mean = "%.1f" % statistics.mean(x["total"] for x in kept) if kept else "-"
        if f is None:
            print("| %s | no report | | | | | | | |" % tag)
            continue
        print("| %s | %d | %d | %d | %d | %s | %s | %s | %s |" % (
            tag, f["launches"], f["profiles"], f["profiled_timed"], f["dropped"], med("launch"),
            med("stop+decode"), med("total"), mean))
    whys = {}
    for why, _ in phases(os.path.join(d, "ms-user-core.log")):
        whys[why] = whys.get(why, 0) + 1
    print("\nms-user-core (3-pass core under user replay), profiles by outcome: %s\n" % whys)
    for prog in ("ms", "pt"):
        a = first_profiles(os.path.join(d, prog + "-kernel.db"))
        b = first_profiles(os.path.join(d, prog + "-user.db"))
        both = sorted(set(a) & set(b))
        print("### %s: %d configurations profiled in both runs\n" % (prog, len(both)))
        if not both:
            continue
        print("| metric | pairs | equal | within 1 % | median user/kernel |")
        print("| --- | --- | --- | --- | --- |")
        names = sorted(set().union(*(a[k].keys() for k in both)))
        for n in names:
            pairs = [(a[k].get(n), b[k].get(n)) for k in both]
            pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
            if not pairs:
                continue
            eq = sum(1 for x, y in pairs if x == y)
            w1 = sum(1 for x, y in pairs if abs(x - y) <= 0.01 * max(abs(x), 1e-9))
            ratios = [y / x for x, y in pairs if x]
            print("| %s | %d | %d | %d | %s |" % (n, len(pairs), eq, w1,
                  "%.3f" % statistics.median(ratios) if ratios else "-"))
        print()


if __name__ == "__main__":
    main()
