#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/instrument_cost.py: what the instrumentation engine costs (issue 17 point 7).

Usage: instrument_cost.py --stage STAGE --out DIR [--budget S] [--reps N] [--workloads a,b]
       instrument_cost.py --reuse DIR/instrument-cost.json --out DIR   (table again, no GPU)

Four workloads, each in four modes, REPS (default 3) runs of each, the
modes interleaved run by run (so drift spreads over all of them):
  pytorch        bench/pytorch_train.py --steps 20 --warmup 3 (COST_PT_ARGS)
  hf_gpt2        bench/suite/hf_gpt2.py (GPT-2 small from its config, a few steps)
  torch_compile  bench/suite/torch_compile.py (Inductor's Triton kernels; one
                 untimed native run first compiles into a cache the timed runs share)
  jax_mlp        bench/suite/jax_mlp.py (JAX's default preallocation:
                 XLA_PYTHON_CLIENT_PREALLOCATE is removed from the environment)
modes (--modes / COST_MODES picks some): native (the program alone), default (`gpuhier run`: the range
profiler's one-pass groups), inst (GPUHIER_INSTRUMENT=1: each
configuration's first launch instrumented, no range profiler), both
(GPUHIER_INSTRUMENT=both), and, only when --modes names it, inst-chain
(inst with GPUHIER_DIAG_SASS_CHAIN=1: instrumented launches in a row share
one enable, docs/collector.md "Chained instrumented launches"; the
collector's default since 2026-12-05, so the same as inst from then on;
its targets are printed as a candidate's), inst-lean (only when named: inst
without smsp__sass_thread_inst_executed, which no rule reads; a candidate
too, until the collector stopped asking for it on 2026-12-06: the same as
inst from then on), inst-nvsync (only when named: inst with
GPUHIER_DIAG_NVPERF_SYNC=1, nvperf opened in the collector's start on the
program's thread, the form before 2026-12-06 15:57 UTC; a candidate's
targets), inst-floor (only when named: inst with the list cut to
smsp__sass_inst_executed alone, the floor of the engine's cost per
configuration whatever its metric list; a diagnosis), and trace (`gpuhier run --mode
trace`: activity tracing alone, no counter engine), which gives the PyTorch
target a second reading: what the instrumentation adds over the tracing it
rides on (inst median / trace median), beside inst / native, which holds
tracing's own cost.

Per workload and mode: median wall time of the runs (whole process, the
profiler's start and report included), the ratio to native's median,
instrumented launches (inst_launch rows), and the time added per
instrumented launch: inst_launch.overhead_ns (the collector's CPU-clock wall
time of enable, the patched run, flush and decode: schema.sql), median and
p95 (nearest rank) over every instrumented launch of the mode's runs; beside
it the wall-time estimate (median inst - median native) / instrumented
launches, an upper bound (it holds tracing's cost too).
Targets (issue 17 point 7), checked in the table: median added time per
instrumented launch <= 10 ms (every workload, inst mode); instrumentation
of every configuration's first launch adds <= 10 % to the PyTorch
benchmark's wall time (inst median / native median <= 1.10; where trace ran,
also inst median / trace median, the instrumentation's share alone).
Each workload gets one untimed native run first (--no-warmup: none; torch_compile's
is its compile run). Beside the wall times, the engine's own account from each
report's meta: its time in all (instrumented_launches) and how much of the
patched run was the launch calls, where lazy patching happens
(instrumented_launch_calls); and, in a table of its own, what lies outside
the launches' phases: the profiler's set-up at the context's creation
(instrumentation_setup), the writer's rows and its last batch at exit
(instrumentation_rows), the collector's start (collector_init_ms) and, of
it, loading CUPTI (collector_init_parts); the profiler's libraries (nvperf),
opened on a thread of their own, and the profiler's wait for them
(nvperf_open).
A run that would not fit the budget is skipped and the table says so.
Writes DIR/instrument-cost.md and DIR/instrument-cost.json; exit 0.
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "e2e"))
import proc  # noqa: E402

sys.path.insert(0, here)
import benchlib  # noqa: E402

try:
    import sqlite3
except ImportError:
    sys.exit("instrument_cost: this python3 has no sqlite3 module")

MODES = ("native", "trace", "default", "inst", "inst-chain", "inst-lean", "inst-nvsync", "inst-floor", "both")
# the modes run unless --modes names others: the candidates are run when asked for
DEFAULT_MODES = ("native", "default", "inst", "both")
CANDIDATES = ("inst-chain", "inst-lean", "inst-nvsync", "inst-floor")
MODE_ENV = {"inst": {"GPUHIER_INSTRUMENT": "1"}, "both": {"GPUHIER_INSTRUMENT": "both"},
            "inst-chain": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_SASS_CHAIN": "1"},
            # nvperf opened in the collector's start, on the program's thread (the form before
            # 2026-12-06 15:57 UTC), against `inst`'s open on a thread of its own
            "inst-nvsync": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_NVPERF_SYNC": "1"},
            # one metric, the one every list holds (it patches every instruction): the floor of
            # what the engine costs per configuration whatever the list (a diagnosis, run only when named)
            "inst-floor": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_SASS_METRICS": "smsp__sass_inst_executed"},
            # the engine's list less the one metric no rule or view reads beyond v_inst's column
            "inst-lean": {"GPUHIER_INSTRUMENT": "1",
                          "GPUHIER_DIAG_SASS_METRICS": "-smsp__sass_thread_inst_executed"}}
# the collector's own account read from each report's meta (read_report()): (meta key, pattern,
# the ACCOUNT fields its groups give). The engine's time in all, and the part of the patched run
# spent in the launch calls (lazy patching); what lies outside the launches' phases (since
# 2026-12-06): the profiler's set-up at the context's creation, the writer's rows and its last
# batch at exit, the collector's start and, of it, loading CUPTI (nvperf too before 2026-12-06
# 15:57 UTC; since, on a thread of its own: nvperf_open)
META_READS = (
    ("instrumented_launches", r"\d+ launches, ([\d.]+) ms", ("engine_ms",)),
    ("instrumented_launch_calls", r"([\d.]+) ms of the patched run in the launch calls", ("call_ms",)),
    ("instrumentation_setup", r"([\d.]+) ms initializing the profiler", ("setup_ms",)),
    ("instrumentation_rows", r"([\d.]+) ms writing \d+ inst_launch rows.*the last batch at exit ([\d.]+) ms",
     ("rows_ms", "exit_ms")),
    ("collector_init_ms", r"([\d.]+)$", ("init_ms",)),
    ("collector_init_parts", r"loading CUPTI ([\d.]+) ms", ("cupti_ms",)),
    # since the session of 2026-12-06 15:57 UTC nvperf opens on its own thread after the start
    ("nvperf_open", r"opened in ([\d.]+) ms .*waited for ([\d.]+) ms", ("nvperf_ms", "nvperf_wait_ms")),
)
# medians per mode (summarise())
ACCOUNT = tuple(f for _, _, fields in META_READS for f in fields)
TARGET_MS = 10.0
TARGET_PT_RATIO = 1.10
# per run, seconds allowed (its timeout; a third of it is the first guess of
# native's time, before a run of the workload is timed). A mode whose run
# times out is not run again for that workload.
LIMIT = {"pytorch": 90, "hf_gpt2": 120, "torch_compile": 120, "jax_mlp": 120}
# the untimed compile run of torch_compile: past 120 s on the H200 with one compile thread (2026-12-01);
# it runs natively, so it gets the machine's cores (the timed runs keep one thread and read the cache)
COMPILE_LIMIT = 300


def workloads(root):
    py = sys.executable
    pt = os.environ.get("COST_PT_ARGS", "--steps 20 --warmup 3").split()
    s = os.path.join(root, "bench", "suite")
    return [("pytorch", [py, os.path.join(root, "bench", "pytorch_train.py")] + pt),
            ("hf_gpt2", [py, os.path.join(s, "hf_gpt2.py")]),
            ("torch_compile", [py, os.path.join(s, "torch_compile.py")]),
            ("jax_mlp", [py, os.path.join(s, "jax_mlp.py")])]


def median(xs):
    return statistics.median(xs) if xs else None


def p95(xs):
    """Nearest-rank 95th percentile."""
    if not xs:
        return None
    v = sorted(xs)
    return v[max(0, math.ceil(0.95 * len(v)) - 1)]


def read_report(path):
    """{launches, range_profiled, instrumented, overhead_ns: [..]} of one report."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        r = {"launches": db.execute("SELECT count(*) FROM launch").fetchone()[0],
             "range_profiled": db.execute("SELECT COALESCE(sum(profiled), 0) FROM launch").fetchone()[0]}
        tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "inst_launch" in tables:
            r["instrumented"] = db.execute("SELECT count(*) FROM inst_launch").fetchone()[0]
            r["overhead_ns"] = [v for (v,) in db.execute(
                "SELECT overhead_ns FROM inst_launch WHERE overhead_ns IS NOT NULL")]
        else:
            r["instrumented"], r["overhead_ns"] = 0, []
        # the collector's own account (meta, written at a clean exit): META_READS
        if "meta" in tables:
            keys = [k for k, _, _ in META_READS]
            meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN (%s)" % ",".join("?" * len(keys)),
                                   keys))
            for key, pattern, fields in META_READS:
                m = re.match(pattern, meta.get(key, ""))
                if m:
                    r.update(zip(fields, map(float, m.groups())))
        return r
    finally:
        db.close()


def summarise(runs):
    """runs: [dict(workload, mode, wall_s, rc, report={...} or None, skipped)].
    Returns {workload: {mode: row}}, row = dict(n, median_s, ratio,
    instrumented, added_med_ms, added_p95_ms, added_wall_ms, failed, account:
    {ACCOUNT key: the runs' median or None})."""
    out = {}
    for r in runs:
        w = out.setdefault(r["workload"], {})
        row = w.setdefault(r["mode"], {"walls": [], "inst": [], "over": [], "failed": 0, "skipped": 0, "by_rep": {},
                                       "acct": {k: [] for k in ACCOUNT}})
        row["by_rep"][r.get("rep", 0)] = None if r.get("skipped") else (r.get("wall_s"), r.get("rc"))
        if r.get("skipped"):
            row["skipped"] += 1
            continue
        if r.get("rc") != 0:
            row["failed"] += 1
            continue
        row["walls"].append(r["wall_s"])
        rep = r.get("report") or {}
        row["inst"].append(rep.get("instrumented", 0))
        row["over"] += rep.get("overhead_ns", [])
        for key, vals in row["acct"].items():
            if rep.get(key) is not None:
                vals.append(rep[key])
    for w, modes in out.items():
        nat = median(modes.get("native", {}).get("walls", []))
        for m, row in modes.items():
            row["n"] = len(row["walls"])
            row["median_s"] = median(row["walls"])
            row["ratio"] = row["median_s"] / nat if nat and row["median_s"] is not None else None
            row["instrumented"] = median(row["inst"])
            row["added_med_ms"] = median(row["over"]) / 1e6 if row["over"] else None
            row["added_p95_ms"] = p95(row["over"]) / 1e6 if row["over"] else None
            row["account"] = {key: median(vals) for key, vals in row["acct"].items()}
            row["added_wall_ms"] = (1e3 * (row["median_s"] - nat) / row["instrumented"]
                                    if nat and row["median_s"] is not None and row["instrumented"] else None)
    return out


def pairs_text(summ, w, base, mode):
    """' (pairs 1.05-1.21)': the ratios of MODE's runs over BASE's of the same rep, or ''."""
    b, m = summ.get(w, {}).get(base), summ.get(w, {}).get(mode)
    if not b or not m:
        return ""
    reps = sorted(set(b["by_rep"]) | set(m["by_rep"]))
    return benchlib.paired_text([b["by_rep"].get(i) for i in reps], [m["by_rep"].get(i) for i in reps], 3)


def targets(summ, mode="inst"):
    """[(what, value text, ok or None when not measured)] of `mode` (inst: the engine as it is;
    inst-chain: the candidate, only where it ran)."""
    out = []
    tag = "" if mode == "inst" else " (%s, a candidate)" % mode
    for w, modes in summ.items():
        row = modes.get(mode)
        v = row and row.get("added_med_ms")
        out.append(("%s%s: median added time per instrumented launch <= %.0f ms" % (w, tag, TARGET_MS),
                    "%.2f ms" % v if v is not None else "not measured",
                    (v <= TARGET_MS) if v is not None else None))
    pt = summ.get("pytorch", {}).get(mode)
    v = pt and pt.get("ratio")
    out.append(("pytorch%s: first-launch instrumentation adds <= %.0f %% (%s / native <= %.2f)"
                % (tag, 100 * (TARGET_PT_RATIO - 1), mode, TARGET_PT_RATIO),
                "%.3fx%s" % (v, pairs_text(summ, "pytorch", "native", mode)) if v is not None else "not measured",
                (v <= TARGET_PT_RATIO) if v is not None else None))
    tr = summ.get("pytorch", {}).get("trace")
    if pt and tr and pt.get("median_s") is not None and tr.get("median_s"):
        v = pt["median_s"] / tr["median_s"]
        out.append(("pytorch%s: the same over tracing alone (%s / trace <= %.2f; tracing's own cost left out)"
                    % (tag, mode, TARGET_PT_RATIO), "%.3fx%s" % (v, pairs_text(summ, "pytorch", "trace", mode)),
                    v <= TARGET_PT_RATIO))
    return out


def all_targets(summ):
    """The engine's targets, then each candidate's where any workload ran it."""
    out = targets(summ)
    for c in CANDIDATES:
        if any(c in modes for modes in summ.values()):
            out += targets(summ, c)
    return out


def f(v, spec="%.2f"):
    return spec % v if v is not None else "-"


def markdown(summ, header, notes):
    L = ["## Cost of the instrumentation engine (issue 17 point 7)", ""] + header + [""]
    L += ["| workload | mode | runs | median wall s | x native | instrumented launches | added ms/launch median | p95 | wall-time estimate ms/launch | failed | skipped | the engine's own time, ms (meta, median) | of its patched run, in the launch calls, ms |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for w, modes in summ.items():
        for m in MODES:
            row = modes.get(m)
            if not row:
                continue
            L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s |" % (
                w, m, row["n"], f(row["median_s"]), f(row["ratio"], "%.3f"), f(row["instrumented"], "%d"),
                f(row["added_med_ms"]), f(row["added_p95_ms"]), f(row["added_wall_ms"]), row["failed"],
                row["skipped"], f(row["account"]["engine_ms"], "%.0f"), f(row["account"]["call_ms"], "%.0f")))
    acct = [(w, m, modes[m]["account"]) for w, modes in summ.items() for m in MODES
            if m in modes and any(v is not None for k, v in modes[m]["account"].items()
                                  if k not in ("engine_ms", "call_ms"))]
    if acct:
        L += ["", "Outside the launches' phases (each report's meta, medians): the profiler's set-up at the "
              "context's creation, the writer's instrumentation rows (its own thread) and its last batch at "
              "exit, the collector's start and, of it, loading CUPTI; the profiler's libraries (nvperf), "
              "opened on a thread of their own after the start, and how long the profiler's first call "
              "waited for them.", "",
              "| workload | mode | profiler set-up ms | writer's rows ms | last batch at exit ms | collector start ms "
              "| of it, loading CUPTI ms | nvperf open ms | waited for it ms |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for w, m, a in acct:
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                w, m, f(a["setup_ms"], "%.1f"), f(a["rows_ms"], "%.1f"), f(a["exit_ms"], "%.1f"),
                f(a["init_ms"], "%.1f"), f(a["cupti_ms"], "%.1f"), f(a["nvperf_ms"], "%.1f"),
                f(a["nvperf_wait_ms"], "%.1f")))
    L += ["", "| target | measured | verdict |", "| --- | --- | --- |"]
    for what, v, ok in all_targets(summ):
        L.append("| %s | %s | %s |" % (what, v, "not measured" if ok is None else ("met" if ok else "**NOT met**")))
    if notes:
        L += [""] + ["- " + n for n in notes]
    return "\n".join(L) + "\n"


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", default=".stage")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(here, "..")))
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=float(os.environ.get("COST_BUDGET_S", "300")))
    ap.add_argument("--reps", type=int, default=int(os.environ.get("COST_REPS", "3")))
    ap.add_argument("--workloads", default=os.environ.get("COST_WORKLOADS", ""))
    ap.add_argument("--modes", default=os.environ.get("COST_MODES", ",".join(DEFAULT_MODES)),
                    help="modes to run, of %s (native is the ratios' base; default %s)"
                    % (",".join(MODES), ",".join(DEFAULT_MODES)))
    ap.add_argument("--reuse", default="")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false",
                    help="no untimed native run before a workload's timed runs")
    a = ap.parse_args(argv[1:])
    a.modes = [m for m in MODES if m in a.modes.split(",")]
    if not a.modes:
        ap.error("--modes: none of %s" % ",".join(MODES))
    os.makedirs(a.out, exist_ok=True)
    notes = []
    if a.reuse:
        data = json.load(open(a.reuse))
        runs, header = data["runs"], data["header"] + ["- recomputed from %s" % a.reuse]
    else:
        runs, header = measure(a, notes)
    summ = summarise(runs)
    text = markdown(summ, header, notes)
    sys.stdout.write(text)
    with open(os.path.join(a.out, "instrument-cost.md"), "w") as fo:
        fo.write(text)
    with open(os.path.join(a.out, "instrument-cost.json"), "w") as fo:
        json.dump({"header": header, "runs": runs, "notes": notes}, fo, indent=0)
    return 0


