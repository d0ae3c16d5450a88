#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end check of the analyzer on the testkernels (issue 5, point 6).

For each case of testkernels/manifest.json: run it under `gpuhier run`
(one report per case), analyze the report, and compare the findings with
the case's must/may lists. Every finding not listed is a false positive;
every must that is missing is a false negative. For each defect case with
a fixed twin, the analyzer's estimate of time lost (sum of the findings of
the case's must rules over the run) is set beside the saving the twin
measured (GPU time of the defect run minus that of the twin run, both from
the analyzer's run_gpu_ns: kernels plus copies). Writes Markdown to OUT.

Mode (--replay, E2E_REPLAY): `kernel` by default, since the table tests the
RULES against the manifest, and under the collector's default since issue 18
(one one-pass group per profiled launch) what a case's kernel gets depends on
how often it launches and on the later groups' budget, not on the rules; the
recorded tables were taken under kernel replay (docs/e2e-testkernels.md).
`none` gives the DEFAULT's table, with the groups each case lacks.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proc  # noqa: E402


def sh(cmd, timeout, env=None, log=None):
    rc, out, _ = proc.run(cmd, timeout, log, env)
    return rc, out


EXTRA_SETS = ("tma", "requests", "sass_bytes")
EVICT_FIRST = ["lts__t_sectors_srcunit_tex_evict_first.sum", "lts__t_sectors_srcunit_tex_evict_first_lookup_hit.sum"]


def extra_metrics(root):
    """The extra groups the rules use (tma, requests, sass_bytes), read from the metric
    catalogue (schema/metrics.catalogue: `metric NAME | ENGINE | SETS | ...`, SETS comma-separated),
    in its order, plus the evict-first counters stream-evicts-reused uses when present.
    Until 2026-12-01 this read the arrays of collector/metrics.c, which the catalogue
    replaced: it then found none of the groups and named only the two evict-first counters,
    so a run no longer collected what the recorded tables did (docs/e2e-testkernels.md)."""
    try:
        lines = open(os.path.join(root, "schema", "metrics.catalogue")).read().splitlines()
    except OSError:
        return []
    names = []
    for line in lines:
        f = [x.strip() for x in line.split("|")]
        if len(f) < 3 or not f[0].startswith("metric "):
            continue
        name = f[0][len("metric "):].strip()
        if set(f[2].split(",")) & set(EXTRA_SETS) and name not in names:
            names.append(name)
    return names + [n for n in EVICT_FIRST if n not in names]


def run_options(replay, metrics):
    """gpuhier run's options for a case. replay 'kernel' (the default of this script): the
    RULES' test, every configuration gets the whole core set and the named extras on its
    first launch whatever its launch count, as the recorded tables were taken; 'none': the
    DEFAULT's table, one one-pass group per profiled launch, with no extra name (a new
    user names none, and under one-pass groups every added name lands in every group,
    docs/metrics.md), so a configuration launched once has group 1 only."""
    if replay == "kernel":
        return ["--replay", "kernel"] + (["--metrics", metrics] if metrics else [])
    return ["--replay", "none"]


def groups_missing(rep, regexes):
    """The case's configurations that lack one-pass groups (v_config_groups.groups_missing):
    a list of 'kernel: missing' strings, [] when none (or no group profiles), None when the
    report cannot be read."""
    rows = case_rows(rep, regexes, "g.groups_missing FROM v_config_groups g JOIN kernel k ON k.id = g.kernel_id"
                                   " WHERE g.groups_missing IS NOT NULL")
    if rows is None:
        return None
    return sorted(set(m for (m,) in rows))


def fmt_ns(v):
    if v is None:
        return "n/a"
    a = abs(v)
    if a >= 1e9:
        return "%.2f s" % (v / 1e9)
    if a >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if a >= 1e3:
        return "%.1f us" % (v / 1e3)
    return "%.0f ns" % v


# Rules whose defect (or remedy) lives in the copies: their saving is the whole run's GPU time.
RUN_LEVEL = {"pageable-copy", "transfer-exceeds-work", "round-trip-copy", "small-copies", "host-memory-access"}


def case_rows(rep, regexes, select):
    """Rows of `SELECT <select>` (which joins the kernel table as k) on the kernels the case names
    (regexes, on the short or demangled name), without the name columns; None when the report
    cannot be read."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % rep, uri=True)
        rows = db.execute("SELECT COALESCE(k.short_name, k.demangled_name, k.mangled_name), k.demangled_name, "
                          + select).fetchall()
        db.close()
    except sqlite3.Error:
        return None
    return [r[2:] for r in rows if any(rx.search(r[0] or "") or rx.search(r[1] or "") for rx in regexes)]


def kernel_var(rep, regexes):
    """Variance of the total traced time of the case's kernels: the sum over its configurations
    of launches x the sample variance of their traced durations (ns^2); None when unknown."""
    rows = case_rows(rep, regexes, "l.config_id, l.end_ns - l.start_ns FROM launch l JOIN kernel k ON k.id = l.kernel_id"
                                   " WHERE l.start_ns IS NOT NULL AND l.end_ns IS NOT NULL")
    if rows is None:
        return None
    by = {}
    for cfg, d in rows:
        by.setdefault(cfg, []).append(d)
    var = 0.0
    for v in by.values():
        if len(v) > 1:
            m = sum(v) / len(v)
            var += len(v) * sum((x - m) ** 2 for x in v) / (len(v) - 1)
    return var


def kernel_ns(rep, regexes):
    """GPU time of the kernels the case names (regexes), ns, from the analyzed report's
    kernel_summary: the traced mean of each configuration times all its launches (the
    profiled one, whose traced duration is NULL, at that mean), the same launches the
    estimates are summed over; None when the report cannot be read."""
    rows = case_rows(rep, regexes, "s.total_ns FROM kernel_summary s JOIN kernel k ON k.id = s.kernel_id"
                                   " WHERE s.config_id IS NOT NULL")
    return None if rows is None else sum(ns or 0 for (ns,) in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reports", default="",
                    help="offline: re-analyze copies of the reports DIR/<case>.db with the current rules (no GPU)")
    ap.add_argument("--rules", default="", help="rules directory (default ROOT/rules)")
    ap.add_argument("--recorded", default="", help="offline: where and when the reports were recorded (for the text)")
    ap.add_argument("--budget", type=float, default=330.0, help="seconds for running cases")
    ap.add_argument("--reps", default=os.environ.get("TK_REPS", "10"))
    ap.add_argument("--replay", default=os.environ.get("E2E_REPLAY", "kernel"), choices=("kernel", "none"),
                    help="gpuhier run --replay: kernel (default: the rules' table, the mode the recorded tables"
                         " were taken in) or none (the default's table: one-pass groups)")
    ap.add_argument("--cases", default=os.environ.get("E2E_CASES", ""), help="comma-separated case ids (default all)")
    a = ap.parse_args()
    t_start = time.time()
    manifest = json.load(open(os.path.join(a.root, "testkernels", "manifest.json")))
    gh = os.path.join(a.build, "gpuhier")
    tkdir = os.path.join(a.build, manifest.get("binary_dir", "testkernels"))
    rules = a.rules or os.path.join(a.root, "rules")
    rep_dir = os.path.join(a.out, "reports")
    os.makedirs(rep_dir, exist_ok=True)
    log = os.path.join(a.out, "e2e-testkernels.log")
    open(log, "w").close()
    cases = manifest["cases"]
    if a.cases:
        want = set(a.cases.split(","))
        cases = [c for c in cases if c["id"] in want]
    env = dict(os.environ, TK_REPS=str(a.reps))
    metrics = os.environ.get("E2E_METRICS")
    if metrics is None:
        metrics = ",".join(extra_metrics(a.root)) if a.replay == "kernel" else ""
    mopt = run_options(a.replay, metrics)
    results = {}
    notes = []
    for c in cases:
        cid = c["id"]
        if a.reports:
            # Offline: a copy of the recorded report, analyzed again with the current rules.
            src = os.path.join(a.reports, cid + ".db")
            rep = os.path.join(rep_dir, cid + ".db")
            if not os.path.exists(src):
                results[cid] = {"status": "no recorded report"}
                continue
            if os.path.abspath(src) != os.path.abspath(rep):
                shutil.copyfile(src, rep)
            rc, out = sh([gh, "analyze", rep, "--rules", rules, "--format", "json", "--top", "0"], 60, None, log)
            try:
                d = json.loads(out[out.index("{"):])
            except ValueError:
                results[cid] = {"status": "analyze failed (exit %d)" % rc}
                continue
            results[cid] = {"status": "ok", "run_rc": 0, "data": d, "secs": 0, "rep": rep}
            continue
        if time.time() - t_start > a.budget:
            results[cid] = {"status": "not run (time budget)"}
            continue
        exe = os.path.join(tkdir, c["binary"])
        rep = os.path.join(rep_dir, cid + ".db")
        if not os.access(exe, os.X_OK):
            results[cid] = {"status": "no binary %s" % c["binary"]}
            continue
        t0 = time.time()
        rc, out = sh([gh, "run", "-q", "-f", "--no-analyze", "-o", rep] + mopt + [exe] + c["args"], 120, env, log)
        if not os.path.exists(rep):
            results[cid] = {"status": "no report (run exit %d)" % rc}
            continue
        rc2, js = sh([gh, "analyze", rep, "--rules", rules, "--format", "json", "--top", "0"], 60, None, None)
        try:
            d = json.loads(js[js.index("{"):])
        except (ValueError, json.JSONDecodeError):
            results[cid] = {"status": "analyze failed (exit %d)" % rc2, "run_rc": rc}
            with open(log, "a") as f:
                f.write(js + "\n")
            continue
        core_missing = any("dram__bytes_read.sum" in (r.get("note") or "") for r in d.get("rules", []))
        if core_missing and metrics and c["kernels"]:
            # The extra metric names may have been refused by the collector (no counters at all):
            # say so once and run this and every later case with the default set only.
            notes.append("with --metrics the report of %s had no counters; extra metrics dropped from here on" % cid)
            metrics = ""
            mopt = run_options(a.replay, metrics)
            rc, out = sh([gh, "run", "-q", "-f", "--no-analyze", "-o", rep] + mopt + [exe] + c["args"], 120, env, log)
            rc2, js = sh([gh, "analyze", rep, "--rules", rules, "--format", "json", "--top", "0"], 60, None, None)
            try:
                d = json.loads(js[js.index("{"):])
            except ValueError:
                results[cid] = {"status": "analyze failed (exit %d)" % rc2, "run_rc": rc}
                continue
        results[cid] = {"status": "ok", "run_rc": rc, "data": d, "secs": time.time() - t0, "rep": rep}
        print("%-28s run %d, %d findings, %.1f s" % (cid, rc, len(d["findings"]), time.time() - t0), flush=True)

    # Verdicts
    tp = fp = fn = 0
    fp_helper = 0           # unlisted findings on kernels the case does not name (tk_fill, ...)
    rows = []
    fp_list, fn_list = [], []
    for c in cases:
        r = results[c["id"]]
        if r["status"] != "ok":
            rows.append((c["id"], c["role"], r["status"], "", "", ""))
            fn += len(c["must"])
            fn_list += ["%s: %s (%s)" % (c["id"], m["rule"], r["status"]) for m in c["must"]]
            continue
        regex = {k["name"]: re.compile(k.get("regex") or re.escape(k["name"])) for k in c["kernels"]}

        def kname(f):
            return f.get("kernel") or f.get("kernel_demangled") or ""

        def matches(f, entry):
            if f["rule_id"] != entry["rule"]:
                return False
            if f.get("kernel_id") is None:      # run-level finding (copies): the case's rule
                return True
            rx = regex.get(entry.get("kernel"))
            return rx is None or bool(rx.search(kname(f)))
        found = r["data"]["findings"]
        listed = c["must"] + c["may"]
        got_must = []
        for m in c["must"]:
            if any(matches(f, m) for f in found):
                tp += 1
                got_must.append(m["rule"])
            else:
                fn += 1
                fn_list.append("%s: %s on %s" % (c["id"], m["rule"], m.get("kernel")))
        extra = [f for f in found if not any(matches(f, e) for e in listed)]
        fp += len(extra)
        fp_helper += sum(1 for f in extra if f.get("kernel_id") is not None
                         and not any(rx.search(kname(f)) for rx in regex.values()))
        fp_list += ["%s: %s on %s (%s, %s)" % (c["id"], f["rule_id"], kname(f) or "(run)", f["severity"],
                                              fmt_ns(f["time_lost_ns"])) for f in extra]
        gm = groups_missing(r["rep"], list(regex.values()))
        rows.append((c["id"], c["role"], ", ".join(sorted(set(f["rule_id"] for f in found))) or "-",
                     ", ".join(m["rule"] for m in c["must"]) or "-", "%d" % len(extra),
                     "unknown" if gm is None else (" / ".join(gm) or "none")))
    precision = tp / (tp + fp) if tp + fp else 1.0
    fp_named = fp - fp_helper
    precision_named = tp / (tp + fp_named) if tp + fp_named else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0

    # Estimated time lost vs the saving measured on the fixed twin
    pairs = []
    byid = {c["id"]: c for c in cases}
    for c in cases:
        tw = c.get("twin")
        if c["role"] != "defect" or not tw or tw not in results:
            continue
        r, t = results[c["id"]], results[tw]
        if r["status"] != "ok" or t["status"] != "ok":
            pairs.append((c["id"], tw, None, None, None, "not run"))
            continue
        must = set(m["rule"] for m in c["must"])
        est = sum(f["time_lost_ns"] or 0 for f in r["data"]["findings"] if f["rule_id"] in must)
        if must & RUN_LEVEL:
            # The defect is in the copies (or a copy is the remedy): the whole run's GPU time.
            run_d = (r["data"].get("analysis") or {}).get("run_gpu_ns")
            run_t = (t["data"].get("analysis") or {}).get("run_gpu_ns")
        else:
            # The twin changes the kernel only: the traced time of the case's own kernels, so
            # the harness's setup and verification copies (identical in both, but with a
            # run-to-run spread larger than many savings) do not enter the saving.
            run_d = kernel_ns(r["rep"], [re.compile(k.get("regex") or re.escape(k["name"])) for k in c["kernels"]])
            run_t = kernel_ns(t["rep"], [re.compile(k.get("regex") or re.escape(k["name"])) for k in byid[tw]["kernels"]])
        saving = run_d - run_t if run_d is not None and run_t is not None else None
        noise = None
        if not must & RUN_LEVEL:
            vd = kernel_var(r["rep"], [re.compile(k.get("regex") or re.escape(k["name"])) for k in c["kernels"]])
            vt = kernel_var(t["rep"], [re.compile(k.get("regex") or re.escape(k["name"])) for k in byid[tw]["kernels"]])
            if vd is not None and vt is not None:
                noise = 2 * (vd + vt) ** 0.5
        if not est and not saving:
            verdict = "n/a"
        elif saving is None or saving <= 0 or not est:
            verdict = "outside 2x"
        else:
            q = est / saving
            verdict = "within 2x" if 0.5 <= q <= 2 else "outside 2x"
        if noise is not None and abs(saving or 0) <= noise and (est or 0) <= noise:
            # Both the estimate and the saving are within two standard errors of the measured totals:
            # the pair cannot tell a good estimate from a bad one.
            verdict = "n/a (within noise %s)" % fmt_ns(noise)
        if c["must"] and all(m.get("severity") == "note" for m in c["must"]):
            # The manifest asks for a note: the rule gives no time estimate by design (latency not exposed).
            verdict = "n/a (note by design: no estimate)"
        if must == {"smem-optin-48k"}:
            verdict = "n/a (failed launch: no time)"
        pairs.append((c["id"], tw, est, saving, (est / saving) if saving else None, verdict))
    judged = [p for p in pairs if p[5] in ("within 2x", "outside 2x")]
    within = sum(1 for p in judged if p[5] == "within 2x")

    md = []
    md.append("# Analyzer end to end on the testkernels")
    md.append("")
    if a.reports:
        md.append("Offline re-score, %s: no GPU; copies of the reports in `%s` re-analyzed with the rules in `%s`." %
                  (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), a.reports, rules))
        if a.recorded:
            md.append("Reports recorded: %s." % a.recorded)
    else:
        md.append("Command: `bench/e2e_testkernels.sh` (TK_REPS=%s), %s." % (a.reps, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
        md.append("Extra metrics named with --metrics: `%s`." % (metrics or "none"))
        md.append("Mode: `gpuhier run --replay %s%s` (%s)." % (a.replay, " --metrics <the names above>" if metrics else "",
                  "kernel replay: every configuration gets the core set and the extras on its first launch; the rules' table"
                  if a.replay == "kernel" else
                  "the default, one one-pass group per profiled launch: a configuration launched once has group 1 only;"
                  " the per-case table's last column lists the groups each case's kernels lack (v_config_groups)"))
    md += ["Note: " + n for n in notes]
    md.append("Cases run: %d of %d; wall time %.0f s." % (sum(1 for r in results.values() if r["status"] == "ok"), len(cases), time.time() - t_start))
    md.append("")
    md.append("**Precision %.1f %%** (%d true positives, %d false positives); **recall %.1f %%** (%d false negatives)." %
              (100 * precision, tp, fp, 100 * recall, fn))
    md.append("Of the false positives, %d are on kernels the case does not name (helpers such as tk_fill); on the named kernels only, precision is %s." %
              (fp_helper, "%.1f %%" % (100 * precision_named) if tp + fp_named else "n/a"))
    md.append("Estimate within 2x of the measured saving: %d of %d judged pairs (%.0f %%; target 80 %%)." %
              (within, len(judged), 100.0 * within / len(judged) if judged else 0))
    md.append("")
    md.append("## Per case")
    md.append("")
    md.append("| case | role | rules that fired | must | unlisted findings | one-pass groups missing |")
    md.append("|---|---|---|---|---|---|")
    for row in rows:
        md.append("| %s | %s | %s | %s | %s | %s |" % row)
    md.append("")
    md.append("## False positives")
    md.append("")
    md += ["- " + x for x in fp_list] or ["none"]
    md.append("")
    md.append("## False negatives")
    md.append("")
    md += ["- " + x for x in fn_list] or ["none"]
    md.append("")
    md.append("## Estimated time lost vs saving measured on the fixed twin")
    md.append("")
    md.append("Estimate: the sum of the defect run's findings of its must rules (capped, over all traced launches).")
    md.append("Saving: for kernel defects, the GPU time of the case's own kernels (kernel_summary.total_ns of the kernels the manifest names: traced mean x all launches, as the estimates) minus the twin's;")
    md.append("for copy defects and host-memory-access (whose remedy adds a copy), the whole run's GPU time (kernels and copies, analysis.run_gpu_ns) minus the twin's.")
    md.append("Not judged: pairs whose must finding is a note by the manifest (no time estimate by design), the failed launch,")
    md.append("and kernel pairs where both the estimate and the saving are within noise: two standard errors of the difference of the")
    md.append("two runs' kernel totals (from the sample variance of their traced launch durations).")
    md.append("")
    md.append("| defect | twin | estimate | measured saving | estimate / saving | verdict |")
    md.append("|---|---|---|---|---|---|")
    for d, tw, est, sav, q, v in pairs:
        md.append("| %s | %s | %s | %s | %s | %s |" % (d, tw, fmt_ns(est), fmt_ns(sav), "%.2f" % q if q else "n/a", v))
    md.append("")
    text = "\n".join(md) + "\n"
    with open(os.path.join(a.out, "e2e-testkernels.md"), "w") as f:
        f.write(text)
    json.dump({"replay": a.replay, "precision": precision, "recall": recall, "tp": tp, "fp": fp, "fn": fn,
               "fp_on_unnamed_kernels": fp_helper, "precision_named_kernels": precision_named,
               "pairs_within_2x": within, "pairs_judged": len(judged)},
              open(os.path.join(a.out, "e2e-testkernels.json"), "w"), indent=1)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
