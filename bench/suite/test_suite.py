#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CPU tests of bench/suite (ctest unit.suite): the ncu details reader, the comparator's table and
both targets on SYNTHETIC inputs, with a failing case for each target; the workload scripts'
suite lines; the packing of the device's output; docs/suite.md's mapping against the script.

The ncu inputs are testdata/ncu-details-*.csv, written by hand in ncu 2025.3's details-page
format and marked synthetic in their headers. The gpuhier reports are made here: the schema of
schema/schema.sql with kernel, configuration, summary and finding rows inserted directly
(synthetic findings, chosen per case), and, when a build's gpuhier is at hand
($GPUHIER_BINARY_DIR/gpuhier), one report made from tests/fixtures/rule-base.sql and
rule-tail.sql and analyzed by that gpuhier with the project's rules, so the comparator also reads
what the analyzer really writes.
"""
import contextlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import compare  # noqa: E402
import ncu_details  # noqa: E402
import run as suite_run  # noqa: E402

TD = os.path.join(HERE, "testdata")
RULES_TXT = """# SYNTHETIC rule list (the shape run.py extracts from ncu's section files): id, section, parents
SOLBottleneck\tSpeedOfLight\t
Memory\tSpeedOfLight\tSOLBottleneck
Compute\tSpeedOfLight\tSOLBottleneck
UncoalescedGlobalAccess\tSourceCounters\tMemory
SharedMemoryConflicts\tMemoryWorkloadAnalysis_Tables\tMemory
MemoryCacheAccessPattern\tMemoryWorkloadAnalysis_Tables\tMemory
TheoreticalOccupancy\tOccupancy\tIssueSlotUtilization
CPIStall\tWarpStateStats\tCompute
"""

NVJET = "nvjet_sm90_tst_256x128_64x4_2x1_v_bz_coopB_TNT"
CONV = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nchwkcrs_nchw_tilesize128x128x64_warpgroupsize1x1x1"
NCHW = ("_ZN5cudnn19engines_precompiled16nchwToNhwcKernelI13__nv_bfloat16S1_fLb0ELb1EL21cudnnKernelDataType_t2EEEv"
        "19nchw2nhwc_params_tT_T0_")


def read(path):
    with open(path) as f:
        return f.read()


def new_db(path):
    """A file with the report schema (no fsync: test files)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA synchronous = OFF")
    db.executescript("BEGIN;\n" + read(os.path.join(ROOT, "schema", "schema.sql")) + "\nCOMMIT;")
    return db


def make_report(path, configs, run_findings=()):
    """A SYNTHETIC analyzed report: the real schema, rows inserted directly. configs: dicts with mangled,
    demangled, short, grid, block, dyn, share, profiled (range-profiled launches), instrumented (true: an
    instrumented launch, exact pattern counts), findings [(rule, severity, share_pct[, 'kernel'])]."""
    db = new_db(path)
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema_version", "2"), ("created_by", "synthetic"),
                                                      ("provenance", "synthetic: bench/suite/test_suite.py")])
    db.execute("INSERT INTO analysis (id, ruleset_version, run_gpu_ns) VALUES (1, 'synthetic', 1000000)")
    kid = {}
    fid = 0
    for i, c in enumerate(configs, 1):
        if c["mangled"] not in kid:
            kid[c["mangled"]] = len(kid) + 1
            db.execute("INSERT INTO kernel (id, mangled_name, demangled_name, short_name) VALUES (?, ?, ?, ?)",
                       (kid[c["mangled"]], c["mangled"], c.get("demangled", c["mangled"]),
                        c.get("short", c["mangled"])))
        k = kid[c["mangled"]]
        g, b = c["grid"], c["block"]
        db.execute("INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
                   "dynamic_smem_bytes, launches) VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, 10)",
                   (i, k) + tuple(g) + tuple(b) + (c.get("dyn", 0),))
        prof = c.get("profiled", 1)
        if c.get("instrumented"):
            lid = 1000 + i
            db.execute("INSERT INTO launch (id, kernel_id, config_id, profiled, profile_reason) "
                       "VALUES (?, ?, ?, 0, 'instrumented')", (lid, k, i))
            db.execute("INSERT INTO inst_launch (launch_id, config_id, kernel_id, reason) "
                       "VALUES (?, ?, ?, 'first_of_config')", (lid, i, k))
        db.execute("INSERT INTO kernel_summary (kernel_id, config_id, launches, profiled_launches, total_ns, share_pct, "
                   "bound_tier) VALUES (?, ?, 10, ?, 100000, ?, 'dram')", (k, i, prof, c.get("share", 10.0)))
        for f in c.get("findings", []):
            fid += 1
            scope_kernel = len(f) > 3 and f[3] == "kernel"
            db.execute("INSERT INTO finding (id, rank, rule_id, severity, kernel_id, config_id, message, time_lost_ns, "
                       "share_pct) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (fid, fid, f[0], f[1], k, None if scope_kernel else i, "synthetic %s" % f[0],
                        f[2] * 1e4, f[2]))
    for r, sev in run_findings:
        fid += 1
        db.execute("INSERT INTO finding (id, rank, rule_id, severity, message, time_lost_ns, share_pct) "
                   "VALUES (?, ?, ?, ?, 'synthetic copies', 1e5, 10)", (fid, fid, r, sev))
    db.commit()
    db.close()


