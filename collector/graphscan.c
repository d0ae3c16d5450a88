/* SPDX-License-Identifier: MIT */
/*
 * graphscan: a graph's kernel nodes and the property that decides whether
 * its instantiation may be armed for SASS metrics (graphscan.h).
 *
 * Everything is read through the driver calls collector.c loads (gh): the
 * nodes (cuGraphGetNodes, child graphs through cuGraphChildGraphNodeGetGraph),
 * each kernel node's function and cluster attribute, the function's
 * compiled cluster size. Conditional nodes' bodies are not reachable
 * through the driver API: they count as unreadable. With
 * GPUHIER_DIAG_GRAPH_NODES=1 each kernel node is printed with what else
 * was compared on the H200 (programmatic dependencies, parameters of a
 * tensor map's size, shared memory, registers; docs/sassprobe.md "Graph
 * properties"), none of which decides.
 */
#include "collector/graphscan.h"

#include "collector/collector_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SCAN_DEPTH = 8, SCAN_MAX_PARAMS = 1024, TENSOR_MAP_BYTES = 128 };

static int
scan_diag(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("GPUHIER_DIAG_GRAPH_NODES") != NULL;
    return v;
}

/* The function a kernel node launches (its CUkernel's in the current context when func is NULL). */
static CUfunction
node_function(CUgraphNode n, unsigned dims[7])
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof(p));
    if (gh.cuGraphKernelNodeGetParams_v2(n, &p) != CUDA_SUCCESS)
        return NULL;
    unsigned d[7] = {p.gridDimX,  p.gridDimY,  p.gridDimZ,      p.blockDimX,
                     p.blockDimY, p.blockDimZ, p.sharedMemBytes};
    memcpy(dims, d, sizeof(d));
    CUfunction f = p.func;
    if (!f && p.kern && gh.cuKernelGetFunction &&
        gh.cuKernelGetFunction(&f, p.kern) != CUDA_SUCCESS)
        f = NULL;
    return f;
}

/* A function attribute, -1 when unknown. */
static int
func_attr(CUfunction f, CUfunction_attribute a)
{
    int v = -1;
    if (!f || !gh.cuFuncGetAttribute || gh.cuFuncGetAttribute(&v, a, f) != CUDA_SUCCESS)
        v = -1;
    return v;
}

/*
 * Whether the node is a cluster launch: its launch attribute set (even to 1x1x1, as one of
 * cuBLAS's crashing kernels had), or the function compiled with a cluster size.
 */
static int
node_cluster(CUgraphNode n, CUfunction f, unsigned c[3])
{
    c[0] = c[1] = c[2] = 0;
    CUkernelNodeAttrValue v;
    memset(&v, 0, sizeof(v));
    if (gh.cuGraphKernelNodeGetAttribute &&
        gh.cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) ==
            CUDA_SUCCESS) {
        c[0] = v.clusterDim.x;
        c[1] = v.clusterDim.y;
        c[2] = v.clusterDim.z;
    }
    int w = func_attr(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
    if (w > 0 && c[0] == 0)
        c[0] = (unsigned)w, c[1] = c[2] = 1;
    return c[0] || c[1] || c[2];
}

static int
node_pdl_attribute(CUgraphNode n)
{
    CUkernelNodeAttrValue v;
    memset(&v, 0, sizeof(v));
    return gh.cuGraphKernelNodeGetAttribute &&
           gh.cuGraphKernelNodeGetAttribute(
               n, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, &v) == CUDA_SUCCESS &&
           v.programmaticStreamSerializationAllowed;
}

/*
 * Parameters: count, bytes, and those of a tensor map's size (cuFuncGetParamInfo's offsets are
 * relative to a parameter bank whose base is not itself aligned to 64, so only the size counts).
 */
static int
node_params(CUfunction f, size_t *count, size_t *bytes)
{
    int tmaps = 0;
    *count = *bytes = 0;
    if (!f || !gh.cuFuncGetParamInfo)
        return 0;
    for (size_t i = 0; i < SCAN_MAX_PARAMS; i++) {
        size_t off = 0, size = 0;
        if (gh.cuFuncGetParamInfo(f, i, &off, &size) != CUDA_SUCCESS)
            break;
        (*count)++;
        if (off + size > *bytes)
            *bytes = off + size;
        tmaps += size == TENSOR_MAP_BYTES;
    }
    return tmaps;
}

static int
ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return (x > y) - (x < y);
}

/* The nodes at either end of g's programmatic edges, sorted (NULL when none or unreadable). */
static CUgraphNode *
programmatic_ends(CUgraph g, size_t *n)
{
    *n = 0;
    size_t ne = 0;
    if (!gh.cuGraphGetEdges_v2 || gh.cuGraphGetEdges_v2(g, NULL, NULL, NULL, &ne) != CUDA_SUCCESS ||
        !ne)
        return NULL;
    CUgraphNode *from = calloc(ne, sizeof(*from)), *to = calloc(ne, sizeof(*to));
    CUgraphEdgeData *d = calloc(ne, sizeof(*d));
    CUgraphNode *ends = calloc(2 * ne, sizeof(*ends));
    if (from && to && d && ends && gh.cuGraphGetEdges_v2(g, from, to, d, &ne) == CUDA_SUCCESS) {
        for (size_t i = 0; i < ne; i++)
            if (d[i].type == CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC) {
                ends[(*n)++] = from[i];
                ends[(*n)++] = to[i];
            }
        qsort(ends, *n, sizeof(*ends), ptr_cmp);
    }
    free(from);
    free(to);
    free(d);
    if (!*n) {
        free(ends);
        return NULL;
    }
    return ends;
}

