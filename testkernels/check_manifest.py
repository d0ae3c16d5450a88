#!/usr/bin/env python3
"""Validates testkernels/manifest.json (docs/testkernels.md).

usage: check_manifest.py MANIFEST [--binaries LIST --bindir DIR] [--metrics GH100_METRICS_TXT]
Checks: the JSON shape; unique case ids; twins name existing cases; every rule id is one of the
team's 22 rule ids; every must/may names a kernel of its case (or null for copy-level rules);
tolerances are 0..10 %; ncu key metrics are Perfworks metric names (when the reference list is
given) or ratios of two; with --binaries, every case's binary is built (listed and present).
Exits 0 when all hold, 1 otherwise (each problem on its own line).
"""
import json
import os
import re
import sys

RULES = {
    "local-memory-traffic", "occupancy-registers", "shared-bank-conflicts", "occupancy-shared-memory",
    "smem-optin-48k", "reread-not-staged", "stream-evicts-reused", "l2-reread-miss",
    "uncoalesced-global-load", "uncoalesced-global-store", "scalar-access", "floor-distance",
    "latency-not-hidden", "block-shape", "pageable-copy", "transfer-exceeds-work", "round-trip-copy",
    "small-copies", "host-memory-access", "constant-divergent", "atomic-contention", "managed-migration",
    "uncoalesced-global-atomic",
}
SEVERITIES = {"error", "warning", "note"}
SOURCES = {"ncu", "ncu-launch", "activity"}
ROLES = {"defect", "fixed", "negative"}
# Nsight Compute launch attributes and occupancy-calculator results (not hardware counters).
NCU_LAUNCH = {"launch__registers_per_thread", "launch__shared_mem_per_block_dynamic",
              "sm__maximum_warps_per_active_cycle_pct", "launch__waves_per_multiprocessor",
              "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem"}
ROLLUP = re.compile(r"\.(sum|avg|max|min)(\.(pct_of_peak_sustained_active|pct_of_peak_sustained_elapsed|"
                    r"per_second|peak_sustained))?$|\.(pct|ratio)$")

problems = []


def bad(msg):
    problems.append(msg)


def check_metric(cid, spec, where, known):
    if not isinstance(spec, dict):
        bad(f"{cid}: {where} is not an object")
        return
    for f in ("name", "formula"):
        if not isinstance(spec.get(f), str) or not spec.get(f):
            bad(f"{cid}: {where}.{f} missing")
    src = spec.get("source", "ncu")
    if src not in SOURCES:
        bad(f"{cid}: {where}.source {src!r} not one of {sorted(SOURCES)}")
    bound = [b for b in ("at_least", "at_most") if b in spec]
    if where == "key_metric" and bound:
        bad(f"{cid}: the key metric needs an expected value, not a bound")
    if bound:
        if not isinstance(spec[bound[0]], (int, float)):
            bad(f"{cid}: {where}.{bound[0]} is not a number")
    else:
        if not isinstance(spec.get("expected"), (int, float)) or isinstance(spec.get("expected"), bool):
            bad(f"{cid}: {where}.expected is not a number")
        tol = spec.get("tolerance_pct")
        if not isinstance(tol, (int, float)) or not 0 <= tol <= 10:
            bad(f"{cid}: {where}.tolerance_pct {tol!r} is not within 0..10")
    if src in ("ncu", "ncu-launch") and isinstance(spec.get("name"), str):
        parts = [p.strip() for p in spec["name"].split("/")]
        if len(parts) > 2:
            bad(f"{cid}: {where}.name has more than one ratio")
        for p in parts:
            if src == "ncu-launch":
                if p not in NCU_LAUNCH:
                    bad(f"{cid}: {where}.name {p!r} is not a known Nsight Compute launch metric")
                continue
            base = ROLLUP.sub("", p)
            if base == p:
                bad(f"{cid}: {where}.name {p!r} has no rollup (.sum, .avg, .max, .pct...)")
            if known is not None and base not in known:
                bad(f"{cid}: {where}.name {p!r}: {base} is not in the GH100 metric list")


