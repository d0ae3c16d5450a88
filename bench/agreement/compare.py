# SPDX-License-Identifier: MIT
"""Tolerances fixed before the run (issue 3, point 6): counters within
+-1 % (relative), rates within +-2 percentage points. Durations are
reported but not gated: both tools replay the kernel, with caches and
clocks left alone (--cache-control none --clock-control none), so the
time of one launch varies more than 1 % between runs."""
import statistics

COUNTER_TOL_PCT = 1.0
RATE_TOL_POINTS = 2.0


def kind(metric):
    if metric.startswith("gpu__time_duration"):
        return "time"
    if metric.endswith(".pct") or ".pct_of_peak" in metric or metric.endswith(".ratio"):
        return "rate"
    return "counter"


def agree(metric, ours, theirs):
    """(ok, difference): difference in % of ncu's value for counters and
    times, in percentage points for rates."""
    k = kind(metric)
    if k == "rate":
        d = ours - theirs
        return abs(d) <= RATE_TOL_POINTS, d
    if theirs == 0:
        d = 0.0 if ours == 0 else float("inf")
    else:
        d = 100.0 * (ours - theirs) / theirs
    if k == "time":
        return True, d
    return abs(d) <= COUNTER_TOL_PCT, d


def median(xs):
    return statistics.median(xs)
