#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpuhier's findings beside Nsight Compute's rule output (issue 5, point 6).

1. Runs bench/pytorch_train.py under `gpuhier run` (default sampling: the
   first launch of each kernel/grid/block/shared-memory configuration is
   profiled) and analyzes the report(s).
2. Takes the 20 kernels with the most GPU time (kernel_summary) and runs
   the same program under ncu restricted to those kernels (mangled names)
   with --filter-mode per-launch-config --launch-count 1: ncu too profiles
   the first launch of each configuration, i.e. the same launches.
3. Parses ncu's rule results (--page details --csv: rows with a Rule Name)
   for UncoalescedGlobalAccess, SharedMemoryConflicts, TheoreticalOccupancy,
   AchievedOccupancy and LaunchConfiguration, and sets them beside
   gpuhier's findings of the corresponding rules, per kernel: on its
   configuration with the most GPU time, ncu's first profiled launch of
   that configuration (kernel, grid, block) against gpuhier's findings on
   that configuration. A PyTorch kernel's configuration can do different
   work from launch to launch (TensorIterator strides are arguments), so
   only the first launch is like for like.
Writes $OUT/pytorch-vs-ncu.md and the raw outputs.
--rescore REPORT NCU_CSV compares a recorded report and ncu details CSV
again with this build's analyzer and rules (no GPU).
"""
import argparse
import csv
import glob
import io
import json
import os
import re
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proc  # noqa: E402

# ncu rule -> gpuhier rules that judge the same thing
PAIRS = [
    ("UncoalescedGlobalAccess", ["uncoalesced-global-load", "uncoalesced-global-store"]),
    ("SharedMemoryConflicts", ["shared-bank-conflicts"]),
    ("TheoreticalOccupancy", ["occupancy-registers", "occupancy-shared-memory", "block-shape"]),
    ("AchievedOccupancy", ["latency-not-hidden"]),   # by cause: judges()
    ("LaunchConfiguration", ["block-shape", "latency-not-hidden"]),
]
# Only the sections whose rules are compared: LaunchConfiguration (LaunchStats), the two occupancy
# rules (Occupancy), SharedMemoryConflicts (MemoryWorkloadAnalysis_Tables), UncoalescedGlobalAccess
# (SourceCounters). The device run of 2026-11-29 20:14 UTC with SpeedOfLight and
# MemoryWorkloadAnalysis too ran out of its 170 s before ncu printed anything.
WANTED_SECTIONS = ["LaunchStats", "Occupancy", "MemoryWorkloadAnalysis_Tables", "SourceCounters"]


def run(cmd, timeout, log, env=None):
    return proc.run(cmd, timeout, log, env, keep=20000)


def dims(text):
    """'(8192, 1, 1)' -> (8192, 1, 1); None when it is not three integers."""
    v = re.findall(r"\d+", text or "")
    return tuple(int(x) for x in v[:3]) if len(v) >= 3 else None


def ncu_launches(text):
    """{ncu launch ID: (kernel, grid, block)} of every launch in a details CSV."""
    out = {}
    for r in ncu_rules(text, rules_only=False):
        rid = (r.get("ID") or "").strip()
        if rid.isdigit():
            out.setdefault(int(rid), (r.get("Kernel Name") or r.get("Function Name") or "",
                                      dims(r.get("Grid Size")), dims(r.get("Block Size"))))
    return out


def ncu_rules(text, rules_only=True):
    """Rule rows of `ncu --csv --page details`: list of dict(id, kernel, grid, block, rule, type, speedup, text)
    (with rules_only=False: every CSV row, as a dict by column name).
    The rule columns are found by name ('Rule Name', 'Rule Type', 'Rule Description', 'Estimated Speedup'),
    tolerating variants across ncu versions; failing that, any row with one of the five rule names in a
    cell counts, with its type read from a column whose name contains 'Type'."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        return []
    rows = list(csv.DictReader(io.StringIO("\n".join(l for l in lines[start:] if l.startswith('"')))))
    if not rows:
        return []
    cols = list(rows[0].keys())

    def col(*want):
        for w in want:
            for c in cols:
                if c and c.strip().lower() == w:
                    return c
        for w in want:
            for c in cols:
                if c and w in c.strip().lower():
                    return c
        return None
    c_name, c_type = col("rule name", "rule identifier"), col("rule type", "type")
    c_desc, c_speed = col("rule description", "description"), col("estimated speedup", "speedup")
    c_kernel, c_grid, c_block = col("kernel name", "function name"), col("grid size"), col("block size")
    c_id = col("id")
    names = set(p[0] for p in PAIRS)
    out = []
    for r in rows:
        if rules_only is False:   # every launch ncu profiled, once
            out.append(r)
            continue
        name = (r.get(c_name) or "").strip() if c_name else ""
        if not name:
            hit = [v for v in r.values() if isinstance(v, str) and v.strip() in names]
            if not hit:
                continue
            name = hit[0].strip()
        out.append({"id": int(r.get(c_id) or -1) if c_id and (r.get(c_id) or "").strip().isdigit() else -1,
                    "kernel": r.get(c_kernel, "") if c_kernel else "", "grid": r.get(c_grid, "") if c_grid else "",
                    "block": r.get(c_block, "") if c_block else "", "rule": name,
                    "type": ((r.get(c_type) or "") if c_type else "").strip().upper()[:3],
                    "speedup": ((r.get(c_speed) or "") if c_speed else "").strip(),
                    "text": ((r.get(c_desc) or "") if c_desc else "").strip()})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--bench-args", default=os.environ.get("BENCH_ARGS", "--steps 3 --warmup 1"))
    ap.add_argument("--ncu", default=os.environ.get("NCU", "ncu"))
    ap.add_argument("--ncu-timeout", type=float, default=float(os.environ.get("NCU_TIMEOUT_S", "400")))
    ap.add_argument("--rescore", nargs=2, metavar=("REPORT", "NCU_CSV"),
                    help="compare a recorded report and ncu details CSV again (no GPU)")
    a = ap.parse_args()
    t0 = time.time()
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, "pytorch-vs-ncu.log")
    open(log, "w").close()
    gh = os.path.join(a.build, "gpuhier")
    prog = [sys.executable, os.path.join(a.root, "bench", "pytorch_train.py")] + a.bench_args.split()
    for old in glob.glob(os.path.join(a.out, "pt-*.db")):
        os.remove(old)
    # The default's one-pass groups carry every catalogue group the rules read (docs/metrics.md
    # "One-pass groups"); E2E_METRICS names more (--metrics; a SASS-patched name needs --replay kernel).
    extra = os.environ.get("E2E_METRICS")
    mopt = ["--metrics", extra] if extra else []

    def analyze(rep):
        rc2, js, _ = run([gh, "analyze", rep, "--rules", os.path.join(a.root, "rules"), "--format", "json",
                          "--top", "0"], 120, log)
        try:
            return json.loads(js[js.index("{"):])
        except ValueError:
            return None

    def training_report(pattern):
        """The training process is the report with the most GPU time: (report, gpu_ns, analysis)."""
        best = None
        for rep in sorted(glob.glob(os.path.join(a.out, pattern))):
            d = analyze(rep)
            if not d:
                continue
            gpu = (d.get("analysis") or {}).get("run_gpu_ns") or 0
            if best is None or gpu > best[1]:
                best = (rep, gpu, d)
        return best

    if a.rescore:
        rep, csv_path = a.rescore
        d = analyze(rep)
        if not d:
            print("cannot analyze %s; see %s" % (rep, log))
            return 1
        con = sqlite3.connect("file:%s?mode=ro" % rep, uri=True)
        top = set(m for (m,) in con.execute("SELECT DISTINCT k.mangled_name FROM profile p JOIN launch l ON "
                                             "l.id = p.launch_id JOIN kernel k ON k.id = l.kernel_id"))
        con.close()
        with open(csv_path) as f:
            nout = f.read()
        return compare(a, gh, rep, d, (d.get("analysis") or {}).get("run_gpu_ns") or 0, top, nout,
                       "ncu: the recorded details CSV `%s`, re-scored without a GPU." % os.path.basename(csv_path),
                       log, t0)
    # 1. A trace run finds the kernels with the most GPU time (profiling all ~300 configurations
    #    of the benchmark with the extra groups would take minutes in both tools).
    for old in glob.glob(os.path.join(a.out, "trace-*.db")):
        os.remove(old)
    rc, out, dt = run([gh, "run", "-q", "-f", "--no-analyze", "--mode", "trace", "-o",
                       os.path.join(a.out, "trace-%p.db"), "--"] + prog, 300, log)
    print("gpuhier trace run: rc %d, %.0f s" % (rc, dt), flush=True)
    tr = training_report("trace-*.db")
    if not tr:
        print("no trace report; see %s" % log)
        return 1
    top = [k for k in tr[2]["kernels"] if k.get("launches")][: a.top]
    by_id = mangled_by_id(tr[0])
    top_mangled = [by_id[k["kernel_id"]] for k in top if by_id.get(k["kernel_id"])]
    names = [re.escape(m) for m in top_mangled]
    regex = "^(%s)$" % "|".join(names)
    # 2. The same program profiled by gpuhier on those kernels only (default sampling: the first
    #    launch of each configuration), every launch traced.
    rc, out, dt = run([gh, "run", "-q", "-f", "--no-analyze", "-k", regex, "-o", os.path.join(a.out, "pt-%p.db")]
                      + mopt + ["--"] + prog, 300, log)
    print("gpuhier run: rc %d, %.0f s" % (rc, dt), flush=True)
    best = training_report("pt-*.db")
    if not best:
        print("no report or analyze failed; see %s" % log)
        return 1
    rep, gpu_ns, d = best
    top_set = set(top_mangled)

    # ncu on the same launches: the first launch of each configuration of those kernels
    # (with per-launch-config, --launch-count counts per configuration)
    rc, secs, _ = run([a.ncu, "--list-sections"], 60, log)
    sections = [s for s in WANTED_SECTIONS if re.search(r"\b%s\b" % re.escape(s), secs)] or WANTED_SECTIONS[:3]
    # A report file first, read back with --import: the results of the launches ncu profiled
    # before a timeout are kept, and the log shows how far it got (==PROF== lines).
    rep_base = os.path.join(a.out, "ncu-rules")
    for old in glob.glob(rep_base + "*.ncu-rep"):
        os.remove(old)
    cmd = [a.ncu, "--kernel-name-base", "mangled", "--kernel-name", "regex:" + regex,
           "--filter-mode", "per-launch-config", "--launch-count", "1",
           "--target-processes", "all", "--cache-control", "none", "--clock-control", "none"]
    for s in sections:
        cmd += ["--section", s]
    rc, nout, ndt = run(cmd + ["-f", "-o", rep_base, "--"] + prog, a.ncu_timeout, log)
    print("ncu: rc %d, %.0f s, %d launches profiled" % (rc, ndt, nout.count("==PROF== Profiling")), flush=True)
    nout = ""
    for r in sorted(glob.glob(rep_base + "*.ncu-rep")):
        rc2, txt, _ = run([a.ncu, "--import", r, "--csv", "--page", "details", "--print-units", "base",
                           "--print-kernel-base", "mangled"], 300, log)
        nout += txt
    with open(os.path.join(a.out, "ncu-details.csv"), "w") as f:
        f.write(nout)
    how = ("ncu: `--filter-mode per-launch-config --launch-count 1`, sections %s, the same %d kernels by mangled "
           "name; rc %d in %.0f s." % (", ".join(sections), len(names), rc, ndt))
    return compare(a, gh, rep, d, gpu_ns, top_set, nout, how, log, t0)


