#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/agreement/inst_agree.py on SYNTHETIC inputs (synth.py:
reports on the real schema with made-up counts, ncu CSV text in the
recorded layout with made-up values): the metric names asked of ncu, the
parser, the per-launch sums, the pairing and the +-0.5 % gate, each with a
case that must fail."""
import io
import os
import re
import sys
import tempfile
from contextlib import redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from checks import check, done  # noqa: E402
import inst_agree as ia  # noqa: E402
import synth  # noqa: E402

G, GI = "smsp__sass_sectors_mem_global", "smsp__sass_sectors_mem_global_ideal"
W, WI = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"
LL = "smsp__sass_inst_executed_op_local_ld"

# names: every metric the collector counts maps to an ncu name; the .sum
# ones are GH100 names, the ideals are not (so they go by source counters)
engine = open(os.path.join(synth.ROOT, "collector", "engine_sass.c")).read()
block = engine[engine.index("sass_metrics[] = {"):]
collected = re.findall(r'"(smsp__sass_[a-z0-9_]+)"', block[: block.index("};")])
check(len(collected) >= 20, "engine_sass.c's list read (%d names)" % len(collected))
for n in collected:
    check(ia.ncu_candidates(n), "%s has an ncu name" % n)
check(list(ia.COLLECTED) == collected, "COLLECTED is engine_sass.c's list")
for n in ia.REFUSED:
    check(n not in collected, "%s, which the H200 refuses, is not asked for" % n)
ref = os.path.join(synth.ROOT, "..", "shared", "reference", "gh100-metrics.txt")
if os.path.exists(ref):
    valid = {l.split()[0] for l in open(ref) if l.strip() and not l.startswith(("-", " "))}
    for n in ia.RANGE_VALID:
        check(n in valid, "%s is a GH100 metric (gh100-metrics.txt)" % n)
    for n in ia.SOURCE_IDEAL:
        check(n not in valid, "%s is not in gh100-metrics.txt (asked by its source-counter name)" % n)
else:
    print("note: ../shared/reference/gh100-metrics.txt absent, names not checked against it")
lst = ia.ncu_metric_list([G, GI, W, WI, LL])
check(lst == [G + ".sum", "memory_l2_theoretical_sectors_global_ideal", W + ".sum",
              "memory_l1_wavefronts_shared_ideal", LL + ".sum"], "ncu --metrics list: %s" % lst)
check(ia.ncu_metric_list([G, GI], with_source=False) == [G + ".sum"], "without source counters: ideal left out")
check(ia.ncu_metric_list(["smsp__sass_made_up"]) == [], "an unknown name is not asked")

# parser: source-counter columns (no '__') kept, instance lists summed, separators
cols = [G + ".sum", "memory_l2_theoretical_sectors_global_ideal", W + ".sum", "memory_l1_wavefronts_shared_ideal"]
text = synth.ncu_text([("_Z4copyPfi", "(256, 1, 1)", "(64, 1, 1)",
                        {G + ".sum": 8388608, "memory_l2_theoretical_sectors_global_ideal": "1,000;2,000;1,194,304",
                         W + ".sum": 0, "memory_l1_wavefronts_shared_ideal": 0})], cols)
t = ia.parse_ncu(text)
check(len(t) == 1, "one launch parsed")
check(t[0]["metrics"].get(G + ".sum") == 8388608.0, "a .sum column with separators")
check(t[0]["metrics"].get("memory_l2_theoretical_sectors_global_ideal") == 1197304.0,
      "an instanced source counter summed: %s" % t[0]["metrics"].get("memory_l2_theoretical_sectors_global_ideal"))
check(ia.ncu_value(GI, t[0]["metrics"]) == (1197304.0, "memory_l2_theoretical_sectors_global_ideal"),
      "the ideal found under its source-counter name")
check(ia.ncu_value("smsp__sass_inst_executed", t[0]["metrics"]) == (None, None), "absent: None")
check(ia.parse_ncu("==ERROR== Failed to find metric memory_l1_wavefronts_shared_ideal\n") == [],
      "ncu's refusal parses to no launches (the run is repeated without source names)")

# gate: exact counts, +-0.5 %
check(ia.gate(1000, 1000)[0], "equal")
check(ia.gate(1004, 1000)[0], "0.4 % inside")
check(not ia.gate(1006, 1000)[0], "0.6 % outside (must fail)")
check(not ia.gate(994, 1000)[0], "-0.6 % outside (must fail)")
check(ia.gate(0, 0) == (True, 0.0), "both zero agree")
check(not ia.gate(1, 0)[0], "ncu zero, gpuhier not: a miss (must fail)")

# reports: per-launch sums over pcs, zero when no row, graph rows left out
tmp = tempfile.mkdtemp()
r = synth.Report(os.path.join(tmp, "prog.inst.db"))
r.instrumented("_Z4copyPfi", {G: [4194304, 4194304], GI: [1000000, 194304], LL: [0, 0]}, (64, 1, 1), (256, 1, 1))
r.instrumented("_Z4copyPfi", {G: [8388608], GI: [1194304]}, (64, 1, 1), (256, 1, 1))
r.instrumented("_Z5graphv", {G: [5]}, graph_corr=99)
r.instrumented("_Z4runsv", {G: [0, 0, 0, 0, 7]}, runs={"smsp__sass_inst_executed": [3, 3, 3, 0, 5, 5]})
# schema version 4: pc 0's global loads (bit 0) and pc 1's ideal (bit 13) implied, pc 2 with no executed count
r.instrumented("_Z7impliedv", {G: [0, 12, 4], GI: [0, 0, 0], "smsp__sass_inst_executed_op_global_ld": [0, 2, 0]},
               runs={"smsp__sass_inst_executed": [6, 6]}, implied=[1, 8192 | 1, 1])
r.close()
ours, names = ia.read_inst(os.path.join(tmp, "prog.inst.db"))
check(len(ours) == 4, "four stream launches (the graph row left out): %d" % len(ours))
check(ours[2]["metrics"]["smsp__sass_inst_executed"] == 19.0 and ours[2]["metrics"][G] == 7.0,
      "runs (schema version 3) summed over their instructions: %s" % ours[2]["metrics"])
check(ours[3]["metrics"]["smsp__sass_inst_executed_op_global_ld"] == 6 + 2 + 6 + 0
      and ours[3]["metrics"][GI] == 12.0 and ours[3]["metrics"][G] == 16.0,
      "implied counts (schema version 4) added from their base at each pc: %s" % ours[3]["metrics"])
# schema version 5: a mask row carries its instruction's global sectors (k 1) or shared wavefronts (k 2)
r5 = synth.Report(os.path.join(tmp, "prog5.inst.db"))
W = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
r5.instrumented("_Z7carriedv", {G: [0, 0, 3]}, runs={"smsp__sass_inst_executed": [6, 6, 6]},
                implied=[1 | 8192 | 1 << 15 | 12 << 17, 4 | 2 << 15 | 5 << 17, 1])
r5.close()
v5 = ia.read_inst(os.path.join(tmp, "prog5.inst.db"))[0][0]["metrics"]
check(v5[G] == 15 and v5[GI] == 12 and v5["smsp__sass_inst_executed_op_global_ld"] == 12 and v5[W] == 5
      and v5["smsp__sass_inst_executed_op_shared_ld"] == 6,
      "counts a mask carries (schema version 5) read out of its value: %s" % v5)
ours = ours[:2]
check(ours[0]["metrics"][G] == 8388608.0 and ours[0]["metrics"][GI] == 1194304.0, "sums over pcs")
check(ours[1]["metrics"].get(LL) == 0.0, "a metric without rows reads 0")
check(ours[0]["mangled"] == "_Z4copyPfi" and ours[0]["key"][1] == (64, 1, 1), "name and grid")

# the whole comparison: ncu agreeing on the first launch, off by 1 % on the second's ideal
launch = {G + ".sum": 8388608, "memory_l2_theoretical_sectors_global_ideal": 1194304,
          LL + ".sum": 0}
text_ok = synth.ncu_text([("_Z4copyPfi", "(256, 1, 1)", "(64, 1, 1)", launch)] * 2, list(launch))
comps, unmatched, missing = ia.compare_launches("prog", ours, ia.parse_ncu(text_ok), names)
check(unmatched == 0 and len(comps) == 6 and set(missing) == set(ia.COLLECTED) - {G, GI, LL},
      "6 values on 2 pairs (%d, %d unmatched)" % (len(comps), unmatched))
check(all(c["ok"] for c in comps), "all agree")
check(ia.verdict(comps, [])[0], "verdict met")
bad = dict(launch, **{"memory_l2_theoretical_sectors_global_ideal": 1182361})  # 1 % less
text_bad = synth.ncu_text([("_Z4copyPfi", "(256, 1, 1)", "(64, 1, 1)", launch),
                           ("_Z4copyPfi", "(256, 1, 1)", "(64, 1, 1)", bad)], list(launch))
comps_bad, _, _ = ia.compare_launches("prog", ours, ia.parse_ncu(text_bad), names)
check([c["metric"] for c in comps_bad if not c["ok"]] == [GI], "the 1 % ideal is the one miss (must fail)")
check(not ia.verdict(comps_bad, [])[0], "verdict not met on a miss")
only_inst = [dict(c, metric="smsp__sass_inst_executed") for c in comps]
check(not ia.verdict(only_inst, [])[0], "verdict not met without any pattern metric")
check(not ia.verdict([], [])[0], "verdict not met on nothing")
_, _, missing = ia.compare_launches("prog", ours, ia.parse_ncu(synth.ncu_text(
    [("_Z4copyPfi", "(256, 1, 1)", "(64, 1, 1)", {G + ".sum": 8388608})] * 2, [G + ".sum"])), names)
check(GI in missing, "an ideal ncu did not give is listed as not compared")
other = synth.ncu_text([("_Z5otherv", "(256, 1, 1)", "(64, 1, 1)", launch)] * 2, list(launch))
comps_o, unm, _ = ia.compare_launches("prog", ours, ia.parse_ncu(other), names)
check(not comps_o and unm == 2, "another kernel is never paired")
md = ia.markdown(comps_bad, [{"program": "prog", "values": 6, "misses": 1}], ["- synthetic"])
check("NOT met" in md and "`%s`" % GI in md, "the table shows the miss")

# main --reuse: exit 0 on the agreeing folder, 1 on the failing one
for label, text, want in (("ok", text_ok, 0), ("bad", text_bad, 1)):
    d = os.path.join(tmp, label)
    os.makedirs(d)
    os.link(os.path.join(tmp, "prog.inst.db"), os.path.join(d, "prog.inst.db"))
    open(os.path.join(d, "prog.ncu.csv"), "w").write(text)
    with redirect_stdout(io.StringIO()):
        rc = ia.main(["inst_agree.py", "--reuse", d, "--out", os.path.join(d, "out")])
    check(rc == want, "main --reuse %s: exit %d, want %d" % (label, rc, want))
    check(os.path.exists(os.path.join(d, "out", "inst-agree.md")), "inst-agree.md written")

# --rejudge: a recorded run judged again over COLLECTED, the same values (SYNTHETIC recording)
BT = "smsp__sass_branch_targets"
rec = {"verdict": [False, "1 of 3 values outside +-0.5 %"],
       "infos": [{"program": "prog", "pairs": 1, "values": 3, "misses": 1,
                  "not_compared": {BT: "x", WI: "y"}},
                 {"program": "later", "notes": ["skipped: budget (110 s) spent"]}],
       "comparisons": [dict(c, metric=m, ok=ok) for c in comps[:1]
                       for m, ok in ((G, True), (GI, True), (BT, False))]}
rc_comps, rc_infos, dropped = ia.rejudge(rec)
check(dropped == {BT: 1} and [c["metric"] for c in rc_comps] == [G, GI], "the refused metric's value left out")
check(rc_infos[0]["values"] == 2 and rc_infos[0]["misses"] == 0 and rc_infos[0]["pairs"] == 1,
      "the program's values and misses counted again: %s" % rc_infos[0])
check(rc_infos[0]["not_compared"] == {WI: "y"}, "not_compared keeps the collected metrics only")
check("values" not in rc_infos[1], "a skipped program stays skipped")
check(ia.verdict(rc_comps, rc_infos)[0], "the re-judged run meets the gate")
import gzip  # noqa: E402
import json  # noqa: E402
for label, r, want in (("ok", rec, 0),
                       ("bad", dict(rec, comparisons=rec["comparisons"] + [dict(comps[0], metric=GI, ok=False)]), 1),
                       ("none", dict(rec, comparisons=[dict(comps[0], metric=BT)]), 2)):
    path = os.path.join(tmp, "rec-%s.json.gz" % label)
    with gzip.open(path, "wt") as f:
        json.dump(r, f)
    with redirect_stdout(io.StringIO()):
        rc = ia.main(["inst_agree.py", "--rejudge", path, "--out", os.path.join(tmp, "rj-" + label)])
    check(rc == want, "main --rejudge %s: exit %d, want %d" % (label, rc, want))
md = open(os.path.join(tmp, "rj-ok", "inst-agree.md")).read()
check("no new measurement" in md and "`%s` (1 values)" % BT in md and "**Gate (+-0.5 % on every value): met**" in md,
      "the re-judged table says what it is and what it left out")

# the live path with a fake gpuhier and a fake ncu (SYNTHETIC programs): ncu refuses the
# source-counter names, then gives the ideals under --section SourceCounters
fake = os.path.join(tmp, "fake")
os.makedirs(fake)
gh = os.path.join(fake, "gpuhier")
open(gh, "w").write("""#!%s
import os, sys
sys.path.insert(0, %r)
import synth
a = sys.argv
assert os.environ.get("GPUHIER_INSTRUMENT") == "1" and "--sample" in a
r = synth.Report(a[a.index("-o") + 1])
r.instrumented("_Z4copyPfi", {%r: [8388608], %r: [1194304]}, (64, 1, 1), (256, 1, 1))
r.instrumented("_Z4copyPfi", {}, (64, 1, 1), (256, 1, 1))
r.close()
""" % (sys.executable, here, G, GI))
ncu = os.path.join(fake, "ncu")
open(ncu, "w").write("""#!%s
import sys
sys.path.insert(0, %r)
import synth
a = sys.argv
names = a[a.index("--metrics") + 1].split(",")
if any(n.startswith("memory_") for n in names):
    print("==ERROR== Failed to find metric memory_l2_theoretical_sectors_global_ideal")
    sys.exit(1)
