# SPDX-License-Identifier: MIT
"""bench/sassprobe/summary.py DIR: per run directory under DIR (one libgh_sassprobe.so run each, its
rc and stdout beside its sassprobe-PID.json), the counts, the errors and the functions with the most
records and their sums (instructions, global sectors against the ideal, shared wavefronts against the
ideal). Used for the graph-arming runs of 2026-12-04 (docs/sassprobe.md "Graph launches")."""
import glob
import json
import os
import sys

root = sys.argv[1]
for d in sorted(glob.glob(os.path.join(root, "*"))):
    rc = open(os.path.join(d, "rc")).read().strip() if os.path.exists(os.path.join(d, "rc")) else "?"
    out = open(os.path.join(d, "stdout"), errors="replace").read().strip().splitlines()[-1:] if os.path.exists(os.path.join(d, "stdout")) else []
    print(f"== {os.path.basename(d)} rc={rc} last={out}")
    for p in glob.glob(os.path.join(d, "sassprobe-*.json")):
        try:
            j = json.load(open(p))
        except Exception as e:
            print("  unreadable", p, e); continue
        c = j.get("counts", {})
        print("  counts", {k: c[k] for k in c if k in ("launches", "graph_launches", "enables", "disables", "flushes", "empty_flushes", "records")})
        print("  errors", j.get("errors"))
        fs = j.get("functions", [])
        wd = [f for f in fs if f.get("has_data")]
        print(f"  functions {len(fs)} with data {len(wd)} data-no-launch {sum(1 for f in wd if f['launches'] == 0)}")
        for f in sorted(fs, key=lambda f: -f.get("records", 0))[:12]:
            s = f.get("sums", {})
            g = s.get("smsp__sass_sectors_mem_global", 0); gi = s.get("smsp__sass_sectors_mem_global_ideal", 0)
            w = s.get("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 0); wi = s.get("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", 0)
            print(f"   {f['name'][:70]:70} L={f['launches']} rec={f['records']} inst={s.get('smsp__sass_inst_executed',0)} sect={g}/{gi} wave={w}/{wi}")