def judges(finding, nrule):
    """Whether a gpuhier finding judges what ncu's rule `nrule` does. latency-not-hidden names its causes
    (evidence 'cause', the costliest, and 'also', the others separated by '; '): achieved occupancy far
    below theoretical pairs with AchievedOccupancy, a grid smaller than the SM count or a partial last
    wave with LaunchConfiguration."""
    if finding.get("rule_id") != "latency-not-hidden":
        return True
    ev = {e.get("name"): e.get("text_value") for e in finding.get("evidence") or []}
    if not ev.get("cause"):
        return True
    causes = [ev["cause"]] + [c.strip() for c in (ev.get("also") or "").split(";") if c.strip()]
    return any((nrule == "AchievedOccupancy") == c.startswith("achieved occupancy") for c in causes)


def mangled_by_id(rep):
    """{kernel id: mangled name} of a report."""
    con = sqlite3.connect("file:%s?mode=ro" % rep, uri=True)
    out = dict(con.execute("SELECT id, mangled_name FROM kernel"))
    con.close()
    return out


def heaviest_configs(rep, kernel_ids):
    """{kernel id: (config id, grid, block, traced ns, launches)} for each kernel's configuration with
    the most traced GPU time."""
    con = sqlite3.connect("file:%s?mode=ro" % rep, uri=True)
    out = {}
    for kid in kernel_ids:
        row = con.execute("SELECT c.id, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, "
                          "SUM(l.end_ns - l.start_ns) t, COUNT(*) FROM launch l JOIN config c ON c.id = l.config_id "
                          "WHERE l.kernel_id = ? GROUP BY c.id ORDER BY t DESC LIMIT 1", (kid,)).fetchone()
        if row:
            out[kid] = (row[0], tuple(row[1:4]), tuple(row[4:7]), row[7] or 0, row[8])
    con.close()
    return out


