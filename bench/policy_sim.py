#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/policy_sim.py: the collector's sampling policies replayed on a recorded program, on the CPU.

    policy_sim.py REPORT [--build BUILD] [--runs N] [--variant NAME=VAR=VALUE[,VAR=VALUE...]]...
                  [--cost KEY=MS[,KEY=MS...]] [--pass-metrics N] [--out DIR]
    policy_sim.py --calibrate DEFAULT_REPORT

--calibrate reads the prices from a default-mode report of a real run
(its profiles' overheads, meta instrumented_launches and profiler_setup)
and prints them as a --cost string, beside the built-in one: the cheapest
check of the model against a device run.

A model, not a measurement. REPORT is a report of a real run (a trace-mode
one is best: every launch has its GPU times). Its kernel launches, in API
order, are written as a replay file and played by the fake driver's program
(tests/unit/collector_fake_host.c `replay`): each launch of the recorded
kernel name and geometry, its recorded GPU duration on the fake's virtual
clock, then the recorded time to the next launch's GPU start slept (the
program's own time; a host-bound program's launches follow it). The real
collector runs in that program on the fake driver and CUPTI
(tests/unit/collector_fake_cuda.c), whose calls sleep what the cost model
says each costs on the device (FAKE_COST; the defaults below are what the
H200 measured, docs/cost-vs-ncu.md), with a one-pass plan of several groups
(FAKE_PASS_METRICS metrics a pass). So the sampler's decisions, the budgets,
the group runs, the kept session, the instrumentation engine's quiesce and
the writer are the collector's own; only CUPTI's prices are modelled.

Graph launches are replayed as graphs of the recorded kernel nodes (made
executable at their first launch; the fake runs each node at the graph's
mean node time and a fixed geometry). What it leaves out: copies, streams,
threads (one launching thread), the device's own time per kernel (a profiled launch's kernel costs
nothing beyond the model's prices), the driver's launch cost (the same
in every mode). Each mode runs N times, interleaved; the table gives
medians.

