#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/graph_ranges.py STAGE [--out DIR]: does the range profiler's auto range give each kernel
node of a graph launch a range of its own on the device? (GPUHIER_DIAG_RP_GRAPHS, docs/collector.md
"Graphs"; the question behind issue 18's hardware counters on JAX's command buffers.)

Each workload runs under `gpuhier run` with GPUHIER_DIAG_RP_GRAPHS=4: the second launch of at most
four executable graphs is served by the range profiler with group 1 under auto range (with
--range user: one user range around the whole launch, GPUHIER_DIAG_RP_GRAPHS_RANGE=user). From each
report, per graph launch served (event `graph_profile`): the ranges CUPTI decoded and dropped
against the launch's kernel nodes (its launch rows), and range by range (events `graph_range`)
the duration and warp instructions beside the nodes' kernel records in start order. Prints the
table and writes it to DIR/graph-ranges.md, with the reports. Exit 77 without a GPU.

On the H200 on 2026-12-05 (docs/graph-ranges/2026-12-05-1058-65f617c-h200.md) every graph launch
tried came back with cuptiRangeProfilerStop failing (CUPTI_ERROR_UNKNOWN) and no range: kept for a
later CUPTI.
"""
import argparse
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def workloads(stage):
    tk = os.path.join(stage, "testkernels", "tk_graph")
    py = sys.executable
    return [
        ("tk_graph", [tk, "3"], {}),
        ("tk_graph-rp", [tk, "3"], {"GPUHIER_INSTRUMENT": "0"}),
        ("torch_graph", [py, os.path.join(ROOT, "bench/sassprobe/torch_graph.py")], {}),
        ("jax_mlp", [py, os.path.join(ROOT, "bench/suite/jax_mlp.py")], {}),
    ]


RANGE = re.compile(r'graph launch (\d+): range (\d+) of (\d+) \("([^"]*)"\): (.*)')
PROFILE = re.compile(r"graph launch (\d+) under (?:auto|one user) range \(([^)]*)\): (\d+) ranges, (\d+) dropped, "
                     r"([0-9.]+) ms(?:: (.*))?")


def values(text):
    return {k: float(v) for k, v in (kv.split("=") for kv in text.split(", ") if "=" in kv)}


def read(db):
    """[(corr, set, ranges, dropped, ms, why, [node rows], [range rows])] for one report."""
    c = sqlite3.connect(db)
    out = []
    for (msg,) in c.execute("SELECT message FROM event WHERE code = 'graph_profile' ORDER BY id"):
        m = PROFILE.match(msg)
        if not m:
            out.append((None, msg, 0, 0, 0.0, "unparsed", [], []))
            continue
        corr = int(m.group(1))
        nodes = c.execute(
            "SELECT k.short_name, l.end_ns - l.start_ns FROM launch l JOIN kernel k ON k.id = l.kernel_id "
            "WHERE l.correlation_id = ? AND l.graph_id IS NOT NULL ORDER BY l.start_ns, l.id", (corr,)).fetchall()
        ranges = []
        for (rmsg,) in c.execute("SELECT message FROM event WHERE code = 'graph_range' AND message LIKE ? "
                                 "ORDER BY id", ("graph launch %d: %%" % corr,)):
            r = RANGE.match(rmsg)
            if r:
                ranges.append((r.group(4), values(r.group(5))))
        out.append((corr, m.group(2), int(m.group(3)), int(m.group(4)), float(m.group(5)), m.group(6) or "",
                    nodes, ranges))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stage")
    ap.add_argument("--out", default="out/graph-ranges")
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--range", choices=("auto", "user"), default="auto",
                    help="auto: a range per kernel node; user: one user range around the whole launch "
                         "(GPUHIER_DIAG_RP_GRAPHS_RANGE=user)")
    a = ap.parse_args()
    if shutil.which("nvidia-smi") is None or subprocess.call(["nvidia-smi"], stdout=subprocess.DEVNULL,
                                                              stderr=subprocess.DEVNULL) != 0:
        print("skipped: no GPU")
        return 77
    stage = os.path.abspath(a.stage)
    os.makedirs(a.out, exist_ok=True)
    gh = os.path.join(stage, "gpuhier")
    lines = ["# Graph kernel nodes under %s range (GPUHIER_DIAG_RP_GRAPHS=4)" % a.range, "",
             "- %s UTC, stage %s" % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                                      open(os.path.join(stage, "COMMIT")).read().strip()), ""]
    lines += ["| workload | status | s | graph launch | group | ranges | dropped | kernel nodes | ms | why |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    detail = []
    for name, argv, extra in workloads(stage):
        if a.only and name not in a.only.split(","):
            continue
        for old in glob.glob(os.path.join(a.out, name + "-*.db")):
            os.remove(old)
        env = dict(os.environ, GPUHIER_DIAG_RP_GRAPHS="4", GPUHIER_DIAG_RP_GRAPHS_RANGE=a.range, **extra)
        t0 = time.time()
        try:
            p = subprocess.run([gh, "run", "-q", "-f", "--no-analyze", "-o",
                                os.path.join(a.out, name + "-%p.db"), "--"] + argv, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=a.timeout)
            status = str(p.returncode)
            err = p.stderr.decode(errors="replace").strip().splitlines()[-3:]
        except subprocess.TimeoutExpired:
            status, err = "timeout", []
        dt = time.time() - t0
        print("[%s] status %s, %.1f s%s" % (name, status, dt, ("; " + " | ".join(err)) if err else ""), flush=True)
        rows = [r for db in sorted(glob.glob(os.path.join(a.out, name + "-*.db"))) for r in read(db)]
        if not rows:
            lines.append("| %s | %s | %.1f | none served | | | | | | |" % (name, status, dt))
        for corr, gset, nr, nd, ms, why, nodes, ranges in rows:
            lines.append("| %s | %s | %.1f | %s | %s | %d | %d | %d | %.1f | %s |" % (
                name, status, dt, corr, gset, nr, nd, len(nodes), ms, why))
            detail += ["", "## %s, graph launch %s: %d ranges, %d kernel nodes" % (name, corr, nr, len(nodes)), "",
                       "| # | range | duration ns | warp instructions | DRAM read | node (start order) | node ns |",
                       "| --- | --- | --- | --- | --- | --- | --- |"]
            for i in range(max(len(nodes), len(ranges))):
                rn, rv = ranges[i] if i < len(ranges) else ("", {})
                kn, kns = nodes[i] if i < len(nodes) else ("", None)
                detail.append("| %d | %s | %s | %s | %s | %s | %s |" % (
                    i + 1, rn, "%.0f" % rv["gpu__time_duration.sum"] if "gpu__time_duration.sum" in rv else "",
                    "%.0f" % rv["smsp__inst_executed.sum"] if "smsp__inst_executed.sum" in rv else "",
                    "%.0f" % rv["dram__bytes_read.sum"] if "dram__bytes_read.sum" in rv else "",
                    (kn or "")[:60], "" if kns is None else kns))
    text = "\n".join(lines + detail) + "\n"
    print(text)
    with open(os.path.join(a.out, "graph-ranges.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
