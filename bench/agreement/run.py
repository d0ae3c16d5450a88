#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpuhier against Nsight Compute: agreement of values (issue 3 point 6)
and cost (point 7). Run through bench/agreement.sh; see its header.

Launch matching: both tools profile the same window of launches
(--launch-skip/--launch-count have the same meaning in both: launches in
API order, counted over all kernels). Launches are paired by (kernel
name, grid, block) and their occurrence number within that key, so a
launch one tool leaves out (a graph kernel node, for example) shifts
nothing else. A pair whose key differs is never compared.

Two comparisons (AGREE_PARTS):
- "agree" (multi-pass): gpuhier's default set (core, 3 passes on GH100)
  against ncu with the same names (ncu groups them into its own passes).
  Counts that do not depend on cache state or timing must agree here.
- "single" (like for like): each group of groups.txt, which fits in ONE
  pass on GH100 (tests/unit/test_agreement_groups.c), collected alone by
  both tools (`gpuhier run --metric-set none --metrics G`, `ncu --metrics
  G`): no replay in either tool, so L2/DRAM counters and timing see the
  launch as the program ran it instead of whatever the previous pass of
  each tool's own grouping left in the L2 (docs/agreement.md, class A).
  Both tools' pass counts are recorded per launch and checked to be 1.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys
import time

try:
    import sqlite3
except ImportError:  # a Python built without _sqlite3: say so instead of a traceback
    sys.exit("agreement: this python3 has no sqlite3 module; run with another python3 (PATH)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import classes  # noqa: E402
import compare  # noqa: E402
import ncu_csv  # noqa: E402
import proc  # noqa: E402

T0 = time.monotonic()
BUDGET = float(os.environ.get("AGREE_BUDGET_S", "450"))
WINDOW = int(os.environ.get("AGREE_WINDOW", "200"))
REPS = int(os.environ.get("AGREE_REPS", "3"))
TK_LAUNCHES = int(os.environ.get("AGREE_TK_LAUNCHES", "10"))
# launches skipped before the testkernel window (both tools: --launch-skip), and
# a regular expression on the testkernel labels: a short follow-up experiment on
# one program and one launch (docs/agreement.md, "What remains open")
TK_SKIP = int(os.environ.get("AGREE_TK_SKIP", "0"))
PROGRAMS = os.environ.get("AGREE_PROGRAMS", "")
PT_SKIP = int(os.environ.get("AGREE_PT_SKIP", "100"))
PT_COUNT = int(os.environ.get("AGREE_PT_COUNT", "40"))
NCU = os.environ.get("NCU", "ncu")
# "binary": the first manifest case of each testkernel binary (default, fits the
# time budget); "all": every case (77 cases take well over one device call)
CASES = os.environ.get("AGREE_CASES", "binary")
# AGREE_REUSE=DIR: no program is run; the reports (LABEL-*.db) and ncu
# output (LABEL.ncu.csv) a previous run left in DIR (its tk/) are compared
# again (after a fix to the pairing or parsing, without a GPU)
REUSE = os.environ.get("AGREE_REUSE", "")
PARTS = os.environ.get("AGREE_PARTS", "agree,cost").split(",")
# "agree" = "agree-tk,agree-pt" (multi-pass); "single" = "single-tk,single-pt"
# (one pass per group, like for like); "cost". The sub-parts let one device
# call take, e.g., the like-for-like part and only the PyTorch multi-pass one.
for _p, _sub in (("agree", ("agree-tk", "agree-pt")), ("single", ("single-tk", "single-pt"))):
    if _p in PARTS:
        PARTS += [x for x in _sub if x not in PARTS]
_bad = [x for x in PARTS if x not in ("agree", "agree-tk", "agree-pt", "single", "single-tk", "single-pt", "cost")]
if _bad:
    sys.exit("agreement: AGREE_PARTS: unknown part(s) %s (agree, agree-tk, agree-pt, single, single-tk, single-pt, cost)" % ",".join(_bad))
GROUPS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "groups.txt")
# rough seconds a PyTorch part takes (both tools), kept free while testkernels run
PT_EST_MULTI_S = 60
PT_EST_SINGLE_S = 40  # per group
BENCH_ARGS = os.environ.get("BENCH_ARGS", "--steps 20 --warmup 3").split()
# the cost part's modes, by key (AGREE_COST_MODES, comma-separated; default all but budget):
# native, trace, default, budget (default sampling with --profile-budget AGREE_PROFILE_BUDGET),
# keep (default sampling with GPUHIER_DIAG_KEEP_ENABLED=1: the range profiler stays enabled
# across unsampled launches), all (every launch of the window), ncu-all, ncu-plc (ncu
# --filter-mode per-launch-config -c 1)
COST_KEYS = ("native", "trace", "default", "budget", "keep", "all", "ncu-all", "ncu-plc")
COST_MODES = os.environ.get("AGREE_COST_MODES", "native,trace,default,all,ncu-all,ncu-plc").split(",")
PROFILE_BUDGET = os.environ.get("AGREE_PROFILE_BUDGET", "30")
_bad = [x for x in COST_MODES if x not in COST_KEYS]
if _bad:
    sys.exit("agreement: AGREE_COST_MODES: unknown mode(s) %s (%s)" % (",".join(_bad), ", ".join(COST_KEYS)))
# fewer timed repetitions inside each testkernel: both tools see the same launches either way
os.environ.setdefault("TK_REPS", "2")
# AGREE_CACHE=all: both tools flush the L2 before each profiled launch (ncu before each
# pass, gpuhier before the first: docs/collector.md "Cache control"); default none, issue 3's.
CACHE = os.environ.get("AGREE_CACHE", "none")
if CACHE not in ("none", "all"):
    sys.exit("agreement: AGREE_CACHE: '%s' is not none or all" % CACHE)
NCU_COMMON = ["--cache-control", CACHE, "--clock-control", "none", "--replay-mode", "kernel",
              "--target-processes", "all"]
notes = []


def elapsed():
    return time.monotonic() - T0


def left():
    return BUDGET - elapsed()


def log(msg):
    print("[%6.1fs] %s" % (elapsed(), msg), flush=True)


def run(argv, timeout, out_path=None, env=None):
    """Runs argv; returns (rc, seconds, output). rc 124 on timeout."""
    t = time.monotonic()
    timeout = max(1.0, min(timeout, left() - 5))
    rc, out = proc.run_group(argv, timeout, env)   # a timeout ends the profiled program too
    out = out.decode("utf-8", "replace")
    dt = time.monotonic() - t
    if out_path:
        with open(out_path, "w") as f:
            f.write(out)
    return rc, dt, out


# ------------------------------------------------------------ programs

