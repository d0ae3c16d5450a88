#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/cost_vs_ncu.py's analyzed_coverage() with the real
gpuhier (argv[1]) on two of the recorded demo reports (demo/PROVENANCE.md):
each workload's coverage comes from its own analysis, in one work folder.
On the H200 on 2026-12-04 the second workload's export refused to overwrite
the first's coverage.json, and the table fell back to the coverage printed
by `gpuhier run --no-analyze`, which counts kernels that wait (JAX: 86.0 %
printed against 41.4 % of the working GPU time). Also delay_lines(), the
appendix bench/delay_along.py writes (a recorded report against itself loses
nothing; no appendix without both reports). And paired(): the ratios of the
runs made side by side, a failed run's pair left out (the call of 2026-12-06
00:47 UTC, its natives 12.3, 9.3 and 13.9 s). And the plan ncu is asked for
in part ncuplan (PLAN_GROUPS) against the plan the collector packs, as
build/tests/test_onepass (argv[2]) prints it: a group changed in
collector/onepass.c without the benchmark would compare ncu on other
metrics."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
from checks import check, done  # noqa: E402
import cost_vs_ncu  # noqa: E402

gh = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="cost-vs-ncu-test.")
try:
    got = []
    for name in ("demo", "tk-bank"):
        db = os.path.join(tmp, name + ".db")
        shutil.copyfile(os.path.join(here, "..", "demo", name + ".db"), db)
        got.append(cost_vs_ncu.analyzed_coverage(gh, db, tmp))
    check("pattern" in got[0], "the first workload's coverage from its analysis: %r" % got[0])
    check("pattern" in got[1], "the second workload's, in the same work folder: %r" % got[1])
    # the repeated work's pair when the analysis found one-time set-up (demo.db: it does; tk-bank's one
    # program: it does not)
    check("repeated" in got[0], "demo's repeated work alone: %r" % got[0])
    check("repeated" not in got[1], "tk-bank has no set-up, so no repeated pair: %r" % got[1])
    # the appendix of where along the run the time went: only when both reports are there
    demo = os.path.join(here, "..", "demo", "demo.db")
    lines = cost_vs_ncu.delay_lines("demo", demo, demo)
    check(any("| first kernel |" in l and "0.000 s" in l for l in lines),
          "a report against itself lost nothing: %r" % lines[:6])
    check(cost_vs_ncu.delay_lines("torch", os.path.join(tmp, "none.db"), demo) == [],
          "no trace report, no appendix")
    # the variants' table reads each report's meta (profiler_enables); none without the report or the key
    check(cost_vs_ncu.meta_value(demo, "schema_version") not in (None, ""), "a meta value read")
    check(cost_vs_ncu.meta_value(demo, "no_such_key") is None, "no such key: None")
    check(cost_vs_ncu.meta_value(os.path.join(tmp, "none.db"), "schema_version") is None, "no report: None")
finally:
    shutil.rmtree(tmp)
# which workloads run: the every-launch rows bring PyTorch in (they subtract its native time),
# unless --no-ncu skips them (on 2026-12-07 `--no-ncu --workloads jax` ran PyTorch as well)
every = list(cost_vs_ncu.PARTS)
check(cost_vs_ncu.workloads_run(every, ["jax"], True) == ["jax"], "--no-ncu --workloads jax: JAX alone")
check(sorted(cost_vs_ncu.workloads_run(every, ["jax"], False)) == ["jax", "torch"],
      "--workloads jax with the every-launch rows: PyTorch too")
check(cost_vs_ncu.workloads_run(["default"], ["jax"], False) == ["jax"], "--parts default --workloads jax: JAX alone")
nat, dflt = [(12.3, 0), (9.3, 0), (13.9, 0), (11.0, 1)], [(15.6, 0), (14.7, 0), (17.0, 0), (12.0, 0)]
got = cost_vs_ncu.benchlib.paired(nat, dflt)
check([round(x, 2) for x in got] == [1.22, 1.27, 1.58], "paired ratios, the failed native's pair left out: %r" % got)
check(cost_vs_ncu.paired_text(nat, dflt) == " (pairs 1.22–1.58)", "the ratio cell's range")
check(cost_vs_ncu.paired_text(nat[:1], dflt[:1]) == "", "one pair: no range")
check(cost_vs_ncu.cover_text({}) == "-", "no coverage: '-'")
check(cost_vs_ncu.cover_text({"pattern": "100.0", "hardware": "45.4"}) == "100.0 % / 45.4 %", "a pair")
check(cost_vs_ncu.cover_text({"pattern": "34.8", "hardware": "17.5", "repeated": "66.9 % / 44.6 %"})
      == "34.8 % / 17.5 %; repeated work alone 66.9 % / 44.6 %", "with the repeated work's pair")
# PyTorch on the H100 (2026-12-06 02:42 UTC): 1.29 KB per range profile beyond the trace report,
# 0.95 KB per launch either engine profiled (411 range profiles, 146 instrumented launches)
check(cost_vs_ncu.bytes_text(543000, 411, 146) == "1.29 KB (0.95 KB)", cost_vs_ncu.bytes_text(543000, 411, 146))
check(cost_vs_ncu.bytes_text(543000, 411, 0) == "1.29 KB", "no instrumented launch: one figure")
check(cost_vs_ncu.bytes_text(None, 411, 146) == "-" and cost_vs_ncu.bytes_text(1000, 0, 5) == "-", "no sizes: '-'")
if len(sys.argv) > 2:
    # GPUHIER_CACHE_DIR empty: the plan packed, no cache file written in the home directory
    printed = subprocess.run([sys.argv[2]], capture_output=True, text=True,
                             env=dict(os.environ, GPUHIER_CACHE_DIR="")).stdout
    groups = [re.findall(r"`([^`]+)`", line) for line in printed.splitlines()
              if re.match(r"\| \d+ \| \d+ \|", line)]
    # test_onepass packs no plan under AddressSanitizer (CUPTI's RTLD_DEEPBIND dlopen cannot run there)
    # nor without libcupti, and says so: the plan check is then the plain build's
    skipped = [line for line in printed.splitlines() if line.startswith("skipped: test_onepass_plan")]
    if not groups and skipped:
        print("skipped: the plan's groups against test_onepass (%s)" % skipped[0])
    else:
        check(len(groups) == len(cost_vs_ncu.PLAN_GROUPS),
              "the plan's groups: %d printed, %d in the benchmark" % (len(groups), len(cost_vs_ncu.PLAN_GROUPS)))
        for k, (want, have) in enumerate(zip(groups, cost_vs_ncu.PLAN_GROUPS)):
            check(set(want) == set(have.split()), "group %d as packed: %s" % (
                k + 1, sorted(set(want) ^ set(have.split()))))
    names = cost_vs_ncu.plan_metrics().split(",")
    check(len(names) == len(set(names)), "ncu gets each name once")
    check(all(n.endswith(".sum") for n in cost_vs_ncu.SASS_SUMS) and len(cost_vs_ncu.SASS_SUMS) == 19,
          "the 19 SASS sums ncu takes: %r" % (cost_vs_ncu.SASS_SUMS,))
sys.exit(done("test_cost_vs_ncu"))
