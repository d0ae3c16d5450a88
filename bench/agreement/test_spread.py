#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/agreement/spread_agree.py on SYNTHETIC inputs (synth.py:
a report on the real schema with made-up one-pass groups and values, ncu CSV
text in the recorded layout with made-up values): the metric classes, the
occurrence pairing of a group's launch with ncu's run of that group, gates
(a) and (b), each with a case that must fail, and the ratios that lose
their meaning when spread."""
import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from checks import check, done  # noqa: E402
import spread_agree as sa  # noqa: E402
import synth  # noqa: E402

INST, SECT = "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
DRAM, HIT, MISS = "dram__bytes_read.sum", "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum"
WAVE, DUR = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "gpu__time_duration.sum"

# classes
for m in (INST, SECT, WAVE, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "smsp__inst_executed_op_local_st.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "lts__t_sectors_op_atom.sum"):
    check(sa.code_only(m), "%s is code-only" % m)
for m in (DRAM, HIT, MISS, "lts__t_sectors_aperture_sysmem.sum", "sm__cycles_active.avg",
          "sm__warps_active.avg.pct_of_peak_sustained_active", "l1tex__t_sector_hit_rate.pct",
          "lts__t_sectors_srcunit_tex.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum", DUR,
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"):
    check(not sa.code_only(m), "%s is not code-only" % m)
check(sa.group_of("group2/6") == (2, 6) and sa.group_of("core") is None, "group_of")

# a report: kernel k launched 3 times (groups 1, 2, 3 spread), kernel j once
# (group 1), an unprofiled launch of another grid of k between them
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "prog.spread.db")
r = synth.Report(path)
r.launch("_Z1kv", reason="skip_count")  # inside --launch-skip: not in the window
r.profiled("_Z1kv", "group1/3", {INST: 1000, SECT: 4000, DRAM: 128000, DUR: 5000})
r.launch("_Z1kv", grid=(2, 1, 1))
r.profiled("_Z1jv", "group1/3", {INST: 50, SECT: 10, DRAM: 320, DUR: 900})
r.profiled("_Z1kv", "group2/3", {INST: 1000, WAVE: 64, HIT: 900, DUR: 5100})
r.profiled("_Z1kv", "group3/3", {INST: 1000, MISS: 3100, DUR: 5050})
r.close()
ours, groups = sa.read_spread(path)
check(len(ours) == 4, "four spread profiles: %d" % len(ours))
check([(o["mangled"], o["occ"], o["group"]) for o in ours] ==
      [("_Z1kv", 0, 1), ("_Z1jv", 0, 1), ("_Z1kv", 1, 2), ("_Z1kv", 2, 3)],
      "occurrences per (kernel, grid, block), the other grid and the skipped launch apart: %s"
      % [(o["mangled"], o["occ"], o["group"]) for o in ours])
check([o["pos"] for o in ours] == [0, 2, 3, 4], "window positions (the ncu window is 5 launches)")
check(groups[1] == sorted([INST, SECT, DRAM, DUR]) and HIT in groups[2] and MISS in groups[3], "groups read")

K, J, K2 = ("_Z1kv", "(32, 1, 1)", "(1, 1, 1)"), ("_Z1jv", "(32, 1, 1)", "(1, 1, 1)"), ("_Z1kv", "(32, 1, 1)", "(2, 1, 1)")


def ncu_run(names, per_launch):
    """per_launch: the values of k's three launches and j's one, window order k, k2, j, k, k."""
    k0, j0, k1, k2 = per_launch
    return synth.ncu_text([K + (k0,), K2 + ({n: 1 for n in names},), J + (j0,), K + (k1,), K + (k2,)], names)


def runs_for(g1, g2, g3):
    """{K: [run1, run2]} from values per group: (k0, j0, k1, k2) per run."""
    out = {}
    for k, vals in ((1, g1), (2, g2), (3, g3)):
        names = groups[k]
        out[k] = [sa.ncu_csv.parse(ncu_run(names, v)) for v in vals]
    return out


def launch_vals(names, base):
    return {n: base.get(n, 0) for n in names}


g1 = {INST: 1000, SECT: 4000, DRAM: 128000, DUR: 5000}
j1 = {INST: 50, SECT: 10, DRAM: 320, DUR: 900}
g2 = {INST: 1000, WAVE: 64, HIT: 900, DUR: 5100}
g3 = {INST: 1000, MISS: 3100, DUR: 5050}


def build(g1_runs, g2_runs, g3_runs):
    return runs_for(g1_runs, g2_runs, g3_runs)


def quad(names, kvals, occ):
    """ncu launches (k0, j0, k1, k2) with kvals at k's occurrence occ, the others filler."""
    filler = {n: 7 for n in names}
    q = [dict(filler), launch_vals(names, j1), dict(filler), dict(filler)]
    q[{0: 0, 1: 2, 2: 3}[occ]] = launch_vals(names, kvals)
    return tuple(q)


