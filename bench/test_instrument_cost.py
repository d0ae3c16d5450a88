#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/instrument_cost.py's table on SYNTHETIC runs (made up
here, no GPU): the PyTorch target read over native and over the trace mode,
each with the range of the side-by-side pairs (the runs of one rep), a failed
run's pair left out, and no trace reading where the trace mode did not run."""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "agreement"))
from checks import check, done  # noqa: E402
import instrument_cost  # noqa: E402


def run(mode, rep, wall, rc=0, inst=0):
    r = {"workload": "pytorch", "mode": mode, "rep": rep, "wall_s": wall, "rc": rc}
    if mode != "native":
        r["report"] = {"instrumented": inst, "overhead_ns": [5e6] * inst}
    return r


runs = [run("native", 0, 13.27), run("trace", 0, 12.26), run("inst", 0, 12.70, inst=145),
        run("native", 1, 13.29), run("trace", 1, 10.43), run("inst", 1, 11.23, inst=145),
        run("native", 2, 10.97), run("trace", 2, 10.22), run("inst", 2, 12.14, inst=145),
        run("native", 3, 10.00), run("trace", 3, 9.00, rc=1), run("inst", 3, 30.0, rc=1)]
summ = instrument_cost.summarise(runs)
t = {what: (v, ok) for what, v, ok in instrument_cost.targets(summ)}
over_native = [k for k in t if "inst / native" in k]
over_trace = [k for k in t if "inst / trace" in k]
check(len(over_native) == 1 and len(over_trace) == 1, "both readings of the PyTorch target: %r" % list(t))
v, ok = t[over_trace[0]]
check(v == "1.164x (pairs 1.036–1.188)" and ok is False,
      "over tracing: the ratio of medians and the pairs' range, the failed rep left out: %r" % (t[over_trace[0]],))
v, ok = t[over_native[0]]
check(v.startswith("1.002x") and "(pairs 0.845–1.107)" in v and ok is True, "over native: %r" % (t[over_native[0]],))
# without the trace mode: the native reading alone
summ2 = instrument_cost.summarise([r for r in runs if r["mode"] != "trace"])
check(not [w for w, _, _ in instrument_cost.targets(summ2) if "inst / trace" in w], "no trace mode: no trace reading")
text = instrument_cost.markdown(summ, ["- synthetic"], [])
check("| pytorch | trace | 3 | 10.43 |" in text, "the trace mode's row: " + text)
# the collector's start and its CUPTI part, medians of the runs' metas, in the outside-phases table
acct_runs = [run("native", i, 10.0) for i in range(2)] + [
    dict(run("trace", i, 10.2), report={"instrumented": 0, "overhead_ns": [], "init_ms": v, "cupti_ms": c})
    for i, (v, c) in enumerate(((26.0, 3.0), (28.0, 5.0)))] + [
    dict(run("inst", i, 10.9), report={"instrumented": 0, "overhead_ns": [], "nvperf_ms": o, "nvperf_wait_ms": w})
    for i, (o, w) in enumerate(((100.0, 10.0), (120.0, 30.0)))]
text3 = instrument_cost.markdown(instrument_cost.summarise(acct_runs), ["- synthetic"], [])
check("| pytorch | trace | - | - | - | 27.0 | 4.0 | - | - |" in text3, "the start and its CUPTI part: " + text3)
check("| pytorch | inst | - | - | - | - | - | 110.0 | 20.0 |" in text3, "nvperf's open and the wait: " + text3)
# the meta's text, as the collector writes it (collector/exit.c nvperf_settle()), read by META_READS
pat = [p for k, p, _ in instrument_cost.META_READS if k == "nvperf_open"]
m = re.search(pat[0], "opened in 97.3 ms on its own thread; waited for 4.5 ms") if pat else None
check(m is not None and m.groups() == ("97.3", "4.5"), "the nvperf_open meta parsed: %r" % (m and m.groups(),))
sys.exit(done("test_instrument_cost"))
