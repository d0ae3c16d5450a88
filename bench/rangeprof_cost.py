#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/rangeprof_cost.py: where a profiled launch's time goes (issue 18 point 2).

Runs the committed PyTorch training benchmark (bench/pytorch_train.py)
natively and under gpuhier in four ways, each with GPUHIER_DEBUG=1, whose
collector prints one line per profiled launch with the time of each phase
(collector/collector.c prof_start() and prof_finish()):

  enable     cuptiRangeProfilerEnable and what goes with a first enable
             (0 when the profiler hold kept it enabled)
  setup      choosing the metric host object, SetConfig (the config image),
             the counter data image, an L2 flush if asked
  start      cuptiRangeProfilerStart
  launch     the launch itself (with kernel replay: every pass, the memory
             save and restore)
  decode     cuptiRangeProfilerStop, DecodeData and GetCounterDataInfo
  evaluate   nvperf's evaluation of the metric values
  flush      the forced activity flush after the profile
  total      ENTER of the launch to the end of the profile

Variants:
  default       gpuhier's default: one one-pass group per profiled launch, user
                replay, the later groups within their budget (GPUHIER_GROUP_BUDGET)
  groups        the same with every group collected (GPUHIER_GROUP_BUDGET=none):
                the per-group cost, one table row per group (issue 18 point 1)
  groups-keep   groups with GPUHIER_DIAG_SWITCH_KEEP=1: no re-enable when the
                config image changes (what the re-enable costs, and whether
                user replay loses values without it: the discarded column and
                the NULL values of the report)
  groups-kept   groups with GPUHIER_DIAG_SESSION=kept: one range-profiler
                session per one-pass group, each profiled launch one user range
                of it, Stop + DecodeData once per batch of up to 64, evaluation
                on the writer thread (docs/collector.md "Kept session"). Its
                rows: per-profile phases (stop+decode is the pop plus the
                batch's drain split over its ranges; evaluate is 0, it runs off
                the application's thread), and a comparison of its values with
                the groups run's on the same launches (kernel, configuration,
                launch index within it, metric): how many are equal, within
                1 %, and the metrics that differ most. Run it with groups.
  groups-sticky groups with GPUHIER_DIAG_STICKY_GROUPS=1: a configuration's next
                group is the one last collected when it still lacks it, so the
                config image changes less often (a switch cost ~3x on 2026-12-01)
  kernel        --replay kernel: the core set, 3 kernel-replay passes (the
                default before one-pass groups)
  onepass       one one-pass metric list (--metric-set none --metrics ...), kernel replay
  onepass-user  the same list with user replay (GPUHIER_DIAG_REPLAY=user): no
                replay, no memory save/restore
  group1-user   issue 18's one-pass group 1 (19 counters) with user replay
  trace         --mode trace (no profile), for the wall-time column

Prints a Markdown table (median and p95 of each phase in ms, profiles, wall
time and its ratio to the native run) and writes it to OUT/rangeprof_cost.md.
Usage: rangeprof_cost.py STAGE [--steps N] [--variants a,b,...]   (STAGE from scripts/stage.sh)
The default variants measure the one-pass groups' cost per group in one call
(native, trace, default, groups, groups-keep, kernel: about 4 minutes on the H200).
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import gpu_name, stage_commit  # noqa: E402

ONEPASS = "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_active.avg"
# issue 18's one-pass group 1 (docs/metrics.md "One-pass groups", counted offline)
GROUP1 = ("dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
          "lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex.sum,"
          "sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,"
          "l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum,"
          "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum,"
          "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,"
          "lts__t_sectors_srcunit_tex_aperture_sysmem.sum,lts__t_sectors_aperture_sysmem.sum,"
          "lts__t_requests_aperture_sysmem.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,"
          "lts__d_atomic_input_cycles_active.sum,smsp__inst_executed.sum")
PHASES = ["enable", "setup", "start", "launch", "stop+decode", "evaluate", "flush", "total"]
LINE = re.compile(r"profiled: ranges (\d+) dropped (\d+) why (.*?); ms: (.*)$")
# GPUHIER_DIAG_SESSION=kept: one line per range, one per drained session (collector's kept_end, kept_drain)
KEPT = re.compile(r"profiled: kept range (\d+); ms: (.*)$")
DRAIN = re.compile(r"kept session drained: ranges (\d+) of (\d+) dropped (\d+) why (.*?); "
                   r"ms: stop\+decode ([0-9.]+) set (\S+)$")
