/* SPDX-License-Identifier: MIT */
#ifndef GH_COLLECTOR_STACKS_H
#define GH_COLLECTOR_STACKS_H

/* Every other thread's backtrace to stderr, once per process (diagnosis: stacks.c). */
void stacks_dump(const char *why);
/* GPUHIER_DIAG_STACKS=N: the dump N seconds from now too, from a thread of its own. */
void stacks_arm(long seconds);

#endif
