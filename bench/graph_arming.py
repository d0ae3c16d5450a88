#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/graph_arming.py: does arming CUDA graph instantiations for pattern counters crash programs? Counted.

Usage: graph_arming.py --stage STAGE --out DIR [--runs N] [--timeout S] [--budget S]
                       [--workloads a,b] [--env KEY=VALUE ...]
       graph_arming.py --reuse DIR/graph-arming.json --out DIR   (the table again, no GPU)

CUPTI patches a graph's kernel nodes for SASS metrics only when they are
enabled while the graph is instantiated, and on the H200 that crashed every
graph that held one of cuBLAS's Hopper GEMM kernels (docs/sassprobe.md "Graph
launches"). The collector arms an instantiation only when its graph scan finds
no kernel node launched in thread-block clusters (collector/graphscan.h): the
default since 2026-12-04. This benchmark runs each workload once natively (the
reference exit status) and RUNS times under `gpuhier run --no-analyze` (the
default, or with --env), one run at a time (JAX preallocates 75 % of the GPU),
and counts per workload: runs whose exit status is the native one, runs whose
program printed its own check's success line, the graph instantiations armed
kept unarmed, and not armed because every function in them had counts already ("known":
a stream launch was instrumented first, or the same graph was armed before; the report's
events), the graph launches instrumented
(inst_launch rows with reason 'graph', one per function), and the wall times.

