#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/pmprobe/attribute.py: libgh_pmprobe.so's samples attributed to kernels.

    attribute.py DIR [--report DB] [--ncu CSV] [--top N] [--md FILE]

DIR holds one process's pm-PID-{samples,kernels,meta}.tsv (the first PID
found, or every one with --all). Each sample [start, end) carries counter
values over that interval; each kernel record [start, end) its interval on
CUPTI's clock. The two clocks may differ by a constant: the offset is the one
that best lines up the samples' activity counter (gr__cycles_active.sum, else
sm__cycles_active.sum, else the first counter) with the kernels' busy time,
searched around 0 and around "first sample at the Start call" (the clock
pairs of the meta file); the table says which offset won and how well.

A sample's counter (a `.sum`) is split among the kernels that overlap it in
proportion to their overlap (an idle GPU is taken to count nothing, so a
kernel alone in a sample gets all of it, however short; copies, which count
DRAM bytes with no kernel running, are the exception this misreads).
Concurrent kernels, and neighbours sharing a sample at an edge, split it by
their rates (what each counted per nanosecond in the samples it had alone)
times their overlap, or by overlap alone where one of them never had a
sample to itself (a kernel shorter than a sample between two others): the
`edge` column gives the share of a kernel's time in samples it shared. Ratios and
percentages are averaged over the kernel's overlap, weighted by it.

--report DB: the kernels' times from a gpuhier report of the same process
instead of pm-PID-kernels.tsv (the probe attached to the collector,
GPUHIER_DIAG_PMPROBE, traces no kernel of its own): every launch with GPU
times (an instrumented or range-profiled launch has none).

--ncu CSV: `ncu --csv --page raw --print-units base --print-kernel-base
mangled --metrics M,...` of the same program (bench/agreement/ncu_csv.py
reads it); the
i-th ncu row of a kernel name is compared with the i-th probe kernel of that
name, for every metric both have.

--by-config: a second estimate, per configuration (kernel name, grid,
block), for programs whose kernels are shorter than a sample. Each
configuration is taken to count at one rate per nanosecond of its kernels'
time, whatever launch, and each sample's value to be the sum of the rates
times the overlaps (plus one more rate for the sample's time no kernel
covers: copies, write-backs after a kernel). Over thousands of samples, the
launches of one configuration fall at every phase of the sample grid, so
the rates are the non-negative least-squares solution of that system
(deconvolve(); coordinate descent on the normal equations, no numpy). A
configuration's value per launch is its rate times its launches' mean time.
With --ncu, ncu's launches are grouped by configuration too (its mean per
launch, `--filter-mode per-launch-config -c 1` gives one) and compared; the
summary counts the configurations, and their share of the sampled kernel
time, within 10 % and 25 % of ncu's.
"""
import argparse
import bisect
import glob
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "agreement"))
import ncu_csv  # noqa: E402


def load(directory, pid=None):
    """(samples, metrics, kernels, meta) of one process in DIR."""
    pids = sorted(p.split("-")[1] for p in map(os.path.basename, glob.glob(os.path.join(directory, "pm-*-meta.tsv"))))
    if not pids:
        raise SystemExit(f"attribute.py: no pm-PID-meta.tsv in {directory}")
    pid = pid or pids[0]
    meta = {}
    for line in open(os.path.join(directory, f"pm-{pid}-meta.tsv")):
        k, _, v = line.rstrip("\n").partition("\t")
        meta.setdefault(k, []).append(v)
    samples, metrics = [], []
    sp = os.path.join(directory, f"pm-{pid}-samples.tsv")
    if os.path.exists(sp):
        with open(sp) as f:
            head = f.readline().rstrip("\n").split("\t")
            metrics = head[2:]
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) != len(head):
                    continue
                samples.append((int(c[0]), int(c[1]), [float(x) for x in c[2:]]))
    samples.sort()
    # A sample covers one interval of GPU time. CUPTI's first one (ending just after Start, begun
    # about a second before it on the H100, 2026-12-05) and one spanning a restart's gap hold
    # counts of time nobody sampled at that period: they are dropped, and said.
    try:
        interval = int(meta.get("interval_ns", ["0"])[0])
    except ValueError:
        interval = 0
    if not interval and samples:
        interval = int(statistics.median(hi - lo for lo, hi, _ in samples))
    if interval:
        kept = [x for x in samples if x[1] - x[0] <= 2 * interval]
        if len(kept) != len(samples):
            meta["samples_dropped"] = [f"{len(samples) - len(kept)} longer than 2 intervals"]
        samples = kept
    kernels = []
    kp = os.path.join(directory, f"pm-{pid}-kernels.tsv")
    if os.path.exists(kp):
        with open(kp) as f:
            f.readline()
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) < 9:
                    continue
                kernels.append({"start": int(c[0]), "end": int(c[1]), "corr": int(c[2]), "graph_id": int(c[3]),
                                "node": int(c[4]), "stream": int(c[5]), "grid": c[6], "block": c[7],
                                "name": c[8]})
    kernels.sort(key=lambda k: k["start"])
    return samples, metrics, kernels, meta, pid


def report_kernels(db):
    """The kernels of a gpuhier report, as load() gives them: launches with GPU times, by start."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = c.execute(
            "SELECT l.start_ns, l.end_ns, COALESCE(l.correlation_id, 0), COALESCE(l.graph_id, 0),"
            " COALESCE(l.graph_node_id, 0), COALESCE(l.stream_id, 0),"
            " c.grid_x || ',' || c.grid_y || ',' || c.grid_z, c.block_x || ',' || c.block_y || ',' || c.block_z,"
            " k.mangled_name FROM launch l JOIN kernel k ON k.id = l.kernel_id"
            " LEFT JOIN config c ON c.id = l.config_id"
            " WHERE l.start_ns IS NOT NULL AND l.end_ns IS NOT NULL ORDER BY l.start_ns").fetchall()
    finally:
        c.close()
    return [{"start": r[0], "end": r[1], "corr": r[2], "graph_id": r[3], "node": r[4], "stream": r[5],
             "grid": r[6] or "?", "block": r[7] or "?", "name": r[8]} for r in rows]


