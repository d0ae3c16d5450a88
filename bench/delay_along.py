# SPDX-License-Identifier: MIT
"""bench/delay_along.py: where along a run the default's overhead accrues.

cost_vs_ncu.py gives one number per run (the default's wall time against a
native one). To cut it one needs to know *when* the time is lost: before the
program's first kernel (the collector's set-up), in the first steps (the
instrumentation engine serves each configuration's first launch), at the
range profiler's enables and group switches, at the exit. Two reports of the
same deterministic program answer it: one under `--mode trace` (tracing only,
the reference) and one under the default. Launches are matched by their
correlation id (the same program makes the same API calls in the same order)
and a launch's delay is

    (its kernel's start - the report's run.start_ns) in the default
  - (the same in the trace run)

so the delay grows wherever the default held the program up. Between two
consecutive matched launches the growth is set beside what the default's
engines did there: the instrumented launches (inst_launch.overhead_ns) and
range profiles (profile.overhead_ns) whose correlation ids fall in between.
The two runs' own noise (a Python import that took 0.3 s longer) is in the
first row; read the growth, not the level, after it.

Usage: delay_along.py TRACE.db DEFAULT.db [--jumps N] prints

  - the delay at the first matched kernel, at quantiles of the matched
    launches and at the last, and the tail after the last kernel (run.end_ns
    - the last kernel's end: the exit);
  - the N largest growths between consecutive matched launches, with what
    the default's engines spent in between.
"""
import sqlite3
import sys


def timeline(path):
    """({correlation id: (seconds from run start to kernel start, short name)}, run seconds, tail
    seconds: run end - the last kernel's end), from report `path`."""
    c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    start, end = c.execute("SELECT start_ns, end_ns FROM run").fetchone()
    t = {}
    last_end = start
    for corr, s, e, name in c.execute(
            "SELECT l.correlation_id, l.start_ns, l.end_ns, coalesce(k.short_name, k.mangled_name) FROM launch l "
            "JOIN kernel k ON k.id = l.kernel_id WHERE l.start_ns IS NOT NULL AND l.graph_id IS NULL"):
        t[corr] = ((s - start) / 1e9, name)
        last_end = max(last_end, e or s)
    c.close()
    return t, ((end or last_end) - start) / 1e9, ((end or last_end) - last_end) / 1e9


def spent(path):
    """[(correlation id, 'instrumented' or the profile's group, overhead seconds)] of report `path`'s
    instrumented launches and range profiles, in correlation order."""
    c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    have = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    rows = []
    # inst_launch came with the instrumentation engine (schema version 2): older reports lack it
    if "inst_launch" in have:
        rows += c.execute("SELECT l.correlation_id, 'instrumented', i.overhead_ns FROM inst_launch i "
                          "JOIN launch l ON l.id = i.launch_id").fetchall()
    if "profile" in have:
        rows += c.execute("SELECT l.correlation_id, p.metric_set, p.overhead_ns FROM profile p "
                          "JOIN launch l ON l.id = p.launch_id").fetchall()
    c.close()
    return sorted((corr, what or "profile", (ns or 0) / 1e9) for corr, what, ns in rows)


def along(trace_path, default_path, jumps=8):
    """The rows delay_along prints, as a dict: 'matched', 'levels' [(label, correlation id, delay s)],
    'tail' (trace, default), 'runs' (trace, default seconds), 'jumps' [(from corr, to corr, growth s,
    instrumented n, their s, profiles n, their s)]."""
    t, t_run, t_tail = timeline(trace_path)
    d, d_run, d_tail = timeline(default_path)
    common = sorted(set(t) & set(d))
    out = {"matched": len(common), "runs": (t_run, d_run), "tail": (t_tail, d_tail), "levels": [], "jumps": []}
    if not common:
        return out
    delay = {c: d[c][0] - t[c][0] for c in common}
    picks = [("first kernel", common[0])]
    for q in (0.1, 0.25, 0.5, 0.75, 0.9):
        picks.append(("%d %% of the launches" % round(q * 100), common[min(len(common) - 1, int(len(common) * q))]))
    picks.append(("last kernel", common[-1]))
    out["levels"] = [(label, c, delay[c]) for label, c in picks]
    work = spent(default_path)
    steps = []
    for a, b in zip(common, common[1:]):
        grow = delay[b] - delay[a]
        inside = [w for w in work if a < w[0] <= b]
        inst = [w[2] for w in inside if w[1] == "instrumented"]
        prof = [w[2] for w in inside if w[1] != "instrumented"]
        steps.append((a, b, grow, len(inst), sum(inst), len(prof), sum(prof)))
    steps.sort(key=lambda s: -s[2])
    out["jumps"] = steps[:jumps]
    # what came before the first matched kernel: the collector's set-up and the engines' first work
    before = [w for w in work if w[0] <= common[0]]
    out["before_first"] = (sum(1 for w in before if w[1] == "instrumented"),
                           sum(w[2] for w in before if w[1] == "instrumented"),
                           sum(1 for w in before if w[1] != "instrumented"),
                           sum(w[2] for w in before if w[1] != "instrumented"))
    return out


def table(r):
    """Markdown of along()'s rows."""
    lines = ["| where | correlation id | delay of the default against the trace run |", "| --- | --- | --- |"]
    for label, c, dl in r["levels"]:
        lines.append("| %s | %d | %.3f s |" % (label, c, dl))
    lines.append("| the exit (run end - last kernel end) | - | %.3f s against %.3f s |" % (r["tail"][1], r["tail"][0]))
    lines.append("")
    lines.append("Matched launches: %d; runs %.2f s (trace) and %.2f s (default)." % (
        r["matched"], r["runs"][0], r["runs"][1]))
    if "before_first" in r:
        n_i, s_i, n_p, s_p = r["before_first"]
        lines.append("Up to the first matched kernel the default's engines spent %.3f s (%d instrumented launches) "
                     "and %.3f s (%d range profiles); the rest of that delay is the collector's set-up and the "
                     "runs' own noise." % (s_i, n_i, s_p, n_p))
    lines.append("")
    lines.append("| growth between launches | delay grew | instrumented launches there (their time) | "
                 "range profiles there (their time) |")
    lines.append("| --- | --- | --- | --- |")
    for a, b, g, ni, si, npf, sp in r["jumps"]:
        lines.append("| %d to %d | %.3f s | %d (%.3f s) | %d (%.3f s) |" % (a, b, g, ni, si, npf, sp))
    return "\n".join(lines)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    jumps = 8
    if "--jumps" in argv:
        i = argv.index("--jumps")
        jumps = int(argv[i + 1])
        args = [a for a in args if a != argv[i + 1]]
    if len(args) != 2:
        print("usage: delay_along.py TRACE.db DEFAULT.db [--jumps N]", file=sys.stderr)
        return 2
    try:
        r = along(args[0], args[1], jumps)
    except (sqlite3.Error, TypeError) as e:
        print("delay_along: cannot read the reports: %s" % e, file=sys.stderr)
        return 1
    print(table(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