Workloads (--workloads picks some): the graph testkernels (tk_graph 3; tk_graphprops
VARIANT graph for a plain kernel, PDL, TMA, TMA into 160 KB of shared memory,
setmaxnreg, wgmma: armed; clusters: kept unarmed), a PyTorch CUDA graph of a
bf16 matmul (cuBLAS's nvjet, clusters: unarmed) and of elementwise ops only
(after PyTorch's side-stream warm-up: known; without it: armed), and the suite's JAX loop with XLA's defaults (cuBLAS sm90 GEMMs in its
command buffers: unarmed) and with XLA's autotuning off (Triton GEMM fusions
with programmatic dependencies: armed).
Writes DIR/graph-arming.md and DIR/graph-arming.json; exit 0.
"""
import argparse
import os
import re
import sqlite3
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "e2e"))
sys.path.insert(0, here)
import proc  # noqa: E402
import benchlib  # noqa: E402

JAX_NOAUTOTUNE = {"XLA_FLAGS": "--xla_gpu_autotune_level=0"}
# name: (argv, with STAGE and ROOT to fill in; environment; what the scan should decide; the ok line)
WORKLOADS = {
    "tk_graph": (["STAGE/testkernels/tk_graph", "3"], {}, "armed", r"^graph launches 3 nodes 3$"),
    "props_plain": (["STAGE/testkernels/tk_graphprops", "plain", "graph"], {}, "armed", r"graphprops .* ok$"),
    "props_pdl": (["STAGE/testkernels/tk_graphprops", "pdl", "graph"], {}, "armed", r"graphprops .* ok$"),
    "props_tensormap": (["STAGE/testkernels/tk_graphprops", "tensormap", "graph"], {}, "armed",
                        r"graphprops .* ok$"),
    "props_bigsmem_tma": (["STAGE/testkernels/tk_graphprops", "bigsmem_tma", "graph"], {}, "armed",
                          r"graphprops .* ok$"),
    "props_maxnreg": (["STAGE/testkernels/tk_graphprops", "maxnreg", "graph"], {}, "armed", r"graphprops .* ok$"),
    "props_wgmma": (["STAGE/testkernels/tk_graphprops", "wgmma", "graph"], {}, "armed", r"graphprops .* ok$"),
    "props_cluster": (["STAGE/testkernels/tk_graphprops", "cluster", "graph"], {}, "unarmed",
                      r"graphprops .* ok$"),
    "torch_matmul": (["python3", "ROOT/bench/sassprobe/torch_graph.py"], {}, "unarmed", r"^torch_graph ok"),
    "torch_elementwise": (["python3", "ROOT/bench/sassprobe/torch_graph.py"],
                          {"TORCH_GRAPH_OPS": "elementwise"}, "known", r"^torch_graph ok"),
    "torch_elementwise_cold": (["python3", "ROOT/bench/sassprobe/torch_graph.py"],
                               {"TORCH_GRAPH_OPS": "elementwise", "TORCH_GRAPH_WARMUP": "0"}, "armed",
                               r"^torch_graph ok"),
    "jax_default": (["python3", "ROOT/bench/suite/jax_mlp.py"], {}, "unarmed", r"^jax_mlp ok"),
    "jax_noautotune": (["python3", "ROOT/bench/suite/jax_mlp.py"], JAX_NOAUTOTUNE, "armed", r"^jax_mlp ok"),
}


def argv_of(name, stage, root):
    return [a.replace("STAGE", stage).replace("ROOT", root) for a in WORKLOADS[name][0]]


def report_facts(path):
    """(armed, unarmed, graph rows, known) of a report: the numbers its three events start
    with, and the inst_launch rows of graph launches; None when the report cannot be read."""
    try:
        c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        ev = dict(c.execute("SELECT code, message FROM event WHERE code IN ('graph_instantiations_armed', "
                            "'graph_instantiations_unarmed', 'graph_instantiations_known')"))
        rows = c.execute("SELECT count(*) FROM inst_launch WHERE reason = 'graph'").fetchone()[0]
        c.close()
    except sqlite3.Error:
        return None

    def lead(code):
        m = re.match(r"(\d+) ", ev.get(code, ""))
        return int(m.group(1)) if m else 0
    return (lead("graph_instantiations_armed"), lead("graph_instantiations_unarmed"), rows,
            lead("graph_instantiations_known"))


def summarise(runs):
    """Per workload, in WORKLOADS order: the counts and medians of the table."""
    out = []
    for w in WORKLOADS:
        mine = [r for r in runs if r["workload"] == w]
        native = [r for r in mine if r["mode"] == "native"]
        gh = [r for r in mine if r["mode"] == "gpuhier" and "rc" in r]
        if not gh:
            continue
        ref = native[0]["rc"] if native else None
        facts = [r["facts"] for r in gh if r.get("facts")]
        out.append({
            "workload": w, "expected": WORKLOADS[w][2], "native_rc": ref, "runs": len(gh),
            "same_status": sum(r["rc"] == ref for r in gh), "checked_ok": sum(bool(r["ok"]) for r in gh),
            "skipped": sum("skipped" in r for r in mine),
            "armed_runs": sum(f[0] > 0 for f in facts), "unarmed_runs": sum(f[1] > 0 for f in facts),
            "known_runs": sum(len(f) > 3 and f[3] > 0 for f in facts),
            "graph_rows": statistics.median([f[2] for f in facts]) if facts else None,
            "native_s": native[0]["wall_s"] if native else None,
            "median_s": statistics.median(r["wall_s"] for r in gh),
            "failures": [r.get("tail", "") for r in gh if r["rc"] != ref][:2],
        })
    return out


def verdict(r):
    """'as expected', or what differs: a run whose status is not the native one is a crash
    the arming may have caused; the scan's decision should be the workload's expected one."""
    bad = []
    if r["same_status"] != r["runs"]:
        bad.append("**%d of %d runs ended unlike the native run**" % (r["runs"] - r["same_status"], r["runs"]))
    if r["checked_ok"] != r["runs"]:
        bad.append("%d runs without the program's ok line" % (r["runs"] - r["checked_ok"]))
    decided = r.get(r["expected"] + "_runs", 0)
    if decided != r["runs"]:
        bad.append("scan decided otherwise in %d runs" % (r["runs"] - decided))
    return "; ".join(bad) if bad else "as expected"


def markdown(rows, header):
    L = ["## Graph instantiations armed for pattern counters, counted (bench/graph_arming.py)", ""] + header + [""]
    L += ["| workload | scan should | native status | runs | same status | program's check ok | armed | "
          "kept unarmed | known | graph rows (median) | native s | gpuhier s (median) | verdict |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        L.append("| %s | %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %.1f | %s |" % (
            r["workload"], r["expected"], r["native_rc"], r["runs"], r["same_status"], r["checked_ok"],
            r["armed_runs"], r["unarmed_runs"], r.get("known_runs", 0),
            "-" if r["graph_rows"] is None else "%g" % r["graph_rows"],
            "-" if r["native_s"] is None else "%.1f" % r["native_s"], r["median_s"], verdict(r)))
    total = sum(r["runs"] for r in rows)
    crashed = sum(r["runs"] - r["same_status"] for r in rows)
    L += ["", "%d runs under gpuhier, %d ended unlike their native run." % (total, crashed)]
    return "\n".join(L) + "\n"


def measure(a):
    stage, root = os.path.abspath(a.stage), os.path.abspath(a.root)
    gh = os.path.join(stage, "gpuhier")
    work = os.path.join("/tmp", "graph-arming-%d" % os.getpid())
    os.makedirs(work)
    extra = dict(kv.split("=", 1) for kv in a.env)
    base = dict(os.environ, PYTHONUNBUFFERED="1", GPUHIER_DATA_DIR=root)
    base.pop("XLA_FLAGS", None)
    base.pop("TORCH_GRAPH_OPS", None)
    base.pop("TORCH_GRAPH_WARMUP", None)
    t0 = time.monotonic()
    runs = []
    for w in a.workloads:
        _, wenv, _, okre = WORKLOADS[w]
        argv = argv_of(w, stage, root)
        for i in range(-1, a.runs):
            mode = "native" if i < 0 else "gpuhier"
            left = a.budget - (time.monotonic() - t0)
            if left < a.timeout + 5:
                runs.append({"workload": w, "mode": mode, "skipped": "budget: %.0f s left" % left})
                continue
            db = os.path.join(work, "%s-%d.db" % (w, i))
            cmd = argv if i < 0 else [gh, "run", "-q", "-f", "--no-analyze", "-o", db, "--"] + argv
            env = dict(base, **wenv, **({} if i < 0 else extra))
            t = time.monotonic()
            rc, out = proc.run_group(cmd, a.timeout, env)
            text = out.decode("utf-8", "replace")
            r = {"workload": w, "mode": mode, "run": i, "rc": rc, "wall_s": round(time.monotonic() - t, 2),
                 "ok": any(re.search(okre, line) for line in text.splitlines())}
            if i >= 0:
                r["facts"] = report_facts(db) if os.path.exists(db) else None
            if rc != 0 or not r["ok"]:
                r["tail"] = text[-300:]
            runs.append(r)
            print("[%6.1fs] %s %s %d: rc %d, ok %s, %.1f s, facts %s" % (
                time.monotonic() - t0, w, mode, i, rc, r["ok"], r["wall_s"], r.get("facts")), flush=True)
    header = ["- %s UTC; %s; stage %s" % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), benchlib.gpu_name(),
                                           benchlib.stage_commit(stage)),
              "- %d runs a workload under `gpuhier run --no-analyze`%s after one native run, one at a time, "
              "%d s limit a run; %.0f s in all" % (
                  a.runs, (" with " + " ".join(a.env)) if a.env else " (the default)", a.timeout,
                  time.monotonic() - t0)]
    return runs, header


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", default=".stage")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(here, "..")))
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--budget", type=float, default=540)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--reuse", default="")
    a = ap.parse_args(argv[1:])
    a.workloads = [w for w in WORKLOADS if w in a.workloads.split(",")]
    if not a.workloads:
        ap.error("--workloads: none of %s" % ",".join(WORKLOADS))
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    if any("=" not in kv for kv in a.env):
        ap.error("--env takes KEY=VALUE")
    return benchlib.runs_table(a.out, "graph-arming", a.reuse, lambda: measure(a),
                               lambda runs, header: markdown(summarise(runs), header))

if __name__ == "__main__":
    sys.exit(main(sys.argv))
