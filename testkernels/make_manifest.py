#!/usr/bin/env python3
"""Writes testkernels/manifest.json, the ground truth of the testkernels (docs/testkernels.md).

usage: make_manifest.py BUILD_DIR > testkernels/manifest.json
BUILD_DIR/testkernels holds the built binaries; their host symbols give the mangled kernel names.
The expected values assume an NVIDIA H200: 132 SMs, 60 MB L2, 64 warps / 32 blocks / 65536 registers
and 228 KB of shared memory per SM.
"""
import json
import subprocess
import sys

SMS = 132
WAVE_BLOCKS = SMS * 8  # grids of one wave of 8 blocks of 256 threads per SM
SECTORS_PER_REQ = ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / "
                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
ST_SECTORS_PER_REQ = ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / "
                      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
WAVEFRONTS_PER_LDS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / "
                      "smsp__inst_executed_op_shared_ld.sum")
THEO_OCC = "sm__maximum_warps_per_active_cycle_pct"
ACH_OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
ACH_OCC_ELAPSED = "sm__warps_active.avg.pct_of_peak_sustained_elapsed"
LOCAL_LD_REQ = "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum"

cases = []


def km(name, expected, formula, tol=5, source="ncu"):
    return {"name": name, "source": source, "expected": expected, "formula": formula,
            "tolerance_pct": tol}


def case(id, binary, args, kernel, must=(), may=(), key=None, twin=None, role="defect",
         also=(), ncu_launches=1, what=""):
    def fl(rules):
        out = []
        for r in rules:
            if isinstance(r, tuple):
                out.append({"rule": r[0], "kernel": kernel if r[1] is None else (None if r[1] == ANY else r[1]),
                            **({"severity": r[2]} if len(r) > 2 else {})})
            else:
                out.append({"rule": r, "kernel": kernel})
        return out
    c = {"id": id, "role": role, "what": what, "binary": binary, "args": list(args),
         "twin": twin, "kernels": [{"name": kernel}], "must": fl(must), "may": fl(may),
         "key_metric": key}
    if also:
        c["also"] = list(also)
    if ncu_launches != 1:
        c["ncu_launches"] = ncu_launches
    cases.append(c)


FLOOR = "floor-distance"
# (rule, ANY): the finding may be on any kernel of the case, helpers included (check_manifest.py allows only
# the case's own kernels by name; a kernel-less entry matches all of them)
ANY = "*"
SCALAR = "scalar-access"

# --- transposes (H §4.7 q3) --------------------------------------------------------------------
for n in (4096, 16384):
    case(f"transpose-naive-{n}", "tk_transpose", [f"n={n}"], "transpose",
         must=["uncoalesced-global-store"], may=[FLOOR, SCALAR, "latency-not-hidden"],
         twin=f"transpose-padded-{n}", what=f"naive transpose of a {n}x{n} float matrix",
         key=km(ST_SECTORS_PER_REQ, 32,
                "each lane stores 4 B into a different row: 32 sectors per request (ideal 128 B / 32 B = 4)"))
    case(f"transpose-tiled-{n}", "tk_transpose_tiled", [f"n={n}"], "transpose",
         must=["shared-bank-conflicts"], may=[FLOOR, SCALAR],
         twin=f"transpose-padded-{n}", what=f"tiled transpose, 32x32 tile without padding, {n}x{n}",
         key=km(WAVEFRONTS_PER_LDS, 32,
                "tile[tx][ty]: word 32*tx+ty is in bank ty for all 32 lanes: 32 wavefronts per load"))
    case(f"transpose-padded-{n}", "tk_transpose_fixed", [f"n={n}"], "transpose",
         may=[FLOOR, SCALAR], role="fixed", what=f"tiled transpose with a 32x33 tile, {n}x{n}",
         key=km(WAVEFRONTS_PER_LDS, 1,
                "tile[tx][ty] at word 33*tx+ty: bank (tx+ty) mod 32, 32 distinct banks: one wavefront per load"),
         also=[{"name": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum / "
                         "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "source": "ncu", "at_most": 0.1,
                "formula": "the hardware conflict counter is not 0 here (ncu, 2026-11-29: 37,630 at N=4096): it "
                           "also counts cycles lost to other accesses in flight; it stays under Nsight "
                           "Compute's 10 % of wavefronts"}])