def lib_configs():
    return [
        dict(mangled=NVJET, grid=(132, 1, 1), block=(384, 1, 1), share=40.0,
             findings=[("floor-distance", "note", 0.0)]),
        dict(mangled=CONV, grid=(98, 2, 1), block=(256, 1, 1), dyn=205696, share=30.0,
             findings=[("occupancy-registers", "warning", 3.0), ("uncoalesced-global-store", "note", 0.5)]),
        dict(mangled=CONV, grid=(98, 2, 1), block=(256, 1, 1), dyn=0, share=5.0,
             findings=[("floor-distance", "error", 12.0)]),
        dict(mangled=NCHW, demangled="void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16>(...)",
             short="cudnn::engines_precompiled::nchwToNhwcKernel", grid=(128, 2, 64), block=(256, 1, 1), share=4.0,
             findings=[("shared-bank-conflicts", "note", 0.8)]),
    ]


def ours_configs():
    return [
        dict(mangled="_Z12copy_stridedPfPKfmi", demangled="copy_strided(float*, float const*, unsigned long, int)",
             short="copy_strided", grid=(65536, 1, 1), block=(256, 1, 1), share=50.0,
             findings=[("uncoalesced-global-load", "error", 40.0)]),
        dict(mangled="_Z9bank_nwayPfPKfi", short="bank_nway", grid=(4096, 1, 1), block=(256, 1, 1), share=20.0,
             findings=[("shared-bank-conflicts", "warning", 9.0)]),
        dict(mangled="_Z10reread_sumPKfPfm", short="reread_sum", grid=(1024, 1, 1), block=(256, 1, 1), share=10.0,
             findings=[("l2-reread-miss", "warning", 5.0)]),
    ]


