#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/agreement/selfagree.py (each tool against itself) on the
ncu output recorded on the H200 (testdata/ncu-transpose-naive-4096.csv, see
testdata/README.md), copied and changed here: the changes are synthetic."""
import copy
import io
import os
import shutil
import sys
import tempfile
from contextlib import redirect_stdout, redirect_stderr

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from checks import check, done  # noqa: E402
import ncu_csv  # noqa: E402
import selfagree  # noqa: E402



CSV = os.path.join(here, "testdata", "ncu-transpose-naive-4096.csv")
run1 = ncu_csv.parse(open(CSV).read())
check(len(run1) == 4, "recorded run: 4 launches")
DRAM = "dram__bytes_write.sum"
check(all(DRAM in t["metrics"] for t in run1), "recorded run has DRAM writes")

# same_work: the exact counts decide whether two launches are the same work
a = {"smsp__inst_executed.sum": 10.0, DRAM: 5.0}
check(selfagree.same_work(a, dict(a, **{DRAM: 6.0})), "a cache counter may differ")
check(not selfagree.same_work(a, dict(a, **{"smsp__inst_executed.sum": 11.0})), "instructions may not")

# in_band: between ncu's two values, widened by the tolerance
check(selfagree.in_band(DRAM, 105.0, 100.0, 110.0), "inside the band")
check(selfagree.in_band(DRAM, 110.9, 100.0, 110.0), "within 1 % of the band's top")
check(not selfagree.in_band(DRAM, 112.0, 100.0, 110.0), "above the band")
check(not selfagree.in_band(DRAM, 98.0, 100.0, 110.0), "below the band")
check(selfagree.in_band("l1tex__t_sector_hit_rate.pct", 51.5, 50.0, 50.0), "a rate: 2 points")

# compare_program: ncu's second run with one cache counter 5 % higher on launch 1
# and launch 2 doing other work (instructions changed): 1 miss, 1 launch left out
run2 = copy.deepcopy(run1)
run2[1]["metrics"][DRAM] *= 1.05
run2[2]["metrics"]["smsp__inst_executed.sum"] += 32
counts = {}
left = selfagree.compare_program(counts, [DRAM, "smsp__inst_executed.sum"], [], run1, [], run2)
check(left == 1, "the launch that did other work is left out (%d)" % left)
check(counts[DRAM]["ncu-ncu"] == [1, 3], "ncu against itself: 1 miss of 3 (%s)" % counts[DRAM]["ncu-ncu"])
check(counts["smsp__inst_executed.sum"]["ncu-ncu"] == [0, 3], "instructions agree")
check(counts[DRAM]["gpuhier-gpuhier"] == [0, 0], "no gpuhier launches: nothing compared")

# candidate_gates: (a) gates only the metrics ncu reproduces, (b) compares miss counts
V = selfagree.VIEWS
def row(g1, g2, nn):
    return {V[0]: [g1, 10], V[1]: [g2, 10], "ncu-ncu": [nn, 10], V[3]: [0, 10], V[4]: [0, 10]}
counts = {"exact.sum": row(1, 0, 0), "cachey.sum": row(3, 1, 2), "worse.sum": row(5, 6, 1)}
a_miss, a_vals, b_over = selfagree.candidate_gates(counts)
check((a_miss, a_vals) == (1, 20), "gate (a): only exact.sum is gated, 1 miss of 20 (%s)" % ((a_miss, a_vals),))
check([o[0] for o in b_over] == ["exact.sum", "worse.sum"],
      "gate (b): exact.sum (1 > 0) and worse.sum (11 > 2) miss more than ncu, cachey.sum (4, 4) does not (%s)"
      % b_over)

# main: two run folders with only ncu output; then a folder with nothing
tmp = tempfile.mkdtemp()
try:
    for r in ("r1", "r2"):
        os.makedirs(os.path.join(tmp, r, "tk"))
        shutil.copy(CSV, os.path.join(tmp, r, "tk", "transpose-naive-4096.ncu.csv"))
    out = io.StringIO()
    with redirect_stdout(out):
        rc = selfagree.main(["selfagree", os.path.join(tmp, "r1"), os.path.join(tmp, "r2"),
                             os.path.join(tmp, "self.md")])
    check(rc == 0, "main exit 0")
    check("**all metrics** |" in out.getvalue() and "| **0** / " in out.getvalue(),
          "identical runs: no miss in ncu-ncu (%s)" % out.getvalue()[-300:])
    check(os.path.exists(os.path.join(tmp, "self.md")), "OUT.md written")
    os.makedirs(os.path.join(tmp, "empty"))
    err = io.StringIO()
    with redirect_stderr(err):
        rc = selfagree.main(["selfagree", os.path.join(tmp, "empty"), os.path.join(tmp, "r2")])
    check(rc == 2 and "no program" in err.getvalue(), "no program: exit 2 and one line")
finally:
    shutil.rmtree(tmp)

sys.exit(done("test_self"))