static void
mark(struct graph_scan *s, const char *name, const char *what)
{
    if (!s->first[0])
        snprintf(s->first, sizeof(s->first), "%.120s (%s)", name ? name : "?", what);
}

static void
scan_kernel(struct graph_scan *s, CUgraphNode n, const CUgraphNode *pdl, size_t npdl)
{
    unsigned dims[7] = {0}, c[3];
    CUfunction f = node_function(n, dims);
    const char *name = NULL;
    if (f && gh.cuFuncGetName && gh.cuFuncGetName(&name, f) != CUDA_SUCCESS)
        name = NULL;
    s->kernels++;
    if (!f) {
        s->unreadable++;
        mark(s, name, "function unreadable");
        return;
    }
    if (s->nkeys == s->capkeys) {
        size_t cap = s->capkeys ? 2 * s->capkeys : 64;
        uint64_t *p = realloc(s->keys, cap * sizeof(*p));
        if (!p) {
            s->unreadable++;
            mark(s, name, "out of memory");
            return;
        }
        s->keys = p;
        s->capkeys = cap;
    }
    s->keys[s->nkeys++] = graph_scan_key(name);
    int cl = node_cluster(n, f, c);
    s->clusters += cl;
    if (cl)
        mark(s, name, "clusters");
    if (!scan_diag())
        return;
    int pd =
        node_pdl_attribute(n) || (npdl && bsearch(&n, pdl, npdl, sizeof(*pdl), ptr_cmp) != NULL);
    size_t np, nb;
    int tm = node_params(f, &np, &nb);
    fprintf(
        stderr,
        "gpuhier: graph node %s grid %ux%ux%u block %ux%ux%u cluster %ux%ux%u pdl %d params %zu "
        "(%zu bytes) tensor-map-sized %d dynamic-shared %u static-shared %d max-dynamic %d "
        "regs %d\n",
        name ? name : "?", dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], c[0], c[1], c[2],
        pd, np, nb, tm, dims[6], func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
        func_attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
        func_attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS));
}

static int
scan_graph(CUgraph g, struct graph_scan *s, int depth)
{
    size_t n = 0;
    if (gh.cuGraphGetNodes(g, NULL, &n) != CUDA_SUCCESS)
        return -1;
    if (!n)
        return 0;
    CUgraphNode *nodes = calloc(n, sizeof(*nodes));
    if (!nodes || gh.cuGraphGetNodes(g, nodes, &n) != CUDA_SUCCESS) {
        free(nodes);
        return -1;
    }
    size_t npdl = 0;
    CUgraphNode *pdl = scan_diag() ? programmatic_ends(g, &npdl) : NULL;
    for (size_t i = 0; i < n; i++) {
        CUgraphNodeType t;
        CUgraph child;
        if (gh.cuGraphNodeGetType(nodes[i], &t) != CUDA_SUCCESS) {
            s->unreadable++;
            mark(s, "a node", "its type unreadable");
        } else if (t == CU_GRAPH_NODE_TYPE_KERNEL) {
            scan_kernel(s, nodes[i], pdl, npdl);
        } else if (t == CU_GRAPH_NODE_TYPE_GRAPH && depth < SCAN_DEPTH &&
                   gh.cuGraphChildGraphNodeGetGraph(nodes[i], &child) == CUDA_SUCCESS) {
            if (scan_graph(child, s, depth + 1) != 0) {
                s->unreadable++;
                mark(s, "a child graph", "unreadable");
            }
        } else if (t == CU_GRAPH_NODE_TYPE_GRAPH || t == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            s->unreadable++;
            if (t == CU_GRAPH_NODE_TYPE_GRAPH)
                mark(s, "a child graph", "nested deeper than 8 levels");
            else
                mark(s, "a conditional node",
                     "its body graphs are not readable through the driver");
        }
    }
    free(pdl);
    free(nodes);
    return 0;
}

int
graph_scan(CUgraph g, struct graph_scan *s)
{
    memset(s, 0, sizeof(*s));
    if (!g || !gh.cuGraphGetNodes || !gh.cuGraphNodeGetType || !gh.cuGraphKernelNodeGetParams_v2 ||
        !gh.cuGraphChildGraphNodeGetGraph)
        return -1;
    return scan_graph(g, s, 0);
}

int
graph_scan_safe(const struct graph_scan *s)
{
    return !s->unreadable && !s->clusters;
}

void
graph_scan_free(struct graph_scan *s)
{
    free(s->keys);
    s->keys = NULL;
    s->nkeys = s->capkeys = 0;
}

uint64_t
graph_scan_key(const char *name)
{
    /* the launch records' FNV-1a (collector_int.h) */
    return name && *name ? gh_name_hash(name) : 0;
}
