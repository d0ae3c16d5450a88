#!/bin/sh
# bench/budget_sim on a synthetic trace (built here, said so in its meta):
# under --profile-budget, the GPU-time policy must spend the budget on the
# configuration that takes the GPU's time, where first-come spends it on
# the cheap kernels that come first. The program: the collector starts,
# 4 s of set-up, then 30 cheap configurations (1 us kernels) launched 10
# times each, then 20 steps of 50 ms, each one of the cheap kernels, a
# 100 us kernel and a 5 ms kernel (the GPU's time is the 5 ms kernel's).
set -u
bin=${GPUHIER_BINARY_DIR:?}
src=${GPUHIER_SOURCE_DIR:?}
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
python3 - "$src/schema/schema.sql" "$t/trace.db" <<'PY' || { echo "t104: cannot build the synthetic trace"; exit 1; }
import sqlite3, sys
c = sqlite3.connect(sys.argv[2])
c.executescript(open(sys.argv[1]).read())
c.execute("INSERT INTO meta VALUES ('created_by', 'synthetic')")
c.execute("INSERT INTO meta VALUES ('provenance', 'synthetic trace for tests/e2e/t104-budget-sim.sh')")
s = 10**9
c.execute("INSERT INTO run (id, start_ns, end_ns, mode) VALUES (1, ?, ?, 'trace')", (s, s + 6 * s))
for i in range(1, 33):
    name = "_Z5heavyv" if i == 32 else "_Z3midv" if i == 31 else "_Z5lightv"
    c.execute("INSERT OR IGNORE INTO kernel (id, mangled_name, short_name) VALUES (?, ?, ?)",
              (min(i, 31) if i < 32 else 32, name, name[3:-1]))
    kid = 1 if i <= 30 else i
    c.execute("INSERT INTO config (id, kernel_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
              " dynamic_smem_bytes) VALUES (?, ?, ?, 1, 1, 256, 1, 1, 0)", (i, kid, i))
corr, t = 0, s + 4 * s
def launch(cfg, dur):
    global corr, t
    corr += 1
    kid = 1 if cfg <= 30 else cfg
    c.execute("INSERT INTO launch (kernel_id, config_id, correlation_id, start_ns, end_ns)"
              " VALUES (?, ?, ?, ?, ?)", (kid, cfg, corr, t, t + dur))
    t += dur + 1000
for _ in range(10):
    for cfg in range(1, 31):
        launch(cfg, 1000)
step0 = t
for n in range(20):
    t = step0 + n * 50 * 10**6
    launch(1 + n % 30, 1000); launch(31, 100 * 1000); launch(32, 5 * 10**6)
c.commit()
PY
"$bin/bench/budget_sim" "$t/trace.db" 30 > "$t/out.md" || { echo "t104: budget_sim failed"; cat "$t/out.md"; exit 1; }
cat "$t/out.md"
cov() { awk -F'|' -v p="$1" '$3 ~ p {gsub(/[ %]/, "", $6); print $6}' "$t/out.md"; }
fc=$(cov first-come) bt=$(cov "by GPU time")
[ -n "$fc" ] && [ -n "$bt" ] || { echo "t104: no coverage in the table"; exit 1; }
awk -v fc="$fc" -v bt="$bt" 'BEGIN { exit !(bt >= 90 && fc < 10) }' ||
  { echo "t104: GPU time in profiled configurations: first-come $fc %, by GPU time $bt % (want < 10 and >= 90)"; exit 1; }
echo "t104: under a 30 % budget, first-come profiles $fc % of the GPU time, by GPU time $bt %"
