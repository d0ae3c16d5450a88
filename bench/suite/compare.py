#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpuhier's findings beside Nsight Compute's rules on the suite's workloads (issue 19 point 8).

usage: compare.py --dir RUN [--md FILE] [--doc docs/suite.md] [--raw PREFIX]
                  [--reanalyze GPUHIER [--rules DIR]] [--check]
       compare.py --print-mapping

RUN is what bench/suite/run.py left (one folder per workload: the gpuhier
reports gpuhier-*.db, ncu's details page ncu-details*.csv, meta.json; beside
them meta.json and ncu-rules.txt for the run). Prints the table on stdout;
--md writes it to FILE, --doc replaces the part of docs/suite.md between its
`suite:results` markers, --raw writes PREFIX.json (every row, the targets and
the run's facts) and PREFIX.md. --reanalyze analyzes copies of the reports
again with that gpuhier (and --rules) first: the recorded run judged by
today's rules, without a GPU. --check exits 1 when a target fails.

Rows: one per kernel configuration, (kernel, grid, block, dynamic shared
memory), that ncu profiled or on which gpuhier has a finding of warning or
worse. The two tools' kernels are matched by name and launch shape: ncu prints
the mangled name (--print-kernel-base mangled), which is the report's
kernel.mangled_name, so equal names mean equal demangled names; a name ncu
printed demangled is compared with the report's demangled_name, spaces and a
leading "void " left out. Grid and block must be equal; when ncu's Launch
Statistics give the dynamic shared memory and a configuration of gpuhier has
the same, only that one matches. ncu's first profiled launch of a shape is
used (the suite asks ncu for --filter-mode per-launch-config -c 1: the first
launch of each configuration, the one gpuhier's default sampling profiles).

The targets:
 (a) every gpuhier finding of warning or worse on a library kernel (classes in
     LIBRARY) is supported by ncu on the same launch: a rule of SUPPORT's
     table for that gpuhier rule fired (type OPT or WRN), its message matches
     the entry's pattern, and its estimated speedup, when ncu gives one, is at
     least SUPPORT_MIN_SPEEDUP_PCT. A finding on a configuration ncu did not
     profile is "not judged" and counted apart.
 (b) every ncu finding of the memory family (the rules whose parents reach
     ncu's "Memory" rule, read from ncu's own section files: ncu-rules.txt;
     MEMORY_RULES when that list is missing) with an estimated speedup of at
     least MEMORY_MIN_SPEEDUP_PCT is matched by a gpuhier finding, of any
     severity, on the same configuration (or on its whole kernel) whose rule
     maps to that ncu rule and message in SUPPORT (entries marked "support
     only" do not match).
"""
import argparse
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_details  # noqa: E402

# The thresholds (issue 19 point 8): ncu memory findings from 5 % estimated speedup on.
MEMORY_MIN_SPEEDUP_PCT = 5.0
# An ncu estimate below 1 % of the kernel supports nothing: gpuhier's own rules report no loss below
# 1 % of a kernel's time (min_lost_pct in rules/*.rule), so a smaller ncu estimate is not the same finding.
SUPPORT_MIN_SPEEDUP_PCT = 1.0
# The library kernels of target (a) (issue 19 point 8).
LIBRARY = ("cuBLAS", "cuDNN", "CUTLASS", "flash attention", "nvjet")
# ncu's memory family when ncu-rules.txt is missing: the rules of ncu 2025.3's section files whose
# parent is "Memory" (its Memory Bottleneck rule, SpeedOfLight).
MEMORY_RULES = ("UncoalescedGlobalAccess", "UncoalescedSharedAccess", "SharedMemoryConflicts",
                "MemoryCacheAccessPattern", "MemoryApertureUsage", "MemoryL2Compression")

# Library class by kernel name (first match wins, on the demangled name, case-insensitive); a kernel
# that matches none takes its workload's class (the `# suite: class=` line of its script).
CLASSES = [
    ("flash attention", r"flash|fmha|sdpa|_attention"),
    ("nvjet", r"^nvjet|\bnvjet"),
    ("cuDNN", r"cudnn|xmma_fprop|xmma_dgrad|xmma_wgrad|implicit_gemm|nchwtonhwc|nhwctonchw|conv2d_c\d"),
    ("CUTLASS", r"cutlass"),
    ("Triton", r"^triton_"),
    ("JAX-XLA", r"gemm_fusion|triton_gemm|^(void )?(stream_executor|xla)::"),
    ("cuBLAS", r"cublas|gemv|gemm|splitkreduce|sgemm|hgemm|s\d+gemm"),
    ("CUB", r"\bcub\w*::"),
    ("cuRAND", r"curand"),
    ("PyTorch", r"^(void )?(at|c10)::|\bat::native::"),
]

# gpuhier rule -> the ncu rules that support it (issue 19 point 8's "an ncu rule of the same family").
# (gpuhier rule, ncu rule (a regular expression on the rule's identifier; "@memory": any rule of ncu's
# memory family), pattern on ncu's message (None: any), direction, why). Direction "both": the entry
# supports the gpuhier finding (target a) and the gpuhier finding matches the ncu finding (target b);
# "support": only the first (a generic gpuhier finding is not the specific finding ncu made).
SUPPORT = [
    ("uncoalesced-global-load", "UncoalescedGlobalAccess", None, "both",
     "excess L2 sectors of global accesses (ncu counts loads and stores together)"),
    ("uncoalesced-global-load", "MemoryCacheAccessPattern", r"global loads|loads from L1TEX to L2|loads from device memory",
     "both", "sectors per request of global loads, L1 and L2"),
    ("uncoalesced-global-store", "UncoalescedGlobalAccess", None, "both", "as for loads"),
    ("uncoalesced-global-store", "MemoryCacheAccessPattern", r"global stores|stores from L1TEX to L2", "both",
     "sectors per request of global stores"),
    ("uncoalesced-global-atomic", "UncoalescedGlobalAccess", None, "both",
     "excess sectors of global instructions: ncu counts atomics and reductions with loads and stores"),
    ("scalar-access", "MemoryCacheAccessPattern", r"global (loads|stores)", "both",
     "bytes per thread per request against the sectors moved"),
    ("scalar-access", "CPIStall.*", r"wider|fewer .*memory|vectori", "both",
     "LG throttle stalls: fewer, wider memory instructions"),
    ("local-memory-traffic", "MemoryCacheAccessPattern", r"local (loads|stores)", "both",
     "access pattern of local (spill) loads and stores"),
    ("local-memory-traffic", ".*", r"spill|local memory", "both", "any rule naming spills or local memory"),
    ("shared-bank-conflicts", "SharedMemoryConflicts", None, "both", "bank conflicts"),
    ("shared-bank-conflicts", "UncoalescedSharedAccess", None, "both", "excess shared wavefronts"),
    ("reread-not-staged", "MemoryCacheAccessPattern", r"global loads|loads from L1TEX to L2", "both",
     "load traffic between L1 and L2"),
    ("reread-not-staged", "CPIStall.*", r"L1TEX", "support", "stalls waiting on L1TEX"),
    ("l2-reread-miss", "MemoryCacheAccessPattern", r"device memory|DRAM", "both", "DRAM read sectors"),
    ("l2-reread-miss", "SOLBottleneck", r"DRAM", "support", "DRAM named as the bottleneck"),
    ("stream-evicts-reused", "MemoryCacheAccessPattern", r"device memory|DRAM", "both", "DRAM read sectors"),
    ("stream-evicts-reused", "SOLBottleneck", r"DRAM", "support", "DRAM named as the bottleneck"),
    ("host-memory-access", "MemoryApertureUsage", None, "both", "accesses through the system-memory aperture"),
    ("host-pointer-argument", "MemoryApertureUsage", None, "both", "accesses through the system-memory aperture"),
    ("constant-divergent", "CPIStall.*", r"\bIMC\b|constant", "both", "constant-cache (IMC) miss stalls"),
    ("atomic-contention", "CPIStall.*", r"atomic|LG throttle|lg_throttle", "both", "stalls on atomics"),
    ("atomic-contention", ".*", r"atomic", "both", "any rule naming atomics"),
    ("occupancy-registers", "TheoreticalOccupancy", r"register", "both", "occupancy limited by registers"),
    ("occupancy-shared-memory", "TheoreticalOccupancy", r"shared memory", "both", "occupancy limited by shared memory"),
    ("block-shape", "LaunchConfiguration", None, "both", "launch configuration"),
    ("block-shape", "TheoreticalOccupancy", r"block|warps", "both", "occupancy limited by the block shape"),
    ("latency-not-hidden", "AchievedOccupancy", None, "both", "achieved below theoretical occupancy"),
    ("latency-not-hidden", "LaunchConfiguration", r"wave|multiprocessors|blocks", "both", "small grid, partial wave"),
    ("latency-not-hidden", "TheoreticalOccupancy", None, "both", "too few warps to hide latency"),
    ("latency-not-hidden", "SOLBottleneck", r"latency", "support", "low compute and memory throughput: latency"),
    ("latency-not-hidden", "CPIStall.*", None, "support", "warp stalls"),
    ("latency-not-hidden", "IssueSlotUtilization", None, "support", "issue slots left idle"),
    ("latency-not-hidden", ".*", r"imbalance", "support", "workload imbalance"),
    ("floor-distance", "SOLBottleneck", r"latency|memory is more heavily utilized", "support",
     "memory-bound, or neither compute nor memory near its peak"),
    ("floor-distance", "UncoalescedGlobalAccess", None, "support", "global traffic beyond the useful bytes"),
    ("floor-distance", "MemoryCacheAccessPattern", r"global|L2|device memory|DRAM", "support",
     "global, L2 or DRAM traffic beyond the useful bytes"),
    ("floor-distance", "MemoryApertureUsage", None, "support", "slow memory apertures"),
    ("idle-kernel", "SOLBottleneck", r"latency", "support", "neither compute nor memory busy"),
]

SEV_ORDER = {"error": 0, "warning": 1, "note": 2}


def classify(name, default):
    for cls, pat in CLASSES:
        if re.search(pat, name or "", re.I):
            return cls
    return default or "other"


def norm_name(s):
    s = re.sub(r"\s+", "", s or "")
    return s[4:] if s.startswith("void") else s


def entry_matches(entry, rule, memory):
    """Whether an ncu rule result (dict from ncu_details.parse) is the entry's."""
    _, npat, tpat, _, _ = entry
    if npat == "@memory":
        if rule["rule"] not in memory:
            return False
    elif not re.fullmatch(npat, rule["rule"]):
        return False
    return tpat is None or re.search(tpat, rule.get("text") or "", re.I) is not None


def supports(grule, nrule, memory):
    """Target (a): the SUPPORT entries of gpuhier rule grule that ncu's rule result supports it with."""
    if not ncu_details.fired(nrule):
        return []
    if nrule.get("speedup") is not None and nrule["speedup"] < SUPPORT_MIN_SPEEDUP_PCT:
        return []
    return [e for e in SUPPORT if e[0] == grule and entry_matches(e, nrule, memory)]


def matches(grule, nrule, memory):
    """Target (b): whether a gpuhier finding of rule grule is the finding ncu's rule result made."""
    return any(e[0] == grule and e[3] == "both" and entry_matches(e, nrule, memory) for e in SUPPORT)


def memory_family(run_dir):
    """(ncu's memory rules, where the list came from)."""
    path = os.path.join(run_dir, "ncu-rules.txt")
    if os.path.exists(path):
        with open(path) as f:
            rules = ncu_details.parse_rule_list(f.read())
        fam = ncu_details.descendants(rules, "Memory")
        if fam:
            return fam, "ncu's section files (ncu-rules.txt: %d rules, %d under Memory)" % (len(rules), len(fam))
    return set(MEMORY_RULES), "the built-in list (no ncu-rules.txt)"


# ---------------------------------------------------------------- gpuhier reports

def read_report(path):
    """The configurations of one analyzed report with their findings, and its run-level findings."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    con.row_factory = sqlite3.Row
    out = {"path": path, "analyzed": False, "configs": [], "run_findings": [], "run_gpu_ns": None}
    try:
        a = con.execute("SELECT run_gpu_ns FROM analysis ORDER BY id DESC LIMIT 1").fetchone()
        out["analyzed"] = a is not None
        out["run_gpu_ns"] = a["run_gpu_ns"] if a else None
        ks = {}
        # Configurations with an instrumented launch (exact pattern counters; the instrumentation engine, not the
        # range profiler: launch.profiled and profiled_launches count the range profiler's launches only).
        inst = {}
        if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'inst_launch'").fetchone():
            for r in con.execute("SELECT config_id, COUNT(*) FROM inst_launch GROUP BY config_id"):
                inst[r[0]] = r[1]
        for r in con.execute("SELECT config_id, share_pct, total_ns, launches, profiled_launches, bound_tier, "
                             "floor_ratio_measured FROM kernel_summary WHERE config_id IS NOT NULL"):
            ks[r["config_id"]] = dict(r)
        for r in con.execute("SELECT c.id, c.kernel_id, k.mangled_name, k.demangled_name, k.short_name, c.grid_x, "
                             "c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, c.dynamic_smem_bytes, "
                             "c.launches FROM config c JOIN kernel k ON k.id = c.kernel_id"):
            s = ks.get(r["id"], {})
            prof = s.get("profiled_launches")
            if prof is None:
                prof = con.execute("SELECT COUNT(*) FROM launch WHERE config_id = ? AND profiled = 1",
                                   (r["id"],)).fetchone()[0]
            out["configs"].append({
                "report": os.path.basename(path), "config_id": r["id"], "kernel_id": r["kernel_id"],
                "mangled": r["mangled_name"], "demangled": r["demangled_name"] or r["mangled_name"],
                "short": r["short_name"] or r["demangled_name"] or r["mangled_name"],
                "grid": (r["grid_x"], r["grid_y"], r["grid_z"]), "block": (r["block_x"], r["block_y"], r["block_z"]),
                "dyn_smem": r["dynamic_smem_bytes"], "launches": s.get("launches", r["launches"]),
                "profiled": prof, "instrumented": inst.get(r["id"], 0),
                "share_pct": s.get("share_pct"), "total_ns": s.get("total_ns"),
                "bound_tier": s.get("bound_tier"), "findings": []})
        by_cfg = {c["config_id"]: c for c in out["configs"]}
        by_kernel = {}
        for c in out["configs"]:
            by_kernel.setdefault(c["kernel_id"], []).append(c)
        if out["analyzed"]:
            for r in con.execute("SELECT id, rank, rule_id, severity, kernel_id, config_id, message, time_lost_ns, "
                                 "share_pct FROM finding ORDER BY rank"):
                f = {"id": r["id"], "rank": r["rank"], "rule_id": r["rule_id"], "severity": r["severity"],
                     "message": r["message"] or "", "time_lost_ns": r["time_lost_ns"], "share_pct": r["share_pct"],
                     "scope": "config"}
                if r["config_id"] is not None and r["config_id"] in by_cfg:
                    by_cfg[r["config_id"]]["findings"].append(f)
                elif r["kernel_id"] is not None:
                    f["scope"] = "kernel"
                    for c in by_kernel.get(r["kernel_id"], []):
                        c["findings"].append(f)
                else:
                    f["scope"] = "run"
                    out["run_findings"].append(f)
    finally:
        con.close()
    return out


def reanalyze(run_dir, gpuhier, rules):
    """Copies run_dir's reports into a temporary tree and analyzes them there; returns that tree."""
    tmp = tempfile.mkdtemp(prefix="suite-reanalyze-")
    for db in glob.glob(os.path.join(run_dir, "*", "*.db")):
        dst = os.path.join(tmp, os.path.relpath(db, run_dir))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(db, dst)
        cmd = [gpuhier, "analyze", dst, "--top", "0"] + (["--rules", rules] if rules else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print("compare: %s: gpuhier analyze exited %d: %s" % (db, p.returncode, p.stderr.strip()[-300:]),
                  file=sys.stderr)
    return tmp


# ---------------------------------------------------------------- one workload

def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def workload_rows(wdir, reports_dir, memory):
    """(meta, rows, run-level findings, notes) of one workload folder."""
    meta = load_json(os.path.join(wdir, "meta.json"))
    name = meta.get("name") or os.path.basename(wdir)
    default_cls = meta.get("class", "other")
    notes = []
    reports = []
    for db in sorted(glob.glob(os.path.join(reports_dir, "*.db"))):
        try:
            reports.append(read_report(db))
        except sqlite3.Error as e:
            notes.append("%s: not readable (%s)" % (os.path.basename(db), e))
    for r in reports:
        if not r["analyzed"]:
            notes.append("%s: not analyzed" % os.path.basename(r["path"]))
    configs = [c for r in reports for c in r["configs"]]
    text = ""
    for p in sorted(glob.glob(os.path.join(wdir, "ncu-details*.csv"))):
        with open(p, errors="replace") as f:
            text += f.read() + "\n"
    launches = ncu_details.parse(text)
    by_mangled, by_norm = {}, {}
    for c in configs:
        by_mangled.setdefault(c["mangled"], []).append(c)
        by_norm.setdefault(norm_name(c["demangled"]), []).append(c)

    def candidates(la):
        cs = by_mangled.get(la["kernel"]) or by_norm.get(norm_name(la["kernel"])) or []
        cs = [c for c in cs if c["grid"] == la["grid"] and c["block"] == la["block"]]
        if la["dyn_smem"] is not None and any(c["dyn_smem"] == la["dyn_smem"] for c in cs):
            cs = [c for c in cs if c["dyn_smem"] == la["dyn_smem"]]
        return cs

    rows, seen, used = [], set(), set()
    for la in launches:
        shape = (la["kernel"], la["grid"], la["block"], la["dyn_smem"])
        if shape in seen:
            continue   # a later launch of a shape already in the table
        seen.add(shape)
        cs = candidates(la)
        for c in cs:
            used.add((c["report"], c["config_id"]))
        rows.append({"ncu": la, "configs": cs})
    for c in configs:
        if (c["report"], c["config_id"]) in used:
            continue
        if any(SEV_ORDER.get(f["severity"], 9) <= 1 for f in c["findings"]):
            rows.append({"ncu": None, "configs": [c]})
    out = []
    for r in rows:
        out.append(judge_row(name, default_cls, r["ncu"], r["configs"], memory))
    run_findings = [dict(f, report=os.path.basename(r["path"])) for r in reports for f in r["run_findings"]]
    meta["reports"] = len(reports)
    meta["ncu_launches"] = len(launches)
    meta["ncu_rule_results"] = sum(len(la["rules"]) for la in launches)
    return meta, out, run_findings, notes


def judge_row(workload, default_cls, la, cfgs, memory):
    c0 = cfgs[0] if cfgs else None
    long_name = c0["demangled"] if c0 else (la["kernel"] if la else "?")
    short = c0["short"] if c0 else (la["kernel"] if la else "?")
    cls = classify(long_name, default_cls)
    grid = la["grid"] if la else c0["grid"]
    block = la["block"] if la else c0["block"]
    findings, fids = [], set()
    for c in cfgs:
        for f in c["findings"]:
            if (c["report"], f["id"]) not in fids:
                fids.add((c["report"], f["id"]))
                findings.append(f)
    findings.sort(key=lambda f: (SEV_ORDER.get(f["severity"], 9), -(f["time_lost_ns"] or 0)))
    share = sum(c["share_pct"] or 0 for c in cfgs) if cfgs else None
    row = {"workload": workload, "kernel": short, "name": long_name, "class": cls,
           "library": cls in LIBRARY, "grid": list(grid) if grid else None, "block": list(block) if block else None,
           "dyn_smem": (la["dyn_smem"] if la and la["dyn_smem"] is not None else (c0["dyn_smem"] if c0 else None)),
           "gpu_share_pct": share, "gpuhier_configs": len(cfgs),
           "gpuhier_profiled": sum(c["profiled"] or 0 for c in cfgs),
           "gpuhier_instrumented": sum(c.get("instrumented") or 0 for c in cfgs),
           "bound_tier": c0["bound_tier"] if c0 else None,
           "findings": [{"rule": f["rule_id"], "severity": f["severity"], "share_pct": f["share_pct"],
                         "time_lost_ns": f["time_lost_ns"], "scope": f["scope"], "message": f["message"]}
                        for f in findings],
           "ncu_launch": la["id"] if la else None,
           "ncu_duration_ns": la["duration_ns"] if la else None,
           "ncu_rules": [dict(r, memory=r["rule"] in memory) for r in (la["rules"] if la else []) if ncu_details.fired(r)],
           "a": [], "b": []}
    if row["library"]:
        for f in findings:
            if SEV_ORDER.get(f["severity"], 9) > 1:
                continue
            if la is None:
                row["a"].append({"rule": f["rule_id"], "severity": f["severity"], "verdict": "not judged",
                                 "why": "ncu did not profile this configuration"})
                continue
            by = [(n["rule"], n.get("speedup")) for n in la["rules"] if supports(f["rule_id"], n, memory)]
            row["a"].append({"rule": f["rule_id"], "severity": f["severity"],
                             "verdict": "supported" if by else "unsupported",
                             "by": ["%s%s" % (n, " %.3g %%" % s if s is not None else "") for n, s in by]})
    if la is not None:
        for n in la["rules"]:
            if not (ncu_details.fired(n) and n["rule"] in memory and n.get("speedup") is not None
                    and n["speedup"] >= MEMORY_MIN_SPEEDUP_PCT):
                continue
            by = sorted(set(f["rule_id"] for f in findings if matches(f["rule_id"], n, memory)))
            entry = {"ncu_rule": n["rule"], "speedup": n["speedup"], "speedup_type": n.get("speedup_type"),
                     "text": n["text"][:300], "by": by}
            if by:
                entry["verdict"] = "matched"
            elif not cfgs:
                entry["verdict"] = "missed"
                entry["why"] = "gpuhier has no configuration of this kernel and shape"
            elif not row["gpuhier_profiled"] and row["gpuhier_instrumented"]:
                entry["verdict"] = "missed"
                entry["why"] = "gpuhier has exact pattern counts of this configuration but no hardware counters"
            elif not row["gpuhier_profiled"]:
                entry["verdict"] = "missed"
                entry["why"] = "gpuhier did not profile this configuration"
            else:
                entry["verdict"] = "missed"
            row["b"].append(entry)
    return row


# ---------------------------------------------------------------- the whole run

def analyze_run(run_dir, reports_root=None):
    """Every workload of run_dir: dict(meta, memory_source, workloads=[...], rows, targets)."""
    memory, msrc = memory_family(run_dir)
    wls = []
    rows = []
    for wdir in sorted(d for d in glob.glob(os.path.join(run_dir, "*")) if os.path.isdir(d)):
        if not (os.path.exists(os.path.join(wdir, "meta.json")) or glob.glob(os.path.join(wdir, "*.db"))
                or glob.glob(os.path.join(wdir, "ncu-details*.csv"))):
            continue
        rdir = os.path.join(reports_root, os.path.relpath(wdir, run_dir)) if reports_root else wdir
        meta, wrows, runf, notes = workload_rows(wdir, rdir, memory)
        meta.setdefault("name", os.path.basename(wdir))
        wls.append({"meta": meta, "run_findings": runf, "notes": notes})
        rows += wrows
    meta = load_json(os.path.join(run_dir, "meta.json"))
    a = [dict(x, workload=r["workload"], kernel=r["kernel"]) for r in rows for x in r["a"]]
    b = [dict(x, workload=r["workload"], kernel=r["kernel"]) for r in rows for x in r["b"]]
    ta = {"judged": sum(x["verdict"] != "not judged" for x in a),
          "supported": sum(x["verdict"] == "supported" for x in a),
          "unsupported": sum(x["verdict"] == "unsupported" for x in a),
          "not_judged": sum(x["verdict"] == "not judged" for x in a)}
    ta["holds"] = ta["unsupported"] == 0
    tb = {"findings": len(b), "matched": sum(x["verdict"] == "matched" for x in b),
          "missed": sum(x["verdict"] == "missed" for x in b)}
    tb["holds"] = tb["missed"] == 0
    # a stricter reading of (b): matched at warning or worse
    strict = 0
    for r in rows:
        for x in r["b"]:
            if x["verdict"] == "matched" and any(f["rule"] in x["by"] and SEV_ORDER.get(f["severity"], 9) <= 1
                                                 for f in r["findings"]):
                strict += 1
    tb["matched_warning_or_worse"] = strict
    return {"meta": meta, "memory_source": msrc, "memory_rules": sorted(memory), "workloads": wls, "rows": rows,
            "targets": {"a": ta, "b": tb}, "a": a, "b": b}


def esc(s, n=None):
    s = (s or "").replace("|", "\\|").replace("\n", " ")
    return s if n is None or len(s) <= n else s[:n - 1] + "…"


def fmt_shape(v):
    return ",".join(str(x) for x in v) if v else "?"


def render(res):
    """The results in Markdown."""
    ta, tb = res["targets"]["a"], res["targets"]["b"]
    m = res["meta"]
    md = []
    if m:
        md.append("Run: %s on %s; gpuhier at %s; ncu %s; %s." % (
            m.get("date", "?"), m.get("gpu", "?"), m.get("commit", "?"), m.get("ncu_version", "?"),
            "total %.0f s of %s s" % (m.get("wall_s", 0), m.get("budget_s", "?"))))
        md.append("")
    md.append("**Target (a)**, no gpuhier warning or error on a library kernel that ncu's full set does not support: "
              "**%s** — %d judged, %d supported, %d unsupported; %d not judged (ncu did not profile the "
              "configuration)." % ("holds" if ta["holds"] else "fails", ta["judged"], ta["supported"],
                                  ta["unsupported"], ta["not_judged"]))
    md.append("")
    md.append("**Target (b)**, every ncu memory finding with an estimated speedup of at least %g %% matched by a "
              "gpuhier finding on the same kernel: **%s** — %d findings, %d matched (%d of them by a warning or "
              "worse), %d missed." % (MEMORY_MIN_SPEEDUP_PCT, "holds" if tb["holds"] else "fails", tb["findings"],
                                      tb["matched"], tb["matched_warning_or_worse"], tb["missed"]))
    md.append("")
    md.append("ncu's memory family: %s." % res["memory_source"])
    md.append("")
    md += ["| workload | native | gpuhier run | analyze | ncu --set full | reports | ncu launches | rule results |",
           "|---|---|---|---|---|---|---|---|"]
    for w in res["workloads"]:
        wm = w["meta"]
        st = wm.get("steps", {})

        def step(k):
            s = st.get(k)
            if not s:
                return "-"
            txt = "%.1f s" % s.get("wall_s", 0)
            if s.get("rc"):
                txt += " (rc %s)" % s["rc"]
            if s.get("skipped"):
                txt = "skipped (%s)" % s["skipped"]
            return txt
        md.append("| %s | %s | %s | %s | %s | %d | %d | %d |" % (
            wm.get("name"), step("native"), step("gpuhier"), step("analyze"), step("ncu"), wm.get("reports", 0),
            wm.get("ncu_launches", 0), wm.get("ncu_rule_results", 0)))
    md.append("")
    md += ["| workload | kernel | class | grid x block | GPU share | gpuhier (warning or worse) | ncu rules (estimated "
           "speedup) | (a) | (b) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        g = [f for f in r["findings"] if SEV_ORDER.get(f["severity"], 9) <= 1]
        gtxt = ", ".join("%s (%s)" % (f["rule"], f["severity"]) for f in g) or "-"
        notes = len(r["findings"]) - len(g)
        if notes:
            gtxt += " +%d note%s" % (notes, "s" if notes > 1 else "")
        if r["ncu_launch"] is None:
            ntxt = "not profiled"
        else:
            best = {}
            for n in r["ncu_rules"]:
                sp = n.get("speedup")
                if n["rule"] not in best or (sp or 0) > (best[n["rule"]] or 0):
                    best[n["rule"]] = sp
            ntxt = ", ".join("%s%s" % (k, " %.3g %%" % v if v is not None else "") for k, v in best.items()) or "none"
        if not r["library"]:
            atxt = "-"
        elif not r["a"]:
            atxt = "ok"
        else:
            bad = [x["rule"] for x in r["a"] if x["verdict"] == "unsupported"]
            nj = [x["rule"] for x in r["a"] if x["verdict"] == "not judged"]
            atxt = ("**unsupported: %s**" % ", ".join(bad)) if bad else ("not judged" if nj and len(nj) == len(r["a"])
                                                                         else "ok")
        if not r["b"]:
            btxt = "-"
        else:
            miss = [x for x in r["b"] if x["verdict"] == "missed"]
            btxt = ("**missed: %s**" % ", ".join("%s %.3g %%" % (x["ncu_rule"], x["speedup"]) for x in miss)) if miss \
                else "ok (%s)" % ", ".join(sorted(set(y for x in r["b"] for y in x["by"])))
        share = "%.1f %%" % r["gpu_share_pct"] if r["gpu_share_pct"] is not None else "-"
        md.append("| %s | %s | %s | %s x %s | %s | %s | %s | %s | %s |" % (
            r["workload"], esc(r["kernel"], 60), r["class"], fmt_shape(r["grid"]), fmt_shape(r["block"]), share,
            esc(gtxt), esc(ntxt), atxt, btxt))
    md.append("")
    bad_a = [x for x in res["a"] if x["verdict"] == "unsupported"]
    md.append("Unsupported findings (target a): %s" % ("none" if not bad_a else ""))
    for x in bad_a:
        md.append("- %s, %s: %s (%s)" % (x["workload"], esc(x["kernel"], 80), x["rule"], x["severity"]))
    md.append("")
    bad_b = [x for x in res["b"] if x["verdict"] == "missed"]
    md.append("Missed ncu memory findings (target b): %s" % ("none" if not bad_b else ""))
    for x in bad_b:
        md.append("- %s, %s: %s %.3g %% (%s)%s: %s" % (
            x["workload"], esc(x["kernel"], 80), x["ncu_rule"], x["speedup"], x.get("speedup_type") or "?",
            "; " + x["why"] if x.get("why") else "", esc(x["text"], 240)))
    md.append("")
    runf = [(w["meta"].get("name"), f) for w in res["workloads"] for f in w["run_findings"]
            if SEV_ORDER.get(f["severity"], 9) <= 1]
    md.append("Run-level gpuhier findings of warning or worse (copies; not part of either target): %s" %
              ("none" if not runf else ""))
    for wn, f in runf:
        md.append("- %s: %s (%s): %s" % (wn, f["rule_id"], f["severity"], esc(f["message"], 200)))
    notes = [(w["meta"].get("name"), n) for w in res["workloads"] for n in w["notes"]]
    if notes:
        md.append("")
        md.append("Notes: " + "; ".join("%s: %s" % x for x in notes))
    return "\n".join(md) + "\n"


def render_mapping():
    """SUPPORT as the Markdown table docs/suite.md shows."""
    md = ["| gpuhier rule | ncu rule | ncu message matches | used for | why |", "|---|---|---|---|---|"]
    for g, n, t, d, why in SUPPORT:
        md.append("| %s | %s | %s | %s | %s |" % (
            g, "any of ncu's memory family" if n == "@memory" else ("any rule" if n == ".*" else "`%s`" % n),
            "`%s`" % t.replace("|", "\\|") if t else "any message", "(a) and (b)" if d == "both" else "(a) only",
            esc(why)))
    return "\n".join(md) + "\n"


def replace_block(text, tag, body):
    """text with the part between <!-- suite:TAG:begin --> and <!-- suite:TAG:end --> replaced by body."""
    b, e = "<!-- suite:%s:begin -->" % tag, "<!-- suite:%s:end -->" % tag
    i, j = text.find(b), text.find(e)
    if i < 0 or j < i:
        raise ValueError("no %s ... %s markers" % (b, e))
    return text[:i + len(b)] + "\n" + body + text[j:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir")
    ap.add_argument("--md")
    ap.add_argument("--doc")
    ap.add_argument("--raw")
    ap.add_argument("--reanalyze", metavar="GPUHIER")
    ap.add_argument("--rules")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--print-mapping", action="store_true")
    a = ap.parse_args(argv)
    if a.print_mapping:
        sys.stdout.write(render_mapping())
        return 0
    if not a.dir:
        ap.error("--dir RUN is needed")
    reports_root = reanalyze(a.dir, a.reanalyze, a.rules) if a.reanalyze else None
    try:
        res = analyze_run(a.dir, reports_root)
    finally:
        if reports_root:
            shutil.rmtree(reports_root, ignore_errors=True)
    text = render(res)
    if a.reanalyze:
        text = ("Reports analyzed again on %s by `%s`%s (the recorded run's counters, today's rules).\n\n" % (
            time.strftime("%Y-%m-%d"), a.reanalyze, " with the rules in `%s`" % a.rules if a.rules else "")) + text
    sys.stdout.write(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    if a.raw:
        if os.path.dirname(a.raw):
            os.makedirs(os.path.dirname(a.raw), exist_ok=True)
        with open(a.raw + ".md", "w") as f:
            f.write(text)
        with open(a.raw + ".json", "w") as f:
            json.dump({k: res[k] for k in ("meta", "memory_source", "memory_rules", "targets", "rows")}
                      | {"workloads": [w["meta"] for w in res["workloads"]],
                         "run_findings": [dict(f, workload=w["meta"].get("name")) for w in res["workloads"]
                                          for f in w["run_findings"]],
                         "thresholds": {"memory_min_speedup_pct": MEMORY_MIN_SPEEDUP_PCT,
                                        "support_min_speedup_pct": SUPPORT_MIN_SPEEDUP_PCT}}, f, indent=1)
    if a.doc:
        with open(a.doc) as f:
            doc = f.read()
        doc = replace_block(doc, "results", text)
        doc = replace_block(doc, "mapping", render_mapping())
        with open(a.doc, "w") as f:
            f.write(doc)
    if a.check and not (res["targets"]["a"]["holds"] and res["targets"]["b"]["holds"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
