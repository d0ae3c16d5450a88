#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Misses of an agreement run by class (docs/agreement.md, classes A-E),
multi-pass against one pass, from the script's agreement.json.

Usage: classes.py OUT/agreement.json
(an AGREE_REUSE run with AGREE_PARTS=agree-tk,single-tk over a folder that
holds both runs' reports and ncu CSVs; docs/agreement.md says how).

The class of a miss is decided by its metric first, then by its kernel:
  B  lts__t_sectors_aperture_sysmem.sum
  E  sm__cycles_active, sm__warps_active
  D  shared-memory bank conflicts
  C  spill_bounds in the spill-bounds program, or an L1 local/hit-rate or
     L2-from-L1 (srcunit_tex) counter anywhere
  A  the rest: DRAM bytes, L2 lookup hits and misses
  F  any other metric on a pair whose warp instruction counts differ: the
     kernel's work depends on timing (cuBLAS's warp-specialized nvjet GEMMs
     spin on shared-memory barriers; PyTorch run of 2026-11-29 22:23 UTC)
This is the rule the 18:48 classification used (A 196, B 59, C 33, D 22,
E 54). Launch position: `fill` (tk_fill, the programs' input fill and first
kernel), `first` (index 0 of another configuration), `repeat` (index >= 1).
"""
import collections
import json
import sys

A_METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_lookup_miss.sum",
             "lts__t_sectors_lookup_hit.sum")


def klass(c):
    m = c["metric"]
    if m == "lts__t_sectors_aperture_sysmem.sum":
        return "B"
    if m.startswith("sm__"):
        return "E"
    if "bank_conflicts" in m:
        return "D"
    if ((c["program"] == "spill-bounds" and c["kernel"].startswith("spill_bounds"))
            or "srcunit_tex" in m or "local_op" in m or "sector_hit_rate" in m):
        return "C"
    if m in A_METRICS:
        return "A"
    return "?"


def pair_key(c):
    return (c["program"], c.get("group"), c["kernel"], str(c["grid"]), str(c["block"]), c["index"])


def other_work(comps):
    """The pairs whose smsp__inst_executed.sum differs between the tools."""
    return {pair_key(c) for c in comps
            if c["metric"] == "smsp__inst_executed.sum" and c["gpuhier"] != c["ncu"]}


def klass_of(c, differs):
    k = klass(c)
    return "F" if k == "?" and pair_key(c) in differs else k


def position(c):
    if c["kernel"].startswith("tk_fill"):
        return "fill"
    return "first" if c["index"] == 0 else "repeat"


def nbytes(c):
    """|difference| in bytes for byte and L2 sector counters (32 B a sector), else None."""
    d = abs(c["gpuhier"] - c["ncu"])
    if c["metric"].startswith("dram__bytes"):
        return d
    if c["metric"].startswith("lts__t_sectors"):
        return 32 * d
    return None


def table(comps):
    miss = [c for c in comps if not c["ok"]]
    differs = other_work(comps)
    out = {}
    for k in "ABCDEF":
        mm = [c for c in miss if klass_of(c, differs) == k]
        pos = collections.Counter(position(c) for c in mm)
        b = [x for x in (nbytes(c) for c in mm) if x is not None]
        out[k] = {"misses": len(mm), "fill": pos["fill"], "first": pos["first"], "repeat": pos["repeat"],
                  "gpuhier_higher": sum(1 for c in mm if c["gpuhier"] > c["ncu"]),
                  "max_bytes": max(b) if b else None,
                  "le_64k": sum(1 for x in b if x <= 65536) if b else None}
    return len(miss), out


def main(path):
    d = json.load(open(path))
    parts = (("multi-pass", d["comparisons"]), ("one pass", d["single"]["comparisons"]))
    print("| class | run | misses | tk_fill | first launch | repeats | gpuhier > ncu | largest difference (bytes) | differences <= 64 KB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    res = {name: table(cs) for name, cs in parts if cs}
    for k in "ABCDEF":
        for name, (total, t) in res.items():
            r = t[k]
            print("| %s | %s | %d | %d | %d | %d | %d | %s | %s |" % (
                k, name, r["misses"], r["fill"], r["first"], r["repeat"], r["gpuhier_higher"],
                "%.0f" % r["max_bytes"] if r["max_bytes"] is not None else "",
                r["le_64k"] if r["le_64k"] is not None else ""))
    print()
    for name, (total, _) in res.items():
        print("%s: %d misses" % (name, total))
    unknown = [c for _, cs in parts for c in cs if not c["ok"] and klass_of(c, other_work(cs)) == "?"]
    if unknown:
        print("unclassified: %d" % len(unknown))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
