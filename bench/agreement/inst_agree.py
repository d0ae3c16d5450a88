#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/agreement/inst_agree.py: the instrumentation engine's exact counts
against Nsight Compute's on the same launches (issue 17 point 6).

Usage: inst_agree.py --stage STAGE --out DIR [--budget S] [--root ROOT]
       inst_agree.py --reuse DIR --out DIR      (recompute, no GPU)
       inst_agree.py --rejudge JSON --out DIR   (a recorded inst-agree.json[.gz]
           judged again over the metrics the engine asks for now, no GPU)

Programs: STAGE/gpu/cases (bench/sassprobe/cases.cu), the first manifest
case of each testkernel binary (run.programs_from_manifest) and
bench/sassprobe/torch_ops.py (PyTorch's elementwise, gather, cuBLAS,
softmax, cuDNN and layer-norm kernels). Each runs twice on the same launch
window (INST_SKIP, INST_COUNT: --launch-skip/--launch-count, which mean the
same in both tools):

  GPUHIER_INSTRUMENT=1 gpuhier run --sample all   every launch of the
      window instrumented (CUPTI SASS metrics API); per launch, the sum
      over its instructions of each metric in inst_count;
  ncu --metrics NAMES                             the same SASS metrics as
      ncu collects them (SASS patching too), kernel totals (.sum); the two
      `_ideal` metrics are not valid through the range profiler on GH100
      (../shared/CUPTI-NOTES.md 5.4), so ncu is asked for its source-counter
      names for them (memory_l2_theoretical_sectors_global_ideal,
      memory_l1_wavefronts_shared_ideal, the SourceCounters section's); when
      ncu gives no rows with those names the run is repeated with
      --section SourceCounters instead, then without the ideals (the table
      says which: column "ideals by", and the ideals are then not compared).

Launches are paired as run.pair does (mangled name, grid, block, occurrence).
The gate (fixed before the run): every compared value within +-0.5 % of
ncu's (INST_TOL_PCT); both zero agrees; ncu zero and gpuhier not is a miss.
Graph kernel nodes (inst_launch.graph_corr set) are left out: their counts
are per function over the graph launch, not per node.
Writes DIR/inst-agree.md (the table docs/agreement.md quotes) and
DIR/inst-agree.json. Exit 0 when the gate holds, 1 when it does not, 2 when
nothing could be compared.
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
import ncu_csv  # noqa: E402
import run as agree_run  # noqa: E402

try:
    import sqlite3
except ImportError:
    sys.exit("inst_agree: this python3 has no sqlite3 module")

INST_TOL_PCT = 0.5

# gpuhier's SASS metric (inst_count, collector/engine_sass.c's list) ->
# the ncu names that count the same thing, first found wins. Names valid
# through ncu's range profiler on GH100 (../shared/reference/gh100-metrics.txt;
# test_inst.py checks the list against it) are asked with .sum.
SOURCE_IDEAL = {
    "smsp__sass_sectors_mem_global_ideal": "memory_l2_theoretical_sectors_global_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal": "memory_l1_wavefronts_shared_ideal",
}
# the SASS metrics ncu takes with .sum (in gh100-metrics.txt)
RANGE_VALID = (
    "smsp__sass_inst_executed",
    "smsp__sass_thread_inst_executed",
    "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_inst_executed_op_local_ld",
    "smsp__sass_inst_executed_op_local_st",
    "smsp__sass_sectors_mem_local",
    "smsp__sass_inst_executed_op_memory_8b",
    "smsp__sass_inst_executed_op_memory_16b",
    "smsp__sass_inst_executed_op_memory_32b",
    "smsp__sass_inst_executed_op_memory_64b",
    "smsp__sass_inst_executed_op_memory_128b",
    "smsp__sass_inst_executed_op_ldgsts",
    "smsp__sass_inst_executed_op_tma",
    "smsp__sass_branch_targets_threads_divergent",
)
# what collector/engine_sass.c asks for (test_inst.py checks the two lists
# agree): a metric of these without inst_count rows reads 0 (schema.sql)
# (the thread instruction count is not asked since 2026-12-06: no rule reads it, and it
# patches every instruction; docs/instrument-cost.md)
COLLECTED = tuple(n for n in RANGE_VALID[:5] + ("smsp__sass_sectors_mem_global_ideal",) + RANGE_VALID[5:8] + (
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",) + RANGE_VALID[8:]
    if n != "smsp__sass_thread_inst_executed")
# asked for until 2026-12-03, when the H200's reports named both in meta
# instrumentation_metrics_missing (the chip refuses them; they read 0 on
# every launch of the 2026-12-01 run): the engine no longer asks for them
REFUSED = ("smsp__sass_data_bytes_mem_global", "smsp__sass_branch_targets")
# the metrics the issue names first: a run where ncu gives none of these fails
KEY_METRICS = ("smsp__sass_sectors_mem_global", "smsp__sass_sectors_mem_global_ideal",
               "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
               "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
               "smsp__sass_inst_executed_op_local_ld", "smsp__sass_inst_executed_op_local_st",
               "smsp__sass_sectors_mem_local")


def ncu_candidates(name):
    """ncu column names for gpuhier's SASS metric, in the order tried."""
    out = []
    if name in RANGE_VALID:
        out += [name + ".sum", name]
    if name in SOURCE_IDEAL:
        out.append(SOURCE_IDEAL[name])
    return out


def ncu_metric_list(names, with_source=True):
    """What to pass to ncu --metrics for gpuhier's names: .sum names of
    RANGE_VALID, the source-counter names of the ideals when with_source.
    A name with neither is left out (not comparable: the table says so)."""
    out = []
    for n in names:
        if n in RANGE_VALID:
            out.append(n + ".sum")
        elif with_source and n in SOURCE_IDEAL:
            out.append(SOURCE_IDEAL[n])
    return list(dict.fromkeys(out))


def cell_number(text, unit=""):
    """A CSV cell: a plain number, or an instanced metric's per-instance
    values ('1;2;3', as the raw page prints source counters), summed."""
    t = (text or "").strip()
    if ";" in t:
        parts = [ncu_csv.number(p, unit) for p in t.split(";")]
        parts = [p for p in parts if p is not None]
        return sum(parts) if parts else None
    return ncu_csv.number(t, unit)


def parse_ncu(text, extra=tuple(SOURCE_IDEAL.values())):
    """ncu_csv.parse plus the columns named in extra (source-counter names
    have no '__' and ncu_csv keeps only '__' names), instance lists summed."""
    launches = ncu_csv.parse(text)
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None or not launches:
        return launches
    import csv
    import io
    rows = list(csv.reader(io.StringIO("\n".join(l for l in lines[start:] if l.startswith('"')))))
    header = rows[0]
    if len(rows) > 1 and rows[1] and rows[1][0] == "":  # the unit row, as ncu_csv reads it
        units, body = rows[1], rows[2:]
    else:
        units, body = [""] * len(header), rows[1:]
    by_id = {l["id"]: l for l in launches}
    for r in body:
        if len(r) != len(header):
            continue
        try:
            lid = int(r[0])
        except ValueError:
            continue
        l = by_id.get(lid)
        if l is None:
            continue
        for i, h in enumerate(header):
            if h in extra or ";" in r[i]:
                v = cell_number(r[i], units[i] if i < len(units) else "")
                if v is not None and (h in extra or "__" in h):
                    l["metrics"][h] = v
    return launches


def ncu_value(name, metrics):
    """(value, ncu name) of gpuhier's metric in one ncu launch, or (None, None)."""
    for c in ncu_candidates(name):
        if c in metrics:
            return metrics[c], c
    return None, None


# schema.sql inst_count, version 4: bit -> (implied metric, its base); a mask row stands for each bit's metric
# with its base's count at the same pc
IMPLIED = dict(enumerate(
    [("smsp__sass_inst_executed_op_" + k, "smsp__sass_inst_executed") for k in (
        "global_ld", "global_st", "shared_ld", "shared_st", "local_ld", "local_st", "memory_8b", "memory_16b",
        "memory_32b", "memory_64b", "memory_128b", "ldgsts", "tma")]
    + [("smsp__sass_sectors_mem_global_ideal", "smsp__sass_sectors_mem_global"),
       ("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared")]))
IMPLIED_MASK = "gpuhier_inst_implied"
# version 5: bits 15-16 of a mask row's value name the count it carries (bits 17 up), whose row then goes
CARRIED = {1: "smsp__sass_sectors_mem_global", 2: "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
           3: "smsp__sass_sectors_mem_local"}


def launch_counts(db, launch_id):
    """{metric name: sum over the launch's instructions}: inst_count's rows, inst_run's runs (schema version 3:
    a run from pc to the next run's pc counts value for each of its 16-byte instructions) and the counts a
    'gpuhier_inst_implied' mask stands for (version 4) with the count it carries (version 5), each expanded per
    instruction."""
    per = {}
    for f, pc, n, v in db.execute(
            "SELECT c.function_id, c.pc, n.name, c.value FROM inst_count c JOIN metric_name n ON n.id = c.metric_id"
            " WHERE c.launch_id = ?", (launch_id,)):
        d = per.setdefault((f, pc), {})
        if n == IMPLIED_MASK and v >> 15 & 3:
            d[CARRIED[v >> 15 & 3]] = d.get(CARRIED[v >> 15 & 3], 0) + (v >> 17)
            v &= 32767
        d[n] = d.get(n, 0) + v
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'inst_run'").fetchone()[0]:
        runs = db.execute("SELECT r.function_id, n.name, r.pc, r.value, LEAD(r.pc) OVER (PARTITION BY"
                          " r.function_id, r.metric_id ORDER BY r.pc) FROM inst_run r JOIN metric_name n"
                          " ON n.id = r.metric_id WHERE r.launch_id = ?", (launch_id,)).fetchall()
        for f, n, pc, v, end in runs:
            for p in range(pc, end if end is not None and v else pc, 16):
                d = per.setdefault((f, p), {})
                d[n] = d.get(n, 0) + v
    sums = {}
    for d in per.values():
        mask = d.pop(IMPLIED_MASK, 0)
        for b, (n, base) in IMPLIED.items():
            if mask >> b & 1:
                d[n] = d.get(n, 0) + d.get(base, 0)
        for n, v in d.items():
            sums[n] = sums.get(n, 0) + v
    return sums


def read_inst(path):
    """Instrumented stream launches of one report, in launch order:
    ([dict(launch_id, name, mangled, key, index, metrics={sass name: sum})],
    names). A metric of COLLECTED or of the report's counts that a launch
    has no count for reads 0 (schema.sql)."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        rows = db.execute(
            "SELECT l.id, COALESCE(k.demangled_name, k.mangled_name), k.mangled_name,"
            " c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, l.config_launch_index"
            " FROM inst_launch il JOIN launch l ON l.id = il.launch_id"
            " JOIN kernel k ON k.id = l.kernel_id LEFT JOIN config c ON c.id = l.config_id"
            " WHERE il.graph_corr IS NULL ORDER BY l.correlation_id, l.id").fetchall()
        sums = [launch_counts(db, r[0]) for r in rows]
        names = sorted(set(COLLECTED).union(*[set(m) for m in sums]))
        out = []
        for r, got in zip(rows, sums):
            m = {n: 0.0 for n in names}
            m.update({n: float(v) for n, v in got.items()})
            out.append({"launch_id": r[0], "name": r[1], "mangled": r[2],
                        "key": (agree_run.norm_name(r[1]), tuple(r[3:6]), tuple(r[6:9])),
                        "index": r[9], "metrics": m})
        return out, names
    finally:
        db.close()


def gate(ours, theirs, tol=INST_TOL_PCT):
    """(ok, difference in % of ncu's value). Exact counts: both zero agree,
    ncu zero with gpuhier not is an infinite difference."""
    if theirs == 0:
        d = 0.0 if ours == 0 else float("inf")
    else:
        d = 100.0 * (ours - theirs) / theirs
    return abs(d) <= tol, d


def compare_launches(label, ours, theirs, names):
    """Pairs the launches and gates every metric both have. Returns
    (comparisons, unmatched, not_compared {name: reason})."""
    pairs, unmatched = agree_run.pair(ours, theirs)
    comps, missing = [], {}
    for o, t in pairs:
        for n in names:
            v, col = ncu_value(n, t["metrics"])
            if v is None:
                missing[n] = ("ncu has no valid name for it on GH100" if not ncu_candidates(n)
                              else "ncu gave no value (asked: %s)" % ", ".join(ncu_candidates(n)))
                continue
            ok, d = gate(o["metrics"].get(n, 0.0), v)
            comps.append({"program": label, "kernel": o["name"], "index": o["index"], "metric": n,
                          "ncu_name": col, "gpuhier": o["metrics"].get(n, 0.0), "ncu": v,
                          "diff": d, "ok": ok})
    return comps, unmatched, missing


def summary(comps):
    """Per metric: [values, misses, worst |diff|]."""
    s = {}
    for c in comps:
        e = s.setdefault(c["metric"], [0, 0, 0.0])
        e[0] += 1
        e[1] += 0 if c["ok"] else 1
        e[2] = max(e[2], abs(c["diff"]))
    return s


def verdict(comps, infos):
    """(ok, reason): the gate holds when there are values, none misses and
    ncu gave at least one of KEY_METRICS."""
    if not comps:
        return False, "nothing compared"
    miss = [c for c in comps if not c["ok"]]
    if miss:
        return False, "%d of %d values outside +-%.1f %%" % (len(miss), len(comps), INST_TOL_PCT)
    if not any(c["metric"] in KEY_METRICS for c in comps):
        return False, "none of the pattern metrics (sectors, wavefronts, local) was compared"
    return True, "%d values within +-%.1f %%" % (len(comps), INST_TOL_PCT)


def rejudge(recorded, keep=COLLECTED):
    """A recorded run (inst-agree.json's dict) judged again over the
    metrics of keep, on the same values: (comparisons, infos, dropped
    {metric: values left out}). Each program's values and misses are
    counted again; pairs, launches and notes are the recording's."""
    comps, dropped = [], {}
    for c in recorded.get("comparisons", []):
        if c["metric"] in keep:
            comps.append(c)
        else:
            dropped[c["metric"]] = dropped.get(c["metric"], 0) + 1
    infos = []
    for i in recorded.get("infos", []):
        i = dict(i)
        mine = [c for c in comps if c["program"] == i["program"]]
        if "values" in i:
            i["values"] = len(mine)
            i["misses"] = sum(1 for c in mine if not c["ok"])
        if i.get("not_compared"):
            i["not_compared"] = {m: w for m, w in i["not_compared"].items() if m in keep}
        infos.append(i)
    return comps, infos, dropped


def fmt(v):
    if v == float("inf"):
        return "inf"
    return "%.3g" % v if abs(v) < 1e4 else "%d" % v


def markdown(comps, infos, header):
    ok, why = verdict(comps, infos)
    L = ["## Instrumentation engine against Nsight Compute (issue 17 point 6)", ""]
    L += header + ["", "**Gate (+-%.1f %% on every value): %s** (%s)." % (INST_TOL_PCT, "met" if ok else "NOT met", why), ""]
    L += ["| program | gpuhier rc | ncu rc | ideals by | instrumented | ncu launches | pairs | unmatched | values | misses | note |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i in infos:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            i["program"], i.get("gpuhier_rc", ""), i.get("ncu_rc", ""), i.get("ncu_ideals", ""), i.get("instrumented", ""),
            i.get("ncu_launches", ""), i.get("pairs", ""), i.get("unmatched", ""), i.get("values", 0),
            i.get("misses", 0), "; ".join(i.get("notes", []))[:300]))
    L += ["", "| metric | ncu name | values | misses | worst difference % |", "| --- | --- | --- | --- | --- |"]
    cols = {}
    for c in comps:
        cols.setdefault(c["metric"], c["ncu_name"])
    for m, (n, k, w) in sorted(summary(comps).items()):
        L.append("| `%s` | `%s` | %d | %d | %s |" % (m, cols[m], n, k, fmt(w)))
    nc = {}
    for i in infos:
        for m, why in i.get("not_compared", {}).items():
            nc.setdefault(m, why)
    if nc:
        L += ["", "Not compared: " + "; ".join("`%s` (%s)" % kv for kv in sorted(nc.items())) + "."]
    miss = [c for c in comps if not c["ok"]]
    if miss:
        L += ["", "| program | kernel | # | metric | gpuhier | ncu | diff % |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for c in miss[:60]:
            L.append("| %s | `%s` | %s | `%s` | %s | %s | %s |" % (
                c["program"], agree_run.short_name(c["kernel"])[:60], c["index"], c["metric"],
                fmt(c["gpuhier"]), fmt(c["ncu"]), fmt(c["diff"])))
        if len(miss) > 60:
            L.append("| … %d more | | | | | | |" % (len(miss) - 60))
    return "\n".join(L) + "\n"


# ------------------------------------------------------------ the device part

def programs(root, stage, tk_limit=None, pattern_var="INST_PROGRAMS"):
    """[(label, argv)]: cases, torch_ops, one case per testkernel binary (the
    first tk_limit of them when given), kept when their label matches the
    regex in the environment variable pattern_var (spread_agree.py uses it too)."""
    out = []
    cases = os.path.join(stage, "gpu", "cases")
    if os.path.exists(cases):
        out.append(("sassprobe-cases", [cases]))
    # torch_ops before the testkernels: the budget guard cuts from the end
    out.append(("torch_ops", [sys.executable, os.path.join(root, "bench", "sassprobe", "torch_ops.py")]))
    tk = agree_run.programs_from_manifest(root, os.path.join(stage, "testkernels"))
    out += tk if tk_limit is None else tk[:tk_limit]
    pat = os.environ.get(pattern_var, "")
    return [p for p in out if not pat or re.search(pat, p[0])]


def safe_name(label):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label)


def one_program(label, argv, gpuhier, outdir, skip, count, deadline, reuse=None):
    """Both tools on one program; returns (comparisons, info)."""
    safe = safe_name(label)
    info = {"program": label, "notes": []}
    db = os.path.join(reuse or outdir, safe + ".inst.db")
    csv_path = os.path.join(reuse or outdir, safe + ".ncu.csv")
    window = ["--launch-count", str(count)] + (["--launch-skip", str(skip)] if skip else [])
    if not reuse:
        if os.path.exists(db):
            os.remove(db)
        env = dict(os.environ, GPUHIER_INSTRUMENT="1")
        g = [gpuhier, "run", "-q", "-f", "--no-analyze", "-o", db, "--sample", "all"] + window + ["--"] + argv
        t = time.monotonic()
        rc, out = agree_run.proc.run_group(g, max(5.0, min(90.0, deadline - time.monotonic())), env)
        info.update(gpuhier_rc=rc, gpuhier_s=round(time.monotonic() - t, 1))
        with open(os.path.join(outdir, safe + ".gpuhier.log"), "wb") as f:
            f.write(out)
    if not os.path.exists(db):
        info["notes"].append("no report")
        return [], info
    ours, names = read_inst(db)
    info["instrumented"] = len(ours)
    # launches with no count at all (the engine served them and got nothing: issue 17's open problem)
    info["empty"] = sum(1 for o in ours if not any(o["metrics"].values()))
    if info["empty"]:
        info["notes"].append("%d instrumented launches without any count" % info["empty"])
    if not ours:
        info["notes"].append("no instrumented launch with counts")
        return [], info
    if not reuse:
        base = [agree_run.NCU, "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "mangled",
                "--target-processes", "all", "--replay-mode", "kernel", "--cache-control", "none",
                "--clock-control", "none"] + window
        text = ""
        # the ideals by their source-counter names; refused: the SourceCounters section
        # (which collects them, with warp-state sampling beside); refused: without them
        tries = (("names", ncu_metric_list(names, True), []),
                 ("section", ncu_metric_list(names, False), ["--section", "SourceCounters"]),
                 ("none", ncu_metric_list(names, False), []))
        for how, mlist, extra in tries:
            n = base + extra + ["--metrics", ",".join(mlist)] + argv
            t = time.monotonic()
            rc, out = agree_run.proc.run_group(n, max(5.0, min(150.0, deadline - time.monotonic())))
            text = out.decode("utf-8", "replace")
            info.update(ncu_rc=rc, ncu_s=round(time.monotonic() - t, 1), ncu_ideals=how)
            if parse_ncu(text) or how == "none" or deadline - time.monotonic() < 20:
                break
            info["notes"].append("ncu gave no rows with the ideals asked by %s (rc %d)" % (how, rc))
        with open(csv_path, "w") as f:
            f.write(text)
    elif os.path.exists(csv_path):
        text = open(csv_path).read()
    else:
        info["notes"].append("no recorded ncu output")
        return [], info
    theirs = parse_ncu(text)
    info["ncu_launches"] = len(theirs)
    comps, info["unmatched"], info["not_compared"] = compare_launches(label, ours, theirs, names)
    info["pairs"] = len({(c["kernel"], c["index"]) for c in comps})
    info["values"] = len(comps)
    info["misses"] = sum(1 for c in comps if not c["ok"])
    return comps, info


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", default=".stage")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(here, "..", "..")))
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=float(os.environ.get("INST_BUDGET_S", "170")))
    ap.add_argument("--reuse", default="")
    ap.add_argument("--rejudge", default="")
    a = ap.parse_args(argv[1:])
    if a.rejudge:
        return main_rejudge(a.rejudge, a.out)
    t0 = time.monotonic()
    deadline = t0 + a.budget
    os.makedirs(a.out, exist_ok=True)
    stage = os.path.abspath(a.stage)
    gpuhier = os.path.join(stage, "gpuhier")
    skip = int(os.environ.get("INST_SKIP", "0"))
    count = int(os.environ.get("INST_COUNT", "60"))
    comps, infos = [], []
    progs = programs(a.root, stage) if not a.reuse else [
        (f[: -len(".inst.db")], []) for f in sorted(os.listdir(a.reuse)) if f.endswith(".inst.db")]
    for label, pargv in progs:
        if not a.reuse and deadline - time.monotonic() < 20:
            infos.append({"program": label, "notes": ["skipped: budget (%.0f s) spent" % a.budget]})
            continue
        c, info = one_program(label, pargv, gpuhier, a.out, skip, count, deadline, a.reuse or None)
        print("[%5.1fs] %s: %d values, %d misses %s" % (time.monotonic() - t0, label, len(c),
              sum(1 for x in c if not x["ok"]), "; ".join(info["notes"])), flush=True)
        comps += c
        infos.append(info)
    header = ["- %s; window --launch-skip %d --launch-count %d; `GPUHIER_INSTRUMENT=1 gpuhier run --sample all` "
              "against `ncu --metrics` (SASS metrics .sum, source-counter ideals) with --cache-control none "
              "--clock-control none; %.0f s." % (
                  time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) if not a.reuse else "recomputed from " + a.reuse,
                  skip, count, time.monotonic() - t0)]
    text = markdown(comps, infos, header)
    sys.stdout.write(text)
    with open(os.path.join(a.out, "inst-agree.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "inst-agree.json"), "w") as f:
        json.dump({"infos": infos, "comparisons": comps, "verdict": verdict(comps, infos)}, f, indent=0,
                  default=str)
    if not comps:
        return 2
    return 0 if verdict(comps, infos)[0] else 1


def main_rejudge(path, out):
    """--rejudge: writes OUT/inst-agree.md and .json of the recorded run
    at path (.json or .json.gz) over COLLECTED; the exit status as main's."""
    import gzip
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        recorded = json.load(f)
    comps, infos, dropped = rejudge(recorded)
    was = recorded.get("verdict") or [None, "no verdict recorded"]
    header = ["- Re-judged from %s: the same recorded values, no new measurement, over the %d metrics "
              "collector/engine_sass.c asks for now; left out: %s. The recording's own verdict: %s." % (
                  path, len(COLLECTED),
                  ", ".join("`%s` (%d values)" % kv for kv in sorted(dropped.items())) or "nothing",
                  was[1])]
    os.makedirs(out, exist_ok=True)
    text = markdown(comps, infos, header)
    sys.stdout.write(text)
    with open(os.path.join(out, "inst-agree.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "inst-agree.json"), "w") as f:
        json.dump({"rejudged_from": path, "left_out": dropped, "infos": infos, "comparisons": comps,
                   "verdict": verdict(comps, infos)}, f, indent=0, default=str)
    if not comps:
        return 2
    return 0 if verdict(comps, infos)[0] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