# --- coalescing (H §4.5, J) --------------------------------------------------------------------
for s in (1, 2, 4, 8, 32):
    must = [] if s == 1 else ["uncoalesced-global-load"] + ([FLOOR] if s >= 8 else [])
    may = [SCALAR] + ([] if s >= 8 else [FLOOR])
    case(f"coalesce-stride-{s}", "tk_coalesce", [f"stride={s}"], "copy_strided", must=must, may=may,
         twin=f"coalesce-stride-{s}-fixed", role="negative" if s == 1 else "defect",
         what=f"out[i] = in[i*{s}] over 16 Mi floats",
         key=km(SECTORS_PER_REQ, min(4 * s, 32),
                f"32 lanes x 4 B spread over {128 * s} B: min(4*S, 32) sectors of 32 B per request"))
    case(f"coalesce-stride-{s}-fixed", "tk_coalesce_fixed", [f"stride={s}"], "copy_strided",
         may=[FLOOR, SCALAR], role="fixed", what="out[i] = in[i] (contiguous layout)",
         key=km(SECTORS_PER_REQ, 4, "32 consecutive floats = 128 B = 4 sectors per request"))
case("coalesce-gather", "tk_coalesce", ["gather"], "gather",
     must=["uncoalesced-global-load"], may=[FLOOR, SCALAR], twin="coalesce-gather-fixed",
     what="out[i] = in[perm[i]], lanes >= 32 KB apart",
     key=km(SECTORS_PER_REQ, 18, "perm[i] coalesced (4 sectors) + in[perm[i]] one sector per lane (32): (4+32)/2"))
case("coalesce-gather-fixed", "tk_coalesce_fixed", ["gather"], "gather", may=[FLOOR, SCALAR],
     role="fixed", what="out[i] = in[i], input permuted once on the device",
     key=km(SECTORS_PER_REQ, 4, "coalesced: 4 sectors per request"))
case("coalesce-vec-float", "tk_coalesce", ["vec"], "copy_vec", must=[SCALAR], may=[FLOOR],
     twin="coalesce-vec-float4", what="copy of 16 Mi floats, one float (LDG.32) per thread",
     key=km(SECTORS_PER_REQ, 4, "128 B per warp request = 4 sectors; ideal 4: coalesced, but 4-byte instructions"))
case("coalesce-vec-float4", "tk_coalesce_fixed", ["vec"], "copy_vec", may=[FLOOR], role="fixed",
     what="the same copy, one float4 (LDG.128) per thread",
     key=km(SECTORS_PER_REQ, 16, "512 B per warp request = 16 sectors = the ideal for 16-byte accesses (not uncoalesced)"))

# --- spills (H §4.2) ---------------------------------------------------------------------------
warps = WAVE_BLOCKS * 8
case("spill-bounds", "tk_spill", ["bounds"], "spill_bounds", must=["local-memory-traffic"], may=[FLOOR],
     twin="spill-bounds-fixed", what="64 live accumulators under __launch_bounds__(256, 8)",
     key=km("launch__registers_per_thread", 32, "65536 registers / (256 threads x 8 blocks) = 32", tol=0,
            source="ncu-launch"),
     also=[{"name": LOCAL_LD_REQ, "source": "ncu", "at_least": warps * 256,
            "formula": "at least one spill reload per loop iteration: warps x 256"}])
case("spill-bounds-fixed", "tk_spill_fixed", ["bounds"], "spill_bounds",
     may=[FLOOR, ("occupancy-registers", None, "note"),
          # true by construction (H200 e2e 18:48): 79 registers -> 3 blocks of 256 per SM, 1056 blocks on
          # 132 SMs = 2.67 waves, a partial last wave
          "latency-not-hidden"], role="fixed",
     what="the same kernel under __launch_bounds__(256): no spill",
     key=km(LOCAL_LD_REQ, 0, "no local loads"))
