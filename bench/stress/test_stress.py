#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/stress/stress.py's build id and --merge on SYNTHETIC
rounds (made-up cells and builds, no GPU): cells of one build add up, the
first failure keeps its round's file, rounds of two builds or of a file
without a build are refused (exit 2), and a failure makes the exit 1."""
import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "agreement"))
from checks import check, done  # noqa: E402
import stress  # noqa: E402

tmp = tempfile.mkdtemp(prefix="stress-test.")


def cell(row, mode, runs, failed=0, first="", endings=1, prof=0):
    return {"row": row, "mode": mode, "runs": runs, "failed": failed, "status": failed, "stdout": 0,
            "stderr": 0, "report": 0, "median_s": 1.0, "with_profile": prof, "native_endings": endings,
            "first_failure": first, "native_status": 42}


def write(name, build, cells):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        json.dump({"build": build, "stage_commit": "abc1234", "date": "2026-12-02 00:00", "cells": cells}
                  if build is not None else cells, f)
    return p


# the build id: the staged CLI's and collector's bytes
stage = os.path.join(tmp, "stage")
os.makedirs(stage)
for n, b in (("gpuhier", b"cli"), ("libgpuhier-collector.so", b"lib")):
    with open(os.path.join(stage, n), "wb") as f:
        f.write(b)
one = stress.build_id(stage)
check(len(one) == 16 and one == stress.build_id(stage), "build id: 16 hex digits, the same twice")
with open(os.path.join(stage, "libgpuhier-collector.so"), "wb") as f:
    f.write(b"lib2")
check(stress.build_id(stage) != one, "another collector is another build")

a = write("a.json", "b1", [cell("ret", "native", 30), cell("ret", "default", 100, prof=40)])
b = write("b.json", "b1", [cell("ret", "native", 30, endings=2), cell("ret", "default", 100, prof=60),
                           cell("exit", "trace", 50, failed=1, first="status 139, native 42")])
build, rounds, cells = stress.merge([a, b])
check(build == "b1" and len(rounds) == 2, "one build, two rounds")
d = cells[("ret", "default")]
check((d["runs"], d["with_profile"], d["failed"]) == (200, 100, 0), "a cell's runs add up: %s" % d)
check(cells[("ret", "native")]["native_endings"] == 2, "native endings: the most in one round")
check(d["with_inst"] is None, "runs instrumented: unknown when a round did not record it")
c1 = write("i1.json", "b1", [dict(cell("ret", "default", 10), with_inst=7)])
c2 = write("i2.json", "b1", [dict(cell("ret", "default", 10), with_inst=3)])
_, _, ic = stress.merge([c1, c2])
check(ic[("ret", "default")]["with_inst"] == 10, "runs instrumented add up when every round has them")
_, _, ic = stress.merge([c1, a])
check(ic[("ret", "default")]["with_inst"] is None, "... and are unknown when one round lacks them")
check("| n/a |" in stress.merged_table("b1", [], ic)[0], "unknown shows as n/a")
e = cells[("exit", "trace")]
check(e["runs"] == 50 and e["failed"] == 1 and e["first_failure"].startswith("b.json: status 139"),
      "a cell of one round, its first failure named by file: %s" % e)
text, fails = stress.merged_table(build, rounds, cells)
check(fails == 1 and "| ret | default | 200 | 0 |" in text and "**1 failed**" in text, "the table")
out = io.StringIO()
with redirect_stdout(out):
    rc = stress.main_merge([a, b], os.path.join(tmp, "t.md"))
check(rc == 1 and os.path.exists(os.path.join(tmp, "t.md")), "--merge exits 1 on a failure, writes --out")
ok = write("ok.json", "b1", [cell("ret", "native", 30)])
with redirect_stdout(io.StringIO()):
    check(stress.main_merge([a, ok]) == 0, "--merge exits 0 without failures")

other = write("c.json", "b2", [cell("ret", "default", 10)])
old = write("old.json", None, [cell("ret", "default", 10)])
for paths, what in (([a, other], "two builds"), ([a, old], "a file without a build")):
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        rc = stress.main_merge(paths)
    check(rc == 2 and "stress.py --merge:" in err.getvalue(), "%s refused (exit 2): %s" % (what, err.getvalue().strip()))

done("unit.stress_merge")
