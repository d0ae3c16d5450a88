/* SPDX-License-Identifier: MIT */
/*
 * notes: what the collector says about itself (collector/notes.c).
 *
 * Every function here may be called from any thread, CUPTI callbacks
 * included: each fills one fixed-size record and pushes it into the
 * writer's queue (writer_push), so a full queue drops it and counts it.
 */
#ifndef GPUHIER_COLLECTOR_NOTES_H
#define GPUHIER_COLLECTOR_NOTES_H
#include <cupti.h>

/* An `event` row: level "info", "warning" or "error", a code, a printf message (truncated). */
void push_event(const char *level, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A `meta` row (key and value are copied, truncated to the record's sizes). */
void push_meta(const char *key, const char *value);

/* Appends `text` to run.profiling_limited (the writer joins notes with "; "). */
void push_limited(const char *text);

/*
 * Counters are missing or partial: one `==gpuhier==` line (`msg`, then
 * `tail`, which only the line gets), a run.profiling_limited note and a
 * warning event `code`. Callers say each cause once. Before the writer
 * runs (push_pending_note() not yet called) the note waits in one slot:
 * only the line is said at once.
 */
void note_limited(const char *code, const char *msg, const char *tail);

/*
 * initialize(), once the writer runs: pushes the note made before it, if
 * any; from then on note_limited() pushes at once.
 */
void push_pending_note(void);

/*
 * Profiling is off for the rest of the process (a bad option, counters
 * unavailable): says why once with note_limited(), "tracing continues
 * without hardware counters"; later calls say nothing.
 */
void limit(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 once limit() was called. */
int limited(void);

/*
 * limit()'s first message (static storage), *code (may be NULL) its
 * code; NULL and *code NULL while limit() was never called.
 */
const char *limited_reason(const char **code);

/* CUPTI's name for `rc` (static string), "CUPTI error" when it has none. */
const char *cupti_err(CUptiResult rc);

/*
 * GPUHIER_FAULT (docs/fault-injection.md): the error the call site `site`
 * is to return instead of calling CUPTI, CUPTI_SUCCESS when it is to call
 * CUPTI. Counted sites fail only their first n calls.
 */
CUptiResult fault(const char *site);

#endif
