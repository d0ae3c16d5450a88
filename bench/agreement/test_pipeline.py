#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The agreement pipeline end to end without a GPU: a fake `gpuhier` writes
a report with the real schema (schema/schema.sql) and a fake `ncu` prints
the CSV recorded on the H200 (testdata/). Checks the pairing, the
tolerance verdicts, the cold-vs-warm table and the cost table's arithmetic
are produced; the values themselves are synthetic (made equal to ncu's,
one off by 5 %). The like-for-like part (AGREE_PARTS=single) runs each
group of groups.txt with `--metric-set none --metrics G`; its ncu CSV is
the recorded one with the pass column set to 1 (synthetic), and a second
run keeps the recorded 3 passes to show replayed pairs are flagged.
AGREE_REUSE recomputes the first run from its files."""
import csv
import io
import re
import os
import shutil
import stat
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)
from checks import check, done  # noqa: E402

FAKE_GPUHIER = r'''#!/usr/bin/env python3
import os, sqlite3, sys
args = sys.argv[1:]
if args and args[0] == "--version":
    print("gpuhier fake"); sys.exit(0)
assert args[0] == "run"
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(" ".join(args) + "\n")
out = args[args.index("-o") + 1].replace("%p", str(os.getpid()))
mode = args[args.index("--mode") + 1] if "--mode" in args else "profile"
db = sqlite3.connect(out)
db.executescript(open(os.environ["SCHEMA"]).read())
db.execute("INSERT INTO kernel(id, mangled_name, demangled_name) VALUES (1, '_Z5scalePfif', 'scale(float*, int, float)')")
db.execute("INSERT INTO config(id, kernel_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes) VALUES (1, 1, 16384, 1, 1, 256, 1, 1, 0)")
names = ["dram__bytes_read.sum", "l1tex__t_sector_hit_rate.pct", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
         "sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum"]
vals = [[49152, 50.0, 524288, 46.06, 12032], [49152 * 1.05, 49.0, 524288, 45.56, 11936]]
passes = 2
if "--metric-set" in args:  # --metric-set none --metrics LIST: only those names
    assert args[args.index("--metric-set") + 1] == "none"
    want = args[args.index("--metrics") + 1].split(",")
    keep = [i for i, n in enumerate(names) if n in want]
    names = [names[i] for i in keep]
    vals = [[v[i] for i in keep] for v in vals]
    passes = int(os.environ.get("FAKE_PASSES", "1"))
for i, n in enumerate(names):
    db.execute("INSERT INTO metric_name(id, name) VALUES (?, ?)", (i + 1, n))
for l in range(3):
    prof = 1 if (mode != "trace" and l >= 1) else 0
    db.execute("INSERT INTO launch(id, kernel_id, config_id, correlation_id, start_ns, config_launch_index, profiled, profile_reason) VALUES (?, 1, 1, ?, ?, ?, ?, ?)",
               (l + 1, 10 + l, 1000 * l, l, prof, "sample_all" if prof else "skip_count"))
    if prof:
        db.execute("INSERT INTO profile(launch_id, passes) VALUES (?, ?)", (l + 1, passes))
        for i, v in enumerate(vals[l - 1]):
            db.execute("INSERT INTO metric(launch_id, metric_id, value) VALUES (?, ?, ?)", (l + 1, i + 1, v))
db.commit()
'''

FAKE_NCU = r'''#!/bin/sh
case "$1" in --version) echo "NVIDIA Nsight Compute fake 0.0"; exit 0;; esac
csv=$NCU_CSV
# a like-for-like group (no global sector metric asked for) gets NCU_CSV_SINGLE if set
case "$*" in *l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum*) ;; *) csv=${NCU_CSV_SINGLE:-$NCU_CSV};; esac
# ... except a list holding NCU_MULTI_IF, which gets the recorded CSV (3 passes)
[ -n "${NCU_MULTI_IF:-}" ] && case "$*" in *"$NCU_MULTI_IF"*) csv=$NCU_CSV;; esac
for a in "$@"; do case "$a" in --csv) cat "$csv"; exit 0;; esac; done
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
        os.makedirs(os.path.join(fake_root, "schema"))
        os.makedirs(os.path.join(fake_root, "testkernels"))
        shutil.copy(os.path.join(root, "schema", "metrics.catalogue"), os.path.join(fake_root, "schema"))
        # a stand-in benchmark so the cost table is exercised
        with open(os.path.join(fake_root, "bench", "pytorch_train.py"), "w") as f:
            f.write("print('bench')\n")
        recorded = os.path.join(here, "testdata", "ncu-raw-skip1-count2.csv")
        # synthetic: the recorded CSV with ncu's pass count set to 1 on every launch
        single_csv = os.path.join(tmp, "ncu-single-synthetic.csv")
        lines = open(recorded).read().splitlines()
        table = [i for i, l in enumerate(lines) if l.startswith('"')]
        rows = list(csv.reader(io.StringIO("\n".join(lines[i] for i in table))))
        col = rows[0].index("profiler__replayer_passes")
        def write_csv(path):
            """The recorded CSV with its table rows replaced by `rows`."""
            buf = io.StringIO()
            csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
            for i, l in zip(table, buf.getvalue().splitlines()):
                lines[i] = l
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")

        for r in rows[2:]:
            r[col] = "1"
        write_csv(single_csv)
        # synthetic too: the same without ncu's pass column
        nopass_csv = os.path.join(tmp, "ncu-nopass-synthetic.csv")
        for r in rows:
            del r[col]
        write_csv(nopass_csv)
        fake_log = os.path.join(tmp, "gpuhier-argv.log")

        def go(out, **extra):
            env = dict(os.environ, GPUHIER=os.path.join(bindir, "gpuhier"), NCU=os.path.join(bindir, "ncu"),
                       TK_DIR=tk, SCHEMA=os.path.join(root, "schema", "schema.sql"), NCU_CSV=recorded,
                       AGREE_REPS="3", AGREE_BUDGET_S="200", OUT=out, FAKE_LOG=fake_log)
            env.update(extra)
            p = subprocess.run([sys.executable, os.path.join(here, "run.py"), "--root", fake_root,
                                "--build", tmp, "--out", out], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=190)
            print(p.stdout.decode())
            md = open(os.path.join(out, "agreement.md")).read()
            print(md)
            go.log = p.stdout.decode()
            return p.returncode, md

        out = os.path.join(tmp, "out")
        rc, md = go(out, AGREE_PARTS="agree,single,cost", NCU_CSV_SINGLE=single_csv,
                    AGREE_COST_MODES="native,trace,default,budget,keep,all,ncu-all,ncu-plc")
        log = go.log
        check(rc == 1, "exit 1: there is a miss")
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
        check("## Misses by class" in md and "| A | multi-pass | 2 |" in md and "| A | one pass | 2 |" in md,
              "the DRAM misses are class A in both runs")
        check("| tk_fake | 2 | 0 |" in md, "plausibility: the synthetic report lacks most core metrics")
        m = re.search(r"(\d+) profiled launches with a default metric missing or implausible", log)
        check(m is not None and int(m.group(1)) >= 2, "the incomplete launches are counted (and fail the run)")
        check("per profiled launch" in md, "per-launch costs")
        check("Report size (all)" in md, "report size")
        check("| gpuhier budget sampling (--profile-budget 30) | 3 |" in md, "the budget mode timed 3 times")
        check("With --profile-budget 30: " in md and "; 1 of 1 configurations profiled; 2 profiles" in md,
              "the budget mode's share of native and configurations profiled")
        check("| gpuhier kept-enabled sampling (GPUHIER_DIAG_KEEP_ENABLED=1) | 3 |" in md and
              "Default sampling, profiler kept enabled: " in md, "the kept-enabled mode timed 3 times and summed up")
        check(any("--profile-budget 30" in a for a in open(fake_log).read().splitlines()),
              "gpuhier ran with --profile-budget")
        # like for like: one run per (program, group), only the group's names, one pass each
        argvs = open(fake_log).read().splitlines()
        check(any("--metric-set none --metrics smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum" in a
                  for a in argvs), "gpuhier ran a group with --metric-set none --metrics G")
        # the agreement of the whole core set per launch needs kernel replay (the default is one
        # one-pass group per launch): every "--sample all" run without --metric-set none asks for it
        core_runs = [a for a in argvs if "--sample all" in a and "--metric-set none" not in a
                     and "/cost/" not in a]
        check(core_runs and all("--replay kernel" in a for a in core_runs),
              "the core-set agreement runs gpuhier with --replay kernel")
        single = md.split("## Like for like", 1)[1].split("\n## ", 1)[0] if "## Like for like" in md else ""
        check(single != "", "the like-for-like section is printed")
        check("24 values compared (12 gated) on 12 launch pairs; **2 outside tolerance**; **0 pairs not single-pass**" in single,
              "one pass: 2 programs x 3 groups x 2 pairs, the 5 % DRAM miss twice, none replayed")
        check("| tk_fake | dram-l2miss | 0 | 2 | 1 | 0 | 2 | 1 | 2 | 0 | 0 | 0 | 7 |" in single,
              "per group: gpuhier and ncu passes 1, 2 pairs, the group's 7 names")
        check("| pytorch_train.py | sysmem-shared |" in single, "the benchmark runs every group too")
        check("| dram__bytes_read.sum | 2 | 4 | 2 | 4 |" in single, "multi-pass and one-pass misses side by side")
        check("| tk_fake | dram-l2miss | `scale(float*, int, float)` | (16384, 1, 1) | (256, 1, 1) | 2 | dram__bytes_read.sum" in single,
              "a one-pass miss names its group")
        # a group ncu needs two passes for is split in halves, for this program and the later ones
        rc2, md2 = go(os.path.join(tmp, "out2"), AGREE_PARTS="single", NCU_CSV_SINGLE=single_csv,
                      NCU_MULTI_IF="lts__t_sectors_lookup_miss.sum,sm__cycles_active.avg")
        single2 = md2.split("## Like for like", 1)[1] if "## Like for like" in md2 else ""
        check("| tk_fake | dram-l2miss | 0 | 2 | 1 | 0 | 2 | 3 | 2 | 0 | 0 | 2 | 7 | not one pass: split into dram-l2miss-a, dram-l2miss-b |" in single2,
              "the replayed group is shown with both pass counts and marked")
        check("| tk_fake | dram-l2miss-a | 0 | 2 | 1 | 0 | 2 | 1 |" in single2 and "| tk_fake | dram-l2miss-b | 0 | 2 | 1 | 0 | 2 | 1 |" in single2,
              "its halves run on the same program, one pass each")
        check("| pytorch_train.py | dram-l2miss-a |" in single2 and "| pytorch_train.py | dram-l2miss |" not in single2,
              "later programs run the halves only")
        check("**0 pairs not single-pass**" in single2 and "split into dram-l2miss-a, dram-l2miss-b for it" in md2,
              "the replayed run is left out of the comparison and noted")
        check("Multi-pass comparison not run in this call" in md2 and "### Every metric" not in md2,
              "AGREE_PARTS=single runs no multi-pass comparison")
        # a launch gpuhier replays is flagged even when no split is left (one gated name per group)
        rc2b, md2b = go(os.path.join(tmp, "out2b"), AGREE_PARTS="single-tk", FAKE_PASSES="2", NCU_CSV_SINGLE=single_csv)
        m = re.search(r"\*\*(\d+) pairs not single-pass\*\*", md2b)
        check(rc2b == 1 and m and int(m.group(1)) > 0, "replayed pairs counted and the run fails")
        check("| tk_fake | l1-l2hit | 0 | 2 | 2 | 0 | 2 | 1 |" in md2b, "gpuhier's pass count in the table")
        # no pass count from ncu: flagged, not split (a split could not make it one pass)
        rc2c, md2c = go(os.path.join(tmp, "out2c"), AGREE_PARTS="single-tk", NCU_CSV_SINGLE=nopass_csv)
        check(rc2c == 1 and "**6 pairs not single-pass**" in md2c and "split into" not in md2c,
              "a launch without ncu's pass count is flagged and its group not split")
        # AGREE_REUSE: recomputed from the first run's files, PyTorch part included, nothing run
        n_before = len(open(fake_log).read().splitlines())
        rc3, md3 = go(os.path.join(tmp, "out3"), AGREE_PARTS="agree,single", AGREE_REUSE=os.path.join(out, "tk"))
        check(len(open(fake_log).read().splitlines()) == n_before, "AGREE_REUSE runs no gpuhier")
        single3 = md3.split("## Like for like", 1)[1].split("\n## ", 1)[0] if "## Like for like" in md3 else ""
        check("24 values compared (12 gated) on 12 launch pairs; **2 outside tolerance**; **0 pairs not single-pass**" in single3,
              "AGREE_REUSE: the like-for-like part recomputed alike")
        check("on 4 launch pairs; **2 outside tolerance**." in md3, "AGREE_REUSE: the multi-pass part recomputed alike")
        check("the PyTorch part from" in md3, "AGREE_REUSE: the PyTorch reports beside tk/ are used")
        # a follow-up experiment: one program (AGREE_PROGRAMS), one launch after a skip (AGREE_TK_SKIP)
        n_before = len(open(fake_log).read().splitlines())
        rc4, md4 = go(os.path.join(tmp, "out4"), AGREE_PARTS="single-tk", NCU_CSV_SINGLE=single_csv,
                      AGREE_PROGRAMS="^tk_fake$", AGREE_TK_SKIP="2", AGREE_TK_LAUNCHES="1")
        argv4 = open(fake_log).read().splitlines()[n_before:]
        check(len(argv4) == 3 and all("--launch-count 1 --metric-set none" in a and "--launch-skip 2" in a for a in argv4),
              "AGREE_TK_SKIP/AGREE_TK_LAUNCHES reach gpuhier, one run per group of the one program")
        check("tk_missing" not in md4.split("## Notes")[0] and "AGREE_TK_SKIP=2 AGREE_PROGRAMS='^tk_fake$'" in md4,
              "AGREE_PROGRAMS keeps the matching program only; the header names both settings")
        check(all("--cache-control none" in a for a in argv4), "gpuhier runs with --cache-control none by default")
        # AGREE_CACHE=all: both tools flush the L2 before each profiled launch
        n_before = len(open(fake_log).read().splitlines())
        rc5, md5 = go(os.path.join(tmp, "out5"), AGREE_PARTS="single-tk", NCU_CSV_SINGLE=single_csv,
                      AGREE_PROGRAMS="^tk_fake$", AGREE_TK_SKIP="2", AGREE_TK_LAUNCHES="1", AGREE_CACHE="all")
        argv5 = open(fake_log).read().splitlines()[n_before:]
        check(len(argv5) == 3 and all("--cache-control all" in a for a in argv5)
              and "--cache-control all --clock-control none" in md5, "AGREE_CACHE=all reaches gpuhier and ncu")
        return done("agreement pipeline")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