case("spill-localarray", "tk_spill", ["localarray"], "local_array", must=["local-memory-traffic"],
     # scalar-access: true by construction: in[] is read with 4-byte loads, and the spills make it DRAM/L2-bound
     may=[FLOOR, SCALAR], twin="spill-localarray-fixed", what="float arr[32] indexed at run time, 1024 updates",
     key=km(LOCAL_LD_REQ, warps * (1024 + 32),
            f"one LDL per update (1024) + one per entry in the final sum (32), per warp; {warps} warps"))
# latency-not-hidden: true by construction: 1056 blocks at 5 per SM = 1.60 waves, a partial last wave (H200 e2e 18:48)
case("spill-localarray-fixed", "tk_spill_fixed", ["localarray"], "local_array", may=[FLOOR, "latency-not-hidden"],
     role="fixed", what="the same updates through an unrolled select: registers only",
     key=km(LOCAL_LD_REQ, 0, "no local loads"))

# --- occupancy (H §4.2, §4.3) ------------------------------------------------------------------
for res, rule, lim in (("regs", "occupancy-registers",
                        "85..128 registers (109 with nvcc 13.0): 65536 / (112 x 256) = 2 blocks"),
                       ("smem", "occupancy-shared-memory", "(100 + 1) KB of shared memory: 2 blocks in 228 KB")):
    for kind in ("mem", "compute"):
        k = f"occ_{res}_{kind}"
        sev = () if kind == "mem" else ("note",)
        must = [(rule, None) + sev]
        may = [FLOOR] + (["latency-not-hidden"] if kind == "mem" else [])
        also = [{"name": ACH_OCC, "source": "ncu", "at_most": 25.5,
                 "formula": "achieved <= theoretical 25 % (ncu, 2026-11-29: 18.9 % for the memory-bound stream: "
                            "short blocks lose warps to block turnover)"}]
        if res == "regs":
            also.append(km(LOCAL_LD_REQ, 0, "no spill, no stack frame: no local traffic"))
        case(f"occupancy-{res}-{kind}", "tk_occupancy", [f"{res}_{kind}"], k, must=must, may=may,
             twin=f"occupancy-{res}-{kind}-fixed",
             what=("memory-bound y = 2x + 1" if kind == "mem" else "compute-bound FMA chains") + f", {lim}",
             key=km(THEO_OCC, 25, f"{lim} x 8 warps = 16 of 64 warps", tol=0, source="ncu-launch"),
             also=also)
        case(f"occupancy-{res}-{kind}-fixed", "tk_occupancy_fixed", [f"{res}_{kind}"], k,
             may=[FLOOR], role="fixed", what="the same kernel with 8 blocks of 256 threads per SM",
             key=km(THEO_OCC, 100, "8 blocks x 8 warps = 64 of 64 warps", tol=0, source="ncu-launch"),
             also=[km(LOCAL_LD_REQ, 0, "no local traffic")] if res == "regs" else [])

# --- launch shape (G §4.6 restated for sm_90, H §4.5) ------------------------------------------
for b, occ in ((32, 50), (64, 100), (256, 100)):
    case(f"launch-block-{b}", "tk_launch", [f"block={b}"], "block_copy",
         must=["block-shape"] if b == 32 else [],
         may=[FLOOR, SCALAR] + (["latency-not-hidden"] if b == 32 else []),
         twin="launch-block-256" if b == 32 else None, role="defect" if b == 32 else "negative",
         what=f"y = 2x + 1 over 64 Mi floats with {b}-thread blocks",
         key=km(THEO_OCC, occ, "32 blocks/SM x 1 warp = 32 of 64 warps" if b == 32 else
                (f"{2048 // b} blocks x {b // 32} warps = 64 of 64 warps"), tol=0, source="ncu-launch"))