def programs_from_manifest(root, tk_dir):
    """[(label, argv)] from testkernels/manifest.json; any object with a
    'binary' (or 'program') key is a run, its 'args' (list or string) or
    'case' its arguments."""
    path = os.path.join(root, "testkernels", "manifest.json")
    found = []
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)

        def walk(x):
            if isinstance(x, dict):
                b = x.get("binary") or x.get("program")
                if isinstance(b, str):
                    a = x.get("args", x.get("case", []))
                    if isinstance(a, str):
                        a = a.split()
                    found.append((b, [str(s) for s in a], x.get("id")))
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(data)
    if not found:
        lst = os.path.join(tk_dir, "binaries.txt")
        if os.path.exists(lst):
            found = [(l.strip(), [], None) for l in open(lst) if l.strip()]
            notes.append("no testkernels/manifest.json entries: ran every binary of binaries.txt without arguments")
    seen, out = set(), []
    for b, a, ident in found:
        key = (b, tuple(a)) if CASES == "all" else b
        if key in seen:
            continue
        seen.add(key)
        exe = b if os.path.isabs(b) else os.path.join(tk_dir, os.path.basename(b))
        if not os.path.exists(exe) and not REUSE:
            notes.append("testkernel '%s' not built (looked for %s)" % (b, exe))
            continue
        out.append((ident or " ".join([os.path.basename(b)] + a), [exe] + a))
    return out


# ------------------------------------------------------------- reports

def norm_name(s):
    s = re.sub(r"\s+", "", s or "")
    if s.startswith("void"):
        s = s[4:]
    return s


PASSES_SEEN = []  # profile.passes of the reports read last


def read_reports(paths):
    """Profiled launches of the reports, in launch order:
    [dict(key, name, index, metrics, launch_id)]; plus metric names."""
    launches, names = [], []
    for p in paths:
        db = sqlite3.connect("file:%s?mode=ro" % p, uri=True)
        try:
            rows = db.execute(
                "SELECT l.id, COALESCE(k.demangled_name, k.mangled_name), k.mangled_name,"
                " c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,"
                " l.config_launch_index, l.profile_reason, p.passes"
                " FROM launch l JOIN kernel k ON k.id = l.kernel_id"
                " LEFT JOIN config c ON c.id = l.config_id"
                " LEFT JOIN profile p ON p.launch_id = l.id"
                " WHERE l.profiled = 1 ORDER BY l.correlation_id, l.start_ns, l.id").fetchall()
            for r in rows:
                m = dict(db.execute(
                    "SELECT n.name, m.value FROM metric m JOIN metric_name n ON n.id = m.metric_id"
                    " WHERE m.launch_id = ?", (r[0],)).fetchall())
                launches.append({"launch_id": r[0], "name": r[1], "mangled": r[2],
                                 "key": (norm_name(r[1]), tuple(r[3:6]), tuple(r[6:9])),
                                 "index": r[9], "reason": r[10], "passes": r[11], "metrics": m})
            names += [n for (n,) in db.execute("SELECT name FROM metric_name ORDER BY id")]
            for (pp,) in db.execute("SELECT MAX(passes) FROM profile"):
                if pp is not None:
                    PASSES_SEEN.append(pp)
        finally:
            db.close()
    return launches, list(dict.fromkeys(names))


def triple(text):
    nums = [int(x) for x in re.findall(r"\d+", text or "")]
    return tuple((nums + [1, 1, 1])[:3])


def short_name(n):
    """'voidns::foo<int>(float*)' -> 'ns::foo': for demanglers that disagree
    on templates, return types or spacing."""
    n = norm_name(n)
    depth, cut = 0, len(n)
    for i, ch in enumerate(n):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    n = n[:cut]
    return n.split("<", 1)[0]


def pair(ours, theirs):
    """Pairs launches by (name, grid, block) and occurrence, launch by
    launch: the mangled name when ncu printed it (--print-kernel-base
    mangled; ncu's demangled PyTorch names drop namespaces, e.g.
    'at::elementwise_kernel' for 'at::native::elementwise_kernel', which
    left 29 of 40 launches unmatched on 2026-11-29), else the full
    demangled name when both tools spell it alike, else the short name
    (demanglers differ: 'float const*' vs 'const float *').
    The choice is made per launch, not once for the whole program: one
    kernel spelled alike (tk_fill(float*, ...)) must not leave another
    (transpose(float*, float const*, int)) unmatched."""
    mangled, full, short = {}, {}, {}
    for t in theirs:
        g, b = triple(t["grid"]), triple(t["block"])
        mangled.setdefault((t["kernel"], g, b), []).append(t)
        full.setdefault((norm_name(t["kernel"]), g, b), []).append(t)
        short.setdefault((short_name(t["kernel"]), g, b), []).append(t)
    used, pairs, unmatched = set(), [], 0
    for o in ours:
        cands = (mangled.get((o.get("mangled"), o["key"][1], o["key"][2])) or full.get(o["key"])
                 or short.get((short_name(o["name"]), o["key"][1], o["key"][2]), []))
        t = next((t for t in cands if id(t) not in used), None)
        if t is None:
            unmatched += 1
            continue
        used.add(id(t))
        pairs.append((o, t))
    return pairs, unmatched


# Counts that do not depend on caches, clocks or timing: a pair of the same
# launch has them equal exactly (measured: all 100 testkernel pairs of the
# 2026-11-29 18:48 run). A pair where they differ is not the same work.
SAME_LAUNCH = ("smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")


def not_same_launch(pairs):
    """Number of pairs whose exact counts (SAME_LAUNCH) differ."""
    n = 0
    for o, t in pairs:
        if any(k in o["metrics"] and k in t["metrics"] and o["metrics"][k] != t["metrics"][k]
               for k in SAME_LAUNCH):
            n += 1
    return n


def core_names_from_source(root):
    """The core set, in order: schema/metrics.catalogue's metric lines whose sets hold 'core'."""
    out = []
    with open(os.path.join(root, "schema", "metrics.catalogue")) as f:
        for line in f:
            if line.startswith("metric "):
                fields = [x.strip() for x in line[len("metric "):].split("|")]
                if len(fields) > 2 and "core" in fields[2].split(","):
                    out.append(fields[0])
    return out


