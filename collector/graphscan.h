/* SPDX-License-Identifier: MIT */
/*
 * graphscan: what a CUDA graph's kernel nodes are, read through the driver
 * before the graph is made executable (docs/collector.md "Graphs").
 *
 * CUPTI patches a graph's kernel nodes for SASS metrics only while they are
 * enabled across cuGraphInstantiate*, and on the H200 that arming crashed
 * every graph holding one of cuBLAS's Hopper GEMM kernels (illegal
 * instruction at the first launch). Every such kernel seen was launched
 * with a thread-block cluster attribute; no graph without one crashed,
 * among them kernels with TMA, wgmma, setmaxnreg, 200 KB of shared memory
 * and programmatic dependencies (docs/sassprobe.md "Graph properties").
 * So a graph is armed only when none of its kernel nodes runs in clusters
 * and every node could be read: the test is conservative (a graph of
 * harmless cluster kernels stays unarmed), since which property of the
 * cuBLAS kernels triggers the fault is not known.
 */
#ifndef GPUHIER_COLLECTOR_GRAPHSCAN_H
#define GPUHIER_COLLECTOR_GRAPHSCAN_H

#include <cuda.h>
#include <stdint.h>

struct graph_scan {
    int kernels;     /* kernel nodes, those of child graphs included */
    int clusters;    /* launched with a thread-block cluster (node attribute or the function's) */
    int unreadable;  /* nodes whose kernel or body the driver would not give (conditional nodes) */
    char first[160]; /* the first kernel node that keeps the graph unarmed: "NAME (WHY)" */
    uint64_t *keys;  /* the kernel nodes' functions, graph_scan_key() of their names; heap */
    size_t nkeys, capkeys;
};

/*
 * A function's key: its name (the mangled name, as CUPTI's launch callbacks and
 * cuFuncGetName give it) hashed, FNV-1a 64-bit; 0 for no name. A name, not the
 * CUfunction handle: a graph kernel node's handle is not the one its stream
 * launches passed (PyTorch on the H200, 2026-12-04).
 */
uint64_t graph_scan_key(const char *name);

/*
 * Scans graph g (its child graphs too, to a depth of 8) into *s. With
 * GPUHIER_DIAG_GRAPH_NODES=1 each kernel node's properties are printed on
 * stderr. Returns 0, or -1 when the driver lacks the calls it needs or
 * memory ran out (then the graph must be taken as unsafe); either way
 * graph_scan_free() releases *s.
 */
int graph_scan(CUgraph g, struct graph_scan *s);

/* Whether a scanned graph may be instantiated with SASS metrics enabled. */
int graph_scan_safe(const struct graph_scan *s);

/* Frees what graph_scan() allocated (s->keys). */
void graph_scan_free(struct graph_scan *s);

#endif