def make(g1a, g1b, g2a, g2b, g3a, g3b):
    return build([quad(groups[1], g1a, 0), quad(groups[1], g1b, 0)],
                 [quad(groups[2], g2a, 1), quad(groups[2], g2b, 1)],
                 [quad(groups[3], g3a, 2), quad(groups[3], g3b, 2)])


comps, unmatched = sa.compare_spread("prog", ours, make(g1, g1, g2, g2, g3, g3))
check(unmatched == 0, "every spread launch paired (%d unmatched)" % unmatched)
shown = [c for c in comps if c.get("shown")]
comps = [c for c in comps if not c.get("shown")]
check(len(comps) == 6 + 3 + 2, "values: group 1 on k and j (3 each), group 2 (3), group 3 (2): %d" % len(comps))
check(all(c["ok1"] and c["ok2"] and c["self_ok"] for c in comps), "identical: all agree")
check({c["group"] for c in comps} == {1, 2, 3} and not any(c["metric"] == DUR for c in comps),
      "all three groups compared, durations not among the gated values")
check(shown and all(c["metric"] == DUR for c in shown), "durations shown beside them: %s" % shown)
wrong = [dict(c, gpuhier=2 * c["gpuhier"]) for c in shown]
check(sa.gates(comps + wrong)[:4] == sa.gates(comps)[:4], "a duration twice ncu's changes no gate")
md = sa.markdown(comps + shown, [], {}, [])
check("| gpuhier ns |" in md and "2.000" in sa.markdown(comps + wrong, [], {}, []),
      "the markdown's durations table, with the ratio to ncu's run 1")
check(any(c["metric"] == HIT and c["gpuhier"] == 900 and c["ncu1"] == 900 for c in comps),
      "group 2's launch compared with ncu's group-2 run at occurrence 1 (not its filler launches)")
a_ok, a_miss, a_n, b_ok, b = sa.gates(comps)
check(a_ok and b_ok and a_miss == 0 and a_n > 0, "both gates met")

# gate (a) fails: ncu's warp instructions 2 % off on group 3's launch
c_a, _ = sa.compare_spread("prog", ours, make(g1, g1, g2, g2, dict(g3, **{INST: 1020}), dict(g3, **{INST: 1020})))
a_ok, a_miss, _, b_ok, _ = sa.gates(c_a)
check(not a_ok and a_miss == 1 and b_ok, "gate (a): one code-only miss fails it (must fail)")

# gate (b) holds: DRAM 5 % off against ncu, and ncu's two runs 5 % apart
c_b, _ = sa.compare_spread("prog", ours, make(dict(g1, **{DRAM: 134400}), g1, g2, g2, g3, g3))
a_ok, _, _, b_ok, b = sa.gates(c_b)
check(a_ok and b_ok, "gate (b): gpuhier misses ncu no more than ncu misses itself: %s" % b)
# gate (b) fails: L2 misses 5 % off in both ncu runs, which agree with each other
c_b2, _ = sa.compare_spread("prog", ours, make(g1, g1, g2, g2, dict(g3, **{MISS: 3255}), dict(g3, **{MISS: 3255})))
a_ok, _, _, b_ok, b = sa.gates(c_b2)
check(a_ok and not b_ok and any(x[0] == MISS and x[1] == 2 and x[2] == 0 for x in b),
      "gate (b): state misses while ncu agrees with itself fail it (must fail): %s" % b)
check(not sa.gates([])[0], "gate (a) not met on nothing")
no_r2 = [dict((k, v) for k, v in c.items() if k not in ("ok2", "self_ok", "ncu2")) for c in c_b2]
check(sa.gates(no_r2)[4] == [], "without ncu's run 2, gate (b) has nothing to judge (not a pass by default)")
md = sa.markdown(no_r2, [{"program": "prog"}], groups, ["- synthetic"])
check("nothing compared" in md, "and the table says so")