def read_groups(path=GROUPS_FILE):
    """[(name, [metric, ...])] from groups.txt: 'NAME LIST' per line, '#' comments."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, rest = line.partition(" ")
            out.append((name, [m.strip() for m in rest.split(",") if m.strip()]))
    return out


def passes_text(values):
    """Distinct pass counts, '1' or '1, 2'; '' when none were recorded."""
    v = sorted({int(x) for x in values if x is not None and x != ""})
    return ", ".join(str(x) for x in v)


def replayed(pairs):
    """Pairs where either tool needed more than one pass (or said nothing):
    those were replayed, so they are not the like-for-like comparison."""
    n = 0
    for o, t in pairs:
        theirs = t["metrics"].get("profiler__replayer_passes")
        if o.get("passes") != 1 or theirs != 1.0:
            n += 1
    return n


# ----------------------------------------------------------- agreement

def reports_of(d, safe):
    """The reports of one program: SAFE-<pid>.db. Not SAFE-*.db, which for
    'coalesce-stride-1' also matches 'coalesce-stride-1-fixed-2468.db'."""
    pat = re.compile(re.escape(safe) + r"-\d+\.db$")
    return sorted(p for p in glob.glob(os.path.join(d, glob.escape(safe) + "-*.db"))
                  if pat.match(os.path.basename(p)))


def agree_program(label, argv, gpuhier, outdir, skip, count, names_hint, group=None, reuse=None):
    """One program under both tools; returns (comparisons, info, our launches).
    group=(name, metrics): the like-for-like run of that one-pass group
    (files LABEL__GROUP-<pid>.db, LABEL__GROUP.ncu.csv). reuse: a recorded
    run's folder to read instead of running (default AGREE_REUSE)."""
    reuse = REUSE if reuse is None else reuse
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
    if group:
        safe += "__" + group[0]
    for old in ([] if reuse else reports_of(outdir, safe)):
        os.remove(old)
    pattern = os.path.join(outdir, safe + "-%p.db")
    g = [gpuhier, "run", "-q", "-f", "--no-analyze", "-o", pattern, "--sample", "all",
         "--launch-count", str(count)]
    if group:
        g += ["--metric-set", "none", "--metrics", ",".join(group[1])]
    else:
        # the whole core set on every launch, as ncu collects it: kernel replay (the default
        # collects one one-pass group per launch since 2026-12-01; spread_agree.py compares that)
        g += ["--replay", "kernel"]
    if skip:
        g += ["--launch-skip", str(skip)]
    g += ["--cache-control", CACHE]
    if reuse:  # recompute from a recorded run: its reports and ncu output, nothing is run
        rc, dt = 0, 0.0
        reports = reports_of(reuse, safe)
    else:
        rc, dt, _ = run(g + ["--"] + argv, 120, os.path.join(outdir, safe + ".gpuhier.log"))
        reports = reports_of(outdir, safe)
    info = {"program": label, "gpuhier_rc": rc, "gpuhier_s": dt}
    if group:
        info["group"] = group[0]
    del PASSES_SEEN[:]
    ours, names = read_reports(reports) if reports else ([], [])
    info["passes"] = (passes_text(o.get("passes") for o in ours) if group
                      else (max(PASSES_SEEN) if PASSES_SEEN else ""))
    info["profiled"] = len(ours)
    if group:  # exactly the group's names, whatever the report holds
        names = list(group[1])
    else:
        names = [n for n in names if any(n in o["metrics"] for o in ours)] or names_hint
    info["metrics"] = len(names)
    if not names:
        info["error"] = "no report or no metric names (gpuhier rc %d)" % rc
        return [], info, ours
    n = [NCU, "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "mangled",
         "--metrics", ",".join(names)]
    n += NCU_COMMON + ["--launch-count", str(count)]
    if skip:
        n += ["--launch-skip", str(skip)]
    if reuse:
        csv_path = os.path.join(reuse, safe + ".ncu.csv")
        if not os.path.exists(csv_path):
            info["error"] = "no recorded %s" % os.path.basename(csv_path)
            return [], info, ours
        with open(csv_path) as f:
            rc, dt, out = 0, 0.0, f.read()
    else:
        rc, dt, out = run(n + argv, 180, os.path.join(outdir, safe + ".ncu.csv"))
    info.update(ncu_rc=rc, ncu_s=dt)
    theirs = ncu_csv.parse(out)
    info["ncu_launches"] = len(theirs)
    # ncu's own column (the CSV run prints no per-kernel progress lines)
    np_ = [t["metrics"]["profiler__replayer_passes"] for t in theirs if "profiler__replayer_passes" in t["metrics"]]
    info["ncu_passes"] = (passes_text(np_) if group else (int(max(np_)) if np_ else ""))
    if not theirs:
        errs = [l for l in out.splitlines() if "ERR" in l or "rror" in l][-2:]
        info["error"] = "ncu gave no rows (rc %d)%s" % (rc, (": " + " / ".join(errs))[:300] if errs else "")
    pairs, info["unmatched"] = pair(ours, theirs)
    info["pairs"] = len(pairs)
    info["not_same"] = not_same_launch(pairs)
    if group:
        info["replayed"] = replayed(pairs)
    comps = []
    for o, t in pairs:
        for name in names:
            if name not in o["metrics"] or name not in t["metrics"]:
                continue
            a, b = o["metrics"][name], t["metrics"][name]
            ok, d = compare.agree(name, a, b)
            comps.append({"program": label, "kernel": o["name"], "grid": o["key"][1],
                          "block": o["key"][2], "index": o["index"], "metric": name,
                          "gpuhier": a, "ncu": b, "diff": d, "ok": ok, "kind": compare.kind(name)})
            if group:
                comps[-1]["group"] = group[0]
    return comps, info, ours


WITNESS = ("smsp__inst_executed.sum", "gpu__time_duration.sum")


def split_group(gr):
    """Two halves of a group (each keeps the witness and duration), or None
    when it has one gated name left."""
    name, ms = gr
    wit = [m for m in ms if m in WITNESS]
    rest = [m for m in ms if m not in WITNESS]
    if len(rest) < 2:
        return None
    h = (len(rest) + 1) // 2
    return [(name + "-a", wit + rest[:h]), (name + "-b", wit + rest[h:])]


MAX_SPLITS = 2  # a group is halved at most twice (bounded device time)


def one_pass(label, argv, gpuhier, outdir, skip, count, gr, groups, reuse=None, depth=0):
    """Group gr on one program. If either tool needed more than one pass
    (ncu may schedule a list differently from the host API that
    test_agreement_groups.c asks), the group is split in two (at most
    MAX_SPLITS times), the halves are run on this program and replace it
    in `groups` for the programs after it; the replayed run stays in the
    table, marked, and out of the comparison. Returns [(comparisons, info)]."""
    c, info, _ = agree_program(label, argv, gpuhier, outdir, skip, count, None, group=gr, reuse=reuse)
    log("%s [%s]: %d pairs, %d values, %d misses, passes %s/%s, %.1f s + %.1f s" % (
        label, gr[0], info.get("pairs", 0), len(c), sum(1 for x in c if not x["ok"]),
        info.get("passes", ""), info.get("ncu_passes", ""), info.get("gpuhier_s", 0), info.get("ncu_s", 0)))
    # split only on a pass count above 1 that a tool reported (a missing count is flagged, not split)
    over = [p for p in re.split(r",\s*", "%s,%s" % (info.get("passes", ""), info.get("ncu_passes", ""))) if p]
    halves = (split_group(gr) if info.get("replayed") and any(int(p) > 1 for p in over)
              and depth < MAX_SPLITS else None)
    if not halves:
        return [(c, info)]
    info["superseded"] = 1
    info["error"] = ("not one pass: split into %s" % ", ".join(h[0] for h in halves)) + (
        "; " + info["error"] if info.get("error") else "")
    notes.append("like for like: group '%s' was not one pass on %s (gpuhier %s, ncu %s); split into %s for it and the programs after it" % (
        gr[0], label, info.get("passes", ""), info.get("ncu_passes", ""), ", ".join(h[0] for h in halves)))
    if gr in groups:
        i = groups.index(gr)
        groups[i:i + 1] = halves
    out = [([], info)]
    for h in halves:
        out += one_pass(label, argv, gpuhier, outdir, skip, count, h, groups, reuse, depth + 1)
    return out