case("launch-grid-small", "tk_launch", ["grid=small"], "grid_copy", must=["latency-not-hidden"],
     may=[FLOOR, SCALAR], twin="launch-grid-full", what=f"grid-stride stream with {SMS // 2} blocks on {SMS} SMs",
     key=km("sm__cycles_active.avg / sm__cycles_active.max", 0.5,
            "66 of 132 SMs get one block each and stay active; the others never: avg/max = 0.5", tol=10))
case("launch-grid-full", "tk_launch", ["grid=full"], "grid_copy", may=[FLOOR, SCALAR], role="fixed",
     what=f"the same stream with {WAVE_BLOCKS} blocks",
     key=km("sm__cycles_active.avg / sm__cycles_active.max", 1.0, "every SM busy for the whole kernel", tol=10))
case("launch-wave-partial", "tk_launch", ["wave=partial"], "wave_work", must=["latency-not-hidden"],
     twin="launch-wave-full", what=f"{SMS * 9} fixed-time blocks: 1.125 waves of 8 blocks per SM",
     key=km(ACH_OCC_ELAPSED, 56.25, "(9 x 132 blocks x 8 warps x T) / (132 SMs x 64 warps x 2T) = 56.25 %, "
            "however the tail blocks spread over the SMs (per active cycle it is 65 %: the tail is uneven)", tol=10))
case("launch-wave-full", "tk_launch", ["wave=full"], "wave_work", role="fixed",
     what=f"{WAVE_BLOCKS} fixed-time blocks: exactly one wave",
     key=km(ACH_OCC_ELAPSED, 100, "8 blocks x 8 warps resident for the whole kernel = 64 of 64 warps", tol=10))

# --- bank conflicts (H §4.3, G §4.5) -----------------------------------------------------------
# occupancy-registers (note, no time): true: bank_column's registers cap occupancy at 75 % (H200 e2e 18:48)
case("bank-column", "tk_bank", ["column"], "bank_column", must=["shared-bank-conflicts"],
     may=[("occupancy-registers", None, "note")],
     twin="bank-column-fixed", what="column reads of float m[32][32]",
     key=km(WAVEFRONTS_PER_LDS, 32, "m[lane][k] = word 32*lane + k: bank k for all lanes: 32-way"))
# occupancy-registers as for bank-column; latency-not-hidden: true: 1.33 waves, a partial last wave (H200 e2e 18:48)
case("bank-column-fixed", "tk_bank_fixed", ["column"], "bank_column", role="fixed",
     may=[("occupancy-registers", None, "note"), "latency-not-hidden"],
     what="column reads of float m[32][33]",
     key=km(WAVEFRONTS_PER_LDS, 1, "word 33*lane + k: bank (lane + k) mod 32, all distinct"))
for w in (2, 4, 8, 16, 32):
    case(f"bank-way-{w}", "tk_bank", [f"way={w}"], "bank_nway", must=["shared-bank-conflicts"],
         twin=f"bank-way-{w}-fixed", what=f"lane reads word lane*{w}: {w}-way conflict",
         key=km(WAVEFRONTS_PER_LDS, w, f"bank (lane*{w}) mod 32 is shared by {w} lanes at {w} addresses"))
    case(f"bank-way-{w}-fixed", "tk_bank_fixed", [f"way={w}"], "bank_nway", role="fixed",
         what=f"lane reads word lane*{w} + lane*{w}/32 (one pad word per 32)",
         key=km(WAVEFRONTS_PER_LDS, 1, "the pad word shifts each group of lanes to distinct banks"))
