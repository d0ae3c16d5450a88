# SPDX-License-Identifier: MIT
"""bench/sassprobe/table.py OUT: the tables of bench/sassprobe/device.sh, in Markdown on stdout.

Reads OUT/runs/PATTERN/WORKLOAD/{rc,wall,stdout,stderr,sassprobe-PID.json} and OUT/env.txt.
Every number printed comes from those files; the expected ratios are those of the kernels'
design (bench/sassprobe/cases.cu), not measurements.
"""
import glob
import json
import os
import sys

WORKLOADS = ["cases", "torch", "triton", "jax"]
SECT = "smsp__sass_sectors_mem_global"
SECT_I = "smsp__sass_sectors_mem_global_ideal"
WAVE = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"
WAVE_I = "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"
INST = "smsp__sass_inst_executed"
LOCAL = "smsp__sass_inst_executed_op_local_ld"

# kernel -> (expected global sectors / ideal, expected shared wavefronts / ideal, why)
EXPECTED = {
    "struct12_read": (2.0, None, "load 12 sectors per warp for an ideal 4, store 4 for 4"),
    "matvec_row": (6.6, None, "A 32 sectors per warp for 4, x broadcast 1 for 1"),
    "copy_coalesced": (1.0, None, "coalesced"),
    "copy_float4": (1.0, None, "16 bytes per thread, coalesced"),
    "smem_conflict": (1.0, 16.5, "row write 1 wavefront, column read 32 (32-way), ideal 1 each"),
    "smem_padded": (1.0, 1.0, "padding removes the conflict"),
    "local_array": (1.0, None, "local loads expected > 0"),
}


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return default


def esc(s):
    """Table-safe text: strings from the programs are not ours."""
    s = "".join(c if c.isprintable() else "?" for c in str(s))
    return s.replace("|", "\\|").replace("`", "'")


def load_run(d):
    run = {"rc": read(os.path.join(d, "rc"), "?"), "wall": read(os.path.join(d, "wall"), ""),
           "last": read(os.path.join(d, "stdout")).splitlines()[-1:] or [""],
           "stderr": read(os.path.join(d, "stderr")).splitlines()[-3:], "procs": []}
    run["last_steps"] = [read(p) for p in sorted(glob.glob(os.path.join(d, "sassprobe-*.last")))]
    for p in sorted(glob.glob(os.path.join(d, "sassprobe-*.json"))):
        try:
            with open(p, encoding="utf-8") as f:
                run["procs"].append(json.load(f))
        except (OSError, ValueError) as e:
            run["stderr"].append(f"unreadable {os.path.basename(p)}: {e}")
    return run


