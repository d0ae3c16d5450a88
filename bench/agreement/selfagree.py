#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/agreement/selfagree.py RUN1 RUN2 [OUT.md]: each tool against itself.

RUN1 and RUN2 are two folders written by `bench/agreement.sh` with the same
AGREE_PARTS=agree-tk (or a folder's tk/ inside them): the same programs and
launch windows, run twice, each time under gpuhier and under ncu. The
script applies issue 3's tolerances (compare.py: counters +-1 %, rates +-2
points) to four comparisons of the same launches:

  gpuhier against ncu in run 1 and in run 2   (what t160 gates)
  ncu run 2 against ncu run 1                 (Nsight Compute against itself)
  gpuhier run 2 against gpuhier run 1         (gpuhier against itself)

and a fifth view: a gpuhier value "inside ncu's band" lies between ncu's two
values of that launch, widened by the tolerance. Last, the two gates
docs/agreement.md proposes instead (candidate_gates), computed, not applied. Where ncu misses itself,
no tool can meet the gate on that value; the band says whether gpuhier is
as close to ncu as ncu is to itself.

Launches of one program are paired across runs by their order (both runs
profile the same launch window); a pair whose exact counts (run.SAME_LAUNCH)
differ is left out and counted. Prints a Markdown table per metric and the
totals; writes it to OUT.md too when given. Exit status 0; 2 on bad input.
"""
import glob
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import compare  # noqa: E402
import ncu_csv  # noqa: E402
import run  # noqa: E402

VIEWS = ("gpuhier-ncu run 1", "gpuhier-ncu run 2", "ncu-ncu", "gpuhier-gpuhier",
         "gpuhier outside ncu's band")


def same_work(a, b):
    """Two launches did the same work: their exact counts are equal."""
    return not any(k in a and k in b and a[k] != b[k] for k in run.SAME_LAUNCH)


def in_band(metric, value, lo, hi):
    """value within [min(lo, hi), max(lo, hi)] widened by the tolerance."""
    lo, hi = min(lo, hi), max(lo, hi)
    return compare.agree(metric, value, lo)[0] or compare.agree(metric, value, hi)[0] or lo <= value <= hi


def tally(counts, metric, view, ok):
    c = counts.setdefault(metric, {v: [0, 0] for v in VIEWS})
    c[view][0] += 0 if ok else 1
    c[view][1] += 1


def against_itself(counts, names, view, run1, run2):
    """One tool's second run against its first, launch by launch; returns
    the launches left out (not the same work)."""
    left_out = 0
    for a, b in zip(run1, run2):
        if not same_work(a["metrics"], b["metrics"]):
            left_out += 1
            continue
        for n in names:
            if n in a["metrics"] and n in b["metrics"]:
                tally(counts, n, view, compare.agree(n, b["metrics"][n], a["metrics"][n])[0])
    return left_out


def compare_program(counts, names, ours1, theirs1, ours2, theirs2):
    """Adds one program's launches to counts; returns the launches left out
    (not the same work in both runs, or missing in one)."""
    left_out = abs(len(theirs1) - len(theirs2)) + abs(len(ours1) - len(ours2))
    left_out += against_itself(counts, names, "ncu-ncu", theirs1, theirs2)
    left_out += against_itself(counts, names, "gpuhier-gpuhier", ours1, ours2)
    # ncu's other run of the same launch (same position), for the band
    other = {id(t1): t2 for t1, t2 in zip(theirs1, theirs2) if same_work(t1["metrics"], t2["metrics"])}
    for r, (ours, theirs) in enumerate(((ours1, theirs1), (ours2, theirs2))):
        pairs, _ = run.pair(ours, theirs)
        for o, t in pairs:
            if not same_work(o["metrics"], t["metrics"]):
                continue
            t2 = other.get(id(t)) if r == 0 else None
            for n in names:
                if n not in o["metrics"] or n not in t["metrics"]:
                    continue
                g, v = o["metrics"][n], t["metrics"][n]
                tally(counts, n, VIEWS[r], compare.agree(n, g, v)[0])
                if t2 is not None and n in t2["metrics"]:
                    tally(counts, n, VIEWS[4], in_band(n, g, v, t2["metrics"][n]))
    return left_out


def candidate_gates(counts):
    """The two gates docs/agreement.md proposes to the issue's author, on
    gpuhier against ncu in both runs (tolerances unchanged):
    (a) only the metrics ncu reproduces against itself (0 ncu-ncu misses)
        are gated: returns the misses left on them;
    (b) per metric, gpuhier may miss ncu no more often than ncu misses
        itself: returns the metrics that miss more often.
    Returns (a_misses, a_values, [(metric, gpuhier-ncu misses, ncu-ncu misses)])."""
    a_miss = a_vals = 0
    b_over = []
    for m in sorted(counts):
        c = counts[m]
        ours = c[VIEWS[0]][0] + c[VIEWS[1]][0]
        ncu_self = c["ncu-ncu"][0]
        if c["ncu-ncu"][1] and ncu_self == 0:
            a_miss += ours
            a_vals += c[VIEWS[0]][1] + c[VIEWS[1]][1]
        # the two gpuhier-ncu runs against the one ncu-ncu pair: compare per run
        if ours > 2 * ncu_self:
            b_over.append((m, ours, 2 * ncu_self))
    return a_miss, a_vals, b_over


def tk_dir(d):
    return os.path.join(d, "tk") if os.path.isdir(os.path.join(d, "tk")) else d


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: selfagree.py RUN1 RUN2 [OUT.md]\n")
        return 2
    d1, d2 = tk_dir(argv[1]), tk_dir(argv[2])
    labels = sorted(os.path.basename(p)[: -len(".ncu.csv")] for p in glob.glob(os.path.join(d1, "*.ncu.csv")))
    labels = [l for l in labels if os.path.exists(os.path.join(d2, l + ".ncu.csv"))]
    if not labels:
        sys.stderr.write("selfagree: no program with ncu output in both %s and %s\n" % (d1, d2))
        return 2
    counts, left_out = {}, 0
    for label in labels:
        theirs = [ncu_csv.parse(open(os.path.join(d, label + ".ncu.csv")).read()) for d in (d1, d2)]
        ours = [run.read_reports(run.reports_of(d, label))[0] for d in (d1, d2)]
        # the names gpuhier collected (the default set), else ncu's metric columns
        names = sorted({n for o in ours[0] for n in o["metrics"]}) or sorted(
            {n for t in theirs[0] for n in t["metrics"] if "." in n})  # metrics, not attributes
        names = [n for n in names if compare.kind(n) != "time"]  # durations are not gated
        left_out += compare_program(counts, names, ours[0], theirs[0], ours[1], theirs[1])
    lines = ["| metric | " + " | ".join(VIEWS) + " |", "| --- |" + " --- |" * len(VIEWS)]
    tot = {v: [0, 0] for v in VIEWS}
    for m in sorted(counts, key=lambda m: -counts[m]["ncu-ncu"][0] - counts[m][VIEWS[0]][0]):
        c = counts[m]
        for v in VIEWS:
            tot[v][0] += c[v][0]
            tot[v][1] += c[v][1]
        if any(c[v][0] for v in VIEWS):
            lines.append("| `%s` | %s |" % (m, " | ".join("%d / %d" % tuple(c[v]) for v in VIEWS)))
    lines.append("| **all metrics** | %s |" % " | ".join("**%d** / %d" % tuple(tot[v]) for v in VIEWS))
    lines.append("")
    lines.append("Outside tolerance / values compared (metrics with no miss in any view are not listed); "
                 "%d programs; %d launches left out (not the same work in both runs, or missing in one)."
                 % (len(labels), left_out))
    a_miss, a_vals, b_over = candidate_gates(counts)
    lines.append("")
    lines.append("Candidate gates (not issue 3's; docs/agreement.md), gpuhier against ncu in both runs: "
                 "(a) only the metrics ncu reproduces against itself: %d of %d values outside tolerance; "
                 "(b) per metric no more misses than ncu against itself (twice its one pair): %s."
                 % (a_miss, a_vals, "; ".join("`%s` %d > %d" % o for o in b_over) or "met"))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if len(argv) > 3:
        with open(argv[3], "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
