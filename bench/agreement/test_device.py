#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/agree_device.sh with SYNTHETIC tools: a fake
nvidia-smi, a fake ncu and a fake gpuhier (reports built by synth.py with
made-up counts) on PATH and in a fake stage. Checks that the three parts
run in order under their budgets, that a part not asked for is said so,
and that what comes back is at most 8 files with names the device tool
accepts."""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from checks import check, done  # noqa: E402
import synth  # noqa: E402

tmp = tempfile.mkdtemp()
bin_, stage = os.path.join(tmp, "bin"), os.path.join(tmp, "stage")
os.makedirs(bin_)
os.makedirs(os.path.join(stage, "gpu"))


def script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


script(os.path.join(bin_, "nvidia-smi"), "#!/bin/sh\necho 'synthetic GPU, 0'\n")
script(os.path.join(stage, "gpu", "cases"), "#!/bin/sh\nexit 0\n")
open(os.path.join(stage, "COMMIT"), "w").write("synthetic\n")
script(os.path.join(stage, "gpuhier"), """#!%s
import os, subprocess, sys
sys.path.insert(0, %r)
import synth
a = sys.argv
r = synth.Report(a[a.index("-o") + 1].replace("%%p", str(os.getpid())))
if os.environ.get("GPUHIER_INSTRUMENT"):
    r.instrumented("_Z1kv", {"smsp__sass_sectors_mem_global": [100], "smsp__sass_sectors_mem_global_ideal": [25]},
                   overhead_ns=2000000)
else:
    r.profiled("_Z1kv", "group1/2", {"smsp__inst_executed.sum": 10, "dram__bytes_read.sum": 64})
    r.profiled("_Z1kv", "group2/2", {"smsp__inst_executed.sum": 10, "lts__t_sectors_lookup_hit.sum": 5})
r.close()
sys.exit(subprocess.call(a[a.index("--") + 1:]))
""" % (sys.executable, here))
script(os.path.join(bin_, "ncu"), """#!%s
import sys
sys.path.insert(0, %r)
import synth
a = sys.argv
if "--version" in a:
    print("synthetic ncu")
    sys.exit(0)
names = a[a.index("--metrics") + 1].split(",")
v = {"smsp__sass_sectors_mem_global.sum": 100, "memory_l2_theoretical_sectors_global_ideal": 25,
     "smsp__inst_executed.sum": 10, "dram__bytes_read.sum": 64, "lts__t_sectors_lookup_hit.sum": 5}
print(synth.ncu_text([("_Z1kv", "(32, 1, 1)", "(1, 1, 1)", {n: v.get(n, 0) for n in names})] * 2, names))
""" % (sys.executable, here))

out = os.path.join(tmp, "out")
env = dict(os.environ, PATH=bin_ + os.pathsep + os.environ["PATH"], OUT=out, BUDGET_S="200",
           INST_PROGRAMS="cases", SPREAD_PROGRAMS="cases", COST_WORKLOADS="pytorch", COST_REPS="1",
           COST_PT_ARGS="--steps 1 --warmup 0")
p = subprocess.run(["sh", os.path.join(synth.ROOT, "bench", "agree_device.sh"), stage], env=env,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
text = p.stdout.decode("utf-8", "replace")
check(p.returncode == 0, "agree_device.sh exit %d" % p.returncode)
for part in ("inst", "spread", "cost"):
    check(re.search(r"== %s: status \d+, \d+ s" % part, text), "part %s ran and said its status" % part)
check("== inst: status 0" in text and "== spread: status 0" in text, "both agreement parts met their synthetic gates")
files = sorted(os.listdir(out))
check(len(files) <= 8, "at most 8 files come back: %s" % files)
check(all(re.match(r"^[A-Za-z0-9._-]+$", f) and os.path.isfile(os.path.join(out, f)) for f in files),
      "plain files with names the device tool accepts")
for f in ("agree-device.log", "inst-agree.md", "spread-agree.md", "instrument-cost.md", "raw.tar.gz"):
    check(f in files, "%s is packed" % f)
check("**Gate (+-0.5 % on every value): met**" in open(os.path.join(out, "inst-agree.md")).read(),
      "the instrumentation table")

# a part not asked for is said so, and the budget guard skips a part with too little left
out2 = os.path.join(tmp, "out2")
p = subprocess.run(["sh", os.path.join(synth.ROOT, "bench", "agree_device.sh"), stage],
                   env=dict(env, OUT=out2, AGREE_DEVICE_PARTS="cost", BUDGET_S="25"),
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
text = p.stdout.decode("utf-8", "replace")
check("== inst: not asked for" in text and "== spread: not asked for" in text, "parts not asked for are named")
check(re.search(r"== cost: skipped, \d+ s left of BUDGET_S=25", text), "a part with under 30 s left is skipped")
sys.exit(done("test_device"))
