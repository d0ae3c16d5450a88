#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/cost_vs_ncu.py: issue 18 point 4's targets, side by side in one device call.

Workloads (committed scripts, not tuned to gpuhier):
  torch  bench/pytorch_train.py --steps STEPS --warmup 1 (a PyTorch training
         script of several thousand launches)
  jax    bench/suite/jax_mlp.py (a JAX training loop, JAX's default memory
         preallocation of 75 % of the GPU)

Runs, each wall-clock timed around the whole process:
  warm-up            the program alone, once, untimed (the first run after the
                     machine starts loads libraries and driver cold; --no-warmup)
  native             the program alone (RUNS times, median), alternating
                     with the default's runs so that drift falls on both
  gpuhier default    `gpuhier run --no-analyze` (RUNS times, median); its
                     coverage (pattern and hardware counters by kernel time, read
                     after an untimed `gpuhier analyze` of the report, so
                     kernels that wait are left out as from the run's time;
                     with the repeated work's pair when the analysis found
                     one-time set-up)
                     and report size per profiled launch from the last run,
                     also split by engine (bench/report_bytes.py: the range
                     profiler's tables per range profile, the instrumentation
                     engine's per instrumented launch)
  ncu per config     `ncu --filter-mode per-launch-config -c 1 --metrics M`
                     (torch only; NCU_RUNS times, median), M = one-pass group 1
                     of gpuhier's default plan (the group every profiled
                     configuration gets first): ncu's cheapest form
  ncu plan           the same with every metric the default asks for: the
                     eight one-pass groups' counters (PLAN_GROUPS) and the
                     instrumentation engine's SASS metrics that ncu takes as
                     .sum names (SASS_SUMS; the two ideals are source counters
                     and left out), the reading of issue 18's "with the same
                     metrics" its own table used (12 hierarchy metrics, 5
                     passes): the default spreads these over a configuration's
                     launches, ncu replays each configuration's first launch for
                     them (torch only; NCU_RUNS times, median)
  trace              `gpuhier run --mode trace` once: the report-size baseline, and
                     the reference bench/delay_along.py reads the last default
                     run against (where along the run it lost its time), so the
                     size a profile adds is (default report - trace report) / profiled
  every launch       `gpuhier run --sample all --launch-count 200 --counters
                     hardware --metric-set none --metrics M` (the same metrics)
                     and the same with gpuhier's default counters, against
                     `ncu -c 200 --metrics M` (torch only, once each): cost per
                     launch = (wall - native) / 200

Prints a Markdown table with the targets beside (default <= 1.3x native and
<= 0.5x ncu on torch; <= 2x native on jax; every launch <= 0.3x ncu's cost per
launch; report <= 1 KB per profiled launch) and writes it to
OUT/cost_vs_ncu.md. A run that failed or timed out is shown as such, never
dropped. Usage: cost_vs_ncu.py STAGE [--steps N] [--runs N] [--ncu-runs N]
[--timeout S] [--deadline S] [--no-warmup] [--no-ncu] [--keep-reports] [--env KEY=VALUE ...]
[--parts default,trace,ncu,every] [--workloads torch,jax] (STAGE from scripts/stage.sh;
--parts and --workloads pick runs: `--parts every` is the every-launch rows with
the native torch runs they subtract). --env sets a variable for the gpuhier runs
only (a collector variant, e.g. GPUHIER_INSTRUMENT=both), never for the
native or ncu runs; the table's header names the variables. --variant
NAME:KEY=VALUE[,KEY=VALUE] (repeatable) runs a variant beside the default in
every round (native, default, each variant, in turn, so drift falls on all
of them) and adds a table of the variants against the native and the default
medians, with each variant's profiles and range-profiler enables (meta
profiler_enables) from its last report.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import gpu_name, paired_text, stage_commit  # noqa: E402
from rangeprof_cost import GROUP1, run  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "agreement"))
from inst_agree import RANGE_VALID  # noqa: E402
from report_bytes import kb, split  # noqa: E402
import delay_along  # noqa: E402