class Layout:
    """A RUN folder as run.py leaves it, with synthetic contents."""

    def __init__(self, lib=None, ours=None, rules=True):
        self.dir = tempfile.mkdtemp(prefix="suite-test-")
        if rules:
            with open(os.path.join(self.dir, "ncu-rules.txt"), "w") as f:
                f.write(RULES_TXT)
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump({"date": "synthetic", "gpu": "none (synthetic)", "commit": "test", "wall_s": 0}, f)
        for name, cls, cfgs, csv in (("blas_dnn", "cuBLAS", lib if lib is not None else lib_configs(),
                                      "ncu-details-lib.csv"),
                                     ("cuda_defects", "ours", ours if ours is not None else ours_configs(),
                                      "ncu-details-ours.csv")):
            w = os.path.join(self.dir, name)
            os.makedirs(w)
            with open(os.path.join(w, "meta.json"), "w") as f:
                json.dump({"name": name, "class": cls, "steps": {"native": {"rc": 0, "wall_s": 1.5}}}, f)
            make_report(os.path.join(w, "gpuhier-1.db"), cfgs,
                        run_findings=[("pageable-copy", "warning")] if name == "blas_dnn" else ())
            shutil.copy(os.path.join(TD, csv), os.path.join(w, "ncu-details-0.csv"))

    def done(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def quiet_main(argv):
    """compare.main without its table on stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        return compare.main(argv)


def find_row(res, kernel_sub, dyn=None):
    rows = [r for r in res["rows"] if kernel_sub in r["kernel"] or kernel_sub in r["name"]]
    if dyn is not None:
        rows = [r for r in rows if r["dyn_smem"] == dyn]
    assert len(rows) == 1, "%d rows for %s" % (len(rows), kernel_sub)
    return rows[0]


class TestNcuDetails(unittest.TestCase):
    def test_parse_lib(self):
        la = ncu_details.parse(read(os.path.join(TD, "ncu-details-lib.csv")))
        self.assertEqual([x["id"] for x in la], [0, 1, 2, 3])
        self.assertEqual(la[0]["kernel"], NVJET)
        self.assertEqual((la[0]["grid"], la[0]["block"]), ((132, 1, 1), (384, 1, 1)))
        self.assertEqual(la[0]["duration_ns"], 181344.0)
        self.assertEqual(la[1]["duration_ns"], 612500.0)   # usecond scaled
        self.assertEqual(la[1]["dyn_smem"], 205696)
        self.assertIsNone(la[0]["dyn_smem"])
        r0 = {r["rule"]: r for r in la[0]["rules"]}
        self.assertEqual(set(r0), {"SOLBottleneck", "SOLFPRoofline", "SharedMemoryConflicts",
                                   "UncoalescedGlobalAccess"})
        self.assertIsNone(r0["SOLBottleneck"]["speedup"])
        self.assertEqual(r0["SharedMemoryConflicts"]["speedup"], 3.1)
        self.assertEqual(r0["SharedMemoryConflicts"]["speedup_type"], "global")
        self.assertTrue(ncu_details.fired(r0["SOLBottleneck"]))
        self.assertFalse(ncu_details.fired(r0["SOLFPRoofline"]))   # INF is not advice
        self.assertEqual(la[2]["rules"][0]["type"], "WRN")

    def test_two_tables(self):
        la = ncu_details.parse(read(os.path.join(TD, "ncu-details-ours.csv")))
        self.assertEqual([x["key"] for x in la], [(0, 0), (0, 1), (1, 0), (1, 1)])
        self.assertEqual(la[2]["kernel"], "_Z9bank_nwayPfPKfi")
        self.assertEqual(la[2]["process"], "5002")

    def test_empty_and_noise(self):
        self.assertEqual(ncu_details.parse(""), [])
        self.assertEqual(ncu_details.parse("==PROF== nothing profiled\n==ERROR== x\n"), [])

    def test_rule_sources(self):
        # SYNTHETIC rule files in the NvRules shape (written here, not NVIDIA's): identifier, section, parents
        a = 'def get_identifier():\n    return "Alpha"\n\ndef get_section_identifier():\n    return "S1"\n' \
            'def get_parent_rules_identifiers():\n    return ["Memory"]\n'
        b = "def get_identifier():\n    return 'Beta'\ndef get_section_identifier():\n    return 'S2'\n" \
            "def get_parent_rules_identifiers():\n    return ['Alpha', 'Other']\n"
        c = "def get_identifier():\n    return 'Gamma'\n"
        got = ncu_details.rules_from_sources([("a.py", a), ("b.py", b), ("c.py", c), ("d.py", "x = 1\n")])
        self.assertEqual(got, [("Alpha", "S1", ["Memory"]), ("Beta", "S2", ["Alpha", "Other"]), ("Gamma", "", [])])
        rules = ncu_details.parse_rule_list("\n".join("%s\t%s\t%s" % (i, s, ",".join(p)) for i, s, p in got)
                                            + "\nMemory\tSOL\tSOLBottleneck\n")
        self.assertEqual(ncu_details.descendants(rules, "Memory"), {"Alpha", "Beta"})


class TestCompare(unittest.TestCase):
    def test_classify(self):
        c = compare.classify
        self.assertEqual(c(NVJET, "PyTorch"), "nvjet")
        self.assertEqual(c(CONV, "PyTorch"), "cuDNN")
        self.assertEqual(c("void cudnn::engines_precompiled::nchwToNhwcKernel<float>()", "x"), "cuDNN")
        self.assertEqual(c("cutlass__5x_cudnn::Kernel<...>", "x"), "cuDNN")
        self.assertEqual(c("void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm>(...)", "x"), "CUTLASS")
        self.assertEqual(c("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26", "x"),
                         "flash attention")
        self.assertEqual(c("void pytorch_flash::flash_fwd_kernel<...>()", "x"), "flash attention")
        self.assertEqual(c("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "x"), "cuBLAS")
        self.assertEqual(c("void cublasLt::splitKreduce_kernel<32, 16, int>()", "x"), "cuBLAS")
        self.assertEqual(c("triton_per_fused_native_layer_norm_0", "PyTorch"), "Triton")
        self.assertEqual(c("gemm_fusion_dot_3", "JAX-XLA"), "JAX-XLA")
        self.assertEqual(c("loop_add_fusion", "JAX-XLA"), "JAX-XLA")
        self.assertEqual(c("stream_executor::gpu::(anonymous namespace)::DelayKernel(int volatile*, int, int)", "x"),
                         "JAX-XLA")
        self.assertEqual(c("void at::native::vectorized_elementwise_kernel<4>()", "x"), "PyTorch")
        self.assertEqual(c("copy_strided", "ours"), "ours")
        self.assertEqual(set(compare.LIBRARY), {"cuBLAS", "cuDNN", "CUTLASS", "flash attention", "nvjet"})

    def test_supports(self):
        mem = set(compare.MEMORY_RULES)

        def n(rule, text="", speedup=None, t="OPT"):
            return {"rule": rule, "text": text, "speedup": speedup, "type": t}
        self.assertTrue(compare.supports("uncoalesced-global-load", n("UncoalescedGlobalAccess", speedup=20), mem))
        # below 1 % of the kernel, or not advice (INF), supports nothing
        self.assertFalse(compare.supports("uncoalesced-global-load", n("UncoalescedGlobalAccess", speedup=0.4), mem))
        self.assertFalse(compare.supports("uncoalesced-global-load", n("UncoalescedGlobalAccess", t="INF"), mem))
        # the message decides for rules that say several things
        self.assertTrue(compare.supports("uncoalesced-global-store", n(
            "MemoryCacheAccessPattern", "The memory access pattern for global stores in L1TEX might not be optimal"), mem))
        self.assertFalse(compare.supports("uncoalesced-global-store", n(
            "MemoryCacheAccessPattern", "The memory access pattern for global loads in L1TEX might not be optimal"), mem))
        self.assertTrue(compare.supports("occupancy-registers", n(
            "TheoreticalOccupancy", "limited by the number of required registers"), mem))
        self.assertFalse(compare.supports("occupancy-shared-memory", n(
            "TheoreticalOccupancy", "limited by the number of required registers"), mem))
        # a compute-bound verdict does not support a memory floor finding; a memory-bound one does
        self.assertFalse(compare.supports("floor-distance", n(
            "SOLBottleneck", "Compute is more heavily utilized than Memory"), mem))
        self.assertTrue(compare.supports("floor-distance", n(
            "SOLBottleneck", "Memory is more heavily utilized than Compute"), mem))
        self.assertTrue(compare.supports("floor-distance", n(
            "SOLBottleneck", "low compute throughput and memory bandwidth ... typically indicate latency issues"), mem))
        # floor-distance supports, but does not match (target b), ncu's specific memory findings
        self.assertTrue(compare.supports("floor-distance", n("UncoalescedGlobalAccess", speedup=20), mem))
        self.assertFalse(compare.matches("floor-distance", n("UncoalescedGlobalAccess", speedup=20), mem))
        self.assertTrue(compare.matches("uncoalesced-global-load", n("UncoalescedGlobalAccess", speedup=20), mem))
        self.assertTrue(compare.matches("l2-reread-miss", n(
            "MemoryCacheAccessPattern", "loads from device memory causes 8 sectors to be read from DRAM"), mem))
        # every SUPPORT entry names a rule of rules/ and a valid direction
        rules = set(f[:-5] for f in os.listdir(os.path.join(ROOT, "rules")) if f.endswith(".rule"))
        for e in compare.SUPPORT:
            self.assertIn(e[0], rules, e)
            self.assertIn(e[3], ("both", "support"), e)

    def test_pass(self):
        lay = Layout()
        try:
            res = compare.analyze_run(lay.dir)
        finally:
            lay.done()
        ta, tb = res["targets"]["a"], res["targets"]["b"]
        self.assertEqual(res["memory_source"].split(" (")[0], "ncu's section files")
        self.assertEqual(set(res["memory_rules"]), {"UncoalescedGlobalAccess", "SharedMemoryConflicts",
                                                    "MemoryCacheAccessPattern"})
        # (a): the conv's occupancy warning is supported; its floor-distance error is on the configuration
        # with no dynamic shared memory, which ncu did not profile (the one it profiled has 205696 bytes)
        self.assertEqual((ta["judged"], ta["supported"], ta["unsupported"], ta["not_judged"]), (1, 1, 0, 1))
        self.assertTrue(ta["holds"])
        conv = find_row(res, "fprop", dyn=205696)
        self.assertEqual(conv["class"], "cuDNN")
        self.assertEqual(conv["a"][0]["verdict"], "supported")
        self.assertEqual(conv["a"][0]["by"], ["TheoreticalOccupancy 25 %"])
        conv0 = find_row(res, "fprop", dyn=0)
        self.assertIsNone(conv0["ncu_launch"])
        self.assertEqual(conv0["a"][0]["verdict"], "not judged")
        # (b): six ncu memory findings of >= 5 %, each matched; the nvjet's 3.1 % conflicts are under 5 %,
        # the reread kernel's CPIStall is not of the memory family, later launches of a shape are not used
        self.assertEqual((tb["findings"], tb["matched"], tb["missed"]), (6, 6, 0))
        self.assertTrue(tb["holds"])
        self.assertEqual(tb["matched_warning_or_worse"], 4)
        cs = find_row(res, "copy_strided")
        self.assertEqual([x["ncu_rule"] for x in cs["b"]], ["UncoalescedGlobalAccess", "MemoryCacheAccessPattern"])
        self.assertEqual(cs["b"][0]["by"], ["uncoalesced-global-load"])
        self.assertEqual(cs["b"][0]["speedup"], 80.9)
        self.assertEqual(cs["class"], "ours")
        nv = find_row(res, "nvjet")
        self.assertEqual(nv["ncu_launch"], 0)
        self.assertEqual(nv["b"], [])
        self.assertEqual(nv["a"], [])
        md = compare.render(res)
        self.assertIn("**Target (a)**", md)
        self.assertIn("**holds** — 1 judged, 1 supported, 0 unsupported; 1 not judged", md)
        self.assertIn("**holds** — 6 findings, 6 matched (4 of them by a warning or worse), 0 missed", md)
        self.assertIn("| cuda_defects | copy_strided | ours | 65536,1,1 x 256,1,1 | 50.0 % | uncoalesced-global-load "
                      "(error) | UncoalescedGlobalAccess 80.9 %, MemoryCacheAccessPattern 45 %, AchievedOccupancy 12 % "
                      "| - | ok (uncoalesced-global-load) |", md)
        self.assertIn("pageable-copy (warning)", md)

    def test_target_a_fails(self):
        lib = lib_configs()
        # a memory-floor error on the nvjet GEMM, which ncu calls compute-bound (the failure), and an
        # uncoalesced-load warning that ncu estimates at 0.4 %
        lib[0]["findings"] = [("floor-distance", "error", 30.0), ("uncoalesced-global-load", "warning", 2.0)]
        lay = Layout(lib=lib)
        try:
            res = compare.analyze_run(lay.dir)
            rc = quiet_main(["--dir", lay.dir, "--check", "--md", os.path.join(lay.dir, "t.md")])
            md = read(os.path.join(lay.dir, "t.md"))
        finally:
            lay.done()
        ta = res["targets"]["a"]
        self.assertFalse(ta["holds"])
        self.assertEqual((ta["judged"], ta["supported"], ta["unsupported"]), (3, 1, 2))
        nv = find_row(res, "nvjet")
        self.assertEqual(sorted(x["rule"] for x in nv["a"] if x["verdict"] == "unsupported"),
                         ["floor-distance", "uncoalesced-global-load"])
        self.assertTrue(res["targets"]["b"]["holds"])
        self.assertEqual(rc, 1)
        self.assertIn("**fails**", md)
        self.assertIn("**unsupported: floor-distance, uncoalesced-global-load**", md)

    def test_target_b_fails(self):
        ours = ours_configs()
        ours[2]["findings"] = []          # gpuhier silent on the DRAM re-reads ncu finds
        ours[1]["profiled"] = 0           # and no profile of the bank-conflict kernel
        ours[1]["findings"] = []
        lay = Layout(ours=ours)
        # and a kernel ncu profiled that gpuhier has no configuration of
        with open(os.path.join(lay.dir, "cuda_defects", "ncu-details-9.csv"), "w") as f:
            f.write("# SYNTHETIC, written by test_suite.py\n" + read(os.path.join(TD, "ncu-details-ours.csv"))
                    .splitlines()[3] + "\n" +
                    '"0","5003","x","h","_Z6orphanPf","1","7","(128, 1, 1)","(64, 1, 1)","0","9.0","SourceCounters",'
                    '"","","","UncoalescedGlobalAccess","OPT","synthetic","global","20"\n')
        try:
            res = compare.analyze_run(lay.dir)
            self.assertEqual(quiet_main(["--dir", lay.dir, "--check", "--md", os.path.join(lay.dir, "t.md")]), 1)
        finally:
            lay.done()
        tb = res["targets"]["b"]
        self.assertFalse(tb["holds"])
        self.assertEqual((tb["findings"], tb["matched"], tb["missed"]), (7, 4, 3))
        missed = {(x["kernel"], x["ncu_rule"]): x for x in res["b"] if x["verdict"] == "missed"}
        self.assertEqual(set(missed), {("reread_sum", "MemoryCacheAccessPattern"),
                                       ("bank_nway", "SharedMemoryConflicts"), ("_Z6orphanPf", "UncoalescedGlobalAccess")})
        self.assertNotIn("why", missed[("reread_sum", "MemoryCacheAccessPattern")])
        self.assertEqual(missed[("bank_nway", "SharedMemoryConflicts")]["why"], "gpuhier did not profile this configuration")
        self.assertEqual(missed[("_Z6orphanPf", "UncoalescedGlobalAccess")]["why"],
                         "gpuhier has no configuration of this kernel and shape")
        self.assertTrue(res["targets"]["a"]["holds"])

    def test_target_b_instrumented_only(self):
        # a configuration instrumented on its first launch (exact pattern counts) whose later launches the range
        # profiler's budget deferred: its miss is not "did not profile" (a pattern rule could have fired on it)
        ours = ours_configs()
        ours[1]["profiled"] = 0
        ours[1]["instrumented"] = True
        ours[1]["findings"] = []
        lay = Layout(ours=ours)
        try:
            res = compare.analyze_run(lay.dir)
        finally:
            lay.done()
        missed = {(x["kernel"], x["ncu_rule"]): x for x in res["b"] if x["verdict"] == "missed"}
        self.assertEqual(missed[("bank_nway", "SharedMemoryConflicts")]["why"],
                         "gpuhier has exact pattern counts of this configuration but no hardware counters")

    def test_shape_must_match(self):
        # the same kernel and grid with another block is another configuration: no match, and gpuhier's
        # configuration gets its own row (its error, on a configuration ncu did not profile)
        ours = ours_configs()
        ours[0]["block"] = (128, 1, 1)
        lay = Layout(ours=ours)
        try:
            res = compare.analyze_run(lay.dir)
        finally:
            lay.done()
        rows = [r for r in res["rows"] if r["kernel"] in ("copy_strided", "_Z12copy_stridedPfPKfmi")]
        self.assertEqual(sorted((r["block"][0], r["ncu_launch"] is None) for r in rows), [(128, True), (256, False)])
        ncu_row = [r for r in rows if r["ncu_launch"] is not None][0]
        self.assertEqual(ncu_row["gpuhier_configs"], 0)
        self.assertEqual({x["verdict"] for x in ncu_row["b"]}, {"missed"})
        self.assertFalse(res["targets"]["b"]["holds"])

    def test_builtin_memory_family(self):
        lay = Layout(rules=False)
        try:
            res = compare.analyze_run(lay.dir)
        finally:
            lay.done()
        self.assertIn("built-in", res["memory_source"])
        self.assertEqual(res["targets"]["b"]["findings"], 6)

    def test_kernel_level_finding_and_demangled_names(self):
        # a finding on the whole kernel counts for each of its configurations, and an ncu name printed
        # demangled matches the report's demangled name (spaces and "void " left out)
        ours = ours_configs()
        ours[0]["findings"] = [("uncoalesced-global-load", "error", 40.0, "kernel")]
        lay = Layout(ours=ours)
        p = os.path.join(lay.dir, "cuda_defects", "ncu-details-0.csv")
        txt = read(p).replace('"_Z12copy_stridedPfPKfmi"',
                                     '"void copy_strided(float *, const float *, unsigned long, int)"')
        with open(p, "w") as f:
            f.write(txt)
        with sqlite3.connect(os.path.join(lay.dir, "cuda_defects", "gpuhier-1.db")) as db:
            db.execute("UPDATE kernel SET demangled_name = 'copy_strided(float*, const float*, unsigned long, int)' "
                       "WHERE short_name = 'copy_strided'")
        try:
            res = compare.analyze_run(lay.dir)
        finally:
            lay.done()
        cs = find_row(res, "copy_strided")
        self.assertEqual(cs["findings"][0]["scope"], "kernel")
        self.assertEqual(cs["b"][0]["verdict"], "matched")

    def test_doc_blocks(self):
        doc = os.path.join(ROOT, "docs", "suite.md")
        text = read(doc)
        b, e = "<!-- suite:mapping:begin -->\n", "<!-- suite:mapping:end -->"
        i, j = text.index(b), text.index(e)
        self.assertEqual(text[i + len(b):j], compare.render_mapping(),
                         "docs/suite.md's mapping differs from SUPPORT: run compare.py --print-mapping")
        self.assertIn("<!-- suite:results:begin -->", text)
        # --doc replaces the results block and keeps the rest
        lay = Layout()
        try:
            copy = os.path.join(lay.dir, "suite.md")
            shutil.copy(doc, copy)
            self.assertEqual(quiet_main(["--dir", lay.dir, "--doc", copy, "--raw", os.path.join(lay.dir, "raw")]), 0)
            new = read(copy)
            raw = json.loads(read(os.path.join(lay.dir, "raw.json")))
        finally:
            lay.done()
        self.assertIn("6 findings, 6 matched", new)
        self.assertEqual(new[:new.index("<!-- suite:results:begin -->")], text[:text.index("<!-- suite:results:begin -->")])
        self.assertTrue(raw["targets"]["a"]["holds"])
        self.assertEqual(len(raw["rows"]), len([r for r in raw["rows"] if r["workload"] in ("blas_dnn", "cuda_defects")]))

    @unittest.skipUnless(os.access(os.path.join(os.environ.get("GPUHIER_BINARY_DIR", "/nonexistent"), "gpuhier"),
                                   os.X_OK), "no gpuhier build ($GPUHIER_BINARY_DIR)")
    def test_real_analyzer(self):
        """A report made from the golden-test fixture files, analyzed by the build's gpuhier: the comparator
        reads the analyzer's own finding rows (SYNTHETIC counters: an uncoalesced copy, as ours and as a
        library kernel name)."""
        gh = os.path.join(os.environ["GPUHIER_BINARY_DIR"], "gpuhier")
        tmp = tempfile.mkdtemp(prefix="suite-real-")
        try:
            w = os.path.join(tmp, "mixed")
            os.makedirs(w)
            with open(os.path.join(w, "meta.json"), "w") as f:
                json.dump({"name": "mixed", "class": "ours"}, f)
            db = new_db(os.path.join(w, "gpuhier-1.db"))
            db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema_version", "2"), ("tool_version", "0"),
                                                              ("created_by", "synthetic")])
            db.executescript(read(os.path.join(ROOT, "tests", "fixtures", "rule-base.sql")))
            metrics = ("'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 1000000.0), ({0}, "
                       "'l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum', 0), ({0}, "
                       "'l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum', 250000), ({0}, "
                       "'smsp__inst_executed_op_global_ld.sum', 250000), ({0}, "
                       "'smsp__sass_data_bytes_mem_global_op_ld.sum', 8000000.0")
            for i, (m, short) in enumerate((("_Z12copy_stridedPfPKfmi", "copy_strided"), (NVJET, NVJET)), 1):
                db.execute("INSERT INTO kernel (id, mangled_name, demangled_name, short_name) VALUES (?, ?, ?, ?)",
                           (i, m, m if i == 2 else "copy_strided(float*, float const*, unsigned long, int)", short))
                db.execute("INSERT INTO config (id, kernel_id, device_id, grid_x, grid_y, grid_z, block_x, block_y, "
                           "block_z, dynamic_smem_bytes, static_smem_bytes, registers_per_thread) VALUES (?, ?, 0, "
                           "?, 1, 1, ?, 1, 1, 0, 0, 32)", (i, i, 65536 if i == 1 else 132, 256 if i == 1 else 384))
                db.execute("INSERT INTO fx_launch VALUES (?, 10, 10000)", (i,))
                db.execute("INSERT INTO fx_metric VALUES (%d, %s)" % (i, metrics.format(i)))
            db.executescript(read(os.path.join(ROOT, "tests", "fixtures", "rule-tail.sql")))
            db.commit()
            db.close()
            p = subprocess.run([gh, "analyze", os.path.join(w, "gpuhier-1.db"), "--rules", os.path.join(ROOT, "rules")],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = read(os.path.join(TD, "ncu-details-ours.csv")).splitlines()
            with open(os.path.join(w, "ncu-details-0.csv"), "w") as f:
                f.write("# SYNTHETIC, written by test_suite.py\n" + lines[3] + "\n" + lines[5] + "\n")
                f.write('"1","1","x","h","%s","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","SpeedOfLight","","","",'
                        '"SOLBottleneck","OPT","Compute is more heavily utilized than Memory","",""\n' % NVJET)
            res = compare.analyze_run(tmp)
            # analyzed again from copies (--reanalyze): the same verdicts, the recorded files untouched
            before = os.path.getmtime(os.path.join(w, "gpuhier-1.db"))
            self.assertEqual(quiet_main(["--dir", tmp, "--reanalyze", gh, "--rules", os.path.join(ROOT, "rules"),
                                         "--raw", os.path.join(tmp, "again")]), 0)
            again = json.loads(read(os.path.join(tmp, "again.json")))
            self.assertEqual(os.path.getmtime(os.path.join(w, "gpuhier-1.db")), before)
            self.assertIn("analyzed again", read(os.path.join(tmp, "again.md")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.assertEqual(again["targets"], res["targets"])
        cs = find_row(res, "copy_strided")
        self.assertIn("uncoalesced-global-load", [f["rule"] for f in cs["findings"]])
        self.assertEqual(cs["b"][0]["verdict"], "matched")
        nv = find_row(res, "nvjet")
        self.assertEqual(nv["class"], "nvjet")
        self.assertIn("unsupported", [x["verdict"] for x in nv["a"]])
        self.assertFalse(res["targets"]["a"]["holds"])
        self.assertTrue(res["targets"]["b"]["holds"])


class TestRun(unittest.TestCase):
    def test_workload_specs(self):
        for name in suite_run.WORKLOADS:
            ext = ".sh" if os.path.exists(os.path.join(HERE, name + ".sh")) else ".py"
            spec = suite_run.spec_of(os.path.join(HERE, name + ext))
            self.assertNotEqual(spec["cls"], "other", name)
            self.assertTrue({"native", "gpuhier", "ncu"} <= set(spec["limits"]), name)
            self.assertIn("--kernel-name", spec["ncu"], name)
            regex = spec["ncu"][spec["ncu"].index("--kernel-name") + 1]
            self.assertTrue(regex.startswith("regex:"), name)
            self.assertIn("--launch-count", spec["ncu"], name)
            self.assertEqual(spec["ncu"][spec["ncu"].index("--filter-mode") + 1], "per-launch-config", name)
            # no single step may want more than a whole call's budget less the reserve
            for k, v in spec["limits"].items():
                self.assertLessEqual(v, 540 - suite_run.RESERVE_S, (name, k))

    def test_spec_parsing(self):
        tmp = tempfile.mkdtemp()
        try:
            p = os.path.join(tmp, "w.py")
            with open(p, "w") as f:
                f.write("# suite: class=CuPy native=5 ncu=7\n# suite-ncu: --kernel-name regex:'^(a|b)$' -c 2\n"
                        "# suite-env: A=1 B=two\n# suite-ncu-env: C=3\n# suite-args: --steps 3\nprint()\n")
            s = suite_run.spec_of(p)
        finally:
            shutil.rmtree(tmp)
        self.assertEqual(s, {"cls": "CuPy", "limits": {"native": 5.0, "ncu": 7.0},
                             "ncu": ["--kernel-name", "regex:^(a|b)$", "-c", "2"], "args": ["--steps", "3"],
                             "env": {"A": "1", "B": "two"}, "ncu_env": {"C": "3"}})

    def test_pack(self):
        tmp = tempfile.mkdtemp()
        try:
            run_dir, out = os.path.join(tmp, "run"), os.path.join(tmp, "out")
            os.makedirs(os.path.join(run_dir, "w1"))
            for n, size in (("w1/gpuhier-1.db", 1000), ("w1/gpuhier-2.db", 1000), ("w1/ncu.ncu-rep", 9000),
                            ("w1/ncu-details-0.csv", 500), ("w1/native.log", 100), ("meta.json", 50),
                            ("suite.md", 80), ("suite-rows.json", 80)):
                with open(os.path.join(run_dir, n), "wb") as f:
                    f.write(os.urandom(size))   # incompressible
            old = (suite_run.FILE_CAP, suite_run.MAX_FILES)
            suite_run.FILE_CAP, suite_run.MAX_FILES = 5000, 5
            try:
                plan, left = suite_run.pack(run_dir, out, [os.path.join(run_dir, "suite.md"),
                                                           os.path.join(run_dir, "suite-rows.json")])
            finally:
                suite_run.FILE_CAP, suite_run.MAX_FILES = old
            got = sorted(os.listdir(out))
            self.assertLessEqual(len(got), 5)
            self.assertEqual(got, ["logs.tar.gz", "ncu-csv.tar.gz", "reports.tar.gz", "suite-rows.json", "suite.md"])
            # the 9000-byte ncu report is over the per-file cap: left out and said so
            self.assertEqual([os.path.basename(p) for p, _ in left], ["ncu.ncu-rep"])
            import tarfile
            with tarfile.open(os.path.join(out, "logs.tar.gz")) as t:
                names = t.getnames()
                self.assertIn("run/packing.txt", names)
                self.assertIn("run/w1/native.log", names)
                self.assertIn("left out: w1/ncu.ncu-rep", t.extractfile("run/packing.txt").read().decode())
            with tarfile.open(os.path.join(out, "reports.tar.gz")) as t:
                self.assertEqual(sorted(t.getnames()), ["run/w1/gpuhier-1.db", "run/w1/gpuhier-2.db"])
        finally:
            shutil.rmtree(tmp)


FAKE_GPUHIER = r"""#!/usr/bin/env python3
# a fake gpuhier for TestDriver: `run` runs the program, then writes a SYNTHETIC analyzed report
import os, subprocess, sys
sys.path.insert(0, os.environ["SUITE_TEST_HERE"])
import test_suite
a = sys.argv[1:]
if a[0] == "run":
    rc = subprocess.call(a[a.index("--") + 1:])
    test_suite.make_report(a[a.index("-o") + 1].replace("%p", str(os.getpid())), test_suite.ours_configs())
    sys.exit(rc)