def summarize(run):
    """Functions launched, with data, data without a launch seen, and counters over processes."""
    s = {"first_miss": "-", "launched": 0, "with_data": 0, "data_only": 0, "launches": 0, "graph": 0, "records": 0,
         "enables": 0, "flushes": 0, "errors": {}, "missing": set()}
    for p in run["procs"]:
        c = p.get("counts", {})
        for k, src in (("launches", "launches"), ("graph", "graph_launches"),
                       ("records", "records"), ("enables", "enables"), ("flushes", "flushes")):
            s[k] += c.get(src, 0)
        for f in p.get("functions", []):
            if f["launches"] > 0:
                s["launched"] += 1
                s["with_data"] += 1 if f["has_data"] else 0
            elif f["has_data"]:
                s["data_only"] += 1
        for e in p.get("errors", []):
            key = f"{e['call']}: {e['name']}"
            s["errors"][key] = s["errors"].get(key, 0) + e["count"]
        s["missing"].update(p.get("metrics_missing", []))
        # where data stops: the first launch (in launch order) of a function that got none
        miss = [f.get("first_launch", 0) for f in p.get("functions", [])
                if f["launches"] > 0 and not f["has_data"]]
        if miss:
            s["first_miss"] = str(min(miss))
    return s


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def main():
    out = sys.argv[1]
    rundir = os.path.join(out, "runs")
    names = sorted(os.listdir(rundir), key=lambda n: (n != "native", n)) if os.path.isdir(rundir) else []
    runs = {n: {w: load_run(os.path.join(rundir, n, w)) for w in WORKLOADS
                if os.path.isdir(os.path.join(rundir, n, w))} for n in names}
    print("# SASS-metrics probe (bench/sassprobe/device.sh)\n")
    print("```")
    print(read(os.path.join(out, "env.txt")))
    print("```\n")
    print("Rounds run their four workloads at once; wall times compare rounds run the same way.\n")
    print("| pattern | workload | rc | wall s | native s | x native | launches | functions launched "
          "| with data | first miss at launch # | data, no launch seen | graph launches | records | enables | flushes "
          "| errors (call: result x count) |")
    print("|" + "---|" * 16)
    native = runs.get("native", {})
    for n in names:
        if os.path.exists(os.path.join(rundir, n, "skipped")):
            print(f"| {esc(n)} | all | skipped (time budget) |" + " |" * 13)
            continue
        for w in WORKLOADS:
            if w not in runs[n]:
                continue
            r = runs[n][w]
            nat = native.get(w, {}).get("wall", "")
            x = ratio(float(r["wall"]), float(nat)) if r["wall"] and nat and n != "native" else "-"
            if n == "native":
                print(f"| native | {w} | {esc(r['rc'])} | {esc(r['wall'])} |" + " |" * 12)
                continue
            s = summarize(r)
            errs = "; ".join(f"{esc(k)} x{v}" for k, v in sorted(s["errors"].items())[:4])
            if len(r["procs"]) < len(r["last_steps"]):
                errs += ("; " if errs else "") + "process(es) without output, last step: " + esc(
                    " / ".join(r["last_steps"]))
            if not r["procs"] and not r["last_steps"]:
                errs = "no probe output" + ("; " + esc(" / ".join(r["stderr"])) if r["stderr"] else "")
            print(f"| {esc(n)} | {w} | {esc(r['rc'])} | {esc(r['wall'])} | {esc(nat)} | {x} "
                  f"| {s['launches']} | {s['launched']} | {s['with_data']} | {s['first_miss']} | {s['data_only']} "
                  f"| {s['graph']} | {s['records']} | {s['enables']} | {s['flushes']} | {errs} |")
    libs = set()
    for n in names:
        for r in runs[n].values():
            for p in r["procs"]:
                libs.add(f"{p.get('cupti_library', '?')} (API {p.get('cupti_api_version', '?')})")
    print(f"\nCUPTI the probe's calls bound to: {esc('; '.join(sorted(libs))) or 'none'}.")
    missing = set()
    for n in names:
        for r in runs[n].values():
            missing |= summarize(r)["missing"]
    print(f"\nMetrics the API refused: {esc(', '.join(sorted(missing))) or 'none'}.\n")

    print("## cases.cu, per kernel (sums over its launches)\n")
    print("| pattern | kernel | launches | data | inst | sectors | ideal | ratio | expected "
          "| wavefronts | ideal | ratio | expected | local ld |")
    print("|" + "---|" * 14)
    for n in names:
        r = runs[n].get("cases")
        if not r or not r["procs"]:
            continue
        funcs = [f for p in r["procs"] for f in p.get("functions", [])]
        for k, (eg, es, _why) in EXPECTED.items():
            f = next((f for f in funcs if k in f["name"]), None)
            if not f:
                print(f"| {esc(n)} | {k} | not seen |" + " |" * 11)
                continue
            m = f["sums"]
            print(f"| {esc(n)} | {k} | {f['launches']} | {'yes' if f['has_data'] else 'no'} "
                  f"| {m.get(INST, '-')} | {m.get(SECT, '-')} | {m.get(SECT_I, '-')} "
                  f"| {ratio(m.get(SECT, 0), m.get(SECT_I, 0))} | {eg} "
                  f"| {m.get(WAVE, '-')} | {m.get(WAVE_I, '-')} "
                  f"| {ratio(m.get(WAVE, 0), m.get(WAVE_I, 0))} | {es if es else '-'} "
                  f"| {m.get(LOCAL, '-')} |")
    print("\nExpected ratios are the kernels' design (cases.cu), not measurements: "
          + "; ".join(f"{k}: {v[2]}" for k, v in EXPECTED.items()) + ".\n")

    print("## Source lines (cuptiGetSassToSourceCorrelation on the cubin captured at module load)\n")
    print("| pattern | workload | function | pc | executed | file:line |")
    print("|---|---|---|---|---|---|")
    shown = 0
    for n in names:
        for w in WORKLOADS:
            r = runs[n].get(w)
            for p in (r["procs"] if r else []):
                for s in p.get("source_lines", [])[:4 if w != "cases" else 21]:
                    loc = f"{s['dir']}/{s['file']}:{s['line']}" if s["file"] else (
                        "no line info" if s["cubin"] else "cubin not captured")
                    print(f"| {esc(n)} | {w} | {esc(s['function'][:60])} | {s['pc']} "
                          f"| {s['inst']} | {esc(loc)} |")
                    shown += 1
        if shown > 40:
            break

    print("\n## Functions launched without data (first 8 per run)\n")
    for n in names:
        for w in WORKLOADS:
            r = runs[n].get(w)
            if not r or n == "native":
                continue
            miss = [f["name"] for p in r["procs"] for f in p.get("functions", [])
                    if f["launches"] > 0 and not f["has_data"]]
            if miss:
                print(f"- {esc(n)} / {w}: {len(miss)}: " + ", ".join(esc(m[:50]) for m in miss[:8]))
    print("\n## Run output (last line; stderr tail when rc is not 0)\n")
    for n in names:
        for w, r in runs[n].items():
            tail = " / ".join(r["stderr"]) if r["rc"] != "0" else ""
            print(f"- {esc(n)} / {w}: rc {esc(r['rc'])}: {esc(r['last'][0])}"
                  + (f" -- {esc(tail)}" if tail else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