def main():
    args = sys.argv[1:]
    opts = {}
    for o in ("--binaries", "--bindir", "--metrics"):
        if o in args:
            i = args.index(o)
            opts[o] = args[i + 1]
            del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    known = None
    if opts.get("--metrics"):
        known = set()
        for line in open(opts["--metrics"], encoding="utf-8", errors="replace"):
            f = line.split()
            if f:
                known.add(f[0].split(".")[-1] if f[0].count(".") == 2 else f[0])
    try:
        m = json.load(open(args[0], encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"manifest: {e}")
        return 1
    cases = m.get("cases")
    if not isinstance(cases, list) or not cases:
        print("manifest: no cases")
        return 1
    built = None
    if opts.get("--binaries"):
        built = {l.strip() for l in open(opts["--binaries"]) if l.strip()}
    ids = [c.get("id") for c in cases]
    seen = set()
    for cid in ids:
        if not isinstance(cid, str) or not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", cid or ""):
            bad(f"bad case id {cid!r}")
        if cid in seen:
            bad(f"{cid}: duplicate id")
        seen.add(cid)
    used_rules = set()
    for c in cases:
        cid = c.get("id")
        if c.get("role") not in ROLES:
            bad(f"{cid}: role {c.get('role')!r} not one of {sorted(ROLES)}")
        if not isinstance(c.get("binary"), str) or not c["binary"]:
            bad(f"{cid}: no binary")
        elif built is not None:
            if c["binary"] not in built:
                bad(f"{cid}: binary {c['binary']} is not built by testkernels/CMakeLists.txt")
            elif opts.get("--bindir") and not os.access(os.path.join(opts["--bindir"], c["binary"]), os.X_OK):
                bad(f"{cid}: {c['binary']} is not in {opts['--bindir']}")
        if not isinstance(c.get("args"), list) or not all(isinstance(a, str) for a in c["args"]):
            bad(f"{cid}: args must be a list of strings")
        if c.get("twin") is not None and c["twin"] not in seen:
            bad(f"{cid}: twin {c['twin']!r} is not a case")
        if c.get("role") == "defect" and c.get("twin") is None:
            bad(f"{cid}: a defect needs a twin")
        names = set()
        for k in c.get("kernels") or []:
            if not isinstance(k.get("name"), str) or not k["name"]:
                bad(f"{cid}: kernel without a name")
                continue
            names.add(k["name"])
            if k.get("mangled") is not None and k["name"] not in k["mangled"]:
                bad(f"{cid}: mangled name {k['mangled']} does not contain {k['name']}")
        if not names:
            bad(f"{cid}: no kernels")
        for lst in ("must", "may"):
            if not isinstance(c.get(lst), list):
                bad(f"{cid}: {lst} is not a list")
                continue
            for f in c[lst]:
                r = f.get("rule")
                if r not in RULES:
                    bad(f"{cid}: {lst} rule {r!r} is not one of the team's rule ids")
                used_rules.add(r)
                if f.get("kernel") is not None and f["kernel"] not in names:
                    bad(f"{cid}: {lst} {r} names kernel {f['kernel']!r}, not one of the case's")
                if "severity" in f and f["severity"] not in SEVERITIES:
                    bad(f"{cid}: {lst} {r} severity {f['severity']!r}")
        if c.get("role") == "defect" and not c.get("must"):
            bad(f"{cid}: a defect with no must finding")
        if c.get("role") in ("fixed", "negative") and c.get("must"):
            bad(f"{cid}: a {c['role']} case with must findings")
        mr = {f.get("rule") for f in c.get("must") or []}
        if mr & {f.get("rule") for f in c.get("may") or []}:
            bad(f"{cid}: a rule is both must and may")
        check_metric(cid, c.get("key_metric"), "key_metric", known)
        for i, a in enumerate(c.get("also") or []):
            check_metric(cid, a, f"also[{i}]", known)
        nl = c.get("ncu_launches", 1)
        if not isinstance(nl, int) or nl < 0:
            bad(f"{cid}: ncu_launches {nl!r}")
    must_rules = {f.get("rule") for c in cases for f in c.get("must") or []}
    for r in sorted(RULES - must_rules):
        bad(f"rule {r} has no positive case (no must)")
    for p in problems:
        print(p)
    print(f"manifest: {len(cases)} cases, {len(must_rules)} rules with a positive case, "
          f"{len(problems)} problems")
    return 1 if problems else 0


sys.exit(main())
