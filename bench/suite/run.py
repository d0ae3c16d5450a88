#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The suite on the device (issue 19 point 8); started by bench/suite/device.sh.

usage: run.py --stage STAGE --out OUT [--budget SECONDS] [--workloads a,b,...]

For each workload of WORKLOADS (bench/suite/<name>.py or .sh), in order:
  1. native: the program alone, timed;
  2. gpuhier: `gpuhier run --no-analyze -o W/gpuhier-%p.db -- program` (default
     sampling: counters on the first launch of each configuration), then
     `gpuhier analyze` on each report it wrote;
  3. ncu: `ncu --set full --cache-control none --clock-control none
     --target-processes all -o W/ncu` with the filter the workload's script
     names on its `# suite-ncu:` line (kernel regex, --launch-skip, -c,
     --filter-mode per-launch-config: the first launch of each configuration,
     the launch gpuhier's default sampling profiles), then each report file
     exported as the details page with its rule results
     (`--csv --page details --print-units base --print-kernel-base mangled`).
Each step runs in its own process group under a time limit, the smaller of
the script's `# suite:` line (native=, gpuhier=, ncu= seconds) and what is
left of the budget less a reserve for the end; a step that would get less
than MIN_STEP_S is skipped and says so. Then bench/suite/compare.py writes
the table, and everything is packed into at most 8 files under OUT: suite.md,
suite-rows.json, and .tar.gz archives of one tree `run/` (logs, the ncu CSVs
and ncu's rule list, the gpuhier reports, the ncu report files while they
fit), each under 15 MiB; packing.txt (in logs) lists what was left out.
After the call: unpack every archive into one folder and run
`python3 bench/suite/compare.py --dir run ...` (docs/suite.md).
"""
import argparse
import glob
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import sys
import tarfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench", "e2e"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import benchlib  # noqa: E402
import ncu_details  # noqa: E402
import proc  # noqa: E402

# In order: the cheap and certain first, so that a long one cut by the budget costs the least.
WORKLOADS = ["cuda_defects", "blas_dnn", "cupy_kernels", "hf_gpt2", "torch_compile", "jax_mlp"]
RESERVE_S = float(os.environ.get("SUITE_RESERVE_S", "35"))   # kept for compare.py and packing
MIN_STEP_S = float(os.environ.get("SUITE_MIN_STEP_S", "15"))  # a step with less time than this is skipped
FILE_CAP = 15 << 20  # bytes per returned file (the device returns files up to 16 MiB)
TOTAL_CAP = 60 << 20
MAX_FILES = 8
NCU_COMMON = ["--set", "full", "--cache-control", "none", "--clock-control", "none", "--target-processes", "all"]


def spec_of(path):
    """The `# suite...:` lines of a workload script: dict(cls, limits, ncu (list), args (list), env (dict),
    ncu_env (dict): variables for the ncu step alone, on top of env)."""
    spec = {"cls": "other", "limits": {}, "ncu": [], "args": [], "env": {}, "ncu_env": {}}
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*suite(-ncu-env|-ncu|-args|-env)?:\s*(.*)$", line.strip())
            if not m:
                continue
            kind, val = m.group(1), m.group(2).strip()
            if kind == "-ncu":
                spec["ncu"] += shlex.split(val)
            elif kind == "-args":
                spec["args"] += shlex.split(val)
            elif kind in ("-env", "-ncu-env"):
                for kv in shlex.split(val):
                    k, _, v = kv.partition("=")
                    spec["env" if kind == "-env" else "ncu_env"][k] = v
            else:
                for kv in shlex.split(val):
                    k, _, v = kv.partition("=")
                    if k == "class":
                        spec["cls"] = v
                    elif v:
                        spec["limits"][k] = float(v)
    return spec


def command_of(path, stage, args):
    if path.endswith(".sh"):
        return ["sh", path, stage] + args
    return [sys.executable, path] + args


class Budget:
    def __init__(self, seconds):
        self.t0 = time.monotonic()
        self.seconds = seconds

    def elapsed(self):
        return time.monotonic() - self.t0

    def left(self):
        return self.seconds - self.elapsed()

    def limit(self, want):
        """Seconds a step may take: want, or what is left less the reserve; None when too little."""
        t = min(want, self.left() - RESERVE_S)
        return t if t >= MIN_STEP_S else None


def log(b, msg):
    print("[%5.0fs] %s" % (b.elapsed(), msg), flush=True)


def step(b, name, cmd, want, logpath, env=None):
    """Runs one step under its limit; returns its record dict(rc, wall_s[, skipped])."""
    lim = b.limit(want)
    if lim is None:
        with open(logpath, "a") as f:
            f.write("$ %s\n[skipped: %.0f s left of the budget]\n" % (" ".join(cmd), b.left()))
        return {"skipped": "budget", "wall_s": 0}
    rc, out, dt = proc.run(cmd, lim, logpath, env)
    rec = {"rc": rc, "wall_s": round(dt, 2), "limit_s": round(lim)}
    if rc == 124:
        rec["timed_out"] = True
    return rec


def tool_output(cmd, timeout=60):
    rc, out = proc.run_group(cmd, timeout)
    return out.decode(errors="replace").strip()


def ncu_rule_list(ncu):
    """(rule identifier, section, parents) of every rule file in ncu's section folders, as text lines."""
    path = shutil.which(ncu) or ncu
    base = os.path.dirname(os.path.realpath(path))
    dirs = []
    for d in [base, os.path.dirname(base), os.path.dirname(os.path.dirname(base))]:
        for cand in glob.glob(os.path.join(d, "sections")) + glob.glob(os.path.join(d, "*", "sections")):
            if os.path.isdir(cand) and cand not in dirs:
                dirs.append(cand)
    files = []
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "*.py"))):
            try:
                with open(p, errors="replace") as f:
                    files.append((p, f.read()))
            except OSError:
                pass
    lines = ["# rule identifier, section, parents: from %s" % (", ".join(dirs) or "no section folder found")]
    for rid, sec, parents in ncu_details.rules_from_sources(files):
        lines.append("%s\t%s\t%s" % (rid, sec, ",".join(parents)))
    return "\n".join(lines) + "\n"