def plausibility(launches, core):
    """Issue 3 point 9: every core metric present and plausible on every
    profiled launch. Returns per program (launches, complete, problems)."""
    out = {}
    for l in launches:
        o = out.setdefault(l.get("prog"), [0, 0, []])
        o[0] += 1
        missing = [n for n in core if n not in l["metrics"] or l["metrics"][n] is None]
        bad = []
        for n, v in l["metrics"].items():
            if v is None or v != v or v < 0 or (compare.kind(n) == "rate" and v > 100.5):
                bad.append("%s=%s" % (n, v))
        if "gpu__time_duration.sum" in l["metrics"] and not l["metrics"]["gpu__time_duration.sum"] > 0:
            bad.append("gpu__time_duration.sum not > 0")
        if not missing and not bad:
            o[1] += 1
        elif len(o[2]) < 3:
            o[2].append("`%s` #%s: %s" % (short_name(l["name"]), l["index"],
                                         ", ".join((["missing " + m for m in missing[:3]] + bad[:3]))))
    return out


def implausible(plaus):
    """Profiled launches of plausibility()'s result that lack a default
    metric or hold an implausible value (issue 3 point 9 fails on any)."""
    return sum(n - okn for n, okn, _ in plaus.values())


def cold_vs_warm(launches):
    """Per metric: |relative difference| between a configuration's first and
    second profiled launch (its two lowest launch indices), over
    configurations profiled at least twice."""
    by_cfg = {}
    for l in launches:
        by_cfg.setdefault((l.get("prog"), l["key"]), {})[l["index"]] = l
    diffs = {}
    for cfg in by_cfg.values():
        idx = sorted(i for i in cfg if i is not None)
        if len(idx) < 2:
            continue
        a, b = cfg[idx[0]]["metrics"], cfg[idx[1]]["metrics"]
        for k in a:
            if k in b:
                if compare.kind(k) == "rate":
                    d = abs(a[k] - b[k])
                elif a[k] == 0 and b[k] == 0:
                    d = 0.0
                else:
                    d = 100.0 * abs(a[k] - b[k]) / max(abs(a[k]), abs(b[k]))
                diffs.setdefault(k, []).append(d)
    return diffs


# ---------------------------------------------------------------- cost

def cost(root, gpuhier, outdir, names):
    script = os.path.join(root, "bench", "pytorch_train.py")
    if not os.path.exists(script):
        notes.append("bench/pytorch_train.py missing: cost table not measured")
        return None
    base = ["python3", script] + BENCH_ARGS
    mnames = ",".join(names)
    rep = lambda m, i: os.path.join(outdir, "%s-%d-%%p.db" % (m, i))  # noqa: E731
    gh_run = lambda tag, i, *opts: [gpuhier, "run", "-q", "-f", "--no-analyze", *opts,  # noqa: E731
                                    "-o", rep(tag, i), "--"] + base
    modes = [
        ("native", "native", lambda i: base),
        ("trace", "gpuhier trace", lambda i: gh_run("trace", i, "--mode", "trace")),
        ("default", "gpuhier default sampling", lambda i: gh_run("default", i)),
        ("budget", "gpuhier budget sampling (--profile-budget %s)" % PROFILE_BUDGET,
         lambda i: gh_run("budget", i, "--profile-budget", PROFILE_BUDGET)),
        ("keep", "gpuhier kept-enabled sampling (GPUHIER_DIAG_KEEP_ENABLED=1)",
         lambda i: ["env", "GPUHIER_DIAG_KEEP_ENABLED=1"] + gh_run("keep", i)),
        ("all", "gpuhier every launch (%d)" % WINDOW,
         lambda i: gh_run("all", i, "--sample", "all", "--launch-count", str(WINDOW))),
        ("ncu-all", "ncu every launch (%d)" % WINDOW,
         lambda i: [NCU, "--metrics", mnames] + NCU_COMMON + ["--launch-count", str(WINDOW), "-f", "-o",
                                                              os.path.join(outdir, "ncu-all-%d" % i)] + base),
        ("ncu-plc", "ncu per-launch-config -c 1",
         lambda i: [NCU, "--metrics", mnames] + NCU_COMMON + ["--filter-mode", "per-launch-config", "-c", "1",
                                                              "-f", "-o", os.path.join(outdir, "ncu-plc-%d" % i)]
         + base),
    ]
    modes = [(m, argv) for key, m, argv in modes if key in COST_MODES]
    times = {m: [] for m, _ in modes}
    outs = {}
    for i in range(REPS):
        for m, argv in modes:
            guess = max(times[m]) if times[m] else (max(max(v) for v in times.values() if v) * 3
                                                     if any(times.values()) else 60)
            if guess + 10 > left():
                notes.append("cost: '%s' run %d skipped (%.0f s left, needs ~%.0f s)" % (m, i + 1, left(), guess))
                continue
            rc, dt, out = run(argv(i), 300, os.path.join(outdir, "cost-%s-%d.log" % (re.sub(r"\W+", "_", m), i)))
            log("cost %s run %d: %.2f s (rc %d)" % (m, i + 1, dt, rc))
            if rc == 0:
                times[m].append(dt)
                outs[(m, i)] = out
            else:
                notes.append("cost: '%s' run %d exited %d" % (m, i + 1, rc))
    res = {"times": times}
    # profiled launches and report sizes from the last every-launch and default reports
    for tag in ("all", "default", "budget", "keep", "trace"):
        mine = last_reports(outdir, tag)
        if mine:
            prof = cfg_prof = cfg_all = 0
            for d in mine:
                db = sqlite3.connect("file:%s?mode=ro" % d, uri=True)
                prof += db.execute("SELECT COUNT(*) FROM launch WHERE profiled = 1").fetchone()[0]
                cfg_prof += db.execute("SELECT COUNT(DISTINCT config_id) FROM launch WHERE profiled = 1").fetchone()[0]
                cfg_all += db.execute("SELECT COUNT(*) FROM config").fetchone()[0]
                db.close()
            res[tag] = {"profiled": prof, "bytes": sum(os.path.getsize(d) for d in mine),
                        "configs_profiled": cfg_prof, "configs": cfg_all,
                        "profiling_s": sum(profiling_seconds(d) for d in mine)}
    # unsampled launches against trace mode (issue 3 point 4: within 5 %)
    for tag in ("default", "budget", "keep"):
        if tag in res and "trace" in res:
            res[tag]["unsampled_vs_trace"] = unsampled_vs_trace(
                last_reports(outdir, tag), last_reports(outdir, "trace"))
    ncu_launches = None
    for (m, i), out in outs.items():
        if m.startswith("ncu every"):
            ncu_launches = len(re.findall(r"==PROF== Profiling ", out))
    if ncu_launches == 0 and times.get("ncu every launch (%d)" % WINDOW):
        ncu_launches = WINDOW
        notes.append("cost: ncu printed no per-launch progress lines; its profiled launches are taken as the window (%d)" % WINDOW)
    res["ncu_launches"] = ncu_launches
    reps = sorted(glob.glob(os.path.join(outdir, "ncu-all-*.ncu-rep")))
    if reps and ncu_launches:
        res["ncu_rep_bytes_per_launch"] = os.path.getsize(reps[-1]) / ncu_launches
    return res


