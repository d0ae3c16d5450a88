#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/stress/stress.py: does gpuhier change how a short program ends? (issue 16)

Runs each row (a way a CUDA program ends) RUNS times natively and RUNS times
under each gpuhier mode (default profiling, --mode trace, --sample all), in
parallel, each run in its own empty directory, and compares every run with
the row's native reference:

  status  the exit status (or signal) is the native one
  stdout  byte for byte
  stderr  byte for byte once gpuhier's own lines (those starting with
          '==gpuhier==') are taken out
  report  the reports written (as many as the row expects: fork's child and
          exec's first image are covered) open read-only, pass
          PRAGMA quick_check, have run.end_ns, no -wal or -journal beside
          them, clean_exit = 1 for a normal end, or clean_exit = 0 with a
          `signal` event naming the signal for a death by signal, and at
          least the row's minimum of launches

Prints a table (Markdown) and writes it with the environment to --out.
Usage: stress.py --stage STAGE [--runs 200] [--jobs 12] [--rows a,b] [--modes ...]
         [--out docs/stress-....md] [--json file]
       stress.py --merge A.json B.json ... [--out table.md]   (no GPU)

--json writes the build (the SHA-256 of the staged gpuhier and
libgpuhier-collector.so: the bytes that ran, whatever commit they came
from), the stage commit, the date and every cell. --merge adds up the cells
of rounds run on the same build, in several device calls or sessions, into
one table (issue 16 asks 200 runs a cell of one build, more than one
session's device time holds); a file of another build, or one written
before builds were recorded, is refused by name, exit 2.
STAGE holds gpuhier, libgpuhier-collector.so and gpu/stress_app
(scripts/stage.sh). Rows' programs other than stress_app: 'torch' (a PyTorch
one-liner, needs python3 with torch).
"""
import argparse
import concurrent.futures as cf
import datetime
import hashlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import gpu_name, stage_commit  # noqa: E402

TORCH = "import torch; print(torch.ones(1, device='cuda').sum().item())"

# name: (argv after the program, reports expected under gpuhier, minimum launches, signal or 0)
ROWS = {
    "ret": (["ret"], 1, 1, 0),
    "exit": (["exit"], 1, 1, 0),
    "thread_exit": (["thread_exit"], 1, 1, 0),
    "bg": (["bg"], 1, 1, 0),
    "bg_race": (["bg_race"], 1, 1, 0),
    "jit": (["ret"], 1, 1, 0),
    "rtshared": (["ret"], 1, 1, 0),
    "devreset": (["devreset"], 1, 1, 0),
    "nosync": (["nosync"], 1, 1, 0),
    "fork": (["fork"], 1, 1, 0),
    "exec": (["exec"], 2, 1, 0),
    "torch": (None, 1, 1, 0),
    "abort": (["die", "abort", "1000"], 1, 1000, signal.SIGABRT),
    "segv": (["die", "segv", "1000"], 1, 1000, signal.SIGSEGV),
    "bus": (["die", "bus", "1000"], 1, 1000, signal.SIGBUS),
    "fpe": (["die", "fpe", "1000"], 1, 1000, signal.SIGFPE),
    "ill": (["die", "ill", "1000"], 1, 1000, signal.SIGILL),
    "term": (["die", "term", "1000"], 1, 1000, signal.SIGTERM),
    "int": (["die", "int", "1000"], 1, 1000, signal.SIGINT),
    "hup": (["die", "hup", "1000"], 1, 1000, signal.SIGHUP),
    "own_abort": (["own", "abort", "1000"], 1, 1000, signal.SIGABRT),
    "own_term": (["own", "term", "1000"], 1, 1000, signal.SIGTERM),
}
# rows whose program is another build of stress_app (tests/collector.cmake)
PROGRAM = {"jit": "stress_app_jit", "rtshared": "stress_app_rtshared"}
# --sample all would profile each of a death row's 1000 kernels (minutes a run):
# point 3 of issue 16 asks these of the default and trace modes
NOT_ALL = {r for r, v in ROWS.items() if v[3]}
MODES = {
    "native": None,
    "default": [],
    "trace": ["--mode", "trace"],
    "all": ["--sample", "all"],
}


def argv_of(stage, row):
    args = ROWS[row][0]
    if args is None:
        return [sys.executable if os.environ.get("STRESS_PYTHON") is None else os.environ["STRESS_PYTHON"],
                "-c", TORCH]
    return [os.path.join(stage, "gpu", PROGRAM.get(row, "stress_app"))] + args


def filt(err):
    return b"".join(l for l in err.splitlines(True) if not l.startswith(b"==gpuhier=="))


def check_report(path, minimum, sig):
    """(why, (profiled, instrumented)): why is '' when the report is whole and
    closed as expected, else why not; profiled counts its launches the range
    profiler profiled, instrumented those the instrumentation engine served
    (inst_launch; under both engines a one-kernel program's one launch)."""
    prof = (0, 0)
    for side in ("-wal", "-journal"):
        if os.path.exists(path + side):
            return "%s left beside it" % side, prof
    try:
        c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        if c.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            return "quick_check failed", prof
        end, clean = c.execute("SELECT end_ns, clean_exit FROM run").fetchone()
        n = c.execute("SELECT count(*) FROM launch").fetchone()[0]
        sigs = c.execute("SELECT count(*) FROM event WHERE code = 'signal' AND message LIKE ?",
                         ("%%%s%%" % signal.Signals(sig).name,)).fetchone()[0] if sig else 0
        # the first image of an exec'ing process: closed by the next image, clean_exit 0
        execs = c.execute("SELECT count(*) FROM event WHERE code = 'exec'").fetchone()[0]
        prof = (c.execute("SELECT count(*) FROM launch WHERE profiled = 1").fetchone()[0],
                c.execute("SELECT count(*) FROM inst_launch").fetchone()[0])
        c.close()
    except (sqlite3.Error, TypeError) as e:
        return "does not open: %s" % e, prof
    if end is None:
        return "not closed (no end_ns)", prof
    if sig and (clean != 0 or sigs != 1):
        return "death by %s not recorded (clean_exit %s, signal events %d)" % (
            signal.Signals(sig).name, clean, sigs), prof
    if not sig and clean != 1 and not (clean == 0 and execs == 1):
        return "clean_exit %s" % clean, prof
    if execs == 1:
        minimum = 0  # exec runs no exit handler: its last 0.5 s (here, its one kernel) may be missing
    if n < minimum:
        return "%d launches, fewer than %d" % (n, minimum), prof
    return "", prof


def one(stage, row, mode, timeout):
    d = tempfile.mkdtemp(prefix="stress-")
    try:
        cmd = argv_of(stage, row)
        if MODES[mode] is not None:
            # STRESS_ANALYZE=1: as a user runs it, with the analysis after the program
            cmd = ([os.path.join(stage, "gpuhier"), "run"] +
                   ([] if os.environ.get("STRESS_ANALYZE") == "1" else ["--no-analyze"]) +
                   MODES[mode] + ["--"] + cmd)
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, cwd=d, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = "timeout", e.stdout or b"", e.stderr or b""
        wall = time.monotonic() - t0
        reports = sorted(f for f in os.listdir(d) if f.endswith(".db"))
        why = []
        profiled = instrumented = 0
        if MODES[mode] is not None:
            _, want, minimum, sig = ROWS[row]
            if len(reports) != want:
                why.append("%d reports, expected %d (%s)" % (len(reports), want, " ".join(os.listdir(d))))
            # exec: the first image's report has the first kernel; the second one's, its own
            for r in reports:
                w, p = check_report(os.path.join(d, r), minimum if len(reports) == 1 else 1, sig)
                if w:
                    why.append("%s: %s" % (r, w))
                profiled += p[0]
                instrumented += p[1]
        return {"row": row, "mode": mode, "rc": rc, "out": out, "err": filt(err), "raw_err": err,
                "wall": wall, "why": why, "profiled": profiled,
                "instrumented": instrumented}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def build_id(stage):
    """SHA-256 (first 16 hex digits) of the staged CLI and collector: the build that ran."""
    h = hashlib.sha256()
    for name in ("gpuhier", "libgpuhier-collector.so"):
        with open(os.path.join(stage, name), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:16]


COUNTS = ("runs", "failed", "status", "stdout", "stderr", "report", "with_profile", "with_inst")


def merge(paths):
    """(build, [rounds], {(row, mode): cell}) of the rounds in `paths`; ValueError if builds differ."""
    builds, rounds, cells = {}, [], {}
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        b = d.get("build") if isinstance(d, dict) else None
        if not b:
            raise ValueError("%s: no build recorded (written before stress.py recorded builds)" % p)
        builds.setdefault(b, []).append(p)
        rounds.append({"file": p, "build": b, "stage_commit": d.get("stage_commit"), "date": d.get("date")})
        for c in d["cells"]:
            k = (c["row"], c["mode"])
            m = cells.setdefault(k, {"row": c["row"], "mode": c["mode"], "native_endings": 0,
                                     "first_failure": "", **{x: 0 for x in COUNTS}})
            for x in COUNTS:
                # with_inst: rounds before it was recorded leave the sum unknown (None)
                m[x] = None if m[x] is None or x not in c else m[x] + c[x]
            m["native_endings"] = max(m["native_endings"], c.get("native_endings", 0))
            if not m["first_failure"] and c.get("first_failure"):
                m["first_failure"] = "%s: %s" % (os.path.basename(p), c["first_failure"])
    if len(builds) > 1:
        raise ValueError("rounds of different builds: " + "; ".join(
            "%s: %s" % (b, ", ".join(ps)) for b, ps in builds.items()))
    return next(iter(builds)), rounds, cells


def merged_table(build, rounds, cells):
    L = ["## Stress rounds of build %s, added up" % build, ""]
    for r in rounds:
        L.append("- %s: %s UTC, stage commit %s" % (r["file"], r["date"], r["stage_commit"]))
    fails = sum(c["failed"] for c in cells.values())
    L += ["- %d runs in %d rounds; **%d failed**" % (sum(c["runs"] for c in cells.values()), len(rounds), fails),
          "", "| row | mode | runs | failed | status | stdout | stderr | report | runs with a profile "
          "| runs instrumented | native endings (most in a round) | first failure |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (row, mode), c in cells.items():
        L.append("| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |" % (
            row, mode, c["runs"], c["failed"], c["status"], c["stdout"], c["stderr"], c["report"],
            c["with_profile"] if mode in ("default", "all") else "",
            ("n/a" if c["with_inst"] is None else c["with_inst"]) if mode in ("default", "all") else "",
            c["native_endings"] if mode == "native" else "",
            c["first_failure"].replace("|", "\\|").replace("\n", "\\n")[:300]))
    return "\n".join(L) + "\n", fails


def main_merge(paths, out=None):
    try:
        build, rounds, cells = merge(paths)
    except (OSError, ValueError, KeyError) as e:
        print("stress.py --merge: %s" % e, file=sys.stderr)
        return 2
    text, fails = merged_table(build, rounds, cells)
    sys.stdout.write(text)
    if out:
        with open(out, "w") as f:
            f.write(text)
    return 1 if fails else 0


def main():
    if "--merge" in sys.argv:
        ap = argparse.ArgumentParser()
        ap.add_argument("--merge", nargs="+", required=True)
        ap.add_argument("--out")
        a = ap.parse_args()
        return main_merge(a.merge, a.out)
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--native-runs", type=int, default=None,
                    help="native runs per row (default: --runs); they give the reference")
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--rows", default=",".join(r for r in ROWS if r != "torch"))
    ap.add_argument("--modes", default="native,default,trace,all")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds after which no new run starts (the runs are taken round by round, "
                         "so every cell gets the same count, give or take one); 0: none")
    ap.add_argument("--out")
    ap.add_argument("--json")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    stage = os.path.abspath(a.stage)
    rows = [r for r in a.rows.split(",") if r]
    modes = [m for m in a.modes.split(",") if m]
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    nruns = a.runs if a.native_runs is None else a.native_runs
    jobs = [(r, m) for i in range(max(a.runs, nruns)) for r in rows for m in modes
            if not (m == "all" and r in NOT_ALL)
            and i < (nruns if m == "native" else a.runs)]
    res = {}
    def job(rm):
        if a.deadline and time.monotonic() - t0 > a.deadline:
            return None
        return one(stage, rm[0], rm[1], a.timeout)
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for x in ex.map(job, jobs):
            if x is not None:
                res.setdefault((x["row"], x["mode"]), []).append(x)
    skipped = len(jobs) - sum(len(v) for v in res.values())
    elapsed = time.monotonic() - t0
    lines = ["| row | mode | runs | failed | status | stdout | stderr | report | runs with a profile | runs instrumented | native endings | median s | first failure |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    total_fail = 0
    summary = []
    for r in rows:
        nat = res.get((r, "native"), [])
        # the reference is the native runs' most common ending; a row whose
        # native runs end in more than one way is not deterministic natively,
        # and the table says so (column "native endings")
        endings = {}
        for x in nat:
            endings.setdefault((x["rc"], x["out"], x["err"]), []).append(x)
        ref = max(endings.values(), key=len)[0] if endings else None
        for m in modes:
            xs = res.get((r, m), [])
            if not xs:
                continue
            bad = {"status": 0, "stdout": 0, "stderr": 0, "report": 0}
            failed, first = 0, ""
            for x in xs:
                f = []
                if ref is not None and x["rc"] != ref["rc"]:
                    bad["status"] += 1
                    f.append("status %s, native %s" % (x["rc"], ref["rc"]))
                if ref is not None and x["out"] != ref["out"]:
                    bad["stdout"] += 1
                    f.append("stdout %r, native %r" % (x["out"][:80], ref["out"][:80]))
                if ref is not None and x["err"] != ref["err"]:
                    bad["stderr"] += 1
                    f.append("stderr %r, native %r" % (x["err"][-160:], ref["err"][-160:]))
                if x["why"]:
                    bad["report"] += 1
                    f.append("; ".join(x["why"]))
                if f:
                    failed += 1
                    if not first:
                        first = " / ".join(f)
                        if x["raw_err"]:
                            first += " / stderr tail %r" % x["raw_err"][-300:]
            total_fail += failed
            walls = sorted(x["wall"] for x in xs)
            med = walls[len(walls) // 2] if walls else 0
            withprof = sum(1 for x in xs if x["profiled"])
            withinst = sum(1 for x in xs if x["instrumented"])
            lines.append("| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %.2f | %s |" % (
                r, m, len(xs), failed, bad["status"], bad["stdout"], bad["stderr"],
                bad["report"] if m != "native" else 0,
                withprof if m in ("default", "all") else "",
                withinst if m in ("default", "all") else "",
                len(endings) if m == "native" else "", med,
                first.replace("|", "\\|").replace("\n", "\\n")[:400]))
            summary.append({"row": r, "mode": m, "runs": len(xs), "failed": failed, **bad,
                            "median_s": med, "with_profile": withprof, "with_inst": withinst,
                            "native_endings": len(endings), "first_failure": first[:2000],
                            "native_status": ref["rc"] if ref else None})
    head = ["## %s" % (a.title or "Stress run"), "",
            "- date: %s UTC; host %s; %s" % (started.strftime("%Y-%m-%d %H:%M"), socket.gethostname(),
                                             gpu_name()),
            "- command: `bench/stress/stress.py --runs %d --native-runs %d --jobs %d --rows %s --modes %s`; stage commit %s, build %s" % (
                a.runs, nruns, a.jobs, a.rows, a.modes, stage_commit(stage), build_id(stage)),
            "- %d runs in %.0f s%s; **%d failed**" % (
                len(jobs) - skipped, elapsed,
                " (%d not started: the %.0f s deadline passed)" % (skipped, a.deadline) if skipped else "",
                total_fail), ""]
    text = "\n".join(head + lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"build": build_id(stage), "stage_commit": stage_commit(stage),
                       "date": started.strftime("%Y-%m-%d %H:%M"), "cells": summary}, f, indent=1)
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
