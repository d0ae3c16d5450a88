# SPDX-License-Identifier: MIT
"""bench/benchlib.py: what the bench scripts print about where they ran, and how they keep it."""
import json
import os
import subprocess
import sys


def gpu_name():
    """'NAME, DRIVER' of the GPU as nvidia-smi says it, or why not."""
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "no nvidia-smi"


def stage_commit(stage):
    """The commit scripts/stage.sh recorded in STAGE/COMMIT, or '?'."""
    try:
        with open(os.path.join(stage, "COMMIT")) as f:
            return f.read().strip()
    except OSError:
        return "?"


def paired(base, other):
    """The ratios of runs made side by side, sorted: the i-th of OTHER over the i-th of BASE, each a
    (seconds, status) or None for a run not made, pairs with a failed or missing run left out. The
    benchmarks alternate their modes run by run, so a pair shares the machine's drift, which on the
    device is as large as the effects measured (natives of 9.3-13.9 s in one call, 2026-12-06)."""
    return sorted(o[0] / n[0] for n, o in zip(base, other)
                  if n and o and n[1] == 0 and o[1] == 0 and n[0] and n[0] > 0)


def paired_text(base, other, digits=2):
    """' (pairs 1.22-1.58)', the range of paired(base, other) for a ratio's cell (DIGITS decimals),
    or '' with fewer than two pairs."""
    r = paired(base, other)
    return " (pairs %.*f–%.*f)" % (digits, r[0], digits, r[-1]) if len(r) >= 2 else ""


def runs_table(out, stem, reuse, measure, render):
    """The runs of a counting benchmark (inst_hang, graph_arming): read from the JSON file
    `reuse` when given (its header says so), else measure() -> (runs, header). Prints
    render(runs, header) and writes it to OUT/STEM.md, the runs and header to OUT/STEM.json."""
    os.makedirs(out, exist_ok=True)
    if reuse:
        with open(reuse) as f:
            data = json.load(f)
        runs, header = data["runs"], data["header"] + ["- recomputed from %s" % reuse]
    else:
        runs, header = measure()
    text = render(runs, header)
    sys.stdout.write(text)
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump({"header": header, "runs": runs}, f, indent=0)
    return 0