def unsampled_note(u):
    if not u or u.get("total_pct") is None:
        return ""
    return ("; unprofiled launches' GPU time %+.2f %% against trace mode (median per-configuration ratio "
            "%.3f, %d configurations; issue 3 point 4: within 5 %%)" % (u["total_pct"], u["median_ratio"], u["configs"]))


def last_reports(outdir, tag):
    """The reports of a cost mode's last run (one per process)."""
    dbs = [d for d in sorted(glob.glob(os.path.join(outdir, "%s-*-*.db" % tag)))
           if os.path.basename(d)[len(tag) + 1:].split("-")[0].isdigit()]
    if not dbs:
        return []
    last_i = max(int(os.path.basename(d)[len(tag) + 1:].split("-")[0]) for d in dbs)
    return [d for d in dbs if os.path.basename(d).startswith("%s-%d-" % (tag, last_i))]


def profiling_seconds(db_path):
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    try:
        return (db.execute("SELECT COALESCE(SUM(overhead_ns), 0) FROM profile").fetchone()[0] or 0) / 1e9
    finally:
        db.close()


def unsampled_durations(paths):
    """{configuration key: [durations of its traced, unprofiled launches]}."""
    out = {}
    for p in paths:
        db = sqlite3.connect("file:%s?mode=ro" % p, uri=True)
        q = ("SELECT k.mangled_name, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, "
             "c.dynamic_smem_bytes, l.end_ns - l.start_ns FROM launch l JOIN kernel k ON k.id = l.kernel_id "
             "JOIN config c ON c.id = l.config_id WHERE l.profiled = 0 AND l.end_ns > l.start_ns")
        for row in db.execute(q):
            out.setdefault(tuple(row[:8]), []).append(row[8])
        db.close()
    return out


def unsampled_vs_trace(mode_paths, trace_paths):
    """Unprofiled launches' GPU time in a sampling mode against trace mode,
    over the configurations both have: the sum over configurations of
    (median duration x launches in trace mode), mode / trace - 1, and the
    median per-configuration ratio. Medians, so a configuration's first
    launch or a stray slow launch does not decide it."""
    a, b = unsampled_durations(mode_paths), unsampled_durations(trace_paths)
    common = [k for k in a if k in b]
    if not common:
        return None
    med = statistics.median
    num = sum(med(a[k]) * len(b[k]) for k in common)
    den = sum(med(b[k]) * len(b[k]) for k in common)
    ratios = [med(a[k]) / med(b[k]) for k in common if med(b[k]) > 0]
    return {"configs": len(common), "total_pct": 100.0 * (num / den - 1) if den else None,
            "median_ratio": med(ratios) if ratios else None}


# -------------------------------------------------------------- output

def fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        return ("%.6g" % v)
    return str(v)


def key_of(c):
    return (c["program"], c["kernel"], str(c["grid"]), str(c["block"]), c["metric"])


def spread_key(c):
    """The launches whose values are compared for a tool's own spread: the
    repeats of a configuration (index 1, 2, ...) together, and its first
    launch (index 0) alone. The first launch runs after different work
    (the program's setup, another kernel) than its repeats, so the
    first-to-second difference is systematic, not noise (docs/sampling.md:
    up to 100 % on DRAM and L2 counters); with it in the spread, a
    systematic miss on a repeat (smem_big's L2 misses, 3 K in ncu against
    56-70 K in gpuhier) read as "within own spread" (2026-11-29 one-pass
    run, docs/agreement.md)."""
    return key_of(c) + ("first" if c.get("index") == 0 else "repeat",)


def own_spread(comps):
    """Per spread_key (program, configuration, metric, first or repeat):
    the larger of the two tools' own launch-to-launch spreads over those
    paired launches, in % of the largest value (points for rates); None
    when there is one launch (a configuration's first launch, or its
    only repeat)."""
    by = {}
    for c in comps:
        by.setdefault(spread_key(c), []).append(c)
    out = {}
    for k, cs in by.items():
        if len(cs) < 2:
            out[k] = None
            continue
        best = 0.0
        for side in ("gpuhier", "ncu"):
            v = [c[side] for c in cs]
            if cs[0]["kind"] == "rate":
                best = max(best, max(v) - min(v))
            elif max(abs(x) for x in v) > 0:
                best = max(best, 100.0 * (max(v) - min(v)) / max(abs(x) for x in v))
        out[k] = best
    return out


def spread_label(c, spread, launches):
    """The own-spread column of a miss: the spread, or why there is none:
    'single' (the configuration has one paired launch), 'first' (its first
    launch: no other launch in that position), 'one repeat'."""
    v = spread.get(spread_key(c))
    if v is not None:
        return v, "%s%s" % (fmt(v), " pt" if c["kind"] == "rate" else " %")
    if launches.get(key_of(c), 0) < 2:
        return None, "single"
    return None, "first" if c.get("index") == 0 else "one repeat"


