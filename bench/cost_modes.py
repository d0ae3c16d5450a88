#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What each way of running gpuhier costs on the PyTorch benchmark, beside a native run.

  bench/cost_modes.py --build DIR [--modes native,trace,default,budget:30] [--runs 3]
                      [--bench-args "--steps 20 --warmup 3"] [--out DIR] [--limit-s 600]

Runs bench/pytorch_train.py natively and under `gpuhier run` in each mode
(trace: --mode trace; default: default sampling; budget:PCT: default
sampling with --profile-budget PCT), interleaved, RUNS times each, and prints
a Markdown table: median wall time, x native, profiled launches and
configurations profiled out of those launched (from the last run's report).
Writes $OUT/cost-modes.md. Skips (exit 77) without a GPU or torch.
"""
import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e"))
import proc  # noqa: E402


def have_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def report_counts(path):
    """(profiled launches, configurations profiled, configurations launched) of a report."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    prof = con.execute("SELECT COUNT(*) FROM profile").fetchone()[0]
    cfg_prof = con.execute("SELECT COUNT(DISTINCT l.config_id) FROM profile p JOIN launch l ON l.id = p.launch_id"
                           ).fetchone()[0]
    cfg_all = con.execute("SELECT COUNT(*) FROM config").fetchone()[0]
    con.close()
    return prof, cfg_prof, cfg_all


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--modes", default="native,trace,default,budget:30")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bench-args", default="--steps 20 --warmup 3")
    ap.add_argument("--out", default=os.path.join(root, "out", "cost-modes"))
    ap.add_argument("--limit-s", type=float, default=600, help="stop starting runs after this many seconds")
    a = ap.parse_args()
    if not have_gpu():
        print("skipped: no GPU")
        return 77
    try:
        import torch  # noqa: F401
    except ImportError:
        print("skipped: no torch")
        return 77
    os.makedirs(a.out, exist_ok=True)
    gh = os.path.join(a.build, "gpuhier")
    prog = [sys.executable, os.path.join(root, "bench", "pytorch_train.py")] + a.bench_args.split()
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    for m in modes:
        if m not in ("native", "trace", "default") and not m.startswith("budget:"):
            print("cost_modes: unknown mode '%s' (native, trace, default, budget:PCT)" % m, file=sys.stderr)
            return 2
    t0 = time.time()
    times = {m: [] for m in modes}
    counts, notes = {}, []
    for i in range(a.runs):
        for m in modes:
            if time.time() - t0 > a.limit_s:
                notes.append("run %d of %s not started: %.0f s limit reached" % (i + 1, m, a.limit_s))
                continue
            rep = os.path.join(a.out, "%s-%d.db" % (m.replace(":", "-"), i))
            if m == "native":
                cmd = prog
            else:
                cmd = [gh, "run", "-q", "-f", "--no-analyze", "-o", rep]
                cmd += {"trace": ["--mode", "trace"], "default": []}.get(m, ["--profile-budget", m[7:]])
                cmd += ["--"] + prog
            rc, out, dt = proc.run(cmd, max(1.0, a.limit_s - (time.time() - t0) + 60),
                                   os.path.join(a.out, "cost-modes.log"), keep=4000)
            print("[%6.1fs] %s run %d: %.2f s (rc %d)" % (time.time() - t0, m, i + 1, dt, rc), flush=True)
            if rc == 0:
                times[m].append(dt)
                if m != "native" and os.path.exists(rep):
                    counts[m] = report_counts(rep)
            else:
                notes.append("%s run %d exited %d" % (m, i + 1, rc))
    nat = statistics.median(times["native"]) if times.get("native") else None
    md = ["# Cost of gpuhier's modes on the PyTorch benchmark", "",
          "Command: `bench/cost_modes.py --modes %s --runs %d --bench-args '%s'`, %s; runs interleaved; wall time of "
          "the whole program." % (",".join(modes), a.runs, a.bench_args, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())),
          "", "| mode | runs | median s | × native | profiled launches | configurations profiled / launched |",
          "| --- | --- | --- | --- | --- | --- |"]
    for m in modes:
        med = statistics.median(times[m]) if times[m] else None
        c = counts.get(m)
        md.append("| %s | %d | %s | %s | %s | %s |" % (
            m, len(times[m]), "%.2f" % med if med else "-", "%.2f" % (med / nat) if med and nat else "-",
            c[0] if c else ("0" if m in ("native", "trace") else "-"), "%d / %d" % (c[1], c[2]) if c else "-"))
    if notes:
        md += ["", "Notes:", ""] + ["- " + n for n in notes]
    text = "\n".join(md) + "\n"
    with open(os.path.join(a.out, "cost-modes.md"), "w") as f:
        f.write(text)
    print(text)
    return 0 if nat else 1


if __name__ == "__main__":
    sys.exit(main())
