/* SPDX-License-Identifier: MIT */
/*
 * umap: an open-addressing map from a non-zero 64-bit key to a pointer,
 * for the collector's own tables (the writer's kernels, configurations and
 * pending launches; the instrumentation engine's set of counted
 * functions). Not thread-safe: each user holds its own lock.
 */
#ifndef GPUHIER_COLLECTOR_UMAP_H
#define GPUHIER_COLLECTOR_UMAP_H

#include <stdint.h>
#include <stdlib.h>

/* Open-addressing map from a non-zero 64-bit key to a pointer. */
struct umap {
    uint64_t *keys;
    void **vals;
    size_t cap, used;
};

static inline void *
umap_get(struct umap *m, uint64_t key)
{
    if (!m->cap || !key)
        return NULL;
    for (size_t i = (key * 0x9E3779B97F4A7C15ULL) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (m->keys[i] == 0)
            return NULL;
    }
}

static inline int umap_put(struct umap *m, uint64_t key, void *val);

static inline int
umap_grow(struct umap *m)
{
    struct umap n = {0};
    n.cap = m->cap ? m->cap * 2 : 1024;
    n.keys = calloc(n.cap, sizeof(*n.keys));
    n.vals = calloc(n.cap, sizeof(*n.vals));
    if (!n.keys || !n.vals) {
        free(n.keys);
        free(n.vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] && m->vals[i])
            umap_put(&n, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = n;
    return 0;
}

/* Putting NULL deletes (a tombstone: the key stays, the value is NULL). */
static inline int
umap_put(struct umap *m, uint64_t key, void *val)
{
    if (!key)
        return -1;
    if ((m->used + 1) * 2 > m->cap && umap_grow(m))
        return -1;
    for (size_t i = (key * 0x9E3779B97F4A7C15ULL) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
        if (m->keys[i] == 0) {
            m->keys[i] = key;
            m->vals[i] = val;
            m->used++;
            return 0;
        }
    }
}

#endif
