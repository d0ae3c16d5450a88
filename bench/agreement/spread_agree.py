#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/agreement/spread_agree.py: a spread-pass profile against Nsight
Compute, like for like (issue 18 point 5).

Usage: spread_agree.py --stage STAGE --out DIR [--budget S] [--root ROOT]
       spread_agree.py --reuse DIR --out DIR      (recompute, no GPU)
       spread_agree.py --rejudge RUN.json[.gz] --out DIR
                        (the recorded values judged again with today's
                        classes: no new measurement, no report needed)

gpuhier's default (docs/metrics.md "One-pass groups") collects one one-pass
group per profiled launch: a configuration's launch 0 gets group 1, its
launch 1 group 2, and so on (profile.metric_set 'groupK/N'). Per program:

  gpuhier run (default sampling) on the window SPREAD_SKIP/SPREAD_COUNT;
  the groups' metric names are read from the report (the names its
  'groupK/N' launches hold);
  for each group K: ncu --metrics <group K's names> on the same window,
  twice (runs 1 and 2: ncu against itself). Each group fits one pass, so
  ncu does not replay either.

A gpuhier launch with group K, occurrence j of its (mangled name, grid,
block) in the window, is compared with ncu's group-K launch at occurrence j
of the same key: the same group on the same launch index, whatever the
other groups were collected on.

Gates (issue 18 point 5):
  (a) code-only counters (instructions, requests, sectors, wavefronts,
      local and shared traffic; code_only()) within +-1 % of
      ncu's run 1 (compare.py's counter tolerance) on every value;
  (b) state counters (DRAM bytes, L2 hits and misses, system memory, L1
      hit rate, active cycles, occupancy, L2-from-L1 sectors, the
      hardware's bank conflicts; the rest):
      per metric, misses of gpuhier against ncu runs 1 and 2 no more than
      twice ncu run 2's misses against its run 1 (selfagree.py's gate (b)).
  Durations are reported, not gated.
