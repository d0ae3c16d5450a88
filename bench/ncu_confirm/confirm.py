#!/usr/bin/env python3
"""Runs every testkernels case under Nsight Compute and compares its key metric with the manifest.

usage: confirm.py MANIFEST BIN_DIR OUT_DIR [--budget SECONDS] [--ncu PATH]
Each binary runs once under ncu with all of its cases as arguments (TK_REPS=0: one launch per case),
so the profiled launches come in manifest order; a case takes `ncu_launches` (default 1) of them and
is judged on the first. Prints claim, ncu value, pass/fail per case; writes OUT_DIR/ncu_confirm.md,
OUT_DIR/ncu_confirm.json and OUT_DIR/ncu_raw.txt (all ncu CSV output).
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import time


def metric_names(expr):
    return [m.strip() for m in expr.split("/")]


def judge(spec, vals):
    """Returns (value, verdict) for one key_metric/also entry given the metric values of its row."""
    src = spec.get("source", "ncu")
    if src == "activity":
        return None, "n/a"
    names = metric_names(spec["name"])
    try:
        nums = [vals[n] for n in names]
    except KeyError as e:
        return None, f"missing {e.args[0]}"
    if len(nums) == 2:
        if nums[1] == 0:
            return None, "denominator 0"
        v = nums[0] / nums[1]
    else:
        v = nums[0]
    if "at_least" in spec:
        return v, "pass" if v >= spec["at_least"] else "FAIL"
    if "at_most" in spec:
        return v, "pass" if v <= spec["at_most"] else "FAIL"
    exp = float(spec["expected"])
    tol = float(spec.get("tolerance_pct", 0)) / 100.0
    if exp == 0:
        ok = abs(v) == 0
    else:
        ok = abs(v - exp) <= max(tol, 1e-9) * abs(exp)
    return v, "pass" if ok else "FAIL"


def to_num(s):
    s = s.strip().replace(",", "")
    try:
        return float(s)
    except ValueError:
        return None


def parse_csv(text):
    """ncu --csv --page raw: header row, units row, one row per profiled kernel."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    head = rows[0]
    out = []
    for r in rows[1:]:
        if len(r) != len(head) or r[0] == "" or not r[0].isdigit():
            continue  # the units row, or noise
        d = dict(zip(head, r))
        vals = {}
        for k, v in d.items():
            n = to_num(v)
            if n is not None:
                vals[k] = n
        out.append({"kernel": d.get("Kernel Name", ""), "vals": vals})
    return out


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def claim(spec):
    if "at_least" in spec:
        return f"{spec['name']} >= {spec['at_least']:,}"
    if "at_most" in spec:
        return f"{spec['name']} <= {spec['at_most']:,}"
    tol = spec.get("tolerance_pct", 0)
    e = spec["expected"]
    e = f"{e:,}" if isinstance(e, int) else f"{e:g}"
    return f"{spec['name']} = {e}" + (f" ±{tol}%" if tol else "")