COVER = re.compile(r"coverage by (?:GPU|kernel) time: pattern counters ([0-9.]+) %, hardware counters ([0-9.]+) %")
PROFILED = re.compile(r"launches: (\d+) traced, (\d+) profiled")
# The default plan's one-pass groups on GH100 (collector/onepass.c, docs/metrics.md "One-pass
# groups"; unit.cost_vs_ncu checks them against build/tests/test_onepass's printout), group 1
# first. (GROUP1, bench/rangeprof_cost.py's 19 names, is an earlier group 1, kept so that the
# one-pass rows compare with the calls before.)
PLAN_GROUPS = (
    "gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum lts__t_sectors_srcunit_tex.sum "
    "lts__t_sectors_srcunit_tex_op_read.sum dram__bytes.sum.pct_of_peak_sustained_elapsed "
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum "
    "smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum "
    "sm__warps_active.avg.pct_of_peak_sustained_active sm__cycles_active.avg l1tex__t_sector_hit_rate.pct "
    "smsp__inst_executed_op_ldgsts.sum "
    "lts__t_sectors_srcunit_tex_aperture_sysmem.sum "
    "lts__t_sectors_op_atom.sum lts__t_sectors_op_red.sum lts__d_atomic_input_cycles_active.sum "
    "smsp__inst_executed.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum "
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum "
    "smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum lts__t_sectors_lookup_hit.sum "
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed gpu__time_duration.sum smsp__inst_executed.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum "
    "smsp__inst_executed_op_local_ld.sum smsp__inst_executed_op_local_st.sum "
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum "
    "smsp__inst_executed_op_ldc.sum idc__requests.sum lts__t_sectors_lookup_miss.sum idc__requests_lookup_miss.sum "
    "gpu__time_duration.sum smsp__inst_executed.sum",
    "smsp__inst_executed_op_generic_atom.sum smsp__inst_executed_op_global_red.sum "
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum "
    "gpu__time_duration.sum smsp__inst_executed.sum",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed gpu__time_duration.sum smsp__inst_executed.sum "
    "l1tex__m_xbar2l1tex_read_bytes.sum",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed "
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed gpu__time_duration.sum smsp__inst_executed.sum "
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum gpu__time_duration.sum smsp__inst_executed.sum "
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum gpu__time_duration.sum smsp__inst_executed.sum",
)
# the instrumentation engine's SASS metrics ncu takes as .sum names (bench/agreement/inst_agree.py)
SASS_SUMS = tuple(n + ".sum" for n in RANGE_VALID)


def plan_metrics():
    """Every name of the plan's groups, once, in plan order, then the SASS sums: ncu's --metrics."""
    names = []
    for g in PLAN_GROUPS:
        names += [n for n in g.split() if n not in names]
    return ",".join(names + list(SASS_SUMS))
T0 = time.monotonic()


def analyzed_coverage(g, db, work):
    """The coverage once the report is analyzed (untimed, after the run):
    kernels that wait (XLA's autotuning DelayKernel held 80 % of the JAX
    loop's traced kernel time, profiled) are then left out, as from the
    run's GPU time; the timed runs pass --no-analyze, whose printed line
    counts them. {} when the analysis or the export fails (the printed line
    is used)."""
    # one file per report, overwritten (-f): export refuses an existing file, and on
    # 2026-12-04 the second workload's coverage was lost to the first's
    out = os.path.splitext(db)[0] + "-coverage.json"
    try:
        subprocess.run([g, "analyze", db], capture_output=True, timeout=300, check=True)
        subprocess.run([g, "export", db, "--format", "json", "-o", out, "-f"], capture_output=True,
                       timeout=300, check=True)
        with open(out) as f:
            cov = json.load(f).get("coverage") or {}
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}
    if cov.get("pattern_pct") is None:
        return {}
    out = {"pattern": "%.1f" % cov["pattern_pct"], "hardware": "%.1f" % cov["hardware_pct"]}
    # the repeated work alone, one-time set-up left out (null without set-up; since 2026-12-04)
    if cov.get("repeated_pattern_pct") is not None:
        out["repeated"] = "%.1f %% / %.1f %%" % (cov["repeated_pattern_pct"], cov["repeated_hardware_pct"])
    return out


