/* SPDX-License-Identifier: MIT */
/*
 * graphscan: what a CUDA graph's kernel nodes are, read through the driver
 * before the graph is made executable (docs/collector.md "Graphs").
 *
 * CUPTI patches a graph's kernel nodes for SASS metrics only while they are
 * enabled across cuGraphInstantiate*, and on the H200 that arming crashed
 * graphs holding cuBLAS's Hopper GEMM kernels (docs/sassprobe.md "Graph
 * launches"); the instantiation is armed only for graphs whose kernel nodes
 * have none of the properties this scan counts.
 */
#ifndef GPUHIER_COLLECTOR_GRAPHSCAN_H
#define GPUHIER_COLLECTOR_GRAPHSCAN_H

#include <cuda.h>

struct graph_scan {
    int kernels;      /* kernel nodes, those of child graphs included */
    int clusters;     /* launched in thread-block clusters (node attribute or the function's) */
    int programmatic; /* at either end of a programmatic (PDL) dependency, or with the attribute */
    int tensor_param; /* with a 128-byte parameter (a CUtensorMap's size) */
    int unreadable;   /* nodes whose kernel or body the driver would not give (conditional nodes) */
    char first[160];  /* the first kernel node with one of the properties above: "NAME (WHAT)" */
};

/*
 * Scans graph g (its child graphs too, to a depth of 8) into *s. With
 * GPUHIER_DIAG_GRAPH_NODES=1 each kernel node's properties are printed on
 * stderr. Returns 0, or -1 when the driver lacks the calls it needs (then
 * *s says nothing and the graph must be taken as unsafe).
 */
int graph_scan(CUgraph g, struct graph_scan *s);

/* Whether a scanned graph may be instantiated with SASS metrics enabled. */
int graph_scan_safe(const struct graph_scan *s);

#endif