Prints, per mode: wall time and ratio to the replay without the collector,
range profiles and instrumented launches, range-profiler enables (and why
the profiler was disabled), the share of the recorded GPU time whose
configurations have hardware counters (a range profile) and pattern
counters (an instrumented launch), the same over the repeated work alone
(the configurations REPORT's own analysis, `gpuhier analyze` on a copy,
calls neither one-time set-up nor waiting; matched by kernel and geometry,
so a graph's nodes, replayed with the fake's fixed geometry, count as
without counters; "-" when the analysis finds no set-up), and where in the
launches the first and last range profiles came. Writes policy-sim.json
and the replay file to --out.
"""
import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

# What one call costs on the H200, ms: `--calibrate` on the PyTorch benchmark's default report
# of 2026-12-05 03:25 UTC (docs/cost-vs-ncu.md; the H100's of 05:50 UTC: the enables within 12 %,
# SetConfig 16.7 and a restart's Start 17.3 ms against 11.8 and 25): the
# first profile 340 ms and a re-enable with a new image 230-290 ms (enable, SetConfig and a Start
# that takes ~300 ms right after an enable), a drain that restarts the session 20-50 ms
# (DecodeData, SetConfig, Start: the decode is in rp_start), a profile within a session 1.5 ms;
# an instrumented launch's enable 2.2 ms, patched run 4.9 ms, flush 1.4 ms, disable 0.7 ms;
# concurrent kernel tracing about 0.1 ms a launch (trace mode 1.09x on the 6,333 launches of
# the PyTorch benchmark). Until 2026-12-05 the first enable was priced at 900 ms and every
# Start at 50 ms, from the calls of 2026-12-04.
DEFAULT_COST = ("rp_enable_first=305,rp_enable=228,rp_config=11.8,rp_start=25,rp_range=1.5,"
                "rp_decode=0,sass_enable=2.2,sass_run=4.9,sass_flush=1.4,sass_disable=0.7,"
                "trace=0.1")


def replay_file(report, path):
    """Writes REPORT's launches as the fake program's replay file; returns (launches, GPU ns)."""
    db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
    run_start, run_end = db.execute("SELECT start_ns, end_ns FROM run").fetchone()
    rows = db.execute(
        "SELECT k.mangled_name, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,"
        " c.dynamic_smem_bytes, l.start_ns, l.end_ns, l.graph_id, l.correlation_id FROM launch l"
        " JOIN config c ON c.id = l.config_id JOIN kernel k ON k.id = l.kernel_id"
        " WHERE l.start_ns IS NOT NULL ORDER BY l.correlation_id, l.graph_node_id, l.start_ns"
    ).fetchall()
    if not rows:
        sys.exit(f"policy_sim: {report} has no timed launches (a trace-mode report has)")
    untimed = db.execute("SELECT count(*) FROM launch WHERE start_ns IS NULL").fetchone()[0]
    if untimed:
        # a default report's profiled and instrumented launches keep no times: left out, the
        # configurations' first launches go missing and the replay is another program (on the H100's
        # PyTorch default report of 2026-12-05: 26 profiles and 16 enables against the device's 411 and 5)
        print(f"policy_sim: warning: {untimed} of {untimed + len(rows)} launches of {report} have no GPU "
              "time (profiled or instrumented: a default-mode report?) and are left out of the replay; "
              "replay a trace-mode report of the same program", file=sys.stderr)
    # one entry a stream launch, or a graph launch with its nodes (rows of one correlation id)
    entries = []
    for r in rows:
        if r[10] is not None and entries and entries[-1]["corr"] == r[11] and entries[-1]["graph"]:
            entries[-1]["nodes"].append(r)
            entries[-1]["end"] = max(entries[-1]["end"], r[9])
        else:
            entries.append({"corr": r[11], "graph": r[10], "nodes": [r], "start": r[8], "end": r[9]})
    gpu = sum(max(1, r[9] - r[8]) for r in rows)
    graph_ids = {}
    # the run's start and end bound the kernels' times when both are on one clock (a report of
    # the fake driver's virtual clock is not: then neither gap is replayed)
    timed = run_start <= entries[0]["start"] and entries[-1]["end"] <= run_end
    with open(path, "w") as f:
        f.write(f"start {entries[0]['start'] - run_start if timed else 0}\n")
        for i, e in enumerate(entries):
            nxt = (entries[i + 1]["start"] if i + 1 < len(entries)
                   else run_end if timed else e["end"])
            gap = max(0, nxt - e["start"])
            name = lambda r: r[0].replace(" ", "_")[:255]
            if e["graph"] is not None:
                gid = graph_ids.setdefault(e["graph"], len(graph_ids))
                nodes = e["nodes"][:64]
                mean = sum(max(1, r[9] - r[8]) for r in nodes) // len(nodes)
                f.write(f"graph {gid} {len(nodes)} {mean} {gap}\n")
                f.writelines(name(r) + "\n" for r in nodes)
                continue
            r = e["nodes"][0]
            f.write(f"{name(r)} {r[1]} {r[2]} {r[3]} {r[4]} {r[5]} {r[6]} {r[7] or 0}"
                    f" {max(1, r[9] - r[8])} {gap}\n")
    return len(rows), gpu


def config_keys(db):
    """Each configuration of the report `db` as {id: (kernel, grid, block, dynamic smem)}: the key
    that matches a recorded report's configuration with its replay's."""
    return {r[0]: tuple(r[1:]) for r in db.execute(
        "SELECT c.id, k.mangled_name, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y,"
        " c.block_z, COALESCE(c.dynamic_smem_bytes, 0) FROM config c JOIN kernel k"
        " ON k.id = c.kernel_id")}


def repeated_work(report, build, out):
    """The configurations of REPORT's repeated work, as keys (kernel, geometry): the analysis of
    a copy (gpuhier analyze) leaves out one-time set-up and kernels that wait. None when the
    analysis fails or finds no set-up (then the run-wide shares say the same)."""
    copy = os.path.join(out, "source-analyzed.db")
    shutil.copyfile(report, copy)
    p = subprocess.run([os.path.join(build, "gpuhier"), "analyze", copy], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(f"policy_sim: no repeated-work shares: gpuhier analyze failed: {p.stderr.strip()}")
        return None
    db = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    cols = [r[1] for r in db.execute("PRAGMA table_info(kernel_summary)")]
    if "one_time" not in cols:
        return None
    work = {r[0] for r in db.execute("SELECT config_id FROM kernel_summary WHERE config_id IS NOT"
                                     " NULL AND COALESCE(one_time, 0) = 0"
                                     " AND COALESCE(bound_tier, '') <> 'waiting'")}
    setup = db.execute("SELECT COUNT(*) FROM kernel_summary WHERE config_id IS NOT NULL"
                       " AND one_time = 1").fetchone()[0]
    return {key for cfg, key in config_keys(db).items() if cfg in work} if setup else None


def coverage(db_path, repeated=None):
    """What a replay's report says: profiles, instrumented launches, coverage by recorded time,
    and over the repeated work alone when `repeated` (configuration keys) is given."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    one = lambda q: db.execute(q).fetchone()[0]
    meta = dict(db.execute("SELECT key, value FROM meta"))
    rep = {}
    if repeated is not None:
        keyed = config_keys(db)
        hw_cfg = {r[0] for r in db.execute(
            "SELECT DISTINCT l.config_id FROM launch l JOIN profile p ON p.launch_id = l.id")}
        pat_cfg = {r[0] for r in db.execute("SELECT DISTINCT config_id FROM inst_launch")}
        t = h = q = 0
        for cfg, ns in db.execute("SELECT config_id, SUM(end_ns - start_ns) FROM launch"
                                  " WHERE start_ns IS NOT NULL GROUP BY config_id"):
            if keyed.get(cfg) in repeated:
                t += ns
                h += ns if cfg in hw_cfg else 0
                q += ns if cfg in pat_cfg else 0
        rep = {"repeated_hw_pct": 100.0 * h / t if t else None,
               "repeated_pattern_pct": 100.0 * q / t if t else None}
    total = one("SELECT SUM(end_ns - start_ns) FROM launch WHERE start_ns IS NOT NULL") or 0
    hw = one("SELECT SUM(l.end_ns - l.start_ns) FROM launch l WHERE l.start_ns IS NOT NULL"
             " AND l.config_id IN (SELECT l2.config_id FROM launch l2 JOIN profile p"
             " ON p.launch_id = l2.id)") or 0
    pat = one("SELECT SUM(l.end_ns - l.start_ns) FROM launch l WHERE l.start_ns IS NOT NULL"
              " AND l.config_id IN (SELECT config_id FROM inst_launch)") or 0
    first, last = db.execute("SELECT MIN(l.correlation_id), MAX(l.correlation_id) FROM launch l"
                             " JOIN profile p ON p.launch_id = l.id").fetchone()
    return {
        "profiles": one("SELECT COUNT(*) FROM profile"),
        "instrumented": one("SELECT COUNT(*) FROM inst_launch"),
        "launches": one("SELECT COUNT(*) FROM launch"),
        "enables": meta.get("profiler_enables", "0"),
        "disables": meta.get("profiler_disables", ""),
        "hw_pct": 100.0 * hw / total if total else 0.0,
        "pattern_pct": 100.0 * pat / total if total else 0.0,
        "first_profile": first,
        "last_profile": last,
        "groups": one("SELECT COUNT(DISTINCT metric_set) FROM profile"),
        **rep,
    }


