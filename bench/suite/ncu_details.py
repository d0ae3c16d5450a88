# SPDX-License-Identifier: MIT
"""Reads Nsight Compute's details page as CSV, with its rule results.

The input is what `ncu --import R.ncu-rep --csv --page details --print-units base
--print-kernel-base mangled` prints (bench/suite/run.py), possibly several such
outputs one after the other (one per report file). ncu 2025.3's columns are:

  "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",
  "Block Size","Grid Size","Device","CC","Section Name","Metric Name",
  "Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description",
  "Estimated Speedup Type","Estimated Speedup"

A metric row fills the first 15 (and ends with a comma); a rule row leaves the
metric cells empty and fills the last five: the rule's identifier (e.g.
UncoalescedGlobalAccess), its type (OPT optimization, WRN warning, INF
information, ERR the rule failed), its message, and the estimated speedup of
acting on it ("global": of the whole kernel, "local": of the part the rule
looks at) in percent. One rule can give several messages (one row each), e.g.
MemoryCacheAccessPattern for global loads and for stores.

Lines that do not start with '"' (ncu's ==PROF== lines, the program's output,
comment lines of a test file) are ignored; each line starting with '"ID",' opens
a new table whose launch IDs are its own (ncu numbers the launches of each
report from 0), so a launch is keyed by (table, ID). Columns are found by name,
so a version that adds columns still reads.
"""
import csv
import io
import re

# --print-units base prints base units; these cover ncu's scaled ones too.
SCALE = {"": 1.0, "ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
         "s": 1e9, "second": 1e9, "byte": 1.0, "byte/block": 1.0, "Kbyte/block": 1e3, "Kbyte": 1e3,
         "Mbyte": 1e6}


def number(text):
    """'1,980,000' -> 1980000.0; '', 'n/a' or not a number -> None."""
    t = (text or "").strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan", "(!)"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def dims(text):
    """'(8192, 1, 1)' -> (8192, 1, 1); None unless three integers."""
    v = re.findall(r"\d+", text or "")
    return tuple(int(x) for x in v[:3]) if len(v) >= 3 else None


def _tables(text):
    """The CSV tables of text: lists of lines, each list starting with its header."""
    tables = []
    for line in text.splitlines():
        if line.startswith('"ID",'):
            tables.append([line])
        elif tables and line.startswith('"'):
            tables[-1].append(line)
    return tables


def _col(cols, *want):
    for w in want:
        for c in cols:
            if c and c.strip().lower() == w:
                return c
    return None


def parse(text):
    """Returns the launches of a details CSV, in order:
    [dict(key=(table, id), id, kernel, grid, block, dyn_smem, duration_ns, process, rules=[...])],
    each rule a dict(rule, section, type, text, speedup_type, speedup (float or None))."""
    out = []
    for t, lines in enumerate(_tables(text)):
        rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
        if not rows:
            continue
        cols = list(rows[0].keys())
        c_id = _col(cols, "id")
        c_kernel = _col(cols, "kernel name", "function name")
        c_grid, c_block = _col(cols, "grid size"), _col(cols, "block size")
        c_proc = _col(cols, "process id")
        c_sec = _col(cols, "section name")
        c_mname, c_munit, c_mval = _col(cols, "metric name"), _col(cols, "metric unit"), _col(cols, "metric value")
        c_rule, c_type = _col(cols, "rule name", "rule identifier"), _col(cols, "rule type")
        c_desc = _col(cols, "rule description")
        c_stype, c_speed = _col(cols, "estimated speedup type"), _col(cols, "estimated speedup")

        def cell(r, c):
            return ((r.get(c) or "") if c else "").strip()
        by_id = {}
        for r in rows:
            rid = cell(r, c_id)
            if not rid.isdigit():
                continue   # a units row or noise
            key = (t, int(rid))
            la = by_id.get(key)
            if la is None:
                la = {"key": key, "id": int(rid), "kernel": cell(r, c_kernel), "grid": dims(cell(r, c_grid)),
                      "block": dims(cell(r, c_block)), "process": cell(r, c_proc), "dyn_smem": None,
                      "duration_ns": None, "rules": []}
                by_id[key] = la
                out.append(la)
            rule = cell(r, c_rule)
            if rule:
                sp = number(cell(r, c_speed))
                la["rules"].append({"rule": rule, "section": cell(r, c_sec), "type": cell(r, c_type).upper()[:3],
                                    "text": cell(r, c_desc), "speedup_type": cell(r, c_stype).lower(),
                                    "speedup": sp})
                continue
            name, unit, val = cell(r, c_mname), cell(r, c_munit), number(cell(r, c_mval))
            if val is None:
                continue
            if name == "Dynamic Shared Memory Per Block":
                la["dyn_smem"] = int(round(val * SCALE.get(unit, 1.0)))
            elif name == "Duration":
                la["duration_ns"] = val * SCALE.get(unit, 1.0)
    return out


def fired(rule):
    """Whether a rule result is advice: an optimization (OPT) or a warning (WRN)."""
    return rule.get("type") in ("OPT", "WRN")


def parse_rule_list(text):
    """The rule list run.py extracts from ncu's section files, one rule a line:
    'IDENTIFIER<TAB>SECTION<TAB>PARENT,PARENT'. Returns {id: (section, [parents])}."""
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        out[f[0].strip()] = (f[1].strip() if len(f) > 1 else "",
                             [p.strip() for p in (f[2] if len(f) > 2 else "").split(",") if p.strip()])
    return out


def descendants(rules, root):
    """Identifiers whose chain of parents reaches root (root itself excluded)."""
    out = set()
    for rid in rules:
        seen, todo = set(), list(rules[rid][1])
        while todo:
            p = todo.pop()
            if p == root:
                out.add(rid)
                break
            if p not in seen and p in rules:
                seen.add(p)
                todo += rules[p][1]
    return out


def rules_from_sources(files):
    """(identifier, section, parents) of each NvRules rule file given as (name, text): the strings its
    get_identifier(), get_section_identifier() and get_parent_rules_identifiers() return."""
    out = []
    for _, src in files:
        m = re.search(r"def get_identifier\(\):\s*return\s*[\"']([^\"']+)", src)
        if not m:
            continue
        s = re.search(r"def get_section_identifier\(\):\s*return\s*[\"']([^\"']+)", src)
        p = re.search(r"def get_parent_rules_identifiers\(\):\s*return\s*\[([^\]]*)\]", src)
        parents = re.findall(r"[\"']([^\"']+)[\"']", p.group(1)) if p else []
        out.append((m.group(1), s.group(1) if s else "", parents))
    return out
