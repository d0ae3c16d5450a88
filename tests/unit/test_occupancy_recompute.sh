#!/bin/sh
# bench/occupancy_recompute on a SYNTHETIC report (built here from SQL): the
# 32-thread block at a 32 KB carveout gets the block slots as limiter (a
# report recorded before that calculator change says shared_memory), the
# meta row says the columns were recomputed, and a missing report fails.
set -eu
tool=${1:?occupancy_recompute}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
python3 - "$t/r.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('created_by', 'synthetic');
CREATE TABLE device (id INTEGER PRIMARY KEY, sm_count INTEGER);
INSERT INTO device VALUES (0, 132);
CREATE TABLE config (id INTEGER PRIMARY KEY, device_id INTEGER, threads_per_block INTEGER,
  registers_per_thread INTEGER, static_smem_bytes INTEGER, dynamic_smem_bytes INTEGER,
  carveout_bytes INTEGER, cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER, blocks INTEGER,
  theoretical_occupancy_pct REAL, blocks_per_sm INTEGER, occupancy_limiter TEXT, waves REAL);
INSERT INTO config VALUES (1, 0, 32, 16, 0, 0, 32768, 1, 1, 1, 2097152, 50, 32, 'shared_memory', 496.5);
INSERT INTO config VALUES (2, 0, 256, 64, 0, 0, NULL, 1, 1, 1, 1024, 0, 0, NULL, NULL);
""")
c.commit()
PY
"$tool" "$t/r.db"
q() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$t/r.db" "$1"; }
[ "$(q "SELECT occupancy_limiter FROM config WHERE id = 1")" = blocks ] || { echo "FAIL: limiter of config 1"; exit 1; }
[ "$(q "SELECT blocks_per_sm || ' ' || occupancy_limiter FROM config WHERE id = 2")" = "4 registers" ] ||
  { echo "FAIL: config 2: $(q "SELECT blocks_per_sm || ' ' || occupancy_limiter FROM config WHERE id = 2")"; exit 1; }
[ "$(q "SELECT count(*) FROM meta WHERE key = 'occupancy_recomputed'")" = 1 ] || { echo "FAIL: no meta row"; exit 1; }
if "$tool" "$t/none.db" 2> /dev/null; then echo "FAIL: a missing report was accepted"; exit 1; fi
echo "ok occupancy_recompute"