Writes DIR/spread-agree.md and DIR/spread-agree.json. Exit 0 when both
gates hold (gate (b) judged on at least one state metric with ncu's run 2),
1 when one does not, 2 when nothing could be compared.
Environment: SPREAD_SKIP (--launch-skip, both tools), SPREAD_COUNT (most
launches in ncu's window, default 200), SPREAD_TK (testkernel programs,
default 6), SPREAD_PROGRAMS (a regular expression on the labels),
SPREAD_NCU_RUNS (1 or 2, default 2: every group's run 1 goes first),
SPREAD_CACHE (--cache-control: none, the default, runs ncu with
--cache-control none and gpuhier with its default; all runs both with
--cache-control all, each profiled launch starting from a flushed L2).
"""
import argparse
import json
import os
import re
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "e2e"))
import compare  # noqa: E402
import inst_agree  # noqa: E402
import ncu_csv  # noqa: E402
import run as agree_run  # noqa: E402

try:
    import sqlite3
except ImportError:
    sys.exit("spread_agree: this python3 has no sqlite3 module")

# counters that depend on cache contents or timing (gate b)
# The hardware's shared-memory bank conflicts (l1tex__data_bank_conflicts_*)
# are state: Nsight Compute against itself on the same launch differed on 4
# of 5 such values of the device run of 2026-12-04 (up to 5.3 %: smem_padded's
# store conflicts 13,110 then 12,452), as both tools did on 2026-11-29
# (docs/agreement.md class D), while the shared wavefronts and instructions
# stayed exact. What the code alone decides about conflicts is the exact
# wavefronts against their ideal (the instrumentation engine, inst_agree.py).
STATE_PREFIXES = ("dram__", "lts__t_sectors_lookup", "lts__t_sectors_aperture_sysmem",
                  "lts__t_requests_aperture_sysmem", "lts__t_sectors_srcunit_tex", "sm__cycles_active",
                  "sm__warps_active", "sm__pipe_", "l1tex__t_sector_hit_rate", "l1tex__m_xbar2l1tex_read_bytes.",
                  "lts__d_atomic_input_cycles_active", "l1tex__data_bank_conflicts_")

# ratios the rules read, and their parts: one that has its parts in
# different groups is computed from different launches once spread
DERIVED = (
    ("L2 hit rate", ("lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum")),
    ("global load sectors per instruction", ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                             "smsp__inst_executed_op_global_ld.sum")),
    ("global store sectors per instruction", ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                              "smsp__inst_executed_op_global_st.sum")),
    ("global load sectors against requested bytes", ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                                     "smsp__sass_data_bytes_mem_global_op_ld.sum")),
    ("global store sectors against requested bytes", ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                                      "smsp__sass_data_bytes_mem_global_op_st.sum")),
    ("global load sectors per request", ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                         "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")),
    ("shared load conflicts per wavefront", ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")),
    ("local load L1 miss share", ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
                                  "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")),
    ("DRAM bytes against duration (bandwidth)", ("dram__bytes_read.sum", "gpu__time_duration.sum")),
    ("L2 hit sectors against DRAM bytes read", ("lts__t_sectors_lookup_hit.sum", "dram__bytes_read.sum")),
    ("L2 miss sectors against DRAM bytes read", ("lts__t_sectors_lookup_miss.sum", "dram__bytes_read.sum")),
    ("L2 sectors from L1 against DRAM bytes", ("lts__t_sectors_srcunit_tex.sum", "dram__bytes_read.sum")),
    ("system-memory share of L2 sectors from L1", ("lts__t_sectors_srcunit_tex_aperture_sysmem.sum",
                                                   "lts__t_sectors_srcunit_tex.sum")),
    ("L2 atomic unit busy share", ("lts__d_atomic_input_cycles_active.sum", "gpu__time_duration.sum")),
)


# the DRAM busy share over the range's elapsed time (the roof trigger): shown beside the durations
BUSY = "dram__bytes.sum.pct_of_peak_sustained_elapsed"


def code_only(metric):
    """True for a counter that depends only on the code and its data."""
    return (compare.kind(metric) != "time" and not metric.startswith(STATE_PREFIXES)
            and "_lookup_hit" not in metric and "_lookup_miss" not in metric)


def group_of(metric_set):
    """'group2/6' -> (2, 6); anything else -> None."""
    m = re.match(r"group(\d+)/(\d+)$", metric_set or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def read_spread(path):
    """The spread profiles of one report: ([dict(name, mangled, key, occ,
    pos, group, metrics)], {K: [metric names]}). occ counts launches of the
    same (mangled name, grid, block) in the window, pos all launches before
    it, in launch order (launches inside --launch-skip are not in the
    window: the run must not pass --launch-count, whose spent count marks
    later launches skip_count too)."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        rows = db.execute(
            "SELECT l.id, COALESCE(k.demangled_name, k.mangled_name), k.mangled_name,"
            " c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, p.metric_set,"
            " COALESCE(l.profile_reason, '')"
            " FROM launch l JOIN kernel k ON k.id = l.kernel_id LEFT JOIN config c ON c.id = l.config_id"
            " LEFT JOIN profile p ON p.launch_id = l.id"
            " ORDER BY l.correlation_id, l.id").fetchall()
        occ, out, groups, pos = {}, [], {}, -1
        for r in rows:
            if r[10] == "skip_count":
                continue
            pos += 1
            key = (r[2], tuple(r[3:6]), tuple(r[6:9]))
            j = occ.get(key, 0)
            occ[key] = j + 1
            g = group_of(r[9])
            if not g:
                continue
            m = {n: v for n, v in db.execute(
                "SELECT n.name, m.value FROM metric m JOIN metric_name n ON n.id = m.metric_id"
                " WHERE m.launch_id = ? AND m.value IS NOT NULL", (r[0],))}
            groups.setdefault(g[0], set()).update(m)
            out.append({"launch_id": r[0], "name": r[1], "mangled": r[2],
                        "key": (agree_run.norm_name(r[1]), tuple(r[3:6]), tuple(r[6:9])),
                        "occ": j, "pos": pos, "group": g[0], "groups": g[1], "metrics": m})
        return out, {k: sorted(v) for k, v in groups.items()}
    finally:
        db.close()


def ncu_by_occurrence(launches):
    """{(mangled, grid, block, occ): launch} for one ncu run, in ID order."""
    occ, out = {}, {}
    for t in sorted(launches, key=lambda t: t["id"]):
        k = (t["kernel"], agree_run.triple(t["grid"]), agree_run.triple(t["block"]))
        j = occ.get(k, 0)
        occ[k] = j + 1
        out[k + (j,)] = t
    return out


def compare_spread(label, ours, ncu_runs):
    """ncu_runs: {K: [run1 launches, run2 launches or None]}. Returns a list
    of comparisons: dict(program, kernel, occ, group, metric, gpuhier, ncu1,
    ncu2, ok1, ok2, self_ok, code_only) and the gpuhier launches unmatched."""
    idx = {k: [ncu_by_occurrence(r) if r else {} for r in runs] for k, runs in ncu_runs.items()}
    comps, unmatched = [], 0
    for o in ours:
        runs = idx.get(o["group"])
        if not runs:
            unmatched += 1
            continue
        k = (o["mangled"], o["key"][1], o["key"][2], o["occ"])
        t1 = runs[0].get(k)
        t2 = runs[1].get(k) if len(runs) > 1 else None
        if t1 is None:
            unmatched += 1
            continue
        for n, g in sorted(o["metrics"].items()):
            if n not in t1["metrics"]:
                continue
            v1 = t1["metrics"][n]
            v2 = t2["metrics"].get(n) if t2 else None
            c = {"program": label, "kernel": o["name"], "occ": o["occ"], "group": o["group"], "metric": n,
                 "gpuhier": g, "ncu1": v1, "ncu2": v2, "code_only": code_only(n),
                 "ok1": compare.agree(n, g, v1)[0], "diff1": compare.agree(n, g, v1)[1]}
            if compare.kind(n) == "time":  # shown beside the rates over elapsed time, never gated
                c["shown"] = True
            if v2 is not None:
                c["ok2"] = compare.agree(n, g, v2)[0]
                c["self_ok"] = compare.agree(n, v2, v1)[0]
            comps.append(c)
    return comps, unmatched


def gates(comps):
    """(a_ok, a_misses, a_values, b_ok, [(metric, gpuhier misses, 2 x ncu self misses, values)])."""
    comps = [c for c in comps if not c.get("shown")]
    a = [c for c in comps if c["code_only"]]
    a_miss = sum(1 for c in a if not c["ok1"])
    per = {}
    for c in comps:
        if c["code_only"] or "self_ok" not in c:  # without ncu's run 2 there is no self-agreement to hold to
            continue
        e = per.setdefault(c["metric"], [0, 0, 0])
        e[0] += (0 if c["ok1"] else 1) + (0 if c["ok2"] else 1)
        e[1] += 0 if c["self_ok"] else 2
        e[2] += 1
    b = [(m, e[0], e[1], e[2]) for m, e in sorted(per.items())]
    b_ok = all(x[1] <= x[2] for x in b)
    return a_miss == 0 and bool(a), a_miss, len(a), b_ok, b


def spread_losses(groups):
    """The DERIVED ratios whose parts the report holds in different groups:
    [(label, {part: group})]."""
    where = {}
    for k, names in groups.items():
        for n in names:
            where.setdefault(n, set()).add(k)
    out = []
    for label, parts in DERIVED:
        if not all(p in where for p in parts):
            continue
        common = set.intersection(*(where[p] for p in parts))
        if not common:
            out.append((label, {p: min(where[p]) for p in parts}))
    return out


def markdown(comps, infos, groups, header):
    a_ok, a_miss, a_n, b_ok, b = gates(comps)
    L = ["## Spread passes against Nsight Compute, like for like (issue 18 point 5)", ""] + header + [""]
    L.append("**Gate (a), code-only counters within +-%.0f %% of ncu on the same launch: %s** (%d of %d values outside)."
             % (compare.COUNTER_TOL_PCT, "met" if a_ok else "NOT met", a_miss, a_n))
    L.append("**Gate (b), state counters no more misses than ncu against itself (twice): %s**%s." % (
        "met" if b_ok and b else ("NOT met" if b else "nothing compared"),
        "" if b_ok else " (" + "; ".join("`%s` %d > %d" % x[:3] for x in b if x[1] > x[2]) + ")"))
    L += ["", "| program | gpuhier rc | spread launches | groups | ncu runs | ncu passes | compared | unmatched | note |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i in infos:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            i["program"], i.get("gpuhier_rc", ""), i.get("spread", ""), i.get("groups", ""),
            i.get("ncu_runs", ""), i.get("ncu_passes", ""), i.get("values", 0), i.get("unmatched", ""), "; ".join(i.get("notes", []))[:300]))
    if b:
        L += ["", "| state metric | values | gpuhier-ncu misses (2 runs) | 2 x ncu-ncu misses | gate (b) |",
              "| --- | --- | --- | --- | --- |"]
        for m, ours, lim, n in b:
            L.append("| `%s` | %d | %d | %d | %s |" % (m, n, ours, lim, "ok" if ours <= lim else "**over**"))
    busy = {(c["program"], c["kernel"], c["occ"]): c for c in comps if c["metric"] == BUSY}
    shown = [(c, busy.get((c["program"], c["kernel"], c["occ"]))) for c in comps if c.get("shown")]
    if shown:
        L += ["", "Durations, not gated (the DRAM busy share's denominator is the range's elapsed time): "
              "gpuhier's range against ncu's two runs, and the busy share beside them.", "",
              "| program | kernel | occurrence | gpuhier ns | ncu ns (run 1, 2) | gpuhier / ncu run 1 "
              "| busy share gpuhier | ncu (run 1, 2) |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for c, b in shown:
            L.append("| %s | %s | %d | %.0f | %.0f, %s | %s | %s | %s |" % (
                c["program"], c["kernel"][:50], c["occ"], c["gpuhier"], c["ncu1"],
                "-" if c.get("ncu2") is None else "%.0f" % c["ncu2"],
                "%.3f" % (c["gpuhier"] / c["ncu1"]) if c["ncu1"] else "-",
                "%.1f" % b["gpuhier"] if b else "-", "%.1f, %s" % (b["ncu1"], "-" if b.get("ncu2") is None
                                                                  else "%.1f" % b["ncu2"]) if b else "-"))
    per = {}
    for c in comps:
        if c["code_only"]:
            e = per.setdefault(c["metric"], [0, 0])
            e[0] += 1
            e[1] += 0 if c["ok1"] else 1
    if per:
        L += ["", "| code-only metric | values | misses |", "| --- | --- | --- |"]
        for m, (n, k) in sorted(per.items()):
            L.append("| `%s` | %d | %d |" % (m, n, k))
    losses = spread_losses(groups)
    L += ["", "Ratios that lose their meaning when spread (their parts are collected on different launches of the "
          "configuration, so the ratio mixes launches; each part alone is still compared like for like): "
          + ("; ".join("%s (%s)" % (lab, ", ".join("`%s` group %d" % kv for kv in sorted(parts.items())))
                       for lab, parts in losses) if losses else "none in these reports") + "."]
    return "\n".join(L) + "\n"


# ------------------------------------------------------------ the device part

def programs(root, stage):
    return inst_agree.programs(root, stage, int(os.environ.get("SPREAD_TK", "6")), "SPREAD_PROGRAMS")


def one_program(label, argv, gpuhier, outdir, skip, count, deadline, reuse=None, cache="none"):
    safe = inst_agree.safe_name(label)
    info = {"program": label, "notes": []}
    d = reuse or outdir
    db = os.path.join(d, safe + ".spread.db")
    skipw = ["--launch-skip", str(skip)] if skip else []
    if not reuse:
        if os.path.exists(db):
            os.remove(db)
        # no --launch-count: it caps profiles, not the window (docs/sampling.md)
        # --cache-control all: both tools flush the L2 before each profiled launch (ncu's own
        # default), so neither launch's state counters depend on what ran before it
        cc = ["--cache-control", "all"] if cache == "all" else []
        g = [gpuhier, "run", "-q", "-f", "--no-analyze", "-o", db] + cc + skipw + ["--"] + argv
        rc, out = agree_run.proc.run_group(g, max(5.0, min(90.0, deadline - time.monotonic())))
        info["gpuhier_rc"] = rc
        with open(os.path.join(outdir, safe + ".gpuhier.log"), "wb") as f:
            f.write(out)
    if not os.path.exists(db):
        info["notes"].append("no report")
        return [], info, {}
    ours, groups = read_spread(db)
    info["spread"] = len(ours)
    info["groups"] = ",".join(str(k) for k in sorted(groups))
    # ncu's window: up to the last spread launch (ncu's count is of launches it profiles: all)
    n_window = min(count, max([o["pos"] for o in ours] + [-1]) + 1)
    if n_window < max([o["pos"] for o in ours] + [-1]) + 1:
        info["notes"].append("ncu window capped at %d launches (SPREAD_COUNT)" % count)
    window = ["--launch-count", str(max(1, n_window))] + skipw
    # every group's run 1 first, then the run-2 repeats (ncu against itself, gate b): a
    # short budget keeps gate (a) whole
    ncu_runs, nruns = {k: [None, None] for k in groups}, 0
    for r in range(1, 1 + int(os.environ.get("SPREAD_NCU_RUNS", "2"))):
        for k in sorted(groups):
            path = os.path.join(d, "%s.g%d.r%d.ncu.csv" % (safe, k, r))
            if not reuse:
                if deadline - time.monotonic() < 15:
                    info["notes"].append("group %d run %d skipped: budget" % (k, r))
                    continue
                n = [agree_run.NCU, "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base",
                     "mangled", "--target-processes", "all", "--replay-mode", "kernel", "--cache-control", cache,
                     "--clock-control", "none", "--metrics", ",".join(groups[k])] + window + argv
                rc, out = agree_run.proc.run_group(n, max(5.0, min(120.0, deadline - time.monotonic())))
                with open(path, "wb") as f:
                    f.write(out)
                nruns += 1
            if os.path.exists(path):
                ncu_runs[k][r - 1] = ncu_csv.parse(open(path).read())
    info["ncu_runs"] = nruns if not reuse else "recorded"
    # ncu's passes per launch (its raw page's profiler__replayer_passes): 1 unless it split a group
    info["ncu_passes"] = agree_run.passes_text(
        t["metrics"].get("profiler__replayer_passes") for runs in ncu_runs.values() for r in runs if r for t in r)
    comps, info["unmatched"] = compare_spread(label, ours, ncu_runs)
    info["values"] = len(comps)
    return comps, info, groups


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", default=".stage")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(here, "..", "..")))
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=float(os.environ.get("SPREAD_BUDGET_S", "150")))
    ap.add_argument("--reuse", default="")
    ap.add_argument("--rejudge", default="")
    # none (the default: each tool's launch sees the L2 its process left) or all (both flush it first)
    ap.add_argument("--cache-control", choices=("none", "all"), default=os.environ.get("SPREAD_CACHE", "none"))
    a = ap.parse_args(argv[1:])
    if a.rejudge:
        return main_rejudge(a.rejudge, a.out)
    t0 = time.monotonic()
    deadline = t0 + a.budget
    os.makedirs(a.out, exist_ok=True)
    stage = os.path.abspath(a.stage)
    skip = int(os.environ.get("SPREAD_SKIP", "0"))
    count = int(os.environ.get("SPREAD_COUNT", "200"))
    progs = programs(a.root, stage) if not a.reuse else [
        (f[: -len(".spread.db")], []) for f in sorted(os.listdir(a.reuse)) if f.endswith(".spread.db")]
    comps, infos, groups = [], [], {}
    for label, pargv in progs:
        if not a.reuse and deadline - time.monotonic() < 30:
            infos.append({"program": label, "notes": ["skipped: budget (%.0f s) spent" % a.budget]})
            continue
        c, info, g = one_program(label, pargv, os.path.join(stage, "gpuhier"), a.out, skip, count, deadline,
                                 a.reuse or None, a.cache_control)
        for k, names in g.items():
            groups.setdefault(k, set()).update(names)
        print("[%5.1fs] %s: %d values %s" % (time.monotonic() - t0, label, len(c), "; ".join(info["notes"])),
              flush=True)
        comps += c
        infos.append(info)
    groups = {k: sorted(v) for k, v in groups.items()}
    header = ["- %s; window --launch-skip %d --launch-count %d; gpuhier default (one group per profiled launch) "
              "against ncu with each group's names on the same window, twice; --cache-control %s (both tools) "
              "--clock-control none; %.0f s." % (
                  time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) if not a.reuse else "recomputed from " + a.reuse,
                  skip, count, a.cache_control, time.monotonic() - t0)]
    return write_results(a.out, comps, infos, groups, header)


