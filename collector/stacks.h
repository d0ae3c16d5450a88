/* SPDX-License-Identifier: MIT */
#ifndef GH_COLLECTOR_STACKS_H
#define GH_COLLECTOR_STACKS_H

/* Every other thread's backtrace to stderr, once per process (diagnosis: stacks.c). */
void stacks_dump(const char *why);

#endif