# a launch ncu's run of that group does not hold is unmatched, not paired with another occurrence
c_s, unm = sa.compare_spread("prog", ours, {k: [sa.ncu_csv.parse(synth.ncu_text(
    [K + (q[0],), K2 + ({n: 1 for n in groups[k]},), J + (q[1],), K + (q[2],)] + ([K + (q[3],)] if len(q) > 3 else []),
    groups[k])) for q in qs] for k, qs in ((1, [quad(groups[1], g1, 0)] * 2), (2, [quad(groups[2], g2, 1)] * 2),
                                          (3, [tuple(list(quad(groups[3], g3, 2))[:3])] * 2))})
check(unm == 1 and not any(c["group"] == 3 for c in c_s), "group 3's launch unmatched when ncu stopped before it")

# spread losses: the L2 hit rate (hits in group 2, misses in group 3); sectors per instruction stay in group 1
losses = sa.spread_losses(groups)
check([l[0] for l in losses] == ["L2 hit rate", "L2 hit sectors against DRAM bytes read",
                                 "L2 miss sectors against DRAM bytes read"],
      "the L2 hit rate and the L2 counters against DRAM bytes lose their meaning: %s" % [l[0] for l in losses])
check(dict(losses)["L2 hit rate"] == {HIT: 2, MISS: 3}, "each part's group named")
check(sa.spread_losses({1: [HIT, MISS]}) == [], "both parts in one group: nothing lost")
md = sa.markdown(c_b2, [{"program": "prog"}], groups, ["- synthetic"])
check("NOT met" in md and "L2 hit rate" in md, "the table says gate (b) failed and names the L2 hit rate")

# main --reuse: exit 0 when both gates hold, 1 when one does not
for label, runs, want in (("ok", make(g1, g1, g2, g2, g3, g3), 0),
                          ("bad", make(g1, g1, g2, g2, dict(g3, **{INST: 1020}), dict(g3, **{INST: 1020})), 1)):
    d = os.path.join(tmp, label)
    os.makedirs(d)
    os.link(path, os.path.join(d, "prog.spread.db"))
    texts = {1: [quad(groups[1], g1, 0)] * 2, 2: [quad(groups[2], g2, 1)] * 2}
    texts[3] = [quad(groups[3], g3 if want == 0 else dict(g3, **{INST: 1020}), 2)] * 2
    for k, qs in texts.items():
        for i, q in enumerate(qs):
            open(os.path.join(d, "prog.g%d.r%d.ncu.csv" % (k, i + 1)), "w").write(ncu_run(groups[k], q))
    with redirect_stdout(io.StringIO()):
        rc = sa.main(["spread_agree.py", "--reuse", d, "--out", os.path.join(d, "out")])
    check(rc == want, "main --reuse %s: exit %d, want %d" % (label, rc, want))

# the live path with a fake gpuhier (writes the report above) and a fake ncu (SYNTHETIC):
# one ncu run per group and repeat, each on the window up to the last spread launch
import time  # noqa: E402
fake = os.path.join(tmp, "fake")
os.makedirs(fake)
gh, ncu, argslog = os.path.join(fake, "gpuhier"), os.path.join(fake, "ncu"), os.path.join(fake, "args")
ghlog = os.path.join(fake, "gh-args")
open(gh, "w").write("#!%s\nimport shutil, sys\na = sys.argv\nassert '--launch-count' not in a\n"
                    "open(%r, 'a').write(' '.join(a[1:]) + '\\n')\n"
                    "shutil.copy(%r, a[a.index('-o') + 1])\n" % (sys.executable, ghlog, path))