def write_results(out, comps, infos, groups, header, recorded_as=None):
    """OUT/spread-agree.md (also on stdout) and OUT/spread-agree.json, the
    latter with recorded_as's keys first (a re-judgement's source); the exit
    status: 0 both gates met, 1 not, 2 nothing compared."""
    os.makedirs(out, exist_ok=True)
    text = markdown(comps, infos, groups, header)
    sys.stdout.write(text)
    with open(os.path.join(out, "spread-agree.md"), "w") as f:
        f.write(text)
    g = gates(comps)
    with open(os.path.join(out, "spread-agree.json"), "w") as f:
        json.dump(dict(recorded_as or {}, infos=infos, groups=groups, gates=g, comparisons=comps), f, indent=0,
                  default=str)
    if not comps:
        return 2
    return 0 if g[0] and g[3] and g[4] else 1  # gate (b) unjudged (no ncu run 2) is not met


def main_rejudge(path, out):
    """--rejudge: OUT/spread-agree.md and .json of the recorded run at path,
    each value's class (code_only()) taken again; the exit status as main's."""
    import gzip
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        recorded = json.load(f)
    comps = recorded.get("comparisons", [])
    moved = sorted({c["metric"] for c in comps if bool(c.get("code_only")) != code_only(c["metric"])})
    for c in comps:
        c["code_only"] = code_only(c["metric"])
    was = recorded.get("gates")
    header = ["- Re-judged from %s: the same recorded values, no new measurement; classes taken again (moved: %s). "
              "The recording's own gates: (a) %s, (b) %s." % (
                  path, ", ".join("`%s`" % m for m in moved) or "none",
                  "met" if was and was[0] else "not met", "met" if was and was[3] else "not met")]
    groups = {int(k): v for k, v in recorded.get("groups", {}).items()}  # JSON keys are strings
    return write_results(out, comps, recorded.get("infos", []), groups, header,
                         {"rejudged_from": path, "moved": moved})


if __name__ == "__main__":
    sys.exit(main(sys.argv))