for b, sfx in (("tk_bank", ""), ("tk_bank_fixed", "-fixed")):
    case(f"bank-vec128{sfx}", b, ["vec128"], "smem_vec128", role="negative",
         what="each lane reads one float4 from shared memory (128-bit, conflict-free)",
         key=km(WAVEFRONTS_PER_LDS, 4, "512 B per warp / 128 B per wavefront = 4, without conflict"),
         also=[km("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0, "no bank conflict")])

# --- re-read vs staged (H §4.7 q1, H §4.3) ----------------------------------------------------
case("reuse-stencil", "tk_reuse", ["stencil"], "stencil", must=["reread-not-staged"],
     may=["uncoalesced-global-load", FLOOR, SCALAR], twin="reuse-stencil-fixed",
     what="33-tap stencil reading every tap from global memory",
     key=km("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum / smsp__warps_launched.sum", 33,
            "one global load request per tap per warp"))
case("reuse-stencil-fixed", "tk_reuse_fixed", ["stencil"], "stencil", may=[FLOOR, SCALAR], role="fixed",
     what="the same stencil, block inputs staged once in shared memory",
     key=km("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum / smsp__warps_launched.sum", 1.125,
            "8 warps load 256 floats (8 requests) + warp 0 loads the 32-float halo (1): 9/8"))

# --- L2 (J, H §4.4) ----------------------------------------------------------------------------
slice_b = 512 * 1024
case("cache-reread", "tk_cache", ["reread"], "reread_sum", must=["l2-reread-miss"], may=[FLOOR],
     twin="cache-reread-fixed", what="528 MB re-read 8 times, whole slices per pass",
     key=km("dram__bytes_read.sum", WAVE_BLOCKS * slice_b * 8,
            "1056 blocks x 512 KiB x 8 passes: every pass from device memory", tol=10))
case("cache-reread-fixed", "tk_cache_fixed", ["reread"], "reread_sum", may=[FLOOR], role="fixed",
     what="the same reads, 16 KB chunks re-read 8 times each (16.5 MB working set)",
     key=km("dram__bytes_read.sum", WAVE_BLOCKS * slice_b,
            "1056 x 512 KiB read once from device memory, 7 re-reads hit L2", tol=10))
case("cache-evict", "tk_cache", ["evict"], "stream_table", must=["stream-evicts-reused"],
     may=[FLOOR, "l2-reread-miss"], twin="cache-evict-fixed",
     what="1 GiB read-once stream x 16 MiB re-read table, plain loads",
     key=km("dram__bytes_read.sum", (1 << 30) + 16 * (16 << 20),
            "1 GiB stream + 16 table passes x 16 MiB (the stream evicts the table each pass)", tol=10))
case("cache-evict-fixed", "tk_cache_fixed", ["evict"], "stream_table", may=[FLOOR], role="fixed",
     what="the same with __ldcs (evict-first) stream loads",
     key=km("dram__bytes_read.sum", (1 << 30) + (16 << 20),
            "1 GiB stream + the 16 MiB table once (it stays in L2)", tol=10))

# --- cp.async ----------------------------------------------------------------------------------
case("async-cpasync", "tk_async", ["copy"], "staged_copy", may=[FLOOR], role="negative",
     twin="async-plain", what="64 Mi floats staged through shared memory with cp.async (LDGSTS)",
     key=km("smsp__inst_executed_op_ldgsts.sum", (64 << 20) // 4 // 32,
            "one 16-byte LDGSTS per thread: 64 Mi / 4 / 32 warp instructions"),
     also=[km("smsp__inst_executed_op_global_ld.sum", 0, "no LDG instruction: the loads are all LDGSTS"),
           km("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", (64 << 20) // 4 // 32,
              "ncu, 2026-11-29: the global-load request counter DOES count the LDGSTS requests (one per "
              "warp instruction), against the first claim that the LSU counters miss them")])
case("async-plain", "tk_async_fixed", ["copy"], "staged_copy", may=[FLOOR], role="negative",
     what="the same copy with LDG.128 + STS.128",
     key=km("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", (64 << 20) // 4 // 32,
            "one LDG.128 request per warp per 512 B"),
     also=[km("smsp__inst_executed_op_ldgsts.sum", 0, "no LDGSTS"),
           km("smsp__inst_executed_op_global_ld.sum", (64 << 20) // 4 // 32, "one LDG.128 per warp")])

# --- atomics (J problem 4) ---------------------------------------------------------------------
case("atomic-hist", "tk_atomic", ["hist"], "histogram", must=["atomic-contention"], may=[FLOOR],
     twin="atomic-hist-fixed", what="64 Mi keys into 16 bins with global atomics",
     key=km("smsp__inst_executed_op_global_red.sum", (64 << 20) // 32, "one RED per warp per key"))
case("atomic-hist-fixed", "tk_atomic_fixed", ["hist"], "histogram", may=[FLOOR], role="fixed",
     what="shared-memory histogram per block, one global add per bin per block",
     key=km("smsp__inst_executed_op_global_red.sum", WAVE_BLOCKS, "one RED (16 lanes) per block"))
case("atomic-scatter", "tk_atomic", ["scatter"], "scatter_add", must=["uncoalesced-global-atomic"],
     may=[FLOOR, SCALAR, "latency-not-hidden"], twin="atomic-scatter-fixed",
     what="16 Mi float reductions, each to its own destination, a warp's lanes 32 sectors apart",
     key=km("smsp__inst_executed_op_global_red.sum", (16 << 20) // 32, "one RED per warp per update"))
case("atomic-scatter-fixed", "tk_atomic_fixed", ["scatter"], "scatter_add", may=[FLOOR, SCALAR, "latency-not-hidden"],
     role="fixed", what="the same reductions sorted by destination, 4 sectors a warp",
     key=km("smsp__inst_executed_op_global_red.sum", (16 << 20) // 32, "one RED per warp per update"))

# --- host link (H §4.6, G §4.7) ----------------------------------------------------------------
TEW = "transfer-exceeds-work"
case("host-pageable", "tk_host", ["pageable"], "consume", must=[("pageable-copy", None)], may=[TEW],
     twin="host-pageable-fixed", what="256 MiB each way through malloc'd (pageable) buffers",
     key=km("memcpy_pageable_count", 2, "one host->device and one device->host copy, both pageable", tol=0,
            source="activity"))
case("host-pageable-fixed", "tk_host_fixed", ["pageable"], "consume", may=[TEW], role="fixed",
     what="the same copies through cudaMallocHost buffers",
     key=km("memcpy_pageable_count", 0, "pinned buffers only", tol=0, source="activity"))
case("host-small", "tk_host", ["small"], "consume", must=[("small-copies", None)], may=[TEW],
     twin="host-small-fixed", what="16 MiB sent as 4096 copies of 4 KiB",
     key=km("memcpy_htod_count", 4096, "16 MiB / 4 KiB", tol=0, source="activity"))
case("host-small-fixed", "tk_host_fixed", ["small"], "consume", may=[TEW], role="fixed",
     what="16 MiB sent as one copy", key=km("memcpy_htod_count", 1, "one copy", tol=0, source="activity"))
# (SCALAR, ANY): the helper produce (4-byte stores, bound by DRAM) draws a true scalar-access note; step has SCALAR
# by SIDE already, so the entry widens nothing else (H200 e2e 18:48)
case("host-roundtrip", "tk_host", ["roundtrip"], "step", must=[("round-trip-copy", None)], may=[TEW, (SCALAR, ANY)],
     twin="host-roundtrip-fixed", what="10 steps, each followed by a 64 MiB device->host->device trip",
     key=km("memcpy_dtoh_count", 11, "10 round trips + the final result", tol=0, source="activity"),
     ncu_launches=10)
case("host-roundtrip-fixed", "tk_host_fixed", ["roundtrip"], "step", role="fixed", may=[(SCALAR, ANY)],  # as above
     what="10 steps on resident data", key=km("memcpy_dtoh_count", 1, "the final result only", tol=0,
                                              source="activity"), ncu_launches=10)
case("host-transfer", "tk_host", ["transfer"], "scale", must=[(TEW, None)], twin="host-transfer-fixed",
     what="256 MiB host->device to feed a 0.1 ms kernel",
     key=km("memcpy_htod_bytes", 256 << 20, "the input, copied once", tol=0, source="activity"))
case("host-transfer-fixed", "tk_host_fixed", ["transfer"], "scale", role="fixed", may=[(SCALAR, ANY)],  # as above
     what="the input produced on the device", key=km("memcpy_htod_bytes", 0, "no input copy", tol=0,
                                                    source="activity"))
case("host-mapped", "tk_host", ["mapped"], "read_mapped", must=["host-memory-access"],
     may=[FLOOR, "latency-not-hidden"], twin="host-mapped-fixed",
     what="kernel reading 64 MiB of mapped pinned host memory",
     key=km("lts__t_sectors_srcunit_tex_aperture_sysmem_op_read.sum", (64 << 20) // 32,
            "64 MiB / 32 B sectors requested by the SMs (L1/TEX unit)"),
     also=[{"name": "lts__t_sectors_aperture_sysmem_op_read.sum", "source": "ncu", "at_least": (64 << 20) // 32,
            "formula": "all units: ncu, 2026-11-29, read 3,154,644 = 1.50 x the 2,097,152 requested"}])
case("host-mapped-fixed", "tk_host_fixed", ["mapped"], "read_mapped", may=[FLOOR, (TEW, None)],
     role="fixed", what="the same kernel reading a device copy",
     key=km("lts__t_sectors_srcunit_tex_aperture_sysmem_op_read.sum", 0, "the SMs read device memory only"),
     also=[{"name": "lts__t_sectors_aperture_sysmem_op_read.sum", "source": "ncu", "at_most": 1024,
            "formula": "all units: ncu, 2026-11-29, read 58 sectors (not from the kernel's loads)"}])

# managed memory (H §4.6 "Trois modes de mémoire hôte", G §4.7: rule 17's page migrations)
case("host-managed", "tk_host", ["managed"], "step", must=["managed-migration"],
     may=[FLOOR, "latency-not-hidden", (SCALAR, ANY)], twin="host-managed-fixed",
     what="10 steps on 64 MiB of managed memory the host updates between them: the kernel faults its pages over",
     key=km("um_htod_fault_bytes", 10 * (64 << 20), "64 MiB migrated to the device at each of the 10 steps",
            tol=10, source="activity"), ncu_launches=0)
case("host-managed-fixed", "tk_host_fixed", ["managed"], "step", may=[FLOOR, (SCALAR, ANY)], role="fixed",
     what="the same steps with cudaMemPrefetchAsync to the device before each",
     key=km("um_htod_fault_bytes", 0, "every migration to the device asked for (cause user)", tol=0,
            source="activity"), ncu_launches=0)

# --- shared-memory opt-in (H §4.3) -------------------------------------------------------------
case("optin-big", "tk_optin", ["big"], "smem_big", must=["smem-optin-48k"], twin="optin-big-fixed",
     what="64 KiB of dynamic shared memory without cudaFuncSetAttribute: the launch fails",
     key=km("launch_failures_invalid_value", 1, "the one launch fails with cudaErrorInvalidValue", tol=0,
            source="activity"), ncu_launches=0)
case("optin-big-fixed", "tk_optin_fixed", ["big"], "smem_big",
     # latency-not-hidden and scalar-access: true by construction: 264 blocks at one per SM (64 KiB each) leave
     # occupancy at 21.6 % of 37.5 %, and smem_big moves 4-byte words (H200 e2e 18:48)
     may=[FLOOR, ("occupancy-shared-memory", None, "note"), "latency-not-hidden", SCALAR], role="fixed",
     what="the same launch after cudaFuncSetAttribute(MaxDynamicSharedMemorySize, 64 KiB)",
     key=km("launch__shared_mem_per_block_dynamic", 65536, "64 KiB requested and granted", tol=0,
            source="ncu-launch"))

# --- constant memory (G §4.3) ------------------------------------------------------------------
case("const-divergent", "tk_const", ["read"], "const_read", must=["constant-divergent"],
     twin="const-uniform", what="each lane reads a different __constant__ address",
     key=km("idc__requests.sum / smsp__inst_executed_op_ldc.sum", 32, "32 distinct addresses per LDC"))
case("const-uniform", "tk_const_fixed", ["read"], "const_read", role="fixed",
     what="the warp reads one __constant__ address (broadcast)",
     key=km("idc__requests.sum / smsp__inst_executed_op_ldc.sum", 1, "one address per LDC"))


# Side findings that are true of a kernel by construction, whatever the case, added to its `may`
# (never to `must`): the rule would be right to fire, but the case is not about it.
LNH = "latency-not-hidden"
SIDE = {
    # one element per thread, short blocks: achieved occupancy can sit > 10 points under theoretical
    "copy_strided": [LNH], "gather": [LNH], "copy_vec": [LNH], "block_copy": [LNH], "stencil": [LNH],
    "staged_copy": [LNH], "transpose": [LNH], "occ_regs_mem": [SCALAR], "occ_smem_mem": [SCALAR, LNH],
    # 4-byte accesses in memory-bound kernels
    "reread_sum": [SCALAR, "reread-not-staged"], "stream_table": [SCALAR, "reread-not-staged"],
    "consume": [SCALAR], "step": [SCALAR], "scale": [SCALAR], "read_mapped": [SCALAR],
    "grid_copy": [SCALAR],
    # far from the device-memory floor by design: their time is in shared memory, constants,
    # arithmetic, atomics or a timed sleep, not in DRAM bytes
    "bank_column": [FLOOR], "bank_nway": [FLOOR], "smem_vec128": [FLOOR], "const_read": [FLOOR],
    "wave_work": [FLOOR], "occ_regs_compute": [FLOOR], "occ_smem_compute": [FLOOR],
    "histogram": [FLOOR],
    # the spill kernels re-read a 16 MB input about 16 (bounds) or 64 (localarray) times from L1/L2
    "spill_bounds": ["reread-not-staged"], "local_array": ["reread-not-staged"],
}
# Per case: a shared-memory histogram meets conflicts on its 16 bins by nature; the register-array
# twin holds 47 registers (62.5 % theoretical occupancy), a note at most.
CASE_SIDE = {
    "atomic-hist-fixed": ["shared-bank-conflicts"],
    "spill-localarray-fixed": [("occupancy-registers", "note")],
}


def add_side(c):
    k = c["kernels"][0]["name"]
    listed = {f["rule"] for f in c["must"] + c["may"]}
    for r in SIDE.get(k, []) + CASE_SIDE.get(c["id"], []):
        rule, sev = (r if isinstance(r, tuple) else (r, None))
        if rule not in listed:
            c["may"].append({"rule": rule, "kernel": k, **({"severity": sev} if sev else {})})
            listed.add(rule)


def mangled(build, binary, kernel):
    try:
        out = subprocess.run(["nm", f"{build}/testkernels/{binary}"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    pre = f"_Z{len(kernel)}{kernel}"
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T" and parts[2].startswith(pre):
            return parts[2]
    return None


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    for c in cases:
        add_side(c)
        for k in c["kernels"]:
            k["mangled"] = mangled(build, c["binary"], k["name"])
            k["regex"] = "^" + k["name"] + r"\b"
    doc = {
        "schema_version": 1,
        "about": "Ground truth of the testkernels: see docs/testkernels.md. Every finding not in a case's "
                 "must or may list counts against precision; every must that is missing counts against recall.",
        "device_assumed": {"name": "NVIDIA H200", "sms": SMS, "l2_bytes": 62914560,
                           "max_warps_per_sm": 64, "max_blocks_per_sm": 32, "registers_per_sm": 65536,
                           "shared_per_sm_bytes": 233472},
        "binary_dir": "testkernels",
        "env": {"TK_REPS": "repetitions of the timed kernel after its first launch (default 10, 20 for the "
                           "transposes; 0 = one launch, no timing); host copies are never repeated"},
        "cases": cases,
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


main()