def miss_sections(comps, h):
    """'Misses per metric' and 'Outside tolerance' (headings at level h)."""
    miss = [c for c in comps if not c["ok"]]
    if not miss:
        return []
    L = []
    grp = any("group" in c for c in comps)
    spread = own_spread(comps)
    launches = {}
    for c in comps:
        launches[key_of(c)] = launches.get(key_of(c), 0) + 1
    L += ["", "%s Misses per metric" % h, "",
          "`own spread`: the miss is no larger than the launch-to-launch spread one of the tools shows by itself over the repeats of that configuration (its launches after the first; docs/agreement.md); `first`: the first launch of a configuration launched more than once (it has no other launch in its position, so no spread); `single`: a configuration launched once.", "",
          "| metric | misses | pairs | own spread | first | single | median abs difference |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in dict.fromkeys(c["metric"] for c in miss):
        mm = [c for c in miss if c["metric"] == name]
        sp = [spread_label(c, spread, launches) for c in mm]
        L.append("| %s | %d | %d | %d | %d | %d | %s |" % (
            name, len(mm), sum(1 for c in comps if c["metric"] == name),
            sum(1 for c, (v, _) in zip(mm, sp) if v is not None and abs(c["diff"]) <= v),
            sum(1 for _, t in sp if t == "first"),
            sum(1 for _, t in sp if t == "single"),
            fmt(statistics.median(abs(c["gpuhier"] - c["ncu"]) for c in mm))))
    L += ["", "%s Outside tolerance" % h, "",
          "| program |%s kernel | grid | block | idx | metric | gpuhier | ncu | diff | abs difference | own spread |" % (" group |" if grp else ""),
          "| --- |%s --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" % (" --- |" if grp else "")]
    for c in miss[:1000]:
        L.append("| %s |%s `%s` | %s | %s | %s | %s | %s | %s | %s%s | %s | %s |" % (
            c["program"], (" %s |" % c.get("group", "")) if grp else "", c["kernel"][:60], c["grid"], c["block"],
            c["index"], c["metric"], fmt(c["gpuhier"]), fmt(c["ncu"]), fmt(c["diff"]),
            " pt" if c["kind"] == "rate" else " %", fmt(abs(c["gpuhier"] - c["ncu"])),
            spread_label(c, spread, launches)[1]))
    if len(miss) > 1000:
        L.append("| … %d more in agreement.json | | | | | | | | | | |" % (len(miss) - 1000))
    return L


def single_sections(sinfos, scomps, comps):
    """The like-for-like part: one pass per group in both tools."""
    L = ["", "## Like for like: one pass, no replay (AGREE_PARTS=single)", "",
         "Each group of bench/agreement/groups.txt fits in one pass on GH100 (tests/unit/test_agreement_groups.c), so neither tool replays the kernel: `gpuhier run --sample all --metric-set none --metrics G` against `ncu --metrics G %s`, same launch window, same pairing, same tolerances." % " ".join(NCU_COMMON), ""]
    miss = [c for c in scomps if not c["ok"]]
    npairs = sum(i.get("pairs", 0) for i in sinfos if not i.get("superseded"))
    rp = sum(i.get("replayed", 0) for i in sinfos if not i.get("superseded"))
    L.append("%d values compared (%d gated) on %d launch pairs; **%d outside tolerance**; **%d pairs not single-pass** (either tool's pass count for the launch is not 1: gpuhier's `profile.passes`, ncu's `profiler__replayer_passes`)." % (
        len(scomps), sum(1 for c in scomps if c["kind"] != "time"), npairs, len(miss), rp))
    if any(i.get("superseded") for i in sinfos):
        L.append("")
        L.append("Rows marked `not one pass: split into …` were replayed by a tool and are not compared; their halves are (see Notes).")
    L += ["", "| program | group | gpuhier rc | profiled | gpuhier passes | ncu rc | ncu launches | ncu passes | pairs | unmatched | not same | not single-pass | metrics | note |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i in sinfos:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            i["program"], i.get("group", ""), i.get("gpuhier_rc"), i.get("profiled"), i.get("passes", ""),
            i.get("ncu_rc", ""), i.get("ncu_launches", ""), i.get("ncu_passes", ""), i.get("pairs", ""),
            i.get("unmatched", ""), i.get("not_same", ""), i.get("replayed", ""), i.get("metrics", ""),
            i.get("error", "")))
    # side by side with the multi-pass comparison, per metric
    L += ["", "### Multi-pass and one-pass misses per metric", "",
          "The same metric compared in both ways; `multi-pass` is the table above (gpuhier's core set against ncu's own grouping), `one pass` this part.", "",
          "| metric | multi-pass misses | multi-pass values | one-pass misses | one-pass values | one-pass median abs difference of misses |",
          "| --- | --- | --- | --- | --- | --- |"]
    for name in dict.fromkeys(c["metric"] for c in scomps):
        m = [c for c in comps if c["metric"] == name]
        s1 = [c for c in scomps if c["metric"] == name]
        sm = [c for c in s1 if not c["ok"]]
        L.append("| %s | %s | %s | %d | %d | %s |" % (
            name, sum(1 for c in m if not c["ok"]) if m else "", len(m) if m else "", len(sm), len(s1),
            fmt(statistics.median(abs(c["gpuhier"] - c["ncu"]) for c in sm)) if sm else ""))
    L += miss_sections(scomps, "###")
    return L