def main():
    args = sys.argv[1:]
    budget = 300.0
    ncu = "ncu"
    if "--budget" in args:
        i = args.index("--budget")
        budget = float(args[i + 1])
        del args[i:i + 2]
    if "--ncu" in args:
        i = args.index("--ncu")
        ncu = args[i + 1]
        del args[i:i + 2]
    manifest, bindir, outdir = args
    m = json.load(open(manifest))
    os.makedirs(outdir, exist_ok=True)
    groups = {}
    for c in m["cases"]:
        groups.setdefault(c["binary"], []).append(c)
    t0 = time.time()
    results = []
    raw = open(os.path.join(outdir, "ncu_raw.txt"), "w")
    for binary, cs in groups.items():
        specs = lambda c: [c["key_metric"]] + c.get("also", [])
        metrics = sorted({n for c in cs for s in specs(c) if s.get("source", "ncu") != "activity"
                          for n in metric_names(s["name"])})
        kernels = sorted({k["name"] for c in cs for k in c["kernels"]})
        argv = [a for c in cs for a in c["args"]]
        if time.time() - t0 > budget:
            for c in cs:
                results.append({"id": c["id"], "binary": binary, "verdict": "not run (time budget)",
                                "claim": claim(c["key_metric"]), "value": None, "checks": []})
            continue
        cmd = [ncu, "--cache-control", "none", "--clock-control", "none", "--csv", "--page", "raw",
               "--print-units", "base", "-k", "regex:^(" + "|".join(kernels) + ")$"]
        if metrics:
            cmd += ["--metrics", ",".join(metrics)]
        cmd += [os.path.join(bindir, binary)] + argv
        env = dict(os.environ, TK_REPS="0")
        t1 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        dt = time.time() - t1
        raw.write(f"### {' '.join(cmd)}\n### exit {p.returncode}, {dt:.1f} s\n{p.stdout}\n{p.stderr}\n")
        raw.flush()
        rows = parse_csv(p.stdout)
        if not rows and p.returncode != 0 and "--metrics" in cmd:
            # An unknown metric name stops ncu before the program runs: retry with the metrics one by
            # one dropped is too slow, so drop the launch/occupancy ones (the likeliest) and say so.
            launch = {n for c in cs for s in specs(c) if s.get("source") == "ncu-launch"
                      for n in metric_names(s["name"])}
            keep = [x for x in metrics if x not in launch]
            i = cmd.index("--metrics")
            cmd2 = cmd[:i] + (["--metrics", ",".join(keep)] if keep else []) + cmd[i + 2:]
            p = subprocess.run(cmd2, capture_output=True, text=True, env=env)
            raw.write(f"### retry without {sorted(launch)}\n### {' '.join(cmd2)}\n### exit {p.returncode}\n"
                      f"{p.stdout}\n{p.stderr}\n")
            rows = parse_csv(p.stdout)
        print(f"{binary}: exit {p.returncode}, {len(rows)} profiled launches, {dt:.1f} s", flush=True)
        for c in cs:
            want = c.get("ncu_launches", 1)
            kre = re.compile("^" + re.escape(c["kernels"][0]["name"]) + r"\b")
            mine = []
            while len(mine) < want and rows:
                r = rows.pop(0)
                if kre.search(r["kernel"]):
                    mine.append(r)
            checks = []
            for s in specs(c):
                if want == 0 or s.get("source", "ncu") == "activity":
                    checks.append({"claim": claim(s), "value": None, "verdict": "n/a"})
                    continue
                if not mine:
                    checks.append({"claim": claim(s), "value": None, "verdict": "FAIL (no profiled launch)"})
                    continue
                v, verdict = judge(s, mine[0]["vals"])
                checks.append({"claim": claim(s), "value": v, "verdict": verdict})
            key = checks[0]
            verdict = key["verdict"]
            if p.returncode != 0:
                verdict = f"FAIL (program exit {p.returncode})"
            elif any(ch["verdict"].startswith("FAIL") or ch["verdict"].startswith("missing")
                     for ch in checks):
                verdict = "FAIL" if verdict in ("pass", "n/a") else verdict
            results.append({"id": c["id"], "binary": binary, "verdict": verdict, "claim": key["claim"],
                            "value": key["value"], "checks": checks})
            extra = "; ".join(f"{ch['claim']} -> {fmt(ch['value'])} {ch['verdict']}" for ch in checks[1:])
            print(f"  {c['id']:<30} {key['claim']:<95} ncu {fmt(key['value']):>14}  {verdict}"
                  + (f"  [{extra}]" if extra else ""), flush=True)
    raw.close()
    n_pass = sum(r["verdict"] == "pass" for r in results)
    n_na = sum(r["verdict"] == "n/a" for r in results)
    n_fail = len(results) - n_pass - n_na
    total = time.time() - t0
    summary = f"{n_pass} pass, {n_fail} fail or not run, {n_na} not ncu metrics (activity), {total:.0f} s"
    print(summary)
    with open(os.path.join(outdir, "ncu_confirm.json"), "w") as f:
        json.dump({"summary": summary, "results": results}, f, indent=1)
    with open(os.path.join(outdir, "ncu_confirm.md"), "w") as f:
        f.write("| case | claim (key metric) | ncu value | verdict | other checks |\n|---|---|---|---|---|\n")
        for r in results:
            extra = "<br>".join(f"{ch['claim']}: {fmt(ch['value'])} {ch['verdict']}" for ch in r["checks"][1:])
            f.write(f"| {r['id']} | `{r['claim']}` | {fmt(r['value'])} | {r['verdict']} | {extra} |\n")
        f.write(f"\n{summary}\n")
    return 0 if n_fail == 0 else 1


sys.exit(main())
