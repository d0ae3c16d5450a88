/* SPDX-License-Identifier: MIT */
/*
 * fault: the GPUHIER_FAULT fault-injection list (docs/fault-injection.md),
 * read without allocation, so notes.c's fault() and a CPU test share
 * one parser.
 *
 *   GPUHIER_FAULT=<site>:<error>[:<n>][,<site>:<error>[:<n>]...]
 */
#ifndef GPUHIER_COLLECTOR_FAULT_H
#define GPUHIER_COLLECTOR_FAULT_H
#include <stddef.h>

/* One entry of the list, as fault_find() found it (pointers into the list). */
struct fault_entry {
    const char *error; /* the <error> text: a CUPTI_ERROR_* name, its short form or a number */
    size_t error_len;  /* its length (the text is not terminated there) */
    int index;         /* the entry's position in the list, from 0 */
    int has_count;     /* a whole number <n> followed <error> */
    long count;        /* <n>: only the site's first n calls fail */
};

/*
 * Finds the first entry of `list` naming `site` (the whole site name,
 * followed by ':'). 1 and *e filled when found, 0 when not (or `list` is
 * NULL or empty). A count that is not a whole number is ignored
 * (has_count 0: the site fails at every call).
 */
int fault_find(const char *list, const char *site, struct fault_entry *e);

/*
 * Whether `site` fails at this call: its entry in $GPUHIER_FAULT, and with
 * a count <n>, only its first n calls (counted per entry, for the first 16
 * entries; a later entry fails always). 1 and *e filled when it fails.
 */
int fault_take(const char *site, struct fault_entry *e);

#endif