if a[0] == "analyze":
    print("analyzed", a[1])
    sys.exit(0)
sys.exit(2)
"""

FAKE_NCU = r"""#!/usr/bin/env python3
# a fake ncu for TestDriver: a profiling run runs the program and leaves the SYNTHETIC details CSV as its
# report file; --import prints that file back
import os, shutil, subprocess, sys
a = sys.argv[1:]
if "--version" in a:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 0.0.0 (fake)")
    sys.exit(0)
if "--import" in a:
    sys.stdout.write(open(a[a.index("--import") + 1]).read())
    sys.exit(0)
with open(os.environ["FAKE_NCU_LOG"], "a") as f:
    f.write(" ".join(a) + "\n")
rc = subprocess.call(a[a.index("--") + 1:])
print('==PROF== Profiling "copy_strided" - 0: 0%....50%....100% - 40 passes')
shutil.copy(os.path.join(os.environ["SUITE_TEST_HERE"], "testdata", "ncu-details-ours.csv"),
            a[a.index("-o") + 1] + ".ncu-rep")
sys.exit(rc)
"""


class TestDriver(unittest.TestCase):
    """run.py end to end with fake tools (no GPU): steps, limits, the budget, the export, the table, packing."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="suite-driver-")
        t = self.tmp
        for d in ("stage", "ncu/sections", "scripts"):
            os.makedirs(os.path.join(t, d))
        for path, text in (("stage/gpuhier", FAKE_GPUHIER), ("ncu/ncu", FAKE_NCU)):
            with open(os.path.join(t, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(t, path), 0o755)
        with open(os.path.join(t, "stage", "COMMIT"), "w") as f:
            f.write("abc1234\n")
        # SYNTHETIC rule files in the NvRules shape, beside the fake ncu
        for rid, parent in (("Memory", "SOLBottleneck"), ("UncoalescedGlobalAccess", "Memory"),
                            ("SharedMemoryConflicts", "Memory"), ("MemoryCacheAccessPattern", "Memory")):
            with open(os.path.join(t, "ncu", "sections", rid + ".py"), "w") as f:
                f.write("def get_identifier():\n    return %r\n\ndef get_section_identifier():\n    return 'S'\n\n"
                        "def get_parent_rules_identifiers():\n    return [%r]\n" % (rid, parent))
        for name, lim, body in (("good", "native=20 gpuhier=20 ncu=20", "print('good ok')"),
                                ("hang", "native=3 gpuhier=3 ncu=3", "import time\ntime.sleep(60)")):
            with open(os.path.join(t, "scripts", name + ".py"), "w") as f:
                f.write("# suite: class=ours %s\n# suite-ncu: --kernel-name regex:copy --filter-mode "
                        "per-launch-config --launch-count 1\n%s\n" % (lim, body))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def drive(self, workloads, budget, reserve, min_step):
        t = self.tmp
        env = dict(os.environ, SUITE_TEST_HERE=HERE, FAKE_NCU_LOG=os.path.join(t, "ncu-args.log"),
                   SUITE_RUN_DIR=os.path.join(t, "run"), SUITE_RESERVE_S=str(reserve), SUITE_MIN_STEP_S=str(min_step),
                   PATH=os.path.join(t, "ncu") + os.pathsep + os.environ.get("PATH", ""))
        p = subprocess.run([sys.executable, os.path.join(HERE, "run.py"), "--stage", os.path.join(t, "stage"),
                            "--out", os.path.join(t, "out"), "--budget", str(budget), "--ncu", "ncu",
                            "--scripts", os.path.join(t, "scripts"), "--workloads", workloads],
                           capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        meta = {w: json.loads(read(os.path.join(t, "run", w, "meta.json"))) for w in workloads.split(",")}
        return p.stdout, meta

    def test_run_and_pack(self):
        out, meta = self.drive("good,hang", 120, 5, 1)
        t = self.tmp
        g = meta["good"]["steps"]
        self.assertEqual((g["native"]["rc"], g["gpuhier"]["rc"], g["analyze"]["rc"], g["ncu"]["rc"]), (0, 0, 0, 0))
        self.assertEqual(g["ncu"]["profiled"], 1)
        self.assertEqual(g["ncu"]["export_rc"], [0])
        h = meta["hang"]["steps"]
        for k in ("native", "gpuhier", "ncu"):
            self.assertEqual(h[k]["rc"], 124, k)
            self.assertTrue(h[k]["timed_out"], k)
            self.assertLess(h[k]["wall_s"], 15, k)
        args = read(os.path.join(t, "ncu-args.log")).splitlines()
        self.assertTrue(args[0].startswith("--set full --cache-control none --clock-control none "
                                           "--target-processes all -f -o "), args[0])
        self.assertIn("--kernel-name regex:copy --filter-mode per-launch-config --launch-count 1 --", args[0])
        rules = read(os.path.join(t, "run", "ncu-rules.txt"))
        self.assertIn("UncoalescedGlobalAccess\tS\tMemory", rules)
        got = sorted(os.listdir(os.path.join(t, "out")))
        self.assertEqual(got, ["logs.tar.gz", "ncu-csv.tar.gz", "ncu-rep.tar.gz", "reports.tar.gz", "suite-rows.json",
                               "suite.md"])
        md = read(os.path.join(t, "out", "suite.md"))
        self.assertIn("Run: ", md)
        self.assertIn("abc1234", md)
        self.assertIn("ncu's memory family: ncu's section files", md)
        self.assertIn("| good | copy_strided | ours |", md)
        self.assertIn("| hang | 3.0 s (rc 124) |", md)
        self.assertIn("**Target (b)**", out)   # the table on stdout too
        # what came back unpacks into one tree the comparator reads again
        un = os.path.join(t, "unpacked")
        os.makedirs(un)
        import tarfile
        for f in got:
            if f.endswith(".tar.gz"):
                with tarfile.open(os.path.join(t, "out", f)) as tf:
                    tf.extractall(un)
        res = compare.analyze_run(os.path.join(un, "run"))
        self.assertEqual(res["targets"]["b"]["findings"], 4)
        self.assertTrue(res["targets"]["b"]["holds"])

    def test_budget(self):
        # the hang's native run takes its 3 s; what is left (10 - 3 - 5) is under the 3 s a step needs
        out, meta = self.drive("hang,good", 10, 5, 3)
        h, g = meta["hang"]["steps"], meta["good"]["steps"]
        self.assertEqual(h["native"]["rc"], 124)
        self.assertEqual(h["gpuhier"], {"skipped": "budget", "wall_s": 0})
        self.assertEqual(h["ncu"]["skipped"], "budget")
        self.assertTrue(all(g[k].get("skipped") == "budget" for k in ("native", "gpuhier", "ncu")))
        md = read(os.path.join(self.tmp, "out", "suite.md"))
        self.assertIn("| good | skipped (budget) | skipped (budget) | - | skipped (budget) |", md)


if __name__ == "__main__":
    unittest.main(verbosity=1)
