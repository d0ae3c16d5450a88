#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The agreement pipeline end to end without a GPU: a fake `gpuhier` writes
a report with the real schema (schema/schema.sql) and a fake `ncu` prints
the CSV recorded on the H200 (testdata/). Checks the pairing, the
tolerance verdicts, the cold-vs-warm table and the cost table's arithmetic
are produced; the values themselves are synthetic (made equal to ncu's,
one off by 5 %)."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))

FAKE_GPUHIER = r'''#!/usr/bin/env python3
import os, sqlite3, sys
args = sys.argv[1:]
if args and args[0] == "--version":
    print("gpuhier fake"); sys.exit(0)
assert args[0] == "run"
out = args[args.index("-o") + 1].replace("%p", str(os.getpid()))
mode = args[args.index("--mode") + 1] if "--mode" in args else "profile"
db = sqlite3.connect(out)
db.executescript(open(os.environ["SCHEMA"]).read())
db.execute("INSERT INTO kernel(id, mangled_name, demangled_name) VALUES (1, '_Z5scalePfif', 'scale(float*, int, float)')")
db.execute("INSERT INTO config(id, kernel_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes) VALUES (1, 1, 16384, 1, 1, 256, 1, 1, 0)")
names = ["dram__bytes_read.sum", "l1tex__t_sector_hit_rate.pct", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
         "sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum"]
for i, n in enumerate(names):
    db.execute("INSERT INTO metric_name(id, name) VALUES (?, ?)", (i + 1, n))
vals = [[49152, 50.0, 524288, 46.06, 12032], [49152 * 1.05, 49.0, 524288, 45.56, 11936]]
for l in range(3):
    prof = 1 if (mode != "trace" and l >= 1) else 0
    db.execute("INSERT INTO launch(id, kernel_id, config_id, correlation_id, start_ns, config_launch_index, profiled, profile_reason) VALUES (?, 1, 1, ?, ?, ?, ?, ?)",
               (l + 1, 10 + l, 1000 * l, l, prof, "sample_all" if prof else "skip_count"))
    if prof:
        db.execute("INSERT INTO profile(launch_id, passes) VALUES (?, 2)", (l + 1,))
        for i, v in enumerate(vals[l - 1]):
            db.execute("INSERT INTO metric(launch_id, metric_id, value) VALUES (?, ?, ?)", (l + 1, i + 1, v))
db.commit()
'''

FAKE_NCU = r'''#!/bin/sh
case "$1" in --version) echo "NVIDIA Nsight Compute fake 0.0"; exit 0;; esac
for a in "$@"; do case "$a" in --csv) cat "$NCU_CSV"; exit 0;; esac; done
echo "==PROF== Profiling \"scale\": 0%....100% - 2 passes"
exit 0
'''


def main():
    tmp = tempfile.mkdtemp(prefix="agree-")
    try:
        bindir = os.path.join(tmp, "bin")
        tk = os.path.join(tmp, "tk")
        os.makedirs(bindir)
        os.makedirs(tk)
        for name, text in (("gpuhier", FAKE_GPUHIER), ("ncu", FAKE_NCU), ("tk_fake", "#!/bin/sh\nexit 0\n")):
            p = os.path.join(tk if name == "tk_fake" else bindir, name)
            with open(p, "w") as f:
                f.write(text)
            os.chmod(p, os.stat(p).st_mode | stat.S_IEXEC)
        with open(os.path.join(tk, "binaries.txt"), "w") as f:
            f.write("tk_fake\ntk_missing\n")
        fake_root = os.path.join(tmp, "root")
        os.makedirs(os.path.join(fake_root, "bench"))
        os.makedirs(os.path.join(fake_root, "collector"))
        os.makedirs(os.path.join(fake_root, "testkernels"))
        shutil.copy(os.path.join(root, "collector", "metrics.c"), os.path.join(fake_root, "collector"))
        # a stand-in benchmark so the cost table is exercised
        with open(os.path.join(fake_root, "bench", "pytorch_train.py"), "w") as f:
            f.write("print('bench')\n")
        out = os.path.join(tmp, "out")
        env = dict(os.environ, GPUHIER=os.path.join(bindir, "gpuhier"), NCU=os.path.join(bindir, "ncu"),
                   TK_DIR=tk, SCHEMA=os.path.join(root, "schema", "schema.sql"),
                   NCU_CSV=os.path.join(here, "testdata", "ncu-raw-skip1-count2.csv"),
                   AGREE_REPS="3", AGREE_BUDGET_S="200", OUT=out)
        p = subprocess.run([sys.executable, os.path.join(here, "run.py"), "--root", fake_root,
                            "--build", tmp, "--out", out], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=190)
        log = p.stdout.decode()
        print(log)
        md = open(os.path.join(out, "agreement.md")).read()
        print(md)
        failed = 0

        def check(c, what):
            nonlocal failed
            if not c:
                print("FAIL", what)
                failed = 1
        check(p.returncode == 1, "exit 1: there is a miss")
        check("on 4 launch pairs" in md, "two pairs per program")
        check("**2 outside tolerance**" in md, "exactly one miss per program (the 5 % DRAM value)")
        check("| tk_fake | `scale(float*, int, float)` | (16384, 1, 1) | (256, 1, 1) | 2 | dram__bytes_read.sum" in md,
              "the miss is listed with its launch")
        check("### Misses per metric" in md and "| dram__bytes_read.sum | 2 | 4 |" in md, "misses summarized per metric")
        check("tk_missing" in md and "not built" in md, "missing testkernel noted")
        check("| l1tex__t_sector_hit_rate.pct | 2 | 1 | 1 |" in md, "cold vs warm: hit rate 1 point")
        check("| pytorch_train.py | 0 | 2 | 2 |" in md, "the benchmark is compared too, with its passes")
        check("| native | 3 |" in md, "native timed 3 times")
        check("| tk_fake | 2 | 0 | `scale` #1: missing gpu__time_duration.sum" not in md, "synthetic report has a duration")
        check("| tk_fake | 2 | 0 |" in md, "plausibility: the synthetic report lacks most core metrics")
        check("per profiled launch" in md, "per-launch costs")
        check("Report size (all)" in md, "report size")
        print("agreement pipeline:", "FAIL" if failed else "ok")
        return failed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