open(ncu, "w").write("""#!%s
import sys
sys.path.insert(0, %r)
import synth
a = sys.argv
open(%r, "a").write(" ".join(a[1:]) + "\\n")
names = a[a.index("--metrics") + 1].split(",")
v = {}
for d in (%r, %r, %r):
    v.update(d)
k = ("_Z1kv", "(32, 1, 1)", "(1, 1, 1)")
print(synth.ncu_text([k + (v,), ("_Z1kv", "(32, 1, 1)", "(2, 1, 1)", {}), ("_Z1jv", "(32, 1, 1)", "(1, 1, 1)", %r),
                      k + (v,), k + (v,)], names))
""" % (sys.executable, here, argslog, g1, g2, g3, j1))
os.chmod(gh, 0o755)
os.chmod(ncu, 0o755)
sa.agree_run.NCU = ncu
live = os.path.join(tmp, "live")
os.makedirs(live)
comps_l, info, groups_l = sa.one_program("p", ["/bin/true"], gh, live, 0, 200, time.monotonic() + 60)
calls = open(argslog).read().splitlines()
check(len(calls) == 6 and info["ncu_runs"] == 6, "three groups, two runs each: %d calls" % len(calls))
check(all("--launch-count 5" in c for c in calls), "ncu's window is the 5 launches up to the last spread one")
check(sorted(calls[0].split("--metrics ")[1].split()[0].split(",")) == groups[1], "run 1 of group 1 first, its names")
g = sa.gates(comps_l)
check(g[0] and g[3] and g[4] and info["unmatched"] == 0, "the live path's gates: %s" % (g[:4],))
check(all("--cache-control none" in c for c in calls) and "--cache-control" not in open(ghlog).read(),
      "by default ncu runs with --cache-control none and gpuhier with its default (none)")
# --cache-control all: both tools flush the L2 before each profiled launch
os.remove(argslog)
os.remove(ghlog)
live2 = os.path.join(tmp, "live2")
os.makedirs(live2)
sa.one_program("p", ["/bin/true"], gh, live2, 0, 200, time.monotonic() + 60, cache="all")
calls = open(argslog).read().splitlines()
check(len(calls) == 6 and all("--cache-control all" in c for c in calls), "cache all: every ncu run flushes")
check(open(ghlog).read().split(" -- ")[0].endswith("--cache-control all"), "cache all: gpuhier run flushes too: %s"
      % open(ghlog).read().strip())

# --rejudge: a recording that judged the hardware's bank conflicts code-only
# (as the run of 2026-12-04 did) is judged again with today's classes, on
# made-up values: the conflict miss leaves gate (a) and counts in gate (b)
BANK = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
rec = {"infos": [{"program": "p", "notes": [], "gpuhier_rc": 0, "spread": 2, "groups": "1,2", "ncu_runs": 4,
                  "ncu_passes": "1", "unmatched": 0, "values": 2}], "groups": {"1": [INST], "2": [BANK]},
       "gates": [False, 1, 2, True, []],
       "comparisons": [
           {"program": "p", "kernel": "k", "occ": 1, "group": 1, "metric": INST, "gpuhier": 100.0, "ncu1": 100.0,
            "ncu2": 100.0, "code_only": True, "ok1": True, "diff1": 0.0, "ok2": True, "self_ok": True},
           {"program": "p", "kernel": "k", "occ": 2, "group": 2, "metric": BANK, "gpuhier": 1000.0, "ncu1": 1100.0,
            "ncu2": 1040.0, "code_only": True, "ok1": False, "diff1": -9.1, "ok2": True, "self_ok": False}]}
rpath = os.path.join(tmp, "recorded.json")
json.dump(rec, open(rpath, "w"))
rout = os.path.join(tmp, "rejudged")
rc = sa.main(["spread_agree.py", "--rejudge", rpath, "--out", rout])
rj = json.load(open(os.path.join(rout, "spread-agree.json")))
check(rj["moved"] == [BANK], "rejudge names the moved metric: %s" % rj["moved"])
check(rj["gates"][0] and rj["gates"][1] == 0 and rj["gates"][2] == 1, "gate (a) over the one code-only value: %s"
      % (rj["gates"][:3],))
check([b[0] for b in rj["gates"][4]] == [BANK] and rj["gates"][3], "the conflicts judged in gate (b), within "
      "ncu's own misses: %s" % (rj["gates"][4],))
check(rc == 0, "rejudge exit status 0 when both gates hold: %d" % rc)
check("Re-judged from" in open(os.path.join(rout, "spread-agree.md")).read(), "the table says it is re-judged")
rec["comparisons"][1]["self_ok"] = True  # ncu agreed with itself: gpuhier's miss is now over gate (b)
json.dump(rec, open(rpath, "w"))
check(sa.main(["spread_agree.py", "--rejudge", rpath, "--out", rout]) == 1, "a conflict miss ncu does not share "
      "fails gate (b)")
sys.exit(done("test_spread"))