def measure(a, notes):
    t0 = time.monotonic()
    deadline = t0 + a.budget
    stage = os.path.abspath(a.stage)
    gh = os.path.join(stage, "gpuhier")
    work = os.path.join("/tmp", "instrument-cost-%d" % os.getpid())
    os.makedirs(work)
    cache = os.path.join(work, "cache")
    env = dict(os.environ, PYTHONUNBUFFERED="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               TORCHINDUCTOR_CACHE_DIR=cache + "/inductor", TRITON_CACHE_DIR=cache + "/triton",
               TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("XLA_PYTHON_CLIENT_PREALLOCATE", None)  # JAX's default preallocation
    env.pop("GPUHIER_INSTRUMENT", None)
    want = [w for w in a.workloads.split(",") if w]
    runs, took, hung = [], {}, set()
    for name, argv in workloads(a.root):
        if want and name not in want:
            continue
        if name == "torch_compile":  # compile once, untimed, into the shared cache
            ce = dict(env, TORCHINDUCTOR_COMPILE_THREADS=str(os.cpu_count() or 1))
            rc, _ = proc.run_group(argv, max(5.0, min(COMPILE_LIMIT, deadline - time.monotonic())), ce)
            notes.append("torch_compile: untimed native run first (compiles into the cache; status %d)" % rc)
        elif a.warmup and "native" in a.modes:
            # one untimed native run first: a call's first run loads the libraries from a cold disk
            # cache (the slowest of 25 runs on 2026-12-06, 17.1 s against a 13.4 s median)
            rc, _ = proc.run_group(argv, max(5.0, min(LIMIT[name], deadline - time.monotonic() - 5)), env)
            notes.append("%s: one untimed native run first (status %d)" % (name, rc))
        for rep in range(a.reps):
            for mode in a.modes:
                # a mode not timed yet: three times native's time, native's first: a third of the limit
                guess = took.get((name, mode)) or (3 * took[(name, "native")] if (name, "native") in took
                                                   else LIMIT[name] / 3)
                left = deadline - time.monotonic()
                r = {"workload": name, "mode": mode, "rep": rep}
                if (name, mode) in hung:
                    r["skipped"] = "an earlier run of this mode ran past its limit: not repeated"
                    runs.append(r)
                    continue
                if left < guess * 1.2 + 5:
                    r["skipped"] = "budget: %.0f s left, the run takes about %.0f s" % (left, guess)
                    runs.append(r)
                    continue
                stem = os.path.join(work, "%s-%s-%d" % (name, mode, rep))
                cmd = argv if mode == "native" else ([gh, "run", "-q", "-f", "--no-analyze", "-o", stem + "-%p.db"]
                                                     + (["--mode", "trace"] if mode == "trace" else [])
                                                     + ["--"] + argv)
                e = dict(env)
                e.update(MODE_ENV.get(mode, {}))
                t = time.monotonic()
                rc, out = proc.run_group(cmd, max(5.0, min(LIMIT[name], left - 5)), e)
                if rc == 124:  # a hang (GPUHIER_INSTRUMENT=both's deadlock, docs/collector.md) costs once
                    hung.add((name, mode))
                r["wall_s"] = round(time.monotonic() - t, 3)
                r["rc"] = rc
                took[(name, mode)] = r["wall_s"]
                if rc != 0:
                    r["tail"] = out.decode("utf-8", "replace")[-400:]
                # one report per CUDA process (%p); the program's own is the one with most launches
                dbs = sorted(glob.glob(glob.escape(stem) + "-*.db"), key=os.path.getsize)
                if mode != "native" and dbs:
                    try:
                        r["report"] = read_report(dbs[-1])
                    except sqlite3.Error as ex:
                        r["report_error"] = str(ex)
                    r["reports"] = len(dbs)
                for i, db in enumerate(dbs):
                    if not (name == "pytorch" and rep == 0 and i == len(dbs) - 1):
                        os.remove(db)  # keep one report per mode (the first PyTorch run's)
                print("[%5.1fs] %s %s #%d: status %d, %.2f s" % (time.monotonic() - t0, name, mode, rep, rc,
                                                                 r["wall_s"]), flush=True)
                runs.append(r)
    keep = os.path.join(a.out, "cost-reports")
    os.makedirs(keep, exist_ok=True)
    for fn in os.listdir(work):
        if fn.endswith(".db"):
            shutil.move(os.path.join(work, fn), os.path.join(keep, fn))
    header = ["- %s, %d runs per mode, modes interleaved; %.0f s." % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), a.reps, time.monotonic() - t0)]
    return runs, header


if __name__ == "__main__":
    sys.exit(main(sys.argv))