def bytes_text(beyond, profiled, inst):
    """'1.29 KB (0.95 KB)': the bytes a default report holds beyond the trace-only one, per
    range-profiled launch (the run's printed count) and, in brackets, per launch either engine
    profiled (range-profiled and instrumented); '-' without the sizes or a range profile."""
    if beyond is None or not profiled:
        return "-"
    text = "%.2f KB" % (beyond / profiled / 1024)
    return text + (" (%.2f KB)" % (beyond / (profiled + inst) / 1024) if inst else "")


def cover_text(n):
    """'100.0 % / 45.4 %' (with the repeated work's pair) from analyzed_coverage()'s keys, '-' without."""
    if not n.get("pattern"):
        return "-"
    return "%s %% / %s %%" % (n["pattern"], n["hardware"]) + (
        "; repeated work alone %s" % n["repeated"] if n.get("repeated") else "")


def delay_lines(prog, trace_db, default_db, jumps=5):
    """Markdown lines: where along the run `prog`'s last default run lost its time against its trace
    run (bench/delay_along.py), or [] when either report is missing or unreadable."""
    if not (os.path.exists(trace_db) and os.path.exists(default_db)):
        return []
    try:
        r = delay_along.along(trace_db, default_db, jumps)
    except Exception:  # a benchmark's table must not fail on its appendix
        return []
    if not r["matched"]:
        return []
    return ["", "Where along the run %s's last default run lost its time against its trace run "
            "(bench/delay_along.py; one run each, so the level carries the runs' own noise):" % prog,
            ""] + delay_along.table(r).split("\n")


def meta_value(db, key):
    """The report's meta value for key, or None (no report, no such key)."""
    if not os.path.exists(db):
        return None
    try:
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        row = c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        c.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def med(xs):
    ok = [t for t, rc in xs if rc == 0]
    return statistics.median(ok) if ok else None


# the runs --parts picks: native and default per workload, the trace-only baseline, ncu per
# launch configuration, the every-launch rows (gpuhier twice and ncu on 200 launches)
PARTS = ("default", "trace", "ncu", "ncuplan", "every")


def parse_list(ap, opt, text, allowed):
    """The comma-separated words of `text`, each one of `allowed` (else the parser's error)."""
    words = [w for w in text.split(",") if w]
    bad = [w for w in words if w not in allowed]
    if bad or not words:
        ap.error("%s wants some of %s, got %r" % (opt, ",".join(allowed), text))
    return words


def fmt(x, unit="s"):
    return "-" if x is None else ("%.2f %s" % (x, unit)).strip()


