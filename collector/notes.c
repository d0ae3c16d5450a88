/* SPDX-License-Identifier: MIT */
/*
 * notes: what the collector says about itself, from any thread. `event`
 * and `meta` rows, run.profiling_limited notes and the one `==gpuhier==`
 * line of each, the once-only "profiling is off" (limit()), CUPTI's error
 * names and the errors GPUHIER_FAULT injects. Everything goes through the
 * writer's queue; a note made before the writer runs waits for
 * push_pending_note().
 */
#include "collector/notes.h"
#include "collector/collector_int.h"
#include "collector/fault.h"
#include "collector/options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ready;  /* push_pending_note() ran: the writer takes notes */
static int failed; /* limit() was called: profiling is off for the process */
/* limit()'s first code and message, for meta 'engine_range_profiler' (engine.c) */
static char failed_code[32], failed_msg[sizeof(((struct rec *)0)->u.limited)];

/* ------------------------------------------------------------ messages */

void
push_event(const char *level, const char *code, const char *fmt, ...)
{
    struct rec r = {.type = REC_EVENT};
    snprintf(r.u.event.level, sizeof(r.u.event.level), "%s", level);
    snprintf(r.u.event.code, sizeof(r.u.event.code), "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.u.event.message, sizeof(r.u.event.message), fmt, ap);
    va_end(ap);
    writer_push(&r);
}

void
push_meta(const char *key, const char *value)
{
    struct rec r = {.type = REC_META};
    snprintf(r.u.meta.key, sizeof(r.u.meta.key), "%s", key);
    snprintf(r.u.meta.value, sizeof(r.u.meta.value), "%s", value);
    writer_push(&r);
}

/* Appends `text` to run.profiling_limited (the writer joins notes with "; "). */
void
push_limited(const char *text)
{
    struct rec r = {.type = REC_LIMITED};
    gh_copy(r.u.limited, sizeof(r.u.limited), text);
    writer_push(&r);
}

/*
 * Counters are missing or partial: one `==gpuhier==` line (`msg`, then
 * `tail` for stderr only), the run.profiling_limited note and a warning
 * event `code`. Callers say each cause once.
 */
/*
 * A note made before the writer starts (init_profiling's bad options) would
 * be pushed into a queue that does not exist yet and lost: it waits here and
 * initialize() pushes it once the writer runs. limit() says once, so one slot.
 */
static struct {
    char code[32];
    char msg[sizeof(((struct rec *)0)->u.limited)];
} pending_note;

void
note_limited(const char *code, const char *msg, const char *tail)
{
    gh_say("%s; %s", msg, tail);
    if (!ready) {
        gh_copy(pending_note.code, sizeof(pending_note.code), code);
        gh_copy(pending_note.msg, sizeof(pending_note.msg), msg);
        return;
    }
    push_limited(msg);
    push_event("warning", code, "%s", msg);
}

/* initialize(), once the writer runs: the note made before it, if any. */
void
push_pending_note(void)
{
    ready = 1;
    if (!pending_note.msg[0])
        return;
    push_limited(pending_note.msg);
    push_event("warning", pending_note.code, "%s", pending_note.msg);
    pending_note.msg[0] = '\0';
}

/* Profiling is unavailable from now on: say why once, record it. */
void
limit(const char *code, const char *fmt, ...)
{
    if (failed)
        return;
    failed = 1;
    char msg[sizeof(((struct rec *)0)->u.limited)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gh_copy(failed_code, sizeof(failed_code), code);
    gh_copy(failed_msg, sizeof(failed_msg), msg);
    note_limited(code, msg,
                 opt.instrument != ENGINES_RANGEPROF && !opt.trace_only
                     ? "tracing continues; the instrumentation engine still tries its launches"
                     : "tracing continues without hardware counters");
}

int
limited(void)
{
    return failed;
}

const char *
limited_reason(const char **code)
{
    if (code)
        *code = failed ? failed_code : NULL;
    return failed ? failed_msg : NULL;
}

const char *
cupti_err(CUptiResult rc)
{
    const char *s = NULL;
    if (gh.cuptiGetResultString && gh.cuptiGetResultString(rc, &s) == CUPTI_SUCCESS && s)
        return s;
    return "CUPTI error";
}

/* ------------------------------------------------------------ faults */

static const struct {
    const char *name;
    CUptiResult rc;
} fault_names[] = {
    {"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES},
    {"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED},
    {"CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED", CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED},
    {"CUPTI_ERROR_HARDWARE_BUSY", CUPTI_ERROR_HARDWARE_BUSY},
    {"CUPTI_ERROR_NOT_SUPPORTED", CUPTI_ERROR_NOT_SUPPORTED},
    {"CUPTI_ERROR_NOT_INITIALIZED", CUPTI_ERROR_NOT_INITIALIZED},
    {"CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED", CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED},
    {"CUPTI_ERROR_UNKNOWN", CUPTI_ERROR_UNKNOWN},
};

/*
 * GPUHIER_FAULT=<site>:<error>[:<n>][,<site>:<error>[:<n>]...]: the named
 * call site returns <error> (a CUPTI_ERROR_* name, its short form without
 * the prefix, or a number) instead of calling CUPTI; with <n>, only its
 * first n calls do and later ones call CUPTI, so a transient failure can
 * be shown. Calls are counted per entry, for the first 16 entries (a
 * later entry, or a count that is not a number, fails always). The list
 * is parsed and counted by fault_take() (collector/fault.c, tested on the CPU).
 * docs/fault-injection.md.
 */
CUptiResult
fault(const char *site)
{
    struct fault_entry fe;
    if (!fault_take(site, &fe))
        return CUPTI_SUCCESS;
    const char *e = fe.error;
    size_t el = fe.error_len;
    if (el && e[0] >= '0' && e[0] <= '9')
        return (CUptiResult)strtol(e, NULL, 10);
    for (size_t i = 0; i < sizeof(fault_names) / sizeof(fault_names[0]); i++) {
        const char *n = fault_names[i].name;
        if ((strlen(n) == el && !strncmp(n, e, el)) ||
            (strlen(n + 12) == el && !strncmp(n + 12, e, el)))
            return fault_names[i].rc;
    }
    return CUPTI_ERROR_UNKNOWN;
}
