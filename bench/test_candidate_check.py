#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit test of bench/candidate_check.sh without a GPU, with a SYNTHETIC
nvidia-smi and stage: no GPU is a skip (77), a CANDIDATE word that is not
VAR=VALUE is refused (2), the parts not asked for and those the budget
cannot hold are said so, and what comes back is at most 8 plain files
with names the device tool accepts. The parts themselves are the scripts
they call, tested on their own (unit.cost_vs_ncu, unit.stress_merge,
unit.agreement_spread)."""
import os
import re
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "bench", "agreement"))
from checks import check, done  # noqa: E402

tmp = tempfile.mkdtemp()
bin_, stage, empty = os.path.join(tmp, "bin"), os.path.join(tmp, "stage"), os.path.join(tmp, "empty")
for d in (bin_, stage, empty):
    os.makedirs(d)


def script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


script(os.path.join(stage, "gpuhier"), "#!/bin/sh\nexit 0\n")
open(os.path.join(stage, "COMMIT"), "w").write("synthetic\n")
script(os.path.join(bin_, "nvidia-smi"), "#!/bin/sh\necho 'synthetic GPU, 0'\n")
sysdirs = "/usr/bin:/bin"


def run(extra, path):
    out = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, PATH=path, OUT=out, **extra)
    if "CANDIDATE" not in extra:
        env.pop("CANDIDATE", None)
    p = subprocess.run(["sh", os.path.join(root, "bench", "candidate_check.sh"), stage], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), out


rc, text, _ = run({}, empty + os.pathsep + sysdirs)
check(rc == 77 and "skipped: no GPU" in text, "no GPU: skipped, 77 (got %d: %s)" % (rc, text.strip()))
rc, text, _ = run({"CANDIDATE": "GPUHIER_DIAG_SESSION=kept BAD"}, bin_ + os.pathsep + sysdirs)
check(rc == 2 and "not VAR=VALUE: BAD" in text, "a word that is not VAR=VALUE refused (got %d: %s)" % (rc, text.strip()))
rc, text, out = run({"CANDIDATE_PARTS": "none"}, bin_ + os.pathsep + sysdirs)
check(rc == 0, "no part asked for: exit 0 (got %d)" % rc)
check("candidate: none (the default)" in text, "the default candidate is the default, nothing exported")
rc, text, _ = run({"CANDIDATE_PARTS": "none", "CANDIDATE": "GPUHIER_DIAG_SESSION=launch"}, bin_ + os.pathsep + sysdirs)
check(rc == 0 and "candidate: GPUHIER_DIAG_SESSION=launch" in text, "a candidate's variables are named")
for part in ("tests", "stress", "cost", "spread"):
    check("== %s: not asked for" % part in text, "part %s said not asked for" % part)
rc, text, out2 = run({"CANDIDATE_PARTS": "tests", "BUDGET_S": "20"}, bin_ + os.pathsep + sysdirs)
check(re.search(r"== tests: skipped, -?\d+ s left of BUDGET_S=20", text), "a part the budget cannot hold is skipped")
for d in (out, out2):
    files = sorted(os.listdir(d))
    check(len(files) <= 8 and "candidate.log" in files, "at most 8 files, the log among them: %s" % files)
    check(all(re.match(r"^[A-Za-z0-9._-]+$", f) and os.path.isfile(os.path.join(d, f)) for f in files),
          "plain files with names the device tool accepts")
sys.exit(done("candidate_check"))
