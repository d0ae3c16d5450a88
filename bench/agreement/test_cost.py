#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/instrument_cost.py on SYNTHETIC inputs (made-up wall
times and a report built by synth.py with made-up overheads): the
percentile, the report reader, the summary, the two targets (each with a
case that must fail) and the table."""
import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, ".."))
from checks import check, done  # noqa: E402
import instrument_cost as ic  # noqa: E402
import synth  # noqa: E402

check(ic.p95(list(range(1, 101))) == 95, "p95 of 1..100 is 95 (nearest rank)")
check(ic.p95([3.0]) == 3.0 and ic.p95([]) is None, "p95 of one value, of none")
check(ic.median([1, 9, 2]) == 2, "median")

tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "i.db")
r = synth.Report(path)
r.instrumented("_Z1kv", {"smsp__sass_inst_executed": [10]}, overhead_ns=4000000)
r.instrumented("_Z1jv", {"smsp__sass_inst_executed": [10]}, overhead_ns=6000000)
r.instrumented("_Z1gv", {"smsp__sass_inst_executed": [10]}, overhead_ns=None, graph_corr=5)
r.launch("_Z1kv")
r.close()
rep = ic.read_report(path)
check(rep["launches"] == 4 and rep["instrumented"] == 3 and sorted(rep["overhead_ns"]) == [4000000, 6000000],
      "report read: %s" % rep)
check("engine_ms" not in rep and "call_ms" not in rep, "no engine account in a report without the meta keys")
import sqlite3  # noqa: E402
db = sqlite3.connect(path)
db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
    ("instrumented_launches", "3 launches, 42.5 ms (waiting for queued work 0.1, kernel tracing swaps 0.2, "
     "enable 3.0, patched run 30.0, flush 5.0, disable 4.2)"),
    ("instrumented_launch_calls", "21.0 ms of the patched run in the launch calls (lazy patching), 9.0 ms in the "
     "synchronize after them (the patched kernels' execution)"),
    ("instrumentation_setup", "12.5 ms initializing the profiler at the context's creation"),
    ("instrumentation_rows", "30.2 ms writing 3 inst_launch rows and their counts; the last batch at exit 4.1 ms"),
    ("collector_init_ms", "129.1"),
    ("collector_init_parts", "loading CUPTI 97.4 ms, profiling options 0.3 ms, the writer's start 12.0 ms, "
     "subscribing 4.1 ms, activity set-up 8.8 ms")])
db.commit()
db.close()
rep = ic.read_report(path)
check(rep.get("engine_ms") == 42.5 and rep.get("call_ms") == 21.0, "the engine's account read from meta: %s" % rep)
check((rep.get("setup_ms"), rep.get("rows_ms"), rep.get("exit_ms"), rep.get("init_ms")) == (12.5, 30.2, 4.1, 129.1),
      "what lies outside the launches' phases read from meta: %s" % rep)
check(rep.get("cupti_ms") == 97.4, "the start's CUPTI part read from meta: %s" % rep)


def runs(native, inst, over_ms, pt_inst=None, failed=False):
    out = []
    for w, nat, ins in (("pytorch", native, pt_inst or inst), ("jax_mlp", native, inst)):
        for i in range(3):
            out.append({"workload": w, "mode": "native", "rep": i, "wall_s": nat[i], "rc": 0})
            out.append({"workload": w, "mode": "inst", "rep": i, "wall_s": ins[i], "rc": 1 if failed and i == 0 else 0,
                        "report": {"instrumented": 100, "overhead_ns": [int(x * 1e6) for x in over_ms]}})
        out.append({"workload": w, "mode": "both", "rep": 0, "skipped": "budget"})
    return out


s = ic.summarise(runs([10.0, 10.2, 9.9], [10.5, 10.6, 10.4], [2, 3, 4, 30]))
row = s["pytorch"]["inst"]
check(row["n"] == 3 and abs(row["median_s"] - 10.5) < 1e-9, "median wall")
check(abs(row["ratio"] - 10.5 / 10.0) < 1e-9, "ratio to native's median")
check(row["added_med_ms"] == 3.5 and row["added_p95_ms"] == 30.0, "added time median %.1f, p95 %.1f (pooled over runs)"
      % (row["added_med_ms"], row["added_p95_ms"]))
check(abs(row["added_wall_ms"] - 5.0) < 1e-9, "wall-time estimate (10.5 - 10.0) s / 100 launches = 5 ms")
check(s["pytorch"]["both"]["skipped"] == 1 and s["pytorch"]["both"]["n"] == 0, "a skipped run is counted, not timed")
t = ic.targets(s)
check(all(ok for _, _, ok in t), "targets met: %s" % t)

# the per-launch target fails at a 12 ms median
t = ic.targets(ic.summarise(runs([10.0] * 3, [10.5] * 3, [12, 12, 12])))
check([ok for _, _, ok in t] == [False, False, True], "12 ms per launch fails it (must fail): %s" % t)
# the PyTorch target fails at 1.15x; the JAX workload has no such target
t = ic.targets(ic.summarise(runs([10.0] * 3, [10.5] * 3, [2], pt_inst=[11.5] * 3)))
check([ok for _, _, ok in t] == [True, True, False], "1.15x on PyTorch fails it (must fail): %s" % t)
# nothing measured: neither met nor failed
t = ic.targets(ic.summarise([{"workload": "pytorch", "mode": "native", "rep": 0, "skipped": "budget"}]))
check(all(ok is None for _, _, ok in t), "not measured is not a pass: %s" % t)
s_f = ic.summarise(runs([10.0] * 3, [10.5] * 3, [2], failed=True))
check(s_f["pytorch"]["inst"]["failed"] == 1 and s_f["pytorch"]["inst"]["n"] == 2, "a failed run is not timed")

# the candidate (inst-chain): its own targets only where it ran, its own rows in the table
rc = runs([10.0] * 3, [10.5] * 3, [12, 12, 12])
check(ic.all_targets(ic.summarise(rc)) == ic.targets(ic.summarise(rc)), "no candidate rows where it did not run")
for i in range(3):
    rc.append({"workload": "pytorch", "mode": "inst-chain", "rep": i, "wall_s": 11.5, "rc": 0,
               "report": {"instrumented": 100, "overhead_ns": [int(8e6)]}})
t = ic.all_targets(ic.summarise(rc))
cand = [(w, ok) for w, _, ok in t if "inst-chain, a candidate" in w]
check([ok for _, ok in cand] == [True, None, False], "the candidate: 8 ms met, JAX not run, 1.15x fails: %s" % cand)
check("| pytorch | inst-chain | 3 |" in ic.markdown(ic.summarise(rc), ["- synthetic"], []), "the candidate's row")
check(ic.MODE_ENV["inst-chain"] == {"GPUHIER_INSTRUMENT": "1", "GPUHIER_DIAG_SASS_CHAIN": "1"},
      "the candidate's environment")
# a second candidate (inst-lean) gets its own targets beside the first's
for i in range(3):
    rc.append({"workload": "pytorch", "mode": "inst-lean", "rep": i, "wall_s": 10.9, "rc": 0,
               "report": {"instrumented": 100, "overhead_ns": [int(4e6)], "engine_ms": 400.0 + i, "call_ms": 300.0}})
t = ic.all_targets(ic.summarise(rc))
lean = [(w, ok) for w, _, ok in t if "inst-lean, a candidate" in w]
check([ok for _, ok in lean] == [True, None, True], "inst-lean: 4 ms met, JAX not run, 1.09x met: %s" % lean)
check("| pytorch | inst-lean | 3 | 10.90 | 1.090 | 100 | 4.00 | 4.00 | 9.00 | 0 | 0 | 401 | 300 |"
      in ic.markdown(ic.summarise(rc), ["- synthetic"], []), "inst-lean's row with the engine's account (medians)")
check("Outside the launches' phases" not in ic.markdown(ic.summarise(rc), ["- synthetic"], []),
      "no table of what lies outside the phases when no report had it")
rc[-1]["report"].update(setup_ms=12.5, rows_ms=30.2, exit_ms=4.1, init_ms=129.1)
md = ic.markdown(ic.summarise(rc), ["- synthetic"], [])
check("| pytorch | inst-lean | 12.5 | 30.2 | 4.1 | 129.1 |" in md, "the table of what lies outside the phases")
check(ic.MODE_ENV["inst-lean"]["GPUHIER_DIAG_SASS_METRICS"] == "-smsp__sass_thread_inst_executed",
      "inst-lean drops the thread instruction count")

md = ic.markdown(ic.summarise(runs([10.0] * 3, [10.5] * 3, [12])), ["- synthetic"], [])
check("**NOT met**" in md and "| pytorch | inst | 3 |" in md, "the table")
j = os.path.join(tmp, "c.json")
json.dump({"header": ["- synthetic"], "runs": runs([10.0] * 3, [10.5] * 3, [2]), "notes": []}, open(j, "w"))
with redirect_stdout(io.StringIO()):
    rc = ic.main(["instrument_cost.py", "--reuse", j, "--out", os.path.join(tmp, "out")])
check(rc == 0 and "met" in open(os.path.join(tmp, "out", "instrument-cost.md")).read(), "main --reuse")
sys.exit(done("test_cost"))