# a profiled launch's values, keyed so that two runs of the same program can be compared
VALUES_SQL = ("SELECT k.mangled_name, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, "
              "c.dynamic_smem_bytes, l.config_launch_index, m.name, v.value FROM metric v "
              "JOIN launch l ON l.id = v.launch_id JOIN kernel k ON k.id = l.kernel_id "
              "JOIN config c ON c.id = l.config_id JOIN metric_name m ON m.id = v.metric_id "
              "WHERE l.profiled = 1")
SET = re.compile(r" set (\S+)$")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def report_values(db):
    """{(kernel, grid, block, smem, launch index, metric): value} of a report, {} if unreadable."""
    import sqlite3
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        rows = con.execute(VALUES_SQL).fetchall()
        con.close()
    except Exception as e:  # noqa: BLE001 - a failed run has no report; say so in the table
        print("values of %s: %s" % (db, e), file=sys.stderr)
        return {}
    return {tuple(r[:-1]): r[-1] for r in rows}


def compare_values(ref, got):
    """Lines saying how `got`'s values match `ref`'s on the launches both profiled."""
    common = [k for k in got if k in ref and ref[k] is not None and got[k] is not None]
    if not common:
        return ["- values: no launch profiled in both runs with the same metric (nothing compared)"]
    equal = sum(1 for k in common if got[k] == ref[k])
    close = sum(1 for k in common if abs(got[k] - ref[k]) <= 0.01 * max(abs(ref[k]), 1e-30))
    worst = {}
    for k in common:
        rel = abs(got[k] - ref[k]) / max(abs(ref[k]), 1e-30) if got[k] != ref[k] else 0.0
        worst.setdefault(k[-1], []).append(rel)
    top = sorted(worst.items(), key=lambda kv: -statistics.median(kv[1]))[:5]
    return ["- values against groups on the same launches (kernel, configuration, launch index, "
            "metric): %d compared, %d equal, %d within 1 %%" % (len(common), equal, close),
            "- metrics that differ most (median relative difference): " +
            ", ".join("%s %.3g" % (m, statistics.median(v)) for m, v in top)]


