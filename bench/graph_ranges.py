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

With --ncu, tk_graph (a program of graph launches only) is also run under Nsight Compute twice with
the metrics the ranges returned (group 1's names when none came back): `--graph-profiling graph`
(the whole graph launch one result, what one user range around it measures) and
`--graph-profiling node` (a result per kernel node, summed over the launch's nodes), caches and
clocks left alone as gpuhier leaves them; the launch compared is the one gpuhier served (the
executable's second), and the table gives gpuhier's value against both.

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
sys.path.insert(0, os.path.join(ROOT, "bench", "agreement"))
import ncu_csv  # noqa: E402


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


# group 1 of the H200's plan (docs/metrics.md), asked of ncu when no range came back to name them
GROUP1 = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex.sum",
          "lts__t_sectors_srcunit_tex_op_read.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "smsp__inst_executed_op_global_ld.sum",
          "smsp__inst_executed_op_global_st.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
          "sm__cycles_active.avg", "l1tex__t_sector_hit_rate.pct", "smsp__inst_executed.sum"]


def ncu_graph(argv, names, mode, timeout):
    """Per graph launch (mode graph) or per kernel node (mode node): [{metric: value}], or an error string."""
    cmd = [os.environ.get("NCU", "ncu"), "--csv", "--page", "raw", "--print-units", "base", "--graph-profiling", mode,
           "--cache-control", "none", "--clock-control", "none", "--metrics", ",".join(names)] + argv
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except (subprocess.TimeoutExpired, OSError) as e:
        return "ncu: %s" % e.__class__.__name__
    rows = ncu_csv.parse(p.stdout.decode(errors="replace"))
    if not rows:
        return "ncu status %d, no result: %s" % (p.returncode, p.stdout.decode(errors="replace").strip()[-200:])
    return [r["metrics"] for r in sorted(rows, key=lambda r: r["id"])]


def ncu_table(argv, ranges, nodes_per_launch, timeout):
    """Markdown lines: gpuhier's ranges summed (one user range: its values) against ncu's whole-graph result
    and its node results summed, for the executable's second launch."""
    names = sorted({k for _, v in ranges for k in v}) or GROUP1
    graph = ncu_graph(argv, names, "graph", timeout)
    node = ncu_graph(argv, names, "node", timeout)
    out = ["", "### ncu on the same program, the executable's second launch", ""]
    for label, res in (("graph", graph), ("node", node)):
        if isinstance(res, str):
            out.append("- `--graph-profiling %s`: %s" % (label, res))
    g2 = graph[1] if isinstance(graph, list) and len(graph) > 1 else {}
    n2 = node[nodes_per_launch:2 * nodes_per_launch] if isinstance(node, list) and len(node) >= 2 * nodes_per_launch \
        else []
    out += ["| metric | gpuhier (ranges summed) | ncu graph | ratio | ncu nodes summed | ratio |",
            "| --- | --- | --- | --- | --- | --- |"]
    for k in names:
        ours = sum(v[k] for _, v in ranges if k in v) if any(k in v for _, v in ranges) else None
        ng = g2.get(k)
        nn = sum(r[k] for r in n2 if k in r) if n2 and all(k in r for r in n2) else None
        if k.endswith(".pct") or ".pct_of" in k or k.endswith(".avg"):
            nn = None  # a rate or mean: a sum over nodes means nothing
        fmt = lambda v: "" if v is None else "%.6g" % v
        ratio = lambda a, b: "" if a is None or not b else "%.3f" % (a / b)
        out.append("| %s | %s | %s | %s | %s | %s |" % (k, fmt(ours), fmt(ng), ratio(ours, ng), fmt(nn), ratio(ours, nn)))
    return out


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
    ap.add_argument("--ncu", action="store_true", help="tk_graph under ncu as well (graph and node results)")
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
        if a.ncu and name == "tk_graph":
            served = rows[0] if rows else None
            detail += ncu_table(argv, served[7] if served else [], len(served[6]) if served and served[6] else 3,
                                a.timeout)
    text = "\n".join(lines + detail) + "\n"
    print(text)
    with open(os.path.join(a.out, "graph-ranges.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
