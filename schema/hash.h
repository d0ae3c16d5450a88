/* SPDX-License-Identifier: MIT */
/*
 * hash: FNV-1a, 64 bits: the collector's hash of names and table keys
 * (launch records' name_hash, configuration keys, the writer's maps, the
 * one-pass plan cache's key) and the exports' name hashes and
 * fingerprints. Header only, with no other header of the project: the
 * modules meet in the schema.
 */
#ifndef GPUHIER_SCHEMA_HASH_H
#define GPUHIER_SCHEMA_HASH_H
#include <stddef.h>
#include <stdint.h>

#define GH_FNV1A_BASIS 14695981039346656037ULL

/* `h` (GH_FNV1A_BASIS to start) followed by the `n` bytes at `data`. */
static inline uint64_t
gh_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *c = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

#endif