def compare(a, gh, rep, d, gpu_ns, top_set, nout, how, log, t0):
    """Writes $OUT/pytorch-vs-ncu.md: per top kernel, its heaviest configuration, ncu's first launch
    of it beside gpuhier's findings on it. Returns 0, or 1 when ncu gave nothing to compare."""
    kernels = [k for k in d["kernels"] if k.get("launches")]
    mangled = mangled_by_id(rep)
    kernels = [k for k in kernels if mangled.get(k["kernel_id"]) in top_set][: a.top]
    heavy = heaviest_configs(rep, [k["kernel_id"] for k in kernels])
    findings = {}
    for f in d["findings"]:
        findings.setdefault(f.get("config_id"), []).append(f)
    rules = ncu_rules(nout)
    launches = ncu_launches(nout)
    names = {k["kernel_id"]: k.get("kernel") or "" for k in kernels}

    def same_kernel(kid, ncu_name):
        m = mangled.get(kid)
        return ncu_name == m or (not ncu_name.startswith("_Z") and names[kid] and names[kid] in ncu_name)

    md = ["# gpuhier findings beside Nsight Compute's rules (PyTorch benchmark)", ""]
    md.append("Command: `bench/e2e_pytorch_vs_ncu.sh` (`%s`), %s." % (" ".join(a.bench_args.split()),
              time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    md.append("Kernels chosen by GPU time in a trace run (`gpuhier run --mode trace`); gpuhier then profiled them "
              "with `-k` (default sampling: one one-pass group per profiled launch; E2E_METRICS names with --metrics). "
              + how)
    md.append("%d ncu launches and %d rule results parsed. gpuhier report: %s, GPU time %.1f ms; analyzed by %s with "
              "the rules in %s." % (len(launches), len(rules), os.path.basename(rep), gpu_ns / 1e6, gh,
                                    os.path.join(a.root, "rules")))
    md.append("")
    md.append("One row per kernel: its configuration with the most traced GPU time (grid x block), compared on "
              "ncu's first profiled launch of that configuration. A rule 'fires' in ncu when its result type is OPT "
              "or WRN; 'ncu: no' means ncu profiled that launch and the rule said nothing or passed; 'not profiled' "
              "means ncu has no launch of that configuration.")
    md.append("")
    hdr = "| # | kernel | config | time share | gpuhier findings (this config) | " + \
        " | ".join(p[0] for p in PAIRS) + " |"
    md += [hdr, "|" + "---|" * (5 + len(PAIRS))]
    disagreements = []
    for i, k in enumerate(kernels, 1):
        kid = k["kernel_id"]
        cfg = heavy.get(kid)
        if not cfg:
            continue
        cid, grid, block = cfg[0], cfg[1], cfg[2]
        ids = sorted(n for n, (kn, g, b) in launches.items() if g == grid and b == block and same_kernel(kid, kn))
        first = ids[0] if ids else None
        nr = [r for r in rules if r["id"] == first] if first is not None else []
        fs = findings.get(cid, [])
        cells = []
        for nrule, ours in PAIRS:
            n_fired = [r for r in nr if r["rule"] == nrule and r["type"] in ("OPT", "WRN")]
            g_fired = sorted(set(f["rule_id"] for f in fs if f["rule_id"] in ours and judges(f, nrule)))
            if first is None:
                n_txt = "ncu: not profiled"
            elif n_fired:
                n_txt = "ncu: yes" + (" (%s)" % n_fired[0]["speedup"] if n_fired[0]["speedup"] else "")
            else:
                n_txt = "ncu: no"
            agree = first is None or bool(n_fired) == bool(g_fired)
            cells.append("%s; gpuhier: %s%s" % (n_txt, ", ".join(g_fired) or "no", "" if agree else " **differ**"))
            if not agree:
                disagreements.append((i, k.get("kernel"), nrule, n_fired[0]["text"][:300] if n_fired else "",
                                      ", ".join(g_fired), first))
        name = (k.get("kernel") or "?").replace("|", "\\|")[:60]
        conf = "%s x %s, %d launches" % ("%d,%d,%d" % grid, "%d,%d,%d" % block, cfg[4])
        md.append("| %d | %s | %s | %.1f %% | %s | %s |" % (i, name, conf, k.get("share_pct") or 0,
                  ", ".join("%s (%s)" % (f["rule_id"], f["severity"]) for f in fs) or "-", " | ".join(cells)))
    md += ["", "## Disagreements (to be explained in docs/analyzer-vs-ncu.md)", ""]
    for i, kname, nrule, ntext, ours, nid in disagreements:
        md.append("- #%d %s, %s (ncu launch %s): ncu %s; gpuhier %s. ncu says: %s" % (
            i, kname, nrule, nid, "fires" if ntext else "silent", ours or "silent", ntext or "-"))
    if not rules and not launches:
        md.append("not compared: ncu produced no results (see pytorch-vs-ncu.log)")
    elif not disagreements:
        md.append("none")
    md.append("")
    md.append("Total wall time %.0f s." % (time.time() - t0))
    text = "\n".join(md) + "\n"
    open(os.path.join(a.out, "pytorch-vs-ncu.md"), "w").write(text)
    print(text)
    return 0 if launches else 1


if __name__ == "__main__":
    sys.exit(main())
