#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/inst_hang.py: how often the instrumentation engine hangs a program, counted.

Usage: inst_hang.py --stage STAGE --out DIR [--rounds N] [--jobs K] [--timeout S]
                    [--budget S] [--modes a,b] [-- PROGRAM ARGS...]
       inst_hang.py --reuse DIR/inst-hang.json --out DIR   (the table again, no GPU)

On the H200 on 2026-12-01 the instrumentation engine (GPUHIER_INSTRUMENT=1)
left 5 of 11 runs of the PyTorch benchmark stuck before their first kernels
ran, while each of its two halves alone (SASS metrics without kernel
tracing; serialized kernel tracing with the engine off) hung 0 of 6
(docs/collector.md "A hang of the instrumentation engine"). That count came
from commands typed into device calls; this script is the benchmark that
makes the count again, for a fix to be judged by.

Each round runs, for each mode in turn, JOBS copies of PROGRAM at once
(default: bench/pytorch_train.py --steps 20) under `gpuhier run -q -f
--no-analyze`, each ended after TIMEOUT seconds (its whole process group),
with GPUHIER_DIAG_STACKS so that a stuck run prints every thread's stack
before it is ended. Modes (--modes picks some, in this order):
  inst         GPUHIER_INSTRUMENT=1: SASS metrics; kernels traced concurrently,
               serialized while a launch is served (the form since 2026-12-04)
  inst-serial  the same, kernels traced serialized for the whole run
               (GPUHIER_DIAG_SERIALIZED_KERNELS=1, the form of 2026-12-01 to -04)
  inst-gate    inst-serial, kernel tracing flushed and off while a launch is
               served (GPUHIER_DIAG_SASS_KERNEL_GATE=1)
  inst-host    inst, CUPTI's activity records in pinned host memory
               (GPUHIER_DIAG_ACTIVITY_BUFFER=host; the engine's default since 2026-12-02)
  inst-noperiod inst, without cuptiActivityFlushPeriod (GPUHIER_NO_FLUSH_PERIOD=1)
  inst-nokern  inst with GPUHIER_DIAG_NO_KERNEL_ACTIVITY=1: no kernel tracing
  kern-only    inst-serial with the engine refused at its first launch
               (GPUHIER_FAULT=sass_config:CUPTI_ERROR_UNKNOWN): serialized kernel
               tracing alone
  phased       GPUHIER_INSTRUMENT=phased
  both-kept    GPUHIER_INSTRUMENT=both: the SASS config kept set and one-pass groups
               (what builds before the default changed ran with
               GPUHIER_DIAG_SASS_KEEP_CONFIG=1 GPUHIER_DIAG_BOTH_GROUPS=1, also set)
  both-kept-session  the same with GPUHIER_DIAG_SESSION=kept (one range-profiler session
               per one-pass group)
  rangeprof    GPUHIER_INSTRUMENT=0: the range profiler alone
  default      as a user runs it (both engines since the default changed)
A run is "ended" with status 0, "hung" with 124 (the time limit), "failed"
otherwise. A round that would not fit the budget is skipped and counted.
Writes DIR/inst-hang.md (the table), DIR/inst-hang.json (every run) and, for
the first hung run of each mode, DIR/stacks-MODE.txt (its output's stack
lines); exit 0.
"""
import argparse
import os
import statistics
import sys
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "e2e"))
sys.path.insert(0, here)
import proc  # noqa: E402
import benchlib  # noqa: E402

MODES = ("inst", "inst-serial", "inst-gate", "inst-host", "inst-noperiod", "inst-nokern", "kern-only", "phased",
         "both-kept", "both-kept-session", "rangeprof", "default")
MODE_ENV = {
    "inst": {"GPUHIER_INSTRUMENT": "1"},
    "inst-serial": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_SERIALIZED_KERNELS": "1"},
    "inst-gate": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_SERIALIZED_KERNELS": "1",
                  "GPUHIER_DIAG_SASS_KERNEL_GATE": "1"},
    "inst-host": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_ACTIVITY_BUFFER": "host"},
    "inst-noperiod": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_NO_FLUSH_PERIOD": "1"},
    "inst-nokern": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_NO_KERNEL_ACTIVITY": "1"},
    "kern-only": {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_SERIALIZED_KERNELS": "1",
                  "GPUHIER_FAULT": "sass_config:CUPTI_ERROR_UNKNOWN"},
    "phased": {"GPUHIER_INSTRUMENT": "phased"},
    "both-kept": {"GPUHIER_INSTRUMENT": "both", "GPUHIER_DIAG_SASS_KEEP_CONFIG": "1",
                  "GPUHIER_DIAG_BOTH_GROUPS": "1"},
    "both-kept-session": {"GPUHIER_INSTRUMENT": "both", "GPUHIER_DIAG_SESSION": "kept"},
    "rangeprof": {"GPUHIER_INSTRUMENT": "0"},
    "default": {},
}


def outcome(rc):
    """'ended', 'hung' (the time limit, rc 124) or 'failed'."""
    return "ended" if rc == 0 else "hung" if rc == 124 else "failed"


def summarise(runs):
    """Per mode, in MODES order: runs, ended, hung, failed, skipped, median wall s of the ended."""
    out = []
    for m in MODES:
        mine = [r for r in runs if r["mode"] == m]
        if not mine:
            continue
        done = [r for r in mine if "rc" in r]
        ended = [r["wall_s"] for r in done if outcome(r["rc"]) == "ended"]
        out.append({"mode": m, "runs": len(done), "ended": len(ended),
                    "hung": sum(outcome(r["rc"]) == "hung" for r in done),
                    "failed": sum(outcome(r["rc"]) == "failed" for r in done),
                    "skipped": len(mine) - len(done),
                    "median_s": statistics.median(ended) if ended else None})
    return out


def markdown(rows, header):
    L = ["## How often the instrumentation engine hangs a program (bench/inst_hang.py)", ""] + header + [""]
    L += ["| mode | runs | ended | hung | failed | skipped | median s (ended) |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        L.append("| %s | %d | %d | %s | %d | %d | %s |" % (
            r["mode"], r["runs"], r["ended"], ("**%d**" % r["hung"]) if r["hung"] else "0", r["failed"],
            r["skipped"], "%.1f" % r["median_s"] if r["median_s"] is not None else "-"))
    return "\n".join(L) + "\n"


def stack_lines(text):
    """The GPUHIER_DIAG_STACKS part of a run's output: from its first line on, the stack lines."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "every thread's stack" in line:
            return [x for x in lines[i:] if x.startswith(("==gpuhier== stack", "==gpuhier== every", "/"))]
    return []


def measure(a, program):
    stage = os.path.abspath(a.stage)
    gh = os.path.join(stage, "gpuhier")
    work = os.path.join("/tmp", "inst-hang-%d" % os.getpid())
    os.makedirs(work)
    env = dict(os.environ, PYTHONUNBUFFERED="1", GPUHIER_DIAG_STACKS=str(max(5, int(a.timeout) - 10)),
               GPUHIER_DATA_DIR=os.path.abspath(a.root))
    for k in {k for e in MODE_ENV.values() for k in e}:
        env.pop(k, None)
    t0 = time.monotonic()
    runs, stacks_kept = [], set()
    for rnd in range(a.rounds):
        for mode in a.modes:
            left = a.budget - (time.monotonic() - t0)
            if left < a.timeout + 10:
                runs += [{"mode": mode, "round": rnd, "job": j,
                          "skipped": "budget: %.0f s left, a round takes up to %.0f s" % (left, a.timeout)}
                         for j in range(a.jobs)]
                continue
            results = [None] * a.jobs

            def one(j):
                stem = os.path.join(work, "%s-%d-%d" % (mode, rnd, j))
                cmd = [gh, "run", "-q", "-f", "--no-analyze", "-o", stem + "-%p.db", "--"] + program
                t = time.monotonic()
                rc, out = proc.run_group(cmd, a.timeout, dict(env, **MODE_ENV[mode]))
                results[j] = (rc, round(time.monotonic() - t, 2), out.decode("utf-8", "replace"))

            threads = [threading.Thread(target=one, args=(j,)) for j in range(a.jobs)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            for j, (rc, wall, text) in enumerate(results):
                r = {"mode": mode, "round": rnd, "job": j, "rc": rc, "wall_s": wall}
                if outcome(rc) != "ended":
                    r["tail"] = text[-300:]
                if outcome(rc) == "hung" and mode not in stacks_kept:
                    st = stack_lines(text)
                    if st:
                        stacks_kept.add(mode)
                        with open(os.path.join(a.out, "stacks-%s.txt" % mode), "w") as f:
                            f.write("\n".join(st) + "\n")
                runs.append(r)
                print("[%6.1fs] round %d %s job %d: %s (%d), %.1f s" % (
                    time.monotonic() - t0, rnd, mode, j, outcome(rc), rc, wall), flush=True)
    header = ["- %s UTC; %s; stage %s" % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), benchlib.gpu_name(),
                                           benchlib.stage_commit(stage)),
              "- program: `%s`; %d rounds of %d runs at once per mode, %d s limit a run; %.0f s" % (
                  " ".join(program), a.rounds, a.jobs, a.timeout, time.monotonic() - t0)]
    return runs, header


def main(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, program = argv[:i], argv[i + 1:]
    else:
        program = None
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", default=".stage")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(here, "..")))
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=45)
    ap.add_argument("--budget", type=float, default=540)
    ap.add_argument("--modes", default="inst,inst-nokern,kern-only")
    ap.add_argument("--reuse", default="")
    a = ap.parse_args(argv[1:])
    a.modes = [m for m in MODES if m in a.modes.split(",")]
    if not a.modes:
        ap.error("--modes: none of %s" % ",".join(MODES))
    if a.rounds < 1 or a.jobs < 1:
        ap.error("--rounds and --jobs must be at least 1")
    program = program or ["python3", os.path.join(os.path.abspath(a.root), "bench", "pytorch_train.py"),
                          "--steps", "20"]
    return benchlib.runs_table(a.out, "inst-hang", a.reuse, lambda: measure(a, program),
                               lambda runs, header: markdown(summarise(runs), header))

if __name__ == "__main__":
    sys.exit(main(sys.argv))