def class_section(comps, scomps):
    """The misses by class of docs/agreement.md (bench/agreement/classes.py),
    multi-pass and one pass: which known cause each miss belongs to."""
    runs = [(name, cs) for name, cs in (("multi-pass", comps), ("one pass", scomps)) if cs]
    if not any(not c["ok"] for _, cs in runs for c in cs):
        return []
    L = ["", "## Misses by class (docs/agreement.md)", "",
         "A: DRAM bytes and L2 lookups (the L2's contents before the launch); B: system-memory sectors of other L2 "
         "clients; C: L1 and local memory (`spill_bounds`); D: shared-memory bank conflicts; E: active cycles and "
         "warps (timing); F: a pair whose instruction counts differ (the kernel's work depends on timing); ?: none "
         "of these, a new cause.", "",
         "| class | run | misses | on the first kernel (tk_fill) | on a configuration's first launch | on repeats | "
         "gpuhier > ncu | differences <= 64 KB |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, cs in runs:
        total, t = classes.table(cs)
        differs = classes.other_work(cs)
        unknown = sum(1 for c in cs if not c["ok"] and classes.klass_of(c, differs) == "?")
        for k in "ABCDEF":
            r = t[k]
            if r["misses"]:
                L.append("| %s | %s | %d | %d | %d | %d | %d | %s |" % (
                    k, name, r["misses"], r["fill"], r["first"], r["repeat"], r["gpuhier_higher"],
                    r["le_64k"] if r["le_64k"] is not None else ""))
        if unknown:
            L.append("| ? | %s | %d | | | | | |" % (name, unknown))
    return L


def write_markdown(path, header, infos, comps, cvw, costres, plaus=None, single=None):
    L = header[:]
    if plaus:
        L += ["## Default metrics present and plausible (issue 3 point 9)", "",
              "Every core metric (schema/metrics.catalogue) present on every profiled launch, no NaN or negative value, rates ≤ 100 %, duration > 0.", "",
              "| program | profiled launches | complete and plausible | first problems |", "| --- | --- | --- | --- |"]
        for prog, (n, okn, probs) in plaus.items():
            L.append("| %s | %d | %d | %s |" % (prog, n, okn, "; ".join(probs)))
        L.append("")
    total = len(comps)
    miss = [c for c in comps if not c["ok"]]
    gated = [c for c in comps if c["kind"] != "time"]
    L += ["## Agreement with Nsight Compute", ""]
    if not infos and single is not None:  # AGREE_PARTS=single: only the like-for-like part ran
        L += ["Multi-pass comparison not run in this call (AGREE_PARTS=%s)." % ",".join(PARTS)]
        L += single_sections(single[0], single[1], comps)
        L += class_section(comps, single[1])
        if notes:
            L += ["", "## Notes", ""] + ["- " + n for n in notes]
        L += ["", "Script time: %.1f s." % elapsed(), ""]
        with open(path, "w") as f:
            f.write("\n".join(L))
        return
    L.append("Tolerances fixed before the run: counters within ±%g %% of ncu's value, rates within ±%g percentage points; durations are shown, not gated (both tools replay with caches and clocks uncontrolled)." % (compare.COUNTER_TOL_PCT, compare.RATE_TOL_POINTS))
    L.append("")
    L.append("%d values compared (%d gated) on %d launch pairs; **%d outside tolerance**." % (
        total, len(gated), sum(i.get("pairs", 0) for i in infos), len(miss)))
    L += ["", "`not same` counts pairs whose instruction or global sector counts differ (%s): those would not be the same launch." % ", ".join(SAME_LAUNCH),
          "", "| program | gpuhier rc | profiled | passes | ncu rc | ncu launches | ncu passes | pairs | unmatched | not same | metrics | note |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i in infos:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            i["program"], i.get("gpuhier_rc"), i.get("profiled"), i.get("passes", ""), i.get("ncu_rc", ""),
            i.get("ncu_launches", ""), i.get("ncu_passes", ""), i.get("pairs", ""), i.get("unmatched", ""),
            i.get("not_same", ""), i.get("metrics", ""), i.get("error", "")))
    L += miss_sections(comps, "###")
    # first launch of each (program, key): every metric
    L += ["", "### Every metric, first profiled launch of each configuration", "",
          "| program | kernel | metric | gpuhier | ncu | diff | ok |", "| --- | --- | --- | --- | --- | --- | --- |"]
    first = {}
    for c in comps:
        k = (c["program"], c["kernel"], c["grid"], c["block"])
        idx = c["index"] if c["index"] is not None else -1
        first[k] = min(first.get(k, idx), idx)
    for c in comps:
        k = (c["program"], c["kernel"], c["grid"], c["block"])
        if (c["index"] if c["index"] is not None else -1) != first[k]:
            continue
        L.append("| %s | `%s` | %s | %s | %s | %s%s | %s |" % (
            c["program"], c["kernel"][:50], c["metric"], fmt(c["gpuhier"]), fmt(c["ncu"]), fmt(c["diff"]),
            " pt" if c["kind"] == "rate" else " %", "yes" if c["ok"] else "**no**"))
    if single is not None:
        L += single_sections(single[0], single[1], comps)
    if cvw:
        L += ["", "## First vs second launch of a configuration (docs/sampling.md)", "",
              "Same report, `--sample all`: for each configuration launched at least twice, the difference between its first two profiled launches (relative %, or points for rates).", "",
              "| metric | configurations | median | max |", "| --- | --- | --- | --- |"]
        for k in sorted(cvw):
            v = cvw[k]
            L.append("| %s | %d | %.3g | %.3g |" % (k, len(v), statistics.median(v), max(v)))
    if costres:
        t = costres["times"]
        nat = statistics.median(t["native"]) if t.get("native") else None
        L += ["", "## Cost on bench/pytorch_train.py", "",
              "Wall time of the whole program, median of up to %d runs each (runs interleaved)." % REPS, "",
              "| mode | runs | median s | × native |", "| --- | --- | --- | --- |"]
        for m, v in t.items():
            med = statistics.median(v) if v else None
            L.append("| %s | %d | %s | %s |" % (m, len(v), fmt(med), fmt(med / nat) if med and nat else ""))
        def med(prefix):
            for m, v in t.items():
                if m.startswith(prefix) and v:
                    return statistics.median(v)
            return None
        trace, allm, ncu_all = med("gpuhier trace"), med("gpuhier every"), med("ncu every")
        L.append("")
        if costres.get("all") and allm and trace and costres["all"]["profiled"]:
            ours = (allm - trace) / costres["all"]["profiled"]
            L.append("gpuhier every-launch cost: %.4f s per profiled launch ((every − trace) / %d profiled)." % (
                ours, costres["all"]["profiled"]))
            if ncu_all and nat and costres.get("ncu_launches"):
                theirs = (ncu_all - nat) / costres["ncu_launches"]
                L.append("ncu every-launch cost: %.4f s per profiled launch ((ncu − native) / %d profiled); ratio gpuhier/ncu = %.3f (target ≤ 0.3)." % (
                    theirs, costres["ncu_launches"], ours / theirs if theirs > 0 else float("nan")))
        for tag, prefix, label in (("default", "gpuhier default sampling", "Default sampling"),
                                   ("budget", "gpuhier budget sampling", "With --profile-budget %s" % PROFILE_BUDGET),
                                   ("keep", "gpuhier kept-enabled sampling",
                                    "Default sampling, profiler kept enabled")):
            d = med(prefix)
            r = costres.get(tag) or {}
            if d and nat:
                L.append("%s: %.3f × native (target ≤ 1.3)%s%s%s." % (
                    label, d / nat,
                    "; %d of %d configurations profiled" % (r["configs_profiled"], r["configs"]) if r.get("configs") else "",
                    "; %d profiles, %.2f s profiling (last run)" % (r["profiled"], r["profiling_s"]) if r.get("profiled") else "",
                    unsampled_note(r.get("unsampled_vs_trace"))))
        for tag in ("all", "default"):
            r = costres.get(tag)
            if r and r["profiled"]:
                # every launch has its row in any mode: what profiling adds is the size beyond the trace report
                tr = (costres.get("trace") or {}).get("bytes")
                extra = ("; %d bytes more than the trace-mode report of the same program = %.0f bytes per profiled "
                         "launch (target ≤ 1024)" % (r["bytes"] - tr, (r["bytes"] - tr) / r["profiled"])) if tr else \
                    " = %.0f bytes per profiled launch, trace rows included (no trace report to subtract)" % (
                        r["bytes"] / r["profiled"])
                L.append("Report size (%s): %d bytes for %d profiled launches%s." % (tag, r["bytes"], r["profiled"], extra))
        if costres.get("ncu_rep_bytes_per_launch"):
            L.append("ncu report: %.0f bytes per profiled launch." % costres["ncu_rep_bytes_per_launch"])
    L += class_section(comps, single[1] if single else [])
    if notes:
        L += ["", "## Notes", ""] + ["- " + n for n in notes]
    L += ["", "Script time: %.1f s." % elapsed(), ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    gpuhier = os.environ.get("GPUHIER") or os.path.join(a.build, "gpuhier")
    tk_dir = os.environ.get("TK_DIR") or os.path.join(a.build, "testkernels")
    os.makedirs(a.out, exist_ok=True)
    tkout, ptout, costout = (os.path.join(a.out, d) for d in ("tk", "pt", "cost"))
    for d in (tkout, ptout, costout):
        os.makedirs(d, exist_ok=True)

    def q(argv):
        rc, _, out = run(argv, 20)
        return out.strip().splitlines()[-1] if out.strip() else "rc %d" % rc
    header = [] if REUSE else ["# gpuhier vs Nsight Compute (issue 3, points 6 and 7)", "",
              "- date: %s" % time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "- GPU, driver: %s" % q(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
              "- ncu: %s" % q([NCU, "--version"]),
              "- gpuhier: %s" % q([gpuhier, "--version"]),
              "- command: `bench/agreement.sh %s` (AGREE_WINDOW=%d AGREE_REPS=%d AGREE_TK_LAUNCHES=%d AGREE_TK_SKIP=%d AGREE_PROGRAMS='%s' AGREE_PT_SKIP=%d AGREE_PT_COUNT=%d BENCH_ARGS='%s')" % (
                  a.build, WINDOW, REPS, TK_LAUNCHES, TK_SKIP, PROGRAMS, PT_SKIP, PT_COUNT, " ".join(BENCH_ARGS)) + " AGREE_PARTS=%s AGREE_CASES=%s TK_REPS=%s AGREE_CACHE=%s" % (",".join(PARTS), CASES, os.environ["TK_REPS"], CACHE),
              "- gpuhier side: `gpuhier run -q -f --no-analyze --sample all --launch-count N --replay kernel [--launch-skip S] -- PROGRAM`",
              "- ncu side: `ncu --csv --page raw --print-units base --print-kernel-base mangled --metrics <the names gpuhier collected> %s --launch-count N [--launch-skip S] PROGRAM`" % " ".join(NCU_COMMON),
              "- like-for-like side (AGREE_PARTS single): per group G of bench/agreement/groups.txt, `gpuhier run ... --sample all --metric-set none --metrics G` and `ncu ... --metrics G` with the same options",
              ""]
    recorded = os.path.join(os.path.dirname(os.path.abspath(REUSE)), "agreement.md") if REUSE else ""
    if recorded and os.path.exists(recorded):
        # the recorded run's header (its date, GPU, driver, commands) stays the header
        with open(recorded) as f:
            old_head = f.read().split("\n## ", 1)[0].rstrip("\n").split("\n")
        header = old_head + ["- recomputed: %s by `AGREE_REUSE=%s bench/agreement.sh` from that run's recorded reports and ncu output (nothing re-run)" % (
            time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), REUSE), ""]
    elif not os.path.exists(gpuhier) and not REUSE:
        notes.append("gpuhier not found at %s" % gpuhier)
    core = core_names_from_source(a.root)
    groups = read_groups() if any(x.startswith("single") for x in PARTS) else []
    comps, infos, alll, scomps, sinfos = [], [], [], [], []
    progs = (programs_from_manifest(a.root, tk_dir)
             if "agree-tk" in PARTS or "single-tk" in PARTS else [])
    if PROGRAMS:
        progs = [p for p in progs if re.search(PROGRAMS, p[0])]
    script = os.path.join(a.root, "bench", "pytorch_train.py")
    have_pt = os.path.exists(script)
    # seconds kept free for the parts after the testkernels
    reserve = ((BUDGET * 0.6 if "cost" in PARTS else 0)
               + (PT_EST_MULTI_S if "agree-pt" in PARTS and have_pt else 0)
               + (PT_EST_SINGLE_S * len(groups) if "single-pt" in PARTS and have_pt else 0))
    if "agree-pt" in PARTS or "single-pt" in PARTS or "cost" in PARTS:
        reserve = min(max(reserve, BUDGET * 0.2), BUDGET * 0.7)  # the testkernels always get some
    pt_reuse = None
    if REUSE:
        d = os.path.join(os.path.dirname(os.path.abspath(REUSE)), "pt")
        pt_reuse = d if glob.glob(os.path.join(d, "*.db")) else None
    single = ("single-tk" in PARTS or "single-pt" in PARTS)
    if REUSE:
        notes.append("recomputed from the recorded outputs in %s (AGREE_REUSE): nothing was run; %s" % (
            REUSE, "the PyTorch part from %s" % pt_reuse if pt_reuse
            else "no recorded PyTorch reports beside it, so the PyTorch part is not recomputed"))

    def save(costres=None):
        write_markdown(os.path.join(a.out, "agreement.md"), header, infos, comps, cold_vs_warm(alll), costres,
                       plausibility(alll, core), (sinfos, scomps) if single else None)

    log("%d testkernel runs, parts %s, %d one-pass groups" % (len(progs), ",".join(PARTS), len(groups)))
    if "agree-tk" in PARTS:
        for label, argv in progs:
            if left() < reserve:
                notes.append("agreement: '%s' and later testkernels skipped for time" % label)
                break
            c, info, ours = agree_program(label, argv, gpuhier, tkout, TK_SKIP, TK_LAUNCHES, core)
            for o in ours:
                o["prog"] = label
            alll += ours
            comps += c
            infos.append(info)
            log("%s: %d pairs, %d values, %d misses" % (label, info.get("pairs", 0), len(c),
                                                        sum(1 for x in c if not x["ok"])))
            save()  # partial results survive a kill at the device's time limit
    if "single-tk" in PARTS:
        for label, argv in progs:
            if left() < reserve:
                notes.append("like for like: '%s' and later testkernels skipped for time" % label)
                break
            for gr in list(groups):
                for c, info in one_pass(label, argv, gpuhier, tkout, TK_SKIP, TK_LAUNCHES, gr, groups):
                    scomps += c
                    sinfos.append(info)
            save()
    argv = ["python3", script] + BENCH_ARGS
    if not have_pt:
        pass
    elif REUSE and not pt_reuse:
        pass
    else:
        if "agree-pt" in PARTS:
            if pt_reuse or left() > 120:
                c, info, ours = agree_program("pytorch_train.py", argv, gpuhier, ptout, PT_SKIP, PT_COUNT, core,
                                              reuse=pt_reuse or "")
                for o in ours:
                    o["prog"] = "pytorch"
                alll += ours
                comps += c
                infos.append(info)
                log("pytorch: %d pairs, %d values, %d misses" % (info.get("pairs", 0), len(c),
                                                                  sum(1 for x in c if not x["ok"])))
                save()
            else:
                notes.append("agreement on the PyTorch benchmark skipped for time")
        if "single-pt" in PARTS:
            for gr in list(groups):
                if not pt_reuse and left() < PT_EST_SINGLE_S + 30:
                    notes.append("like for like on the PyTorch benchmark: group '%s' and later skipped for time" % gr[0])
                    break
                for c, info in one_pass("pytorch_train.py", argv, gpuhier, ptout, PT_SKIP, PT_COUNT, gr, groups,
                                        reuse=pt_reuse or ""):
                    scomps += c
                    sinfos.append(info)
                save()
    if REUSE and ("cost" in PARTS):
        notes.append("AGREE_REUSE: the cost part is not recomputed")
    costres = cost(a.root, gpuhier, costout, core) if "cost" in PARTS and left() > 60 and not REUSE else None
    with open(os.path.join(a.out, "agreement.json"), "w") as f:
        json.dump({"infos": infos, "comparisons": comps, "single": {"infos": sinfos, "comparisons": scomps},
                   "notes": notes}, f, default=str)
    save(costres)
    miss = sum(1 for c in comps if not c["ok"])
    smiss = sum(1 for c in scomps if not c["ok"])
    rp = sum(i.get("replayed", 0) for i in sinfos if not i.get("superseded"))
    bad = implausible(plausibility(alll, core))
    log("done: multi-pass %d values, %d outside tolerance; one pass %d values, %d outside tolerance, %d pairs not single-pass; "
        "%d profiled launches with a default metric missing or implausible; %s" % (
            len(comps), miss, len(scomps), smiss, rp, bad, os.path.join(a.out, "agreement.md")))
    empty = (("agree-tk" in PARTS or "agree-pt" in PARTS) and not comps) or (single and not scomps)
    return 1 if miss or smiss or rp or empty or bad else 0

if __name__ == "__main__":
    sys.exit(main())