def activity_index(metrics):
    for name in ("gr__cycles_active.sum", "sm__cycles_active.sum"):
        if name in metrics:
            return metrics.index(name)
    return 0 if metrics else None


def busy_overlap(kernels, starts, longest, lo, hi, offset):
    """Nanoseconds of [lo, hi) covered by any kernel shifted by OFFSET (kernels sorted by start, none
    longer than LONGEST ns)."""
    covered, cur_end = 0, lo
    i = bisect.bisect_left(starts, lo - offset - longest)
    for k in kernels[i:]:
        s, e = k["start"] + offset, k["end"] + offset
        if s >= hi:
            break
        s, e = max(s, cur_end), min(e, hi)
        if e > s:
            covered += e - s
            cur_end = e
    return covered


def score(samples, kernels, starts, longest, act, offset):
    """How well the kernels shifted by OFFSET line up with the samples' activity (0..1)."""
    total = sum(s[2][act] for s in samples) or 1.0
    got = 0.0
    for lo, hi, v in samples:
        if hi > lo and v[act] > 0:
            got += v[act] * busy_overlap(kernels, starts, longest, lo, hi, offset) / (hi - lo)
    return got / total


def clock_offset(samples, kernels, metrics, meta, window=2000):
    """(offset to add to kernel times, its score, score at 0, how it was found).

    Scored on the WINDOW consecutive samples of most activity (the search
    costs a pass over them per offset tried)."""
    act = activity_index(metrics)
    if not samples or not kernels or act is None:
        return 0, 0.0, 0.0, "nothing to align"
    starts = [k["start"] for k in kernels]
    longest = max(k["end"] - k["start"] for k in kernels)
    interval = int(statistics.median(hi - lo for lo, hi, _ in samples)) or 1
    # the WINDOW samples of most activity: a program that idles before its kernels (PyTorch's
    # imports, 2-3 s under the probe on the H200, 2026-12-06) leaves the first ones with only the
    # idle GPU's background count, which no offset lines up (0.4 % of the activity in kernels)
    acc, best_sum, first = 0.0, -1.0, 0
    for i, (_, _, v) in enumerate(samples):
        acc += v[act]
        if i >= window:
            acc -= samples[i - window][2][act]
        if acc > best_sum:
            best_sum, first = acc, max(0, i - window + 1)
    part = samples[first:first + window]
    candidates = {0: "0"}
    for line in meta.get("clock", []):
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "after_start":
            candidates.setdefault(samples[0][0] - int(parts[2]), "first sample at the Start call")
    # the first sample well above the idle GPU's background count (the median sample, in a program
    # that mostly waits), else the first active one
    floor = 10 * statistics.median(v[act] for _, _, v in samples)
    first_active = next((lo for lo, hi, v in samples if v[act] > floor), None)
    if first_active is None:
        first_active = next((lo for lo, hi, v in samples if v[act] > 0), samples[0][0])
    candidates.setdefault(first_active - kernels[0]["start"], "first activity at the first kernel")
    best = None
    for base, how in candidates.items():
        centre = base
        for step, reach in ((interval, 100), (max(1, interval // 16), 32)):
            found = None
            # nearest to the centre first: a periodic program ties at every period, and a tie keeps
            # the offset found first (0 before the other candidates)
            for j in sorted(range(-reach, reach + 1), key=abs):
                off = centre + j * step
                sc = score(part, kernels, starts, longest, act, off)
                if found is None or sc > found[1]:
                    found = (off, sc)
            centre = found[0]
        if best is None or found[1] > best[1]:
            best = (found[0], found[1], how)
    return best[0], best[1], score(part, kernels, starts, longest, act, 0), best[2]


def overlaps(samples, kernels, offset):
    """(kernel index, sample index, overlap ns) for every kernel shifted by OFFSET and every sample it
    overlaps (samples sorted by start, none overlapping another)."""
    starts = [lo for lo, _, _ in samples]
    for ki, k in enumerate(kernels):
        s, e = k["start"] + offset, k["end"] + offset
        i = max(0, bisect.bisect_right(starts, s) - 1)
        while i < len(samples) and samples[i][0] < e:
            lo, hi, _ = samples[i]
            o = min(e, hi) - max(s, lo)
            if o > 0:
                yield ki, i, o
            i += 1


def split_share(lst, ki, o, together, m, alone, alone_ns):
    """Kernel KI's share of metric M in a sample the kernels LST overlap (ki's overlap O): by rate x
    overlap where every kernel of LST has a rate from samples it had alone, else by overlap."""
    if len(lst) == 1:
        return 1.0
    if all(alone_ns[k] for k, _ in lst):
        weights = {k: ov * alone[k][m] / alone_ns[k] for k, ov in lst}
        total = sum(weights.values())
        if total > 0:
            return weights[ki] / total
    return o / together


def attribute(samples, metrics, kernels, offset):
    """Per kernel: its values (dict), samples touched, edge share."""
    additive = [m.endswith(".sum") for m in metrics]
    # kernels overlapping each sample, for the shares
    per_sample = {}
    for ki, i, o in overlaps(samples, kernels, offset):
        per_sample.setdefault(i, []).append((ki, o))
    out = [{"values": [0.0] * len(metrics), "weight": [0.0] * len(metrics), "samples": 0, "edge_ns": 0,
            "time_ns": max(0, k["end"] - k["start"])} for k in kernels]
    # each kernel's rate per metric where it ran alone in a sample (value / overlap), to split the
    # samples it shares by rate x overlap instead of overlap alone
    alone = [[0.0] * len(metrics) for _ in kernels]
    alone_ns = [0] * len(kernels)
    for i, lst in per_sample.items():
        if len(lst) == 1:
            ki, o = lst[0]
            alone_ns[ki] += o
            for m, v in enumerate(samples[i][2]):
                alone[ki][m] += v
    for i, lst in per_sample.items():
        vals = samples[i][2]
        together = sum(o for _, o in lst)
        for ki, o in lst:
            r = out[ki]
            r["samples"] += 1
            if len(lst) > 1:
                r["edge_ns"] += o
            for m, v in enumerate(vals):
                if additive[m]:
                    r["values"][m] += v * split_share(lst, ki, o, together, m, alone, alone_ns)
                else:
                    r["values"][m] += v * o
                    r["weight"][m] += o
    for r in out:
        for m in range(len(metrics)):
            if not additive[m]:
                r["values"][m] = r["values"][m] / r["weight"][m] if r["weight"][m] else None
        r["edge"] = r["edge_ns"] / r["time_ns"] if r["time_ns"] else None
    return out


def config_key(name, grid, block):
    """A configuration's key from a probe kernel ("x,y,z") or an ncu row ("(x, y, z)")."""
    def norm(t):
        return ",".join(p.strip() for p in str(t).strip("() ").split(","))
    return (name, norm(grid), norm(block))


def deconvolve(samples, metrics, kernels, offset, iters=400):
    """({config key: {"launches", "mean_ns", "time_ns", "sampled", "values": [per launch, None for a
    metric that does not add up]}}, [the uncovered time's rate per µs of each metric]): the
    non-negative least-squares rates of every configuration (per ns of its kernels' time) that best
    explain the samples' additive metrics, as the module's docstring says. "sampled": some of the
    configuration's time fell in a sample; "alone": the share of its sampled time in samples no other
    configuration shares (low: its value rests on telling it from its neighbours)."""
    keys, col = [], {}
    launches = {}
    kcol = []  # each kernel's column
    for k in kernels:
        key = config_key(k["name"], k["grid"], k["block"])
        if key not in col:
            col[key] = len(keys)
            keys.append(key)
            launches[key] = []
        launches[key].append(k["end"] - k["start"])
        kcol.append(col[key])
    idle = len(keys)  # the column of time no kernel covers
    n = idle + 1
    rows = [dict() for _ in samples]  # per sample: {column: overlap ns}
    for ki, i, o in overlaps(samples, kernels, offset):
        c = kcol[ki]
        rows[i][c] = rows[i].get(c, 0) + o
    # each column's sampled time, and how much of it lies in samples no other configuration shares
    # (the uncovered time aside): where little does, its rate rests on telling it from neighbours
    sampled_ns, alone = [0] * n, [0] * n
    for r, (lo, hi, _) in zip(rows, samples):
        for c, o in r.items():
            sampled_ns[c] += o
        if len(r) == 1:
            (c, o), = r.items()
            alone[c] += o
        covered = sum(r.values())
        if hi - lo > covered:
            r[idle] = (hi - lo) - covered
            sampled_ns[idle] += r[idle]
    # normal equations: G = A'A (sparse, symmetric), b_m = A'v_m, in microseconds to keep them small
    G = [dict() for _ in range(n)]
    for r in rows:
        items = [(c, o / 1e3) for c, o in r.items()]
        for a, oa in items:
            g = G[a]
            for b, ob in items:
                g[b] = g.get(b, 0.0) + oa * ob
    additive = [m.endswith(".sum") for m in metrics]
    rates = []
    for m in range(len(metrics)):
        if not additive[m]:
            rates.append(None)
            continue
        b = [0.0] * n
        for r, (_, _, v) in zip(rows, samples):
            for c, o in r.items():
                b[c] += (o / 1e3) * v[m]
        x = [0.0] * n
        for _ in range(iters):
            moved = 0.0
            for c in range(n):
                d = G[c].get(c, 0.0)
                if d <= 0:
                    continue
                rest = sum(g * x[j] for j, g in G[c].items() if j != c)
                new = max(0.0, (b[c] - rest) / d)
                moved = max(moved, abs(new - x[c]) / (abs(new) + 1e-12))
                x[c] = new
            if moved < 1e-9:
                break
        rates.append(x)  # per µs of overlap
    out = {}
    for key in keys:
        c = col[key]
        mean_ns = sum(launches[key]) / len(launches[key])
        out[key] = {"launches": len(launches[key]), "mean_ns": mean_ns, "time_ns": sum(launches[key]),
                    "sampled": sampled_ns[c] > 0,
                    "alone": alone[c] / sampled_ns[c] if sampled_ns[c] else None,
                    "values": [x[c] * mean_ns / 1e3 if x is not None else None for x in rates]}
    return out, [x[idle] if x is not None else None for x in rates]


def read_ncu_configs(path):
    """{config key: {metric: mean per launch}, "launches": n} of an ncu csv."""
    acc = {}
    for launch in ncu_csv.parse(open(path, errors="replace").read()):
        key = config_key(launch["kernel"], launch["grid"], launch["block"])
        a = acc.setdefault(key, {"n": 0, "sum": {}})
        a["n"] += 1
        for m, v in launch["metrics"].items():
            if v is not None:
                a["sum"][m] = a["sum"].get(m, 0.0) + v
    return {k: {m: v / a["n"] for m, v in a["sum"].items()} for k, a in acc.items()}


def config_table(samples, metrics, kernels, offset, ncu=None, top=30):
    """Lines of the --by-config section."""
    est, idle = deconvolve(samples, metrics, kernels, offset)
    total = sum(e["time_ns"] for e in est.values()) or 1
    shown = [m for m in metrics if m.endswith(".sum")][:6]
    lines = ["", "Per configuration, deconvolved (rate per ns of kernel time by non-negative least squares, "
             "times the mean launch time):", "",
             "| kernel | grid | block | launches | mean µs | share of kernel time | alone | " + " | ".join(shown) + " |",
             "|---|---|---|---|---|---|---|" + "---|" * len(shown)]
    order = sorted(est, key=lambda k: -est[k]["time_ns"])
    for key in order[:top]:
        e = est[key]
        lines.append(f"| {short(key[0], 40)} | {key[1]} | {key[2]} | {e['launches']} | {e['mean_ns'] / 1e3:.1f} | "
                     f"{e['time_ns'] / total:.1%} | "
                     f"{format(e['alone'], '.0%') if e['alone'] is not None else '-'} | "
                     + " | ".join(fmt(e['values'][metrics.index(m)]) for m in shown) + " |")
    lines.append("")
    lines.append("Rates of the time no kernel covers (per µs): " + ", ".join(
        f"{m} {fmt(r)}" for m, r in zip(metrics, idle) if r is not None))
    if not ncu:
        return lines
    ref = read_ncu_configs(ncu)
    common = [m for m in metrics if m.endswith(".sum") and any(m in v for v in ref.values())]
    lines += ["", "Against ncu per configuration (probe's deconvolved value per launch / ncu's mean per launch):",
              "", "| metric | configurations compared | within 10 % | within 25 % | kernel time within 10 % | "
              "kernel time within 25 % | median ratio |", "|---|---|---|---|---|---|---|"]
    detail = []
    for m in common:
        j = metrics.index(m)
        pairs = []
        for key, e in est.items():
            r = ref.get(key, {}).get(m)
            v = e["values"][j]
            if r is None or v is None or not e["sampled"] or r <= 0:
                continue
            pairs.append((key, v / r, e["time_ns"]))
        if not pairs:
            continue
        t = sum(p[2] for p in pairs) or 1
        w10 = [p for p in pairs if abs(p[1] - 1) <= 0.10]
        w25 = [p for p in pairs if abs(p[1] - 1) <= 0.25]
        lines.append(f"| {m} | {len(pairs)} | {len(w10)} | {len(w25)} | {sum(p[2] for p in w10) / t:.1%} | "
                     f"{sum(p[2] for p in w25) / t:.1%} | {statistics.median(p[1] for p in pairs):.3f} |")
        for key, ratio, tn in sorted(pairs, key=lambda p: -p[2])[:10]:
            detail.append(f"| {short(key[0], 40)} | {key[1]} | {m} | {tn / t:.1%} | {ratio:.3f} |")
    if detail:
        lines += ["", "The heaviest configurations:", "", "| kernel | grid | metric | share of compared time | "
                  "probe / ncu |", "|---|---|---|---|---|"] + detail
    return lines


def read_ncu(path):
    """{kernel name: [ {metric: value} in launch order ]} from an ncu --csv --page raw file (run with
    --print-units base --print-kernel-base mangled, so values are in bytes and names match the probe's)."""
    by_name = {}
    for launch in ncu_csv.parse(open(path, errors="replace").read()):
        by_name.setdefault(launch["kernel"], []).append(launch["metrics"])
    return by_name


def short(name, n=48):
    return name if len(name) <= n else name[:n - 1] + "…"


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def table(directory, ncu=None, top=30, report=None, by_config=False):
    samples, metrics, kernels, meta, pid = load(directory)
    if report:
        kernels = report_kernels(report)
    lines = [f"# PM sampling attributed to kernels: {directory} (pid {pid})", ""]
    for key in ("chip", "interval_ns", "samples", "samples_dropped", "overflow", "restarts", "decode",
                "evaluate_ms", "kernels"):
        lines.append(f"- {key}: {'; '.join(meta.get(key, ['-']))}")
    refused = meta.get("metric_refused", [])
    lines.append(f"- metrics kept: {len(metrics)}; refused: {', '.join(refused) if refused else 'none'}")
    for e in meta.get("error", []):
        lines.append(f"- error: {e}")
    offset, sc, sc0, how = clock_offset(samples, kernels, metrics, meta)
    lines.append(f"- clock offset added to kernel times: {offset} ns ({how}); activity in kernels {sc:.1%} "
                 f"(at offset 0: {sc0:.1%})")
    if not samples or not kernels:
        lines.append("")
        lines.append("No samples or no kernels: nothing to attribute.")
        return "\n".join(lines)
    att = attribute(samples, metrics, kernels, offset)
    lines += ["", "Heaviest kernels (by time):", ""]
    shown = [m for m in metrics][:8]
    lines.append("| kernel | grid | graph | time µs | samples | edge | " + " | ".join(shown) + " |")
    lines.append("|---|---|---|---|---|---|" + "---|" * len(shown))
    order = sorted(range(len(kernels)), key=lambda i: -(kernels[i]["end"] - kernels[i]["start"]))
    for i in order[:top]:
        k, r = kernels[i], att[i]
        lines.append(f"| {short(k['name'])} | {k['grid']} | {'yes' if k['graph_id'] else '-'} | "
                     f"{(k['end'] - k['start']) / 1e3:.1f} | {r['samples']} | "
                     f"{fmt(100 * r['edge']) + ' %' if r['edge'] is not None else '-'} | "
                     + " | ".join(fmt(r['values'][metrics.index(m)]) for m in shown) + " |")
    graph_ns = sum(k["end"] - k["start"] for k in kernels if k["graph_id"])
    all_ns = sum(k["end"] - k["start"] for k in kernels) or 1
    touched = sum(k["end"] - k["start"] for k, r in zip(kernels, att) if r["samples"])
    lines += ["", f"Kernel time in graphs: {graph_ns / all_ns:.1%}; kernel time with samples: {touched / all_ns:.1%}."]
    if by_config:
        lines += config_table(samples, metrics, kernels, offset, ncu, top)
    if ncu:
        lines += ["", "Against ncu (the same program, ncu's i-th launch of a name against the probe's i-th):", ""]
        ref = read_ncu(ncu)
        common = [m for m in metrics if any(m in v for lst in ref.values() for v in lst)]
        lines.append("| kernel | launch | metric | probe | ncu | probe / ncu |")
        lines.append("|---|---|---|---|---|---|")
        seen = {}
        for k, r in zip(kernels, att):
            j = seen.get(k["name"], 0)
            seen[k["name"]] = j + 1
            lst = ref.get(k["name"])
            if not lst or j >= len(lst):
                continue
            for m in common:
                a, b = r["values"][metrics.index(m)], lst[j].get(m)
                if a is None or b is None:
                    continue
                ratio = f"{a / b:.3f}" if b else "-"
                lines.append(f"| {short(k['name'], 40)} | {j} | {m} | {fmt(a)} | {fmt(b)} | {ratio} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--ncu")
    ap.add_argument("--report")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--md")
    ap.add_argument("--by-config", action="store_true")
    a = ap.parse_args()
    text = table(a.dir, a.ncu, a.top, a.report, a.by_config)
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
