#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Offline check of the footprint rules before a device run (no GPU).

Copies recorded testkernels reports (written before allocations were
recorded) into OUT and, for the cases named below, adds what the collector
would now record: the `allocation` table, launch.api_ns, v_launch_footprint
(all three taken from schema/schema.sql), the cudaMalloc sizes read from
testkernels/cache.cu and coalesce.cu (allocated before the first launch),
and meta alloc_tracking = 'on'. Every other report is copied unchanged (no
allocation records: the rules fall back to the counters). The copies say
SIMULATION in meta.provenance. Then re-score them with
  E2E_REPORTS=OUT OUT=... bench/e2e_testkernels.sh BUILD
A device run replaces this: it records the allocations for real.

  bench/e2e/footprint_sim.py RECORDED_REPORTS_DIR OUT_DIR
"""
import os
import re
import shutil
import sqlite3
import sys

MIB = 1 << 20


def sizes(case, grid):
    out = grid * 256 * 4  # both tk_cache modes: one float per thread
    table = {
        "cache-reread": [out, grid * 128 * 1024 * 4],
        "cache-reread-fixed": [out, grid * 128 * 1024 * 4],
        "cache-evict": [out, 1024 * MIB, 16 * MIB],
        "cache-evict-fixed": [out, 1024 * MIB, 16 * MIB],
        "coalesce-gather": [64 * MIB] * 3,
        "coalesce-gather-fixed": [64 * MIB] * 3,
    }
    return table.get(case)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    schema = open(os.path.join(root, "schema", "schema.sql")).read()
    tbl = re.search(r"CREATE TABLE allocation \(.*?\);", schema, re.S).group(0)
    view = re.search(r"CREATE VIEW v_launch_footprint AS.*?WHERE w.is_launch = 1;\n", schema, re.S).group(0)
    os.makedirs(dst, exist_ok=True)
    for f in sorted(os.listdir(src)):
        if not f.endswith(".db"):
            continue
        case = f[:-3]
        shutil.copy(os.path.join(src, f), os.path.join(dst, f))
        db = sqlite3.connect(os.path.join(dst, f))
        grid = db.execute("SELECT c.grid_x * c.grid_y * c.grid_z FROM config c JOIN kernel k ON k.id = c.kernel_id"
                          " WHERE k.short_name NOT LIKE 'tk_%' LIMIT 1").fetchone()
        s = sizes(case, grid[0] if grid else 0)
        if s is None:
            db.close()
            continue
        db.executescript("ALTER TABLE launch ADD COLUMN api_ns INTEGER;" + tbl + view)
        for i, b in enumerate(s):
            db.execute("INSERT INTO allocation (op, memory_kind, address, bytes, time_ns, device_id) "
                       "VALUES ('alloc', 'device', ?, ?, 0, 0)", (4096 * (i + 1), b))
        db.execute("UPDATE launch SET api_ns = 1 WHERE profiled = 1")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('alloc_tracking', 'on')")
        db.execute("UPDATE meta SET value = value || ' [SIMULATION: allocation records added by "
                   "bench/e2e/footprint_sim.py from the testkernels sources, not recorded]' WHERE key = 'provenance'")
        db.commit()
        live = db.execute("SELECT MAX(live_device_bytes) FROM v_launch_footprint").fetchone()[0]
        print(f"{case}: {len(s)} allocations, {live} bytes live at the profiled launches")
        db.close()


if __name__ == "__main__":
    main()
