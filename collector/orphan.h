/* SPDX-License-Identifier: MIT */
#ifndef GH_COLLECTOR_ORPHAN_H
#define GH_COLLECTOR_ORPHAN_H

#include <stddef.h>

/*
 * orphan: closes the report of this process's previous program image, which
 * exec() replaced before its exit handlers could run (docs/collector.md
 * "exec"). It sets run.end_ns, keeps clean_exit = 0, adds an `exec` warning
 * event naming `next` (the report of the program that replaced it; may be
 * NULL), checkpoints the WAL and leaves the file in rollback-journal mode,
 * as a clean exit would. Counts of launches and profiled launches go to
 * *launches and *profiled (for the session file's end line). 0 or -1 with
 * the reason in err.
 */
int orphan_close(const char *path, const char *next, long long *launches, long long *profiled,
                 char *err, size_t n);

#endif