def run(cmd, env, cwd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=timeout)
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        rc, err = "timeout", (e.stderr or b"").decode("utf-8", "replace")
    return time.monotonic() - t0, rc, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stage")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=150)
    ap.add_argument("--variants", default="native,trace,default,groups,groups-keep,kernel")
    a = ap.parse_args()
    stage = os.path.abspath(a.stage)
    out = os.environ.get("OUT", "out")
    os.makedirs(out, exist_ok=True)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch_train.py")
    prog = [sys.executable, script, "--steps", str(a.steps)]
    g = [os.path.join(stage, "gpuhier"), "run", "--no-analyze", "-o", "r.db"]
    variants = {
        "native": (prog, {}),
        "trace": (g + ["--mode", "trace", "--"] + prog, {}),
        "default": (g + ["--"] + prog, {}),
        "groups": (g + ["--"] + prog, {"GPUHIER_GROUP_BUDGET": "none"}),
        "groups-keep": (g + ["--"] + prog,
                        {"GPUHIER_GROUP_BUDGET": "none", "GPUHIER_DIAG_SWITCH_KEEP": "1"}),
        "groups-kept": (g + ["--"] + prog,
                        {"GPUHIER_GROUP_BUDGET": "none", "GPUHIER_DIAG_SESSION": "kept"}),
        "groups-sticky": (g + ["--"] + prog,
                          {"GPUHIER_GROUP_BUDGET": "none", "GPUHIER_DIAG_STICKY_GROUPS": "1"}),
        "kernel": (g + ["--replay", "kernel", "--"] + prog, {}),
        "onepass": (g + ["--metric-set", "none", "--metrics", ONEPASS, "--"] + prog, {}),
        "onepass-user": (g + ["--metric-set", "none", "--metrics", ONEPASS, "--"] + prog,
                         {"GPUHIER_DIAG_REPLAY": "user"}),
        "group1-user": (g + ["--metric-set", "none", "--metrics", GROUP1, "--"] + prog,
                        {"GPUHIER_DIAG_REPLAY": "user"}),
    }
    rows = []
    native_wall = None
    values = {}  # variant -> its report's values (groups, groups-kept)
    for name in a.variants.split(","):
        cmd, extra = variants[name]
        env = dict(os.environ, GPUHIER_DEBUG="1", **extra)
        with tempfile.TemporaryDirectory(prefix="rpc-") as d:
            wall, rc, err = run(cmd, env, d, a.timeout)
            if name in ("groups", "groups-kept"):
                values[name] = report_values(os.path.join(d, "r.db"))
        with open(os.path.join(out, "rangeprof_cost-%s.err" % name), "w") as f:
            f.write(err[-200000:])
        per = {p: [] for p in PHASES}
        by_set = {}  # metric set (e.g. group1/6) -> its phases
        dropped = 0
        kept = []  # (set, phases) of each kept range, until its session's drain line
        for line in err.splitlines():
            d = DRAIN.search(line)
            if d:
                # the drain's time, split over its ranges, is each range's stop+decode
                share = float(d.group(5)) / max(int(d.group(2)), 1)
                if d.group(4) != "-":
                    dropped += int(d.group(2))
                for sname, ph in kept:
                    ph["stop+decode"] = ph.get("pop", 0.0) + share
                    ph["total"] = ph.get("total", 0.0) + share
                    ph["evaluate"] = 0.0  # on the writer thread
                    one = by_set.setdefault(sname, {p: [] for p in PHASES})
                    for k in PHASES:
                        if k in ph:
                            per[k].append(ph[k])
                            one[k].append(ph[k])
                kept = []
                continue
            k = KEPT.search(line)
            if k:
                sm = SET.search(k.group(2))
                kept.append((sm.group(1) if sm else "-",
                             {a_: float(v) for a_, v in re.findall(r"([a-z+]+) (-?[0-9.]+)", k.group(2))}))
                continue
            m = LINE.search(line)
            if not m:
                continue
            if m.group(3) != "-":
                dropped += 1
            sm = SET.search(m.group(4))
            one = by_set.setdefault(sm.group(1) if sm else "-", {p: [] for p in PHASES})
            for k, v in re.findall(r"([a-z+]+) (-?[0-9.]+)", m.group(4)):
                if k in per:
                    per[k].append(float(v))
                    one[k].append(float(v))
        if name == "native":
            native_wall = wall
        rows.append((name, rc, wall, len(per["total"]), dropped, per))
        if name.startswith("groups") and len(by_set) > 1:
            # one row per group: what each group costs (issue 18 point 1)
            for sname in sorted(by_set):
                rows.append(("%s %s" % (name, sname), "", None, len(by_set[sname]["total"]), 0,
                             by_set[sname]))
        print("%s: status %s, %.1f s, %d profiles" % (name, rc, wall, len(per["total"])), flush=True)
    head = ["## Where a profiled launch's time goes (issue 18 point 2)", "",
            "- date: %s UTC; %s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
                                     gpu_name()),
            "- workload: `bench/pytorch_train.py --steps %d`; stage commit %s; one run per variant" % (
                a.steps, stage_commit(stage)),
            "- one-pass list: `%s`" % ONEPASS, "",
            "| variant | status | wall s | × native | profiles | discarded | " +
            " | ".join("%s ms (median / p95)" % p for p in PHASES) + " |",
            "| --- " * (6 + len(PHASES)) + "|"]
    for name, rc, wall, n, dropped, per in rows:
        cells = ["%.1f / %.1f" % (statistics.median(per[p]), pct(per[p], 0.95)) if per[p] else ""
                 for p in PHASES]
        head.append("| %s | %s | %s | %s | %d | %d | %s |" % (
            name, rc, "%.1f" % wall if wall is not None else "",
            "%.2f" % (wall / native_wall) if native_wall and wall is not None else "", n, dropped,
            " | ".join(cells)))
        if per["total"]:
            head.append("| %s, sum of phases s | | | | | | %s |" % (
                name, " | ".join("%.2f" % (sum(per[p]) / 1e3) for p in PHASES)))
    if "groups" in values and "groups-kept" in values:
        head += ["", "groups-kept against groups:"] + compare_values(values["groups"], values["groups-kept"])
    text = "\n".join(head) + "\n"
    print(text)
    with open(os.path.join(out, "rangeprof_cost.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