if "--section" in a:
    names.append("memory_l2_theoretical_sectors_global_ideal")
v = {%r: 8388608, "memory_l2_theoretical_sectors_global_ideal": "1194304;0"}
print(synth.ncu_text([("_Z4copyPfi", "(256, 1, 1)", "(64, 1, 1)", {n: v.get(n, 0) for n in names})] * 2, names))
""" % (sys.executable, here, G + ".sum"))
os.chmod(gh, 0o755)
os.chmod(ncu, 0o755)
ia.agree_run.NCU = ncu
live = os.path.join(tmp, "live")
os.makedirs(live)
import time  # noqa: E402
comps, info = ia.one_program("copy prog", ["/bin/true"], gh, live, 0, 60, time.monotonic() + 60)
check(info.get("ncu_ideals") == "section", "the ideals came by --section SourceCounters: %s" % info)
check(any("no rows" in n for n in info["notes"]), "the refusal is noted")
check(info["instrumented"] == 2 and info["empty"] == 1 and any("without any count" in n for n in info["notes"]),
      "a launch the engine got nothing for is counted and noted")
first = [c for c in comps if c["index"] == 0]
check(any(c["metric"] == GI and c["ok"] and c["ncu_name"] == "memory_l2_theoretical_sectors_global_ideal"
          for c in first), "the ideal compared on the first launch")
check(any(c["metric"] == G and not c["ok"] for c in comps if c["index"] == 1),
      "the empty launch misses ncu's sectors (must fail)")
check(os.path.exists(os.path.join(live, "copy_prog.ncu.csv")), "ncu's output kept under the program's safe name")
sys.exit(done("test_inst"))