def workloads_run(parts, wanted, no_ncu):
    """The workloads that run: those asked for, and PyTorch whenever the every-launch rows
    run (they subtract its native time; without 'default' the native runs still come);
    --no-ncu skips those rows, so it does not bring PyTorch back (on 2026-12-07
    `--no-ncu --workloads jax` ran PyTorch too)."""
    run = list(wanted)
    if "every" in parts and not no_ncu and "torch" not in run:
        run.append("torch")
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stage")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ncu-runs", type=int, default=3)
    ap.add_argument("--ncu-runs-plan", type=int, default=1,
                    help="runs of ncu per configuration with every metric of the default's plan (part ncuplan)")
    ap.add_argument("--timeout", type=float, default=150)
    ap.add_argument("--deadline", type=float, default=540, help="skip runs that would start past this")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false",
                    help="no untimed native run of each workload before the timed ones")
    ap.add_argument("--no-ncu", action="store_true", help="only native and the default (no ncu, no 200-launch pair)")
    ap.add_argument("--keep-reports", action="store_true",
                    help="copy each workload's last default report to OUT/cost-WORKLOAD.db (which configurations "
                         "the budget profiled, read afterwards without a GPU) and its trace report to "
                         "OUT/cost-WORKLOAD-trace.db (what bench/policy_sim.py replays), and each variant's "
                         "last report to OUT/cost-WORKLOAD-NAME.db")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="a variable for the gpuhier runs only (a collector variant)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:KEY=VALUE[,KEY=VALUE]",
                    help="a collector variant run beside the default in every round")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help="which runs, comma-separated, of %s (default all; 'every' alone still "
                         "runs the native torch runs it subtracts)" % ",".join(PARTS))
    ap.add_argument("--workloads", default="torch,jax", help="of torch,jax (default both)")
    a = ap.parse_args()
    parts = parse_list(ap, "--parts", a.parts, PARTS)
    wanted = parse_list(ap, "--workloads", a.workloads, ("torch", "jax"))
    for kv in a.env:
        if "=" not in kv or not kv.split("=", 1)[0]:
            ap.error("--env wants KEY=VALUE, got %r" % kv)
    # the gpuhier runs' environment: ours and the variant's variables (native and ncu runs get ours alone)
    ghenv = dict(os.environ, **dict(kv.split("=", 1) for kv in a.env))
    variants = []  # (name, its environment, its variables as given)
    for v in a.variant:
        name, _, kvs = v.partition(":")
        pairs = [kv for kv in kvs.split(",") if kv]
        if not name or not pairs or any("=" not in kv or not kv.split("=", 1)[0] for kv in pairs):
            ap.error("--variant wants NAME:KEY=VALUE[,KEY=VALUE], got %r" % v)
        variants.append((name, dict(ghenv, **dict(kv.split("=", 1) for kv in pairs)), ",".join(pairs)))
    stage = os.path.abspath(a.stage)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = os.environ.get("OUT", os.path.join(root, "out"))
    os.makedirs(out, exist_ok=True)
    g = os.path.join(stage, "gpuhier")
    work = tempfile.mkdtemp(prefix="cost_vs_ncu.")
    progs = {
        "torch": ["python3", os.path.join(root, "bench/pytorch_train.py"), "--steps", str(a.steps),
                  "--warmup", "1"],
        "jax": ["python3", os.path.join(root, "bench/suite/jax_mlp.py")],
    }
    progs = {k: v for k, v in progs.items() if k in workloads_run(parts, wanted, a.no_ncu)}
    res = {}  # (prog, variant) -> [(seconds, rc)]
    notes = {}
    skipped = []

    def timed(prog, variant, cmd, n=1, env=None, first=1, keep=True):
        for i in range(first - 1, first - 1 + n):
            if time.monotonic() - T0 > a.deadline:
                skipped.append("%s %s run %d" % (prog, variant, i + 1))
                continue
            t, rc, err = run(cmd, env, work, a.timeout)
            if keep:
                res.setdefault((prog, variant), []).append((t, rc))
            print("%-6s %-14s run %d: %s, %.1f s%s" % (prog, variant, i + 1, rc, t,
                                                       "" if keep else " (untimed warm-up)"), flush=True)
            if rc != 0:
                print("  " + "\n  ".join(err.strip().splitlines()[-4:]), flush=True)
            yield err

    for prog, cmd in progs.items():
        # one untimed native run first: the first run after the machine starts
        # loads the libraries and the driver cold (19.6 s against 12.4-13.5 s
        # for PyTorch on 2026-12-04), then native and default alternate, so
        # drift falls on both
        # native runs for the default's ratio, and torch's for the every-launch rows' cost per launch
        nn = 1 if "default" in parts or (prog == "torch" and "every" in parts) else 0
        for _ in timed(prog, "native", cmd, nn if a.warmup else 0, keep=False, first=0):
            pass
        for r in range(1, a.runs + 1):
            for _ in timed(prog, "native", cmd, nn, first=r):
                pass
            for err in timed(prog, "default", [g, "run", "-f", "-o", "%s.db" % prog, "--no-analyze", "--"] + cmd,
                             1 if "default" in parts else 0, ghenv, first=r):
                m, p = COVER.search(err), PROFILED.search(err)
                db = os.path.join(work, "%s.db" % prog)
                size = os.path.getsize(db) if os.path.exists(db) else None
                notes[prog] = {"pattern": m and m.group(1), "hardware": m and m.group(2),
                               "profiled": p and int(p.group(2)), "traced": p and int(p.group(1)),
                               "bytes": size, "split": split(db) if size else None}
            for name, venv, _ in variants:
                vdb = "%s-%s.db" % (prog, name)
                for err in timed(prog, "variant " + name, [g, "run", "-f", "-o", vdb, "--no-analyze", "--"] + cmd,
                                 1 if "default" in parts else 0, venv, first=r):
                    p = PROFILED.search(err)
                    notes.setdefault("variants", {})[(prog, name)] = {
                        "profiled": p and int(p.group(2)),
                        "enables": meta_value(os.path.join(work, vdb), "profiler_enables")}
        for name, _, _ in variants:
            # each variant's last report, analyzed as the default's: what it covered, and kept with
            # --keep-reports (what its findings lose against the default's, read without a GPU)
            vdb = os.path.join(work, "%s-%s.db" % (prog, name))
            vn = notes.get("variants", {}).get((prog, name))
            if vn is not None and os.path.exists(vdb):
                vn.update(analyzed_coverage(g, vdb, work))
                if a.keep_reports:
                    shutil.copyfile(vdb, os.path.join(out, "cost-%s-%s.db" % (prog, name)))
        db = os.path.join(work, "%s.db" % prog)
        # the table describes the last run's report: analyzed once, after it
        if notes.get(prog, {}).get("bytes"):
            notes[prog].update(analyzed_coverage(g, db, work))
        if a.keep_reports and os.path.exists(db):
            shutil.copyfile(db, os.path.join(out, "cost-%s.db" % prog))
    # the report-size baseline: the same program traced without counters (what a profile adds is the rest)
    for prog, cmd in progs.items():
        for _ in timed(prog, "trace", [g, "run", "-f", "-o", "%s-trace.db" % prog, "--no-analyze", "--mode",
                                       "trace", "--"] + cmd, 1 if "trace" in parts else 0, ghenv):
            db = os.path.join(work, "%s-trace.db" % prog)
            notes.setdefault(prog, {})["trace_bytes"] = os.path.getsize(db) if os.path.exists(db) else None
            # the trace report too: bench/policy_sim.py replays it, with the prices --calibrate reads from the default's
            if a.keep_reports and os.path.exists(db):
                shutil.copyfile(db, os.path.join(out, "cost-%s-trace.db" % prog))
    def ncu_cmd(metrics, log):
        return ["ncu", "--metrics", metrics, "--csv", "--log-file", os.path.join(work, log)]

    ncu = ncu_cmd(GROUP1, "ncu.csv")
    if a.no_ncu or "ncu" not in parts or "torch" not in progs:
        a.ncu_runs = 0
    # the every-launch rows: torch only, once each, never with --no-ncu
    every = 0 if a.no_ncu or "every" not in parts else 1
    for _ in timed("torch", "ncu per config", ncu + ["--filter-mode", "per-launch-config", "-c", "1"] +
                   progs.get("torch", []), a.ncu_runs):
        pass
    nplan = 0 if a.no_ncu or "ncuplan" not in parts or "torch" not in progs else a.ncu_runs_plan
    for _ in timed("torch", "ncu plan", ncu_cmd(plan_metrics(), "ncu-plan.csv") +
                   ["--filter-mode", "per-launch-config", "-c", "1"] + progs.get("torch", []), nplan):
        pass

    def every_note(err, variant):
        # how many launches the every-launch run profiled, and how (the kept session's batches)
        p = PROFILED.search(err)
        notes.setdefault("every", {})[variant] = "%s profiled" % p.group(2) if p else "profiled count not printed"

    for err in timed("torch", "all 200", [g, "run", "-f", "-o", "all.db", "--no-analyze", "--sample", "all",
                                        "--launch-count", "200", "--"] + progs.get("torch", []), every, ghenv):
        every_note(err, "all 200")
    # the same metrics as ncu's: group 1 alone, the range profiler alone (no
    # instrumentation, no group rotation), so the per-launch cost compares
    # like for like; the row above is what a user of --sample all pays
    for err in timed("torch", "all 200 group 1", [g, "run", "-f", "-o", "all1.db", "--no-analyze", "--sample", "all",
                                                "--counters", "hardware", "--metric-set", "none", "--metrics",
                                                GROUP1, "--launch-count", "200", "--"] + progs.get("torch", []),
                   every, ghenv):
        every_note(err, "all 200 group 1")
    for _ in timed("torch", "ncu 200", ncu + ["-c", "200"] + progs.get("torch", []), every):
        pass

    nat = {p: med(res.get((p, "native"), [])) for p in ("torch", "jax")}
    rows = []

    def ratio(x, y):
        return "-" if x is None or not y else "%.2f×" % (x / y)

    for prog in progs:
        d = med(res.get((prog, "default"), []))
        n = notes.get(prog, {})
        sp = n.get("split") or {}
        beyond = n["bytes"] - n["trace_bytes"] if n.get("bytes") and n.get("trace_bytes") else None
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            prog, fmt(nat[prog]), fmt(d),
            ratio(d, nat[prog]) + paired_text(res.get((prog, "native"), []), res.get((prog, "default"), [])),
            cover_text(n),
            "%s of %s" % (n.get("profiled"), n.get("traced")) if n.get("profiled") is not None else "-",
            bytes_text(beyond, n.get("profiled"), sp.get("inst_launches")),
            "%s / %s / %s; analysis %s" % (kb(sp.get("per_profile")), kb(sp.get("per_inst")),
                                           kb(sp.get("per_launch")), kb(sp.get("analysis_bytes")))))
    nc = med(res.get(("torch", "ncu per config"), []))
    npl = med(res.get(("torch", "ncu plan"), []))
    dt = med(res.get(("torch", "default"), []))
    al, n2 = med(res.get(("torch", "all 200"), [])), med(res.get(("torch", "ncu 200"), []))
    a1 = med(res.get(("torch", "all 200 group 1"), []))
    pl = lambda x: None if x is None or nat["torch"] is None else (x - nat["torch"]) / 200  # noqa: E731
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## %s, %s, stage %s" % (stamp, gpu_name(), stage_commit(stage)),
        "",
        "`python3 bench/cost_vs_ncu.py STAGE --steps %d --runs %d --ncu-runs %d%s%s%s` "
        "(medians of the runs that ended with status 0%s; every run is listed in the log)." % (
            a.steps, a.runs, a.ncu_runs, "" if a.warmup else " --no-warmup",
            "".join(" --env " + kv for kv in a.env),
            "" if parts == list(PARTS) and set(wanted) == {"torch", "jax"}
            else " --parts %s --workloads %s" % (",".join(parts), ",".join(progs)),
            ", native and default alternating after one untimed native run" if a.warmup else ""),
        "",
        "| workload | native | gpuhier default | ratio (the side-by-side pairs' range) | coverage (pattern / hardware, by working kernel time) "
        "| profiled launches | report bytes per range-profiled launch (per range-profiled or instrumented "
        "launch), beyond a trace-only report "
        "| per range profile / per instrumented launch / per profiled launch, the engines' tables alone; "
        "the analysis output (bench/report_bytes.py) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ] + rows + [
        "",
        "| torch comparison | gpuhier | Nsight Compute | ratio | target |",
        "| --- | --- | --- | --- | --- |",
        "| default against `ncu --filter-mode per-launch-config -c 1` (group 1's %d metrics) | %s | %s | %s | ≤ 0.5× |"
        % (len(GROUP1.split(",")), fmt(dt), fmt(nc), ratio(dt, nc)),
        "| default against `ncu --filter-mode per-launch-config -c 1` with every metric the default asks for "
        "(the plan's %d counters and %d SASS metrics; ncu's median of %d) | %s | %s | %s | ≤ 0.5× |"
        % (len(plan_metrics().split(",")) - len(SASS_SUMS), len(SASS_SUMS), a.ncu_runs_plan, fmt(dt), fmt(npl),
           ratio(dt, npl)),
        "| every launch, 200 launches, the same metrics (`--counters hardware --metric-set none --metrics` "
        "group 1): cost per launch | %s | %s | %s | ≤ 0.3× |"
        % (fmt(pl(a1) and pl(a1) * 1000, "ms"), fmt(pl(n2) and pl(n2) * 1000, "ms"), ratio(pl(a1), pl(n2))),
        "| every launch, 200 launches, gpuhier's default counters (both engines, the groups in turn): "
        "cost per launch | %s | %s | %s | - |"
        % (fmt(pl(al) and pl(al) * 1000, "ms"), fmt(pl(n2) and pl(n2) * 1000, "ms"),
           ratio(pl(al), pl(n2))),
        "",
        "Targets (issue 18 point 4): torch default ≤ 1.3× native, ≥ 95 % of GPU time with pattern "
        "counters and ≥ 60 % with hardware counters; jax default ≤ 2× native; report ≤ 1 KB per "
        "profiled launch.",
    ]
    if variants:
        lines += ["", "Variants, run in the same rounds as the default (`--variant NAME:VARIABLES`):", "",
                  "| workload | variant | variables | gpuhier (median) | ratio to native | ratio to the default "
                  "| profiled launches | range-profiler enables | coverage (pattern / hardware) |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for prog in progs:
            d = med(res.get((prog, "default"), []))
            dn = notes.get(prog, {})
            lines.append("| %s | default | - | %s | %s | 1.00× | %s | %s | %s |" % (
                prog, fmt(d), ratio(d, nat[prog]), dn.get("profiled", "-"),
                meta_value(os.path.join(work, "%s.db" % prog), "profiler_enables") or "-", cover_text(dn)))
            for name, _, kvs in variants:
                v = med(res.get((prog, "variant " + name), []))
                vn = notes.get("variants", {}).get((prog, name), {})
                lines.append("| %s | %s | `%s` | %s | %s | %s | %s | %s | %s |" % (
                    prog, name, kvs, fmt(v), ratio(v, nat[prog]), ratio(v, d), vn.get("profiled", "-"),
                    vn.get("enables") or "-", cover_text(vn)))
    if notes.get("every"):
        nr = [t for t, rc in res.get(("torch", "native"), []) if rc == 0]
        lines.append("")
        lines.append("Every-launch runs: %s. The native runs' spread is %s a launch over 200 launches "
                     "((max - min of %d native runs) / 200): a cost per launch below it is not resolved "
                     "by this benchmark." % (
                         "; ".join("`%s`: %s" % (k, v) for k, v in sorted(notes["every"].items())),
                         fmt((max(nr) - min(nr)) / 200 * 1000, "ms") if len(nr) > 1 else "unknown (fewer than two runs)",
                         len(nr)))
    for prog in progs:
        lines += delay_lines(prog, os.path.join(work, "%s-trace.db" % prog), os.path.join(work, "%s.db" % prog))
    if skipped:
        lines.append("")
        lines.append("Not run (past the %d s deadline): %s." % (a.deadline, ", ".join(skipped)))
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(out, "cost_vs_ncu.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