def run_once(args, mode_env, replay, db_path):
    build = os.path.abspath(args.build)
    fake = os.path.join(build, "tests", "libgh_collector_fake_cuda.so")
    host = os.path.join(build, "tests", "collector_fake_host")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHIER_", "FAKE_"))}
    env.update({"FAKE_COST": args.cost, "FAKE_PASS_METRICS": str(args.pass_metrics),
                "FAKE_RANGEPROF": "1"})
    if mode_env is not None:
        env.update({"CUDA_INJECTION64_PATH": os.path.join(build, "libgpuhier-collector.so"),
                    "GPUHIER_CUPTI_PATH": fake, "GPUHIER_OUTPUT": db_path, "GPUHIER_QUIET": "1",
                    # the plan cache's key does not hold the fake's pass model
                    "GPUHIER_CACHE_DIR": os.path.join(args.out, f"cache-{args.pass_metrics}")})
        env.update(mode_env)
    # a report left by an earlier run must not pass for this one's
    for stale in (db_path, db_path + "-wal", db_path + "-shm"):
        if os.path.exists(stale):
            os.unlink(stale)
    t0 = time.monotonic()
    p = subprocess.run([host, fake, "replay", replay], env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0 or "fake_violations=0" not in p.stdout:
        sys.exit(f"policy_sim: the replay failed ({p.returncode}): {p.stdout}{p.stderr}")
    if mode_env is not None and not os.path.exists(db_path):
        sys.exit(f"policy_sim: the collector wrote no report ({db_path}): {p.stderr}")
    return wall


def calibrate(report):
    """The cost model's prices read from a default-mode report of a real run; returns a dict."""
    import re
    db = sqlite3.connect(f"file:{report}?mode=ro", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    prof = [r[0] / 1e6 for r in db.execute(
        "SELECT p.overhead_ns FROM profile p JOIN launch l ON l.id = p.launch_id"
        " WHERE p.overhead_ns IS NOT NULL ORDER BY l.correlation_id")]
    cost = {}
    if prof:
        # a profile within a session; one that restarts a session (SetConfig, Start: a drain came
        # before it); one that enabled the profiler again (a switch, over 150 ms); the first
        later = prof[1:]
        within = [x for x in later if x <= 10] or [prof[0]]
        restart = [x for x in later if 10 < x <= 150]
        switch = [x for x in later if x > 150]
        cost["rp_range"] = statistics.median(within)
        setup = re.search(r"first profile ([\d.]+) ms \(enable ([\d.]+), set-up ([\d.]+), "
                          r"start ([\d.]+)\)", meta.get("profiler_setup", ""))
        if setup and restart:
            # SetConfig from the split; Start from a restart within an enabled profiler: on the H100
            # and H200 a Start right after an enable takes ~300 ms and one within it 20-50 ms
            # (2026-12-05), so the first Start's surplus belongs to the enable below, not to every
            # restart (priced at the first Start, the model's kept sessions cost 10x the device's)
            cost["rp_config"] = float(setup.group(3))
            cost["rp_start"] = statistics.median(restart) - cost["rp_range"] - cost["rp_config"]
        elif setup:  # no restart seen: the first Start is all there is
            cost["rp_config"], cost["rp_start"] = float(setup.group(3)), float(setup.group(4))
        else:  # no split recorded: a restart's time less a range, a fifth of it SetConfig
            both = (statistics.median(restart) if restart else 60.0) - cost["rp_range"]
            cost["rp_config"], cost["rp_start"] = both / 5, both * 4 / 5
        again = cost["rp_config"] + cost["rp_start"]
        # an enable's price is what its profile cost beyond a restart's: the first and each switch
        cost["rp_enable_first"] = prof[0] - again - cost["rp_range"]
        if switch:
            cost["rp_enable"] = statistics.median(switch) - again - cost["rp_range"]
    m = re.match(r"(\d+) launches, [\d.]+ ms \(.*enable ([\d.]+), patched run ([\d.]+), "
                 r"flush ([\d.]+), disable ([\d.]+)\)", meta.get("instrumented_launches", ""))
    if m and int(m.group(1)):
        n = int(m.group(1))
        # chained launches (the default since 2026-12-05) share an enable: the enable and the
        # disable are priced per enable, the patched run and the flush per launch
        c = re.match(r"(\d+) launches ran in the enable", meta.get("instrumentation_chain", ""))
        enables = max(1, n - int(c.group(1))) if c else n
        for key, g, per in (("sass_enable", 2, enables), ("sass_run", 3, n), ("sass_flush", 4, n),
                            ("sass_disable", 5, enables)):
            cost[key] = float(m.group(g)) / per
    return {k: round(max(v, 0.0), 2) for k, v in cost.items()}


def parse_variant(text):
    name, _, rest = text.partition("=")
    env = {}
    for kv in filter(None, rest.split(",")):
        k, _, v = kv.partition("=")
        env[k] = v
    return name, env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report", nargs="?")
    ap.add_argument("--calibrate", metavar="DEFAULT_REPORT")
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=VAR=VALUE[,VAR=VALUE...]: a collector variant beside the default")
    ap.add_argument("--cost", default=DEFAULT_COST, help="FAKE_COST: KEY=MS,... (see the fake)")
    ap.add_argument("--pass-metrics", type=int, default=8,
                    help="metrics the fake puts in one pass: 8 gives the plan GH100's 8 groups")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.calibrate:
        got = calibrate(args.calibrate)
        built = dict(kv.split("=") for kv in DEFAULT_COST.split(","))
        print(f"policy_sim: prices read from {args.calibrate} (ms), beside the built-in ones:")
        for k in sorted(set(got) | {k for k in built if k.startswith(("rp_", "sass_"))}):
            print(f"  {k:16} {got.get(k, '-')!s:>9}  {built.get(k, '-'):>6}")
        print("--cost " + ",".join(f"{k}={v}" for k, v in sorted(got.items())))
        return
    if not args.report:
        ap.error("a REPORT to replay, or --calibrate")
    args.out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="policy-sim-"))
    os.makedirs(args.out, exist_ok=True)
    replay = os.path.join(args.out, "replay.txt")
    n, gpu = replay_file(args.report, replay)
    repeated = repeated_work(args.report, os.path.abspath(args.build), args.out)
    modes = [("native", None), ("trace", {"GPUHIER_MODE": "trace"}), ("default", {})]
    modes += [parse_variant(v) for v in args.variant]
    walls = {m: [] for m, _ in modes}
    last = {}
    for r in range(args.runs):
        for name, env in modes:
            db = os.path.join(args.out, f"{name}-{r}.db")
            walls[name].append(run_once(args, env, replay, db))
            if env is not None:
                last[name] = coverage(db, repeated)
    native = statistics.median(walls["native"])
    print(f"policy_sim: {args.report}: {n} launches, {gpu / 1e6:.1f} ms of GPU time; "
          f"a model (the fake driver with FAKE_COST={args.cost}), {args.runs} run(s) a mode")
    print("| mode | wall s (median) | x replay | range profiles (groups) | instrumented |"
          " enables (disabled because) | hardware / pattern, % of GPU time |"
          " the same, repeated work alone | first / last profile (correlation id) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    pct = lambda v: "-" if v is None else f"{v:.1f}"
    rows = []
    for name, env in modes:
        w = statistics.median(walls[name])
        c = last.get(name, {})
        rows.append({"mode": name, "env": env, "walls": walls[name], **c})
        if env is None:
            print(f"| {name} | {w:.2f} | 1.00 | - | - | - | - | - | - |")
            continue
        print(f"| {name} | {w:.2f} | {w / native:.2f} | {c['profiles']} ({c['groups']}) |"
              f" {c['instrumented']} | {c['enables']} ({c['disables'] or '-'}) |"
              f" {c['hw_pct']:.1f} / {c['pattern_pct']:.1f} |"
              f" {pct(c.get('repeated_hw_pct'))} / {pct(c.get('repeated_pattern_pct'))} |"
              f" {c['first_profile'] or '-'} / {c['last_profile'] or '-'} |")
    with open(os.path.join(args.out, "policy-sim.json"), "w") as f:
        json.dump({"report": args.report, "launches": n, "gpu_ns": gpu, "cost": args.cost,
                   "pass_metrics": args.pass_metrics, "runs": args.runs, "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()