def run_workload(b, name, stage, run_dir, gh, ncu, base_env, scripts=HERE):
    script = os.path.join(scripts, name + (".sh" if os.path.exists(os.path.join(scripts, name + ".sh")) else ".py"))
    spec = spec_of(script)
    w = os.path.join(run_dir, name)
    os.makedirs(w, exist_ok=True)
    env = dict(base_env, **spec["env"])
    cmd = command_of(script, stage, spec["args"])
    lim = spec["limits"]
    meta = {"name": name, "script": os.path.relpath(script, ROOT), "class": spec["cls"], "command": cmd,
            "ncu_filter": spec["ncu"], "ncu_env": spec["ncu_env"], "steps": {}}
    st = meta["steps"]
    log(b, "%s: native" % name)
    st["native"] = step(b, "native", cmd, lim.get("native", 60), os.path.join(w, "native.log"), env)
    log(b, "%s: gpuhier run" % name)
    st["gpuhier"] = step(b, "gpuhier", [gh, "run", "-f", "--no-analyze", "-o", os.path.join(w, "gpuhier-%p.db"), "--"]
                         + cmd, lim.get("gpuhier", 120), os.path.join(w, "gpuhier.log"), env)
    reports = sorted(glob.glob(os.path.join(w, "gpuhier-*.db")))
    if reports:
        t = time.monotonic()
        rcs = []
        for r in reports:
            rec = step(b, "analyze", [gh, "analyze", r, "--rules", os.path.join(ROOT, "rules"), "--top", "0"], 120,
                       os.path.join(w, "analyze.log"), env)
            rcs.append(rec.get("rc", rec.get("skipped")))
        st["analyze"] = {"wall_s": round(time.monotonic() - t, 2), "reports": len(reports),
                         "rc": next((x for x in rcs if x not in (0,)), 0)}
    log(b, "%s: ncu --set full (%s)" % (name, " ".join(spec["ncu"])))
    rep = os.path.join(w, "ncu")
    st["ncu"] = step(b, "ncu", [ncu] + NCU_COMMON + ["-f", "-o", rep] + spec["ncu"] + ["--"] + cmd,
                     lim.get("ncu", 150), os.path.join(w, "ncu.log"), dict(env, **spec["ncu_env"]))
    try:
        with open(os.path.join(w, "ncu.log"), errors="replace") as f:
            st["ncu"]["profiled"] = f.read().count("==PROF== Profiling")
    except OSError:
        pass
    for i, r in enumerate(sorted(glob.glob(rep + "*.ncu-rep"))):
        lim_i = b.limit(90)
        if lim_i is None:
            st["ncu"]["export"] = "skipped (budget)"
            break
        rc, out = proc.run_group([ncu, "--import", r, "--csv", "--page", "details", "--print-units", "base",
                                  "--print-kernel-base", "mangled"], lim_i)
        with open(os.path.join(w, "ncu-details-%d.csv" % i), "wb") as f:
            f.write(out)
        st["ncu"].setdefault("export_rc", []).append(rc)
    with open(os.path.join(w, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    log(b, "%s: done (%s)" % (name, ", ".join("%s %s" % (k, v.get("wall_s")) for k, v in st.items())))
    return meta


def gz_size(path):
    """An upper bound of the file's gzip size (zlib level 1; the archives use level 6)."""
    c = zlib.compressobj(1)
    n = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            n += len(c.compress(chunk))
    return n + len(c.flush()) + 1024


def pack(run_dir, out, direct):
    """Packs run_dir into at most MAX_FILES files under out (direct files copied as they are)."""
    cats = [
        ("logs", lambda p: not re.search(r"\.(db|db-wal|ncu-rep|csv)$", p)),
        ("ncu-csv", lambda p: p.endswith(".csv")),
        ("reports", lambda p: p.endswith((".db", ".db-wal"))),
        ("ncu-rep", lambda p: p.endswith(".ncu-rep")),
    ]
    files = sorted(p for p in glob.glob(os.path.join(run_dir, "**"), recursive=True) if os.path.isfile(p)
                   and not p.endswith("-shm"))   # a -wal file left beside a report holds part of it
    slots = MAX_FILES - len(direct)
    total = sum(os.path.getsize(p) for p in direct)
    plan, left = [], []
    for cat, want in cats:
        members = sorted(((gz_size(p), p) for p in files if want(p) and not any(p in m for _, m in plan)),
                         reverse=True)
        bins = []
        for sz, p in members:
            if sz > FILE_CAP:
                left.append((p, "%d bytes compressed, over the %d per file" % (sz, FILE_CAP)))
                continue
            for bn in bins:
                if bn[0] + sz <= FILE_CAP:
                    bn[0] += sz
                    bn[1].append(p)
                    break
            else:
                bins.append([sz, [p]])
        for i, (sz, ps) in enumerate(bins):
            if slots <= 0 or total + sz > TOTAL_CAP:
                left += [(p, "no room left in the returned files") for p in ps]
                continue
            plan.append(("%s%s.tar.gz" % (cat, "-%d" % (i + 1) if len(bins) > 1 else ""), ps))
            slots -= 1
            total += sz
    txt = ["# what came back from the suite's device call, and what did not"]
    for arc, ps in plan:
        txt.append("%s: %d files" % (arc, len(ps)))
    for p, why in left:
        txt.append("left out: %s (%s)" % (os.path.relpath(p, run_dir), why))
    with open(os.path.join(run_dir, "packing.txt"), "w") as f:
        f.write("\n".join(txt) + "\n")
    if plan and plan[0][0].startswith("logs"):
        plan[0][1].append(os.path.join(run_dir, "packing.txt"))
    os.makedirs(out, exist_ok=True)
    for p in direct:
        shutil.copy(p, os.path.join(out, os.path.basename(p)))
    for arc, ps in plan:
        with tarfile.open(os.path.join(out, arc), "w:gz", compresslevel=6) as t:
            for p in ps:
                t.add(p, arcname=os.path.join("run", os.path.relpath(p, run_dir)))
    return plan, left


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=540)
    ap.add_argument("--workloads", default=os.environ.get("SUITE_WORKLOADS", ",".join(WORKLOADS)))
    ap.add_argument("--ncu", default=os.environ.get("NCU", "ncu"))
    ap.add_argument("--scripts", default=HERE, help="where the workload scripts are (tests use their own)")
    a = ap.parse_args()
    b = Budget(a.budget)
    stage = os.path.abspath(a.stage)
    gh = os.path.join(stage, "gpuhier")
    out = os.path.abspath(a.out)
    run_dir = os.environ.get("SUITE_RUN_DIR") or os.path.join("/tmp", "suite-run-%d" % os.getpid())
    os.makedirs(run_dir)
    cache = "/tmp/suite-cache"
    base_env = dict(os.environ, PYTHONUNBUFFERED="1", SUITE_STAGE=stage,
                    TORCHINDUCTOR_CACHE_DIR=cache + "/inductor", TRITON_CACHE_DIR=cache + "/triton",
                    TORCHINDUCTOR_COMPILE_THREADS="1", CUPY_CACHE_DIR=cache + "/cupy",
                    HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TK_REPS=os.environ.get("TK_REPS", "3"))
    # the GPU and the tools
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "budget_s": a.budget}
    meta["gpu"] = benchlib.gpu_name()
    meta["commit"] = benchlib.stage_commit(stage)
    meta["ncu_version"] = tool_output([a.ncu, "--version"]).splitlines()[-1:] or ["?"]
    meta["ncu_version"] = meta["ncu_version"][0]
    meta["python"] = [sys.version.split()[0]]
    for m in ("torch", "triton", "transformers", "jax", "jaxlib", "cupy-cuda13x", "cupy-cuda12x"):
        try:
            meta["python"].append("%s %s" % (m, importlib.metadata.version(m)))
        except importlib.metadata.PackageNotFoundError:
            pass
    with open(os.path.join(run_dir, "ncu-rules.txt"), "w") as f:
        f.write(ncu_rule_list(a.ncu))
    log(b, "gpu %s, commit %s, %s" % (meta["gpu"], meta["commit"], meta["ncu_version"]))
    meta["workloads"] = []
    for name in [x for x in a.workloads.split(",") if x]:
        meta["workloads"].append(run_workload(b, name, stage, run_dir, gh, a.ncu, base_env, a.scripts)["name"])
    meta["wall_s"] = round(b.elapsed())
    with open(os.path.join(run_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    # the table, as the device's build judged it
    md, raw = os.path.join(run_dir, "suite.md"), os.path.join(run_dir, "suite-rows")
    rc, txt, _ = proc.run([sys.executable, os.path.join(HERE, "compare.py"), "--dir", run_dir, "--md", md,
                           "--raw", raw], max(10, b.left() - 15), os.path.join(run_dir, "compare.log"))
    print(txt, flush=True)
    direct = [p for p in (md, raw + ".json") if os.path.exists(p)]
    plan, left = pack(run_dir, out, direct)
    log(b, "packed %d archives into %s; %d files left out (run/packing.txt)" % (len(plan), out, len(left)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
