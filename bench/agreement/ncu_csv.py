# SPDX-License-Identifier: MIT
"""Parse Nsight Compute `--csv --page raw` output.

ncu prints its own ==PROF==/==WARNING== lines and the program's stdout on
the same stream as the CSV, so the table starts at the line that begins
with '"ID",'. The second row holds units, then one row per profiled
launch. Numbers carry thousands separators ("1,980,000"). Run ncu with
--print-units base so byte/ns values are not rescaled (Kbyte, usecond).
"""
import csv
import io

SCALE = {"": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
         "nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
         "second": 1e9, "s": 1e9}


def number(text, unit=""):
    """'1,980,000' -> 1980000.0; '' or 'n/a' -> None; unit scale applied (to byte, ns)."""
    t = (text or "").strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan", "(!)"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v * SCALE.get(unit, 1.0)


def parse(text):
    """Returns a list of launches: dict(id, kernel, block, grid, metrics={name: float})."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(l for l in lines[start:] if l.startswith('"')))))
    header, units = rows[0], rows[1] if len(rows) > 1 else []
    # the unit row has empty strings for the identification columns; a data
    # row starts with a number in "ID"
    if units and units[0] != "":
        units, body = [""] * len(header), rows[1:]
    else:
        body = rows[2:]
    out = []
    for r in body:
        if len(r) != len(header):
            continue
        d = dict(zip(header, r))
        metrics = {}
        for i, name in enumerate(header):
            if "__" not in name:
                continue
            v = number(r[i], units[i] if i < len(units) else "")
            if v is not None:
                metrics[name] = v
        out.append({"id": int(d["ID"]), "kernel": d.get("Kernel Name", ""),
                    "block": d.get("Block Size", ""), "grid": d.get("Grid Size", ""),
                    "metrics": metrics})
    return out
